package runtime

import (
	"context"
	"errors"
	"fmt"
	goruntime "runtime"
	"sync"
)

// checkerPool is a TypeChecker made of up to max checkers of one stub
// set, started as checks need them. One checker checks one program at a
// time, and a check may take up to the program's time limit: with a
// single checker, one program that is slow to check (a hostile one, or a
// huge one) held every other program of the set waiting, past their own
// time limits. Each check takes an idle checker, or starts another while
// there are fewer than max, or waits for one as long as its context
// allows.
type checkerPool struct {
	start func(context.Context) (TypeChecker, error)
	idle  chan TypeChecker
	slots chan struct{} // one per checker started or starting

	mu     sync.Mutex
	closed bool
}

// checkersPerSet is how many checkers one stub set may have at once.
func checkersPerSet() int { return max(2, goruntime.GOMAXPROCS(0)) }

// newCheckerPool starts the pool's first checker, so a set whose checker
// cannot start fails at once, as a single checker did.
func newCheckerPool(ctx context.Context, n int, start func(context.Context) (TypeChecker, error)) (*checkerPool, error) {
	p := &checkerPool{start: start, idle: make(chan TypeChecker, n), slots: make(chan struct{}, n)}
	c, err := start(ctx)
	if err != nil {
		return nil, err
	}
	p.slots <- struct{}{}
	p.idle <- c
	return p, nil
}

func (p *checkerPool) Check(ctx context.Context, code string) (string, error) {
	c, err := p.take(ctx)
	if err != nil {
		return "", err
	}
	te, err := c.Check(ctx, code)
	p.give(c)
	return te, err
}

func (p *checkerPool) take(ctx context.Context) (TypeChecker, error) {
	select {
	case c := <-p.idle:
		return c, nil
	default:
	}
	select {
	case c := <-p.idle:
		return c, nil
	case p.slots <- struct{}{}:
		c, err := p.start(ctx)
		if err != nil {
			<-p.slots
			return nil, fmt.Errorf("another type checker could not start: %w", err)
		}
		return c, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("monty: type check stopped waiting for a checker: %w", context.Cause(ctx))
	}
}

// give puts c back; a closed pool closes it instead.
func (p *checkerPool) give(c TypeChecker) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		c.Close()
		return
	}
	p.idle <- c
}

// Close closes the idle checkers now and the busy ones as their checks end.
func (p *checkerPool) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	p.closed = true
	var errs []error
	for {
		select {
		case c := <-p.idle:
			errs = append(errs, c.Close())
		default:
			return errors.Join(errs...)
		}
	}
}
