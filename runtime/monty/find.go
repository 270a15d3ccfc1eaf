package monty

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// BinaryEnv names the environment variable that overrides FindBinary.
const BinaryEnv = "CODEMODE_MONTY"

// binaryRel is where `npm ci` in tools/npm puts the pinned binary, relative
// to the module root.
const binaryRel = "tools/npm/node_modules/@pydantic/monty-linux-x64-gnu/monty"

// FindBinary locates the monty binary, first found of: $CODEMODE_MONTY; the
// binary installed under tools/npm of the module that contains the working
// directory, or the one that contains this executable (found by walking up
// to the directory holding go.mod); `monty` on PATH. It returns an error
// telling the user to run `npm ci` in tools/npm when none is there.
func FindBinary() (string, error) {
	if p := os.Getenv(BinaryEnv); p != "" {
		if err := checkExecutable(p); err != nil {
			return "", fmt.Errorf("monty: %s=%s: %w", BinaryEnv, p, err)
		}
		return p, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("monty: %w", err)
	}
	p, werr := FindBinaryFrom(wd)
	if werr == nil {
		return p, nil
	}
	if exe, err := os.Executable(); err == nil {
		if p, err := FindBinaryFrom(filepath.Dir(exe)); err == nil {
			return p, nil
		}
	}
	if p, err := exec.LookPath("monty"); err == nil {
		return p, nil
	}
	return "", werr
}

// FindBinaryFrom is FindBinary without the environment override, walking up
// from dir.
func FindBinaryFrom(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("monty: %w", err)
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			p := filepath.Join(d, filepath.FromSlash(binaryRel))
			if err := checkExecutable(p); err != nil {
				return "", fmt.Errorf("monty: binary not found at %s (%v): run `npm ci` in %s (or set %s)",
					p, err, filepath.Join(d, "tools", "npm"), BinaryEnv)
			}
			return p, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("monty: no go.mod above %s to locate tools/npm: set %s or run `npm ci` in tools/npm", dir, BinaryEnv)
		}
	}
}

func checkExecutable(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return errors.New("is a directory")
	}
	if fi.Mode()&0o111 == 0 {
		return errors.New("not executable")
	}
	return nil
}
