// Package filetree reads and writes trees of files held in memory, keyed
// by slash path relative to their directory: the one writer of generated
// output (pack), golden files (golden) and test trees.
package filetree

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// Read loads every regular file under dir, keyed by slash path relative to dir.
func Read(dir string) (map[string][]byte, error) {
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		files[filepath.ToSlash(rel)] = data
		return nil
	})
	return files, err
}

// WriteDir replaces dir with exactly files, atomically: the files are
// written to a new sibling directory which is then renamed into place, so a
// failure leaves the old directory as it was.
func WriteDir(dir string, files map[string][]byte) error {
	parent := filepath.Dir(filepath.Clean(dir))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".new-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	for _, n := range sortedNames(files) {
		p := filepath.Join(tmp, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, files[n], 0o644); err != nil {
			return err
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	old := ""
	if _, err := os.Stat(dir); err == nil {
		old = tmp + ".old"
		if err := os.Rename(dir, old); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if old != "" {
			os.Rename(old, dir)
		}
		return err
	}
	if old != "" {
		return os.RemoveAll(old)
	}
	return nil
}

// WriteFiles writes files into dir, leaving its other files alone; each
// file is written to a temporary file beside it and renamed into place.
func WriteFiles(dir string, files map[string][]byte) error {
	for _, n := range sortedNames(files) {
		target := filepath.Join(dir, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		f, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".new-")
		if err != nil {
			return err
		}
		_, werr := f.Write(files[n])
		cerr := f.Close()
		if werr == nil {
			werr = cerr
		}
		if werr == nil {
			werr = os.Chmod(f.Name(), 0o644)
		}
		if werr == nil {
			werr = os.Rename(f.Name(), target)
		}
		if werr != nil {
			os.Remove(f.Name())
			return werr
		}
	}
	return nil
}

func sortedNames(files map[string][]byte) []string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
