package emit_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/emit"
	"github.com/codemode-dev/codemode/enrich"
	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/manifest"
	"github.com/codemode-dev/codemode/parse"
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

// TestRequiredHereRepeatedSaidOnce: enrich's mark on a parameter whose
// omission the upstream resolves from hidden state ("Required here: when
// omitted, ...", over a hundred characters) was printed in full on every
// such parameter; with five in a module (or fewer beside other shared
// notes) it is said once as a shared note and each parameter marks it;
// with two it stays where it is (the note would cost more than it saves).
func TestRequiredHereRepeatedSaidOnce(t *testing.T) {
	tool := func(name string) string {
		return `{"name": "` + name + `", "description": "List.", "inputSchema": {"type": "object", "properties": {
			"assignee": {"type": "string", "description": "Whose ` + name + ` ones. Defaults to the current user."}}}}`
	}
	const mark = "Required here: when omitted, the upstream resolves it from state you cannot see (see the description), so pass it."
	// compile as a pack does: enrich, then the mark of the keyword it added
	// on each parameter (pack's markEnriched).
	module := func(names ...string) string {
		var ts []string
		for _, n := range names {
			ts = append(ts, tool(n))
		}
		svc, err := parse.MCP("test", []byte(`{"tools": [`+strings.Join(ts, ",")+`]}`), parse.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := enrich.Run(svc, enrich.Options{}); err != nil {
			t.Fatal(err)
		}
		ir.Resolve(svc)
		for _, tl := range svc.Tools {
			for _, prm := range tl.Params {
				if !prm.Required {
					t.Fatalf("enrich did not make %s.%s required", tl.Wire, prm.Wire)
				}
				prm.Enriched = []string{"required"}
			}
		}
		py, _ := emit.Python(svc)
		return string(py)
	}
	five := module("a", "b", "c", "d", "e")
	if n := strings.Count(five, mark); n != 1 {
		t.Errorf("five marks: printed %d times, want once:\n%s", n, five)
	}
	if want := "    assignee: str,  # Whose b ones. Defaults to the current user. (note 1: see module doc)\n"; !strings.Contains(five, want) {
		t.Errorf("no %q in:\n%s", want, five)
	}
	two := module("a", "b")
	if n := strings.Count(two, mark); n != 2 || strings.Contains(two, "(note") {
		t.Errorf("two marks: printed %d times, want 2 and no note:\n%s", n, two)
	}
}

// TestToolLinesCarryTheAliasesTheyName: a Literal several tools share is
// printed once, as an alias, with the first tool that uses it; the later
// tools' lines (what find_tool and help() show) named the alias without
// its values. manifest.SharedLines brings, for a tool's span, the alias
// lines its annotations name that lie outside it, and not an alias only
// its prose mentions.
func TestToolLinesCarryTheAliasesTheyName(t *testing.T) {
	lit := `{"type": "string", "enum": ["markdown", "html", "rawHtml", "screenshot", "links"]}`
	svc, err := parse.MCP("test", []byte(`{"tools": [
		{"name": "scrape", "inputSchema": {"type": "object", "properties": {"format": `+lit+`}}},
		{"name": "crawl", "description": "Crawl. Format is as scrape's.", "inputSchema": {"type": "object", "properties": {"page": {"type": "object", "properties": {"kind": `+lit+`}}}}},
		{"name": "map", "description": "Map, in any Format.", "inputSchema": {"type": "object", "properties": {"depth": {"type": "integer", "description": "Format of nothing."}}}}]}`), parse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ir.Resolve(svc)
	py, spans := emit.Python(svc)
	lines := strings.Split(string(py), "\n")
	const alias = `Format = Literal["markdown", "html", "rawHtml", "screenshot", "links"]`
	for wire, want := range map[string]string{"scrape": "", "crawl": alias, "map": ""} {
		var got []string
		for _, n := range manifest.SharedLines(py, spans[ir.WireName(wire)].Start, spans[ir.WireName(wire)].End) {
			got = append(got, lines[n-1])
		}
		if strings.Join(got, "\n") != want {
			t.Errorf("%s brings %q, want %q:\n%s", wire, got, want, py)
		}
	}
}

// TestSameDescriptionOtherEnumKeepsItsSentence: parameter docs are worked
// out once per everything they read; two parameters with the same
// description and different enums read different Literals, so the one
// whose enum the sentence does not list keeps it.
func TestSameDescriptionOtherEnumKeepsItsSentence(t *testing.T) {
	py := compileMCP(t, `{"tools": [
		{"name": "a", "inputSchema": {"type": "object", "properties": {"mode": {"type": "string", "enum": ["x", "y"], "description": "The mode. One of: x, y."}}}},
		{"name": "b", "inputSchema": {"type": "object", "properties": {"mode": {"type": "string", "enum": ["x", "y", "z"], "description": "The mode. One of: x, y."}}}}]}`)
	for _, want := range []string{
		`    mode: Literal["x", "y"] = None,  # The mode.` + "\n",
		`    mode: Literal["x", "y", "z"] = None,  # The mode. One of: x, y.` + "\n",
	} {
		if !strings.Contains(py, want) {
			t.Errorf("no %q in:\n%s", want, py)
		}
	}
}
