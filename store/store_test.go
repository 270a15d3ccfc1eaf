package store_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/store"
	_ "modernc.org/sqlite"
)

func openSQLite(t *testing.T) (store.Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state.db")
	st, err := store.Open(context.Background(), path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, path
}

// exercise runs what every store must do.
func exercise(t *testing.T, st store.Store) {
	ctx := context.Background()
	started := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	err := st.Update(ctx, "s1", func(sj *store.Session) error {
		sj.Jobs["build"] = &store.Job{Kind: "call", Tool: "api.ci.build", State: store.JobRunning, Started: started, Owner: st.Replica(), Args: map[string]any{"branch": "main"}}
		sj.Record = []byte(`{"wait":{"id":"w-1"}}`)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Update(ctx, "s1", func(*store.Session) error { return errors.New("no") }); err == nil || err.Error() != "no" {
		t.Fatalf("a failed update: %v", err)
	}
	sj, err := st.Session(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	j := sj.Jobs["build"]
	if j == nil || j.Name != "build" || j.Args["branch"] != "main" || !j.Started.Equal(started) || j.OwnerGone || string(sj.Record) != `{"wait":{"id":"w-1"}}` {
		t.Fatalf("session s1: %+v %+v", sj, j)
	}
	if other, err := st.Session(ctx, "s2"); err != nil || len(other.Jobs) != 0 || other.Record != nil {
		t.Fatalf("another session: %+v %v", other, err)
	}
	// A job whose owner never registered is gone.
	_ = st.Update(ctx, "s1", func(sj *store.Session) error {
		sj.Jobs["build"].Owner = "nobody"
		delete(sj.Jobs, "missing")
		return nil
	})
	if sj, _ := st.Session(ctx, "s1"); !sj.Jobs["build"].OwnerGone {
		t.Fatal("a job of an unknown replica is not gone")
	}

	if s, err := st.State(ctx, "s1"); s != nil || err != nil {
		t.Fatalf("no state yet: %v %v", s, err)
	}
	if err := st.SaveState(ctx, "s1", &store.State{Dump: []byte{0, 1, 2}, Names: []string{"x"}}); err != nil {
		t.Fatal(err)
	}
	s, err := st.State(ctx, "s1")
	if err != nil || s == nil || string(s.Dump) != "\x00\x01\x02" || !reflect.DeepEqual(s.Names, []string{"x"}) || time.Since(s.Saved) > time.Minute {
		t.Fatalf("state: %+v %v", s, err)
	}
	if err := st.DeleteState(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if s, err := st.State(ctx, "s1"); s != nil || err != nil {
		t.Fatalf("deleted state: %v %v", s, err)
	}
	for _, r := range []store.Read{{"api/a.py", 1, 10}, {"api/a.py", 1, 10}, {"api/b.py", 3, 4}} {
		if err := st.AddRead(ctx, "s1", r); err != nil {
			t.Fatal(err)
		}
	}
	if rs, err := st.Reads(ctx, "s1"); err != nil || !reflect.DeepEqual(rs, []store.Read{{"api/a.py", 1, 10}, {"api/b.py", 3, 4}}) {
		t.Fatalf("reads: %v %v", rs, err)
	}
	if err := st.ForgetReads(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if rs, _ := st.Reads(ctx, "s1"); len(rs) != 0 {
		t.Fatalf("forgotten reads: %v", rs)
	}

	// River runs a queued job once.
	var mu sync.Mutex
	ran := map[string]int{}
	done := make(chan struct{}, 8)
	if err := st.StartQueue(ctx, func(ctx context.Context, ref store.JobRef) error {
		mu.Lock()
		ran[ref.Session+"/"+ref.Name]++
		mu.Unlock()
		done <- struct{}{}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Enqueue(ctx, store.JobRef{Session: "s1", Name: "build", Token: "t1"}, store.EnqueueOptions{MaxAttempts: 1, Timeout: time.Minute}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the queued job did not run")
	}
	mu.Lock()
	defer mu.Unlock()
	if !reflect.DeepEqual(ran, map[string]int{"s1/build": 1}) {
		t.Fatalf("ran %v", ran)
	}
}

func TestSQLiteStore(t *testing.T) {
	st, _ := openSQLite(t)
	exercise(t, st)
}

// TestNewerSchemaRefused: a store migrated by a newer codemode is refused
// with one line, and nothing is changed.
func TestNewerSchemaRefused(t *testing.T) {
	st, path := openSQLite(t)
	st.Close()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("INSERT INTO codemode_schema (version, applied_at) VALUES (99, 0)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = store.Open(context.Background(), path, store.Options{})
	if !errors.Is(err, store.ErrNewerSchema) || strings.Contains(err.Error(), "\n") ||
		!strings.HasSuffix(err.Error(), "the store's schema is newer than this codemode knows: it is at version 99, this codemode knows up to 2; upgrade codemode") {
		t.Fatalf("got %v", err)
	}
}

// TestStoreLocationsRefused: a location that is neither a file nor a
// PostgreSQL URL is refused with one line, and a URL's password is not
// repeated.
func TestStoreLocationsRefused(t *testing.T) {
	for loc, want := range map[string]string{
		"":                      "store: no location (a SQLite file's path or a postgres:// URL)",
		"mysql://u:secret@h/db": `store: "mysql://u:xxxxx@h/db": want a SQLite file's path or a postgres:// URL`,
		"postgres://u:secret@127.0.0.1:1/db?connect_timeout=2": "store: PostgreSQL postgres://u:xxxxx@127.0.0.1:1/db?connect_timeout=2 is unreachable: ",
	} {
		_, err := store.Open(context.Background(), loc, store.Options{})
		if err == nil || !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "secret") {
			t.Errorf("%q: %v", loc, err)
		}
	}
}

// TestStoreTimingsUnchecked: Open refuses a silence shorter than three
// heartbeats (the jobs of a replica that missed one beat would be lost),
// and a silence left to its default grows with a slow heartbeat.
func TestStoreTimingsUnchecked(t *testing.T) {
	_, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "s.db"), store.Options{Heartbeat: 2 * time.Second, DeadAfter: 5 * time.Second})
	if want := "store: a replica silent for 5s is less than 3 heartbeats of 2s: a replica that misses a beat or two would have its running jobs taken as lost; make it at least 6s"; err == nil || err.Error() != want {
		t.Fatalf("got %v\nwant %s", err, want)
	}
	if beat, dead := store.Timings(10*time.Second, 0); beat != 10*time.Second || dead != 30*time.Second {
		t.Fatalf("defaults for a 10s heartbeat: %s, %s", beat, dead)
	}
	if beat, dead := store.Timings(0, 0); beat != 2*time.Second || dead != 15*time.Second {
		t.Fatalf("defaults: %s, %s", beat, dead)
	}
}
