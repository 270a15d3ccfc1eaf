package pack_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/manifest"
	"github.com/codemode-dev/codemode/pack"
	"github.com/codemode-dev/codemode/runtime/monty"
	"github.com/codemode-dev/codemode/validate"
)

// TestSelfRefThroughItemsTerminates: the 194-byte tools/list whose $def
// refers to itself through items made gen grow without bound (enrich
// resolved the $ref before recursing, so its seen-set never fired).
func TestSelfRefThroughItemsTerminates(t *testing.T) {
	out := compileSources(t, pack.Service{MCP: "cycles/mcp-items-selfref.json"})
	if got := string(out.Files["mcp_items_selfref.py"]); !strings.Contains(got, "def t(*, a: N = None) -> Any:") {
		t.Errorf("unexpected surface:\n%s", got)
	}
}

// TestRefCyclesTerminateInEveryPass: $ref cycles through items,
// prefixItems, additionalProperties, properties, anyOf, oneOf, allOf, not,
// if/then/else, a chain of three $defs, $refs to $refs, a $ref with a
// pointer tail and a $ref to the whole input schema, in a tools/list and
// among an OpenAPI document's components, pass parse, enrich, Resolve, the
// Python and Go printers, the validator's schema compile and a validation,
// and Monty's type check, with output of bounded size.
func TestRefCyclesTerminateInEveryPass(t *testing.T) {
	out := compileSources(t, pack.Service{MCP: "cycles/mcp-cycles.json"}, pack.Service{OpenAPI: "cycles/openapi-cycles.json"})
	for name, data := range out.Files {
		if len(data) > 256<<10 {
			t.Errorf("%s is %d bytes", name, len(data))
		}
	}
	pythonParses(t, out)
	v, err := validate.New(validate.FromServices(out.Services))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range v.Diagnostics() {
		t.Errorf("%s", d)
	}
	var nested any
	if err := json.Unmarshal([]byte(`{"next":{"next":{"v":"a"}},"k":[{"k":[]}],"x":{"x":{}}}`), &nested); err != nil {
		t.Fatal(err)
	}
	calls := 0
	for _, svc := range out.Services {
		for _, tool := range svc.Tools {
			// Every call is answered (nil or a validation error), none hangs.
			_ = v.Check(svc.Name, tool.Wire, map[string]any{"a": nested})
			calls++
		}
	}
	if calls != 28 {
		t.Errorf("%d tools, want 28", calls)
	}
	if err := v.Check("mcp_cycles", "via_properties", map[string]any{"a": map[string]any{"next": map[string]any{"v": 1}}}); err == nil {
		t.Error("a wrong value deep in the properties cycle validated")
	}
	bin, err := monty.FindBinary()
	if err != nil {
		t.Fatal(err)
	}
	var ms []*manifest.Service
	var prog strings.Builder
	for i := range out.Manifest.Services {
		ms = append(ms, &out.Manifest.Services[i])
	}
	for _, name := range []string{"via_items", "via_itemsObj", "via_properties", "via_allOf", "via_chainA"} {
		fmt.Fprintf(&prog, "api.mcp_cycles.%s(a=%s)\n", name, map[string]string{
			"via_items": "[[]]", "via_itemsObj": `{"k": [{"k": []}]}`, "via_properties": `{"next": {"v": "a"}}`,
			"via_allOf": `{"x": {}}`, "via_chainA": `[None, {"k": [[None]]}]`,
		}[name])
	}
	stubs := manifest.AssembleStubs(ms)
	typeCheck(t, bin, stubs, prog.String(), "")
	typeCheck(t, bin, stubs, `api.mcp_cycles.via_properties(a={"next": {"v": 1}})`+"\n", "error[invalid-argument-type]")
}
