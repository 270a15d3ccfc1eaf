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
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-dev/codemode/internal/testpack"
	"github.com/codemode-dev/codemode/pack"
	"github.com/codemode-dev/codemode/readgate"
	"github.com/codemode-dev/codemode/runtime"
)

// TestAuthHeadersNotInGeneratedFilesOrAudit: auth.headers secrets reach
// the server at gen and run time, and appear in no generated file, no
// program output and no audit event, even when the server echoes them.
func TestAuthHeadersNotInGeneratedFilesOrAudit(t *testing.T) {
	const key = "hk-pack-7d3e91"
	s := mcp.NewServer(&mcp.Implementation{Name: "remote", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "whoami", Description: "Says who is calling."}, func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "key " + req.Extra.Header.Get("X-Api-Key")}}}, nil, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") != key || r.Header.Get("X-Org") != "acme" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	t.Setenv("REMOTE_HKEY", key)
	dir := t.TempDir()
	p := testpack.Build(t, dir, fmt.Sprintf(`services:
  - mcp_url: %s
    auth:
      headers: {X-Api-Key: $REMOTE_HKEY, X-Org: acme}
`, srv.URL))
	filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			if b, _ := os.ReadFile(path); strings.Contains(string(b), key) {
				t.Errorf("%s holds the key", path)
			}
		}
		return nil
	})
	audit := &auditLog{}
	rt, err := p.OpenRuntime(context.Background(), func(c *runtime.Config) { c.ReadGate = readgate.Off; c.Audit = audit })
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	res, err := rt.Run(context.Background(), "s", "print(api.remote.whoami())\n")
	if err != nil || res.Output != "key [redacted]\n" {
		t.Fatalf("run: %v, %+v", err, res)
	}
	b, _ := json.Marshal(audit.events)
	if strings.Contains(string(b), key) || len(audit.events) == 0 {
		t.Fatalf("audit = %s", b)
	}
}

// TestAuthKeysChecked: auth: keys that cannot work are refused when the
// pack is read, in one line naming them.
func TestAuthKeysChecked(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{"services:\n  - mcp_url: http://x.test\n    auth: {}\n", "services[0].auth.type: missing; want bearer, basic, apiKey or oauth (or headers: alone)"},
		{"services:\n  - mcp_url: http://x.test\n    auth: {type: digest}\n", `services[0].auth.type: "digest" is not bearer, basic, apiKey or oauth`},
		{"services:\n  - openapi: a.json\n    auth: {type: oauth}\n", "services[0].auth.type: oauth is for an mcp_url service (an OpenAPI service takes bearer, basic or apiKey)"},
		{"services:\n  - mcp_url: http://x.test\n    auth: {headers: {\"X Y\": v}}\n", `services[0].auth: headers: "X Y" is not a header name`},
		{"services:\n  - mcp_url: http://x.test\n    auth: {type: bearer, token_env: T, client_id: c}\n", "services[0].auth: client_id, client_secret_env, client_key_file, client_metadata_url, grant, scopes, redirect_url, headless and the idp_ keys are for type: oauth"},
		{"services:\n  - mcp_url: http://x.test\n    auth: {type: oauth, token_env: T}\n", "services[0].auth: type oauth takes no token_env, user_env, password_env, in or name (its token comes from the authorization server)"},
		{"services:\n  - mcp_url: http://x.test\n    auth: {type: oauth, grant: password}\n", `services[0].auth: grant: "password" is not authorization_code, client_credentials or enterprise`},
		{"services:\n  - mcp_url: http://x.test\n    auth: {type: oauth, grant: enterprise, client_id: c}\n", "services[0].auth: grant enterprise needs client_id, idp_issuer, idp_client_id and id_token_env"},
		{"services:\n  - mcp_url: http://x.test\n    auth: {type: oauth, idp_issuer: http://idp.test}\n", "services[0].auth: idp_issuer, idp_client_id, idp_client_secret_env and id_token_env are for grant enterprise"},
		{"services:\n  - mcp_url: http://x.test\n    auth: {type: oauth, grant: client_credentials, client_id: c}\n", "services[0].auth: grant client_credentials needs client_id and one of client_secret_env and client_key_file"},
		{"services:\n  - mcp_url: http://x.test\n    auth: {type: oauth, client_secret_env: S}\n", "services[0].auth: client_secret_env needs the client_id it belongs to"},
		{"services:\n  - mcp_url: http://x.test\n    auth: {type: oauth, client_metadata_url: http://x.test/c.json}\n", `services[0].auth: client_metadata_url: "http://x.test/c.json" is not an https URL with a path`},
		{"services:\n  - mcp_url: http://x.test\n    auth: {type: oauth, redirect_url: http://example.com:80/cb}\n", `services[0].auth: redirect_url: "http://example.com:80/cb" is not on a loopback address (127.0.0.1, [::1] or localhost)`},
		{"services:\n  - mcp_url: http://x.test\n    auth: {type: oauth, redirect_url: http://127.0.0.1/cb}\n", `services[0].auth: redirect_url: "http://127.0.0.1/cb" is not an http URL with a port, like http://127.0.0.1:33418/callback`},
		{"services:\n  - mcp_url: http://x.test\n    auth: {type: oauth, client_key: c}\n", `bad pack file: line 3: unknown key "client_key"`},
	} {
		_, err := pack.Parse([]byte(c.yaml))
		if err == nil || err.Error() != c.want {
			t.Errorf("%q:\n err = %v\nwant %s", c.yaml, err, c.want)
		}
	}
	p, err := pack.Parse([]byte("services:\n  - mcp_url: https://x.test/mcp\n    auth: {type: oauth, client_id: c, client_secret_env: S, scopes: [a, b], redirect_url: 'http://127.0.0.1:9/cb'}\n"))
	if err != nil || p.Services[0].Auth.ClientID != "c" || len(p.Services[0].Auth.Scopes) != 2 {
		t.Fatalf("%+v, %v", p, err)
	}
}
