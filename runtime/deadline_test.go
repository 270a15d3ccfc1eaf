package runtime_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/manifest"
	"github.com/codemode-dev/codemode/runtime"
	"github.com/codemode-dev/codemode/runtime/upstream"
)

// blockingUpstream holds every call until its context ends and reports
// why it ended.
type blockingUpstream struct {
	upstream.Upstream
	ended chan error
}

func (u *blockingUpstream) Call(ctx context.Context, _ *manifest.Tool, _ map[string]any) (*upstream.Result, error) {
	<-ctx.Done()
	u.ended <- ctx.Err()
	return nil, ctx.Err()
}

// withBlockingEverything is a runtime whose everything service blocks in
// every call, with the given time limit.
func withBlockingEverything(t testing.TB, limit time.Duration) (*runtime.Runtime, *blockingUpstream) {
	u := &blockingUpstream{ended: make(chan error, 1)}
	rt := newRuntime(t, func(c *runtime.Config) {
		u.Upstream = c.Upstreams[ir.ServiceName("everything")]
		c.Upstreams[ir.ServiceName("everything")] = u
		c.Limits.Time = limit
	})
	return rt, u
}

// TestTimeLimitCutsHostCall: a program waiting on an upstream call past its
// time limit is stopped by the time limit, which names the call, and the
// upstream call's context is cancelled at the program's deadline (not left
// running).
func TestTimeLimitCutsHostCall(t *testing.T) {
	rt, u := withBlockingEverything(t, 300*time.Millisecond)
	res := run(t, rt, "print('before')\napi.everything.echo(message='x')\nprint('after')\n")
	if res.Limit != "time" {
		t.Fatalf("limit = %q (%s), want time", res.Limit, res.Error)
	}
	// The error names the call it was waiting on and for how long; the
	// call was long: the hint names the primitive for that.
	const head = "LimitError: time limit (300ms) exceeded while api.everything.echo had waited "
	const tail = " for its upstream; the program was stopped. Make fewer or smaller calls, or filter less data per program." +
		"\nHint: " + wantJobsHint + "."
	waited, okHead := strings.CutPrefix(res.Error, head)
	waited, okTail := strings.CutSuffix(waited, tail)
	if !okHead || !okTail {
		t.Fatalf("error = %q, want %q<duration>%q", res.Error, head, tail)
	}
	// From the request to the cut: the time to the limit, and the few
	// milliseconds the cut takes (BenchmarkTimeLimitLateness).
	if d, err := time.ParseDuration(waited); err != nil || d <= 200*time.Millisecond || d > 400*time.Millisecond {
		t.Errorf("waited %q (%v), want about the time to the limit", waited, err)
	}
	var le *runtime.LimitError
	if !errors.As(res.Err, &le) || le.Limit != "time" {
		t.Errorf("Err = %#v, want a time LimitError", res.Err)
	}
	select {
	case err := <-u.ended:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("upstream call ended with %v, want the deadline", err)
		}
	default:
		t.Error("the upstream call was not cancelled")
	}
	if res.Output != "before\n" {
		t.Errorf("output = %q", res.Output)
	}
}

// BenchmarkTimeLimitLateness is a program blocked in an upstream call past
// a 200 ms time limit: ms-late is how long after the limit Run returned
// (the goal is under 100).
func BenchmarkTimeLimitLateness(b *testing.B) {
	const limit = 200 * time.Millisecond
	rt, u := withBlockingEverything(b, limit)
	var late time.Duration
	for b.Loop() {
		start := time.Now()
		res, err := rt.Run(context.Background(), "b", "api.everything.echo(message='x')\n")
		late += time.Since(start) - limit
		if err != nil || res.Limit != "time" {
			b.Fatal(err, res.Error)
		}
		<-u.ended
	}
	b.ReportMetric(late.Seconds()*1000/float64(b.N), "ms-late")
}
