package upstream

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxPages bounds tools/list pagination (a server that never stops paging).
const MaxPages = 1000

// ServerInfo is what a server said about itself in its initialize result.
type ServerInfo struct {
	Name, Title, Version, Instructions string
}

// ToolList is a live server's tools: Tools is {"tools":[...]} with every
// page, each tool as the server wrote it (so property order survives).
type ToolList struct {
	Tools  []byte
	Server ServerInfo
}

// ListTools starts the server cfg names, lists every page of its tools and
// stops it: what gen and check compile from a live source. The start and
// the listing are each bounded by cfg.StartTimeout.
func ListTools(ctx context.Context, cfg MCPConfig) (*ToolList, error) {
	m, err := NewMCP(cfg)
	if err != nil {
		what := cfg.Name
		if what == "" {
			what = strings.Join(cfg.Command, " ") + cfg.URL
		}
		if strings.Contains(err.Error(), what) {
			return nil, err // it names the server already
		}
		return nil, fmt.Errorf("mcp %s: %w", what, err)
	}
	defer m.Close()
	s, err := m.session(ctx)
	if err != nil {
		return nil, err
	}
	lctx, cancel := context.WithTimeout(ctx, m.cfg.StartTimeout)
	defer cancel()
	list, err := m.listTools(lctx, s.cs)
	if err != nil {
		if ctx.Err() == nil && lctx.Err() != nil {
			return nil, fmt.Errorf("mcp %s: tools/list did not finish within %s (start_timeout)", m.name, m.cfg.StartTimeout)
		}
		return nil, m.red.Error(fmt.Errorf("mcp %s: %w", m.name, err))
	}
	out := &ToolList{Tools: list}
	if init := s.cs.InitializeResult(); init != nil {
		out.Server.Instructions = init.Instructions
		if init.ServerInfo != nil {
			out.Server.Name, out.Server.Title, out.Server.Version = init.ServerInfo.Name, init.ServerInfo.Title, init.ServerInfo.Version
		}
	}
	return out, nil
}

// listTools lists every page of a session's tools as {"tools": [...]}: from
// the raw results when they were captured, else re-encoded. It refuses a
// repeated cursor and more than MaxPages pages.
func (m *MCP) listTools(ctx context.Context, cs *mcp.ClientSession) ([]byte, error) {
	m.listMu.Lock()
	defer m.listMu.Unlock()
	m.capt.begin()
	defer m.capt.end()
	var typed []*mcp.Tool
	cursor := ""
	seen := map[string]bool{}
	for page := 0; ; page++ {
		if page == MaxPages {
			return nil, fmt.Errorf("tools/list did not end after %d pages", MaxPages)
		}
		res, err := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			return nil, fmt.Errorf("tools/list failed: %s", oneLine(err.Error()))
		}
		typed = append(typed, res.Tools...)
		if res.NextCursor == "" {
			break
		}
		if seen[res.NextCursor] {
			return nil, fmt.Errorf("tools/list returned cursor %q twice", res.NextCursor)
		}
		seen[res.NextCursor] = true
		cursor = res.NextCursor
	}
	raw := m.capt.tools()
	if len(raw) != len(typed) {
		raw = raw[:0]
		for _, tl := range typed {
			b, err := json.Marshal(tl)
			if err != nil {
				return nil, fmt.Errorf("cannot encode tool %q: %s", tl.Name, err)
			}
			raw = append(raw, b)
		}
	}
	var buf bytes.Buffer
	buf.WriteString(`{"tools":[`)
	for i, r := range raw {
		if i > 0 {
			buf.WriteByte(',')
		}
		if err := json.Compact(&buf, r); err != nil {
			return nil, fmt.Errorf("server sent invalid JSON: %s", err)
		}
	}
	buf.WriteString(`]}`)
	return buf.Bytes(), nil
}

// capture keeps the raw results of tools/list responses, in arrival order,
// while a listing is under way.
type capture struct {
	mu      sync.Mutex
	active  bool
	results [][]json.RawMessage
}

func (c *capture) begin() {
	c.mu.Lock()
	c.active, c.results = true, nil
	c.mu.Unlock()
}

func (c *capture) end() {
	c.mu.Lock()
	c.active, c.results = false, nil
	c.mu.Unlock()
}

func (c *capture) on() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.active
}

func (c *capture) result(raw json.RawMessage) {
	if !c.on() {
		return
	}
	var r struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if json.Unmarshal(raw, &r) != nil || r.Tools == nil {
		return
	}
	c.mu.Lock()
	if c.active {
		c.results = append(c.results, r.Tools)
	}
	c.mu.Unlock()
}

func (c *capture) tools() []json.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []json.RawMessage
	for _, r := range c.results {
		out = append(out, r...)
	}
	return out
}

// captureTransport wraps a stdio transport so raw tools/list results can
// be kept.
type captureTransport struct {
	inner mcp.Transport
	capt  *capture
}

func (s *captureTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := s.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &captureConn{Connection: conn, capt: s.capt}, nil
}

type captureConn struct {
	mcp.Connection
	capt *capture
}

func (c *captureConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if resp, ok := msg.(*jsonrpc.Response); ok && err == nil && resp.Error == nil {
		c.capt.result(resp.Result)
	}
	return msg, err
}

// teeBody hands every JSON-RPC response in a POST response body (plain
// JSON or server-sent events) to the capture.
type teeBody struct {
	io.ReadCloser
	sse  bool
	capt *capture
	buf  bytes.Buffer
	done bool
}

var _ http.RoundTripper = (*mcpHTTP)(nil)

func (t *teeBody) Read(p []byte) (int, error) {
	n, err := t.ReadCloser.Read(p)
	t.buf.Write(p[:n])
	if t.sse {
		t.events()
	}
	if err != nil && !t.done {
		t.done = true
		if !t.sse {
			t.message(t.buf.Bytes())
		}
	}
	return n, err
}

// events hands on every complete server-sent event in the buffer.
func (t *teeBody) events() {
	for {
		b := t.buf.Bytes()
		end := bytes.Index(b, []byte("\n\n"))
		if end < 0 {
			return
		}
		var data bytes.Buffer
		sc := bufio.NewScanner(bytes.NewReader(b[:end]))
		sc.Buffer(nil, len(b)+1)
		for sc.Scan() {
			if d, ok := bytes.CutPrefix(sc.Bytes(), []byte("data:")); ok {
				data.Write(bytes.TrimPrefix(d, []byte(" ")))
				data.WriteByte('\n')
			}
		}
		t.message(data.Bytes())
		t.buf.Next(end + 2)
	}
}

func (t *teeBody) message(b []byte) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return
	}
	msg, err := jsonrpc.DecodeMessage(b)
	if err != nil {
		return
	}
	if resp, ok := msg.(*jsonrpc.Response); ok && resp.Error == nil {
		t.capt.result(resp.Result)
	}
}

// ListTools lists the server's tools now, every page, as a {"tools": [...]}
// document, over the current session (opening one when there is none). The
// runtime uses it to re-check the manifest's pins before a call when its
// last check is old.
func (m *MCP) ListTools(ctx context.Context) ([]byte, error) {
	s, err := m.session(ctx)
	if err != nil {
		return nil, err
	}
	return m.listTools(ctx, s.cs)
}
