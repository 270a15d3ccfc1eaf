package parse

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestOpenAPICorpus(t *testing.T) {
	files, _ := filepath.Glob("../testdata/corpus/openapi/*")
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, ".source.json") || strings.HasSuffix(f, "github-rest.json") && testing.Short() {
			continue
		}
		n++
		svc, err := OpenAPIFile(f, Options{})
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		params := 0
		for _, tool := range svc.Tools {
			params += len(tool.Params)
		}
		codes := map[string]int{}
		for _, d := range svc.Diagnostics {
			codes[d.Code]++
		}
		t.Logf("%s: %s tools=%d params=%d diags=%d %v", filepath.Base(f), svc.Name, len(svc.Tools), params, len(svc.Diagnostics), codes)
	}
	if n == 0 {
		t.Fatal("no corpus files")
	}
}
