package pack_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/internal/testpack"
	"github.com/codemode-dev/codemode/pack"
)

// spec is a one-operation OpenAPI document titled title.
func spec(title string) []byte {
	return []byte(`{"openapi": "3.0.0", "info": {"title": "` + title + `", "version": "1"},
  "paths": {"/ping": {"get": {"operationId": "ping", "responses": {"200": {"description": "ok"}}}}}}`)
}

const twoServices = `out: api
services:
  - name: alpha
    openapi: alpha.json
    base_url: http://alpha.invalid
  - name: beta
    openapi: beta.json
    base_url: http://beta.invalid
`

// buildTwo compiles twoServices in a temp dir and returns the dir.
func buildTwo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "alpha.json"), spec("Alpha"), 0o644)
	os.WriteFile(filepath.Join(dir, "beta.json"), spec("Beta"), 0o644)
	testpack.Build(t, dir, twoServices)
	return dir
}

// reload rewrites the pack file (not the generated files) and loads it.
func reload(t *testing.T, dir, yaml string) *pack.Pack {
	t.Helper()
	file := filepath.Join(dir, "codemode.yaml")
	if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := pack.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestServicesSwappedInPackRefused pins the bug where the pack's services
// were paired with the manifest's by position: with alpha's and beta's
// sources swapped in codemode.yaml and api/ not regenerated, alpha's calls
// went to beta's base URL with beta's auth. Now the runtime refuses to
// open, naming codemode gen.
func TestServicesSwappedInPackRefused(t *testing.T) {
	dir := buildTwo(t)
	swapped := strings.NewReplacer("openapi: alpha.json", "openapi: beta.json", "openapi: beta.json", "openapi: alpha.json").Replace(twoServices)
	p := reload(t, dir, swapped)
	g, err := p.ReadSurface()
	if err != nil {
		t.Fatal(err)
	}
	want := "the generated files in api do not match the pack: service alpha is openapi beta.json in the pack but openapi alpha.json in manifest.json; run codemode gen to regenerate them"
	if _, err := p.Upstreams(g.Manifest); err == nil || err.Error() != want {
		t.Fatalf("Upstreams: err = %v\nwant %s", err, want)
	}
	if _, err := p.OpenRuntime(t.Context(), nil); err == nil || err.Error() != want {
		t.Fatalf("OpenRuntime: err = %v\nwant %s", err, want)
	}
}

// TestServicesJoinedByName: the order of the pack's services does not
// matter; a service on one side only is refused.
func TestServicesJoinedByName(t *testing.T) {
	dir := buildTwo(t)
	reordered := "out: api\nservices:\n  - name: beta\n    openapi: beta.json\n  - name: alpha\n    openapi: alpha.json\n"
	p := reload(t, dir, reordered)
	g, err := p.ReadSurface()
	if err != nil {
		t.Fatal(err)
	}
	pairs, err := p.Join(g.Manifest)
	if err != nil {
		t.Fatal(err)
	}
	for _, pr := range pairs {
		if string(pr.Manifest.Name) != pr.Service.Name || pr.Manifest.Source.File != pr.Service.OpenAPI {
			t.Errorf("paired %s (%s) with %s (%s)", pr.Service.Name, pr.Service.OpenAPI, pr.Manifest.Name, pr.Manifest.Source.File)
		}
	}
	for _, c := range []struct{ yaml, want string }{
		{twoServices + "  - name: gamma\n    openapi: alpha.json\n", "service gamma (openapi alpha.json) is not in manifest.json"},
		{"out: api\nservices:\n  - name: alpha\n    openapi: alpha.json\n", "service beta (openapi beta.json) is in manifest.json but not in the pack"},
		{"out: api\nservices:\n  - openapi: beta.json\n  - name: alpha\n    openapi: alpha.json\n", ""},
		{"out: api\nservices:\n  - name: alpha\n    mcp: alpha.json\n  - name: beta\n    openapi: beta.json\n", "service alpha is mcp alpha.json in the pack but openapi alpha.json in manifest.json"},
	} {
		_, err := reload(t, dir, c.yaml).Join(g.Manifest)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v", c.yaml, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), ": "+c.want+"; run codemode gen")):
			t.Errorf("%q: err = %v, want %s", c.yaml, err, c.want)
		}
	}
}

// TestCommandIdentityAsWritten: the manifest records an mcp_command as the
// pack writes it (not resolved against the directory gen ran in), quoted
// so that it splits back into the same words.
func TestCommandIdentityAsWritten(t *testing.T) {
	for _, argv := range [][]string{{"./server", "stdio"}, {"server", "a b", `say "hi"`, ""}, {`C:\bin\x`}} {
		line := pack.JoinCommand(argv)
		back, err := pack.SplitCommand(line)
		if err != nil || strings.Join(back, "|") != strings.Join(argv, "|") || len(back) != len(argv) {
			t.Errorf("%q → %s → %q (%v)", argv, line, back, err)
		}
	}
	if got := pack.JoinCommand([]string{"../../bin/server", "stdio"}); got != "../../bin/server stdio" {
		t.Errorf("plain words quoted: %s", got)
	}
}
