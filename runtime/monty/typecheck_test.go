package monty

import (
	"strings"
	"testing"
)

// checkStubs is the stub shape that type-checks `api.<service>.<tool>(...)`
// when `api` is bound through Feed inputs. Facts pinned by these tests
// (monty 0.0.23):
//   - the stubs are checked as a .pyi module (repl_type_stubs.pyi): a body
//     of a docstring alone, or `...`, with a non-None return type is fine;
//     diagnostics inside the stubs are never reported;
//   - the fed code sees the stubs' public names as if star-imported: `api`
//     and `Issue` resolve, underscore names (`_api`) do not;
//   - a service must be an attribute annotated with an INSTANCE type whose
//     tools are plain methods taking self; @staticmethod tools, and
//     `github = github` / `github: type[github]` class attributes, come out
//     as unknown types and nothing is checked.
const checkStubs = `from typing import Literal, NotRequired, TypedDict

class Label(TypedDict):
    name: str
    color: NotRequired[str]

class Issue(TypedDict):
    number: int
    title: str

class _github:
    def create_issue(self, title: str, *, labels: list[Label] | None = None, state: Literal["open", "closed"] | None = None) -> Issue:
        """Create an issue.

        Args:
            title: The issue title.
        """

class _api:
    github: _github

api: _api
`

func checkedWorker(t *testing.T, stubs string) (*Worker, []NamedValue) {
	w := newWorker(t, Config{ScriptName: "prog.py", TypeCheck: true, TypeCheckStubs: stubs, TypeCheckFormat: "concise"})
	gh := NewInstance("_github", Attr{"create_issue", Function{Name: "github.create_issue"}})
	return w, []NamedValue{{"api", NewInstance("_api", Attr{"github", gh})}}
}

func issueHandler() *recorder {
	return &recorder{answer: func(c *Call) (Reply, error) {
		title, _ := c.Kwarg("title")
		return Return(NewDict("number", int64(17), "title", title)), nil
	}}
}

func TestTypeCheckAcceptsGoodCall(t *testing.T) {
	w, inputs := checkedWorker(t, checkStubs)
	h := issueHandler()
	code := `issue = api.github.create_issue(title="x", labels=[{"name": "bug"}], state="open")
n: int = issue["number"]
print(n, issue["title"])
`
	out := feed(t, w, code, inputs, h)
	mustOK(t, out)
	if h.output() != "17 x\n" {
		t.Errorf("output = %q", h.output())
	}
}

func TestTypeCheckRejectsBadCalls(t *testing.T) {
	w, inputs := checkedWorker(t, checkStubs)
	cases := []struct{ code, want string }{
		{"x = 1\napi.github.create_issue(title=5)",
			"prog.py:2:25: error[invalid-argument-type] Argument to bound method `_github.create_issue` is incorrect: Expected `str`, found `Literal[5]`\n"},
		{`api.github.create_issue(title="x", nope=1)`,
			"prog.py:1:36: error[unknown-argument] Argument `nope` does not match any known parameter of bound method `_github.create_issue`\n"},
		{`api.github.create_issue(title="x", state="opened")`,
			"prog.py:1:36: error[invalid-argument-type] Argument to bound method `_github.create_issue` is incorrect: Expected `Literal[\"open\", \"closed\"] | None`, found `Literal[\"opened\"]`\n"},
		{`api.gitlab.list()`,
			"prog.py:1:1: error[unresolved-attribute] Object of type `_api` has no attribute `gitlab`\n"},
		{`i = api.github.create_issue(title="x")` + "\ns: str = i[\"number\"]",
			"prog.py:2:10: error[invalid-assignment] Object of type `int` is not assignable to `str`\n"},
	}
	for _, c := range cases {
		h := issueHandler()
		out := feed(t, w, c.code, inputs, h)
		if out.TypingError != c.want {
			t.Errorf("%s:\ngot  %q\nwant %q", c.code, out.TypingError, c.want)
		}
		if len(h.calls) != 0 || out.Exception != nil {
			t.Errorf("%s: the program ran (%d calls, %v)", c.code, len(h.calls), out.Exception)
		}
	}
	// A TypedDict key typo inside a dict literal argument is caught.
	out := feed(t, w, `api.github.create_issue(title="x", labels=[{"name": "a", "colour": "red"}])`, inputs, issueHandler())
	if !strings.Contains(out.TypingError, "error[invalid-key] Unknown key \"colour\" for TypedDict `Label`") {
		t.Errorf("TypedDict key typo: %q", out.TypingError)
	}
}

func TestTypeCheckFacts(t *testing.T) {
	// Public stub names are known to the checker but do not exist at run
	// time: the program gets a NameError (after a NameLookup the host may
	// answer).
	w, inputs := checkedWorker(t, checkStubs)
	h := &recorder{}
	out := feed(t, w, "x: Issue = {'number': 1, 'title': 't'}\nprint(Issue)", inputs, h)
	if out.TypingError != "" || out.Exception == nil || out.Exception.Type != "NameError" {
		t.Errorf("outcome = %+v", out)
	}
	out = feed(t, w, "y: _api = api", inputs, h)
	if !strings.Contains(out.TypingError, "error[unresolved-reference] Name `_api` used when not defined") {
		t.Errorf("underscore name: %q", out.TypingError)
	}
	// The fed code itself is not a stub: an empty body is an error there.
	out = feed(t, w, "def f() -> int:\n    \"\"\"doc\"\"\"\n", inputs, h)
	if !strings.Contains(out.TypingError, "prog.py:1:12: error[empty-body]") {
		t.Errorf("empty body in fed code: %q", out.TypingError)
	}

	// @staticmethod tools on a class attribute are not checked.
	static := `class github:
    @staticmethod
    def create_issue(title: str) -> int:
        """Doc."""

class _api:
    github = github

api: _api
`
	w2, inputs2 := checkedWorker(t, static)
	h2 := issueHandler()
	out = feed(t, w2, "api.github.create_issue(title=5)", inputs2, h2)
	if out.TypingError != "" || len(h2.calls) != 1 {
		t.Errorf("staticmethod stubs are now checked (%q): switch the stub shape?", out.TypingError)
	}

	// Errors inside the stubs are silent, and a broken stub name leaves
	// its uses unchecked.
	w3, inputs3 := checkedWorker(t, checkStubs+"\nbad: int = \"s\"\n")
	out = feed(t, w3, "x = 1", inputs3, &recorder{})
	mustOK(t, out)
}

func TestTypeCheckFullFormat(t *testing.T) {
	w := newWorker(t, Config{ScriptName: "prog.py", TypeCheck: true, TypeCheckStubs: checkStubs})
	gh := NewInstance("_github", Attr{"create_issue", Function{Name: "github.create_issue"}})
	out := feed(t, w, "api.github.create_issue(title=5)", []NamedValue{{"api", NewInstance("_api", Attr{"github", gh})}}, &recorder{})
	want := "error[invalid-argument-type]: Argument to bound method `_github.create_issue` is incorrect\n" +
		" --> prog.py:1:25\n" +
		"  |\n" +
		"1 | api.github.create_issue(title=5)\n" +
		"  |                         ^^^^^^^ Expected `str`, found `Literal[5]`\n" +
		"info: Method defined here\n" +
		"  --> repl_type_stubs.pyi:12:9\n"
	if !strings.HasPrefix(out.TypingError, want) {
		t.Errorf("full diagnostics:\n%s", out.TypingError)
	}
}
