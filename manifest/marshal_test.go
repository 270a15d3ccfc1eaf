package manifest

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/codemode-dev/codemode/ir"
)

// TestMarshalSchemasAsEncodingJSON: Marshal, which writes schemas with the
// Pinner's encoder (indented as it writes) and the rest around them with a
// frameWriter, gives encoding/json's bytes: shared and nested maps, nil and
// empty schemas, every escape (no HTML escaping), numbers, other Go types
// inside a schema, a key that spelled the old stand-in's, nesting past
// maxIndent, and every golden manifest; a schema encoding/json cannot
// write fails the same way.
func TestMarshalSchemasAsEncodingJSON(t *testing.T) {
	shared := map[string]any{"type": "string", "description": "<a & b> \u2028 \x01 \xff é", "enum": []any{"x", json.Number("1.5e3"), 2.0, 1e21, int64(-3), nil, true}}
	// A map met three times at one depth in a piece is copied from where
	// it was written the second time in that piece, and met again in
	// another piece from that piece (tool a's input and original).
	// deep nests past maxIndent (where the manifest turns compact), a
	// shared map at every depth, with lists and empty containers between.
	deep := ir.Schema{"type": "object"}
	for i := range maxIndent + 8 {
		if i%3 == 0 {
			deep = ir.Schema{"items": []any{deep, shared, map[string]any{}}, "s": shared, "n": i}
		} else {
			deep = ir.Schema{"properties": deep, "s": shared, "e": []any{}}
		}
	}
	m := &Manifest{Version: Version, Services: []Service{{
		Name: "s", File: "s.py", Defs: map[string]any{"A": shared, "B": map[string]any{"$ref": "#/$defs/A"}, "C": map[string]any{}, "D": true, "E": []any{shared}},
		Tools: []Tool{
			{Wire: "a", Input: ir.Schema{"properties": map[string]any{"x": shared, "y": shared, "z": shared}}, Original: ir.Schema{"properties": map[string]any{"x": shared}}, Output: ir.Schema{}, Pin: "p"},
			{Wire: "b<&>", Description: "<&>", Input: nil, Observed: ir.Schema{"other": map[string]string{"k": "<v>"}, "l": []string{"&"}, "nilmap": map[string]any(nil), "nillist": []any(nil), "z": json.Number("")}},
			{Wire: "c", Input: ir.Schema{"\x00codemode-schema-": 1, "s": shared}},
			{Wire: "d", Input: deep, Output: ir.Schema{"a": shared, "b": map[string]any{"c": shared, "l": []any{shared, []any{}, map[string]any{}, []any{[]any{shared}}}}}},
		},
	}, {Name: "empty", Tools: nil}}}
	check := func(name string, m *Manifest) {
		t.Helper()
		got, err := Marshal(m)
		want, werr := marshalStd(m)
		if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
			t.Fatalf("%s: error %v, encoding/json %v", name, err, werr)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: Marshal differs from encoding/json:\n%s\nwant:\n%s", name, got, want)
		}
	}
	check("made", m)
	if _, ok := marshalIndented(m); !ok {
		t.Error("marshalIndented gave up on a manifest it can write")
	}
	loop := []any{nil}
	loop[0] = loop
	cyc := map[string]any{"a": 1, "b": 2}
	cyc["c"] = cyc
	// Each of a service's defs is a piece of its own: one that cannot be
	// written fails the manifest as a tool's schema does.
	if _, err := Marshal(&Manifest{Version: Version, Services: []Service{{Name: "s", Defs: map[string]any{"A": shared, "B": math.NaN()}}}}); err == nil {
		t.Error("NaN in a def: no error")
	}
	for name, s := range map[string]ir.Schema{"NaN": {"x": math.NaN()}, "a list in itself": {"x": loop}, "a map in itself": cyc} {
		bad := &Manifest{Version: Version, Services: []Service{{Name: "s", Tools: []Tool{{Wire: "bad", Input: s}}}}}
		if _, err := Marshal(bad); err == nil {
			t.Errorf("%s in a schema: no error", name)
		}
		if got, want := Pin(&ir.Tool{Wire: "bad", Input: s}), PinPrefix+"74234e98afe7498fb5daf1f36ac2d78acc339464f950703b8c019892f982b90b"; got != want {
			t.Errorf("%s: pin %s, want the pin of null %s", name, got, want)
		}
	}
	files, _ := filepath.Glob("../testdata/golden/*/want/manifest.json")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var gm Manifest
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if err := dec.Decode(&gm); err != nil {
			t.Fatal(err)
		}
		check(f, &gm)
	}
	if len(files) < 5 {
		t.Errorf("%d golden manifests", len(files))
	}
}

// TestIndentIsJSONIndent: indentJSON writes what json.Indent writes (for
// nesting within maxIndent), on every golden manifest and on empty and
// nested containers and escapes.
func TestIndentIsJSONIndent(t *testing.T) {
	files, _ := filepath.Glob("../testdata/golden/*/want/manifest.json")
	docs := [][]byte{[]byte(`{"a":[],"b":{},"c":[{}],"d":"x\\\"{,:","e":[1,{"f":[[]]}],"g":{"h":null}}`)}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var c bytes.Buffer
		if err := json.Compact(&c, data); err != nil {
			t.Fatal(err)
		}
		docs = append(docs, c.Bytes())
	}
	for i, src := range docs {
		var want bytes.Buffer
		if err := json.Indent(&want, src, "", "  "); err != nil {
			t.Fatal(err)
		}
		if got := indentJSON(src, maxIndent); !bytes.Equal(got, want.Bytes()) {
			t.Errorf("doc %d: indentJSON differs from json.Indent", i)
		}
	}
}

// TestMarshalManyToolsAsEncodingJSON: a manifest with enough tools that
// Marshal writes and indents their schemas on several goroutines gives
// encoding/json's bytes, shared definitions, nesting past maxIndent and
// empty schemas included; the frame and schemas joined on four
// goroutines (a join per core of 1 kB) too.
func TestMarshalManyToolsAsEncodingJSON(t *testing.T) {
	defer func(n, procs int) { joinPerCore = n; runtime.GOMAXPROCS(procs) }(joinPerCore, runtime.GOMAXPROCS(4))
	shared := map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "string", "enum": []any{"x", "<y>"}}}, "required": []any{"a"}}
	deep := map[string]any{"type": "string"}
	for range maxIndent + 5 {
		deep = map[string]any{"items": deep, "type": "array"}
	}
	var tools []Tool
	for i := range 200 {
		in := ir.Schema{"type": "object", "properties": map[string]any{"s": shared, "n": map[string]any{"type": "integer", "minimum": json.Number(strconv.Itoa(i))}}}
		if i%7 == 0 {
			in["properties"].(map[string]any)["deep"] = deep
		}
		tl := Tool{Wire: ir.WireName("t" + strconv.Itoa(i)), Input: in, Pin: "p"}
		if i%3 == 0 {
			tl.Output = ir.Schema{"$ref": "#/$defs/S"}
		}
		if i%5 == 0 {
			tl.Original = ir.Schema{}
		}
		tools = append(tools, tl)
	}
	m := &Manifest{Version: Version, Services: []Service{{Name: "s", File: "s.py", Defs: map[string]any{"S": shared}, Tools: tools}}}
	want, err := marshalStd(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, perCore := range []int{4 << 20, 1024} {
		joinPerCore = perCore
		got, err := Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("joined %d bytes per core: Marshal differs from encoding/json (%d bytes, want %d)", perCore, len(got), len(want))
		}
	}
}
