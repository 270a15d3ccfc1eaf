package emit_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/emit"
	"github.com/codemode-dev/codemode/golden"
	"github.com/codemode-dev/codemode/pack"
)

// goPack compiles corpus MCP tool lists as one pack with go_package: dir
// (relative to the pack file in dir's parent).
func goPack(t *testing.T, dir string, corpus ...string) *pack.Output {
	t.Helper()
	var y strings.Builder
	y.WriteString("out: " + filepath.Join(filepath.Base(dir), "api") + "\ngo_package: " + filepath.Base(dir) + "\nenrich: {disabled: true}\nservices:\n")
	for _, c := range corpus {
		abs, err := filepath.Abs(filepath.Join("..", "testdata", "corpus", "mcp", c+".json"))
		if err != nil {
			t.Fatal(err)
		}
		y.WriteString("  - mcp: " + abs + "\n    name: " + c + "\n")
	}
	p, err := pack.Parse([]byte(y.String()))
	if err != nil {
		t.Fatal(err)
	}
	p.Dir = filepath.Dir(dir)
	out, err := pack.Compile(context.Background(), p, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestGoPackageBuilds generates Go packages from corpus tool lists with
// awkward names (hyphens, upper case, Python keywords, enums, nested
// objects) into a directory inside this module, and runs go vet (which
// type-checks) on them. Regenerating gives the same bytes.
func TestGoPackageBuilds(t *testing.T) {
	if err := os.MkdirAll("testdata", 0o755); err != nil {
		t.Fatal(err)
	}
	root, err := os.MkdirTemp("testdata", "gopkg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	cases := map[string][]string{
		"notiongo":   {"notion"},
		"severalgo":  {"everything", "memory", "hubspot", "brave-search-v2", "playwright"},
		"firecrawlg": {"firecrawl", "filesystem", "github"},
	}
	for name, corpus := range cases {
		dir := filepath.Join(root, name)
		out := goPack(t, dir, corpus...)
		if err := out.Write(); err != nil {
			t.Fatal(err)
		}
		again := goPack(t, dir, corpus...)
		for i, tr := range out.Trees {
			for f, b := range tr.Files {
				if !bytes.Equal(again.Trees[i].Files[f], b) {
					t.Errorf("%s: regenerating %s/%s gave different bytes", name, tr.Dir, f)
				}
			}
		}
	}
	var pkgs []string
	for name := range cases {
		pkgs = append(pkgs, "./"+filepath.ToSlash(filepath.Join(root, name)))
	}
	vet(t, pkgs...)
}

// clashTools is a tools/list whose names collide once made Go names: two
// tools become EdgeGetSum, a parameter Args collides with the arguments
// struct's name, two parameters become Page, and enum values are empty,
// non-ASCII or spell the same Go name.
const clashTools = `{"tools": [
  {"name": "get_sum", "description": "Adds.", "inputSchema": {"type": "object",
    "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}},
  {"name": "getSum", "description": "Adds too.\nSecond line.", "inputSchema": {"type": "object",
    "properties": {"page-size": {"type": "integer"}, "page_size": {"type": "integer"},
      "mode": {"enum": ["", "日本", "a-b", "a_b", "x"]},
      "args": {"type": "string", "enum": ["one"]},
      "opts": {"type": "object", "properties": {"k": {"type": "string"}}},
      "kinds": {"type": "array", "items": {"enum": ["p", "q"]}},
      "n": {"type": ["integer", "null"]},
      "any": {}}, "required": ["n"]}},
  {"name": "ping", "inputSchema": {"type": "object"}}
]}`

// TestGoPackageNames pins the naming rule on clashes, whole file, and
// vets the package.
func TestGoPackageNames(t *testing.T) {
	dir, err := os.MkdirTemp("testdata", "edge-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.WriteFile(filepath.Join(dir, "tools.json"), []byte(clashTools), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := pack.Parse([]byte("go_package: edgego\nenrich: {disabled: true}\nservices:\n  - mcp: tools.json\n    name: edge\n"))
	if err != nil {
		t.Fatal(err)
	}
	p.Dir = dir
	out, err := pack.Compile(context.Background(), p, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Trees) != 3 || out.Trees[2].Dir != filepath.Join(dir, "edgego", "api") {
		t.Fatalf("trees: %+v", out.Trees)
	}
	golden.File(t, "testdata/gopkg/edge.go.golden", out.Trees[1].Files[emit.GoFile])
	if err := out.Write(); err != nil {
		t.Fatal(err)
	}
	vet(t, "./"+filepath.ToSlash(filepath.Join(dir, "edgego")))
}

// vet runs go vet, which type-checks, on packages inside this module.
func vet(t *testing.T, pkgs ...string) {
	t.Helper()
	args := append([]string{"vet"}, pkgs...)
	b, err := exec.Command("go", args...).CombinedOutput()
	if err != nil || len(b) != 0 {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, b)
	}
}

func TestGoPackageName(t *testing.T) {
	for base, want := range map[string]string{"pack": "pack", "My-Tools": "mytools", "v2_api": "v2_api"} {
		if got, err := emit.GoPackageName(base); err != nil || got != want {
			t.Errorf("GoPackageName(%q) = %q, %v; want %q", base, got, err, want)
		}
	}
	for base, msg := range map[string]string{
		"main": `go_package: directory "main" does not give a Go package name (got "main"); use a directory named like a Go package`,
		"2fa":  `go_package: directory "2fa" does not give a Go package name (got "2fa"); use a directory named like a Go package`,
		"...":  `go_package: directory "..." does not give a Go package name (got ""); use a directory named like a Go package`,
		"type": `go_package: directory "type" does not give a Go package name (got "type"); use a directory named like a Go package`,
	} {
		if _, err := emit.GoPackageName(base); err == nil || err.Error() != msg {
			t.Errorf("GoPackageName(%q): %v", base, err)
		}
	}
}
