package emit

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/codemode-dev/codemode/ir"
)

// What a description already says of its schema's constraints, so the
// comment after it does not say it again. Only exact values count: a
// description that states a bound of another value, or none, leaves the
// schema's printed.

// num is a number as prose writes it (thousands may be grouped with
// commas).
const num = `([-+]?\d{1,3}(?:,\d{3})+|[-+]?\d+(?:\.\d+)?)`

var (
	// boundRange is "1-100", "1–255", "1 to 50", "1..25", "between 1 and
	// 100".
	boundRange = regexp.MustCompile(`(?i)(?:^|[^\w.,-])(?:between\s+|from\s+)?` + num + `\s*(?:-|–|—|\.\.|to|and)\s*` + num + `\b`)
	// boundMax is "max 100", "max: 500", "maximum is 50", "maximum of 400",
	// "up to 20", "at most 10", "no more than 5", "limited to 400", "<= 9",
	// "(100 max)".
	boundMax = []*regexp.Regexp{
		regexp.MustCompile(`(?i)\b(?:max(?:imum)?|at\s+most|up\s+to|no\s+more\s+than|not\s+more\s+than|limit(?:ed)?\s+(?:to|of)|(?:less|smaller|lower)\s+(?:than\s+)?or\s+equal\s+to)\s*(?:(?:is|of)\s+)?[:=]?\s*\(?` + num + `\b`),
		regexp.MustCompile(`(?:<=|≤)\s*` + num + `\b`),
		regexp.MustCompile(`(?i)(?:^|[^\w.,-])` + num + `\)?\s+max(?:imum)?\b`),
	}
	// boundMin is "min 1", "minimum: 0", "at least 1", "no less than 2",
	// ">= 1", "(1 min)".
	boundMin = []*regexp.Regexp{
		regexp.MustCompile(`(?i)\b(?:min(?:imum)?|at\s+least|no\s+less\s+than|not\s+less\s+than|(?:greater|larger|higher)\s+(?:than\s+)?or\s+equal\s+to)\s*(?:(?:is|of)\s+)?[:=]?\s*\(?` + num + `\b`),
		regexp.MustCompile(`(?:>=|≥)\s*` + num + `\b`),
		regexp.MustCompile(`(?i)(?:^|[^\w.,-])` + num + `\)?\s+min(?:imum)?\b`),
	}
)

// proseNum is a number as the schema writes it (no grouping commas, no
// plus sign).
func proseNum(s string) string { return strings.TrimPrefix(strings.ReplaceAll(s, ",", ""), "+") }

// sameNum says whether prose number s is the value v.
func sameNum(s, v string) bool {
	s = proseNum(s)
	if s == v {
		return true
	}
	a, err1 := strconv.ParseFloat(s, 64)
	b, err2 := strconv.ParseFloat(v, 64)
	return err1 == nil && err2 == nil && a == b
}

// statesBound says whether desc names v as a bound of the given side
// (max or min) in one of the phrases above.
func statesBound(desc, v string, max bool) bool {
	res := boundMin
	if max {
		res = boundMax
	}
	for _, re := range res {
		for _, m := range re.FindAllStringSubmatch(desc, -1) {
			if sameNum(m[1], v) {
				return true
			}
		}
	}
	return false
}

// statesRange says whether desc writes lo and hi as a range ("1-100").
func statesRange(desc, lo, hi string) bool {
	for _, m := range boundRange.FindAllStringSubmatch(desc, -1) {
		if sameNum(m[1], lo) && sameNum(m[2], hi) {
			return true
		}
	}
	return false
}

// boundsSaid adds to said (a new set when said is nil) the inclusive
// bounds of t (minimum, maximum, and the lengths' and item counts') whose
// exact value desc states: as a range ("(1-100)", "1–255 characters",
// "between 1 and 50") or on its own ("max 100", "up to 20 per call", "at
// least 1"). It returns said unchanged when desc states none.
func boundsSaid(desc string, t *ir.Type, said map[string]bool) map[string]bool {
	if desc == "" || t == nil || !strings.ContainsAny(desc, "0123456789") {
		return said
	}
	mark := func(kw string) {
		if said == nil {
			said = map[string]bool{}
		}
		said[kw] = true
	}
	pair := func(minKw, maxKw, lo, hi string) {
		if lo != "" && hi != "" && statesRange(desc, lo, hi) {
			mark(minKw)
			mark(maxKw)
			return
		}
		if lo != "" && statesBound(desc, lo, false) {
			mark(minKw)
		}
		if hi != "" && statesBound(desc, hi, true) {
			mark(maxKw)
		}
	}
	// A length or count no number in desc can be is not looked for (the
	// expressions are tried at every position of desc).
	intText := func(n *int64) string {
		if n == nil || !mayState(desc, *n) {
			return ""
		}
		return strconv.FormatInt(*n, 10)
	}
	var lo, hi string
	if t.Min != nil {
		lo = t.Min.String()
	}
	if t.Max != nil {
		hi = t.Max.String()
	}
	pair("minimum", "maximum", lo, hi)
	pair("minLength", "maxLength", intText(t.MinLength), intText(t.MaxLength))
	pair("minItems", "maxItems", intText(t.MinItems), intText(t.MaxItems))
	return said
}

// mayState says whether a number of the bound phrases (num) in desc can
// be n (sameNum): one that is has n's digits in it, or for n from 1,000 up
// its digits grouped by commas ("5,000"). n < 0 always may.
func mayState(desc string, n int64) bool {
	if n < 0 {
		return true
	}
	digits := strconv.FormatInt(n, 10)
	if strings.Contains(desc, digits) {
		return true
	}
	if len(digits) <= 3 || strings.IndexByte(desc, ',') < 0 {
		return false
	}
	grouped := make([]byte, 0, len(digits)+len(digits)/3)
	for i := range len(digits) {
		if i > 0 && (len(digits)-i)%3 == 0 {
			grouped = append(grouped, ',')
		}
		grouped = append(grouped, digits[i])
	}
	return strings.Contains(desc, string(grouped))
}

// restated adds to said the keywords of t whose values desc states (its
// default, its bounds), for facts to leave out.
func restated(desc string, t *ir.Type, said map[string]bool) map[string]bool {
	return boundsSaid(desc, t, defaultSaid(desc, t, said))
}

// enumFiller is the words a sentence that only lists an enum's values has
// around them: "Valid values are ...", "One of: ...", "Options: ...",
// "Possible values include ...", "Must be either ... or ...".
var enumFiller = map[string]bool{
	"valid": true, "value": true, "values": true, "are": true, "is": true, "one": true, "of": true,
	"option": true, "options": true, "possible": true, "allowed": true, "accepted": true, "supported": true,
	"available": true, "must": true, "be": true, "can": true, "either": true, "or": true, "and": true,
	"include": true, "includes": true, "the": true, "following": true, "choices": true, "choose": true,
	"from": true, "only": true, "enum": true, "types": true,
}

// enumText is the values of a Literal as prose names them: strings as
// they are, numbers and booleans as JSON writes them; nil when one cannot
// be named (null, or an empty string).
func enumText(values []any) []string {
	out := make([]string, 0, len(values))
	for _, v := range values {
		switch v := v.(type) {
		case string:
			if strings.TrimSpace(v) == "" {
				return nil
			}
			out = append(out, v)
		case bool:
			out = append(out, strconv.FormatBool(v))
		case interface{ String() string }: // json.Number
			out = append(out, v.String())
		default:
			return nil
		}
	}
	// The longest first, so that "resolvedInNextRelease" is taken whole
	// before "resolved".
	slices.SortStableFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}

func identByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// onlyLists says whether text names every one of values (each as a whole
// word) and, besides them, nothing but enumFiller words and punctuation.
func onlyLists(text string, values []string) bool {
	for _, v := range values {
		found := false
		for i := 0; ; {
			j := strings.Index(text[i:], v)
			if j < 0 {
				break
			}
			j += i
			end := j + len(v)
			if (j == 0 || !identByte(text[j-1])) && (end == len(text) || !identByte(text[end])) {
				text = text[:j] + " " + text[end:]
				found = true
				i = j + 1
			} else {
				i = j + 1
			}
			if i >= len(text) {
				break
			}
		}
		if !found {
			return false
		}
	}
	words := strings.FieldsFunc(text, func(r rune) bool {
		return !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= 0x80)
	})
	for _, w := range words {
		if !enumFiller[strings.ToLower(w)] {
			return false
		}
	}
	return true
}

// sentences cuts folded prose after each full stop ("!", "?") that a space
// or the end follows, the spaces going with the sentence before: the
// pieces join back to s.
func sentences(s string) []string {
	var out []string
	eachSentence(s, func(x string) { out = append(out, x) })
	return out
}

// replaceAsides is regexp.MustCompile(`\s*\([^()]*\)`).ReplaceAllStringFunc(s,
// f): each parenthesized aside without nested parentheses, with the ASCII
// spaces before it, replaced by f of it. The expression, which no literal
// starts, was tried at every position of every description.
func replaceAsides(s string, f func(string) string) string {
	var b strings.Builder
	done := 0 // s[:done] is written (or replaced)
	for i := 0; i < len(s); i++ {
		if s[i] != '(' {
			continue
		}
		k := strings.IndexAny(s[i+1:], "()")
		if k < 0 {
			break // no ')' closes this or any later '('
		}
		k += i + 1
		if s[k] == '(' {
			i = k - 1 // the nearer '(' may close
			continue
		}
		start := i
		for start > done && isRESpace(s[start-1]) {
			start--
		}
		if b.Len() == 0 && done == 0 {
			b.Grow(len(s))
		}
		b.WriteString(s[done:start])
		b.WriteString(f(s[start : k+1]))
		done, i = k+1, k
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// isRESpace is \s of package regexp.
func isRESpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }

// dropEnumRestatement takes out of desc (folded onto one line) each
// sentence and each parenthesized aside that only lists values, the
// values of the Literal the annotation beside it prints: "Valid values are
// 'a', 'b' and 'c'.", "(one of: a, b, c)". A sentence that says more (what
// a value means, or any word but the listing's) stays.
func dropEnumRestatement(desc string, values []any) string {
	if desc == "" || len(values) == 0 {
		return desc
	}
	vs := enumText(values)
	if len(vs) == 0 {
		return desc
	}
	if !strings.Contains(desc, vs[len(vs)-1]) {
		return desc // the shortest value is not even there
	}
	out := replaceAsides(desc, func(m string) string {
		inner := strings.TrimSpace(m)
		if onlyLists(inner[1:len(inner)-1], vs) {
			return ""
		}
		return m
	})
	var b strings.Builder
	for _, s := range sentences(out) {
		if !onlyLists(s, vs) {
			b.WriteString(s)
		}
	}
	return strings.TrimSpace(b.String())
}
