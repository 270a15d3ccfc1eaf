package enrich_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/enrich"
	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/parse"
)

// TestAuditedHeldApartDecisions: every decision of testdata/audit.jsonl
// (accepted decisions on the held-apart lists, judged by hand; see
// testdata/README.md) is taken as judged: a right one still accepted, a
// wrong one not (rejected, or not proposed).
func TestAuditedHeldApartDecisions(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles the held-apart lists")
	}
	f, err := os.Open("testdata/audit.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type judged struct {
		File, ID, Why string
		Accepted      bool
	}
	byFile := map[string][]judged{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var j judged
		if err := json.Unmarshal(sc.Bytes(), &j); err != nil {
			t.Fatal(err)
		}
		byFile[j.File] = append(byFile[j.File], j)
	}
	n, wrong := 0, 0
	for file, js := range byFile {
		path := filepath.Join("..", "testdata", "heldapart", file)
		var svc *ir.Service
		if strings.HasPrefix(file, "mcp/") {
			svc, err = parse.MCPFile(path, parse.Options{})
		} else {
			svc, err = parse.OpenAPIFile(path, parse.Options{})
		}
		if err != nil {
			t.Fatal(err)
		}
		ds, err := enrich.Run(svc, enrich.Options{})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]enrich.Decision{}
		for _, d := range ds {
			got[d.ID] = d
		}
		for _, j := range js {
			n++
			if !j.Accepted {
				wrong++
			}
			if d := got[j.ID]; d.Accepted != j.Accepted {
				t.Errorf("%s %s: accepted %v (%s), judged %v %s", file, j.ID, d.Accepted, d.Reason, j.Accepted, j.Why)
			}
		}
	}
	if n != 216 || wrong != 30 {
		t.Errorf("%d judged decisions, %d of them wrong; want 216 and 30", n, wrong)
	}
}
