package bench

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/codemode-dev/codemode/opslab"
)

// buildLab builds cmd/opslab into a temporary directory.
func buildLab(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "opslab")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/codemode-dev/codemode/cmd/opslab").CombinedOutput()
	if err != nil {
		t.Fatalf("go build opslab: %v\n%s", err, out)
	}
	return bin
}

// TestScriptsSolveIncidents runs each incident's two fixed scripts against
// the real lab server and checks that the final answer names the planted
// fault (and that the fix verified, which the scripts check themselves).
func TestScriptsSolveIncidents(t *testing.T) {
	ctx := context.Background()
	bin := buildLab(t)
	sizes := []opslab.Size{opslab.Small}
	if !testing.Short() {
		sizes = append(sizes, opslab.Large)
	}
	for _, size := range sizes {
		dir := t.TempDir()
		api := filepath.Join(dir, "api")
		if _, err := CompileLab(ctx, filepath.Join(dir, "pack"), api, bin, size, 1); err != nil {
			t.Fatal(err)
		}
		for _, f := range opslab.Faults {
			t.Run(string(size)+"/"+f.ID, func(t *testing.T) {
				d, err := DialDirect(ctx, bin, size, 1, f)
				if err != nil {
					t.Fatal(err)
				}
				defer d.Close()
				ans, err := SolveDirect(ctx, d)
				if err != nil {
					t.Fatalf("direct: %v", err)
				}
				if !f.Names(ans) {
					t.Errorf("direct answer does not name %s: %s", f.ID, ans)
				}
				c, err := DialCode(ctx, filepath.Join(dir, "run-"+f.ID), api, bin, size, 1, f)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				ans, err = SolveCode(ctx, c)
				if err != nil {
					t.Fatalf("code: %v", err)
				}
				if !f.Names(ans) {
					t.Errorf("code answer does not name %s: %s", f.ID, ans)
				}
				for _, other := range opslab.Faults {
					if other != f && other.Names(ans) {
						t.Errorf("code answer also names %s: %s", other.ID, ans)
					}
				}
				t.Logf("direct %d steps, code %d steps: %s", len(d.T.Steps), len(c.T.Steps), ans)
			})
		}
	}
}
