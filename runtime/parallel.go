package runtime

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/manifest"
	"github.com/codemode-dev/codemode/runtime/monty"
	"golang.org/x/sync/semaphore"
)

// Parallel calls. Every tool has two forms:
//
//	api.<service>.<tool>(...)      a plain call: it returns the result
//	api.aio.<service>.<tool>(...)  an awaitable: the call starts at once and
//	                               runs while the program goes on
//
// so `await asyncio.gather(api.aio.a.x(), api.aio.b.y())` runs both calls
// at the same time. The host answers an aio call with a Monty future and
// makes the call in the background, through every check a plain call
// passes, at most Config.MaxParallel at once per program; the child asks
// for the results when every task of the program waits (ResolveFutures).
// The stubs declare the aio forms `async def`, so a missing await is a type
// error, not a coroutine passed on as a value.

// aioName is the namespace of the awaitable forms, as in api.aio.<svc>.
const aioName = "aio"

// DefaultMaxParallel is Config.MaxParallel's default.
const DefaultMaxParallel = 8

// hasAio says the api object has the aio namespace: not when a service is
// itself named aio (the service wins).
func (r *Runtime) hasAio() bool {
	for _, s := range r.services {
		if string(s.Name) == aioName {
			return false
		}
	}
	return len(r.services) > 0
}

// aioInput is api.aio: one object per service whose functions are named
// "aio.<svc>.<tool>".
func (r *Runtime) aioInput() monty.Attr {
	var attrs []monty.Attr
	for _, s := range r.services {
		var fns []monty.Attr
		for _, t := range s.Tools {
			fns = append(fns, monty.Attr{Name: string(t.Py), Value: monty.Function{Name: aioName + "." + string(s.Name) + "." + string(t.Py)}})
		}
		attrs = append(attrs, monty.Attr{Name: string(s.Name), Value: monty.NewInstance("_aio_"+string(s.Name), fns...)})
	}
	return monty.Attr{Name: aioName, Value: monty.NewInstance("_aio", attrs...)}
}

var (
	svcClass  = regexp.MustCompile(`(?m)^class _svc_([A-Za-z_][A-Za-z0-9_]*):\n`)
	methodDef = regexp.MustCompile(`(?m)^    def `)
)

// withAio adds the awaitable forms to assembled stubs: for each service
// class _svc_X, a copy _aio_X whose methods are async, the class _aio
// holding them, and api.aio.
func withAio(stubs string, svcs []*manifest.Service) string {
	const apiClass = "\n\nclass _api:\n"
	at := strings.LastIndex(stubs, apiClass)
	if at < 0 || len(svcs) == 0 {
		return stubs
	}
	var b strings.Builder
	var names []string
	for _, loc := range svcClass.FindAllStringSubmatchIndex(stubs[:at], -1) {
		name := stubs[loc[2]:loc[3]]
		body := stubs[loc[1]:at]
		// The class ends at the next line that is not indented.
		if end := regexp.MustCompile(`(?m)^\S`).FindStringIndex(body); end != nil {
			body = body[:end[0]]
		}
		b.WriteString("\n\nclass _aio_" + name + ":\n")
		b.WriteString(methodDef.ReplaceAllString(strings.TrimRight(body, "\n")+"\n", "    async def "))
		names = append(names, name)
	}
	if len(names) == 0 {
		return stubs
	}
	b.WriteString("\n\nclass _aio:\n")
	for _, n := range names {
		b.WriteString("    " + n + ": _aio_" + n + "\n")
	}
	rest := strings.Replace(stubs[at:], apiClass+"    pass\n", apiClass, 1)
	rest = strings.Replace(rest, apiClass, apiClass+"    "+aioName+": _aio\n", 1)
	return stubs[:at] + b.String() + rest
}

// future is one aio call running in the background.
type future struct {
	done  chan struct{}
	reply monty.Reply
	err   error
}

// callAio starts an api.aio.<svc>.<tool>(...) call: its arguments are bound
// now (a bad call raises at once), the call itself runs in the background
// and the program gets a future. It holds h.mu, as Call does.
func (h *handler) callAio(c *monty.Call, name string) (monty.Reply, error) {
	svc, tool, _ := strings.Cut(name, ".")
	e, ok := h.r.tools[toolKey{ir.ServiceName(svc), tool}]
	if !ok {
		return monty.NotFound(c.Name), nil
	}
	args, err := bind(e, c)
	if err != nil {
		h.record(e.call(), "invalid", err.Error(), 0)
		if aerr := h.stopped(e.call(), callArgs(c), "invalid", ReasonValidation, err.Error()); aerr != nil {
			return monty.Reply{}, aerr
		}
		return monty.Raise("TypeError", err.Error()), nil
	}
	if h.futures == nil {
		h.futures = map[uint32]*future{}
		h.wake = make(chan struct{}, 1)
		h.slots = semaphore.NewWeighted(int64(h.r.maxParallel()))
	}
	if _, dup := h.futures[c.ID]; dup {
		return monty.Reply{}, fmt.Errorf("call id %d was given twice in one program", c.ID)
	}
	f := &future{done: make(chan struct{})}
	h.futures[c.ID] = f
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		defer func() {
			close(f.done)
			select {
			case h.wake <- struct{}{}:
			default:
			}
		}()
		if err := h.slots.Acquire(h.ctx, 1); err != nil {
			f.err = err
			return
		}
		defer h.slots.Release(1)
		h.mu.Lock()
		defer h.mu.Unlock()
		f.reply, f.err = h.invoke(h.ctx, e, args)
	}()
	return monty.Future(), nil
}

// Resolve implements monty.FutureHandler: it waits until at least one of
// the pending aio calls is done and answers every one that is.
func (h *handler) Resolve(ctx context.Context, pending []uint32) ([]monty.FutureResult, error) {
	for {
		var out []monty.FutureResult
		for _, id := range pending {
			h.mu.Lock()
			f, ok := h.futures[id]
			h.mu.Unlock()
			if !ok {
				return nil, fmt.Errorf("the program awaits call %d, which was never started", id)
			}
			select {
			case <-f.done:
				if f.err != nil {
					return nil, f.err
				}
				out = append(out, monty.FutureResult{ID: id, Reply: f.reply})
			default:
			}
		}
		if len(out) > 0 {
			return out, nil
		}
		select {
		case <-h.wake:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// maxParallel is the cap on one program's aio calls in flight.
func (r *Runtime) maxParallel() int {
	if r.cfg.MaxParallel > 0 {
		return r.cfg.MaxParallel
	}
	return DefaultMaxParallel
}

// settle waits for the program's aio calls still running (a program may
// end without awaiting one: the call was made, and is recorded).
func (h *handler) settle() { h.wg.Wait() }
