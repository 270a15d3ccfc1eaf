package manifest

import (
	"slices"
	"strings"

	"github.com/codemode-dev/codemode/ir"
)

// stubsHeader declares what every program may use without importing it.
// The checker reads the stubs as a .pyi module and the program sees it as if
// star-imported; only __all__ re-exports the modules json and re, which
// every program has pre-imported.
const stubsHeader = `import json
import re
from typing import Any, Literal, NotRequired, TypedDict

__all__ = ["PermissionError", "api", "dir", "json", "re", "run_tool"]


# The checker's builtins lack PermissionError, which refusals raise, and
# dir, which the host answers for api and its services.
class PermissionError(OSError): ...


def dir(obj: object) -> list[str]: ...


def run_tool(name: str, arguments: dict[str, Any] | None = None) -> Any: ...
`

// AssembleStubs builds the whole stub source for a program that may use the
// given services: the common header, each service's stub, and the api
// object whose attributes are the services, so that api.<service>.<tool>(...)
// checks against the real signature.
//
// The services share one module, and a module the checker cannot parse
// leaves every name in it undefined, so one bad stub would fail every
// program. Each stub is therefore checked on its own first (CheckPython;
// gen refuses to write one that fails, but a manifest may come from
// elsewhere): one that fails is replaced by an open class whose attributes
// are all Any, and only calls into that service go unchecked.
func AssembleStubs(svcs []*Service) string {
	var b strings.Builder
	b.WriteString(stubsHeader)
	for _, s := range svcs {
		if !ir.IsPyIdent(string(s.Name)) {
			continue
		}
		if CheckPython([]byte(s.Stub)) != nil || !strings.Contains(s.Stub, "\nclass _svc_"+string(s.Name)+":\n") {
			b.WriteString(openStub(s.Name))
			continue
		}
		b.WriteString(s.Stub)
	}
	b.WriteString("\n\nclass _api:\n")
	if !slices.ContainsFunc(svcs, func(s *Service) bool { return ir.IsPyIdent(string(s.Name)) }) {
		b.WriteString("    pass\n")
	}
	for _, s := range svcs {
		if ir.IsPyIdent(string(s.Name)) {
			b.WriteString("    " + string(s.Name) + ": _svc_" + string(s.Name) + "\n")
		}
	}
	b.WriteString("\n\napi: _api\n")
	return b.String()
}

// openStub is the stand-in for a service whose stub cannot be checked:
// any attribute, any call.
func openStub(name ir.ServiceName) string {
	return "\n\nclass _svc_" + string(name) + ":\n    def __getattr__(self, name: str) -> Any: ...\n"
}
