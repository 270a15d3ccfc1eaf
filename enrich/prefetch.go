package enrich

import (
	"sync"

	"github.com/codemode-dev/codemode/ir"
)

// A Prefetch works out the rules' proposals for a service's tools while
// the service is still being parsed, on a goroutine of its own: a large
// OpenAPI document's loop over operations runs on one core, and the
// proposals are most of enrich's time. Run then finds them in its memo,
// keyed by what the rules read, as its own prefetch keeps them; a tool the
// Prefetch has not reached when it is ended is left to Run.
//
// Give Add to parse.Options.Parsed, call End once the parse returns
// (before anything else reads or changes the tools), then pass the
// Prefetch to Run in Options.Prefetch.
type Prefetch struct {
	svc  *ir.Service // the source's kind, which toolTargets reads
	mu   sync.Mutex
	cond *sync.Cond
	// queue is the tools added and not yet taken; ended stops the goroutine
	// at the next tool.
	queue []*ir.Tool
	ended bool
	done  chan struct{}
	memo  proposalMemo
	keys  slotKeys
	// reached is every tool whose parameters have all been looked at:
	// Run's own prefetch skips them.
	reached map[*ir.Tool]bool
}

// NewPrefetch starts a Prefetch for the tools of a source of that kind.
func NewPrefetch(kind ir.SourceKind) *Prefetch {
	p := &Prefetch{svc: &ir.Service{Source: ir.Source{Kind: kind}}, done: make(chan struct{}), memo: proposalMemo{}, keys: slotKeys{}, reached: map[*ir.Tool]bool{}}
	p.cond = sync.NewCond(&p.mu)
	go p.run()
	return p
}

// Add queues t, which its parser no longer changes. It never waits.
func (p *Prefetch) Add(t *ir.Tool) {
	p.mu.Lock()
	if !p.ended {
		p.queue = append(p.queue, t)
		p.cond.Signal()
	}
	p.mu.Unlock()
}

// End stops the Prefetch after the parameter it is working on and waits
// for it; the tools it has not reached are left to Run. It may be called
// more than once.
func (p *Prefetch) End() {
	p.mu.Lock()
	p.ended = true
	p.queue = nil
	p.cond.Signal()
	p.mu.Unlock()
	<-p.done
}

func (p *Prefetch) next() (*ir.Tool, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.queue) == 0 && !p.ended {
		p.cond.Wait()
	}
	if p.ended {
		return nil, false
	}
	t := p.queue[0]
	p.queue = p.queue[1:]
	return t, true
}

func (p *Prefetch) stopped() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ended
}

func (p *Prefetch) run() {
	defer close(p.done)
	for {
		t, ok := p.next()
		if !ok {
			return
		}
		if t.Input == nil {
			continue
		}
		for _, tg := range toolTargets(p.svc, t, false) {
			if p.stopped() {
				return
			}
			key, ok := p.keys.of(tg)
			if !ok {
				continue
			}
			if _, ok := p.memo[key]; ok {
				continue
			}
			out, err := proposeSafe("", namePointer(lastSegment(tg.pointer)), tg.description, withoutDescription(tg.view), tg.required)
			if err != nil {
				continue // proposed again where Run meets it, and reported there
			}
			p.memo[key] = out
		}
		p.reached[t] = true
	}
}
