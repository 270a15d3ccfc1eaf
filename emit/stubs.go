package emit

import (
	"strings"

	"github.com/codemode-dev/codemode/ir"
)

// ServiceStub prints one resolved service for Monty's type checker: its
// shapes at module level, prefixed "_<service>__" so services cannot clash,
// then the class "_svc_<service>" with one method per tool. No
// documentation: checking cost grows with the stub's size. The manifest
// stores it; manifest.AssembleStubs joins the ones a program needs.
func ServiceStub(svc *ir.Service) string { return serviceStub(svc, canonicalShapes(svc)) }

func serviceStub(svc *ir.Service, canon map[*ir.ObjectType]*ir.ObjectType) string {
	p := &printer{svc: svc, stub: true, done: map[*ir.ObjectType]bool{}, busy: map[*ir.ObjectType]bool{}, canon: canon}
	p.w.ln(0, "")
	p.w.ln(0, "")
	for _, t := range svc.Tools {
		p.shapesOf(t)
	}
	p.w.ln(0, "class _svc_"+string(svc.Name)+":")
	p.indent = 1
	if len(svc.Tools) == 0 {
		p.w.ln(1, "pass")
	}
	defs := p.defs(nil)
	// Joined once, into the string returned.
	n := p.w.b.Len()
	for _, d := range defs {
		n += len(d.b)
	}
	var b strings.Builder
	b.Grow(n)
	b.Write(p.w.b.Bytes())
	for _, d := range defs {
		b.Write(d.b)
	}
	return b.String()
}
