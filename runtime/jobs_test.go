package runtime_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/manifest"
	"github.com/codemode-dev/codemode/runtime"
	"github.com/codemode-dev/codemode/runtime/upstream"
)

// held wraps an upstream: calls of echo wait until release is closed.
type held struct {
	upstream.Upstream
	release chan struct{}
	// started is told that a call of echo started: the first start is kept
	// until someone takes it (a job's call can start before the test
	// waits: TestJobsListTookWriteLock hung for its whole time limit when a
	// start nobody was waiting for yet was dropped), later ones while it is
	// kept are not told.
	started chan struct{}
}

func (h *held) Call(ctx context.Context, tool *manifest.Tool, args map[string]any) (*upstream.Result, error) {
	if tool.Wire == "echo" {
		select {
		case h.started <- struct{}{}:
		default:
		}
		select {
		case <-h.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return h.Upstream.Call(ctx, tool, args)
}

func heldRuntime(t *testing.T, state string) (*runtime.Runtime, *held) {
	return heldRuntimeWith(t, state, nil)
}

// notReadOnly makes everything's echo a tool that may not run twice.
func notReadOnly(c *runtime.Config) {
	for i := range c.Manifest.Services {
		for j := range c.Manifest.Services[i].Tools {
			c.Manifest.Services[i].Tools[j].Annotations = ir.Annotations{}
		}
	}
}

func heldRuntimeWith(t *testing.T, state string, mutate func(*runtime.Config)) (*runtime.Runtime, *held) {
	var hu *held
	rt := newRuntime(t, func(c *runtime.Config) {
		if mutate != nil {
			mutate(c)
		}
		hu = &held{Upstream: c.Upstreams["everything"], release: make(chan struct{}), started: make(chan struct{}, 1)}
		c.Upstreams["everything"] = hu
		c.StateDir = state
		c.Limits.Output = 2000
	})
	t.Cleanup(func() {
		select {
		case <-hu.release:
		default:
			close(hu.release)
		}
	})
	return rt, hu
}

const submitAndWait = `j = jobs.submit("e", api.everything.echo, message="hi")
print(j["state"])
jobs.wait("e", wake_after=600)
print("not reached")
`

// untilNotWaiting runs code in session until the session no longer waits.
func untilNotWaiting(t *testing.T, rt *runtime.Runtime, session, code string) *runtime.Result {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		res := runIn(t, rt, session, code)
		if !strings.HasPrefix(res.Error, "run_code refused: this session is waiting") {
			return res
		}
		if time.Now().After(deadline) {
			t.Fatalf("still waiting: %s", res.Text())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestJobWaitDoesNotHoldSession pins the defect: a wait refused only the
// rest of one program, and the next run_code went ahead at once. A
// jobs.wait ends the program, the session's programs are refused while the
// job runs, and afterwards jobs.get returns the job's result.
func TestJobWaitDoesNotHoldSession(t *testing.T) {
	rt, hu := heldRuntime(t, t.TempDir())
	res := runIn(t, rt, "s", submitAndWait)
	if res.Error != "" || res.Output != "running\n" || !res.Wait || len(res.WaitJobs) != 1 || res.WaitJobs[0] != "e" {
		t.Fatalf("submit and wait: %s (wait %v %q)", res.Text(), res.Wait, res.WaitJobs)
	}
	if len(res.Notes) != 1 || !strings.HasPrefix(res.Notes[0], "WAIT: this session waits for job e until it ends or until ") {
		t.Fatalf("notes %q", res.Notes)
	}
	res = runIn(t, rt, "s", "print(1)\n")
	if !strings.HasPrefix(res.Error, "run_code refused: this session is waiting for job e (until it ends, or until ") || res.Output != "" || !res.Wait {
		t.Fatalf("a program while waiting: %s", res.Text())
	}
	if res := runIn(t, rt, "other", "print(1)\n"); !res.OK() || res.Output != "1\n" {
		t.Fatalf("another session is held too: %s", res.Text())
	}
	close(hu.release)
	res = untilNotWaiting(t, rt, "s", `j = jobs.get("e")
print(j["state"], j["result"])
print([x["name"] for x in jobs.list()])
`)
	if !res.OK() || res.Output != "done Echo: hi\n['e']\n" {
		t.Fatalf("after the job: %s", res.Text())
	}
	if len(res.Notes) != 1 || res.Notes[0] != "the wait for job e is over: the job ended; jobs.get() returns its state and result" {
		t.Fatalf("notes %q", res.Notes)
	}
}

// TestJobInFlightAtRestartRerun: a job running when its runtime stopped is
// reported by the next runtime on the same state as "unknown", never run
// again (its tool is neither read-only nor idempotent), and no longer
// holds the session.
func TestJobInFlightAtRestartRerun(t *testing.T) {
	state := t.TempDir()
	rt, _ := heldRuntimeWith(t, state, notReadOnly)
	if res := runIn(t, rt, "s", submitAndWait); !res.Wait {
		t.Fatalf("submit and wait: %s", res.Text())
	}
	waitClaimed(t, rt, "s", "e")
	rt.Close()
	rt2, _ := heldRuntimeWith(t, state, notReadOnly)
	res := runIn(t, rt2, "s", "j = jobs.get('e')\nprint(j['state'])\nprint(j['error'])\n")
	want := "unknown\nthe gateway that ran this job stopped before the job ended: its outcome is unknown, and it was not run again; check its effects before submitting it again\n"
	if !res.OK() || res.Output != want {
		t.Fatalf("after the restart: %s", res.Text())
	}
}

// waitClaimed waits until a replica has started the session's job.
func waitClaimed(t *testing.T, rt *runtime.Runtime, session, name string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		sj, err := rt.Store().Session(context.Background(), session)
		if err != nil {
			t.Fatal(err)
		}
		if j := sj.Jobs[name]; j != nil && j.Attempt > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s was not started", name)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestReadOnlyJobLostAtRestart: a job whose tool is read-only, running
// when its runtime stopped, runs again on the next runtime (it may: it
// changes nothing), and its result is collected there.
func TestReadOnlyJobLostAtRestart(t *testing.T) {
	state := t.TempDir()
	rt, _ := heldRuntime(t, state)
	if res := runIn(t, rt, "s", submitAndWait); !res.Wait {
		t.Fatalf("submit and wait: %s", res.Text())
	}
	waitClaimed(t, rt, "s", "e")
	rt.Close()
	rt2, hu2 := heldRuntime(t, state)
	if res := runIn(t, rt2, "s", "print(1)\n"); !strings.HasPrefix(res.Error, "run_code refused: this session is waiting for job e") {
		t.Fatalf("the job is not running again: %s", res.Text())
	}
	close(hu2.release)
	res := untilNotWaiting(t, rt2, "s", "j = jobs.get('e')\nprint(j['state'], j['result'])\n")
	if !res.OK() || res.Output != "done Echo: hi\n" {
		t.Fatalf("after the restart: %s", res.Text())
	}
	sj, _ := rt2.Store().Session(context.Background(), "s")
	if j := sj.Jobs["e"]; j.Attempt != 2 {
		t.Fatalf("attempts %d, want 2", j.Attempt)
	}
}

// TestJobsBadCallsRefused: bad uses of jobs raise clear errors in the
// program, and are type errors where the checker can tell.
func TestJobsBadCallsRefused(t *testing.T) {
	rt, _ := heldRuntime(t, t.TempDir())
	for code, want := range map[string]string{
		`jobs.submit("e", "nope")`:                                          "TypeError: jobs.submit(): the tool must be a tool, as api.<service>.<tool> (not called)",
		`jobs.submit("e", api.everything.echo, mesage="x")`:                 "TypeError: api.everything.echo() got an unexpected keyword argument 'mesage'",
		`jobs.get("missing")`:                                               `KeyError: there is no job named "missing" in this session`,
		`jobs.submit("e", api.everything.echo, message="x", max_runtime=0)`: "ValueError: jobs.submit(): max_runtime is seconds, more than 0",
		`jobs.wait("missing", wake_after=5)`:                                `KeyError: there is no job named "missing"`,
		`jobs.wait()`:                                                       "Type check failed",
	} {
		res := runIn(t, rt, "s", code+"\n")
		if !strings.Contains(res.Error, want) {
			t.Errorf("%s: %s\nwant %q", code, res.Text(), want)
		}
	}
}

// TestJobWaitOutlivesDeadline: wake_after is a deadline, not a sleep: once
// it passes, the session's programs run again although the job still
// runs, and the first one is told so.
func TestJobWaitOutlivesDeadline(t *testing.T) {
	rt, _ := heldRuntime(t, t.TempDir())
	res := runIn(t, rt, "s", `jobs.submit("e", api.everything.echo, message="hi")
jobs.wait("e", wake_after=0.5)
`)
	if !res.Wait {
		t.Fatalf("submit and wait: %s", res.Text())
	}
	res = untilNotWaiting(t, rt, "s", "print(jobs.get('e')['state'])\n")
	if !res.OK() || res.Output != "running\n" || len(res.Notes) != 1 || res.Notes[0] != "the wait for job e reached its deadline; the job is still running: jobs.get() shows its state" {
		t.Fatalf("after the deadline: %s", res.Text())
	}
}

// TestWorkerDeathForgetsJobs: the notice of a lost program names the
// session's jobs still running.
func TestWorkerDeathForgetsJobs(t *testing.T) {
	rt, _ := heldRuntime(t, t.TempDir())
	res := runIn(t, rt, "s", "jobs.submit('e', api.everything.echo, message='hi')\nbig = 'a' * (400 << 20)\n")
	want := "Jobs of this session still running (they were not affected): e (api.everything.echo); jobs.get(name) shows them."
	if res.Limit != "memory" || len(res.Notes) != 1 || res.Notes[0] != want {
		t.Fatalf("got %q (limit %q), want the note %q", res.Notes, res.Limit, want)
	}
}

// TestJobsUnbounded: a session may have at most runtime.MaxRunningJobs
// jobs running; one more is refused with a clear error.
func TestJobsUnbounded(t *testing.T) {
	rt, _ := heldRuntime(t, t.TempDir())
	res := runIn(t, rt, "s", "for i in range(17):\n    jobs.submit('j' + str(i), api.everything.echo, message='x')\n")
	if !strings.Contains(res.Error, "ValueError: jobs.submit(): this session has 16 jobs running, the most it may; wait for one to end (jobs.wait) or cancel one") {
		t.Fatalf("17 jobs: %s", res.Text())
	}
	if res := runIn(t, rt, "s", "print(len(jobs.list()))\njobs.cancel('j0')\njobs.submit('again', api.everything.echo, message='x')\n"); !res.OK() || res.Output != "16\n" {
		t.Fatalf("after a cancel: %s", res.Text())
	}
}

// TestJobCallNotAudited pins that a job's call goes through the audit like
// a program's: its intent and outcome are recorded under the run that
// submitted it, with the job's name, and a call number of that run no
// other call has.
func TestJobCallNotAudited(t *testing.T) {
	a := &memAudit{}
	rt, hu := heldRuntimeWith(t, t.TempDir(), func(c *runtime.Config) { c.Audit = a })
	close(hu.release)
	res := runIn(t, rt, "s", "api.everything.echo(message='before')\njobs.submit('e', api.everything.echo, message='hi')\njobs.wait('e', wake_after=600)\n")
	if !res.Wait {
		t.Fatalf("submit and wait: %s", res.Text())
	}
	untilNotWaiting(t, rt, "s", "print(1)\n")
	var got []string
	for _, ev := range a.events() {
		if ev.RunID == res.RunID {
			got = append(got, fmt.Sprintf("%s %s %s #%d job=%q", ev.Kind, ev.Status, ev.Tool, ev.Call, ev.Job))
		}
	}
	slices.Sort(got)
	want := []string{
		`call ok api.everything.echo #1 job=""`,
		`call ok api.everything.echo #2 job="e"`,
		`intent intent api.everything.echo #1 job=""`,
		`intent intent api.everything.echo #2 job="e"`,
		`run started  #0 job=""`,
		`run_end ok  #0 job=""`,
	}
	if !slices.Equal(got, want) {
		t.Fatalf("events of the run:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestJobsListTookWriteLock pins how the session's jobs are read: jobs.list()
// and the pending-wait check before each program went through the store's
// write transaction, so they waited behind any other writer of the SQLite
// file (another process holding its write lock) and blocked writers
// themselves. Now they are reads: with another connection holding a write
// transaction, a program listing its jobs runs at once. (The bound only
// fails the test; nothing is timed.)
func TestJobsListTookWriteLock(t *testing.T) {
	dir := t.TempDir()
	rt, hu := heldRuntime(t, dir)
	if res := runIn(t, rt, "s", `jobs.submit("e", api.everything.echo, message="hi")`+"\n"); !res.OK() {
		t.Fatalf("submit: %s", res.Text())
	}
	<-hu.started // the job is claimed and its call under way
	ctx := context.Background()
	conn, err := stateDB(t, dir).Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(ctx, "ROLLBACK")
	type got struct {
		res  *runtime.Result
		wait *runtime.JobWait
		err  error
	}
	done := make(chan got, 1)
	go func() {
		res, err := rt.Run(ctx, "s", `print([(x["name"], x["state"]) for x in jobs.list()])`+"\n")
		done <- got{res, rt.PendingWait("s"), err}
	}()
	select {
	case g := <-done:
		if g.err != nil || !g.res.OK() || g.res.Output != "[('e', 'running')]\n" || g.wait != nil {
			t.Fatalf("got %v, %v (wait %v)", g.res, g.err, g.wait)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("jobs.list() waited behind another connection's write transaction")
	}
}
