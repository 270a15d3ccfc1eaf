package runtime

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/manifest"
	"github.com/codemode-dev/codemode/parse"
)

// Each tool's definition is pinned in the manifest (manifest.Pin). Before a
// call to a tool of a service whose upstream can list its live tools (an
// MCP server), the runtime compares the live definition with the pin and
// refuses a tool that changed or is gone, on every path alike: programs,
// run_tool, Call (direct mode, the Go client), codemode run and serve. The
// live list is taken when a session opens, whenever the server announces
// that its tools changed, and again before a call when the last one is
// older than Config.PinTTL, so a change the server never announces is still
// caught.

// ToolLister is an upstream that can list its live tools now, as a
// {"tools": [...]} document (upstream.MCP does).
type ToolLister interface {
	ListTools(ctx context.Context) ([]byte, error)
}

// toolWatcher is an upstream that reports its tool list when a session
// opens and when the server says it changed (upstream.MCP does).
type toolWatcher interface {
	WatchTools(fn func(list []byte, err error))
}

// DefaultPinTTL is how old a service's last look at its live tools may be
// before a call looks again.
const DefaultPinTTL = 60 * time.Second

// pinned is the pin state of one service.
type pinned struct {
	svc    *manifest.Service
	lister ToolLister
	ttl    time.Duration
	report func(ir.ServiceName, []string, error)

	mu      sync.Mutex
	checked time.Time              // zero: never
	refused map[ir.WireName]string // wire → why, from the last check
	live    map[ir.WireName]string // wire → live pin, from the last check
	want    map[ir.WireName]string // wire → manifest pin
}

// newPins sets up pin checks for every service whose upstream can list its
// tools; one that also reports them (WatchTools) updates the check whenever
// a session opens or the server says they changed.
func (r *Runtime) newPins() {
	r.pins = map[ir.ServiceName]*pinned{}
	if r.cfg.NoPins {
		return
	}
	ttl := r.cfg.PinTTL
	if ttl <= 0 {
		ttl = DefaultPinTTL
	}
	for _, s := range r.services {
		up := r.cfg.Upstreams[s.Name]
		lister, canList := up.(ToolLister)
		watcher, canWatch := up.(toolWatcher)
		if !canList {
			// No way to see its live tools (HTTP, a tools/list file, a
			// wrapper): nothing to compare.
			continue
		}
		p := &pinned{svc: s, lister: lister, ttl: ttl, report: r.cfg.PinReport, want: map[ir.WireName]string{}}
		for _, t := range s.Tools {
			p.want[t.Wire] = t.Pin
		}
		if canWatch {
			watcher.WatchTools(func(list []byte, err error) {
				p.mu.Lock()
				defer p.mu.Unlock()
				p.update(list, err)
			})
		}
		r.pins[s.Name] = p
	}
}

// update takes a live tool list; p.mu is held. It returns the refusals.
func (p *pinned) update(list []byte, err error) []string {
	var refused []string
	if err == nil {
		refused, err = p.compare(list)
	}
	if p.report != nil {
		p.report(p.svc.Name, refused, err)
	}
	return refused
}

// compare checks a live tool list against the pins and records the result.
func (p *pinned) compare(list []byte) ([]string, error) {
	svc, err := parse.MCP(string(p.svc.Name)+" (live)", list, parse.Options{})
	if err != nil {
		return nil, err
	}
	// Each live definition is pinned by the rule its pin in the manifest
	// was written with (a pack generated before pin format 2 still serves).
	tools := map[ir.WireName]*ir.Tool{}
	for _, t := range svc.Tools {
		tools[t.Wire] = t
	}
	pinner := manifest.NewPinner()
	live := map[ir.WireName]string{}
	p.live, p.refused, p.checked = live, map[ir.WireName]string{}, time.Now()
	var out []string
	for wire, want := range p.want {
		t, ok := tools[wire]
		var got string
		var perr error
		if ok {
			got, perr = pinner.PinAs(want, t)
			live[wire] = got
		}
		switch {
		case perr != nil:
			p.refused[wire] = fmt.Sprintf("%s: %v", wire, perr)
		case !ok:
			p.refused[wire] = fmt.Sprintf("the live server no longer offers %s; regenerate the pack (codemode gen) and review the change", wire)
		case got != want:
			p.refused[wire] = fmt.Sprintf("the live definition of %s changed since the pack was generated (pinned %s, live %s); it is refused until the pack is regenerated (codemode gen) and the change reviewed", wire, shortPin(want), shortPin(got))
		default:
			continue
		}
		out = append(out, p.refused[wire])
	}
	sort.Strings(out)
	return out, nil
}

func shortPin(pin string) string {
	if i := strings.Index(pin, "sha256:"); i >= 0 && len(pin) > i+len("sha256:")+12 {
		return pin[:i+len("sha256:")+12]
	}
	return pin
}

// pinRefusal returns why a call to the tool must be refused ("" when its
// live definition matches its pin), re-listing the live tools first when
// the last look is older than the TTL. A list that fails refuses the call:
// an unchecked definition is not served.
func (r *Runtime) pinRefusal(ctx context.Context, service ir.ServiceName, wire ir.WireName) string {
	p := r.pins[service]
	if p == nil {
		return ""
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.checked.IsZero() || time.Since(p.checked) > p.ttl {
		lctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		list, err := p.lister.ListTools(lctx)
		cancel()
		p.update(list, err)
		if err != nil {
			return fmt.Sprintf("its live definition could not be checked against the pack's pin (listing the server's tools failed: %v)", err)
		}
	}
	return p.refused[wire]
}

// CheckPins lists the live tools of every pinned service now and returns
// one line per refused tool ("service: why"), sorted; errors are returned
// as lines too. serve calls it at start so the log shows refusals before
// the first call.
func (r *Runtime) CheckPins(ctx context.Context) []string {
	var out []string
	for _, s := range r.services {
		p := r.pins[s.Name]
		if p == nil {
			continue
		}
		p.mu.Lock()
		lctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		list, err := p.lister.ListTools(lctx)
		cancel()
		refused := p.update(list, err)
		p.mu.Unlock()
		if err != nil {
			out = append(out, fmt.Sprintf("%s: checking pins: %v", s.Name, err))
		}
		for _, why := range refused {
			out = append(out, string(s.Name)+": refusing: "+why)
		}
	}
	return out
}
