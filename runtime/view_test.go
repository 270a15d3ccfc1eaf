package runtime

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/emit"
	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/manifest"
	"github.com/codemode-dev/codemode/parse"
)

// TestViewKeepsGrantedDefinitions grants every other tool of each golden
// case and checks the view: each granted tool's lines in the view hold its
// def and docstring exactly as the whole file does, no ungranted tool's def
// or stub method is left, and every name a kept line uses that the whole
// file defines as a shape is still defined.
func TestViewKeepsGrantedDefinitions(t *testing.T) {
	manifests, _ := filepath.Glob("../testdata/golden/*/want/manifest.json")
	if len(manifests) == 0 {
		t.Fatal("no golden manifests")
	}
	shapeDef := regexp.MustCompile(`(?m)^(?:class ([A-Za-z_][A-Za-z0-9_]*)\(|([A-Za-z_][A-Za-z0-9_]*) = TypedDict\()`)
	for _, mf := range manifests {
		data, err := os.ReadFile(mf)
		if err != nil {
			t.Fatal(err)
		}
		m, err := manifest.Read(data)
		if err != nil {
			t.Fatal(err)
		}
		files := map[string][]byte{}
		grants := map[ir.ServiceName][]string{}
		for _, s := range m.Services {
			files[s.File], _ = os.ReadFile(filepath.Join(filepath.Dir(mf), s.File))
			for i, tl := range s.Tools {
				if i%2 == 0 {
					grants[s.Name] = append(grants[s.Name], string(tl.Wire))
				}
			}
		}
		v, err := buildView(m, files, grants)
		if err != nil {
			t.Fatalf("%s: %v", mf, err)
		}
		for i, vs := range v.manifest.Services {
			whole := splitLines(files[vs.File])
			view := splitLines(v.files[vs.File])
			viewText := string(v.files[vs.File])
			defined := map[string]bool{}
			for _, d := range shapeDef.FindAllStringSubmatch(viewText, -1) {
				defined[d[1]+d[2]] = true
			}
			for _, d := range shapeDef.FindAllStringSubmatch(string(files[vs.File]), -1) {
				name := d[1] + d[2]
				if !defined[name] && regexp.MustCompile(`\b`+name+`\b`).MatchString(viewText) {
					t.Errorf("%s: the view uses shape %s but lost its definition", mf, name)
				}
			}
			orig := m.Services[i]
			for _, tl := range vs.Tools {
				ot, _ := orig.Tool(string(tl.Wire))
				a := strings.Join(whole[ot.Lines[0]-1:ot.Lines[1]], "\n")
				b := strings.Join(view[tl.Lines[0]-1:tl.Lines[1]], "\n")
				if a != b {
					t.Errorf("%s: %s: lines %v in the view differ from %v in the file", mf, tl.Wire, tl.Lines, ot.Lines)
				}
			}
			for j, tl := range orig.Tools {
				if j%2 == 1 {
					if strings.Contains(viewText, "\ndef "+string(tl.Py)+"(") || strings.Contains(vs.Stub, "    def "+string(tl.Py)+"(") {
						t.Errorf("%s: ungranted %s is still in the view", mf, tl.Wire)
					}
				}
			}
		}
	}
}

// TestViewDropsSharedDocsOnlyHiddenToolsUse: the module docstring says
// once what several tools share (parameter docs, notes); a view kept all of
// it, so the docs of parameters only hidden tools have stayed readable.
// Over each golden case, granting every other tool and then the others:
// each granted tool's definition comes with the same shared lines in the
// view as in the whole file, and every shared line the view keeps is one a
// granted tool refers to.
func TestViewDropsSharedDocsOnlyHiddenToolsUse(t *testing.T) {
	manifests, _ := filepath.Glob("../testdata/golden/*/want/manifest.json")
	dropped := 0
	for _, mf := range manifests {
		data, err := os.ReadFile(mf)
		if err != nil {
			t.Fatal(err)
		}
		m, err := manifest.Read(data)
		if err != nil {
			t.Fatal(err)
		}
		files := map[string][]byte{}
		for _, s := range m.Services {
			files[s.File], _ = os.ReadFile(filepath.Join(filepath.Dir(mf), s.File))
		}
		for parity := range 2 {
			grants := map[ir.ServiceName][]string{}
			for _, s := range m.Services {
				for i, tl := range s.Tools {
					if i%2 == parity {
						grants[s.Name] = append(grants[s.Name], string(tl.Wire))
					}
				}
			}
			v, err := buildView(m, files, grants)
			if err != nil {
				t.Fatalf("%s: %v", mf, err)
			}
			for _, vs := range v.manifest.Services {
				orig, _ := m.Service(vs.Name)
				whole, view := splitLines(files[vs.File]), splitLines(v.files[vs.File])
				text := func(lines []string, ns []int) string {
					var b strings.Builder
					for _, n := range ns {
						b.WriteString(lines[n-1] + "\n")
					}
					return b.String()
				}
				referred := map[int]bool{}
				for _, tl := range vs.Tools {
					ot, _ := orig.Tool(string(tl.Wire))
					inView := manifest.SharedLines(v.files[vs.File], tl.Lines[0], tl.Lines[1])
					if a, b := text(whole, manifest.SharedLines(files[vs.File], ot.Lines[0], ot.Lines[1])), text(view, inView); a != b {
						t.Errorf("%s: %s: shared lines in the view:\n%s\nin the file:\n%s", mf, tl.Wire, b, a)
					}
					for _, n := range inView {
						referred[n] = true
					}
				}
				for n, l := range view {
					if strings.HasPrefix(l, "    ") && !referred[n+1] && n+1 < len(view) && sharedEntry(view, n+1) {
						t.Errorf("%s: the view keeps shared line %d %q no granted tool refers to", mf, n+1, l)
					}
				}
				all := map[int]bool{}
				for _, ot := range orig.Tools {
					for _, n := range manifest.SharedLines(files[vs.File], ot.Lines[0], ot.Lines[1]) {
						all[n] = true
					}
				}
				dropped += len(all) - len(referred)
			}
		}
	}
	if dropped == 0 {
		t.Error("no view dropped a shared line: the golden cases no longer test it")
	}
}

// sharedEntry says whether line n (1-based) of lines is an entry of a
// module docstring's shared list: indented, after a shared header with
// only entries between.
func sharedEntry(lines []string, n int) bool {
	for i := n - 1; i >= 1; i-- {
		l := lines[i-1]
		if l == manifest.SharedDocHeader || l == manifest.SharedNoteHeader {
			return true
		}
		if l == "" || strings.HasPrefix(l, `"""`) {
			return false
		}
	}
	return false
}

// TestHiddenToolKeepsTheAliasAGrantedToolUses: the module prints a Literal
// that several parameters or keys share once, as an alias, with the first
// tool that uses it; a view hiding that tool dropped the alias with it, so
// a granted tool's lines named a type the view no longer defined. The
// alias stays while a kept line names it, and goes with the tools that
// alone use it.
func TestHiddenToolKeepsTheAliasAGrantedToolUses(t *testing.T) {
	lit := `{"type": "string", "enum": ["markdown", "html", "rawHtml", "screenshot", "links"]}`
	other := `{"type": "string", "enum": ["alpha_one", "beta_two", "gamma_three", "delta_four"]}`
	list := `{"tools": [
		{"name": "scrape", "inputSchema": {"type": "object", "properties": {"format": ` + lit + `, "pick": ` + other + `}}},
		{"name": "crawl", "inputSchema": {"type": "object", "properties": {"page": {"type": "object", "properties": {"kind": ` + lit + `}}, "pick": ` + other + `}}},
		{"name": "map", "inputSchema": {"type": "object", "properties": {"format": ` + lit + `}}}]}`
	svc, err := parse.MCP("test", []byte(list), parse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ir.Resolve(svc)
	py, spans := emit.Python(svc)
	s := emit.ManifestFor(svc, "test.py", spans, nil)
	m := &manifest.Manifest{Services: []manifest.Service{s}}
	files := map[string][]byte{s.File: py}
	const alias = `Format = Literal["markdown", "html", "rawHtml", "screenshot", "links"]`
	if !strings.Contains(string(py), alias+"\n\n\n") {
		t.Fatalf("no alias:\n%s", py)
	}
	v, err := buildView(m, files, map[ir.ServiceName][]string{s.Name: {"map"}})
	if err != nil {
		t.Fatal(err)
	}
	view := string(v.files[s.File])
	if !strings.Contains(view, alias+"\n") || !strings.Contains(view, "def map(*, format: Format = None)") {
		t.Errorf("the view lost the alias map uses:\n%s", view)
	}
	if strings.Contains(view, "Pick") || strings.Contains(view, "def scrape(") || strings.Contains(view, "def crawl(") {
		t.Errorf("the view kept what only hidden tools use:\n%s", view)
	}
}
