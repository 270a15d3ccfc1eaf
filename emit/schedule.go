package emit

import (
	"encoding/json"
	"maps"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/manifest"
)

// How the per-tool work of a service is spread over goroutines. What a
// tool's def prints depends only on the object types printed before it
// (every one it names is, by then) and the Literal aliases printed before
// it; both are known once the shapes and aliases are printed in order, so
// the defs are printed after, at once, each into a writer of its own, and
// joined in tool order: the same bytes as printing them one by one.

// minRun is the fewest tools a goroutine is started for.
const minRun = 16

// runWorkers is how many goroutines eachRun runs n indexes on.
func runWorkers(n int) int { return max(1, min(runtime.GOMAXPROCS(0), n/minRun)) }

// eachRun calls fn(worker, first, end) for runs of consecutive indexes
// covering [0, n), on runWorkers(n) goroutines (worker numbers them from
// 0), and returns when all are done.
func eachRun(n int, fn func(worker, first, end int)) {
	workers := runWorkers(n)
	if workers <= 1 {
		fn(0, 0, n)
		return
	}
	run := max(minRun, n/(8*workers))
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				first := int(next.Add(int64(run))) - run
				if first >= n {
					return
				}
				fn(w, first, min(first+run, n))
			}
		}()
	}
	wg.Wait()
}

// A text is lines printed apart, to be joined in order.
type text struct {
	b     []byte
	lines int
}

// defs prints the def of every tool of p's service, each apart (a run of
// tools shares one buffer), once p has printed every shape they use.
// aliasAt[s] is the index of the tool just before whose def the alias of
// the Literal text s was printed. p is only read.
func (p *printer) defs(aliasAt map[string]int) []text {
	tools := p.svc.Tools
	out := make([]text, len(tools))
	// Each goroutine has its own copy of what p worked out once (p's
	// printing fills it as it goes; here it is only read, but a copy
	// keeps a miss from writing to a map another goroutine reads).
	docs := make([]*docCache, runWorkers(len(tools)))
	// What each worker has printed so far (bytes, tools), to size its next
	// run's buffer (grown by doubling, a run's buffer was allocated about
	// twice over).
	printed := make([][2]int, len(docs))
	eachRun(len(tools), func(worker, first, end int) {
		q := *p // what p worked out for the service, read only
		q.w, q.busy, q.printed = writer{}, nil, nil
		if pr := printed[worker]; pr[1] > 0 {
			q.w.b.Grow(pr[0] / pr[1] * (end - first) * 9 / 8)
		}
		if docs[worker] == nil {
			d := docCache{params: maps.Clone(p.docs.params), fields: maps.Clone(p.docs.fields), prose: maps.Clone(p.docs.prose)}
			docs[worker] = &d
		}
		q.docs = *docs[worker]
		if p.aliases != nil {
			q.printed = make(map[string]bool, len(aliasAt))
		}
		var later []string // printed within the run
		for s, i := range aliasAt {
			switch {
			case i < first:
				q.printed[s] = true
			case i < end:
				later = append(later, s)
			}
		}
		ends := make([]int, 0, end-first)
		for i := first; i < end; i++ {
			for _, s := range later {
				if aliasAt[s] == i {
					q.printed[s] = true
				}
			}
			line := q.w.line
			q.function(tools[i])
			ends = append(ends, q.w.b.Len())
			out[i].lines = q.w.line - line
		}
		*docs[worker] = q.docs // what it filled in, for its next run
		printed[worker][0] += q.w.b.Len()
		printed[worker][1] += end - first
		b, from := q.w.bytes(), 0
		for j, to := range ends {
			out[first+j].b = b[from:to:to]
			from = to
		}
	})
	return out
}

// newAliases records in aliasAt the aliases p printed since it held n,
// as printed before tool i's def.
func (p *printer) newAliases(aliasAt map[string]int, n, i int) {
	if len(p.printed) == n {
		return
	}
	for s := range p.printed {
		if _, ok := aliasAt[s]; !ok {
			aliasAt[s] = i
		}
	}
}

// signatures returns Signature of every tool of svc, in order (one
// Signer, which only reads, shared by the goroutines).
func signatures(svc *ir.Service, canon map[*ir.ObjectType]*ir.ObjectType) []string {
	sign := signer(svc, canon)
	out := make([]string, len(svc.Tools))
	eachRun(len(svc.Tools), func(_, first, end int) {
		for i := first; i < end; i++ {
			out[i] = sign(svc.Tools[i])
		}
	})
	return out
}

// Emit prints svc's module (Python) and builds its manifest entry
// (ManifestFor, its Lines from the module's spans) at the same time: both
// only read svc.
func Emit(svc *ir.Service, file string, decisions map[ir.WireName][]json.RawMessage) ([]byte, manifest.Service) {
	var py []byte
	var spans map[ir.WireName]Span
	done := make(chan struct{})
	canon := canonicalShapes(svc)
	go func() {
		defer close(done)
		py, spans = python(svc, canon)
	}()
	ms := manifestFor(svc, file, nil, decisions, canon)
	<-done
	for i := range ms.Tools {
		sp := spans[ms.Tools[i].Wire]
		ms.Tools[i].Lines = [2]int{sp.Start, sp.End}
	}
	return py, ms
}
