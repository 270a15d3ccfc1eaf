package pack_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/internal/testpack"
)

// TestRuntimeParallelAndSessionKeys: runtime.max_parallel and
// runtime.session_ttl reach the runtime; bad values are one-line errors.
func TestRuntimeParallelAndSessionKeys(t *testing.T) {
	build := func(runtime string) error {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "tools.json"), []byte(`{"tools": [{"name": "ping", "inputSchema": {"type": "object"}}]}`), 0o644)
		p := testpack.Build(t, dir, "services:\n  - mcp: tools.json\nruntime:\n"+runtime)
		g, err := p.ReadSurface()
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := p.RuntimeConfig(g, nil)
		if err == nil && (cfg.MaxParallel != 3 || cfg.SessionTTL != 72*time.Hour) {
			t.Errorf("max_parallel %d, session_ttl %s", cfg.MaxParallel, cfg.SessionTTL)
		}
		return err
	}
	if err := build("  max_parallel: 3\n  session_ttl: 72h\n"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ runtime, want string }{
		{"  max_parallel: -1\n", "runtime.max_parallel: -1 is not a number of calls; give 1 or more (default 8)"},
		{"  session_ttl: soon\n", `runtime.session_ttl: "soon" is not a positive duration (e.g. "24h")`},
		{"  session_ttl: -1h\n", `runtime.session_ttl: "-1h" is not a positive duration (e.g. "24h")`},
	} {
		if err := build(c.runtime); err == nil || !strings.HasSuffix(err.Error(), c.want) {
			t.Errorf("%q: err = %v, want %s", c.runtime, err, c.want)
		}
	}
}
