package pack_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/manifest"
	"github.com/codemode-dev/codemode/pack"
	"github.com/codemode-dev/codemode/runtime/monty"
)

// compileSources compiles the given testdata sources (paths relative to
// ../testdata) as one pack, with a Go package, and fails on an error.
func compileSources(t *testing.T, srcs ...pack.Service) *pack.Output {
	t.Helper()
	for i := range srcs {
		if srcs[i].MCP != "" {
			srcs[i].MCP = filepath.Join("..", "testdata", srcs[i].MCP)
		}
		if srcs[i].OpenAPI != "" {
			srcs[i].OpenAPI = filepath.Join("..", "testdata", srcs[i].OpenAPI)
		}
	}
	p := &pack.Pack{Dir: ".", Out: "api", GoPackage: "gopkg", Services: srcs}
	out, err := pack.Compile(context.Background(), p, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// pyCheck is run by python3 over generated files (read as bytes, as the
// interpreter reads a module): each must parse, and its top level may hold
// only what the printers write — the module docstring, the typing import,
// TypedDict classes and assignments, Literal aliases of constants, defs —
// so no source text became code.
const pyCheck = `
import ast, sys
for f in sys.argv[1:]:
    tree = ast.parse(open(f, "rb").read(), f)
    for i, node in enumerate(tree.body):
        ok = (isinstance(node, (ast.FunctionDef, ast.ClassDef))
              or isinstance(node, ast.ImportFrom) and node.module == "typing"
              or isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and getattr(node.value.func, "id", "") == "TypedDict"
              or isinstance(node, ast.Assign) and isinstance(node.value, ast.Subscript) and getattr(node.value.value, "id", "") == "Literal"
                 and all(isinstance(e, (ast.Constant, ast.UnaryOp)) for e in (node.value.slice.elts if isinstance(node.value.slice, ast.Tuple) else [node.value.slice]))
              or i == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))
        if not ok:
            sys.exit("%s:%d: unexpected top-level %s" % (f, node.lineno, type(node).__name__))
        for sub in ast.walk(node):
            if isinstance(sub, ast.FunctionDef) and not (len(sub.body) == 1 or len(sub.body) == 2 and isinstance(sub.body[0], ast.Expr)):
                sys.exit("%s:%d: def %s has a body" % (f, sub.lineno, sub.name))
`

// pythonParses runs pyCheck over every .py file of out (skipped where
// python3 is not installed: gen itself never needs it).
func pythonParses(t *testing.T, out *pack.Output) {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	dir := t.TempDir()
	args := []string{"-c", pyCheck}
	for name, data := range out.Files {
		if strings.HasSuffix(name, ".py") {
			f := filepath.Join(dir, name)
			if err := os.WriteFile(f, data, 0o644); err != nil {
				t.Fatal(err)
			}
			args = append(args, f)
		}
	}
	if res, err := exec.Command(py, args...).CombinedOutput(); err != nil {
		t.Fatalf("python3 refuses a generated file: %v\n%s", err, res)
	}
}

// runPython runs a generated module and returns what it printed.
func runPython(t *testing.T, src []byte) string {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	f := filepath.Join(t.TempDir(), "mod.py")
	if err := os.WriteFile(f, src, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := exec.Command(py, f).CombinedOutput()
	if err != nil {
		t.Fatalf("python3 %s: %v\n%s", f, err, res)
	}
	return string(res)
}

// TestLoneCRInDescriptionNotCode: a lone CR (and U+2028, NEL, form feed,
// vertical tab) in every text a tools/list or an OpenAPI document puts into
// the .py — descriptions, titles, patterns, formats, enum values,
// defaults, keys, names, versions — stays text: running the module prints
// nothing, python3 and the Go-side check parse it, the stubs type-check,
// and the enum value keeps its CR in the Literal.
func TestLoneCRInDescriptionNotCode(t *testing.T) {
	out := compileSources(t, pack.Service{MCP: "unsafe/mcp-injection.json"}, pack.Service{OpenAPI: "unsafe/openapi-injection.json"})
	for _, ms := range out.Manifest.Services {
		src := out.Files[ms.File]
		if got := runPython(t, src); got != "" {
			t.Errorf("python3 %s printed %q", ms.File, got)
		}
		if err := manifest.CheckPython(src); err != nil {
			t.Errorf("%s: %v", ms.File, err)
		}
		for _, bad := range []string{"\r", "\x00", "\u2028", "\u2029", "\u0085", "\f", "\v", "\u202e"} {
			if strings.Contains(string(src), bad) {
				t.Errorf("%s contains %q", ms.File, bad)
			}
		}
	}
	pythonParses(t, out)
	if !strings.Contains(string(out.Files["crlf.py"]), `Literal["a\x0dimport os; print(\"INJECTED\")", "b\x00", "c\u2028d", "e\x85f", "g\u202eh"]`) {
		t.Errorf("enum values not kept exactly in the Literal:\n%s", out.Files["crlf.py"])
	}
	bin, err := monty.FindBinary()
	if err != nil {
		t.Fatal(err)
	}
	var ms []*manifest.Service
	for i := range out.Manifest.Services {
		ms = append(ms, &out.Manifest.Services[i])
	}
	stubs := manifest.AssembleStubs(ms)
	typeCheck(t, bin, stubs, "api.crlf.note_import_os(text=\"a\", self_=\"b\", kind_import_os_print_INJECTED=\"a\\rimport os; print(\\\"INJECTED\\\")\")\napi.crlf.after(xs=[\"x\"])\n", "")
	typeCheck(t, bin, stubs, "api.crlf.after(xs=[1])\n", "error[invalid-argument-type]")
	typeCheck(t, bin, stubs, "api.openapi_injection.addNote_import_os_print_INJECTED(id=\"1\", text=\"t\", self_=\"b\\u2028c\")\n", "")
	typeCheck(t, bin, stubs, "api.openapi_injection.addNote_import_os_print_INJECTED(id=\"1\", text=\"t\", self_=\"b\")\n", "error[invalid-argument-type]")
	// The Go package's comments are one line each too.
	for _, tr := range out.Trees {
		for name, data := range tr.Files {
			if strings.HasSuffix(name, ".go") && strings.ContainsAny(string(data), "\r\x00\u2028") {
				t.Errorf("%s contains a CR, NUL or U+2028", name)
			}
		}
	}
}

// TestSelfParameterPassesByKeyword: a parameter named self (MCP and
// OpenAPI) is renamed self_ by the naming rule, the wire name is kept in
// the manifest, and the stub method accepts it by keyword; a tool named
// list does not shadow list[...] in the annotations after it.
func TestSelfParameterPassesByKeyword(t *testing.T) {
	out := compileSources(t, pack.Service{MCP: "unsafe/mcp-injection.json"})
	ms := &out.Manifest.Services[0]
	found := false
	for _, mt := range ms.Tools {
		for _, mp := range mt.Params {
			if mp.Arg == "self" {
				found = true
				if mp.Py != "self_" {
					t.Errorf("parameter self is %q in Python", mp.Py)
				}
			}
		}
		if mt.Wire == "list" && mt.Py != "list_" {
			t.Errorf("tool list is %q in Python", mt.Py)
		}
	}
	if !found {
		t.Fatal("no parameter self in the manifest")
	}
	bin, err := monty.FindBinary()
	if err != nil {
		t.Fatal(err)
	}
	stubs := manifest.AssembleStubs([]*manifest.Service{ms})
	typeCheck(t, bin, stubs, "api.crlf.note_import_os(text=\"a\", self_=\"b\")\napi.crlf.list_(str_=\"s\")\n", "")
	// The module itself, as the checker reads it, binds self_ too.
	pyStubs := string(out.Files[ms.File]) + "\n__all__ = [\"note_import_os\", \"after\"]\n"
	typeCheck(t, bin, pyStubs, "note_import_os(text=\"a\", self_=\"b\")\nafter(xs=[\"x\"])\n", "")
	typeCheck(t, bin, pyStubs, "after(xs=\"x\")\n", "error[invalid-argument-type]")
}

// TestNULInDescriptionParses: a NUL in a description (MCP and OpenAPI)
// made a .py that Python refused; it is now U+FFFD in the text and \x00 in
// a literal.
func TestNULInDescriptionParses(t *testing.T) {
	out := compileSources(t, pack.Service{MCP: "unsafe/mcp-injection.json"}, pack.Service{OpenAPI: "unsafe/openapi-injection.json"})
	pythonParses(t, out)
	if !strings.Contains(string(out.Files["crlf.py"]), "# a\uFFFDb") {
		t.Errorf("NUL in a description not printed as U+FFFD")
	}
}

// TestDeepArrayTypeBreaksNoCheck: an array type nested 200 levels made a
// .py Python refused and a stub that left api undefined for every program
// of the pack. It becomes Any below MaxTypeDepth with a type-too-deep
// diagnostic, the file parses, and both services' calls are checked.
func TestDeepArrayTypeBreaksNoCheck(t *testing.T) {
	out := compileSources(t, pack.Service{MCP: "unsafe/mcp-deep.json"}, pack.Service{MCP: "unsafe/mcp-injection.json"})
	var diag *ir.Diagnostic
	for i, d := range out.Diagnostics {
		if d.Code == "type-too-deep" {
			if diag != nil {
				t.Errorf("second type-too-deep diagnostic: %s", d)
			}
			diag = &out.Diagnostics[i]
		}
	}
	if diag == nil {
		t.Fatal("no type-too-deep diagnostic")
	}
	if want := "/tools/0/inputSchema/properties/a" + strings.Repeat("/items", ir.MaxTypeDepth-1); diag.Pointer != want {
		t.Errorf("pointer %s, want %s", diag.Pointer, want)
	}
	pythonParses(t, out)
	bin, err := monty.FindBinary()
	if err != nil {
		t.Fatal(err)
	}
	var ms []*manifest.Service
	for i := range out.Manifest.Services {
		ms = append(ms, &out.Manifest.Services[i])
	}
	stubs := manifest.AssembleStubs(ms)
	typeCheck(t, bin, stubs, "api.mcp_deep.flat(q=\"x\")\napi.mcp_deep.deep(a=[])\napi.crlf.after(xs=[\"x\"])\n", "")
	typeCheck(t, bin, stubs, "api.mcp_deep.deep(a=1)\n", "error[invalid-argument-type]")
	typeCheck(t, bin, stubs, "api.crlf.after(xs=1)\n", "error[invalid-argument-type]")
}

// TestBadStubInManifestBreaksNoOtherService: a manifest whose stub the
// checker cannot read (one written by an older gen, say, with a type nested
// 250 levels) no longer leaves api undefined for every program: that
// service's calls go unchecked, the others' are checked as before.
func TestBadStubInManifestBreaksNoOtherService(t *testing.T) {
	out := compileSources(t, pack.Service{MCP: "unsafe/mcp-injection.json"})
	good := &out.Manifest.Services[0]
	deep := strings.Repeat("list[", 250) + "int" + strings.Repeat("]", 250)
	bad := &manifest.Service{Name: "old", Stub: "\n\nclass _svc_old:\n    def t(self, a: " + deep + ") -> Any:\n        ...\n"}
	if manifest.CheckPython([]byte(bad.Stub)) == nil {
		t.Fatal("CheckPython passes a 250-level nesting")
	}
	bin, err := monty.FindBinary()
	if err != nil {
		t.Fatal(err)
	}
	stubs := manifest.AssembleStubs([]*manifest.Service{bad, good})
	typeCheck(t, bin, stubs, "api.old.t(a=[])\napi.crlf.after(xs=[\"x\"])\n", "")
	typeCheck(t, bin, stubs, "api.crlf.after(xs=1)\n", "error[invalid-argument-type]")
}

// TestBuiltinNamesDoNotShadowAnnotations: a tool named list made every
// later list[...] annotation mean that function, and a TypedDict key named
// bool or int (class form) did the same inside the class, so Monty's
// checker accepted wrong types. Such names are reserved: the tool is list_,
// the shape takes the functional form, and wrong calls are refused.
func TestBuiltinNamesDoNotShadowAnnotations(t *testing.T) {
	out := compileSources(t, pack.Service{MCP: "unsafe/mcp-builtin-names.json"})
	ms := &out.Manifest.Services[0]
	py := string(out.Files[ms.File])
	for _, want := range []string{"def list_(\n    *,\n    str_: str = None,  # Wire name \"str\".\n    self_: int = None,  # Wire name \"self\".\n) -> Any:", `"bool": bool,`, "def after(xs: list[str]) -> Any:"} {
		if !strings.Contains(py, want) {
			t.Errorf("no %q in\n%s", want, py)
		}
	}
	pythonParses(t, out)
	bin, err := monty.FindBinary()
	if err != nil {
		t.Fatal(err)
	}
	stubs := manifest.AssembleStubs([]*manifest.Service{ms})
	typeCheck(t, bin, stubs, "api.mcp_builtin_names.list_(str_=\"a\", self_=1)\napi.mcp_builtin_names.attrs(a={\"bool\": True, \"int\": 1, \"bools\": [False], \"self\": \"s\"})\napi.mcp_builtin_names.after(xs=[\"x\"])\n", "")
	typeCheck(t, bin, stubs, "api.mcp_builtin_names.attrs(a={\"int\": \"x\"})\n", "error[invalid-argument-type]")
	typeCheck(t, bin, stubs, "api.mcp_builtin_names.after(xs=1)\n", "error[invalid-argument-type]")
	pyStubs := py + "\n__all__ = [\"attrs\", \"after\"]\n"
	typeCheck(t, bin, pyStubs, "attrs(a={\"bools\": [1]})\n", "error[invalid-argument-type]")
	typeCheck(t, bin, pyStubs, "after(xs=1)\n", "error[invalid-argument-type]")
}

// TestStubMontyCannotReadRefusedAtGen: a stub that passes the Go-side
// check but that Monty's checker cannot use (here an indented class, which
// its parser recovers from by dropping the class: no program would then
// be checked at all) is refused by CheckStubs, which gen runs before
// writing; a good one passes.
func TestStubMontyCannotReadRefusedAtGen(t *testing.T) {
	out := compileSources(t, pack.Service{MCP: "unsafe/mcp-builtin-names.json"})
	p := &pack.Pack{Dir: "."}
	if err := out.CheckStubs(context.Background(), p); err != nil {
		t.Fatalf("a good stub refused: %v", err)
	}
	bad := "\n\n  class _svc_mcp_builtin_names:\n    def t(self, a: int) -> Any:\n        ...\n"
	if err := manifest.CheckPython([]byte(bad)); err != nil {
		t.Fatalf("CheckPython: %v", err)
	}
	out.Manifest.Services[0].Stub = bad
	err := out.CheckStubs(context.Background(), p)
	if err == nil || !strings.Contains(err.Error(), "codemode bug: Monty's type checker cannot read the stub of mcp_builtin_names.py (") {
		t.Fatalf("CheckStubs = %v", err)
	}
	p.Runtime.Monty = "no/such/monty"
	if err := out.CheckStubs(context.Background(), p); err == nil || errors.Is(err, pack.ErrNoMonty) {
		t.Fatalf("a missing runtime.monty: %v", err)
	}
}

// TestCorpusParsesInPython: every .py generated from the corpus is read by python3 as the printers meant, and its
// stub passes CheckPython (Compile refuses otherwise).
func TestCorpusParsesInPython(t *testing.T) {
	packs := corpusPacks(t)
	all := &pack.Output{Files: map[string][]byte{}}
	for _, name := range sortedNames(packs) {
		if testing.Short() && strings.Contains(name, "github-rest") {
			continue
		}
		out, err := pack.Compile(context.Background(), packs[name], pack.Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for f, data := range out.Files {
			if strings.HasSuffix(f, ".py") {
				all.Files[strings.ReplaceAll(name, "/", "-")+"-"+f] = data
			}
		}
	}
	if len(all.Files) < 30 {
		t.Fatalf("only %d files", len(all.Files))
	}
	pythonParses(t, all)
}
