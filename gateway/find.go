package gateway

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/codemode-dev/codemode/emit"
	"github.com/codemode-dev/codemode/findtool"
	"github.com/codemode-dev/codemode/ir"
)

// MaxMatches is how many tools find_tool returns at most.
const MaxMatches = 8

// Finder answers find_tool over a fixed set of tools. Safe for concurrent
// use once built.
type Finder struct {
	index  *findtool.Index
	byTool map[*ir.Tool]found
	shapes *Shapes
	count  int
}

type found struct {
	svc  *emit.ManifestService
	tool *emit.ManifestTool
	file string // "api/memory.py"
}

// NewFinder indexes the tools of m for which keep returns true (the granted
// ones); fileDir is the directory the .py files are shown in ("api").
// shapes may be nil.
func NewFinder(m *emit.Manifest, fileDir string, keep func(ir.ServiceName, *emit.ManifestTool) bool, shapes *Shapes) *Finder {
	f := &Finder{byTool: map[*ir.Tool]found{}, shapes: shapes}
	var docs []findtool.Doc
	for i := range m.Services {
		s := &m.Services[i]
		for j := range s.Tools {
			t := &s.Tools[j]
			if keep != nil && !keep(s.Name, t) {
				continue
			}
			it := searchTool(t)
			f.byTool[it] = found{svc: s, tool: t, file: fileDir + "/" + s.File}
			docs = append(docs, findtool.Doc{Service: s.Name, Tool: it})
		}
	}
	f.index = findtool.New(docs)
	f.count = len(docs)
	return f
}

// searchTool is the part of a tool the index searches: names, description,
// parameter names and descriptions (from the input schema).
func searchTool(t *emit.ManifestTool) *ir.Tool {
	it := &ir.Tool{Wire: t.Wire, Py: t.Py, Title: t.Title, Description: t.Description}
	props, _ := t.Input["properties"].(map[string]any)
	for _, p := range t.Params {
		ps, _ := props[p.Arg].(map[string]any)
		desc, _ := ps["description"].(string)
		it.Params = append(it.Params, &ir.Param{Arg: p.Arg, Wire: p.Wire, Py: p.Py, In: p.In, Required: p.Required, Description: desc})
	}
	return it
}

// Len is the number of tools the finder searches.
func (f *Finder) Len() int { return f.count }

// Match is one tool find_tool found.
type Match struct {
	Service ir.ServiceName
	Tool    *emit.ManifestTool
	File    string // "api/memory.py"
	Score   float64
}

// Exact resolves an exact tool name ("memory.read_graph",
// "api.memory.read_graph", a unique bare name).
func (f *Finder) Exact(name string) (Match, bool) {
	d, ok := f.index.Exact(name)
	if !ok {
		return Match{}, false
	}
	fd := f.byTool[d.Tool]
	return Match{Service: d.Service, Tool: fd.tool, File: fd.file}, true
}

// Search ranks the tools for a query, best first, at most MaxMatches.
func (f *Finder) Search(query string) []Match {
	var out []Match
	for _, h := range f.index.Search(query, MaxMatches) {
		fd := f.byTool[h.Tool]
		out = append(out, Match{Service: h.Service, Tool: fd.tool, File: fd.file, Score: h.Score})
	}
	return out
}

// Answer is find_tool's reply to a search for q that found matches.
func (f *Finder) Answer(q string, matches []Match) string {
	if len(matches) == 0 {
		return fmt.Sprintf("No granted tool matches %q. Try other words (what the tool does, or a noun it acts on). %d tools are granted.", q, f.Len())
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d match%s for %q (best first). Read a definition before the first call: find_tool(\"<service>.<tool>\") or read_api.\n\n", len(matches), esPlural(len(matches)), q)
	for i, m := range matches {
		f.Render(&b, i+1, m)
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

func esPlural(n int) string {
	if n == 1 {
		return ""
	}
	return "es"
}

// Render writes one match as find_tool shows it: call form and signature,
// first sentence, arguments, returns, an example call and where its
// definition is.
func (f *Finder) Render(b *strings.Builder, n int, m Match) {
	t := m.Tool
	fmt.Fprintf(b, "%d. %s\n", n, t.Signature)
	if s := FirstSentence(t.Description); s != "" {
		fmt.Fprintf(b, "   %s\n", s)
	}
	if t.Deprecated {
		b.WriteString("   DEPRECATED\n")
	}
	args := Args(t)
	if len(args) == 0 {
		b.WriteString("   args: none\n")
	} else {
		b.WriteString("   args:\n")
		for _, a := range args {
			fmt.Fprintf(b, "     %s\n", a)
		}
	}
	fmt.Fprintf(b, "   returns: %s\n", f.Returns(m.Service, t))
	fmt.Fprintf(b, "   example: %s\n", Example(t))
	fmt.Fprintf(b, "   definition: %s lines %d-%d (find_tool(%q) shows it)\n", m.File, t.Lines[0], t.Lines[1], string(m.Service)+"."+string(t.Py))
}

// Returns describes what a tool returns: its output schema, else the shape
// the runtime last saw, else says it is unknown.
func (f *Finder) Returns(service ir.ServiceName, t *emit.ManifestTool) string {
	if t.Output != nil {
		return SchemaShape(t.Output)
	}
	if f.shapes != nil {
		if s, ok := f.shapes.Get(service, t.Wire); ok {
			return s + "  (seen in an earlier result; no output schema)"
		}
	}
	return "unknown (no output schema and not seen yet): print a small part first, e.g. print(str(r)[:300])"
}

// FirstSentence is the first sentence of a description, on one line, at
// most 200 characters.
func FirstSentence(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	for i := 0; i < len(s); i++ {
		if (s[i] == '.' || s[i] == '!' || s[i] == '?') && (i+1 == len(s) || s[i+1] == ' ') {
			// "e.g. " and "i.e. " do not end a sentence.
			if i >= 3 && (strings.HasSuffix(s[:i+1], "e.g.") || strings.HasSuffix(s[:i+1], "i.e.")) {
				continue
			}
			s = s[:i+1]
			break
		}
	}
	if r := []rune(s); len(r) > 200 {
		s = string(r[:199]) + "…"
	}
	return s
}

// Args lists a tool's arguments in signature order: Python name, type with
// allowed values, required or optional with its default, constraints, and
// the first sentence of its description.
func Args(t *emit.ManifestTool) []string {
	props, _ := t.Input["properties"].(map[string]any)
	var out []string
	for _, p := range t.Params {
		ps, _ := props[p.Arg].(map[string]any)
		var b strings.Builder
		b.WriteString(string(p.Py) + ": " + SchemaShape(ps))
		if p.Required {
			b.WriteString(", required")
		} else {
			b.WriteString(", optional")
			if d, ok := ps["default"]; ok {
				b.WriteString(", default " + pyLiteral(d))
			}
		}
		for _, c := range []struct{ key, text string }{
			{"minimum", ">= "}, {"exclusiveMinimum", "> "}, {"maximum", "<= "}, {"exclusiveMaximum", "< "},
			{"minLength", "min length "}, {"maxLength", "max length "}, {"minItems", "min items "}, {"maxItems", "max items "},
			{"format", "format "}, {"pattern", "pattern "},
		} {
			if v, ok := ps[c.key]; ok {
				if _, isBool := v.(bool); isBool {
					continue
				}
				b.WriteString(", " + c.text + strings.Trim(pyLiteral(v), `"`))
			}
		}
		if string(p.Py) != p.Arg {
			fmt.Fprintf(&b, " (run_tool key %q)", p.Arg)
		}
		if d, _ := ps["description"].(string); d != "" {
			b.WriteString(" — " + FirstSentence(d))
		}
		out = append(out, b.String())
	}
	return out
}

// Example is a call with every required argument set to a plausible value
// of its type (the first allowed value where there are some).
func Example(t *emit.ManifestTool) string {
	props, _ := t.Input["properties"].(map[string]any)
	var parts []string
	for _, p := range t.Params {
		if !p.Required {
			continue
		}
		ps, _ := props[p.Arg].(map[string]any)
		parts = append(parts, string(p.Py)+"="+exampleValue(ps, string(p.Py)))
	}
	return t.Call + "(" + strings.Join(parts, ", ") + ")"
}

func exampleValue(s map[string]any, name string) string {
	if s == nil {
		return "..."
	}
	if v, ok := s["const"]; ok {
		return pyLiteral(v)
	}
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		return pyLiteral(e[0])
	}
	if ex, ok := s["examples"].([]any); ok && len(ex) > 0 {
		if j, err := json.Marshal(ex[0]); err == nil && len(j) <= 60 {
			return pyValue(ex[0])
		}
	}
	if d, ok := s["default"]; ok {
		return pyValue(d)
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if alts, ok := s[k].([]any); ok && len(alts) > 0 {
			for _, a := range alts {
				if m, ok := a.(map[string]any); ok && m["type"] != "null" {
					return exampleValue(m, name)
				}
			}
		}
	}
	typ, _ := s["type"].(string)
	if l, ok := s["type"].([]any); ok && len(l) > 0 {
		typ, _ = l[0].(string)
	}
	switch typ {
	case "string":
		return `"` + strings.Map(func(r rune) rune {
			if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' {
				return r
			}
			return -1
		}, name) + `"`
	case "integer", "number":
		if m, ok := s["minimum"].(json.Number); ok {
			return string(m)
		}
		return "1"
	case "boolean":
		return "True"
	case "array":
		items, _ := s["items"].(map[string]any)
		return "[" + exampleValue(items, strings.TrimSuffix(name, "s")) + "]"
	case "object":
		props, _ := s["properties"].(map[string]any)
		req, _ := s["required"].([]any)
		var parts []string
		for _, r := range req {
			k, _ := r.(string)
			ps, _ := props[k].(map[string]any)
			parts = append(parts, pyLiteral(k)+": "+exampleValue(ps, k))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return "..."
}

// pyValue renders a JSON value as a Python literal.
func pyValue(v any) string {
	switch x := v.(type) {
	case []any:
		var parts []string
		for _, e := range x {
			parts = append(parts, pyValue(e))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var parts []string
		for _, k := range keys {
			parts = append(parts, pyLiteral(k)+": "+pyValue(x[k]))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return pyLiteral(v)
}
