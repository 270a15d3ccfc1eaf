package runtime_test

import (
	"strings"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/runtime"
)

// metaWaitRuntime is a runtime whose everything.echo results carry an
// upstream wait (wait_meta), keeping its jobs store in state.
func metaWaitRuntime(t *testing.T, state string, timeout time.Duration) *runtime.Runtime {
	return newRuntime(t, func(c *runtime.Config) {
		c.Upstreams["everything"] = metaUpstream{meta: map[string]any{"acme/wait": "change CHG-12 needs approval"}}
		c.WaitMeta = map[ir.ServiceName]string{"everything": "acme/wait"}
		c.StateDir, c.WaitTimeout = state, timeout
	})
}

// TestUpstreamWaitDoesNotHoldSession pins the defect: an upstream's
// wait_meta result refused only the rest of its program. The wait is the
// session's pending wait: the next program is refused naming the call
// awaited, also by a runtime started later on the same state (a gateway
// restart), until Approve resolves it; the program after that is told so.
func TestUpstreamWaitDoesNotHoldSession(t *testing.T) {
	state := t.TempDir()
	rt := metaWaitRuntime(t, state, 0)
	res := runIn(t, rt, "s", `api.everything.echo(message="launch")`)
	if !res.Wait || res.WaitTool != "api.everything.echo" || res.WaitReason != "change CHG-12 needs approval" || !strings.HasPrefix(res.WaitID, "w-") {
		t.Fatalf("first program: %s (wait %v %q %q %q)", res.Text(), res.Wait, res.WaitTool, res.WaitReason, res.WaitID)
	}
	if d := time.Until(res.WaitDeadline); d < 59*time.Minute || d > time.Hour {
		t.Fatalf("deadline %s is not the default hour away", res.WaitDeadline)
	}
	id := res.WaitID
	refused := "run_code refused: this session is waiting for api.everything.echo (change CHG-12 needs approval), wait " + id + " (until an approver resolves it, or until " + res.WaitDeadline.Format(time.RFC3339) + "). End your turn now; call run_code again when the wait is resolved or the deadline has passed."
	if res := runIn(t, rt, "s", `print("too soon")`); res.Error != refused || res.Output != "" || !res.Wait || res.WaitID != id {
		t.Fatalf("second program:\n%s\nwant:\n%s", res.Error, refused)
	}
	if w := rt.PendingWait("s"); w == nil || w.ID != id {
		t.Fatalf("PendingWait: %+v", w)
	}
	if res := runIn(t, rt, "other", `print("free")`); res.Error != "" || res.Output != "free\n" {
		t.Fatalf("another session was held: %s", res.Text())
	}
	rt.Close()

	rt2 := metaWaitRuntime(t, state, 0)
	if res := runIn(t, rt2, "s", `print("too soon")`); res.Error != refused {
		t.Fatalf("after a restart:\n%s\nwant:\n%s", res.Error, refused)
	}
	if _, err := rt2.Approve("s", "w-0"); err == nil || err.Error() != "the pending wait is "+id+" (api.everything.echo (change CHG-12 needs approval)), not w-0" {
		t.Fatalf("Approve with a wrong ID: %v", err)
	}
	if w, err := rt2.Approve("s", id); err != nil || w.ID != id {
		t.Fatalf("Approve: %v", err)
	}
	res = runIn(t, rt2, "s", `print("resumed")`)
	if res.Output != "resumed\n" || len(res.Notes) != 1 || !strings.HasPrefix(res.Notes[0], "the wait "+id+" for api.everything.echo (change CHG-12 needs approval) was approved by an approver at ") {
		t.Fatalf("after Approve: %s", res.Text())
	}
	if _, err := rt2.Approve("s", ""); err == nil || err.Error() != `session "s" has no pending wait` {
		t.Fatalf("Approve with no wait: %v", err)
	}
}

// TestUpstreamWaitPastDeadline: a wait whose deadline (runtime.wait_timeout)
// has passed holds nothing; the next program runs, told the call was not
// approved. (A timeout under a second puts the deadline in the past.)
func TestUpstreamWaitPastDeadline(t *testing.T) {
	rt := metaWaitRuntime(t, t.TempDir(), time.Millisecond)
	first := runIn(t, rt, "s", `api.everything.echo(message="launch")`)
	if !first.Wait {
		t.Fatalf("first program: %s", first.Text())
	}
	res := runIn(t, rt, "s", `print("after")`)
	want := "the wait " + first.WaitID + " for api.everything.echo (change CHG-12 needs approval) reached its deadline without an approval; the session runs again, but the call was not approved"
	if res.Output != "after\n" || len(res.Notes) != 1 || res.Notes[0] != want {
		t.Fatalf("after the deadline: %s\nwant note: %s", res.Text(), want)
	}
}
