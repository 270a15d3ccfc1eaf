package gateway_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/gateway"
	"github.com/codemode-dev/codemode/runtime"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// callNamed is call with the session named in _meta.
func callNamed(t *testing.T, cs *mcp.ClientSession, session, name string, args map[string]any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args, Meta: mcp.Meta{gateway.SessionMeta: session}})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func persistent(state string) func(*runtime.Config) {
	return func(c *runtime.Config) { c.Persistent, c.StateDir = true, state }
}

// TestStdioSessionsShareState pins the defect: every session without an
// MCP session id was "stdio", so a second gateway (a restart, or a crash)
// on the same state directory inherited the first one's variables.
func TestStdioSessionsShareState(t *testing.T) {
	state := t.TempDir()
	first := newFixture(t, false, persistent(state))
	if got, _ := call(t, first.connect(t), "run_code", map[string]any{"code": "secret = 41"}); got != "[0 tool calls]\n" {
		t.Fatalf("first gateway: %q", got)
	}
	second := newFixture(t, false, persistent(state))
	got, isErr := call(t, second.connect(t), "run_code", map[string]any{"code": "print(secret)"})
	if !isErr || !strings.Contains(got, "Name `secret` used when not defined") {
		t.Fatalf("the second gateway's session saw the first one's state: %q", got)
	}
	for _, id := range append(first.srv.AgentSessions(), second.srv.AgentSessions()...) {
		if !strings.HasPrefix(id, gateway.StdioSession+"-") || len(id) != len(gateway.StdioSession)+17 {
			t.Errorf("session id %q", id)
		}
	}
}

// TestNamedSessionKeptAcrossReconnects: a session the harness names keeps
// its state across reconnects (it is not deleted when the MCP connection
// ends); the connection's own session does not.
func TestNamedSessionKeptAcrossReconnects(t *testing.T) {
	f := newFixture(t, false, persistent(t.TempDir()))
	cs := f.connect(t)
	if got := callNamed(t, cs, "job-7", "run_code", map[string]any{"code": "x = 41"}); got != "[0 tool calls]\n" {
		t.Fatalf("first program: %q", got)
	}
	cs.Close()
	deadline := time.Now().Add(5 * time.Second)
	for _, n := f.srv.LiveSessions(); n > 0; _, n = f.srv.LiveSessions() {
		if time.Now().After(deadline) {
			t.Fatal("the closed session is still live")
		}
		time.Sleep(20 * time.Millisecond)
	}
	again := f.connect(t)
	if got := callNamed(t, again, "job-7", "run_code", map[string]any{"code": "print(x + 1)"}); got != "42\n[0 tool calls]\n" {
		t.Fatalf("after a reconnect: %q", got)
	}
	if got, isErr := call(t, again, "run_code", map[string]any{"code": "print(x)"}); !isErr || !strings.Contains(got, "Name `x` used when not defined") {
		t.Fatalf("the connection's own session saw the named one: %q", got)
	}
}

// TestNamedSessionReachedByAnotherToken pins the defect: over HTTP, any
// token that sent a session's name in _meta reached its state. A name is
// now scoped by the token that sends it.
func TestNamedSessionReachedByAnotherToken(t *testing.T) {
	f := newFixture(t, false, persistent(t.TempDir()))
	hs := serveHTTP(t, f, gateway.HTTPOptions{Tokens: tokensFile(t, writeTokens(t, tokenA, tokenB))})
	a, err := connectHTTP(t, hs.URL, tokenA)
	if err != nil {
		t.Fatal(err)
	}
	b, err := connectHTTP(t, hs.URL, tokenB)
	if err != nil {
		t.Fatal(err)
	}
	if got := callNamed(t, a, "shared", "run_code", map[string]any{"code": "x = 'of A'"}); got != "[0 tool calls]\n" {
		t.Fatalf("token A: %q", got)
	}
	if got := callNamed(t, b, "shared", "run_code", map[string]any{"code": "print(x)"}); !strings.Contains(got, "Name `x` used when not defined") {
		t.Fatalf("token B reached token A's session: %q", got)
	}
	a2, err := connectHTTP(t, hs.URL, tokenA)
	if err != nil {
		t.Fatal(err)
	}
	if got := callNamed(t, a2, "shared", "run_code", map[string]any{"code": "print(x)"}); got != "of A\n[0 tool calls]\n" {
		t.Fatalf("token A in a new connection: %q", got)
	}
}
