package parse

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/ir"
)

// TestLabelPointers checks that every labelled top-level parameter of the
// enrichment set is a Param with the same pointer, location, requiredness
// and description: the enrichment log and the IR must name parameters alike.
func TestLabelPointers(t *testing.T) {
	f, err := os.Open("../testdata/corpus/labels/enrich.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	services := map[string]*ir.Service{}
	checked := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var rec struct {
			ID, File, Tool, Pointer, In, Description string
			Required                                 bool
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		nested := strings.Count(rec.Pointer, "/properties/") > 1 || strings.Contains(rec.Pointer, "/items") || strings.Contains(rec.Pointer, "Of/")
		if nested {
			continue // a pointer inside a parameter's schema
		}
		if strings.HasSuffix(rec.File, "github-rest.json") && testing.Short() {
			continue
		}
		svc := services[rec.File]
		if svc == nil {
			path := "../testdata/corpus/" + rec.File
			if strings.HasPrefix(rec.File, "mcp/") {
				svc, err = MCPFile(path, Options{})
			} else {
				svc, err = OpenAPIFile(path, Options{})
			}
			if err != nil {
				t.Fatal(err)
			}
			services[rec.File] = svc
		}
		var tool *ir.Tool
		for _, tl := range svc.Tools {
			if string(tl.Wire) == rec.Tool {
				tool = tl
			}
		}
		if tool == nil {
			t.Errorf("%s: no tool", rec.ID)
			continue
		}
		var param *ir.Param
		for _, p := range tool.Params {
			if string(p.Ref) == rec.Pointer {
				param = p
			}
		}
		if param == nil {
			t.Errorf("%s: no param with this pointer", rec.ID)
			continue
		}
		checked++
		wantIn := rec.In
		if wantIn == "mcp-input" {
			wantIn = "arg"
		}
		if string(param.In) != wantIn || param.Required != rec.Required || param.Description != rec.Description {
			t.Errorf("%s: got in=%s required=%v description=%q; label in=%s required=%v description=%q", rec.ID, param.In, param.Required, param.Description, rec.In, rec.Required, rec.Description)
		}
	}
	if checked < 100 {
		t.Errorf("checked only %d labels", checked)
	}
	t.Logf("checked %d labelled parameters", checked)
}
