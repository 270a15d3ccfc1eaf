package runtime

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// slowChecker stands in for a checker: a program "slow" holds it until
// release is closed, as a program slow to check holds a real one.
type slowChecker struct {
	release chan struct{}
	closed  atomic.Bool
}

func (c *slowChecker) Check(ctx context.Context, code string) (string, error) {
	if code == "slow" {
		select {
		case <-c.release:
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	return "checked " + code, nil
}

func (c *slowChecker) Close() error { c.closed.Store(true); return nil }

// TestSlowCheckHeldEveryOtherProgram pins a cross-session stall: one
// checker per stub set checked one program at a time, so a program slow
// to check kept every other program of the set waiting, past their own
// time limits. Now another checker takes the next program; when the set
// has as many as it may, a program waits only as long as its own context.
func TestSlowCheckHeldEveryOtherProgram(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	var started []*slowChecker
	p, err := newCheckerPool(context.Background(), 2, func(context.Context) (TypeChecker, error) {
		mu.Lock()
		defer mu.Unlock()
		c := &slowChecker{release: release}
		started = append(started, c)
		return c, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slow := make(chan error, 1)
	go func() {
		_, err := p.Check(context.Background(), "slow")
		slow <- err
	}()
	for {
		// Wait until the slow program holds the first checker.
		if len(p.idle) == 0 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if te, err := p.Check(context.Background(), "print(1)"); err != nil || te != "checked print(1)" {
		t.Fatalf("a program behind the slow one: %q, %v", te, err)
	}
	// Two checkers now, one busy: a second slow program takes the other,
	// and a third program waits no longer than its own deadline.
	second := make(chan error, 1)
	go func() {
		_, err := p.Check(context.Background(), "slow")
		second <- err
	}()
	for len(p.idle) != 0 {
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := p.Check(ctx, "print(2)"); !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "stopped waiting for a checker") {
		t.Fatalf("a program with every checker busy: %v", err)
	}
	close(release)
	if err := <-slow; err != nil {
		t.Fatal(err)
	}
	if err := <-second; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	n := len(started)
	mu.Unlock()
	if n != 2 {
		t.Errorf("%d checkers started, want 2 (the most a set may have)", n)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	for i, c := range started {
		if !c.closed.Load() {
			t.Errorf("checker %d not closed", i)
		}
	}
}

func TestCheckerPoolFirstStartFails(t *testing.T) {
	_, err := newCheckerPool(context.Background(), 2, func(context.Context) (TypeChecker, error) {
		return nil, errors.New("no binary")
	})
	if err == nil || err.Error() != "no binary" {
		t.Fatalf("got %v", err)
	}
}
