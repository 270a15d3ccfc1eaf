package runtime

import (
	"context"
	"time"

	"github.com/codemode-dev/codemode/emit"
	"github.com/codemode-dev/codemode/ir"
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
	Tool    *emit.ManifestTool
	Args    map[string]any // bound and validated, keyed by Arg
}

// Verdict is a hook's answer. The zero Verdict allows the call.
type Verdict struct {
	Deny  string   // non-empty: refuse the call with this reason
	Notes []string // shown to the agent at the top of run_code's response
	Wait  string   // non-empty: the session now waits (e.g. for an approval)
}

// Auditor receives audit events. Record must be safe for concurrent use.
type Auditor interface {
	Record(ev Event) error
}

// Event is one audit record: a run_code (Kind "run") or a call a program
// made (Kind "call"), linked by RunID.
type Event struct {
	Time     time.Time      `json:"time"`
	Kind     string         `json:"kind"`
	RunID    string         `json:"run"`
	Session  string         `json:"session"`
	Tool     string         `json:"tool,omitempty"`
	Args     map[string]any `json:"args,omitempty"`
	Code     string         `json:"code,omitempty"`
	Status   string         `json:"status"`
	Message  string         `json:"message,omitempty"`
	Result   string         `json:"result,omitempty"` // sha256 of the result JSON
	Calls    int            `json:"calls,omitempty"`
	Duration time.Duration  `json:"duration_ns"`
}
