package testpeer

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// NodeBin locates tools/npm/node_modules/.bin/<name> by walking up from
// the working directory to the module root (the directory with go.mod). It is
// meant for tests and demos that start the pinned npm peers (MCP servers,
// Prism); the error says how to install them.
func NodeBin(name string) (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			p := filepath.Join(dir, "tools", "npm", "node_modules", ".bin", name)
			if _, err := os.Stat(p); err != nil {
				return "", fmt.Errorf("%s not found at %s: run npm ci in tools/npm", name, p)
			}
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory: cannot locate tools/npm (run npm ci in tools/npm)")
		}
		dir = parent
	}
}
