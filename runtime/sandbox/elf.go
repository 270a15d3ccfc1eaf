package sandbox

import (
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// libDirs are the directories the x86-64 glibc loader searches by default
// (there is no ld.so.cache in the sandbox's root).
var libDirs = []string{"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib"}

// elfDeps returns bin's ELF interpreter and the shared libraries it needs,
// transitively, each bound at the path the loader looks for it. A static
// binary needs nothing.
func elfDeps(bin string) ([]bindFile, error) {
	var out []bindFile
	seen := map[string]bool{}
	add := func(dst string) error {
		if seen[dst] {
			return nil
		}
		seen[dst] = true
		src, err := filepath.EvalSymlinks(dst)
		if err != nil {
			return err
		}
		out = append(out, bindFile{Src: src, Dst: dst})
		return nil
	}
	var walk func(path string, top bool) error
	walk = func(path string, top bool) error {
		f, err := elf.Open(path)
		var fe *elf.FormatError
		if errors.As(err, &fe) {
			return fmt.Errorf("%s is not an ELF executable (a script cannot run in the sandbox: its interpreter is not there)", path)
		}
		if err != nil {
			return err
		}
		defer f.Close()
		if top {
			for _, p := range f.Progs {
				if p.Type != elf.PT_INTERP {
					continue
				}
				b := make([]byte, p.Filesz)
				if _, err := p.ReadAt(b, 0); err != nil {
					return fmt.Errorf("%s: interpreter: %w", path, err)
				}
				for len(b) > 0 && b[len(b)-1] == 0 {
					b = b[:len(b)-1]
				}
				if err := add(string(b)); err != nil {
					return fmt.Errorf("%s: interpreter: %w", path, err)
				}
			}
		}
		needed, err := f.ImportedLibraries()
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		for _, lib := range needed {
			found := ""
			for _, d := range libDirs {
				p := filepath.Join(d, lib)
				if _, err := os.Stat(p); err == nil {
					found = p
					break
				}
			}
			if found == "" {
				return fmt.Errorf("%s: shared library %s not found in %v", path, lib, libDirs)
			}
			if seen[found] {
				continue
			}
			if err := add(found); err != nil {
				return err
			}
			if err := walk(found, false); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(bin, true); err != nil {
		return nil, err
	}
	return out, nil
}
