package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/runtime/monty"
)

// TestServeLeftUpstreamOrphaned pins the lifecycle an MCP client expects of
// a stdio server: when the client closes serve's stdin, or sends SIGTERM (as
// the TypeScript SDK does 2 s after closing stdin), serve exits cleanly and
// takes its upstream server with it, even one that does not exit on stdin
// EOF (testmcp stubborn). The real binary (this test binary run as
// codemode) serves a real session that learns the upstream's process id.
func TestServeLeftUpstreamOrphaned(t *testing.T) {
	for _, how := range []string{"stdin-eof", "sigterm", "sigint"} {
		t.Run(how, func(t *testing.T) {
			cmd, stdin, pid := startServe(t)
			switch how {
			case "stdin-eof":
				stdin.Close()
			case "sigterm":
				cmd.Process.Signal(syscall.SIGTERM)
			case "sigint":
				cmd.Process.Signal(os.Interrupt)
			}
			// The bound only ends the test if serve never exits.
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("serve exited with %v; stderr:\n%s", err, cmd.Stderr)
				}
			case <-time.After(time.Minute):
				cmd.Process.Kill()
				t.Fatalf("serve did not exit after %s", how)
			}
			if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
				syscall.Kill(pid, syscall.SIGKILL)
				t.Fatalf("the upstream server (pid %d) outlived serve: kill -0 says %v", pid, err)
			}
		})
	}
}

// startServe starts codemode serve on a pack whose one service is testmcp
// stubborn, opens a session and calls the server's pid tool from a program.
func startServe(t *testing.T) (*exec.Cmd, io.WriteCloser, int) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	montyBin, err := monty.FindBinary()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("CODEMODE_MONTY", montyBin)
	dir := genStubPack(t, func(_, stub string) string {
		return fmt.Sprintf("out: api\nservices:\n  - name: stub\n    mcp_command: [%q, stubborn]\nruntime:\n  read_gate: \"off\"\n", stub)
	})
	var stderr strings.Builder
	cmd := &exec.Cmd{Path: exe, Args: []string{"codemode", "serve", "-c", "codemode.yaml", "--audit", "off"}, Dir: dir, Stderr: &stderr}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	fmt.Fprint(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_code","arguments":{"code":"print(api.stub.pid())"}}}
`)
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<20)
	pidText := regexp.MustCompile(`"text":"(\d+)\\n`)
	for sc.Scan() {
		if !strings.Contains(sc.Text(), `"id":2`) {
			continue
		}
		m := pidText.FindStringSubmatch(sc.Text())
		if m == nil {
			t.Fatalf("run_code answered %s", sc.Text())
		}
		pid, _ := strconv.Atoi(m[1])
		go io.Copy(io.Discard, stdout)
		return cmd, stdin, pid
	}
	t.Fatalf("serve ended without answering run_code: %v; stderr:\n%s", sc.Err(), stderr.String())
	return nil, nil, 0
}
