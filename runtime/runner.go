package runtime

import (
	"context"

	"github.com/codemode-dev/codemode/runtime/monty"
)

// The runtime runs programs through a Runner: "run this program with these
// host functions under these limits". Monty's worker pool (MontyRunner) is
// the one the runtime uses unless Config.Runner names another, so another
// interpreter (a newer Monty, a cgo build) or a test's fake can replace it
// without touching packs or the call path. The contract is package monty's
// vocabulary, not its child process: programs' values (monty.Value), host
// calls and their replies (monty.Call, monty.Reply, monty.Handler with its
// FutureHandler, OSHandler and CallSizer), the configuration with its
// limits and type-check stubs (monty.Config), the outcome (monty.Outcome,
// monty.Limit) and the errors that say a program did not start
// (monty.ErrNotStarted), its interpreter died before it had it
// (monty.ErrDead) or crossed the memory limit outside the interpreter's
// own check (monty.ErrMemoryLimit).

// Runner keeps interpreters ready for programs. It is safe for concurrent
// use.
type Runner interface {
	// Get hands out a ready interpreter for one program; it is never
	// given to another, and the caller closes it. Get fails (it never
	// waits forever) when no interpreter can be started.
	Get(ctx context.Context) (Interp, error)
	// TryGet is Get without waiting: a ready interpreter, or false when
	// none is ready now.
	TryGet() (Interp, bool)
	// Close stops the interpreters not handed out.
	Close() error
}

// Interp is one interpreter session, used by one goroutine at a time.
// *monty.Worker is one.
type Interp interface {
	// Configure starts a fresh session: limits, script name, type-check
	// stubs.
	Configure(c monty.Config) error
	// Feed runs code in the session with inputs bound as globals,
	// answering its host calls through h, and returns how it ended (a
	// Python exception, a limit and a type-check failure are Outcomes). An
	// error of h stops the program where it cannot be caught; Feed then
	// returns the error (wrapped). A ctx that ends stops the program and
	// makes the interpreter unusable.
	Feed(ctx context.Context, code string, inputs []monty.NamedValue, h monty.Handler) (*monty.Outcome, error)
	// Dump and Load save and restore the session (persistent mode).
	Dump() ([]byte, error)
	Load(state []byte) error
	// Close ends the session and frees the interpreter.
	Close() error
}

// RunnerConfig says how a Runner keeps its interpreters.
type RunnerConfig struct {
	// Size is how many interpreters are kept ready; at least 1. Max is
	// how many the runner may keep while programs wait for one (below
	// Size: Size); it shrinks back to Size when they no longer wait.
	Size, Max int
	// Config, when set, configures every interpreter before it is handed
	// out, and Prepare (when set) then runs on it, off the path of the
	// program that will use it; an error of either discards the
	// interpreter like a failed start. Nil hands interpreters out
	// unconfigured: the runtime sends Configure or Load per program.
	Config  *monty.Config
	Prepare func(ctx context.Context, in Interp) error
}

// NewRunner starts a Runner: Config.Runner, MontyRunner by default.
type NewRunner func(ctx context.Context, c RunnerConfig) (Runner, error)

// MontyRunner runs programs in `monty subprocess` workers of the binary
// bin, started as start says (the OS sandbox and its limits), from a
// monty.Pool.
func MontyRunner(bin string, start monty.StartOptions) NewRunner {
	return func(ctx context.Context, c RunnerConfig) (Runner, error) {
		pc := monty.PoolConfig{Bin: bin, Size: c.Size, Max: c.Max, Unconfigured: c.Config == nil, Start: start}
		if c.Config != nil {
			pc.Config = *c.Config
		}
		if c.Prepare != nil {
			pc.Prepare = func(ctx context.Context, w *monty.Worker) error { return c.Prepare(ctx, w) }
		}
		p, err := monty.NewPool(ctx, pc)
		if err != nil {
			return nil, err
		}
		return montyRunner{p}, nil
	}
}

type montyRunner struct{ pool *monty.Pool }

func (m montyRunner) Get(ctx context.Context) (Interp, error) {
	w, err := m.pool.Get(ctx)
	if err != nil {
		return nil, err
	}
	return w, nil
}

func (m montyRunner) TryGet() (Interp, bool) {
	w, ok := m.pool.TryGet()
	if !ok {
		return nil, false
	}
	return w, true
}

func (m montyRunner) Close() error { return m.pool.Close() }

// Idle is the number of workers ready to be handed out.
func (m montyRunner) Idle() int { return m.pool.Idle() }

// Kept is the number of workers the pool keeps now (Size to Max).
func (m montyRunner) Kept() int { return m.pool.Kept() }

// Health is the pool's: nil while it hands out workers.
func (m montyRunner) Health() error { return m.pool.Health() }

// TypeChecker checks programs' text against one set of type-check stubs
// without running them (see checkers.go). It is safe for concurrent use.
type TypeChecker interface {
	// Check returns the type checker's diagnostics for code ("" when it
	// passes), as a worker configured with the same stubs would report
	// them; an error says the program could not be checked.
	Check(ctx context.Context, code string) (string, error)
	Close() error
}

// NewChecker starts a TypeChecker for programs whose worker would be
// configured as c (its stubs and limits).
type NewChecker func(ctx context.Context, c monty.Config) (TypeChecker, error)

// MontyChecker checks programs in a long-lived `monty subprocess` worker
// of the binary bin (monty.Checker), json and re pre-imported as a
// program's worker has them.
func MontyChecker(bin string, start monty.StartOptions) NewChecker {
	return func(ctx context.Context, c monty.Config) (TypeChecker, error) {
		return monty.NewChecker(ctx, monty.CheckerConfig{Bin: bin, Start: start, Config: c, Prelude: preImportCode, WarmUp: checkerWarmUp})
	}
}
