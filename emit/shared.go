package emit

import (
	"github.com/codemode-dev/codemode/ir"
)

// SharedMark is the comment of a parameter or TypedDict key whose
// documentation is in the module docstring's list of shared ones: the same
// name documented with the same words in several places of a service (a
// project slug every tool takes) is printed once there.
const SharedMark = "see module doc"

// sharedHeader introduces the module docstring's shared documentation.
const sharedHeader = `Shared parameter docs: a parameter or key commented "` + SharedMark + `" below is this:`

// findShared picks the documentation comments to print once in the module
// docstring: a name (parameter or key) whose comment, a description and
// whatever follows it, is the same in two or more places, when printing it
// once and the mark at each place is shorter than printing it at each. A
// name documented two ways shares only its most used one.
func (p *printer) findShared() {
	type use struct {
		name, doc string
	}
	count := map[use]int{}
	var order []use
	add := func(name, desc, doc string) {
		if desc == "" || doc == "" {
			return
		}
		u := use{name, doc}
		if count[u] == 0 {
			order = append(order, u)
		}
		count[u]++
	}
	for _, t := range p.svc.Tools {
		for _, prm := range SignatureOrder(t) {
			add(string(prm.Py), prm.Description, paramDoc(prm))
		}
	}
	for _, sh := range p.svc.Objects {
		for _, f := range sh.Fields {
			add(f.Wire, f.Description, fieldDoc(f))
		}
	}
	// saved is the characters one entry saves: the doc printed n-1 fewer
	// times, less the mark at each place and the entry's name and
	// indentation.
	saved := func(u use) int { n := count[u]; return (n-1)*len(u.doc) - n*len(SharedMark) - len(u.name) - 6 }
	best := map[string]use{}
	for _, u := range order {
		if count[u] < 2 || saved(u) <= 0 {
			continue
		}
		if b, ok := best[u.name]; !ok || count[b] < count[u] {
			best[u.name] = u
		}
	}
	total := 0
	for _, u := range best {
		total += saved(u)
	}
	if total <= len(sharedHeader) { // the list would cost more than it saves
		return
	}
	p.shared = map[string]string{}
	for _, u := range order {
		if best[u.name] == u {
			p.shared[u.name] = u.doc
			p.sharedOrder = append(p.sharedOrder, u.name)
		}
	}
}

// sharedDoc is the comment to print for name documented as doc: the mark
// when the module docstring has it.
func (p *printer) sharedDoc(name, doc string) string {
	if doc != "" && p.shared[name] == doc {
		return SharedMark
	}
	return doc
}

// sharedLines are the module docstring's lines for the shared docs.
func (p *printer) sharedLines() []string {
	if len(p.sharedOrder) == 0 {
		return nil
	}
	lines := []string{"", sharedHeader}
	for _, name := range p.sharedOrder {
		shown := name
		if !ir.IsPyIdent(name) {
			shown = pyString(name)
		}
		lines = append(lines, "    "+shown+": "+p.shared[name])
	}
	return lines
}
