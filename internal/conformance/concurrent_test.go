package conformance

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-dev/codemode/gateway"
	"github.com/codemode-dev/codemode/internal/testmcp"
	"github.com/codemode-dev/codemode/internal/testpack"
)

// TestDirectConcurrentCallsLogsCrossed pins direct mode with two agents
// calling at once: an upstream's log lines and questions for call A
// reached the client of call B, which had started later (and B's answer
// went back to A's question). Now each agent's client gets only its own
// call's lines and question.
func TestDirectConcurrentCallsLogsCrossed(t *testing.T) {
	tl := needTools(t)
	t.Setenv("CODEMODE_MONTY", tl.monty)
	dir := t.TempDir()
	p := testpack.Build(t, dir, "out: api\nservices:\n  - name: pair\n    mcp_url: "+testmcp.PairHTTP(t)+"\n")
	rt, err := p.OpenRuntime(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	srv, err := gateway.New(gateway.Config{Runtime: rt, FileDir: p.Out, Direct: true, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	type agent struct {
		mu   sync.Mutex
		logs []string
		asks []string
		cs   *mcp.ClientSession
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	agents := map[string]*agent{}
	for _, tag := range []string{"A", "B"} {
		a := &agent{}
		ct, st := mcp.NewInMemoryTransports()
		ss, err := srv.MCP().Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ss.Close() })
		a.cs, err = mcp.NewClient(&mcp.Implementation{Name: "agent-" + tag, Version: "1"}, &mcp.ClientOptions{
			LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
				a.mu.Lock()
				defer a.mu.Unlock()
				a.logs = append(a.logs, fmt.Sprint(req.Params.Data))
			},
			ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				a.mu.Lock()
				defer a.mu.Unlock()
				a.asks = append(a.asks, req.Params.Message)
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "answered by " + tag}}, nil
			},
		}).Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { a.cs.Close() })
		if err := a.cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
			t.Fatal(err)
		}
		agents[tag] = a
	}
	results := map[string]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for tag, a := range agents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := a.cs.CallTool(ctx, &mcp.CallToolParams{Name: "work", Arguments: map[string]any{"tag": tag}})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil:
				results[tag] = "error: " + err.Error()
			case len(res.Content) == 0:
				results[tag] = "no content"
			default:
				results[tag] = res.Content[0].(*mcp.TextContent).Text
			}
		}()
	}
	wg.Wait()
	for tag, a := range agents {
		// The client may hand a notification to its handler after the
		// result: wait for both lines (never for long).
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			a.mu.Lock()
			n := len(a.logs)
			a.mu.Unlock()
			if n >= 2 {
				break
			}
		}
		a.mu.Lock()
		logs, asks := slices.Clone(a.logs), slices.Clone(a.asks)
		a.mu.Unlock()
		slices.Sort(logs)
		if got, want := strings.Join(logs, "|"), tag+" asking|"+tag+" started"; got != want {
			t.Errorf("agent %s got the log lines %q, want %q", tag, got, want)
		}
		if got := strings.Join(asks, "|"); got != "question for "+tag {
			t.Errorf("agent %s was asked %q", tag, got)
		}
		if want := tag + ": answered by " + tag; results[tag] != want {
			t.Errorf("call %s: %s, want %s", tag, results[tag], want)
		}
	}
}
