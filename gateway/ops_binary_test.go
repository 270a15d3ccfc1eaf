package gateway_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-dev/codemode/internal/testpack"
	"github.com/codemode-dev/codemode/internal/testpeer"
)

// serveProc is a `codemode serve --http` process.
type serveProc struct {
	cmd  *exec.Cmd
	url  string // the MCP endpoint
	base string // http://host:port
	mu   sync.Mutex
	err  strings.Builder // stderr after the address line
	done chan struct{}   // stderr closed: the process ended
}

func (s *serveProc) stderr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err.String()
}

// startServeProc starts the real binary's serve --http on a loopback port.
func startServeProc(t *testing.T, bin string, args ...string) *serveProc {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--http", "127.0.0.1:0", "--no-pins"}, args...)...)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &serveProc{cmd: cmd, done: make(chan struct{})}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	sc := bufio.NewScanner(pipe)
	var lines []string
	for sc.Scan() {
		if m := regexp.MustCompile(`streamable HTTP at (http://\S+)$`).FindStringSubmatch(sc.Text()); m != nil {
			s.url = m[1]
			break
		}
		lines = append(lines, sc.Text())
	}
	if s.url == "" {
		t.Fatalf("no address on stderr: %q", lines)
	}
	s.base = strings.TrimSuffix(s.url, "/mcp")
	go func() {
		defer close(s.done)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "mcp everything stderr: ") {
				continue // the upstream's own lines
			}
			s.mu.Lock()
			s.err.WriteString(sc.Text() + "\n")
			s.mu.Unlock()
		}
	}()
	return s
}

// get GETs url with token ("" for none) and returns the status and body.
func get(t *testing.T, url, token string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// series returns the lines of a scrape whose metric name starts with one
// of prefixes, in order.
func series(scrape string, prefixes ...string) string {
	var b strings.Builder
	for _, l := range strings.Split(scrape, "\n") {
		for _, p := range prefixes {
			if strings.HasPrefix(l, p) {
				b.WriteString(l + "\n")
				break
			}
		}
	}
	return b.String()
}

// opsPack compiles a pack for server-everything with runtime settings.
func opsPack(t *testing.T, runtime string) string {
	t.Helper()
	everything, err := testpeer.NodeBin("mcp-server-everything")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	testpack.Build(t, dir, fmt.Sprintf("out: api\nservices:\n  - name: everything\n    mcp_command: [%q, stdio]\n    grant: [echo, get-sum, trigger-long-running-operation]\nruntime:\n%s", everything, runtime))
	return filepath.Join(dir, "codemode.yaml")
}

// TestHealthAndReadyWithoutToken: /healthz and /readyz answer without the
// bearer token and say nothing else; /metrics needs the token.
func TestHealthAndReadyWithoutToken(t *testing.T) {
	bin := buildCodemode(t)
	s := startServeProc(t, bin, "-c", writePack(t), "--audit", "off", "--token-file", writeTokens(t, tokenA))
	if code, body := get(t, s.base+"/healthz", ""); code != 200 || body != "ok\n" {
		t.Fatalf("/healthz: %d %q", code, body)
	}
	if code, body := get(t, s.base+"/readyz", ""); code != 200 || body != "ready\n" {
		t.Fatalf("/readyz: %d %q", code, body)
	}
	if code, _ := get(t, s.base+"/metrics", ""); code != 401 {
		t.Fatalf("/metrics without the token: %d", code)
	}
	if code, body := get(t, s.base+"/metrics", tokenA); code != 200 || !strings.Contains(body, "\ncodemode_runs_total{outcome=\"ok\"} 0\n") {
		t.Fatalf("/metrics with the token: %d %q", code, body)
	}
}

// TestMetricsCountRealRuns scrapes the real endpoint after real runs: each
// run's outcome, each call by service and status, each refusal by reason
// and each limit, exactly.
func TestMetricsCountRealRuns(t *testing.T) {
	bin := buildCodemode(t)
	s := startServeProc(t, bin, "-c", opsPack(t, "  timeout: 3s\n  max_calls: 3\n"), "--audit", "off", "--token-file", writeTokens(t, tokenA))
	cs, err := connectHTTP(t, s.url, tokenA)
	if err != nil {
		t.Fatal(err)
	}
	run := func(code string) string {
		t.Helper()
		got, _ := call(t, cs, "run_code", map[string]any{"code": code})
		return got
	}
	// Not read yet: the read-gate refuses, the program fails.
	if got := run(`print(api.everything.echo(message="hi"))`); !strings.Contains(got, "was refused") {
		t.Fatalf("read-gate: %q", got)
	}
	call(t, cs, "read_api", map[string]any{"service": "everything", "lines": ""})
	// One call made, one invalid, one to no granted tool: the program ends well.
	got := run(`print(api.everything.echo(message="hi"))
try:
    run_tool("get-sum", {"a": "x", "b": 2})
except Exception as e:
    print("invalid")
try:
    run_tool("get-env")
except Exception as e:
    print("no such tool")
`)
	if got != "Echo: hi\ninvalid\nno such tool\n[3 tool calls, 2 failed]\n" {
		t.Fatalf("mixed program: %q", got)
	}
	// The call limit stops the fourth call; the time limit a loop.
	if got := run("for i in range(4):\n    api.everything.echo(message='x')\n"); !strings.Contains(got, "LimitError: call limit (3 tool calls per program)") {
		t.Fatalf("call limit: %q", got)
	}
	if got := run("while True:\n    pass\n"); !strings.Contains(got, "LimitError") {
		t.Fatalf("time limit: %q", got)
	}
	code, scrape := get(t, s.base+"/metrics", tokenA)
	if code != 200 {
		t.Fatalf("/metrics: %d", code)
	}
	want := `codemode_limits_total{limit="calls"} 1
codemode_limits_total{limit="memory"} 0
codemode_limits_total{limit="time"} 1
codemode_pool_handout_seconds_count 4
codemode_refusals_total{reason="grant"} 1
codemode_refusals_total{reason="limit"} 1
codemode_refusals_total{reason="other"} 0
codemode_refusals_total{reason="pin"} 0
codemode_refusals_total{reason="policy"} 0
codemode_refusals_total{reason="read-gate"} 1
codemode_refusals_total{reason="validation"} 1
codemode_refusals_total{reason="wait"} 0
codemode_run_code_seconds_count 4
codemode_runs_total{outcome="cut"} 0
codemode_runs_total{outcome="draining"} 0
codemode_runs_total{outcome="error"} 1
codemode_runs_total{outcome="failed"} 0
codemode_runs_total{outcome="limit"} 2
codemode_runs_total{outcome="ok"} 1
codemode_runs_total{outcome="refused"} 0
codemode_runs_total{outcome="wait"} 0
codemode_runs_total{outcome="worker_died"} 0
codemode_tool_calls_total{service="everything",status="cancelled"} 0
codemode_tool_calls_total{service="everything",status="cut"} 0
codemode_tool_calls_total{service="everything",status="error"} 0
codemode_tool_calls_total{service="everything",status="invalid"} 1
codemode_tool_calls_total{service="everything",status="ok"} 4
codemode_tool_calls_total{service="everything",status="refused"} 2
codemode_tool_calls_total{service="everything",status="wait"} 0
codemode_tool_calls_total{service="other",status="refused"} 1
`
	if got := series(scrape, "codemode_limits_total", "codemode_refusals_total", "codemode_run_code_seconds_count", "codemode_runs_total", "codemode_tool_calls_total", "codemode_pool_handout_seconds_count"); got != want {
		t.Fatalf("metrics:\n%s\nwant:\n%s", got, want)
	}
	if !regexp.MustCompile(`\ncodemode_pool_idle_workers \d+\n`).MatchString(scrape) || !regexp.MustCompile(`\ncodemode_pool_kept_workers \d+\n`).MatchString(scrape) || !strings.Contains(scrape, "\ncodemode_programs_in_flight 0\n") || !strings.Contains(scrape, "\ncodemode_draining 0\n") {
		t.Fatalf("gauges missing:\n%s", scrape)
	}
	// No session id or argument reaches a label.
	if strings.Contains(scrape, "session") || strings.Contains(scrape, `"hi"`) {
		t.Fatalf("a label carries a session or an argument:\n%s", scrape)
	}
}

// TestMetricsAddrServesWithoutToken: with --metrics-addr the metrics (and
// health) are serveProc on their own listener without a token, and the MCP
// listener no longer serves /metrics.
func TestMetricsAddrServesWithoutToken(t *testing.T) {
	bin := buildCodemode(t)
	cmd := exec.Command(bin, "serve", "-c", writePack(t), "--no-pins", "--audit", "off", "--http", "127.0.0.1:0", "--token-file", writeTokens(t, tokenA), "--metrics-addr", "127.0.0.1:0")
	pipe, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	sc := bufio.NewScanner(pipe)
	var ops, mcpURL string
	for mcpURL == "" && sc.Scan() {
		if m := regexp.MustCompile(`without a token on (\S+)$`).FindStringSubmatch(sc.Text()); m != nil {
			ops = "http://" + m[1]
		}
		if m := regexp.MustCompile(`streamable HTTP at (http://\S+)/mcp$`).FindStringSubmatch(sc.Text()); m != nil {
			mcpURL = m[1]
		}
	}
	go io.Copy(io.Discard, pipe)
	if ops == "" || mcpURL == "" {
		t.Fatalf("addresses: %q %q", ops, mcpURL)
	}
	if code, body := get(t, ops+"/metrics", ""); code != 200 || !strings.Contains(body, "\ncodemode_runs_total{outcome=\"ok\"} 0\n") {
		t.Fatalf("metrics listener: %d %q", code, body)
	}
	if code, body := get(t, ops+"/readyz", ""); code != 200 || body != "ready\n" {
		t.Fatalf("metrics listener /readyz: %d %q", code, body)
	}
	if code, _ := get(t, mcpURL+"/metrics", tokenA); code == 200 {
		t.Fatalf("the MCP listener still serves /metrics")
	}
}

// inFlight waits until the gateway reports n programs running.
func inFlight(t *testing.T, s *serveProc, n int) {
	t.Helper()
	want := fmt.Sprintf("\ncodemode_programs_in_flight %d\n", n)
	for {
		if _, body := get(t, s.base+"/metrics", tokenA); strings.Contains(body, want) {
			return
		}
		select {
		case <-s.done:
			t.Fatalf("the gateway ended: %s", s.stderr())
		default:
		}
	}
}

// TestSIGTERMSlowProgramCompletes: a program in flight when the gateway
// gets SIGTERM runs to its end and its agent gets the result; meanwhile
// /readyz says draining, another session's run_code is refused as
// draining, and a new session is refused with 503. Then the gateway exits 0.
func TestSIGTERMSlowProgramCompletes(t *testing.T) {
	bin := buildCodemode(t)
	s := startServeProc(t, bin, "-c", opsPack(t, "  read_gate: off\n"), "--audit", "off", "--token-file", writeTokens(t, tokenA), "--drain-timeout", "60s")
	slow, err := connectHTTP(t, s.url, tokenA)
	if err != nil {
		t.Fatal(err)
	}
	other, err := connectHTTP(t, s.url, tokenA)
	if err != nil {
		t.Fatal(err)
	}
	result := make(chan string, 1)
	go func() {
		res, err := slow.CallTool(context.Background(), mcpCall("run_code", map[string]any{"code": "api.everything.trigger_long_running_operation(duration=3, steps=1)\nprint('finished')\n"}))
		if err != nil {
			result <- "error: " + err.Error()
			return
		}
		result <- textOf(res)
	}()
	inFlight(t, s, 1)
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for {
		code, body := get(t, s.base+"/readyz", "")
		if code == 503 {
			if body != "not ready: draining\n" {
				t.Fatalf("/readyz while draining: %q", body)
			}
			break
		}
	}
	if got, isErr := call(t, other, "run_code", map[string]any{"code": "print(1)"}); !isErr || got != "run_code: the gateway is shutting down (draining): no new program starts here; run it again in a moment (another replica takes it)" {
		t.Fatalf("run_code while draining: %v %q", isErr, got)
	}
	if resp, body := post(t, s.url, tokenA, "", initBody); resp.StatusCode != 503 || !strings.Contains(body, "draining") {
		t.Fatalf("a new session while draining: %d %q", resp.StatusCode, body)
	}
	if got := <-result; got != "finished\n[1 tool call]\n" {
		t.Fatalf("the slow program: %q", got)
	}
	if err := s.cmd.Wait(); err != nil {
		t.Fatalf("exit: %v (%s)", err, s.stderr())
	}
	<-s.done
	if got := s.stderr(); got != "codemode serve: draining: 1 program in flight, waiting up to 1m0s\n" {
		t.Fatalf("stderr: %q", got)
	}
}

// TestSIGTERMProgramPastDrainTimeoutCut: a program still running when the
// drain timeout passes is cut; its agent is told so, with the calls that
// completed, its call under way is audited as cut, and the audit verifies.
func TestSIGTERMProgramPastDrainTimeoutCut(t *testing.T) {
	bin := buildCodemode(t)
	auditFile := filepath.Join(t.TempDir(), "audit.jsonl")
	s := startServeProc(t, bin, "-c", opsPack(t, "  read_gate: off\n"), "--audit", auditFile, "--token-file", writeTokens(t, tokenA), "--drain-timeout", "1s")
	cs, err := connectHTTP(t, s.url, tokenA)
	if err != nil {
		t.Fatal(err)
	}
	result := make(chan string, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), mcpCall("run_code", map[string]any{"code": "print(api.everything.echo(message='a'))\napi.everything.trigger_long_running_operation(duration=120, steps=1)\nprint('finished')\n"}))
		if err != nil {
			result <- "error: " + err.Error()
			return
		}
		result <- fmt.Sprint(res.IsError, " ", textOf(res))
	}()
	// The long call is under way (its intent is audited, so what the
	// program printed before it has reached the gateway).
	for {
		data, _ := os.ReadFile(auditFile)
		if strings.Contains(string(data), `"kind":"intent","run":`) && strings.Contains(string(data), `"call":2,"tool":"api.everything.trigger_long_running_operation"`) {
			break
		}
		select {
		case <-s.done:
			t.Fatalf("the gateway ended: %s", s.stderr())
		default:
		}
	}
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	want := "true Echo: a\n[1 tool call]\n\ncut: the gateway shut down and its drain timeout (1s) passed; the program was stopped. 1 call completed before it was stopped: api.everything.echo (ok); check their effects before running the program again.\n"
	if got := <-result; got != want {
		t.Fatalf("the cut program:\n%q\nwant:\n%q", got, want)
	}
	if err := s.cmd.Wait(); err != nil {
		t.Fatalf("exit: %v (%s)", err, s.stderr())
	}
	<-s.done
	if got := s.stderr(); got != "codemode serve: draining: 1 program in flight, waiting up to 1s\ncodemode serve: drain timeout (1s) passed: cut 1 program\n" {
		t.Fatalf("stderr: %q", got)
	}
	data, err := os.ReadFile(auditFile)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`"kind":"call","run":"[0-9a-f]+","session":"[^"]+","call":2,"tool":"api.everything.trigger_long_running_operation","status":"cut","message":"the run was stopped during this call: the gateway shut down and its drain timeout \(1s\) passed"`).Match(data) {
		t.Fatalf("audit:\n%s", data)
	}
	if out, err := exec.Command(bin, "audit", "verify", auditFile).CombinedOutput(); err != nil || !strings.HasPrefix(string(out), "ok: 6 events") {
		t.Fatalf("audit verify: %v %s", err, out)
	}
}

func mcpCall(name string, args map[string]any) *mcp.CallToolParams {
	return &mcp.CallToolParams{Name: name, Arguments: args}
}

// textOf is a tool result's text.
func textOf(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// TestSIGTERMStdioSlowProgramCompletes: over stdio too, a program in flight
// at SIGTERM finishes and its reply is written before the gateway exits;
// the metrics listener (--metrics-addr) serves a stdio gateway as well.
func TestSIGTERMStdioSlowProgramCompletes(t *testing.T) {
	bin := buildCodemode(t)
	cmd := exec.Command(bin, "serve", "-c", opsPack(t, "  read_gate: off\n"), "--audit", "off", "--no-pins", "--metrics-addr", "127.0.0.1:0", "--drain-timeout", "60s")
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd, TerminateDuration: 30 * time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(pipe)
	s := &serveProc{cmd: cmd, done: make(chan struct{})}
	for s.base == "" && sc.Scan() {
		if m := regexp.MustCompile(`without a token on (\S+)$`).FindStringSubmatch(sc.Text()); m != nil {
			s.base = "http://" + m[1]
		}
	}
	go func() {
		defer close(s.done)
		for sc.Scan() {
			if !strings.HasPrefix(sc.Text(), "mcp everything stderr: ") {
				s.mu.Lock()
				s.err.WriteString(sc.Text() + "\n")
				s.mu.Unlock()
			}
		}
	}()
	result := make(chan string, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), mcpCall("run_code", map[string]any{"code": "api.everything.trigger_long_running_operation(duration=2, steps=1)\nprint('finished')\n"}))
		if err != nil {
			result <- "error: " + err.Error()
			return
		}
		result <- textOf(res)
	}()
	inFlight(t, s, 1)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if got := <-result; got != "finished\n[1 tool call]\n" {
		<-s.done
		t.Fatalf("the slow program: %q (stderr %q)", got, s.stderr())
	}
	<-s.done
	if err := cs.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if got := s.stderr(); got != "codemode serve: draining: 1 program in flight, waiting up to 1m0s\n" {
		t.Fatalf("stderr: %q", got)
	}
}
