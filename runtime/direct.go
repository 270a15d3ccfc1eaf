package runtime

import (
	"context"
	"sync"

	"github.com/codemode-dev/codemode/runtime/upstream"
)

// CallResult is the outcome of one direct call (Runtime.Call).
type CallResult struct {
	// Call is the tool's call form (api.<service>.<py>), or the name given
	// when no tool has it.
	Call string
	// Status is ok, error, refused, invalid or wait, as in CallRecord.
	Status string
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
	res := &Result{RunID: newRunID()}
	e, err := r.lookupTool(name)
	if err != nil {
		return &CallResult{Call: name, Status: "refused", Message: err.Error()}, nil
	}
	if args == nil {
		args = map[string]any{}
	}
	// The handler runs against a view of the runtime whose hooks end with
	// one that keeps the upstream's result, which the handler otherwise
	// only hands to Monty.
	keep := &keepResult{}
	view := &Runtime{
		cfg: r.cfg, limits: r.limits, bin: r.bin, pool: r.pool,
		validator: r.validator, gate: r.gate, tools: r.tools, byWire: r.byWire,
		services: r.services,
	}
	view.cfg.Hooks = append(append([]Policy(nil), r.cfg.Hooks...), keep)
	h := &handler{r: view, ctx: ctx, session: session, res: res, maxOut: r.limits.Output, runID: res.RunID}
	if _, err := h.invoke(ctx, e, args); err != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	out := &CallResult{Call: e.call(), Status: "error", Notes: h.notes, Wait: h.waited}
	if n := len(res.Calls); n > 0 {
		out.Status, out.Message = res.Calls[n-1].Status, res.Calls[n-1].Message
	}
	switch out.Status {
	case "ok":
		out.Value = keep.value()
	case "wait":
		out.Value = map[string]any{"status": "waiting", "reason": h.wait}
	}
	return out, nil
}

// keepResult is the last hook of a direct call: it keeps the result.
type keepResult struct {
	mu  sync.Mutex
	res *upstream.Result
}

func (k *keepResult) Before(context.Context, *CallInfo) Verdict { return Verdict{} }

func (k *keepResult) After(_ context.Context, _ *CallInfo, res *upstream.Result) Verdict {
	k.mu.Lock()
	k.res = res
	k.mu.Unlock()
	return Verdict{}
}

func (k *keepResult) value() any {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.res == nil {
		return nil
	}
	return k.res.Value
}
