package runtime

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/codemode-dev/codemode/manifest"
	"github.com/codemode-dev/codemode/runtime/monty"
)

// Warm sets: when a pack's stubs are too large to configure every pool
// worker with all of them (warmStubLimit), each program is type-checked
// against the stubs of the services it names, and a worker configured
// for it pays the checker's first check (tens of milliseconds) on the
// program's path. The runtime therefore keeps, for the few service sets
// programs used most recently, a one-worker pool configured with that
// set's stubs and warmed up: the next program naming the same services
// takes that worker and only feeds. A set is started the first time a
// program needs it; past maxWarmSets, the set used longest ago is closed.
const maxWarmSets = 4

type warmSets struct {
	mu       sync.Mutex
	closed   bool
	sets     map[string]*warmSet
	tick     uint64
	starting sync.WaitGroup
}

type warmSet struct {
	pool Runner // nil while it starts
	used uint64
}

// setKey names the stubs a program is checked against.
func setKey(used []*manifest.Service, aio bool) string {
	var b strings.Builder
	for _, s := range used {
		b.WriteString(string(s.Name))
		b.WriteByte(',')
	}
	if aio {
		b.WriteString("aio")
	}
	return b.String()
}

// warmWorker returns a worker configured and warmed for the program's
// service set when one is ready (ok), else nil, and makes sure the set is
// kept warm for the next program. Only packs whose pool workers wait
// unconfigured use sets.
func (r *Runtime) warmWorker(used []*manifest.Service, aio bool) (Interp, bool) {
	if r.warm || r.cfg.Persistent || r.cfg.NoTypeCheck {
		return nil, false
	}
	key := setKey(used, aio)
	ws := &r.warmSets
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.closed {
		return nil, false
	}
	if ws.sets == nil {
		ws.sets = map[string]*warmSet{}
	}
	ws.tick++
	if s, ok := ws.sets[key]; ok {
		s.used = ws.tick
		if s.pool == nil {
			return nil, false
		}
		return s.pool.TryGet()
	}
	if len(ws.sets) >= maxWarmSets {
		oldest := ""
		for k, s := range ws.sets {
			if s.pool != nil && (oldest == "" || s.used < ws.sets[oldest].used) {
				oldest = k
			}
		}
		if oldest == "" {
			return nil, false // every set is still starting
		}
		go ws.sets[oldest].pool.Close()
		delete(ws.sets, oldest)
	}
	s := &warmSet{used: ws.tick}
	ws.sets[key] = s
	wc := r.workerConfig(r.stubsFor(used, aio))
	cfg := RunnerConfig{Size: 1, Config: &wc, Prepare: r.warmUp}
	ws.starting.Add(1)
	go func() {
		defer ws.starting.Done()
		p, err := r.newRunner(context.Background(), cfg)
		ws.mu.Lock()
		defer ws.mu.Unlock()
		if err != nil || ws.closed || ws.sets[key] != s {
			if err == nil {
				p.Close()
			}
			if ws.sets[key] == s {
				delete(ws.sets, key) // a later program tries again
			}
			return
		}
		s.pool = p
	}()
	return nil, false
}

// closeWarmSets closes every set's pool; no set starts after it.
func (r *Runtime) closeWarmSets() {
	ws := &r.warmSets
	ws.mu.Lock()
	ws.closed = true
	var pools []Runner
	for _, s := range ws.sets {
		if s.pool != nil {
			pools = append(pools, s.pool)
		}
	}
	ws.sets = nil
	ws.mu.Unlock()
	for _, p := range pools {
		p.Close()
	}
	ws.starting.Wait()
}

// warmUp is preImport and then, when the worker type-checks, one checked
// feed that defines nothing and runs nothing (a lambda never called): a
// checker's first checks after its start are several times slower than
// the ones after, and this takes one of them off the program's path.
func (r *Runtime) warmUp(ctx context.Context, w Interp) error {
	if err := r.preImport(ctx, w); err != nil {
		return err
	}
	out, err := w.Feed(ctx, checkerWarmUp, nil, monty.Funcs{})
	if err != nil {
		return fmt.Errorf("preparing the sandbox worker: %w", err)
	}
	if !out.OK() {
		return fmt.Errorf("preparing the sandbox worker: %s%s", out.TypingError, excText(out.Exception))
	}
	return nil
}

const checkerWarmUp = "(lambda: (print(1), len([1]), {'a': 1}['a'], str(1), json.dumps({}), api))\n"
