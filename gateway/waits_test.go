package gateway_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/gateway"
	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/readgate"
	"github.com/codemode-dev/codemode/runtime"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestPolicyWaitDoesNotHoldSession pins the defect: only jobs.wait held
// the session; a policy hook's wait refused the rest of one program, and
// the next run_code went ahead at once. Over the gateway, the hook's wait
// is in structuredContent (its ID, the deadline, how to resume), the next
// run_code in the session is refused naming the call awaited, a wrong
// wait ID is refused by codemode jobs approve, and once the approver runs
// codemode jobs approve the session runs again, told it was approved.
func TestPolicyWaitDoesNotHoldSession(t *testing.T) {
	bin := buildCodemode(t)
	state := t.TempDir()
	f := newFixture(t, false, func(c *runtime.Config) { c.StateDir, c.ReadGate = state, readgate.Off })
	cs := f.connect(t)
	const session = "change-7"
	run := func(code string) (string, map[string]any, bool) {
		t.Helper()
		return runCodeNamed(t, cs, session, code)
	}
	text, sc, isErr := run(`print(api.everything.get_sum(a=99, b=1)["status"])`)
	w, _ := sc["wait"].(map[string]any)
	if isErr || w == nil || w["tool"] != "api.everything.get_sum" || w["reason"] != "a=99 needs a human's approval" || w["deadline"] == nil {
		t.Fatalf("first turn: %q\nwait %v", text, sc["wait"])
	}
	id, _ := w["id"].(string)
	if !regexp.MustCompile(`^w-[0-9a-f]{8}$`).MatchString(id) || w["resume"] != "end the turn; run_code in this session is refused until an approver resolves this wait (codemode jobs approve --session SESSION "+id+") or the deadline passes; a client subscribed to the resource codemode://session/jobs (resources/subscribe) is notified when it resolves" {
		t.Fatalf("wait id %q, resume %q", id, w["resume"])
	}
	if !strings.Contains(text, "NOTE: WAIT: this session waits (wait "+id+") until an approver resolves it or until ") {
		t.Fatalf("first turn's notes: %q", text)
	}
	t.Logf("turn 1:\n%s\nstructuredContent.wait: %v", text, w)

	text, sc, isErr = run(`print("too soon")`)
	want := "run_code refused: this session is waiting for api.everything.get_sum (a=99 needs a human's approval), wait " + id + " (until an approver resolves it, or until "
	if !isErr || !strings.Contains(text, want) || strings.Contains(text, "too soon") || sc["wait"].(map[string]any)["id"] != id {
		t.Fatalf("second turn: %q", text)
	}
	// Another session is not held.
	if text, _, isErr := runCodeNamed(t, cs, "other", `print("free")`); isErr || !strings.Contains(text, "free\n") {
		t.Fatalf("another session: %q", text)
	}

	approve := func(args ...string) (string, error) {
		out, err := exec.Command(bin, append([]string{"jobs", "approve", "--state", state, "--session", session}, args...)...).CombinedOutput()
		return string(out), err
	}
	if out, err := approve("w-00000000"); err == nil || out != "codemode jobs approve: the pending wait is "+id+" (api.everything.get_sum (a=99 needs a human's approval)), not w-00000000\n" {
		t.Fatalf("approve with a wrong id: %v %q", err, out)
	}
	if out, err := approve(id); err != nil || out != "approved "+id+": api.everything.get_sum (a=99 needs a human's approval)\n" {
		t.Fatalf("approve: %v %q", err, out)
	}
	text, _, isErr = run(`print("resumed")`)
	if isErr || !strings.HasPrefix(text, "NOTE: the wait "+id+" for api.everything.get_sum (a=99 needs a human's approval) was approved by an approver at ") || !strings.Contains(text, "resumed\n") {
		t.Fatalf("after the approval: %q", text)
	}
	t.Logf("turn 3:\n%s", text)
	if out, err := approve(); err == nil || out != "codemode jobs approve: session \"change-7\" has no pending wait\n" {
		t.Fatalf("approve with no wait: %v %q", err, out)
	}
}

// runCodeNamed is runCodeSC in the session named in _meta.
func runCodeNamed(t *testing.T, cs *mcp.ClientSession, session, code string) (string, map[string]any, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run_code", Arguments: map[string]any{"code": code}, Meta: mcp.Meta{gateway.SessionMeta: session}})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	var sc map[string]any
	raw, _ := json.Marshal(res.StructuredContent)
	_ = json.Unmarshal(raw, &sc)
	return b.String(), sc, res.IsError
}

var waitIDs = regexp.MustCompile(`\bw-[0-9a-f]{8}\b|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ`)

// fixWait replaces the varying parts of a wait (its ID, its deadline) in
// text with w-ID and DEADLINE.
func fixWait(text string) string {
	return waitIDs.ReplaceAllStringFunc(text, func(s string) string {
		if strings.HasPrefix(s, "w-") {
			return "w-ID"
		}
		return "DEADLINE"
	})
}

// TestApprovalBatchOverGateway: the pack's approve rule over the gateway
// and the real binary: a loop's writes are one batch, listed in
// structuredContent.wait.approval and by codemode jobs list; jobs deny
// resolves it with the calls refused and the agent told why; a new batch
// approved with jobs approve (which lists what it approved) lets each call
// through once.
func TestApprovalBatchOverGateway(t *testing.T) {
	bin := buildCodemode(t)
	state := t.TempDir()
	f := newFixture(t, false, func(c *runtime.Config) {
		c.StateDir, c.ReadGate = state, readgate.Off
		c.Rules = map[ir.ToolID]runtime.Rule{{Service: "everything", Wire: "echo"}: {Approve: true}}
	})
	cs := f.connect(t)
	const session = "drain-1"
	loop := `
for h in ["web-1", "web-2"]:
    r = api.everything.echo(message="drain " + h)
    print(r if isinstance(r, str) else r["status"])
`
	cli := func(args ...string) (string, error) {
		out, err := exec.Command(bin, append([]string{"jobs", args[0], "--state", state, "--session", session}, args[1:]...)...).CombinedOutput()
		return string(out), err
	}
	text, sc, _ := runCodeNamed(t, cs, session, loop)
	w, _ := sc["wait"].(map[string]any)
	calls := []any{`api.everything.echo(message="drain web-1")`, `api.everything.echo(message="drain web-2")`}
	if w == nil || !equalJSON(w["approval"], calls) || !strings.Contains(text, "waiting\nwaiting\n") {
		t.Fatalf("first turn: %q\nwait %v", text, w)
	}
	id := w["id"].(string)
	out, err := cli("list")
	if err != nil || !strings.HasPrefix(out, "wait "+id+"\tapproval of 2 calls (api.everything.echo(message=\"drain web-1\"), …)\tuntil ") ||
		!strings.HasSuffix(out, "\n  api.everything.echo(message=\"drain web-1\")\n  api.everything.echo(message=\"drain web-2\")\n") {
		t.Fatalf("jobs list: %v %q", err, out)
	}
	out, err = cli("deny", "--reason", "not during the change freeze", id)
	if want := "denied " + id + ": approval of 2 calls (api.everything.echo(message=\"drain web-1\"), …)\n  api.everything.echo(message=\"drain web-1\")\n  api.everything.echo(message=\"drain web-2\")\n"; err != nil || out != want {
		t.Fatalf("jobs deny: %v\n%q\nwant\n%q", err, out, want)
	}
	text, sc, _ = runCodeNamed(t, cs, session, loop)
	if !strings.Contains(text, "was DENIED by an approver at ") || !strings.Contains(text, "(not during the change freeze); its calls were not made and will not be approved") || !strings.Contains(text, "waiting\nwaiting\n") {
		t.Fatalf("after deny: %q", text)
	}
	id = sc["wait"].(map[string]any)["id"].(string)
	out, err = cli("approve", id)
	if err != nil || !strings.HasPrefix(out, "approved "+id+": approval of 2 calls") || !strings.HasSuffix(out, "\n  api.everything.echo(message=\"drain web-2\")\n") {
		t.Fatalf("jobs approve: %v %q", err, out)
	}
	text, sc, isErr := runCodeNamed(t, cs, session, loop)
	if isErr || sc["wait"] != nil || !strings.Contains(text, "Echo: drain web-1\nEcho: drain web-2\n") || !strings.Contains(text, "make these calls again, with the same arguments, and each goes through once") {
		t.Fatalf("after approve: %q", text)
	}
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
