package emit_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSharedSentenceWithQuotesAndBackslashesParses: a sentence said once
// as a shared note moves from comments (where nothing is escaped) into the
// module docstring; one with """ and backslashes in it still gives a
// module Python parses, and its docstring reads the sentence as written.
func TestSharedSentenceWithQuotesAndBackslashesParses(t *testing.T) {
	py3, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	const hostile = `Paths use \\server\share or C:\dir\, never """quoted""" names; they are resolved on the host that runs the server, and may end in a trailing backslash \`
	var tools []string
	for _, name := range []string{"a", "b", "c", "d"} {
		desc, _ := json.Marshal("The " + name + " path. " + hostile)
		tools = append(tools, `{"name": "`+name+`", "inputSchema": {"type": "object", "properties": {"path": {"type": "string", "description": `+string(desc)+`}}}}`)
	}
	py := compileMCP(t, `{"tools": [`+strings.Join(tools, ",")+`]}`)
	if strings.Count(py, "never") != 1 {
		t.Fatalf("the sentence is not said once:\n%s", py)
	}
	f := filepath.Join(t.TempDir(), "m.py")
	if err := os.WriteFile(f, []byte(py), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(py3, "-c", `import ast, sys; print(ast.get_docstring(ast.parse(open(sys.argv[1], "rb").read()), clean=False))`, f).CombinedOutput()
	if err != nil {
		t.Fatalf("python3: %v\n%s\n%s", err, out, py)
	}
	if !strings.Contains(string(out), "\n    "+hostile+"\n") {
		t.Errorf("the module docstring reads:\n%s\nwant the line %q", out, hostile)
	}
}
