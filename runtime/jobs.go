package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/runtime/monty"
	"github.com/codemode-dev/codemode/store"
)

// Jobs: long calls that outlive a program and its turn.
//
//	job = jobs.submit("build", api.ci.run_build, branch="main")  # starts at once
//	jobs.wait("build", wake_after=600)  # ends the program and the turn
//	# a later turn:
//	print(jobs.get("build")["result"])
//
// A job is one tool call made on the host, in the background, through
// every check a program's call passes (it is audited like a direct call),
// bounded by its max_runtime. jobs.wait records the session's pending
// wait: until the job ends or wake_after passes, the session's programs
// are refused with a message naming what is awaited. Jobs and waits live
// in the store (package store: SQLite beside the pack by default,
// PostgreSQL when replicas share the work) and are run by River on
// whichever replica takes them; a job that was running in a gateway that
// stopped is reported with state "unknown" and never run again, unless
// its tool is read-only or idempotent (then it runs again, at most
// MaxJobAttempts times in all).

// Job states.
const (
	JobRunning   = store.JobRunning
	JobDone      = store.JobDone
	JobFailed    = store.JobFailed
	JobCancelled = store.JobCancelled
	JobUnknown   = store.JobUnknown
)

// Job is one background job of a session (the store keeps it).
type Job = store.Job

// JobWait is a session's pending wait: on jobs (jobs.wait), or on a call
// (a policy hook's wait, an upstream's wait_meta result) that an approver
// resolves. ID names it for codemode jobs approve.
type JobWait struct {
	ID     string   `json:"id,omitempty"`
	Jobs   []string `json:"jobs,omitempty"`
	Tool   string   `json:"tool,omitempty"`   // a call wait: the call that waits
	Reason string   `json:"reason,omitempty"` // a call wait: why
	// Calls are the calls held for approval (the pack's approve rule), the
	// batch an approver approves or denies as one.
	Calls    []PendingCall `json:"calls,omitempty"`
	Since    time.Time     `json:"since,omitzero"`
	Deadline time.Time     `json:"deadline"`
}

// What says what the wait awaits, for messages.
func (w *JobWait) What() string {
	if len(w.Jobs) > 0 {
		return "job " + strings.Join(w.Jobs, ", ")
	}
	if len(w.Calls) > 0 {
		return fmt.Sprintf("approval of %d call%s (%s)", len(w.Calls), plural(len(w.Calls)), w.Calls[0].String()+map[bool]string{true: ", …", false: ""}[len(w.Calls) > 1])
	}
	return fmt.Sprintf("%s (%s)", w.Tool, w.Reason)
}

// SessionJobs is what the store keeps for one session: its jobs, and the
// session's record (its wait, how the last one was resolved, approvals),
// which the store keeps as JSON it does not read.
type SessionJobs struct {
	Jobs map[string]*Job `json:"jobs"`
	Wait *JobWait        `json:"wait,omitempty"`
	// Resolved is how the last wait was resolved by an approver, told to
	// the session's next program.
	Resolved string `json:"resolved,omitempty"`
	// Approved are the approved calls not yet made: each lets the same
	// call (tool and arguments) through once, until it expires.
	Approved []Approval `json:"approved,omitempty"`
}

// sessionRecord is SessionJobs without its jobs: the record the store keeps.
type sessionRecord struct {
	Wait     *JobWait   `json:"wait,omitempty"`
	Resolved string     `json:"resolved,omitempty"`
	Approved []Approval `json:"approved,omitempty"`
}

func fromStore(ss *store.Session) (*SessionJobs, error) {
	var rec sessionRecord
	if len(ss.Record) > 0 {
		if err := json.Unmarshal(ss.Record, &rec); err != nil {
			return nil, fmt.Errorf("the session's record in the store is corrupt: %v", err)
		}
	}
	return &SessionJobs{Jobs: ss.Jobs, Wait: rec.Wait, Resolved: rec.Resolved, Approved: rec.Approved}, nil
}

func toStore(sj *SessionJobs, ss *store.Session) error {
	b, err := json.Marshal(sessionRecord{Wait: sj.Wait, Resolved: sj.Resolved, Approved: sj.Approved})
	if err != nil {
		return err
	}
	ss.Jobs, ss.Record = sj.Jobs, b
	return nil
}

// LoadSession reads a session's jobs and record from st.
func LoadSession(ctx context.Context, st store.Store, session string) (*SessionJobs, error) {
	ss, err := st.Session(ctx, session)
	if err != nil {
		return nil, err
	}
	return fromStore(ss)
}

// UpdateSession changes a session's jobs and record in st under the
// session's lock (as codemode jobs approve does from outside a gateway).
func UpdateSession(ctx context.Context, st store.Store, session string, f func(*SessionJobs) error) error {
	return st.Update(ctx, session, func(ss *store.Session) error {
		sj, err := fromStore(ss)
		if err != nil {
			return err
		}
		if err := f(sj); err != nil {
			return err
		}
		return toStore(sj, ss)
	})
}

// DefaultWaitTimeout is how long a call wait (a policy hook's, an
// upstream's) holds the session when the pack sets no runtime.wait_timeout.
const DefaultWaitTimeout = time.Hour

// ErrNoWait is ApproveWait's error when the session has no pending wait.
var ErrNoWait = errors.New("no pending wait")

// ApproveWait resolves sj's pending wait (the one named id, or any when id
// is ""): the session's next program runs, told the wait was approved.
func ApproveWait(sj *SessionJobs, id string) (*JobWait, error) {
	w := sj.Wait
	if w == nil || (len(w.Jobs) == 0 && time.Now().After(w.Deadline)) {
		return nil, ErrNoWait
	}
	if id != "" && id != w.ID {
		return nil, fmt.Errorf("the pending wait is %s (%s), not %s", w.ID, w.What(), id)
	}
	sj.Wait = nil
	now := time.Now().UTC()
	sj.Resolved = fmt.Sprintf("the wait %s for %s was approved by an approver at %s; the session runs again", w.ID, w.What(), now.Format(time.RFC3339))
	if len(w.Calls) > 0 {
		// An approval lasts as long as the wait did: the agent's next turn
		// has that long to make the calls again.
		until := now.Add(max(w.Deadline.Sub(w.Since), time.Minute))
		lines := make([]string, len(w.Calls))
		for i, c := range w.Calls {
			sj.Approved = append(sj.Approved, Approval{Digest: c.Digest, Tool: c.Tool, Until: until})
			lines[i] = c.String()
		}
		sj.Resolved = fmt.Sprintf("the wait %s was approved by an approver at %s: make these calls again, with the same arguments, and each goes through once (until %s): %s", w.ID, now.Format(time.RFC3339), until.Format(time.RFC3339), strings.Join(lines, "; "))
	}
	return w, nil
}

// DenyWait resolves sj's pending wait (the one named id, or any when id is
// "") as denied: the session runs again, told its held calls were denied
// and why; nothing is approved.
func DenyWait(sj *SessionJobs, id, reason string) (*JobWait, error) {
	w := sj.Wait
	if w == nil || (len(w.Jobs) == 0 && time.Now().After(w.Deadline)) {
		return nil, ErrNoWait
	}
	if id != "" && id != w.ID {
		return nil, fmt.Errorf("the pending wait is %s (%s), not %s", w.ID, w.What(), id)
	}
	if len(w.Jobs) > 0 {
		return nil, fmt.Errorf("the pending wait %s is on job %s, which ends by itself; cancel the job instead", w.ID, strings.Join(w.Jobs, ", "))
	}
	sj.Wait = nil
	if reason == "" {
		reason = "no reason given"
	}
	sj.Resolved = fmt.Sprintf("the wait %s for %s was DENIED by an approver at %s (%s); its calls were not made and will not be approved", w.ID, w.What(), time.Now().UTC().Format(time.RFC3339), reason)
	return w, nil
}

// Approve resolves the pending wait of a session (the one named id, or
// any when id is ""), as codemode jobs approve does from outside.
func (r *Runtime) Approve(session, id string) (*JobWait, error) {
	var w *JobWait
	err := r.jobs.update(session, func(sj *SessionJobs) (err error) {
		w, err = ApproveWait(sj, id)
		return err
	})
	if errors.Is(err, ErrNoWait) {
		return nil, fmt.Errorf("session %q has no pending wait", session)
	}
	return w, err
}

// PendingWait is the session's pending wait, or nil.
func (r *Runtime) PendingWait(session string) *JobWait {
	sj, err := r.jobs.view(session)
	if err != nil {
		return nil
	}
	return sj.Wait
}

// recordWait makes a call's wait the session's pending wait.
func (r *Runtime) recordWait(session, tool, reason string, calls []PendingCall) (*JobWait, error) {
	now := time.Now().UTC().Truncate(time.Second)
	w := &JobWait{ID: "w-" + newRunID()[:8], Tool: tool, Reason: reason, Calls: calls, Since: now, Deadline: now.Add(r.waitTimeout())}
	err := r.jobs.update(session, func(sj *SessionJobs) error {
		sj.Wait, sj.Resolved = w, ""
		return nil
	})
	return w, err
}

func (r *Runtime) waitTimeout() time.Duration {
	if r.cfg.WaitTimeout > 0 {
		return r.cfg.WaitTimeout
	}
	return DefaultWaitTimeout
}

// DefaultMaxRuntime is a job's max_runtime when the program gives none;
// MaxMaxRuntime is the most it may ask.
const (
	DefaultMaxRuntime = 10 * time.Minute
	MaxMaxRuntime     = 24 * time.Hour
	// MaxRunningJobs is how many jobs one session may have running.
	MaxRunningJobs = 16
	// MaxJobAttempts is how many times a job whose tool is read-only or
	// idempotent may run when the replica running it dies.
	MaxJobAttempts = 3
)

// JobKind runs one kind of job: it returns the job's result, or an error
// that fails it. The job's max_runtime bounds ctx.
type JobKind func(ctx context.Context, r *Runtime, session string, j *Job) (any, error)

// jobKinds are the kinds of job the runtime runs, by Job.Kind. The store
// keeps a job's kind and Spec without reading them: a kind is added here,
// not there.
var jobKinds = map[string]JobKind{"call": callJob}

// jobState is the runtime's side of the jobs: the store, and the jobs
// this runtime runs.
type jobState struct {
	st  store.Store
	own bool // the runtime opened st, and closes it
	mu  sync.Mutex
	run map[string]context.CancelFunc // session, name, token → its cancel
	// closed is set when the runtime closes: a job ending after that
	// (its upstream closed under it) records nothing.
	closed atomic.Bool
	ttl    time.Duration // ended jobs are dropped after it
	// changed is the OnJobsChange hook, called after each saved change.
	changed atomic.Pointer[func(session string)]
}

// initJobs opens the store (Config.Store; else StateDir/state.db; else a
// temporary one) and starts working its queue.
func (r *Runtime) initJobs(ctx context.Context) error {
	js := &jobState{st: r.cfg.Store, run: map[string]context.CancelFunc{}, ttl: r.sessionTTL()}
	if js.st == nil {
		var err error
		if r.cfg.StateDir != "" {
			js.st, err = store.Open(ctx, filepath.Join(r.cfg.StateDir, StoreFile), store.Options{})
		} else {
			js.st, err = store.OpenTemp(ctx, store.Options{})
		}
		if err != nil {
			return fmt.Errorf("runtime: %w", err)
		}
		js.own = true
	}
	r.jobs = js
	if err := js.st.StartQueue(ctx, r.work); err != nil {
		if js.own {
			js.st.Close()
		}
		return fmt.Errorf("runtime: %w", err)
	}
	return nil
}

// StoreFile is the SQLite store's name in a state directory.
const StoreFile = "state.db"

// Store is the runtime's store.
func (r *Runtime) Store() store.Store { return r.jobs.st }

// hasJobs says programs get the jobs object: not when a service is named
// jobs (the service wins).
func (r *Runtime) hasJobs() bool {
	for _, s := range r.services {
		if string(s.Name) == "jobs" {
			return false
		}
	}
	return true
}

func (r *Runtime) jobsInput() monty.NamedValue {
	var fns []monty.Attr
	for _, f := range []string{"submit", "get", "list", "cancel", "wait"} {
		fns = append(fns, monty.Attr{Name: f, Value: monty.Function{Name: "jobs." + f}})
	}
	return monty.NamedValue{Name: "jobs", Value: monty.NewInstance("_jobs", fns...)}
}

// jobsStub declares jobs for the type checker.
const jobsStub = `

import builtins


class _jobs:
    def submit(self, name: str, tool: Any, /, *, max_runtime: float | None = None, **arguments: Any) -> dict[str, Any]: ...
    def get(self, name: str) -> dict[str, Any]: ...
    def cancel(self, name: str) -> dict[str, Any]: ...
    def wait(self, name: str | None = None, *, wake_after: float) -> None: ...
    def list(self) -> builtins.list[dict[str, Any]]: ...


jobs: _jobs
`

// withJobs adds jobs to assembled stubs (and to their __all__).
func withJobs(stubs string) string {
	stubs = strings.Replace(stubs, `__all__ = [`, `__all__ = ["jobs", `, 1)
	return stubs + jobsStub
}

// LostJob is the error of a job whose gateway stopped while it ran and
// that may not run again.
const LostJob = "the gateway that ran this job stopped before the job ended: its outcome is unknown, and it was not run again; check its effects before submitting it again"

// Lost reports a running job whose gateway is gone and that may not run
// again (it had started, and its tool may not run twice or it used up its
// attempts): its outcome is unknown.
func Lost(j *Job) bool {
	return j.State == JobRunning && j.OwnerGone && j.Attempt > 0 && !(j.Retry && j.Attempt < MaxJobAttempts)
}

// update changes a session's jobs under the store's lock, first settling
// the jobs of replicas that are gone: a job that never started is queued
// again, one whose tool may run again (read-only, idempotent) too, up to
// MaxJobAttempts; any other is reported unknown and never run again. What
// must reach the queue is done once the change is committed.
func (js *jobState) update(session string, f func(sj *SessionJobs) error) error {
	var requeue []*Job
	var cancel []int64
	ctx, stop := context.WithTimeout(context.Background(), storeTimeout)
	defer stop()
	err := UpdateSession(ctx, js.st, session, func(sj *SessionJobs) error {
		requeue, cancel = nil, nil
		for n, j := range sj.Jobs {
			// Ended jobs are kept for the session TTL.
			if j.State != JobRunning && !j.Ended.IsZero() && time.Since(j.Ended) > js.ttl {
				delete(sj.Jobs, n)
				continue
			}
			if j.State != JobRunning {
				continue
			}
			overdue := time.Since(j.Started) > time.Duration(j.MaxRuntime*float64(time.Second))+jobGrace
			switch {
			case j.OwnerGone && !Lost(j):
				cancel = append(cancel, j.QueueID)
				j.Owner, j.Token, j.QueueID = js.st.Replica(), newRunID(), 0
				cp := *j
				requeue = append(requeue, &cp)
			case j.OwnerGone:
				cancel = append(cancel, j.QueueID)
				j.State, j.Ended, j.Error = JobUnknown, time.Now().UTC(), LostJob
			case overdue && j.Attempt == 0:
				cancel = append(cancel, j.QueueID)
				j.State, j.Ended = JobFailed, time.Now().UTC()
				j.Error = fmt.Sprintf("the job did not start within its max_runtime (%s), and was not run", time.Duration(j.MaxRuntime*float64(time.Second)))
			case overdue:
				cancel = append(cancel, j.QueueID)
				j.State, j.Ended = JobUnknown, time.Now().UTC()
				j.Error = fmt.Sprintf("the job did not end within its max_runtime (%s): its outcome is unknown, and it was not run again; check its effects before submitting it again", time.Duration(j.MaxRuntime*float64(time.Second)))
			}
		}
		if f == nil {
			return nil
		}
		return f(sj)
	})
	if err != nil {
		return err
	}
	for _, id := range cancel {
		_ = js.st.CancelQueued(ctx, id)
	}
	for _, j := range requeue {
		js.enqueue(session, j)
	}
	js.notifyChanged(session)
	return nil
}

// storeTimeout bounds one change of the store; jobGrace is how long past
// its max_runtime a job may take to report.
const (
	storeTimeout = 30 * time.Second
	jobGrace     = time.Minute
)

// quiet says the session has no jobs and an empty record (no wait, no
// approvals): nothing to settle, which one read tells without a write.
func (js *jobState) quiet(session string) (bool, error) {
	ctx, stop := context.WithTimeout(context.Background(), storeTimeout)
	defer stop()
	ss, err := js.st.Session(ctx, session)
	if err != nil {
		return false, err
	}
	rec := strings.TrimSpace(string(ss.Record))
	return len(ss.Jobs) == 0 && (rec == "" || rec == "{}"), nil
}

// view is a session's jobs, settled as update settles them: a read, and
// a write only when something is to be settled.
func (js *jobState) view(session string) (*SessionJobs, error) {
	sj, err := js.read(session)
	if err != nil || !js.unsettled(sj) {
		return sj, err
	}
	var out *SessionJobs
	err = js.update(session, func(sj *SessionJobs) error {
		out = sj
		return nil
	})
	return out, err
}

// read is a session's jobs and record as stored, read without the write
// lock.
func (js *jobState) read(session string) (*SessionJobs, error) {
	ctx, stop := context.WithTimeout(context.Background(), storeTimeout)
	defer stop()
	return LoadSession(ctx, js.st, session)
}

// unsettled says update would change one of sj's jobs: one ended past the
// TTL, or running on a replica that is gone or past its max_runtime.
func (js *jobState) unsettled(sj *SessionJobs) bool {
	for _, j := range sj.Jobs {
		if j.State != JobRunning {
			if !j.Ended.IsZero() && time.Since(j.Ended) > js.ttl {
				return true
			}
			continue
		}
		if j.OwnerGone || time.Since(j.Started) > time.Duration(j.MaxRuntime*float64(time.Second))+jobGrace {
			return true
		}
	}
	return false
}

// enqueue puts a job on the queue; a job that cannot be queued fails.
func (js *jobState) enqueue(session string, j *Job) {
	ctx, stop := context.WithTimeout(context.Background(), storeTimeout)
	defer stop()
	attempts := 1
	if j.Retry {
		attempts = MaxJobAttempts
	}
	id, err := js.st.Enqueue(ctx, store.JobRef{Session: session, Name: j.Name, Token: j.Token}, store.EnqueueOptions{
		MaxAttempts: attempts, Timeout: time.Duration(j.MaxRuntime*float64(time.Second)) + jobGrace,
	})
	_ = js.update(session, func(sj *SessionJobs) error {
		cur := sj.Jobs[j.Name]
		if cur == nil || cur.Token != j.Token || cur.State != JobRunning {
			return nil
		}
		if err != nil {
			cur.State, cur.Ended, cur.Error = JobFailed, time.Now().UTC(), "the job could not be queued: "+err.Error()
			return nil
		}
		cur.QueueID = id
		return nil
	})
}

// work runs one queued job (River's worker calls it, on whichever replica
// takes the job): it claims the job, runs its kind, and records how it
// ended.
func (r *Runtime) work(ctx context.Context, ref store.JobRef) error {
	js := r.jobs
	if js.closed.Load() {
		return nil // the next replica to read the job queues it again
	}
	var j *Job
	err := js.update(ref.Session, func(sj *SessionJobs) error {
		cur := sj.Jobs[ref.Name]
		if cur == nil || cur.Token != ref.Token || cur.State != JobRunning {
			return nil // cancelled, replaced, or queued again elsewhere
		}
		if cur.Attempt > 0 && !cur.Retry {
			cur.State, cur.Ended, cur.Error = JobUnknown, time.Now().UTC(), LostJob
			return nil
		}
		cur.Attempt++
		cur.Owner = js.st.Replica()
		cp := *cur
		j = &cp
		return nil
	})
	if err != nil || j == nil {
		return err
	}
	kind := jobKinds[j.Kind]
	maxRuntime := time.Duration(j.MaxRuntime * float64(time.Second))
	jctx, cancel := context.WithTimeout(ctx, maxRuntime)
	defer cancel()
	key := ref.Session + "\x00" + ref.Name + "\x00" + ref.Token
	js.mu.Lock()
	js.run[key] = cancel
	js.mu.Unlock()
	defer func() {
		js.mu.Lock()
		delete(js.run, key)
		js.mu.Unlock()
	}()
	var res any
	if kind == nil {
		err = fmt.Errorf("this runtime does not know jobs of kind %q", j.Kind)
	} else {
		res, err = kind(jctx, r, ref.Session, j)
	}
	ended := time.Now().UTC()
	record := func(sj *SessionJobs) error {
		cur, ok := sj.Jobs[j.Name]
		if !ok || cur.Token != j.Token || cur.State != JobRunning || cur.Owner != js.st.Replica() {
			return nil // cancelled, or replaced
		}
		cur.Ended = ended
		switch {
		case errors.Is(jctx.Err(), context.DeadlineExceeded):
			cur.State, cur.Error = JobFailed, fmt.Sprintf("the job ran longer than its max_runtime (%s) and was stopped", maxRuntime)
		case err != nil:
			cur.State, cur.Error = JobFailed, err.Error()
		default:
			cur.State, cur.Result = JobDone, res
		}
		return nil
	}
	// The outcome is known here only: while the store cannot be reached
	// (a PostgreSQL restart, a network cut) it is tried again, until its
	// job's grace runs out.
	wait := 100 * time.Millisecond
	for give := time.Now().Add(jobGrace); ; {
		if js.closed.Load() {
			return nil
		}
		uerr := js.update(ref.Session, record)
		if uerr == nil || time.Now().After(give) {
			return uerr
		}
		time.Sleep(wait)
		wait = min(2*wait, 5*time.Second)
	}
}

// callJob runs a "call" job: one tool call through every check a
// program's call passes, audited under the run that submitted it.
func callJob(ctx context.Context, r *Runtime, session string, j *Job) (any, error) {
	if d, ok := j.Spec["approved"].(string); ok && d != "" {
		ctx = context.WithValue(ctx, approvedKey{}, d)
	}
	res, err := r.call(ctx, session, j.RunID, j.Name, max(j.Call-1, 0), j.Tool, j.Args)
	switch {
	case err != nil:
		return nil, err
	case res.Status == StatusOK:
		return res.Value, nil
	}
	return nil, errors.New(string(res.Status) + ": " + res.Message)
}

// jobView is what a program sees of a job.
func jobView(j *Job) map[string]any {
	v := map[string]any{"name": j.Name, "tool": j.Tool, "state": j.State, "started": j.Started.Format(time.RFC3339)}
	if j.State == JobDone {
		v["result"] = j.Result
	}
	if j.Error != "" {
		v["error"] = j.Error
	}
	if !j.Ended.IsZero() {
		v["ended"] = j.Ended.Format(time.RFC3339)
	}
	return v
}

func jobReply(v any) monty.Reply {
	mv, err := monty.FromJSON(v)
	if err != nil {
		return monty.Raise("RuntimeError", err.Error())
	}
	return monty.Return(mv)
}

// waitStop stops a program at jobs.wait: the wait is the turn's last act.
type waitStop struct{ wait *JobWait }

func (w *waitStop) Error() string {
	return fmt.Sprintf("WAIT: the program ended at jobs.wait: waiting for job %s until %s", strings.Join(w.wait.Jobs, ", "), w.wait.Deadline.Format(time.RFC3339))
}

// jobsCall answers jobs.<f>(...).
func (h *handler) jobsCall(c *monty.Call, f string) (monty.Reply, error) {
	r, session := h.r, h.session
	str := func(i int, kw string) (string, bool) {
		var v monty.Value
		if i < len(c.Args) {
			v = c.Args[i]
		} else if kv, ok := c.Kwarg(kw); ok {
			v = kv
		}
		s, ok := v.(string)
		return s, ok
	}
	switch f {
	case "submit":
		return h.submit(c)
	case "get", "cancel":
		name, ok := str(0, "name")
		if !ok {
			return monty.Raise("TypeError", fmt.Sprintf("jobs.%s() needs the job's name: jobs.%s(\"name\")", f, f)), nil
		}
		var view map[string]any
		var stopped *Job
		missing := false
		err := r.jobs.update(session, func(sj *SessionJobs) error {
			j, ok := sj.Jobs[name]
			if !ok {
				missing = true
				return fmt.Errorf("there is no job named %q in this session; jobs.list() lists them", name)
			}
			if f == "cancel" && j.State == JobRunning {
				j.State, j.Ended, j.Error = JobCancelled, time.Now().UTC(), "cancelled by the program"
				cp := *j
				stopped = &cp
			}
			view = jobView(j)
			return nil
		})
		if err != nil && missing {
			return monty.Raise("KeyError", err.Error()), nil
		}
		if err != nil {
			return monty.Raise("RuntimeError", fmt.Sprintf("jobs.%s(): %v", f, err)), nil
		}
		if stopped != nil {
			r.jobs.stop(session, stopped)
		}
		return jobReply(view), nil
	case "list":
		sj, err := r.jobs.view(session)
		if err != nil {
			return monty.Raise("RuntimeError", "jobs.list(): "+err.Error()), nil
		}
		names := make([]string, 0, len(sj.Jobs))
		for n := range sj.Jobs {
			names = append(names, n)
		}
		slices.Sort(names)
		var out []any
		for _, n := range names {
			out = append(out, jobView(sj.Jobs[n]))
		}
		return jobReply(out), nil
	case "wait":
		name, named := str(0, "name")
		wa, _ := c.Kwarg("wake_after")
		secs, ok := number(wa)
		if !ok || secs <= 0 {
			return monty.Raise("TypeError", "jobs.wait() needs wake_after, the most seconds to wait: jobs.wait(\"name\", wake_after=600)"), nil
		}
		w := &JobWait{ID: "w-" + newRunID()[:8], Deadline: time.Now().UTC().Add(time.Duration(secs * float64(time.Second))).Truncate(time.Second)}
		err := r.jobs.update(session, func(sj *SessionJobs) error {
			for n, j := range sj.Jobs {
				if (named && n == name) || (!named && j.State == JobRunning) {
					w.Jobs = append(w.Jobs, n)
				}
			}
			if named && len(w.Jobs) == 0 {
				return fmt.Errorf("there is no job named %q in this session; jobs.list() lists them", name)
			}
			slices.Sort(w.Jobs)
			if len(w.Jobs) > 0 {
				sj.Wait, sj.Resolved = w, ""
			}
			return nil
		})
		if err != nil {
			return monty.Raise("KeyError", err.Error()), nil
		}
		if len(w.Jobs) == 0 {
			return monty.Return(nil), nil // nothing runs: nothing to wait for
		}
		h.abort = &waitStop{wait: w}
		return monty.Reply{}, h.abort
	}
	return monty.NotFound(c.Name), nil
}

func number(v monty.Value) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

// submit starts jobs.submit(name, tool, **arguments): the tool is an
// api.<svc>.<tool> function or a name run_tool accepts; the arguments are
// bound now, and the call is made in the background.
func (h *handler) submit(c *monty.Call) (monty.Reply, error) {
	r := h.r
	const usage = `jobs.submit("name", api.<service>.<tool>, arg=value, ...)`
	if len(c.Args) != 2 {
		return monty.Raise("TypeError", "jobs.submit() takes a job name and a tool: "+usage), nil
	}
	name, ok := c.Args[0].(string)
	if !ok || strings.TrimSpace(name) == "" || len(name) > 100 {
		return monty.Raise("TypeError", "jobs.submit(): the job name must be a non-empty string of at most 100 characters: "+usage), nil
	}
	var e *toolEntry
	switch t := c.Args[1].(type) {
	case monty.Function:
		svc, tool, _ := strings.Cut(strings.TrimPrefix(t.Name, aioName+"."), ".")
		e = r.tools[toolKey{ir.ServiceName(svc), tool}]
	case string:
		e, _ = r.lookupTool(t)
	}
	if e == nil {
		return monty.Raise("TypeError", "jobs.submit(): the tool must be a tool, as api.<service>.<tool> (not called): "+usage), nil
	}
	maxRuntime := DefaultMaxRuntime
	var kwargs []monty.Kwarg
	for _, k := range c.Kwargs {
		if k.Name == "max_runtime" {
			secs, ok := number(k.Value)
			if !ok || secs <= 0 || time.Duration(secs*float64(time.Second)) > MaxMaxRuntime {
				return monty.Raise("ValueError", fmt.Sprintf("jobs.submit(): max_runtime is seconds, more than 0 and at most %d", int(MaxMaxRuntime.Seconds()))), nil
			}
			maxRuntime = time.Duration(secs * float64(time.Second))
			continue
		}
		kwargs = append(kwargs, k)
	}
	args, err := bind(e, &monty.Call{Name: c.Name, Kwargs: kwargs})
	if err != nil {
		return monty.Raise("TypeError", err.Error()), nil
	}
	if err := r.gate.Check(h.session, e.svc.Name, e.tool.Wire); err != nil {
		return monty.Raise("PermissionError", fmt.Sprintf("%s was refused: %v", e.call(), err)), nil
	}
	// The pack's policy is applied when the job is submitted, so that a
	// call held for approval holds this program and its session, not a
	// job in the background.
	approved := ""
	id := ir.ToolID{Service: e.svc.Name, Wire: e.tool.Wire}
	if rule, ok := r.cfg.Rules[id]; ok {
		if h.waited && !(h.batch && rule.Approve) {
			return monty.Raise("RuntimeError", fmt.Sprintf("jobs.submit(%q) was not started: an earlier call in this program is waiting (%s). End your turn now.", name, h.wait)), nil
		}
		if rule.Deny != "" {
			return monty.Raise("PermissionError", fmt.Sprintf("%s was refused by the pack's policy: %s", e.call(), rule.Deny)), nil
		}
		if why := rule.allowed(e.call(), e.tool, args); why != "" {
			return monty.Raise("PermissionError", why), nil
		}
		if rule.Approve {
			digest := callDigest(id, args)
			ok := false
			if !h.batch {
				if ok, err = r.takeApproval(h.session, digest); err != nil {
					return monty.Raise("RuntimeError", fmt.Sprintf("jobs.submit(%q) was not started: its approval could not be checked: %v", name, err)), nil
				}
			}
			if !ok {
				out := h.holdForApproval(e, args, digest)
				v, _ := monty.FromJSON(out.value)
				return monty.Return(v), nil
			}
			approved = digest
		}
	}
	// The job's call is audited as a call of this run: it takes its number
	// now.
	h.seq++
	a := e.tool.Annotations
	retry := a.ReadOnly || a.Idempotent || (e.tool.HTTP != nil && (e.tool.HTTP.Method == "GET" || e.tool.HTTP.Method == "HEAD"))
	j := &Job{
		Name: name, Kind: "call", Tool: e.call(), Args: args, State: JobRunning, Started: time.Now().UTC(), MaxRuntime: maxRuntime.Seconds(),
		Owner: r.jobs.st.Replica(), RunID: h.runID, Call: h.seq, Token: newRunID(), Retry: retry,
	}
	if approved != "" {
		// The job's call goes through the approve rule on the approval its
		// submit consumed, on whichever replica runs it.
		j.Spec = map[string]any{"approved": approved}
	}
	refused := false
	err = r.jobs.update(h.session, func(sj *SessionJobs) error {
		refused = true
		if old, ok := sj.Jobs[name]; ok && old.State == JobRunning {
			return fmt.Errorf("a job named %q is still running in this session; pick another name or jobs.cancel(%q)", name, name)
		}
		running := 0
		for _, j := range sj.Jobs {
			if j.State == JobRunning {
				running++
			}
		}
		if running >= MaxRunningJobs {
			return fmt.Errorf("this session has %d jobs running, the most it may; wait for one to end (jobs.wait) or cancel one", running)
		}
		sj.Jobs[name] = j
		refused = false
		return nil
	})
	if err != nil && !refused {
		return monty.Raise("RuntimeError", fmt.Sprintf("jobs.submit(%q) was not started: the session's record could not be written: %s", name, firstLine(err.Error()))), nil
	}
	if err != nil {
		return monty.Raise("ValueError", "jobs.submit(): "+err.Error()), nil
	}
	r.jobs.enqueue(h.session, j)
	return jobReply(jobView(j)), nil
}

// stop stops a cancelled job: here if this runtime runs it, else through
// the queue (the replica running it is told).
func (js *jobState) stop(session string, j *Job) {
	js.mu.Lock()
	cancel := js.run[session+"\x00"+j.Name+"\x00"+j.Token]
	js.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	ctx, done := context.WithTimeout(context.Background(), storeTimeout)
	defer done()
	_ = js.st.CancelQueued(ctx, j.QueueID)
}

// pendingWait is the session's wait while it holds: nil when there is none
// or it is over (then it is cleared, and over says how it ended).
func (r *Runtime) pendingWait(session string) (w *JobWait, over string, err error) {
	if quiet, err := r.jobs.quiet(session); err != nil || quiet {
		return nil, "", err
	}
	// Read first: a session with nothing to settle, clear or report (no
	// wait, or one that still holds) needs no write.
	sj, err := r.jobs.read(session)
	if err != nil {
		return nil, "", err
	}
	if !r.jobs.unsettled(sj) && sj.Resolved == "" && (sj.Wait == nil || waitHolds(sj)) {
		return sj.Wait, "", nil
	}
	err = r.jobs.update(session, func(sj *SessionJobs) error {
		if sj.Wait == nil {
			over, sj.Resolved = sj.Resolved, ""
			return nil
		}
		held := waitHeld(sj)
		if held && time.Now().Before(sj.Wait.Deadline) {
			w = sj.Wait
			return nil
		}
		names := strings.Join(sj.Wait.Jobs, ", ")
		switch {
		case len(sj.Wait.Jobs) == 0:
			over = fmt.Sprintf("the wait %s for %s reached its deadline without an approval; the session runs again, but the call was not approved", sj.Wait.ID, sj.Wait.What())
		case held:
			over = fmt.Sprintf("the wait for job %s reached its deadline; the job is still running: jobs.get() shows its state", names)
		default:
			over = fmt.Sprintf("the wait for job %s is over: the job ended; jobs.get() returns its state and result", names)
		}
		sj.Wait = nil
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	return w, over, nil
}

// waitHeld says sj's wait is still held by what it waits for: a call wait
// until it is approved, a job wait while one of its jobs runs.
func waitHeld(sj *SessionJobs) bool {
	held := len(sj.Wait.Jobs) == 0
	for _, n := range sj.Wait.Jobs {
		if j, ok := sj.Jobs[n]; ok && j.State == JobRunning {
			held = true
		}
	}
	return held
}

// waitHolds says sj's wait holds the session now: held, and before its
// deadline.
func waitHolds(sj *SessionJobs) bool {
	return waitHeld(sj) && time.Now().Before(sj.Wait.Deadline)
}

// waitRefusal is the refusal of a program while its session waits.
func waitRefusal(w *JobWait) string {
	if len(w.Jobs) == 0 {
		return fmt.Sprintf("run_code refused: this session is waiting for %s, wait %s (until an approver resolves it, or until %s). End your turn now; call run_code again when the wait is resolved or the deadline has passed.", w.What(), w.ID, w.Deadline.Format(time.RFC3339))
	}
	return fmt.Sprintf("run_code refused: this session is waiting for job %s (until it ends, or until %s). End your turn now; call run_code again when the job has ended or the deadline has passed.", strings.Join(w.Jobs, ", "), w.Deadline.Format(time.RFC3339))
}

// runningJobs says which of the session's jobs still run, for a death
// notice ("" when none).
func (r *Runtime) runningJobs(session string) string {
	sj, err := r.jobs.view(session)
	if err != nil {
		return ""
	}
	var names []string
	for n, j := range sj.Jobs {
		if j.State == JobRunning {
			names = append(names, n+" ("+j.Tool+")")
		}
	}
	if len(names) == 0 {
		return ""
	}
	slices.Sort(names)
	return "Jobs of this session still running (they were not affected): " + strings.Join(names, ", ") + "; jobs.get(name) shows them."
}
