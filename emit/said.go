package emit

import (
	"regexp"
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
const num = `(-?\d{1,3}(?:,\d{3})+|-?\d+(?:\.\d+)?)`

var (
	// boundRange is "1-100", "1–255", "1 to 50", "1..25", "between 1 and
	// 100".
	boundRange = regexp.MustCompile(`(?i)(?:^|[^\w.,-])(?:between\s+|from\s+)?` + num + `\s*(?:-|–|—|\.\.|to|and)\s*` + num + `\b`)
	// boundMax is "max 100", "max: 500", "maximum is 50", "maximum of 400",
	// "up to 20", "at most 10", "no more than 5", "limited to 400", "<= 9",
	// "(100 max)".
	boundMax = []*regexp.Regexp{
		regexp.MustCompile(`(?i)\b(?:max(?:imum)?|at\s+most|up\s+to|no\s+more\s+than|not\s+more\s+than|limit(?:ed)?\s+(?:to|of))\s*(?:(?:is|of)\s+)?[:=]?\s*\(?` + num + `\b`),
		regexp.MustCompile(`(?:<=|≤)\s*` + num + `\b`),
		regexp.MustCompile(`(?i)(?:^|[^\w.,-])` + num + `\)?\s+max(?:imum)?\b`),
	}
	// boundMin is "min 1", "minimum: 0", "at least 1", "no less than 2",
	// ">= 1", "(1 min)".
	boundMin = []*regexp.Regexp{
		regexp.MustCompile(`(?i)\b(?:min(?:imum)?|at\s+least|no\s+less\s+than|not\s+less\s+than)\s*(?:(?:is|of)\s+)?[:=]?\s*\(?` + num + `\b`),
		regexp.MustCompile(`(?:>=|≥)\s*` + num + `\b`),
		regexp.MustCompile(`(?i)(?:^|[^\w.,-])` + num + `\)?\s+min(?:imum)?\b`),
	}
)

// proseNum is a number as the schema writes it (no grouping commas).
func proseNum(s string) string { return strings.ReplaceAll(s, ",", "") }

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
	intText := func(n *int64) string {
		if n == nil {
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

// restated adds to said the keywords of t whose values desc states (its
// default, its bounds), for facts to leave out.
func restated(desc string, t *ir.Type, said map[string]bool) map[string]bool {
	return boundsSaid(desc, t, defaultSaid(desc, t, said))
}
