package parse

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/codemode-dev/codemode/ir"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxPages bounds tools/list pagination (a server that never stops paging).
const maxPages = 1000

// MCPCommand starts argv as an MCP server speaking stdio, lists every page
// of its tools and compiles them. The service is named after the server's
// initialize result (serverInfo.name), else the command's base name. The
// server is stopped before MCPCommand returns.
func MCPCommand(ctx context.Context, argv []string, opts Options) (*ir.Service, error) {
	if len(argv) == 0 || argv[0] == "" {
		return nil, errorf("(command)", "no command given")
	}
	src := strings.Join(argv, " ")
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	stderr := &tailBuffer{max: 4096}
	cmd.Stderr = stderr
	capt := &capture{}
	t := &stdioCapture{inner: &mcp.CommandTransport{Command: cmd, TerminateDuration: time.Second}, capt: capt}
	svc, err := listLive(ctx, src, t, capt, opts, baseName(argv[0]))
	if err != nil {
		if tail := stderr.lastLine(); tail != "" {
			err.Msg += " (stderr: " + tail + ")"
		}
		return nil, err
	}
	svc.Source.Command = src
	return svc, nil
}

// MCPURL connects to an MCP server over streamable HTTP, lists every page of
// its tools and compiles them. The service is named after the server's
// initialize result, else the URL's host.
func MCPURL(ctx context.Context, endpoint string, opts Options) (*ir.Service, error) {
	u, err := url.Parse(endpoint)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" {
		return nil, errorf(endpoint, "not an http(s) URL")
	}
	capt := &capture{}
	client := &http.Client{Transport: &httpCapture{inner: http.DefaultTransport, capt: capt}}
	t := &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: client, MaxRetries: -1, DisableStandaloneSSE: true}
	svc, perr := listLive(ctx, endpoint, t, capt, opts, u.Hostname())
	if perr != nil {
		return nil, perr
	}
	svc.Source.URL = endpoint
	return svc, nil
}

// listLive connects, lists the tools and compiles them. The tools are
// compiled from the raw result bytes when they were captured (so property
// order survives), else from the decoded results.
func listLive(ctx context.Context, src string, t mcp.Transport, capt *capture, opts Options, fallbackName string) (*ir.Service, *Error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "codemode", Version: "0"}, nil)
	cs, err := client.Connect(ctx, t, nil)
	if err != nil {
		return nil, errorf(src, "cannot start MCP session: %s", oneLine(err.Error()))
	}
	defer cs.Close()
	var typed []*mcp.Tool
	cursor := ""
	seen := map[string]bool{}
	for page := 0; ; page++ {
		if page == maxPages {
			return nil, errorf(src, "tools/list did not end after %d pages", maxPages)
		}
		res, err := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			return nil, errorf(src, "tools/list failed: %s", oneLine(err.Error()))
		}
		typed = append(typed, res.Tools...)
		if res.NextCursor == "" {
			break
		}
		if seen[res.NextCursor] {
			return nil, errorf(src, "tools/list returned cursor %q twice", res.NextCursor)
		}
		seen[res.NextCursor] = true
		cursor = res.NextCursor
	}
	raw := capt.tools()
	if len(raw) != len(typed) {
		raw = raw[:0]
		for _, tl := range typed {
			b, err := json.Marshal(tl)
			if err != nil {
				return nil, errorf(src, "cannot encode tool %q: %s", tl.Name, err)
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
			return nil, errorf(src, "server sent invalid JSON: %s", err)
		}
	}
	buf.WriteString(`]}`)
	data := buf.Bytes()
	doc, ord, derr := decodeJSON(src, data)
	if derr != nil {
		return nil, derr.(*Error)
	}
	init := cs.InitializeResult()
	var info mcp.Implementation
	instructions := ""
	if init != nil {
		instructions = init.Instructions
		if init.ServerInfo != nil {
			info = *init.ServerInfo
		}
	}
	svc, perr := mcpService(src, doc, ord, opts)
	if perr != nil {
		return nil, perr.(*Error)
	}
	svc.Name = serviceName(opts, info.Name, fallbackName)
	svc.Title = info.Title
	if svc.Title == "" {
		svc.Title = info.Name
	}
	svc.Description, svc.Version = instructions, info.Version
	svc.Source = ir.Source{Kind: ir.SourceMCP, Digest: digest(data)}
	return svc, nil
}

// capture keeps the raw results of tools/list responses, in arrival order.
type capture struct {
	mu      sync.Mutex
	results [][]json.RawMessage
}

func (c *capture) result(raw json.RawMessage) {
	var r struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if json.Unmarshal(raw, &r) != nil || r.Tools == nil {
		return
	}
	c.mu.Lock()
	c.results = append(c.results, r.Tools)
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

// stdioCapture wraps a transport so the raw tools/list results can be kept.
type stdioCapture struct {
	inner mcp.Transport
	capt  *capture
}

func (s *stdioCapture) Connect(ctx context.Context) (mcp.Connection, error) {
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

// httpCapture keeps the bodies of POST responses and hands every JSON-RPC
// response in them (plain JSON or server-sent events) to the capture.
type httpCapture struct {
	inner http.RoundTripper
	capt  *capture
}

func (h *httpCapture) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := h.inner.RoundTrip(req)
	if err != nil || req.Method != http.MethodPost || resp.Body == nil {
		return resp, err
	}
	sse := strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")
	resp.Body = &teeBody{ReadCloser: resp.Body, sse: sse, capt: h.capt}
	return resp, nil
}

type teeBody struct {
	io.ReadCloser
	sse  bool
	capt *capture
	buf  bytes.Buffer
	done bool
}

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

// tailBuffer keeps the last bytes a server wrote to stderr.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append([]byte(nil), t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) lastLine() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(t.b)), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
