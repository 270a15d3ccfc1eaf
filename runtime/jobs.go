package runtime

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/runtime/monty"
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
// in a JobStore (a file per session beside the persistent state by
// default); a job that was running in a gateway that stopped is reported
// with state "unknown" and never run again.

// Job states.
const (
	JobRunning   = "running"
	JobDone      = "done"
	JobFailed    = "failed"
	JobCancelled = "cancelled"
	JobUnknown   = "unknown"
)

// Job is one background job of a session.
type Job struct {
	Name string `json:"name"`
	// Kind says what the job runs: "call" (one tool call, Tool with
	// Args). Another kind adds its own fields to Spec, not to the store.
	Kind       string         `json:"kind"`
	Tool       string         `json:"tool"`
	Args       map[string]any `json:"args,omitempty"`
	Spec       map[string]any `json:"spec,omitempty"`
	State      string         `json:"state"`
	Result     any            `json:"result,omitempty"`
	Error      string         `json:"error,omitempty"`
	Started    time.Time      `json:"started"`
	Ended      time.Time      `json:"ended,omitzero"`
	MaxRuntime float64        `json:"max_runtime"` // seconds
	// Owner is the runtime that runs it; a running job whose owner is gone
	// has an unknown outcome.
	Owner string `json:"owner"`
	// approved is the digest of the approval its submit consumed: the
	// job's call goes through the approve rule on it.
	approved string
}

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

// SessionJobs is what a JobStore keeps for one session.
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
	w, _ := r.peekWait(session)
	return w
}

func (r *Runtime) peekWait(session string) (*JobWait, error) {
	r.jobs.mu.Lock()
	defer r.jobs.mu.Unlock()
	sj, err := r.jobs.load(session)
	if err != nil || sj.Wait == nil {
		return nil, err
	}
	return sj.Wait, nil
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

// JobStore keeps each session's jobs and wait. Load returns an empty
// SessionJobs for a session it has nothing for.
type JobStore interface {
	Load(session string) (*SessionJobs, error)
	Save(session string, sj *SessionJobs) error
}

// FileJobStore keeps one JSON file per session in a directory.
type FileJobStore struct {
	Dir string
}

func (s FileJobStore) path(session string) string {
	sum := sha256.Sum256([]byte(session))
	return filepath.Join(s.Dir, hex.EncodeToString(sum[:16])+".jobs.json")
}

// Load implements JobStore.
func (s FileJobStore) Load(session string) (*SessionJobs, error) {
	b, err := os.ReadFile(s.path(session))
	if errors.Is(err, os.ErrNotExist) {
		return &SessionJobs{Jobs: map[string]*Job{}}, nil
	}
	if err != nil {
		return nil, err
	}
	sj := &SessionJobs{}
	if err := json.Unmarshal(b, sj); err != nil {
		return nil, fmt.Errorf("the job store file %s is corrupt: %v", filepath.Base(s.path(session)), err)
	}
	if sj.Jobs == nil {
		sj.Jobs = map[string]*Job{}
	}
	return sj, nil
}

// Lock holds the session's file lock (shared by every process using the
// directory, as codemode jobs approve and the gateway) until unlock.
func (s FileJobStore) Lock(session string) (unlock func(), err error) {
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(s.path(session)+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}

// Update loads, changes and saves a session's jobs under its file lock.
func (s FileJobStore) Update(session string, f func(sj *SessionJobs) error) error {
	unlock, err := s.Lock(session)
	if err != nil {
		return err
	}
	defer unlock()
	sj, err := s.Load(session)
	if err != nil {
		return err
	}
	if err := f(sj); err != nil {
		return err
	}
	return s.Save(session, sj)
}

// Save implements JobStore.
func (s FileJobStore) Save(session string, sj *SessionJobs) error {
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return err
	}
	b, err := json.Marshal(sj)
	if err != nil {
		return err
	}
	tmp := s.path(session) + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, s.path(session))
}

// memJobStore is the store of a runtime without a state directory.
type memJobStore struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (s *memJobStore) Load(session string) (*SessionJobs, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sj := &SessionJobs{Jobs: map[string]*Job{}}
	if b, ok := s.m[session]; ok {
		_ = json.Unmarshal(b, sj)
	}
	return sj, nil
}

func (s *memJobStore) Save(session string, sj *SessionJobs) error {
	b, err := json.Marshal(sj)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string][]byte{}
	}
	s.m[session] = b
	return nil
}

// DefaultMaxRuntime is a job's max_runtime when the program gives none;
// MaxMaxRuntime is the most it may ask.
const (
	DefaultMaxRuntime = 10 * time.Minute
	MaxMaxRuntime     = 24 * time.Hour
	// MaxRunningJobs is how many jobs one session may have running.
	MaxRunningJobs = 16
)

// jobState is the runtime's side of the jobs: the store and the jobs this
// runtime runs.
type jobState struct {
	store JobStore
	owner string
	mu    sync.Mutex // guards every Load-change-Save of the store
	run   map[string]context.CancelFunc
	wg    sync.WaitGroup
	// closed is set when the runtime closes: a job ending after that
	// (its upstream closed under it) records nothing.
	closed atomic.Bool
	ttl    time.Duration // ended jobs are dropped after it
}

func (r *Runtime) initJobs() {
	st := r.cfg.Jobs
	if st == nil && r.cfg.StateDir != "" {
		st = FileJobStore{Dir: filepath.Join(r.cfg.StateDir, "jobs")}
	}
	if st == nil {
		st = &memJobStore{}
	}
	r.jobs = &jobState{store: st, owner: newRunID(), run: map[string]context.CancelFunc{}, ttl: r.sessionTTL()}
}

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

// session loads (under mu) a session's jobs, marking as unknown the
// running jobs of a runtime that is gone.
func (js *jobState) load(session string) (*SessionJobs, error) {
	sj, err := js.store.Load(session)
	if err != nil {
		return nil, err
	}
	for n, j := range sj.Jobs {
		// Ended jobs are kept for the session TTL.
		if j.State != JobRunning && !j.Ended.IsZero() && time.Since(j.Ended) > js.ttl {
			delete(sj.Jobs, n)
			continue
		}
		if j.State == JobRunning && j.Owner != js.owner {
			j.State, j.Ended = JobUnknown, time.Now().UTC()
			j.Error = "the gateway that ran this job stopped before the job ended: its outcome is unknown, and it was not run again; check its effects before submitting it again"
		}
	}
	return sj, nil
}

func (js *jobState) update(session string, f func(sj *SessionJobs) error) error {
	js.mu.Lock()
	defer js.mu.Unlock()
	if l, ok := js.store.(interface {
		Lock(session string) (func(), error)
	}); ok {
		unlock, err := l.Lock(session)
		if err != nil {
			return err
		}
		defer unlock()
	}
	sj, err := js.load(session)
	if err != nil {
		return err
	}
	if err := f(sj); err != nil {
		return err
	}
	return js.store.Save(session, sj)
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
		err := r.jobs.update(session, func(sj *SessionJobs) error {
			j, ok := sj.Jobs[name]
			if !ok {
				return fmt.Errorf("there is no job named %q in this session; jobs.list() lists them", name)
			}
			if f == "cancel" && j.State == JobRunning {
				if cancel := r.jobs.run[session+"\x00"+name]; cancel != nil {
					cancel()
				}
				j.State, j.Ended, j.Error = JobCancelled, time.Now().UTC(), "cancelled by the program"
			}
			view = jobView(j)
			return nil
		})
		if err != nil {
			return monty.Raise("KeyError", err.Error()), nil
		}
		return jobReply(view), nil
	case "list":
		r.jobs.mu.Lock()
		sj, err := r.jobs.load(session)
		r.jobs.mu.Unlock()
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
	j := &Job{Name: name, Kind: "call", Tool: e.call(), Args: args, State: JobRunning, Started: time.Now().UTC(), MaxRuntime: maxRuntime.Seconds(), Owner: r.jobs.owner, approved: approved}
	err = r.jobs.update(h.session, func(sj *SessionJobs) error {
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
		return nil
	})
	if err != nil {
		return monty.Raise("ValueError", "jobs.submit(): "+err.Error()), nil
	}
	r.startJob(h.session, j, e)
	return jobReply(jobView(j)), nil
}

// startJob runs a job's call in the background and records how it ended.
func (r *Runtime) startJob(session string, j *Job, e *toolEntry) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(j.MaxRuntime*float64(time.Second)))
	if j.approved != "" {
		ctx = context.WithValue(ctx, approvedKey{}, j.approved)
	}
	key := session + "\x00" + j.Name
	r.jobs.mu.Lock()
	r.jobs.run[key] = cancel
	r.jobs.mu.Unlock()
	r.jobs.wg.Add(1)
	go func() {
		defer r.jobs.wg.Done()
		defer cancel()
		res, err := r.call(ctx, session, string(e.svc.Name)+"."+string(e.tool.Py), j.Args, j.Name)
		if r.jobs.closed.Load() {
			return
		}
		_ = r.jobs.update(session, func(sj *SessionJobs) error {
			delete(r.jobs.run, key)
			cur, ok := sj.Jobs[j.Name]
			if !ok || cur.Started != j.Started || cur.State != JobRunning {
				return nil // cancelled, or replaced
			}
			cur.Ended = time.Now().UTC()
			switch {
			case errors.Is(ctx.Err(), context.DeadlineExceeded):
				cur.State, cur.Error = JobFailed, fmt.Sprintf("the job ran longer than its max_runtime (%s) and was stopped", time.Duration(j.MaxRuntime*float64(time.Second)))
			case err != nil:
				cur.State, cur.Error = JobFailed, err.Error()
			case res.Status == StatusOK:
				cur.State, cur.Result = JobDone, res.Value
			default:
				cur.State, cur.Error = JobFailed, string(res.Status)+": "+res.Message
			}
			return nil
		})
	}()
}

// pendingWait is the session's wait while it holds: nil when there is none
// or it is over (then it is cleared, and over says how it ended).
func (r *Runtime) pendingWait(session string) (w *JobWait, over string) {
	_ = r.jobs.update(session, func(sj *SessionJobs) error {
		if sj.Wait == nil {
			if sj.Resolved == "" {
				return errors.New("unchanged")
			}
			over, sj.Resolved = sj.Resolved, ""
			return nil
		}
		held := len(sj.Wait.Jobs) == 0 // a call wait holds until approved
		for _, n := range sj.Wait.Jobs {
			if j, ok := sj.Jobs[n]; ok && j.State == JobRunning {
				held = true
			}
		}
		if held && time.Now().Before(sj.Wait.Deadline) {
			w = sj.Wait
			return errors.New("unchanged")
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
	return w, over
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
	r.jobs.mu.Lock()
	sj, err := r.jobs.load(session)
	r.jobs.mu.Unlock()
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
