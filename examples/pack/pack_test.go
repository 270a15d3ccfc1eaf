package pack

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/golden"
	"github.com/codemode-dev/codemode/pack"
	"github.com/codemode-dev/codemode/readgate"
	"github.com/codemode-dev/codemode/runtime"
)

// TestGenerated regenerates the pack in memory from the real server and
// compares every generated file with the checked-in one (go test -update
// rewrites them, as go generate would).
func TestGenerated(t *testing.T) {
	p, err := pack.Load("codemode.yaml")
	if err != nil {
		t.Fatal(err)
	}
	out, err := pack.Compile(context.Background(), p, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Trees) != 2 {
		t.Fatalf("%d trees, want api/ and the Go package", len(out.Trees))
	}
	golden.Dir(t, out.Trees[0].Dir, out.Trees[0].Files)
	for name, src := range out.Trees[1].Files {
		golden.File(t, filepath.Join(out.Trees[1].Dir, name), src)
	}
}

// newClient starts a runtime over the embedded surface (no files read) and
// the server the pack names.
func newClient(t *testing.T) Client {
	t.Helper()
	s, err := Surface()
	if err != nil {
		t.Fatal(err)
	}
	p, err := pack.Load("codemode.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ups, err := p.Upstreams(s.Manifest)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := p.RuntimeConfig(s, ups)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ReadGate = readgate.Off
	cfg.Workers = 1
	cfg.Limits.Time = 10 * time.Second
	rt, err := runtime.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	return Client{Runtime: rt, Session: "go"}
}

func TestClient(t *testing.T) {
	c := newClient(t)
	ctx := context.Background()

	res, err := c.EverythingEcho(ctx, EverythingEchoArgs{Message: "hello from Go"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != "ok" || res.Value != "Echo: hello from Go" || res.Call != "api.everything.echo" {
		t.Errorf("echo: %+v", res)
	}

	res, err = c.EverythingGetSum(ctx, EverythingGetSumArgs{A: 2, B: 3.5})
	if err != nil {
		t.Fatal(err)
	}
	if res.Value != "The sum of 2 and 3.5 is 5.5." {
		t.Errorf("get_sum: %+v", res)
	}

	res, err = c.EverythingGetStructuredContent(ctx, EverythingGetStructuredContentArgs{Location: EverythingGetStructuredContentLocationChicago})
	if err != nil {
		t.Fatal(err)
	}
	w, ok := res.Value.(map[string]any)
	if !ok || w["conditions"] != "Light rain / drizzle" {
		t.Errorf("get_structured_content: %+v", res)
	}
}

// TestClientChecks: a typed call passes the runtime's checks like a
// program's call: a value outside the Literal is refused before the server
// sees it, with the message a program would get.
func TestClientChecks(t *testing.T) {
	c := newClient(t)
	ctx := context.Background()
	res, err := c.EverythingGetStructuredContent(ctx, EverythingGetStructuredContentArgs{Location: "Paris"})
	const msg = `api.everything.get_structured_content: argument location must be one of "New York", "Chicago", "Los Angeles"; got "Paris"`
	if err == nil || err.Error() != msg || res == nil || res.Status != "invalid" || res.Message != msg {
		t.Errorf("Paris: res %+v, err %v", res, err)
	}
	// A required argument left at its zero value is sent: it is required.
	res, err = c.EverythingGetSum(ctx, EverythingGetSumArgs{A: 1})
	if err != nil || res.Value != "The sum of 1 and 0 is 1." {
		t.Errorf("get_sum(a=1): res %+v, err %v", res, err)
	}
	if _, err := (Client{}).EverythingGetEnv(ctx); err == nil || err.Error() != "everything.get_env: Client has no Runtime" {
		t.Errorf("no runtime: %v", err)
	}
}
