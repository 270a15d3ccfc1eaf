package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/gateway"
	"github.com/codemode-dev/codemode/internal/testpg"
	"github.com/codemode-dev/codemode/manifest"
	"github.com/codemode-dev/codemode/runtime"
	"github.com/codemode-dev/codemode/runtime/upstream"
	"github.com/codemode-dev/codemode/store"
)

const notesTools = `{"tools": [
  {"name": "list-notes", "description": "Lists notes.", "inputSchema": {"type": "object"}},
  {"name": "ping", "description": "Pings.", "inputSchema": {"type": "object"}}
]}`

// genFromStoreShapes writes a pack whose store: is loc (as written in the
// pack), records a result of notes.list-notes in the store at open, and
// runs gen and check on the pack: the stub's return is typed from the
// store's cache.
func genFromStoreShapes(t *testing.T, loc, open string) {
	t.Helper()
	dir := t.TempDir()
	for name, body := range map[string]string{
		"codemode.yaml": "out: api\nstore: " + loc + "\nservices:\n  - name: notes\n    mcp: tools.json\n",
		"tools.json":    notesTools,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if !strings.Contains(open, "://") {
		open = filepath.Join(dir, open)
	}
	cli := func(args ...string) (int, string) {
		var out bytes.Buffer
		code := run(args, strings.NewReader(""), &out, &out)
		return code, out.String()
	}
	pack := filepath.Join(dir, "codemode.yaml")
	// No store yet (nor a SQLite file): nothing observed, and reading
	// makes no file.
	if code, out := cli("gen", "-c", pack); code != 0 {
		t.Fatalf("gen: %d %s", code, out)
	}
	stub := func() string {
		b, err := os.ReadFile(filepath.Join(dir, "api", "notes.py"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if !strings.Contains(stub(), "def list_notes() -> Any:\n") {
		t.Fatalf("typed with no observed result:\n%s", stub())
	}
	if !strings.Contains(open, "://") {
		if _, err := os.Stat(open); !os.IsNotExist(err) {
			t.Fatalf("gen made the store: %v", err)
		}
	}
	st, err := store.Open(context.Background(), open, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := gateway.OpenStoreShapes(context.Background(), st.(store.ShapeStore))
	if err != nil {
		t.Fatal(err)
	}
	s.After(context.Background(), &runtime.CallInfo{Service: "notes", Tool: &manifest.Tool{Wire: "list-notes"}},
		&upstream.Result{Value: map[string]any{"notes": []any{map[string]any{"id": 1.0, "title": "a"}}}})
	st.Close()
	if code, out := cli("check", "-c", pack); code != 1 || !strings.Contains(out, "run codemode gen -c") {
		t.Fatalf("check before gen: %d %s", code, out)
	}
	if code, out := cli("gen", "-c", pack); code != 0 {
		t.Fatalf("gen: %d %s", code, out)
	}
	if !strings.Contains(stub(), "def list_notes() -> ListNotesResult:  # observed\n") {
		t.Fatalf("not typed from the store:\n%s", stub())
	}
	if code, out := cli("check", "-c", pack); code != 0 || out != filepath.Join(dir, "api")+" is up to date\n" {
		t.Fatalf("check: %d %s", code, out)
	}
	// --shapes names a file instead (here an empty cache); both are
	// refused.
	if err := os.WriteFile(filepath.Join(dir, "none.json"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out := cli("gen", "-c", pack, "--shapes", filepath.Join(dir, "none.json")); code != 0 || !strings.Contains(stub(), "def list_notes() -> Any:\n") {
		t.Fatalf("gen --shapes: %d %s\n%s", code, out, stub())
	}
	if code, out := cli("gen", "-c", pack, "--shapes", "a.json", "--store", open); code != 2 || out != "codemode: give --shapes or --store, not both (they name two shape caches)\n" {
		t.Fatalf("gen --shapes --store: %d %q", code, out)
	}
}

func TestGenTypesReturnsFromStoreShapesSQLite(t *testing.T) {
	genFromStoreShapes(t, "state.db", "state.db")
}

func TestGenTypesReturnsFromStoreShapesPostgres(t *testing.T) {
	url := testpg.Start(t)
	t.Setenv("CODEMODE_TEST_STORE", url)
	genFromStoreShapes(t, "$CODEMODE_TEST_STORE", url)
}
