// Package testpack builds packs for tests: it writes a codemode.yaml,
// compiles it and writes the generated files, the way codemode gen does.
package testpack

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/codemode-dev/codemode/pack"
)

// Build writes yaml as dir/codemode.yaml, compiles the pack and writes its
// output, and returns the loaded pack.
func Build(t testing.TB, dir, yaml string) *pack.Pack {
	t.Helper()
	file := filepath.Join(dir, "codemode.yaml")
	if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := pack.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pack.Compile(context.Background(), p, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := out.Write(); err != nil {
		t.Fatal(err)
	}
	return p
}
