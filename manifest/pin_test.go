package manifest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"testing"

	"github.com/codemode-dev/codemode/ir"
)

// marshalPin is the pin as first defined: encoding/json over the whole
// definition. Pinner must give the same bytes for every tool.
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

// TestPinnerBytesAreEncodingJSON: the hand-written encoder of Pinner writes
// what encoding/json writes for every kind of value a schema holds, shared
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
	p := NewPinner()
	for _, tool := range tools {
		if got, want := p.Pin(tool), marshalPin(tool); got != want {
			t.Errorf("%s: pin %s, encoding/json %s", tool.Wire, got, want)
		}
		if got, want := Pin(tool), marshalPin(tool); got != want {
			t.Errorf("%s: Pin %s, encoding/json %s", tool.Wire, got, want)
		}
	}
	null := sha256.Sum256([]byte("null"))
	if got := p.Pin(tools[5]); got != "sha256:"+hex.EncodeToString(null[:]) {
		t.Errorf("cycle pin = %s, want the pin of null", got)
	}
}
