package runtime

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/codemode-dev/codemode/manifest"
	"github.com/codemode-dev/codemode/runtime/monty"
)

// ScriptName is the file name tracebacks and type errors give a program.
const ScriptName = "program.py"

// Result is what one program did.
type Result struct {
	// Notes are messages for the agent that no program filtering can hide:
	// upstream notes, policy notes, a wait.
	Notes []string
	// Output is what the program printed, up to the output limit.
	Output string
	// Truncated says the output limit cut Output; Dropped counts the bytes
	// not kept.
	Truncated bool
	Dropped   int
	// Calls are the tool calls the program made, in order.
	Calls []CallRecord
	// Error is the program's error, if it failed: a traceback pointing at
	// the program's own lines, a type-check report, or a limit.
	Error string
	// ErrorDropped counts the bytes of error text cut at Limits.ErrorText.
	ErrorDropped int
	// Limit names the limit that stopped the program ("time", "memory",
	// "calls"), "" otherwise; Err is then the *LimitError. A program's own
	// exception (even MemoryError) is never a limit.
	Limit string
	// Err is Error typed, nil when the program succeeded: *LimitError,
	// *TypeCheckError, *WaitError, *ProgramError, *WorkerDiedError, the
	// context's error (cut or cancelled), or an audit failure.
	Err error
	// WorkerDied says the sandbox worker died while the program ran, for
	// no limit: the program did not finish, and only the calls in Calls
	// completed.
	WorkerDied bool
	// Wait is set when a call came back as a wait: the agent should end its
	// turn. WaitTool is the call that waits, WaitReason why.
	Wait       bool
	WaitTool   string
	WaitReason string
	// WaitJobs and WaitDeadline are set when the wait is on jobs
	// (jobs.wait, or a program refused while its session waits).
	WaitJobs     []string
	WaitDeadline time.Time
	// WaitID names the session's pending wait (codemode jobs approve).
	WaitID string
	// WaitCalls are the calls held for approval, when the wait is the
	// pack's approve rule's.
	WaitCalls []PendingCall
	// Attempts is how many workers the program was given: more than one
	// only when a worker died before it had the program.
	Attempts int
	// RunID identifies this run in the audit log.
	RunID    string
	Duration time.Duration
	// HandOut is how long the program waited for its worker (the pool's
	// hand-out, all attempts).
	HandOut time.Duration
	// Warmed says the worker came from a warm set: configured and warmed
	// up for the services the program names (see warmsets.go).
	Warmed bool

	usesAio bool // the program names api.aio: its stubs include the aio forms
}

// CallRecord is one tool call a program made.
type CallRecord struct {
	Tool     string        // api.<service>.<py>, or the name the program used
	Status   Status        // ok, error, refused, invalid, wait
	Message  string        // why, when not ok
	Duration time.Duration // upstream time
}

// LimitError is a runtime limit (time, memory, calls) stopping a program
// where it cannot catch it.
type LimitError struct {
	Limit   string // "time", "memory", "calls"
	Message string // "LimitError: ..."
}

func (e *LimitError) Error() string { return e.Message }

// TypeCheckError is a program refused before it ran: the type checker's
// finding (Checker, as Monty words it) or an import the runtime cannot
// serve. Message is what the agent is shown, hints included.
type TypeCheckError struct {
	Message string
	Checker string
}

func (e *TypeCheckError) Error() string { return e.Message }

// WaitError is a program refused because its session waits (a job, an
// approval, a call's wait); Wait says what is awaited.
type WaitError struct {
	Wait    *JobWait
	Message string
}

func (e *WaitError) Error() string { return e.Message }

// ProgramError is a Python exception the program did not catch; Type is
// its class ("ValueError"), Message the traceback the agent is shown.
type ProgramError struct {
	Type    string
	Message string
}

func (e *ProgramError) Error() string { return e.Message }

// WorkerDiedError is the sandbox worker dying under a program; Message
// says which calls had completed.
type WorkerDiedError struct {
	Cause   error
	Message string
}

func (e *WorkerDiedError) Error() string { return e.Message }
func (e *WorkerDiedError) Unwrap() error { return e.Cause }

func (r *Result) setLimit(limit, message string) {
	r.Limit, r.Error, r.Err = limit, message, &LimitError{Limit: limit, Message: message}
}

// completedCalls tells the agent, after a worker death, which calls had
// completed (their effects happened), so it does not blindly repeat them.
func completedCalls(calls []CallRecord) string { return completedBefore(calls, "the worker died") }

// completedBefore is completedCalls for a program stopped by event.
func completedBefore(calls []CallRecord, event string) string {
	if len(calls) == 0 {
		return "No tool call was made before " + event + ", so nothing outside the sandbox changed."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d call%s completed before %s: ", len(calls), plural(len(calls)), event)
	for i, c := range calls {
		if i > 0 {
			b.WriteString(", ")
		}
		if i == 20 {
			fmt.Fprintf(&b, "and %d more", len(calls)-i)
			break
		}
		b.WriteString(c.Tool + " (" + string(c.Status) + ")")
	}
	b.WriteString("; check their effects before running the program again.")
	return b.String()
}

// deadline is a program's context from the moment its worker gets it: it
// ends at the time limit (the caller cancels it).
func (r *Runtime) deadline(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, r.limits.Time)
}

// cutText keeps at most max bytes of s, cut at a UTF-8 character
// boundary, and says how many bytes it dropped.
func cutText(s string, max int) (string, int) {
	if max <= 0 || len(s) <= max {
		return s, 0
	}
	n := utf8Prefix(s, max)
	return s[:n], len(s) - n
}

// utf8Prefix is the length of the longest prefix of s of at most n bytes
// that does not split a UTF-8 character.
func utf8Prefix[T string | []byte](s T, n int) int {
	if n >= len(s) {
		return len(s)
	}
	if n <= 0 {
		return 0
	}
	// Back off at most utf8.UTFMax-1 continuation bytes.
	for i := n; i > n-utf8.UTFMax && i > 0; i-- {
		if utf8.RuneStart(s[i]) {
			return i
		}
	}
	return n
}

// OK reports whether the program ran to its end.
func (r *Result) OK() bool { return r.Error == "" }

// Text renders the result for an agent: notes first, then the output, then
// the calls and any error (NotesText + OutputText + SummaryText).
func (r *Result) Text() string {
	return r.NotesText() + r.OutputText() + r.SummaryText()
}

// NotesText is the notes, one "NOTE: " line each, and a blank line; "" when
// there are none.
func (r *Result) NotesText() string {
	var b strings.Builder
	for _, n := range r.Notes {
		b.WriteString("NOTE: " + n + "\n")
	}
	if len(r.Notes) > 0 {
		b.WriteString("\n")
	}
	return b.String()
}

// OutputText is what the program printed, ending in a newline. A printed
// line that looks like the runtime's own notes (starting NOTE: or WAIT:,
// in any case) is prefixed "(printed) ", so a program cannot pass its
// output off as notes.
func (r *Result) OutputText() string {
	if r.Output == "" {
		return ""
	}
	var b strings.Builder
	for line := range strings.SplitAfterSeq(r.Output, "\n") {
		if looksLikeMarker(line) {
			b.WriteString(printedPrefix)
		}
		b.WriteString(line)
	}
	if !strings.HasSuffix(r.Output, "\n") {
		b.WriteString("\n")
	}
	return b.String()
}

const printedPrefix = "(printed) "

func looksLikeMarker(line string) bool {
	l := strings.ToUpper(strings.TrimLeft(line, " \t"))
	return strings.HasPrefix(l, "NOTE:") || strings.HasPrefix(l, "WAIT:")
}

// SummaryText is the output cut notice, the call count and the error.
func (r *Result) SummaryText() string {
	var b strings.Builder
	if r.Truncated {
		fmt.Fprintf(&b, "[output cut at the limit: %d more bytes were printed and not kept; print less]\n", r.Dropped)
	}
	failed := 0
	for _, c := range r.Calls {
		if c.Status.Failed() {
			failed++
		}
	}
	fmt.Fprintf(&b, "[%d tool call%s", len(r.Calls), plural(len(r.Calls)))
	if failed > 0 {
		fmt.Fprintf(&b, ", %d failed", failed)
	}
	b.WriteString("]\n")
	if r.Error != "" {
		b.WriteString("\n" + strings.TrimRight(r.Error, "\n") + "\n")
	}
	return b.String()
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Run runs one program for an agent session. The error is for failures of
// the runtime itself (no worker could start, the context ended before the
// program started); a program that fails returns a Result whose Error says
// why.
func (r *Runtime) Run(ctx context.Context, session, code string) (*Result, error) {
	start := time.Now()
	res := &Result{RunID: newRunID()}
	if r.cfg.Persistent {
		unlock := r.lockSession(session)
		defer unlock()
		// Replicas sharing the store run one program of a session at a
		// time too: its state is read before and saved after.
		release, err := r.leaseSession(session)
		if err != nil {
			res.Error = err.Error()
			return res, nil
		}
		defer release()
	}
	pw, over, err := r.pendingWait(session)
	if err != nil {
		// Fail closed: without the session's record, a wait it holds
		// cannot be honoured.
		res.Error = "run_code refused: the session's record could not be read, so nothing ran: " + firstLine(err.Error())
		return res, nil
	}
	if pw != nil {
		res.Error = waitRefusal(pw)
		res.Err = &WaitError{Wait: pw, Message: res.Error}
		res.Wait, res.WaitReason, res.WaitJobs, res.WaitDeadline, res.WaitID = true, "waiting for job "+strings.Join(pw.Jobs, ", "), pw.Jobs, pw.Deadline, pw.ID
		if len(pw.Jobs) == 0 {
			res.WaitTool, res.WaitReason, res.WaitCalls = pw.Tool, pw.Reason, pw.Calls
		}
		return res, nil
	}
	if over != "" {
		res.Notes = append(res.Notes, over)
	}
	if err := r.auditStart(session, code, res); err != nil {
		return nil, err
	}
	rewritten, err := rewriteImports(code, r.services)
	if err != nil {
		res.Error = err.Error()
		res.Err = &TypeCheckError{Message: res.Error}
		r.auditRun(session, res)
		return res, nil
	}
	used := r.servicesUsed(code)
	res.usesAio = strings.Contains(code, aioName)
	// A fresh worker has its inputs bound by preImport; a restored
	// persistent session gets them with the program.
	var inputs []monty.NamedValue
	if r.cfg.Persistent {
		inputs = r.apiInputs
	}
	// Programs running at once may together claim no more sandbox memory
	// than the budget: a program waits for room rather than overcommit.
	r.queued.Add(1)
	err = r.budget.Acquire(ctx, r.weight)
	r.queued.Add(-1)
	if err != nil {
		return nil, fmt.Errorf("no room in the sandbox memory budget before the run ended, nothing ran: %w", err)
	}
	defer r.budget.Release(r.weight)
	// The program's deadline, set when its worker gets it: the feed and
	// every call it makes (host work included) stop at the time limit.
	rctx, cancel := ctx, context.CancelFunc(func() {})
	defer func() { cancel() }()
	var (
		w   Interp
		h   *handler
		out *monty.Outcome
	)
	// A worker that dies before it has the program (while it is prepared,
	// or dead when the program is sent) has run nothing of it: it is
	// replaced, at most twice. Once the worker has the program, a dead
	// worker is reported, never silently run again.
	for attempt := 0; ; attempt++ {
		res.Attempts = attempt + 1
		if attempt == 0 && r.checksOutside() {
			// Checked before it takes a worker: a refused program takes none.
			if out, err = r.checkOutside(ctx, used, res.usesAio, rewritten); out != nil || err != nil {
				res.Attempts = 0
				h = &handler{r: r, ctx: ctx, session: session, res: res, maxOut: r.limits.Output, runID: res.RunID}
				break
			}
		}
		got := time.Now()
		var warmed bool
		w, warmed = r.warmWorker(used, res.usesAio)
		if !warmed {
			w, err = r.runner.Get(ctx)
		}
		res.Warmed = warmed
		res.HandOut += time.Since(got)
		if err != nil {
			return nil, r.auditAbort(session, res, fmt.Errorf("no sandbox worker available, nothing ran: %w", err))
		}
		// The worker serves no other program; tearing it down is not the
		// caller's wait.
		defer func(w Interp) { go w.Close() }(w)
		if !warmed {
			err = r.prepare(ctx, w, session, used, res)
		}
		if err != nil {
			if errors.Is(err, monty.ErrDead) && attempt < 2 && ctx.Err() == nil {
				continue
			}
			if se := (*stateReadError)(nil); errors.As(err, &se) {
				res.Error = se.Error()
				res.Err = se
				r.auditRun(session, res)
				return res, nil
			}
			return nil, r.auditAbort(session, res, err)
		}
		cancel()
		rctx, cancel = r.deadline(ctx)
		h = &handler{r: r, ctx: rctx, session: session, res: res, maxOut: r.limits.Output, runID: res.RunID}
		out, err = w.Feed(rctx, rewritten, inputs, h)
		h.settle()
		if errors.Is(err, monty.ErrNotStarted) && attempt < 2 && rctx.Err() == nil {
			continue
		}
		break
	}
	res.Output = h.out.String()
	// What help() printed reaches the agent with this result.
	for _, e := range h.helped {
		r.gate.ReadTool(session, e.svc.Name, e.tool.Wire)
	}
	res.Dropped = h.dropped
	res.Truncated = h.dropped > 0
	var ws *waitStop
	switch {
	case errors.As(h.abort, &ws):
		res.Wait, res.WaitReason, res.WaitJobs, res.WaitDeadline, res.WaitID = true, "waiting for job "+strings.Join(ws.wait.Jobs, ", "), ws.wait.Jobs, ws.wait.Deadline, ws.wait.ID
		res.Notes = append(res.Notes, fmt.Sprintf("WAIT: this session waits for job %s until it ends or until %s. End your turn now; a later run_code can read it with jobs.get().", strings.Join(ws.wait.Jobs, ", "), ws.wait.Deadline.Format(time.RFC3339)))
	case h.abort != nil:
		res.Err = h.abort
		res.Error = h.abort.Error()
		res.Limit = h.abortLimit
	case err != nil && ctx.Err() != nil && context.Cause(ctx) != nil && !errors.Is(context.Cause(ctx), context.Canceled):
		res.Error = "cut: " + context.Cause(ctx).Error() + "; the program was stopped. " + completedBefore(res.Calls, "it was stopped")
		res.Err = context.Cause(ctx)
	case err != nil && ctx.Err() != nil:
		res.Error = "cancelled: the run was cancelled; the program made no more calls"
		res.Err = ctx.Err()
	case err != nil && rctx.Err() != nil:
		res.setLimit(string(monty.LimitTime), limitMessage(&monty.Outcome{Limit: monty.LimitTime}, r.limits, h.waitedOn()))
	case errors.As(err, new(*checkerError)):
		res.Error = err.Error()
		res.Err = &TypeCheckError{Message: res.Error}
	case err != nil && errors.Is(err, monty.ErrMemoryLimit):
		res.setLimit(string(monty.LimitMemory), limitMessage(&monty.Outcome{Limit: monty.LimitMemory}, r.limits, ""))
	case err != nil:
		res.WorkerDied = true
		res.Error = "the sandbox worker died while running the program (" + err.Error() + "); it was replaced. " + completedCalls(res.Calls)
		res.Err = &WorkerDiedError{Cause: err, Message: res.Error}
	case out.TypingError != "":
		res.Error = "Type check failed, nothing ran:\n" + hintTyping(out.TypingError, code, r)
		res.Err = &TypeCheckError{Message: res.Error, Checker: out.TypingError}
	case out.Limit != "":
		res.setLimit(string(out.Limit), limitMessage(out, r.limits, h.waitedOn()))
	case out.Exception != nil:
		res.Error = formatException(out.Exception, r)
		res.Err = &ProgramError{Type: out.Exception.Type, Message: res.Error}
	}
	if res.Limit == string(monty.LimitTime) && r.hasJobs() {
		// A loop that polls or busy-waits for something cannot outlast the
		// limit: the fix is a job.
		res.Error += "\nHint: " + jobsHint + "."
	}
	res.Error, res.ErrorDropped = cutText(res.Error, r.limits.ErrorText)
	if res.ErrorDropped > 0 {
		res.Error += fmt.Sprintf("\n[error text cut at %d bytes: %d more bytes were not kept]", r.limits.ErrorText, res.ErrorDropped)
	}
	if (err == nil || ws != nil) && out != nil && out.Limit == "" && r.cfg.Persistent && (h.abort == nil || ws != nil) {
		if derr := r.saveState(w, session, code); derr != nil {
			res.Notes = append(res.Notes, "the session's state could not be saved: "+derr.Error())
		}
	}
	if r.cfg.Persistent && (res.WorkerDied || res.Limit == string(monty.LimitTime) || res.Limit == string(monty.LimitMemory)) {
		res.Notes = append(res.Notes, r.survived(session))
	}
	if res.WorkerDied || res.Limit == string(monty.LimitTime) || res.Limit == string(monty.LimitMemory) {
		if jobs := r.runningJobs(session); jobs != "" {
			res.Notes = append(res.Notes, jobs)
		}
	}
	res.Notes = append(res.Notes, h.notes...)
	res.Wait = res.Wait || h.waited
	if h.waited {
		res.WaitTool, res.WaitReason = h.waitTool, h.wait
		// The call's wait holds the session, like a job wait.
		res.WaitCalls = h.pending
		if w, err := r.recordWait(session, h.waitTool, h.wait, h.pending); err != nil {
			res.Notes = append(res.Notes, "the session's wait could not be recorded: "+err.Error())
		} else {
			res.WaitID, res.WaitDeadline = w.ID, w.Deadline
			res.Notes = append(res.Notes, waitNote(w))
		}
	}
	res.Duration = time.Since(start)
	r.auditRun(session, res)
	return res, nil
}

// waitNote tells the agent that its session now waits, and for a batch
// held for approval, which calls the approver sees.
func waitNote(w *JobWait) string {
	note := fmt.Sprintf("WAIT: this session waits (wait %s) until an approver resolves it or until %s; run_code is refused until then.", w.ID, w.Deadline.Format(time.RFC3339))
	if len(w.Calls) > 0 {
		lines := make([]string, len(w.Calls))
		for i, c := range w.Calls {
			lines[i] = c.String()
		}
		note += fmt.Sprintf(" Held for approval (%d): %s. Once approved, make these calls again with the same arguments: each goes through once.", len(w.Calls), strings.Join(lines, "; "))
	}
	return note
}

// stateReadError is a persistent session whose saved state the store could
// not read: the program is refused, and the state kept as it is.
type stateReadError struct{ err error }

func (e *stateReadError) Error() string {
	return "run_code refused: the session's saved state could not be read from the store, so nothing ran (the state is kept as it was): " + firstLine(e.err.Error())
}

func (e *stateReadError) Unwrap() error { return e.err }

// prepare configures a fresh worker (or restores a persistent session)
// and pre-imports json and re, unless the pool did it already.
func (r *Runtime) prepare(ctx context.Context, w Interp, session string, used []*manifest.Service, res *Result) error {
	if r.warm {
		return nil
	}
	if r.cfg.Persistent {
		state, note, err := r.loadState(session)
		if note != "" {
			res.Notes = append(res.Notes, note)
		}
		if err != nil {
			// The store could not be read: the state may be sound, so it is
			// neither replaced nor moved aside, and nothing runs.
			return &stateReadError{err}
		}
		if state != nil {
			err := w.Load(state)
			if err == nil {
				return nil
			}
			if errors.Is(err, monty.ErrDead) {
				return err // another worker tries again
			}
			// A state that cannot be restored is reported and kept aside.
			res.Notes = append(res.Notes, r.quarantine(session, err))
		}
	}
	stubs := ""
	if !r.cfg.NoTypeCheck {
		stubs = r.stubsFor(used, res.usesAio)
		// A persistent session is configured once, for every program it
		// will run: it knows every service, and the checker keeps what
		// earlier programs defined (across Dump and Load), so each
		// program is checked against the accumulated context.
		// (The checker sees earlier programs' names only when the stubs
		// have no __all__; json and re then come from the pre-import.)
		if r.cfg.Persistent {
			stubs = stubsAll.ReplaceAllString(r.stubs(r.services), "")
		}
	}
	if err := w.Configure(r.workerConfig(stubs)); err != nil {
		return fmt.Errorf("configuring the sandbox worker: %w", err)
	}
	return r.preImport(ctx, w)
}

func excText(e *monty.Exception) string {
	if e == nil {
		return ""
	}
	return e.Error()
}

// stubs assembles (and caches) the type-check stubs for a set of services.
func (r *Runtime) stubs(svcs []*manifest.Service) string { return r.stubsFor(svcs, true) }

// stubsFor is stubs, with the api.aio forms only when aio is set (they
// double the stubs, and checking cost grows with them).
func (r *Runtime) stubsFor(svcs []*manifest.Service, aio bool) string {
	var names []string
	for _, s := range svcs {
		names = append(names, string(s.Name))
	}
	key := strings.Join(names, ",") + fmt.Sprintf(" aio=%v", aio)
	if v, ok := r.stubCache.Load(key); ok {
		return v.(string)
	}
	s := manifest.AssembleStubs(svcs)
	if aio && r.hasAio() {
		s = withAio(s, svcs)
	}
	if r.hasJobs() {
		s = withJobs(s)
	}
	if r.hasHelpers() {
		s = withHelpers(s)
	}
	r.stubCache.Store(key, s)
	return s
}

var stubsAll = regexp.MustCompile(`(?m)^__all__ = \[[^\]\n]*\]\n`)

var apiRef = regexp.MustCompile(`\bapi\s*\.\s*(?:aio\s*\.\s*)?([A-Za-z_][A-Za-z0-9_]*)|\bfrom\s+api(?:\.aio)?\s+import\s+([^\n#]+)|\bfrom\s+api\.([A-Za-z_][A-Za-z0-9_]*)`)

// servicesUsed lists the services a program names, so only their stubs are
// type-checked (checking cost grows with the stubs). A program that names
// none (run_tool only) gets no service stubs.
func (r *Runtime) servicesUsed(code string) []*manifest.Service {
	named := map[string]bool{}
	for _, m := range apiRef.FindAllStringSubmatch(code, -1) {
		named[m[1]] = true
		named[m[3]] = true
		for _, part := range strings.Split(m[2], ",") {
			f := strings.Fields(strings.Trim(part, "() "))
			if len(f) > 0 {
				named[f[0]] = true
			}
		}
	}
	var out []*manifest.Service
	for _, s := range r.services {
		if named[string(s.Name)] {
			out = append(out, s)
		}
	}
	return out
}

// inputs binds api (every service, even ones the stubs leave out, so a
// misspelt service gets the runtime's own error) and run_tool.
func (r *Runtime) inputs() []monty.NamedValue {
	var attrs []monty.Attr
	for _, s := range r.services {
		var fns []monty.Attr
		for _, t := range s.Tools {
			fns = append(fns, monty.Attr{Name: string(t.Py), Value: monty.Function{Name: string(s.Name) + "." + string(t.Py)}})
		}
		attrs = append(attrs, monty.Attr{Name: string(s.Name), Value: monty.NewInstance("_svc_"+string(s.Name), fns...)})
	}
	if r.hasAio() {
		attrs = append(attrs, r.aioInput())
	}
	in := []monty.NamedValue{
		{Name: "api", Value: monty.NewInstance("_api", attrs...)},
		{Name: "run_tool", Value: monty.Function{Name: "run_tool"}},
	}
	if r.hasJobs() {
		in = append(in, r.jobsInput())
	}
	if r.hasHelpers() {
		in = append(in, helpersInput())
	}
	return in
}

// waitedOn names the call the time limit stopped while its request was
// out, with how long it had waited ("" when none): a slow upstream, not
// the program's own work, is then what to move into a job.
func (h *handler) waitedOn() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.cut == "" {
		return ""
	}
	return fmt.Sprintf("%s had waited %s for its upstream", h.cut, h.cutWaited.Round(time.Millisecond))
}

// ResetSession forgets a persistent session's state and its reads.
func (r *Runtime) ResetSession(session string) error {
	r.gate.Forget(session)
	if !r.cfg.Persistent {
		return nil
	}
	return r.removeState(session)
}

// limitMessage is the error of a program a limit stopped; during, for
// the time limit, the call it stopped while waiting for its upstream (see
// handler.waitedOn), "" when none.
func limitMessage(out *monty.Outcome, l Limits, during string) string {
	switch out.Limit {
	case monty.LimitTime:
		if during != "" {
			during = " while " + during
		}
		return fmt.Sprintf("LimitError: time limit (%s) exceeded%s; the program was stopped. Make fewer or smaller calls, or filter less data per program.", l.Time, during)
	case monty.LimitMemory:
		return fmt.Sprintf("LimitError: memory limit (%d MiB) exceeded; the program was stopped. Keep less data in variables.", l.Memory>>20)
	}
	return "LimitError: " + out.Exception.Error()
}
