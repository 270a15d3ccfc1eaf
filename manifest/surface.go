package manifest

import (
	"fmt"
	"io/fs"
	"path"
)

// Surface is a compiled surface: the manifest and the generated .py files
// it names. It is what a runtime loads (runtime.Config's Manifest and
// Files), whether it was compiled in memory, read from a pack's output
// directory or embedded in a generated Go package.
type Surface struct {
	Manifest *Manifest
	// Files are the generated .py files by the name the manifest gives
	// them ("everything.py").
	Files map[string][]byte
}

// LoadSurface reads a manifest at the slash path manifest in fsys, and the
// .py files it names from the manifest's directory. A generated Go package
// calls it once on its embedded files; os.DirFS reads an output directory.
func LoadSurface(fsys fs.FS, manifest string) (*Surface, error) {
	data, err := fs.ReadFile(fsys, manifest)
	if err != nil {
		return nil, err
	}
	m, err := Read(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", manifest, err)
	}
	s := &Surface{Manifest: m, Files: map[string][]byte{}}
	for _, ms := range m.Services {
		b, err := fs.ReadFile(fsys, path.Join(path.Dir(manifest), ms.File))
		if err != nil {
			return nil, err
		}
		s.Files[ms.File] = b
	}
	return s, nil
}
