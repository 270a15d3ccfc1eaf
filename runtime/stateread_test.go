package runtime_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/codemode-dev/codemode/runtime"
	"github.com/codemode-dev/codemode/store"
)

// flakyStateStore is a real store whose State reads fail while down is set.
type flakyStateStore struct {
	store.Store
	down atomic.Bool
}

func (f *flakyStateStore) State(ctx context.Context, session string) (*store.State, error) {
	if f.down.Load() {
		return nil, errors.New("connection reset by peer")
	}
	return f.Store.State(ctx, session)
}

// TestStoreReadFailureQuarantinedState pins the defect: a store that could
// not be read for a moment made a persistent session's sound state count
// as corrupt: it was moved aside and the program ran in a fresh session.
// Now the program is refused and the state is kept.
func TestStoreReadFailureQuarantinedState(t *testing.T) {
	dir := t.TempDir()
	st, err := store.Open(context.Background(), filepath.Join(dir, "state.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	fs := &flakyStateStore{Store: st}
	rt := newRuntime(t, func(c *runtime.Config) {
		c.Persistent, c.StateDir, c.Store = true, dir, fs
	})
	if res := runIn(t, rt, "s", "x = 41\n"); res.Error != "" {
		t.Fatalf("first program: %s", res.Text())
	}
	fs.down.Store(true)
	res := runIn(t, rt, "s", "print(x + 1)\n")
	if res.Output != "" || !strings.HasPrefix(res.Error, "run_code refused: the session's saved state could not be read from the store, so nothing ran (the state is kept as it was): ") {
		t.Fatalf("while the store is down: %s", res.Text())
	}
	fs.down.Store(false)
	if res := runIn(t, rt, "s", "print(x + 1)\n"); res.Output != "42\n" {
		t.Fatalf("after the store is back: %s", res.Text())
	}
}
