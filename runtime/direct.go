package runtime

import (
	"context"

	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/runtime/upstream"
)

// CallResult is the outcome of one direct call (Runtime.Call).
type CallResult struct {
	// Call is the tool's call form (api.<service>.<py>), or the name given
	// when no tool has it.
	Call string
	// Status is ok, error, refused, invalid or wait, as in CallRecord.
	Status Status
	// Message says why, when Status is not ok.
	Message string
	// Value is the upstream's result (for a wait, {"status": "waiting",
	// "reason": ...}); nil unless Status is ok or wait.
	Value any
	// Notes are the notes for the agent (upstream _meta, policy hooks, a
	// wait).
	Notes []string
	// Wait is set when the call came back as a wait.
	Wait bool
}

// Call makes one tool call outside any program, through exactly the checks
// a program's call passes (grant, read-gate, validation of args keyed by
// argument name, policy hooks, upstream, notes and waits) and with the same
// audit event. name is what run_tool accepts: "service.tool", a wire name
// or a Python name. The error is for a cancelled context only; every other
// failure is a CallResult whose Status says what happened.
func (r *Runtime) Call(ctx context.Context, session, name string, args map[string]any) (*CallResult, error) {
	if args == nil {
		args = map[string]any{}
	}
	res := &Result{RunID: newRunID()}
	h := &handler{r: r, ctx: ctx, session: session, res: res, maxOut: r.limits.Output, runID: res.RunID, direct: true}
	h.mu.Lock()
	defer h.mu.Unlock()
	e, err := r.lookupTool(name)
	if err != nil {
		if aerr := h.stopped(name, args, StatusRefused, err.Error()); aerr != nil {
			return &CallResult{Call: name, Status: StatusError, Message: aerr.Error()}, nil
		}
		return &CallResult{Call: name, Status: StatusRefused, Message: err.Error()}, nil
	}
	out, err := h.do(ctx, e, args)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return &CallResult{Call: e.call(), Status: StatusError, Message: err.Error()}, nil
	}
	return &CallResult{
		Call: e.call(), Status: out.status, Message: out.message, Value: out.value,
		Notes: h.notes, Wait: out.status == StatusWait,
	}, nil
}

// Upstream is the connection of service (nil if it has none): direct mode
// passes an MCP server's resources and prompts through it.
func (r *Runtime) Upstream(service ir.ServiceName) upstream.Upstream {
	return r.cfg.Upstreams[service]
}
