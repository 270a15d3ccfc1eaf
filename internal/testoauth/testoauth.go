// Package testoauth is an OAuth 2.1 authorization server and an MCP server
// it protects, over real HTTP, for tests of codemode as an OAuth client. The
// authorization server checks what the MCP authorization specification
// asks of a client: PKCE with S256 (the verifier is hashed and compared),
// the resource parameter (RFC 8707) on the authorization and token
// requests, the redirect URI registered (RFC 7591) or pre-registered, the
// client's secret where it has one. It approves at once (like the
// conformance suite's), or shows a login page when Login is set.
package testoauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options shape the servers.
type Options struct {
	// Login makes the authorization endpoint show a page for a user instead
	// of approving at once.
	Login bool
	// ExpiresIn is the access tokens' lifetime in seconds (default 3600);
	// 1 makes every token due for refresh at once (oauth2 refreshes 10 s
	// early).
	ExpiresIn int
	// NoRefresh issues no refresh tokens.
	NoRefresh bool
	// Client pre-registers a client (id and secret) and disables dynamic
	// registration.
	ClientID, ClientSecret, RedirectURI string
	// ClientCredentials allows the client_credentials grant for the
	// pre-registered client.
	ClientCredentials bool
	// ClientKey, when set, is the pre-registered client's public key: it
	// authenticates with a signed JWT (private_key_jwt, ES256) instead of
	// its secret.
	ClientKey *ecdsa.PublicKey
	// IDToken enables Enterprise-Managed Authorization: an identity
	// provider at IdP exchanges this ID token (for IdPClientID) for an
	// ID-JAG, which the authorization server takes in the JWT bearer
	// grant from the pre-registered client.
	IDToken, IdPClientID string
}

// Server is the pair: MCP is the protected MCP endpoint, AS the
// authorization server's issuer URL.
type Server struct {
	MCP, AS string
	IdP     string // the identity provider's issuer, with IDToken
	opts    Options
	jags    map[string]bool

	mu        sync.Mutex
	clients   map[string]client // id → client
	codes     map[string]grant
	access    map[string]bool
	refresh   map[string]bool
	failRef   bool
	issued    []string       // every access and refresh token
	Counts    map[string]int // endpoint → requests
	Errors    []string       // what a client did wrong
	LastToken string         // the last access token issued
}

type client struct{ secret, redirect string }

type grant struct {
	client, redirect, challenge, resource string
}

// New starts the servers; they stop when the test ends.
func New(t testing.TB, opts Options) *Server {
	if opts.ExpiresIn == 0 {
		opts.ExpiresIn = 3600
	}
	s := &Server{opts: opts, clients: map[string]client{}, codes: map[string]grant{}, access: map[string]bool{}, refresh: map[string]bool{}, Counts: map[string]int{}}
	if opts.ClientID != "" {
		s.clients[opts.ClientID] = client{secret: opts.ClientSecret, redirect: opts.RedirectURI}
	}
	as := httptest.NewServer(http.HandlerFunc(s.serveAS))
	t.Cleanup(as.Close)
	s.AS = as.URL
	s.IdP = as.URL + "/idp"
	s.jags = map[string]bool{}

	ms := mcp.NewServer(&mcp.Implementation{Name: "guarded", Version: "1"}, nil)
	mcp.AddTool(ms, &mcp.Tool{Name: "whoami", Description: "Echoes the Authorization header the server got."}, func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "you sent " + req.Extra.Header.Get("Authorization")}}}, nil, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return ms }, nil)
	var rs *httptest.Server
	rs = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/.well-known/oauth-protected-resource/mcp":
			s.count("prm")
			writeJSON(w, map[string]any{"resource": rs.URL + "/mcp", "authorization_servers": []string{s.AS}})
			return
		case "/mcp":
		default:
			http.NotFound(w, r)
			return
		}
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		s.mu.Lock()
		valid := ok && s.access[tok]
		s.mu.Unlock()
		if !valid {
			s.count("401")
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata="%s/.well-known/oauth-protected-resource/mcp"`, rs.URL))
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(rs.Close)
	s.MCP = rs.URL + "/mcp"
	return s
}

// FailRefresh makes every refresh_token grant fail with invalid_grant.
func (s *Server) FailRefresh() {
	s.mu.Lock()
	s.failRef = true
	s.mu.Unlock()
}

// Revoke makes every access token issued so far invalid.
func (s *Server) Revoke() {
	s.mu.Lock()
	s.access = map[string]bool{}
	s.mu.Unlock()
}

// ForgetClients forgets every dynamically registered client, as an
// authorization server that expired or deleted them would: they get
// invalid_client from then on.
func (s *Server) ForgetClients() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id := range s.clients {
		if id != s.opts.ClientID {
			delete(s.clients, id)
		}
	}
}

// Count is how many requests an endpoint got: prm, metadata, register,
// authorize, token:authorization_code, token:refresh_token,
// token:client_credentials, 401.
func (s *Server) Count(what string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Counts[what]
}

// Problems is what clients did wrong, "" when nothing.
func (s *Server) Problems() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.Errors, "; ")
}

func (s *Server) count(what string) {
	s.mu.Lock()
	s.Counts[what]++
	s.mu.Unlock()
}

func (s *Server) problem(w http.ResponseWriter, code int, errCode, msg string) {
	s.mu.Lock()
	s.Errors = append(s.Errors, msg)
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]string{"error": errCode, "error_description": msg})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(v)
}

func (s *Server) serveAS(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/.well-known/oauth-authorization-server":
		s.count("metadata")
		meta := map[string]any{
			"issuer": s.AS, "authorization_endpoint": s.AS + "/authorize", "token_endpoint": s.AS + "/token",
			"response_types_supported": []string{"code"}, "code_challenge_methods_supported": []string{"S256"},
			"grant_types_supported":                 []string{"authorization_code", "refresh_token", "client_credentials"},
			"token_endpoint_auth_methods_supported": []string{"client_secret_basic", "none"},
		}
		if s.opts.ClientID == "" {
			meta["registration_endpoint"] = s.AS + "/register"
		}
		writeJSON(w, meta)
	case "/register":
		s.count("register")
		var req struct {
			RedirectURIs []string `json:"redirect_uris"`
			AuthMethod   string   `json:"token_endpoint_auth_method"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.RedirectURIs) != 1 {
			s.problem(w, 400, "invalid_client_metadata", "registration without exactly one redirect URI")
			return
		}
		id, secret := "client-"+rand.Text()[:8], ""
		if req.AuthMethod != "none" {
			secret = "csec-" + rand.Text()
		}
		s.mu.Lock()
		s.clients[id] = client{secret: secret, redirect: req.RedirectURIs[0]}
		s.mu.Unlock()
		resp := map[string]any{"client_id": id, "redirect_uris": req.RedirectURIs}
		if secret != "" {
			resp["client_secret"] = secret
			resp["token_endpoint_auth_method"] = "client_secret_basic"
		} else {
			resp["token_endpoint_auth_method"] = "none"
		}
		w.WriteHeader(http.StatusCreated)
		writeJSON(w, resp)
	case "/authorize":
		s.count("authorize")
		q := r.URL.Query()
		s.mu.Lock()
		c, known := s.clients[q.Get("client_id")]
		s.mu.Unlock()
		switch {
		case !known:
			s.problem(w, 400, "invalid_client", "authorize: unknown client "+q.Get("client_id"))
			return
		case q.Get("redirect_uri") != c.redirect:
			s.problem(w, 400, "invalid_request", "authorize: redirect_uri "+q.Get("redirect_uri")+" is not the registered "+c.redirect)
			return
		case q.Get("response_type") != "code":
			s.problem(w, 400, "unsupported_response_type", "authorize: response_type "+q.Get("response_type"))
			return
		case q.Get("code_challenge") == "" || q.Get("code_challenge_method") != "S256":
			s.problem(w, 400, "invalid_request", "authorize: no S256 code_challenge")
			return
		case q.Get("resource") != s.MCP:
			s.problem(w, 400, "invalid_target", "authorize: resource "+q.Get("resource")+" is not "+s.MCP)
			return
		case q.Get("state") == "":
			s.problem(w, 400, "invalid_request", "authorize: no state")
			return
		}
		if s.opts.Login {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<form>Sign in</form>")
			return
		}
		code := "code-" + rand.Text()
		s.mu.Lock()
		s.codes[code] = grant{client: q.Get("client_id"), redirect: c.redirect, challenge: q.Get("code_challenge"), resource: q.Get("resource")}
		s.mu.Unlock()
		http.Redirect(w, r, c.redirect+"?code="+code+"&state="+q.Get("state"), http.StatusFound)
	case "/token":
		s.token(w, r)
	case "/idp/.well-known/openid-configuration":
		writeJSON(w, map[string]any{"issuer": s.IdP, "token_endpoint": s.IdP + "/token"})
	case "/idp/token":
		s.count("idp:token")
		r.ParseForm()
		f := r.PostForm
		switch {
		case f.Get("grant_type") != "urn:ietf:params:oauth:grant-type:token-exchange":
			s.problem(w, 400, "unsupported_grant_type", "idp: grant_type "+f.Get("grant_type"))
		case f.Get("client_id") != s.opts.IdPClientID:
			s.problem(w, 401, "invalid_client", "idp: client "+f.Get("client_id"))
		case s.opts.IDToken == "" || f.Get("subject_token") != s.opts.IDToken || f.Get("subject_token_type") != "urn:ietf:params:oauth:token-type:id_token":
			s.problem(w, 400, "invalid_grant", "idp: not the user's ID token")
		case f.Get("requested_token_type") != "urn:ietf:params:oauth:token-type:id-jag" || f.Get("audience") != s.AS || f.Get("resource") != s.MCP:
			s.problem(w, 400, "invalid_target", "idp: wrong requested_token_type, audience or resource")
		default:
			jag := "jag-" + rand.Text()
			s.mu.Lock()
			s.jags[jag] = true
			s.mu.Unlock()
			writeJSON(w, map[string]any{"access_token": jag, "issued_token_type": "urn:ietf:params:oauth:token-type:id-jag", "token_type": "N_A", "expires_in": 300})
		}
	default:
		http.NotFound(w, r)
	}
}

func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		s.problem(w, 400, "invalid_request", "token: bad form")
		return
	}
	gt := r.PostForm.Get("grant_type")
	s.count("token:" + gt)
	id, secret, basic := r.BasicAuth()
	if !basic {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	s.mu.Lock()
	c, known := s.clients[id]
	s.mu.Unlock()
	if s.opts.ClientKey != nil {
		if err := s.checkAssertion(r.PostForm, id); err != nil {
			s.problem(w, 401, "invalid_client", "token: "+err.Error())
			return
		}
	} else if !known || c.secret != secret {
		s.problem(w, 401, "invalid_client", "token: client "+id+" not authenticated")
		return
	}
	switch gt {
	case "authorization_code":
		code := r.PostForm.Get("code")
		s.mu.Lock()
		g, ok := s.codes[code]
		delete(s.codes, code)
		s.mu.Unlock()
		sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
		switch {
		case !ok || g.client != id:
			s.problem(w, 400, "invalid_grant", "token: unknown code")
			return
		case base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge:
			s.problem(w, 400, "invalid_grant", "token: code_verifier does not match the S256 code_challenge")
			return
		case r.PostForm.Get("redirect_uri") != g.redirect:
			s.problem(w, 400, "invalid_grant", "token: redirect_uri differs from the authorization request's")
			return
		case r.PostForm.Get("resource") != g.resource:
			s.problem(w, 400, "invalid_target", "token: resource "+r.PostForm.Get("resource")+" is not the authorization request's")
			return
		}
	case "refresh_token":
		rt := r.PostForm.Get("refresh_token")
		s.mu.Lock()
		ok := s.refresh[rt] && !s.failRef
		delete(s.refresh, rt)
		s.mu.Unlock()
		if !ok {
			s.problem(w, 400, "invalid_grant", "token: refresh token refused")
			return
		}
	case "urn:ietf:params:oauth:grant-type:jwt-bearer":
		s.mu.Lock()
		ok := s.jags[r.PostForm.Get("assertion")]
		delete(s.jags, r.PostForm.Get("assertion"))
		s.mu.Unlock()
		if !ok || !basic {
			s.problem(w, 400, "invalid_grant", "token: the assertion is no ID-JAG the identity provider issued, or the client did not use client_secret_basic")
			return
		}
	case "client_credentials":
		if !s.opts.ClientCredentials {
			s.problem(w, 400, "unauthorized_client", "token: client_credentials not allowed")
			return
		}
	default:
		s.problem(w, 400, "unsupported_grant_type", "token: grant_type "+gt)
		return
	}
	at := "at-" + rand.Text()
	s.mu.Lock()
	resp := map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": s.opts.ExpiresIn}
	s.access[at] = true
	s.LastToken = at
	s.issued = append(s.issued, at)
	if !s.opts.NoRefresh && gt != "client_credentials" && !strings.HasSuffix(gt, "jwt-bearer") {
		rt := "rt-" + rand.Text()
		s.refresh[rt] = true
		s.issued = append(s.issued, rt)
		resp["refresh_token"] = rt
	}
	s.mu.Unlock()
	writeJSON(w, resp)
}

// FreeRedirect is a loopback redirect URL on a port free just now.
func FreeRedirect(t testing.TB) string {
	t.Helper()
	// A port below the kernel's ephemeral range (32768-60999 by default):
	// one picked there and let go may be handed to another test's
	// listener before the client listens on it.
	for i := 0; i < 100; i++ {
		port := 20000 + mrand.IntN(12000)
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			continue
		}
		l.Close()
		return fmt.Sprintf("http://127.0.0.1:%d/callback", port)
	}
	t.Fatal("testoauth: no free loopback port for a redirect")
	return ""
}

// Opts are the options the servers were started with.
func (s *Server) Opts() Options { return s.opts }

// SetExpiresIn changes the lifetime of the access tokens issued from now.
func (s *Server) SetExpiresIn(seconds int) {
	s.mu.Lock()
	s.opts.ExpiresIn = seconds
	s.mu.Unlock()
}

// Issued is every access and refresh token issued so far.
func (s *Server) Issued() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.issued...)
}

// checkAssertion verifies a private_key_jwt client assertion: ES256 with
// the client's key, iss and sub the client, aud the issuer, not expired.
func (s *Server) checkAssertion(form map[string][]string, id string) error {
	get := func(k string) string {
		if v := form[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	if get("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" {
		return errors.New("no jwt-bearer client_assertion_type")
	}
	parts := strings.Split(get("client_assertion"), ".")
	if len(parts) != 3 {
		return errors.New("client_assertion is not a JWT")
	}
	enc := base64.RawURLEncoding
	hb, _ := enc.DecodeString(parts[0])
	cb, _ := enc.DecodeString(parts[1])
	sig, _ := enc.DecodeString(parts[2])
	var head struct{ Alg string }
	var claims struct {
		Iss, Sub, Aud, Jti string
		Exp                int64
	}
	if json.Unmarshal(hb, &head) != nil || json.Unmarshal(cb, &claims) != nil || head.Alg != "ES256" || len(sig) != 64 {
		return errors.New("client_assertion: not an ES256 JWT")
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if !ecdsa.Verify(s.opts.ClientKey, sum[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		return errors.New("client_assertion: bad signature")
	}
	switch {
	case claims.Iss != s.opts.ClientID || claims.Sub != s.opts.ClientID || (id != "" && id != s.opts.ClientID):
		return errors.New("client_assertion: iss/sub are not the client")
	case claims.Aud != s.AS:
		return errors.New("client_assertion: aud " + claims.Aud + " is not the issuer")
	case claims.Exp < time.Now().Unix() || claims.Jti == "":
		return errors.New("client_assertion: expired or without jti")
	}
	return nil
}
