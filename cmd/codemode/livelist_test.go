package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGenListsLiveServersAtOnce: gen lists a pack's live services at the
// same time. Each of three testmcp barrier servers answers only once all
// three have started, so listing them one at a time (as gen did) fails.
func TestGenListsLiveServersAtOnce(t *testing.T) {
	var started string
	dir := genStubPack(t, func(dir, stub string) string {
		started = filepath.Join(dir, "started")
		if err := os.Mkdir(started, 0o700); err != nil {
			t.Fatal(err)
		}
		yaml := "out: api\nservices:\n"
		for i := range 3 {
			yaml += fmt.Sprintf("  - name: b%d\n    mcp_command: [%q, barrier]\n    env:\n      BARRIER_DIR: %q\n      BARRIER_N: \"3\"\n", i, stub, started)
		}
		return yaml
	})
	for i := range 3 {
		py, err := os.ReadFile(filepath.Join(dir, "api", fmt.Sprintf("b%d.py", i)))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(py), "def ready(") {
			t.Errorf("b%d.py has no ready tool:\n%s", i, py)
		}
	}
}

// genStubPack makes a pack in a new directory whose pack file is what
// yamlFor returns, given the directory and the path of testmcp (this test
// binary, linked there: it runs as testmcp when named so), and runs
// codemode gen on it.
func genStubPack(t testing.TB, yamlFor func(dir, stub string) string) (dir string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	stub := filepath.Join(dir, "testmcp")
	if err := os.Symlink(exe, stub); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "codemode.yaml"), []byte(yamlFor(dir, stub)), 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	gen := &exec.Cmd{Path: exe, Args: []string{"codemode", "gen", "-c", "codemode.yaml"}, Dir: dir, Stdout: &out, Stderr: &out}
	if err := gen.Run(); err != nil {
		t.Fatalf("gen: %v\n%s", err, out.String())
	}
	return dir
}
