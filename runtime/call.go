package runtime

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/manifest"
	"github.com/codemode-dev/codemode/runtime/monty"
	"github.com/codemode-dev/codemode/runtime/upstream"
	"github.com/codemode-dev/codemode/validate"
	"golang.org/x/sync/semaphore"
)

// handler answers one program's requests to the host.
type handler struct {
	r       *Runtime
	ctx     context.Context
	session string
	runID   string
	res     *Result

	out     strings.Builder
	maxOut  int
	dropped int

	notes    []string
	waited   bool
	wait     string
	waitTool string
	// pending are the calls held for approval (the pack's approve rule),
	// one batch per program; batch says the program's wait is that batch,
	// so later approval-held calls join it rather than being refused.
	pending []PendingCall
	batch   bool

	// helped are the tools whose definitions help() printed in full: read
	// once the program's output reaches the agent, not before.
	helped []*toolEntry

	// abort is set when the program must stop where it cannot catch it.
	abort      error
	abortLimit string

	seq    int    // calls audited so far
	direct bool   // one call outside any program (Runtime.Call)
	job    string // the job whose call this is (audited with it)

	// mu guards the handler's state: Call holds it, and so does each aio
	// call running in the background, except while its request is out
	// (check lets go of it around the upstream call).
	mu       sync.Mutex
	inflight int // calls whose request is out
	// cut is the first call whose request the time limit stopped while
	// it was out, and how long it had waited for its upstream.
	cut       string
	cutWaited time.Duration
	futures   map[uint32]*future
	wake      chan struct{} // an aio call is done
	wg        sync.WaitGroup
	slots     *semaphore.Weighted // MaxParallel aio calls at once
}

// Print keeps output up to the limit, cut at a UTF-8 character boundary;
// after the cut, nothing more is kept.
func (h *handler) Print(_ monty.Stream, text string) {
	room := h.maxOut - h.out.Len()
	if h.dropped == 0 && room >= len(text) {
		h.out.WriteString(text)
		return
	}
	keep := 0
	if h.dropped == 0 && room > 0 {
		keep = utf8Prefix(text, room)
	}
	h.out.WriteString(text[:keep])
	h.dropped += len(text) - keep
}

// MaxCallSize caps the encoded arguments of one call (monty.CallSizer): a
// bigger call is refused before the host decodes it.
func (h *handler) MaxCallSize() int { return h.r.limits.CallBytes }

func (h *handler) Lookup(string, *monty.UUID) (monty.Value, bool) { return nil, false }

// OSCall refuses files and the environment with the way that works here.
func (h *handler) OSCall(_ context.Context, c *monty.OSCall) (monty.Reply, error) {
	switch c.Op {
	case "date_today", "date_time_now", "cpu_count", "getpid", "uname", "system":
		return monty.NotHandled(), nil
	}
	what := "files"
	if c.Op == "getenv" || c.Op == "get_environ" {
		what = "environment variables"
	}
	return monty.Raise("PermissionError", "this sandbox has no "+what+", network or processes. "+toolHint), nil
}

// toolHint is the correction that goes with every refusal of a primitive
// that does not exist here.
const toolHint = `Call tools as api.<service>.<tool>(...) or run_tool("<name>", {...}); find them with find_tool("<what you need>").`

func (h *handler) Call(ctx context.Context, c *monty.Call) (monty.Reply, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if c.Oversize > 0 {
		name := shortName(c.Name)
		if svc, tool, ok := strings.Cut(c.Name, "."); ok {
			if e, ok := h.r.tools[toolKey{ir.ServiceName(svc), tool}]; ok {
				name = e.call()
			}
		}
		msg := fmt.Sprintf("%s(...) was not called: its arguments are %d bytes, over the limit of %d bytes for one call; pass less data per call", name, c.Oversize, h.r.limits.CallBytes)
		h.record(name, StatusRefused, msg, 0)
		return monty.Raise("ValueError", msg), nil
	}
	switch c.Name {
	case "run_tool":
		return h.runTool(ctx, c)
	case "help":
		return h.help(c)
	case "dir":
		return h.dir(c)
	}
	if f, ok := strings.CutPrefix(c.Name, helpersName+"."); ok && h.r.hasHelpers() {
		return helpersCall(c, f), nil
	}
	if f, ok := strings.CutPrefix(c.Name, "jobs."); ok && h.r.hasJobs() {
		return h.jobsCall(c, f)
	}
	if name, ok := strings.CutPrefix(c.Name, aioName+"."); ok && h.r.hasAio() {
		return h.callAio(c, name)
	}
	svc, tool, ok := strings.Cut(c.Name, ".")
	if !ok {
		return monty.NotFound(c.Name), nil
	}
	e, ok := h.r.tools[toolKey{ir.ServiceName(svc), tool}]
	if !ok {
		return monty.NotFound(c.Name), nil
	}
	args, err := bind(e, c)
	if err != nil {
		h.record(e.call(), StatusInvalid, err.Error(), 0)
		if aerr := h.stopped(e.call(), callArgs(c), StatusInvalid, ReasonValidation, err.Error()); aerr != nil {
			return monty.Reply{}, aerr
		}
		return monty.Raise("TypeError", err.Error()), nil
	}
	return h.invoke(ctx, e, args)
}

// runTool is run_tool("name", {...}): name is a wire name, a Python name, or
// "service.tool"; the arguments are keyed by argument (wire) name.
func (h *handler) runTool(ctx context.Context, c *monty.Call) (monty.Reply, error) {
	var name, args monty.Value
	if len(c.Args) > 0 {
		name = c.Args[0]
	}
	if len(c.Args) > 1 {
		args = c.Args[1]
	}
	for _, k := range c.Kwargs {
		switch k.Name {
		case "name":
			name = k.Value
		case "arguments", "args":
			args = k.Value
		default:
			return monty.Raise("TypeError", fmt.Sprintf("run_tool() got an unexpected keyword argument '%s'; call it as run_tool(\"name\", {\"arg\": value})", k.Name)), nil
		}
	}
	n, ok := name.(string)
	if !ok {
		return monty.Raise("TypeError", `run_tool() needs the tool's name as a string first: run_tool("name", {"arg": value})`), nil
	}
	e, err := h.r.lookupTool(n)
	if err != nil {
		h.record(shortName(n), StatusRefused, err.Error(), 0)
		var a any
		if args != nil {
			a, _ = monty.ToJSON(args)
		}
		if aerr := h.stopped(shortName(n), a, StatusRefused, ReasonGrant, err.Error()); aerr != nil {
			return monty.Reply{}, aerr
		}
		return monty.Raise("NameError", err.Error()), nil
	}
	bound := map[string]any{}
	if args != nil {
		j, err := monty.ToJSON(args)
		if err != nil {
			return monty.Raise("TypeError", fmt.Sprintf("%s: arguments must be JSON values: %v", e.call(), err)), nil
		}
		m, ok := j.(map[string]any)
		if !ok {
			return monty.Raise("TypeError", fmt.Sprintf(`run_tool("%s", ...): arguments must be a dict, got %s`, n, pyTypeName(j))), nil
		}
		bound = m
	}
	return h.invoke(ctx, e, bound)
}

// maxToolName is the longest name run_tool looks up: no tool name is
// longer, and a longer one is refused before any fuzzy matching.
const maxToolName = 256

// shortName shows a name in a message: whole when it is short, else its
// start and its length.
func shortName(name string) string {
	if len(name) <= 64 {
		return name
	}
	return fmt.Sprintf("%s… (%d bytes)", name[:utf8Prefix(name, 48)], len(name))
}

// lookupTool resolves run_tool's name.
func (r *Runtime) lookupTool(name string) (*toolEntry, error) {
	if len(name) > maxToolName {
		return nil, fmt.Errorf("there is no tool named %q: tool names are at most %d bytes. %s", shortName(name), maxToolName, findHint)
	}
	name = strings.TrimPrefix(name, "api.")
	if svc, tool, ok := strings.Cut(name, "."); ok {
		if e, ok := r.tools[toolKey{ir.ServiceName(svc), tool}]; ok {
			return e, nil
		}
		if s, ok := r.cfg.Manifest.Service(ir.ServiceName(svc)); ok {
			if t, ok := s.Tool(tool); ok {
				return r.tools[toolKey{s.Name, string(t.Py)}], nil
			}
		}
	}
	switch es := r.byWire[name]; len(es) {
	case 1:
		return es[0], nil
	case 0:
	default:
		var calls []string
		for _, e := range es {
			calls = append(calls, e.call())
		}
		return nil, fmt.Errorf("run_tool(%q): several services have this tool; use one of %s", name, strings.Join(calls, ", "))
	}
	for _, s := range r.services {
		if t, ok := s.Tool(name); ok {
			return r.tools[toolKey{s.Name, string(t.Py)}], nil
		}
	}
	msg := fmt.Sprintf("there is no tool named %q.", name)
	if best := r.closestTool(name); best != "" {
		msg = fmt.Sprintf("there is no tool named %q; did you mean %s?", name, best)
	}
	return nil, errors.New(msg + " " + findHint)
}

const findHint = `Find tools with find_tool("<what you need>").`

// bind maps a call's positional and keyword arguments onto the tool's
// signature: positional ones fill the required parameters in order,
// keywords match Python parameter names; None for an optional parameter
// means "not given".
func bind(e *toolEntry, c *monty.Call) (map[string]any, error) {
	t := e.tool
	sig := "Signature: " + t.Signature
	var required []manifest.Param
	byPy := map[string]manifest.Param{}
	for _, p := range t.Params {
		if p.Required {
			required = append(required, p)
		}
		byPy[string(p.Py)] = p
	}
	args := map[string]any{}
	given := map[string]bool{}
	if len(c.Args) > len(required) {
		return nil, fmt.Errorf("%s() takes %d positional argument%s but %d were given; pass optional arguments by keyword. %s",
			t.Call, len(required), plural(len(required)), len(c.Args), sig)
	}
	set := func(p manifest.Param, v monty.Value) error {
		if v == nil && !p.Required {
			return nil
		}
		j, err := monty.ToJSON(v)
		if err != nil {
			return fmt.Errorf("%s: argument %s must be a JSON value (str, int, float, bool, None, list, dict with str keys): %v", t.Call, p.Py, err)
		}
		args[p.Arg] = j
		return nil
	}
	for i, v := range c.Args {
		p := required[i]
		given[string(p.Py)] = true
		if err := set(p, v); err != nil {
			return nil, err
		}
	}
	for _, k := range c.Kwargs {
		p, ok := byPy[k.Name]
		if !ok {
			msg := fmt.Sprintf("%s() got an unexpected keyword argument '%s'", t.Call, k.Name)
			var names []string
			for _, p := range t.Params {
				names = append(names, string(p.Py))
			}
			if best := closest(k.Name, names); best != "" {
				msg += fmt.Sprintf(". Did you mean '%s'?", best)
			} else {
				msg += "."
			}
			return nil, errors.New(msg + " " + sig)
		}
		if given[k.Name] {
			return nil, fmt.Errorf("%s() got multiple values for argument '%s'. %s", t.Call, k.Name, sig)
		}
		given[k.Name] = true
		if err := set(p, k.Value); err != nil {
			return nil, err
		}
	}
	var missing []string
	for _, p := range required {
		if !given[string(p.Py)] {
			missing = append(missing, "'"+string(p.Py)+"'")
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%s() missing required argument%s: %s. %s", t.Call, plural(len(missing)), strings.Join(missing, ", "), sig)
	}
	return args, nil
}

// outcome is how one checked call ended.
type outcome struct {
	status  Status // ok, error, refused, invalid, wait
	message string // why, when not ok
	excType string // the exception a program gets, when not ok or wait
	value   any    // the JSON result (ok) or the wait marker (wait)
	reason  string // why a call was not made (Event.Reason)
}

func failed(status Status, excType, message string) outcome {
	return outcome{status: status, excType: excType, message: message}
}

// because names why a call was not made.
func because(reason string, o outcome) outcome {
	o.reason = reason
	return o
}

// invoke is do for a program: the outcome becomes the call's return value
// or the exception the program sees.
func (h *handler) invoke(ctx context.Context, e *toolEntry, args map[string]any) (monty.Reply, error) {
	out, err := h.do(ctx, e, args)
	if err != nil {
		return monty.Reply{}, err
	}
	if out.excType != "" {
		return monty.Raise(out.excType, out.message), nil
	}
	v, err := monty.FromJSON(out.value)
	if err != nil {
		msg := fmt.Sprintf("%s returned a value the sandbox cannot hold: %v", e.call(), err)
		return monty.Raise("RuntimeError", msg), nil
	}
	return monty.Return(v), nil
}

// do runs one call through every check, then the upstream, and records
// and audits it: a call stopped here is one "call" event; a call that
// leaves has an "intent" event before its request leaves (a failed write
// stops it there) and a "call" event with its outcome after. The error
// stops the program where it cannot catch it (a limit, a cancelled run, an
// audit log that cannot be written).
func (h *handler) do(ctx context.Context, e *toolEntry, args map[string]any) (outcome, error) {
	h.seq++
	tr := &trace{n: h.seq}
	out, err := h.check(ctx, e, args, tr)
	if tr.auditFailed {
		return out, err
	}
	ev := Event{Kind: "call", Call: tr.n, Tool: e.call(), Status: out.status, Message: out.message, Result: tr.result, Duration: tr.took, Reason: out.reason}
	if !tr.sent {
		ev.Args = h.payload(args)
	}
	switch {
	case err == nil:
		h.record(e.call(), out.status, out.message, tr.took)
	case h.abortLimit == "calls":
		ev.Status, ev.Message, ev.Reason = StatusRefused, err.Error(), ReasonLimit
	case errors.Is(err, context.DeadlineExceeded):
		ev.Status, ev.Message = StatusCut, "the time limit stopped the run during this call"
		if tr.sent && h.cut == "" {
			h.cut, h.cutWaited = e.call(), tr.took
		}
	case errors.Is(err, context.Canceled) && context.Cause(ctx) != nil && !errors.Is(context.Cause(ctx), context.Canceled):
		// Stopped for a stated cause (a gateway's drain timeout).
		ev.Status, ev.Message = StatusCut, "the run was stopped during this call: "+context.Cause(ctx).Error()
	case errors.Is(err, context.Canceled):
		ev.Status, ev.Message = StatusCancelled, "the run was cancelled during this call"
	default:
		ev.Status, ev.Message = StatusError, err.Error()
	}
	what := e.call() + " was not called"
	if tr.sent {
		what = "the outcome of " + e.call() + " was not recorded"
	}
	if aerr := h.write(ev, what); aerr != nil && err == nil {
		return outcome{}, aerr
	}
	return out, err
}

// trace is what the audit needs to know of one call's way through check.
type trace struct {
	n           int           // the call's number in its run
	sent        bool          // the intent was recorded and the request left
	took        time.Duration // upstream time
	result      *Payload      // what the upstream answered
	auditFailed bool          // the intent could not be recorded: the call was not made
}

// check is the call path itself: wait, limits, grant, read-gate,
// validation, hooks, the intent, upstream, notes and waits.
func (h *handler) check(ctx context.Context, e *toolEntry, args map[string]any, tr *trace) (out outcome, err error) {
	call := e.call()
	rule, ruled := h.r.cfg.Rules[ir.ToolID{Service: e.svc.Name, Wire: e.tool.Wire}]
	if h.waited && !(h.batch && ruled && rule.Approve) {
		return because(ReasonWait, failed(StatusRefused, "RuntimeError", fmt.Sprintf("%s was not called: an earlier call in this program is waiting (%s). End your turn now; the session resumes when the wait is over.", call, h.wait))), nil
	}
	if len(h.res.Calls)+h.inflight >= h.r.limits.Calls {
		h.abort = &LimitError{Limit: "calls", Message: fmt.Sprintf("LimitError: call limit (%d tool calls per program) reached at %s; the program was stopped. Filter or batch inside fewer calls", h.r.limits.Calls, call)}
		h.abortLimit = "calls"
		return outcome{}, h.abort
	}
	if ctx.Err() != nil {
		return outcome{}, ctx.Err()
	}
	if err := h.r.gate.Check(h.session, e.svc.Name, e.tool.Wire); err != nil {
		return because(ReasonReadGate, failed(StatusRefused, "PermissionError", fmt.Sprintf("%s was refused: %v", call, err))), nil
	}
	if err := h.r.validator.Check(e.svc.Name, e.tool.Wire, args); err != nil {
		kind := "ValueError"
		var ve *validate.Error
		if errors.As(err, &ve) && ve.Kind != "" {
			kind = ve.Kind
		}
		return because(ReasonValidation, failed(StatusInvalid, kind, err.Error())), nil
	}
	if why := h.r.pinRefusal(ctx, e.svc.Name, e.tool.Wire); why != "" {
		return because(ReasonPin, failed(StatusRefused, "PermissionError", fmt.Sprintf("%s was refused: %s", call, why))), nil
	}
	info := &CallInfo{Session: h.session, RunID: h.runID, Service: e.svc.Name, Tool: e.tool, Args: args}
	if ruled {
		if rule.Deny != "" {
			return because(ReasonPolicy, failed(StatusRefused, "PermissionError", fmt.Sprintf("%s was refused by the pack's policy: %s", call, rule.Deny))), nil
		}
		if why := rule.allowed(call, e.tool, args); why != "" {
			return because(ReasonPolicy, failed(StatusRefused, "PermissionError", why)), nil
		}
		if rule.Approve {
			digest := callDigest(ir.ToolID{Service: e.svc.Name, Wire: e.tool.Wire}, args)
			ok := ctx.Value(approvedKey{}) == digest
			if !ok && !h.batch {
				var err error
				if ok, err = h.r.takeApproval(h.session, digest); err != nil {
					return failed(StatusError, "RuntimeError", fmt.Sprintf("%s was not called: its approval could not be checked: %v", call, err)), nil
				}
			}
			if !ok {
				return h.holdForApproval(e, args, digest), nil
			}
			info.Approved = true
		}
	}
	for _, p := range h.r.cfg.Hooks {
		v := p.Before(ctx, info)
		h.notes = append(h.notes, v.Notes...)
		if v.Deny != "" {
			return because(ReasonPolicy, failed(StatusRefused, "PermissionError", fmt.Sprintf("%s was refused by policy: %s", call, v.Deny))), nil
		}
		if v.Wait != "" {
			return h.startWait(e, v.Wait), nil
		}
	}
	up, ok := h.r.cfg.Upstreams[e.svc.Name]
	if !ok {
		return failed(StatusError, "RuntimeError", fmt.Sprintf("%s: service %s has no upstream configured in this runtime", call, e.svc.Name)), nil
	}
	if err := h.write(Event{Kind: "intent", Call: tr.n, Tool: call, Args: h.payload(args), Status: StatusIntent}, call+" was not called"); err != nil {
		tr.auditFailed = true
		return outcome{}, err
	}
	tr.sent = true
	start := time.Now()
	h.inflight++
	h.mu.Unlock()
	res, err := up.Call(ctx, e.tool, args)
	h.mu.Lock()
	h.inflight--
	tr.took = time.Since(start)
	if err != nil {
		if ctx.Err() != nil {
			return outcome{}, ctx.Err()
		}
		return failed(StatusError, "RuntimeError", fmt.Sprintf("%s failed: the upstream could not be reached: %v", call, err)), nil
	}
	tr.result = h.payload(res.Value)
	h.takeMeta(e, res)
	for _, p := range h.r.cfg.Hooks {
		v := p.After(ctx, info, res)
		h.notes = append(h.notes, v.Notes...)
		if v.Wait != "" {
			return h.startWait(e, v.Wait), nil
		}
	}
	if w := h.metaWait(e, res); w != "" {
		return h.startWait(e, w), nil
	}
	if res.IsError {
		msg := call + " failed"
		if res.Status != 0 {
			msg += fmt.Sprintf(" (HTTP %d)", res.Status)
		}
		return failed(StatusError, "RuntimeError", msg+": "+res.Message), nil
	}
	return outcome{status: StatusOK, value: res.Value}, nil
}

// startWait marks the program as waiting: this call returns the wait
// marker, and every later call is refused.
func (h *handler) startWait(e *toolEntry, reason string) outcome {
	h.waited = true
	h.wait = reason
	h.waitTool = e.call()
	h.notes = append(h.notes, fmt.Sprintf("WAIT: %s is waiting: %s. End your turn now.", e.call(), reason))
	return outcome{status: StatusWait, message: reason, value: map[string]any{"status": "waiting", "reason": reason}}
}

// holdForApproval holds a call for an approver: it is not made, and the
// program goes on; its later approval-held calls join the same batch and
// every other call is refused, as after any wait.
func (h *handler) holdForApproval(e *toolEntry, args map[string]any, digest string) outcome {
	h.pending = append(h.pending, PendingCall{Tool: e.call(), Args: args, Digest: digest})
	n := len(h.pending)
	if !h.waited {
		h.waited, h.batch = true, true
		h.waitTool = e.call()
	}
	h.wait = fmt.Sprintf("%d call%s held for approval", n, plural(n))
	return outcome{status: StatusWait, message: "held for approval", value: map[string]any{"status": "waiting", "reason": "held for approval by the pack's policy", "approval": json.Number(strconv.Itoa(n))}}
}

// takeMeta moves the upstream's notes (the _meta key the pack names) to the
// run's notes, where no program filtering can hide them.
func (h *handler) takeMeta(e *toolEntry, res *upstream.Result) {
	key := h.r.cfg.NotesMeta[e.svc.Name]
	if key == "" || res.Meta == nil {
		return
	}
	switch n := res.Meta[key].(type) {
	case string:
		h.notes = append(h.notes, e.call()+": "+n)
	case []any:
		for _, x := range n {
			if s, ok := x.(string); ok {
				h.notes = append(h.notes, e.call()+": "+s)
			}
		}
	}
}

func (h *handler) metaWait(e *toolEntry, res *upstream.Result) string {
	key := h.r.cfg.WaitMeta[e.svc.Name]
	if key == "" || res.Meta == nil {
		return ""
	}
	switch w := res.Meta[key].(type) {
	case string:
		return w
	case bool:
		if w {
			return "the upstream marked this result as a wait"
		}
	}
	return ""
}

func (h *handler) record(tool string, status Status, msg string, d time.Duration) {
	h.res.Calls = append(h.res.Calls, CallRecord{Tool: tool, Status: status, Message: msg, Duration: d})
}

// write records one event of this run. A failure stops the program where
// it cannot catch it, saying what was not done, and is returned.
// payload is v for the audit log; nil, and not encoded, when there is no
// audit log (a call's arguments and result are then never written).
func (h *handler) payload(v any) *Payload {
	if h.r.cfg.Audit == nil {
		return nil
	}
	return ValuePayload(v)
}

func (h *handler) write(ev Event, what string) error {
	if h.r.cfg.Audit == nil {
		return nil
	}
	ev.Time, ev.RunID, ev.Session, ev.Job = time.Now().UTC(), h.runID, h.session, h.job
	ev.Message = capMessage(ev.Message)
	if err := h.r.cfg.Audit.Record(ev); err != nil {
		stop := " and the program was stopped"
		if h.direct {
			stop = ""
		}
		h.abort = fmt.Errorf("AuditError: the audit log could not be written, so %s%s: %s", what, stop, firstLine(err.Error()))
		h.abortLimit = ""
		return h.abort
	}
	return nil
}

// stopped audits a call stopped before do (no such tool, arguments that
// do not bind) as one "call" event.
func (h *handler) stopped(tool string, args any, status Status, reason, msg string) error {
	h.seq++
	return h.write(Event{Kind: "call", Call: h.seq, Tool: tool, Args: h.payload(args), Status: status, Message: msg, Reason: reason}, tool+" was not called")
}

// callArgs is a call's arguments as JSON, for the audit of a call whose
// arguments do not bind: positional ones under "args", keywords by name.
func callArgs(c *monty.Call) any {
	out := map[string]any{}
	var pos []any
	for _, v := range c.Args {
		j, _ := monty.ToJSON(v)
		pos = append(pos, j)
	}
	if len(pos) > 0 {
		out["args"] = pos
	}
	for _, k := range c.Kwargs {
		j, _ := monty.ToJSON(k.Value)
		out[k.Name] = j
	}
	return out
}

// auditStart records a run's start and its code. The run does not start
// if it cannot be recorded.
func (r *Runtime) auditStart(session, code string, res *Result) error {
	if r.cfg.Audit == nil {
		return nil
	}
	err := r.cfg.Audit.Record(Event{
		Time: time.Now().UTC(), Kind: "run", RunID: res.RunID, Session: session, Code: CodePayload(code), Status: StatusStarted,
	})
	if err != nil {
		return fmt.Errorf("the audit log could not be written, so nothing ran: %s", firstLine(err.Error()))
	}
	return nil
}

// auditRun records a run's end.
func (r *Runtime) auditRun(session string, res *Result) {
	if r.cfg.Audit == nil {
		return
	}
	status := StatusOK
	if res.Error != "" {
		status = StatusError
	}
	err := r.cfg.Audit.Record(Event{
		Time: time.Now().UTC(), Kind: "run_end", RunID: res.RunID, Session: session,
		Status: status, Message: capMessage(firstLine(res.Error)), Calls: len(res.Calls), Duration: res.Duration,
	})
	if err != nil {
		res.Notes = append(res.Notes, "the audit log could not record the end of this run: "+firstLine(err.Error()))
	}
}

// auditAbort records the end of a run the runtime could not run, and
// returns err.
func (r *Runtime) auditAbort(session string, res *Result, err error) error {
	res.Error = err.Error()
	r.auditRun(session, res)
	return err
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

func newRunID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// help(api.svc.tool) prints the tool's definition, which counts as reading
// it from the next program on (the text reaches the agent only when the
// program's output does); help(api.svc) lists the service's tools.
func (h *handler) help(c *monty.Call) (monty.Reply, error) {
	if len(c.Args) != 1 {
		return monty.Raise("TypeError", "help() takes one argument: help(api.<service>.<tool>)"), nil
	}
	switch v := c.Args[0].(type) {
	case monty.Function:
		svc, tool, _ := strings.Cut(v.Name, ".")
		if e, ok := h.r.tools[toolKey{ir.ServiceName(svc), tool}]; ok {
			dropped := h.dropped
			h.Print(monty.Stdout, h.r.toolText(e.svc.File, e.tool))
			if h.dropped == dropped {
				h.helped = append(h.helped, e)
			}
			return monty.Return(nil), nil
		}
	case *monty.Instance:
		for _, s := range h.r.services {
			if v.TypeName == "_svc_"+string(s.Name) {
				var b strings.Builder
				fmt.Fprintf(&b, "api.%s (%s/%s):\n", s.Name, h.r.cfg.FileDir, s.File)
				for _, t := range s.Tools {
					fmt.Fprintf(&b, "  %s\n", strings.TrimPrefix(t.Signature, "api."+string(s.Name)+"."))
				}
				h.Print(monty.Stdout, b.String())
				return monty.Return(nil), nil
			}
		}
	}
	return monty.Raise("TypeError", "help() here documents tools: help(api.<service>.<tool>) or help(api.<service>)"), nil
}

// dir(api) and dir(api.svc) list services and tools.
func (h *handler) dir(c *monty.Call) (monty.Reply, error) {
	var names []any
	if len(c.Args) == 1 {
		if in, ok := c.Args[0].(*monty.Instance); ok {
			for _, a := range in.Attrs {
				// dir(api) lists the services; api.aio mirrors them.
				if in.TypeName == "_api" && a.Name == aioName && h.r.hasAio() {
					continue
				}
				names = append(names, a.Name)
			}
			return monty.Return(names), nil
		}
	}
	return monty.Raise("TypeError", "dir() here lists api and its services: dir(api), dir(api.<service>)"), nil
}

func pyTypeName(v any) string {
	switch v.(type) {
	case nil:
		return "None"
	case bool:
		return "bool"
	case string:
		return "str"
	case json.Number, float64, int64:
		return "number"
	case []any:
		return "list"
	case map[string]any:
		return "dict"
	}
	return fmt.Sprintf("%T", v)
}
