package parse

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// decodeJSONTokenV1 is decodeJSON as it was before jsontext read its
// tokens: encoding/json's Decoder.Token, the whole document at once. It is
// the reference the jsontext reader is held to.
func decodeJSONTokenV1(file string, data []byte) (any, order, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	t := &v1Tokens{dec: dec, order: order{}}
	v, err := t.value()
	if err != nil {
		var ignored any
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if derr := dec.Decode(&ignored); derr != nil {
			err = derr
		}
		return nil, nil, jsonError(file, data, err)
	}
	if rest := bytes.TrimSpace(data[dec.InputOffset():]); len(rest) > 0 {
		line, col := lineCol(data, int(dec.InputOffset())+bytes.Index(data[dec.InputOffset():], rest[:1]))
		return nil, nil, &Error{File: file, Line: line, Col: col, Msg: "invalid JSON: data after the top-level value"}
	}
	return v, t.order, nil
}

type v1Tokens struct {
	dec   *json.Decoder
	order order
	path  []string
}

func (t *v1Tokens) value() (any, error) {
	tok, err := t.dec.Token()
	if err != nil {
		return nil, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return tok, nil
	}
	if len(t.path) >= maxJSONDepth {
		return nil, errTooDeep
	}
	if d == '[' {
		out := []any{}
		for i := 0; t.dec.More(); i++ {
			t.path = append(t.path, strconv.Itoa(i))
			v, err := t.value()
			t.path = t.path[:len(t.path)-1]
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		_, err := t.dec.Token()
		return out, err
	}
	out := map[string]any{}
	var keys []string
	record := (&tokens{path: t.path}).records()
	for t.dec.More() {
		kt, err := t.dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := kt.(string)
		t.path = append(t.path, key)
		v, err := t.value()
		t.path = t.path[:len(t.path)-1]
		if err != nil {
			return nil, err
		}
		out[key] = v
		if record {
			keys = append(keys, key)
		}
	}
	if _, err := t.dec.Token(); err != nil {
		return nil, err
	}
	if record {
		t.order[jsonPointer(t.path)] = keys
	}
	return out, nil
}

// jsonTokensAsV1 fails t unless decodeJSON (whole) gives exactly what the
// encoding/json token reader gave: value, key order, error.
func jsonTokensAsV1(t *testing.T, name string, data []byte) {
	t.Helper()
	got, gotOrd, err := decodeJSONWhole(data)
	want, wantOrd, werr := decodeJSONTokenV1("x.json", data)
	if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
		t.Fatalf("%s: error %v, the encoding/json reader's %v", name, err, werr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: value differs from the encoding/json reader's", name)
	}
	if !reflect.DeepEqual(gotOrd, wantOrd) {
		t.Fatalf("%s: key order differs from the encoding/json reader's", name)
	}
}

// TestJSONTokensAsEncodingJSON: the jsontext reader decodes every JSON
// document of the corpus, and documents built to probe strings, numbers,
// repeated keys, nesting and errors, to the value, key order and error
// the encoding/json token reader it replaced gave.
func TestJSONTokensAsEncodingJSON(t *testing.T) {
	files, _ := filepath.Glob("../testdata/corpus/*/*.json")
	if len(files) < 20 {
		t.Fatalf("%d corpus files", len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		jsonTokensAsV1(t, filepath.Base(f), data)
	}
	docs := []string{
		``, ` `, `null`, `true`, `false`, `0`, `-0`, `1e400`, `-1.5E+3`, `123456789012345678901234567890`, `01`, `1.`, `.5`, `+1`, `-`, `1e`, `NaN`, `tru`, `nul`,
		`""`, `"a\"b\\c\/d\b\f\n\r\t"`, `"\u00e9\u0000\uffff"`, `"\ud83d\ude00"`, `"\ud800"`, `"\ud800x"`, `"\ud800\u0041"`, `"\udc00\ud800"`, `"\ud800\ud800\udc00"`,
		`"\u12"`, `"\x"`, `"\u00G0"`, "\"a\tb\"", "\"a\x00b\"", "\"\x7f\"", "\"\xff\"", "\"a\xc3\"", "\"\xe2\x82\"", "\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\"", "\"é€😀\"",
		`{"a":1,"a":2}`, `{"properties":{"b":1,"a":2,"b":3}}`, `{"paths":{"/x":{"get":{},"get":{}}}}`, "{\"\xff\":1,\"\\u00e9\":2}",
		`{"a":1,}`, `{"a" 1}`, `{"a":}`, `{,}`, `{1:2}`, `{"a":1 "b":2}`, `[1,]`, `[1 2]`, `[,1]`, `[`, `{`, `]`, `}`, `[}`, `{]`, `{"a":[}`, `"abc`,
		`{} {}`, `{} x`, "{}\u00a0", "{}\v", "{}\f", "1 2", `[] ]`, "\xef\xbb\xbf{}", "\t\r\n {}\n", `{"a":{"b":[{"c":null}]}}`, `[[],[[]],{}]`,
	}
	for _, n := range []int{maxJSONDepth - 1, maxJSONDepth, maxJSONDepth + 1} {
		docs = append(docs, strings.Repeat("[", n)+strings.Repeat("]", n), strings.Repeat(`{"a":`, n)+"1"+strings.Repeat("}", n), strings.Repeat("[", n))
	}
	for _, doc := range docs {
		jsonTokensAsV1(t, strconv.Quote(trunc(doc)), []byte(doc))
	}
}

func trunc(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// FuzzJSONTokens: whatever the document, the jsontext reader gives what
// the encoding/json token reader gave (value, key order, error).
func FuzzJSONTokens(f *testing.F) {
	// Small seeds only: the corpus is TestJSONTokensAsEncodingJSON's, and
	// seeds of tens of kB leave the fuzzer barely running.
	f.Add([]byte(`{"paths":{"/b":{},"/a":{"post":{},"get":{}}},"properties":{"z":1,"a":2,"z":3}}`))
	f.Add([]byte(`[1, 2.5e3, "x\u00e9\ud800\u0041", true, null, {"a": [{}]}]`))
	f.Add([]byte("{\"a\xff\":\"\xed\xa0\x80\",}"))
	f.Add([]byte(`{} {}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		jsonTokensAsV1(t, "doc", data)
	})
}
