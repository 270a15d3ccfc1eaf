package pack_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/internal/testpack"
)

// TestRuntimeWaitTimeoutKey: runtime.wait_timeout reaches the runtime; a
// bad value is a one-line error.
func TestRuntimeWaitTimeoutKey(t *testing.T) {
	build := func(runtime string) (time.Duration, error) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "tools.json"), []byte(`{"tools": [{"name": "ping", "inputSchema": {"type": "object"}}]}`), 0o644)
		p := testpack.Build(t, dir, "services:\n  - mcp: tools.json\nruntime:\n"+runtime)
		g, err := p.ReadSurface()
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := p.RuntimeConfig(g, nil)
		return cfg.WaitTimeout, err
	}
	if d, err := build("  wait_timeout: 4h\n"); err != nil || d != 4*time.Hour {
		t.Fatalf("wait_timeout: %s %v", d, err)
	}
	for _, v := range []string{"later", "-1h", "0s"} {
		want := `runtime.wait_timeout: "` + v + `" is not a positive duration (e.g. "1h")`
		if _, err := build("  wait_timeout: " + v + "\n"); err == nil || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("%q: err = %v, want %s", v, err, want)
		}
	}
}
