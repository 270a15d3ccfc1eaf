package upstream

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-dev/codemode/manifest"
)

// clientInfo is how codemode introduces itself to MCP servers.
var clientInfo = &mcp.Implementation{Name: "codemode", Version: "0.1"}

// MCP is a connection to one MCP server, over stdio (a child process) or
// streamable HTTP; NewMCP makes one. The session is opened on the first
// call and kept; when the server dies it is reopened on the next call. A
// call that was in flight when the server died is sent again only when the
// tool is annotated read-only or idempotent; any other tool gets the error,
// since it may have taken effect. Everything it returns passes its
// Redactor; the server's stderr goes to the operator's log only.
type MCP struct {
	cfg    MCPConfig
	what   string // the command line or the URL
	name   string // the service, else what: for errors and the log
	red    *Redactor
	launch func() (*launched, error)
	capt   *capture
	trips  atomic.Int64 // replies refused for their size
	listMu sync.Mutex   // one tools/list listing at a time

	mu      sync.Mutex
	sess    *mcpSession
	closed  bool
	watch   func(list []byte, err error) // see WatchTools
	starts  int                          // sessions opened so far
	connect chan struct{}                // a one-slot semaphore: one connect at a time

	fwd forwards // the Forwards of the direct calls in flight (forward.go)
}

// mcpSession is one live session and the process behind it, if any.
type mcpSession struct {
	cs   *mcp.ClientSession
	proc *process
	dead chan struct{} // closed when the session's connection ends
	logs sync.Once     // logging/setLevel sent (forward.go)
}

func (s *mcpSession) isDead() bool {
	select {
	case <-s.dead:
		return true
	default:
		return false
	}
}

// Redactor is the redactor the upstream applies to everything it returns,
// holding its own secrets; a caller may add more or apply it to notes.
func (m *MCP) Redactor() *Redactor { return m.red }

// StderrTail is the last 4 KB the current server process wrote to stderr
// (redacted), for the operator; "" for HTTP or when none runs.
func (m *MCP) StderrTail() string {
	m.mu.Lock()
	s := m.sess
	m.mu.Unlock()
	if s == nil || s.proc == nil {
		return ""
	}
	return s.proc.stderr.String()
}

// Start opens the session now instead of on the first call.
func (m *MCP) Start(ctx context.Context) error {
	_, err := m.session(ctx)
	return err
}

// Call implements Upstream.
func (m *MCP) Call(ctx context.Context, tool *manifest.Tool, args map[string]any) (*Result, error) {
	res, err := m.call(ctx, tool, args)
	if err != nil {
		return nil, m.red.Error(err)
	}
	return m.red.Result(res), nil
}

func (m *MCP) call(ctx context.Context, tool *manifest.Tool, args map[string]any) (*Result, error) {
	if args == nil {
		args = map[string]any{}
	}
	s, err := m.session(ctx)
	if err != nil {
		return nil, err
	}
	fwd := forwardOf(ctx)
	m.wantLogs(ctx, s, fwd)
	token, end := m.fwd.begin(fwd)
	answered := false
	defer func() { end(answered) }()
	params := &mcp.CallToolParams{Name: string(tool.Wire), Arguments: args}
	if token != "" {
		params.SetProgressToken(token)
	}
	trips, elicits := m.trips.Load(), m.fwd.elicits.Load()
	res, err := s.cs.CallTool(ctx, params)
	answered = err == nil
	if m.fwd.elicits.Load() != elicits && (fwd == nil || fwd.Elicit == nil) && ctx.Err() == nil {
		return nil, m.elicitError(string(tool.Wire))
	}
	if err == nil {
		m.fwd.drain(ctx, fwd)
		m.keep(fwd, res)
		return mapResult(res), nil
	}
	if m.trips.Load() != trips {
		if m.lost(s, err) {
			m.drop(s)
		}
		return nil, fmt.Errorf("mcp %s: %s: %s", m.name, tool.Wire, replyTooLarge(m.cfg.MaxReply))
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("mcp %s: %s: %w", m.name, tool.Wire, ctx.Err())
	}
	if lerr := m.loginNeeded(err); lerr != nil {
		return nil, lerr
	}
	if !m.lost(s, err) {
		return nil, fmt.Errorf("mcp %s: %s: %w", m.name, tool.Wire, err)
	}
	m.drop(s)
	if !tool.Annotations.ReadOnly && !tool.Annotations.Idempotent {
		return nil, fmt.Errorf("mcp %s: %s: the server went away during the call (%v); not retried, because the tool is neither read-only nor idempotent and may have taken effect; the next call restarts the server",
			m.name, tool.Wire, err)
	}
	s2, err2 := m.session(ctx)
	if err2 != nil {
		return nil, fmt.Errorf("mcp %s: %s: the server went away during the call (%v) and could not be restarted: %w", m.name, tool.Wire, err, err2)
	}
	trips = m.trips.Load()
	res, err = s2.cs.CallTool(ctx, params)
	answered = err == nil
	if err != nil {
		if ctx.Err() == nil && m.lost(s2, err) {
			m.drop(s2)
		}
		if m.trips.Load() != trips {
			return nil, fmt.Errorf("mcp %s: %s (after restarting the server): %s", m.name, tool.Wire, replyTooLarge(m.cfg.MaxReply))
		}
		return nil, fmt.Errorf("mcp %s: %s (after restarting the server): %w", m.name, tool.Wire, err)
	}
	m.keep(fwd, res)
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
// last one died. Opening is bounded by the start timeout.
func (m *MCP) session(ctx context.Context) (*mcpSession, error) {
	select {
	case m.connect <- struct{}{}:
		defer func() { <-m.connect }()
	case <-ctx.Done():
		return nil, fmt.Errorf("mcp %s: connecting: %w", m.name, ctx.Err())
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, fmt.Errorf("mcp %s: upstream is closed", m.name)
	}
	s := m.sess
	watch := m.watch
	m.mu.Unlock()
	if s != nil && !s.isDead() {
		return s, nil
	}
	if s != nil {
		m.drop(s)
	}
	l, err := m.launch()
	if err != nil {
		return nil, m.red.Error(fmt.Errorf("mcp %s: %s: %s", m.name, m.failedTo(), oneLine(err.Error())))
	}
	t := l.t
	if l.proc != nil {
		t = &captureTransport{inner: t, capt: m.capt}
		// (Over HTTP the SSE bodies count notifications: a wrapped
		// streamable connection would lose its standalone stream.)
		t = &countingTransport{inner: t, fs: &m.fwd}
	}
	var opts *mcp.ClientOptions
	if watch != nil {
		opts = &mcp.ClientOptions{ToolListChangedHandler: func(ctx context.Context, req *mcp.ToolListChangedRequest) {
			go m.reportTools(req.Session, watch)
		}}
	}
	sctx, cancel := context.WithTimeout(ctx, m.cfg.StartTimeout)
	stop := m.progress()
	cs, err := m.newClient(opts).Connect(sctx, t, nil)
	stop()
	if err != nil {
		err = m.startErr(ctx, sctx, l, err)
		cancel()
		if l.proc != nil {
			l.proc.stop(0)
		}
		return nil, m.red.Error(err)
	}
	cancel()
	ns := &mcpSession{cs: cs, proc: l.proc, dead: make(chan struct{})}
	go func() {
		_ = cs.Wait()
		close(ns.dead)
	}()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		go ns.close(dropGrace)
		return nil, fmt.Errorf("mcp %s: upstream is closed", m.name)
	}
	m.sess = ns
	m.starts++
	if watch != nil {
		go m.reportTools(cs, watch)
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
func (m *MCP) reportTools(cs *mcp.ClientSession, fn func([]byte, error)) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	list, err := m.listTools(ctx, cs)
	if err != nil && (errors.Is(err, mcp.ErrConnectionClosed) || strings.Contains(err.Error(), "connection closed")) {
		return
	}
	fn(list, m.red.Error(err))
}

// drop forgets s (if it is still the current session) and closes it in the
// background: a dead process is reaped, a live one is asked to stop.
func (m *MCP) drop(s *mcpSession) {
	m.mu.Lock()
	if m.sess == s {
		m.sess = nil
	}
	m.mu.Unlock()
	go s.close(dropGrace)
}

// dropGrace is how long a dropped session's server gets to exit after its
// stdin closes; closeGrace the same when the upstream is closed (codemode
// is exiting: a client waits for it, and the TypeScript SDK sends SIGTERM
// 2 s after closing codemode's stdin).
const (
	dropGrace  = 2 * time.Second
	closeGrace = 100 * time.Millisecond
)

func (s *mcpSession) close(grace time.Duration) error {
	if s.cs == nil {
		return nil
	}
	err := s.cs.Close()
	if s.proc != nil {
		// Closing the session closed the server's stdin; it gets a moment
		// to exit, then it and anything it started in its process group
		// (an npx wrapper's child, say) are killed.
		s.proc.stop(grace)
	}
	if s.isDead() && err != nil {
		return nil // the process had already gone: its exit status is no news
	}
	return err
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
	err := s.close(closeGrace)
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return nil // a server that exits non-zero on stdin EOF is still stopped
	}
	return m.red.Error(err)
}

// pid is the current server process's id, 0 when none (for tests).
func (m *MCP) pid() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.sess == nil || m.sess.proc == nil {
		return 0
	}
	return m.sess.proc.cmd.Process.Pid
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
