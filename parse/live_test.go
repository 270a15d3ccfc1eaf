package parse

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/ir"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestMCPCommandEverything(t *testing.T) {
	bin, _ := filepath.Abs("../tools/npm/node_modules/.bin/mcp-server-everything")
	if _, err := os.Stat(bin); err != nil {
		t.Skip("mcp-server-everything not installed (run npm ci in tools/npm)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	svc, err := MCPCommand(ctx, []string{bin, "stdio"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if svc.Name != "mcp_servers_everything" || svc.Source.Kind != ir.SourceMCP || svc.Source.Command != bin+" stdio" || !strings.HasPrefix(svc.Source.Digest, "sha256:") {
		t.Errorf("service = %q, source = %+v", svc.Name, svc.Source)
	}
	if len(svc.Tools) < 10 {
		t.Fatalf("got %d tools, want at least 10", len(svc.Tools))
	}
	tool := findTool(t, svc, "get-sum")
	if got := paramArgs(tool); got != "a b" {
		t.Errorf("get-sum params = %q, want \"a b\" (source order)", got)
	}
	if tool.Py != "get_sum" || tool.Pointer == "" || !tool.Params[0].Required {
		t.Errorf("get-sum = %+v", tool)
	}
}

func TestMCPCommandBad(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := MCPCommand(ctx, []string{"./no-such-mcp-server", "--flag"}, Options{})
	if err == nil || !strings.HasPrefix(err.Error(), "./no-such-mcp-server --flag: cannot start MCP session: ") {
		t.Errorf("err = %v", err)
	}
	_, err = MCPCommand(ctx, []string{"sh", "-c", "echo boom >&2; exit 3"}, Options{})
	if err == nil || !strings.HasPrefix(err.Error(), "sh -c echo boom >&2; exit 3: cannot start MCP session: ") || !strings.HasSuffix(err.Error(), "(stderr: boom)") {
		t.Errorf("err = %v", err)
	}
}

type echoArgs struct {
	Zeta  string `json:"zeta" jsonschema:"the last letter"`
	Alpha int    `json:"alpha,omitempty"`
}

func TestMCPURL(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "Test Server", Title: "A test", Version: "1.2.3"}, &mcp.ServerOptions{Instructions: "Use it well.", PageSize: 1})
	handler := func(ctx context.Context, req *mcp.CallToolRequest, args echoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	}
	mcp.AddTool(server, &mcp.Tool{Name: "echo", Description: "Echo it.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, handler)
	mcp.AddTool(server, &mcp.Tool{Name: "class.del", Description: "Keyword name."}, handler)
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	defer ts.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	svc, err := MCPURL(ctx, ts.URL, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if svc.Name != "test_server" || svc.Title != "A test" || svc.Version != "1.2.3" || svc.Description != "Use it well." || svc.Source.URL != ts.URL {
		t.Errorf("service = %+v", svc)
	}
	if len(svc.Tools) != 2 {
		t.Fatalf("got %d tools over two pages, want 2", len(svc.Tools))
	}
	// go-sdk lists tools sorted by name.
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

	if _, err := MCPURL(ctx, "ftp://x", Options{}); err == nil || err.Error() != "ftp://x: not an http(s) URL" {
		t.Errorf("err = %v", err)
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
