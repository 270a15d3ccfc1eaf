package parse

import (
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/ir"
)

func TestMCPListed(t *testing.T) {
	tools := []byte(`{"tools":[{"name":"class.del","description":"Keyword name.","inputSchema":{"type":"object"}},` +
		`{"name":"echo","description":"Echo it.","annotations":{"readOnlyHint":true},"inputSchema":{"type":"object","properties":{"zeta":{"type":"string","description":"the last letter"},"alpha":{"type":"integer"}},"required":["zeta"]}}]}`)
	svc, err := MCPListed("http://127.0.0.1:1/mcp", tools, Server{Name: "Test Server", Title: "A test", Version: "1.2.3", Instructions: "Use it well."}, "127.0.0.1", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if svc.Name != "test_server" || svc.Title != "A test" || svc.Version != "1.2.3" || svc.Description != "Use it well." ||
		svc.Source.Kind != ir.SourceMCP || svc.Source.Digest != digest(tools) {
		t.Errorf("service = %+v", svc)
	}
	if len(svc.Tools) != 2 {
		t.Fatalf("got %d tools, want 2", len(svc.Tools))
	}
	c, e := svc.Tools[0], svc.Tools[1]
	if c.Wire != "class.del" || c.Py != "class_del" || c.Pointer != "/tools/0" {
		t.Errorf("tool 0 = %+v", c)
	}
	if e.Wire != "echo" || !e.Annotations.ReadOnly || e.Description != "Echo it." {
		t.Errorf("tool 1 = %+v", e)
	}
	if got := paramArgs(e); got != "zeta alpha" {
		t.Errorf("echo params = %q, want \"zeta alpha\" (the order the server wrote)", got)
	}
	if !e.Params[0].Required || e.Params[1].Required || e.Params[0].Description != "the last letter" {
		t.Errorf("echo params = %+v %+v", e.Params[0], e.Params[1])
	}

	// No server name: the fallback; the title falls back to the name.
	svc, err = MCPListed("./srv", []byte(`{"tools":[]}`), Server{}, "srv", Options{})
	if err != nil || svc.Name != "srv" || svc.Title != "" {
		t.Fatalf("unnamed: %+v, %v", svc, err)
	}
	svc, err = MCPListed("./srv", []byte(`{"tools":[]}`), Server{Name: "x"}, "srv", Options{Service: "mine"})
	if err != nil || svc.Name != "mine" || svc.Title != "x" {
		t.Fatalf("named by the pack: %+v, %v", svc, err)
	}
	if _, err := MCPListed("./srv", []byte(`{"tools":`), Server{}, "srv", Options{}); err == nil || !strings.HasPrefix(err.Error(), "./srv: ") {
		t.Fatalf("bad JSON: %v", err)
	}
}

func findTool(t *testing.T, svc *ir.Service, wire string) *ir.Tool {
	t.Helper()
	for _, tool := range svc.Tools {
		if string(tool.Wire) == wire {
			return tool
		}
	}
	t.Fatalf("%s: no tool %q", svc.Name, wire)
	return nil
}

func paramArgs(tool *ir.Tool) string {
	var s []string
	for _, p := range tool.Params {
		s = append(s, p.Arg)
	}
	return strings.Join(s, " ")
}
