package runtime

import (
	"context"
	"strings"

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
//
// A direct call holds the session as a program's does: while the session
// has a pending wait the call is refused naming it, and a call that comes
// back as a wait (a policy hook's, an upstream's, the pack's approve rule)
// becomes the session's pending wait.
func (r *Runtime) Call(ctx context.Context, session, name string, args map[string]any) (*CallResult, error) {
	return r.call(ctx, session, newRunID(), "", 0, name, args)
}

// call is Call audited under runID; a job's own call passes the job's
// name, is audited under the run that submitted it (as its call number
// seq+1), and is neither refused by the session's wait (it may be what
// the session awaits) nor recorded as one.
func (r *Runtime) call(ctx context.Context, session, runID, job string, seq int, name string, args map[string]any) (*CallResult, error) {
	if args == nil {
		args = map[string]any{}
	}
	res := &Result{RunID: runID}
	h := &handler{r: r, ctx: ctx, session: session, res: res, maxOut: r.limits.Output, runID: res.RunID, direct: true, job: job, seq: seq}
	h.mu.Lock()
	defer h.mu.Unlock()
	if job == "" {
		pw, over, err := r.pendingWait(session)
		if err != nil {
			msg := "the call was refused: the session's record could not be read, so nothing was called: " + firstLine(err.Error())
			return &CallResult{Call: name, Status: StatusError, Message: msg}, nil
		}
		if pw != nil {
			msg := strings.NewReplacer("run_code refused", "the call was refused", "call run_code again", "call again").Replace(waitRefusal(pw))
			if aerr := h.stopped(name, args, StatusRefused, ReasonWait, msg); aerr != nil {
				return &CallResult{Call: name, Status: StatusError, Message: aerr.Error()}, nil
			}
			return &CallResult{Call: name, Status: StatusRefused, Message: msg, Wait: true}, nil
		}
		if over != "" {
			h.notes = append(h.notes, over)
		}
	}
	e, err := r.lookupTool(name)
	if err != nil {
		if aerr := h.stopped(name, args, StatusRefused, ReasonGrant, err.Error()); aerr != nil {
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
	if job == "" && h.waited {
		if w, err := r.recordWait(session, h.waitTool, h.wait, h.pending); err != nil {
			h.notes = append(h.notes, "the session's wait could not be recorded: "+err.Error())
		} else {
			h.notes = append(h.notes, strings.Replace(waitNote(w), "run_code is refused", "calls are refused", 1))
		}
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
