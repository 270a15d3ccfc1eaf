package pack_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/codemode-dev/codemode/internal/testpack"
)

// TestRuntimeMaxWorkersKey: runtime.max_workers sets how far the worker
// pool may grow while programs wait; one below runtime.workers is a
// one-line error.
func TestRuntimeMaxWorkersKey(t *testing.T) {
	for _, c := range []struct {
		runtime string
		max     int
		err     string
	}{
		{"  workers: 3\n  max_workers: 10\n", 10, ""},
		{"  workers: 3\n", 0, ""}, // the runtime's default: 4× workers
		{"  workers: 3\n  max_workers: 2\n", 0, "runtime.max_workers: 2 is below runtime.workers (3); give at least as many (default 4× workers)"},
		{"  max_workers: -1\n", 0, "runtime.max_workers: -1 is below runtime.workers (0); give at least as many (default 4× workers)"},
	} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "tools.json"), []byte(`{"tools": [{"name": "ping", "inputSchema": {"type": "object"}}]}`), 0o644)
		p := testpack.Build(t, dir, "services:\n  - mcp: tools.json\nruntime:\n"+c.runtime)
		g, err := p.ReadSurface()
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := p.RuntimeConfig(g, nil)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%q: err = %v, want %s", c.runtime, err, c.err)
			}
			continue
		}
		if err != nil || cfg.MaxWorkers != c.max {
			t.Errorf("%q: max workers %d, err %v", c.runtime, cfg.MaxWorkers, err)
		}
	}
}
