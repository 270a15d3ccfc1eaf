package runtime

import (
	"fmt"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/manifest"
)

// lookupRuntime is a Runtime with only what lookupTool needs: one service
// of n tools.
func lookupRuntime(n int) *Runtime {
	s := manifest.Service{Name: "svc"}
	for i := range n {
		py := fmt.Sprintf("get_repository_thing_%d", i)
		s.Tools = append(s.Tools, manifest.Tool{Wire: ir.WireName(strings.ReplaceAll(py, "_", "-")), Py: ir.PyIdent(py), Call: "api.svc." + py})
	}
	m := &manifest.Manifest{Services: []manifest.Service{s}}
	r := &Runtime{cfg: Config{Manifest: m}, tools: map[toolKey]*toolEntry{}, byWire: map[string][]*toolEntry{}}
	ms := &m.Services[0]
	r.services = []*manifest.Service{ms}
	for j := range ms.Tools {
		t := &ms.Tools[j]
		e := &toolEntry{svc: ms, tool: t}
		r.tools[toolKey{ms.Name, string(t.Py)}] = e
		r.byWire[string(t.Wire)] = append(r.byWire[string(t.Wire)], e)
	}
	return r
}

// BenchmarkLookupToolAdversarialName is the host work of resolving
// run_tool's name among 300 tools: a misspelling (fuzzy matched), a name
// just over the fuzzy bound, and names of 1 MB and 20 MB (refused by
// length). Compare as ratios to "misspelt".
func BenchmarkLookupToolAdversarialName(b *testing.B) {
	r := lookupRuntime(300)
	for _, c := range []struct{ name, tool string }{
		{"misspelt", "get_repository_thing_12x"},
		{"65B", strings.Repeat("q", maxFuzzy+1)},
		{"1MB", strings.Repeat("q", 1<<20)},
		{"20MB", strings.Repeat("q", 20<<20)},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := r.lookupTool(c.tool); err == nil {
					b.Fatal("found a tool")
				}
			}
		})
	}
}
