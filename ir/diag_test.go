package ir_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/ir"
)

// TestDiagCodesDocumented: every diagnostic code constant is in DiagCodes
// and listed, once, in the package documentation, which lists no other
// code; when the README has a Diagnostics section, it lists every code too.
func TestDiagCodesDocumented(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "diag.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var declared []string
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "DiagCode" {
				continue
			}
			for _, v := range vs.Values {
				code, err := strconv.Unquote(v.(*ast.BasicLit).Value)
				if err != nil {
					t.Fatal(err)
				}
				declared = append(declared, code)
			}
		}
	}
	var listed []string
	for _, c := range ir.DiagCodes {
		listed = append(listed, string(c))
	}
	if !slices.Equal(sorted(declared), sorted(listed)) {
		t.Errorf("DiagCodes is not every constant:\ndeclared %v\nlisted   %v", declared, listed)
	}

	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	var documented []string
	for _, m := range regexp.MustCompile(`(?m)^//   - ([a-z-]+):`).FindAllSubmatch(doc, -1) {
		documented = append(documented, string(m[1]))
	}
	if !slices.Equal(documented, listed) {
		t.Errorf("the package doc lists, in order,\n%v\nwant DiagCodes\n%v", documented, listed)
	}

	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Diagnostics\n")
	if !ok {
		t.Log("README.md has no Diagnostics section; the package doc is the list")
		return
	}
	section, _, _ = strings.Cut(section, "\n## ")
	for _, c := range listed {
		if !strings.Contains(section, "`"+c+"`") {
			t.Errorf("README.md's Diagnostics section does not list `%s`", c)
		}
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
