package upstream

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-dev/codemode/manifest"
)

// elicitServer is a streamable-HTTP MCP server whose tool ask puts a
// question to the user and reports what came back. (The conformance
// suite's server sends its request on the standalone SSE stream, where it
// hung a program's call; TestConformanceClient runs that one.)
func elicitServer(t *testing.T) string {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "asker", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "ask", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{
			Message:         "What is your name?",
			RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}},
		})
		if err != nil {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "elicitation failed: " + err.Error()}}}, nil
		}
		name, _ := res.Content["name"].(string)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: res.Action + " " + name}}}, nil
	})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestElicitationHangsProgram pins the refusal of an upstream's elicitation
// request in a program's call: it hung the call until the program's time
// limit (over HTTP the request came on the standalone SSE stream, which was
// never opened; TestConformanceClient runs the suite's server that does
// that). Now the client declares no elicitation, and a server that asks
// anyway (asker does not check) is refused at once; the call fails with an
// error that says why and where the tool can be called instead.
func TestElicitationHangsProgram(t *testing.T) {
	m := newTestMCP(t, testMCP(t, "asker", "asker", nil, nil))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := m.Call(ctx, &manifest.Tool{Wire: "ask"}, nil)
	if errors.Is(err, context.DeadlineExceeded) {
		t.Fatal("the call hung")
	}
	want := `mcp asker: ask: the server asked the user a question (elicitation "What is your name?"), and a program cannot answer one: the request was refused. Call this tool where a person can answer: a direct-mode session (codemode serve --direct) forwards it to the agent's client`
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, %v\nwant error %s", res, err, want)
	}
}

// TestElicitationNotDeclared: without forwarding the client declares
// neither elicitation nor sampling, so a server that checks does not ask.
func TestElicitationNotDeclared(t *testing.T) {
	m := NewMCPURL(elicitServer(t), nil, nil)
	defer m.Close()
	res, err := m.Call(context.Background(), &manifest.Tool{Wire: "ask"}, nil)
	if err != nil || !res.IsError || res.Message != "elicitation failed: client does not support elicitation" {
		t.Fatalf("got %#v, %v", res, err)
	}
}

// TestElicitationForwarded: with forwarding on (direct mode), a call whose
// context carries a Forward with Elicit gets the agent's answer.
func TestElicitationForwarded(t *testing.T) {
	m := NewMCPURL(elicitServer(t), nil, nil)
	defer m.Close()
	m.EnableForwarding()
	var asked string
	fwd := &Forward{Elicit: func(_ context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		asked = p.Message
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
	}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := m.Call(WithForward(ctx, fwd), &manifest.Tool{Wire: "ask"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Value != "accept Ada" || asked != "What is your name?" {
		t.Fatalf("got %#v, asked %q", res.Value, asked)
	}
	if len(fwd.Content) != 1 {
		t.Fatalf("content kept: %#v", fwd.Content)
	}
}
