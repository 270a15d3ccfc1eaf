package parse

import (
	"path/filepath"
	"testing"
)

func TestMCPCorpus(t *testing.T) {
	files, _ := filepath.Glob("../testdata/corpus/mcp/*.json")
	if len(files) == 0 {
		t.Fatal("no corpus files")
	}
	for _, f := range files {
		svc, err := MCPFile(f, Options{})
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		n := 0
		for _, tool := range svc.Tools {
			n += len(tool.Params)
		}
		t.Logf("%s: %s tools=%d params=%d diags=%d", filepath.Base(f), svc.Name, len(svc.Tools), n, len(svc.Diagnostics))
	}
}
