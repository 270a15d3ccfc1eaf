package store_test

import (
	"context"
	"testing"

	"github.com/codemode-dev/codemode/internal/testpg"
	"github.com/codemode-dev/codemode/store"
)

func TestPostgresStore(t *testing.T) {
	url := testpg.Start(t)
	st, err := store.Open(context.Background(), url, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	exercise(t, st)
	// A second replica on the same database migrates nothing and sees the
	// first one's sessions.
	st2, err := store.Open(context.Background(), url, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	if sj, err := st2.Session(context.Background(), "s1"); err != nil || sj.Jobs["build"] == nil {
		t.Fatalf("the second replica: %+v %v", sj, err)
	}
}
