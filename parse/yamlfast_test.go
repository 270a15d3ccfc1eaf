package parse

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// checkFast decodes data with decodeYAMLFast, on one goroutine and split
// in pieces (as if large, on two), and, when it accepts, fails unless the
// yaml.v3 path accepts it too with the same value and order. It says
// whether the fast path accepted on one goroutine and split.
func checkFast(t testing.TB, name string, data []byte) (whole, split bool) {
	t.Helper()
	old := fastSplitMin
	defer func() { fastSplitMin = old }()
	fastSplitMin = 1 << 62
	whole = checkFastOnce(t, name, data)
	twoProcs(t)
	fastSplitMin = 0
	split = checkFastOnce(t, name, data)
	return whole, split
}

func checkFastOnce(t testing.TB, name string, data []byte) bool {
	t.Helper()
	v, ord, ok := decodeYAMLFast(data)
	if !ok {
		return false
	}
	want, wantOrd, err := decodeYAMLNodes(name, data)
	if err != nil {
		t.Fatalf("%s: fast path accepted what yaml.v3 refuses (%v):\n%q", name, err, data)
	}
	if !reflect.DeepEqual(v, want) {
		t.Fatalf("%s: value differs:\nfast %#v\nyaml %#v\ninput %q", name, v, want, data)
	}
	if !reflect.DeepEqual(ord, wantOrd) {
		t.Fatalf("%s: order differs:\nfast %#v\nyaml %#v\ninput %q", name, ord, wantOrd, data)
	}
	return true
}

// yamlTestFiles are every YAML file under testdata.
func yamlTestFiles(t testing.TB) []string {
	var files []string
	for _, root := range []string{"../testdata", "testdata"} {
		_ = filepath.Walk(root, func(path string, info os.FileInfo, err error) error {
			if err == nil && !info.IsDir() && (strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
				files = append(files, path)
			}
			return nil
		})
	}
	if len(files) == 0 {
		t.Fatal("no YAML files found")
	}
	return files
}

// TestYAMLFastMatchesYAMLv3OnTestdata: on every YAML file of testdata the
// fast path declines or gives what yaml.v3 gives, on one goroutine and
// split, and it declines none of the corpus's OpenAPI specs (stripe.yaml
// among them) either way, so their speed is real (decodeFastSplit
// declines a document it cuts in fewer than two pieces).
func TestYAMLFastMatchesYAMLv3OnTestdata(t *testing.T) {
	for _, f := range yamlTestFiles(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		whole, split := checkFast(t, f, data)
		if (!whole || !split) && strings.Contains(f, "corpus/openapi/") {
			t.Errorf("%s: fast path declined (on one goroutine %v, split %v)", f, !whole, !split)
		}
	}
}

// fastTricky are snippets at the edges of the subset: folding, chomping,
// indentation indicators, compact and indentless sequences, comments,
// quoting and escapes, and constructs the fast path declines.
var fastTricky = []string{
	"a: 1\nb: -1\nc: 0x1F\nd: 1e3\ne: .inf\nf: ~\ng: yes\nh: True\ni: 2001-12-14\nj: 1_000\nk: <<\n",
	"a: b\n  c\n\n  d\n\n\n  e # f\ng: h\n",
	"a: b\n  # c\nd: e\n",
	"a: >\n  x\n  y\n\n  z\n   w\n  v\n",
	"a: |+\n  x\n\n\nb: |-\n  y\n\nc: >2\n    x\n   y\nd: |1-\n  z\n",
	"- a: 1\n  b:\n  - x\n  - - y\n    - z\n-\n- |\n x\n- >-\n  y\n",
	"a:\n- 1\n- b: 2\n  c: 3\nd:\n  -   e: 4\n      f: 5\n",
	"'a''b': \"c\\td\\x41\\u00e9\\U0001F600\\N\\_\\L\\P\\0\\e \\\"\\\\\"\n\"x y\": 'z # w' # c\n",
	"a: \"\\/\"\n", "a: \"\\q\"\n", "a: \"b\n  c\"\n", "a: 'b\n  c'\n",
	"a: &x 1\nb: *x\n", "a: !!str 1\n", "<<: {a: 1}\n", "? a\n: b\n", "a: 1\na: 2\n",
	"--- \na: 1\n", "a: 1\n---\nb: 2\n", "a: 1\n...\n", "%YAML 1.2\n---\na: 1\n",
	"a: [1, 'b', \"c\", d e, -2]\nb: [ ]\nc: {}\n", "d: [a,]\n", "e: {a: 1}\n", "f: [a, [b]]\n", "g: [a: b]\n",
	"a:\tb\n", "a: b\r\n", "a: b: c\n", "a: - b\n", "a:\n  b: 1\n c: 2\n", "a:\n  - 1\n  b: 2\n",
	"  a: 1\n  b: 2\n", "  a: 1\nb: 2\n", "- 1\n- 2\n", "x\n", "", "# only\n",
	"a: |\n    \n  x\n", "a: |\nb: 1\n", "a: >\n\n  x\n", "a: |2\n   x\n  y\n", "a: |0\n x\n",
	"a: b #c\nd: e#f\n'g': h\n\"i\":\n  j\n", "properties:\n  b: 1\n  a: {}\n  c:\n    properties: {}\n",
	"paths:\n  /a/{b}:\n    get: {}\n  /c~d:\n    x: 1\n",
}

// TestYAMLFastMatchesYAMLv3OnTrickyInput: on every tricky snippet the fast
// path declines or gives what yaml.v3 gives.
func TestYAMLFastMatchesYAMLv3OnTrickyInput(t *testing.T) {
	for _, doc := range fastTricky {
		checkFast(t, "x.yaml", []byte(doc))
	}
}

// FuzzYAMLFast: whenever the fast path accepts a document, yaml.v3 takes
// it with the same value and key order.
func FuzzYAMLFast(f *testing.F) {
	for _, doc := range fastTricky {
		f.Add(doc)
	}
	files, _ := filepath.Glob("../testdata/corpus/openapi/*.yaml")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		// A few slices of each spec, cut at line starts.
		for _, at := range []int{0, len(data) / 3, len(data) / 2} {
			start := bytes.IndexByte(data[at:], '\n') + at + 1
			if at == 0 {
				start = 0
			}
			end := min(len(data), start+1500)
			f.Add(string(data[start:end]))
		}
	}
	f.Fuzz(func(t *testing.T, doc string) {
		checkFast(t, "x.yaml", []byte(doc))
	})
}

// TestYAMLFastScalars: the fast path reads plain, quoted, block and flow
// scalars as the yaml.v3 path does (checkFast), pinned here by value.
func TestYAMLFastScalars(t *testing.T) {
	for doc, want := range map[string]any{
		"a: 12":                       json.Number("12"),
		"a: -0":                       json.Number("0"),
		"a: 0o17":                     json.Number("15"),
		"a: 0x1F":                     json.Number("31"),
		"a: 1_000":                    json.Number("1000"),
		"a: 1e3":                      json.Number("1e3"),
		"a: 1.50":                     json.Number("1.50"),
		"a: .inf":                     ".inf",
		"a: .nan":                     ".nan",
		"a: ~":                        nil,
		"a: null":                     nil,
		"a:":                          nil,
		"a: # c":                      nil,
		"a: true":                     true,
		"a: FALSE":                    false,
		"a: yes":                      "yes",
		"a: off":                      "off",
		"a: 2001-12-14":               "2001-12-14",
		"a: 12:30:00":                 "12:30:00",
		"a: <<":                       "<<",
		"a: b#c":                      "b#c",
		"a: b  c  # d":                "b  c",
		"a: http://x.y/z?q=1":         "http://x.y/z?q=1",
		"a: b\n  c\n\n  d":            "b c\nd",
		"a: '1'":                      "1",
		"a: 'it''s'":                  "it's",
		"a: '\\n'":                    "\\n",
		`a: "\x41\u00e9\U0001F600"`:   "Aé😀",
		`a: "\0\a\b\t\n\v\f\r\e"`:     "\x00\a\b\t\n\v\f\r\x1b",
		`a: "\ \"\\\'\N\_\L\P"`:       " \"\\'\u0085\u00a0\u2028\u2029",
		"a: |\n  x\n   y\n\n":         "x\n y\n",
		"a: |-\n  x\n\n":              "x",
		"a: |+\n  x\n":                "x\n\n",
		"a: >\n  x\n  y\n\n  z\n":     "x y\nz\n",
		"a: >-\n  x\n   y\n  z\n":     "x\n y\nz",
		"a: |2\n   x\n":               " x\n",
		"a: >1-\n  x\n":               " x",
		"a: |\nb: 1":                  "",
		"a: [1, 'b', \"c\", d e, -2]": []any{json.Number("1"), "b", "c", "d e", json.Number("-2")},
		"a: []":                       []any{},
		"a: {}":                       map[string]any{},
	} {
		v, _, ok := decodeYAMLFast([]byte(doc + "\n"))
		if !ok {
			t.Errorf("%q: declined", doc)
			continue
		}
		if got := v.(map[string]any)["a"]; !reflect.DeepEqual(got, want) {
			t.Errorf("%q: %#v, want %#v", doc, got, want)
		}
		checkFast(t, "x.yaml", []byte(doc+"\n"))
	}
}

// TestYAMLFastDeclinesOutsideSubset: what the subset leaves out goes to
// yaml.v3, for its value or its error.
func TestYAMLFastDeclinesOutsideSubset(t *testing.T) {
	for _, doc := range []string{
		"", "# only\n", "x\n", "'x'\n", // no mapping or sequence
		"a: &x 1\nb: *x\n", "a: !!str 1\n", "a: !x 1\n", "<<: {a: 1}\n", "b:\n  <<: {a: 1}\n",
		"? a\n: b\n", "a: 1\na: 2\n", "'a': 1\na: 2\n",
		"a: 1\n---\nb: 2\n", "a: 1\n...\n", "%YAML 1.2\n---\na: 1\n", "--- a: 1\n",
		"a:\tb\n", "a: b\r\n", "\xef\xbb\xbfa: 1\n", "a: b\xc2\x85c\n", "a: b\xe2\x80\xa8c\n", "a: b\xe2\x80\xa9c\n", "a: \xef\xbb\xbfb\n", "a: \x01\n", "a: \xff\n",
		"a: \"\\/\"\n", "a: \"\\q\"\n", "a: \"\\ud800\"\n", "a: \"\\x4\"\n", "a: \"b\\\n  c\"\n",
		"a: \"b\n  c\"\n", "a: 'b\n  c'\n",
		"a: [a,]\n", "a: {a: 1}\n", "a: [a, [b]]\n", "a: [a: b]\n", "a: [a\n  , b]\n",
		"a: b: c\n", "a: - b\n", "a: -\n", "a: b\n  c: d\n", "a:\n  b: 1\n c: 2\n", "a:\n  - 1\n  b: 2\n",
		"a: 'b'\n  c\n", "a: b # c\n  d\n", "  a: 1\nb: 2\n", "a: |0\n x\n", "a: |\n    \n  x\n",
		"a: @b\n", "a: `b`\n", "a: %b\n", "a: ?b\n", "a: :b\n",
		"a:\n" + strings.Repeat("- ", maxFastDepth+1) + "x\n",
		strings.Repeat("k", maxFastKey+1) + ": v\n",
	} {
		if _, _, ok := decodeYAMLFast([]byte(doc)); ok {
			t.Errorf("%q: not declined", doc)
		}
	}
}

// TestYAMLReadableEightAtATimeMatchesByByte: the eight-byte skip over
// printable ASCII finds every byte yaml.v3 refuses, wherever it falls in
// a word: each byte value at each offset of a printable line.
func TestYAMLReadableEightAtATimeMatchesByByte(t *testing.T) {
	for c := range 256 {
		for at := range 24 {
			b := []byte(strings.Repeat("abcdefgh", 3))
			b[at] = byte(c)
			want := c >= 0x20 && c < 0x7f || c == '\n' || c == '\t' || c == '\r'
			if got := yamlReadable(b); got != want {
				t.Fatalf("byte %#x at %d: readable %v, want %v", c, at, got, want)
			}
			want = want && c != '\t' && c != '\r'
			if got := readableChars(b, true); got != want {
				t.Fatalf("byte %#x at %d: readable for the fast path %v, want %v", c, at, got, want)
			}
		}
	}
}

// TestYAMLFastReadsALargeDocumentItCannotCut: a large document the split
// finds no two pieces in (one entry holding a block scalar, one holding a
// folded plain scalar) is read on one goroutine, not declined: the split
// declined it, and yaml.v3 took seven to thirty times as long.
func TestYAMLFastReadsALargeDocumentItCannotCut(t *testing.T) {
	for _, doc := range []string{
		"a: |\n" + strings.Repeat("   line of text\n", 1<<16),
		"a: x\n" + strings.Repeat("  word word word\n", 1<<16),
	} {
		if whole, split := checkFast(t, "large.yaml", []byte(doc)); !whole || !split {
			t.Errorf("%.12q…: read whole %v, split %v; want both", doc, whole, split)
		}
	}
}
