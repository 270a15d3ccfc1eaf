package manifest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"runtime"
	"strconv"
	"testing"

	"github.com/codemode-dev/codemode/ir"
)

// marshalPin is the pin as first defined (format 1): encoding/json over
// the whole definition. NewPinnerV1 must give the same bytes for every
// tool.
func marshalPin(t *ir.Tool) string {
	in := t.Original
	if in == nil {
		in = t.Input
	}
	def := struct {
		Name        ir.WireName `json:"name"`
		Description string      `json:"description"`
		Input       ir.Schema   `json:"input"`
		Output      ir.Schema   `json:"output,omitempty"`
	}{t.Wire, t.Description, in, t.Output}
	j, err := json.Marshal(def)
	if err != nil {
		j = []byte("null")
	}
	sum := sha256.Sum256(j)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// marshalPinV2 is format 2 by encoding/json: the definition with every
// "$defs" object replaced by its names mapped to the "sha256:" hash of
// each definition (in the same form), marshalled and hashed.
func marshalPinV2(t *ir.Tool) string {
	in := t.Original
	if in == nil {
		in = t.Input
	}
	def := struct {
		Name        ir.WireName `json:"name"`
		Description string      `json:"description"`
		Input       any         `json:"input"`
		Output      any         `json:"output,omitempty"`
	}{t.Wire, t.Description, v2Form(map[string]any(in), 0), nil}
	if len(t.Output) > 0 {
		def.Output = v2Form(map[string]any(t.Output), 0)
	}
	j, err := json.Marshal(def)
	if err != nil {
		j = []byte("null")
	}
	sum := sha256.Sum256(j)
	return "v2:sha256:" + hex.EncodeToString(sum[:])
}

func v2Form(v any, depth int) any {
	if depth > 100 {
		return math.NaN() // a cycle: json.Marshal fails, as Pinner does
	}
	switch x := v.(type) {
	case map[string]any:
		if x == nil {
			return x
		}
		out := map[string]any{}
		for k, e := range x {
			if d, ok := e.(map[string]any); ok && k == "$defs" && d != nil {
				hashes := map[string]any{}
				for name, def := range d {
					j, err := json.Marshal(v2Form(def, depth+1))
					if err != nil {
						return math.NaN()
					}
					sum := sha256.Sum256(j)
					hashes[name] = "sha256:" + hex.EncodeToString(sum[:])
				}
				out[k] = hashes
				continue
			}
			out[k] = v2Form(e, depth+1)
		}
		return out
	case []any:
		if x == nil {
			return x
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = v2Form(e, depth+1)
		}
		return out
	}
	return v
}

// TestPinV2IsEncodingJSONOverDefinitionHashes: Pinner writes format 2 as
// marshalPinV2 defines it, for definitions shared between tools (hashed
// once), nested $defs, a "$defs" that is not an object, a cycle through
// $defs (the pin of "null") and every kind of value.
func TestPinV2IsEncodingJSONOverDefinitionHashes(t *testing.T) {
	leaf := map[string]any{"type": "string", "pattern": "^<a&b>$", "enum": []any{"x\u2028y", "\xff"}}
	shared := map[string]any{"type": "object", "properties": map[string]any{"leaf": map[string]any{"$ref": "#/$defs/Leaf"}}}
	nested := map[string]any{"type": "object", "$defs": map[string]any{"Inner": leaf}, "properties": map[string]any{"i": map[string]any{"$ref": "#/$defs/Inner"}}}
	cyc := map[string]any{"type": "object"}
	cyc["$defs"] = map[string]any{"Self": cyc}
	defs := map[string]any{"Shared": shared, "Leaf": leaf}
	tools := []*ir.Tool{
		{Wire: "a<b>", Description: "d & é \u2029", Input: ir.Schema{"properties": map[string]any{"s": map[string]any{"$ref": "#/$defs/Shared"}}, "$defs": defs}},
		{Wire: "b", Input: ir.Schema{"$defs": defs, "n": json.Number("12.5e-3"), "f": []any{1.0, 1e21, 1e-7, -0.0}, "i": []any{1, int64(-7), true, false, nil}}},
		{Wire: "c", Input: ir.Schema{"$defs": map[string]any{"Leaf": leaf}}, Original: ir.Schema{"$defs": map[string]any{"Nested": nested, "Leaf": leaf}, "other": map[string]string{"b": "<"}}},
		{Wire: "d", Input: ir.Schema{"$defs": "not an object", "x": map[string]any{"$defs": []any{leaf}}}, Output: ir.Schema{"$defs": defs}},
		{Wire: "e", Input: ir.Schema{"$defs": map[string]any(nil)}, Output: ir.Schema{"$defs": map[string]any{"N": nil, "S": "str", "Shared": shared}}},
		{Wire: "cycle", Input: ir.Schema{"c": cyc}},
		{Wire: "nan", Input: ir.Schema{"$defs": map[string]any{"X": map[string]any{"x": math.NaN()}}}},
		{Wire: "after", Input: ir.Schema{"$defs": defs, "s": shared}},
	}
	p := NewPinner()
	for _, tool := range tools {
		if got, want := p.Pin(tool), marshalPinV2(tool); got != want {
			t.Errorf("%s: pin %s, encoding/json %s", tool.Wire, got, want)
		}
		if got, want := Pin(tool), marshalPinV2(tool); got != want {
			t.Errorf("%s: Pin %s, encoding/json %s", tool.Wire, got, want)
		}
	}
	null := sha256.Sum256([]byte("null"))
	if got := p.Pin(tools[5]); got != "v2:sha256:"+hex.EncodeToString(null[:]) {
		t.Errorf("cycle pin = %s, want the pin of null", got)
	}
}

// TestPinAsKeepsEachFormat: PinAs pins a definition by the rule of the pin
// it is compared with, and names an unknown format.
func TestPinAsKeepsEachFormat(t *testing.T) {
	tool := &ir.Tool{Wire: "x", Input: ir.Schema{"$defs": map[string]any{"A": map[string]any{"type": "string"}}}}
	for _, p := range []*Pinner{NewPinner(), NewPinnerV1()} {
		if got, err := p.PinAs("sha256:0", tool); err != nil || got != marshalPin(tool) {
			t.Errorf("format 1: %s %v, want %s", got, err, marshalPin(tool))
		}
		if got, err := p.PinAs("v2:sha256:0", tool); err != nil || got != marshalPinV2(tool) {
			t.Errorf("format 2: %s %v, want %s", got, err, marshalPinV2(tool))
		}
		const want = `the manifest's pin "md5:0" is in a format this codemode does not know; regenerate the pack (codemode gen)`
		if _, err := p.PinAs("md5:0", tool); err == nil || err.Error() != want {
			t.Errorf("unknown format: %v, want %s", err, want)
		}
	}
}

// TestPinnerBytesAreEncodingJSON: the hand-written encoder of Pinner writes
// (in format 1, where definitions are spelled out) what encoding/json writes for every kind of value a schema holds, shared
// maps (met twice, then served from the cache) included, and fails where it
// fails (a cycle, NaN, a bad number) with the pin of "null".
func TestPinnerBytesAreEncodingJSON(t *testing.T) {
	shared := map[string]any{"type": "string", "pattern": "^<a&b>$", "enum": []any{"x\u2028y", "\xff", "\t\b\f\r\n\x01\"\\"}}
	cyc := map[string]any{"type": "object"}
	cyc["properties"] = map[string]any{"self": cyc}
	tools := []*ir.Tool{
		{Wire: "a<b>", Description: "d & é \u2029", Input: ir.Schema{"properties": map[string]any{"s": shared, "t": shared}}},
		{Wire: "b", Input: ir.Schema{"s": shared, "n": json.Number("12.5e-3"), "z": json.Number(""), "f": []any{1.0, 1e21, 1e-7, -0.0, 123456789.0, 3.14}, "i": []any{1, int64(-7), true, false, nil}}},
		{Wire: "c", Input: ir.Schema{"s": shared}, Original: ir.Schema{"o": shared, "other": map[string]string{"b": "<", "a": "2"}, "l": []string{"x"}, "nilmap": map[string]any(nil), "nillist": []any(nil)}},
		{Wire: "d", Input: nil, Output: ir.Schema{}},
		{Wire: "e", Input: ir.Schema{"x": 1}, Output: ir.Schema{"s": shared}},
		{Wire: "cycle", Input: ir.Schema{"c": cyc}},
		{Wire: "nan", Input: ir.Schema{"x": math.NaN()}},
		{Wire: "inf", Input: ir.Schema{"x": math.Inf(1)}},
		{Wire: "badnum", Input: ir.Schema{"x": json.Number("01")}},
		{Wire: "after", Input: ir.Schema{"s": shared, "c": map[string]any{"k": "v"}}},
	}
	p := NewPinnerV1()
	for _, tool := range tools {
		if got, want := p.Pin(tool), marshalPin(tool); got != want {
			t.Errorf("%s: pin %s, encoding/json %s", tool.Wire, got, want)
		}
		if got, want := PinV1(tool), marshalPin(tool); got != want {
			t.Errorf("%s: Pin %s, encoding/json %s", tool.Wire, got, want)
		}
	}
	null := sha256.Sum256([]byte("null"))
	if got := p.Pin(tools[5]); got != "sha256:"+hex.EncodeToString(null[:]) {
		t.Errorf("cycle pin = %s, want the pin of null", got)
	}
}

// TestSharedPinsAreEachToolsPin: Pins, whose Pinners share definition
// hashes and "$defs" bytes across goroutines, gives each tool the pin a
// Pinner of its own gives, for tools sharing definitions and $defs
// objects in every mix (run it with -race).
func TestSharedPinsAreEachToolsPin(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	a := map[string]any{"type": "string", "maxLength": 5, "description": "<a>"}
	b := map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"$ref": "#/$defs/A"}}}
	sets := []map[string]any{{"A": a}, {"A": a, "B": b}, {"B": b, "C": a}}
	var tools []*ir.Tool
	for i := range 200 {
		defs := sets[i%3]
		if i%2 == 0 { // a $defs object of its own, of shared definitions
			defs = map[string]any{"A": a, "B": b, "D" + strconv.Itoa(i%5): a}
		}
		in := ir.Schema{"type": "object", "$defs": defs, "properties": map[string]any{"p": map[string]any{"$ref": "#/$defs/A"}, "n": i}}
		tools = append(tools, &ir.Tool{Wire: ir.WireName("t" + strconv.Itoa(i)), Input: in, Output: ir.Schema{"$defs": sets[(i+1)%3], "type": "object"}})
	}
	got := Pins(tools)
	// The same tools taken in turn by two Pinners sharing, as Pins's
	// workers may (whichever runs first).
	shared := &pinShare{}
	pinners := []*Pinner{NewPinner(), NewPinner()}
	for _, p := range pinners {
		p.shared = shared
	}
	for i, tool := range tools {
		want := Pin(tool)
		if got[i] != want {
			t.Fatalf("tool %d: Pins %s, Pin %s", i, got[i], want)
		}
		if turn := pinners[i%2].Pin(tool); turn != want {
			t.Fatalf("tool %d: a sharing Pinner %s, Pin %s", i, turn, want)
		}
	}
}
