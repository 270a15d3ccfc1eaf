package parse

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// decodeJSONWhole is decodeJSON without splitting.
func decodeJSONWhole(data []byte) (any, order, error) {
	old := jsonSplitMin
	jsonSplitMin = 1 << 62
	defer func() { jsonSplitMin = old }()
	return decodeJSON("x.json", data)
}

// TestJSONSplitDecodesAsWhole: decoding a large JSON object in pieces on
// several goroutines gives the value and key order decoding it whole
// gives, for the corpus's JSON specs and tool lists (the small ones split
// as if large) and for documents built to split at every level, repeated
// keys included; a document it cannot split, or whose pieces fail, is
// decoded whole, with the whole's error.
func TestJSONSplitDecodesAsWhole(t *testing.T) {
	twoProcs(t)
	old := jsonSplitMin
	jsonSplitMin = 0
	defer func() { jsonSplitMin = old }()
	var docs []string
	for _, glob := range []string{"../testdata/corpus/openapi/*.json", "../testdata/corpus/mcp/*.json"} {
		files, _ := filepath.Glob(glob)
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			docs = append(docs, string(data))
		}
	}
	if len(docs) < 20 {
		t.Fatalf("%d JSON documents", len(docs))
	}
	built := []string{
		`{"openapi":"3.0.0","paths":{"/a":{"get":{"parameters":[{"name":"x"}]}},"/b":{"post":{}}},"components":{"schemas":{"A":{"type":"object","properties":{"k":{"type":"string"},"j":{}}},"B":{"type":"string"}}}}`,
		" \n{ \"a\" : { \"x\" : 1 , \"y\" : [ 2 , {\"z\":\"}\\\"{\"} ] } ,\r\n\t\"b\":0 , \"properties\":{\"q\":1,\"p\":2}}\n ",
		`{"a":{"x":1,"y":[2]},"b":0,"a":{"z":3,"w":{"v":4}}}`,        // a key split twice
		`{"a":{"x":1,"x":2,"y":3},"a":5,"properties":{"b":1,"b":2}}`, // repeats, split and not
		`{"paths":{"/a":{},"/a":{"get":{}}},"n":-1.5e3,"t":true,"f":false,"z":null}`,
	}
	for i, doc := range append(docs, built...) {
		got, gotOrd, err := decodeJSON("x.json", []byte(doc))
		want, wantOrd, werr := decodeJSONWhole([]byte(doc))
		if err != nil || werr != nil {
			t.Fatalf("doc %d: %v / %v", i, err, werr)
		}
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotOrd, wantOrd) {
			t.Errorf("doc %d: split decode differs from the whole", i)
		}
	}
	for i, doc := range built[:2] {
		if _, _, ok := decodeJSONSplit([]byte(doc)); !ok {
			t.Errorf("built doc %d: not split", i)
		}
	}
	for _, f := range []string{"github-rest.json", "kubernetes-swagger.json"} {
		data, err := os.ReadFile("../testdata/corpus/openapi/" + f)
		if err != nil {
			t.Fatal(err)
		}
		jsonSplitMin = old
		if _, _, ok := decodeJSONSplit(data); !ok {
			t.Errorf("%s: not split", f)
		}
		jsonSplitMin = 0
	}
	bad := []string{
		`{"a":{"x":1,"y":[2},"b":0}`, `{"a":{"x":1},"b":tru}`, `{"a":{"x":1},"b":0}x`, `{"a":{"x":1} "b":0}`,
		`{"a":{"x":1},"b":"\q"}`, `{"a":{"x":1},"b":0,}`, `[{"a":1},{"b":2}]`, `{"a":{"x":1},"b":{}`, "\xef\xbb\xbf{\"a\":{\"x\":1},\"b\":0}",
	}
	for _, doc := range bad {
		got, gotOrd, err := decodeJSON("x.json", []byte(doc))
		want, wantOrd, werr := decodeJSONWhole([]byte(doc))
		if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() || !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotOrd, wantOrd) {
			t.Errorf("%q: %v %v, whole %v %v", doc, got, err, want, werr)
		}
	}
}

// FuzzJSONSplit: whatever the document, decoding it in pieces gives what
// decoding it whole gives (value, key order, error).
func FuzzJSONSplit(f *testing.F) {
	f.Add(`{"a":{"x":1,"y":[2]},"b":0,"paths":{"/p":{"get":{}}}}`)
	f.Add(`{"a":{"x":1,"x":2},"a":3,"properties":{"b":"\u00e9\"}"}}`)
	f.Add(`{"a":{"b":{"c":{"d":1}}},"e":[{"f":{}}]}`)
	twoProcs(f)
	f.Fuzz(func(t *testing.T, doc string) {
		splitDecodesAsWhole(t, decodeJSON, "x.json", &jsonSplitMin, doc)
	})
}

// TestJSONSplitDeepNestingBounded: the splitter goes no more than
// maxSplitDepth objects in, however deep a large member nests (each level
// skipped its members again: 9,000 levels around 2 MB took 19 s), and the
// document still decodes as the whole.
func TestJSONSplitDeepNestingBounded(t *testing.T) {
	twoProcs(t)
	n := 50
	doc := strings.Repeat(`{"s":1,"a":`, n) + `"` + strings.Repeat("x", 1<<20) + `"` + strings.Repeat("}", n)
	data := []byte(doc)
	sp := &jsonSplitter{data: data, target: len(data) / 4}
	if _, ok := sp.members(0, nil, ""); !ok || len(sp.pieces) < 2 {
		t.Fatalf("not split: %d pieces", len(sp.pieces))
	}
	for _, p := range sp.pieces {
		if len(p.path) > maxSplitDepth {
			t.Fatalf("a piece %d objects in", len(p.path))
		}
	}
	got, gotOrd, err := decodeJSON("x.json", data)
	want, wantOrd, werr := decodeJSONWhole(data)
	if err != nil || werr != nil || !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotOrd, wantOrd) {
		t.Fatalf("split decode differs from the whole: %v / %v", err, werr)
	}
}

// TestSkipJSONValueEndsAsDecoder: for every value three levels into the
// corpus's JSON documents (indentation, escaped quotes and all), the
// splitter's skip ends it where jsontext does, and so does every end it
// remembers for the containers in it.
func TestSkipJSONValueEndsAsDecoder(t *testing.T) {
	files, _ := filepath.Glob("../testdata/corpus/*/*.json")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := jsontext.NewDecoder(bytes.NewReader(data), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
		want := map[int]int{} // start -> end of each value
		var starts []int
		for {
			k := dec.PeekKind()
			if k == 0 {
				break
			}
			// The offset before the value is after the whitespace.
			at := int(dec.InputOffset())
			at += len(data[at:]) - len(bytes.TrimLeft(data[at:], " \t\r\n,:"))
			if k == '}' || k == ']' {
				dec.ReadToken()
				want[starts[len(starts)-1]] = int(dec.InputOffset())
				starts = starts[:len(starts)-1]
				continue
			}
			if dec.StackDepth() > 3 || k != '{' && k != '[' {
				if kind, n := dec.StackIndex(dec.StackDepth()); kind == '{' && n%2 == 0 {
					dec.ReadToken() // a name
					continue
				}
				dec.SkipValue()
				if dec.StackDepth() <= 3 {
					want[at] = int(dec.InputOffset())
				}
				continue
			}
			dec.ReadToken()
			starts = append(starts, at)
		}
		if len(want) < 10 {
			t.Fatalf("%s: %d values", f, len(want))
		}
		for start, end := range want {
			ends := map[int]int{}
			if got, ok := skipJSONValue(data, start, ends); !ok || got != end {
				t.Fatalf("%s: value at %d skipped to %d %v, jsontext ends it at %d", filepath.Base(f), start, got, ok, end)
			}
			for s, e := range ends {
				if we, ok := want[s]; ok && we != e {
					t.Fatalf("%s: remembered end %d for %d, jsontext's %d", filepath.Base(f), e, s, we)
				}
			}
		}
	}
}

// BenchmarkJSONSplitScan: the splitter's scan for where to cut the large
// JSON specs, which runs on one goroutine before the pieces decode.
func BenchmarkJSONSplitScan(b *testing.B) {
	for _, f := range []string{"github-rest.json", "kubernetes-swagger.json"} {
		data, err := os.ReadFile("../testdata/corpus/openapi/" + f)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(strings.TrimSuffix(f, ".json"), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				sp := &jsonSplitter{data: data, target: max(1, len(data)/4)}
				if _, ok := sp.members(0, nil, ""); !ok {
					b.Fatal("not split")
				}
			}
		})
	}
}
