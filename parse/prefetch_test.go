package parse_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/enrich"
	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/parse"
)

// TestPrefetchedEnrichMatchesRunOnCorpus: over every OpenAPI document of
// the corpus, enrich with its proposals worked out during the parse
// (enrich.Prefetch, as a pack compiles) gives the decisions and the
// manifest enrich alone gives; and a Prefetch ended before the parse
// starts (one that reached nothing) does too. Run with -race, it also
// holds the parser to its word that a tool it has handed on is not
// changed while the Prefetch reads it.
func TestPrefetchedEnrichMatchesRunOnCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles the OpenAPI corpus three times")
	}
	files, _ := filepath.Glob("../testdata/corpus/openapi/*")
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, ".source.json") {
			continue
		}
		n++
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		compile := func(pf *enrich.Prefetch) ([]byte, []byte) {
			opts := parse.Options{}
			if pf != nil {
				opts.Parsed = pf.Add
			}
			svc, err := parse.OpenAPI(f, data, opts)
			if pf != nil {
				pf.End()
			}
			if err != nil {
				t.Fatal(err)
			}
			ds, err := enrich.Run(svc, enrich.Options{Prefetch: pf})
			if err != nil {
				t.Fatal(err)
			}
			log, err := json.Marshal(ds)
			if err != nil {
				t.Fatal(err)
			}
			ir.Resolve(svc)
			return log, manifestOf(t, svc)
		}
		wantLog, wantManifest := compile(nil)
		ended := enrich.NewPrefetch(ir.SourceOpenAPI)
		ended.End()
		for name, pf := range map[string]*enrich.Prefetch{"during the parse": enrich.NewPrefetch(ir.SourceOpenAPI), "ended first": ended} {
			log, m := compile(pf)
			if !bytes.Equal(log, wantLog) {
				t.Errorf("%s, proposals prefetched %s: the decisions differ from enrich's alone", f, name)
			}
			if !bytes.Equal(m, wantManifest) {
				t.Errorf("%s, proposals prefetched %s: the manifest differs from enrich's alone", f, name)
			}
		}
	}
	if n < 10 {
		t.Errorf("%d OpenAPI documents", n)
	}
}
