package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Forward is what one direct-mode call passes between an upstream MCP
// server and the agent's client while it runs: the server's elicitation
// requests, log messages and progress notifications go to the agent, and
// the result's content blocks come back as the server sent them (images
// stay images). A call whose context carries no Forward (every call from a
// program) has none of that: a log message or progress goes to the
// operator's log only, and an elicitation request is refused at once, since
// a program cannot answer a question meant for a person.
type Forward struct {
	// Elicit asks the agent's client; nil refuses elicitation.
	Elicit func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error)
	// Sample asks the agent's client's model; nil refuses sampling.
	Sample func(context.Context, *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error)
	// Log passes on one log message; nil drops them.
	Log func(context.Context, *mcp.LoggingMessageParams)
	// Progress passes on one progress notification, its token already the
	// agent's ProgressToken; nil (or no ProgressToken) drops them.
	Progress      func(context.Context, *mcp.ProgressNotificationParams)
	ProgressToken any

	// Set by the call: the MCP result's content blocks and structured
	// content, redacted as the Result is.
	Content    []mcp.Content
	Structured any
}

type forwardKey struct{}

// WithForward returns ctx carrying f, for an MCP call made under it.
func WithForward(ctx context.Context, f *Forward) context.Context {
	return context.WithValue(ctx, forwardKey{}, f)
}

func forwardOf(ctx context.Context) *Forward {
	f, _ := ctx.Value(forwardKey{}).(*Forward)
	return f
}

// forwards are the calls in flight on one connection, each with its
// Forward (nil for a program's call). What the server sends during a call
// goes to the call it belongs to: progress by its token; a log message,
// elicitation or sampling request by the call the server relates it to —
// over streamable HTTP the call whose response stream carried it (the
// stream is tagged as it is read, tagBody) — or, when the server names no
// call (stdio, the standalone stream), to the one call in flight. With
// several in flight such a message belongs to none: a log message is not
// forwarded and a request is refused, since sending it to the wrong
// agent's client would hand one agent another's data.
type forwards struct {
	mu      sync.Mutex
	seq     int64
	active  []*activeForward
	changed chan struct{} // closed when a call ends (settle waits on it)
	// elicits counts the elicitation requests refused; last is the last
	// one's message.
	elicits atomic.Int64
	last    atomic.Value
	// enabled: EnableForwarding was called.
	enabled atomic.Bool
	// pending counts the log and progress notifications read from the
	// server and not yet handled: the SDK hands a response to its caller
	// at once but queues notifications for a handler goroutine, so a call
	// waits for those that came before its result (drain).
	pending atomic.Int64
}

// drainWait bounds drain.
const drainWait = time.Second

// drain waits until the notifications read before a direct call's result
// have been forwarded, so the agent gets them before the result.
func (fs *forwards) drain(ctx context.Context, f *Forward) {
	if f == nil {
		return
	}
	deadline := time.Now().Add(drainWait)
	for fs.pending.Load() > 0 && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(time.Millisecond)
	}
}

// countingBody counts the log and progress notifications in a server-sent
// event stream as it is read (forwards.pending), before the SDK hands them
// on. It looks at the start of each line only.
type countingBody struct {
	io.ReadCloser
	fs   *forwards
	line []byte // the start of the line being read
}

// countedHead is how much of a line is kept: a notification's method comes
// first after "jsonrpc".
const countedHead = 256

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	data := p[:n]
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		chunk := data
		if i >= 0 {
			chunk = data[:i]
		}
		if room := countedHead - len(b.line); room > 0 {
			b.line = append(b.line, chunk[:min(room, len(chunk))]...)
		}
		if i < 0 {
			break
		}
		if bytes.HasPrefix(b.line, []byte("data:")) &&
			(bytes.Contains(b.line, []byte(`"method":"notifications/progress"`)) || bytes.Contains(b.line, []byte(`"method":"notifications/message"`))) {
			b.fs.pending.Add(1)
		}
		b.line = b.line[:0]
		data = data[i+1:]
	}
	return n, err
}

// countingTransport counts the log and progress notifications its
// connection reads (forwards.pending).
type countingTransport struct {
	inner mcp.Transport
	fs    *forwards
}

func (t *countingTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &countingConn{Connection: conn, fs: t.fs}, nil
}

type countingConn struct {
	mcp.Connection
	fs *forwards
}

func (c *countingConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if req, ok := msg.(*jsonrpc.Request); ok && err == nil && !req.IsCall() &&
		(req.Method == "notifications/progress" || req.Method == "notifications/message") {
		c.fs.pending.Add(1)
	}
	return msg, err
}

type activeForward struct {
	f        *Forward
	token    string // the progress token sent upstream, "" for a program's call
	answered bool   // ended with the server's result
}

// callTokenPrefix starts the progress token of a direct call, which also
// names the call (callMetaKey).
const callTokenPrefix = "codemode-"

// callMetaKey is the _meta key tagBody adds to what the server sent on a
// direct call's stream: the call's progress token.
const callMetaKey = "codemode/call"

// begin registers a call (f nil: a program's call) and returns the
// progress token to send with it ("" for none: a program's call) and the
// function that ends the registration, told whether the server answered
// the call. A direct call always sends a token, which names it; its
// progress reaches the agent only when the agent gave a token of its own.
func (fs *forwards) begin(f *Forward) (string, func(answered bool)) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.seq++
	a := &activeForward{f: f}
	if f != nil {
		a.token = callTokenPrefix + strconv.FormatInt(fs.seq, 10)
	}
	fs.active = append(fs.active, a)
	return a.token, func(answered bool) {
		fs.mu.Lock()
		defer fs.mu.Unlock()
		for i, x := range fs.active {
			if x == a {
				fs.active = append(fs.active[:i], fs.active[i+1:]...)
				break
			}
		}
		a.answered = answered
		if fs.changed != nil {
			close(fs.changed)
			fs.changed = nil
		}
	}
}

// unroutedWait bounds how long a request that names no call waits for the
// calls it may belong to to narrow to one.
const unroutedWait = 5 * time.Minute

// settle finds the call a request that named none belongs to, among the
// calls in flight when it came (candidates): a call the server answered
// cannot be the one still waiting for this request's answer, so once all
// but one of them are answered, it is that one. nil (refuse) when a
// candidate ended unanswered (cancelled, failed: it may have been the
// one), none is left, or ctx or unroutedWait ends first.
func (fs *forwards) settle(ctx context.Context, candidates []*activeForward) (*activeForward, bool) {
	timer := time.NewTimer(unroutedWait)
	defer timer.Stop()
	for {
		fs.mu.Lock()
		var still []*activeForward
		for _, c := range candidates {
			if slices.Contains(fs.active, c) {
				still = append(still, c)
			} else if !c.answered {
				fs.mu.Unlock()
				return nil, false
			}
		}
		if len(still) <= 1 {
			fs.mu.Unlock()
			if len(still) == 1 {
				return still[0], true
			}
			return nil, false
		}
		if fs.changed == nil {
			fs.changed = make(chan struct{})
		}
		ch := fs.changed
		fs.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, false
		case <-timer.C:
			return nil, false
		}
	}
}

// route is the Forward a server's log message or request goes to: the
// call meta names (its callMetaKey, taken out of meta), else the one call
// in flight; nil when that is a program's call or it is not known (several
// in flight, or the named call has ended). When several were in flight and
// none was named, candidates lists them (see settle).
func (fs *forwards) route(meta map[string]any) (f *Forward, candidates []*activeForward) {
	tag, named := meta[callMetaKey].(string)
	if named {
		delete(meta, callMetaKey)
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if named {
		for _, a := range fs.active {
			if a.token == tag {
				return a.f, nil
			}
		}
		return nil, nil
	}
	if len(fs.active) == 1 {
		return fs.active[0].f, nil
	}
	if len(fs.active) > 1 {
		return nil, slices.Clone(fs.active)
	}
	return nil, nil
}

// routeRequest is route for a request (elicitation, sampling), which
// waits for several candidates to settle (settle). ambiguous: they did
// not.
func (fs *forwards) routeRequest(ctx context.Context, meta map[string]any) (f *Forward, ambiguous bool) {
	f, candidates := fs.route(meta)
	if len(candidates) == 0 {
		return f, false
	}
	a, ok := fs.settle(ctx, candidates)
	if !ok {
		return nil, true
	}
	return a.f, false
}

func (fs *forwards) byToken(token any) *Forward {
	s, ok := token.(string)
	if !ok || !strings.HasPrefix(s, callTokenPrefix) {
		return nil
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for _, a := range fs.active {
		if a.token == s {
			return a.f
		}
	}
	return nil
}

// elicitRefused is the error an elicitation request gets when no agent can
// answer it.
const elicitRefused = "codemode: elicitation refused: this call was made by a program, which cannot answer a question meant for a person"

// samplingRefused is the error a sampling request gets when no agent can
// answer it.
const samplingRefused = "codemode: sampling refused: this call was made by a program, not an agent's client with a model"

// unroutedRefused is the error a request gets when several calls are in
// flight, the server did not say which one it belongs to, and they did not
// settle (forwards.settle).
const unroutedRefused = "codemode: %s refused: several calls are in flight on this connection and the request does not say which one it belongs to, so no agent is asked"

// EnableForwarding has the connection declare elicitation and sampling
// (so a server asks for them) and pass them to a direct call's Forward:
// direct mode turns it on. Without it the client declares neither, and a
// server that asks anyway is refused at once. A session opened before is
// closed; the next call opens one that declares them.
func (m *MCP) EnableForwarding() {
	if m.fwd.enabled.Swap(true) {
		return
	}
	m.mu.Lock()
	s := m.sess
	m.mu.Unlock()
	if s != nil {
		m.drop(s)
	}
}

// newClient is the MCP client of one session.
func (m *MCP) newClient(opts *mcp.ClientOptions) *mcp.Client {
	c := mcp.NewClient(clientInfo, m.clientOptions(opts))
	if !m.fwd.enabled.Load() {
		// Not declared, so not expected; a server that asks anyway gets
		// the refusal (and the program's call the error saying why).
		c.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				switch method {
				case "elicitation/create":
					p, _ := req.GetParams().(*mcp.ElicitParams)
					return nil, m.refuseElicit(p)
				case "sampling/createMessage":
					return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: samplingRefused}
				}
				return next(ctx, method, req)
			}
		})
	}
	return c
}

// refuseElicit records a refused elicitation (for the call's error) and
// returns the refusal.
func (m *MCP) refuseElicit(p *mcp.ElicitParams) error {
	msg := ""
	if p != nil {
		msg = p.Message
	}
	m.fwd.last.Store(msg)
	m.fwd.elicits.Add(1)
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: elicitRefused}
}

// clientOptions adds the forwarding handlers to opts.
func (m *MCP) clientOptions(opts *mcp.ClientOptions) *mcp.ClientOptions {
	if opts == nil {
		opts = &mcp.ClientOptions{}
	}
	if m.fwd.enabled.Load() {
		opts.ElicitationHandler = func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if req.Params == nil {
				return nil, m.refuseElicit(nil)
			}
			f, ambiguous := m.fwd.routeRequest(ctx, req.Params.Meta)
			switch {
			case f != nil && f.Elicit != nil:
				return f.Elicit(ctx, req.Params)
			case ambiguous:
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: fmt.Sprintf(unroutedRefused, "elicitation")}
			}
			return nil, m.refuseElicit(req.Params)
		}
		opts.CreateMessageHandler = func(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			var meta map[string]any
			if req.Params != nil {
				meta = req.Params.Meta
			}
			f, ambiguous := m.fwd.routeRequest(ctx, meta)
			switch {
			case f != nil && f.Sample != nil:
				return f.Sample(ctx, req.Params)
			case ambiguous:
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: fmt.Sprintf(unroutedRefused, "sampling")}
			}
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: samplingRefused}
		}
	}
	opts.LoggingMessageHandler = func(ctx context.Context, req *mcp.LoggingMessageRequest) {
		defer m.fwd.pending.Add(-1)
		if req.Params == nil {
			return
		}
		if f, _ := m.fwd.route(req.Params.Meta); f != nil && f.Log != nil {
			f.Log(ctx, req.Params)
		}
	}
	opts.ProgressNotificationHandler = func(ctx context.Context, req *mcp.ProgressNotificationClientRequest) {
		defer m.fwd.pending.Add(-1)
		if req.Params == nil {
			return
		}
		if f := m.fwd.byToken(req.Params.ProgressToken); f != nil && f.Progress != nil && f.ProgressToken != nil {
			p := *req.Params
			p.ProgressToken = f.ProgressToken
			f.Progress(ctx, &p)
		}
	}
	return opts
}

// elicitError is the error of a program's call during which the server
// asked for elicitation (and was refused).
func (m *MCP) elicitError(wire string) error {
	msg, _ := m.fwd.last.Load().(string)
	return fmt.Errorf("mcp %s: %s: the server asked the user a question (elicitation %q), and a program cannot answer one: the request was refused. Call this tool where a person can answer: a direct-mode session (codemode serve --direct) forwards it to the agent's client",
		m.name, wire, oneLine(msg))
}

// keep records a direct call's content blocks in f, redacted.
func (m *MCP) keep(f *Forward, res *mcp.CallToolResult) {
	if f == nil || res == nil {
		return
	}
	f.Content = make([]mcp.Content, 0, len(res.Content))
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			cp := *c
			cp.Text = m.red.String(c.Text)
			f.Content = append(f.Content, &cp)
		case *mcp.EmbeddedResource:
			cp := *c
			if c.Resource != nil {
				rc := *c.Resource
				rc.Text = m.red.String(rc.Text)
				cp.Resource = &rc
			}
			f.Content = append(f.Content, &cp)
		default:
			f.Content = append(f.Content, c)
		}
	}
	if res.StructuredContent != nil {
		f.Structured = m.red.Value(renumber(res.StructuredContent))
	}
}

// Session is the MCP client session, opened (or reopened) as a call
// would: direct mode lists and reads the server's resources and prompts
// on it.
func (m *MCP) Session(ctx context.Context) (*mcp.ClientSession, error) {
	s, err := m.session(ctx)
	if err != nil {
		return nil, err
	}
	return s.cs, nil
}

// wantLogs has the server send its log messages (logging/setLevel debug),
// once per session, when a direct call forwards them and the server logs.
// A call made meanwhile waits for it, so its own first lines are sent too.
func (m *MCP) wantLogs(ctx context.Context, s *mcpSession, f *Forward) {
	if f == nil || f.Log == nil {
		return
	}
	s.logs.Do(func() {
		if ir := s.cs.InitializeResult(); ir == nil || ir.Capabilities == nil || ir.Capabilities.Logging == nil {
			return
		}
		_ = s.cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"})
	})
}

// callTag is the progress token of a direct call's tools/call request
// (callTokenPrefix), "" for any other request.
func callTag(req *http.Request) string {
	if req.Method != http.MethodPost || req.GetBody == nil {
		return ""
	}
	body, err := req.GetBody()
	if err != nil {
		return ""
	}
	defer body.Close()
	var msg struct {
		Method string `json:"method"`
		Params struct {
			Meta struct {
				ProgressToken any `json:"progressToken"`
			} `json:"_meta"`
		} `json:"params"`
	}
	if json.NewDecoder(io.LimitReader(body, 8<<20)).Decode(&msg) != nil || msg.Method != "tools/call" {
		return ""
	}
	tok, _ := msg.Params.Meta.ProgressToken.(string)
	if !strings.HasPrefix(tok, callTokenPrefix) {
		return ""
	}
	return tok
}

// tagBody is the server-sent event stream of a direct call's request: each
// log message, elicitation and sampling request on it gets the call's tag
// (_meta callMetaKey), so the handler knows which call it belongs to.
type tagBody struct {
	io.ReadCloser
	tag  string
	line []byte // the line being read
	out  []byte // what is ready for the reader
	err  error  // the stream's end or failure, once out is given
}

// taggedMethods are the messages a call's stream carries that name no call
// themselves (progress has its token).
var taggedMethods = []string{`"notifications/message"`, `"elicitation/create"`, `"sampling/createMessage"`}

func (b *tagBody) Read(p []byte) (int, error) {
	for len(b.out) == 0 && b.err == nil {
		buf := make([]byte, 32<<10)
		n, err := b.ReadCloser.Read(buf)
		data := buf[:n]
		for len(data) > 0 {
			i := bytes.IndexByte(data, '\n')
			if i < 0 {
				b.line = append(b.line, data...)
				break
			}
			b.line = append(b.line, data[:i+1]...)
			b.out = append(b.out, b.tagged(b.line)...)
			b.line = b.line[:0]
			data = data[i+1:]
		}
		if err != nil {
			b.out = append(b.out, b.tagged(b.line)...)
			b.line = nil
			b.err = err
		}
	}
	n := copy(p, b.out)
	b.out = b.out[n:]
	if len(b.out) == 0 && b.err != nil {
		return n, b.err
	}
	return n, nil
}

// tagged is one line of the stream, with the call's tag added when it is
// the data of a message to tag.
func (b *tagBody) tagged(line []byte) []byte {
	payload, ok := bytes.CutPrefix(line, []byte("data:"))
	if !ok || !slices.ContainsFunc(taggedMethods, func(m string) bool { return bytes.Contains(payload, []byte(m)) }) {
		return line
	}
	end := len(payload) - len(bytes.TrimRight(payload, "\r\n"))
	var msg map[string]json.RawMessage
	if json.Unmarshal(payload, &msg) != nil {
		return line
	}
	var method string
	if json.Unmarshal(msg["method"], &method) != nil || !slices.Contains(taggedMethods, `"`+method+`"`) {
		return line
	}
	params := map[string]json.RawMessage{}
	if raw, ok := msg["params"]; ok && json.Unmarshal(raw, &params) != nil {
		return line
	}
	meta := map[string]any{}
	if raw, ok := params["_meta"]; ok && json.Unmarshal(raw, &meta) != nil {
		return line
	}
	meta[callMetaKey] = b.tag
	var err error
	if params["_meta"], err = json.Marshal(meta); err != nil {
		return line
	}
	if msg["params"], err = json.Marshal(params); err != nil {
		return line
	}
	out, err := json.Marshal(msg)
	if err != nil {
		return line
	}
	return append(append([]byte("data: "), out...), payload[len(payload)-end:]...)
}
