package monty

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// A Checker type-checks programs' text against one set of stubs in a
// long-lived worker that never runs them, so a program can then run in a
// worker without a type check: a warm checker answers in well under a
// millisecond, where the first checks in a fresh worker cost tens.
//
// Checking executes nothing. Each program is fed behind a first line the
// checker always rejects (the sentinel, an assignment of a str to an int):
// the worker's check therefore always fails, it never runs the program,
// and a program whose check fails never becomes part of the session's
// type-check context, so one program's text cannot change how the next
// one is checked. The sentinel's own diagnostic is removed and the
// program's lines renumbered, which leaves exactly what a worker checking
// the program itself would report. The checker sees only program text and
// stubs, never values, inputs or results; a feed that does not end in the
// sentinel's diagnostic (so it could have run) is an error, and the
// worker is replaced.
//
// Checks are serialized. A worker that died (or was killed because a
// check's ctx ended) is replaced on the next Check. A check costs the same
// after thousands of others (about 0.1 ms here, the worker's memory flat
// at about 26 MB), so a checker's worker is kept for its life.
type Checker struct {
	cfg      CheckerConfig
	lines    *regexp.Regexp // a diagnostic line's "<script>:<line>:"
	sentinel string         // the sentinel's diagnostic line, "\n" included

	live atomic.Pointer[Worker] // w, for Pid without mu

	mu     sync.Mutex
	w      *Worker
	closed bool
}

// CheckerConfig configures a Checker.
type CheckerConfig struct {
	Bin   string
	Start StartOptions
	// Config is the session programs are checked in: ScriptName, limits
	// and TypeCheckStubs as a program's own worker would have them.
	// TypeCheck is implied; TypeCheckFormat must be "concise" (one line
	// per diagnostic, which the checker renumbers).
	Config Config
	// Prelude is fed (checked and run) once after Configure; the names it
	// binds are known to every check, as a worker's pre-imports are.
	Prelude string
	// WarmUp is checked (never run) a few times before the checker is
	// used: the first checks in a worker are several times slower.
	WarmUp string
	// StartTimeout bounds starting and warming one worker; 0 means 10s.
	StartTimeout time.Duration
}

// checkerWarmUps is how many warm-up checks a checker worker takes.
const checkerWarmUps = 3

// sentinelLine is the first line of every checked feed: a type error the
// checker always reports, so the feed never runs.
const sentinelLine = "__codemode_check_sentinel__: int = ''\n"

// ErrCheckerClosed is returned by Check after Close.
var ErrCheckerClosed = errors.New("monty type checker is closed")

// NewChecker starts a checker's worker and warms it up.
func NewChecker(ctx context.Context, cfg CheckerConfig) (*Checker, error) {
	if cfg.Config.TypeCheckFormat != "concise" {
		return nil, fmt.Errorf("monty: a checker needs TypeCheckFormat \"concise\", not %q", cfg.Config.TypeCheckFormat)
	}
	cfg.Config.TypeCheck = true
	if cfg.Config.ScriptName == "" {
		cfg.Config.ScriptName = "main.py"
	}
	if cfg.StartTimeout <= 0 {
		cfg.StartTimeout = 10 * time.Second
	}
	c := &Checker{cfg: cfg, lines: regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(cfg.Config.ScriptName) + `:(\d+):`)}
	w, sentinel, err := c.start(ctx)
	if err != nil {
		return nil, err
	}
	c.setWorker(w, sentinel)
	return c, nil
}

// start spawns, configures and warms one worker, and learns the sentinel's
// diagnostic from it.
func (c *Checker) start(ctx context.Context) (*Worker, string, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.StartTimeout)
	defer cancel()
	w, err := StartWith(ctx, c.cfg.Bin, c.cfg.Start)
	if err != nil {
		return nil, "", err
	}
	sentinel, err := c.prepare(ctx, w)
	if err != nil {
		w.destroy()
		if ctx.Err() != nil {
			err = fmt.Errorf("monty: starting a type checker: %w", context.Cause(ctx))
		}
		return nil, "", err
	}
	return w, sentinel, nil
}

func (c *Checker) prepare(ctx context.Context, w *Worker) (string, error) {
	stop := context.AfterFunc(ctx, w.Kill)
	defer stop()
	if err := w.Configure(c.cfg.Config); err != nil {
		return "", err
	}
	if c.cfg.Prelude != "" {
		out, err := w.Feed(ctx, c.cfg.Prelude, nil, refuseCalls{})
		if err != nil {
			return "", fmt.Errorf("monty: type checker prelude: %w", err)
		}
		if !out.OK() {
			return "", fmt.Errorf("monty: type checker prelude: %s%v", out.TypingError, out.Exception)
		}
	}
	out, err := w.Feed(ctx, sentinelLine, nil, refuseCalls{})
	if err != nil {
		return "", fmt.Errorf("monty: type checker: %w", err)
	}
	sentinel := out.TypingError
	if strings.Count(sentinel, "\n") != 1 || !strings.HasPrefix(sentinel, c.cfg.Config.ScriptName+":1:") {
		return "", fmt.Errorf("monty: type checker: the sentinel line was not reported as one diagnostic on line 1 (%q, %v)", sentinel, out.Exception)
	}
	for range checkerWarmUps {
		out, err := w.Feed(ctx, sentinelLine+c.cfg.WarmUp, nil, refuseCalls{})
		if err != nil {
			return "", fmt.Errorf("monty: type checker warm-up: %w", err)
		}
		if out.TypingError != sentinel {
			return "", fmt.Errorf("monty: type checker warm-up: %q", strings.TrimPrefix(out.TypingError, sentinel))
		}
	}
	return sentinel, nil
}

// Check type-checks code and returns the checker's diagnostics as a worker
// configured with the same stubs would report them ("" when there are
// none). An error says the program could not be checked: ctx ended (the
// worker is then killed and replaced on the next Check), the checker
// worker died under it, or the checker is closed. Nothing of code runs.
func (c *Checker) Check(ctx context.Context, code string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return "", ErrCheckerClosed
	}
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("monty: type check stopped: %w", context.Cause(ctx))
	}
	var out *Outcome
	for attempt := 0; ; attempt++ {
		if c.w == nil || c.w.alive() != nil || exited(c.w) {
			if c.w != nil {
				c.discard()
			}
			w, sentinel, err := c.start(ctx)
			if err != nil {
				return "", fmt.Errorf("monty: no type checker: %w", err)
			}
			c.setWorker(w, sentinel)
		}
		var err error
		out, err = c.w.Feed(ctx, sentinelLine+code, nil, refuseCalls{})
		if err == nil {
			break
		}
		c.discard()
		if ctx.Err() != nil {
			return "", fmt.Errorf("monty: type check stopped: %w", context.Cause(ctx))
		}
		// A worker that died before it had the program is replaced once;
		// one that died checking it says so (the program may be what
		// ended it).
		if !errors.Is(err, ErrNotStarted) || attempt > 0 {
			return "", fmt.Errorf("monty: the type checker failed while checking the program: %w", err)
		}
	}
	rest, ok := strings.CutPrefix(out.TypingError, c.sentinel)
	if !ok {
		// The feed passed the check (it may have run, with nothing to
		// call and no inputs), or its diagnostics lost the sentinel: this
		// worker's answers are not trusted again.
		c.discard()
		return "", fmt.Errorf("monty: the type checker did not check the program (%s); its worker is replaced", feedEnd(out))
	}
	return c.renumber(rest), nil
}

func exited(w *Worker) bool {
	select {
	case <-w.Exited():
		return true
	default:
		return false
	}
}

// feedEnd says briefly how a feed ended, for an error.
func feedEnd(out *Outcome) string {
	switch {
	case out.TypingError != "":
		return "diagnostics without the sentinel's"
	case out.Exception != nil:
		return "it raised " + out.Exception.Type
	}
	return "it completed"
}

// renumber moves every diagnostic one line up, past the sentinel.
func (c *Checker) renumber(diags string) string {
	if diags == "" {
		return ""
	}
	prefix := c.cfg.Config.ScriptName + ":"
	return c.lines.ReplaceAllStringFunc(diags, func(m string) string {
		n, err := strconv.Atoi(m[len(prefix) : len(m)-1])
		if err != nil || n < 2 {
			return m
		}
		return prefix + strconv.Itoa(n-1) + ":"
	})
}

// setWorker makes w the checker's worker. c.mu is held.
func (c *Checker) setWorker(w *Worker, sentinel string) {
	c.w, c.sentinel = w, sentinel
	c.live.Store(w)
}

// discard kills the worker; the next Check starts another. c.mu is held.
func (c *Checker) discard() {
	w := c.w
	c.w = nil
	c.live.Store(nil)
	w.Kill()
	go w.destroy()
}

// Pid is the checker worker's process id (0 when it has none now).
func (c *Checker) Pid() int {
	if w := c.live.Load(); w != nil {
		return w.Pid()
	}
	return 0
}

// Close waits for a check in progress, then stops the checker.
func (c *Checker) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	w := c.w
	c.w = nil
	c.live.Store(nil)
	c.mu.Unlock()
	if w != nil {
		w.Close()
	}
	return nil
}

// refuseCalls is the checker's handler: its feeds never run, and if one
// did, it would print nothing and every call would stop it.
type refuseCalls struct{}

func (refuseCalls) Print(Stream, string) {}

func (refuseCalls) Call(context.Context, *Call) (Reply, error) {
	return Reply{}, errors.New("a type checker makes no calls")
}

func (refuseCalls) Lookup(string, *UUID) (Value, bool) { return nil, false }
