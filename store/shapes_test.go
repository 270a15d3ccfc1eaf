package store_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/codemode-dev/codemode/internal/testpg"
	"github.com/codemode-dev/codemode/store"
)

// exerciseShapes has two replicas on one database merge entries of one
// tool at once (each entry a list of the replicas' observations): every
// observation is kept.
func exerciseShapes(t *testing.T, a, b store.Store) {
	t.Helper()
	ctx := context.Background()
	k := store.ShapeKey{Service: "crm", Tool: "get_contact"}
	add := func(st store.Store, v string) {
		_, err := st.(store.ShapeStore).MergeShape(ctx, k, func(old json.RawMessage) (json.RawMessage, error) {
			var seen []string
			if old != nil {
				if err := json.Unmarshal(old, &seen); err != nil {
					return nil, err
				}
			}
			return json.Marshal(append(seen, v))
		})
		if err != nil {
			t.Error(err)
		}
	}
	var wg sync.WaitGroup
	var want []string
	for i := range 8 {
		for j, st := range []store.Store{a, b} {
			v := fmt.Sprintf("r%d-%d", j, i)
			want = append(want, v)
			wg.Add(1)
			go func() { defer wg.Done(); add(st, v) }()
		}
	}
	wg.Wait()
	got, err := b.(store.ShapeStore).Shapes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	if err := json.Unmarshal(got[k], &seen); err != nil {
		t.Fatalf("%s: %v", got[k], err)
	}
	slices.Sort(seen)
	slices.Sort(want)
	if !slices.Equal(seen, want) || len(got) != 1 {
		t.Fatalf("the cache: %v, want %v", got, want)
	}
	// An error from f changes nothing.
	if _, err := a.(store.ShapeStore).MergeShape(ctx, k, func(json.RawMessage) (json.RawMessage, error) {
		return nil, fmt.Errorf("no")
	}); err == nil || err.Error() != "no" {
		t.Fatalf("a failed merge: %v", err)
	}
	if again, _ := a.(store.ShapeStore).Shapes(ctx); string(again[k]) != string(got[k]) {
		t.Fatalf("after a failed merge: %s", again[k])
	}
}

func TestShapesMergedAcrossReplicasSQLite(t *testing.T) {
	a, path := openSQLite(t)
	b, err := store.Open(context.Background(), path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	exerciseShapes(t, a, b)
}

func TestShapesMergedAcrossReplicasPostgres(t *testing.T) {
	url := testpg.Start(t)
	var sts []store.Store
	for range 2 {
		st, err := store.Open(context.Background(), url, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		sts = append(sts, st)
	}
	exerciseShapes(t, sts[0], sts[1])
}

// TestVersion1StoreMigratesShapes: a store made by a codemode that knew only
// version 1 gets the shape cache at the next Open.
func TestVersion1StoreMigratesShapes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	st, err := store.Open(context.Background(), path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"DROP TABLE codemode_shape", "DELETE FROM codemode_schema WHERE version = 2"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	st, err = store.Open(context.Background(), path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if got, err := st.(store.ShapeStore).Shapes(context.Background()); err != nil || len(got) != 0 {
		t.Fatalf("%v %v", got, err)
	}
}
