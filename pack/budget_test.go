package pack_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/internal/testpack"
)

// TestRuntimeMemoryBudgetKey: runtime.memory_budget sets the runtime-wide
// memory budget; a bad size or one below a program's memory limit is a
// one-line error.
func TestRuntimeMemoryBudgetKey(t *testing.T) {
	for _, c := range []struct{ runtime, want string }{
		{"  memory_budget: lots\n", "runtime.memory_budget: want a whole, positive size like 256MB or 8MiB"},
		{"  memory: 256MB\n  memory_budget: 100MB\n", "runtime: the memory budget (100 MiB) is below one program's memory limit (256 MiB): no program could run"},
	} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "tools.json"), []byte(`{"tools": [{"name": "ping", "inputSchema": {"type": "object"}}]}`), 0o644)
		p := testpack.Build(t, dir, "services:\n  - mcp: tools.json\nruntime:\n"+c.runtime)
		rt, err := p.OpenRuntime(context.Background(), nil)
		if err == nil {
			rt.Close()
		}
		if err == nil || !strings.HasSuffix(err.Error(), c.want) {
			t.Errorf("%q: err = %v, want %s", c.runtime, err, c.want)
		}
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "tools.json"), []byte(`{"tools": [{"name": "ping", "inputSchema": {"type": "object"}}]}`), 0o644)
	p := testpack.Build(t, dir, "services:\n  - mcp: tools.json\nruntime:\n  memory: 64MB\n  memory_budget: 128MB\n")
	g, err := p.ReadSurface()
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := p.RuntimeConfig(g, nil)
	if err != nil || cfg.MemoryBudget != 128<<20 || cfg.Limits.Memory != 64<<20 {
		t.Errorf("budget %d, memory %d, err %v", cfg.MemoryBudget, cfg.Limits.Memory, err)
	}
}
