package pack_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/codemode-dev/codemode/manifest"
	"github.com/codemode-dev/codemode/pack"
)

// TestSurfaceSameCompiledReadOrEmbedded: the surface of a compile in
// memory (Output.Surface), read back from the output directory
// (ReadSurface) and loaded from any fs.FS (manifest.LoadSurface, as a
// generated Go package does) is one value.
func TestSurfaceSameCompiledReadOrEmbedded(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "alpha.json"), spec("Alpha"), 0o644)
	os.WriteFile(filepath.Join(dir, "beta.json"), spec("Beta"), 0o644)
	file := filepath.Join(dir, "codemode.yaml")
	os.WriteFile(file, []byte(twoServices), 0o644)
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
	mem := out.Surface()
	read, err := p.ReadSurface()
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := manifest.LoadSurface(os.DirFS(dir), "api/"+pack.ManifestFile)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"alpha.py", "beta.py"}
	for _, s := range []*manifest.Surface{mem, read, loaded} {
		if len(s.Files) != len(want) {
			t.Fatalf("files %v, want %v", keys(s.Files), want)
		}
		for _, f := range want {
			if !bytes.Equal(s.Files[f], out.Files[f]) {
				t.Errorf("%s differs from the compiled one", f)
			}
		}
		a, _ := manifest.Marshal(s.Manifest)
		if !bytes.Equal(a, out.Files[pack.ManifestFile]) {
			t.Errorf("manifest differs from the compiled one")
		}
	}
	if !reflect.DeepEqual(read, loaded) {
		t.Errorf("ReadSurface and LoadSurface differ")
	}
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
