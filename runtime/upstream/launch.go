package upstream

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/codemode-dev/codemode/internal/tail"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultStartTimeout bounds an MCP server's start: from launch to its
// answer to initialize.
const DefaultStartTimeout = 30 * time.Second

// MCPConfig says how to reach one MCP server: Command (stdio) or URL
// (streamable HTTP). It is the one way codemode starts a server, for gen,
// check, run and serve alike.
type MCPConfig struct {
	// Name is the service, for messages and the log; empty uses the
	// command line or URL.
	Name string
	// Command is a stdio server's argv. It runs with an empty environment
	// plus PATH and HOME from codemode's and Env (see ServerEnv), in its
	// own process group, killed with codemode (Linux) and on Close.
	Command []string
	Env     map[string]string
	// URL is a streamable-HTTP server; Auth (bearer, basic, apiKey,
	// headers) and Header are sent on every request to its origin, Client
	// sends them. Auth type oauth gets its token from the server's
	// authorization server (see OAuth).
	URL    string
	Auth   *Auth
	Header http.Header
	Client *http.Client
	// StartTimeout bounds the start (default DefaultStartTimeout); after
	// every Progress (default 5s) of waiting a line says so on Log.
	StartTimeout time.Duration
	Progress     time.Duration
	// MaxReply caps one message from the server (default DefaultMaxReply);
	// a larger one is refused before it is decoded.
	MaxReply int64
	// Log is the operator's log (default os.Stderr): the server's stderr,
	// one prefixed line each, and start-up progress. Never shown to a
	// program or written to the audit.
	Log io.Writer
	// Redactor hides secrets in everything the upstream returns; the
	// secrets of Auth and of Env's $VAR values are added to it. nil makes
	// one of its own.
	Redactor *Redactor
	// TokenFile keeps an oauth service's token (0600; "" keeps it in
	// memory only); Login says what an authorization that needs a user
	// does (see LoginMode).
	TokenFile string
	Login     LoginMode

	env []string // the exact environment (NewMCPCommand), when not nil
}

// NewMCP checks cfg, reads its secrets and returns the upstream; nothing is
// started until the first call (or Start).
func NewMCP(cfg MCPConfig) (*MCP, error) {
	if cfg.StartTimeout <= 0 {
		cfg.StartTimeout = DefaultStartTimeout
	}
	if cfg.Progress <= 0 {
		cfg.Progress = 5 * time.Second
	}
	if cfg.MaxReply <= 0 {
		cfg.MaxReply = DefaultMaxReply
	}
	if cfg.Log == nil {
		cfg.Log = os.Stderr
	}
	if cfg.Redactor == nil {
		cfg.Redactor = NewRedactor()
	}
	m := &MCP{cfg: cfg, red: cfg.Redactor, connect: make(chan struct{}, 1), capt: &capture{}}
	switch {
	case len(cfg.Command) > 0 && cfg.URL != "":
		return nil, errors.New("mcp: give a command or a URL, not both")
	case len(cfg.Command) > 0:
		if cfg.Auth != nil {
			return nil, errors.New("auth: a stdio MCP server takes its credentials from env:, not auth:")
		}
		m.what = strings.Join(cfg.Command, " ")
		env := cfg.env
		if env == nil {
			var secrets []string
			var err error
			env, secrets, err = serverEnv(cfg.Env)
			if err != nil {
				return nil, err
			}
			m.red.Add(secrets...)
		}
		argv := append([]string(nil), cfg.Command...)
		env = append([]string{}, env...)
		m.launch = func() (*launched, error) { return m.startProcess(argv, env) }
	case cfg.URL != "":
		m.what = cfg.URL
		u, err := url.Parse(cfg.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("mcp_url %q: not an http(s) URL", cfg.URL)
		}
		var creds *credentials
		if cfg.Auth != nil {
			if creds, err = newCredentials(cfg.Auth, nil, true); err != nil {
				return nil, err
			}
			m.red.Add(creds.secrets...)
		}
		var oauth *oauthState
		if cfg.Auth != nil && cfg.Auth.Type == "oauth" {
			name := cfg.Name
			if name == "" {
				name = cfg.URL
			}
			if oauth, err = newOAuth(name, cfg.URL, cfg.Auth, cfg.TokenFile, cfg.Login, m.red, cfg.Log); err != nil {
				return nil, err
			}
		}
		hc := guardRedirects(cfg.Client, u, creds, cfg.Header)
		base := hc.Transport
		if base == nil {
			base = http.DefaultTransport
		}
		hc.Transport = &mcpHTTP{base: base, home: origin(u), creds: creds, header: cfg.Header.Clone(), m: m}
		m.launch = func() (*launched, error) {
			// The standalone SSE stream stays on: servers send requests
			// unrelated to a call (elicitation) and list_changed there.
			return &launched{t: &mcp.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: hc, MaxEventSize: -1}}, nil
		}
		if oauth != nil {
			plain := m.launch
			m.launch = func() (*launched, error) {
				oauth.newConnection()
				l, err := plain()
				if st, ok := l.t.(*mcp.StreamableClientTransport); ok && err == nil {
					st.OAuthHandler = oauth
				}
				return l, err
			}
		}
	default:
		return nil, errors.New("mcp: no command and no URL")
	}
	if cfg.Name != "" {
		m.name = cfg.Name
	} else {
		m.name = m.what
	}
	return m, nil
}

// NewMCPCommand returns an upstream that runs argv as a stdio MCP server.
// env is the server's whole environment ("NAME=value"); nil means an empty
// one, never codemode's own (see ServerEnv). The process starts on the
// first call (or Start).
func NewMCPCommand(argv []string, env []string) *MCP {
	if env == nil {
		env = []string{}
	}
	if len(argv) == 0 {
		argv = []string{""}
	}
	m, err := NewMCP(MCPConfig{Command: argv, env: env})
	if err != nil {
		panic(err) // cannot happen: a command and an exact environment
	}
	return m
}

// NewMCPURL returns an upstream for a streamable-HTTP MCP server at url.
// header is sent with every request to url's origin (e.g. Authorization);
// client may be nil for a default client. A bad URL fails every call.
func NewMCPURL(url string, header http.Header, client *http.Client) *MCP {
	m, err := NewMCP(MCPConfig{URL: url, Header: header, Client: client})
	if err != nil {
		return &MCP{what: url, name: url, red: NewRedactor(), connect: make(chan struct{}, 1), capt: &capture{},
			launch: func() (*launched, error) { return nil, err }}
	}
	return m
}

// ServerEnv builds a stdio server's environment: PATH and HOME from
// codemode's environment, then extra (a pack's env:), where a value "$VAR"
// is VAR from codemode's environment. A "$VAR" that is not set is an error
// naming it. The result is sorted by name.
func ServerEnv(extra map[string]string) ([]string, error) {
	env, _, err := serverEnv(extra)
	return env, err
}

// serverEnv is ServerEnv that also returns the values taken from $VARs,
// which are secrets to redact.
func serverEnv(extra map[string]string) (env, secrets []string, err error) {
	vars := map[string]string{}
	for _, k := range []string{"PATH", "HOME"} {
		if v, ok := os.LookupEnv(k); ok {
			vars[k] = v
		}
	}
	for k, v := range extra {
		if ref, ok := EnvRef(v); ok {
			val, ok := os.LookupEnv(ref)
			if !ok {
				return nil, nil, fmt.Errorf("env %s: environment variable %s is not set", k, ref)
			}
			v = val
			secrets = append(secrets, val)
		}
		vars[k] = v
	}
	env = make([]string, 0, len(vars))
	for k, v := range vars {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	return env, secrets, nil
}

// EnvRef reports whether an env: value is a reference to codemode's
// environment ("$VAR" or "${VAR}") and returns the variable's name.
func EnvRef(v string) (string, bool) {
	ref, ok := strings.CutPrefix(v, "$")
	if !ok || ref == "" {
		return "", false
	}
	if r, ok := strings.CutPrefix(ref, "{"); ok && strings.HasSuffix(r, "}") {
		ref = strings.TrimSuffix(r, "}")
	}
	return ref, true
}

// launched is one started connection: its transport and, for stdio, the
// process behind it.
type launched struct {
	t    mcp.Transport
	proc *process
}

// process is a running stdio server.
type process struct {
	cmd    *exec.Cmd
	stderr *stderrLog
	exited chan struct{} // closed when the process has been waited for
	err    error         // the exit status, once exited is closed
	pipes  []io.Closer   // codemode's ends of its stdin and stdout
	errEOF chan struct{} // closed when its stderr has been read to the end
}

// startProcess starts argv with env, its stdio on pipes codemode owns.
func (m *MCP) startProcess(argv, env []string) (*launched, error) {
	if argv[0] == "" {
		return nil, errors.New("no command given")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.SysProcAttr = serverProcAttr()
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	err = cmd.Start()
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, err
	}
	p := &process{cmd: cmd, exited: make(chan struct{}), pipes: []io.Closer{inW, outR}, errEOF: make(chan struct{}),
		stderr: &stderrLog{tail: tail.Buffer{Max: 4096}, maxLines: 200, log: m.cfg.Log, prefix: "mcp " + m.name + " stderr: ", red: m.red}}
	go func() {
		io.Copy(p.stderr, errR)
		errR.Close()
		p.stderr.flush()
		close(p.errEOF)
	}()
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	out := &lineCap{r: outR, max: m.cfg.MaxReply, trip: m.tripped}
	return &launched{proc: p, t: &mcp.IOTransport{Reader: out, Writer: inW, MaxLineLength: -1}}, nil
}

// stop ends the process: its stdin is closed (by the session), it gets a
// moment to exit, then its whole process group is killed.
func (p *process) stop(grace time.Duration) {
	select {
	case <-p.exited:
	case <-time.After(grace):
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.exited
	for _, c := range p.pipes {
		c.Close()
	}
}

// exitNote describes how the process ended, waiting briefly for it (and
// for the rest of its stderr).
func (p *process) exitNote() string {
	timeout := time.After(time.Second)
	select {
	case <-p.exited:
	case <-timeout:
		return ""
	}
	select {
	case <-p.errEOF:
	case <-timeout:
	}
	if p.err == nil {
		return "exit status 0"
	}
	return p.err.Error()
}

// lineCap passes a stdio server's output through, failing once one line
// (one message) is longer than max.
type lineCap struct {
	r    io.ReadCloser
	max  int64
	n    int64 // bytes since the last newline
	trip func()
	over bool
}

func (l *lineCap) Read(p []byte) (int, error) {
	if l.over {
		return 0, errReplyTooLarge
	}
	n, err := l.r.Read(p)
	for _, b := range p[:n] {
		if b == '\n' {
			l.n = 0
			continue
		}
		l.n++
		if l.n > l.max {
			l.over = true
			l.trip()
			return 0, errReplyTooLarge
		}
	}
	return n, err
}

// Close does nothing: the session ends by closing the server's stdin, and
// its stdout is closed once it has exited (closing it first would fail
// the server's last writes).
func (l *lineCap) Close() error { return nil }

var errReplyTooLarge = errors.New("reply over the size cap")

// tripped counts a reply refused for its size.
func (m *MCP) tripped() { m.trips.Add(1) }

// mcpHTTP is the streamable-HTTP client's transport: it puts the
// credentials and headers on requests to the server's origin (never
// elsewhere), caps every reply and lets tools/list results be captured.
type mcpHTTP struct {
	base   http.RoundTripper
	home   string
	creds  *credentials
	header http.Header
	m      *MCP
}

func (t *mcpHTTP) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Del("Referer")
	if origin(req.URL) == t.home {
		for k, vs := range t.header {
			req.Header[k] = append([]string(nil), vs...)
		}
		if t.creds != nil {
			t.creds.apply(req)
		}
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	sse := strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")
	body := &bodyCap{rc: resp.Body, max: t.m.cfg.MaxReply, sse: sse, trip: t.m.tripped}
	if !sse && resp.ContentLength > body.max {
		body.over = true
		t.m.tripped()
	}
	resp.Body = body
	if sse {
		resp.Body = &countingBody{ReadCloser: resp.Body, fs: &t.m.fwd}
		if tag := callTag(req); tag != "" {
			resp.Body = &tagBody{ReadCloser: resp.Body, tag: tag}
		}
	}
	if req.Method == http.MethodPost && t.m.capt.on() {
		resp.Body = &teeBody{ReadCloser: resp.Body, sse: sse, capt: t.m.capt}
	}
	return resp, nil
}

// bodyCap fails once a plain body, or one server-sent event of a stream,
// is longer than max.
type bodyCap struct {
	rc   io.ReadCloser
	max  int64
	sse  bool
	n    int64
	last byte // the previous byte, for finding an event's blank line
	trip func()
	over bool
}

func (b *bodyCap) Read(p []byte) (int, error) {
	if b.over {
		return 0, errReplyTooLarge
	}
	n, err := b.rc.Read(p)
	for _, c := range p[:n] {
		if b.sse && c == '\n' && b.last == '\n' {
			b.n = 0
		}
		if c != '\r' {
			b.last = c
		}
		b.n++
		if b.n > b.max {
			b.over = true
			b.trip()
			return 0, errReplyTooLarge
		}
	}
	return n, err
}

func (b *bodyCap) Close() error { return b.rc.Close() }

// stderrLog takes a server's stderr: each line goes to the operator's log
// with a prefix (the first maxLines of them), and the last max bytes are
// kept for StderrTail. Everything is redacted first.
type stderrLog struct {
	mu       sync.Mutex
	maxLines int
	log      io.Writer
	prefix   string
	red      *Redactor
	tail     tail.Buffer
	partial  []byte
	lines    int
}

func (s *stderrLog) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tail.Write(p)
	s.partial = append(s.partial, p...)
	for {
		i := bytes.IndexByte(s.partial, '\n')
		if i < 0 {
			break
		}
		s.emit(s.partial[:i])
		s.partial = s.partial[i+1:]
	}
	if len(s.partial) > 1024 {
		s.emit(s.partial)
		s.partial = nil
	}
	return len(p), nil
}

func (s *stderrLog) flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.partial) > 0 {
		s.emit(s.partial)
		s.partial = nil
	}
}

func (s *stderrLog) emit(line []byte) {
	s.lines++
	switch {
	case s.log == nil || s.lines > s.maxLines+1:
	case s.lines == s.maxLines+1:
		fmt.Fprintf(s.log, "%s(further lines not logged)\n", s.prefix)
	default:
		l := strings.TrimRight(string(line), "\r")
		if len(l) > 1024 {
			l = l[:1024] + "…"
		}
		fmt.Fprintf(s.log, "%s%s\n", s.prefix, s.red.String(l))
	}
}

func (s *stderrLog) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lines
}

func (s *stderrLog) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.red.String(s.tail.String())
}

// startErr words a failed start on one line.
func (m *MCP) startErr(ctx, sctx context.Context, l *launched, err error) error {
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("mcp %s: connecting: %w", m.name, ctx.Err())
	case sctx.Err() != nil:
		return fmt.Errorf("mcp %s: the server did not answer initialize within %s (start_timeout); it was stopped", m.name, m.cfg.StartTimeout)
	case errors.Is(err, errReplyTooLarge) || strings.Contains(err.Error(), errReplyTooLarge.Error()):
		return fmt.Errorf("mcp %s: connecting: %s", m.name, replyTooLarge(m.cfg.MaxReply))
	}
	if lerr := m.loginNeeded(err); lerr != nil {
		return lerr
	}
	msg := oneLine(err.Error())
	if l != nil && l.proc != nil {
		if note := l.proc.exitNote(); note != "" {
			logged := ""
			if l.proc.stderr.count() > 0 {
				logged = "; its stderr is in codemode's log"
			}
			return fmt.Errorf("mcp %s: the server exited before answering initialize (%s)%s", m.name, note, logged)
		}
	}
	return fmt.Errorf("mcp %s: %s: %s", m.name, m.failedTo(), msg)
}

// failedTo says what failed when a session could not be opened.
func (m *MCP) failedTo() string {
	if m.cfg.URL != "" {
		return "cannot connect to the server"
	}
	return "cannot start the server"
}

// progress logs "still waiting" every Progress until stop is called.
func (m *MCP) progress() (stop func()) {
	done := make(chan struct{})
	start := time.Now()
	go func() {
		t := time.NewTicker(m.cfg.Progress)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				fmt.Fprintf(m.cfg.Log, "codemode: still waiting for %s to start after %s\n", m.name, time.Since(start).Round(time.Second))
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(done) }) }
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
