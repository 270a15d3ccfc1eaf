package parse_test

import (
	"crypto/sha256"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/emit"
	"github.com/codemode-dev/codemode/enrich"
	"github.com/codemode-dev/codemode/golden"
	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/parse"
)

// TestCorpusOutputUnchanged compiles every corpus file the way a pack does
// (parse, enrich, Resolve, emit) and compares the SHA-256 of its Python
// module and of its diagnostics with testdata/corpus.sha256, so a change
// to how parse or ir order and share schemas cannot move a byte of the
// output unnoticed. GOLDEN_UPDATE=1 rewrites the list (review the diff).
func TestCorpusOutputUnchanged(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles the whole corpus")
	}
	var files []string
	for _, dir := range []string{"mcp", "openapi"} {
		m, err := filepath.Glob("../testdata/corpus/" + dir + "/*")
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range m {
			if !strings.HasSuffix(f, ".source.json") {
				files = append(files, f)
			}
		}
	}
	var b strings.Builder
	for _, f := range files {
		rel := strings.TrimPrefix(f, "../testdata/corpus/")
		var svc *ir.Service
		var err error
		if strings.HasPrefix(rel, "mcp/") {
			svc, err = parse.MCPFile(f, parse.Options{})
		} else {
			svc, err = parse.OpenAPIFile(f, parse.Options{})
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, err := enrich.Run(svc, enrich.Options{}); err != nil {
			t.Fatal(err)
		}
		ir.Resolve(svc)
		py, _ := emit.Python(svc)
		var diags strings.Builder
		for _, d := range svc.Diagnostics {
			diags.WriteString(d.String() + "\n")
		}
		fmt.Fprintf(&b, "%x  %s.py\n", sha256.Sum256(py), rel)
		fmt.Fprintf(&b, "%x  %s.diagnostics\n", sha256.Sum256([]byte(diags.String())), rel)
	}
	if len(files) != 31 {
		t.Errorf("%d corpus files, want 31", len(files))
	}
	golden.File(t, "testdata/corpus.sha256", []byte(b.String()))
}
