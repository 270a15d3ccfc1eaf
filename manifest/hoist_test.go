package manifest

import (
	"reflect"
	"testing"

	"github.com/codemode-dev/codemode/ir"
)

// TestHoisterRemembersOnlySettledDefs: a Hoister gives a "$defs" object it
// meets again (parse shares one among tools) what Hoist gives it, the
// first meeting (which adds names to Defs) included, and a definition that
// is not a map or differs from the one of its name stays in the schema.
func TestHoisterRemembersOnlySettledDefs(t *testing.T) {
	x, y, z := map[string]any{"type": "string"}, map[string]any{"type": "integer"}, map[string]any{"type": "boolean"}
	a := map[string]any{"a": x, "b": true}
	b := map[string]any{"a": y, "c": z}
	schema := func(defs map[string]any) ir.Schema { return ir.Schema{"type": "object", "$defs": defs} }
	want := []ir.Schema{
		{"type": "object"}, // a: both names new
		{"type": "object", "$defs": map[string]any{"b": true}}, // a again: true is not the same map
		{"type": "object", "$defs": map[string]any{"a": y}},    // b: "a" is another definition
		{"type": "object", "$defs": map[string]any{"a": y}},    // b again
		{"type": "object", "$defs": map[string]any{"b": true}}, // a, remembered
	}
	h := &Hoister{Defs: map[string]any{}}
	plain := map[string]any{}
	for i, defs := range []map[string]any{a, a, b, b, a} {
		got := h.Hoist(schema(defs))
		if !reflect.DeepEqual(got, want[i]) {
			t.Errorf("schema %d: Hoister gives %v, want %v", i, got, want[i])
		}
		if p := Hoist(plain, schema(defs)); !reflect.DeepEqual(p, want[i]) {
			t.Errorf("schema %d: Hoist gives %v, want %v", i, p, want[i])
		}
	}
	if wantDefs := map[string]any{"a": x, "b": true, "c": z}; !reflect.DeepEqual(h.Defs, wantDefs) || !reflect.DeepEqual(plain, wantDefs) {
		t.Errorf("Defs %v and %v, want %v", h.Defs, plain, wantDefs)
	}
}
