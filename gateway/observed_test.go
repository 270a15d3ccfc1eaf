package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-dev/codemode/gateway"
	"github.com/codemode-dev/codemode/internal/testpack"
	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/manifest"
	"github.com/codemode-dev/codemode/pack"
	"github.com/codemode-dev/codemode/runtime"
	"github.com/codemode-dev/codemode/runtime/upstream"
)

// pagesSpec is an API whose operation declares no response schema: what
// it returns is known only from real results.
const pagesSpec = `{"openapi": "3.0.3", "info": {"title": "pages", "version": "1"},
 "paths": {"/pages": {"get": {"operationId": "listPages", "summary": "List pages.",
  "responses": {"200": {"description": "a page of results"}}}}}}`

// observedServer serves the pack at file with a shape cache at shapes, and
// returns a client session and the cache.
func observedServer(t *testing.T, file, shapesAt string) (*mcp.ClientSession, *gateway.Shapes) {
	t.Helper()
	p, err := pack.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	shapes, err := gateway.OpenShapes(shapesAt)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := p.OpenRuntime(context.Background(), func(c *runtime.Config) { c.Hooks = append(c.Hooks, shapes) })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	srv, err := gateway.New(gateway.Config{Runtime: rt, FileDir: p.Out, Shapes: shapes})
	if err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, shapes
}

// TestObservedReturnRefusesMisspelledKey: a tool with no output schema
// returns Any, so page["resluts"] fails only when the program runs. Once a
// real result has been seen, gen types the stub's return from it (a
// TypedDict, every key NotRequired, marked observed) and Monty's type
// checker refuses the misspelt key before the program makes a call, while
// the right keys still pass; find_tool shows the observed type.
func TestObservedReturnRefusesMisspelledKey(t *testing.T) {
	var requests atomic.Int32
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"results": [{"id": 1, "title": "a"}, {"id": 2, "title": "b", "draft": true}], "next": null}`)
	}))
	defer hs.Close()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "pages.json"), []byte(pagesSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	yaml := "out: api\nruntime:\n  read_gate: \"off\"\nservices:\n  - name: pages\n    openapi: pages.json\n    base_url: " + hs.URL + "\n"
	testpack.Build(t, dir, yaml)
	file := filepath.Join(dir, "codemode.yaml")
	shapesAt := filepath.Join(dir, ".codemode", "shapes.json")
	misspelt := "page = api.pages.listPages()\nprint(page[\"resluts\"])\n"

	// Before any result: Any, so the misspelling reaches the upstream.
	cs, _ := observedServer(t, file, shapesAt)
	got, _ := call(t, cs, "run_code", map[string]any{"code": misspelt})
	if !strings.Contains(got, "KeyError") || requests.Load() != 1 {
		t.Fatalf("untyped: want a KeyError after one request, got %q (%d requests)", got, requests.Load())
	}
	got, _ = call(t, cs, "run_code", map[string]any{"code": "print(len(api.pages.listPages()['results']))\n"})
	if got != "2\n[1 tool call]\n" {
		t.Fatalf("untyped: %q", got)
	}

	// gen, with the shapes serve kept.
	p, err := pack.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	shapes, err := gateway.OpenShapes(shapesAt)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pack.Compile(context.Background(), p, pack.Options{Observed: shapes.Observed()})
	if err != nil {
		t.Fatal(err)
	}
	if err := out.Write(); err != nil {
		t.Fatal(err)
	}
	py := string(out.Files["pages.py"])
	for _, want := range []string{
		"class ListPagesResultResultsItem(TypedDict, total=False):\n    draft: bool\n    id: int\n    title: str\n",
		"class ListPagesResult(TypedDict, total=False):\n    next: Any\n    results: list[ListPagesResultResultsItem]\n",
		"def listPages() -> ListPagesResult:  # observed\n",
		"Observed in real results (the tool declares no output schema):",
	} {
		if !strings.Contains(py, want) {
			t.Fatalf("pages.py lacks %q:\n%s", want, py)
		}
	}

	before := requests.Load()
	cs, _ = observedServer(t, file, shapesAt)
	got, isErr := call(t, cs, "run_code", map[string]any{"code": misspelt})
	if !isErr || !strings.Contains(got, `Unknown key "resluts"`) || requests.Load() != before ||
		!strings.Contains(got, `Hint: a result type marked # observed lists only the keys real results had; if "resluts" can be there, read it with .get("resluts").`) {
		t.Fatalf("typed: want the type checker to refuse before any request, got %q (isError %v, %d requests)", got, isErr, requests.Load()-before)
	}
	got, _ = call(t, cs, "run_code", map[string]any{"code": "page = api.pages.listPages()\nfor r in page['results']:\n    print(r['title'], r.get('draft'))\n"})
	if got != "a None\nb True\n[1 tool call]\n" {
		t.Fatalf("typed, right keys: %q", got)
	}
	got, _ = call(t, cs, "find_tool", map[string]any{"query": "pages.listPages"})
	if want := "returns: ListPagesResult {next?: Any, results?: [{draft?: bool, id?: int, title?: str}]}  (observed in real results, keys optional; no output schema)"; !strings.Contains(got, want) {
		t.Fatalf("find_tool: want %q in\n%s", want, got)
	}
}

func decodeJSON(t *testing.T, s string) any {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func schemaJSON(t *testing.T, s ir.Schema) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestObservedSchema: a result's schema as seen, merged over results: keys
// united and never required, a list's items merged, integer and number
// giving number, a null or a disagreement giving any value ({}), and an
// object keyed by data (numbers, or more keys than a record has) a map.
func TestObservedSchema(t *testing.T) {
	var many strings.Builder
	many.WriteString("{")
	for i := range 41 {
		if i > 0 {
			many.WriteString(", ")
		}
		fmt.Fprintf(&many, `"k%d": 1`, i)
	}
	many.WriteString("}")
	for _, c := range []struct {
		results []string
		want    string
	}{
		{[]string{`{"a": 1, "b": "x", "c": null, "d": [true]}`},
			`{"properties":{"a":{"type":"integer"},"b":{"type":"string"},"c":{},"d":{"items":{"type":"boolean"},"type":"array"}},"type":"object"}`},
		{[]string{`{"n": 1}`, `{"n": 1.5, "m": "x"}`},
			`{"properties":{"m":{"type":"string"},"n":{"type":"number"}},"type":"object"}`},
		{[]string{`{"n": 1}`, `{"n": "one"}`}, `{"properties":{"n":{}},"type":"object"}`},
		{[]string{`[{"id": 1}, {"id": 2, "tag": "t"}]`},
			`{"items":{"properties":{"id":{"type":"integer"},"tag":{"type":"string"}},"type":"object"},"type":"array"}`},
		{[]string{`{"200": {"a": 1}, "404": {"a": 2}}`}, `{"type":"object"}`},
		{[]string{many.String()}, `{"type":"object"}`},
		{[]string{`[]`}, `{"type":"array"}`},
		{[]string{`"text"`, `{"a": 1}`}, `{}`},
	} {
		var s ir.Schema
		for _, r := range c.results {
			s = gateway.MergeObserved(s, gateway.ObservedSchema(decodeJSON(t, r)))
		}
		if got := schemaJSON(t, s); got != c.want {
			t.Errorf("%v:\n got %s\nwant %s", c.results, got, c.want)
		}
	}
}

// TestShapeCacheKeepsObservedSchemas: the cache file keeps each tool's
// merged schema beside its shape, reads the old form (bare shape strings),
// and Observed offers only schemas that can type a return (an object with
// keys, or a list of them).
func TestShapeCacheKeepsObservedSchemas(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shapes.json")
	if err := os.WriteFile(path, []byte(`{"svc.old": "{a: int}"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := gateway.OpenShapes(path)
	if err != nil {
		t.Fatal(err)
	}
	if sh, ok := s.Get("svc", "old"); !ok || sh != "{a: int}" {
		t.Fatalf("old form: %q %v", sh, ok)
	}
	record := func(wire, result string) {
		s.After(context.Background(), &runtime.CallInfo{Service: "svc", Tool: &manifest.Tool{Wire: ir.WireName(wire)}}, &upstream.Result{Value: decodeJSON(t, result)})
	}
	record("old", `{"b": "x"}`)
	record("page", `{"items": [{"id": 1}]}`)
	record("page", `{"items": [], "next": "c2"}`)
	record("text", `"hello"`)
	s.After(context.Background(), &runtime.CallInfo{Service: "svc", Tool: &manifest.Tool{Wire: "page"}}, &upstream.Result{IsError: true, Value: "boom"})
	again, err := gateway.OpenShapes(path)
	if err != nil {
		t.Fatal(err)
	}
	obs := again.Observed()
	got := map[string]string{}
	for k, v := range obs {
		got[k.String()] = schemaJSON(t, v)
	}
	want := map[string]string{
		"svc.old":  `{"properties":{"b":{"type":"string"}},"type":"object"}`,
		"svc.page": `{"properties":{"items":{"items":{"properties":{"id":{"type":"integer"}},"type":"object"},"type":"array"},"next":{"type":"string"}},"type":"object"}`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Observed:\n got %v\nwant %v", got, want)
	}
	if sh, _ := again.Get("svc", "page"); sh != "{items: [], next: str}" {
		t.Fatalf("shape is the last result's: %q", sh)
	}
}
