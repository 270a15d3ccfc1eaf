package parse

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/ir"
)

func TestMCPCorpus(t *testing.T) {
	files, _ := filepath.Glob("../testdata/corpus/mcp/*.json")
	if len(files) != 16 {
		t.Fatalf("found %d corpus files, want 16", len(files))
	}
	for _, f := range files {
		svc, err := MCPFile(f, Options{})
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if len(svc.Tools) == 0 || svc.Source.File != f || !strings.HasPrefix(svc.Source.Digest, "sha256:") {
			t.Errorf("%s: %d tools, source %+v", f, len(svc.Tools), svc.Source)
		}
		for _, tool := range svc.Tools {
			if tool.Input["type"] != "object" || tool.Original != nil || tool.HTTP != nil {
				t.Errorf("%s %s: input type %v", f, tool.Wire, tool.Input["type"])
			}
			args := map[string]bool{}
			for _, p := range tool.Params {
				if args[p.Arg] || p.In != ir.InArg || !strings.HasPrefix(string(p.Ref), "/properties/") {
					t.Errorf("%s %s: param %+v", f, tool.Wire, p)
				}
				args[p.Arg] = true
			}
		}
	}
}

func TestMCPMemory(t *testing.T) {
	svc, err := MCPFile("../testdata/corpus/mcp/memory.json", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if svc.Name != "memory_server" || svc.Title != "memory-server" || svc.Version != "0.6.3" || len(svc.Tools) != 9 || len(svc.Diagnostics) != 0 {
		t.Errorf("service %q %q %q, %d tools, %v", svc.Name, svc.Title, svc.Version, len(svc.Tools), svc.Diagnostics)
	}
	tool := svc.Tools[0]
	want := &ir.Param{Arg: "entities", Wire: "entities", Py: "entities", In: ir.InArg, Required: true, Ref: "/properties/entities"}
	if tool.Wire != "create_entities" || tool.Py != "create_entities" || tool.Title != "Create Entities" || tool.Pointer != "/tools/0" || len(tool.Params) != 1 || !reflect.DeepEqual(tool.Params[0], want) {
		t.Errorf("create_entities = %+v, params %+v", tool, tool.Params)
	}
	items := tool.Input["properties"].(map[string]any)["entities"].(map[string]any)["items"].(map[string]any)
	if !reflect.DeepEqual(items["required"], []any{"name", "entityType", "observations"}) {
		t.Errorf("nested required = %v", items["required"])
	}
	if tool.Output == nil || tool.Output["type"] != "object" {
		t.Errorf("output = %v", tool.Output)
	}
	if tool.Annotations != (ir.Annotations{}) {
		t.Errorf("annotations = %+v", tool.Annotations)
	}
	if read := findTool(t, svc, "read_graph"); !read.Annotations.ReadOnly || len(read.Params) != 0 {
		t.Errorf("read_graph = %+v", read)
	}
}

func TestMCPNamesAndOrder(t *testing.T) {
	svc, err := MCPFile("../testdata/corpus/mcp/firecrawl.json", Options{Service: "Fire-Crawl"})
	if err != nil {
		t.Fatal(err)
	}
	if svc.Name != "fire_crawl" {
		t.Errorf("name = %q", svc.Name)
	}
	tool := findTool(t, svc, "firecrawl_research_search_papers")
	if got := paramArgs(tool); got != "query k authors categories from to" {
		t.Errorf("params = %q (want source order)", got)
	}
	from := tool.Params[4]
	if from.Py != "from_" || from.Arg != "from" || from.Wire != "from" || from.Ref != "/properties/from" {
		t.Errorf("from = %+v", from)
	}

	notion, err := MCPFile("../testdata/corpus/mcp/notion.json", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if get := findTool(t, notion, "API-get-user"); get.Py != "API_get_user" || notion.Name != "notion_api" {
		t.Errorf("API-get-user = %q in %q", get.Py, notion.Name)
	}
}

func TestMCPGitLabEmptySchemas(t *testing.T) {
	svc, err := MCPFile("../testdata/corpus/mcp/gitlab.json", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(svc.Diagnostics) != len(svc.Tools) || len(svc.Tools) != 9 {
		t.Fatalf("%d tools, diagnostics %v", len(svc.Tools), svc.Diagnostics)
	}
	d := svc.Diagnostics[0]
	if d.Code != "empty-input-schema" || d.Pointer != "/tools/0/inputSchema" || d.File != "../testdata/corpus/mcp/gitlab.json" {
		t.Errorf("diagnostic = %+v", d)
	}
	if want := (ir.Schema{"type": "object", "properties": map[string]any{}}); !reflect.DeepEqual(svc.Tools[0].Input, want) {
		t.Errorf("input = %v", svc.Tools[0].Input)
	}
}

func TestMCPShapes(t *testing.T) {
	tools := `[{"name":"b.c","inputSchema":{"type":"object","properties":{"z~/":{"type":"string","description":"odd"},"a":{"type":"integer","deprecated":true}},"required":["a"]},"annotations":{"title":"T","destructiveHint":true}}]`
	cases := map[string]string{
		"bare":    tools,
		"object":  `{"tools":` + tools + `}`,
		"jsonrpc": `{"jsonrpc":"2.0","id":1,"result":{"tools":` + tools + `,"nextCursor":""}}`,
		"capture": `{"source":{"package":"x"},"serverInfo":{"name":"My Server","title":"Mine","version":"9"},"instructions":"Hi","tools":` + tools + `}`,
	}
	for name, doc := range cases {
		svc, err := MCP("dir/some-file.json", []byte(doc), Options{})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		wantName := ir.ServiceName("some_file")
		if name == "capture" {
			wantName = "my_server"
			if svc.Title != "Mine" || svc.Version != "9" || svc.Description != "Hi" {
				t.Errorf("capture: %+v", svc)
			}
		}
		if svc.Name != wantName || len(svc.Tools) != 1 {
			t.Errorf("%s: name %q, %d tools", name, svc.Name, len(svc.Tools))
			continue
		}
		tool := svc.Tools[0]
		if tool.Py != "b_c" || tool.Title != "T" || !tool.Annotations.Destructive {
			t.Errorf("%s: tool %+v", name, tool)
		}
		want := []*ir.Param{
			{Arg: "z~/", Wire: "z~/", Py: "z", In: ir.InArg, Description: "odd", Ref: "/properties/z~0~1"},
			{Arg: "a", Wire: "a", Py: "a", In: ir.InArg, Required: true, Deprecated: true, Ref: "/properties/a"},
		}
		if !reflect.DeepEqual(tool.Params, want) {
			b, _ := json.Marshal(tool.Params)
			t.Errorf("%s: params %s", name, b)
		}
		if _, ok := tool.Input["properties"].(map[string]any)["a"].(map[string]any)["type"].(string); !ok {
			t.Errorf("%s: input %v", name, tool.Input)
		}
	}
}

func TestMCPErrors(t *testing.T) {
	cases := []struct{ doc, want string }{
		{``, "x.json: invalid JSON: empty document"},
		{`{"tools": [`, "x.json: invalid JSON: unexpected end of input"},
		{"{\n  \"tools\": [}\n", "x.json:2:13: invalid JSON: invalid character '}' looking for beginning of value"},
		{`{"tools": []} {}`, "x.json:1:15: invalid JSON: data after the top-level value"},
		{`{"openapi": "3.0.0"}`, `x.json: not an MCP tools/list document: no "tools" array`},
		{`{"tools": {}}`, `x.json: not an MCP tools/list document: "tools" is not an array`},
		{`"tools"`, "x.json: not an MCP tools/list document: top level is not an object or array"},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`, "x.json: JSON-RPC error response: Method not found"},
	}
	for _, c := range cases {
		_, err := MCP("x.json", []byte(c.doc), Options{})
		if err == nil || err.Error() != c.want {
			t.Errorf("MCP(%q) error = %v, want %s", c.doc, err, c.want)
		}
	}
	if _, err := MCPFile("testdata/missing.json", Options{}); err == nil || err.Error() != "testdata/missing.json: no such file or directory" {
		t.Errorf("missing file: %v", err)
	}
}

func TestMCPBadTools(t *testing.T) {
	doc := `{"tools":[1,{"description":"no name"},{"name":"a","inputSchema":{"type":"string"}},{"name":"a"}]}`
	svc, err := MCP("x.json", []byte(doc), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range svc.Diagnostics {
		got = append(got, string(d.Code)+" "+d.Pointer)
	}
	want := []string{"bad-tool /tools/0", "bad-tool /tools/1", "bad-input-schema /tools/2/inputSchema/type", "duplicate-tool /tools/3", "empty-input-schema /tools/3/inputSchema"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("diagnostics = %q", got)
	}
	if len(svc.Tools) != 2 || svc.Tools[1].Py != "a_2" {
		t.Errorf("tools = %+v", svc.Tools)
	}
}
