package runtime_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/codemode-dev/codemode/internal/testpg"
	"github.com/codemode-dev/codemode/runtime"
	"github.com/codemode-dev/codemode/store"
)

// TestPostgresGoneMidRun: while the runtime's PostgreSQL cannot be
// reached, programs are refused with one line and nothing runs (a wait
// the session may hold cannot be honoured blind); a job that ends during
// the outage keeps its outcome and records it once the database is back,
// and the session goes on.
func TestPostgresGoneMidRun(t *testing.T) {
	ctx := context.Background()
	url := testpg.Start(t)
	st, err := store.Open(ctx, url, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rt, hu := heldRuntimeWith(t, "", func(c *runtime.Config) { c.Store = st })
	if res := runIn(t, rt, "s", submitAndWait); !res.Wait {
		t.Fatalf("submit and wait: %s", res.Text())
	}
	waitClaimed(t, rt, "s", "e")
	admin, err := pgx.Connect(ctx, strings.Replace(url, "/postgres?", "/template1?", 1))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	for _, q := range []string{
		"ALTER DATABASE postgres ALLOW_CONNECTIONS false",
		"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'postgres'",
	} {
		if _, err := admin.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	res := runIn(t, rt, "s", "print(1)\n")
	if !strings.HasPrefix(res.Error, "run_code refused: the session's record could not be read, so nothing ran: store (PostgreSQL postgres://postgres@127.0.0.1:") || strings.Contains(res.Error, "\n") || res.Output != "" {
		t.Fatalf("a program while the database is gone: %s", res.Text())
	}
	close(hu.release) // the job ends while the database is gone
	if _, err := admin.Exec(ctx, "ALTER DATABASE postgres ALLOW_CONNECTIONS true"); err != nil {
		t.Fatal(err)
	}
	res = untilNotWaiting(t, rt, "s", "j = jobs.get('e')\nprint(j['state'], j['result'])\n")
	if !res.OK() || res.Output != "done Echo: hi\n" {
		t.Fatalf("after the outage: %s", res.Text())
	}
}
