package bench

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/pack"
)

// TestStubTokensCountEnrichMarks: StubTokens compiled each list without
// the marks a pack puts on enriched parameters, so it counted a module
// other than the one a pack writes (no "Required here" for a default the
// upstream resolves). It counts the module a pack writes.
func TestStubTokensCountEnrichMarks(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "t.json")
	list := `{"tools": [{"name": "list_issues", "description": "List issues.", "inputSchema": {"type": "object", "properties": {
		"assignee": {"type": "string", "description": "Whose issues. Defaults to the current user."}}}}]}`
	if err := os.WriteFile(f, []byte(list), 0o644); err != nil {
		t.Fatal(err)
	}
	stub, _, err := StubTokens(dir)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pack.Compile(context.Background(), &pack.Pack{Dir: ".", Out: "api", Services: []pack.Service{{MCP: f}}}, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	module := string(out.Files[out.Manifest.Services[0].File])
	if !strings.Contains(module, "Required here:") {
		t.Fatalf("the pack's module has no enrich mark:\n%s", module)
	}
	if want := Tokens(module); stub != want {
		t.Errorf("stub tokens %d, want %d (the module the pack writes)", stub, want)
	}
}
