package gateway

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// DefaultIdleTTL is how long an HTTP session may go without a request
// before it is closed and its memory freed.
const DefaultIdleTTL = 30 * time.Minute

// MetadataPath is where the protected resource metadata (RFC 9728) is
// served.
const MetadataPath = "/.well-known/oauth-protected-resource"

// MCPPath is the MCP endpoint's path: the URL `codemode serve --http`
// prints, and the resource the metadata names. "/" is served the same, for
// clients configured before.
const MCPPath = "/mcp"

// MinTokenLength is the shortest bearer token accepted: a shorter one could
// be guessed.
const MinTokenLength = 16

// HTTPOptions configures streamable-HTTP serving.
type HTTPOptions struct {
	// Tokens are the bearer tokens a request must carry one of. Nil
	// requires NoAuth.
	Tokens *Tokens
	// NoAuth serves without authentication; ListenHTTP allows it on a
	// loopback address only.
	NoAuth bool
	// IdleTTL closes a session that has had no request for this long;
	// 0 is DefaultIdleTTL.
	IdleTTL time.Duration
	// PublicURL is the origin clients reach the server at
	// ("https://host"); the metadata names PublicURL+MCPPath as the
	// resource. Empty takes each request's scheme and Host.
	PublicURL string
	// AuthorizationServers are listed in the metadata, for clients that
	// obtain tokens by OAuth; with static tokens there are none.
	AuthorizationServers []string
	// Metrics, when set, is served at MetricsPath behind the bearer token
	// (a Prometheus scraper sends one of the tokens); /healthz and /readyz
	// are always served, without one.
	Metrics http.Handler
}

func (o HTTPOptions) idleTTL() time.Duration {
	if o.IdleTTL <= 0 {
		return DefaultIdleTTL
	}
	return o.IdleTTL
}

// HTTPHandler serves streamable HTTP without authentication (for
// in-process use; `codemode serve --http` uses NewHTTPHandler). Every HTTP
// session is its own agent session (its read-gate reads, its audit events)
// and is closed after DefaultIdleTTL without a request.
func (s *Server) HTTPHandler() http.Handler {
	return s.mcpHandler(DefaultIdleTTL)
}

func (s *Server) mcpHandler(ttl time.Duration) http.Handler {
	// DNS-rebinding protection stays on (go-sdk's default): a request to a
	// loopback address with another Host is refused with 403.
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.srv }, &mcp.StreamableHTTPOptions{
		SessionTimeout: ttl,
		// An event store makes SSE streams resumable: each stream opens
		// with a priming event (an id and no data, SEP-1699) and a client
		// that lost it reconnects with Last-Event-ID. One store per
		// handler, capped (go-sdk's default, 10 MiB), purged per session.
		EventStore: mcp.NewMemoryEventStore(nil),
	})
}

// NewHTTPHandler serves streamable HTTP behind bearer-token authentication:
// a request without one of opts.Tokens gets 401 with a WWW-Authenticate
// header naming the protected resource metadata, which is served at
// MetadataPath without authentication. A session is bound to the token
// that opened it.
func (s *Server) NewHTTPHandler(opts HTTPOptions) (http.Handler, error) {
	if opts.Tokens == nil && !opts.NoAuth {
		return nil, errors.New("gateway: HTTP serving needs bearer tokens, or NoAuth")
	}
	if opts.Tokens != nil && opts.NoAuth {
		return nil, errors.New("gateway: HTTP serving with both bearer tokens and NoAuth")
	}
	publicURL := strings.TrimSuffix(opts.PublicURL, "/")
	base := func(r *http.Request) string {
		if publicURL != "" {
			return publicURL
		}
		scheme := "http"
		if r.TLS != nil {
			scheme = "https"
		}
		return scheme + "://" + r.Host
	}
	inner := s.refuseNewWhileDraining(s.mcpHandler(opts.idleTTL()))
	if opts.NoAuth {
		mux := http.NewServeMux()
		s.handleOps(mux)
		if opts.Metrics != nil {
			mux.Handle(MetricsPath, opts.Metrics)
		}
		mux.Handle(MCPPath, inner)
		mux.Handle("/", inner)
		return mux, nil
	}
	verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		id, ok := opts.Tokens.Check(token)
		if !ok {
			return nil, auth.ErrInvalidToken
		}
		// The user id binds the session to its token: go-sdk refuses a
		// request for the session that carries another token.
		return &auth.TokenInfo{UserID: id}, nil
	}
	mux := http.NewServeMux()
	s.handleOps(mux)
	metadata := func(w http.ResponseWriter, r *http.Request) {
		auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
			Resource:               base(r) + MCPPath,
			AuthorizationServers:   opts.AuthorizationServers,
			BearerMethodsSupported: []string{"header"},
			ResourceName:           s.cfg.Name,
		}).ServeHTTP(w, r)
	}
	// RFC 9728 places the metadata of https://host/mcp at
	// /.well-known/oauth-protected-resource/mcp; clients also try the root.
	mux.HandleFunc(MetadataPath, metadata)
	mux.HandleFunc(MetadataPath+MCPPath, metadata)
	protected := func(w http.ResponseWriter, r *http.Request) {
		auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{
			ResourceMetadataURL: base(r) + MetadataPath,
			// Static tokens carry no expiry; they are rotated in the file.
			AllowMissingExpiration: true,
		})(inner).ServeHTTP(w, r)
	}
	mux.HandleFunc(MCPPath, protected)
	mux.HandleFunc("/", protected)
	if opts.Metrics != nil {
		metrics := opts.Metrics
		mux.HandleFunc(MetricsPath, func(w http.ResponseWriter, r *http.Request) {
			auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{
				ResourceMetadataURL: base(r) + MetadataPath, AllowMissingExpiration: true,
			})(metrics).ServeHTTP(w, r)
		})
	}
	return mux, nil
}

// ListenHTTP listens on addr for NewHTTPHandler(opts): it refuses to serve
// without tokens unless opts.NoAuth, and refuses NoAuth on an address that
// is not loopback.
func ListenHTTP(addr string, opts HTTPOptions) (net.Listener, error) {
	if opts.Tokens == nil && !opts.NoAuth {
		return nil, fmt.Errorf("--http %s: no bearer tokens: name them with --token-env or --token-file (or serve.auth in the pack), or pass --insecure-no-auth on a loopback address", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	if opts.NoAuth && !isLoopback(ln.Addr()) {
		ln.Close()
		return nil, fmt.Errorf("--insecure-no-auth serves only on a loopback address (127.0.0.1, [::1]); %s is not one: name bearer tokens with --token-env or --token-file", addr)
	}
	return ln, nil
}

func isLoopback(a net.Addr) bool {
	tcp, ok := a.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}

// Tokens is a set of bearer tokens, from an environment variable or a file
// (one per line; blank lines and lines starting with # are skipped). A file
// is read again when it changes (looked at at most once a second), so
// tokens can be rotated without a restart: add the new token, move the
// clients, remove the old one.
type Tokens struct {
	source string // for messages: "$VAR" or the file
	file   string
	logf   func(string, ...any)

	mu     sync.Mutex
	hashes [][sha256.Size]byte
	stamp  fileStamp
	broken error // the file's last reload failed: refuse every token
	// looked is when the file was last stat'ed; now is the clock (nil:
	// time.Now).
	looked time.Time
	now    func() time.Time
}

type fileStamp struct {
	mod  time.Time
	size int64
}

// b64token is RFC 6750's token syntax.
var b64token = regexp.MustCompile(`^[A-Za-z0-9\-._~+/]+=*$`)

// TokensFromEnv reads the tokens in the environment variable name.
func TokensFromEnv(name string) (*Tokens, error) {
	v, ok := os.LookupEnv(name)
	if !ok || strings.TrimSpace(v) == "" {
		return nil, fmt.Errorf("bearer tokens: $%s is empty or unset", name)
	}
	t := &Tokens{source: "$" + name}
	hashes, err := parseTokens(t.source, []byte(v))
	if err != nil {
		return nil, err
	}
	t.hashes = hashes
	return t, nil
}

// TokensFromFile reads the tokens in a file; logf (may be nil) reports a
// reload that failed, after which every token is refused until the file is
// fixed.
func TokensFromFile(path string, logf func(string, ...any)) (*Tokens, error) {
	t := &Tokens{source: path, file: path, logf: logf}
	if err := t.reload(); err != nil {
		return nil, err
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 && logf != nil {
		logf("bearer tokens: %s can be read by other users (mode %04o); chmod 600 it", path, fi.Mode().Perm())
	}
	return t, nil
}

func (t *Tokens) reload() error {
	fi, err := os.Stat(t.file)
	if err != nil {
		return fmt.Errorf("bearer tokens: %w", err)
	}
	data, err := os.ReadFile(t.file)
	if err != nil {
		return fmt.Errorf("bearer tokens: %w", err)
	}
	hashes, err := parseTokens(t.file, data)
	if err != nil {
		return err
	}
	t.hashes, t.stamp = hashes, fileStamp{fi.ModTime(), fi.Size()}
	return nil
}

func parseTokens(source string, data []byte) ([][sha256.Size]byte, error) {
	var out [][sha256.Size]byte
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		tok := strings.TrimSpace(sc.Text())
		if tok == "" || strings.HasPrefix(tok, "#") {
			continue
		}
		switch {
		case !b64token.MatchString(tok):
			return nil, fmt.Errorf("bearer tokens: %s line %d: a token has only letters, digits and -._~+/ (then =)", source, n)
		case len(tok) < MinTokenLength:
			return nil, fmt.Errorf("bearer tokens: %s line %d: the token has %d characters; use at least %d (e.g. openssl rand -hex 32)", source, n, len(tok), MinTokenLength)
		}
		out = append(out, sha256.Sum256([]byte(tok)))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("bearer tokens: %s: %w", source, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("bearer tokens: %s holds no token", source)
	}
	return out, nil
}

// Source names where the tokens come from: "$VAR" or the file.
func (t *Tokens) Source() string { return t.source }

// Len is how many tokens are accepted.
func (t *Tokens) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.hashes)
}

// Check reports whether token is one of the set, comparing in constant
// time against every token, and returns an id for it (a digest prefix,
// never the token).
func (t *Tokens) Check(token string) (string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.file != "" {
		t.refresh()
	}
	if t.broken != nil {
		return "", false
	}
	// Comparing digests makes every comparison the same length, so neither
	// a token's length nor its prefix shows in the time taken.
	h := sha256.Sum256([]byte(token))
	match := 0
	for i := range t.hashes {
		match |= subtle.ConstantTimeCompare(h[:], t.hashes[i][:])
	}
	if match != 1 {
		return "", false
	}
	return "token:" + hex.EncodeToString(h[:8]), true
}

// tokenRecheck is how long the token file is trusted before it is
// stat'ed again: a rotation takes effect within it.
const tokenRecheck = time.Second

// refresh reads the file again when its size or time changed, looking at
// most once per tokenRecheck; t.mu is held. A file that cannot be read, or
// holds a bad line, refuses every token: a rotation gone wrong fails
// closed.
func (t *Tokens) refresh() {
	now := time.Now
	if t.now != nil {
		now = t.now
	}
	at := now()
	if !t.looked.IsZero() && at.Sub(t.looked) < tokenRecheck && at.Sub(t.looked) >= 0 {
		return
	}
	t.looked = at
	fi, err := os.Stat(t.file)
	if err == nil && fi.ModTime().Equal(t.stamp.mod) && fi.Size() == t.stamp.size {
		return
	}
	if err = t.reload(); err == nil {
		if t.broken != nil && t.logf != nil {
			t.logf("bearer tokens: %s read again: %d tokens", t.file, len(t.hashes))
		}
		t.broken = nil
		return
	}
	if t.broken == nil && t.logf != nil {
		t.logf("%v; refusing every token until it is fixed", err)
	}
	t.broken, t.hashes, t.stamp = err, nil, fileStamp{}
	if fi != nil {
		t.stamp = fileStamp{fi.ModTime(), fi.Size()}
	}
}

// sseRetry is the reconnection delay a polled stream asks for.
const sseRetry = 500 * time.Millisecond

// pollSSE closes the SSE stream of a tools/call that is still running
// after Config.SSEPoll, with a retry field: the client reconnects with
// Last-Event-ID, and the result, kept by the event store, reaches it on
// the new stream.
func (s *Server) pollSSE(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if s.cfg.SSEPoll <= 0 || method != "tools/call" {
			return next(ctx, method, req)
		}
		if ex := req.GetExtra(); ex != nil && ex.CloseSSEStream != nil {
			t := time.AfterFunc(s.cfg.SSEPoll, func() { ex.CloseSSEStream(mcp.CloseSSEStreamArgs{RetryAfter: sseRetry}) })
			defer t.Stop()
		}
		return next(ctx, method, req)
	}
}
