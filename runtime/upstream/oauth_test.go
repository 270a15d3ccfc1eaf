package upstream

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/internal/testoauth"
)

// oauthMCP connects to srv's MCP endpoint with auth type oauth.
func oauthMCP(t *testing.T, srv *testoauth.Server, a *Auth, file string, mode LoginMode, log io.Writer) *MCP {
	t.Helper()
	a.Type = "oauth"
	if log == nil {
		log = io.Discard
	}
	u, err := NewMCP(MCPConfig{Name: "guarded", URL: srv.MCP, Auth: a, TokenFile: file, Login: mode, Log: log, StartTimeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { u.Close() })
	return u
}

func readStored(t *testing.T, file string) storedAuth {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var st storedAuth
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	return st
}

// TestOAuthCodeFlowWithPKCE: on a 401 the client finds the authorization
// server through the protected resource metadata, registers itself,
// gets a code with an S256 challenge and the resource parameter, and
// exchanges it with the verifier; the token is kept in a 0600 file in a
// 0700 directory and redacted from what the server echoes.
func TestOAuthCodeFlowWithPKCE(t *testing.T) {
	srv := testoauth.New(t, testoauth.Options{})
	file := filepath.Join(t.TempDir(), "oauth", "guarded.json")
	u := oauthMCP(t, srv, &Auth{OAuth: OAuth{Headless: true, RedirectURL: testoauth.FreeRedirect(t)}}, file, LoginRefuse, nil)
	r := call(t, u, ctxT(t, 20*time.Second), tool("whoami", readOnly), nil)
	if r.Value != "you sent Bearer [redacted]" {
		t.Fatalf("whoami: %#v", r.Value)
	}
	if p := srv.Problems(); p != "" {
		t.Fatalf("the authorization server refused: %s", p)
	}
	for what, n := range map[string]int{"prm": 1, "metadata": 1, "register": 1, "authorize": 1, "token:authorization_code": 1} {
		if got := srv.Count(what); got != n {
			t.Errorf("%s: %d requests, want %d", what, got, n)
		}
	}
	fi, err := os.Stat(file)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v, %v", fi, err)
	}
	if di, _ := os.Stat(filepath.Dir(file)); di.Mode().Perm() != 0o700 {
		t.Fatalf("token directory mode %v", di.Mode().Perm())
	}
	st := readStored(t, file)
	if st.Token.AccessToken != srv.LastToken || st.Resource != srv.MCP || st.ClientSecret == "" || st.Token.RefreshToken == "" {
		t.Fatalf("stored: %+v", st)
	}
}

// TestOAuthTokenFileReused: a later connection (another codemode
// process) sends the stored token without authorising again.
func TestOAuthTokenFileReused(t *testing.T) {
	srv := testoauth.New(t, testoauth.Options{})
	file := filepath.Join(t.TempDir(), "guarded.json")
	a := OAuth{Headless: true, RedirectURL: testoauth.FreeRedirect(t)}
	ctx := ctxT(t, 20*time.Second)
	call(t, oauthMCP(t, srv, &Auth{OAuth: a}, file, LoginRefuse, nil), ctx, tool("whoami", readOnly), nil)
	call(t, oauthMCP(t, srv, &Auth{OAuth: a}, file, LoginRefuse, nil), ctx, tool("whoami", readOnly), nil)
	if n := srv.Count("authorize"); n != 1 {
		t.Fatalf("authorised %d times", n)
	}
	if n := srv.Count("401"); n != 1 {
		t.Fatalf("%d unauthorised requests", n)
	}
}

// TestOAuthExpiredTokenRefreshed: an expired stored token is refreshed
// with the refresh token, without a new authorization, and the new one is
// saved.
func TestOAuthExpiredTokenRefreshed(t *testing.T) {
	srv := testoauth.New(t, testoauth.Options{ExpiresIn: 1}) // due at once
	file := filepath.Join(t.TempDir(), "guarded.json")
	a := OAuth{Headless: true, RedirectURL: testoauth.FreeRedirect(t)}
	ctx := ctxT(t, 20*time.Second)
	call(t, oauthMCP(t, srv, &Auth{OAuth: a}, file, LoginRefuse, nil), ctx, tool("whoami", readOnly), nil)
	first := readStored(t, file).Token.AccessToken
	call(t, oauthMCP(t, srv, &Auth{OAuth: a}, file, LoginRefuse, nil), ctx, tool("whoami", readOnly), nil)
	if srv.Count("authorize") != 1 || srv.Count("token:refresh_token") == 0 {
		t.Fatalf("authorize %d, refresh %d", srv.Count("authorize"), srv.Count("token:refresh_token"))
	}
	if st := readStored(t, file); st.Token.AccessToken == first || st.Token.AccessToken != srv.LastToken {
		t.Fatalf("the refreshed token was not saved: %s (first %s, last issued %s)", st.Token.AccessToken, first, srv.LastToken)
	}
}

// TestOAuthReauthorisedWhenRefreshFails: when the stored token has
// expired and its refresh token is refused, the client authorises again.
func TestOAuthReauthorisedWhenRefreshFails(t *testing.T) {
	srv := testoauth.New(t, testoauth.Options{ExpiresIn: 1})
	file := filepath.Join(t.TempDir(), "guarded.json")
	a := OAuth{Headless: true, RedirectURL: testoauth.FreeRedirect(t)}
	ctx := ctxT(t, 20*time.Second)
	call(t, oauthMCP(t, srv, &Auth{OAuth: a}, file, LoginRefuse, nil), ctx, tool("whoami", readOnly), nil)
	srv.FailRefresh()
	srv.SetExpiresIn(3600)
	r := call(t, oauthMCP(t, srv, &Auth{OAuth: a}, file, LoginRefuse, nil), ctx, tool("whoami", readOnly), nil)
	if r.Value != "you sent Bearer [redacted]" || srv.Count("authorize") != 2 {
		t.Fatalf("whoami %#v after %d authorizations", r.Value, srv.Count("authorize"))
	}
	if readStored(t, file).Token.AccessToken != srv.LastToken {
		t.Fatal("the new token was not saved")
	}
}

// TestOAuthLoginNeededNamesCommand: without a token, and without headless,
// a call fails at once in one line naming codemode auth login.
func TestOAuthLoginNeededNamesCommand(t *testing.T) {
	srv := testoauth.New(t, testoauth.Options{})
	u := oauthMCP(t, srv, &Auth{OAuth: OAuth{RedirectURL: testoauth.FreeRedirect(t)}}, filepath.Join(t.TempDir(), "g.json"), LoginRefuse, nil)
	_, err := u.Call(ctxT(t, 20*time.Second), tool("whoami", readOnly), nil)
	if err == nil || err.Error() != "mcp guarded: the server needs an OAuth login: run codemode auth login guarded" {
		t.Fatalf("err = %v", err)
	}
}

// TestOAuthHeadlessAgainstLoginPage: headless against an authorization
// server that wants a user fails in one line saying what to do.
func TestOAuthHeadlessAgainstLoginPage(t *testing.T) {
	srv := testoauth.New(t, testoauth.Options{Login: true})
	redirect := testoauth.FreeRedirect(t)
	u := oauthMCP(t, srv, &Auth{OAuth: OAuth{Headless: true, RedirectURL: redirect}}, "", LoginRefuse, nil)
	_, err := u.Call(ctxT(t, 20*time.Second), tool("whoami", readOnly), nil)
	want := "the authorization server did not send the browser back to " + redirect + " without a user; take auth.headless out and run codemode auth login guarded in a terminal"
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("err = %v", err)
	}
}

// TestOAuthInteractiveLogin: a login prints the authorization URL and
// waits on the loopback redirect; the browser's visit completes it.
func TestOAuthInteractiveLogin(t *testing.T) {
	srv := testoauth.New(t, testoauth.Options{ClientID: "pre-1", ClientSecret: "pre-secret-1", RedirectURI: testoauth.FreeRedirect(t)})
	t.Setenv("CODEMODE_T_CSECRET", "pre-secret-1")
	pr, pw := io.Pipe()
	file := filepath.Join(t.TempDir(), "g.json")
	u := oauthMCP(t, srv, &Auth{OAuth: OAuth{ClientID: "pre-1", ClientSecretEnv: "CODEMODE_T_CSECRET", RedirectURL: srv.Opts().RedirectURI}}, file, LoginInteractive, pw)
	browsed := make(chan error, 1)
	go func() {
		// The user: read the URL codemode prints and open it.
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if m := regexp.MustCompile(`^  (http://\S+)$`).FindStringSubmatch(sc.Text()); m != nil {
				resp, err := http.Get(m[1])
				if err == nil {
					b, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					if !strings.Contains(string(b), "codemode is authorised") {
						err = io.ErrUnexpectedEOF
					}
				}
				browsed <- err
				break
			}
		}
		io.Copy(io.Discard, pr)
	}()
	if err := u.Start(ctxT(t, 20*time.Second)); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	if err := <-browsed; err != nil {
		t.Fatal(err)
	}
	if p := srv.Problems(); p != "" || srv.Count("register") != 0 {
		t.Fatalf("problems %q, registrations %d", p, srv.Count("register"))
	}
	st := readStored(t, file)
	if st.ClientID != "pre-1" || st.ClientSecret != "" {
		t.Fatalf("stored %+v (a pre-registered client's secret stays in its variable)", st)
	}
}

// TestOAuthTokenForAnotherServerNotSent: a token file written for another
// URL is not sent to this one.
func TestOAuthTokenForAnotherServerNotSent(t *testing.T) {
	srv := testoauth.New(t, testoauth.Options{})
	other := testoauth.New(t, testoauth.Options{})
	file := filepath.Join(t.TempDir(), "g.json")
	a := OAuth{Headless: true, RedirectURL: testoauth.FreeRedirect(t)}
	ctx := ctxT(t, 20*time.Second)
	call(t, oauthMCP(t, srv, &Auth{OAuth: a}, file, LoginRefuse, nil), ctx, tool("whoami", readOnly), nil)
	call(t, oauthMCP(t, other, &Auth{OAuth: a}, file, LoginRefuse, nil), ctx, tool("whoami", readOnly), nil)
	if other.Count("authorize") != 1 || other.Problems() != "" {
		t.Fatalf("the other server: %d authorizations, %q", other.Count("authorize"), other.Problems())
	}
}

// TestOAuthClientCredentials: grant client_credentials gets a token with
// the client's id and secret, no user and no registration.
func TestOAuthClientCredentials(t *testing.T) {
	srv := testoauth.New(t, testoauth.Options{ClientID: "svc-1", ClientSecret: "svc-secret-77", RedirectURI: "unused", ClientCredentials: true})
	t.Setenv("CODEMODE_T_SVCSECRET", "svc-secret-77")
	u := oauthMCP(t, srv, &Auth{OAuth: OAuth{Grant: "client_credentials", ClientID: "svc-1", ClientSecretEnv: "CODEMODE_T_SVCSECRET"}}, "", LoginRefuse, nil)
	r := call(t, u, ctxT(t, 20*time.Second), tool("whoami", readOnly), nil)
	if r.Value != "you sent Bearer [redacted]" || srv.Count("token:client_credentials") != 1 || srv.Count("authorize") != 0 {
		t.Fatalf("whoami %#v, counts %v, problems %q", r.Value, srv.Counts, srv.Problems())
	}
}

// TestOAuthClientCredentialsPrivateKeyJWT: grant client_credentials with
// client_key_file authenticates with a JWT signed by the client's key
// (ES256, iss and sub the client, aud the issuer), verified by the server.
func TestOAuthClientCredentialsPrivateKeyJWT(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKCS8PrivateKey(key)
	file := filepath.Join(t.TempDir(), "client.pem")
	os.WriteFile(file, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600)
	srv := testoauth.New(t, testoauth.Options{ClientID: "svc-jwt", RedirectURI: "unused", ClientCredentials: true, ClientKey: &key.PublicKey})
	u := oauthMCP(t, srv, &Auth{OAuth: OAuth{Grant: "client_credentials", ClientID: "svc-jwt", ClientKeyFile: file}}, "", LoginRefuse, nil)
	r := call(t, u, ctxT(t, 20*time.Second), tool("whoami", readOnly), nil)
	if r.Value != "you sent Bearer [redacted]" || srv.Count("token:client_credentials") != 1 || srv.Problems() != "" {
		t.Fatalf("whoami %#v, counts %v, problems %q", r.Value, srv.Counts, srv.Problems())
	}
	// Another key is refused by the server, in one line.
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	der, _ = x509.MarshalPKCS8PrivateKey(other)
	os.WriteFile(file, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600)
	u = oauthMCP(t, srv, &Auth{OAuth: OAuth{Grant: "client_credentials", ClientID: "svc-jwt", ClientKeyFile: file}}, "", LoginRefuse, nil)
	_, err = u.Call(ctxT(t, 20*time.Second), tool("whoami", readOnly), nil)
	if err == nil || !strings.Contains(err.Error(), "client_assertion: bad signature") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("err = %v", err)
	}
}

// TestOAuthEnterpriseGrant: grant enterprise exchanges the user's ID token
// at the identity provider for an ID-JAG (audience the authorization
// server, resource the MCP server) and that for an access token with the
// JWT bearer grant; the ID token is redacted like the other secrets.
func TestOAuthEnterpriseGrant(t *testing.T) {
	srv := testoauth.New(t, testoauth.Options{ClientID: "xaa-1", ClientSecret: "xaa-secret-1", RedirectURI: "unused", IDToken: "idtok-user-5a0c", IdPClientID: "idp-client-1"})
	t.Setenv("CODEMODE_T_XSECRET", "xaa-secret-1")
	t.Setenv("CODEMODE_T_IDTOKEN", "idtok-user-5a0c")
	u := oauthMCP(t, srv, &Auth{OAuth: OAuth{Grant: "enterprise", ClientID: "xaa-1", ClientSecretEnv: "CODEMODE_T_XSECRET",
		IdPIssuer: srv.IdP, IdPClientID: "idp-client-1", IDTokenEnv: "CODEMODE_T_IDTOKEN"}}, "", LoginRefuse, nil)
	r := call(t, u, ctxT(t, 20*time.Second), tool("whoami", readOnly), nil)
	if r.Value != "you sent Bearer [redacted]" || srv.Count("idp:token") != 1 || srv.Problems() != "" {
		t.Fatalf("whoami %#v, counts %v, problems %q", r.Value, srv.Counts, srv.Problems())
	}
	if got := u.Redactor().String("idtok-user-5a0c"); got != Redacted {
		t.Fatalf("the ID token is not redacted: %q", got)
	}
}

// TestOAuthLoginWaitEndsWithContext: a login whose user never comes back
// ends when its context does (a Ctrl-C, the login's time limit), in one
// line, and frees the redirect port.
func TestOAuthLoginWaitEndsWithContext(t *testing.T) {
	srv := testoauth.New(t, testoauth.Options{})
	redirect := testoauth.FreeRedirect(t)
	log := &logBuffer{}
	u := oauthMCP(t, srv, &Auth{OAuth: OAuth{RedirectURL: redirect}}, "", LoginInteractive, log)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- u.Start(ctx) }()
	waitLog(t, log, "open this URL in a browser")
	cancel()
	err := <-done
	if err == nil || !strings.Contains(err.Error(), "context canceled") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("err = %v", err)
	}
	ru, _ := url.Parse(redirect)
	ln, lerr := net.Listen("tcp", ru.Host)
	if lerr != nil {
		t.Fatalf("the redirect port is still held: %v", lerr)
	}
	ln.Close()
}

// TestOAuthNewerTokenPickedUpWithoutRestart: when the server refuses the
// token a running codemode holds and another process (a new login) has
// saved another one, the running one takes it from the file instead of
// needing a login itself.
func TestOAuthNewerTokenPickedUpWithoutRestart(t *testing.T) {
	srv := testoauth.New(t, testoauth.Options{})
	file := filepath.Join(t.TempDir(), "g.json")
	redirect := testoauth.FreeRedirect(t)
	ctx := ctxT(t, 20*time.Second)
	call(t, oauthMCP(t, srv, &Auth{OAuth: OAuth{Headless: true, RedirectURL: redirect}}, file, LoginRefuse, nil), ctx, tool("whoami", readOnly), nil)
	running := oauthMCP(t, srv, &Auth{OAuth: OAuth{RedirectURL: redirect}}, file, LoginRefuse, nil) // no headless: it cannot authorise itself
	call(t, running, ctx, tool("whoami", readOnly), nil)
	srv.Revoke()
	call(t, oauthMCP(t, srv, &Auth{OAuth: OAuth{Headless: true, RedirectURL: redirect}}, file, LoginInteractive, nil), ctx, tool("whoami", readOnly), nil)
	r := call(t, running, ctx, tool("whoami", readOnly), nil)
	if r.Value != "you sent Bearer [redacted]" || srv.Count("authorize") != 2 {
		t.Fatalf("whoami %#v after %d authorizations", r.Value, srv.Count("authorize"))
	}
}

// TestOAuthTokenFileModeTightened: a token file others may read is made
// 0600 again, with a warning naming it.
func TestOAuthTokenFileModeTightened(t *testing.T) {
	srv := testoauth.New(t, testoauth.Options{})
	file := filepath.Join(t.TempDir(), "g.json")
	a := OAuth{Headless: true, RedirectURL: testoauth.FreeRedirect(t)}
	ctx := ctxT(t, 20*time.Second)
	call(t, oauthMCP(t, srv, &Auth{OAuth: a}, file, LoginRefuse, nil), ctx, tool("whoami", readOnly), nil)
	os.Chmod(file, 0o644)
	log := &logBuffer{}
	call(t, oauthMCP(t, srv, &Auth{OAuth: a}, file, LoginRefuse, log), ctx, tool("whoami", readOnly), nil)
	if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o600 || !strings.Contains(log.String(), "could be read by others (mode 0644); it is 0600 again") {
		t.Fatalf("mode %v, log %q", fi.Mode().Perm(), log.String())
	}
}

// TestOAuthHugeMetadataRefused: an authorization server's reply past
// 1 MiB is refused, not read whole.
func TestOAuthHugeMetadataRefused(t *testing.T) {
	big := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/mcp":
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://`+r.Host+`/prm"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
		default:
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"resource": "`+strings.Repeat("x", 2<<20)+`"}`)
		}
	}))
	t.Cleanup(big.Close)
	u, err := NewMCP(MCPConfig{Name: "big", URL: big.URL + "/mcp", Auth: &Auth{Type: "oauth", OAuth: OAuth{Headless: true, RedirectURL: testoauth.FreeRedirect(t)}}, Log: io.Discard, StartTimeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { u.Close() })
	_, err = u.Call(ctxT(t, 20*time.Second), tool("whoami", readOnly), nil)
	if err == nil || strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), "xxxx") {
		t.Fatalf("err = %.300v", err)
	}
	t.Logf("err: %.300v", err)
}

// TestOAuthLoginIgnoresStrayCallbackAndReportsRefusal: a visit to the
// redirect URL without the server's answer does not end the login; the
// server's refusal (error=access_denied) ends it in one line saying so.
func TestOAuthLoginIgnoresStrayCallbackAndReportsRefusal(t *testing.T) {
	srv := testoauth.New(t, testoauth.Options{Login: true})
	redirect := testoauth.FreeRedirect(t)
	log := &logBuffer{}
	u := oauthMCP(t, srv, &Auth{OAuth: OAuth{RedirectURL: redirect}}, "", LoginInteractive, log)
	done := make(chan error, 1)
	go func() { done <- u.Start(ctxT(t, 20*time.Second)) }()
	waitLog(t, log, "open this URL in a browser")
	resp, err := http.Get(redirect)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("stray visit: %s", resp.Status)
	}
	resp, err = http.Get(redirect + "?error=access_denied&error_description=the+user%0Asaid+no")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	err = <-done
	if err == nil || !strings.Contains(err.Error(), "the authorization server refused: access_denied the user said no") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("err = %v", err)
	}
}

// TestOAuthClientReRegisteredEachLogin pins the dynamic registration: every
// authorisation registered a new client. Now the registration is kept
// beside the tokens (0600, keyed by the authorization server's issuer and
// the redirect URI) and reused: two logins, one registration. Once the
// server refuses the client (invalid_client), the next login registers
// again, in the same authorisation.
func TestOAuthClientReRegisteredEachLogin(t *testing.T) {
	srv := testoauth.New(t, testoauth.Options{})
	dir := filepath.Join(t.TempDir(), "oauth")
	file := filepath.Join(dir, "g.json")
	a := OAuth{Headless: true, RedirectURL: testoauth.FreeRedirect(t)}
	ctx := ctxT(t, 20*time.Second)
	call(t, oauthMCP(t, srv, &Auth{OAuth: a}, file, LoginInteractive, nil), ctx, tool("whoami", readOnly), nil)
	first := readStored(t, file).ClientID
	call(t, oauthMCP(t, srv, &Auth{OAuth: a}, file, LoginInteractive, nil), ctx, tool("whoami", readOnly), nil)
	if p := srv.Problems(); p != "" {
		t.Fatalf("the authorization server refused: %s", p)
	}
	if srv.Count("authorize") != 2 || srv.Count("register") != 1 || readStored(t, file).ClientID != first {
		t.Fatalf("two logins: %d authorizations, %d registrations, client %s then %s", srv.Count("authorize"), srv.Count("register"), first, readStored(t, file).ClientID)
	}
	regs, _ := filepath.Glob(filepath.Join(dir, "client-*.json"))
	if len(regs) != 1 {
		t.Fatalf("registrations kept: %q", regs)
	}
	if fi, err := os.Stat(regs[0]); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("registration file: %v, %v", fi, err)
	}
	// The server forgets the client: the login finds out, registers again
	// and goes through.
	srv.ForgetClients()
	r := call(t, oauthMCP(t, srv, &Auth{OAuth: a}, file, LoginInteractive, nil), ctx, tool("whoami", readOnly), nil)
	if r.Value != "you sent Bearer [redacted]" || srv.Count("register") != 2 || readStored(t, file).ClientID == first {
		t.Fatalf("after the client was forgotten: %#v, %d registrations", r.Value, srv.Count("register"))
	}
}
