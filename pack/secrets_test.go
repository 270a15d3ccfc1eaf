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

	"github.com/codemode-dev/codemode/internal/testpack"
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
