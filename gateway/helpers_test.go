package gateway_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/codemode-dev/codemode/internal/testpack"
	"github.com/codemode-dev/codemode/internal/testpeer"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-dev/codemode/audit"
	"github.com/codemode-dev/codemode/gateway"
	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/manifest"
	"github.com/codemode-dev/codemode/pack"
	"github.com/codemode-dev/codemode/runtime"
	"github.com/codemode-dev/codemode/runtime/upstream"
)

// packYAML grants everything's tools except get-env.
const packYAML = `out: api
services:
  - name: everything
    mcp_command: [%q, stdio]
    grant: [echo, get-sum, get-structured-content, get-tiny-image, get-annotated-message]
`

// writePack writes and compiles a pack for server-everything in a temp dir
// and returns its file.
func writePack(t testing.TB) string {
	t.Helper()
	return writePackYAML(t, packYAML)
}

// writePackYAML is writePack with another codemode.yaml, a format whose one
// %q is server-everything's path.
func writePackYAML(t testing.TB, yaml string) string {
	t.Helper()
	bin, err := testpeer.NodeBin("mcp-server-everything")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	testpack.Build(t, dir, fmt.Sprintf(yaml, bin))
	return filepath.Join(dir, "codemode.yaml")
}

// counting wraps an upstream and counts calls per wire name.
type counting struct {
	upstream.Upstream
	mu    sync.Mutex
	calls map[ir.WireName]int
}

func (c *counting) Call(ctx context.Context, tool *manifest.Tool, args map[string]any) (*upstream.Result, error) {
	c.mu.Lock()
	c.calls[tool.Wire]++
	c.mu.Unlock()
	return c.Upstream.Call(ctx, tool, args)
}

// ListTools lets the runtime check the pins through the wrapper, as it does
// for the MCP upstream itself.
func (c *counting) ListTools(ctx context.Context) ([]byte, error) {
	return c.Upstream.(runtime.ToolLister).ListTools(ctx)
}

func (c *counting) count(wire ir.WireName) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls[wire]
}

// testHooks adds a note to echo and makes get-sum with a=99 a wait.
type testHooks struct{}

func (testHooks) Before(_ context.Context, c *runtime.CallInfo) runtime.Verdict {
	switch {
	case c.Tool.Wire == "echo":
		return runtime.Verdict{Notes: []string{"echo calls are logged for review"}}
	case c.Tool.Wire == "get-sum" && fmt.Sprint(c.Args["a"]) == "99":
		return runtime.Verdict{Wait: "a=99 needs a human's approval"}
	}
	return runtime.Verdict{}
}

func (testHooks) After(context.Context, *runtime.CallInfo, *upstream.Result) runtime.Verdict {
	return runtime.Verdict{}
}

// fixture is a gateway over a compiled pack, with its pieces exposed.
type fixture struct {
	pack    *pack.Pack
	rt      *runtime.Runtime
	srv     *gateway.Server
	up      *counting
	audit   *audit.Log
	auditAt string
}

// tamperEcho changes echo's pin, as if the pack had pinned another
// definition.
func tamperEcho(m *manifest.Manifest) {
	t, _ := m.Services[0].Tool("echo")
	t.Pin = "sha256:" + strings.Repeat("0", 64)
}

func newFixture(t testing.TB, direct bool, mutate func(*runtime.Config), pinned ...func(*manifest.Manifest)) *fixture {
	t.Helper()
	return newFixtureAt(t, writePack(t), direct, mutate, pinned...)
}

// newFixtureAt is newFixture over the pack in file.
func newFixtureAt(t testing.TB, file string, direct bool, mutate func(*runtime.Config), pinned ...func(*manifest.Manifest)) *fixture {
	t.Helper()
	p, err := pack.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{pack: p, auditAt: filepath.Join(t.TempDir(), "audit.jsonl")}
	f.audit, err = audit.Open(f.auditAt)
	if err != nil {
		t.Fatal(err)
	}
	shapes, err := gateway.OpenShapes(filepath.Join(t.TempDir(), "shapes.json"))
	if err != nil {
		t.Fatal(err)
	}
	f.rt, err = p.OpenRuntime(context.Background(), func(c *runtime.Config) {
		for _, fn := range pinned {
			fn(c.Manifest)
		}
		f.up = &counting{Upstream: c.Upstreams["everything"], calls: map[ir.WireName]int{}}
		c.Upstreams["everything"] = f.up
		c.Hooks = append(c.Hooks, testHooks{}, shapes)
		c.Audit = f.audit
		if mutate != nil {
			mutate(c)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.rt.Close(); f.audit.Close() })
	persistent := false
	if mutate != nil {
		var c runtime.Config
		mutate(&c)
		persistent = c.Persistent
	}
	f.srv, err = gateway.New(gateway.Config{Runtime: f.rt, FileDir: p.Out, Direct: direct, Shapes: shapes, Audit: f.audit, Persistent: persistent})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// connect opens an in-memory client session to the fixture's server.
func (f *fixture) connect(t testing.TB) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := f.srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool and returns its text and isError.
func call(t testing.TB, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

func toolNames(t testing.TB, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return names
}
