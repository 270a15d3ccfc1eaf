package runtime_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/manifest"
	"github.com/codemode-dev/codemode/runtime"
	"github.com/codemode-dev/codemode/runtime/upstream"
)

// countingUpstream passes calls to the real upstream and records each one
// that reached it.
type countingUpstream struct {
	upstream.Upstream
	mu    sync.Mutex
	calls []string
}

func (c *countingUpstream) Call(ctx context.Context, t *manifest.Tool, args map[string]any) (*upstream.Result, error) {
	c.mu.Lock()
	c.calls = append(c.calls, string(t.Wire))
	c.mu.Unlock()
	return c.Upstream.Call(ctx, t, args)
}

func (c *countingUpstream) reached() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.calls...)
}

// rulesRuntime is a runtime over the real reference server whose calls are
// counted, with the given rules on service everything.
func rulesRuntime(t *testing.T, state string, rules map[string]runtime.Rule) (*runtime.Runtime, *countingUpstream) {
	var cu *countingUpstream
	rt := newRuntime(t, func(c *runtime.Config) {
		cu = &countingUpstream{Upstream: c.Upstreams["everything"]}
		c.Upstreams["everything"] = cu
		c.StateDir = state
		c.Rules = map[ir.ToolID]runtime.Rule{}
		for wire, rl := range rules {
			c.Rules[ir.ToolID{Service: "everything", Wire: ir.WireName(wire)}] = rl
		}
	})
	return rt, cu
}

// TestPackPolicyDeniesOnEveryPath: a tool the pack denies is refused in a
// program, in a direct call and as a job, and never reaches the upstream.
func TestPackPolicyDeniesOnEveryPath(t *testing.T) {
	rt, cu := rulesRuntime(t, t.TempDir(), map[string]runtime.Rule{"get-sum": {Deny: "sums are computed locally"}})
	res := runIn(t, rt, "s", `
try:
    api.everything.get_sum(a=1, b=2)
except PermissionError as e:
    print(e)
try:
    jobs.submit("j", api.everything.get_sum, a=1, b=2)
except PermissionError as e:
    print("job:", e)
print(api.everything.echo(message="still here"))
`)
	want := "api.everything.get_sum was refused by the pack's policy: sums are computed locally\n" +
		"job: api.everything.get_sum was refused by the pack's policy: sums are computed locally\n" +
		"Echo: still here\n"
	if res.Error != "" || res.Output != want {
		t.Fatalf("program:\n%s\nwant output:\n%s", res.Text(), want)
	}
	cr, err := rt.Call(context.Background(), "s", "everything.get_sum", map[string]any{"a": 1, "b": 2})
	if err != nil || cr.Status != runtime.StatusRefused || cr.Message != "api.everything.get_sum was refused by the pack's policy: sums are computed locally" {
		t.Fatalf("direct call: %+v %v", cr, err)
	}
	if got := cu.reached(); len(got) != 1 || got[0] != "echo" {
		t.Fatalf("upstream reached by %v, want only echo", got)
	}
}

// TestPackPolicyAllowsOnlyListedValues: an allow rule lets listed values
// through (12 and 12.0 are one JSON number) and refuses others, and a call
// that leaves the argument out, naming what is allowed.
func TestPackPolicyAllowsOnlyListedValues(t *testing.T) {
	rt, cu := rulesRuntime(t, t.TempDir(), map[string]runtime.Rule{"get-sum": {Allow: map[string][]any{"a": {1, 12}}}})
	res := runIn(t, rt, "s", `
print(api.everything.get_sum(a=12.0, b=1))
try:
    api.everything.get_sum(a=13, b=1)
except PermissionError as e:
    print(e)
`)
	want := "The sum of 12 and 1 is 13.\n" +
		"api.everything.get_sum was refused by the pack's policy: a=13 is not allowed; allowed: 1, 12\n"
	if res.Error != "" || res.Output != want {
		t.Fatalf("program:\n%s\nwant output:\n%s", res.Text(), want)
	}
	if got := cu.reached(); len(got) != 1 {
		t.Fatalf("upstream reached %d times, want 1", len(got))
	}
}

// TestApprovalBatchListsEveryWrite: a loop of approval-held calls is one
// batch the wait lists; a call without the rule after it is refused, the
// session is held, and once approved each listed call goes through once on
// the next turn; a call that was not listed is held again, and so is a
// listed call made a second time.
func TestApprovalBatchListsEveryWrite(t *testing.T) {
	rt, cu := rulesRuntime(t, t.TempDir(), map[string]runtime.Rule{"echo": {Approve: true}})
	loop := `
for host in ["web-1", "web-2", "web-3"]:
    r = api.everything.echo(message="drain " + host)
    print(r if isinstance(r, str) else ("held", r["approval"]))
`
	res := runIn(t, rt, "s", loop+`
try:
    api.everything.get_sum(a=1, b=2)
except RuntimeError as e:
    print("sum:", str(e)[:40])
`)
	wantOut := "('held', 1)\n('held', 2)\n('held', 3)\n" +
		"sum: api.everything.get_sum was not called: a\n"
	if res.Output != wantOut || !res.Wait || len(res.WaitCalls) != 3 || res.WaitReason != "3 calls held for approval" {
		t.Fatalf("first turn:\n%s\nwant output:\n%s(wait %v, %d calls, %q)", res.Text(), wantOut, res.Wait, len(res.WaitCalls), res.WaitReason)
	}
	listed := `api.everything.echo(message="drain web-1"); api.everything.echo(message="drain web-2"); api.everything.echo(message="drain web-3")`
	if last := res.Notes[len(res.Notes)-1]; !strings.Contains(last, "Held for approval (3): "+listed+".") {
		t.Fatalf("wait note does not list the batch: %q", last)
	}
	if len(cu.reached()) != 0 {
		t.Fatalf("a held call reached the upstream: %v", cu.reached())
	}
	r := runIn(t, rt, "s", `print("too soon")`)
	if !strings.HasPrefix(r.Error, "run_code refused: this session is waiting for approval of 3 calls (api.everything.echo(message=\"drain web-1\"), …), wait "+res.WaitID) {
		t.Fatalf("second turn: %s", r.Error)
	}
	if we, ok := r.Err.(*runtime.WaitError); !ok || we.Wait.ID != res.WaitID || len(we.Wait.Calls) != 3 {
		t.Fatalf("second turn's Err: %T %v", r.Err, r.Err)
	}
	w, err := rt.Approve("s", res.WaitID)
	if err != nil || len(w.Calls) != 3 {
		t.Fatalf("Approve: %+v %v", w, err)
	}
	res = runIn(t, rt, "s", loop+`print(api.everything.echo(message="drain web-4")["status"])`)
	wantOut = "Echo: drain web-1\nEcho: drain web-2\nEcho: drain web-3\nwaiting\n"
	if res.Output != wantOut || len(res.WaitCalls) != 1 || !strings.HasPrefix(res.Notes[0], "the wait ") || !strings.Contains(res.Notes[0], listed) {
		t.Fatalf("after approval:\n%s\nwant output:\n%s", res.Text(), wantOut)
	}
	if got := cu.reached(); len(got) != 3 {
		t.Fatalf("upstream reached %d times, want 3", len(got))
	}
	if _, err := rt.Approve("s", ""); err != nil {
		t.Fatal(err)
	}
	res = runIn(t, rt, "s", `print(api.everything.echo(message="drain web-1"))`)
	if !res.Wait || len(cu.reached()) != 3 {
		t.Fatalf("a consumed approval let a call through again: %s", res.Text())
	}
}

// TestApprovedJobRunsOnce: jobs.submit of an approval-held tool holds the
// program's session, not a background job; once approved, the same submit
// starts the job and its call goes through.
func TestApprovedJobRunsOnce(t *testing.T) {
	rt, cu := rulesRuntime(t, t.TempDir(), map[string]runtime.Rule{"echo": {Approve: true}})
	res := runIn(t, rt, "s", `print(jobs.submit("drain", api.everything.echo, message="drain web-1")["reason"])`)
	if !res.Wait || len(res.WaitCalls) != 1 || res.Output != "held for approval by the pack's policy\n" {
		t.Fatalf("first turn: %s", res.Text())
	}
	if _, err := rt.Approve("s", res.WaitID); err != nil {
		t.Fatal(err)
	}
	res = runIn(t, rt, "s", `
j = jobs.submit("drain", api.everything.echo, message="drain web-1")
jobs.wait("drain", wake_after=30)
`)
	if res.Error != "" {
		t.Fatalf("second turn: %s", res.Text())
	}
	for i := 0; ; i++ {
		res = runIn(t, rt, "s", `print(jobs.get("drain")["state"], jobs.get("drain").get("result"))`)
		if res.Error == "" {
			break
		}
		if i > 200 {
			t.Fatalf("job did not end: %s", res.Text())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.HasPrefix(res.Output, "done Echo: drain web-1") || len(cu.reached()) != 1 {
		t.Fatalf("third turn: %s (upstream %v)", res.Text(), cu.reached())
	}
}

// TestDirectCallWaitNotRecorded pins the defect: a direct call that came
// back as a wait held nothing (the next direct call went through). Now it
// is the session's pending wait, and an approval lets the same call
// through once.
func TestDirectCallWaitNotRecorded(t *testing.T) {
	rt, cu := rulesRuntime(t, t.TempDir(), map[string]runtime.Rule{"echo": {Approve: true}})
	ctx := context.Background()
	args := map[string]any{"message": "drain web-1"}
	cr, err := rt.Call(ctx, "s", "everything.echo", args)
	if err != nil || cr.Status != runtime.StatusWait || !cr.Wait {
		t.Fatalf("first call: %+v %v", cr, err)
	}
	w := rt.PendingWait("s")
	if w == nil || len(w.Calls) != 1 {
		t.Fatalf("no pending wait recorded: %+v", w)
	}
	cr, _ = rt.Call(ctx, "s", "everything.get_sum", map[string]any{"a": 1, "b": 2})
	if cr.Status != runtime.StatusRefused || !strings.HasPrefix(cr.Message, "the call was refused: this session is waiting for approval of 1 call") {
		t.Fatalf("call while waiting: %+v", cr)
	}
	if _, err := rt.Approve("s", w.ID); err != nil {
		t.Fatal(err)
	}
	cr, _ = rt.Call(ctx, "s", "everything.echo", args)
	if cr.Status != runtime.StatusOK || cr.Value != "Echo: drain web-1" || len(cu.reached()) != 1 {
		t.Fatalf("after approval: %+v (upstream %v)", cr, cu.reached())
	}
}
