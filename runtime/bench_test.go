package runtime_test

import (
	"context"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/runtime"
)

// BenchmarkTrivialProgram is one run_code of a program that calls nothing,
// from a warm pool: worker hand-out, configure, pre-import, type check, run.
func BenchmarkTrivialProgram(b *testing.B) {
	rt := newBenchRuntime(b, nil)
	for b.Loop() {
		res, err := rt.Run(context.Background(), "b", "print(1)\n")
		if err != nil || !res.OK() {
			b.Fatal(err, res.Error)
		}
	}
}

// BenchmarkTrivialProgramWarm is the latency an agent sees: the pool has
// had time to refill between programs (the pause is not timed).
func BenchmarkTrivialProgramWarm(b *testing.B) {
	rt := newBenchRuntime(b, nil)
	for b.Loop() {
		b.StopTimer()
		time.Sleep(60 * time.Millisecond)
		b.StartTimer()
		res, err := rt.Run(context.Background(), "b", "print(1)\n")
		if err != nil || !res.OK() {
			b.Fatal(err, res.Error)
		}
	}
}

// BenchmarkTrivialProgramNoTypeCheck is the same without the type check.
func BenchmarkTrivialProgramNoTypeCheck(b *testing.B) {
	rt := newBenchRuntime(b, func(c *runtime.Config) { c.NoTypeCheck = true })
	for b.Loop() {
		res, err := rt.Run(context.Background(), "b", "print(1)\n")
		if err != nil || !res.OK() {
			b.Fatal(err, res.Error)
		}
	}
}

// BenchmarkCallDirect calls the upstream straight from Go: the baseline for
// BenchmarkCallInProgram.
func BenchmarkCallDirect(b *testing.B) {
	rt := newBenchRuntime(b, nil)
	svc, _ := rt.Manifest().Service("everything")
	tool, _ := svc.Tool("echo")
	up := benchUpstreams[ir.ServiceName("everything")]
	for b.Loop() {
		if _, err := up.Call(context.Background(), tool, map[string]any{"message": "x"}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCallInProgram is one tool call made by a program, measured as
// the time of a program making 100 calls divided by 100: binding,
// validation, the sandbox round trip and the upstream call.
func BenchmarkCallInProgram(b *testing.B) {
	rt := newBenchRuntime(b, func(c *runtime.Config) { c.Limits.Calls = 2000 })
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

// Benchmark1000Calls is one program making 1,000 tool calls.
func Benchmark1000Calls(b *testing.B) {
	rt := newBenchRuntime(b, func(c *runtime.Config) { c.Limits.Calls = 2000 })
	code := "n = 0\nfor i in range(1000):\n    n += len(api.everything.echo(message='x'))\nprint(n)\n"
	for b.Loop() {
		res, err := rt.Run(context.Background(), "b", code)
		if err != nil || !res.OK() || res.Output != "7000\n" {
			b.Fatal(err, res.Error, res.Output)
		}
	}
}

// BenchmarkRuntimeCall is one Runtime.Call (every check, pins included,
// then the upstream); BenchmarkRuntimeCallNoPins the same without the pin
// check, so their ratio is what checking pins costs a call once the live
// list is fresh.
func BenchmarkRuntimeCall(b *testing.B) { benchRuntimeCall(b, false) }

func BenchmarkRuntimeCallNoPins(b *testing.B) { benchRuntimeCall(b, true) }

// BenchmarkRuntimeCallRelist re-lists the live tools before every call
// (a TTL of 1ns): what a call pays when its service's last look is stale.
func BenchmarkRuntimeCallRelist(b *testing.B) { benchRuntimeCall(b, false, time.Nanosecond) }

func benchRuntimeCall(b *testing.B, noPins bool, ttl ...time.Duration) {
	rt := newBenchRuntime(b, func(c *runtime.Config) {
		c.NoPins = noPins
		if len(ttl) > 0 {
			c.PinTTL = ttl[0]
		}
	})
	for b.Loop() {
		res, err := rt.Call(context.Background(), "b", "everything.echo", map[string]any{"message": "x"})
		if err != nil || res.Status != "ok" {
			b.Fatal(err, res)
		}
	}
}

// BenchmarkParallelCalls is 8 calls of a tool that takes 1 s
// (server-everything's trigger-long-running-operation), made one after
// another and then gathered as api.aio calls; seq/par is the speed-up.
func BenchmarkParallelCalls(b *testing.B) {
	rt := newBenchRuntime(b, func(c *runtime.Config) { c.Limits.Time = 30 * time.Second })
	seq := "for i in range(8):\n    api.everything.trigger_long_running_operation(duration=1, steps=1)\n"
	par := "import asyncio\nawait asyncio.gather(*[api.aio.everything.trigger_long_running_operation(duration=1, steps=1) for i in range(8)])\n"
	var tseq, tpar time.Duration
	for b.Loop() {
		for _, p := range []struct {
			code string
			d    *time.Duration
		}{{seq, &tseq}, {par, &tpar}} {
			start := time.Now()
			res, err := rt.Run(context.Background(), "b", p.code)
			if err != nil || !res.OK() || len(res.Calls) != 8 {
				b.Fatal(err, res.Text())
			}
			*p.d += time.Since(start)
		}
	}
	b.ReportMetric(tseq.Seconds()/float64(b.N), "seq-s/op")
	b.ReportMetric(tpar.Seconds()/float64(b.N), "par-s/op")
	b.ReportMetric(float64(tseq)/float64(tpar), "seq/par")
}
