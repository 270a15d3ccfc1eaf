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
