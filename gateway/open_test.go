package gateway_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/gateway"
	"github.com/codemode-dev/codemode/pack"
	"github.com/codemode-dev/codemode/runtime"
	"github.com/codemode-dev/codemode/store"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestOpenStartedRuntimeBeforeListening pins Open's order: the HTTP
// address is taken (and its settings refused) before the runtime starts,
// so a bad address fails fast and starts no upstream.
func TestOpenStartedRuntimeBeforeListening(t *testing.T) {
	opened := false
	open := func(context.Context, func(*runtime.Config)) (*runtime.Runtime, error) {
		opened = true
		return nil, nil
	}
	_, err := gateway.Open(context.Background(), open, gateway.Options{Addr: "127.0.0.1:0"})
	want := "--http 127.0.0.1:0: no bearer tokens: name them with --token-env or --token-file (or serve.auth in the pack), or pass --insecure-no-auth on a loopback address"
	if err == nil || err.Error() != want {
		t.Fatalf("Open = %v, want %q", err, want)
	}
	if opened {
		t.Fatal("the runtime was opened before the address was refused")
	}
	if _, err := gateway.Open(context.Background(), nil, gateway.Options{}); err == nil || err.Error() != "gateway: no runtime to open" {
		t.Fatalf("Open(nil) = %v", err)
	}
}

// TestOpenServesStdioWithItsHooks: a gateway opened from a pack serves an
// MCP session over stdin/stdout, and the wiring Open installs is live: the
// run is in Dir/audit.jsonl, the result's shape in Dir/shapes.json, and
// serving ends cleanly when the client closes stdin.
func TestOpenServesStdioWithItsHooks(t *testing.T) {
	p, err := pack.Load(writePack(t))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), ".codemode")
	g, err := gateway.Open(context.Background(), p.OpenRuntime, gateway.Options{FileDir: p.Out, Dir: dir, NoPins: true})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if g.Addr() != nil {
		t.Fatalf("a stdio gateway listens on %s", g.Addr())
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- g.Serve(context.Background(), inR, outW); outW.Close() }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(context.Background(), &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	call(t, cs, gateway.FindTool, map[string]any{"query": "everything.echo"})
	text, isErr := call(t, cs, gateway.RunCode, map[string]any{"code": `print(api.everything.echo(message="hi"))`})
	if want := "Echo: hi\n[1 tool call]\n"; text != want || isErr {
		t.Fatalf("run_code: %q (error %v), want %q", text, isErr, want)
	}
	cs.Close()
	if err := <-served; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	log, err := os.ReadFile(filepath.Join(dir, "audit.jsonl"))
	if err != nil || !strings.Contains(string(log), `"kind":"run_end"`) {
		t.Fatalf("audit log: %v\n%s", err, log)
	}
	shapes, err := os.ReadFile(filepath.Join(dir, "shapes.json"))
	if err != nil || !strings.Contains(string(shapes), "echo") {
		t.Fatalf("shapes: %v\n%s", err, shapes)
	}
}

// TestStoreNotInReadiness pins the defect: /readyz said ready while the
// gateway's store (its sessions, jobs and waits) could not be reached.
// Open adds the store's own check.
func TestStoreNotInReadiness(t *testing.T) {
	p, err := pack.Load(writePack(t))
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "state.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g, err := gateway.Open(context.Background(), p.OpenRuntime, gateway.Options{FileDir: p.Out, Dir: filepath.Join(t.TempDir(), ".codemode"), NoPins: true, Store: st})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if err := g.Server().Ready(context.Background()); err != nil {
		t.Fatalf("ready with the store up: %v", err)
	}
	st.Close()
	if err := g.Server().Ready(context.Background()); err == nil || err.Error() != "not ready: store" {
		t.Fatalf("ready with the store gone: %v", err)
	}
}
