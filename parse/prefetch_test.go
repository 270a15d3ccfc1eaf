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
// manifest enrich alone gives, and so do a Prefetch ended before the parse
// starts (one that reached nothing) and Resolve following enrich tool by
// tool (enrich.RunResolving, as a pack compiles too). Run with -race, it
// also holds the parser to its word that a tool it has handed on is not
// changed while the Prefetch reads it, and enrich and Resolve to theirs
// that neither changes what the other reads.
func TestPrefetchedEnrichMatchesRunOnCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles the OpenAPI corpus five times")
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
		compile := func(pf *enrich.Prefetch, following bool) ([]byte, []byte) {
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
			var ds []enrich.Decision
			if following {
				ds, err = enrich.RunResolving(svc, enrich.Options{Prefetch: pf})
			} else {
				ds, err = enrich.Run(svc, enrich.Options{Prefetch: pf})
				ir.Resolve(svc)
			}
			if err != nil {
				t.Fatal(err)
			}
			log, err := json.Marshal(ds)
			if err != nil {
				t.Fatal(err)
			}
			return log, manifestOf(t, svc)
		}
		wantLog, wantManifest := compile(nil, false)
		ended := enrich.NewPrefetch(ir.SourceOpenAPI)
		ended.End()
		for _, c := range []struct {
			name      string
			pf        *enrich.Prefetch
			following bool
		}{
			{"proposals prefetched during the parse", enrich.NewPrefetch(ir.SourceOpenAPI), false},
			{"proposals prefetched by a Prefetch ended first", ended, false},
			{"Resolve following enrich", nil, true},
			{"proposals prefetched, Resolve following enrich", enrich.NewPrefetch(ir.SourceOpenAPI), true},
		} {
			log, m := compile(c.pf, c.following)
			if !bytes.Equal(log, wantLog) {
				t.Errorf("%s, %s: the decisions differ from enrich's alone", f, c.name)
			}
			if !bytes.Equal(m, wantManifest) {
				t.Errorf("%s, %s: the manifest differs from enrich's alone", f, c.name)
			}
		}
	}
	if n < 10 {
		t.Errorf("%d OpenAPI documents", n)
	}
}
