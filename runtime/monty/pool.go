package monty

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// PoolConfig configures a Pool.
type PoolConfig struct {
	Bin    string // the monty binary (see FindBinary)
	Size   int    // workers kept ready; at least 1
	Config Config // every worker is configured with this
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

// Pool keeps Size configured workers ready. Get hands one out for one
// program and starts its replacement in the background; workers are never
// returned to the pool (the caller closes them). The pool fails closed: when
// no worker can be started Get returns the error, it never waits forever.
type Pool struct {
	cfg     PoolConfig
	ctx     context.Context // cancelled by Close
	cancel  context.CancelFunc
	results chan startResult
	wg      sync.WaitGroup

	mu       sync.Mutex
	closed   bool
	startErr error // the last replacement's start failed with this
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
	if cfg.StartTimeout <= 0 {
		cfg.StartTimeout = 10 * time.Second
	}
	if _, err := cfg.Config.encode(); err != nil {
		return nil, err
	}
	pctx, cancel := context.WithCancel(context.Background())
	p := &Pool{cfg: cfg, ctx: pctx, cancel: cancel, results: make(chan startResult, cfg.Size)}
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

// refill starts one replacement worker in the background.
func (p *Pool) refill() {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		w, err := p.startOne(p.ctx)
		p.mu.Lock()
		p.startErr = err
		p.mu.Unlock()
		p.results <- startResult{w, err}
	}()
}

// Get returns a configured, idle worker for one program, or the error that
// kept the pool from starting one. It waits at most until ctx is done.
func (p *Pool) Get(ctx context.Context) (*Worker, error) {
	for {
		p.mu.Lock()
		closed := p.closed
		p.mu.Unlock()
		if closed {
			return nil, ErrPoolClosed
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-p.ctx.Done():
			return nil, ErrPoolClosed
		case r := <-p.results:
			p.mu.Lock()
			if p.closed {
				p.mu.Unlock()
				if r.w != nil {
					r.w.destroy()
				}
				return nil, ErrPoolClosed
			}
			p.refill()
			p.mu.Unlock()
			if r.err != nil {
				return nil, fmt.Errorf("monty pool: no worker: %w", r.err)
			}
			select {
			case <-r.w.Exited(): // died while waiting: take the next one
				r.w.destroy()
				continue
			default:
			}
			if r.w.alive() != nil {
				r.w.destroy()
				continue
			}
			return r.w, nil
		}
	}
}

// Idle is the number of workers started and waiting to be handed out (a
// start that failed counts until Get takes it).
func (p *Pool) Idle() int { return len(p.results) }

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
// ready now (or the pool is closed).
func (p *Pool) TryGet() (*Worker, bool) {
	for {
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return nil, false
		}
		select {
		case r := <-p.results:
			p.refill()
			p.mu.Unlock()
			if r.err != nil {
				return nil, false
			}
			if r.w.alive() != nil {
				r.w.destroy()
				continue
			}
			select {
			case <-r.w.Exited():
				r.w.destroy()
				continue
			default:
			}
			return r.w, true
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
