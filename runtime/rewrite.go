package runtime

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/codemode-dev/codemode/manifest"
)

// The pinned Monty has no host modules, so imports of the generated
// surface are rewritten into plain bindings of the api object, one line for
// one line, so every line number in a traceback is still the program's own:
//
//	import api                          → pass
//	import api.github                   → pass
//	import api.github as gh             → gh = api.github
//	from api import github, slack as s  → github = api.github; s = api.slack
//	from api.github import create_issue → create_issue = api.github.create_issue
var (
	importAPI     = regexp.MustCompile(`^(\s*)import\s+(api(?:\.[A-Za-z_][A-Za-z0-9_]*)?(?:\s+as\s+[A-Za-z_][A-Za-z0-9_]*)?(?:\s*,\s*api(?:\.[A-Za-z_][A-Za-z0-9_]*)?(?:\s+as\s+[A-Za-z_][A-Za-z0-9_]*)?)*)\s*(#.*)?$`)
	fromAPI       = regexp.MustCompile(`^(\s*)from\s+(api(?:\.[A-Za-z_][A-Za-z0-9_]*)?)\s+import\s+(.+?)\s*(#.*)?$`)
	importAsParts = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_.]*)(?:\s+as\s+([A-Za-z_][A-Za-z0-9_]*))?$`)
)

func rewriteImports(code string, svcs []*manifest.Service) (string, error) {
	known := map[string]*manifest.Service{}
	for _, s := range svcs {
		known[string(s.Name)] = s
	}
	lines := strings.Split(code, "\n")
	for i, line := range lines {
		if !strings.Contains(line, "api") {
			continue
		}
		if m := importAPI.FindStringSubmatch(line); m != nil {
			var stmts []string
			for _, part := range strings.Split(m[2], ",") {
				pm := importAsParts.FindStringSubmatch(strings.TrimSpace(part))
				if pm == nil {
					continue
				}
				mod := pm[1]
				if svc, ok := strings.CutPrefix(mod, "api."); ok && known[svc] == nil {
					return "", importError(i+1, mod, svcs)
				}
				if pm[2] != "" {
					stmts = append(stmts, pm[2]+" = "+mod)
				}
			}
			if len(stmts) == 0 {
				stmts = []string{"pass"}
			}
			lines[i] = m[1] + strings.Join(stmts, "; ")
			continue
		}
		if m := fromAPI.FindStringSubmatch(line); m != nil {
			mod, names := m[2], strings.Trim(m[3], "() ")
			// from api.aio import <service>: the awaitable forms.
			aio := mod == "api."+aioName && known[aioName] == nil
			if svc, ok := strings.CutPrefix(mod, "api."); ok && known[svc] == nil && !aio {
				return "", importError(i+1, mod, svcs)
			}
			var stmts []string
			for _, part := range strings.Split(names, ",") {
				part = strings.TrimSpace(part)
				if part == "" {
					continue
				}
				if part == "*" {
					return "", fmt.Errorf("%s, line %d: 'from %s import *' is not supported here; import the functions you use by name, or call them as %s.<name>(...)", ScriptName, i+1, mod, mod)
				}
				pm := importAsParts.FindStringSubmatch(part)
				if pm == nil || strings.Contains(pm[1], ".") {
					return "", fmt.Errorf("%s, line %d: cannot read the import %q", ScriptName, i+1, part)
				}
				alias := pm[1]
				if pm[2] != "" {
					alias = pm[2]
				}
				if (mod == "api" || aio) && known[pm[1]] == nil {
					return "", importError(i+1, "api."+pm[1], svcs)
				}
				stmts = append(stmts, alias+" = "+mod+"."+pm[1])
			}
			lines[i] = m[1] + strings.Join(stmts, "; ")
		}
	}
	return strings.Join(lines, "\n"), nil
}

func importError(line int, mod string, svcs []*manifest.Service) error {
	var names []string
	for _, s := range svcs {
		names = append(names, "api."+string(s.Name))
	}
	msg := fmt.Sprintf("%s, line %d: ModuleNotFoundError: no module named '%s'", ScriptName, line, mod)
	if best := closest(mod, names); best != "" {
		msg += fmt.Sprintf(". Did you mean %s?", best)
	}
	return fmt.Errorf("%s The services here are: %s. %s", msg, strings.Join(names, ", "), findHint)
}
