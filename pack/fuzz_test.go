package pack_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/emit"
	"github.com/codemode-dev/codemode/enrich"
	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/manifest"
	"github.com/codemode-dev/codemode/parse"
)

// maxFuzzInput bounds the inputs FuzzCompile compiles: with the bound on
// output below, a pipeline that grows without limit fails the input
// instead of exhausting memory.
const maxFuzzInput = 64 << 10

// compileBytes runs data through the whole compile pipeline as an MCP tool
// list and as an OpenAPI document (whichever parses): parse, enrich,
// Resolve, the Python printer, the stubs, the manifest and the Go package
// (an OpenAPI document also compiled as a pack does, its proposals
// prefetched during the parse and Resolve following enrich, which must
// decide and print the same).
// It returns each generated .py by name, or an error for a pipeline
// invariant broken.
func compileBytes(data []byte) (map[string][]byte, error) {
	files := map[string][]byte{}
	for _, kind := range []string{"mcp", "openapi"} {
		var svc *ir.Service
		var err error
		if kind == "mcp" {
			svc, err = parse.MCP("fuzz.json", data, parse.Options{})
		} else {
			svc, err = parse.OpenAPI("fuzz.yaml", data, parse.Options{})
		}
		if err != nil {
			continue
		}
		if svc == nil {
			return nil, fmt.Errorf("%s: nil service without error", kind)
		}
		decisions, err := enrich.Run(svc, enrich.Options{})
		if err != nil {
			return nil, fmt.Errorf("%s: enrich: %v", kind, err)
		}
		ir.Resolve(svc)
		py, spans := emit.Python(svc)
		if kind == "openapi" {
			// The same as a pack compiles, with the proposals worked out
			// during the parse and Resolve following enrich: the same
			// decisions and the same module.
			pf := enrich.NewPrefetch(ir.SourceOpenAPI)
			again, err := parse.OpenAPI("fuzz.yaml", data, parse.Options{Parsed: pf.Add})
			pf.End()
			if err != nil {
				return nil, fmt.Errorf("%s: parsed once, not twice: %v", kind, err)
			}
			prefetched, err := enrich.RunResolving(again, enrich.Options{Prefetch: pf})
			if err != nil {
				return nil, fmt.Errorf("%s: enrich with its proposals prefetched: %v", kind, err)
			}
			if fmt.Sprint(prefetched) != fmt.Sprint(decisions) {
				return nil, fmt.Errorf("%s: enrich with its proposals prefetched decided otherwise:\n%v\nnot\n%v", kind, prefetched, decisions)
			}
			if py2, _ := emit.Python(again); string(py2) != string(py) {
				return nil, fmt.Errorf("%s: with Resolve following enrich, the module differs:\n%s\nnot\n%s", kind, py2, py)
			}
		}
		if err := manifest.CheckPython(py); err != nil {
			return nil, fmt.Errorf("%s: generated .py: %v\n%s", kind, err, py)
		}
		ms := emit.ManifestFor(svc, kind+".py", spans, nil)
		if err := manifest.CheckPython([]byte(ms.Stub)); err != nil {
			return nil, fmt.Errorf("%s: stub: %v\n%s", kind, err, ms.Stub)
		}
		if limit := 4<<20 + 256*len(data); len(py) > limit || len(ms.Stub) > limit {
			return nil, fmt.Errorf("%s: %d bytes of input printed %d bytes of Python", kind, len(data), len(py))
		}
		m := &manifest.Manifest{Version: manifest.Version, Services: []manifest.Service{ms}}
		if _, err := emit.GoPackage(emit.GoOptions{Package: "fuzz", Manifest: "api/manifest.json"}, m, []*ir.Service{svc}); err != nil {
			return nil, fmt.Errorf("%s: Go package: %v", kind, err)
		}
		files[kind+".py"] = py
	}
	return files, nil
}

// fuzzSeeds are the inputs FuzzCompile starts from: the crafted regression
// inputs and the small corpus files.
func fuzzSeeds(t testing.TB) map[string][]byte {
	seeds := map[string][]byte{}
	for _, pattern := range []string{"../testdata/unsafe/*.json", "../testdata/cycles/*.json", "../testdata/corpus/mcp/*.json", "../testdata/corpus/openapi/*.json", "../testdata/corpus/openapi/*.yaml"} {
		files, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if st, err := os.Stat(f); err != nil || st.Size() > maxFuzzInput {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			seeds[f] = b
		}
	}
	return seeds
}

// inlineSeeds are small inputs that reach the normaliser and the cycle
// guards directly.
var inlineSeeds = [][]byte{
	[]byte(`[{"name":"a","description":"x\ry\u2028z\u0000","inputSchema":{"properties":{"self":{"enum":["\r"]}}}}]`),
	[]byte(`[{"name":"a","inputSchema":{"properties":{"a":{"$ref":"#"}}}}]`),
	[]byte(`[{"name":"a","description":"\"\"","inputSchema":{"properties":{"b":{"description":"\\"},"c":{"description":"\"\"\"\"\""}}}}]`),
	[]byte("openapi: 3.0.0\ninfo: {title: \"a\\rb\"}\npaths:\n  /a:\n    get:\n      description: \"x\\u2029y\"\n"),
}

// FuzzCompile: no input makes the pipeline crash, run away or print a .py
// (or stub) that breaks the invariants manifest.CheckPython checks.
func FuzzCompile(f *testing.F) {
	for _, b := range fuzzSeeds(f) {
		f.Add(b)
	}
	for _, b := range inlineSeeds {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxFuzzInput {
			return
		}
		if _, err := compileBytes(data); err != nil {
			t.Fatal(err)
		}
	})
}

// TestCompileSeedsParseInPython: what FuzzCompile starts from compiles,
// and every .py it prints is read by python3 as the printers meant.
func TestCompileSeedsParseInPython(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	dir := t.TempDir()
	args := []string{"-c", pyCheck}
	n := 0
	seeds := fuzzSeeds(t)
	for i, b := range inlineSeeds {
		seeds[fmt.Sprint("inline ", i)] = b
	}
	for name, data := range seeds {
		files, err := compileBytes(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for kind, src := range files {
			n++
			f := filepath.Join(dir, fmt.Sprintf("%d-%s", n, kind))
			if err := os.WriteFile(f, src, 0o644); err != nil {
				t.Fatal(err)
			}
			args = append(args, f)
		}
	}
	if n < 20 {
		t.Fatalf("only %d files from the seeds", n)
	}
	if res, err := exec.Command(py, args...).CombinedOutput(); err != nil {
		t.Fatalf("python3 refuses a generated file: %v\n%s", err, res)
	}
}

// TestDeepSchemaCompilesInLinearSpace: a schema nested 3,000 levels (an
// object in an object, 100 kB) cost 1.7 s and 560 MB to compile and wrote
// a 90 MB manifest: shape names, key-order pointers and the manifest's
// indentation all grew with the square of the depth. The types stop at
// MaxSchemaDepth with a type-too-deep diagnostic, and the output stays
// within a small multiple of the input.
func TestDeepSchemaCompilesInLinearSpace(t *testing.T) {
	const n = 3000
	src := `{"tools":[{"name":"t","inputSchema":{"type":"object","properties":{"a":` +
		strings.Repeat(`{"type":"object","properties":{"k":`, n) + `{"type":"string"}` + strings.Repeat(`}}`, n) + `}}}]}`
	svc, err := parse.MCP("deep.json", []byte(src), parse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ir.Resolve(svc)
	py, spans := emit.Python(svc)
	m, err := manifest.Marshal(&manifest.Manifest{Version: manifest.Version, Services: []manifest.Service{emit.ManifestFor(svc, "deep.py", spans, nil)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(py) > 16<<10 || len(m) > 4*len(src) {
		t.Errorf("%d bytes of input printed %d bytes of Python and a %d-byte manifest", len(src), len(py), len(m))
	}
	var codes []string
	for _, d := range svc.Diagnostics {
		codes = append(codes, string(d.Code)+" "+d.Pointer[:min(len(d.Pointer), 40)])
	}
	if want := []string{"type-too-deep /tools/0/inputSchema/properties/a"}; !slices.Equal(codes, want) {
		t.Errorf("diagnostics %q, want %q", codes, want)
	}
	if err := manifest.CheckPython(py); err != nil {
		t.Error(err)
	}
}
