package conformance

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-dev/codemode/gateway"
	"github.com/codemode-dev/codemode/internal/testpack"
)

// directAgent is an agent's client session to an in-process `serve
// --direct` gateway in front of testmcp's conformance fixtures (a real
// stdio child process), with opts for the agent's client.
func directAgent(t *testing.T, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	tl := needTools(t)
	t.Setenv("CODEMODE_MONTY", tl.monty)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p := testpack.Build(t, dir, "out: api\nservices:\n  - name: conformance\n    mcp_command: "+self+"\n    env:\n      "+envTestMCP+": conformance\n")
	rt, err := p.OpenRuntime(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	srv, err := gateway.New(gateway.Config{Runtime: rt, FileDir: p.Out, Direct: true, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, opts).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestDirectFlattensImageContent pins --direct's content: an upstream's
// image block reached the agent flattened into one JSON text block; now
// every block passes as it came.
func TestDirectFlattensImageContent(t *testing.T) {
	cs := directAgent(t, nil)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "test_multiple_content_types"})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			kinds = append(kinds, "text "+c.Text)
		case *mcp.ImageContent:
			kinds = append(kinds, "image "+c.MIMEType)
		case *mcp.EmbeddedResource:
			kinds = append(kinds, "resource "+c.Resource.URI)
		default:
			kinds = append(kinds, "other")
		}
	}
	want := "text Multiple content types test:|image image/png|resource test://embedded-resource"
	if got := strings.Join(kinds, "|"); got != want || res.IsError {
		t.Fatalf("got %s (isError %v)\nwant %s", got, res.IsError, want)
	}
}

// TestDirectElicitationForwarded: an upstream's elicitation request during
// a direct call reaches the agent's client, and its answer goes back.
func TestDirectElicitationForwarded(t *testing.T) {
	var asked []string
	cs := directAgent(t, &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked = append(asked, req.Params.Message)
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"username": "ada", "email": "ada@example.com"}}, nil
	}})
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "test_elicitation", Arguments: map[string]any{"message": "hi"}})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if want := "User response: action=accept, content=map[email:ada@example.com username:ada]"; text != want || len(asked) != 1 {
		t.Fatalf("got %q (asked %q)\nwant %q", text, asked, want)
	}
}

// TestDirectLogsAndProgressForwarded: an upstream's log messages and
// progress during a direct call reach the agent, progress under the
// agent's own token.
func TestDirectLogsAndProgressForwarded(t *testing.T) {
	var mu sync.Mutex
	var logs []string
	var progress []float64
	var tokens []any
	cs := directAgent(t, &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			mu.Lock()
			defer mu.Unlock()
			logs = append(logs, req.Params.Data.(string))
		},
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			progress = append(progress, req.Params.Progress)
			tokens = append(tokens, req.Params.ProgressToken)
		},
	})
	ctx := context.Background()
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_tool_with_logging"}); err != nil {
		t.Fatal(err)
	}
	p := &mcp.CallToolParams{Name: "test_tool_with_progress"}
	p.SetProgressToken("agent-token")
	if _, err := cs.CallTool(ctx, p); err != nil {
		t.Fatal(err)
	}
	// The client may hand notifications to their handlers after the
	// result it answered with: wait for them (never for long).
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		mu.Lock()
		n := len(logs) + len(progress)
		mu.Unlock()
		if n >= 6 {
			break
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if got := strings.Join(logs, "|"); got != "Tool execution started|Tool processing data|Tool execution completed" {
		t.Errorf("logs: %s", got)
	}
	if len(progress) != 3 || progress[2] != 100 || tokens[0] != "agent-token" {
		t.Errorf("progress: %v %v", progress, tokens)
	}
}
