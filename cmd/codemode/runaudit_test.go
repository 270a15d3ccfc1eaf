package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/internal/testpg"
)

// TestRunAuditURLWroteAFile pins the defect: codemode run --audit
// postgres://… created a directory tree named after the URL and wrote a
// file there. run's audit goes to the database's chain, given as a URL or
// taken from a PostgreSQL store, and codemode audit verify checks it.
func TestRunAuditURLWroteAFile(t *testing.T) {
	url := testpg.Start(t)
	dir, _ := slowPack(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	prog := filepath.Join(dir, "p.py")
	os.WriteFile(prog, []byte("print(api.slow.read(seconds=0, tag='x'))\n"), 0o644)
	run := func(env []string, args ...string) string {
		t.Helper()
		cmd := &exec.Cmd{Path: exe, Dir: dir, Args: append([]string{"codemode"}, args...), Env: append(os.Environ(), env...)}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("codemode %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	if out := run(nil, "run", "--audit", url, prog); !strings.Contains(out, "read x done") {
		t.Fatalf("run --audit URL: %s", out)
	}
	// The store's chain, with no --audit.
	if out := run([]string{"CODEMODE_STORE=" + url}, "run", prog); !strings.Contains(out, "read x done") {
		t.Fatalf("run with a PostgreSQL store: %s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "postgres:")); err == nil {
		t.Fatal("run --audit URL made a directory named after the URL")
	}
	if _, err := os.Stat(filepath.Join(dir, ".codemode", "audit.jsonl")); err == nil {
		t.Fatal("run wrote a file audit beside the pack")
	}
	// Two runs: a start, an intent, an outcome and an end each.
	if out := run(nil, "audit", "verify", url); !regexp.MustCompile(`^ok: 8 events \(head sha256:[0-9a-f]{64}\)\n$`).MatchString(out) {
		t.Fatalf("audit verify: %q", out)
	}
}
