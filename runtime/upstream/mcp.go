package upstream

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-dev/codemode/emit"
)

// clientInfo is how codemode introduces itself to MCP servers.
var clientInfo = &mcp.Implementation{Name: "codemode", Version: "0.1"}

// MCP is a connection to one MCP server, over stdio (a child process) or
// streamable HTTP. The session is opened on the first call and kept; when
// the server dies it is reopened on the next call. A call that was in flight
// when the server died is sent again only when the tool is annotated
// read-only or idempotent; any other tool gets the error, since it may have
// taken effect.
type MCP struct {
	what      string // for errors: the command line or the URL
	transport func() (mcp.Transport, *exec.Cmd, *tailBuffer)

	mu      sync.Mutex
	sess    *mcpSession
	closed  bool
	watch   func(list []byte, err error) // see WatchTools
	starts  int                          // sessions opened so far
	connect chan struct{}                // a one-slot semaphore: one connect at a time
}

// mcpSession is one live session and the process behind it, if any.
type mcpSession struct {
	cs     *mcp.ClientSession
	cmd    *exec.Cmd
	stderr *tailBuffer
	dead   chan struct{} // closed when the session's connection ends
}

func (s *mcpSession) isDead() bool {
	select {
	case <-s.dead:
		return true
	default:
		return false
	}
}

// NewMCPCommand returns an upstream that runs argv as a stdio MCP server.
// env is the server's whole environment ("NAME=value"); nil means an empty
// one, never codemode's own (see ServerEnv). The process starts on the
// first call (or Start).
func NewMCPCommand(argv []string, env []string) *MCP {
	argv = append([]string(nil), argv...)
	env = append([]string{}, env...)
	return &MCP{
		what:    strings.Join(argv, " "),
		connect: make(chan struct{}, 1),
		transport: func() (mcp.Transport, *exec.Cmd, *tailBuffer) {
			var cmd *exec.Cmd
			if len(argv) > 0 {
				cmd = exec.Command(argv[0], argv[1:]...)
			} else {
				cmd = exec.Command("")
			}
			cmd.Env = env
			tail := &tailBuffer{max: 4096}
			cmd.Stderr = tail
			// Its own process group, so a terminal's signals reach codemode
			// alone and codemode decides when the server stops.
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			return &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, cmd, tail
		},
	}
}

// NewMCPURL returns an upstream for a streamable-HTTP MCP server at url.
// header is sent with every request (e.g. Authorization); client may be nil
// for a default client.
func NewMCPURL(url string, header http.Header, client *http.Client) *MCP {
	if client == nil {
		client = &http.Client{}
	}
	hc := *client
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	if len(header) > 0 {
		hc.Transport = &headerTransport{base: base, header: header.Clone()}
	}
	return &MCP{
		what:    url,
		connect: make(chan struct{}, 1),
		transport: func() (mcp.Transport, *exec.Cmd, *tailBuffer) {
			return &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &hc, DisableStandaloneSSE: true}, nil, nil
		},
	}
}

// headerTransport adds fixed headers to every request.
type headerTransport struct {
	base   http.RoundTripper
	header http.Header
}

func (t *headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, vs := range t.header {
		r.Header[k] = append([]string(nil), vs...)
	}
	return t.base.RoundTrip(r)
}

// ServerEnv builds a stdio server's environment: PATH and HOME from
// codemode's environment, then extra (a pack's env:), where a value "$VAR"
// is VAR from codemode's environment. A "$VAR" that is not set is an error
// naming it. The result is sorted by name.
func ServerEnv(extra map[string]string) ([]string, error) {
	vars := map[string]string{}
	for _, k := range []string{"PATH", "HOME"} {
		if v, ok := os.LookupEnv(k); ok {
			vars[k] = v
		}
	}
	for k, v := range extra {
		if ref, ok := strings.CutPrefix(v, "$"); ok && ref != "" {
			if r, ok := strings.CutPrefix(ref, "{"); ok && strings.HasSuffix(r, "}") {
				ref = strings.TrimSuffix(r, "}")
			}
			val, ok := os.LookupEnv(ref)
			if !ok {
				return nil, fmt.Errorf("env %s: environment variable %s is not set", k, ref)
			}
			v = val
		}
		vars[k] = v
	}
	out := make([]string, 0, len(vars))
	for k, v := range vars {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out, nil
}

// Start opens the session now instead of on the first call.
func (m *MCP) Start(ctx context.Context) error {
	_, err := m.session(ctx)
	return err
}

// Call implements Upstream.
func (m *MCP) Call(ctx context.Context, tool *emit.ManifestTool, args map[string]any) (*Result, error) {
	if args == nil {
		args = map[string]any{}
	}
	s, err := m.session(ctx)
	if err != nil {
		return nil, err
	}
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: string(tool.Wire), Arguments: args})
	if err == nil {
		return mapResult(res), nil
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("mcp %s: %s: %w", m.what, tool.Wire, ctx.Err())
	}
	if !m.lost(s, err) {
		return nil, fmt.Errorf("mcp %s: %s: %w", m.what, tool.Wire, err)
	}
	m.drop(s)
	if !tool.Annotations.ReadOnly && !tool.Annotations.Idempotent {
		return nil, fmt.Errorf("mcp %s: %s: the server went away during the call (%v%s); not retried, because the tool is neither read-only nor idempotent and may have taken effect; the next call restarts the server",
			m.what, tool.Wire, err, s.stderrNote())
	}
	s2, err2 := m.session(ctx)
	if err2 != nil {
		return nil, fmt.Errorf("mcp %s: %s: the server went away during the call (%v) and could not be restarted: %w", m.what, tool.Wire, err, err2)
	}
	res, err = s2.cs.CallTool(ctx, &mcp.CallToolParams{Name: string(tool.Wire), Arguments: args})
	if err != nil {
		if ctx.Err() == nil && m.lost(s2, err) {
			m.drop(s2)
		}
		return nil, fmt.Errorf("mcp %s: %s (after restarting the server): %w", m.what, tool.Wire, err)
	}
	return mapResult(res), nil
}

// lost reports whether err means the session is gone (as opposed to an
// error the server answered with).
func (m *MCP) lost(s *mcpSession, err error) bool {
	if errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, mcp.ErrSessionMissing) || errors.Is(err, io.EOF) {
		return true
	}
	var wire *jsonrpc.Error
	if errors.As(err, &wire) {
		return false // the server answered: it is alive
	}
	// The reader notices the end of the stream on its own goroutine; give
	// it a moment before deciding the connection is alive.
	select {
	case <-s.dead:
		return true
	case <-time.After(100 * time.Millisecond):
		return false
	}
}

// session returns the live session, opening one when there is none or the
// last one died.
func (m *MCP) session(ctx context.Context) (*mcpSession, error) {
	select {
	case m.connect <- struct{}{}:
		defer func() { <-m.connect }()
	case <-ctx.Done():
		return nil, fmt.Errorf("mcp %s: connecting: %w", m.what, ctx.Err())
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, fmt.Errorf("mcp %s: upstream is closed", m.what)
	}
	s := m.sess
	m.mu.Unlock()
	if s != nil && !s.isDead() {
		return s, nil
	}
	if s != nil {
		m.drop(s)
	}
	t, cmd, tail := m.transport()
	m.mu.Lock()
	watch := m.watch
	m.mu.Unlock()
	var opts *mcp.ClientOptions
	if watch != nil {
		opts = &mcp.ClientOptions{ToolListChangedHandler: func(ctx context.Context, req *mcp.ToolListChangedRequest) {
			go reportTools(req.Session, watch)
		}}
	}
	cs, err := mcp.NewClient(clientInfo, opts).Connect(ctx, t, nil)
	if err != nil {
		if cmd != nil && cmd.Process != nil {
			_ = cmd.Process.Kill()
		}
		ns := &mcpSession{stderr: tail}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("mcp %s: connecting: %w", m.what, ctx.Err())
		}
		return nil, fmt.Errorf("mcp %s: connecting: %w%s", m.what, err, ns.stderrNote())
	}
	ns := &mcpSession{cs: cs, cmd: cmd, stderr: tail, dead: make(chan struct{})}
	go func() {
		_ = cs.Wait()
		close(ns.dead)
	}()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		go cs.Close()
		return nil, fmt.Errorf("mcp %s: upstream is closed", m.what)
	}
	m.sess = ns
	m.starts++
	if watch != nil {
		go reportTools(cs, watch)
	}
	return ns, nil
}

// WatchTools has the connection report the server's tools: fn receives the
// tools/list result (a {"tools": [...]} document, every page) each time a
// session opens (the first one, and one after a restart) and whenever the
// server announces notifications/tools/list_changed. Set it before the
// first call or Start; fn runs on its own goroutine.
func (m *MCP) WatchTools(fn func(list []byte, err error)) {
	m.mu.Lock()
	m.watch = fn
	m.mu.Unlock()
}

// reportTools lists cs's tools for a WatchTools callback. A session that
// closes meanwhile is not reported: a new session reports for itself.
func reportTools(cs *mcp.ClientSession, fn func([]byte, error)) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	list, err := listTools(ctx, cs)
	if err != nil && (errors.Is(err, mcp.ErrConnectionClosed) || strings.Contains(err.Error(), "connection closed")) {
		return
	}
	fn(list, err)
}

// listTools lists every page of a session's tools as {"tools": [...]}.
func listTools(ctx context.Context, cs *mcp.ClientSession) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString(`{"tools":[`)
	n := 0
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		b, err := json.Marshal(t)
		if err != nil {
			return nil, err
		}
		if n > 0 {
			buf.WriteByte(',')
		}
		buf.Write(b)
		n++
	}
	buf.WriteString(`]}`)
	return buf.Bytes(), nil
}

// drop forgets s (if it is still the current session) and closes it in the
// background: a dead process is reaped, a live one is asked to stop.
func (m *MCP) drop(s *mcpSession) {
	m.mu.Lock()
	if m.sess == s {
		m.sess = nil
	}
	m.mu.Unlock()
	go s.close()
}

func (s *mcpSession) close() error {
	if s.cs == nil {
		return nil
	}
	err := s.cs.Close()
	if s.cmd != nil && s.cmd.Process != nil {
		// The server is stopped; anything it started in its process group
		// (an npx wrapper's child, say) goes with it.
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	}
	if s.isDead() && err != nil {
		return nil // the process had already gone: its exit status is no news
	}
	return err
}

func (s *mcpSession) stderrNote() string {
	if s == nil || s.stderr == nil {
		return ""
	}
	t := strings.TrimSpace(s.stderr.String())
	if t == "" {
		return ""
	}
	return "; server stderr: " + t
}

// Close stops the server (stdio) or ends the session (HTTP).
func (m *MCP) Close() error {
	m.mu.Lock()
	m.closed = true
	s := m.sess
	m.sess = nil
	m.mu.Unlock()
	if s == nil {
		return nil
	}
	err := s.close()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return nil // a server that exits non-zero on stdin EOF is still stopped
	}
	return err
}

// pid is the current server process's id, 0 when none (for tests).
func (m *MCP) pid() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.sess == nil || m.sess.cmd == nil || m.sess.cmd.Process == nil {
		return 0
	}
	return m.sess.cmd.Process.Pid
}

// mapResult turns an MCP tool result into a Result as upstream.go documents.
func mapResult(res *mcp.CallToolResult) *Result {
	out := &Result{IsError: res.IsError}
	if len(res.Meta) > 0 {
		if m, ok := renumber(map[string]any(res.Meta)).(map[string]any); ok {
			out.Meta = m
		}
	}
	if res.StructuredContent != nil {
		out.Value = renumber(res.StructuredContent)
	} else {
		items := make([]any, 0, len(res.Content))
		for _, c := range res.Content {
			items = append(items, contentValue(c))
		}
		switch len(items) {
		case 0:
			out.Value = nil
		case 1:
			out.Value = items[0]
		default:
			out.Value = items
		}
	}
	if res.IsError {
		var texts []string
		for _, c := range res.Content {
			if t, ok := c.(*mcp.TextContent); ok {
				texts = append(texts, t.Text)
			}
		}
		out.Message = strings.Join(texts, "\n")
		if out.Message == "" {
			out.Message = "the tool reported an error without a message"
		}
	}
	return out
}

// contentValue is one content item as a JSON value.
func contentValue(c mcp.Content) any {
	switch c := c.(type) {
	case *mcp.TextContent:
		if v, ok := decodeJSON([]byte(c.Text)); ok {
			return v
		}
		return c.Text
	case *mcp.ImageContent:
		return map[string]any{"type": "image", "mimeType": c.MIMEType, "data": base64.StdEncoding.EncodeToString(c.Data)}
	case *mcp.AudioContent:
		return map[string]any{"type": "audio", "mimeType": c.MIMEType, "data": base64.StdEncoding.EncodeToString(c.Data)}
	case *mcp.ResourceLink:
		m := map[string]any{"type": "resource_link", "uri": c.URI, "name": c.Name}
		if c.MIMEType != "" {
			m["mimeType"] = c.MIMEType
		}
		if c.Title != "" {
			m["title"] = c.Title
		}
		if c.Description != "" {
			m["description"] = c.Description
		}
		return m
	case *mcp.EmbeddedResource:
		m := map[string]any{"type": "resource"}
		if r := c.Resource; r != nil {
			m["uri"] = r.URI
			if r.MIMEType != "" {
				m["mimeType"] = r.MIMEType
			}
			if r.Blob != nil {
				m["data"] = base64.StdEncoding.EncodeToString(r.Blob)
			} else {
				m["text"] = r.Text
			}
		}
		return m
	default:
		// A content type this client does not model: pass its wire form.
		b, err := json.Marshal(c)
		if err != nil {
			return map[string]any{"type": "unknown"}
		}
		v, _ := decodeJSON(b)
		return v
	}
}

// decodeJSON decodes b as exactly one JSON value with UseNumber.
func decodeJSON(b []byte) (any, bool) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false
	}
	return v, true
}

// renumber re-decodes a value the SDK decoded without UseNumber, so numbers
// are json.Number like everywhere else. (Integers beyond 2^53 have already
// lost precision in the SDK's decoding.)
func renumber(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	out, ok := decodeJSON(b)
	if !ok {
		return v
	}
	return out
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
