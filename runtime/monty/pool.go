package monty

import (
	"context"
	"errors"
	"fmt"
	goruntime "runtime"
	"sync"
	"time"
)

// PoolConfig configures a Pool.
type PoolConfig struct {
	Bin  string // the monty binary (see FindBinary)
	Size int    // workers kept ready; at least 1
	// Max is how many workers the pool may keep while programs wait for
	// them: each Get that finds no ready worker raises the number kept by
	// one, up to Max (below Size: Size, the pool never grows).
	Max int
	// ShrinkAfter: once no Get has waited for this long, the number kept
	// drops by one (an idle worker is ended), and again after each further
	// ShrinkAfter, down to Size. 0 means 30s.
	ShrinkAfter time.Duration
	Config      Config // every worker is configured with this
	// Unconfigured starts workers without a session: the caller sends
	// Configure (or Load) itself, e.g. with stubs chosen per program.
	Unconfigured bool
	// Prepare, when set, runs on each configured worker before it is
	// handed out (e.g. a first feed that warms the type checker up), off
	// the path of the program that will use it. An error discards the
	// worker like a failed start.
	Prepare func(ctx context.Context, w *Worker) error
	// Start says how workers are started (the OS sandbox and its limits).
	Start StartOptions
	// StartTimeout bounds spawning and configuring one worker; 0 means 10s.
	StartTimeout time.Duration
}

// Pool keeps configured workers ready: Size of them, more while programs
// wait. Get hands one out for one program; workers are never returned to
// the pool (the caller closes them). A handed-out worker's replacement
// starts once that worker has exited (its program ended and the caller
// closed it) and the pool has handed nothing out for replaceQuiet, so a
// start competes for CPU neither with the program it replaces nor with the
// programs of a burst, or at once when a Get finds no worker ready; at
// most maxStarting workers start at once. A Get that has to wait also
// raises the number of workers kept by one (up to Max), so the next burst
// finds more ready; after ShrinkAfter without a wait, the number drops back
// one step at a time. The pool fails closed: when no worker can be started
// Get returns the error, it never waits forever.
type Pool struct {
	cfg     PoolConfig
	ctx     context.Context // cancelled by Close
	cancel  context.CancelFunc
	results chan startResult
	wg      sync.WaitGroup

	mu       sync.Mutex
	closed   bool
	startErr error // the last replacement's start failed with this
	// The pool keeps want workers: ready (in results), starting, or owed
	// (a replacement for a handed-out worker, started when it exits or
	// when a Get waits), so ready + starting + owed == want.
	want, starting, owed int
	exitedOwed           int // owed replacements whose worker has exited
	waiters              int // Gets waiting for a worker
	lastWait             time.Time
	lastHandOut          time.Time
	quietTimer           *time.Timer // refills once the pool is quiet
}

type startResult struct {
	w   *Worker
	err error
}

// ErrPoolClosed is returned by Get after Close.
var ErrPoolClosed = errors.New("monty pool is closed")

// NewPool starts cfg.Size configured workers and waits for them; if any
// cannot be started it stops the others and returns the error.
func NewPool(ctx context.Context, cfg PoolConfig) (*Pool, error) {
	if cfg.Size < 1 {
		cfg.Size = 1
	}
	cfg.Max = max(cfg.Max, cfg.Size)
	if cfg.ShrinkAfter <= 0 {
		cfg.ShrinkAfter = 30 * time.Second
	}
	if cfg.StartTimeout <= 0 {
		cfg.StartTimeout = 10 * time.Second
	}
	if _, err := cfg.Config.encode(); err != nil {
		return nil, err
	}
	pctx, cancel := context.WithCancel(context.Background())
	p := &Pool{cfg: cfg, ctx: pctx, cancel: cancel, results: make(chan startResult, cfg.Max), want: cfg.Size}
	type res struct {
		w   *Worker
		err error
	}
	first := make(chan res, cfg.Size)
	for range cfg.Size {
		go func() {
			w, err := p.startOne(ctx)
			first <- res{w, err}
		}()
	}
	var ws []*Worker
	var errs []error
	for range cfg.Size {
		r := <-first
		if r.err != nil {
			errs = append(errs, r.err)
		} else {
			ws = append(ws, r.w)
		}
	}
	if len(errs) > 0 {
		for _, w := range ws {
			w.destroy()
		}
		cancel()
		return nil, fmt.Errorf("monty pool: cannot start workers: %w", errs[0])
	}
	for _, w := range ws {
		p.results <- startResult{w: w}
	}
	if cfg.Max > cfg.Size {
		p.wg.Add(1)
		go p.shrink()
	}
	return p, nil
}

// startOne spawns and configures one worker within StartTimeout.
func (p *Pool) startOne(ctx context.Context) (*Worker, error) {
	ctx, cancel := context.WithTimeout(ctx, p.cfg.StartTimeout)
	defer cancel()
	w, err := StartWith(ctx, p.cfg.Bin, p.cfg.Start)
	if err != nil {
		return nil, err
	}
	if p.cfg.Unconfigured {
		return w, nil
	}
	stop := context.AfterFunc(ctx, w.Kill)
	err = w.Configure(p.cfg.Config)
	if err == nil && p.cfg.Prepare != nil {
		err = p.cfg.Prepare(ctx, w)
	}
	if !stop() || err != nil {
		w.destroy()
		if err == nil || ctx.Err() != nil {
			err = fmt.Errorf("monty: starting a worker: %w", context.Cause(ctx))
		}
		return nil, err
	}
	return w, nil
}

// startLocked starts one worker in the background. p.mu is held.
func (p *Pool) startLocked() {
	p.starting++
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		w, err := p.startOne(p.ctx)
		p.mu.Lock()
		defer p.mu.Unlock()
		p.startErr = err
		p.starting--
		// Never blocks: ready + starting <= want <= Max, the capacity.
		p.results <- startResult{w, err}
		p.refillLocked()
	}()
}

// maxStarting bounds the starts a pool runs at once for waiting Gets:
// more than the CPUs make every start, and so every waiter, slower.
var maxStarting = max(4, 2*goruntime.NumCPU())

// refillLocked starts workers, at most maxStarting at once: for the Gets
// waiting beyond those already starting, by growing the pool (up to Max)
// or else by starting a replacement still owed; and the replacements of
// workers that have exited. p.mu is held.
func (p *Pool) refillLocked() {
	for !p.closed && p.starting < maxStarting {
		short := p.starting+len(p.results) < p.waiters
		switch {
		case short && p.want < p.cfg.Max:
			p.want++
		case short && p.owed > 0, p.exitedOwed > 0 && p.quietLocked():
			p.owed--
			p.exitedOwed = max(0, p.exitedOwed-1)
		default:
			return
		}
		p.startLocked()
	}
}

// replaceQuiet is how long after its last hand-out a pool waits before it
// replaces workers that exited (a Get that waits starts one at once): the
// programs of a burst start without replacements competing with them.
const replaceQuiet = 50 * time.Millisecond

// quietLocked reports whether the pool has handed nothing out for
// replaceQuiet; if not, it arranges for refillLocked to run then. p.mu is
// held.
func (p *Pool) quietLocked() bool {
	wait := replaceQuiet - time.Since(p.lastHandOut)
	if wait <= 0 {
		return true
	}
	if p.quietTimer == nil && !p.closed {
		p.quietTimer = time.AfterFunc(wait, func() {
			p.mu.Lock()
			defer p.mu.Unlock()
			p.quietTimer = nil
			if !p.closed {
				p.refillLocked()
			}
		})
	}
	return false
}

// handOutLocked takes r out of the pool for a program: its replacement
// is owed until the worker exits. It reports false (and replaces r at
// once) when r is a failed start or a worker that died while it waited.
// p.mu is held.
func (p *Pool) handOutLocked(r startResult) bool {
	if r.err != nil || r.w.alive() != nil || exited(r.w) {
		p.startLocked()
		if r.w != nil {
			go r.w.destroy()
		}
		return false
	}
	p.owed++
	p.lastHandOut = time.Now()
	p.refillLocked()
	w := r.w
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		select {
		case <-w.Exited():
		case <-p.ctx.Done():
			return
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.owed > p.exitedOwed && !p.closed {
			p.exitedOwed++
			p.refillLocked()
		}
	}()
	return true
}

// shrink lowers the number of workers kept by one, ending an idle worker,
// each ShrinkAfter after the last Get that waited, down to Size.
func (p *Pool) shrink() {
	defer p.wg.Done()
	t := time.NewTicker(p.cfg.ShrinkAfter / 4)
	defer t.Stop()
	for {
		select {
		case <-p.ctx.Done():
			return
		case <-t.C:
		}
		p.mu.Lock()
		if p.closed || p.want <= p.cfg.Size || p.waiters > 0 || time.Since(p.lastWait) < p.cfg.ShrinkAfter {
			p.mu.Unlock()
			continue
		}
		if p.owed > 0 {
			p.want--
			p.owed--
			p.exitedOwed = min(p.exitedOwed, p.owed)
		} else {
			select {
			case r := <-p.results:
				p.want--
				if r.w != nil {
					go r.w.destroy()
				}
			default: // every worker is starting: later
			}
		}
		p.lastWait = time.Now() // one step per ShrinkAfter
		p.mu.Unlock()
	}
}

// Get returns a configured, idle worker for one program, or the error that
// kept the pool from starting one. It waits at most until ctx is done.
func (p *Pool) Get(ctx context.Context) (*Worker, error) {
	for {
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return nil, ErrPoolClosed
		}
		if err := ctx.Err(); err != nil {
			p.mu.Unlock()
			return nil, err
		}
		var r startResult
		select {
		case r = <-p.results:
		default:
			// Nothing ready: wait, and have a worker start for this Get.
			p.waiters++
			p.lastWait = time.Now()
			p.refillLocked()
			p.mu.Unlock()
			var err error
			select {
			case <-ctx.Done():
				err = ctx.Err()
			case <-p.ctx.Done():
				err = ErrPoolClosed
			case r = <-p.results:
			}
			p.mu.Lock()
			p.waiters--
			if err == nil && p.closed {
				err = ErrPoolClosed
			}
			if err != nil {
				if r.w != nil {
					go r.w.destroy()
				}
				p.mu.Unlock()
				return nil, err
			}
		}
		ok := p.handOutLocked(r)
		p.mu.Unlock()
		if r.err != nil {
			return nil, fmt.Errorf("monty pool: no worker: %w", r.err)
		}
		if ok {
			return r.w, nil
		}
	}
}

// Idle is the number of workers started and waiting to be handed out (a
// start that failed counts until Get takes it).
func (p *Pool) Idle() int { return len(p.results) }

// Kept is the number of workers the pool keeps now: Size, more after Gets
// waited (up to Max).
func (p *Pool) Kept() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.want
}

// Health says whether the pool can hand out workers: ErrPoolClosed after
// Close, the error of the last replacement that failed to start, else nil.
func (p *Pool) Health() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return ErrPoolClosed
	}
	if p.startErr != nil {
		return fmt.Errorf("monty pool: the last worker failed to start: %w", p.startErr)
	}
	return nil
}

// TryGet is Get without waiting: a ready worker, or false when none is
// ready now (or the pool is closed). A miss does not grow the pool.
func (p *Pool) TryGet() (*Worker, bool) {
	for {
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return nil, false
		}
		select {
		case r := <-p.results:
			ok := p.handOutLocked(r)
			p.mu.Unlock()
			if r.err != nil {
				return nil, false
			}
			if ok {
				return r.w, true
			}
		default:
			p.mu.Unlock()
			return nil, false
		}
	}
}

// Close kills the ready workers and stops starting new ones. Workers already
// handed out are the caller's to close.
func (p *Pool) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	if p.quietTimer != nil {
		p.quietTimer.Stop()
	}
	p.mu.Unlock()
	p.cancel()
	p.wg.Wait()
	for {
		select {
		case r := <-p.results:
			if r.w != nil {
				r.w.destroy()
			}
		default:
			return nil
		}
	}
}
