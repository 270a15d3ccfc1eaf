package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/auth/extauth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/net/http/httpguts"
	"golang.org/x/oauth2"
)

// OAuth holds the settings of auth type oauth: OAuth 2.1 as the MCP
// authorization specification has it. On a 401 the server's Protected
// Resource Metadata (RFC 9728) names its authorization server, whose
// metadata (RFC 8414 or OpenID discovery) gives the endpoints; the client
// is a pre-registered one (ClientID), a client ID metadata document
// (ClientMetadataURL) or registered dynamically (RFC 7591); the token comes
// from the authorization code grant with PKCE (S256) and the resource
// parameter (RFC 8707), or from client_credentials. Tokens stay in the
// host process and in a 0600 file (MCPConfig.TokenFile); they are
// refreshed with the refresh token and re-authorised when that fails.
type OAuth struct {
	// ClientID is a client registered with the authorization server
	// beforehand; ClientSecretEnv names the variable holding its secret (a
	// confidential client). Without ClientID the client registers itself.
	ClientID        string `yaml:"client_id"`
	ClientSecretEnv string `yaml:"client_secret_env"`
	// ClientKeyFile is a PEM private key (EC P-256 or RSA) the client
	// authenticates with instead of a secret, signing a JWT assertion
	// (private_key_jwt); for grant client_credentials. Pack-relative.
	ClientKeyFile string `yaml:"client_key_file"`
	// ClientMetadataURL is an https URL serving this client's metadata
	// document, used as its client_id where the server supports that.
	ClientMetadataURL string `yaml:"client_metadata_url"`
	// Grant is authorization_code (the default: a user approves, once, with
	// codemode auth login), client_credentials (no user; needs ClientID
	// and ClientSecretEnv or ClientKeyFile) or enterprise (the user's ID
	// token from the organisation's identity provider; needs ClientID and
	// the idp_ keys).
	Grant string `yaml:"grant"`
	// IdPIssuer, IdPClientID, IdPClientSecretEnv and IDTokenEnv are for
	// grant enterprise (SEP-990): the organisation's identity provider,
	// codemode's client there (its secret, if it has one) and the variable
	// holding the user's ID token from it.
	IdPIssuer          string `yaml:"idp_issuer"`
	IdPClientID        string `yaml:"idp_client_id"`
	IdPClientSecretEnv string `yaml:"idp_client_secret_env"`
	IDTokenEnv         string `yaml:"id_token_env"`
	// Scopes, when set, are requested instead of those the server names.
	Scopes []string `yaml:"scopes"`
	// RedirectURL is the loopback URL the authorization server sends the
	// browser back to (default DefaultRedirectURL); codemode listens there
	// while a login waits.
	RedirectURL string `yaml:"redirect_url"`
	// Headless approves without a browser: codemode fetches the
	// authorization URL itself and follows its redirect. Only for
	// authorization servers that approve without a user (CI, test
	// servers); with it, run and serve may authorise on their own.
	Headless bool `yaml:"headless"`
}

// DefaultRedirectURL is where a login's browser comes back to.
const DefaultRedirectURL = "http://127.0.0.1:33418/callback"

// Check reports settings that cannot work, without reading the
// environment.
func (a *Auth) Check() error {
	if a == nil {
		return nil
	}
	for k, v := range a.Headers {
		if !httpguts.ValidHeaderFieldName(k) {
			return fmt.Errorf("headers: %q is not a header name", k)
		}
		if ref, ok := EnvRef(v); ok && ref == "" {
			return fmt.Errorf("headers: %s: %q names no variable", k, v)
		}
	}
	o := a.OAuth
	if a.Type != "oauth" {
		if len(o.Scopes) > 0 || o.ClientID != "" || o.ClientSecretEnv != "" || o.ClientKeyFile != "" || o.ClientMetadataURL != "" || o.Grant != "" ||
			o.RedirectURL != "" || o.Headless || o.IdPIssuer != "" || o.IdPClientID != "" || o.IdPClientSecretEnv != "" || o.IDTokenEnv != "" {
			return fmt.Errorf("client_id, client_secret_env, client_key_file, client_metadata_url, grant, scopes, redirect_url, headless and the idp_ keys are for type: oauth")
		}
		return nil
	}
	if a.TokenEnv != "" || a.UserEnv != "" || a.PasswordEnv != "" || a.In != "" || a.Name != "" {
		return fmt.Errorf("type oauth takes no token_env, user_env, password_env, in or name (its token comes from the authorization server)")
	}
	switch o.Grant {
	case "", "authorization_code":
	case "client_credentials":
		if o.ClientID == "" || (o.ClientSecretEnv == "") == (o.ClientKeyFile == "") {
			return fmt.Errorf("grant client_credentials needs client_id and one of client_secret_env and client_key_file")
		}
	case "enterprise":
		if o.ClientID == "" || o.IdPIssuer == "" || o.IdPClientID == "" || o.IDTokenEnv == "" {
			return fmt.Errorf("grant enterprise needs client_id, idp_issuer, idp_client_id and id_token_env")
		}
		if u, err := url.Parse(o.IdPIssuer); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return fmt.Errorf("idp_issuer: %q is not an http(s) URL", o.IdPIssuer)
		}
	default:
		return fmt.Errorf("grant: %q is not authorization_code, client_credentials or enterprise", o.Grant)
	}
	if o.Grant != "enterprise" && (o.IdPIssuer != "" || o.IdPClientID != "" || o.IdPClientSecretEnv != "" || o.IDTokenEnv != "") {
		return fmt.Errorf("idp_issuer, idp_client_id, idp_client_secret_env and id_token_env are for grant enterprise")
	}
	if o.ClientKeyFile != "" && o.Grant != "client_credentials" {
		return fmt.Errorf("client_key_file is for grant client_credentials")
	}
	if o.ClientSecretEnv != "" && o.ClientID == "" {
		return fmt.Errorf("client_secret_env needs the client_id it belongs to")
	}
	if o.ClientMetadataURL != "" {
		u, err := url.Parse(o.ClientMetadataURL)
		if err != nil || u.Scheme != "https" || u.Host == "" || u.Path == "" || u.Path == "/" {
			return fmt.Errorf("client_metadata_url: %q is not an https URL with a path", o.ClientMetadataURL)
		}
	}
	if o.RedirectURL != "" {
		if _, err := loopbackRedirect(o.RedirectURL); err != nil {
			return fmt.Errorf("redirect_url: %v", err)
		}
	}
	return nil
}

// loopbackRedirect checks a redirect URL: http on a loopback address with
// a port (RFC 8252's native-app redirect).
func loopbackRedirect(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "http" || u.Port() == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("%q is not an http URL with a port, like %s", s, DefaultRedirectURL)
	}
	h := u.Hostname()
	if ip := net.ParseIP(h); (ip == nil || !ip.IsLoopback()) && h != "localhost" {
		return nil, fmt.Errorf("%q is not on a loopback address (127.0.0.1, [::1] or localhost)", s)
	}
	return u, nil
}

// ErrLoginNeeded is what a call gets when the server wants an OAuth login
// that needs a user: run codemode auth login.
var ErrLoginNeeded = errors.New("needs an OAuth login")

// LoginMode says how an authorization that needs a user's approval goes.
type LoginMode int

const (
	// LoginRefuse fails with ErrLoginNeeded (unless auth.headless).
	LoginRefuse LoginMode = iota
	// LoginInteractive prints the authorization URL on Log and waits on the
	// loopback redirect for the user's browser (codemode auth login).
	LoginInteractive
)

// storedAuth is the token file: the token and what refreshing it needs.
type storedAuth struct {
	Resource     string        `json:"resource"` // the MCP server URL it was issued for
	ClientID     string        `json:"client_id"`
	ClientSecret string        `json:"client_secret,omitempty"` // a dynamically registered client's
	AuthURL      string        `json:"authorization_endpoint,omitempty"`
	TokenURL     string        `json:"token_endpoint"`
	AuthStyle    int           `json:"auth_style,omitempty"`
	Scopes       []string      `json:"scopes,omitempty"`
	Token        *oauth2.Token `json:"token"`
	Saved        time.Time     `json:"saved"`
}

// oauthState is one upstream's OAuth: the SDK's handler, wrapped so that
// tokens are kept in the token file and added to the redactor.
type oauthState struct {
	name     string
	resource string
	file     string
	red      *Redactor
	log      io.Writer
	cfg      *OAuth
	secret   string // the pre-registered client's secret
	client   *http.Client
	mode     LoginMode
	inner    auth.OAuthHandler
	redirect *url.URL

	mu       sync.Mutex         // the token file, override, failed
	override oauth2.TokenSource // a newer token from the file, see newerStored
	failed   error              // this connection's failed authorization
	keep     *clientKeep        // the kept dynamic registrations (oauth_register.go)
}

// newOAuth builds the handler for an oauth service at resource.
func newOAuth(name, resource string, a *Auth, file string, mode LoginMode, red *Redactor, log io.Writer) (*oauthState, error) {
	o := &oauthState{name: name, resource: resource, file: file, red: red, log: log, cfg: &a.OAuth, mode: mode}
	if a.ClientSecretEnv != "" {
		v, err := secret("client_secret_env", a.ClientSecretEnv)
		if err != nil {
			return nil, err
		}
		o.secret = v
		red.Add(v)
	}
	// Metadata, registration and token requests go to the authorization
	// server: a plain client, none of the MCP server's credentials.
	// Their replies are capped (authServerReplyCap).
	o.client = &http.Client{Timeout: 30 * time.Second, Transport: cappedTransport{http.DefaultTransport}, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) >= 5 {
			return fmt.Errorf("stopped after 5 redirects")
		}
		req.Header.Del("Referer")
		if origin(req.URL) != origin(via[0].URL) {
			req.Header.Del("Authorization")
		}
		return nil
	}}
	if a.Grant == "enterprise" {
		idToken, err := secret("id_token_env", a.IDTokenEnv)
		if err != nil {
			return nil, err
		}
		e := &enterpriseClient{clientID: a.ClientID, secret: o.secret, idpIssuer: a.IdPIssuer, idpClientID: a.IdPClientID,
			idToken: idToken, scopes: a.Scopes, client: o.client}
		if a.IdPClientSecretEnv != "" {
			if e.idpSecret, err = secret("idp_client_secret_env", a.IdPClientSecretEnv); err != nil {
				return nil, err
			}
		}
		red.Add(idToken, e.idpSecret)
		o.inner = e
		return o, nil
	}
	if a.Grant == "client_credentials" && a.ClientKeyFile != "" {
		key, alg, err := readClientKey(a.ClientKeyFile)
		if err != nil {
			return nil, err
		}
		o.inner = &jwtClient{clientID: a.ClientID, key: key, alg: alg, scopes: a.Scopes, client: o.client}
		return o, nil
	}
	if a.Grant == "client_credentials" {
		h, err := extauth.NewClientCredentialsHandler(&extauth.ClientCredentialsHandlerConfig{
			Credentials: &oauthex.ClientCredentials{ClientID: a.ClientID, ClientSecretAuth: &oauthex.ClientSecretAuth{ClientSecret: o.secret}},
			HTTPClient:  o.client,
		})
		if err != nil {
			return nil, fmt.Errorf("auth: %v", err)
		}
		o.inner = h
		return o, nil
	}
	redirect := a.RedirectURL
	if redirect == "" {
		redirect = DefaultRedirectURL
	}
	ru, err := loopbackRedirect(redirect)
	if err != nil {
		return nil, fmt.Errorf("auth.redirect_url: %v", err)
	}
	o.redirect = ru
	hc := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL:              redirect,
		AuthorizationCodeFetcher: o.fetchCode,
		RequestRefreshToken:      true,
		Client:                   o.client,
		NewTokenSource:           o.newTokenSource,
	}
	if len(a.Scopes) > 0 {
		scopes := append([]string(nil), a.Scopes...)
		hc.ScopeFilter = func([]string) []string { return scopes }
	}
	if a.ClientMetadataURL != "" {
		hc.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: a.ClientMetadataURL}
	}
	if a.ClientID != "" {
		pc := &oauthex.ClientCredentials{ClientID: a.ClientID}
		if o.secret != "" {
			pc.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: o.secret}
		}
		hc.PreregisteredClient = pc
	} else {
		if file != "" {
			o.keep = &clientKeep{dir: filepath.Dir(file), red: red, issuers: map[string]string{}}
			o.client.Transport = keepTransport{base: o.client.Transport, k: o.keep}
		}
		hc.DynamicClientRegistrationConfig = &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs: []string{redirect},
			ClientName:   "codemode",
			GrantTypes:   []string{"authorization_code", "refresh_token"},
		}}
	}
	if mode != LoginInteractive {
		// A login replaces whatever token there was; anything else starts
		// from the stored one.
		if ts := o.stored(); ts != nil {
			hc.InitialTokenSource = ts
		}
	}
	h, err := auth.NewAuthorizationCodeHandler(hc)
	if err != nil {
		return nil, fmt.Errorf("auth: %v", err)
	}
	o.inner = h
	return o, nil
}

// TokenSource implements auth.OAuthHandler.
func (o *oauthState) TokenSource(ctx context.Context) (oauth2.TokenSource, error) {
	o.mu.Lock()
	override := o.override
	o.mu.Unlock()
	if override != nil {
		return redactingSource{ts: override, red: o.red}, nil
	}
	ts, err := o.inner.TokenSource(ctx)
	if ts == nil || err != nil {
		return ts, err
	}
	return redactingSource{ts: ts, red: o.red}, nil
}

// Authorize implements auth.OAuthHandler. The token source it leaves
// outlives the request, so it runs without the request's cancellation
// (each step is bounded by the client's timeout).
func (o *oauthState) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	if ts := o.newerStored(req, resp); ts != nil {
		// Another codemode process (a login, a refresh) has saved a token
		// since: use it rather than authorising again.
		resp.Body.Close()
		o.mu.Lock()
		o.override = ts
		o.mu.Unlock()
		return nil
	}
	drops := 0
	if o.keep != nil {
		drops = o.keep.drops()
	}
	err := o.inner.Authorize(context.WithValue(context.WithoutCancel(ctx), callerCtx{}, ctx), req, resp)
	if err != nil && o.keep != nil && o.keep.drops() != drops && ctx.Err() == nil {
		// The server no longer knows the client kept from an earlier
		// registration: register again, once.
		fmt.Fprintf(o.log, "codemode: %s: the authorization server refused the client registered before (invalid_client); registering again\n", o.name)
		o.newConnection()
		err = o.inner.Authorize(context.WithValue(context.WithoutCancel(ctx), callerCtx{}, ctx), req, resp)
	}
	if err == nil {
		o.mu.Lock()
		o.override = nil
		o.mu.Unlock()
	}
	if errors.Is(err, ErrLoginNeeded) {
		return ErrLoginNeeded
	}
	if err != nil {
		return o.red.Error(errors.New(oneLine(err.Error())))
	}
	return nil
}

// authServerReplyCap bounds one reply of an authorization server or an
// identity provider (metadata, a registration, a token).
const authServerReplyCap = 1 << 20

// cappedTransport fails a reply body past authServerReplyCap.
type cappedTransport struct{ base http.RoundTripper }

func (c cappedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.base.RoundTrip(req)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	b := &bodyCap{rc: resp.Body, max: authServerReplyCap, trip: func() {}}
	if resp.ContentLength > b.max {
		b.over = true
	}
	resp.Body = b
	return resp, nil
}

// callerCtx keys the context of the request that needed authorization,
// whose cancellation a login still obeys.
type callerCtx struct{}

// caller is the context whose end ends a wait for the user.
func caller(ctx context.Context) context.Context {
	if c, ok := ctx.Value(callerCtx{}).(context.Context); ok {
		return c
	}
	return ctx
}

// redactingSource adds every token it hands out to the redactor.
type redactingSource struct {
	ts  oauth2.TokenSource
	red *Redactor
}

func (r redactingSource) Token() (*oauth2.Token, error) {
	t, err := r.ts.Token()
	if t != nil {
		r.red.Add(t.AccessToken, t.RefreshToken)
	}
	return t, err
}

// newTokenSource is the SDK's hook after a code exchange: the token is
// saved, and so is every refreshed one.
func (o *oauthState) newTokenSource(ctx context.Context, c *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
	o.red.Add(tok.AccessToken, tok.RefreshToken)
	st := &storedAuth{Resource: o.resource, ClientID: c.ClientID, AuthURL: c.Endpoint.AuthURL, TokenURL: c.Endpoint.TokenURL,
		AuthStyle: int(c.Endpoint.AuthStyle), Scopes: c.Scopes, Token: tok}
	if o.cfg.ClientID == "" {
		st.ClientSecret = c.ClientSecret // registered dynamically: only the file has it
	}
	if err := o.save(st); err != nil {
		return nil, err
	}
	return &savingSource{o: o, st: st, ts: oauth2.ReuseTokenSource(tok, c.TokenSource(ctx, tok)), last: tok.AccessToken}, nil
}

// savingSource saves each new token (a refresh) to the token file.
type savingSource struct {
	o    *oauthState
	st   *storedAuth
	ts   oauth2.TokenSource
	mu   sync.Mutex
	last string
}

func (s *savingSource) Token() (*oauth2.Token, error) {
	t, err := s.ts.Token()
	if err != nil {
		return nil, err
	}
	s.o.red.Add(t.AccessToken, t.RefreshToken)
	s.mu.Lock()
	defer s.mu.Unlock()
	if t.AccessToken != s.last {
		s.last = t.AccessToken
		st := *s.st
		st.Token = t
		if err := s.o.save(&st); err != nil {
			fmt.Fprintf(s.o.log, "codemode: %s: %v\n", s.o.name, err)
		}
	}
	return t, nil
}

// newerStored is the token file's token source when a request was refused
// (401) and the file holds another token that is still good: one that
// another process saved after this one read it. nil otherwise, and in a
// login, which replaces the token.
func (o *oauthState) newerStored(req *http.Request, resp *http.Response) oauth2.TokenSource {
	if o.mode == LoginInteractive || o.file == "" || resp.StatusCode != http.StatusUnauthorized || o.redirect == nil {
		return nil
	}
	failed, _ := strings.CutPrefix(req.Header.Get("Authorization"), "Bearer ")
	ts, access := o.storedToken()
	if ts == nil || access == failed {
		return nil
	}
	if t, err := ts.Token(); err != nil || !t.Valid() || t.AccessToken == failed {
		return nil
	}
	return ts
}

// stored is the token source of the token file, nil when there is none
// for this server (or it cannot be read: then a login replaces it).
func (o *oauthState) stored() oauth2.TokenSource {
	ts, _ := o.storedToken()
	return ts
}

// storedToken is stored with the access token the file holds. A file
// others may read is made 0600 again, with a warning.
func (o *oauthState) storedToken() (oauth2.TokenSource, string) {
	if o.file == "" {
		return nil, ""
	}
	if fi, err := os.Stat(o.file); err == nil && fi.Mode().Perm()&0o077 != 0 {
		fmt.Fprintf(o.log, "codemode: %s: the OAuth token file %s could be read by others (mode %04o); it is 0600 again, and a new login (codemode auth login %s) replaces a token that may have leaked\n", o.name, o.file, fi.Mode().Perm(), o.name)
		os.Chmod(o.file, 0o600)
	}
	data, err := os.ReadFile(o.file)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(o.log, "codemode: %s: cannot read the OAuth token (%v); a new login replaces it\n", o.name, err)
		}
		return nil, ""
	}
	var st storedAuth
	if err := json.Unmarshal(data, &st); err != nil || st.Token == nil || st.TokenURL == "" {
		fmt.Fprintf(o.log, "codemode: %s: the OAuth token file %s is not one codemode wrote; a new login replaces it\n", o.name, o.file)
		return nil, ""
	}
	if st.Resource != o.resource {
		return nil, "" // issued for another server: never sent here
	}
	if o.cfg.ClientID != "" && st.ClientID != o.cfg.ClientID {
		return nil, "" // the pack names another client now
	}
	secret := st.ClientSecret
	if o.cfg.ClientID != "" {
		secret = o.secret
	}
	o.red.Add(st.Token.AccessToken, st.Token.RefreshToken, secret)
	c := &oauth2.Config{ClientID: st.ClientID, ClientSecret: secret, Scopes: st.Scopes,
		Endpoint: oauth2.Endpoint{AuthURL: st.AuthURL, TokenURL: st.TokenURL, AuthStyle: oauth2.AuthStyle(st.AuthStyle)}}
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, o.client)
	return &savingSource{o: o, st: &st, ts: oauth2.ReuseTokenSource(st.Token, c.TokenSource(ctx, st.Token)), last: st.Token.AccessToken}, st.Token.AccessToken
}

// save writes the token file: 0600 in a 0700 directory, replaced whole.
func (o *oauthState) save(st *storedAuth) error {
	if o.file == "" {
		return nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	st.Saved = time.Now().UTC().Truncate(time.Second)
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	if err := writePrivate(o.file, append(data, '\n')); err != nil {
		return fmt.Errorf("cannot keep the OAuth token: %v", err)
	}
	return nil
}

// fetchCode gets the authorization code: a user's browser (login), the
// authorization server's own redirect (headless), or ErrLoginNeeded.
func (o *oauthState) fetchCode(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
	if o.mode != LoginInteractive && !o.cfg.Headless {
		return nil, ErrLoginNeeded
	}
	o.mu.Lock()
	failed := o.failed
	o.mu.Unlock()
	if failed != nil {
		// This connection's authorization already failed: the next request
		// (initialize after server/discover) does not ask the user again.
		return nil, failed
	}
	res, err := o.fetch(ctx, args)
	if err != nil {
		o.mu.Lock()
		o.failed = err
		o.mu.Unlock()
	}
	return res, err
}

// newConnection forgets the last connection's failed authorization.
func (o *oauthState) newConnection() {
	o.mu.Lock()
	o.failed = nil
	o.mu.Unlock()
}

func (o *oauthState) fetch(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
	ln, err := net.Listen("tcp", o.redirect.Host)
	if err != nil {
		return nil, fmt.Errorf("cannot listen on the redirect URL %s: %v", o.redirect, err)
	}
	got := make(chan *auth.AuthorizationResult, 1)
	path := o.redirect.EscapedPath()
	if path == "" {
		path = "/"
	}
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.EscapedPath() != path {
			http.NotFound(w, r)
			return
		}
		q := r.URL.Query()
		res := &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		e := q.Get("error")
		switch {
		case res.Code == "" && e == "":
			// Not the authorization server's answer (a prefetch, a stray
			// visit): keep waiting for it.
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, "<p>codemode is waiting for the authorization server's answer.</p>")
			return
		case e != "":
			msg := oneLine(e + " " + q.Get("error_description"))
			fmt.Fprintf(w, "<p>codemode: the authorization server refused: %s</p>", html.EscapeString(msg))
			res.Code = ""
			res.State = "error: " + msg
		default:
			io.WriteString(w, "<p>codemode is authorised. You can close this window.</p>")
		}
		select {
		case got <- res:
		default:
		}
	})}
	go srv.Serve(ln)
	defer srv.Close()

	if o.cfg.Headless {
		fmt.Fprintf(o.log, "codemode: %s: authorising without a browser (auth.headless)\n", o.name)
		if err := o.followHeadless(caller(ctx), args.URL); err != nil {
			return nil, err
		}
		// The listener took the redirect (if there was one) before the
		// fetch ended.
		select {
		case res := <-got:
			return o.result(res)
		default:
			return nil, fmt.Errorf("the authorization server did not send the browser back to %s without a user; take auth.headless out and run codemode auth login %s in a terminal", o.redirect, o.name)
		}
	}
	fmt.Fprintf(o.log, "To authorise codemode for %s, open this URL in a browser:\n\n  %s\n\nWaiting for the authorization server to send the browser back to %s ...\n", o.name, args.URL, o.redirect)
	wait := caller(ctx)
	select {
	case res := <-got:
		return o.result(res)
	case <-wait.Done():
		return nil, fmt.Errorf("no authorization arrived: %w", wait.Err())
	}
}

func (o *oauthState) result(res *auth.AuthorizationResult) (*auth.AuthorizationResult, error) {
	if res.Code == "" {
		return nil, fmt.Errorf("the authorization server refused: %s", strings.TrimPrefix(res.State, "error: "))
	}
	return res, nil
}

// followHeadless fetches the authorization URL and follows its redirects,
// as a browser that approves would; the last one reaches the listener.
func (o *oauthState) followHeadless(ctx context.Context, authURL string) error {
	c := &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) >= 10 {
			return fmt.Errorf("stopped after 10 redirects")
		}
		return nil
	}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		return fmt.Errorf("authorising without a browser: %v", err)
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	if o.keep != nil && (resp.StatusCode == http.StatusBadRequest || resp.StatusCode == http.StatusUnauthorized) && invalidClient(body) {
		// The authorization endpoint does not know the client: a kept
		// registration the server has forgotten.
		if u, err := url.Parse(authURL); err == nil {
			o.keep.refused(u.Query().Get("client_id"))
		}
	}
	return nil
}

// loginNeeded words an error that needs an OAuth login on one line, or
// returns nil when err is another error.
func (m *MCP) loginNeeded(err error) error {
	if err == nil || !strings.Contains(err.Error(), ErrLoginNeeded.Error()) {
		return nil
	}
	return fmt.Errorf("mcp %s: the server %s: run codemode auth login %s", m.name, ErrLoginNeeded, m.name)
}

// TokenInfo is what a token file says about its token, never the token.
type TokenInfo struct {
	Resource    string    // the server it was issued for
	ClientID    string    // the client it was issued to
	Expiry      time.Time // zero: the server gave none
	Refreshable bool      // a refresh token is kept
	Saved       time.Time
}

// ReadTokenInfo reads a token file written for an oauth service.
func ReadTokenInfo(file string) (TokenInfo, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return TokenInfo{}, err
	}
	var st storedAuth
	if err := json.Unmarshal(data, &st); err != nil || st.Token == nil {
		return TokenInfo{}, fmt.Errorf("%s is not a token file codemode wrote", file)
	}
	return TokenInfo{Resource: st.Resource, ClientID: st.ClientID, Expiry: st.Token.Expiry, Refreshable: st.Token.RefreshToken != "", Saved: st.Saved}, nil
}
