package monty

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestPoolFailsClosedWithBadBinary(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "no-such-monty")
	start := time.Now()
	p, err := NewPool(context.Background(), PoolConfig{Bin: bad, Size: 2})
	if err == nil {
		p.Close()
		t.Fatal("NewPool succeeded with a missing binary")
	}
	if !strings.Contains(err.Error(), "monty pool: cannot start workers") || !strings.Contains(err.Error(), bad) {
		t.Errorf("err = %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v", d)
	}
}

func TestPoolGetAndReplacement(t *testing.T) {
	p, err := NewPool(context.Background(), PoolConfig{Bin: testBin(t), Size: 2, Config: Config{ScriptName: "prog.py"}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	pids := map[int]bool{}
	for i := range 5 {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		w, err := p.Get(ctx)
		cancel()
		if err != nil {
			t.Fatalf("Get %d: %v", i, err)
		}
		if pids[w.Pid()] {
			t.Errorf("worker %d handed out twice", w.Pid())
		}
		pids[w.Pid()] = true
		// Each worker is configured and clean.
		h := &recorder{}
		out := feed(t, w, "try:\n    print(seen)\nexcept NameError:\n    print('fresh')\nseen = 1", nil, h)
		mustOK(t, out)
		if h.output() != "fresh\n" {
			t.Errorf("worker %d not fresh: %q", i, h.output())
		}
		w.Close()
	}
}

func TestPoolGetFailsClosedWhenStartsFail(t *testing.T) {
	p, err := NewPool(context.Background(), PoolConfig{Bin: testBin(t), Size: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	// From now on no worker can be started.
	p.cfg.Bin = filepath.Join(t.TempDir(), "gone")
	w, err := p.Get(context.Background())
	if err != nil {
		t.Fatalf("first Get: %v", err)
	}
	w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err = p.Get(ctx)
	if err == nil || !strings.Contains(err.Error(), "monty pool: no worker") || errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("second Get err = %v", err)
	}
	p.Close()
	if _, err := p.Get(context.Background()); !errors.Is(err, ErrPoolClosed) {
		t.Errorf("Get after Close: %v", err)
	}
}

func TestPoolGetNeverHangs(t *testing.T) {
	// A child that never answers Configure: Get returns when its ctx ends,
	// and without a deadline it returns the start timeout's error.
	hang := filepath.Join(t.TempDir(), "hanging-monty")
	if err := os.WriteFile(hang, []byte("#!/bin/sh\nexec /bin/sleep 100\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := NewPool(context.Background(), PoolConfig{Bin: testBin(t), Size: 1, StartTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	p.cfg.Bin = hang
	p.cfg.Start.NoSandbox = true // a script: nothing to run it in the sandbox
	w, err := p.Get(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := p.Get(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Get with a short deadline: %v", err)
	}
	start := time.Now()
	_, err = p.Get(context.Background())
	if err == nil || !strings.Contains(err.Error(), "monty pool: no worker: monty: starting a worker: context deadline exceeded") {
		t.Errorf("Get: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Get took %v", d)
	}
}

func TestPoolCloseKillsWorkers(t *testing.T) {
	p, err := NewPool(context.Background(), PoolConfig{Bin: testBin(t), Size: 3})
	if err != nil {
		t.Fatal(err)
	}
	var ws []*Worker
	for range 3 {
		r := <-p.results
		ws = append(ws, r.w)
		p.results <- r
	}
	p.Close()
	for _, w := range ws {
		select {
		case <-w.Exited():
		case <-time.After(2 * time.Second):
			t.Errorf("worker %d still running after Close", w.Pid())
		}
	}
}

// eventually polls cond until it holds, failing the test after 20s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
	}
}

func getWorker(t *testing.T, p *Pool) *Worker {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	w, err := p.Get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestPoolReplacementWaitsForTheProgram: a handed-out worker's
// replacement does not start while its program runs (it would compete for
// the CPU); it starts when the worker exits.
func TestPoolReplacementWaitsForTheProgram(t *testing.T) {
	p, err := NewPool(context.Background(), PoolConfig{Bin: testBin(t), Size: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	w := getWorker(t, p)
	p.mu.Lock()
	starting, owed := p.starting, p.owed
	p.mu.Unlock()
	if starting != 0 || owed != 1 {
		t.Fatalf("while the program runs: %d starting, %d owed", starting, owed)
	}
	w.Close()
	eventually(t, "the replacement is ready", func() bool { return p.Idle() == 1 })
}

// TestPoolWaitingGetStartsOwedReplacement: a Get that finds no ready
// worker does not wait for a program to end: the replacement it is owed
// starts at once.
func TestPoolWaitingGetStartsOwedReplacement(t *testing.T) {
	p, err := NewPool(context.Background(), PoolConfig{Bin: testBin(t), Size: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	w1 := getWorker(t, p)
	defer w1.Close()
	w2 := getWorker(t, p)
	defer w2.Close()
	if w1.Pid() == w2.Pid() {
		t.Fatal("one worker handed out twice")
	}
	if p.Kept() != 1 {
		t.Errorf("a pool with Max = Size keeps %d", p.Kept())
	}
}

// TestPoolGrowsWhileGetsWaitAndShrinksWhenIdle: each Get that waits
// raises the number of workers kept, up to Max; once the workers are
// back (their programs ended) the pool holds that many ready, and after
// ShrinkAfter without a wait it goes back down to Size.
func TestPoolGrowsWhileGetsWaitAndShrinksWhenIdle(t *testing.T) {
	p, err := NewPool(context.Background(), PoolConfig{Bin: testBin(t), Size: 1, Max: 3, ShrinkAfter: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var ws []*Worker
	for range 4 {
		ws = append(ws, getWorker(t, p))
	}
	if k := p.Kept(); k != 3 {
		t.Fatalf("after 3 waiting Gets the pool keeps %d, want 3 (Max)", k)
	}
	for _, w := range ws {
		w.Close()
	}
	eventually(t, "3 workers ready", func() bool { return p.Idle() == 3 })
	eventually(t, "back to 1 worker", func() bool { return p.Kept() == 1 && p.Idle() == 1 })
}

// TestPoolStartsAtMostMaxStartingAtOnce: however many Gets wait, and
// however many handed-out workers exit together, no more than maxStarting
// workers start at once (more make every start, and every waiter, slower);
// every Get still gets its worker.
func TestPoolStartsAtMostMaxStartingAtOnce(t *testing.T) {
	p, err := NewPool(context.Background(), PoolConfig{Bin: testBin(t), Size: 1, Max: 3 * maxStarting})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	n := 3 * maxStarting
	got := make(chan *Worker, n)
	for range n {
		go func() {
			w, err := p.Get(context.Background())
			if err != nil {
				t.Error(err)
			}
			got <- w
		}()
	}
	var ws []*Worker
	for deadline := time.Now().Add(20 * time.Second); len(ws) < n; {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d Gets served", len(ws), n)
		}
		select {
		case w := <-got:
			ws = append(ws, w)
		case <-time.After(time.Millisecond):
		}
		p.mu.Lock()
		if p.starting > maxStarting {
			t.Errorf("%d workers starting at once", p.starting)
		}
		p.mu.Unlock()
	}
	for _, w := range ws {
		if w != nil {
			w.Close()
		}
	}
	eventually(t, "every replacement ready", func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.starting > maxStarting {
			t.Errorf("%d replacements starting at once", p.starting)
		}
		return len(p.results) == p.want
	})
}
