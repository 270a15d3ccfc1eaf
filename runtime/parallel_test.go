package runtime_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/codemode-dev/codemode/manifest"
	"github.com/codemode-dev/codemode/runtime"
	"github.com/codemode-dev/codemode/runtime/upstream"
)

// barrier wraps an upstream: each call waits until n calls are in the
// upstream at once (or the call's context ends), then goes on; peak is the
// most calls it saw in at once. Serial calls never meet at the barrier.
type barrier struct {
	upstream.Upstream
	n    int
	mu   sync.Mutex
	in   int
	peak int
	met  chan struct{}
	once sync.Once
}

func newBarrier(up upstream.Upstream, n int) *barrier {
	return &barrier{Upstream: up, n: n, met: make(chan struct{})}
}

func (b *barrier) Call(ctx context.Context, tool *manifest.Tool, args map[string]any) (*upstream.Result, error) {
	b.mu.Lock()
	b.in++
	b.peak = max(b.peak, b.in)
	if b.in >= b.n {
		b.once.Do(func() { close(b.met) })
	}
	b.mu.Unlock()
	defer func() { b.mu.Lock(); b.in--; b.mu.Unlock() }()
	select {
	case <-b.met:
	case <-ctx.Done():
		return nil, fmt.Errorf("the calls never ran at the same time: %w", ctx.Err())
	}
	return b.Upstream.Call(ctx, tool, args)
}

func barrierRuntime(t *testing.T, n int, a runtime.Auditor, mutate func(*runtime.Config)) (*runtime.Runtime, *barrier) {
	var b *barrier
	rt := newRuntime(t, func(c *runtime.Config) {
		b = newBarrier(c.Upstreams["everything"], n)
		c.Upstreams["everything"] = b
		c.Audit = a
		if mutate != nil {
			mutate(c)
		}
	})
	return rt, b
}

const gatherFour = `import asyncio
rs = await asyncio.gather(*[api.aio.everything.echo(message=str(i)) for i in range(4)])
print([r for r in rs])
`

// TestGatheredCallsRunSerially pins the defect: asyncio.gather over api
// calls ran them one after another. Four aio calls meet at a barrier of
// four in the upstream, and each has its own intent and call events.
func TestGatheredCallsRunSerially(t *testing.T) {
	a := &memAudit{}
	rt, b := barrierRuntime(t, 4, a, func(c *runtime.Config) { c.Limits.Output = 4000 })
	res := run(t, rt, gatherFour)
	if !res.OK() {
		t.Fatalf("program failed: %s", res.Text())
	}
	if b.peak != 4 {
		t.Fatalf("peak calls in the upstream at once = %d, want 4", b.peak)
	}
	want := "['Echo: 0', 'Echo: 1', 'Echo: 2', 'Echo: 3']\n"
	if res.Output != want {
		t.Fatalf("output %q, want %q", res.Output, want)
	}
	if len(res.Calls) != 4 {
		t.Fatalf("calls %+v, want 4", res.Calls)
	}
	lines := a.lines()
	for i := 1; i <= 4; i++ {
		for _, ev := range []string{"intent intent", "call ok"} {
			if l := fmt.Sprintf("%s api.everything.echo #%d\n", ev, i); !strings.Contains(lines, l) {
				t.Errorf("audit lacks %q:\n%s", l, lines)
			}
		}
	}
}

// TestParallelCallsExceedCap: max_parallel 2 keeps at most two aio calls in
// the upstream at once, however many the program gathers.
func TestParallelCallsExceedCap(t *testing.T) {
	rt, b := barrierRuntime(t, 2, nil, func(c *runtime.Config) { c.MaxParallel = 2; c.Limits.Output = 4000 })
	res := run(t, rt, gatherFour)
	if !res.OK() {
		t.Fatalf("program failed: %s", res.Text())
	}
	if b.peak != 2 {
		t.Fatalf("peak calls in the upstream at once = %d, want 2", b.peak)
	}
}

// TestAioCallWithoutAwaitIsTypeError: an aio call's result used as a value
// without await is a type error, and nothing is called; a plain call in
// the same program shape stays plain.
func TestAioCallWithoutAwaitIsTypeError(t *testing.T) {
	rt := newRuntime(t, nil)
	res := run(t, rt, "r = api.aio.everything.echo(message='x')\nprint(r.upper())\n")
	if !strings.Contains(res.Error, "Type check failed, nothing ran") || len(res.Calls) != 0 {
		t.Fatalf("want a type error and no call, got:\n%s", res.Text())
	}
	res = run(t, rt, "import asyncio\nr = await api.aio.everything.echo(message=1)\n")
	if !strings.Contains(res.Error, "Type check failed") {
		t.Fatalf("want a type error for an int message, got:\n%s", res.Text())
	}
	res = run(t, rt, "from api.aio import everything\nprint(await everything.echo(message='y'))\n")
	if !res.OK() || res.Output != "Echo: y\n" {
		t.Fatalf("from api.aio import: %s", res.Text())
	}
}

// TestAioCallsCountTowardCallLimit: calls in flight count toward the call
// limit, so gathering more than the limit stops the program.
func TestAioCallsCountTowardCallLimit(t *testing.T) {
	rt := newRuntime(t, nil) // 20 calls per program
	res := run(t, rt, "import asyncio\nawait asyncio.gather(*[api.aio.everything.echo(message='x') for i in range(25)])\n")
	if res.Limit != "calls" {
		t.Fatalf("want the call limit, got:\n%s", res.Text())
	}
	if len(res.Calls) > 20 {
		t.Fatalf("%d calls recorded, over the limit of 20", len(res.Calls))
	}
}

// denyB refuses echo(message="b").
type denyB struct{}

func (denyB) Before(_ context.Context, c *runtime.CallInfo) runtime.Verdict {
	if c.Args["message"] == "b" {
		return runtime.Verdict{Deny: "not b"}
	}
	return runtime.Verdict{}
}
func (denyB) After(context.Context, *runtime.CallInfo, *upstream.Result) runtime.Verdict {
	return runtime.Verdict{}
}

// TestAioCallErrorRaisesAtAwait: a refused aio call raises at its await,
// where the program can catch it; the other call was still made.
func TestAioCallErrorRaisesAtAwait(t *testing.T) {
	rt := newRuntime(t, func(c *runtime.Config) { c.Hooks = []runtime.Policy{denyB{}} })
	code := `import asyncio
try:
    await asyncio.gather(api.aio.everything.echo(message='a'), api.aio.everything.echo(message='b'))
except PermissionError as e:
    print("caught", e)
`
	res := run(t, rt, code)
	want := "caught api.everything.echo was refused by policy: not b\n"
	if !res.OK() || res.Output != want {
		t.Fatalf("got:\n%s\nwant output %q", res.Text(), want)
	}
	if len(res.Calls) != 2 {
		t.Fatalf("calls %+v, want two", res.Calls)
	}
}
