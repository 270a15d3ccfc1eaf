package gateway_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// buildCodemode builds the codemode binary into a temp dir.
func buildCodemode(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "codemode")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/codemode-dev/codemode/cmd/codemode").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestServeStdio drives the real binary over stdio with the go-sdk client.
func TestServeStdio(t *testing.T) {
	bin := buildCodemode(t)
	packFile := writePack(t)
	auditFile := filepath.Join(t.TempDir(), "audit.jsonl")
	cmd := exec.Command(bin, "serve", "-c", packFile, "--audit", auditFile, "--shapes", filepath.Join(t.TempDir(), "shapes.json"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := toolNames(t, cs), []string{"find_tool", "read_api", "run_code"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("tools = %v", got)
	}
	got, _ := call(t, cs, "find_tool", map[string]any{"query": "echo back a message"})
	// echo dominates: the other tool that says "message" scores under 0.4
	// of it and is not shown.
	if !strings.HasPrefix(got, "1 match for \"echo back a message\" (best first).") || !strings.Contains(got, "\n1. api.everything.echo(message: str) -> Any\n   Echoes back the input string\n   args:\n     message: str, required — Message to echo\n") {
		t.Fatalf("find_tool:\n%s", got)
	}
	got, isErr := call(t, cs, "run_code", map[string]any{"code": `print(api.everything.echo(message="hi"))`})
	if !isErr || !strings.Contains(got, `read api/everything.py lines 41-46 first: find_tool("everything.echo") or read_api("everything", "41-46")`) {
		t.Fatalf("read-gate: %q", got)
	}
	got, _ = call(t, cs, "find_tool", map[string]any{"query": "everything.echo"})
	if !strings.HasPrefix(got, echoDef) {
		t.Fatalf("exact:\n%s", got)
	}
	call(t, cs, "find_tool", map[string]any{"query": "everything.get_sum"})
	got, isErr = call(t, cs, "run_code", map[string]any{"code": `print(api.everything.echo(message="hi"))
try:
    run_tool("get-env")
except Exception as e:
    print(e)
try:
    run_tool("get-sum", {"a": 1})
except TypeError as e:
    print("TypeError:", e)
`})
	want := `Echo: hi
there is no tool named "get-env". Find tools with find_tool("<what you need>").
TypeError: api.everything.get_sum: missing required argument 'b'
[3 tool calls, 2 failed]
`
	if isErr || got != want {
		t.Fatalf("run_code:\n%s\nwant:\n%s", got, want)
	}
	got, isErr = call(t, cs, "get-sum", map[string]any{"a": 1, "b": 2})
	if !isErr || !strings.HasPrefix(got, `"get-sum" cannot be called directly here`) {
		t.Fatalf("direct call: %q", got)
	}
	if err := cs.Close(); err != nil {
		t.Fatalf("close: %v (stderr: %s)", err, stderr.String())
	}
	out, err := exec.Command(bin, "audit", "verify", auditFile).CombinedOutput()
	if err != nil || !regexp.MustCompile(`^ok: 10 events \(head sha256:[0-9a-f]{64}\)\n$`).Match(out) {
		t.Fatalf("audit verify: %v %q", err, out)
	}
	// An edited line makes verify exit 1 naming it (line 1 is the first
	// run's start, line 2 its refused call with its arguments).
	data, _ := os.ReadFile(auditFile)
	edited := strings.Replace(string(data), `"message":"hi"`, `"message":"bye"`, 1)
	if err := os.WriteFile(auditFile, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err = exec.Command(bin, "audit", "verify", auditFile).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || string(out) != auditFile+": line 2: edited: the line's content does not match its hash\n" {
		t.Fatalf("verify of an edited log: %v %q", err, out)
	}
}

// startServe starts the real binary's serve --http and returns its URL and
// the lines it wrote to stderr before it.
func startServe(t *testing.T, bin string, args ...string) (string, []string) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--http", "127.0.0.1:0", "--audit", "off", "--no-pins"}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGINT)
		_ = cmd.Wait()
	})
	sc := bufio.NewScanner(stderr)
	var url string
	var lines []string
	for sc.Scan() {
		if m := regexp.MustCompile(`at (http://\S+)$`).FindStringSubmatch(sc.Text()); m != nil {
			url = m[1]
			break
		}
		lines = append(lines, sc.Text())
	}
	if url == "" {
		t.Fatalf("no address on stderr: %q", lines)
	}
	go func() {
		for sc.Scan() {
		}
	}()
	return url, lines
}

// TestServeHTTP drives the real binary over streamable HTTP, with a bearer
// token.
func TestServeHTTP(t *testing.T) {
	bin := buildCodemode(t)
	packFile := writePack(t)
	tokens := writeTokens(t, tokenA)
	url, lines := startServe(t, bin, "-c", packFile, "--token-file", tokens)
	if want := []string{"codemode serve: bearer tokens from " + tokens + ": 1 accepted"}; !reflect.DeepEqual(lines, want) {
		t.Fatalf("stderr: %q", lines)
	}
	// Without the token: 401, naming the metadata.
	resp, _ := post(t, url, "", "", initBody)
	if resp.StatusCode != 401 || resp.Header.Get("WWW-Authenticate") != `Bearer resource_metadata="`+strings.TrimSuffix(url, "/mcp")+`/.well-known/oauth-protected-resource"` {
		t.Fatalf("no token: %d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	cs, err := connectHTTP(t, url, tokenA)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := toolNames(t, cs), []string{"find_tool", "read_api", "run_code"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("tools = %v", got)
	}
	call(t, cs, "read_api", map[string]any{"service": "everything", "lines": ""})
	got, isErr := call(t, cs, "run_code", map[string]any{"code": `print(api.everything.get_sum(a=20, b=22))`})
	if isErr || got != "The sum of 20 and 22 is 42.\n[1 tool call]\n" {
		t.Fatalf("run_code over HTTP: %q", got)
	}
}

// TestServeHTTPInsecureNoAuthWarns: the loopback opt-out serves without a
// token and says so on stderr at start.
func TestServeHTTPInsecureNoAuthWarns(t *testing.T) {
	bin := buildCodemode(t)
	url, lines := startServe(t, bin, "-c", writePack(t), "--insecure-no-auth")
	if want := []string{"codemode serve: WARNING: --insecure-no-auth: anyone who can connect to " + strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp") + " runs programs with this pack's credentials"}; !reflect.DeepEqual(lines, want) {
		t.Fatalf("stderr: %q", lines)
	}
	cs, err := connectHTTP(t, url, "")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := toolNames(t, cs), []string{"find_tool", "read_api", "run_code"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("tools = %v", got)
	}
}
