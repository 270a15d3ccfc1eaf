package gateway_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-dev/codemode/gateway"
)

const (
	tokenA = "tok-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	tokenB = "tok-bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
)

// initBody is an initialize request, as a client's first POST.
const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`

// writeTokens writes a tokens file and returns its path.
func writeTokens(t testing.TB, lines ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// serveHTTP serves the fixture's server with opts on a real loopback
// listener.
func serveHTTP(t testing.TB, f *fixture, opts gateway.HTTPOptions) *httptest.Server {
	t.Helper()
	h, err := f.srv.NewHTTPHandler(opts)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close) // after the sessions' cleanups
	return hs
}

// bearer adds an Authorization header to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// connectHTTP opens a go-sdk client session carrying token ("" for none).
func connectHTTP(t testing.TB, url, token string) (*mcp.ClientSession, error) {
	t.Helper()
	client := &http.Client{Transport: http.DefaultTransport}
	if token != "" {
		client.Transport = bearer{token, http.DefaultTransport}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: url, HTTPClient: client}, nil)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

// post sends one raw MCP POST and returns the status, a header and the body.
func post(t testing.TB, url, token, session, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp, string(data)
}

func tokensFile(t testing.TB, path string) *gateway.Tokens {
	t.Helper()
	tok, err := gateway.TokensFromFile(path, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestServeHTTPWithoutTokenRefused(t *testing.T) {
	f := newFixture(t, false, nil)
	hs := serveHTTP(t, f, gateway.HTTPOptions{Tokens: tokensFile(t, writeTokens(t, tokenA))})

	resp, body := post(t, hs.URL, "", "", initBody)
	wantHeader := `Bearer resource_metadata="` + hs.URL + `/.well-known/oauth-protected-resource"`
	if resp.StatusCode != 401 || resp.Header.Get("WWW-Authenticate") != wantHeader || body != "no bearer token\n" {
		t.Fatalf("no token: %d %q %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
	}
	// The metadata document the header names, without a token.
	mresp, err := http.Get(hs.URL + gateway.MetadataPath)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(mresp.Body)
	mresp.Body.Close()
	want := `{"resource":"` + hs.URL + `/mcp","bearer_methods_supported":["header"],"resource_name":"codemode"}` + "\n"
	if mresp.StatusCode != 200 || mresp.Header.Get("Content-Type") != "application/json" || string(data) != want {
		t.Fatalf("metadata: %d %q\n%s", mresp.StatusCode, mresp.Header.Get("Content-Type"), data)
	}
	// The go-sdk client without a token cannot connect, and nothing runs.
	if _, err := connectHTTP(t, hs.URL, ""); err == nil {
		t.Fatal("a client without a token connected")
	}
	if n, _ := f.srv.LiveSessions(); n != 0 {
		t.Fatalf("%d sessions opened without a token", n)
	}
}

func TestServeHTTPWrongTokenRefused(t *testing.T) {
	f := newFixture(t, false, nil)
	hs := serveHTTP(t, f, gateway.HTTPOptions{Tokens: tokensFile(t, writeTokens(t, tokenA))})
	for _, tok := range []string{tokenB, tokenA[:len(tokenA)-1], tokenA + "a", strings.ToUpper(tokenA)} {
		resp, body := post(t, hs.URL, tok, "", initBody)
		if resp.StatusCode != 401 || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), `Bearer resource_metadata="`) || body != "invalid token\n" {
			t.Fatalf("token %q: %d %q %q", tok, resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
		}
	}
	// Basic credentials are not a bearer token.
	req, _ := http.NewRequest("POST", hs.URL, strings.NewReader(initBody))
	req.SetBasicAuth("user", tokenA)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Fatalf("basic auth: %d", resp.StatusCode)
	}
}

func TestServeHTTPRightTokenRunsCode(t *testing.T) {
	f := newFixture(t, false, nil)
	// Two tokens: either is accepted (rotation), each session its own.
	hs := serveHTTP(t, f, gateway.HTTPOptions{Tokens: tokensFile(t, writeTokens(t, "# rotated monthly", tokenA, "", tokenB))})
	a, err := connectHTTP(t, hs.URL, tokenA)
	if err != nil {
		t.Fatal(err)
	}
	b, err := connectHTTP(t, hs.URL, tokenB)
	if err != nil {
		t.Fatal(err)
	}
	for _, cs := range []*mcp.ClientSession{a, b} {
		call(t, cs, "find_tool", map[string]any{"query": "everything.get_sum"})
		got, isErr := call(t, cs, "run_code", map[string]any{"code": `print(api.everything.get_sum(a=20, b=22))`})
		if isErr || got != "The sum of 20 and 22 is 42.\n[1 tool call]\n" {
			t.Fatalf("run_code with a token: %q", got)
		}
	}
	// A session belongs to the token that opened it: another valid token
	// cannot use its id.
	resp, body := post(t, hs.URL, tokenB, a.ID(), `{"jsonrpc":"2.0","id":9,"method":"tools/list"}`)
	if resp.StatusCode != 403 || body != "session user mismatch\n" {
		t.Fatalf("session of token A used with token B: %d %q", resp.StatusCode, body)
	}
}

func TestServeHTTPTokenFileRotated(t *testing.T) {
	f := newFixture(t, false, nil)
	path := writeTokens(t, tokenA)
	tok := tokensFile(t, path)
	// The file is looked at once a second: the test's clock moves on a
	// second at each change.
	var mu sync.Mutex
	clock := time.Unix(1_000_000, 0)
	gateway.SetTokensClock(tok, func() time.Time { mu.Lock(); defer mu.Unlock(); return clock })
	hs := serveHTTP(t, f, gateway.HTTPOptions{Tokens: tok})
	status := func(tok string) int {
		resp, _ := post(t, hs.URL, tok, "", initBody)
		return resp.StatusCode
	}
	if a, b := status(tokenA), status(tokenB); a != 200 || b != 401 {
		t.Fatalf("before rotation: A %d, B %d", a, b)
	}
	write := func(content string) {
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		// A later mtime even on a coarse clock.
		later := time.Now().Add(time.Duration(len(content)) * time.Second)
		if err := os.Chtimes(path, later, later); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		clock = clock.Add(time.Second)
		mu.Unlock()
	}
	write(tokenB + "\n")
	if a, b := status(tokenA), status(tokenB); a != 401 || b != 200 {
		t.Fatalf("after rotation: A %d, B %d", a, b)
	}
	// A bad file fails closed: every token is refused until it is fixed.
	write("short\n" + tokenB + "\n")
	if b := status(tokenB); b != 401 {
		t.Fatalf("bad file: B %d", b)
	}
	write(tokenA + "\n" + tokenB + "\n")
	if a, b := status(tokenA), status(tokenB); a != 200 || b != 200 {
		t.Fatalf("fixed file: A %d, B %d", a, b)
	}
}

func TestServeHTTPBadTokensRefusedAtStart(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ content, want string }{
		{"", "bearer tokens: %s holds no token"},
		{"# only a comment\n\n", "bearer tokens: %s holds no token"},
		{tokenA + "\nshort\n", "bearer tokens: %s line 2: the token has 5 characters; use at least 16 (e.g. openssl rand -hex 32)"},
		{"has space in it and is long\n", "bearer tokens: %s line 1: a token has only letters, digits and -._~+/ (then =)"},
	} {
		path := filepath.Join(dir, "tokens")
		os.WriteFile(path, []byte(tc.content), 0o600)
		_, err := gateway.TokensFromFile(path, nil)
		if want := strings.ReplaceAll(tc.want, "%s", path); err == nil || err.Error() != want {
			t.Errorf("%q: %v, want %s", tc.content, err, want)
		}
	}
	_, err := gateway.TokensFromFile(filepath.Join(dir, "missing"), nil)
	if err == nil || err.Error() != "bearer tokens: stat "+filepath.Join(dir, "missing")+": no such file or directory" {
		t.Errorf("missing file: %v", err)
	}
	t.Setenv("CODEMODE_TEST_TOKENS", "  ")
	if _, err := gateway.TokensFromEnv("CODEMODE_TEST_TOKENS"); err == nil || err.Error() != "bearer tokens: $CODEMODE_TEST_TOKENS is empty or unset" {
		t.Errorf("empty env: %v", err)
	}
	t.Setenv("CODEMODE_TEST_TOKENS", tokenA+"\n"+tokenB)
	tok, err := gateway.TokensFromEnv("CODEMODE_TEST_TOKENS")
	if err != nil || tok.Len() != 2 {
		t.Fatalf("env with two tokens: %v", err)
	}
	if _, ok := tok.Check(tokenB); !ok {
		t.Error("second env token refused")
	}
}

func TestServeHTTPNonLoopbackWithoutAuthRefused(t *testing.T) {
	_, err := gateway.ListenHTTP("0.0.0.0:0", gateway.HTTPOptions{NoAuth: true})
	if want := "--insecure-no-auth serves only on a loopback address (127.0.0.1, [::1]); 0.0.0.0:0 is not one: name bearer tokens with --token-env or --token-file"; err == nil || err.Error() != want {
		t.Fatalf("non-loopback, no auth: %v", err)
	}
	_, err = gateway.ListenHTTP(":0", gateway.HTTPOptions{})
	if want := "--http :0: no bearer tokens: name them with --token-env or --token-file (or serve.auth in the pack), or pass --insecure-no-auth on a loopback address"; err == nil || err.Error() != want {
		t.Fatalf("no tokens: %v", err)
	}
	// Loopback may opt out.
	ln, err := gateway.ListenHTTP("127.0.0.1:0", gateway.HTTPOptions{NoAuth: true})
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
}

func TestServeHTTPDNSRebindingRefused(t *testing.T) {
	f := newFixture(t, false, nil)
	for _, opts := range []gateway.HTTPOptions{{NoAuth: true}, {Tokens: tokensFile(t, writeTokens(t, tokenA))}} {
		hs := serveHTTP(t, f, opts)
		req, _ := http.NewRequest("POST", hs.URL, strings.NewReader(initBody))
		req.Host = "attacker.example:80"
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+tokenA)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 403 || string(data) != "Forbidden: invalid Host header \"attacker.example:80\"\n" {
			t.Fatalf("no-auth %v: rebinding: %d %q", opts.NoAuth, resp.StatusCode, data)
		}
	}
}

func TestHTTPSessionIDsUnguessable(t *testing.T) {
	f := newFixture(t, false, nil)
	hs := serveHTTP(t, f, gateway.HTTPOptions{NoAuth: true})
	seen := map[string]bool{}
	for range 8 {
		resp, _ := post(t, hs.URL, "", "", initBody)
		id := resp.Header.Get("Mcp-Session-Id")
		// crypto/rand.Text: 26 base32 characters, 130 bits.
		if !regexp.MustCompile(`^[A-Z2-7]{26}$`).MatchString(id) || seen[id] {
			t.Fatalf("session id %q (seen before: %v)", id, seen[id])
		}
		seen[id] = true
	}
}

// waitSessions waits until the server holds no session, or fails after a
// minute.
func waitSessions(t testing.TB, srv *gateway.Server) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		m, a := srv.LiveSessions()
		if m == 0 && a == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("sessions never expired: %d MCP sessions, %d agent sessions live", m, a)
		}
	}
}

func TestServeHTTPIdleSessionExpires(t *testing.T) {
	f := newFixture(t, false, nil)
	hs := serveHTTP(t, f, gateway.HTTPOptions{Tokens: tokensFile(t, writeTokens(t, tokenA)), IdleTTL: time.Second})
	cs, err := connectHTTP(t, hs.URL, tokenA)
	if err != nil {
		t.Fatal(err)
	}
	call(t, cs, "read_api", map[string]any{"service": "everything", "lines": "41-46"})
	id := cs.ID()
	if err := f.rt.Gate().Check(id, "everything", "echo"); err != nil {
		t.Fatalf("read not recorded: %v", err)
	}
	waitSessions(t, f.srv)
	// Its reads went with it, and its id is no longer a session.
	if err := f.rt.Gate().Check(id, "everything", "echo"); err == nil {
		t.Fatal("the expired session's reads are still held")
	}
	resp, body := post(t, hs.URL, tokenA, id, `{"jsonrpc":"2.0","id":9,"method":"tools/list"}`)
	if resp.StatusCode != 404 || body != "session not found\n" {
		t.Fatalf("request for an expired session: %d %q", resp.StatusCode, body)
	}
	// A new session starts fine.
	cs2, err := connectHTTP(t, hs.URL, tokenA)
	if err != nil {
		t.Fatal(err)
	}
	if cs2.ID() == id {
		t.Fatal("new session reuses the expired id")
	}
}

func TestServeHTTPUnclosedSessionsFreed(t *testing.T) {
	f := newFixture(t, false, nil)
	const ttl = time.Second
	hs := serveHTTP(t, f, gateway.HTTPOptions{Tokens: tokensFile(t, writeTokens(t, tokenA)), IdleTTL: ttl})
	const n = 40
	start := time.Now()
	var ids []string
	for range n {
		// Opened, used and never closed: the client goes away.
		cs, err := connectHTTP(t, hs.URL, tokenA)
		if err != nil {
			t.Fatal(err)
		}
		call(t, cs, "find_tool", map[string]any{"query": "everything.echo"})
		ids = append(ids, cs.ID())
	}
	// While they are within their TTL they are all held (on a machine too
	// slow to open them within one TTL the first may already be gone). A
	// go-sdk client's server/discover, sent before initialize, may hold one
	// more MCP session for a moment; it has no agent session.
	if m, a := f.srv.LiveSessions(); time.Since(start) < ttl && (m < n || a != n) {
		t.Fatalf("%d MCP sessions, %d agent sessions live, want %d", m, a, n)
	}
	waitSessions(t, f.srv)
	for _, id := range ids {
		if err := f.rt.Gate().Check(id, "everything", "echo"); err == nil {
			t.Fatalf("session %s: reads still held", id)
		}
	}
}

func TestServeHTTPMetadataPublicURL(t *testing.T) {
	f := newFixture(t, false, nil)
	hs := serveHTTP(t, f, gateway.HTTPOptions{
		Tokens:               tokensFile(t, writeTokens(t, tokenA)),
		PublicURL:            "https://mcp.example.com/",
		AuthorizationServers: []string{"https://auth.example.com"},
	})
	resp, _ := post(t, hs.URL, "", "", initBody)
	if h := resp.Header.Get("WWW-Authenticate"); resp.StatusCode != 401 || h != `Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource"` {
		t.Fatalf("no token: %d %q", resp.StatusCode, h)
	}
	mresp, err := http.Get(hs.URL + gateway.MetadataPath)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(mresp.Body)
	mresp.Body.Close()
	if want := `{"resource":"https://mcp.example.com/mcp","authorization_servers":["https://auth.example.com"],"bearer_methods_supported":["header"],"resource_name":"codemode"}` + "\n"; string(data) != want {
		t.Fatalf("metadata:\n%s", data)
	}
}

func TestTokensFileReadableByOthersWarned(t *testing.T) {
	path := writeTokens(t, tokenA)
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	var logged []string
	if _, err := gateway.TokensFromFile(path, func(format string, a ...any) { logged = append(logged, fmt.Sprintf(format, a...)) }); err != nil {
		t.Fatal(err)
	}
	if want := "bearer tokens: " + path + " can be read by other users (mode 0644); chmod 600 it"; len(logged) != 1 || logged[0] != want {
		t.Fatalf("logged %q", logged)
	}
}

// TestTokenFileStatedEveryRequest pins how often the token file is looked
// at: every request stat'ed it. Now it is looked at again at most once a
// second (the clock is the test's), and a rotated token still takes effect
// without a restart.
func TestTokenFileStatedEveryRequest(t *testing.T) {
	path := writeTokens(t, tokenA)
	tok := tokensFile(t, path)
	clock := time.Unix(1_000_000, 0)
	gateway.SetTokensClock(tok, func() time.Time { return clock })
	if _, ok := tok.Check(tokenA); !ok {
		t.Fatal("token A refused")
	}
	// Rotated within the second: not looked at yet, so A still passes.
	if err := os.WriteFile(path, []byte(tokenB+"\n# a longer file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	clock = clock.Add(999 * time.Millisecond)
	if _, ok := tok.Check(tokenA); !ok {
		t.Fatal("the file was read again within a second")
	}
	if _, ok := tok.Check(tokenB); ok {
		t.Fatal("the file was read again within a second")
	}
	// A second later the rotation takes effect.
	clock = clock.Add(time.Millisecond)
	if _, ok := tok.Check(tokenB); !ok {
		t.Fatal("rotated token B refused after a second")
	}
	if _, ok := tok.Check(tokenA); ok {
		t.Fatal("removed token A still accepted after a second")
	}
}
