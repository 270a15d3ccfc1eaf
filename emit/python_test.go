package emit_test

import (
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/emit"
	"github.com/codemode-dev/codemode/enrich"
	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/manifest"
	"github.com/codemode-dev/codemode/parse"
)

// compileMCP compiles an MCP tools/list document the way a pack does
// without enrichment (parse, Resolve) and returns its api/<svc>.py.
func compileMCP(t *testing.T, doc string) string { return compile(t, doc, false) }

// compile compiles an MCP tools/list document (parse, enrich when asked,
// Resolve) and returns its api/<svc>.py.
func compile(t *testing.T, doc string, enriched bool) string {
	t.Helper()
	svc, err := parse.MCP("test", []byte(doc), parse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if enriched {
		if _, err := enrich.Run(svc, enrich.Options{}); err != nil {
			t.Fatal(err)
		}
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

// TestSharedParameterDescribedOnce: a parameter documented with the same
// words in several tools (a project slug every tool takes) was printed in
// full at each; the module docstring prints it once and each place says
// "see module doc". A parameter of the same name described another way,
// and a description used once, stay where they are.
func TestSharedParameterDescribedOnce(t *testing.T) {
	slug := `"slug": {"type": "string", "description": "The project slug from list_projects (e.g. \"gh/org/project\"), as that tool returns it.", "maxLength": 200}`
	py := compileMCP(t, `{"tools": [
		{"name": "a", "inputSchema": {"type": "object", "properties": {`+slug+`}, "required": ["slug"]}},
		{"name": "b", "inputSchema": {"type": "object", "properties": {`+slug+`, "opts": {"type": "object", "properties": {`+slug+`}}}}},
		{"name": "c", "inputSchema": {"type": "object", "properties": {"slug": {"type": "string", "description": "Another slug."}}}}]}`)
	const entry = "    slug: The project slug from list_projects (e.g. \"gh/org/project\"), as that tool returns it. Length <= 200.\n\"\"\"\n"
	doc := between(t, py, `"""`, "from typing")
	if !strings.Contains(doc, `a parameter or key commented "see module doc" below is this:`+"\n"+entry) {
		t.Errorf("module docstring has no shared entry for slug:\n%s", doc)
	}
	for _, want := range []string{
		"def a(\n    slug: str,  # see module doc\n) -> Any:",
		"    slug: str  # see module doc\n",
		"    slug: str = None,  # see module doc\n",
		"    slug: str = None,  # Another slug.\n",
	} {
		if !strings.Contains(py, want) {
			t.Errorf("no %q in:\n%s", want, py)
		}
	}
	if n := strings.Count(py, "The project slug from"); n != 1 {
		t.Errorf("the shared description is printed %d times, want 1:\n%s", n, py)
	}
}

// TestDescriptionUsedOnceNotShared: a list of shared docs costs its
// header; a service whose only repeated doc is short prints none.
func TestDescriptionUsedOnceNotShared(t *testing.T) {
	mode := `"mode": {"type": "string", "description": "Travel mode"}`
	py := compileMCP(t, `{"tools": [
		{"name": "a", "inputSchema": {"type": "object", "properties": {`+mode+`}}},
		{"name": "b", "inputSchema": {"type": "object", "properties": {`+mode+`}}}]}`)
	if strings.Contains(py, "see module doc") || strings.Count(py, "# Travel mode") != 2 {
		t.Errorf("a short description was shared:\n%s", py)
	}
}

// TestParagraphInSeveralDescriptionsPrintedOnce: a paragraph that several
// tools' descriptions repeat word for word (a server's deprecation notice
// in every tool) was printed in every docstring; the module docstring
// prints it once as a numbered note and each description says where it
// stood. A paragraph said once, and one too short to be worth a mark,
// stay in place.
func TestParagraphInSeveralDescriptionsPrintedOnce(t *testing.T) {
	const notice = `NOTE: This server is deprecated and no longer receives feature work. Please tell the user to migrate to the hosted server: https://example.com/docs/hosted-overview/`
	py := compileMCP(t, `{"tools": [
		{"name": "a", "inputSchema": {"type": "object"}, "description": "Get logs.\n\nShort and shared.\n\n`+notice+`"},
		{"name": "b", "inputSchema": {"type": "object"}, "description": "List flaky tests.\n\n    Short and shared.\n\n`+notice+`"},
		{"name": "c", "inputSchema": {"type": "object"}, "description": "Rerun a workflow.\n\n`+notice+`\n\nThen poll."}]}`)
	doc := between(t, py, `"""`, "from typing")
	if want := "Shared notes: a description that says \"(note N: see module doc)\" has note N there:\nNote 1:\n    " + notice + "\n\"\"\"\n"; !strings.Contains(doc, want) {
		t.Errorf("module docstring has no note 1:\n%s", doc)
	}
	if n := strings.Count(py, "deprecated"); n != 1 {
		t.Errorf("the notice is printed %d times, want 1:\n%s", n, py)
	}
	want := `def a() -> Any:
    """Get logs.

    Short and shared.

    (note 1: see module doc)"""


`
	if got := between(t, py, "def a", "def b"); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if got, want := between(t, py, "def c", "\x00"), "def c() -> Any:\n    \"\"\"Rerun a workflow.\n\n    (note 1: see module doc)\n\n    Then poll.\"\"\"\n"; got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// TestEnrichedConstraintNotRestated: a constraint enrich read from a
// parameter's description was printed again after it ("(max 255
// characters) Length <= 255."); it is left out there, and a constraint the
// schema itself gives is still printed.
func TestEnrichedConstraintNotRestated(t *testing.T) {
	py := compile(t, `{"tools": [{"name": "add", "inputSchema": {"type": "object", "properties": {
		"summary": {"type": "string", "description": "The summary (max 255 characters)"},
		"count": {"type": "integer", "description": "How many, between 1 and 100."},
		"page": {"type": "integer", "maximum": 50, "description": "The page."}}}}]}`, true)
	for _, want := range []string{
		"    summary: str = None,  # The summary (max 255 characters)\n",
		"    count: int = None,  # How many, between 1 and 100.\n",
		"    page: int = None,  # The page. Value <= 50.\n",
	} {
		if !strings.Contains(py, want) {
			t.Errorf("no %q in:\n%s", want, py)
		}
	}
}

// TestToolLinesCarryTheirSharedDocs: with docs and notes said once in the
// module docstring, a tool's own lines (what find_tool and help() show)
// said "see module doc" without the doc; manifest.SharedLines finds, for a
// tool's span, the module lines it refers to, and only those.
func TestToolLinesCarryTheirSharedDocs(t *testing.T) {
	const notice = `NOTE: This server is deprecated and no longer receives feature work. Please tell the user to migrate to the hosted server: https://example.com/docs/hosted-overview/`
	slug := `"slug": {"type": "string", "description": "The project slug from list_projects (e.g. \"gh/org/project\"), as that tool returns it."}`
	branch := `"branch": {"type": "string", "description": "The name of the branch checked out in the local workspace, as git prints it."}`
	svc, err := parse.MCP("test", []byte(`{"tools": [
		{"name": "a", "description": "A.\n\n`+notice+`", "inputSchema": {"type": "object", "properties": {`+slug+`, `+branch+`}}},
		{"name": "b", "description": "B.\n\n`+notice+`", "inputSchema": {"type": "object", "properties": {`+slug+`}}},
		{"name": "c", "description": "C.", "inputSchema": {"type": "object", "properties": {"p": {"type": "object", "properties": {`+branch+`}}}}},
		{"name": "d", "description": "D.", "inputSchema": {"type": "object", "properties": {`+slug+`, `+branch+`}}}]}`), parse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ir.Resolve(svc)
	py, spans := emit.Python(svc)
	lines := strings.Split(string(py), "\n")
	show := func(wire string) string {
		var b strings.Builder
		for _, n := range manifest.SharedLines(py, spans[ir.WireName(wire)].Start, spans[ir.WireName(wire)].End) {
			b.WriteString(lines[n-1] + "\n")
		}
		return b.String()
	}
	docs := manifest.SharedDocHeader + "\n"
	notes := manifest.SharedNoteHeader + "\nNote 1:\n    " + notice + "\n"
	slugDoc := `    slug: The project slug from list_projects (e.g. "gh/org/project"), as that tool returns it.` + "\n"
	branchDoc := "    branch: The name of the branch checked out in the local workspace, as git prints it.\n"
	for wire, want := range map[string]string{
		"a": docs + slugDoc + branchDoc + notes,
		"b": docs + slugDoc + notes,
		"c": docs + branchDoc,
		"d": docs + slugDoc + branchDoc,
	} {
		if got := show(wire); got != want {
			t.Errorf("%s: got:\n%s\nwant:\n%s\nfile:\n%s", wire, got, want, py)
		}
	}
}

// TestDefaultTheDescriptionStatesNotRestated: a schema's default that the
// description already states ("(default 100, max 200)", "Defaults to
// false") was printed again after it ("Default: 100."); it is left out
// there, and a default the description does not name (or names another
// value for) is still printed.
func TestDefaultTheDescriptionStatesNotRestated(t *testing.T) {
	py := compileMCP(t, `{"tools": [{"name": "list", "inputSchema": {"type": "object", "properties": {
		"limit": {"type": "number", "default": 100, "description": "How many to return (default 100, max 200)"},
		"all": {"type": "boolean", "default": false, "description": "Include archived ones. Defaults to false."},
		"order": {"type": "string", "default": "asc", "description": "Sort direction (default is `+"`asc`"+`)"},
		"page": {"type": "number", "default": 1, "description": "The page, by default the first."},
		"size": {"type": "number", "default": 10, "description": "Page size (default 100 for admins)."}}}}]}`)
	for _, want := range []string{
		"    limit: float = None,  # How many to return (default 100, max 200)\n",
		"    all: bool = None,  # Include archived ones. Defaults to false.\n",
		"    order: str = None,  # Sort direction (default is `asc`)\n",
		"    page: float = None,  # The page, by default the first. Default: 1.\n",
		"    size: float = None,  # Page size (default 100 for admins). Default: 10.\n",
	} {
		if !strings.Contains(py, want) {
			t.Errorf("no %q in:\n%s", want, py)
		}
	}
}

// TestSameShapeUnderTwoNamesPrintedOnce: an object a source defines once in
// $defs and writes out again inline elsewhere became two TypedDicts that
// print the same but for their names ("FileItem" and "Items"); the module
// and the check stubs print the first one reached, and every use names it.
// An object that differs in one comment stays its own.
func TestSameShapeUnderTwoNamesPrintedOnce(t *testing.T) {
	file := `{"type": "object", "properties": {"id": {"type": "string", "description": "The file's id."}, "name": {"type": "string"}}, "required": ["id"]}`
	other := `{"type": "object", "properties": {"id": {"type": "string", "description": "Another id."}, "name": {"type": "string"}}, "required": ["id"]}`
	doc := `{"tools": [
		{"name": "attach", "inputSchema": {"type": "object", "properties": {"file": ` + file + `}}},
		{"name": "sign", "inputSchema": {"type": "object", "$defs": {"Items": ` + file + `}, "properties": {"signature": {"$ref": "#/$defs/Items"}, "other": ` + other + `}}}]}`
	py := compileMCP(t, doc)
	if n := strings.Count(py, "The file's id."); n != 1 {
		t.Errorf("the shape is printed %d times, want once:\n%s", n, py)
	}
	for _, want := range []string{
		"def attach(*, file: AttachFile = None) -> Any:\n",
		"def sign(*, signature: AttachFile = None, other: SignOther = None) -> Any:\n",
		"class SignOther(TypedDict):\n    id: str  # Another id.\n",
	} {
		if !strings.Contains(py, want) {
			t.Errorf("no %q in:\n%s", want, py)
		}
	}
	svc, err := parse.MCP("test", []byte(doc), parse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ir.Resolve(svc)
	stub := emit.ServiceStub(svc)
	if strings.Count(stub, "(TypedDict") != 2 || !strings.Contains(stub, "signature: _test__AttachFile | None = None") {
		t.Errorf("check stubs:\n%s", stub)
	}
}

// TestLookalikeDefinitionsKeepTheirNames: two definitions the source names
// differently (a pet's Tag and Category, both an id and a name) print
// alike but are different things; they stay two TypedDicts.
func TestLookalikeDefinitionsKeepTheirNames(t *testing.T) {
	obj := `{"type": "object", "properties": {"id": {"type": "integer"}, "name": {"type": "string"}}}`
	py := compileMCP(t, `{"tools": [{"name": "add_pet", "inputSchema": {"type": "object", "$defs": {"Tag": `+obj+`, "Category": `+obj+`},
		"properties": {"category": {"$ref": "#/$defs/Category"}, "tags": {"type": "array", "items": {"$ref": "#/$defs/Tag"}}}}}]}`)
	for _, want := range []string{"class Category(TypedDict", "class Tag(TypedDict", "category: Category = None", "tags: list[Tag] = None"} {
		if !strings.Contains(py, want) {
			t.Errorf("no %q in:\n%s", want, py)
		}
	}
}

// TestBoundTheDescriptionStatesNotRestated: a bound the schema has and the
// description already states by its value ("(1-100)", "1–255 characters",
// "max: 500", "up to 20 per call") was printed again after it ("Value 1 to
// 100."); a stated bound is left out, the bounds the description does not
// state (or states another value for) are still printed.
func TestBoundTheDescriptionStatesNotRestated(t *testing.T) {
	py := compileMCP(t, `{"tools": [{"name": "list", "inputSchema": {"type": "object", "properties": {
		"limit": {"type": "integer", "minimum": 1, "maximum": 100, "description": "How many to return (1-100)"},
		"name": {"type": "string", "minLength": 1, "maxLength": 255, "description": "The name, 1–255 characters."},
		"page": {"type": "integer", "minimum": 1, "maximum": 500, "description": "Page size (max: 500)."},
		"items": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 20, "description": "Up to 20 per call."},
		"lat": {"type": "number", "minimum": -90, "maximum": 90, "description": "Latitude in degrees (-90 to 90)."},
		"big": {"type": "integer", "minimum": 0, "maximum": 1000, "description": "At most 1,000 of them."},
		"other": {"type": "integer", "minimum": 1, "maximum": 50, "description": "How many (1-100)."},
		"free": {"type": "integer", "minimum": 1, "maximum": 50, "description": "How many."},
		"long": {"type": "number", "minimum": -180, "maximum": 180, "description": "Greater than or equal to -180.0 and less than or equal to +180.0 degrees."}}}}]}`)
	for _, want := range []string{
		"    limit: int = None,  # How many to return (1-100)\n",
		"    name: str = None,  # The name, 1–255 characters.\n",
		"    page: int = None,  # Page size (max: 500). Value >= 1.\n",
		"    items: list[str] = None,  # Up to 20 per call. Items >= 1.\n",
		"    lat: float = None,  # Latitude in degrees (-90 to 90).\n",
		"    big: int = None,  # At most 1,000 of them. Value >= 0.\n",
		"    other: int = None,  # How many (1-100). Value 1 to 50.\n",
		"    free: int = None,  # How many. Value 1 to 50.\n",
		"    long: float = None,  # Greater than or equal to -180.0 and less than or equal to +180.0 degrees.\n",
	} {
		if !strings.Contains(py, want) {
			t.Errorf("no %q in:\n%s", want, py)
		}
	}
}

// TestValueMarkedDefaultNotRestated: a default the description marks as
// such after the value (`"content" (default) fetches...`, "When false
// (default), ...") or names as "default being relaxed" was printed again
// after it ("Default: False."); it is left out there, and a "(default)"
// after another value leaves the schema's printed.
func TestValueMarkedDefaultNotRestated(t *testing.T) {
	py := compileMCP(t, `{"tools": [{"name": "get", "inputSchema": {"type": "object", "properties": {
		"mode": {"type": "string", "enum": ["content", "history"], "default": "content", "description": "The mode. \"content\" (default) fetches text."},
		"full": {"type": "boolean", "default": false, "description": "When false (default), a placeholder is shown."},
		"format": {"type": "string", "default": "relaxed", "description": "The format, with default being relaxed."},
		"other": {"type": "string", "enum": ["a", "b"], "default": "b", "description": "Pick: a (default) or b."}}}}]}`)
	for _, want := range []string{
		`    mode: Literal["content", "history"] = None,  # The mode. "content" (default) fetches text.` + "\n",
		"    full: bool = None,  # When false (default), a placeholder is shown.\n",
		"    format: str = None,  # The format, with default being relaxed.\n",
		`    other: Literal["a", "b"] = None,  # Pick: a (default) or b. Default: "b".` + "\n",
	} {
		if !strings.Contains(py, want) {
			t.Errorf("no %q in:\n%s", want, py)
		}
	}
}

// TestSentenceListingTheEnumNotRestated: a sentence or aside of a
// parameter's description that only lists its enum's values ("Valid values
// are 'a', 'b' and 'c'.", "(NOTE or TASK)", "One of: json|yaml") said again
// what the Literal beside it shows; it is left out. A sentence that says
// more (what a value means), one that leaves a value out, and one beside
// a Literal printed by its alias (the values on another tool's lines)
// stay.
func TestSentenceListingTheEnumNotRestated(t *testing.T) {
	long := `"enum": ["alpha_one", "beta_two", "gamma_three", "delta_four"]`
	py := compileMCP(t, `{"tools": [{"name": "update", "inputSchema": {"type": "object", "properties": {
		"status": {"type": "string", "enum": ["resolved", "resolvedInNextRelease", "ignored"], "description": "The new status. Valid values are 'resolved', 'resolvedInNextRelease', and 'ignored'."},
		"kind": {"type": "string", "enum": ["NOTE", "TASK"], "description": "The type to create (NOTE or TASK)"},
		"output": {"type": "string", "enum": ["json", "yaml"], "default": "yaml", "description": "Output format. One of: json|yaml."},
		"only": {"type": "string", "enum": ["a", "b"], "description": "Options: a, b"},
		"mode": {"type": "string", "enum": ["fast", "slow"], "description": "How to run. fast skips checks, slow runs them."},
		"part": {"type": "string", "enum": ["x", "y", "z"], "description": "Which part. One of: x, y."},
		"first": {"type": "string", `+long+`, "description": "Pick. One of: alpha_one, beta_two, gamma_three, delta_four."}}}},
		{"name": "again", "inputSchema": {"type": "object", "properties": {
		"second": {"type": "string", `+long+`, "description": "Pick. One of: alpha_one, beta_two, gamma_three, delta_four."}}}}]}`)
	for _, want := range []string{
		`    status: Literal["resolved", "resolvedInNextRelease", "ignored"] = None,  # The new status.` + "\n",
		`    kind: Literal["NOTE", "TASK"] = None,  # The type to create` + "\n",
		`    output: Literal["json", "yaml"] = None,  # Output format. Default: "yaml".` + "\n",
		`    only: Literal["a", "b"] = None,` + "\n",
		`    mode: Literal["fast", "slow"] = None,  # How to run. fast skips checks, slow runs them.` + "\n",
		`    part: Literal["x", "y", "z"] = None,  # Which part. One of: x, y.` + "\n",
		`    first: First = None,  # Pick. One of: alpha_one, beta_two, gamma_three, delta_four.` + "\n",
		`    second: First = None,  # Pick. One of: alpha_one, beta_two, gamma_three, delta_four.` + "\n",
	} {
		if !strings.Contains(py, want) {
			t.Errorf("no %q in:\n%s", want, py)
		}
	}
}

// TestSentenceSeveralCommentsRepeatSaidOnce: a sentence many parameter
// comments (or tool description lines) have word for word after a first
// sentence of their own ("Valid values include: ..." in every objectType)
// was printed in each, which the shared docs (whole comments only) did not
// catch; it is said once as a shared note and each place marks it, a
// tool's lines bring the note with them (manifest.SharedLines), and a
// sentence too short or too seldom repeated to pay for its mark stays.
func TestSentenceSeveralCommentsRepeatSaidOnce(t *testing.T) {
	const long = "Valid values include: appointments, companies, contacts, courses, deals, leads, line_items, listings, meetings, orders."
	const short = "Relative file names are resolved against the workspace root."
	var tools []string
	for i, verb := range []string{"list", "search", "create", "update"} {
		tools = append(tools, `{"name": "`+verb+`", "description": "Do `+verb+`. `+long+`", "inputSchema": {"type": "object", "properties": {
			"objectType": {"type": "string", "description": "The type of object to `+verb+`. `+long+` Ask if unsure."},
			"file": {"type": "string", "description": "File `+strings.Repeat("x", i)+`. `+short+`"}}}}`)
	}
	svc, err := parse.MCP("test", []byte(`{"tools": [`+strings.Join(tools, ",")+`]}`), parse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ir.Resolve(svc)
	out, spans := emit.Python(svc)
	py := string(out)
	if n := strings.Count(py, long); n != 1 {
		t.Errorf("the sentence is printed %d times, want once:\n%s", n, py)
	}
	for _, want := range []string{
		manifest.SharedNoteHeader + "\nNote 1:\n    " + long + "\n",
		"    objectType: str = None,  # The type of object to search. (note 1: see module doc) Ask if unsure.\n",
		`    """Do search. (note 1: see module doc)"""` + "\n",
		"    file: str = None,  # File x. " + short + "\n",
	} {
		if !strings.Contains(py, want) {
			t.Errorf("no %q in:\n%s", want, py)
		}
	}
	lines := strings.Split(py, "\n")
	var shown []string
	for _, n := range manifest.SharedLines(out, spans["update"].Start, spans["update"].End) {
		shown = append(shown, lines[n-1])
	}
	if got, want := strings.Join(shown, "\n"), manifest.SharedNoteHeader+"\nNote 1:\n    "+long; got != want {
		t.Errorf("update's lines bring:\n%s\nwant:\n%s", got, want)
	}
}

// TestLiteralSeveralKeysShareAliased: a long Literal that TypedDict keys
// (and parameters) share was printed in full at every key, the aliases
// covering parameters only; it is printed once as an alias, before the
// first TypedDict or def that uses it, and every use names it. The check
// stubs still print it in full.
func TestLiteralSeveralKeysShareAliased(t *testing.T) {
	lit := `{"type": "string", "enum": ["markdown", "html", "rawHtml", "screenshot", "links"]}`
	doc := `{"tools": [
		{"name": "scrape", "inputSchema": {"type": "object", "properties": {"opts": {"type": "object", "properties": {"format": ` + lit + `}}}}},
		{"name": "crawl", "inputSchema": {"type": "object", "properties": {"page": {"type": "object", "properties": {"kind": ` + lit + `, "depth": {"type": "integer"}}}, "format": ` + lit + `}}}]}`
	py := compileMCP(t, doc)
	const alias = `Format = Literal["markdown", "html", "rawHtml", "screenshot", "links"]`
	if n := strings.Count(py, `"rawHtml"`); n != 1 {
		t.Errorf("the Literal is printed %d times, want once:\n%s", n, py)
	}
	for _, want := range []string{
		alias + "\n\n\nclass ScrapeOpts(TypedDict, total=False):\n    format: Format\n",
		"    kind: Format\n",
		"def crawl(*, page: CrawlPage = None, format: Format = None) -> Any:\n",
	} {
		if !strings.Contains(py, want) {
			t.Errorf("no %q in:\n%s", want, py)
		}
	}
	svc, err := parse.MCP("test", []byte(doc), parse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ir.Resolve(svc)
	if stub := emit.ServiceStub(svc); strings.Count(stub, `"rawHtml"`) != 3 {
		t.Errorf("check stubs:\n%s", stub)
	}
}
