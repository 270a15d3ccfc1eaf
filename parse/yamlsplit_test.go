package parse

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// decodeWhole is decodeYAML without splitting.
func decodeWhole(t *testing.T, data []byte) (any, order, error) {
	t.Helper()
	old := splitMin
	splitMin = 1 << 62
	defer func() { splitMin = old }()
	return decodeYAML("x.yaml", data)
}

// TestYAMLSplitDecodesAsWhole: decoding a large YAML document in pieces on
// several goroutines gives the values and key order decoding it whole
// gives, for the corpus's YAML specs (the small ones split as if large)
// and for documents built to split at every level; documents it must not
// split (a quoted scalar or flow collection over two lines, a document
// marker, an alias to another piece's anchor, a tab) are decoded whole.
func TestYAMLSplitDecodesAsWhole(t *testing.T) {
	twoProcs(t)
	splitEverything(t)
	var docs []string
	files, _ := filepath.Glob("../testdata/corpus/openapi/*.yaml")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, string(data))
	}
	if len(docs) < 3 {
		t.Fatalf("%d YAML specs", len(docs))
	}
	stripe, err := os.ReadFile("../testdata/corpus/openapi/stripe.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := decodeSplit(stripe); !ok {
		t.Error("stripe.yaml not split")
	}
	const split = `# head
openapi: 3.0.0
info: {title: "t, [x]", version: '1'}  # c
paths:
  /a:
    get:
      description: >-
        folded
        text: not a key

      x-list:
      - one
      - two: 2
  /b/{id}:
    post: &anch
      summary: "quoted: yes"
      tags: [a, "b", 'c''d']
    put: *anch
  '/c':
    get: {}
components:
  schemas:
    A:
      type: object
      properties:
        k: {type: string}
    B: !!map
      type: string
    C:
      description: |
        literal
      enum:
        - "x"
        - |-
          y
    "D":
      type: integer
  parameters:
    p:
      in: query
servers:
- url: https://x
`
	bad := map[string]string{
		"quoted over two lines":  "a:\n  b: \"x\n  c: y\"\nd:\n  e: 1\n",
		"flow over two lines":    "a:\n  b: [x,\n  c]\nd:\n  e: 1\n",
		"document marker":        "---\na:\n  b: 1\nd:\n  e: 1\n",
		"alias to another piece": "a: &x\n  b: 1\nd: *x\n",
		"tab":                    "a:\n\tb: 1\nd:\n  e: 1\n",
		"complex key":            "? a\n: 1\nd:\n  e: 1\n",
	}
	// A key that repeats: both held mappings split, each its own (the
	// last one wins, as in the whole).
	const twice = "a:\n  x: 1\n  y: [2]\nb: 0\na:\n  z: 3\n  w: {v: 4}\n"
	for i, doc := range append(docs, split, twice) {
		got, gotOrd, err := decodeYAML("x.yaml", []byte(doc))
		want, wantOrd, werr := decodeWhole(t, []byte(doc))
		if err != nil || werr != nil {
			t.Fatalf("doc %d: %v / %v", i, err, werr)
		}
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotOrd, wantOrd) {
			t.Errorf("doc %d: split decode differs from the whole", i)
		}
	}
	for _, doc := range []string{split, twice} {
		if _, ok := decodeSplit([]byte(doc)); !ok {
			t.Errorf("%.30q: not split", doc)
		}
	}
	// The split document and Stripe are joined from pieces converted on
	// their goroutines (twice, a key split twice in one mapping, is
	// converted whole).
	for i, doc := range [][]byte{[]byte(split), stripe, []byte(twice)} {
		_, pieces, ok := splitYAML(doc, true)
		if _, _, joined := joinConverted(pieces); !ok || joined != (i < 2) {
			t.Errorf("doc %d: split %v, joined from converted pieces %v", i, ok, joined)
		}
	}
	for name, doc := range bad {
		if _, ok := decodeSplit([]byte(doc)); ok {
			t.Errorf("%s: split", name)
		}
		got, gotOrd, err := decodeYAML("x.yaml", []byte(doc))
		want, wantOrd, werr := decodeWhole(t, []byte(doc))
		if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() || !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotOrd, wantOrd) {
			t.Errorf("%s: %v %v, whole %v %v", name, got, err, want, werr)
		}
	}
}

// FuzzYAMLSplit: whatever the document, decoding it in pieces gives what
// decoding it whole gives (value, key order, error).
func FuzzYAMLSplit(f *testing.F) {
	f.Add("a:\n  b: 1\n  c: |\n    x\n  d: 'y'\nz:\n  - 1\n")
	f.Add("a:\n  b: \"x\n  c: y\"\nd:\n  e: 1\n")
	f.Add("a: &x\n  b: 1\nd:\n  e: *x\n  f: 2\n")
	f.Add("a:\n  b:\n    c: >-\n      t\n\n      u: v\n    d: [1, 2]\n  e: {f: g}\nh: i # j\n")
	f.Add("'a':\n  \"b\": 1\n  c: \"#\"\nd:\n- e\n- f: g\n")
	twoProcs(f)
	f.Fuzz(func(t *testing.T, doc string) {
		splitDecodesAsWhole(t, decodeYAML, "x.yaml", &splitMin, doc)
	})
}

// TestYAMLControlCharacterInSkippedCommentRefused: a piece leaves out the
// comments before the first entry of a mapping it splits, so a character
// yaml.v3 refuses there (a control character, invalid UTF-8) passed
// unseen and the split decoded a document the whole refuses. Such a
// document is not split: it fails as a whole.
func TestYAMLControlCharacterInSkippedCommentRefused(t *testing.T) {
	twoProcs(t)
	splitEverything(t)
	for doc, want := range map[string]string{
		"a:\n#000\x000\n  0: 0000000\n000: 000\n0:\n 00000": "x.yaml: invalid YAML: control characters are not allowed",
		"# \x01\na:\n  b: 1\nc:\n  d: 2\n":                  "x.yaml: invalid YAML: control characters are not allowed",
		"a:\n  # \x7f\n  b: 1\n  c: 2\nd:\n  e: 2\n":        "x.yaml: invalid YAML: control characters are not allowed",
		"a:\n  # \xc2\x80\n  b: 1\n  c: 2\nd:\n  e: 2\n":    "x.yaml: invalid YAML: control characters are not allowed",
		"a:\n  # \xff\n  b: 1\n  c: 2\nd:\n  e: 2\n":        "x.yaml: invalid YAML: invalid leading UTF-8 octet",
	} {
		if _, ok := decodeSplit([]byte(doc)); ok {
			t.Errorf("%q: split", doc)
		}
		if _, _, err := decodeYAML("x.yaml", []byte(doc)); err == nil || err.Error() != want {
			t.Errorf("%q: error %v, want %s", doc, err, want)
		}
	}
	// A character yaml.v3 takes does not stop the split.
	if _, ok := decodeSplit([]byte("a:\n  # é \xc2\x85 \xef\xbb\xbf \xf0\x9f\x98\x80\n  b: 1\n  c: 2\nd:\n  e: 2\n")); !ok {
		t.Error("a document of readable characters not split")
	}
}

// TestYAMLSplitHostileRefusedAsWhole: a document split in pieces whose
// piece expands aliases past the limit, holds a recursive alias or nests
// too deeply fails with the one line the whole fails with (the pieces'
// nodes are gone by then: the whole is decoded again).
func TestYAMLSplitHostileRefusedAsWhole(t *testing.T) {
	twoProcs(t)
	splitEverything(t)
	// The bomb is one entry, so one piece: its aliases are expanded as
	// that piece is converted.
	laughs := "  bomb: {a: &a [x, x, x, x, x, x, x, x, x, x], b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a], c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b], d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c], e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d], f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e], g: [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]}\n"
	deep := "  deep: " + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + "\n"
	for _, c := range []struct {
		doc   string
		split bool // its pieces decode (and are converted)
		want  string
	}{
		{"openapi: 3.0.0\nx:\n  p: 1\n" + laughs + "y:\n  q: 2\n", true, "x.yaml: invalid YAML: aliases expand to too many values"},
		{"openapi: 3.0.0\nx:\n  p: 1\n  r: &r [*r]\ny:\n  q: 2\n", true, "x.yaml: invalid YAML: recursive alias"},
		{"openapi: 3.0.0\nx:\n  p: 1\n" + deep + "y:\n  q: 2\n", false, "x.yaml: invalid YAML: line 4: exceeded max depth of 10000"},
		{"openapi: 3.0.0\nx:\n  p: 1\n  s: " + strings.Repeat("s", 1<<20) + "\ny:\n  q: 2\n", true, ""},
	} {
		doc := []byte(c.doc)
		_, pieces, split := splitYAML(doc, true)
		_, _, err := decodeYAML("x.yaml", doc)
		_, _, werr := decodeWhole(t, doc)
		if split != c.split || split && len(pieces) < 2 {
			t.Errorf("%.40q: split %v (%d pieces)", doc, split, len(pieces))
		}
		if got := fmt.Sprint(err); c.want == "" && err != nil || c.want != "" && got != c.want || fmt.Sprint(werr) != got {
			t.Errorf("%.40q: error %v, whole %v, want %s", doc, err, werr, c.want)
		}
	}
}

// TestYAMLSplitOfNestedHeadersCopiesLinearly: a document of "k:" headers
// nested one in another was split one level in at every header, each
// level copying all the headers above it and holding the copy while it
// went on: the cube of the depth in bytes (2,000 levels, 2 MB: 0.7 s and
// gigabytes against 26 ms decoding it whole). The split goes a few
// mappings deep at most.
func TestYAMLSplitOfNestedHeadersCopiesLinearly(t *testing.T) {
	twoProcs(t)
	var b strings.Builder
	b.WriteString("openapi: 3.0.0\nx:\n  p: 1\n  n:\n")
	for i := range 2000 {
		b.WriteString(strings.Repeat(" ", 3+i) + "k:\n")
	}
	b.WriteString("y:\n  q: 2\n")
	doc := []byte(b.String())
	if len(doc) < splitMin {
		t.Fatalf("%d bytes: not split", len(doc))
	}
	_, pieces, ok := splitYAML(doc, false)
	if !ok {
		t.Fatal("not split")
	}
	for _, p := range pieces {
		if len(p.prefix) > 8 {
			t.Errorf("a piece %d mappings deep", len(p.prefix))
		}
	}
	got, gotOrd, err := decodeYAML("x.yaml", doc)
	want, wantOrd, werr := decodeWhole(t, doc)
	if err != nil || werr != nil || !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotOrd, wantOrd) {
		t.Errorf("split decode differs from the whole (%v, %v)", err, werr)
	}
}

// twoProcs runs the rest of the test with at least two Ps, so pieces are
// decoded side by side even on a one-CPU machine.
func twoProcs(t testing.TB) {
	if n := runtime.GOMAXPROCS(0); n < 2 {
		runtime.GOMAXPROCS(2)
		t.Cleanup(func() { runtime.GOMAXPROCS(n) })
	}
}

// splitEverything makes the rest of the test split YAML documents of any
// size, as if each were large.
func splitEverything(t *testing.T) {
	old := splitMin
	splitMin = 0
	t.Cleanup(func() { splitMin = old })
}

// splitDecodesAsWhole fails t unless decode gives doc the same value, key
// order and error split in pieces (*min 0) as decoded whole (*min huge).
func splitDecodesAsWhole(t *testing.T, decode func(string, []byte) (any, order, error), file string, min *int, doc string) {
	old := *min
	defer func() { *min = old }()
	*min = 0
	got, gotOrd, err := decode(file, []byte(doc))
	*min = 1 << 62
	want, wantOrd, werr := decode(file, []byte(doc))
	if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
		t.Fatalf("error %v, whole %v", err, werr)
	}
	if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotOrd, wantOrd) {
		t.Fatalf("split %#v %v\nwhole %#v %v", got, gotOrd, want, wantOrd)
	}
}
