package gateway_test

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/internal/testpack"
	"github.com/codemode-dev/codemode/internal/testpeer"
	"github.com/codemode-dev/codemode/runtime"
	"github.com/codemode-dev/codemode/store"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestGatewayKilledMidJobRerun: a gateway SIGKILLed while a job runs
// leaves the job in its store; the job's tool (the reference server's
// long-running operation) is read-only, so the next gateway on the same
// state runs it again, and the session's wait holds until it ends. (A
// job whose tool may not run twice is reported "unknown" and never run
// again: TestServeKilledMidJobRerun in cmd/codemode.)
func TestGatewayKilledMidJobRerun(t *testing.T) {
	bin := buildCodemode(t)
	everything, err := testpeer.NodeBin("mcp-server-everything")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	testpack.Build(t, dir, fmt.Sprintf("out: api\nservices:\n  - name: everything\n    mcp_command: [%q, stdio]\n    grant: [echo, trigger-long-running-operation]\nruntime:\n  read_gate: off\n", everything))
	packFile, state := filepath.Join(dir, "codemode.yaml"), t.TempDir()
	serve := func() (*exec.Cmd, *mcp.ClientSession) {
		cmd := exec.Command(bin, "serve", "-c", packFile, "--state", state, "--audit", "off")
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd, TerminateDuration: time.Second}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cmd, cs
	}
	runNamed := func(cs *mcp.ClientSession, code string) string {
		return callNamed(t, cs, "job-9", "run_code", map[string]any{"code": code})
	}
	cmd, cs := serve()
	got := runNamed(cs, `jobs.submit("slow", api.everything.trigger_long_running_operation, duration=2, steps=1)
jobs.wait("slow", wake_after=600)
`)
	if !strings.HasPrefix(got, "NOTE: WAIT: this session waits for job slow until it ends or until ") {
		t.Fatalf("first gateway: %q", got)
	}
	if got := runNamed(cs, "print(1)"); !strings.Contains(got, "run_code refused: this session is waiting for job slow") {
		t.Fatalf("first gateway, second program: %q", got)
	}
	// Killed once the job has started.
	st, err := store.Open(context.Background(), filepath.Join(state, runtime.StoreFile), store.Options{NoReplica: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		sj, err := st.Session(context.Background(), "job-9")
		if err != nil {
			t.Fatal(err)
		}
		if sj.Jobs["slow"].Attempt > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the job did not start")
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	_, cs2 := serve()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		got = runNamed(cs2, "j = jobs.get('slow')\nprint(j['state'])\n")
		if !strings.Contains(got, "run_code refused: this session is waiting for job slow") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("next gateway: still waiting: %q", got)
		}
	}
	if got != "NOTE: the wait for job slow is over: the job ended; jobs.get() returns its state and result\n\ndone\n[0 tool calls]\n" {
		t.Fatalf("next gateway: %q", got)
	}
	sj, _ := st.Session(context.Background(), "job-9")
	if a := sj.Jobs["slow"].Attempt; a != 2 {
		t.Fatalf("the job ran %d times, want 2", a)
	}
}
