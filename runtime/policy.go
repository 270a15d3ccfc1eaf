package runtime

import (
	"context"
	"time"

	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/manifest"
	"github.com/codemode-dev/codemode/runtime/upstream"
)

// Policy is a hook gateway builders add around every call a program makes.
type Policy interface {
	// Before may deny the call, add notes for the agent, or mark it as a
	// wait (the call is not made; the program's later calls are refused).
	Before(ctx context.Context, c *CallInfo) Verdict
	// After sees the upstream's result and may add notes or mark a wait.
	After(ctx context.Context, c *CallInfo, res *upstream.Result) Verdict
}

// CallInfo describes one call for hooks and the audit log.
type CallInfo struct {
	Session string
	RunID   string
	Service ir.ServiceName
	Tool    *manifest.Tool
	Args    map[string]any // bound and validated, keyed by Arg
	// Approved says an approver approved this very call (the pack's
	// approve rule): it is being made once, on that approval.
	Approved bool
}

// Verdict is a hook's answer. The zero Verdict allows the call.
type Verdict struct {
	Deny  string   // non-empty: refuse the call with this reason
	Notes []string // shown to the agent at the top of run_code's response
	Wait  string   // non-empty: the session now waits (e.g. for an approval)
}

// Auditor receives audit events. Record must be safe for concurrent use.
// The runtime fails closed on its error: a call whose intent cannot be
// recorded is not made, and a run whose start cannot be recorded does not
// run.
type Auditor interface {
	Record(ev Event) error
}

// Event is one audit record, linked to its run by RunID:
//
//   - "run": a program starts (Code is the program, Status "started");
//   - "run_end": it ended (Status ok or error, Message, Calls, Duration);
//   - "intent": a call's request is about to leave for the upstream
//     (Tool, Call, Args);
//   - "call": how a call ended (Status ok, error, refused, invalid, cut,
//     cancelled or wait; Result, Duration). A call stopped before it could
//     leave (refused, invalid, a policy wait, ...) has no intent, and its
//     "call" event carries the Args itself. An intent with no "call" after
//     it is a call whose outcome is unknown (the process died mid-call).
//
// Args, Result and Code are kept up to a cap (see [Payload]).
type Event struct {
	Time     time.Time     `json:"time"`
	Kind     string        `json:"kind"`
	RunID    string        `json:"run"`
	Session  string        `json:"session"`
	Job      string        `json:"job,omitempty"`  // a job's call: the job's name
	Call     int           `json:"call,omitempty"` // the call's number in its run: links an intent to its outcome
	Tool     string        `json:"tool,omitempty"`
	Args     *Payload      `json:"args,omitempty"`
	Code     *Payload      `json:"code,omitempty"`
	Status   Status        `json:"status"`
	Message  string        `json:"message,omitempty"`
	Result   *Payload      `json:"result,omitempty"` // the value the program got
	Calls    int           `json:"calls,omitempty"`
	Duration time.Duration `json:"duration_ns"`
	// Reason says, for metrics, why a call was not made (one of the
	// Reason constants); it is not part of the audit record.
	Reason string `json:"-"`
}
