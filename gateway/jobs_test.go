package gateway_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/manifest"
	"github.com/codemode-dev/codemode/runtime"
	"github.com/codemode-dev/codemode/runtime/upstream"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// holdEcho wraps an upstream: echo calls wait until release is closed.
type holdEcho struct {
	upstream.Upstream
	release chan struct{}
}

func (h *holdEcho) Call(ctx context.Context, tool *manifest.Tool, args map[string]any) (*upstream.Result, error) {
	if tool.Wire == "echo" {
		select {
		case <-h.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return h.Upstream.Call(ctx, tool, args)
}

func (h *holdEcho) ListTools(ctx context.Context) ([]byte, error) {
	return h.Upstream.(runtime.ToolLister).ListTools(ctx)
}

// runCodeSC calls run_code and returns its text, structuredContent and
// isError.
func runCodeSC(t *testing.T, cs *mcp.ClientSession, code string) (string, map[string]any, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run_code", Arguments: map[string]any{"code": code}})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	var sc map[string]any
	raw, _ := json.Marshal(res.StructuredContent)
	_ = json.Unmarshal(raw, &sc)
	return b.String(), sc, res.IsError
}

// TestJobWaitNotInStructuredContent pins the defect: a wait said nothing
// in structuredContent and held nothing. Over MCP, a two-turn job: the
// first run_code submits and waits (the wait, its job and deadline are in
// structuredContent), the next is refused naming the job until it ends,
// and then jobs.get returns its result.
func TestJobWaitNotInStructuredContent(t *testing.T) {
	hold := &holdEcho{release: make(chan struct{})}
	t.Cleanup(func() {
		select {
		case <-hold.release:
		default:
			close(hold.release)
		}
	})
	f := newFixture(t, false, func(c *runtime.Config) {
		if c.Upstreams != nil {
			hold.Upstream = c.Upstreams["everything"]
			c.Upstreams["everything"] = hold
		}
	})
	cs := f.connect(t)
	call(t, cs, "find_tool", map[string]any{"query": "everything.echo"})
	text, sc, isErr := runCodeSC(t, cs, `job = jobs.submit("greet", api.everything.echo, message="later")
print(job["state"])
jobs.wait("greet", wake_after=3600)
`)
	if isErr || !strings.Contains(text, "NOTE: WAIT: this session waits for job greet until it ends or until ") || !strings.Contains(text, "\nrunning\n") {
		t.Fatalf("first turn: %q", text)
	}
	t.Logf("turn 1:\n%s\nstructuredContent.wait: %v", text, sc["wait"])
	w, _ := sc["wait"].(map[string]any)
	if w == nil || w["reason"] != "waiting for job greet" || w["deadline"] == nil || !strings.HasPrefix(w["resume"].(string), "end the turn;") {
		t.Fatalf("structuredContent wait: %v", sc["wait"])
	}
	if jobs, _ := w["jobs"].([]any); len(jobs) != 1 || jobs[0] != "greet" {
		t.Fatalf("structuredContent wait jobs: %v", w["jobs"])
	}
	text, sc, isErr = runCodeSC(t, cs, "print('too soon')")
	if !isErr || !strings.Contains(text, "run_code refused: this session is waiting for job greet") || strings.Contains(text, "too soon") || sc["wait"] == nil {
		t.Fatalf("second turn while the job runs: %q", text)
	}
	t.Logf("turn 2:\n%s", text)
	close(hold.release)
	deadline := time.Now().Add(10 * time.Second)
	for {
		text, _, isErr = runCodeSC(t, cs, `j = jobs.get("greet")
print(j["state"], j["result"])
`)
		if !strings.Contains(text, "run_code refused") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the wait never ended: %q", text)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("turn 3:\n%s", text)
	if isErr || !strings.Contains(text, "NOTE: the wait for job greet is over: the job ended") || !strings.Contains(text, "done Echo: later\n") {
		t.Fatalf("after the job: %q", text)
	}
}
