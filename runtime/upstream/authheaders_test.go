package upstream

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// headerLog records the headers of each request a server gets.
type headerLog struct {
	mu  sync.Mutex
	got []http.Header
}

func (l *headerLog) add(h http.Header) {
	l.mu.Lock()
	l.got = append(l.got, h.Clone())
	l.mu.Unlock()
}

func (l *headerLog) all() []http.Header {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]http.Header(nil), l.got...)
}

// TestAuthHeadersFromEnvSent: auth.headers on an mcp_url service send each
// header on every request, "$VAR" values read from the environment, with a
// bearer token beside them; a server echoing one back gets it redacted.
func TestAuthHeadersFromEnvSent(t *testing.T) {
	s, free := hangingServer(t)
	t.Cleanup(free)
	log := &headerLog{}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.add(r.Header)
		if r.Header.Get("Authorization") != "Bearer tok-hdr-61aa" || r.Header.Get("X-Api-Key") != "key-hdr-93f0" || r.Header.Get("X-Tenant") != "acme" {
			http.Error(w, "missing credentials", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	t.Setenv("CODEMODE_T_HBEARER", "tok-hdr-61aa")
	t.Setenv("CODEMODE_T_HKEY", "key-hdr-93f0")
	ctx := ctxT(t, 20*time.Second)

	u := newTestMCP(t, MCPConfig{Name: "remote", URL: srv.URL, Auth: &Auth{Type: "bearer", TokenEnv: "CODEMODE_T_HBEARER",
		Headers: map[string]string{"x-api-key": "$CODEMODE_T_HKEY", "X-Tenant": "acme"}}})
	r := call(t, u, ctx, tool("add", readOnly, "a", "b"), map[string]any{"a": json.Number("1"), "b": json.Number("2")})
	if jsonOf(t, r.Value) != `{"sum":3}` {
		t.Fatalf("add: %#v", r.Value)
	}
	if r := call(t, u, ctx, tool("header", readOnly), nil); r.Value != "[redacted]" {
		t.Fatalf("header echoed: %#v", r.Value)
	}
	got := log.all()
	if len(got) < 3 {
		t.Fatalf("server saw %d requests", len(got))
	}
	for i, hd := range got {
		if hd.Get("X-Api-Key") != "key-hdr-93f0" || hd.Get("X-Tenant") != "acme" || hd.Get("Authorization") != "Bearer tok-hdr-61aa" {
			t.Fatalf("request %d headers: %v", i, hd)
		}
	}

	// headers: alone, with no type.
	u = newTestMCP(t, MCPConfig{Name: "remote", URL: srv.URL, Header: http.Header{"Authorization": {"Bearer tok-hdr-61aa"}},
		Auth: &Auth{Headers: map[string]string{"X-Api-Key": "${CODEMODE_T_HKEY}", "X-Tenant": "acme"}}})
	if r := call(t, u, ctx, tool("add", readOnly, "a", "b"), map[string]any{"a": json.Number("2"), "b": json.Number("2")}); jsonOf(t, r.Value) != `{"sum":4}` {
		t.Fatalf("headers alone: %#v", r.Value)
	}
}

// TestAuthHeadersNotResentOffOrigin: a redirect of the MCP endpoint to
// another origin is followed without the bearer token or any auth.headers
// header; one back on the service's origin carries them again.
func TestAuthHeadersNotResentOffOrigin(t *testing.T) {
	s, free := hangingServer(t)
	t.Cleanup(free)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	foreignLog, homeLog := &headerLog{}, &headerLog{}
	foreign := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		foreignLog.add(r.Header)
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(foreign.Close)
	home := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		homeLog.add(r.Header)
		switch r.URL.Path {
		case "/away":
			http.Redirect(w, r, foreign.URL+"/mcp", http.StatusTemporaryRedirect)
		case "/moved":
			http.Redirect(w, r, "/mcp", http.StatusPermanentRedirect)
		default:
			h.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(home.Close)
	t.Setenv("CODEMODE_T_RBEARER", "tok-redir-4c1d")
	t.Setenv("CODEMODE_T_RKEY", "key-redir-0b7e")
	a := &Auth{Type: "bearer", TokenEnv: "CODEMODE_T_RBEARER", Headers: map[string]string{"X-Api-Key": "$CODEMODE_T_RKEY", "X-Tenant": "acme"}}
	ctx := ctxT(t, 20*time.Second)

	u := newTestMCP(t, MCPConfig{Name: "remote", URL: home.URL + "/away", Auth: a})
	if r := call(t, u, ctx, tool("header", readOnly), nil); r.Value != "" {
		t.Fatalf("the foreign server saw X-Api-Key %#v", r.Value)
	}
	if len(foreignLog.all()) == 0 {
		t.Fatal("the redirect was not followed")
	}
	for _, hd := range foreignLog.all() {
		for k, vs := range hd {
			for _, v := range vs {
				if k == "Authorization" || k == "X-Api-Key" || k == "X-Tenant" || k == "Referer" || strings.Contains(v, "redir-") {
					t.Fatalf("the other origin got %s: %s", k, v)
				}
			}
		}
	}

	u = newTestMCP(t, MCPConfig{Name: "remote", URL: home.URL + "/moved", Auth: a})
	if r := call(t, u, ctx, tool("header", readOnly), nil); r.Value != "[redacted]" {
		t.Fatalf("same-origin redirect: X-Api-Key %#v", r.Value)
	}
	for _, hd := range homeLog.all() {
		if hd.Get("Authorization") != "Bearer tok-redir-4c1d" || hd.Get("X-Tenant") != "acme" {
			t.Fatalf("home request without credentials: %v", hd)
		}
	}
}

// TestAuthHeadersBadRefused: a bad auth.headers entry is one line naming
// it, before anything is sent.
func TestAuthHeadersBadRefused(t *testing.T) {
	t.Setenv("CODEMODE_T_CRLF", "v\r\nX-Evil: 1")
	for _, c := range []struct {
		auth Auth
		want string
	}{
		{Auth{Headers: map[string]string{"X Bad": "v"}}, `auth.headers: "X Bad" is not a header name`},
		{Auth{Headers: map[string]string{"Mcp-Session-Id": "v"}}, `auth.headers: Mcp-Session-Id is set by codemode itself (or by auth.type); it cannot be a header here`},
		{Auth{Type: "bearer", TokenEnv: "CODEMODE_T_CRLF", Headers: map[string]string{"authorization": "v"}}, `auth.headers: Authorization is set by codemode itself (or by auth.type); it cannot be a header here`},
		{Auth{Headers: map[string]string{"X-Key": "$CODEMODE_T_UNSET_42"}}, `auth.headers: environment variable CODEMODE_T_UNSET_42 (header X-Key) is not set`},
		{Auth{Headers: map[string]string{"X-Key": "$CODEMODE_T_CRLF"}}, `auth.headers: the value of X-Key holds a control character (CR, LF or NUL)`},
		{Auth{Headers: map[string]string{"x-key": "a", "X-Key": "b"}}, `auth.headers: X-Key is given twice`},
	} {
		a := c.auth
		_, err := NewMCP(MCPConfig{URL: "http://127.0.0.1:1/mcp", Auth: &a})
		if err == nil || err.Error() != c.want {
			t.Errorf("%v: err = %v, want %s", c.auth.Headers, err, c.want)
		}
	}
}

// TestOAuthTypeOnOpenAPIRefused: type oauth is for MCP servers; an OpenAPI
// service given it fails in one line instead of calling without
// credentials, and an MCP server given an unknown type names oauth.
func TestOAuthTypeOnOpenAPIRefused(t *testing.T) {
	_, err := NewHTTP(HTTPConfig{BaseURL: "http://x.test", Auth: &Auth{Type: "oauth"}})
	if err == nil || err.Error() != "auth: type oauth is for mcp_url services; an OpenAPI service takes bearer, basic or apiKey" {
		t.Fatalf("openapi: err = %v", err)
	}
	_, err = NewMCP(MCPConfig{URL: "http://x.test/mcp", Auth: &Auth{Type: "oauth2"}})
	if err == nil || err.Error() != `auth: type "oauth2": want bearer, basic, apiKey or oauth` {
		t.Fatalf("mcp: err = %v", err)
	}
}

// TestAuthHeadersOnOpenAPI: auth.headers work on an OpenAPI service too,
// beside its type, and are not sent along a redirect to another origin.
func TestAuthHeadersOnOpenAPI(t *testing.T) {
	rec := newRecorder(t)
	t.Setenv("CODEMODE_T_OKEY", "key-oapi-5e61")
	t.Setenv("CODEMODE_T_OTOK", "tok-oapi-17c2")
	a := &Auth{Type: "bearer", TokenEnv: "CODEMODE_T_OTOK", Headers: map[string]string{"X-Api-Key": "$CODEMODE_T_OKEY", "X-Org": "acme"}}
	h, err := NewHTTP(HTTPConfig{BaseURL: rec.srv.URL, Auth: a})
	if err != nil {
		t.Fatal(err)
	}
	call(t, h, ctxT(t, 10*time.Second), httpTool("GET", "/a", "", false), nil)
	if g := rec.last.Header; g.Get("X-Api-Key") != "key-oapi-5e61" || g.Get("X-Org") != "acme" || g.Get("Authorization") != "Bearer tok-oapi-17c2" {
		t.Fatalf("headers: %v", g)
	}

	api, _, _, foreignHits := redirectPair(t)
	h, err = NewHTTP(HTTPConfig{BaseURL: api.URL, Auth: a})
	if err != nil {
		t.Fatal(err)
	}
	call(t, h, ctxT(t, 10*time.Second), httpTool("GET", "/away", "", false), nil)
	got, ok := foreignHits.at("/landing")
	if !ok {
		t.Fatal("the redirect was not followed")
	}
	for k, vs := range got.Header {
		for _, v := range vs {
			if k == "X-Api-Key" || k == "X-Org" || k == "Authorization" || strings.Contains(v, "oapi-") {
				t.Errorf("the other origin got %s: %s", k, v)
			}
		}
	}
}
