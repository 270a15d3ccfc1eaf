package runtime_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/manifest"
	"github.com/codemode-dev/codemode/runtime"
	"github.com/codemode-dev/codemode/runtime/monty"
)

// printEcho is `print(api.everything.echo(message=m))`.
func printEcho(m any) fakeProgram {
	return func(p *fakeProc) *monty.Outcome {
		v, exc := p.call("everything.echo", "message", m)
		if exc != nil {
			return &monty.Outcome{Exception: exc}
		}
		p.print(monty.Format(v) + "\n")
		return nil
	}
}

// TestFakeCallPath: a program's call passes binding, validation and the
// upstream, its value comes back to the program, and the run and the call
// are audited; a call the schema refuses raises in the program and never
// reaches the upstream.
func TestFakeCallPath(t *testing.T) {
	up := &argsUpstream{}
	a := &memAudit{}
	rt, _ := fakeRuntime(t, map[string]fakeProgram{
		`print(api.everything.echo(message="hi"))`: printEcho("hi"),
		`print(api.everything.echo(message=1))`:    printEcho(int64(1)),
	}, up, func(c *runtime.Config) { c.Audit = a })
	wantText(t, fakeRun(t, rt, "s", `print(api.everything.echo(message="hi"))`),
		"{'args': {'message': 'hi'}, 'tool': 'echo'}\n[1 tool call]\n")
	wantText(t, fakeRun(t, rt, "s", `print(api.everything.echo(message=1))`),
		"[1 tool call, 1 failed]\n\nTypeError: api.everything.echo: argument message: expected str, got int (1)\n")
	if strings.Join(up.calls, ",") != "echo" {
		t.Fatalf("upstream calls: %v", up.calls)
	}
	want := "run started\nintent intent api.everything.echo #1\ncall ok api.everything.echo #1\nrun_end ok\nrun started\ncall invalid api.everything.echo #1\nrun_end error\n"
	if got := a.lines(); got != want {
		t.Fatalf("audit:\n%s\nwant:\n%s", got, want)
	}
}

// TestFakeCallLimit: the call over Limits.Calls stops the program where it
// cannot catch it, and is not made.
func TestFakeCallLimit(t *testing.T) {
	up := &argsUpstream{}
	rt, _ := fakeRuntime(t, map[string]fakeProgram{
		"for i in range(3): api.everything.echo(message='x')": func(p *fakeProc) *monty.Outcome {
			for range 3 {
				if _, exc := p.call("everything.echo", "message", "x"); exc != nil {
					return &monty.Outcome{Exception: exc}
				}
			}
			return nil
		},
	}, up, func(c *runtime.Config) { c.Limits.Calls = 2 })
	res := fakeRun(t, rt, "s", "for i in range(3): api.everything.echo(message='x')")
	var le *runtime.LimitError
	if res.Limit != "calls" || !errors.As(res.Err, &le) || len(up.calls) != 2 {
		t.Fatalf("limit %q err %v, %d upstream calls: %s", res.Limit, res.Err, len(up.calls), res.Text())
	}
	wantText(t, res, "[2 tool calls]\n\nLimitError: call limit (2 tool calls per program) reached at api.everything.echo; the program was stopped. Filter or batch inside fewer calls\n")
}

// TestFakeTimeLimit: a program still running at the time limit is stopped
// and told so.
func TestFakeTimeLimit(t *testing.T) {
	rt, _ := fakeRuntime(t, map[string]fakeProgram{
		"while True: pass": func(p *fakeProc) *monty.Outcome { return p.wait() },
	}, &argsUpstream{}, func(c *runtime.Config) { c.Limits.Time = 50 * time.Millisecond })
	res := fakeRun(t, rt, "s", "while True: pass")
	wantText(t, res, "[0 tool calls]\n\nLimitError: time limit (50ms) exceeded; the program was stopped. Make fewer or smaller calls, or filter less data per program.\n"+
		"Hint: a program cannot wait: start the long call with jobs.submit(\"name\", api.<service>.<tool>, arg=value) and end the turn with jobs.wait(\"name\", wake_after=seconds); a later turn reads jobs.get(\"name\").\n")
	if res.Limit != "time" {
		t.Fatalf("limit %q", res.Limit)
	}
}

// TestFakeMemoryLimit: the interpreter's memory limit is a limit, not the
// program's own MemoryError.
func TestFakeMemoryLimit(t *testing.T) {
	rt, _ := fakeRuntime(t, map[string]fakeProgram{
		"x = 'a' * 10**10": func(*fakeProc) *monty.Outcome {
			return &monty.Outcome{Limit: monty.LimitMemory, Exception: &monty.Exception{Type: "MemoryError", Message: "memory limit exceeded", HasMessage: true}}
		},
	}, &argsUpstream{}, nil)
	res := fakeRun(t, rt, "s", "x = 'a' * 10**10")
	wantText(t, res, "[0 tool calls]\n\nLimitError: memory limit (256 MiB) exceeded; the program was stopped. Keep less data in variables.\n")
}

// TestFakeParallelCalls: aio calls run at the same time (three meet at a
// barrier of three in the upstream) and gather returns them in order.
func TestFakeParallelCalls(t *testing.T) {
	b := newBarrier(&argsUpstream{}, 3)
	rt, _ := fakeRuntime(t, map[string]fakeProgram{
		"print(await asyncio.gather(*[api.aio.everything.echo(message=str(i)) for i in range(3)]))": func(p *fakeProc) *monty.Outcome {
			var ids []uint32
			for i := range 3 {
				ids = append(ids, p.start("aio.everything.echo", "message", string(rune('0'+i))))
			}
			p.print(monty.Format(p.gather(ids...)) + "\n")
			return nil
		},
	}, b, func(c *runtime.Config) { c.Limits.Time = 10 * time.Second })
	res := fakeRun(t, rt, "s", "print(await asyncio.gather(*[api.aio.everything.echo(message=str(i)) for i in range(3)]))")
	wantText(t, res, "[{'args': {'message': '0'}, 'tool': 'echo'}, {'args': {'message': '1'}, 'tool': 'echo'}, {'args': {'message': '2'}, 'tool': 'echo'}]\n[3 tool calls]\n")
	if b.peak != 3 {
		t.Fatalf("at most %d calls ran at once, want 3", b.peak)
	}
}

// TestFakeWaitHoldsSession: an upstream's wait ends the program's turn and
// holds the session: its next program is refused, another session's runs.
func TestFakeWaitHoldsSession(t *testing.T) {
	rt, _ := fakeRuntime(t, map[string]fakeProgram{
		`api.everything.echo(message="launch")`: printEcho("launch"),
		`print("free")`:                         func(p *fakeProc) *monty.Outcome { p.print("free\n"); return nil },
	}, metaUpstream{meta: map[string]any{"acme/wait": "change CHG-12 needs approval"}}, func(c *runtime.Config) {
		c.WaitMeta = map[ir.ServiceName]string{"everything": "acme/wait"}
		c.StateDir = t.TempDir()
	})
	res := fakeRun(t, rt, "s", `api.everything.echo(message="launch")`)
	if !res.Wait || res.WaitTool != "api.everything.echo" || res.WaitReason != "change CHG-12 needs approval" {
		t.Fatalf("first program: %s", res.Text())
	}
	refused := fakeRun(t, rt, "s", `print("free")`)
	if !refused.Wait || refused.WaitID != res.WaitID || !strings.HasPrefix(refused.Error, "run_code refused: this session is waiting for api.everything.echo") {
		t.Fatalf("second program: %s", refused.Text())
	}
	wantText(t, fakeRun(t, rt, "other", `print("free")`), "free\n[0 tool calls]\n")
}

// TestFakeDeadInterpreterReplaced: an interpreter that dies before it has
// the program ran nothing of it; the program runs in the next one.
func TestFakeDeadInterpreterReplaced(t *testing.T) {
	rt, f := fakeRuntime(t, map[string]fakeProgram{
		`print(api.everything.echo(message="hi"))`: printEcho("hi"),
	}, &argsUpstream{}, nil)
	f.notStarted = 2
	res := fakeRun(t, rt, "s", `print(api.everything.echo(message="hi"))`)
	wantText(t, res, "{'args': {'message': 'hi'}, 'tool': 'echo'}\n[1 tool call]\n")
	if res.Attempts != 3 {
		t.Fatalf("%d attempts, want 3", res.Attempts)
	}
}

// TestFakeHookDenies: a policy hook's refusal raises PermissionError in
// the program, which can catch it; the upstream is never called.
func TestFakeHookDenies(t *testing.T) {
	up := &argsUpstream{}
	rt, _ := fakeRuntime(t, map[string]fakeProgram{
		`print(api.everything.echo(message="hi"))`: printEcho("hi"),
	}, up, func(c *runtime.Config) { c.Hooks = []runtime.Policy{denyAll{}} })
	res := fakeRun(t, rt, "s", `print(api.everything.echo(message="hi"))`)
	if len(up.calls) != 0 || len(res.Calls) != 1 || res.Calls[0].Status != runtime.StatusRefused {
		t.Fatalf("upstream calls %v, result: %s", up.calls, res.Text())
	}
	wantText(t, res, "[1 tool call, 1 failed]\n\nPermissionError: api.everything.echo was refused by policy: nothing is allowed today\n")
}

// TestFakeRunnerWarmConfig: with small stubs, the runner is asked for
// interpreters configured with every service's stubs and the runtime's
// limits, ready before a program arrives.
func TestFakeRunnerWarmConfig(t *testing.T) {
	_, f := fakeRuntime(t, nil, &argsUpstream{}, func(c *runtime.Config) { c.Limits.Time = 7 * time.Second })
	if len(f.configs) != 1 {
		t.Fatalf("%d configurations", len(f.configs))
	}
	c := f.configs[0]
	if c.ScriptName != runtime.ScriptName || !c.TypeCheck || !strings.Contains(c.TypeCheckStubs, "class _svc_everything:") || c.Limits.MaxDuration != 7*time.Second || c.Limits.MaxMemory != 256<<20 {
		t.Fatalf("configuration: %+v", c.Limits)
	}
}

// TestFakeInterpreterDiedMidProgram: an interpreter that dies with the
// program is reported, never run again, naming the calls that completed.
func TestFakeInterpreterDiedMidProgram(t *testing.T) {
	up := &argsUpstream{}
	rt, f := fakeRuntime(t, map[string]fakeProgram{
		`api.everything.echo(message="a"); crash()`: func(p *fakeProc) *monty.Outcome {
			p.call("everything.echo", "message", "a")
			p.die()
			return nil
		},
	}, up, nil)
	res := fakeRun(t, rt, "s", `api.everything.echo(message="a"); crash()`)
	wantText(t, res, "[1 tool call]\n\nthe sandbox worker died while running the program (monty: worker exited: signal: killed); it was replaced. 1 call completed before the worker died: api.everything.echo (ok); check their effects before running the program again.\n")
	if !res.WorkerDied || res.Attempts != 1 || f.handed != 1 || len(up.calls) != 1 {
		t.Fatalf("died %v, %d attempts, %d interpreters, %d upstream calls", res.WorkerDied, res.Attempts, f.handed, len(up.calls))
	}
}

// BenchmarkCallInProgramFake is BenchmarkCallInProgram on the fake
// interpreter with an in-process upstream: the host's own share of a call
// (binding, validation, hooks, audit bookkeeping), without the sandbox
// round trip or an MCP server. Compare as a ratio to
// BenchmarkCallInProgram.
func BenchmarkCallInProgramFake(b *testing.B) {
	code := "for i in range(100):\n    api.everything.echo(message='x')\n"
	rt, _ := fakeRuntime(b, map[string]fakeProgram{
		code: func(p *fakeProc) *monty.Outcome {
			for range 100 {
				if _, exc := p.call("everything.echo", "message", "x"); exc != nil {
					return &monty.Outcome{Exception: exc}
				}
			}
			return nil
		},
	}, &echoUpstream{}, func(c *runtime.Config) { c.Limits.Calls = 2000 })
	b.ResetTimer()
	for range b.N {
		res, err := rt.Run(b.Context(), "b", code)
		if err != nil || !res.OK() {
			b.Fatal(err, res.Error)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*100), "ns/call")
}

// TestFakeRunnerThatCannotStart: a runner that cannot start is the error
// of New, naming the runner rather than Monty.
func TestFakeRunnerThatCannotStart(t *testing.T) {
	s, err := manifest.LoadSurface(os.DirFS("testdata/fake"), "manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	_, err = runtime.New(context.Background(), runtime.Config{
		Manifest: s.Manifest, Files: s.Files, NoPins: true,
		Runner: func(context.Context, runtime.RunnerConfig) (runtime.Runner, error) {
			return nil, errors.New("no cgo build here")
		},
	})
	if want := "runtime: no interpreter of Config.Runner could start, so nothing can run: no cgo build here"; err == nil || err.Error() != want {
		t.Fatalf("New = %v, want %q", err, want)
	}
}
