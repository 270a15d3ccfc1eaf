package gateway

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/manifest"
	"github.com/codemode-dev/codemode/parse"
	"github.com/codemode-dev/codemode/runtime"
	"github.com/codemode-dev/codemode/runtime/upstream"
)

// Pins is a policy hook that refuses calls to tools whose live upstream
// definition no longer matches the pin the manifest recorded when the pack
// was generated, so a changed tool cannot slip in unreviewed. Feed it the
// live tool lists with CheckLive. Safe for concurrent use.
//
// The runtime itself checks the pins of every upstream that can list its
// tools, on every path and re-listing when its last look is old
// (runtime.Config.NoPins, PinTTL); serve relies on that. Pins is for a
// caller that gets tool lists some other way and wants the same refusals.
type Pins struct {
	mu      sync.Mutex
	want    map[ir.ToolID]string // manifest pin
	changed map[ir.ToolID]string // why it is refused
}

var _ runtime.Policy = (*Pins)(nil)

// NewPins takes the pins of every tool in the manifest.
func NewPins(m *manifest.Manifest) *Pins {
	p := &Pins{want: map[ir.ToolID]string{}, changed: map[ir.ToolID]string{}}
	for _, s := range m.Services {
		for _, t := range s.Tools {
			p.want[ir.ToolID{Service: s.Name, Wire: t.Wire}] = t.Pin
		}
	}
	return p
}

// CheckLive compares a service's live tools/list result (any form
// parse.MCP reads, e.g. {"tools": [...]}) with the manifest's pins. Tools
// whose definition changed or that the server no longer has are refused
// from now on; tools that match again are allowed again. It returns one
// line per refused tool of the service, sorted.
func (p *Pins) CheckLive(service ir.ServiceName, m *manifest.Service, toolsList []byte) ([]string, error) {
	svc, err := parse.MCP(string(service)+" (live)", toolsList, parse.Options{})
	if err != nil {
		return nil, err
	}
	live := map[ir.WireName]string{}
	for _, t := range svc.Tools {
		live[t.Wire] = manifest.Pin(t)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, t := range m.Tools {
		key := ir.ToolID{Service: service, Wire: t.Wire}
		got, ok := live[t.Wire]
		switch {
		case !ok:
			p.changed[key] = fmt.Sprintf("the live server no longer offers %s; regenerate the pack (codemode gen) and review the change", t.Wire)
		case got != p.want[key]:
			p.changed[key] = fmt.Sprintf("the live definition of %s changed since the pack was generated (pinned %s, live %s); it is refused until the pack is regenerated (codemode gen) and the change reviewed", t.Wire, short(p.want[key]), short(got))
		default:
			delete(p.changed, key)
			continue
		}
		out = append(out, p.changed[key])
	}
	sort.Strings(out)
	return out, nil
}

func short(pin string) string {
	if len(pin) > len("sha256:")+12 {
		return pin[:len("sha256:")+12]
	}
	return pin
}

// Refused returns why a tool is refused, or "".
func (p *Pins) Refused(service ir.ServiceName, wire ir.WireName) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.changed[ir.ToolID{Service: service, Wire: wire}]
}

// Before denies a tool whose pin no longer matches.
func (p *Pins) Before(_ context.Context, c *runtime.CallInfo) runtime.Verdict {
	if why := p.Refused(c.Service, c.Tool.Wire); why != "" {
		return runtime.Verdict{Deny: why}
	}
	return runtime.Verdict{}
}

// After does nothing.
func (p *Pins) After(context.Context, *runtime.CallInfo, *upstream.Result) runtime.Verdict {
	return runtime.Verdict{}
}

// Watcher returns a callback for upstream.MCP.WatchTools that checks each
// live tool list of the service against the pins; report receives the
// refusals (and errors) of every check.
func (p *Pins) Watcher(m *manifest.Service, report func(service ir.ServiceName, refused []string, err error)) func(list []byte, err error) {
	return func(list []byte, err error) {
		var refused []string
		if err == nil {
			refused, err = p.CheckLive(m.Name, m, list)
		}
		if report != nil {
			report(m.Name, refused, err)
		}
	}
}
