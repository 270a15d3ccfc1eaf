package testmcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// PairHTTP starts a streamable-HTTP MCP server whose tool work(tag) logs
// "<tag> started", waits until two calls are in flight, logs "<tag>
// asking", asks "question for <tag>" and returns "<tag>: <answer>". It
// sends each log message and question on its own call's stream, so a
// client can tell whose they are: the peer of the tests of direct mode's
// routing with concurrent calls. It returns the server's URL.
func PairHTTP(tb testing.TB) string {
	tb.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "pair", Version: "1"}, &mcp.ServerOptions{Capabilities: &mcp.ServerCapabilities{Logging: &mcp.LoggingCapabilities{}, Tools: &mcp.ToolCapabilities{}}})
	var mu sync.Mutex
	arrived := 0
	both := make(chan struct{})
	s.AddTool(&mcp.Tool{Name: "work", Description: "Works on a tag.", InputSchema: map[string]any{"type": "object", "properties": map[string]any{"tag": map[string]any{"type": "string"}}, "required": []any{"tag"}}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args struct{ Tag string }
			if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
				return nil, err
			}
			_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: args.Tag + " started"})
			mu.Lock()
			if arrived++; arrived == 2 {
				close(both)
			}
			mu.Unlock()
			select {
			case <-both:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: args.Tag + " asking"})
			res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "question for " + args.Tag,
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"answer": map[string]any{"type": "string"}}}})
			if err != nil {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "elicitation failed: " + err.Error()}}}, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("%s: %v", args.Tag, res.Content["answer"])}}}, nil
		})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	tb.Cleanup(srv.Close)
	return srv.URL
}
