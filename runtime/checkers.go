package runtime

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/codemode-dev/codemode/manifest"
	"github.com/codemode-dev/codemode/runtime/monty"
)

// Type checks outside the program's worker: with Monty's runner (and
// neither persistent sessions nor NoTypeCheck), pool workers wait
// configured without a type check and pre-imported, and each program is
// first checked by a long-lived checker (monty.Checker) that holds the
// stubs and is kept warm: a warm check costs well under a millisecond,
// where a fresh worker's first checks cost several to tens. A program the
// checker refuses never takes a worker. A pack whose stubs are small
// (warmStubLimit) has one checker with every service's stubs; a larger one
// checks each program against the stubs of the services it names, with a
// checker per service set for the maxCheckers sets used most recently, so
// a program using one service of a large pack is checked as fast as on a
// small pack. A set has up to checkersPerSet checkers (checkpool.go), so
// a program slow to check holds up no other. The checker sees only program text and stubs, never values
// or results, and no program's text changes how the next one is checked
// (see monty.Checker).
const maxCheckers = 4

// allServices keys the one checker of a small pack.
const allServices = "*"

type checkerSet struct {
	mu     sync.Mutex
	closed bool
	sets   map[string]*checkerEntry
	tick   uint64
}

type checkerEntry struct {
	ready chan struct{} // closed when c or err is set
	c     TypeChecker
	err   error
	used  uint64
}

// checksOutside says whether programs are type-checked by checkers.
func (r *Runtime) checksOutside() bool {
	return r.newChecker != nil && !r.cfg.Persistent && !r.cfg.NoTypeCheck
}

// checkerFor returns the started checker for key, starting it (with
// stubs) when there is none; the caller waits for a start as long as ctx
// allows.
func (r *Runtime) checkerFor(ctx context.Context, key, stubs string) (TypeChecker, error) {
	cs := &r.checkers
	cs.mu.Lock()
	if cs.closed {
		cs.mu.Unlock()
		return nil, errRuntimeClosed
	}
	if cs.sets == nil {
		cs.sets = map[string]*checkerEntry{}
	}
	cs.tick++
	e, ok := cs.sets[key]
	if !ok {
		if len(cs.sets) >= maxCheckers {
			oldest := ""
			for k, s := range cs.sets {
				if oldest == "" || s.used < cs.sets[oldest].used {
					oldest = k
				}
			}
			old := cs.sets[oldest]
			delete(cs.sets, oldest)
			go func() {
				<-old.ready
				if old.c != nil {
					old.c.Close() // after the check in progress
				}
			}()
		}
		e = &checkerEntry{ready: make(chan struct{})}
		cs.sets[key] = e
		go func() {
			cfg := r.workerConfig(stubs)
			var c TypeChecker
			p, err := newCheckerPool(context.Background(), checkersPerSet(), func(ctx context.Context) (TypeChecker, error) {
				return r.newChecker(ctx, cfg)
			})
			if err == nil {
				c = p
			}
			cs.mu.Lock()
			e.c, e.err = c, err
			if cs.closed && c != nil {
				c.Close()
				e.c, e.err = nil, errRuntimeClosed
			}
			if err != nil && cs.sets[key] == e {
				delete(cs.sets, key) // a later program tries again
			}
			close(e.ready)
			cs.mu.Unlock()
		}()
	}
	e.used = cs.tick
	cs.mu.Unlock()
	select {
	case <-e.ready:
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
	if e.err != nil {
		return nil, e.err
	}
	return e.c, nil
}

var errRuntimeClosed = errors.New("the runtime is closed")

// checkerError is a program the checker could not check: nothing ran.
type checkerError struct{ err error }

func (e *checkerError) Error() string {
	return "Type check could not be done, nothing ran: " + e.err.Error() + ". Run the program again; if this repeats, simplify it."
}

func (e *checkerError) Unwrap() error { return e.err }

// checkOutside type-checks a program with its service set's checker,
// within the time limit. It returns nil, nil when the program passed; the
// outcome of a refused program (its TypingError, or the time limit); or
// an error: ctx's, or a *checkerError.
func (r *Runtime) checkOutside(ctx context.Context, used []*manifest.Service, aio bool, code string) (*monty.Outcome, error) {
	key, stubs := allServices, ""
	if r.checkAll {
		stubs = r.stubs(r.services)
	} else {
		key, stubs = setKey(used, aio), r.stubsFor(used, aio)
	}
	cctx, cancel := r.deadline(ctx)
	defer cancel()
	var err error
	for attempt := 0; attempt < 2; attempt++ {
		var c TypeChecker
		if c, err = r.checkerFor(cctx, key, stubs); err == nil {
			var te string
			if te, err = c.Check(cctx, code); err == nil {
				if te == "" {
					return nil, nil
				}
				return &monty.Outcome{TypingError: te}, nil
			}
		}
		if !errors.Is(err, monty.ErrCheckerClosed) {
			break // a checker retired under the program is retried
		}
	}
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case cctx.Err() != nil:
		return &monty.Outcome{Limit: monty.LimitTime, Exception: &monty.Exception{Type: "TimeoutError"}}, nil
	}
	return nil, &checkerError{err}
}

// startCheckers starts a small pack's checker with the runtime, so the
// first program does not wait for it; it fails like a pool that cannot
// start.
func (r *Runtime) startCheckers(ctx context.Context) error {
	if !r.checksOutside() || !r.checkAll {
		return nil
	}
	if _, err := r.checkerFor(ctx, allServices, r.stubs(r.services)); err != nil {
		return fmt.Errorf("no type checker could start: %w", err)
	}
	return nil
}

// closeCheckers stops every checker; none starts after it.
func (r *Runtime) closeCheckers() {
	cs := &r.checkers
	cs.mu.Lock()
	cs.closed = true
	sets := cs.sets
	cs.sets = nil
	cs.mu.Unlock()
	for _, e := range sets {
		<-e.ready
		if e.c != nil {
			e.c.Close()
		}
	}
}
