package audit_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/codemode-dev/codemode/audit"
	"github.com/codemode-dev/codemode/internal/testpg"
	"github.com/codemode-dev/codemode/runtime"
)

// writerEnv makes the test binary an audit writer (TestPostgresWriter):
// URL, writer name and events to append, separated by spaces.
const writerEnv = "CODEMODE_TEST_AUDIT_WRITER"

// TestPostgresWriter is the body of a writer process; it does nothing in
// a normal run.
func TestPostgresWriter(t *testing.T) {
	spec := os.Getenv(writerEnv)
	if spec == "" {
		return
	}
	f := strings.Fields(spec)
	n, _ := strconv.Atoi(f[2])
	l, err := audit.OpenPostgres(context.Background(), f[0], audit.Options{Key: audit.KeyFromEnv()})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	// Four goroutines per process: appends race inside the process too.
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < n; i += 4 {
				errs <- l.Record(runtime.Event{Time: time.Now().UTC(), Kind: "call", RunID: f[1], Session: f[1], Call: i + 1, Tool: "api.svc.tool", Status: runtime.StatusOK})
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// writers starts one writer process per name, each appending n events,
// all at once, and waits for them.
func writers(t *testing.T, url string, n int, names ...string) {
	t.Helper()
	var cmds []*exec.Cmd
	for _, name := range names {
		cmd := exec.Command(os.Args[0], "-test.run=^TestPostgresWriter$")
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s %s %d", writerEnv, url, name, n))
		cmds = append(cmds, cmd)
	}
	outs := make([][]byte, len(cmds))
	errs := make([]error, len(cmds))
	var wg sync.WaitGroup
	for i, cmd := range cmds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i], errs[i] = cmd.CombinedOutput()
		}()
	}
	wg.Wait()
	for i := range cmds {
		if errs[i] != nil {
			t.Fatalf("writer %s: %v\n%s", names[i], errs[i], outs[i])
		}
	}
}

// TestPostgresTwoReplicasOneChain: two processes appending at once (four
// goroutines each) make one chain the database ordered, which verifies,
// with every event of both.
func TestPostgresTwoReplicasOneChain(t *testing.T) {
	url := testpg.Start(t)
	t.Setenv(audit.KeyEnv, "test-key-0123456789")
	writers(t, url, 60, "replica-a", "replica-b")
	res, err := audit.VerifyPostgres(context.Background(), url, audit.VerifyOptions{Key: audit.KeyFromEnv()})
	if err != nil {
		t.Fatalf("verify: %v (%+v)", err, res.Problems)
	}
	if res.Events != 120 || res.Breaks != 0 || len(res.Unknown) != 0 || !strings.HasPrefix(res.Head, "hmac-sha256:") {
		t.Fatalf("result: %+v", res)
	}
	// Both writers' events are all there, each once.
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var a, b, distinct int
	if err := conn.QueryRow(context.Background(), `SELECT count(*) FILTER (WHERE line LIKE '%"run":"replica-a"%'), count(*) FILTER (WHERE line LIKE '%"run":"replica-b"%'), count(DISTINCT hash) FROM codemode_audit`).Scan(&a, &b, &distinct); err != nil {
		t.Fatal(err)
	}
	if a != 60 || b != 60 || distinct != 120 {
		t.Fatalf("events: %d of replica-a, %d of replica-b, %d distinct", a, b, distinct)
	}
	// Without the key, the signed rows are named as such.
	if _, err := audit.VerifyPostgres(context.Background(), url, audit.VerifyOptions{}); err == nil || err.Error() != "line 1: signed with a key: set CODEMODE_AUDIT_KEY to verify it" {
		t.Fatalf("verify without the key: %v", err)
	}
}

// TestPostgresEditedRowNamed: a row edited in the database, one deleted,
// and rows cut from the end are each named by their seq.
func TestPostgresEditedRowNamed(t *testing.T) {
	url := testpg.Start(t)
	ctx := context.Background()
	l, err := audit.OpenPostgres(ctx, url, audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 8; i++ {
		if err := l.Record(runtime.Event{Time: time.Unix(int64(i), 0).UTC(), Kind: "call", RunID: "r", Session: "s", Call: i, Tool: "api.svc.tool", Status: runtime.StatusOK, Message: fmt.Sprintf("call %d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	if res, err := audit.VerifyPostgres(ctx, url, audit.VerifyOptions{}); err != nil || res.Events != 8 {
		t.Fatalf("sound chain: %v %+v", err, res)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	exec := func(sql string) {
		t.Helper()
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	exec(`UPDATE codemode_audit SET line = replace(line, '"call 3"', '"call 33"') WHERE seq = 3`)
	res, err := audit.VerifyPostgres(ctx, url, audit.VerifyOptions{})
	if err == nil || err.Error() != "line 3: edited: the line's content does not match its hash" || len(res.Problems) != 1 {
		t.Fatalf("edited row: %v %+v", err, res.Problems)
	}
	exec(`DELETE FROM codemode_audit WHERE seq = 6`)
	exec(`DELETE FROM codemode_audit WHERE seq = 8`)
	res, _ = audit.VerifyPostgres(ctx, url, audit.VerifyOptions{})
	want := []audit.LineError{
		{Line: 3, Reason: "edited: the line's content does not match its hash"},
		{Line: 7, Reason: "chain broken: prev does not match the hash of row 5 (a row before it was deleted, inserted or moved)"},
		{Line: 8, Reason: "the chain's head (seq 8) is not its last row (seq 7): rows after it were deleted, or added by hand"},
	}
	if fmt.Sprint(res.Problems) != fmt.Sprint(want) {
		t.Fatalf("problems:\n%v\nwant:\n%v", res.Problems, want)
	}
	// The next writer to open finds the head astray, says so and records a
	// break after the head; the verifier still names every row.
	var warned []string
	l, err = audit.OpenPostgres(ctx, url, audit.Options{Warn: func(msg string) { warned = append(warned, msg) }})
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	if len(warned) != 1 || !strings.HasSuffix(warned[0], ": the chain's head (seq 8) is not its last row (seq 7): rows were deleted or added by hand; the log goes on after the head") {
		t.Fatalf("warnings: %q", warned)
	}
	res, _ = audit.VerifyPostgres(ctx, url, audit.VerifyOptions{})
	want = []audit.LineError{want[0], want[1], {Line: 9, Reason: "chain broken: prev does not match the hash of row 7 (a row before it was deleted, inserted or moved)"}}
	if fmt.Sprint(res.Problems) != fmt.Sprint(want) || res.Breaks != 1 || res.Events != 6 {
		t.Fatalf("after the break: %d events, %d breaks, problems:\n%v\nwant:\n%v", res.Events, res.Breaks, res.Problems, want)
	}
}

// BenchmarkAppend compares one event's append to a file (flock, write,
// fsync) and to PostgreSQL (a transaction locking the head row), with
// goroutines appending at once (-cpu sets how many).
func BenchmarkAppend(b *testing.B) {
	ev := runtime.Event{Time: time.Unix(1, 0).UTC(), Kind: "call", RunID: "r", Session: "s", Call: 1, Tool: "api.svc.tool", Status: runtime.StatusOK}
	b.Run("file", func(b *testing.B) {
		l, err := audit.Open(b.TempDir() + "/audit.jsonl")
		if err != nil {
			b.Fatal(err)
		}
		defer l.Close()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := l.Record(ev); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
	b.Run("postgres", func(b *testing.B) {
		l, err := audit.OpenPostgres(context.Background(), testpg.Start(b), audit.Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer l.Close()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := l.Record(ev); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}
