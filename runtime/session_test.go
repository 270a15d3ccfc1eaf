package runtime_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/runtime"
)

func persistentRuntime(t *testing.T, mutate func(*runtime.Config)) (*runtime.Runtime, string) {
	state := t.TempDir()
	rt := newRuntime(t, func(c *runtime.Config) {
		c.Persistent, c.StateDir = true, state
		c.Limits.Output = 2000
		if mutate != nil {
			mutate(c)
		}
	})
	return rt, state
}

func runIn(t *testing.T, rt *runtime.Runtime, session, code string) *runtime.Result {
	t.Helper()
	res, err := rt.Run(context.Background(), session, code)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res
}

// stateFiles lists the saved states in dir.
func stateFiles(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*.monty"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestCorruptStateSilentlyReplaced pins the defect: a state file that
// could not be restored was replaced by a fresh session without a word.
// Now the run says so first, and the file is kept aside.
func TestCorruptStateSilentlyReplaced(t *testing.T) {
	rt, dir := persistentRuntime(t, nil)
	if res := runIn(t, rt, "s", "x = 1\n"); !res.OK() {
		t.Fatal(res.Text())
	}
	files := stateFiles(t, dir)
	if len(files) != 1 {
		t.Fatalf("state files %q, want one", files)
	}
	if err := os.WriteFile(files[0], []byte("not a dump"), 0o600); err != nil {
		t.Fatal(err)
	}
	res := runIn(t, rt, "s", "y = 2\nprint(y)\n")
	if len(res.Notes) == 0 || !strings.HasPrefix(res.Notes[0], "this session's saved state could not be restored (monty: load: RuntimeError: protocol violation: failed to load session: not a monty dump): it was moved to ") ||
		!strings.HasSuffix(res.Notes[0], ", and this program starts in a fresh session; the variables of earlier programs are gone") {
		t.Fatalf("notes %q", res.Notes)
	}
	if !res.OK() || res.Output != "2\n" {
		t.Fatalf("the program after the report: %s", res.Text())
	}
	aside, _ := filepath.Glob(files[0] + ".corrupt-*")
	if len(aside) != 1 {
		t.Fatalf("the corrupt state was not kept aside: %q", aside)
	}
	if b, _ := os.ReadFile(aside[0]); string(b) != "not a dump" {
		t.Fatalf("kept aside: %q", b)
	}
	// The fresh session was saved and goes on.
	if res := runIn(t, rt, "s", "print(y + 1)\n"); len(res.Notes) != 0 || res.Output != "3\n" {
		t.Fatalf("next program: %s", res.Text())
	}
}

// TestPersistentProgramsNotTypeChecked pins the defect: programs in
// persistent mode were never type-checked. They are now checked against
// what earlier programs of the session defined, and a bad one runs nothing.
func TestPersistentProgramsNotTypeChecked(t *testing.T) {
	rt, _ := persistentRuntime(t, nil)
	if res := runIn(t, rt, "s", "x = 1\ndef f(a: int) -> int:\n    return a + 1\n"); !res.OK() {
		t.Fatal(res.Text())
	}
	for _, code := range []string{"print('ran')\nf('a')\n", "print('ran')\nx.upper()\n", "print('ran')\napi.everything.echo(mesage='x')\n"} {
		res := runIn(t, rt, "s", code)
		if !strings.HasPrefix(res.Error, "Type check failed, nothing ran:") || res.Output != "" {
			t.Errorf("%q: %s", code, res.Text())
		}
	}
	if res := runIn(t, rt, "s", "print(f(x))\n"); res.Output != "2\n" {
		t.Fatalf("a good program: %s", res.Text())
	}
}

// TestSessionLockKeptForever pins the defect: the runtime kept one mutex
// per persistent session for ever. A lock lives only while a program holds
// or waits for it.
func TestSessionLockKeptForever(t *testing.T) {
	rt, _ := persistentRuntime(t, nil)
	for _, s := range []string{"a", "b", "c"} {
		runIn(t, rt, s, "x = 1\n")
	}
	if n := rt.SessionLocks(); n != 0 {
		t.Fatalf("%d session locks kept after the programs ended", n)
	}
}

// TestSessionStateFilesCollide pins the defect: session ids were turned
// into file names by replacing unsafe characters, so "a b" and "a_b"
// shared one state.
func TestSessionStateFilesCollide(t *testing.T) {
	rt, _ := persistentRuntime(t, nil)
	runIn(t, rt, "a b", "x = 'mine'\n")
	res := runIn(t, rt, "a_b", "print(x)\n")
	if !strings.Contains(res.Error, "Name `x` used when not defined") {
		t.Fatalf("session a_b saw a b's state: %s", res.Text())
	}
}

// TestExpiredStateDiscarded: a state older than the session TTL is
// discarded, and the run says so.
func TestExpiredStateDiscarded(t *testing.T) {
	rt, dir := persistentRuntime(t, func(c *runtime.Config) { c.SessionTTL = time.Hour })
	runIn(t, rt, "s", "x = 1\n")
	old := time.Now().Add(-2 * time.Hour)
	for _, f := range stateFiles(t, dir) {
		if err := os.Chtimes(f, old, old); err != nil {
			t.Fatal(err)
		}
	}
	res := runIn(t, rt, "s", "print(x)\n")
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "longer than the session TTL (1h0m0s), and was discarded: this program starts in a fresh session") ||
		!strings.Contains(res.Error, "Name `x` used when not defined") {
		t.Fatalf("expired state: %s", res.Text())
	}
}

// TestWorkerDeathSaysNothingSurvived pins the defect: when a persistent
// session's program was lost (its worker died, or a limit stopped it), the
// reply did not say what of the session was left.
func TestWorkerDeathSaysNothingSurvived(t *testing.T) {
	rt, _ := persistentRuntime(t, nil)
	if res := runIn(t, rt, "s", "import json as j\nx = 1\nrows, total = [], 0\ndef f():\n    return 2\nfor i in range(2):\n    pass\n"); !res.OK() {
		t.Fatal(res.Text())
	}
	res := runIn(t, rt, "s", "y = 5\nbig = 'a' * (400 << 20)\n")
	if res.Limit != "memory" {
		t.Fatalf("want the memory limit: %s", res.Text())
	}
	want := "The session's state as saved after its previous program survives (names defined: f, i, j, rows, total, x); what this program changed in it is lost."
	if len(res.Notes) != 1 || res.Notes[0] != want {
		t.Fatalf("notes %q, want %q", res.Notes, want)
	}
	if res := runIn(t, rt, "s", "print(x, f())\n"); res.Output != "1 2\n" {
		t.Fatalf("after the limit: %s", res.Text())
	}
}
