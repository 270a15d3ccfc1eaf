package runtime_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/audit"
	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/manifest"
	"github.com/codemode-dev/codemode/runtime"
	"github.com/codemode-dev/codemode/runtime/upstream"
)

// memAudit keeps events in memory; fail, when set, makes Record fail for
// the events it returns an error for.
type memAudit struct {
	mu   sync.Mutex
	evs  []runtime.Event
	fail func(runtime.Event) error
}

func (m *memAudit) Record(ev runtime.Event) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail != nil {
		if err := m.fail(ev); err != nil {
			return err
		}
	}
	m.evs = append(m.evs, ev)
	return nil
}

// lines renders the events as "kind status tool #call", one per event.
func (m *memAudit) lines() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var b strings.Builder
	for _, ev := range m.evs {
		fmt.Fprintf(&b, "%s %s", ev.Kind, ev.Status)
		if ev.Tool != "" {
			fmt.Fprintf(&b, " %s #%d", ev.Tool, ev.Call)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func (m *memAudit) events() []runtime.Event {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]runtime.Event(nil), m.evs...)
}

// counted wraps an upstream and counts the calls that reach it.
type counted struct {
	upstream.Upstream
	n atomic.Int64
}

func (c *counted) Call(ctx context.Context, tool *manifest.Tool, args map[string]any) (*upstream.Result, error) {
	c.n.Add(1)
	return c.Upstream.Call(ctx, tool, args)
}

func auditedRuntime(t *testing.T, a runtime.Auditor, mutate func(*runtime.Config)) (*runtime.Runtime, *counted) {
	t.Helper()
	var up *counted
	rt := newRuntime(t, func(c *runtime.Config) {
		up = &counted{Upstream: c.Upstreams["everything"]}
		c.Upstreams["everything"] = up
		c.Audit = a
		if mutate != nil {
			mutate(c)
		}
	})
	return rt, up
}

// TestCallsReachTheUpstreamUnaudited pins defect 3's core: the run event
// (with its code) is written when the run starts, each call's intent
// before its request leaves, and its outcome, with what the program got,
// after.
func TestCallsReachTheUpstreamUnaudited(t *testing.T) {
	a := &memAudit{}
	rt, _ := auditedRuntime(t, a, nil)
	code := "print(api.everything.echo(message='hi'))\ntry:\n    run_tool('get-sum', {'a': 'x', 'b': 1})\nexcept Exception as e:\n    pass\n"
	res := run(t, rt, code)
	if got := res.Text(); got != "Echo: hi\n[2 tool calls, 1 failed]\n" {
		t.Fatalf("run: %q", got)
	}
	want := "run started\n" +
		"intent intent api.everything.echo #1\n" +
		"call ok api.everything.echo #1\n" +
		"call invalid api.everything.get_sum #2\n" +
		"run_end ok\n"
	if got := a.lines(); got != want {
		t.Fatalf("events:\n%s\nwant:\n%s", got, want)
	}
	evs := a.events()
	if c := evs[0].Code; c == nil || c.Text != code || c.Bytes != len(code) || c.SHA256 != sha(code) {
		t.Errorf("run event's code: %+v", c)
	}
	if p := evs[1].Args; p == nil || string(p.Value) != `{"message":"hi"}` || p.SHA256 != sha(`{"message":"hi"}`) {
		t.Errorf("intent's args: %+v", p)
	}
	if evs[2].Args != nil || evs[2].Result == nil || string(evs[2].Result.Value) != `"Echo: hi"` {
		t.Errorf("outcome: args %+v result %+v", evs[2].Args, evs[2].Result)
	}
	if p := evs[3].Args; p == nil || string(p.Value) != `{"a":"x","b":1}` {
		t.Errorf("invalid call's args: %+v", p)
	}
	for _, ev := range evs {
		if ev.RunID != res.RunID || ev.Session != "s1" {
			t.Errorf("event %s not linked to the run: %q %q", ev.Kind, ev.RunID, ev.Session)
		}
	}
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// TestCallCutByTimeLimitWasNotAudited: a call the time limit cuts has its
// intent and a "cut" outcome.
func TestCallCutByTimeLimitWasNotAudited(t *testing.T) {
	a := &memAudit{}
	rt, _ := auditedRuntime(t, a, func(c *runtime.Config) {
		c.Upstreams[ir.ServiceName("everything")] = hanging{}
		c.Limits.Time = 500 * time.Millisecond
	})
	res := run(t, rt, "api.everything.echo(message='x')\n")
	if res.Limit != "time" {
		t.Fatalf("limit %q: %s", res.Limit, res.Error)
	}
	want := "run started\n" +
		"intent intent api.everything.echo #1\n" +
		"call cut api.everything.echo #1\n" +
		"run_end error\n"
	if got := a.lines(); got != want {
		t.Fatalf("events:\n%s\nwant:\n%s", got, want)
	}
	if m := a.events()[2].Message; m != "the time limit stopped the run during this call" {
		t.Errorf("cut message %q", m)
	}
}

// TestCancelledCallWasNotAudited: a call in flight when its run is
// cancelled has its intent and a "cancelled" outcome.
func TestCancelledCallWasNotAudited(t *testing.T) {
	a := &memAudit{}
	entered := make(chan struct{})
	rt, _ := auditedRuntime(t, a, func(c *runtime.Config) {
		c.Upstreams[ir.ServiceName("everything")] = signalling{entered}
	})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-entered
		cancel()
	}()
	res, err := rt.Run(ctx, "s", "api.everything.echo(message='x')\n")
	if err != nil || !strings.HasPrefix(res.Error, "cancelled") {
		t.Fatalf("run: %v %+v", err, res)
	}
	want := "run started\n" +
		"intent intent api.everything.echo #1\n" +
		"call cancelled api.everything.echo #1\n" +
		"run_end error\n"
	if got := a.lines(); got != want {
		t.Fatalf("events:\n%s\nwant:\n%s", got, want)
	}
}

// signalling is a hanging upstream that says when a call reaches it.
type signalling struct{ entered chan struct{} }

func (s signalling) Call(ctx context.Context, _ *manifest.Tool, _ map[string]any) (*upstream.Result, error) {
	close(s.entered)
	<-ctx.Done()
	return nil, ctx.Err()
}
func (signalling) Close() error { return nil }

// TestFailedAuditWriteWasIgnored: when the intent cannot be written the
// call never reaches the upstream, and the program stops with one line
// saying why; the same for a log on a full device.
func TestFailedAuditWriteWasIgnored(t *testing.T) {
	a := &memAudit{fail: func(ev runtime.Event) error {
		if ev.Kind == "intent" {
			return errors.New("audit: writing /var/log/audit.jsonl: no space left on device")
		}
		return nil
	}}
	rt, up := auditedRuntime(t, a, nil)
	res := run(t, rt, "print('before')\ntry:\n    api.everything.echo(message='x')\nexcept Exception as e:\n    print('caught', e)\nprint('after')\n")
	want := "before\n[0 tool calls]\n\nAuditError: the audit log could not be written, so api.everything.echo was not called and the program was stopped: audit: writing /var/log/audit.jsonl: no space left on device\n"
	if got := res.Text(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if n := up.n.Load(); n != 0 {
		t.Errorf("the upstream saw %d calls", n)
	}
	if got, want := a.lines(), "run started\nrun_end error\n"; got != want {
		t.Errorf("events:\n%s\nwant:\n%s", got, want)
	}

	// Direct mode: the call is not made, the result says why.
	cr, err := rt.Call(context.Background(), "s", "echo", map[string]any{"message": "x"})
	if err != nil || cr.Status != "error" || cr.Message != "AuditError: the audit log could not be written, so api.everything.echo was not called: audit: writing /var/log/audit.jsonl: no space left on device" {
		t.Errorf("direct call: %v %+v", err, cr)
	}
	if n := up.n.Load(); n != 0 {
		t.Errorf("the upstream saw %d calls", n)
	}

	// A real file on a full device.
	full, err := audit.Open("/dev/full")
	if err != nil {
		t.Skipf("no /dev/full: %v", err)
	}
	defer full.Close()
	rt2, up2 := auditedRuntime(t, full, nil)
	_, err = rt2.Run(context.Background(), "s", "api.everything.echo(message='x')\n")
	if err == nil || err.Error() != "the audit log could not be written, so nothing ran: audit: writing /dev/full: write /dev/full: no space left on device" {
		t.Errorf("run on a full device: %v", err)
	}
	cr, err = rt2.Call(context.Background(), "s", "echo", map[string]any{"message": "x"})
	if err != nil || cr.Status != "error" || cr.Message != "AuditError: the audit log could not be written, so api.everything.echo was not called: audit: writing /dev/full: write /dev/full: no space left on device" {
		t.Errorf("direct call on a full device: %v %+v", err, cr)
	}
	if n := up2.n.Load(); n != 0 {
		t.Errorf("the upstream saw %d calls", n)
	}
}

// TestRunEventUnwrittenStillRan: if the run event cannot be written,
// nothing runs.
func TestRunEventUnwrittenStillRan(t *testing.T) {
	a := &memAudit{fail: func(runtime.Event) error { return errors.New("audit: log is closed") }}
	rt, up := auditedRuntime(t, a, nil)
	res, err := rt.Run(context.Background(), "s", "print('x')\napi.everything.echo(message='x')\n")
	if err == nil || err.Error() != "the audit log could not be written, so nothing ran: audit: log is closed" || res != nil {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	if n := up.n.Load(); n != 0 {
		t.Errorf("the upstream saw %d calls", n)
	}
}

// denyAll refuses every call by policy.
type denyAll struct{}

func (denyAll) Before(context.Context, *runtime.CallInfo) runtime.Verdict {
	return runtime.Verdict{Deny: "nothing is allowed today"}
}
func (denyAll) After(context.Context, *runtime.CallInfo, *upstream.Result) runtime.Verdict {
	return runtime.Verdict{}
}

// TestRefusedCallsLogFullArguments: a refused or invalid 5 MB argument
// stays under the cap in the log, with the size and digest of the whole.
func TestRefusedCallsLogFullArguments(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l, err := audit.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	rt, up := auditedRuntime(t, l, func(c *runtime.Config) {
		c.Hooks = append(c.Hooks, denyAll{})
		c.Limits.Memory = 256 << 20
	})
	res := run(t, rt, "big = 'x' * (5 * 1024 * 1024)\n"+
		"for i in range(10):\n"+
		"    try:\n        api.everything.echo(message=big)\n    except (PermissionError, ValueError):\n        pass\n"+
		"    try:\n        run_tool('get-sum', {'a': big, 'b': 1})\n    except (TypeError, ValueError):\n        pass\n")
	if res.Error != "" || len(res.Calls) != 20 || up.n.Load() != 0 {
		t.Fatalf("run: %s %d calls, upstream %d", res.Error, len(res.Calls), up.n.Load())
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("twenty refused 5 MB calls: the log is %d bytes", st.Size())
	// 22 events, each under the caps (args, a message) and the fixed fields.
	if st.Size() > 22*(runtime.AuditCap+runtime.AuditMessageCap+2048) {
		t.Errorf("the log grew to %d bytes", st.Size())
	}
	if _, err := audit.Verify(path); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	whole := `{"message":"` + strings.Repeat("x", 5<<20) + `"}`
	var ev struct {
		Kind, Status string
		Args         runtime.Payload
	}
	if err := json.Unmarshal([]byte(strings.Split(string(data), "\n")[1]), &ev); err != nil {
		t.Fatal(err)
	}
	// Validation's 4 MiB argument cap refuses it before the policy hook can.
	if ev.Kind != "call" || ev.Status != "invalid" || !ev.Args.Cut || ev.Args.Text != whole[:runtime.AuditCap] || ev.Args.Bytes != len(whole) || ev.Args.SHA256 != sha(whole) {
		t.Errorf("refused call: %s %s cut=%v %d bytes, %s, text %d bytes", ev.Kind, ev.Status, ev.Args.Cut, ev.Args.Bytes, ev.Args.SHA256, len(ev.Args.Text))
	}
}

// BenchmarkCallInProgramAudited is BenchmarkCallInProgram with an audit
// log on disk (an intent and an outcome, each synced, per call): compare
// the two ns/call for the audit's cost.
func BenchmarkCallInProgramAudited(b *testing.B) {
	l, err := audit.Open(filepath.Join(b.TempDir(), "audit.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	rt := newBenchRuntime(b, func(c *runtime.Config) { c.Limits.Calls = 2000; c.Audit = l })
	code := "for i in range(100):\n    api.everything.echo(message='x')\n"
	b.ResetTimer()
	for range b.N {
		res, err := rt.Run(context.Background(), "b", code)
		if err != nil || !res.OK() {
			b.Fatal(err, res.Error)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*100), "ns/call")
}
