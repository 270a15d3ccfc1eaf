package validate

import (
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/codemode-dev/codemode/ir"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Error is a refused call, written for the model that made it. The runtime
// raises it in the program as Kind (TypeError or ValueError); the upstream is
// never called. The top-level fields describe the most useful problem;
// Problems holds it and up to two more.
type Error struct {
	// Kind is "TypeError" (wrong type, unknown or missing argument) or
	// "ValueError" (a wrong value: enum, bounds, length, pattern, format).
	Kind string
	// Tool is the call form: api.<service>.<py>.
	Tool string
	// Param is the Python parameter name, then a path inside it
	// ("filters[0].value"); "" when the problem is the call as a whole.
	Param    string
	Expected string // what the schema wants: "str", `one of "a", "b"`, "<= 100"
	Given    string // what the program passed: "int (3)", `"likedAt"`, "500"
	Fix      string // a concrete correction ("Did you mean \"liked_at\"?"), or ""
	// Original is true when the arguments passed the enriched schema but
	// not the original one.
	Original bool
	Problems []Problem

	lines []string
}

// Problem is one thing wrong with a call.
type Problem struct {
	Kind     string
	Param    string
	Expected string
	Given    string
	Fix      string
	Message  string // the text after "api.<service>.<py>: "
}

// Error returns one line per problem, each starting with the call form:
//
//	api.github.list_issues: argument per_page must be <= 100; got 500
func (e *Error) Error() string {
	if len(e.lines) > 0 {
		return strings.Join(e.lines, "\n")
	}
	var b strings.Builder
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Tool + ": " + p.Message)
	}
	return b.String()
}

// maxProblems is how many problems one Error reports.
const maxProblems = 3

const (
	rankSuggested = iota // unknown argument with a "did you mean"
	rankMissing
	rankUnknown
	rankType
	rankValue
)

type problem struct {
	Problem
	rank    int
	parent  string   // path of the object, for missing/unknown pairs
	missing []string // keys named by a "missing" problem
	require bool     // a "missing" problem, worded by missingText
	suggest string   // the key an "unknown" problem suggests
}

var printer = message.NewPrinter(language.English)

// explain turns the validator's error tree into an *Error.
func (e *entry) explain(ve *jsonschema.ValidationError, inst any) *Error {
	var probs []*problem
	for _, l := range flatten(ve) {
		probs = append(probs, e.describe(l, inst)...)
	}
	// "unknown argument 'titel'. Did you mean 'title'?" already says that
	// title is missing.
	for _, p := range probs {
		if p.rank != rankSuggested {
			continue
		}
		for _, q := range probs {
			if q.require && q.parent == p.parent {
				q.missing = remove(q.missing, p.suggest)
			}
		}
	}
	var kept []*problem
	seen := map[string]bool{}
	for _, p := range probs {
		if p.require {
			if len(p.missing) == 0 {
				continue
			}
			e.missingText(p)
		}
		if seen[p.Message] {
			continue
		}
		seen[p.Message] = true
		kept = append(kept, p)
	}
	// The validator reports problems in map order: rank, then text, makes
	// the message the same on every run.
	sort.SliceStable(kept, func(i, j int) bool {
		if kept[i].rank != kept[j].rank {
			return kept[i].rank < kept[j].rank
		}
		return kept[i].Message < kept[j].Message
	})
	if len(kept) > maxProblems {
		kept = kept[:maxProblems]
	}
	out := &Error{Tool: e.call}
	for _, p := range kept {
		out.Problems = append(out.Problems, p.Problem)
	}
	if len(kept) == 0 { // cannot happen: a failed validation has a leaf
		out.Problems = []Problem{{Kind: "ValueError", Message: "arguments do not match the schema: " + ve.Error()}}
	}
	first := out.Problems[0]
	out.Kind, out.Param, out.Expected, out.Given, out.Fix = first.Kind, first.Param, first.Expected, first.Given, first.Fix
	return out
}

func remove(ss []string, s string) []string {
	var out []string
	for _, x := range ss {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}

// flatten returns the errors worth reporting: the leaves of the tree, with
// each failed anyOf/oneOf reduced to the branch the value came closest to.
func flatten(ve *jsonschema.ValidationError) []*jsonschema.ValidationError {
	switch k := ve.ErrorKind.(type) {
	case *kind.AnyOf:
		return pickBranch(ve)
	case *kind.OneOf:
		if len(k.Subschemas) == 0 {
			return pickBranch(ve)
		}
	}
	if len(ve.Causes) == 0 {
		return []*jsonschema.ValidationError{ve}
	}
	var out []*jsonschema.ValidationError
	for _, c := range ve.Causes {
		out = append(out, flatten(c)...)
	}
	return out
}

// pickBranch chooses what to report for a value that matched no branch of
// an anyOf/oneOf. A branch whose only complaint is the value's type at this
// very place is a poor match; among the others the one whose complaints lie
// deepest inside the value (its shape matched furthest) wins, then the one
// with fewest complaints, then the first. When every branch only disagrees
// on the type, the types are merged ("expected str or None"); when the best
// branches only disagree on a constant, the constants are merged into one
// enum ("must be one of ...").
func pickBranch(ve *jsonschema.ValidationError) []*jsonschema.ValidationError {
	depth := len(ve.InstanceLocation)
	type branch struct {
		leaves []*jsonschema.ValidationError
		fit    int
	}
	var bs []branch
	for _, c := range ve.Causes {
		ls := flatten(c)
		fit, shallowType := 0, true
		for _, l := range ls {
			fit = max(fit, len(l.InstanceLocation)-depth)
			if _, ok := l.ErrorKind.(*kind.Type); !ok || len(l.InstanceLocation) != depth {
				shallowType = false
			}
		}
		if shallowType {
			fit = -1
		}
		bs = append(bs, branch{ls, fit})
	}
	if len(bs) == 0 {
		return []*jsonschema.ValidationError{ve}
	}
	best := 0
	for i, b := range bs {
		if b.fit > bs[best].fit || b.fit == bs[best].fit && len(b.leaves) < len(bs[best].leaves) {
			best = i
		}
	}
	if bs[best].fit == -1 {
		var want []string
		var got string
		for _, b := range bs {
			for _, l := range b.leaves {
				t := l.ErrorKind.(*kind.Type)
				got = t.Got
				for _, w := range t.Want {
					if !contains(want, w) {
						want = append(want, w)
					}
				}
			}
		}
		return []*jsonschema.ValidationError{{
			SchemaURL: ve.SchemaURL, InstanceLocation: ve.InstanceLocation,
			ErrorKind: &kind.Type{Got: got, Want: want},
		}}
	}
	// Constants compared at this place in every best branch: one enum.
	var values []any
	var got any
	allConst := true
	for _, b := range bs {
		if b.fit != bs[best].fit {
			continue
		}
		for _, l := range b.leaves {
			if len(l.InstanceLocation) != depth {
				allConst = false
				continue
			}
			switch k := l.ErrorKind.(type) {
			case *kind.Const:
				values, got = append(values, k.Want), k.Got
			case *kind.Enum:
				values, got = append(values, k.Want...), k.Got
			default:
				allConst = false
			}
		}
	}
	if allConst && len(values) > 1 {
		return []*jsonschema.ValidationError{{
			SchemaURL: ve.SchemaURL, InstanceLocation: ve.InstanceLocation,
			ErrorKind: &kind.Enum{Got: got, Want: values},
		}}
	}
	return bs[best].leaves
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// describe words one leaf error.
func (e *entry) describe(ve *jsonschema.ValidationError, inst any) []*problem {
	loc := ve.InstanceLocation
	path := e.pyPath(loc, inst)
	val := valueAt(inst, loc)
	subject := "argument " + path
	if path == "" {
		subject = "the arguments"
	}
	p := &problem{rank: rankValue, parent: path}
	p.Kind, p.Param = "ValueError", path
	p.Given = repr(val)
	value := func(expected, msg string) []*problem {
		p.Expected = expected
		p.Message = subject + " " + msg + "; got " + p.Given
		return []*problem{p}
	}

	switch k := ve.ErrorKind.(type) {
	case *kind.Type:
		p.rank, p.Kind = rankType, "TypeError"
		p.Expected = pyTypes(k.Want)
		p.Given = pyType(val)
		if r := repr(val); !isContainer(val) || len(r) <= 40 {
			p.Given += " (" + r + ")"
		}
		p.Fix = typeFix(k.Want, val)
		if path == "" {
			p.Message = "arguments must be a dict of keyword arguments, got " + pyType(val)
		} else {
			p.Message = subject + ": expected " + p.Expected + ", got " + p.Given
		}
		if p.Fix != "" {
			p.Message += ". " + p.Fix
		}
		return []*problem{p}

	case *kind.Required:
		p.rank, p.Kind, p.require = rankMissing, "TypeError", true
		p.missing = append(p.missing, k.Missing...)
		return []*problem{p} // worded by missingText once pairs are removed

	case *kind.AdditionalProperties:
		var out []*problem
		for _, name := range k.Properties {
			q := &problem{rank: rankUnknown, parent: path}
			q.Kind, q.Param, q.Given = "TypeError", path, "'"+name+"'"
			var known, shown []string // candidate keys, and how to print them
			if path == "" {
				for i, a := range e.args {
					known = append(known, a, e.params[i])
					shown = append(shown, e.params[i], e.params[i])
				}
			} else {
				props, _ := e.schemaAt(ve.SchemaURL)["properties"].(map[string]any)
				for n := range props {
					known = append(known, n)
				}
				sort.Strings(known)
				shown = known
			}
			where := "unknown argument '" + name + "'"
			if path != "" {
				where = subject + " has unknown key '" + name + "'"
			}
			if i := closest(name, known); i >= 0 {
				q.rank = rankSuggested
				q.suggest = known[i]
				if path == "" {
					q.suggest = e.argOf(shown[i])
				}
				show := shown[i]
				if show == name { // the Python name sent as a run_tool key
					show = known[i]
				}
				q.Expected = "'" + show + "'"
				q.Fix = "Did you mean '" + show + "'?"
				q.Message = where + ". " + q.Fix
			} else {
				list := uniq(shown)
				q.Expected = quoteList(list, "'", 12)
				switch {
				case len(list) == 0 && path == "":
					q.Message = where + "; this tool takes no arguments"
				case len(list) == 0:
					q.Message = where + "; it takes no keys"
				case path == "":
					q.Message = where + "; the arguments are " + q.Expected
				default:
					q.Message = where + "; its keys are " + q.Expected
				}
			}
			out = append(out, q)
		}
		return out

	case *kind.Enum:
		p.Expected = "one of " + valueList(k.Want, 12)
		if len(k.Want) == 1 {
			p.Expected = repr(k.Want[0])
		}
		p.Message = subject + " must be " + p.Expected + "; got " + p.Given
		if s, ok := val.(string); ok {
			var cands []string
			for _, w := range k.Want {
				if ws, ok := w.(string); ok {
					cands = append(cands, ws)
				}
			}
			if i := closest(s, cands); i >= 0 {
				p.Fix = "Did you mean " + strconv.Quote(cands[i]) + "?"
				p.Message += ". " + p.Fix
			}
		}
		return []*problem{p}
	case *kind.Const:
		return value(repr(k.Want), "must be "+repr(k.Want))
	case *kind.Format:
		hint := formatHints[k.Want]
		if hint == "" {
			hint = "a valid " + k.Want
		}
		return value(k.Want, "must be "+hint)
	case *kind.Pattern:
		return value("match "+k.Want, "must match the pattern "+k.Want)
	case *kind.Minimum:
		return value(">= "+rat(k.Want), "must be >= "+rat(k.Want))
	case *kind.Maximum:
		return value("<= "+rat(k.Want), "must be <= "+rat(k.Want))
	case *kind.ExclusiveMinimum:
		return value("> "+rat(k.Want), "must be > "+rat(k.Want))
	case *kind.ExclusiveMaximum:
		return value("< "+rat(k.Want), "must be < "+rat(k.Want))
	case *kind.MultipleOf:
		return value("a multiple of "+rat(k.Want), "must be a multiple of "+rat(k.Want))
	case *kind.MinLength:
		p.Expected = fmt.Sprintf("at least %s", plural(k.Want, "character"))
		p.Given = fmt.Sprintf("%s (%s)", repr(val), plural(k.Got, "character"))
		p.Message = fmt.Sprintf("%s must be at least %s long; got %s", subject, plural(k.Want, "character"), p.Given)
		return []*problem{p}
	case *kind.MaxLength:
		p.Expected = fmt.Sprintf("at most %s", plural(k.Want, "character"))
		p.Given = plural(k.Got, "character")
		p.Message = fmt.Sprintf("%s must be at most %s long; got %s", subject, plural(k.Want, "character"), p.Given)
		return []*problem{p}
	case *kind.MinItems:
		p.Expected, p.Given = "at least "+plural(k.Want, "item"), strconv.Itoa(k.Got)
		p.Message = fmt.Sprintf("%s must have at least %s; got %d", subject, plural(k.Want, "item"), k.Got)
		return []*problem{p}
	case *kind.MaxItems:
		p.Expected, p.Given = "at most "+plural(k.Want, "item"), strconv.Itoa(k.Got)
		p.Message = fmt.Sprintf("%s must have at most %s; got %d", subject, plural(k.Want, "item"), k.Got)
		return []*problem{p}
	case *kind.MinProperties:
		p.Expected, p.Given = "at least "+plural(k.Want, "key"), strconv.Itoa(k.Got)
		p.Message = fmt.Sprintf("%s must have at least %s; got %d", subject, plural(k.Want, "key"), k.Got)
		return []*problem{p}
	case *kind.MaxProperties:
		p.Expected, p.Given = "at most "+plural(k.Want, "key"), strconv.Itoa(k.Got)
		p.Message = fmt.Sprintf("%s must have at most %s; got %d", subject, plural(k.Want, "key"), k.Got)
		return []*problem{p}
	case *kind.UniqueItems:
		p.Expected = "unique items"
		p.Message = fmt.Sprintf("%s must not repeat items; items %d and %d are equal", subject, k.Duplicates[0], k.Duplicates[1])
		return []*problem{p}
	case *kind.DependentRequired:
		return e.dependent(p, path, k.Prop, k.Missing)
	case *kind.Dependency:
		return e.dependent(p, path, k.Prop, k.Missing)
	case *kind.FalseSchema:
		p.rank, p.Kind = rankUnknown, "TypeError"
		p.Expected = "nothing"
		p.Message = subject + " is not allowed"
		return []*problem{p}
	case *kind.OneOf:
		p.Expected = "exactly one allowed form"
		p.Message = fmt.Sprintf("%s matches more than one allowed form (%s); make it match exactly one", subject, joinInts(k.Subschemas))
		return []*problem{p}
	}
	// Anything else (not, contains, propertyNames, ...): the validator's
	// own words, with the argument named.
	p.Message = subject + ": " + ve.ErrorKind.LocalizedString(printer)
	return []*problem{p}
}

func (e *entry) dependent(p *problem, path, prop string, missing []string) []*problem {
	p.rank, p.Kind = rankMissing, "TypeError"
	name := func(s string) string {
		if path == "" {
			if py, ok := e.py[s]; ok {
				return py
			}
		}
		return s
	}
	var ms []string
	for _, m := range missing {
		ms = append(ms, name(m))
	}
	p.Expected = quoteList(ms, "'", 12)
	p.Given = ""
	who := "argument"
	if path != "" {
		who = "argument " + path + " key"
	}
	p.Message = fmt.Sprintf("%s %s is required when '%s' is given", who, p.Expected, name(prop))
	if len(ms) > 1 {
		p.Message = fmt.Sprintf("%ss %s are required when '%s' is given", who, p.Expected, name(prop))
	}
	return []*problem{p}
}

// missingText words a "missing" problem once its list is final.
func (e *entry) missingText(p *problem) {
	names := p.missing
	if p.parent == "" {
		names = nil
		for _, m := range p.missing {
			if py, ok := e.py[m]; ok {
				m = py
			}
			names = append(names, m)
		}
	}
	p.Expected = quoteList(names, "'", 12)
	p.Given = ""
	switch {
	case p.parent == "" && len(names) == 1:
		p.Param = names[0]
		p.Message = "missing required argument " + p.Expected
	case p.parent == "":
		p.Param = names[0]
		p.Message = "missing required arguments " + p.Expected
	case len(names) == 1:
		p.Message = "argument " + p.parent + " is missing required key " + p.Expected
	default:
		p.Message = "argument " + p.parent + " is missing required keys " + p.Expected
	}
}

// argOf maps a Python parameter name back to its Arg.
func (e *entry) argOf(py string) string {
	for i, p := range e.params {
		if p == py {
			return e.args[i]
		}
	}
	return py
}

var formatHints = map[string]string{
	"date-time": `a date-time (RFC 3339, e.g. "2025-01-31T09:30:00Z")`,
	"date":      `a date (YYYY-MM-DD, e.g. "2025-01-31")`,
	"email":     `an email address (e.g. "ada@example.com")`,
	"uuid":      `a UUID (e.g. "123e4567-e89b-12d3-a456-426614174000")`,
	"ipv4":      `an IPv4 address (e.g. "192.0.2.1")`,
	"ipv6":      `an IPv6 address (e.g. "2001:db8::1")`,
}

// pyTypes names JSON Schema types the way Python does.
func pyTypes(want []string) string {
	var out []string
	add := func(s string) {
		if !contains(out, s) {
			out = append(out, s)
		}
	}
	for _, w := range want {
		switch w {
		case "string":
			add("str")
		case "integer":
			add("int")
		case "number":
			add("float")
		case "boolean":
			add("bool")
		case "array":
			add("list")
		case "object":
			add("dict")
		case "null":
			add("None")
		default:
			add(w)
		}
	}
	// None last: "str or None".
	sort.SliceStable(out, func(i, j int) bool { return out[i] != "None" && out[j] == "None" })
	return strings.Join(out, " or ")
}

// pyType is the Python type name of a decoded JSON value.
func pyType(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case string:
		return "str"
	case bool:
		return "bool"
	case json.Number:
		if strings.ContainsAny(string(x), ".eE") {
			return "float"
		}
		return "int"
	case float32, float64:
		return "float"
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return "int"
	case []any:
		return "list"
	case map[string]any:
		return "dict"
	}
	return fmt.Sprintf("%T", v)
}

func isContainer(v any) bool {
	switch v.(type) {
	case []any, map[string]any:
		return true
	}
	return false
}

// typeFix suggests the obvious conversion: a number or bool sent as a
// string, a single value where a list is wanted.
func typeFix(want []string, v any) string {
	s, isStr := v.(string)
	for _, w := range want {
		switch w {
		case "integer":
			if _, err := strconv.ParseInt(s, 10, 64); isStr && err == nil {
				return "Did you mean " + s + " (without quotes)?"
			}
		case "number":
			if _, err := strconv.ParseFloat(s, 64); isStr && err == nil {
				return "Did you mean " + s + " (without quotes)?"
			}
		case "boolean":
			switch strings.ToLower(s) {
			case "true":
				return "Did you mean True?"
			case "false":
				return "Did you mean False?"
			}
		case "array":
			if v != nil && !isContainer(v) {
				return "Did you mean [" + repr(v) + "]?"
			}
		}
	}
	return ""
}

// repr prints a JSON value in Python syntax, cut to a readable length.
func repr(v any) string { return ir.PyLiteralCut(v, 60, 80) }

// valueList prints enum values: `"a", "b", "c"`, at most n of them.
func valueList(vs []any, n int) string {
	var parts []string
	for i, v := range vs {
		if i == n {
			parts = append(parts, fmt.Sprintf("... (%d in all)", len(vs)))
			break
		}
		parts = append(parts, repr(v))
	}
	return strings.Join(parts, ", ")
}

// quoteList prints names: 'a', 'b', 'c', at most n of them.
func quoteList(ss []string, q string, n int) string {
	var parts []string
	for i, s := range ss {
		if i == n {
			parts = append(parts, fmt.Sprintf("... (%d in all)", len(ss)))
			break
		}
		parts = append(parts, q+s+q)
	}
	return strings.Join(parts, ", ")
}

func uniq(ss []string) []string {
	var out []string
	for _, s := range ss {
		if !contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

func joinInts(ns []int) string {
	var parts []string
	for _, n := range ns {
		parts = append(parts, strconv.Itoa(n))
	}
	if len(parts) == 2 {
		return "branches " + parts[0] + " and " + parts[1]
	}
	return "branches " + strings.Join(parts, ", ")
}

// rat prints a schema bound: 100, 0.5, -3.25.
func rat(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	s := r.FloatString(12)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}
