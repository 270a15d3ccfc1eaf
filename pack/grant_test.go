package pack_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/internal/testpack"
	"github.com/codemode-dev/codemode/pack"
	"github.com/codemode-dev/codemode/readgate"
	"github.com/codemode-dev/codemode/runtime"
)

// grantTools has two tools whose names collide across wire and Python
// forms: wire "delete-all" is Python delete_all, wire "delete_all" is
// Python delete_all_2. list-items and get-item share a shape.
const grantTools = `{"tools": [
  {"name": "delete-all", "description": "Delete every item.", "inputSchema": {"type": "object"}},
  {"name": "delete_all", "description": "Delete all of one kind.", "inputSchema": {"type": "object", "properties": {"kind": {"type": "string"}}, "required": ["kind"]}},
  {"name": "list-items", "description": "List the items.", "inputSchema": {"type": "object"},
   "outputSchema": {"type": "object", "properties": {"items": {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}}}, "required": ["items"]}},
  {"name": "get-item", "description": "Get one item.", "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
   "outputSchema": {"type": "object", "properties": {"items": {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}}}, "required": ["items"]}}
]}`

// grantPack builds a pack of grantTools with the given grant: line ("" for
// none) and opens a runtime over it with the read-gate off.
func grantPack(t *testing.T, grant string) (*pack.Pack, *runtime.Runtime) {
	t.Helper()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "tools.json"), []byte(grantTools), 0o644)
	yaml := "services:\n  - name: store\n    mcp: tools.json\n"
	if grant != "" {
		yaml += "    grant: " + grant + "\n"
	}
	p := testpack.Build(t, dir, yaml)
	rt, err := p.OpenRuntime(t.Context(), func(c *runtime.Config) { c.ReadGate = readgate.Off })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	return p, rt
}

func runText(t *testing.T, rt *runtime.Runtime, code string) string {
	t.Helper()
	res, err := rt.Run(t.Context(), "s", code)
	if err != nil {
		t.Fatal(err)
	}
	return res.Text()
}

func viewTools(rt *runtime.Runtime) []string {
	var out []string
	for _, s := range rt.Manifest().Services {
		for _, tl := range s.Tools {
			out = append(out, string(s.Name)+"."+string(tl.Wire))
		}
	}
	return out
}

// TestEmptyGrantGrantedEverything pins the bug where "grant: []" granted
// every tool of the service. It grants none: the service is not there.
func TestEmptyGrantGrantedEverything(t *testing.T) {
	_, rt := grantPack(t, "[]")
	if got := viewTools(rt); len(got) != 0 {
		t.Fatalf("grant: [] shows %v", got)
	}
	got := runText(t, rt, `print(dir(api))
try:
    run_tool("list-items")
except NameError as e:
    print(e)
`)
	want := "[]\nthere is no tool named \"list-items\". Find tools with find_tool(\"<what you need>\").\n[1 tool call, 1 failed]\n"
	if got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	// No grant: key grants every tool.
	_, all := grantPack(t, "")
	if got := strings.Join(viewTools(all), " "); got != "store.delete-all store.delete_all store.list-items store.get-item" {
		t.Fatalf("no grant: key: %s", got)
	}
}

// TestGrantMatchedWireAndPythonNames pins the bug where grant: [delete_all]
// also granted the other tool delete-all, whose Python name is delete_all.
// A grant is a wire name, exactly.
func TestGrantMatchedWireAndPythonNames(t *testing.T) {
	_, rt := grantPack(t, "[delete_all]")
	if got := strings.Join(viewTools(rt), " "); got != "store.delete_all" {
		t.Fatalf("granted %s", got)
	}
	got := runText(t, rt, `api.store.delete_all()`)
	if !strings.Contains(got, "Type check failed, nothing ran:") || !strings.Contains(got, "has no attribute `delete_all`") ||
		!strings.Contains(got, "Hint: api.store has no tool delete_all; did you mean api.store.delete_all_2?") {
		t.Fatalf("the ungranted tool: %s", got)
	}
	got = runText(t, rt, `try:
    run_tool("delete-all")
except NameError as e:
    print(e)
print(dir(api.store))
`)
	if !strings.HasPrefix(got, "there is no tool named \"delete-all\"; did you mean api.store.delete_all_2?") || !strings.Contains(got, "\n['delete_all_2']\n") {
		t.Fatalf("run_tool of the ungranted tool: %s", got)
	}
}

// TestUnknownGrantAccepted pins the bug where a grant naming no tool was
// accepted silently: gen refuses it with a did-you-mean, and so does the
// runtime when the pack was edited after gen.
func TestUnknownGrantAccepted(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "tools.json"), []byte(grantTools), 0o644)
	for _, c := range []struct{ grant, want string }{
		{"[list-itemz]", `tools.json: grant of service store: "list-itemz" is not the wire name of any of its tools; did you mean "list-items"?`},
		{"[list_items]", `tools.json: grant of service store: "list_items" is not the wire name of any of its tools; "list_items" is the Python name of "list-items": grant tools by wire name`},
		{"[nothing-like-it]", `tools.json: grant of service store: "nothing-like-it" is not the wire name of any of its tools (the service has 4 tools)`},
	} {
		os.WriteFile(filepath.Join(dir, "codemode.yaml"), []byte("services:\n  - name: store\n    mcp: tools.json\n    grant: "+c.grant+"\n"), 0o644)
		p, err := pack.Load(filepath.Join(dir, "codemode.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := pack.Compile(t.Context(), p, pack.Options{}); err == nil || err.Error() != c.want {
			t.Errorf("gen with grant %s: err = %v\nwant %s", c.grant, err, c.want)
		}
	}
	p := testpack.Build(t, dir, "services:\n  - name: store\n    mcp: tools.json\n")
	p.Services[0].Grant = []string{"get_item"}
	_, err := p.OpenRuntime(t.Context(), nil)
	if want := `runtime: grant of service store: "get_item" is not the wire name of any of its tools; "get_item" is the Python name of "get-item": grant tools by wire name`; err == nil || err.Error() != want {
		t.Fatalf("OpenRuntime: err = %v\nwant %s", err, want)
	}
}

// TestUngrantedToolsVisible pins the bug where ungranted tools showed in
// help(), dir(api), repr(api) and the files agents read. The view drops
// their defs and keeps a shape a granted tool shares.
func TestUngrantedToolsVisible(t *testing.T) {
	_, rt := grantPack(t, "[get-item]")
	file, _ := rt.File("store.py")
	for _, hidden := range []string{"delete", "def list_items", "List the items"} {
		if strings.Contains(string(file), hidden) {
			t.Errorf("the view of store.py shows %q:\n%s", hidden, file)
		}
	}
	if !strings.Contains(string(file), "def get_item(") || !strings.Contains(string(file), "class ListItemsResult(TypedDict):") {
		t.Errorf("the view lost the granted tool or its shape:\n%s", file)
	}
	tool := rt.Manifest().Services[0].Tools[0]
	lines := strings.Split(string(file), "\n")
	if last := lines[tool.Lines[1]-1]; !strings.HasPrefix(last, "    ...") && !strings.HasSuffix(last, `"""`) || !strings.Contains(strings.Join(lines[tool.Lines[0]-1:tool.Lines[1]], "\n"), "def get_item(") {
		t.Errorf("get-item's lines %v in the view are not its def:\n%s", tool.Lines, file)
	}
	got := runText(t, rt, "help(api.store)\nprint(dir(api), dir(api.store))\nprint(repr(api))\n")
	want := "api.store (api/store.py):\n  get_item(id: str) -> ListItemsResult\n['store'] ['get_item']\n" +
		"_api(store=_svc_store(get_item=<function 'store.get_item' external>), aio=_aio(store=_aio_store(get_item=<function 'aio.store.get_item' external>)))\n"
	if !strings.HasPrefix(got, want) || strings.Contains(got, "delete") || strings.Contains(got, "list_items") {
		t.Fatalf("got:\n%s\nwant it to start:\n%s", got, want)
	}
}
