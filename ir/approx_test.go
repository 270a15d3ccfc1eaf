package ir

import "testing"

func TestApproximatedKeywordsAreDiagnosed(t *testing.T) {
	svc := &Service{Name: "s", Source: Source{Kind: SourceMCP, File: "tools.json"}}
	svc.Tools = []*Tool{{
		Wire: "t", Py: "t", Pointer: "/tools/0",
		Input: Schema{"type": "object", "properties": map[string]any{
			"a": map[string]any{"type": "string", "not": map[string]any{"const": "x"}},
			"m": map[string]any{"type": "object", "patternProperties": map[string]any{"^x": map[string]any{}}},
		}},
		Params: []*Param{{Arg: "a", Py: "a"}, {Arg: "m", Py: "m"}},
	}}
	Resolve(svc)
	var got []string
	for _, d := range svc.Diagnostics {
		got = append(got, d.String())
	}
	want := []string{
		"warning: tools.json#/tools/0/inputSchema/properties/a/not: the Python type cannot express not; the schema in the manifest keeps it (and validates arguments with it) [approximated-keyword]",
		"warning: tools.json#/tools/0/inputSchema/properties/m/patternProperties: the Python type cannot express patternProperties; the schema in the manifest keeps it (and validates arguments with it) [approximated-keyword]",
	}
	if len(got) != len(want) {
		t.Fatalf("got %q", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("got %q\nwant %q", got[i], want[i])
		}
	}
}

// TestApproximationWalkSkipsOnlyCleanSchemas: the walk skips a subschema
// only when no approximated keyword is in it or under it where the walk
// looks (not under enum, default, examples or x- keywords), and a schema
// map that holds itself is walked as before instead of looping.
func TestApproximationWalkSkipsOnlyCleanSchemas(t *testing.T) {
	deep := map[string]any{"items": map[string]any{"anyOf": []any{map[string]any{"type": "string"}, map[string]any{"if": map[string]any{}}}}}
	self := map[string]any{"type": "object"}
	self["properties"] = map[string]any{"me": self}
	h := hasApprox{}
	for _, c := range []struct {
		name string
		v    any
		want bool
	}{
		{"clean", map[string]any{"type": "string", "properties": map[string]any{"a": map[string]any{"type": "integer"}}}, false},
		{"nested in a list", deep, true},
		{"under x-", map[string]any{"x-schema": map[string]any{"not": map[string]any{}}}, false},
		{"under enum", map[string]any{"enum": []any{map[string]any{"not": 1}}}, false},
		{"the keyword itself", map[string]any{"dependentRequired": map[string]any{}}, true},
		{"holds itself", self, true},
		{"empty", map[string]any{}, false},
	} {
		if got := h.in(c.v, 0); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
