package runtime

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/manifest"
)

// A grant names tools exactly, by wire name (the name the upstream gives a
// tool: "get-sum", an operationId). Ungranted tools are not part of what a
// runtime shows or runs: the runtime works on a view of the manifest and of
// the generated files with them taken out, so find_tool, read_api, the MCP
// resources, dir(api), repr(api), help() and the type-check stubs know
// nothing of them, and a program naming one fails like a misspelt one.

// CheckGrant checks that every name of a grant is the wire name of one of
// the service's tools. The error names the first one that is not, with the
// tool it probably means.
func CheckGrant(s *manifest.Service, names []string) error {
	wires := make([]string, 0, len(s.Tools))
	for _, t := range s.Tools {
		wires = append(wires, string(t.Wire))
	}
	has := map[string]bool{}
	for _, w := range wires {
		has[w] = true
	}
	for _, n := range names {
		if has[n] {
			continue
		}
		msg := fmt.Sprintf("grant of service %s: %q is not the wire name of any of its tools", s.Name, n)
		for _, t := range s.Tools {
			if string(t.Py) == n || t.Call == n || string(s.Name)+"."+string(t.Py) == n {
				return fmt.Errorf("%s; %q is the Python name of %q: grant tools by wire name", msg, n, t.Wire)
			}
		}
		if best := closest(n, wires); best != "" {
			return fmt.Errorf("%s; did you mean %q?", msg, best)
		}
		return fmt.Errorf("%s (the service has %d tools)", msg, len(wires))
	}
	return nil
}

// grantSet returns the grant test for one service's tools: nil grants
// grant everything; otherwise a service absent from grants has nothing
// granted, and a listed service exactly the tools whose wire names are
// listed ([] grants nothing).
func grantSet(grants map[ir.ServiceName][]string, s *manifest.Service) (func(*manifest.Tool) bool, error) {
	if grants == nil {
		return func(*manifest.Tool) bool { return true }, nil
	}
	names := grants[s.Name]
	if err := CheckGrant(s, names); err != nil {
		return nil, err
	}
	set := map[ir.WireName]bool{}
	for _, n := range names {
		set[ir.WireName(n)] = true
	}
	return func(t *manifest.Tool) bool { return set[t.Wire] }, nil
}

// view is what a runtime shows and runs: the granted tools only.
type view struct {
	manifest *manifest.Manifest
	files    map[string][]byte
	// sig is the line of each tool's def (its signature) in the view's
	// file, keyed by service and wire name.
	sig map[ir.ToolID]int
}

// buildView takes the ungranted tools out of the manifest and the files. A
// service with no granted tool is left out whole. Line ranges are those of
// the view's files.
func buildView(m *manifest.Manifest, files map[string][]byte, grants map[ir.ServiceName][]string) (*view, error) {
	v := &view{manifest: &manifest.Manifest{Version: m.Version}, files: map[string][]byte{}, sig: map[ir.ToolID]int{}}
	known := map[ir.ServiceName]bool{}
	for i := range m.Services {
		known[m.Services[i].Name] = true
	}
	var extra []string
	for name := range grants {
		if !known[name] {
			extra = append(extra, string(name))
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		return nil, fmt.Errorf("grants name service %s, which the manifest does not have", strings.Join(extra, ", "))
	}
	for i := range m.Services {
		s := &m.Services[i]
		granted, err := grantSet(grants, s)
		if err != nil {
			return nil, err
		}
		vs := *s
		vs.Tools = nil
		hidden := map[ir.PyIdent]bool{}
		var hiddenSpans []hiddenTool
		for _, t := range s.Tools {
			if granted(&t) {
				vs.Tools = append(vs.Tools, t)
			} else {
				hidden[t.Py] = true
				hiddenSpans = append(hiddenSpans, hiddenTool{py: t.Py, start: t.Lines[0], end: t.Lines[1]})
			}
		}
		if len(vs.Tools) == 0 {
			continue
		}
		data, ok := files[s.File]
		lines := splitLines(data)
		keep := make([]bool, len(lines)+1)
		for n := range keep {
			keep[n] = true
		}
		if ok && len(hiddenSpans) > 0 {
			hideTools(lines, keep, hiddenSpans)
			manifest.DropUnreferencedShared(lines, keep)
		}
		newLine := make([]int, len(lines)+2)
		var out []string
		for n := 1; n <= len(lines); n++ {
			if keep[n] {
				out = append(out, lines[n-1])
			}
			newLine[n] = len(out)
		}
		if ok {
			text := strings.Join(out, "\n")
			if len(out) > 0 {
				text += "\n"
			}
			v.files[s.File] = []byte(text)
		}
		for j := range vs.Tools {
			t := &vs.Tools[j]
			sig := 0
			if ok {
				sig = defLine(lines, string(t.Py), t.Lines[0], t.Lines[1])
			}
			if ok && len(hiddenSpans) > 0 {
				t.Lines = [2]int{mapLine(newLine, t.Lines[0]), mapLine(newLine, t.Lines[1])}
				if sig > 0 {
					sig = mapLine(newLine, sig)
				}
			}
			v.sig[ir.ToolID{Service: s.Name, Wire: t.Wire}] = sig
		}
		if len(hidden) > 0 {
			vs.Stub = hideMethods(vs.Stub, hidden)
		}
		v.manifest.Services = append(v.manifest.Services, vs)
	}
	return v, nil
}

type hiddenTool struct {
	py         ir.PyIdent
	start, end int
}

func splitLines(data []byte) []string {
	if len(data) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

func mapLine(newLine []int, n int) int {
	if n < 1 || n >= len(newLine) {
		return n
	}
	return newLine[n]
}

// defLine is the line of "def <py>(" within lines start..end, or 0.
func defLine(lines []string, py string, start, end int) int {
	for n := max(start, 1); n <= end && n <= len(lines); n++ {
		if strings.HasPrefix(lines[n-1], "def "+py+"(") {
			return n
		}
	}
	return 0
}

var identifier = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)

// shapeName names a shape's block, or a Literal alias's (a line that stays
// may name either).
var shapeName = regexp.MustCompile(`^(?:class ([A-Za-z_][A-Za-z0-9_]*)\(|([A-Za-z_][A-Za-z0-9_]*) = (?:TypedDict\(|Literal\[))`)

// hideTools marks the lines of hidden tools as not kept: each one's def
// with its docstring, and the shapes printed with it unless a line that
// stays names them (a later granted tool may share a shape). A removed
// block takes the blank lines before it along.
func hideTools(lines []string, keep []bool, hidden []hiddenTool) {
	type block struct {
		name     string
		from, to int // inclusive
		kept     bool
	}
	inHidden := make([]bool, len(lines)+1)
	var defs, shapes []*block
	for _, h := range hidden {
		d := defLine(lines, string(h.py), h.start, h.end)
		if d == 0 {
			d = h.start
		}
		for n := h.start; n <= h.end && n <= len(lines); n++ {
			inHidden[n] = true
		}
		defs = append(defs, &block{from: d, to: min(h.end, len(lines))})
		// Shape blocks: a line at column 0 after a blank line starts one.
		var cur *block
		for n := h.start; n < d && n <= len(lines); n++ {
			l := lines[n-1]
			starts := l != "" && l[0] != ' ' && l[0] != ')' && (n == h.start || lines[n-2] == "")
			if starts {
				cur = &block{from: n, to: n}
				if m := shapeName.FindStringSubmatch(l); m != nil {
					cur.name = m[1] + m[2]
				}
				shapes = append(shapes, cur)
			} else if cur != nil && l != "" {
				cur.to = n
			}
		}
	}
	// The text that stays: everything outside hidden tools, plus the shapes
	// it names, transitively. Names are compared as identifiers.
	used := map[string]bool{}
	use := func(from, to int) {
		for n := from; n <= to; n++ {
			for _, id := range identifier.FindAllString(lines[n-1], -1) {
				used[id] = true
			}
		}
	}
	for n := 1; n <= len(lines); n++ {
		if !inHidden[n] {
			use(n, n)
		}
	}
	for changed := true; changed; {
		changed = false
		for _, b := range shapes {
			if !b.kept && b.name != "" && used[b.name] {
				b.kept, changed = true, true
				use(b.from, b.to)
			}
		}
	}
	drop := func(b *block) {
		from := b.from
		for from > 1 && lines[from-2] == "" {
			from--
		}
		for n := from; n <= b.to; n++ {
			keep[n] = false
		}
	}
	for _, b := range shapes {
		if !b.kept {
			drop(b)
		}
	}
	for _, b := range defs {
		drop(b)
	}
}

// hideMethods takes the hidden tools' methods out of a service's
// type-check stub: each is "    def <py>(" through its "        ..." line.
func hideMethods(stub string, hidden map[ir.PyIdent]bool) string {
	lines := strings.Split(stub, "\n")
	out := make([]string, 0, len(lines))
	skipping := false
	for _, l := range lines {
		if skipping {
			if l == "        ..." {
				skipping = false
			}
			continue
		}
		if name, ok := strings.CutPrefix(l, "    def "); ok {
			if i := strings.IndexByte(name, '('); i > 0 && hidden[ir.PyIdent(name[:i])] {
				skipping = true
				continue
			}
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}
