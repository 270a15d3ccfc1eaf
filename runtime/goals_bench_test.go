package runtime_test

import (
	"context"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/internal/testpack"
	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/manifest"
	"github.com/codemode-dev/codemode/readgate"
	"github.com/codemode-dev/codemode/runtime"
	"github.com/codemode-dev/codemode/runtime/monty"
	"github.com/codemode-dev/codemode/runtime/upstream"
)

// The benchmarks in this file measure issue 18's runtime goals, each as a
// ratio of two things timed side by side in the same iterations (so both
// see the same machine load). cmd/bench prints them beside their targets.

// echoUpstream is an in-process upstream: every call answers "Echo: " and
// the message at once, so a benchmark times codemode, not a server.
type echoUpstream struct{}

func (echoUpstream) Call(_ context.Context, _ *manifest.Tool, args map[string]any) (*upstream.Result, error) {
	m, _ := args["message"].(string)
	return &upstream.Result{Value: "Echo: " + m}, nil
}

func (echoUpstream) Close() error { return nil }

// goalRuntime opens a runtime over a pack of MCP tool-list files from the
// corpus (everything first, its calls answered in process by echoUpstream).
func goalRuntime(b testing.TB, lists []string, mutate func(*runtime.Config)) *runtime.Runtime {
	b.Helper()
	dir := b.TempDir()
	yaml := "out: api\nservices:\n"
	for _, l := range lists {
		abs, err := filepath.Abs(filepath.Join("..", "testdata", "corpus", "mcp", l+".json"))
		if err != nil {
			b.Fatal(err)
		}
		yaml += "  - name: " + strings.ReplaceAll(l, "-", "_") + "\n    mcp: " + abs + "\n"
	}
	p := testpack.Build(b, dir, yaml)
	rt, err := p.OpenRuntime(context.Background(), func(c *runtime.Config) {
		c.Upstreams = map[ir.ServiceName]upstream.Upstream{"everything": echoUpstream{}}
		c.ReadGate = readgate.Off
		c.Limits.Time = 10 * time.Second
		c.Limits.Calls = 5000
		c.Limits.Output = 1 << 20
		if mutate != nil {
			mutate(c)
		}
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { rt.Close() })
	return rt
}

// allLists is every MCP tool list of the corpus, everything first.
func allLists(b testing.TB) []string {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "corpus", "mcp", "*.json"))
	out := []string{"everything"}
	for _, f := range files {
		if n := strings.TrimSuffix(filepath.Base(f), ".json"); n != "everything" {
			out = append(out, n)
		}
	}
	if len(out) < 10 {
		b.Fatalf("%d tool lists in the corpus", len(out))
	}
	return out
}

func mustRun(b *testing.B, rt *runtime.Runtime, code, want string) time.Duration {
	d, _ := mustRunHandOut(b, rt, code, want)
	return d
}

// mustRunHandOut is mustRun, also returning the program's wait for its
// worker.
func mustRunHandOut(b *testing.B, rt *runtime.Runtime, code, want string) (time.Duration, time.Duration) {
	b.Helper()
	start := time.Now()
	res, err := rt.Run(context.Background(), "b", code)
	d := time.Since(start)
	if err != nil || !res.OK() || res.Output != want {
		b.Fatalf("%q: %v %s %q", code, err, res.Error, res.Output)
	}
	return d, res.HandOut
}

// bareWorker is a Monty worker configured as the runtime's are, without
// a type check: the floor a trivial run_code is compared with.
func bareWorker(b *testing.B) *monty.Worker {
	bin, err := monty.FindBinary()
	if err != nil {
		b.Fatal(err)
	}
	w, err := monty.Start(context.Background(), bin)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { w.Close() })
	if err := w.Configure(monty.Config{ScriptName: runtime.ScriptName}); err != nil {
		b.Fatal(err)
	}
	return w
}

func bareFeed(b *testing.B, w *monty.Worker, code string) time.Duration {
	start := time.Now()
	out, err := w.Feed(context.Background(), code, nil, monty.Funcs{OnPrint: func(monty.Stream, string) {}})
	d := time.Since(start)
	if err != nil || !out.OK() {
		b.Fatal(err, out)
	}
	return d
}

// refillPause lets the pool replace the worker the last program took
// (untimed): the latency measured is the one an agent sees between turns.
const refillPause = 150 * time.Millisecond

// BenchmarkRunCodeFloor is a warm trivial run_code (print(1)) without the
// type check beside a bare Monty feed of the same program (notc-x-feed,
// goal <= 50), with the type check on a one-service pack (tc-ms, goal <= 3),
// and a program using one service on that pack and on a pack of every
// corpus tool list (tc-large/small, goal: not growing, <= 1.5).
func BenchmarkRunCodeFloor(b *testing.B) {
	notc := goalRuntime(b, []string{"everything"}, func(c *runtime.Config) { c.NoTypeCheck = true })
	small := goalRuntime(b, []string{"everything"}, nil)
	large := goalRuntime(b, allLists(b), nil)
	bare := bareWorker(b)
	const oneService = "print(api.everything.echo(message='x'))\n"
	for _, rt := range []*runtime.Runtime{notc, small, large} {
		mustRun(b, rt, oneService, "Echo: x\n")
	}
	bareFeed(b, bare, "print(1)\n")
	var feed, runNoTC, runTC, useSmall, useLarge, handOut time.Duration
	for b.Loop() {
		b.StopTimer()
		time.Sleep(refillPause)
		b.StartTimer()
		feed += bareFeed(b, bare, "print(1)\n")
		runNoTC += mustRun(b, notc, "print(1)\n", "1\n")
		d, h := mustRunHandOut(b, small, "print(1)\n", "1\n")
		runTC, handOut = runTC+d, handOut+h
		useSmall += mustRun(b, small, oneService, "Echo: x\n")
		useLarge += mustRun(b, large, oneService, "Echo: x\n")
	}
	n := float64(b.N)
	b.ReportMetric(float64(feed)/n/1e3, "feed-µs")
	b.ReportMetric(float64(runNoTC)/n/1e6, "notc-ms")
	b.ReportMetric(float64(runNoTC)/float64(feed), "notc-x-feed")
	b.ReportMetric(float64(runTC)/n/1e6, "tc-ms")
	b.ReportMetric(float64(handOut)/n/1e6, "tc-handout-ms")
	b.ReportMetric(float64(useSmall)/n/1e6, "tc-small-ms")
	b.ReportMetric(float64(useLarge)/n/1e6, "tc-large-ms")
	b.ReportMetric(float64(useLarge)/float64(useSmall), "tc-large/small")
}

// BenchmarkCallOverhead is one call from a program to an in-process
// upstream beside the same upstream call made straight from Go and a bare
// Monty host round trip, all in the same iterations: overhead-x-hostcall
// is (program call - direct call) / host round trip (goal <= 2), and
// ms/1000calls a program making 1,000 calls (goal <= 60). Each iteration
// starts after refillPause, as BenchmarkRunCodeFloor's do: without it the
// calls were timed while the pool started the workers that replace the
// last programs' (sandboxed processes starting on the other core), and
// the ratio moved from 1.0 to 2.3 from one run to the next.
func BenchmarkCallOverhead(b *testing.B) {
	rt := goalRuntime(b, []string{"everything"}, func(c *runtime.Config) { c.NoTypeCheck = true })
	svc, _ := rt.Manifest().Service("everything")
	tool, _ := svc.Tool("echo")
	var up upstream.Upstream = echoUpstream{}
	bare := bareWorker(b)
	const calls = 1000
	prog := "n = 0\nfor i in range(1000):\n    n += len(api.everything.echo(message='x'))\nprint(n)\n"
	hostProg := "n = 0\nfor i in range(1000):\n    n += len(f(message='x'))\nprint(n)\n"
	host := func() time.Duration {
		start := time.Now()
		out, err := bare.Feed(context.Background(), hostProg, []monty.NamedValue{{Name: "f", Value: monty.Function{Name: "f"}}}, monty.Funcs{
			OnPrint: func(monty.Stream, string) {},
			OnCall:  func(context.Context, *monty.Call) (monty.Reply, error) { return monty.Return("Echo: x"), nil },
		})
		if err != nil || !out.OK() {
			b.Fatal(err, out)
		}
		return time.Since(start)
	}
	host()
	mustRun(b, rt, prog, "7000\n")
	var tHost, tProg, tDirect time.Duration
	for b.Loop() {
		b.StopTimer()
		time.Sleep(refillPause)
		b.StartTimer()
		tHost += host()
		tProg += mustRun(b, rt, prog, "7000\n")
		start := time.Now()
		for range calls {
			if _, err := up.Call(context.Background(), tool, map[string]any{"message": "x"}); err != nil {
				b.Fatal(err)
			}
		}
		tDirect += time.Since(start)
	}
	n := float64(b.N) * calls
	b.ReportMetric(float64(tHost)/n/1e3, "host-µs/call")
	b.ReportMetric(float64(tDirect)/n/1e3, "direct-µs/call")
	b.ReportMetric(float64(tProg)/n/1e3, "program-µs/call")
	b.ReportMetric(float64(tProg-tDirect)/float64(tHost), "overhead-x-hostcall")
	b.ReportMetric(float64(tProg)/float64(b.N)/1e6, "ms/1000calls")
}

// BenchmarkPoolUnderLoad hands workers out to 1, 8 and 32 programs running
// at once (each a trivial run_code, back to back for the round), over a
// pool of 4 that may grow to 16 while programs wait: hand-out latency p50
// and p99 per level (the wait in the pool, from the program's arrival to
// its worker), in ms, over every iteration; the same over the iterations
// after the first, once the pool has grown (p50-ms@N-grown,
// p99-ms@N-grown); and the workers the pool keeps after the level
// (kept@N, the last iteration's).
func BenchmarkPoolUnderLoad(b *testing.B) {
	rt := goalRuntime(b, []string{"everything"}, func(c *runtime.Config) { c.NoTypeCheck = true; c.Workers = 4 })
	levels := []int{1, 8, 32}
	waits := make([][]time.Duration, len(levels))
	grown := make([][]time.Duration, len(levels))
	kept := make([]int, len(levels))
	for iter := 0; b.Loop(); iter++ {
		for i, c := range levels {
			b.StopTimer()
			time.Sleep(4 * refillPause) // a full pool at the start of each level
			b.StartTimer()
			var mu sync.Mutex
			var wg sync.WaitGroup
			for range c {
				wg.Add(1)
				go func() {
					defer wg.Done()
					res, err := rt.Run(context.Background(), "b", "print(1)\n")
					if err != nil || !res.OK() {
						b.Error(err, res.Error)
						return
					}
					mu.Lock()
					waits[i] = append(waits[i], res.HandOut)
					if iter > 0 {
						grown[i] = append(grown[i], res.HandOut)
					}
					mu.Unlock()
				}()
			}
			wg.Wait()
			kept[i] = rt.KeptWorkers()
		}
	}
	pct := func(ws []time.Duration, q float64) float64 {
		return float64(ws[min(len(ws)-1, int(q*float64(len(ws))))]) / 1e6
	}
	for i, c := range levels {
		n := strconv.Itoa(c)
		slices.Sort(waits[i])
		b.ReportMetric(pct(waits[i], 0.50), "p50-ms@"+n)
		b.ReportMetric(pct(waits[i], 0.99), "p99-ms@"+n)
		if len(grown[i]) > 0 {
			slices.Sort(grown[i])
			b.ReportMetric(pct(grown[i], 0.50), "p50-ms@"+n+"-grown")
			b.ReportMetric(pct(grown[i], 0.99), "p99-ms@"+n+"-grown")
		}
		b.ReportMetric(float64(kept[i]), "kept@"+n)
	}
}
