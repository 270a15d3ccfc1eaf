package pack

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/store"
)

// TestStoreLocation: the store: key is a postgres:// URL or a SQLite path
// relative to the pack, and "$VAR" / "${VAR}" take it from the
// environment (empty when the variable is unset: the default store).
func TestStoreLocation(t *testing.T) {
	t.Setenv("CODEMODE_STORE", "postgres://u@db:5432/cm")
	t.Setenv("CODEMODE_EMPTY", "")
	dir := t.TempDir()
	for key, want := range map[string]string{
		"":                  "",
		"${CODEMODE_STORE}": "postgres://u@db:5432/cm",
		"$CODEMODE_STORE":   "postgres://u@db:5432/cm",
		"${CODEMODE_EMPTY}": "",
		"state/cm.db":       filepath.Join(dir, "state/cm.db"),
		"/var/cm.db":        "/var/cm.db",
	} {
		p := &Pack{Dir: dir, Store: key}
		if got := p.StoreLocation(); got != want {
			t.Errorf("store: %q: got %q, want %q", key, got, want)
		}
	}
}

// TestStoreHeartbeatFixed pins the store's heartbeat timings: a replica's
// 2 s beat and the 15 s of silence after which its jobs are lost were fixed
// constants. Now store: takes them (beside location:, which the plain
// scalar form still names), checked: the silence must last at least three
// beats.
func TestStoreHeartbeatFixed(t *testing.T) {
	const svc = "services:\n  - name: e\n    mcp: tools.json\n"
	p, err := Parse([]byte("store:\n  location: state/cm.db\n  heartbeat: 500ms\n  lost_after: 4s\n" + svc))
	if err != nil {
		t.Fatal(err)
	}
	if o := p.StoreOptions(store.Options{NoReplica: true}); o.Heartbeat != 500*time.Millisecond || o.DeadAfter != 4*time.Second || !o.NoReplica || p.Store != "state/cm.db" {
		t.Fatalf("got %+v, store %q", o, p.Store)
	}
	// The scalar form, and a mapping with the timings only.
	p, err = Parse([]byte("store: state/cm.db\n" + svc))
	if err != nil || p.Store != "state/cm.db" {
		t.Fatalf("scalar: %v, %q", err, p.Store)
	}
	if o := p.StoreOptions(store.Options{}); o.Heartbeat != 0 || o.DeadAfter != 0 {
		t.Fatalf("scalar: the defaults are the store's: %+v", o)
	}
	p, err = Parse([]byte("store:\n  heartbeat: 10s\n" + svc))
	if err != nil || p.Store != "" {
		t.Fatalf("timings only: %v, %q", err, p.Store)
	}
	if o := p.StoreOptions(store.Options{}); o.Heartbeat != 10*time.Second || o.DeadAfter != 0 {
		t.Fatalf("timings only: %+v", o)
	}
	for in, want := range map[string]string{
		"store:\n  heartbeat: 2s\n  lost_after: 5s\n": "store.lost_after: 5s is less than 3 heartbeats of 2s: a replica that misses a beat or two would have its running jobs taken as lost; make it at least 6s",
		"store:\n  lost_after: 4s\n":                  "store.lost_after: 4s is less than 3 heartbeats of 2s: a replica that misses a beat or two would have its running jobs taken as lost; make it at least 6s",
		"store:\n  heartbeat: soon\n":                 `store.heartbeat: "soon" is not a positive duration like "2s"`,
		"store:\n  lost_after: -1s\n":                 `store.lost_after: "-1s" is not a positive duration like "15s"`,
		"store:\n  heartbeat: 1ms\n":                  "store.heartbeat: 1ms is too often; make it at least 100ms",
		"store:\n  location: a.db\n  heartbat: 1s\n":  `bad pack file: line 3: unknown key "heartbat"`,
		"store:\n  - a.db\n":                          "bad pack file: line 2: store: want a SQLite file or postgres:// URL, or a mapping of location, heartbeat and lost_after",
	} {
		_, err := Parse([]byte(in + svc))
		if err == nil || err.Error() != want {
			t.Errorf("%q: got %v\nwant %s", in, err, want)
		}
	}
}
