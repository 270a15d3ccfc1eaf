package gateway_test

import (
	"context"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-dev/codemode/gateway"
	"github.com/codemode-dev/codemode/internal/testpack"
	"github.com/codemode-dev/codemode/internal/testpeer"
	"github.com/codemode-dev/codemode/readgate"
	"github.com/codemode-dev/codemode/runtime"
)

// legacyProtocol is the protocol version of clients that subscribe with
// resources/subscribe (what MCP clients send today).
const legacyProtocol = "2025-11-25"

// heard is a client's notifications, each as one line: "message: DATA"
// (notifications/message) or "updated: URI SESSION"
// (notifications/resources/updated, with its _meta session).
type heard chan string

// listenTo is a client whose notifications go to the returned channel.
func listenTo() (*mcp.Client, heard) {
	h := make(heard, 64)
	c := mcp.NewClient(&mcp.Implementation{Name: "harness", Version: "0"}, &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			h <- fmt.Sprintf("message: [%s %s] %v", r.Params.Level, r.Params.Logger, r.Params.Data)
		},
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
			h <- fmt.Sprintf("updated: %s %v", r.Params.URI, r.Params.Meta[gateway.SessionMeta])
		},
	})
	return c, h
}

// next is the next notification heard (the test fails after a minute
// without one: the notification never came).
func (h heard) next(t *testing.T) string {
	t.Helper()
	select {
	case s := <-h:
		return fixWait(s)
	case <-time.After(time.Minute):
		t.Fatal("no notification came")
		return ""
	}
}

// expect reads len(want) notifications and compares them with want.
func (h heard) expect(t *testing.T, what string, want ...string) {
	t.Helper()
	for i, w := range want {
		if got := h.next(t); got != w {
			t.Fatalf("%s: notification %d:\n got %q\nwant %q", what, i+1, got, w)
		}
	}
}

// connectHarness connects a harness client to the fixture in memory.
func (f *fixture) connectHarness(t *testing.T, version string) (*mcp.ClientSession, heard) {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := f.srv.MCP().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	c, h := listenTo()
	cs, err := c.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, h
}

// subscribeJobs sets the log level and subscribes cs to session's jobs
// resource ("" for the connection's own session).
func subscribeJobs(t *testing.T, cs *mcp.ClientSession, session string) {
	t.Helper()
	ctx := context.Background()
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	var meta mcp.Meta
	if session != "" {
		meta = mcp.Meta{gateway.SessionMeta: session}
	}
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: gateway.JobsURI, Meta: meta}); err != nil {
		t.Fatal(err)
	}
}

// readJobs reads the jobs resource in session ("" for the connection's
// own), with its times and wait IDs replaced.
func readJobs(t *testing.T, cs *mcp.ClientSession, session string) string {
	t.Helper()
	var meta mcp.Meta
	if session != "" {
		meta = mcp.Meta{gateway.SessionMeta: session}
	}
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: gateway.JobsURI, Meta: meta})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Contents) != 1 || res.Contents[0].MIMEType != "application/json" {
		t.Fatalf("jobs resource: %+v", res.Contents)
	}
	return fixWait(res.Contents[0].Text)
}

// TestJobEndWakesNoOne pins the defect: a harness learnt that a job ended
// or its wait resolved only by calling run_code again. A harness
// subscribed to codemode://session/jobs for its session is told, with a
// log line for the job and one for the wait, then resources/updated; the
// resource shows the session's jobs and its wait; a subscriber of another
// session hears nothing of it and reads only its own jobs.
func TestJobEndWakesNoOne(t *testing.T) {
	hold := &holdEcho{release: make(chan struct{})}
	t.Cleanup(func() {
		select {
		case <-hold.release:
		default:
			close(hold.release)
		}
	})
	f := newFixture(t, false, func(c *runtime.Config) {
		c.ReadGate = readgate.Off
		if c.Upstreams != nil {
			hold.Upstream = c.Upstreams["everything"]
			c.Upstreams["everything"] = hold
		}
	})
	cs, h := f.connectHarness(t, legacyProtocol)
	other, oh := f.connectHarness(t, legacyProtocol)
	subscribeJobs(t, cs, "alpha")
	subscribeJobs(t, other, "beta")

	text, sc, _ := runCodeNamed(t, cs, "alpha", `jobs.submit("greet", api.everything.echo, message="later")
jobs.wait("greet", wake_after=3600)
`)
	w, _ := sc["wait"].(map[string]any)
	if w == nil || w["resume"] != "end the turn; call run_code in this session again when the job has ended or at the deadline, and read the result with jobs.get(name); a client subscribed to the resource codemode://session/jobs (resources/subscribe) is notified when it resolves" {
		t.Fatalf("turn 1: %q\nwait %v", text, sc["wait"])
	}
	want := `{
  "jobs": [
    {
      "name": "greet",
      "state": "running",
      "tool": "api.everything.echo",
      "started": "DEADLINE"
    }
  ],
  "wait": {
    "id": "w-ID",
    "what": "job greet",
    "jobs": [
      "greet"
    ],
    "deadline": "DEADLINE"
  }
}
`
	if got := readJobs(t, cs, "alpha"); got != want {
		t.Fatalf("alpha's jobs:\n%s\nwant:\n%s", got, want)
	}
	if got := readJobs(t, other, "beta"); got != "{\n  \"jobs\": [],\n  \"wait\": null\n}\n" {
		t.Fatalf("beta's jobs: %s", got)
	}
	// Another connection naming alpha reads alpha's jobs.
	if got := readJobs(t, other, "alpha"); got != want {
		t.Fatalf("alpha's jobs from another connection:\n%s", got)
	}

	// beta hears of its own job, cancelled by its program, not of alpha's.
	runCodeNamed(t, other, "beta", `hold = jobs.submit("hold", api.everything.echo, message="x")
jobs.cancel("hold")
`)
	oh.expect(t, "beta, own job cancelled",
		`message: [info codemode] job "hold" (api.everything.echo) was cancelled; jobs.get("hold") returns its state and result`,
		"updated: codemode://session/jobs beta")

	close(hold.release)
	h.expect(t, "alpha, job ended",
		`message: [info codemode] job "greet" (api.everything.echo) ended: done; jobs.get("greet") returns its state and result`,
		"message: [info codemode] the wait w-ID for job greet is over: the job ended; run_code in this session runs again",
		"updated: codemode://session/jobs alpha")
	want = `{
  "jobs": [
    {
      "name": "greet",
      "state": "done",
      "tool": "api.everything.echo",
      "started": "DEADLINE",
      "ended": "DEADLINE"
    }
  ],
  "wait": null
}
`
	if got := readJobs(t, cs, "alpha"); got != want {
		t.Fatalf("alpha's jobs after the job:\n%s\nwant:\n%s", got, want)
	}

	// beta heard nothing of alpha's job: its next notification is of its
	// own next job.
	runCodeNamed(t, other, "beta", `jobs.submit("quick", api.everything.echo, message="y")`)
	oh.expect(t, "beta, own job ended",
		`message: [info codemode] job "quick" (api.everything.echo) ended: done; jobs.get("quick") returns its state and result`,
		"updated: codemode://session/jobs beta")

	// The result itself is for jobs.get, on the next turn.
	text, _, isErr := runCodeNamed(t, cs, "alpha", `print(jobs.get("greet")["result"])`)
	if isErr || !strings.Contains(text, "Echo: later\n") {
		t.Fatalf("turn 2: %q", text)
	}
	select {
	case s := <-h:
		t.Fatalf("alpha heard %q after its wait was over", s)
	case s := <-oh:
		t.Fatalf("beta heard %q", s)
	default:
	}
}

// TestWaitDeadlineWakesNoOne: a wait whose deadline passes while its job
// still runs is told to the subscriber (noticed by the poll), as is the
// job's end later.
func TestWaitDeadlineWakesNoOne(t *testing.T) {
	hold := &holdEcho{release: make(chan struct{})}
	t.Cleanup(func() {
		select {
		case <-hold.release:
		default:
			close(hold.release)
		}
	})
	f := newFixture(t, false, func(c *runtime.Config) {
		c.ReadGate = readgate.Off
		if c.Upstreams != nil {
			hold.Upstream = c.Upstreams["everything"]
			c.Upstreams["everything"] = hold
		}
	})
	cs, h := f.connectHarness(t, legacyProtocol)
	subscribeJobs(t, cs, "")
	text, _, _ := runCodeSC(t, cs, `jobs.submit("slow", api.everything.echo, message="x")
jobs.wait("slow", wake_after=1)
`)
	if !strings.Contains(text, "NOTE: WAIT: this session waits for job slow") {
		t.Fatalf("turn 1: %q", text)
	}
	got := h.next(t)
	if want := "message: [info codemode] the wait w-ID for job slow reached its deadline (DEADLINE); the job is still running; run_code in this session runs again"; got != want {
		t.Fatalf("deadline:\n got %q\nwant %q", got, want)
	}
	got = h.next(t)
	if !regexp.MustCompile(`^updated: codemode://session/jobs stdio-[a-z0-9]{16}$`).MatchString(got) {
		t.Fatalf("deadline, updated: %q", got)
	}
	close(hold.release)
	h.expect(t, "job ended", `message: [info codemode] job "slow" (api.everything.echo) ended: done; jobs.get("slow") returns its state and result`)
	if got := h.next(t); !strings.HasPrefix(got, "updated: codemode://session/jobs stdio-") {
		t.Fatalf("job ended, updated: %q", got)
	}
}

// TestApprovalWakesNoOne: a call wait resolved by an approver in another
// process (codemode jobs approve, then jobs deny) is noticed by the poll
// and told to the subscriber with the approver's words.
func TestApprovalWakesNoOne(t *testing.T) {
	bin := buildCodemode(t)
	state := t.TempDir()
	f := newFixture(t, false, func(c *runtime.Config) { c.StateDir, c.ReadGate = state, readgate.Off })
	cs, h := f.connectHarness(t, legacyProtocol)
	const session = "change-9"
	subscribeJobs(t, cs, session)
	cli := func(args ...string) {
		t.Helper()
		out, err := exec.Command(bin, append([]string{"jobs", args[0], "--state", state, "--session", session}, args[1:]...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("jobs %s: %v %s", args[0], err, out)
		}
	}
	_, sc, _ := runCodeNamed(t, cs, session, `print(api.everything.get_sum(a=99, b=1)["status"])`)
	id := sc["wait"].(map[string]any)["id"].(string)
	want := `{
  "jobs": [],
  "wait": {
    "id": "w-ID",
    "what": "api.everything.get_sum (a=99 needs a human's approval)",
    "deadline": "DEADLINE"
  }
}
`
	if got := readJobs(t, cs, session); got != want {
		t.Fatalf("jobs resource:\n%s\nwant:\n%s", got, want)
	}
	cli("approve", id)
	h.expect(t, "approved",
		"message: [info codemode] the wait w-ID for api.everything.get_sum (a=99 needs a human's approval) was approved by an approver at DEADLINE; the session runs again",
		"updated: codemode://session/jobs change-9")

	text, sc, _ := runCodeNamed(t, cs, session, `print(api.everything.get_sum(a=99, b=2)["status"])`)
	if !strings.Contains(text, "was approved by an approver") || sc["wait"] == nil {
		t.Fatalf("turn 2: %q", text)
	}
	cli("deny", "--reason", "not today", sc["wait"].(map[string]any)["id"].(string))
	h.expect(t, "denied",
		"message: [info codemode] the wait w-ID for api.everything.get_sum (a=99 needs a human's approval) was DENIED by an approver at DEADLINE (not today); its calls were not made and will not be approved",
		"updated: codemode://session/jobs change-9")
}

// connectHTTPHarness is a harness client over streamable HTTP with token.
func connectHTTPHarness(t *testing.T, url, token, version string) (*mcp.ClientSession, heard) {
	t.Helper()
	c, h := listenTo()
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}},
		&mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, h
}

// TestJobsResourceOfOtherTokenRefused: over authenticated HTTP a session
// name is scoped by the bearer token, and so is the jobs resource: two
// tokens naming the same session "deploy" are two sessions; the
// subscriber with the other token hears nothing of this one's job and
// reads none of its jobs, while this one's subscriber is told (over the
// standalone event stream) and the notification names its scoped session.
func TestJobsResourceOfOtherTokenRefused(t *testing.T) {
	hold := &holdEcho{release: make(chan struct{})}
	t.Cleanup(func() {
		select {
		case <-hold.release:
		default:
			close(hold.release)
		}
	})
	f := newFixture(t, false, func(c *runtime.Config) {
		c.ReadGate = readgate.Off
		if c.Upstreams != nil {
			hold.Upstream = c.Upstreams["everything"]
			c.Upstreams["everything"] = hold
		}
	})
	hs := serveHTTP(t, f, gateway.HTTPOptions{Tokens: tokensFile(t, writeTokens(t, tokenA, tokenB))})
	a, ah := connectHTTPHarness(t, hs.URL, tokenA, legacyProtocol)
	b, bh := connectHTTPHarness(t, hs.URL, tokenB, legacyProtocol)
	subscribeJobs(t, a, "deploy")
	subscribeJobs(t, b, "deploy")
	if text, _, _ := runCodeNamed(t, a, "deploy", `jobs.submit("roll", api.everything.echo, message="v2")
jobs.wait("roll", wake_after=600)
`); !strings.Contains(text, "NOTE: WAIT: this session waits for job roll") {
		t.Fatalf("token A, turn 1: %q", text)
	}
	if got := readJobs(t, b, "deploy"); got != "{\n  \"jobs\": [],\n  \"wait\": null\n}\n" {
		t.Fatalf("token B reads deploy: %s", got)
	}
	if got := readJobs(t, a, "deploy"); !strings.Contains(got, `"name": "roll"`) || !strings.Contains(got, `"what": "job roll"`) {
		t.Fatalf("token A reads deploy: %s", got)
	}
	close(hold.release)
	ah.expect(t, "token A",
		`message: [info codemode] job "roll" (api.everything.echo) ended: done; jobs.get("roll") returns its state and result`,
		"message: [info codemode] the wait w-ID for job roll is over: the job ended; run_code in this session runs again")
	if got := ah.next(t); !regexp.MustCompile(`^updated: codemode://session/jobs "[^"]+"/deploy$`).MatchString(got) {
		t.Fatalf("token A, updated: %q", got)
	}
	// B's next notification is of its own job, not A's.
	runCodeNamed(t, b, "deploy", `jobs.submit("mine", api.everything.echo, message="b")`)
	bh.expect(t, "token B", `message: [info codemode] job "mine" (api.everything.echo) ended: done; jobs.get("mine") returns its state and result`)
	if got := bh.next(t); !regexp.MustCompile(`^updated: codemode://session/jobs "[^"]+"/deploy$`).MatchString(got) || strings.Contains(got, tokenA) || strings.Contains(got, tokenB) {
		t.Fatalf("token B, updated: %q", got)
	}
}

// TestJobsSubscriptionNewProtocol: a client on protocol 2026-07-28, whose
// Subscribe is a subscriptions/listen stream, is told the same, for its
// connection's own session.
func TestJobsSubscriptionNewProtocol(t *testing.T) {
	f := newFixture(t, false, func(c *runtime.Config) { c.ReadGate = readgate.Off })
	cs, h := f.connectHarness(t, "")
	if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("protocol %s", v)
	}
	subscribeJobs(t, cs, "")
	runCodeSC(t, cs, `jobs.submit("q", api.everything.echo, message="y")`)
	h.expect(t, "new protocol", `message: [info codemode] job "q" (api.everything.echo) ended: done; jobs.get("q") returns its state and result`)
	if got := h.next(t); !regexp.MustCompile(`^updated: codemode://session/jobs stdio-[a-z0-9]{16}$`).MatchString(got) {
		t.Fatalf("updated: %q", got)
	}
}

// TestServeStdioJobEndWakesNoOne: over `codemode serve` on stdio, with a
// real upstream tool that takes seconds, a harness subscribed to its named
// session's jobs is told when the job ends and the wait is over; the next
// turn reads the result.
func TestServeStdioJobEndWakesNoOne(t *testing.T) {
	bin := buildCodemode(t)
	everything, err := testpeer.NodeBin("mcp-server-everything")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	testpack.Build(t, dir, fmt.Sprintf("out: api\nservices:\n  - name: everything\n    mcp_command: [%q, stdio]\n    grant: [echo, trigger-long-running-operation]\nruntime:\n  read_gate: off\n", everything))
	c, h := listenTo()
	cmd := exec.Command(bin, "serve", "-c", filepath.Join(dir, "codemode.yaml"), "--state", t.TempDir(), "--audit", "off")
	cs, err := c.Connect(context.Background(), &mcp.CommandTransport{Command: cmd, TerminateDuration: time.Second}, &mcp.ClientSessionOptions{ProtocolVersion: legacyProtocol})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	subscribeJobs(t, cs, "build-3")
	text, _, _ := runCodeNamed(t, cs, "build-3", `jobs.submit("op", api.everything.trigger_long_running_operation, duration=2, steps=1)
jobs.wait("op", wake_after=600)
`)
	if !strings.HasPrefix(text, "NOTE: WAIT: this session waits for job op until it ends or until ") {
		t.Fatalf("turn 1: %q", text)
	}
	h.expect(t, "job ended",
		`message: [info codemode] job "op" (api.everything.trigger_long_running_operation) ended: done; jobs.get("op") returns its state and result`,
		"message: [info codemode] the wait w-ID for job op is over: the job ended; run_code in this session runs again",
		"updated: codemode://session/jobs build-3")
	text, _, isErr := runCodeNamed(t, cs, "build-3", `print(jobs.get("op")["state"])`)
	if isErr || text != "NOTE: the wait for job op is over: the job ended; jobs.get() returns its state and result\n\ndone\n[0 tool calls]\n" {
		t.Fatalf("turn 2: %q", text)
	}
}

// BenchmarkJobsPollRead is what one poll costs per subscribed session: a
// read of its jobs from the SQLite store (here 4 ended jobs and no wait).
func BenchmarkJobsPollRead(b *testing.B) {
	f := newFixture(b, false, func(c *runtime.Config) { c.StateDir, c.ReadGate = b.TempDir(), readgate.Off })
	cs := f.connect(b)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run_code", Arguments: map[string]any{"code": `for i in range(4):
    jobs.submit("j" + str(i), api.everything.echo, message="x")
`}, Meta: mcp.Meta{gateway.SessionMeta: "bench"}})
	if err != nil || res.IsError {
		b.Fatal(err, res)
	}
	for {
		sj, err := f.rt.SessionJobs("bench")
		if err != nil {
			b.Fatal(err)
		}
		running := 0
		for _, j := range sj.Jobs {
			if j.State == runtime.JobRunning {
				running++
			}
		}
		if running == 0 && len(sj.Jobs) == 4 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	b.ResetTimer()
	for range b.N {
		if _, err := f.rt.SessionJobs("bench"); err != nil {
			b.Fatal(err)
		}
	}
}

// TestJobEndedOnOtherReplicaWakesNoOne: two gateways share one store, and
// a harness on each subscribes to the same named session. The session's
// job, taken from the queue by either gateway, ends there; both harnesses
// are told the same: the one on the gateway that ran it through the
// runtime's hook, the other through the poll of the store.
func TestJobEndedOnOtherReplicaWakesNoOne(t *testing.T) {
	bin := buildCodemode(t)
	everything, err := testpeer.NodeBin("mcp-server-everything")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	testpack.Build(t, dir, fmt.Sprintf("out: api\nservices:\n  - name: everything\n    mcp_command: [%q, stdio]\n    grant: [echo, trigger-long-running-operation]\nruntime:\n  read_gate: off\n", everything))
	packFile, state := filepath.Join(dir, "codemode.yaml"), t.TempDir()
	serve := func() (*mcp.ClientSession, heard) {
		c, h := listenTo()
		cmd := exec.Command(bin, "serve", "-c", packFile, "--state", state, "--audit", "off")
		cs, err := c.Connect(context.Background(), &mcp.CommandTransport{Command: cmd, TerminateDuration: time.Second}, &mcp.ClientSessionOptions{ProtocolVersion: legacyProtocol})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		subscribeJobs(t, cs, "rollout")
		return cs, h
	}
	cs1, h1 := serve()
	_, h2 := serve()
	text, _, _ := runCodeNamed(t, cs1, "rollout", `jobs.submit("slow", api.everything.trigger_long_running_operation, duration=2, steps=1)
jobs.wait("slow", wake_after=600)
`)
	if !strings.HasPrefix(text, "NOTE: WAIT: this session waits for job slow until it ends or until ") {
		t.Fatalf("first gateway: %q", text)
	}
	for i, h := range []heard{h1, h2} {
		h.expect(t, fmt.Sprintf("gateway %d", i+1),
			`message: [info codemode] job "slow" (api.everything.trigger_long_running_operation) ended: done; jobs.get("slow") returns its state and result`,
			"message: [info codemode] the wait w-ID for job slow is over: the job ended; run_code in this session runs again",
			"updated: codemode://session/jobs rollout")
	}
}
