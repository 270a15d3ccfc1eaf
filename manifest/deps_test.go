package manifest_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestRunningAPackLinksNoCompiler: what runs a compiled surface (the
// runtime, its upstreams, the gateway, and a generated Go package) reads it
// through this package and links neither emit nor its code generator.
func TestRunningAPackLinksNoCompiler(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	cmd := exec.Command("go", "list", "-deps", "./runtime/...", "./gateway/...", "./examples/pack")
	cmd.Dir = ".."
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	var bad []string
	for _, p := range strings.Fields(string(out)) {
		if p == "github.com/codemode-dev/codemode/emit" || strings.HasPrefix(p, "github.com/dave/jennifer") {
			bad = append(bad, p)
		}
	}
	if len(bad) > 0 {
		t.Errorf("running a pack links %s", strings.Join(bad, ", "))
	}
}

// TestManifestImportsOnlyIR: the manifest package is a leaf above ir.
func TestManifestImportsOnlyIR(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	cmd := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, p := range strings.Fields(string(out)) {
		if p != "github.com/codemode-dev/codemode/ir" && p != "github.com/codemode-dev/codemode/manifest" {
			t.Errorf("manifest depends on %s", p)
		}
	}
}
