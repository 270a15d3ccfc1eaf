package enrich

import (
	"fmt"
	"net/mail"
	"net/url"
	"strings"
	"time"
	"unicode"

	"github.com/codemode-dev/codemode/ir"
)

// sourceValue is a value the source itself gives for a parameter: its
// default, an example, an existing enum value, or a value quoted in its
// description after "e.g." or "for example".
type sourceValue struct {
	val   any
	where string
}

// exampleIntroRe introduces example values in prose, another value
// beside one ("web_hook" (or "webhook")), or a value to give ("Leave blank
// or set to 0 to tokenize").
var exampleIntroRe = mustCompile(`(?i)\be\.g\.,?|\beg\b,?|\bfor example\b,?:?|\bfor instance\b,?|\bsuch as\b|\bexamples?:|\(\s*or\b|\bset (?:it |this |the value )?to\b`)

// sourceValues collects the values the source gives for a parameter, in a
// fixed order: default, example, examples, enum, then the description's
// example values.
func sourceValues(description string, s ir.Schema) []sourceValue {
	var out []sourceValue
	if d, ok := s["default"]; ok && d != nil {
		out = append(out, sourceValue{d, "the default"})
	}
	if e, ok := s["example"]; ok && e != nil {
		out = append(out, sourceValue{e, "the example"})
	}
	if es, ok := s["examples"].([]any); ok {
		for _, e := range es {
			if e != nil {
				out = append(out, sourceValue{e, "the example"})
			}
		}
	}
	if es, ok := s["enum"].([]any); ok {
		for _, e := range es {
			if e != nil {
				out = append(out, sourceValue{e, "the existing enum value"})
			}
		}
	}
	// The values an anyOf/oneOf branch lists (`{"type": "string", "enum":
	// [""]}`, a const per branch) are values of the parameter too.
	if bs, ok := branches(s); ok {
		for _, b := range bs {
			if c, ok := b["const"]; ok && c != nil {
				out = append(out, sourceValue{c, "the existing const"})
			}
			if es, ok := b["enum"].([]any); ok {
				for _, e := range es {
					if e != nil {
						out = append(out, sourceValue{e, "the existing enum value"})
					}
				}
			}
		}
	}
	for _, v := range proseExamples(description, mainType(s)) {
		out = append(out, sourceValue{v, "the description's example"})
	}
	return out
}

// proseExamples reads the values quoted (or, for numbers, written) after
// an example introducer, up to the end of its sentence or parenthesis. A
// value is kept only when it is of the parameter's type: a string for a
// string, a number for a number.
func proseExamples(d, typ string) []any {
	if typ != "string" && typ != "integer" && typ != "number" {
		return nil
	}
	var out []any
	for _, m := range exampleIntroRe.FindAllStringIndex(d, -1) {
		rest := d[m[1]:]
		if k := strings.IndexAny(rest, ")\n"); k >= 0 {
			rest = rest[:k]
		}
		if k := sentenceEnd(rest); k >= 0 {
			rest = rest[:k]
		}
		for i := 0; i < len(rest); {
			j := skipSpaces(rest, i)
			if j >= len(rest) {
				break
			}
			if q, n, ok := readQuoted(rest[j:]); ok {
				switch typ {
				case "string":
					out = append(out, q)
				default:
					if v, k, ok := readNumber(q); ok && k == len(q) {
						out = append(out, v)
					}
				}
				i = j + n
				continue
			}
			if typ != "string" && (j == 0 || !isWordByte(rest[j-1])) {
				if v, n, ok := readNumber(rest[j:]); ok {
					out = append(out, v)
					i = j + n
					continue
				}
			}
			i = j + 1
		}
	}
	return out
}

// sentenceEnd is the offset of the first ". " (or final ".") in s, or -1.
func sentenceEnd(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] == '.' && (i+1 == len(s) || isSpace(s[i+1])) && !isAbbrev(s[:i]) {
			return i
		}
	}
	return -1
}

// verifyConsistent rejects a proposal that some value the source gives for
// the parameter would not satisfy: the enriched schema must accept the
// parameter's own default, examples, existing enum and example values.
func verifyConsistent(p Proposal, description string, s ir.Schema) (bool, string) {
	if p.Kind == KindRuntimeDefault || p.Kind == KindStaticDefault {
		return true, ""
	}
	if p.Kind == KindEnum {
		if why := keyedElsewhere(p, description); why != "" {
			return false, why
		}
	}
	if f, _ := p.To["format"].(string); f == "uuid" {
		for _, m := range fragmentRe.FindAllStringSubmatch(description, -1) {
			if frag := m[1] + m[2]; !uuidCharsRe.MatchString(frag) {
				return false, fmt.Sprintf("the description says the value may hold %q, which no UUID does", frag)
			}
		}
	}
	merged := mergedView(s, p.To)
	stray := strayEnumValues(p, s)
	for _, sv := range sourceValues(description, s) {
		if sv.where == "the existing enum value" && stray[show(sv.val)] {
			continue
		}
		if why := violates(merged, sv.val); why != "" {
			return false, fmt.Sprintf("%s %s %s", sv.where, show(sv.val), why)
		}
	}
	return true, ""
}

// fragmentRe: a quoted part of the value ("if the UUID begins with a '/'
// or contains '//'").
var fragmentRe = mustCompile("(?i)\\b(?:begins?|starts?|ends?) with\\s+(?:an?\\s+)?['\"`]([^'\"`]+)['\"`]|\\b(?:contains?|includes?)\\s+(?:an?\\s+)?['\"`]([^'\"`]+)['\"`]")
var uuidCharsRe = mustCompile(`^[0-9a-fA-F-]*$`)

// A statedValue is a value one of a parameter's proposals says it takes:
// the default the description states, or an end of an inclusive bound
// ("starting at 1").
type statedValue struct {
	val      any
	from     string // the proposal's ID
	evidence string
}

// statedValues are the values ps (the proposals the rules read in one
// parameter's description) state, of those that pass verification alone
// (ok).
func statedValues(ps []Proposal, ok func(Proposal) bool) []statedValue {
	if len(ps) < 2 {
		return nil
	}
	var out []statedValue
	for _, p := range ps {
		var keys []string
		switch p.Kind {
		case KindStaticDefault:
			keys = []string{"default"}
		case KindRange:
			keys = []string{"minimum", "maximum"}
		default:
			continue
		}
		for _, k := range keys {
			if v, has := p.To[k]; has && ok(p) {
				out = append(out, statedValue{v, p.ID, p.Evidence})
			}
		}
	}
	return out
}

// contradictsStated says why proposal p, applied to schema s,
// would refuse a value another of the parameter's proposals states (""
// when it would not): "Page number, starting at 1. ... documents with
// more than 25 blocks" states 1, which "more than 25" would refuse.
func contradictsStated(p Proposal, s ir.Schema, stated []statedValue) string {
	if p.Kind == KindStaticDefault || p.Kind == KindRuntimeDefault || len(stated) == 0 {
		return ""
	}
	merged := mergedView(s, p.To)
	for _, v := range stated {
		if v.from == p.ID {
			continue
		}
		if why := violates(merged, v.val); why != "" {
			return fmt.Sprintf("the value %s that %q states %s", show(v.val), v.evidence, why)
		}
	}
	return ""
}

// thatOfRe: a property of what the name refers to ("that of `customer`").
var thatOfRe = mustCompile(`(?i)\b(?:that|those) of\s*(?:the\s*)?$`)

// paramWordRe: the word after a name that calls it a parameter.
var paramWordRe = mustCompile(`(?i)^\s+(?:field|parameter|param|property|attribute|argument|header|value)\b`)

// possessedRe: a name owned by state, not given ("the account's
// `default_currency`").
var possessedRe = mustCompile(`(?i)(?:['’]s|\b(?:its|their|your)|\b(?:account|user|organization|org|project|workspace|team)\s*(?:['’]s)?)\s*$`)

// valueCueRe: a default made of another value itself ("the store field
// is used", "a concatenation of", "inferred from"), not of the state of
// what it names ("that of `customer`", "resolved from projectSlug").
var valueCueRe = mustCompile(`(?i)\b(?:is used|are used|will be used|concatenat\w*|combination of|same as|copied from|inferred from|infer it from|(?:value|length|number|size|count|sum|average|inverse) of)\b`)

// derivedFrom is the first of names (the tool's other parameters) whose
// value text makes the default of, or "": one quoted ("`sdkVersion`",
// "\"first_name\""), called a parameter ("the store field"), or written
// bare when it reads as a name (snake_case or camelCase), and not owned
// by the account or user. self is the parameter's own name. The caller
// has found a value cue in text (valueCueRe, cueMemo).
func derivedFrom(text, self string, names []string) string {
	for _, n := range names {
		if n == "" || n == self || len(n) > 64 {
			continue
		}
		for i := 0; ; {
			j := strings.Index(text[i:], n)
			if j < 0 {
				break
			}
			at, end := i+j, i+j+len(n)
			i = end
			if at > 0 && isNameByte(text[at-1]) || end < len(text) && isNameByte(text[end]) {
				continue
			}
			quoted := at > 0 && end < len(text) && strings.ContainsRune("`\"'", rune(text[at-1])) && text[end] == text[at-1]
			from := at
			if quoted {
				from--
			}
			after := text[end:]
			if quoted {
				after = text[end+1:]
			}
			if possessedRe.MatchString(text[:from]) || thatOfRe.MatchString(text[:from]) {
				continue
			}
			if quoted || paramWordRe.MatchString(after) || strings.Contains(n, "_") || isCamel(n) {
				return n
			}
		}
	}
	return ""
}

// nameLike says whether text holds a word derivedFrom can take for a name:
// one quoted, snake_case or camelCase, or the word for a parameter after
// it (a scan: a compile asks it of hundreds of runtime defaults).
func nameLike(text string) bool {
	for i := 1; i < len(text); i++ {
		a, b := text[i-1], text[i]
		switch {
		case b == '_' && i+1 < len(text) && isNameByte(a) && isNameByte(text[i+1]):
			return true
		case a >= 'a' && a <= 'z' && b >= 'A' && b <= 'Z':
			return true
		case (a == '`' || a == '"' || a == '\'') && (b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'):
			return true
		}
	}
	lower := strings.ToLower(text)
	for _, w := range []string{" field", " parameter", " param", " property", " attribute", " argument", " header"} {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

func isNameByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// isCamel: a lower-case letter followed by an upper-case one (sdkVersion).
func isCamel(s string) bool {
	for i := 1; i < len(s); i++ {
		if s[i-1] >= 'a' && s[i-1] <= 'z' && s[i] >= 'A' && s[i] <= 'Z' {
			return true
		}
	}
	return false
}

// keyedValueRe is a key and its string value as JSON (or a Python dict)
// writes them: "type": "User".
var keyedValueRe = mustCompile(`["']([^"'\s]{1,64})["']\s*:\s*["']([^"'\n]{1,200})["']`)

// keyedElsewhere says why an enum's values belong to a key of a document
// the description shows ("" when they do not): `Optional JSON array of
// mentions in the format: [{"id": "123", "type": "User"}]. Valid types
// are: User, Team` lists the values of "type", not of the parameter, which
// holds the whole array.
func keyedElsewhere(p Proposal, description string) string {
	vals, _ := p.To["enum"].([]any)
	if len(vals) == 0 || !strings.Contains(description, ":") {
		return ""
	}
	name := lastSegment(p.Pointer)
	for _, m := range keyedValueRe.FindAllStringSubmatch(description, -1) {
		key, val := m[1], m[2]
		if key == name {
			continue
		}
		for _, v := range vals {
			if s, ok := v.(string); ok && s == val {
				return fmt.Sprintf("the description shows %s as the value of key %q in a document, not of this parameter", show(v), key)
			}
		}
	}
	return ""
}

// violates says why v fails schema s's enum, bounds, lengths, item counts
// or format ("" when it satisfies them). Values of another type than the
// schema's are not judged here.
func violates(s ir.Schema, v any) string {
	if !typeAccepts(s, v) {
		return ""
	}
	if why := outsideSchema(s, v); why != "" {
		return why
	}
	if arr, ok := v.([]any); ok {
		n := float64(len(arr))
		if m, ok := num(s["minItems"]); ok && n < m {
			return fmt.Sprintf("has fewer items than minItems %s", show(s["minItems"]))
		}
		if m, ok := num(s["maxItems"]); ok && n > m {
			return fmt.Sprintf("has more items than maxItems %s", show(s["maxItems"]))
		}
	}
	if str, ok := v.(string); ok {
		if f, ok := s["format"].(string); ok && !formatAccepts(f, str) {
			return "is not a valid " + f
		}
	}
	return ""
}

var uuidRe = mustCompile(`^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$`)

// formatAccepts checks a string against one of the formats enrich adds.
func formatAccepts(f, v string) bool {
	switch f {
	case "date-time":
		_, err := time.Parse(time.RFC3339, v)
		return err == nil
	case "date":
		_, err := time.Parse("2006-01-02", v)
		return err == nil
	case "email":
		a, err := mail.ParseAddress(v)
		return err == nil && a.Address == v
	case "uuid":
		return uuidRe.MatchString(v)
	case "uri":
		u, err := url.Parse(v)
		return err == nil && u.Scheme != "" && (u.Host != "" || u.Opaque != "" || u.Path != "")
	}
	return true
}

// hedgeRe marks a sentence whose constraint is soft: a default limit, a
// configurable one, or one with an exception.
var hedgeRe = mustCompile(`(?i)\bby default\b|\bconfigurable\b|\bconfigured\b|\bunless\b|\botherwise\b|\bcan be (?:changed|raised|increased|overridden)\b|\bdepending on\b|\bdepends on\b|\btypically\b|\busually\b|\bsubject to\b|\bper plan\b|\bon (?:paid|free) plans?\b`)

// verifyHedge rejects a hard constraint (enum, bounds, lengths, format)
// whose evidence sits in a hedged sentence.
func verifyHedge(p Proposal, description string) (bool, string) {
	switch p.Kind {
	case KindEnum, KindRange, KindLength, KindFormat:
	default:
		return true, ""
	}
	i := strings.Index(description, p.Evidence)
	if i < 0 {
		return true, ""
	}
	sents := sentences(description)
	s := sentenceAt(sents, i)
	start, end := s.start, s.end
	if e := i + len(p.Evidence); e > end {
		end = e
	}
	// The clause holding the evidence: a ";" ends a clause.
	if k := strings.LastIndexByte(description[start:i], ';'); k >= 0 {
		start += k + 1
	}
	if k := strings.IndexByte(description[i+len(p.Evidence):end], ';'); k >= 0 {
		end = i + len(p.Evidence) + k
	}
	if m := hedgeRe.FindString(description[start:end]); m != "" {
		return false, fmt.Sprintf("the constraint is hedged (%q): not a hard limit", m)
	}
	if p.Kind == KindRange || p.Kind == KindLength {
		if m := orMoreRe.FindStringSubmatch(description[i+len(p.Evidence):]); m != nil {
			return false, fmt.Sprintf("the constraint is hedged (%q): not a hard limit", m[1])
		}
	}
	// "(we recommend a UUID)": advice, in the parenthesis or clause that
	// holds the evidence, not a rule.
	if m := recommendRe.FindString(enclosing(description, i, i+len(p.Evidence), start, end)); m != "" {
		return false, fmt.Sprintf("the constraint is advice (%q): not a hard limit", m)
	}
	return true, ""
}

// recommendRe: advice on the value.
var recommendRe = mustCompile(`(?i)\b(?:recommend(?:s|ed)?|preferably|ideally|suggested|advised)\b`)

// enclosing is the text of description[start:end] that the evidence
// [i, e) stands in: the parenthesis around it, or else the span with its
// parentheses left out.
func enclosing(description string, i, e, start, end int) string {
	if open := strings.LastIndexByte(description[start:i], '('); open >= 0 && !strings.Contains(description[start+open:i], ")") {
		if k := strings.IndexByte(description[e:end], ')'); k >= 0 {
			return description[start+open : e+k+1]
		}
	}
	var b strings.Builder
	depth := 0
	for j := start; j < end; j++ {
		switch c := description[j]; {
		case c == '(':
			depth++
		case c == ')' && depth > 0:
			depth--
		case depth == 0:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// orMoreRe: a bound followed by an alternative bound ("up to 100, or 1000
// on request", "at most 5 or more with approval").
var orMoreRe = mustCompile(`(?i)^\s*(?:[a-z]+\s+){0,2}?,?\s*(or\s+(?:\d[\d,.]*\d|\d|more|higher|greater|larger|above|unlimited))\b`)

// returnedRe: the things after a bound's number are the response's.
var returnedRe = mustCompile(`(?i)^\s+(?:[\w-]+\s+){1,2}(?:will be|are|is|get|gets)\s+(?:returned|listed|shown|fetched)\b`)

// countNameRe: a parameter that sets how many results come back.
var countNameRe = mustCompile(`(?i)limit|size|count|max|top|per_?page|perpage|number|num|results|take|first|last`)

// verifyCounted rejects a numeric bound on the results a call returns
// ("e.g. page=1 – Up to 100 invoices will be returned in a single API
// call") unless the parameter sets their number (a limit or a page size,
// not a page's number). It reads the parameter's name, which the rules
// do not see (their proposals are shared between parameters).
func verifyCounted(p Proposal, description string) (bool, string) {
	if p.Kind != KindRange {
		return true, ""
	}
	i := strings.Index(description, p.Evidence)
	if i < 0 || !returnedRe.MatchString(description[i+len(p.Evidence):]) || countNameRe.MatchString(lastSegment(p.Pointer)) {
		return true, ""
	}
	return false, "the bound counts the results returned, not this parameter's value"
}

// verifySubject rejects evidence that is about another, code-quoted name:
// "The `limit` parameter defaults to 10" in the description of page_size,
// "- `PR_TITLE` - default to the pull request's title" in a list of values.
func verifySubject(p Proposal, description string) (bool, string) {
	i := strings.Index(description, p.Evidence)
	if i < 0 {
		return true, ""
	}
	s := sentenceAt(sentences(description), i)
	if s.start > i {
		return true, ""
	}
	m := otherSubjectRe.FindStringSubmatch(description[s.start:i])
	if m == nil || m[1] == lastSegment(p.Pointer) {
		return true, ""
	}
	return false, fmt.Sprintf("the evidence is about %q, not this parameter", m[1])
}

// strayEnumValues lists (by their JSON) the values of the existing enum
// that an enum proposal may drop: values unlike every value the prose
// lists, a defect of the schema rather than a value ("side" beside the
// listed `LEFT` and `RIGHT`, where the prose names the `side` parameter).
// A value is unlike the listed ones when they all share one letter case
// and it has another. An empty string or null is never stray: it is how
// many APIs clear a field, and prose rarely lists it.
func strayEnumValues(p Proposal, s ir.Schema) map[string]bool {
	if p.Kind != KindEnum {
		return nil
	}
	old, ok := s["enum"].([]any)
	listed, ok2 := p.To["enum"].([]any)
	if !ok || !ok2 || len(listed) == 0 {
		return nil
	}
	shape := ""
	for _, v := range listed {
		sv, ok := v.(string)
		if !ok {
			return nil
		}
		sh := letterCase(sv)
		if sh == "" || shape != "" && sh != shape {
			return nil
		}
		shape = sh
	}
	out := map[string]bool{}
	for _, v := range old {
		sv, ok := v.(string)
		if !ok || sv == "" {
			continue
		}
		if sh := letterCase(sv); sh != "" && sh != shape {
			out[show(v)] = true
		}
	}
	return out
}

// letterCase is "upper" or "lower" when every letter of v has that case,
// else "" (mixed, or no letters).
func letterCase(v string) string {
	up, low := false, false
	for _, r := range v {
		switch {
		case unicode.IsUpper(r):
			up = true
		case unicode.IsLower(r):
			low = true
		}
	}
	switch {
	case up && !low:
		return "upper"
	case low && !up:
		return "lower"
	}
	return ""
}
