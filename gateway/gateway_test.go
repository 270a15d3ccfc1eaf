package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-dev/codemode/audit"
	"github.com/codemode-dev/codemode/gateway"
	"github.com/codemode-dev/codemode/runtime"
)

const echoDef = `api.everything.echo — api/everything.py lines 41-46:
   41  def echo(
   42      message: str,  # Message to echo
   43  ) -> Any:
   44      """Echoes back the input string
   45  
   46      Read-only."""
`

func TestCodeMode(t *testing.T) {
	f := newFixture(t, false, nil)
	cs := f.connect(t)

	if got, want := toolNames(t, cs), []string{"find_tool", "read_api", "run_code"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("tools = %v, want %v", got, want)
	}

	got, isErr := call(t, cs, "find_tool", map[string]any{"query": "add two numbers"})
	want := `1 match for "add two numbers" (best first). Read a definition before the first call: find_tool("<service>.<tool>") or read_api.

1. api.everything.get_sum(a: float, b: float) -> Any
   Returns the sum of two numbers
   args:
     a: float, required — First number
     b: float, required — Second number
   returns: unknown (no output schema and not seen yet): print a small part first, e.g. print(str(r)[:300])
   example: api.everything.get_sum(a=1, b=1)
   definition: api/everything.py lines 73-79 (find_tool("everything.get_sum") shows it)
`
	if isErr || got != want {
		t.Fatalf("find_tool:\n%s\nwant:\n%s", got, want)
	}

	// Not read yet: the read-gate refuses with the lines to read.
	got, isErr = call(t, cs, "run_code", map[string]any{"code": `print(api.everything.echo(message="hi"))`})
	want = "[1 tool call, 1 failed]\n\nTraceback (most recent call last):\n  File \"program.py\", line 1, in <module>\n    print(api.everything.echo(message=\"hi\"))\n" +
		`PermissionError: api.everything.echo was refused: read api/everything.py lines 41-46 first: find_tool("everything.echo") or read_api("everything", "41-46")` + "\n"
	if !isErr || got != want {
		t.Fatalf("read-gate refusal:\n%s", got)
	}
	if n := f.up.count("echo"); n != 0 {
		t.Fatalf("upstream saw %d echo calls before the read", n)
	}

	// An exact name returns the whole definition and counts as a read.
	got, _ = call(t, cs, "find_tool", map[string]any{"query": "everything.echo"})
	if !strings.HasPrefix(got, echoDef) {
		t.Fatalf("exact find_tool:\n%s", got)
	}
	// It unlocks that tool alone: get_sum is read separately.
	call(t, cs, "find_tool", map[string]any{"query": "everything.get_sum"})

	got, isErr = call(t, cs, "run_code", map[string]any{"code": `r = api.everything.echo(message="hi")
print(r)
try:
    run_tool("get-env")
except Exception as e:
    print("refused:", e)
try:
    run_tool("get-sum", {"a": "x", "b": 1})
except Exception as e:
    print(type(e).__name__, e)
w = api.everything.get_sum(a=99, b=1)
print(w)
try:
    api.everything.echo(message="after")
except Exception as e:
    print("after wait:", e)
`})
	want = `NOTE: echo calls are logged for review
NOTE: WAIT: api.everything.get_sum is waiting: a=99 needs a human's approval. End your turn now.
NOTE: WAIT: this session waits (wait w-ID) until an approver resolves it or until DEADLINE; run_code is refused until then.

Echo: hi
refused: there is no tool named "get-env". Find tools with find_tool("<what you need>").
TypeError api.everything.get_sum: argument a: expected float, got str ("x")
{'reason': "a=99 needs a human's approval", 'status': 'waiting'}
after wait: api.everything.echo was not called: an earlier call in this program is waiting (a=99 needs a human's approval). End your turn now; the session resumes when the wait is over.
[5 tool calls, 3 failed]
`
	if got = fixWait(got); isErr || got != want {
		t.Fatalf("run_code:\n%s\nwant:\n%s", got, want)
	}
	// The invalid get-sum and the waiting one never reached the upstream.
	if n := f.up.count("get-sum"); n != 0 {
		t.Errorf("upstream saw %d get-sum calls, want 0", n)
	}
	if n := f.up.count("echo"); n != 1 {
		t.Errorf("upstream saw %d echo calls, want 1", n)
	}

	// (The seen shape and output schemas find_tool shows are pinned by
	// testdata/transcripts.)

	// A direct call of a granted tool is refused and audited.
	got, isErr = call(t, cs, "echo", map[string]any{"message": "x"})
	if want := `"echo" cannot be called directly here: call it from a run_code program as api.everything.echo(...) (find_tool("everything.echo") shows its definition)`; !isErr || got != want {
		t.Errorf("direct call in code mode: %v %q", isErr, got)
	}
	data, err := os.ReadFile(f.auditAt)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	last := lines[len(lines)-1]
	if !strings.Contains(last, `"kind":"call"`) || !strings.Contains(last, `"tool":"echo"`) || !strings.Contains(last, `"status":"refused"`) {
		t.Errorf("last audit line: %s", last)
	}
	res, err := audit.Verify(f.auditAt)
	if err != nil || res.Events != len(lines) {
		t.Errorf("audit verify: %v %+v, %d lines", err, res, len(lines))
	}
	// Audit: the run refused by the read-gate (start, refused call, end);
	// the second run: its start, echo's intent and outcome, get_env
	// (refused), get_sum (invalid), get_sum (a policy wait, so no intent),
	// the call refused after the wait, its end; the refused direct call.
	var kinds []string
	for _, l := range lines {
		var ev struct{ Kind, Status string }
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, ev.Kind+" "+ev.Status)
	}
	want = "run started, call refused, run_end error, " +
		"run started, intent intent, call ok, call refused, call invalid, call wait, call refused, run_end ok, " +
		"call refused"
	if got := strings.Join(kinds, ", "); got != want {
		t.Errorf("audit events:\n%s\nwant:\n%s", got, want)
	}
}

// TestReadAPIAndResources: the file is a resource, and reading it unlocks
// the tools for that session (read_api's replies are pinned by
// testdata/transcripts/find_and_read.txtar).
func TestReadAPIAndResources(t *testing.T) {
	f := newFixture(t, false, nil)
	// Resources: the file, and reading it unlocks another session.
	ctx := context.Background()
	cs2 := f.connect(t)
	lr, err := cs2.ListResources(ctx, nil)
	if err != nil || len(lr.Resources) != 2 || lr.Resources[0].URI != "codemode:///api/everything.py" || lr.Resources[1].URI != gateway.JobsURI {
		t.Fatalf("resources: %v %+v", err, lr)
	}
	got, isErr := call(t, cs2, "run_code", map[string]any{"code": `print(api.everything.get_sum(a=1, b=1))`})
	if !isErr || !strings.Contains(got, "read api/everything.py lines 73-79 first") {
		t.Fatalf("second session before reading: %q", got)
	}
	rr, err := cs2.ReadResource(ctx, &mcp.ReadResourceParams{URI: "codemode:///api/everything.py"})
	if err != nil || len(rr.Contents) != 1 || !strings.HasPrefix(rr.Contents[0].Text, "# Code generated by codemode. DO NOT EDIT.\n") {
		t.Fatalf("read resource: %v", err)
	}
	got, _ = call(t, cs2, "run_code", map[string]any{"code": `print(api.everything.get_sum(a=1, b=1))`})
	if got != "The sum of 1 and 1 is 2.\n[1 tool call]\n" {
		t.Fatalf("after reading the resource: %q", got)
	}
}

func TestHTTP(t *testing.T) {
	f := newFixture(t, false, nil)
	hs := httptest.NewServer(f.srv.HTTPHandler())
	t.Cleanup(hs.Close) // after the sessions' cleanups

	ctx := context.Background()
	open := func() *mcp.ClientSession {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	a, b := open(), open()
	if got, want := toolNames(t, a), []string{"find_tool", "read_api", "run_code"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("tools = %v", got)
	}
	got, _ := call(t, a, "find_tool", map[string]any{"query": "everything.echo"})
	if !strings.HasPrefix(got, echoDef) {
		t.Fatalf("find_tool over HTTP:\n%s", got)
	}
	got, isErr := call(t, a, "run_code", map[string]any{"code": `print(api.everything.echo(message="over http"))`})
	if isErr || got != "NOTE: echo calls are logged for review\n\nEcho: over http\n[1 tool call]\n" {
		t.Fatalf("run_code over HTTP: %q", got)
	}
	// Session b has read nothing: its reads are its own.
	got, isErr = call(t, b, "run_code", map[string]any{"code": `print(api.everything.echo(message="b"))`})
	if !isErr || !strings.Contains(got, "read api/everything.py lines 41-46 first") {
		t.Fatalf("other HTTP session: %q", got)
	}
	// A validation error never reaches the upstream.
	got, isErr = call(t, a, "run_code", map[string]any{"code": `print(run_tool("echo", {"message": 5}))`})
	if want := "[1 tool call, 1 failed]\n\nTraceback (most recent call last):\n  File \"program.py\", line 1, in <module>\n    print(run_tool(\"echo\", {\"message\": 5}))\nTypeError: api.everything.echo: argument message: expected str, got int (5)\n"; !isErr || got != want || f.up.count("echo") != 1 {
		t.Fatalf("validation over HTTP (%d upstream echo calls): %q", f.up.count("echo"), got)
	}
}

// TestDirectMode: what reaches the upstream and the audit in direct mode
// (the replies are pinned by testdata/transcripts/direct.txtar).
func TestDirectMode(t *testing.T) {
	f := newFixture(t, true, nil)
	cs := f.connect(t)
	call(t, cs, "echo", map[string]any{"message": "direct"})
	if _, isErr := call(t, cs, "get-structured-content", map[string]any{"location": "Paris"}); !isErr || f.up.count("get-structured-content") != 0 {
		t.Fatalf("an invalid call reached the upstream")
	}
	call(t, cs, "get-env", nil)
	call(t, cs, "get-sum", map[string]any{"a": 99, "b": 1})
	if _, isErr := call(t, cs, "echo", map[string]any{"message": "after the wait"}); !isErr || f.up.count("get-sum") != 0 || f.up.count("echo") != 1 {
		t.Fatalf("upstream calls: echo %d, get-sum %d; want 1, 0", f.up.count("echo"), f.up.count("get-sum"))
	}
	// echo (intent and outcome), get-structured-content (invalid), get-env
	// (refused by the server), get-sum (a policy wait), echo (refused: the
	// session waits).
	res, err := audit.Verify(f.auditAt)
	if err != nil || res.Events != 6 {
		t.Fatalf("audit: %v %+v", err, res)
	}
}

// TestPins: the runtime compares each live definition with its pin before
// a call; a changed one is refused (and never sent) until the pack is
// regenerated, and the other tools go on.
func TestPins(t *testing.T) {
	f := newFixture(t, false, nil)
	cs := f.connect(t)
	call(t, cs, "read_api", map[string]any{"service": "everything"})
	if got, isErr := call(t, cs, "run_code", map[string]any{"code": `print(api.everything.get_sum(a=1, b=2))`}); isErr || got != "The sum of 1 and 2 is 3.\n[1 tool call]\n" {
		t.Fatalf("fresh pack: %q", got)
	}
	// A pin that no longer matches refuses the tool until regenerated.
	f = newFixture(t, false, nil, tamperEcho)
	cs = f.connect(t)
	call(t, cs, "read_api", map[string]any{"service": "everything"})
	got, isErr := call(t, cs, "run_code", map[string]any{"code": `print(api.everything.echo(message="hi"))`})
	if !isErr || !strings.Contains(got, "PermissionError: api.everything.echo was refused: the live definition of echo changed since the pack was generated (pinned sha256:000000000000, live sha256:") || f.up.count("echo") != 0 {
		t.Fatalf("call to a changed tool: %q", got)
	}
	if got, _ = call(t, cs, "run_code", map[string]any{"code": `print(api.everything.get_sum(a=1, b=2))`}); got != "The sum of 1 and 2 is 3.\n[1 tool call]\n" {
		t.Fatalf("unchanged tool: %q", got)
	}
}

// TestSessionEndForgetsReads: the reads of a session that ended do not
// unlock anything for a later session.
func TestSessionEndForgetsReads(t *testing.T) {
	f := newFixture(t, false, nil)
	cs := f.connect(t)
	call(t, cs, "read_api", map[string]any{"service": "everything"})
	gate := f.rt.Gate()
	ids := f.srv.AgentSessions()
	if len(ids) != 1 {
		t.Fatalf("agent sessions %q, want one", ids)
	}
	if err := gate.Check(ids[0], "everything", "echo"); err != nil {
		t.Fatalf("after the read: %v", err)
	}
	cs.Close()
	deadline := time.Now().Add(5 * time.Second)
	for gate.Check(ids[0], "everything", "echo") == nil {
		if time.Now().After(deadline) {
			t.Fatal("the ended session's reads were kept")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestPersistentSessions: with persistent sessions, run_code says so, a
// session's variables survive between its programs, and another session
// does not see them.
func TestPersistentSessions(t *testing.T) {
	state := t.TempDir()
	f := newFixture(t, false, func(c *runtime.Config) { c.Persistent, c.StateDir = true, state })
	cs := f.connect(t)
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if tool.Name == "run_code" && !strings.Contains(tool.Description, "Variables, functions and imports of earlier programs in this session are kept") {
			t.Errorf("run_code description: %s", tool.Description)
		}
	}
	if got, _ := call(t, cs, "run_code", map[string]any{"code": "x = 41"}); got != "[0 tool calls]\n" {
		t.Fatalf("first program: %q", got)
	}
	if got, _ := call(t, cs, "run_code", map[string]any{"code": "print(x + 1)"}); got != "42\n[0 tool calls]\n" {
		t.Errorf("second program: %q", got)
	}
	other := f.connect(t)
	if got, isErr := call(t, other, "run_code", map[string]any{"code": "print(x)"}); !isErr || !strings.Contains(got, "Name `x` used when not defined") {
		t.Errorf("another session saw x: %q", got)
	}
}

// TestUngrantedToolsShownByReadAPI pins the bug where read_api, the file
// resources and find_tool showed tools the pack does not grant (get-env
// here): agents read a view of the file without them.
func TestUngrantedToolsShownByReadAPI(t *testing.T) {
	f := newFixture(t, false, nil)
	cs := f.connect(t)
	ctx := context.Background()
	whole, isErr := call(t, cs, "read_api", map[string]any{"service": "everything"})
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "codemode:///api/everything.py"})
	if isErr || err != nil {
		t.Fatalf("read: %v %s", err, whole)
	}
	exact, _ := call(t, cs, "find_tool", map[string]any{"query": "everything.get_env"})
	search, _ := call(t, cs, "find_tool", map[string]any{"query": "print environment variables"})
	// find_tool's first line repeats the query; what it found follows.
	_, exact, _ = strings.Cut(exact, "\n")
	_, search, _ = strings.Cut(search, "\n")
	for what, text := range map[string]string{"read_api": whole, "resource": rr.Contents[0].Text, "find_tool exact": exact, "find_tool search": search} {
		// (The module docstring keeps the server's own instructions, which
		// name some tools in prose.)
		for _, hidden := range []string{"get_env", "get-env", "def gzip_file_as_resource", "def toggle_", "gzip_file_as_resource(", "toggle_simulated_logging("} {
			if strings.Contains(text, hidden) {
				t.Errorf("%s shows %s:\n%s", what, hidden, text)
			}
		}
	}
	for _, granted := range []string{"def echo(", "def get_sum(", "def get_structured_content(", "def get_tiny_image(", "def get_annotated_message("} {
		if !strings.Contains(whole, granted) {
			t.Errorf("read_api lacks %s", granted)
		}
	}
	// The view's line numbers are the ones find_tool and refusals give.
	m := f.rt.Manifest()
	if n := len(m.Services[0].Tools); n != 5 {
		t.Errorf("the runtime's manifest has %d tools, want the 5 granted", n)
	}
	echo, _ := m.Services[0].Tool("echo")
	if !strings.Contains(whole, fmt.Sprintf("%5d  def echo(", echo.Lines[0])) {
		t.Errorf("echo's lines %v are not where read_api shows it", echo.Lines)
	}
}

// TestOneShotClientsKeepReads: a harness that connects once per call names
// the agent session in _meta; reads made under that name count in later
// MCP sessions, and only under it.
func TestOneShotClientsKeepReads(t *testing.T) {
	f := newFixture(t, false, nil)
	ctx := context.Background()
	named := func(cs *mcp.ClientSession, name string, args map[string]any) string {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args, Meta: mcp.Meta{gateway.SessionMeta: "job-1"}})
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return b.String()
	}
	first := f.connect(t)
	named(first, "find_tool", map[string]any{"query": "everything.echo"})
	first.Close()
	second := f.connect(t)
	if got := named(second, "run_code", map[string]any{"code": `print(api.everything.echo(message="one shot"))`}); got != "NOTE: echo calls are logged for review\n\nEcho: one shot\n[1 tool call]\n" {
		t.Fatalf("named session in a new connection: %q", got)
	}
	if got, _ := call(t, second, "run_code", map[string]any{"code": `print(api.everything.echo(message="unnamed"))`}); !strings.Contains(got, "was refused: read api/everything.py") {
		t.Fatalf("the connection's own session used the named one's reads: %q", got)
	}
}
