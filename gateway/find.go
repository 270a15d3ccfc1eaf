package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"

	"github.com/codemode-dev/codemode/findtool"
	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/manifest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxMatches is how many tools find_tool returns at most.
const MaxMatches = 8

// Finder answers find_tool over a fixed set of tools. Safe for concurrent
// use once built.
type Finder struct {
	index  atomic.Pointer[findtool.Index]
	update sync.Mutex // held to replace index (UseVectors, UseSentences)
	byTool map[*ir.Tool]found
	byWire map[toolKey]found
	shapes *Shapes
	count  int
	// outputs is each tool's described output schema, worked out once
	// (*manifest.Tool → string): with its $refs resolved it is the same
	// in every answer that shows the tool.
	outputs sync.Map
}

type toolKey struct {
	svc  ir.ServiceName
	wire ir.WireName
}

type found struct {
	svc  *manifest.Service
	tool *manifest.Tool
	file string // "api/memory.py"
}

// NewFinder indexes the tools of m for which keep returns true (the granted
// ones); fileDir is the directory the .py files are shown in ("api").
// shapes may be nil.
func NewFinder(m *manifest.Manifest, fileDir string, keep func(ir.ServiceName, *manifest.Tool) bool, shapes *Shapes) *Finder {
	f := &Finder{byTool: map[*ir.Tool]found{}, byWire: map[toolKey]found{}, shapes: shapes}
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
			f.byWire[toolKey{s.Name, t.Wire}] = f.byTool[it]
			docs = append(docs, findtool.Doc{Service: s.Name, Tool: it})
		}
	}
	f.index.Store(findtool.New(docs))
	f.count = len(docs)
	return f
}

// searchTool is the part of a tool the index searches: names, description,
// parameter names and descriptions (from the input schema), and whether
// it is deprecated.
func searchTool(t *manifest.Tool) *ir.Tool {
	it := &ir.Tool{Wire: t.Wire, Py: t.Py, Title: t.Title, Description: t.Description, HTTP: t.HTTP, Annotations: t.Annotations, Deprecated: t.Deprecated}
	props, _ := t.Input["properties"].(map[string]any)
	for _, p := range t.Params {
		ps, _ := props[p.Arg].(map[string]any)
		desc, _ := ps["description"].(string)
		it.Params = append(it.Params, &ir.Param{Arg: p.Arg, Wire: p.Wire, Py: p.Py, In: p.In, Required: p.Required, Description: desc})
	}
	return it
}

// UseVectors makes the finder rank by meaning too, with word vectors v
// (findtool.Index.WithVectors); searches under way finish as they began.
func (f *Finder) UseVectors(v *findtool.Vectors) {
	f.update.Lock()
	defer f.update.Unlock()
	f.index.Store(f.index.Load().WithVectors(v))
}

// UseSentences makes the finder rank with the sentence encoder enc too
// (findtool.Index.EmbedTools, then WithSentences): every tool is embedded
// now, on every CPU, while the finder keeps ranking as before. It returns
// ctx's error when ctx ends first, or the encoder's failure.
func (f *Finder) UseSentences(ctx context.Context, enc findtool.Encoder) error {
	ts, err := f.index.Load().EmbedTools(ctx, enc)
	if err != nil {
		return err
	}
	f.update.Lock()
	defer f.update.Unlock()
	f.index.Store(f.index.Load().WithSentences(ts))
	return nil
}

// Sentences reports whether the finder ranks with a sentence encoder too
// (UseSentences).
func (f *Finder) Sentences() bool { return f.index.Load().Sentences() }

// Semantic reports whether the finder ranks by meaning too (UseVectors).
func (f *Finder) Semantic() bool { return f.index.Load().Semantic() }

// Len is the number of tools the finder searches.
func (f *Finder) Len() int { return f.count }

// Match is one tool find_tool found.
type Match struct {
	Service ir.ServiceName
	Tool    *manifest.Tool
	File    string // "api/memory.py"
	Score   float64
	// Terms reports whether a name shares a search term with the query
	// (nil for an exact lookup).
	Terms func(string) bool
}

// Exact resolves an exact tool name ("memory.read_graph",
// "api.memory.read_graph", a unique bare name).
func (f *Finder) Exact(name string) (Match, bool) {
	d, ok := f.index.Load().Exact(name)
	if !ok {
		return Match{}, false
	}
	fd := f.byTool[d.Tool]
	return Match{Service: d.Service, Tool: fd.tool, File: fd.file}, true
}

// MinShare is the least share of the best match's score a match needs to be
// shown: when one tool clearly dominates, fewer than MaxMatches are.
const MinShare = 0.4

// Search ranks the tools for a query, best first, at most MaxMatches.
func (f *Finder) Search(query string) []Match {
	var out []Match
	x := f.index.Load()
	terms := x.Matcher(query)
	for _, h := range x.Search(query, MaxMatches) {
		if len(out) > 0 && h.Score < MinShare*out[0].Score {
			break // the best match dominates the rest
		}
		fd := f.byTool[h.Tool]
		out = append(out, Match{Service: h.Service, Tool: fd.tool, File: fd.file, Score: h.Score, Terms: terms})
	}
	return out
}

// findResult is find_tool's reply: the text, and the ranked tools as
// structuredContent ({"exact": bool, "matches": [{"tool", "call", "score"}]})
// so a harness need not parse the text.
func (s *Server) findResult(session, query string) *mcp.CallToolResult {
	text, ms, exact := s.find(session, query)
	out := FindOutcome{Exact: exact, Matches: []FoundTool{}}
	for _, m := range ms {
		out.Matches = append(out.Matches, FoundTool{
			Tool: string(m.Service) + "." + string(m.Tool.Py), Call: m.Tool.Call,
			Score: math.Round(m.Score*1000) / 1000,
		})
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: out}
}

// FindOutcome is find_tool's structuredContent.
type FindOutcome struct {
	// Exact is true when the query was a tool's exact name.
	Exact bool `json:"exact"`
	// Matches are the tools shown, best first.
	Matches []FoundTool `json:"matches"`
}

// FoundTool is one tool find_tool shows: its name as find_tool takes it
// ("service.tool"), its call form and its search score (0 for an exact
// name).
type FoundTool struct {
	Tool  string  `json:"tool"`
	Call  string  `json:"call"`
	Score float64 `json:"score"`
}

// Answer is find_tool's reply to a search for q that found matches.
func (f *Finder) Answer(q string, matches []Match) string {
	if len(matches) == 0 {
		return fmt.Sprintf("No granted tool matches %q. Try other words (what the tool does, or a noun it acts on). %s.", q, grantedCount(f.Len()))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d match%s for %q (best first). Read a definition before the first call: find_tool(\"<service>.<tool>\") or read_api.\n\n", len(matches), esPlural(len(matches)), q)
	for i, m := range matches {
		if i < FullMatches {
			f.Render(&b, i+1, m)
			b.WriteString("\n")
		} else {
			f.RenderBrief(&b, i+1, m)
		}
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// FullMatches is how many of a search's matches are shown with their
// arguments; the rest get one line each.
const FullMatches = 3

// RenderBrief writes one match on one line: its signature (required
// arguments only) and first sentence.
func (f *Finder) RenderBrief(b *strings.Builder, n int, m Match) {
	sig, _ := CompactSignature(m.Tool.Signature)
	fmt.Fprintf(b, "%d. %s", n, sig)
	if s := FirstSentence(m.Tool.Description); s != "" {
		fmt.Fprintf(b, "\n   %s", clip(s, 120))
	}
	b.WriteString("\n")
}

func esPlural(n int) string {
	if n == 1 {
		return ""
	}
	return "es"
}

// Render writes one match as find_tool shows it: call form and signature
// (required arguments only), first sentence, required arguments in full,
// the optional ones by name, returns, an example call and where its
// definition is. The exact name gives everything.
func (f *Finder) Render(b *strings.Builder, n int, m Match) {
	t := m.Tool
	sig, optional := CompactSignature(t.Signature)
	fmt.Fprintf(b, "%d. %s\n", n, sig)
	if s := FirstSentence(t.Description); s != "" {
		fmt.Fprintf(b, "   %s\n", s)
	}
	if t.Deprecated {
		b.WriteString("   DEPRECATED\n")
	}
	args := Args(t)
	var required []string
	for i, p := range t.Params {
		if p.Required {
			required = append(required, args[i])
		}
	}
	switch {
	case len(args) == 0:
		b.WriteString("   args: none\n")
	case len(required) > 0:
		b.WriteString("   args:\n")
		for _, a := range required {
			fmt.Fprintf(b, "     %s\n", a)
		}
	}
	if optional > 0 {
		fmt.Fprintf(b, "   optional: %s\n", OptionalArgs(t, m.Terms))
	}
	fmt.Fprintf(b, "   returns: %s\n", clip(f.Returns(m.Service, t), maxReturns))
	fmt.Fprintf(b, "   example: %s\n", Example(t))
	fmt.Fprintf(b, "   definition: %s lines %d-%d (find_tool(%q) shows it)\n", m.File, t.Lines[0], t.Lines[1], string(m.Service)+"."+string(t.Py))
}

// maxReturns is how much of a return shape a search shows (the exact name
// shows all of it).
const maxReturns = 300

// maxExactReturns bounds the return shape an exact name shows.
const maxExactReturns = 2000

// maxOptional is how many optional arguments a search names.
const maxOptional = 10

// clip cuts s to at most n runes, marking the cut.
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// maxParamShown is how much of one parameter a compact signature shows.
const maxParamShown = 80

// CompactSignature is a signature with its optional (keyword, defaulted)
// parameters left out: "api.s.t(a: str, *, b: int | None = None) -> X"
// gives "api.s.t(a: str, *, ...) -> X" and 1.
func CompactSignature(sig string) (string, int) {
	open := strings.IndexByte(sig, '(')
	if open < 0 {
		return sig, 0
	}
	depth, end := 0, -1
	var parts []string
	start := open + 1
	for i := open; i < len(sig) && end < 0; i++ {
		switch sig[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth == 0 {
				end = i
			}
		case ',':
			if depth == 1 {
				parts = append(parts, strings.TrimSpace(sig[start:i]))
				start = i + 1
			}
		}
	}
	if end < 0 {
		return sig, 0
	}
	if p := strings.TrimSpace(sig[start:end]); p != "" {
		parts = append(parts, p)
	}
	var keep []string
	optional := 0
	for _, p := range parts {
		switch {
		case p == "*":
		case strings.Contains(p, " = "):
			optional++
		default:
			keep = append(keep, clip(p, maxParamShown))
		}
	}
	if optional == 0 {
		return sig[:open+1] + strings.Join(keep, ", ") + sig[end:], 0
	}
	keep = append(keep, "*", "...")
	return sig[:open+1] + strings.Join(keep, ", ") + sig[end:], optional
}

// OptionalArgs names a tool's optional arguments, at most maxOptional, the
// ones that match the query's terms first and with their types.
func OptionalArgs(t *manifest.Tool, matches func(string) bool) string {
	props, _ := t.Input["properties"].(map[string]any)
	var first, rest []string
	for _, p := range t.Params {
		if p.Required {
			continue
		}
		if matches != nil && (matches(p.Arg) || matches(string(p.Py))) {
			ps, _ := props[p.Arg].(map[string]any)
			first = append(first, string(p.Py)+": "+clip(SchemaShape(ps), 60))
		} else {
			rest = append(rest, string(p.Py))
		}
	}
	all := append(first, rest...)
	if len(all) > maxOptional {
		return strings.Join(all[:maxOptional], ", ") + fmt.Sprintf(" (+%d more)", len(all)-maxOptional)
	}
	return strings.Join(all, ", ")
}

// Returns describes what a tool returns: its output schema, else the
// return type gen pinned from observed results, else the shape the runtime
// last saw, else says it is unknown.
func (f *Finder) Returns(service ir.ServiceName, t *manifest.Tool) string {
	if t.Output != nil {
		if s, ok := f.outputs.Load(t); ok {
			return s.(string)
		}
		fd, own := f.byWire[toolKey{service, t.Wire}]
		var defs map[string]any
		if own {
			defs = fd.svc.Defs
		}
		s := outputShape(t, defs)
		if own && fd.tool == t {
			f.outputs.Store(t, s) // only the Finder's own tools: bounded
		}
		return s
	}
	if t.Observed != nil {
		// gen typed the stub's return from results seen ("-> PageResult").
		shape := SchemaShape(t.Observed)
		if ret := returnType(t.Signature); ret != "" && ret != "Any" {
			shape = ret + " " + shape
		}
		return shape + "  (observed in real results, keys optional; no output schema)"
	}
	if f.shapes != nil {
		if s, ok := f.shapes.Get(service, t.Wire); ok {
			return s + "  (seen in an earlier result; no output schema)"
		}
	}
	return "unknown (no output schema and not seen yet): print a small part first, e.g. print(str(r)[:300])"
}

// outputShape is Returns for a tool with an output schema, its $refs
// resolved in defs (its service's definitions).
func outputShape(t *manifest.Tool, defs map[string]any) string {
	shape := SchemaShape(inlineRefs(t.Output, defs, refDepth))
	// A $ref'd result is a named type in the stub ("-> Pet"): say
	// its name with its shape.
	if _, isRef := t.Output["$ref"]; !isRef {
		return shape
	}
	if ret := returnType(t.Signature); ret != "" && ret != "Any" && shape != ret {
		if shape == "Any" {
			return ret
		}
		return ret + " " + shape
	}
	return shape
}

// refDepth is how many $refs deep a result's shape is resolved.
const refDepth = 3

// inlineRefs is s with its "#/$defs/<name>" references replaced by the
// service's definitions, depth levels deep (a recursive type stops there).
func inlineRefs(s map[string]any, defs map[string]any, depth int) map[string]any {
	if s == nil || len(defs) == 0 {
		return s
	}
	if ref, ok := s["$ref"].(string); ok {
		name, found := strings.CutPrefix(ref, "#/$defs/")
		d, _ := defs[name].(map[string]any)
		if !found || d == nil || depth == 0 {
			return nil
		}
		return inlineRefs(d, defs, depth-1)
	}
	out := make(map[string]any, len(s))
	for k, v := range s {
		switch x := v.(type) {
		case map[string]any:
			if k == "properties" {
				props := make(map[string]any, len(x))
				for name, p := range x {
					pm, _ := p.(map[string]any)
					props[name] = inlineRefs(pm, defs, depth)
				}
				out[k] = props
			} else {
				out[k] = inlineRefs(x, defs, depth)
			}
		case []any:
			l := make([]any, len(x))
			for i, e := range x {
				if m, ok := e.(map[string]any); ok {
					l[i] = inlineRefs(m, defs, depth)
				} else {
					l[i] = e
				}
			}
			out[k] = l
		default:
			out[k] = v
		}
	}
	return out
}

// returnType is what a signature says its tool returns.
func returnType(sig string) string {
	if i := strings.LastIndex(sig, ") -> "); i >= 0 {
		return sig[i+len(") -> "):]
	}
	return ""
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
func Args(t *manifest.Tool) []string {
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
func Example(t *manifest.Tool) string {
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
			return pyLiteral(ex[0])
		}
	}
	if d, ok := s["default"]; ok {
		return pyLiteral(d)
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

// grantedCount says how many tools are granted, in a sentence.
func grantedCount(n int) string {
	if n == 1 {
		return "1 tool is granted"
	}
	return fmt.Sprintf("%d tools are granted", n)
}
