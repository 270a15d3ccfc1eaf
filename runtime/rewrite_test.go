package runtime

import (
	"testing"

	"github.com/codemode-dev/codemode/manifest"
)

func TestRewriteImports(t *testing.T) {
	svcs := []*manifest.Service{{Name: "github"}, {Name: "slack"}}
	for _, c := range []struct{ in, want string }{
		{"import api", "pass"},
		{"import api.github", "pass"},
		{"import api.github as gh", "gh = api.github"},
		{"import api.github as gh, api.slack", "gh = api.github"},
		{"    import api.slack as s  # comment", "    s = api.slack"},
		{"from api import github, slack as s", "github = api.github; s = api.slack"},
		{"from api import (github)", "github = api.github"},
		{"from api.github import create_issue, list_issues as li", "create_issue = api.github.create_issue; li = api.github.list_issues"},
		{"x = 1  # api is not imported here", "x = 1  # api is not imported here"},
		{"import json", "import json"},
	} {
		got, err := rewriteImports(c.in, svcs)
		if err != nil || got != c.want {
			t.Errorf("rewriteImports(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	// Line numbers are kept: one line in, one line out.
	got, _ := rewriteImports("a = 1\nfrom api.github import f\nb = 2\n", svcs)
	if got != "a = 1\nf = api.github.f\nb = 2\n" {
		t.Errorf("multi-line: %q", got)
	}
	for _, c := range []struct{ in, want string }{
		{"x = 1\nimport api.githb", "program.py, line 2: ModuleNotFoundError: no module named 'api.githb'. Did you mean api.github? The services here are: api.github, api.slack. Find tools with find_tool(\"<what you need>\")."},
		{"from api import gitlab", "program.py, line 1: ModuleNotFoundError: no module named 'api.gitlab'. Did you mean api.github? The services here are: api.github, api.slack. Find tools with find_tool(\"<what you need>\")."},
		{"from api.github import *", "program.py, line 1: 'from api.github import *' is not supported here; import the functions you use by name, or call them as api.github.<name>(...)"},
	} {
		_, err := rewriteImports(c.in, svcs)
		if err == nil || err.Error() != c.want {
			t.Errorf("rewriteImports(%q) error = %v\nwant %s", c.in, err, c.want)
		}
	}
}
