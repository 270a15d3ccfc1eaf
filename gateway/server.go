package gateway

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/manifest"
	"github.com/codemode-dev/codemode/metrics"
	"github.com/codemode-dev/codemode/runtime"
	"github.com/codemode-dev/codemode/runtime/upstream"
)

// Names of the code-mode tools.
const (
	FindTool = "find_tool"
	RunCode  = "run_code"
	ReadAPI  = "read_api"
)

// StdioSession starts the session id of a session without an MCP session
// id (stdio): "stdio-" and a random id.
const StdioSession = "stdio"

// Config configures a Server.
type Config struct {
	// Runtime runs programs and direct calls; its hooks should include
	// Shapes (so find_tool can show result shapes); it checks pins itself.
	Runtime *runtime.Runtime
	// FileDir is the directory the generated files are shown in ("api").
	FileDir string
	// Direct offers every granted tool as an MCP tool instead of find_tool,
	// run_code and read_api.
	Direct bool
	// Shapes is the shape cache find_tool reads; nil shows none.
	Shapes *Shapes
	// Audit records refused calls the runtime never sees (in code mode, a
	// tools/call for a tool's own name); use the runtime's auditor.
	Audit runtime.Auditor
	// Persistent says the runtime keeps each session's variables across
	// programs; run_code's description says so instead of "starts clean".
	Persistent bool
	// Name and Version introduce the server; defaults "codemode", "0.1".
	Name, Version string
	// Metrics counts run_code programs and adds the server's gauges; nil
	// counts nothing. (Calls are counted by its Auditor, which should be
	// the runtime's and this Audit.)
	Metrics *metrics.Metrics
	// Logf (may be nil) reports what the operator should know, such as a
	// direct-mode upstream whose resources and prompts could not be listed.
	Logf func(string, ...any)
	// JobsPoll is how often the jobs store of sessions subscribed to
	// JobsURI is read for changes made elsewhere; 0 is DefaultJobsPoll.
	JobsPoll time.Duration
	// SSEPoll, when set, closes the SSE stream of a tools/call still
	// running after it, with a retry field (SEP-1699 polling): the client
	// reconnects with Last-Event-ID and gets the result from the event
	// store, so a long program holds no connection a proxy may cut. Only
	// streams that can be resumed (protocol 2025-11-25 and older, over
	// HTTP) are closed; 0 keeps them open.
	SSEPoll time.Duration
}

// Server is the MCP server.
type Server struct {
	cfg     Config
	rt      *runtime.Runtime
	srv     *mcp.Server
	finder  *Finder
	offered map[string]bool              // tool names this server offers
	direct  map[string]directTool        // direct mode: MCP tool name → tool
	files   map[string]*manifest.Service // resource URI → service
	pass    *passthrough                 // direct mode: upstream resources and prompts (passthrough.go)

	mu sync.Mutex
	// sessions maps each live MCP session to its agent session id.
	sessions map[*mcp.ServerSession]string

	ops ops // draining, programs in flight, readiness checks

	notify *notifier // subscriptions to JobsURI
}

type directTool struct {
	service ir.ServiceName
	tool    *manifest.Tool
}

// RunCodeDescription is run_code's description: what the agent must know
// to write a program.
const RunCodeDescription = `Run a Python program (Monty, a sandboxed Python subset) that calls tools as functions.
- Each program starts clean: no variables survive from earlier programs. json and re are already imported.
- Call tools as api.<service>.<tool>(arg=value, ...) or run_tool("<name>", {"arg": value}); find them with find_tool and read a definition before its first call.
- Long calls: j = jobs.submit("name", api.<service>.<tool>, arg=value, ...) starts one in the background and returns at once; jobs.wait("name", wake_after=seconds) ends the program and your turn (the session waits until the job ends or the deadline); in a later turn jobs.get("name") returns its state and result. Also jobs.list(), jobs.cancel("name"). The session's jobs and wait are the resource codemode://session/jobs: a client subscribed to it (resources/subscribe) is notified when a job ends or a wait resolves, so the harness can wake you then.
- Independent calls can run at the same time: api.aio.<service>.<tool>(...) is the awaitable form of each tool, e.g. a, b = await asyncio.gather(api.aio.x.f(...), api.aio.x.g(...)) after import asyncio.
- Results come back as Python values (dict, list, str, int, float, bool, None). Filter them in the program and print only what you need: printed output is capped and the rest is dropped.
- Errors raised by tools (TypeError, ValueError, PermissionError, RuntimeError) can be caught with try/except.
- The response lists the runtime's notes first (read them), then what the program printed (printed lines that start like a note are marked "(printed)"), then the calls made and any error. If a note says WAIT, end your turn. If the sandbox worker died, the response lists the calls that completed: check their effects before running the program again.
- No files, network or processes: only the tools.`

// runCodeDescription is RunCodeDescription, or its persistent-session
// variant.
func runCodeDescription(persistent bool) string {
	if !persistent {
		return RunCodeDescription
	}
	return strings.Replace(RunCodeDescription,
		"- Each program starts clean: no variables survive from earlier programs. json and re are already imported.",
		"- Variables, functions and imports of earlier programs in this session are kept (the session is saved after each program). json and re are already imported.", 1)
}

// FindToolDescription is find_tool's description.
const FindToolDescription = `Search the tools you can call from run_code. Give a few words about what you need ("create a github issue"): returns up to 8 matches, best first: the first three with their call form (api.<service>.<tool>), first sentence, required arguments with types and allowed values, the optional ones by name, what it returns and an example call; the rest on one line each. Give an exact name ("github.create_issue") to get its whole definition with line numbers; a tool's definition must have been read (here, with read_api, or help() in an earlier program) before a program's first call to it.`

// ReadAPIDescription is read_api's description.
const ReadAPIDescription = `Read the generated Python definitions of a service: read_api(service="github", lines="41-63"). lines is "start-end", a single line "41", "41-" to the end, or "" for the whole file; one call shows at most 400 lines. Reading a tool's lines counts as reading its definition.`

// New builds the server.
func New(cfg Config) (*Server, error) {
	if cfg.Runtime == nil {
		return nil, errors.New("gateway: no runtime")
	}
	if cfg.FileDir == "" {
		cfg.FileDir = "api"
	}
	if cfg.Name == "" {
		cfg.Name = "codemode"
	}
	if cfg.Version == "" {
		cfg.Version = "0.1"
	}
	rt := cfg.Runtime
	m := rt.Manifest()
	s := &Server{cfg: cfg, rt: rt, offered: map[string]bool{}, direct: map[string]directTool{}, files: map[string]*manifest.Service{}, sessions: map[*mcp.ServerSession]string{}}
	s.finder = NewFinder(m, cfg.FileDir, func(svc ir.ServiceName, t *manifest.Tool) bool { return rt.Granted(svc, t) }, cfg.Shapes)
	instructions := "Call find_tool to find tools, read their definitions, then run_code to call them from a short Python program that prints only what you need."
	if cfg.Direct {
		instructions = "Every granted tool is offered directly."
	}
	opts := &mcp.ServerOptions{
		Instructions: instructions,
		// HTTP session ids are agent session ids (reads, audit, saved
		// state): 130 random bits, so one cannot be guessed.
		GetSessionID: rand.Text,
		// completion/complete is answered (and the capability declared)
		// so clients that ask get an answer, not "method not found".
		CompletionHandler: s.complete,
		// Subscriptions: to the session's jobs resource (JobsURI) and, in
		// direct mode, to an upstream's resources.
		SubscribeHandler: s.subscribeJobs, UnsubscribeHandler: s.unsubscribeJobs,
	}
	if cfg.Direct {
		// An upstream's elicitation, sampling and logs during a call are
		// forwarded as requests and notifications during the agent's call,
		// which protocol 2026-07-28 no longer allows (it returns input
		// requests instead): direct mode speaks 2025-11-25 and older.
		opts.SupportedProtocolVersions = directProtocolVersions()
	}
	s.srv = mcp.NewServer(&mcp.Implementation{Name: cfg.Name, Version: cfg.Version}, opts)
	s.notify = newNotifier(s, cfg.JobsPoll)
	if cfg.Direct {
		s.addDirect(m)
		s.addPassthrough(cfg.Logf)
	} else {
		s.addCodeMode()
	}
	s.addResources(m)
	s.addJobsResource()
	s.srv.AddReceivingMiddleware(s.refuseOthers, s.pollSSE)
	s.ops.init()
	if m := cfg.Metrics; m != nil {
		m.Gauge("codemode_pool_idle_workers", "Sandbox workers ready to be handed out.", func() float64 { return float64(rt.IdleWorkers()) })
		m.Gauge("codemode_pool_kept_workers", "Sandbox workers the pool keeps now (runtime.workers, up to runtime.max_workers while programs wait).", func() float64 { return float64(rt.KeptWorkers()) })
		m.Gauge("codemode_programs_in_flight", "run_code programs running now.", func() float64 { return float64(s.InFlight()) })
		m.Gauge("codemode_draining", "1 while the gateway drains (after SIGTERM).", func() float64 {
			if s.Draining() {
				return 1
			}
			return 0
		})
	}
	return s, nil
}

// MCP is the underlying go-sdk server.
func (s *Server) MCP() *mcp.Server { return s.srv }

// Finder is the server's find_tool index.
func (s *Server) Finder() *Finder { return s.finder }

// RunStdio serves one session over stdin/stdout until it ends.
func (s *Server) RunStdio(ctx context.Context) error {
	return s.srv.Run(ctx, &mcp.StdioTransport{})
}

// sessionOf is the agent session of an MCP session: its MCP session id
// (streamable HTTP), else "stdio-" and a random id, a new one for each
// session without an MCP session id (stdio, in-memory transports): no two
// such sessions, in this process or another that shares the state
// directory, ever share an id, so none reaches another's state.
func (s *Server) sessionOf(ss *mcp.ServerSession) string {
	if ss == nil {
		return StdioSession + "-" + strings.ToLower(rand.Text()[:16])
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if id, ok := s.sessions[ss]; ok {
		return id
	}
	id := ss.ID()
	if id == "" {
		id = StdioSession + "-" + strings.ToLower(rand.Text()[:16])
	}
	s.sessions[ss] = id
	// When the session ends, its reads (and a persistent session's state)
	// go with it.
	go func() {
		ss.Wait()
		_ = s.rt.ResetSession(id)
		s.mu.Lock()
		delete(s.sessions, ss)
		s.mu.Unlock()
	}()
	return id
}

// SessionMeta is the _meta key with which a harness names the agent
// session of a tools/call or resources/read request: {"_meta":
// {"codemode/session": "job-42"}}. Requests naming the same key share reads
// (and, in persistent mode, variables) across MCP sessions, so a one-shot
// client that connects once per call keeps its reads; without it, each MCP
// session is its own agent session. A named session outlives the MCP
// sessions that used it.
const SessionMeta = "codemode/session"

// namedSession is the session a request's _meta names, else ss's own.
// Over authenticated HTTP a name is scoped by the bearer token that sent
// it (`"token:…"/name`), so another token never reaches it, whatever name
// it sends.
func (s *Server) namedSession(ss *mcp.ServerSession, meta mcp.Meta, extra *mcp.RequestExtra) string {
	if k, ok := meta[SessionMeta].(string); ok && strings.TrimSpace(k) != "" {
		name := strings.TrimSpace(k)
		if extra != nil && extra.TokenInfo != nil && extra.TokenInfo.UserID != "" {
			return strconv.Quote(extra.TokenInfo.UserID) + "/" + name
		}
		return name
	}
	return s.sessionOf(ss)
}

// callSession is the agent session of a tools/call request.
func (s *Server) callSession(req *mcp.CallToolRequest) string {
	if req.Params == nil {
		return s.sessionOf(req.Session)
	}
	return s.namedSession(req.Session, req.Params.Meta, req.Extra)
}

func schemaOf(props map[string]any, required ...string) map[string]any {
	return map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false}
}

func textResult(text string, isError bool) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: isError}
}

// runCodeResult is run_code's reply: the notes (and wait) in their own
// block, which the program cannot write to, then what the program printed
// (lines that look like notes marked as printed), then the calls and the
// error; structuredContent carries the same outcome as data.
func runCodeResult(res *runtime.Result) *mcp.CallToolResult {
	var blocks []mcp.Content
	for _, text := range []string{res.NotesText(), res.OutputText(), res.SummaryText()} {
		if text != "" {
			blocks = append(blocks, &mcp.TextContent{Text: text})
		}
	}
	failed := 0
	for _, c := range res.Calls {
		if c.Status.Failed() {
			failed++
		}
	}
	out := runCodeOutcome{
		Notes: res.Notes, Calls: len(res.Calls), Failed: failed,
		Truncated: res.Truncated, Dropped: res.Dropped, WorkerDied: res.WorkerDied,
	}
	if out.Notes == nil {
		out.Notes = []string{}
	}
	if res.Wait {
		out.Wait = &runCodeWait{Tool: res.WaitTool, Reason: res.WaitReason, ID: res.WaitID}
		if !res.WaitDeadline.IsZero() {
			d := res.WaitDeadline.UTC().Format(time.RFC3339)
			out.Wait.Deadline = &d
		}
		if len(res.WaitJobs) > 0 {
			out.Wait.Jobs = res.WaitJobs
			out.Wait.Resume = "end the turn; call run_code in this session again when the job has ended or at the deadline, and read the result with jobs.get(name); " + subscribeHint
		} else if res.WaitID != "" {
			out.Wait.Resume = "end the turn; run_code in this session is refused until an approver resolves this wait (codemode jobs approve --session SESSION " + res.WaitID + ") or the deadline passes; " + subscribeHint
		}
		for _, c := range res.WaitCalls {
			out.Wait.Approval = append(out.Wait.Approval, c.String())
		}
		if len(res.WaitCalls) > 0 {
			out.Wait.Resume += "; once approved, make the held calls again with the same arguments and each goes through once"
		}
	}
	if res.Error != "" {
		out.Error = &res.Error
	}
	if res.Limit != "" {
		out.Limit = &res.Limit
	}
	if res.WorkerDied {
		for _, c := range res.Calls {
			out.Completed = append(out.Completed, runCodeCall{Tool: c.Tool, Status: c.Status})
		}
	}
	return &mcp.CallToolResult{Content: blocks, StructuredContent: out, IsError: !res.OK()}
}

// runCodeOutcome is run_code's structuredContent.
type runCodeOutcome struct {
	Notes      []string      `json:"notes"`
	Wait       *runCodeWait  `json:"wait"`
	Calls      int           `json:"calls"`
	Failed     int           `json:"failed"`
	Error      *string       `json:"error"`
	Limit      *string       `json:"limit"`
	Truncated  bool          `json:"output_truncated"`
	Dropped    int           `json:"output_dropped_bytes"`
	WorkerDied bool          `json:"worker_died"`
	Completed  []runCodeCall `json:"completed_calls,omitempty"`
}

type runCodeWait struct {
	Tool   string `json:"tool"`
	Reason string `json:"reason"`
	// The session's pending wait: its ID (for codemode jobs approve), the
	// jobs awaited (a job wait), the deadline (RFC 3339) and how to resume.
	ID       string   `json:"id,omitempty"`
	Jobs     []string `json:"jobs,omitempty"`
	Deadline *string  `json:"deadline,omitempty"`
	Resume   string   `json:"resume,omitempty"`
	// Approval lists the calls held for approval, as a program writes them.
	Approval []string `json:"approval,omitempty"`
}

type runCodeCall struct {
	Tool   string         `json:"tool"`
	Status runtime.Status `json:"status"`
}

// stringArgs decodes a code-mode tool's arguments.
func stringArgs(raw json.RawMessage, names ...string) (map[string]string, error) {
	var m map[string]any
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, fmt.Errorf("arguments must be a JSON object: %v", err)
		}
	}
	out := map[string]string{}
	for k, v := range m {
		known := false
		for _, n := range names {
			known = known || n == k
		}
		if !known {
			return nil, fmt.Errorf("unknown argument %q (this tool takes %s)", k, strings.Join(names, ", "))
		}
		str, ok := v.(string)
		if !ok && v != nil {
			return nil, fmt.Errorf("argument %q must be a string", k)
		}
		out[k] = str
	}
	return out, nil
}

func (s *Server) addCodeMode() {
	s.offered[FindTool], s.offered[RunCode], s.offered[ReadAPI] = true, true, true
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true}
	s.srv.AddTool(&mcp.Tool{
		Name: FindTool, Description: FindToolDescription, Annotations: readOnly,
		InputSchema: schemaOf(map[string]any{
			"query": map[string]any{"type": "string", "description": `What you need, in a few words, or an exact tool name ("github.create_issue") for its whole definition.`},
		}, "query"),
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args, err := stringArgs(req.Params.Arguments, "query")
		if err != nil {
			return textResult("find_tool: "+err.Error(), true), nil
		}
		return s.findResult(s.callSession(req), args["query"]), nil
	})
	s.srv.AddTool(&mcp.Tool{
		Name: RunCode, Description: runCodeDescription(s.cfg.Persistent),
		InputSchema: schemaOf(map[string]any{
			"code": map[string]any{"type": "string", "description": "The Python program."},
		}, "code"),
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args, err := stringArgs(req.Params.Arguments, "code")
		if err != nil {
			return textResult("run_code: "+err.Error(), true), nil
		}
		start := time.Now()
		if !s.ops.begin() {
			s.cfg.Metrics.Run(metrics.OutcomeDraining, nil, time.Since(start))
			return textResult("run_code: "+ErrDraining.Error(), true), nil
		}
		defer s.ops.end()
		ctx, done := s.ops.programContext(ctx)
		defer done()
		res, err := s.rt.Run(ctx, s.callSession(req), args["code"])
		if err != nil {
			s.cfg.Metrics.Run(metrics.OutcomeFailed, nil, time.Since(start))
			return textResult("run_code: "+err.Error(), true), nil
		}
		s.cfg.Metrics.Run(metrics.Outcome(res), res, time.Since(start))
		return runCodeResult(res), nil
	})
	s.srv.AddTool(&mcp.Tool{
		Name: ReadAPI, Description: ReadAPIDescription, Annotations: readOnly,
		InputSchema: schemaOf(map[string]any{
			"service": map[string]any{"type": "string", "description": "The service (as in api.<service>), or its file name."},
			"lines":   map[string]any{"type": "string", "description": `"start-end", "start", or "" for the whole file.`},
		}, "service"),
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args, err := stringArgs(req.Params.Arguments, "service", "lines")
		if err != nil {
			return textResult("read_api: "+err.Error(), true), nil
		}
		text, err := s.Read(s.callSession(req), args["service"], args["lines"])
		if err != nil {
			return textResult("read_api: "+err.Error(), true), nil
		}
		return textResult(text, false), nil
	})
}

// Find is find_tool: an exact name gives the whole definition (recorded as
// read for session); anything else is a ranked search.
func (s *Server) Find(session, query string) string {
	text, _, _ := s.find(session, query)
	return text
}

// find is find_tool's text, the tools it shows and whether the query was an
// exact name.
// maxQueryBytes bounds a find_tool query: a request for a tool takes a
// few words (findtool reads at most its first 64), and a pasted document
// is refused with a line that says so rather than searched.
const maxQueryBytes = 4096

func (s *Server) find(session, query string) (string, []Match, bool) {
	q := strings.TrimSpace(query)
	if q == "" {
		return fmt.Sprintf("find_tool: give a few words about what you need, or an exact name like %q. %s.", s.exampleName(), grantedCount(s.finder.Len())), nil, false
	}
	if len(q) > maxQueryBytes {
		return fmt.Sprintf("find_tool: the query is %d bytes; say what you need in a few words (at most %d bytes).", len(q), maxQueryBytes), nil, false
	}
	if m, ok := s.finder.Exact(q); ok {
		var b strings.Builder
		fmt.Fprintf(&b, "%s — %s lines %d-%d:\n", m.Tool.Call, m.File, m.Tool.Lines[0], m.Tool.Lines[1])
		b.WriteString(s.rt.ToolLines(session, m.Service, m.Tool))
		fmt.Fprintf(&b, "returns: %s\n", clip(s.finder.Returns(m.Service, m.Tool), maxExactReturns))
		fmt.Fprintf(&b, "example: %s\n", Example(m.Tool))
		return b.String(), []Match{m}, true
	}
	ms := s.finder.Search(q)
	return s.finder.Answer(q, ms), ms, false
}

func (s *Server) exampleName() string {
	for _, sv := range s.rt.Manifest().Services {
		for i := range sv.Tools {
			if s.rt.Granted(sv.Name, &sv.Tools[i]) {
				return string(sv.Name) + "." + string(sv.Tools[i].Py)
			}
		}
	}
	return "service.tool"
}

// service resolves read_api's service argument: a service name, its file
// name, or the file with its directory.
func (s *Server) service(name string) (*manifest.Service, bool) {
	m := s.rt.Manifest()
	name = strings.TrimPrefix(strings.TrimSpace(name), s.cfg.FileDir+"/")
	name = strings.TrimPrefix(name, "api.")
	for i := range m.Services {
		sv := &m.Services[i]
		if string(sv.Name) == name || sv.File == name {
			return sv, true
		}
	}
	return nil, false
}

// Read is read_api: lines of a generated file, numbered, recorded as read
// for session.
func (s *Server) Read(session, service, lines string) (string, error) {
	sv, ok := s.service(service)
	if !ok {
		var names []string
		for _, x := range s.rt.Manifest().Services {
			names = append(names, string(x.Name))
		}
		return "", fmt.Errorf("no service %q; the services are %s", service, strings.Join(names, ", "))
	}
	start, end, err := parseLines(lines)
	if err != nil {
		return "", err
	}
	data, _ := s.rt.File(sv.File)
	total := bytes.Count(data, []byte("\n"))
	if len(data) > 0 && data[len(data)-1] != '\n' {
		total++
	}
	if start > total {
		return "", fmt.Errorf("%s/%s has %d lines; line %d is past its end", s.cfg.FileDir, sv.File, total, start)
	}
	start = max(start, 1)
	if end == 0 || end > total {
		end = total
	}
	// One read shows at most maxReadLines: a big service's file (GitHub's
	// is 50,000 lines) would otherwise flood the agent's context.
	cut := end-start+1 > maxReadLines
	if cut {
		end = start + maxReadLines - 1
	}
	text := s.rt.Lines(sv.File, start, end)
	path := s.cfg.FileDir + "/" + sv.File
	s.rt.Gate().Read(session, path, start, end)
	out := fmt.Sprintf("%s lines %d-%d of %d:\n%s", path, start, end, total, text)
	if cut {
		out += fmt.Sprintf("[cut at %d lines: read on with read_api(%q, \"%d-\"), or ask find_tool for the tool you need]\n", maxReadLines, service, end+1)
	}
	return out, nil
}

// maxReadLines is the most lines one read_api call returns.
var maxReadLines = 400

// parseLines reads "41-63", "41", "41-" or "" (whole file: 0, 0).
func parseLines(s string) (int, int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, 0, nil
	}
	bad := fmt.Errorf(`lines %q: want "start-end" like "41-63", one line "41", or "" for the whole file`, s)
	a, b, isRange := strings.Cut(s, "-")
	start, err := strconv.Atoi(strings.TrimSpace(a))
	if err != nil || start < 1 {
		return 0, 0, bad
	}
	if !isRange {
		return start, start, nil
	}
	if strings.TrimSpace(b) == "" {
		return start, 0, nil
	}
	end, err := strconv.Atoi(strings.TrimSpace(b))
	if err != nil || end < start {
		return 0, 0, bad
	}
	return start, end, nil
}

// ResourceURI is the MCP resource URI of a generated file.
func ResourceURI(fileDir, file string) string { return "codemode:///" + fileDir + "/" + file }

func (s *Server) addResources(m *manifest.Manifest) {
	for i := range m.Services {
		sv := &m.Services[i]
		uri := ResourceURI(s.cfg.FileDir, sv.File)
		s.files[uri] = sv
		data, _ := s.rt.File(sv.File)
		s.srv.AddResource(&mcp.Resource{
			URI: uri, Name: s.cfg.FileDir + "/" + sv.File, MIMEType: "text/x-python",
			Description: fmt.Sprintf("The generated Python definitions of api.%s: what programs call.", sv.Name),
			Size:        int64(len(data)),
		}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			sv, ok := s.files[req.Params.URI]
			if !ok {
				return nil, mcp.ResourceNotFoundError(req.Params.URI)
			}
			data, _ := s.rt.File(sv.File)
			session := s.sessionOf(req.Session)
			if req.Params != nil {
				session = s.namedSession(req.Session, req.Params.Meta, req.Extra)
			}
			s.rt.Gate().Read(session, s.cfg.FileDir+"/"+sv.File, 0, 0)
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/x-python", Text: string(data)}}}, nil
		})
	}
}

// refuseOthers answers a tools/call for a name this server does not offer
// (in code mode, a granted tool's own name) with a refusal, and audits it.
func (s *Server) refuseOthers(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		cr, ok := req.(*mcp.CallToolRequest)
		if !ok || cr.Params == nil || s.offered[cr.Params.Name] {
			return next(ctx, method, req)
		}
		name := cr.Params.Name
		msg := fmt.Sprintf("%q is not a tool of this server", name)
		if !s.cfg.Direct {
			msg = fmt.Sprintf("%q cannot be called directly here: this server offers find_tool, run_code and read_api; call tools from a run_code program as api.<service>.<tool>(...)", name)
			if m, ok := s.finder.Exact(name); ok {
				msg = fmt.Sprintf("%q cannot be called directly here: call it from a run_code program as %s(...) (find_tool(%q) shows its definition)", name, m.Tool.Call, string(m.Service)+"."+string(m.Tool.Py))
			}
		}
		if s.cfg.Audit != nil {
			err := s.cfg.Audit.Record(runtime.Event{
				Time: time.Now().UTC(), Kind: "call", Session: s.callSession(cr), Tool: name,
				Args: runtime.RawPayload(cr.Params.Arguments), Status: runtime.StatusRefused, Message: msg,
			})
			if err != nil {
				msg += " (and the audit log could not record this refusal: " + strings.SplitN(err.Error(), "\n", 2)[0] + ")"
			}
		}
		return textResult(msg, true), nil
	}
}

// addDirect offers every granted tool as an MCP tool, named by its wire
// name, or <service>_<wire> where two services share a name.
func (s *Server) addDirect(m *manifest.Manifest) {
	count := map[ir.WireName]int{}
	for _, sv := range m.Services {
		for i := range sv.Tools {
			if s.rt.Granted(sv.Name, &sv.Tools[i]) {
				count[sv.Tools[i].Wire]++
			}
		}
	}
	var names []string
	for si := range m.Services {
		sv := &m.Services[si]
		for i := range sv.Tools {
			t := &sv.Tools[i]
			if !s.rt.Granted(sv.Name, t) {
				continue
			}
			name := string(t.Wire)
			if count[t.Wire] > 1 {
				name = string(sv.Name) + "_" + name
			}
			s.direct[name] = directTool{service: sv.Name, tool: t}
			s.offered[name] = true
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		dt := s.direct[name]
		in := map[string]any{}
		for k, v := range dt.tool.Input {
			in[k] = v
		}
		if in["type"] != "object" {
			in["type"] = "object"
		}
		tool := &mcp.Tool{Name: name, Description: dt.tool.Description, InputSchema: in, Annotations: &mcp.ToolAnnotations{
			ReadOnlyHint: dt.tool.Annotations.ReadOnly, IdempotentHint: dt.tool.Annotations.Idempotent,
			DestructiveHint: &dt.tool.Annotations.Destructive, OpenWorldHint: &dt.tool.Annotations.OpenWorld,
		}}
		s.srv.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			fwd := forward(ctx, req)
			return s.callDirect(upstream.WithForward(ctx, fwd), fwd, s.callSession(req), dt, req.Params.Arguments)
		})
	}
}

// callDirect runs one direct call through the runtime. The tool's
// definition is in tools/list, which counts as reading it.
func (s *Server) callDirect(ctx context.Context, fwd *upstream.Forward, session string, dt directTool, raw json.RawMessage) (*mcp.CallToolResult, error) {
	args := map[string]any{}
	if len(raw) > 0 && string(raw) != "null" {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&args); err != nil {
			msg := dt.tool.Call + ": arguments must be a JSON object: " + err.Error()
			if s.cfg.Audit != nil {
				if aerr := s.cfg.Audit.Record(runtime.Event{
					Time: time.Now().UTC(), Kind: "call", Session: session, Tool: dt.tool.Call,
					Args: runtime.RawPayload(raw), Status: runtime.StatusInvalid, Message: msg,
				}); aerr != nil {
					msg += " (and the audit log could not record this: " + strings.SplitN(aerr.Error(), "\n", 2)[0] + ")"
				}
			}
			return textResult(msg, true), nil
		}
	}
	s.rt.Gate().ReadTool(session, dt.service, dt.tool.Wire)
	res, err := s.rt.Call(ctx, session, string(dt.service)+"."+string(dt.tool.Py), args)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	for _, n := range res.Notes {
		b.WriteString("NOTE: " + n + "\n")
	}
	if len(res.Notes) > 0 {
		b.WriteString("\n")
	}
	// The upstream's answer passes as it came: its content blocks (an
	// image stays an image) and structured content, the notes first.
	if fwd != nil && fwd.Content != nil && (res.Status == runtime.StatusOK || res.Status == runtime.StatusError) {
		out := &mcp.CallToolResult{IsError: res.Status == runtime.StatusError, StructuredContent: fwd.Structured}
		if b.Len() > 0 {
			out.Content = append(out.Content, &mcp.TextContent{Text: b.String()})
		}
		out.Content = append(out.Content, fwd.Content...)
		return out, nil
	}
	switch res.Status {
	case runtime.StatusOK, runtime.StatusWait:
		if str, ok := res.Value.(string); ok {
			b.WriteString(str)
		} else {
			j, err := json.Marshal(res.Value)
			if err != nil {
				return textResult(dt.tool.Call+": result cannot be encoded: "+err.Error(), true), nil
			}
			b.Write(j)
		}
	default:
		b.WriteString(res.Message)
	}
	return textResult(b.String(), res.Status.Failed()), nil
}
