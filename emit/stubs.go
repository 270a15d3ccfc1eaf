package emit

import (
	"strings"

	"github.com/codemode-dev/codemode/ir"
)

// StubsHeader declares what every program may use without importing it.
const stubsHeader = `import json
import re
from typing import Any, Literal, NotRequired, TypedDict


def run_tool(name: str, arguments: dict[str, Any] | None = None) -> Any: ...
`

// TypeStubs prints the stubs Monty's type checker reads before a program:
// every shape and function of the given services at module level, prefixed
// "_<service>__" so services cannot clash, then one namespace class per
// service and the api object that binds them, so that
// api.<service>.<tool>(...) checks against the real signature. Stubs carry
// no documentation (checking cost grows with their size).
func TypeStubs(svcs []*ir.Service) string {
	var b strings.Builder
	b.WriteString(stubsHeader)
	for _, svc := range svcs {
		p := &printer{svc: svc, stub: true, done: map[*ir.Shape]bool{}, busy: map[*ir.Shape]bool{}}
		for _, t := range svc.Tools {
			p.w.ln(0, "")
			p.w.ln(0, "")
			p.shapesOf(t)
			p.function(t)
		}
		b.Write(p.w.bytes())
	}
	for _, svc := range svcs {
		b.WriteString("\n\nclass _api_" + string(svc.Name) + ":\n")
		if len(svc.Tools) == 0 {
			b.WriteString("    pass\n")
		}
		for _, t := range svc.Tools {
			b.WriteString("    " + string(t.Py) + " = _" + string(svc.Name) + "__" + string(t.Py) + "\n")
		}
	}
	b.WriteString("\n\nclass _api:\n")
	if len(svcs) == 0 {
		b.WriteString("    pass\n")
	}
	for _, svc := range svcs {
		b.WriteString("    " + string(svc.Name) + " = _api_" + string(svc.Name) + "\n")
	}
	b.WriteString("\n\napi: _api\n")
	return b.String()
}
