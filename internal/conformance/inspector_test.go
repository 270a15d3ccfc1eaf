package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// inspector runs the pinned MCP Inspector's CLI (on the pinned Node 22)
// with args and decodes the JSON it prints.
func inspector(t *testing.T, tl tools, dir string, args ...string) map[string]any {
	t.Helper()
	launcher := filepath.Join(filepath.Dir(filepath.Dir(tl.suite)), "..", "inspector", "clients", "launcher", "build", "index.js")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, tl.node, append([]string{launcher, "--cli"}, args...)...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("inspector %s: %v\n%s\n%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	var out map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("inspector %s: %v\n%s", strings.Join(args, " "), err, stdout.String())
	}
	return out
}

func toolNamesOf(list map[string]any) string {
	var names []string
	tools, _ := list["tools"].([]any)
	for _, x := range tools {
		names = append(names, x.(map[string]any)["name"].(string))
	}
	return strings.Join(names, " ")
}

// textOf is a result's text blocks, each quoted, joined by " | ".
func textOf(res map[string]any) string {
	var blocks []string
	content, _ := res["content"].([]any)
	for _, c := range content {
		if m := c.(map[string]any); m["type"] == "text" {
			blocks = append(blocks, strconv.Quote(m["text"].(string)))
		}
	}
	return strings.Join(blocks, " | ")
}

// TestInspectorStdio drives `codemode serve` over stdio with the MCP
// Inspector's CLI, a real third-party client: tools/list, then a run_code
// call. Each Inspector call is one-shot (it starts the gateway, calls,
// exits), so reads do not carry from one call to the next: the pack turns
// the read-gate off, as a pack used that way would.
func TestInspectorStdio(t *testing.T) {
	tl := needTools(t)
	dir := t.TempDir()
	gen(t, tl, dir, "out: api\nservices:\n  - name: everything\n    mcp_command: "+tl.everything+" stdio\nruntime:\n  read_gate: off\n")
	server := []string{"-e", "CODEMODE_MONTY=" + tl.monty, "--", codemodeBin, "serve", "-c", filepath.Join(dir, "codemode.yaml"), "--audit", "off"}
	if got := toolNamesOf(inspector(t, tl, dir, append([]string{"--method", "tools/list"}, server...)...)); got != "find_tool read_api run_code" {
		t.Errorf("tools/list: %s", got)
	}
	res := inspector(t, tl, dir, append([]string{"--method", "tools/call", "--tool-name", "run_code", "--tool-arg", `code=print(api.everything.echo(message="hi"))`}, server...)...)
	if got, want := textOf(res), `"Echo: hi\n" | "[1 tool call]\n"`; got != want || res["isError"] == true {
		t.Errorf("run_code: %q (isError %v)\nwant %q", got, res["isError"], want)
	}
}

// TestInspectorHTTP drives `codemode serve --http` with the Inspector's
// CLI: the read-gate stays on, and one-shot calls share their reads by
// naming the same agent session in _meta (codemode/session).
func TestInspectorHTTP(t *testing.T) {
	tl := needTools(t)
	dir := t.TempDir()
	gen(t, tl, dir, "out: api\nservices:\n  - name: everything\n    mcp_command: "+tl.everything+" stdio\n")
	url := serve(t, tl, dir, nil)
	if got := toolNamesOf(inspector(t, tl, dir, url, "--method", "tools/list")); got != "find_tool read_api run_code" {
		t.Errorf("tools/list: %s", got)
	}
	session := []string{"--tool-metadata", "codemode/session=inspector-1"}
	found := textOf(inspector(t, tl, dir, append([]string{url, "--method", "tools/call", "--tool-name", "find_tool", "--tool-arg", "query=everything.echo"}, session...)...))
	if !strings.HasPrefix(found, `"api.everything.echo — api/everything.py lines `) {
		t.Errorf("find_tool: %q", found)
	}
	res := inspector(t, tl, dir, append([]string{url, "--method", "tools/call", "--tool-name", "run_code", "--tool-arg", `code=print(api.everything.echo(message="hi"))`}, session...)...)
	if got, want := textOf(res), `"Echo: hi\n" | "[1 tool call]\n"`; got != want || res["isError"] == true {
		t.Errorf("run_code: %q (isError %v)\nwant %q", got, res["isError"], want)
	}
}
