package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/manifest"
	"github.com/codemode-dev/codemode/readgate"
	"github.com/codemode-dev/codemode/runtime"
	"github.com/codemode-dev/codemode/runtime/monty"
	"github.com/codemode-dev/codemode/runtime/upstream"
)

// The fake runner runs Go functions in place of Python programs, through
// the runtime.Runner interface, so the runtime's call path (grant, binding,
// validation, hooks, the upstream, audit, limits, aio futures, waits) is
// tested without the Monty binary or an MCP server. Each program is keyed
// by the Python text a real interpreter would run to the same effect.

// fakeProgram is one program: it makes calls through p and returns how it
// ended (nil: it completed).
type fakeProgram func(p *fakeProc) *monty.Outcome

type fakeRunner struct {
	started  bool
	programs map[string]fakeProgram
	// notStarted makes the first Feeds of so many interpreters fail as a
	// worker that died before it had the program.
	notStarted int

	mu      sync.Mutex
	handed  int
	configs []monty.Config
	closed  bool
}

func (f *fakeRunner) new(_ context.Context, c runtime.RunnerConfig) (runtime.Runner, error) {
	if c.Config != nil {
		f.configs = append(f.configs, *c.Config)
	}
	if f.started {
		// A warm set's runner (warmsets.go): it never has an interpreter
		// ready, so programs take the main runner's.
		return idleRunner{}, nil
	}
	f.started = true
	return f, nil
}

// TryGet never has an interpreter waiting: every program goes through Get.
func (f *fakeRunner) TryGet() (runtime.Interp, bool) { return nil, false }

type idleRunner struct{}

func (idleRunner) Get(ctx context.Context) (runtime.Interp, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}
func (idleRunner) TryGet() (runtime.Interp, bool) { return nil, false }
func (idleRunner) Close() error                   { return nil }

func (f *fakeRunner) Get(context.Context) (runtime.Interp, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil, errors.New("fake runner closed")
	}
	f.handed++
	in := &fakeInterp{f: f, dead: f.notStarted > 0}
	if f.notStarted > 0 {
		f.notStarted--
	}
	return in, nil
}

func (f *fakeRunner) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	return nil
}

type fakeInterp struct {
	f     *fakeRunner
	dead  bool
	state []byte
}

func (in *fakeInterp) Configure(c monty.Config) error {
	in.f.mu.Lock()
	defer in.f.mu.Unlock()
	in.f.configs = append(in.f.configs, c)
	return nil
}

func (in *fakeInterp) Dump() ([]byte, error) { return in.state, nil }
func (in *fakeInterp) Load(s []byte) error   { in.state = s; return nil }
func (in *fakeInterp) Close() error          { return nil }

// fakeAbort carries a handler's error out of a program, as the real
// interpreter's AbortFeed does.
type fakeAbort struct{ err error }

func (in *fakeInterp) Feed(ctx context.Context, code string, _ []monty.NamedValue, h monty.Handler) (out *monty.Outcome, err error) {
	if in.dead {
		return nil, fmt.Errorf("%w: fake interpreter exited", monty.ErrNotStarted)
	}
	if code == "import json\nimport re\n" {
		return &monty.Outcome{}, nil
	}
	prog, ok := in.f.programs[code]
	if !ok {
		return nil, fmt.Errorf("fake runner: no program %q", code)
	}
	p := &fakeProc{ctx: ctx, h: h}
	defer func() {
		if v := recover(); v != nil {
			if _, ok := v.(fakeDeath); ok {
				out, err = nil, errors.New("monty: worker exited: signal: killed")
				return
			}
			a, ok := v.(fakeAbort)
			if !ok {
				panic(v)
			}
			if ctx.Err() != nil {
				out, err = nil, fmt.Errorf("monty: program stopped: %w", context.Cause(ctx))
				return
			}
			out = &monty.Outcome{Exception: &monty.Exception{Type: "RuntimeError", Message: a.err.Error(), HasMessage: true}}
			err = fmt.Errorf("monty: program stopped: %w", a.err)
		}
	}()
	if out = prog(p); out == nil {
		out = &monty.Outcome{}
	}
	return out, nil
}

// fakeDeath is the interpreter dying under a program.
type fakeDeath struct{}

// fakeProc is what a fake program sees of the host.
type fakeProc struct {
	ctx context.Context
	h   monty.Handler
	id  uint32
}

func (p *fakeProc) print(s string) { p.h.Print(monty.Stdout, s) }

func (p *fakeProc) send(name string, kw ...any) monty.Reply {
	c := &monty.Call{ID: p.id, Name: name}
	p.id++
	for i := 0; i+1 < len(kw); i += 2 {
		c.Kwargs = append(c.Kwargs, monty.Kwarg{Name: kw[i].(string), Value: kw[i+1]})
	}
	r, err := p.h.Call(p.ctx, c)
	if err != nil {
		panic(fakeAbort{err})
	}
	return r
}

// call is a plain call: name(**kw); it returns the value, or the exception
// the program would get.
func (p *fakeProc) call(name string, kw ...any) (monty.Value, *monty.Exception) {
	return p.send(name, kw...).Result()
}

// start is an aio call: it returns the future's id.
func (p *fakeProc) start(name string, kw ...any) uint32 {
	id := p.id
	if r := p.send(name, kw...); !r.IsFuture() {
		_, exc := r.Result()
		panic(fakeAbort{fmt.Errorf("%s did not start: %v", name, exc)})
	}
	return id
}

// gather awaits the futures, in order, as asyncio.gather does.
func (p *fakeProc) gather(ids ...uint32) []monty.Value {
	fh := p.h.(monty.FutureHandler)
	got := map[uint32]monty.Reply{}
	for len(got) < len(ids) {
		var pending []uint32
		for _, id := range ids {
			if _, ok := got[id]; !ok {
				pending = append(pending, id)
			}
		}
		rs, err := fh.Resolve(p.ctx, pending)
		if err != nil {
			panic(fakeAbort{err})
		}
		for _, r := range rs {
			got[r.ID] = r.Reply
		}
	}
	var out []monty.Value
	for _, id := range ids {
		v, exc := got[id].Result()
		if exc != nil {
			v = exc.Error()
		}
		out = append(out, v)
	}
	return out
}

// die kills the interpreter.
func (p *fakeProc) die() { panic(fakeDeath{}) }

// wait blocks until the program's time is up, as a busy loop does.
func (p *fakeProc) wait() *monty.Outcome {
	<-p.ctx.Done()
	panic(fakeAbort{p.ctx.Err()})
}

// argsUpstream answers every call with its arguments, counting calls.
type argsUpstream struct {
	mu    sync.Mutex
	calls []string
}

func (u *argsUpstream) Call(_ context.Context, t *manifest.Tool, args map[string]any) (*upstream.Result, error) {
	u.mu.Lock()
	u.calls = append(u.calls, string(t.Wire))
	u.mu.Unlock()
	return &upstream.Result{Value: map[string]any{"tool": string(t.Wire), "args": args}}, nil
}

func (*argsUpstream) Close() error { return nil }

// fakeRuntime opens a runtime over the everything golden surface with the
// fake runner and up as the everything service.
func fakeRuntime(t testing.TB, programs map[string]fakeProgram, up upstream.Upstream, mutate func(*runtime.Config)) (*runtime.Runtime, *fakeRunner) {
	t.Helper()
	s, err := manifest.LoadSurface(os.DirFS("testdata/fake"), "manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeRunner{programs: programs}
	cfg := runtime.Config{
		Manifest: s.Manifest, Files: s.Files, Runner: f.new,
		Upstreams: map[ir.ServiceName]upstream.Upstream{"everything": up},
		ReadGate:  readgate.Off, NoPins: true,
	}
	if mutate != nil {
		mutate(&cfg)
	}
	rt, err := runtime.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	return rt, f
}

func fakeRun(t *testing.T, rt *runtime.Runtime, session, code string) *runtime.Result {
	t.Helper()
	res, err := rt.Run(context.Background(), session, code)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res
}

func wantText(t *testing.T, res *runtime.Result, want string) {
	t.Helper()
	if got := res.Text(); got != want {
		t.Fatalf("result:\n%s\nwant:\n%s", got, want)
	}
}
