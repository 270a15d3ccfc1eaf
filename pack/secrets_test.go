package pack_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-dev/codemode/internal/testpack"
	"github.com/codemode-dev/codemode/pack"
	"github.com/codemode-dev/codemode/readgate"
	"github.com/codemode-dev/codemode/runtime"
)

type auditLog struct {
	mu     sync.Mutex
	events []runtime.Event
}

func (a *auditLog) Record(ev runtime.Event) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.events = append(a.events, ev)
	return nil
}

const keySpec = `{"openapi": "3.0.3", "info": {"title": "Keyed", "version": "1"},
 "paths": {"/items/{id}": {"get": {"operationId": "getItem",
   "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
   "responses": {"200": {"description": "ok"}}}}}}`

// TestQueryKeyNotInProgramOrAudit: an in: query API key is in the URL of
// a transport error; neither the program nor the audit sees it.
func TestQueryKeyNotInProgramOrAudit(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c, _, err := w.(http.Hijacker).Hijack(); err == nil {
			c.Close() // hang up: a transport error
		}
	}))
	defer srv.Close()
	const key = "qk-audit-4b7e"
	t.Setenv("KEYED_KEY", key)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "keyed.json"), []byte(keySpec), 0o644)
	p := testpack.Build(t, dir, fmt.Sprintf(`services:
  - openapi: keyed.json
    base_url: %s
    auth: {type: apiKey, in: query, name: api_key, token_env: KEYED_KEY}
`, srv.URL))
	audit := &auditLog{}
	rt, err := p.OpenRuntime(context.Background(), func(c *runtime.Config) { c.ReadGate = readgate.Off; c.Audit = audit })
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	res, err := rt.Run(context.Background(), "s", `
try:
    api.keyed.getItem(id="7")
except RuntimeError as e:
    print(e)
`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Output, "api_key=[redacted]") || strings.Contains(res.Output, key) {
		t.Fatalf("output = %q, result %+v", res.Output, res)
	}
	t.Logf("output: %s", res.Output)
	b, _ := json.Marshal(audit.events)
	if strings.Contains(string(b), key) || !strings.Contains(string(b), "[redacted]") {
		t.Fatalf("audit = %s", b)
	}
}

// TestAuthOnMCPURLHonoured: auth: on an mcp_url: service reaches the
// server, at gen and at run time.
func TestAuthOnMCPURLHonoured(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "remote", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "whoami"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "authorized"}}}, nil, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok-remote-1c9f" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	t.Setenv("REMOTE_TOKEN", "tok-remote-1c9f")
	p := testpack.Build(t, t.TempDir(), fmt.Sprintf(`services:
  - mcp_url: %s
    auth: {type: bearer, token_env: REMOTE_TOKEN}
`, srv.URL))
	rt, err := p.OpenRuntime(context.Background(), func(c *runtime.Config) { c.ReadGate = readgate.Off })
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	res, err := rt.Run(context.Background(), "s", "print(api.remote.whoami())\n")
	if err != nil || res.Output != "authorized\n" {
		t.Fatalf("run: %v, %+v", err, res)
	}
}

func TestStartAndReplyKeysChecked(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{"services:\n  - mcp_command: srv\nruntime:\n  max_reply: lots\n", "runtime.max_reply: want a whole, positive size like 256MB or 8MiB"},
		{"services:\n  - mcp_command: srv\n    start_timeout: -1s\n", `services[0].start_timeout: "-1s" is not a duration like 30s`},
		{"services:\n  - mcp: a.json\n    start_timeout: 5s\n", "services[0].start_timeout: only an mcp_command or mcp_url service has a start"},
		{"services:\n  - mcp: a.json\n    auth: {type: bearer, token_env: T}\n", "services[0].auth: only an openapi or mcp_url service takes auth: (a stdio server gets its secrets through env:)"},
	} {
		_, err := pack.Parse([]byte(c.yaml))
		if err == nil || err.Error() != c.want {
			t.Errorf("%q: err = %v, want %s", c.yaml, err, c.want)
		}
	}
	p, err := pack.Parse([]byte("services:\n  - mcp_url: http://x.test\n    start_timeout: 90s\nruntime:\n  max_reply: 16MiB\n"))
	if err != nil || p.Services[0].StartTimeout != "90s" || p.Runtime.MaxReply != "16MiB" {
		t.Fatalf("%+v, %v", p, err)
	}
}
