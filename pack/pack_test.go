package pack_test

import (
	"bytes"
	"context"
	"github.com/codemode-dev/codemode/internal/testpack"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/golden"
	"github.com/codemode-dev/codemode/pack"
	"github.com/codemode-dev/codemode/readgate"
	"github.com/codemode-dev/codemode/runtime"
)

// TestGolden compiles each case under testdata/golden/<case>/ (a pack file
// and its input, copied from the corpus) and compares the output with
// <case>/want/. Run with -update to rewrite want/ and review the diff.
func TestGolden(t *testing.T) {
	cases, err := filepath.Glob("../testdata/golden/*/codemode.yaml")
	if err != nil || len(cases) == 0 {
		t.Fatalf("no golden cases: %v", err)
	}
	for _, c := range cases {
		dir := filepath.Dir(c)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			p, err := pack.Load(c)
			if err != nil {
				t.Fatal(err)
			}
			out, err := pack.Compile(context.Background(), p, pack.Options{})
			if err != nil {
				t.Fatal(err)
			}
			golden.Dir(t, filepath.Join(dir, "want"), out.Files)
		})
	}
}

// corpusPacks builds a one-service pack for every corpus file.
func corpusPacks(t testing.TB) map[string]*pack.Pack {
	packs := map[string]*pack.Pack{}
	for _, kind := range []string{"mcp", "openapi"} {
		files, _ := filepath.Glob("../testdata/corpus/" + kind + "/*")
		for _, f := range files {
			if strings.HasSuffix(f, ".source.json") {
				continue
			}
			src := pack.Service{MCP: f}
			if kind == "openapi" {
				src = pack.Service{OpenAPI: f}
			}
			packs[kind+"/"+filepath.Base(f)] = &pack.Pack{Dir: ".", Out: "api", Services: []pack.Service{src}}
		}
	}
	if len(packs) < 31 {
		t.Fatalf("corpus has %d files, want 31", len(packs))
	}
	return packs
}

func sortedNames(m map[string]*pack.Pack) []string {
	var names []string
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// TestCorpusCompiles compiles every corpus file (with and without
// enrichment) and checks that two compiles give identical bytes.
func TestCorpusCompiles(t *testing.T) {
	packs := corpusPacks(t)
	for _, name := range sortedNames(packs) {
		p := packs[name]
		t.Run(name, func(t *testing.T) {
			if testing.Short() && strings.Contains(name, "github-rest") {
				t.Skip("github-rest is compiled by the benchmark and the full run")
			}
			ctx := context.Background()
			a, err := pack.Compile(ctx, p, pack.Options{})
			if err != nil {
				t.Fatal(err)
			}
			b, err := pack.Compile(ctx, p, pack.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for f, data := range a.Files {
				if !bytes.Equal(data, b.Files[f]) {
					t.Errorf("%s: two compiles differ", f)
				}
			}
			if _, err := pack.Compile(ctx, p, pack.Options{NoEnrich: true}); err != nil {
				t.Fatalf("--no-enrich: %v", err)
			}
		})
	}
}

func BenchmarkCompileGitHub(b *testing.B) {
	p := &pack.Pack{Dir: ".", Out: "api", Services: []pack.Service{{OpenAPI: "../testdata/corpus/openapi/github-rest.json"}}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := pack.Compile(context.Background(), p, pack.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func TestWriteDirReplacesAtomically(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "api")
	if err := pack.WriteDir(dir, map[string][]byte{"a.py": []byte("1"), "old.py": []byte("x")}); err != nil {
		t.Fatal(err)
	}
	if err := pack.WriteDir(dir, map[string][]byte{"a.py": []byte("2")}); err != nil {
		t.Fatal(err)
	}
	got, err := golden.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || string(got["a.py"]) != "2" {
		t.Errorf("dir holds %v", got)
	}
	entries, _ := os.ReadDir(filepath.Dir(dir))
	if len(entries) != 1 {
		t.Errorf("temp dirs left behind: %v", entries)
	}
}

func TestBadSources(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"tools": [`), 0o644)
	notOpenAPI := filepath.Join(dir, "x.yaml")
	os.WriteFile(notOpenAPI, []byte("hello: world\n"), 0o644)
	for _, c := range []struct {
		src  pack.Service
		want string
	}{
		{pack.Service{MCP: bad}, bad + ": invalid JSON: unexpected end of input"},
		{pack.Service{OpenAPI: notOpenAPI}, notOpenAPI + ": not an OpenAPI document: no \"openapi\" or \"swagger\" version"},
		{pack.Service{MCP: filepath.Join(dir, "missing.json")}, filepath.Join(dir, "missing.json") + ": no such file or directory"},
	} {
		p := &pack.Pack{Dir: ".", Out: filepath.Join(dir, "api"), Services: []pack.Service{c.src}}
		_, err := pack.Compile(context.Background(), p, pack.Options{})
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: err = %v, want %s", c.src.Describe(), err, c.want)
		}
	}
}

// TestIgnoreRules: reviewed diagnostics are silenced by code or by code and
// source, and a rule that silences nothing is reported.
func TestIgnoreRules(t *testing.T) {
	p, err := pack.Parse([]byte(`out: api
services:
  - openapi: ../testdata/golden/train/train-travel.json
ignore:
  - webhook-skipped ../testdata/golden/train/train-travel.json#/webhooks/
  - approximated-keyword
  - body-content-type
`))
	if err != nil {
		t.Fatal(err)
	}
	p.Dir = "."
	out, err := pack.Compile(context.Background(), p, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range out.Diagnostics {
		got = append(got, d.String())
	}
	want := []string{`warning: codemode.yaml#/ignore/2: ignore rule "body-content-type" matches no diagnostic; remove it [unused-ignore]`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// BenchmarkOpenRuntimeGitHub opens a runtime over the compiled GitHub REST
// pack (1,223 operations): read the manifest, prepare validation, start the
// pool, then run one checked call that fails at the (absent) upstream.
func BenchmarkOpenRuntimeGitHub(b *testing.B) {
	dir := b.TempDir()
	p := &pack.Pack{Dir: dir, Out: "api", Services: []pack.Service{{
		OpenAPI: mustAbs(b, "../testdata/corpus/openapi/github-rest.json"), BaseURL: "http://127.0.0.1:9",
	}}}
	out, err := pack.Compile(context.Background(), p, pack.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if err := pack.WriteDir(p.Path(p.Out), out.Files); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		rt, err := p.OpenRuntime(context.Background(), func(c *runtime.Config) { c.ReadGate = readgate.Off })
		if err != nil {
			b.Fatal(err)
		}
		res, err := rt.Run(context.Background(), "b", `
try:
    api.github_rest.issues_create(owner="o", repo="r", title="t")
except RuntimeError:
    pass
`)
		if err != nil || !res.OK() {
			b.Fatal(err, res.Error)
		}
		rt.Close()
	}
}

func mustAbs(b *testing.B, p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		b.Fatal(err)
	}
	return a
}

// TestREADMEPackExample keeps the README's pack file example valid.
func TestREADMEPackExample(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "### The pack file")
	if !ok {
		t.Fatal("README has no pack file section")
	}
	_, rest, _ = strings.Cut(rest, "```yaml\n")
	example, _, _ := strings.Cut(rest, "```")
	p, err := pack.Parse([]byte(example))
	if err != nil {
		t.Fatalf("the README's pack example: %v", err)
	}
	if len(p.Services) != 2 || p.Services[0].Wait != "acme/wait" || p.Services[1].Auth.TokenEnv != "PETS_KEY" || len(p.Ignore) != 1 {
		t.Errorf("parsed %+v", p)
	}
}

func TestBadPackFiles(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{"out: api\nservce:\n  - mcp: a.json\n", `bad pack file: line 2: unknown key "servce"`},
		{"out: [\n", "bad pack file: line 1: did not find expected node content"},
		{"services: []\n", "pack has no services"},
		{"services:\n  - mcp: a.json\n    openapi: b.json\n", "services[0]: set exactly one of mcp, mcp_command, mcp_url, openapi"},
		{"services:\n  - mcp: a.json\n    auth: {type: oauth}\n", "services[0].auth.type: oauth is for an mcp_url service (an OpenAPI service takes bearer, basic or apiKey)"},
		{"services:\n  - mcp: a.json\nruntime:\n  read_gate: sometimes\n", `runtime.read_gate: "sometimes" is not file, tool or off`},
		{"services:\n  - mcp: a.json\nruntime:\n  sandbox: off\n", `runtime.sandbox: "off" is not on or none`},
		{"services:\n  - mcp_command: \"a 'b\"\n", `unterminated quote in command "a 'b"`},
		{"services:\n  - mcp: a.json\n    grant:\n", `services[0].grant: no value; list the tools to grant by wire name ([] grants none), or leave grant: out to grant every tool`},
	} {
		_, err := pack.Parse([]byte(c.yaml))
		if err == nil || !strings.HasSuffix(err.Error(), c.want) {
			t.Errorf("%q: err = %v, want %s", c.yaml, err, c.want)
		}
	}
}

// TestRuntimeMontyFromPack: runtime.monty names the sandbox binary,
// relative to the pack; a wrong one fails closed before any worker starts,
// naming the key and the file.
func TestRuntimeMontyFromPack(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "tools.json"), []byte(`{"tools": [{"name": "ping", "inputSchema": {"type": "object"}}]}`), 0o644)
	p := testpack.Build(t, dir, "services:\n  - mcp: tools.json\nruntime:\n  monty: bin/monty\n")
	_, err := p.OpenRuntime(context.Background(), nil)
	want := filepath.Join(dir, "bin", "monty")
	if err == nil || !strings.HasPrefix(err.Error(), "runtime.monty: ") || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want it to name %s", err, want)
	}
}
