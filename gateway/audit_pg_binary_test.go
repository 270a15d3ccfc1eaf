package gateway_test

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/codemode-dev/codemode/internal/testpg"
)

// TestTwoReplicasOneAuditChain: two gateways on one PostgreSQL audit
// database, running programs at once, write one chain that `codemode audit
// verify` accepts; an edited row then fails it, named by its seq.
func TestTwoReplicasOneAuditChain(t *testing.T) {
	bin := buildCodemode(t)
	url := testpg.Start(t)
	packFile := opsPack(t, "  read_gate: off\n")
	tokens := writeTokens(t, tokenA)
	var wg sync.WaitGroup
	errs := make(chan string, 6)
	for _, name := range []string{"a", "b"} {
		s := startServeProc(t, bin, "-c", packFile, "--audit", url, "--token-file", tokens)
		for i := range 3 {
			cs, err := connectHTTP(t, s.url, tokenA)
			if err != nil {
				t.Fatal(err)
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := cs.CallTool(context.Background(), mcpCall("run_code", map[string]any{"code": fmt.Sprintf("print(api.everything.echo(message='%s%d'))\nprint(api.everything.get_sum(a=%d, b=1))\n", name, i, i)}))
				if err != nil {
					errs <- err.Error()
					return
				}
				if got, want := textOf(res), fmt.Sprintf("Echo: %s%d\nThe sum of %d and 1 is %d.\n[2 tool calls]\n", name, i, i, i+1); got != want {
					errs <- fmt.Sprintf("replica %s: %q, want %q", name, got, want)
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	// Six programs of six events each: run, two intents, two calls, run_end.
	out, err := exec.Command(bin, "audit", "verify", url).CombinedOutput()
	if err != nil || !regexp.MustCompile(`^ok: 36 events \(head sha256:[0-9a-f]{64}\)\n$`).Match(out) {
		t.Fatalf("audit verify: %v %q", err, out)
	}
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), `UPDATE codemode_audit SET line = replace(line, '"session":"', '"session":"x') WHERE seq = 3`); err != nil {
		t.Fatal(err)
	}
	out, err = exec.Command(bin, "audit", "verify", "--store", url).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || string(out) != "postgres://postgres@"+regexp.MustCompile(`@(.*)$`).FindStringSubmatch(url)[1]+": row 3: edited: the line's content does not match its hash\n" {
		t.Fatalf("verify of an edited row: %v %q", err, out)
	}
}

// TestAuditDatabaseGoneFailsClosed: when the audit database goes away, a
// gateway runs nothing it cannot audit: run_code says the audit log could
// not be written and nothing ran, and /readyz says "not ready: audit".
func TestAuditDatabaseGoneFailsClosed(t *testing.T) {
	bin := buildCodemode(t)
	url := testpg.Start(t)
	s := startServeProc(t, bin, "-c", opsPack(t, "  read_gate: off\n"), "--audit", url, "--token-file", writeTokens(t, tokenA))
	cs, err := connectHTTP(t, s.url, tokenA)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := call(t, cs, "run_code", map[string]any{"code": "print(api.everything.echo(message='up'))"}); got != "Echo: up\n[1 tool call]\n" {
		t.Fatalf("with the database: %q", got)
	}
	// Stop the postmaster (immediate shutdown), as a crash would.
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	if err := conn.QueryRow(context.Background(), `SELECT split_part(pg_read_file('postmaster.pid'), E'\n', 1)::int`).Scan(&pid); err != nil {
		t.Fatal(err)
	}
	conn.Close(context.Background())
	if err := syscall.Kill(pid, syscall.SIGQUIT); err != nil {
		t.Fatal(err)
	}
	for syscall.Kill(pid, 0) == nil {
		// until the postmaster is gone
	}
	got, isErr := call(t, cs, "run_code", map[string]any{"code": "print(api.everything.echo(message='down'))"})
	if !isErr || !strings.HasPrefix(got, "run_code: the audit log could not be written, so nothing ran: audit: writing to postgres://postgres@") {
		t.Fatalf("without the database: %v %q", isErr, got)
	}
	if code, body := get(t, s.base+"/readyz", ""); code != 503 || body != "not ready: audit\n" {
		t.Fatalf("/readyz without the database: %d %q", code, body)
	}
}
