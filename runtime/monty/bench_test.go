package monty

import (
	"context"
	"strconv"
	"testing"
	"time"
)

// BenchmarkSpawnReady measures Start + Configure: a worker ready to run,
// inside the OS sandbox (the default) and without it.
func BenchmarkSpawnReady(b *testing.B) {
	bin := testBin(b)
	for _, c := range []struct {
		name string
		o    StartOptions
	}{{"sandbox", StartOptions{}}, {"none", StartOptions{NoSandbox: true}}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				w := spawnReady(b, bin, c.o)
				b.StopTimer()
				w.Close()
				b.StartTimer()
			}
		})
	}
}

func spawnReady(b *testing.B, bin string, o StartOptions) *Worker {
	w, err := StartWith(context.Background(), bin, o)
	if err != nil {
		b.Fatal(err)
	}
	if err := w.Configure(Config{ScriptName: "prog.py"}); err != nil {
		b.Fatal(err)
	}
	return w
}

// BenchmarkSandboxSpawnCost reports what the OS sandbox costs at spawn:
// the ratio of spawn→ready inside it to spawn→ready without it, the two
// measured alternately so both see the same machine load.
func BenchmarkSandboxSpawnCost(b *testing.B) {
	bin := testBin(b)
	var with, without time.Duration
	for b.Loop() {
		t := time.Now()
		w := spawnReady(b, bin, StartOptions{})
		with += time.Since(t)
		w.Close()
		t = time.Now()
		w = spawnReady(b, bin, StartOptions{NoSandbox: true})
		without += time.Since(t)
		w.Close()
	}
	b.ReportMetric(float64(with)/float64(without), "sandbox/none")
	b.ReportMetric(float64(with-without)/float64(b.N)/1e6, "extra-ms/spawn")
}

// BenchmarkFeedTrivial measures one feed of a trivial snippet.
func BenchmarkFeedTrivial(b *testing.B) {
	w := newWorker(b, Config{})
	h := Funcs{}
	for b.Loop() {
		out, err := w.Feed(context.Background(), "1 + 1", nil, h)
		if err != nil || out.Value != int64(2) {
			b.Fatal(out, err)
		}
	}
}

// BenchmarkHostCall measures one host-call round trip (FunctionCall out,
// ResumeCall back) inside a running program.
func BenchmarkHostCall(b *testing.B) {
	w := newWorker(b, Config{})
	calls := 0
	h := Funcs{OnCall: func(ctx context.Context, c *Call) (Reply, error) {
		calls++
		return Return(NewDict("ok", true)), nil
	}}
	code := "for i in range(" + strconv.Itoa(b.N) + "):\n    f(x=i)\n"
	b.ResetTimer()
	out, err := w.Feed(context.Background(), code, []NamedValue{{"f", Function{Name: "f"}}}, h)
	if err != nil || !out.OK() || calls != b.N {
		b.Fatal(out, err, calls)
	}
}

// BenchmarkTypeCheckedFeed measures a feed checked against the stubs
// (after the first, which pays for the checker's start).
func BenchmarkTypeCheckedFeed(b *testing.B) {
	w := newWorker(b, Config{TypeCheck: true, TypeCheckStubs: checkStubs})
	gh := NewInstance("_github", Attr{"create_issue", Function{Name: "github.create_issue"}})
	in := []NamedValue{{"api", NewInstance("_api", Attr{"github", gh})}}
	h := Funcs{OnCall: func(ctx context.Context, c *Call) (Reply, error) {
		return Return(NewDict("number", int64(1), "title", "x")), nil
	}}
	code := "i = api.github.create_issue(title='x')\ni['number']"
	if _, err := w.Feed(context.Background(), code, in, h); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		out, err := w.Feed(context.Background(), code, in, h)
		if err != nil || out.Value != int64(1) {
			b.Fatal(out, err)
		}
	}
}

// BenchmarkDumpLoad measures restoring a small session in a fresh worker.
func BenchmarkDumpLoad(b *testing.B) {
	w := newWorker(b, Config{})
	if _, err := w.Feed(context.Background(), "state = {'k': list(range(50))}", nil, Funcs{}); err != nil {
		b.Fatal(err)
	}
	snap, err := w.Dump()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(len(snap)), "dump-bytes")
	bin := testBin(b)
	for b.Loop() {
		w2, err := Start(context.Background(), bin)
		if err != nil {
			b.Fatal(err)
		}
		if err := w2.Load(snap); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		w2.Close()
		b.StartTimer()
	}
}
