package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/codemode-dev/codemode/gateway"
	"github.com/codemode-dev/codemode/internal/testpg"
	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/manifest"
	"github.com/codemode-dev/codemode/pack"
	"github.com/codemode-dev/codemode/runtime"
	"github.com/codemode-dev/codemode/runtime/upstream"
	"github.com/codemode-dev/codemode/store"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// shapesOnReplicas has two gateways' shape caches on one store see
// different results of one tool, at once: each result's keys end up in the
// store's entry, which a third gateway reads at start, and each of the two
// keeps what the store held when it wrote.
func shapesOnReplicas(t *testing.T, a, b store.Store) {
	t.Helper()
	ctx := context.Background()
	var caches []*gateway.Shapes
	for _, st := range []store.Store{a, b} {
		s, err := gateway.OpenStoreShapes(ctx, st.(store.ShapeStore))
		if err != nil {
			t.Fatal(err)
		}
		caches = append(caches, s)
	}
	call := &runtime.CallInfo{Service: "svc", Tool: &manifest.Tool{Wire: "page"}}
	var wg sync.WaitGroup
	var keys []string
	for r, s := range caches {
		for i := range 4 {
			k := fmt.Sprintf("k%d_%d", r, i)
			keys = append(keys, k)
			v := decodeJSON(t, `{"`+k+`": 1}`)
			wg.Add(1)
			go func() {
				defer wg.Done()
				s.After(ctx, call, &upstream.Result{Value: v})
			}()
		}
	}
	wg.Wait()
	// A failed result changes nothing.
	caches[0].After(ctx, call, &upstream.Result{IsError: true, Value: "boom"})
	fresh, err := gateway.OpenStoreShapes(ctx, b.(store.ShapeStore))
	if err != nil {
		t.Fatal(err)
	}
	props := func(s *gateway.Shapes) []string {
		var out []string
		p, _ := s.Observed()[ir.ToolID{Service: "svc", Wire: "page"}]["properties"].(map[string]any)
		for k := range p {
			out = append(out, k)
		}
		return sorted(out)
	}
	if got := props(fresh); !reflect.DeepEqual(got, sorted(keys)) {
		t.Fatalf("the store's entry has %v, want %v", got, sorted(keys))
	}
	if sh, ok := fresh.Get("svc", "page"); !ok || !strings.HasPrefix(sh, "{k") {
		t.Fatalf("shape: %q %v", sh, ok)
	}
	// The last writer's cache holds the whole union; each holds its own
	// results.
	union := 0
	for r, s := range caches {
		got := props(s)
		for i := range 4 {
			if !slices.Contains(got, fmt.Sprintf("k%d_%d", r, i)) {
				t.Fatalf("replica %d lost its own result: %v", r, got)
			}
		}
		if len(got) == len(keys) {
			union++
		}
	}
	if union == 0 {
		t.Fatalf("neither replica holds the union: %v, %v", props(caches[0]), props(caches[1]))
	}
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

func TestShapesUnionAcrossReplicasSQLite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	var sts []store.Store
	for range 2 {
		st, err := store.Open(context.Background(), path, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		sts = append(sts, st)
	}
	shapesOnReplicas(t, sts[0], sts[1])
}

func TestShapesUnionAcrossReplicasPostgres(t *testing.T) {
	url := testpg.Start(t)
	var sts []store.Store
	for range 2 {
		st, err := store.Open(context.Background(), url, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		sts = append(sts, st)
	}
	shapesOnReplicas(t, sts[0], sts[1])
}

// TestShapesInStoreWithoutStoreRefused: asking for the shape cache in a
// store when there is none is a one-line error, not a silent file.
func TestShapesInStoreWithoutStoreRefused(t *testing.T) {
	_, err := gateway.Open(context.Background(), func(context.Context, func(*runtime.Config)) (*runtime.Runtime, error) {
		t.Fatal("the runtime was opened")
		return nil, nil
	}, gateway.Options{ShapesInStore: true})
	if err == nil || err.Error() != "gateway: the shape cache is to be kept in the store, and there is none" {
		t.Fatalf("got %v", err)
	}
}

// TestShapesInStoreWrittenThrough: a gateway opened with ShapesInStore
// keeps a result's shape in its store, where another gateway reads it at
// start, and writes no shapes.json; what a shapes.json kept before is
// adopted into the store for the tools it has no entry for.
func TestShapesInStoreWrittenThrough(t *testing.T) {
	p, err := pack.Load(writePack(t))
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "state.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	dir := filepath.Join(t.TempDir(), ".codemode")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	const before = `{"everything.echo": "int", "everything.old": {"shape": "{a: int}", "schema": {"type": "object", "properties": {"a": {"type": "integer"}}}}}`
	if err := os.WriteFile(filepath.Join(dir, "shapes.json"), []byte(before), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := st.(store.ShapeStore).MergeShape(context.Background(), store.ShapeKey{Service: "everything", Tool: "echo"}, func(json.RawMessage) (json.RawMessage, error) {
		return json.RawMessage(`{"shape": "bool"}`), nil
	}); err != nil {
		t.Fatal(err)
	}
	g, err := gateway.Open(context.Background(), p.OpenRuntime, gateway.Options{FileDir: p.Out, Dir: dir, NoPins: true, Store: st, ShapesInStore: true})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if at, _ := gateway.OpenStoreShapes(context.Background(), st.(store.ShapeStore)); at == nil {
		t.Fatal("no cache")
	} else if sh, _ := at.Get("everything", "echo"); sh != "bool" {
		t.Fatalf("the file replaced the store's entry: %q", sh)
	}
	ct, sst := mcp.NewInMemoryTransports()
	ss, err := g.Server().MCP().Connect(context.Background(), sst, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	call(t, cs, gateway.FindTool, map[string]any{"query": "everything.echo"})
	text, isErr := call(t, cs, gateway.RunCode, map[string]any{"code": `print(api.everything.echo(message="hi"))`})
	if want := "Echo: hi\n[1 tool call]\n"; text != want || isErr {
		t.Fatalf("run_code: %q (error %v), want %q", text, isErr, want)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "shapes.json")); err != nil || string(b) != before {
		t.Fatalf("shapes.json written beside a store: %v\n%s", err, b)
	}
	other, err := gateway.OpenStoreShapes(context.Background(), st.(store.ShapeStore))
	if err != nil {
		t.Fatal(err)
	}
	if sh, ok := other.Get("everything", "echo"); !ok || sh != "str" {
		t.Fatalf("the store's shape of echo: %q %v", sh, ok)
	}
	if sh, ok := other.Get("everything", "old"); !ok || sh != "{a: int}" || len(other.Observed()) != 1 {
		t.Fatalf("the file's entry was not adopted: %q %v %v", sh, ok, other.Observed())
	}
}
