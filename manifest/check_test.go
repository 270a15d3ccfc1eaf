package manifest_test

import (
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/manifest"
)

// TestCheckPythonRefuses: each way a file could let source text become
// code, or make Python or Monty's checker refuse it, is refused with its
// line; the printers' own constructs pass.
func TestCheckPythonRefuses(t *testing.T) {
	deep := "x: " + strings.Repeat("list[", manifest.MaxNesting+1) + "int" + strings.Repeat("]", manifest.MaxNesting+1) + "\n"
	for _, c := range []struct{ src, want string }{
		{"# a\rimport os\n", "line 1: character U+000D"},
		{"x = 1\n\"\"\"a\x00b\"\"\"\n", "line 2: character U+0000"},
		{"# a\u2028b\n", "U+2028"},
		{"# a\u0085b\n", "U+0085"},
		{"# a\fb\n", "U+000C"},
		{"# a\vb\n", "U+000B"},
		{"# a\u202eb\n", "U+202E"},
		{"# \xff\n", "line 1: invalid UTF-8"},
		{"x = \"abc\n", "line 1: string literal runs past the end of the line"},
		{"x = \"abc\\\nd\"\n", "line 1: string literal continued on the next line"},
		{"\n\"\"\"doc\n", "line 2: triple-quoted string never closed"},
		{"x = 1 + \\\n 2\n", "line 1: backslash outside a string"},
		{"x = (1]\n", "line 1: unbalanced ']'"},
		{"x = [1,\n", "'[' never closed"},
		{deep, "brackets nested more than 100 deep"},
	} {
		err := manifest.CheckPython([]byte(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("CheckPython(%q) = %v, want %q", c.src, err, c.want)
		}
	}
	ok := "\"\"\"Doc with \\\"\\\"\\\" and \\\\ and # and ( [ {.\"\"\"\n" +
		"# comment with \"quote and ( and \\\n" +
		"X = TypedDict(\n    \"X\",\n    {\n        \"a\\x0d\\\"b\": int,\n    },\n)\n" +
		"def f(a: Literal[\"x)\", 'y]'] = None) -> Any:\n    \"\"\"One line ending in a quote\\\"\"\"\"\n    ...\n"
	if err := manifest.CheckPython([]byte(ok)); err != nil {
		t.Errorf("CheckPython refuses the printers' constructs: %v", err)
	}
}
