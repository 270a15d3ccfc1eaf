package enrich

import (
	"sync"

	"github.com/codemode-dev/codemode/ir"
)

// RunResolving is Run followed by ir.Resolve, with Resolve one tool behind
// Run rather than after it (ir.ResolveFollowing): on a large spec each is a
// loop over the tools on one goroutine. What it returns, and what it leaves
// in svc, are Run's and then Resolve's; when Run fails, Resolve still
// finishes (on tools Run did not reach) and the error is returned.
func RunResolving(svc *ir.Service, opts Options) ([]Decision, error) {
	if svc == nil {
		return nil, nil
	}
	done := newProgress()
	var ds []Decision
	var err error
	go func() {
		defer done.finish()
		ds, err = run(svc, opts, done.did)
	}()
	ir.ResolveFollowing(svc, done.wait)
	done.waitEnd()
	return ds, err
}

// A progress counts the tools Run is done with, for the Resolve that
// follows it.
type progress struct {
	mu    sync.Mutex
	cond  *sync.Cond
	done  int  // tools done with
	ended bool // Run has returned
}

func newProgress() *progress {
	p := &progress{}
	p.cond = sync.NewCond(&p.mu)
	return p
}

// did records that Run is done with the i-th tool.
func (p *progress) did(i int) {
	p.mu.Lock()
	p.done = i + 1
	p.cond.Broadcast()
	p.mu.Unlock()
}

// finish records that Run has returned (done with every tool, or stopped
// by an error).
func (p *progress) finish() {
	p.mu.Lock()
	p.ended = true
	p.cond.Broadcast()
	p.mu.Unlock()
}

// wait returns once Run is done with the i-th tool or has returned.
func (p *progress) wait(i int) {
	p.mu.Lock()
	for p.done <= i && !p.ended {
		p.cond.Wait()
	}
	p.mu.Unlock()
}

// waitEnd returns once Run has returned.
func (p *progress) waitEnd() {
	p.mu.Lock()
	for !p.ended {
		p.cond.Wait()
	}
	p.mu.Unlock()
}
