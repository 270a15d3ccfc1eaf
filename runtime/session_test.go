package runtime_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/runtime"
	_ "modernc.org/sqlite"
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

// stateDB opens the SQLite store the runtime keeps in dir, to reach behind
// its back.
func stateDB(t *testing.T, dir string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(dir, runtime.StoreFile))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestCorruptStateSilentlyReplaced pins the defect: a state file that
// could not be restored was replaced by a fresh session without a word.
// Now the run says so first, and the state is kept aside.
func TestCorruptStateSilentlyReplaced(t *testing.T) {
	rt, dir := persistentRuntime(t, nil)
	if res := runIn(t, rt, "s", "x = 1\n"); !res.OK() {
		t.Fatal(res.Text())
	}
	db := stateDB(t, dir)
	if r, err := db.Exec("UPDATE codemode_session SET state = ? WHERE id = 's' AND state IS NOT NULL", []byte("not a dump")); err != nil {
		t.Fatal(err)
	} else if n, _ := r.RowsAffected(); n != 1 {
		t.Fatalf("%d saved states, want one", n)
	}
	res := runIn(t, rt, "s", "y = 2\nprint(y)\n")
	if len(res.Notes) == 0 || res.Notes[0] != "this session's saved state could not be restored (monty: load: RuntimeError: protocol violation: failed to load session: not a monty dump): it was kept aside in the store (SQLite "+filepath.Join(dir, runtime.StoreFile)+", codemode_session.corrupt), and this program starts in a fresh session; the variables of earlier programs are gone" {
		t.Fatalf("notes %q", res.Notes)
	}
	if !res.OK() || res.Output != "2\n" {
		t.Fatalf("the program after the report: %s", res.Text())
	}
	var aside []byte
	if err := db.QueryRow("SELECT corrupt FROM codemode_session WHERE id = 's'").Scan(&aside); err != nil || string(aside) != "not a dump" {
		t.Fatalf("kept aside: %q %v", aside, err)
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
	old := time.Now().Add(-2 * time.Hour).UnixMicro()
	if _, err := stateDB(t, dir).Exec("UPDATE codemode_session SET state_at = ? WHERE id = 's'", old); err != nil {
		t.Fatal(err)
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

// TestSessionRacedAcrossReplicas pins the defect: two gateways sharing a
// store could run programs of one persistent session at once, each from
// the same saved state, and the later save lost the other's changes. A
// program of a session running on one replica now refuses the session's
// programs on the other, clearly, until it ends; then the other sees its
// state.
func TestSessionRacedAcrossReplicas(t *testing.T) {
	state := t.TempDir()
	persistentHeld := func(c *runtime.Config) { c.Persistent = true }
	a, ha := heldRuntimeWith(t, state, persistentHeld)
	b, _ := heldRuntimeWith(t, state, persistentHeld)
	done := make(chan *runtime.Result)
	go func() {
		res, _ := a.Run(context.Background(), "s", "x = api.everything.echo(message='from a')\n")
		done <- res
	}()
	select {
	case <-ha.started:
	case res := <-done:
		t.Fatalf("A: %s", res.Text())
	}
	res := runIn(t, b, "s", "y = 1\n")
	if res.Error != "run_code refused: this session is running a program on another gateway replica now, and its state is that program's until it ends; nothing ran. Run this program again when that one has ended." {
		t.Fatalf("B while A runs: %s", res.Text())
	}
	close(ha.release)
	if res := <-done; !res.OK() {
		t.Fatalf("A: %s", res.Text())
	}
	if res := runIn(t, b, "s", "print(x)\n"); !res.OK() || res.Output != "Echo: from a\n" {
		t.Fatalf("B after A: %s", res.Text())
	}
	if res := runIn(t, b, "other", "print(1)\n"); !res.OK() {
		t.Fatalf("another session: %s", res.Text())
	}
}
