package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/internal/testpg"
	"github.com/codemode-dev/codemode/store"
)

// benchStores opens a SQLite and a PostgreSQL store.
func benchStores(b *testing.B) map[string]store.Store {
	ctx := context.Background()
	lite, err := store.Open(ctx, filepath.Join(b.TempDir(), "state.db"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { lite.Close() })
	pg, err := store.Open(ctx, testpg.Start(b), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { pg.Close() })
	return map[string]store.Store{"sqlite": lite, "postgres": pg}
}

// BenchmarkStore measures, on each store, one session's Update (a job
// written, as jobs.submit does), the read every run_code makes of a session
// with no jobs or wait, and one queued job's round trip through River:
// Enqueue until its worker runs.
func BenchmarkStore(b *testing.B) {
	ctx := context.Background()
	for _, name := range []string{"sqlite", "postgres"} {
		st := benchStores(b)[name]
		ran := make(chan struct{}, 1)
		if err := st.StartQueue(ctx, func(context.Context, store.JobRef) error {
			ran <- struct{}{}
			return nil
		}); err != nil {
			b.Fatal(err)
		}
		b.Run(name+"/update", func(b *testing.B) {
			for i := range b.N {
				err := st.Update(ctx, fmt.Sprintf("s%d", i%64), func(sj *store.Session) error {
					sj.Jobs[fmt.Sprintf("j%d", i)] = &store.Job{Kind: "call", Tool: "api.x.y", State: store.JobDone, Started: time.Now(), Ended: time.Now()}
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
			}
		})
		// What every run_code of a session without jobs or waits costs.
		b.Run(name+"/quiet-read", func(b *testing.B) {
			for i := range b.N {
				if _, err := st.Session(ctx, fmt.Sprintf("quiet%d", i%64)); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/queue", func(b *testing.B) {
			for i := range b.N {
				if _, err := st.Enqueue(ctx, store.JobRef{Session: "q", Name: fmt.Sprint(i), Token: "t"}, store.EnqueueOptions{MaxAttempts: 1, Timeout: time.Minute}); err != nil {
					b.Fatal(err)
				}
				<-ran
			}
		})
	}
}

// BenchmarkShapeStore measures, on each store, writing one change of a
// tool's shape cache entry through (MergeShape, as a gateway does when a
// result has a shape it had not seen) and reading the whole cache of 50
// tools (as a gateway does at start).
func BenchmarkShapeStore(b *testing.B) {
	ctx := context.Background()
	for _, name := range []string{"sqlite", "postgres"} {
		ss := benchStores(b)[name].(store.ShapeStore)
		for i := range 50 {
			if _, err := ss.MergeShape(ctx, store.ShapeKey{Service: "svc", Tool: fmt.Sprint("t", i)}, func(json.RawMessage) (json.RawMessage, error) {
				return json.RawMessage(`{"shape": "{a: int}", "schema": {"type": "object", "properties": {"a": {"type": "integer"}}}}`), nil
			}); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(name+"/merge", func(b *testing.B) {
			for range b.N {
				if _, err := ss.MergeShape(ctx, store.ShapeKey{Service: "svc", Tool: "t0"}, func(old json.RawMessage) (json.RawMessage, error) {
					return old, nil
				}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/load", func(b *testing.B) {
			for range b.N {
				if got, err := ss.Shapes(ctx); err != nil || len(got) != 50 {
					b.Fatal(len(got), err)
				}
			}
		})
	}
}
