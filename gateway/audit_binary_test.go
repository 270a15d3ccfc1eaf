package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
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

// lockedBuffer is a stderr that can be read while the process writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

type served struct {
	cs     *mcp.ClientSession
	cmd    *exec.Cmd
	stderr *lockedBuffer
}

// startServe starts `codemode serve` over stdio in its own process group
// and connects to it.
func startStdioServe(t *testing.T, bin string, args ...string) *served {
	t.Helper()
	return startStdioServeEnv(t, bin, nil, args...)
}

func startStdioServeEnv(t *testing.T, bin string, env []string, args ...string) *served {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	s := &served{cmd: cmd, stderr: &lockedBuffer{}}
	cmd.Stderr = s.stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
	if err != nil {
		t.Fatalf("serve %v: %v (stderr: %s)", args, err, s.stderr)
	}
	s.cs = cs
	t.Cleanup(func() {
		cs.Close()
		if cmd.Process != nil {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
	})
	return s
}

func verify(t *testing.T, bin string, args ...string) (string, int) {
	t.Helper()
	return verifyEnv(t, bin, nil, args...)
}

func verifyEnv(t *testing.T, bin string, env []string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"audit", "verify"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), code
}

const auditPackYAML = `out: api
services:
  - name: everything
    mcp_command: [%q, stdio]
    grant: [echo, trigger-long-running-operation]
`

// TestServeAudit drives real `codemode serve` processes against one pack:
// two at once keep one chain (defect 4), a SIGKILL mid-call leaves an
// intent verify reports as unknown (defect 3), and a chain found broken at
// start is reported and serving goes on.
func TestServeAudit(t *testing.T) {
	bin := buildCodemode(t)
	everything, err := testpeer.NodeBin("mcp-server-everything")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	testpack.Build(t, dir, fmt.Sprintf(auditPackYAML, everything))
	packFile := filepath.Join(dir, "codemode.yaml")
	logFile := filepath.Join(dir, ".codemode", "audit.jsonl")

	t.Run("TwoServersOnOnePackBreakTheChain", func(t *testing.T) {
		a := startStdioServe(t, bin, "-c", packFile)
		b := startStdioServe(t, bin, "-c", packFile)
		var wg sync.WaitGroup
		for i, s := range []*served{a, b} {
			call(t, s.cs, "read_api", map[string]any{"service": "everything", "lines": ""})
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := range 5 {
					code := fmt.Sprintf("for k in range(3):\n    print(api.everything.echo(message='%d-%d-' + str(k)))\n", i, j)
					res, err := s.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run_code", Arguments: map[string]any{"code": code}})
					if err != nil || res.IsError {
						t.Errorf("run_code: %v %+v", err, res)
						return
					}
				}
			}()
		}
		wg.Wait()
		a.cs.Close()
		b.cs.Close()
		// 2 servers x 5 runs x (start, end, 3 x (intent, outcome)).
		out, code := verify(t, bin, logFile)
		if code != 0 || !regexp.MustCompile(`^ok: 80 events \(head sha256:[0-9a-f]{64}\)\n$`).MatchString(out) {
			t.Fatalf("verify (exit %d): %q", code, out)
		}
		// A third server starts on the pack, with nothing to report.
		c := startStdioServe(t, bin, "-c", packFile)
		if got := toolNames(t, c.cs); strings.Join(got, ",") != "find_tool,read_api,run_code" {
			t.Fatalf("third server's tools: %v", got)
		}
		c.cs.Close()
		if strings.Contains(c.stderr.String(), "AUDIT") {
			t.Errorf("third server's stderr: %s", c.stderr)
		}

		// --head: a head kept from earlier is found; after the tail is
		// cut off, it is not.
		head := regexp.MustCompile(`sha256:[0-9a-f]{64}`).FindString(out)
		if got, code := verify(t, bin, "--head", head, logFile); code != 0 || got != strings.TrimSuffix(out, "\n")+"\nthe kept head is line 80\n" {
			t.Fatalf("verify --head (exit %d): %q", code, got)
		}
		data := readFile(t, logFile)
		cut := filepath.Join(t.TempDir(), "cut.jsonl")
		lines := strings.SplitAfter(data, "\n")
		if err := os.WriteFile(cut, []byte(strings.Join(lines[:77], "")), 0o600); err != nil {
			t.Fatal(err)
		}
		if got, code := verify(t, bin, "--head", head, cut); code != 1 || !strings.HasSuffix(got, "\n"+cut+": head "+head+" is not in the log: it was truncated or rewritten after that head was taken\n") {
			t.Fatalf("verify --head of a cut log (exit %d): %q", code, got)
		}
	})

	t.Run("SIGKILLMidCallLeftNoEvent", func(t *testing.T) {
		killLog := filepath.Join(t.TempDir(), "audit.jsonl")
		s := startStdioServe(t, bin, "-c", packFile, "--audit", killLog)
		call(t, s.cs, "read_api", map[string]any{"service": "everything", "lines": ""})
		done := make(chan struct{})
		go func() {
			defer close(done)
			// Fails when the server is killed.
			s.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run_code", Arguments: map[string]any{
				"code": "api.everything.trigger_long_running_operation(duration=20, steps=1)\n"}})
		}()
		// Wait for the intent to be on disk, then kill the server (and
		// its children) where it stands.
		for !strings.Contains(readFile(t, killLog), `"kind":"intent"`) {
			select {
			case <-done:
				t.Fatalf("run_code ended before its call was made; log:\n%s", readFile(t, killLog))
			case <-time.After(20 * time.Millisecond):
			}
		}
		if err := syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		<-done
		out, code := verify(t, bin, killLog)
		want := regexp.MustCompile(`^unknown: line 1: run [0-9a-f]{16} \(session \S+\) started and has no end\n` +
			`unknown: line 2: api\.everything\.trigger_long_running_operation \(run [0-9a-f]{16}, call 1\): its intent has no outcome\n` +
			`ok: 2 events \(head sha256:[0-9a-f]{64}\)\n$`)
		if code != 0 || !want.MatchString(out) {
			t.Fatalf("verify after SIGKILL (exit %d):\n%s", code, out)
		}
		// The log takes the next server.
		s2 := startStdioServe(t, bin, "-c", packFile, "--audit", killLog)
		if got, isErr := call(t, s2.cs, "run_code", map[string]any{"code": "print(1)\n"}); isErr || got != "1\n[0 tool calls]\n" {
			t.Fatalf("after the kill: %q", got)
		}
	})

	t.Run("SIGKILLUnderLoadLeftCallsUnaudited", func(t *testing.T) {
		// An HTTP upstream that notes every request it receives.
		var mu sync.Mutex
		received := map[string]bool{}
		hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			received[r.URL.Query().Get("n")] = true
			mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"ok":true}`)
		}))
		defer hs.Close()
		pdir := t.TempDir()
		if err := os.WriteFile(filepath.Join(pdir, "ping.json"), []byte(pingSpec), 0o644); err != nil {
			t.Fatal(err)
		}
		testpack.Build(t, pdir, "out: api\nruntime:\n  read_gate: \"off\"\n  max_calls: 1000000\n  timeout: 60s\nservices:\n  - name: ping\n    openapi: ping.json\n    base_url: "+hs.URL+"\n")
		killLog := filepath.Join(pdir, "audit.jsonl")
		s := startStdioServe(t, bin, "-c", filepath.Join(pdir, "codemode.yaml"), "--audit", killLog, "--no-pins")
		var wg sync.WaitGroup
		for i := range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				code := fmt.Sprintf("for j in range(1000000):\n    api.ping.ping(n=%d000000 + j)\n", i+1)
				s.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run_code", Arguments: map[string]any{"code": code}})
			}()
		}
		ended := make(chan struct{})
		go func() { wg.Wait(); close(ended) }()
		for strings.Count(readFile(t, killLog), `"kind":"intent"`) < 200 {
			select {
			case <-ended:
				t.Fatalf("the programs ended before 200 calls; stderr: %s", s.stderr)
			case <-time.After(10 * time.Millisecond):
			}
		}
		if err := syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		// The kill may cut the write under way short: a last line with no
		// newline, which verify reports as such (the kernel may stop a
		// write to a file part-way for a fatal signal). The lines before
		// it are whole.
		data := readFile(t, killLog)
		lines := strings.Split(strings.TrimSuffix(data, "\n"), "\n")
		cut := !strings.HasSuffix(data, "\n")
		if cut {
			lines = lines[:len(lines)-1]
		}
		intents, outcomes := map[string]bool{}, 0
		for _, l := range lines {
			var ev struct {
				Kind string
				Args struct{ Value struct{ N json.Number } }
			}
			if err := json.Unmarshal([]byte(l), &ev); err != nil {
				t.Fatalf("%v: %s", err, l)
			}
			switch ev.Kind {
			case "intent":
				intents[ev.Args.Value.N.String()] = true
			case "call":
				outcomes++
			}
		}
		mu.Lock()
		defer mu.Unlock()
		for n := range received {
			if !intents[n] {
				t.Errorf("call n=%s reached the upstream with no intent in the log", n)
			}
		}
		out, code := verify(t, bin, killLog)
		wantCode := 0
		if cut {
			wantCode = 1
			if want := fmt.Sprintf("line %d: the line is cut short (no newline)", len(lines)+1); !strings.Contains(out, want) {
				t.Errorf("verify of a log whose last write the kill cut short does not say %q:\n%s", want, out)
			}
		}
		if code != wantCode || strings.Count(out, "unknown: ") != 3+len(intents)-outcomes {
			t.Errorf("verify (exit %d, want %d), %d intents, %d outcomes:\n%s", code, wantCode, len(intents), outcomes, out)
		}
		t.Logf("SIGKILL under load: the upstream received %d calls, the log has %d intents and %d outcomes; %d calls unknown", len(received), len(intents), outcomes, len(intents)-outcomes)
	})

	t.Run("BrokenChainRefusedToStart", func(t *testing.T) {
		data := readFile(t, logFile)
		lines := strings.SplitAfter(data, "\n")
		lines[1] = strings.Replace(lines[1], `"session":"`, `"session":"x`, 1)
		if err := os.WriteFile(logFile, []byte(strings.Join(lines, "")), 0o600); err != nil {
			t.Fatal(err)
		}
		s := startStdioServe(t, bin, "-c", packFile)
		want := "codemode serve: AUDIT: " + logFile + ": the chain is broken at 1 line, first line 2: edited: the line's content does not match its hash; the log goes on after it\n"
		if got := s.stderr.String(); !strings.Contains(got, want) {
			t.Errorf("stderr:\n%s\nwant it to hold:\n%s", got, want)
		}
		call(t, s.cs, "read_api", map[string]any{"service": "everything", "lines": ""})
		if got, isErr := call(t, s.cs, "run_code", map[string]any{"code": "print(api.everything.echo(message='on'))\n"}); isErr || got != "Echo: on\n[1 tool call]\n" {
			t.Fatalf("run_code on a broken log: %q", got)
		}
		s.cs.Close()
		out, code := verify(t, bin, logFile)
		if code != 1 || out != logFile+": line 2: edited: the line's content does not match its hash\n" {
			t.Fatalf("verify (exit %d): %q", code, out)
		}
		if !strings.Contains(readFile(t, logFile), `"kind":"break","run":"","session":"","status":"broken","message":"the chain is broken at 1 line, first line 2: edited`) {
			t.Errorf("no break event in the log")
		}
	})
}

// TestServeAuditKeyed: with CODEMODE_AUDIT_KEY the log is HMAC-signed;
// verify needs the key.
func TestServeAuditKeyed(t *testing.T) {
	bin := buildCodemode(t)
	logFile := filepath.Join(t.TempDir(), "audit.jsonl")
	key := []string{"CODEMODE_AUDIT_KEY=a key kept elsewhere"}
	s := startStdioServeEnv(t, bin, key, "-c", writePack(t), "--audit", logFile)
	if got, isErr := call(t, s.cs, "run_code", map[string]any{"code": "print(1)\n"}); isErr || got != "1\n[0 tool calls]\n" {
		t.Fatalf("run_code: %q", got)
	}
	s.cs.Close()
	if out, code := verifyEnv(t, bin, key, logFile); code != 0 || !regexp.MustCompile(`^ok: 2 events \(head hmac-sha256:[0-9a-f]{64}\)\n$`).MatchString(out) {
		t.Fatalf("verify with the key (exit %d): %q", code, out)
	}
	want := logFile + ": line 1: edited: the line's content does not match its HMAC (or it was signed with another key)\n" +
		logFile + ": line 2: edited: the line's content does not match its HMAC (or it was signed with another key)\n"
	if out, code := verifyEnv(t, bin, []string{"CODEMODE_AUDIT_KEY=a guess"}, logFile); code != 1 || out != want {
		t.Fatalf("verify with another key (exit %d): %q", code, out)
	}
}

const pingSpec = `{"openapi": "3.0.3", "info": {"title": "ping", "version": "1"},
 "paths": {"/ping": {"get": {"operationId": "ping", "summary": "Ping.",
  "parameters": [{"name": "n", "in": "query", "required": true, "schema": {"type": "integer"}}],
  "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}}}}}}}`

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}
