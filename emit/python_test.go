package emit_test

import (
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/emit"
	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/parse"
)

// compileMCP compiles an MCP tools/list document the way a pack does
// without enrichment (parse, Resolve) and returns its api/<svc>.py.
func compileMCP(t *testing.T, doc string) string {
	t.Helper()
	svc, err := parse.MCP("test", []byte(doc), parse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ir.Resolve(svc)
	py, _ := emit.Python(svc)
	return string(py)
}

// between is the text of py from the line starting with from up to the
// line starting with to (exclusive).
func between(t *testing.T, py, from, to string) string {
	t.Helper()
	_, rest, ok := strings.Cut(py, "\n"+from)
	if !ok {
		t.Fatalf("no line %q in:\n%s", from, py)
	}
	rest = from + rest
	if i := strings.Index(rest, "\n"+to); i >= 0 {
		rest = rest[:i+1]
	}
	return rest
}

// TestIndentedDescriptionNotIndentedTwice: a description written indented
// in its source (a template literal's "\n    ") was printed with its own
// indentation on top of the docstring's; the lines after the first lose
// the indentation they share, and keep what is relative to it.
func TestIndentedDescriptionNotIndentedTwice(t *testing.T) {
	py := compileMCP(t, `{"tools": [{"name": "logs", "inputSchema": {"type": "object"},
		"description": "Get logs.\n\n    CRITICAL:\n    1. Large logs:\n       - use outputDir\n\n    Done."}]}`)
	want := `def logs() -> Any:
    """Get logs.

    CRITICAL:
    1. Large logs:
       - use outputDir

    Done."""
`
	if got := between(t, py, "def logs", "\x00"); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}
