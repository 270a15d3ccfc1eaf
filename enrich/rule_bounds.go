package enrich

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// Bound directions.
const (
	bMin   = "min"
	bMax   = "max"
	bExMin = "exmin"
	bExMax = "exmax"
)

// boundIntro is a phrase followed by one number.
type boundIntro struct {
	re  *pattern
	dir string
}

var boundIntros = []boundIntro{
	{mustCompile(`(?i)\b(?:max(?:imum)?(?:\s+(?:value|size|length|limit|count))?(?:\s+(?:is|of))?\s*[:=]?|at most|up to|no more than|not more than|no greater than|not greater than|no larger than|(?:must|can|may|should|shall) not (?:exceed|be (?:more|greater|larger|longer) than)|cannot exceed|can't exceed|(?:must|can|may|should|shall|will) never exceed|never exceeds|(?:less|smaller|lower|fewer|shorter)(?: than)? or(?: equal)?(?: to)?)\s*`), bMax},
	{mustCompile(`(?i)\b(?:capped at|limited to|limit(?:ed)? of|(?:up to )?a maximum of|not to exceed|must not be above)\s*`), bMax},
	// "The maximum number of contexts is 1000".
	{mustCompile(`(?i)\bmax(?:imum)? number of [a-z][\w-]*(?: [a-z][\w-]*)? (?:is|=)\s*`), bMax},
	{mustCompile(`(?i)\bmin(?:imum)? number of [a-z][\w-]*(?: [a-z][\w-]*)? (?:is|=)\s*`), bMin},
	{mustCompile(`(?:<=|≤)\s*`), bMax},
	{mustCompile(`(?i)\b(?:starting (?:at|from)|starts (?:at|from)|(?:up )?from a minimum of|a minimum of)\s*`), bMin},
	{mustCompile(`(?i)\b(?:less|smaller|lower|fewer|shorter) than\s+`), bExMax},
	{mustCompile(`(?i)\b(?:min(?:imum)?(?:\s+(?:value|size|length|count))?(?:\s+(?:is|of))?\s*[:=]?|at least|no less than|no fewer than|not less than|(?:greater|larger|more|higher|longer)(?: than)? or(?: equal)?(?: to)?)\s*`), bMin},
	{mustCompile(`(?:>=|≥)\s*`), bMin},
	{mustCompile(`(?i)\b(?:greater|larger|more|higher|longer) than\s+`), bExMin},
}

// The words between the two numbers of a range, and "or" after it.
var (
	andConjRe = mustCompile(`^\s+and\s+`)
	toConjRe  = mustCompile(`^\s+to\s+`)
	orConjRe  = mustCompile(`^\s+or\s+`)
)

// relativeEndRe: an upper end that is a quantity named in words ("the
// number of ...", "total number of ...", "the length of ...").
var relativeEndRe = mustCompile(`(?i)^(?:the\s+)?(?:total\s+)?(?:number|count|length|size|amount)\s+of\b`)

var (
	betweenRe = mustCompile(`(?i)\b(between|from|range(?:s)? from|ranges? between)\s+`)
	// dashRangeRe: "(1-10)", "be 3–12", "Values: 2000-10000".
	dashRangeRe = mustCompile("(?i)(?:\\(|\\b(?:be|is|values?:?|range:?)\\s+)`?(\\d+(?:\\.\\d+)?)`?\\s*[-–]\\s*`?(\\d+(?:\\.\\d+)?)`?")
	// orFewerRe: "<n> <unit> or fewer|less|more".
	orFewerRe = mustCompile(`(?i)\b(\d+)(\s+[a-z]+(?:\s+[a-z]+)?)?\s+or\s+(fewer|less|shorter|below|more|greater|longer|above)\b`)
	// toRangeRe: "Display name, 3 to 40 characters", "(1 to 10)", "be 2 to 5".
	toRangeRe  = mustCompile("(?i)(?:\\(|,\\s+|\\b(?:be|is|of|values?:?|range:?)\\s+)`?(\\d+)`?\\s+to\\s+`?(\\d+)`?\\b")
	nonNegRe   = mustCompile(`(?i)\bnon-?negative\b|\bnot negative\b|\bzero or (?:greater|more|positive)\b|\bgreater than or equal to zero\b`)
	positiveRe = mustCompile(`(?i)\b(?:positive (?:integer|int|number|float|decimal|value|amount|figure|whole number|real number)|(?:must|should) be positive|strictly positive)\b`)
	nonEmptyRe = mustCompile(`(?i)\b(?:cannot|can ?not|must not|may not|should not|can't) be empty\b|\bnon-?empty\b|\bmust not be blank\b`)
)

var charUnits = map[string]bool{"characters": true, "character": true, "chars": true, "char": true, "letters": true, "letter": true, "digits": true, "digit": true, "symbols": true}
var nonNumericUnits = map[string]bool{"characters": true, "character": true, "chars": true, "char": true, "letters": true, "digits": true, "decimal": true, "words": true, "word": true, "bytes": true}

type boundHit struct {
	dir  string
	val  json.Number
	ev   span
	unit []string // words after the number, up to clause punctuation
	rule string
}

// unitWords returns up to 3 lower-cased words after offset i, stopping at
// clause punctuation.
func unitWords(s string, i int) []string {
	rest := s[i:]
	if k := strings.IndexAny(rest, ",;.():\n"); k >= 0 {
		rest = rest[:k]
	}
	return wordsAfter(rest, 3)
}

var (
	// condBeforeRe: a bound inside a condition ("truncated if longer than 22").
	condBeforeRe = mustCompile(`(?i)\b(?:if|when|whenever|unless)\s+(?:it is\s+|it's\s+|is\s+|they are\s+|the \w+ is\s+)?$`)
	timeUnits    = map[string]bool{"second": true, "seconds": true, "minute": true, "minutes": true, "hour": true, "hours": true, "day": true, "days": true, "week": true, "weeks": true, "month": true, "months": true, "year": true, "years": true}
	relWords     = map[string]bool{"in": true, "ago": true, "before": true, "after": true, "from": true, "since": true}
	// condAfterRe: the bound holds only in a case ("10 characters for `ach`
	// payments", "100 if archived").
	condAfterRe = mustCompile("^(?:\\s+[\\w-]+){0,2}\\s+(?:for\\s+[`'\"]|(?:if|when|unless|except)\\b)")
	// subordinateRe starts a clause about another thing than the value;
	// requiredRe, after it, makes the comparison a requirement on it.
	subordinateRe = mustCompile(`(?i)\b(?:whose|which|that|if|when|whenever|where|unless|once)\b`)
	requiredRe    = mustCompile(`(?i)\b(?:must|should|shall|has to|have to|needs? to|is required to|can|may|cannot|can't)\b`)
	emptyOKRe     = mustCompile(`(?i)\b(?:may|can|could|might)\s+(?:be|have an?)\s+empty\b`)
	negativeRe    = mustCompile(`(?i)\bnegative\b`)
)

// boundOK rejects a bound stated inside a condition, for a case ("Maximum
// 10 characters for `ach` payments"), or relative to now ("up to 48 hours
// in the past").
func boundOK(d string, h boundHit) bool {
	lo := h.ev.start - 40
	if lo < 0 {
		lo = 0
	}
	if condBeforeRe.MatchString(d[lo:h.ev.start]) {
		return false
	}
	if condAfterRe.MatchString(d[h.ev.end:]) {
		return false
	}
	// "a fixed amount of up to 4% of amt_tran": a share of another value.
	if shareOfRe.MatchString(d[h.ev.end:]) {
		return false
	}
	// "For `people.connections.list` and `otherContacts.list` the number
	// of phone numbers is limited to 100": a bound of another operation.
	if scopedForRe.MatchString(sentenceBefore(d, h.ev.start)) {
		return false
	}
	// "Issues for which the expression returns a value whose JSON
	// representation is longer than 32768 characters are ignored": a
	// comparison in a clause about something else, with no requirement on
	// the value in it.
	if h.dir == bExMin || h.dir == bExMax {
		before := clauseBefore(d, h.ev.start)
		if m := subordinateRe.FindAllStringIndex(before, -1); m != nil && !requiredRe.MatchString(before[m[len(m)-1][1]:]) {
			return false
		}
	}
	for i, w := range h.unit {
		if timeUnits[w] && i+1 < len(h.unit) && relWords[h.unit[i+1]] {
			return false
		}
	}
	return !jointBound(d, h)
}

// jointRe marks a bound on several things together ("in total", "combined").
var jointRe = mustCompile(`(?i)\b(?:in total|combined|together|altogether|in aggregate|in sum|summed)\b|\b(?:total|sum|combined) (?:number|count|length|size|amount) of\b`)

// coordRe: a coordination of two or more things ("users, apps, and teams").
var coordRe = mustCompile(`(?i)\w,? (?:and|or|plus) \w`)

// jointBound says whether the bound's clause counts several things together
// ("The list of users, apps, and teams in total is limited to 100 items",
// "apps and teams combined may not exceed 10"): a coordination before the
// bound and a word that joins the counts. Each list alone may hold fewer,
// so no one list gets the bound.
func jointBound(d string, h boundHit) bool {
	start := strings.LastIndexAny(d[:h.ev.start], ".;\n")
	before := d[start+1 : h.ev.start]
	end := strings.IndexAny(d[h.ev.end:], ".;\n")
	if end < 0 {
		end = len(d) - h.ev.end
	}
	clause := before + d[h.ev.start:h.ev.end+end]
	return jointRe.MatchString(clause) && coordRe.MatchString(before)
}

func (c *ctx) boundHits() []boundHit {
	var all []boundHit
	for _, h := range c.rawBoundHits() {
		if boundOK(c.desc, h) {
			all = append(all, h)
		}
	}
	return all
}

func (c *ctx) rawBoundHits() []boundHit {
	var hits []boundHit
	d := c.desc
	for _, bi := range boundIntros {
		for _, m := range bi.re.FindAllStringIndex(d, -1) {
			v, n, ok := readNumber(d[m[1]:])
			if !ok {
				// A number word only after a maximum ("up to six"): "at
				// least one letter", "more than two intervals" count
				// other things.
				if bi.dir != bMax {
					continue
				}
				if v, n, ok = readNumberWord(d[m[1]:]); !ok {
					continue
				}
			}
			end := m[1] + n
			if strings.HasPrefix(d[end:], "–") {
				continue
			}
			dir, start := bi.dir, m[0]
			// "can never be larger than 250", "must not be less than 5":
			// a denied comparison is the inclusive bound the other way.
			if dir == bExMin || dir == bExMax {
				if neg := deniedBeforeRe.FindStringIndex(d[max(0, m[0]-40):m[0]]); neg != nil {
					start = max(0, m[0]-40) + neg[0]
					if dir == bExMin {
						dir = bMax
					} else {
						dir = bMin
					}
					if coveredHit(hits, dir, v, start, end) {
						continue
					}
				}
			}
			hits = append(hits, boundHit{dir, v, span{start, end}, unitWords(d, end), RuleRange})
		}
	}
	for _, m := range betweenRe.FindAllStringSubmatchIndex(d, -1) {
		a, n1, ok := readNumber(d[m[1]:])
		if !ok {
			continue
		}
		i := m[1] + n1
		word := strings.ToLower(d[m[2]:m[3]])
		conj := toConjRe
		if strings.Contains(word, "between") {
			conj = andConjRe
		}
		cm := conj.FindString(d[i:])
		if cm == "" {
			continue
		}
		i += len(cm)
		b, n2, ok := readNumber(d[i:])
		if !ok {
			// "between 1 and the number of items": the upper bound is
			// relative (not a keyword), the lower one still holds.
			if strings.Contains(word, "between") && relativeEndRe.MatchString(d[i:]) {
				hits = append(hits, boundHit{bMin, a, span{m[0], m[1] + n1}, unitWords(d, m[1]+n1), RuleRange})
			}
			continue
		}
		i += n2
		lo, hi := a, b
		if om := orConjRe.FindString(d[i:]); om != "" {
			if k, n3, ok := readNumber(d[i+len(om):]); ok {
				i += len(om) + n3
				if numLess(k, lo) {
					lo = k
				}
				if numLess(hi, k) {
					hi = k
				}
			}
		}
		if !numLess(lo, hi) {
			continue
		}
		u := unitWords(d, i)
		hits = append(hits, boundHit{bMin, lo, span{m[0], i}, u, RuleRange}, boundHit{bMax, hi, span{m[0], i}, u, RuleRange})
	}
	// "100 characters or fewer", "3 items or more": the bound after the
	// number.
	for _, m := range orFewerRe.FindAllStringSubmatchIndex(d, -1) {
		if m[0] > 0 && (isWordByte(d[m[0]-1]) || d[m[0]-1] == '.' || d[m[0]-1] == '-') {
			continue
		}
		dir := bMax
		if w := strings.ToLower(d[m[6]:m[7]]); w == "more" || w == "greater" || w == "longer" || w == "above" {
			dir = bMin
		}
		var u []string
		if m[4] >= 0 {
			u = wordsAfter(d[m[4]:m[5]], 3)
		}
		hits = append(hits, boundHit{dir, normNumber(d[m[2]:m[3]]), span{m[0], m[1]}, u, RuleRange})
	}
	for _, m := range toRangeRe.FindAllStringSubmatchIndex(d, -1) {
		lo, hi := normNumber(d[m[2]:m[3]]), normNumber(d[m[4]:m[5]])
		if !numLess(lo, hi) {
			continue
		}
		u := unitWords(d, m[1])
		hits = append(hits, boundHit{bMin, lo, span{m[2], m[1]}, u, RuleRange}, boundHit{bMax, hi, span{m[2], m[1]}, u, RuleRange})
	}
	for _, m := range dashRangeRe.FindAllStringSubmatchIndex(d, -1) {
		end := m[1]
		if end < len(d) && (isDigit(d[end]) || (d[end] == '-' || d[end] == '.' || d[end] == '/') && end+1 < len(d) && isDigit(d[end+1])) {
			continue
		}
		if m[0] > 0 && (isDigit(d[m[0]-1]) || d[m[0]-1] == '-') {
			continue
		}
		lo, hi := normNumber(d[m[2]:m[3]]), normNumber(d[m[4]:m[5]])
		if !numLess(lo, hi) {
			continue
		}
		u := unitWords(d, end)
		hits = append(hits, boundHit{bMin, lo, span{m[0], end}, u, RuleRange}, boundHit{bMax, hi, span{m[0], end}, u, RuleRange})
	}
	return hits
}

// deniedBeforeRe: a comparison's denial right before it ("never be",
// "must not be", "can't be", "is never", "cannot contain").
var deniedBeforeRe = mustCompile(`(?i)\b(?:not|never|cannot|can't|won't|mustn't|shouldn't)\s+(?:be\s+|get\s+|go\s+|contain\s+|have\s+|hold\s+|include\s+|exceed\s+)?$`)

// coveredHit says whether hits has a bound in direction dir of value v
// whose evidence spans start..end ("must not be greater than 9" is a
// maximum already).
func coveredHit(hits []boundHit, dir string, v json.Number, start, end int) bool {
	for _, h := range hits {
		if h.dir == dir && h.val == v && h.ev.start <= start && end <= h.ev.end {
			return true
		}
	}
	return false
}

func numLess(a, b json.Number) bool {
	fa, err1 := a.Float64()
	fb, err2 := b.Float64()
	return err1 == nil && err2 == nil && fa < fb
}

func hasCharUnit(u []string) bool {
	for i, w := range u {
		if i > 1 {
			break
		}
		if charUnits[w] {
			return true
		}
	}
	return false
}

// sentenceBefore is d's text from the start of the sentence holding
// offset at up to it (a "." inside a name, as in `people.list`, ends none).
func sentenceBefore(d string, at int) string {
	start := 0
	for i := 0; i+1 < at; i++ {
		switch {
		case d[i] == ';' || d[i] == '\n':
			start = i + 1
		case (d[i] == '.' || d[i] == '!' || d[i] == '?') && (d[i+1] == ' ' || d[i+1] == '\n'):
			start = i + 1
		}
	}
	return d[start:at]
}

// clauseBefore is d's text from the start of the clause holding offset at
// up to it.
func clauseBefore(d string, at int) string {
	return d[strings.LastIndexAny(d[:at], ".;:\n")+1 : at]
}

// wholeCharUnit: the characters counted are the value's, not a kind of
// them among others: the unit first ("max 40 chars"), after a word that
// names every character ("64 ASCII characters"), or after another kind
// when the value is said to be them ("Must be 3–12 uppercase letters or
// numbers"), not to contain them ("Cannot contain more than 5 Chinese
// characters"). before is the clause up to the bound's number.
func wholeCharUnit(u []string, before string) bool {
	if len(u) > 0 && charUnits[u[0]] {
		return true
	}
	if len(u) < 2 || !charUnits[u[1]] {
		return false
	}
	return wholeCharWords[u[0]] || !partVerbRe.MatchString(before)
}

// scopedForRe: a clause that opens on the code-quoted thing it is about.
var scopedForRe = mustCompile("(?i)^\\s*for\\s+(?:the\\s+)?[`'\"]")

// shareOfRe: a bound's number as a share of another value.
var shareOfRe = mustCompile(`(?i)^\s*(?:%|percent)\s+of\b`)

// lengthWordRe: a clause about a number's length, not its value.
var lengthWordRe = mustCompile(`(?i)\b(?:variable|fixed|maximum|max) length\b|\bdigits?\b|\bcharacters?\b`)

// partVerbRe: the value holds the characters counted among others.
var partVerbRe = mustCompile(`(?i)\b(?:contains?|containing|includes?|including|has|have|having|with|of which)\b`)

var wholeCharWords = map[string]bool{"total": true, "unicode": true, "utf-8": true, "utf8": true, "ascii": true, "alphanumeric": true, "printable": true, "byte": true, "single-byte": true}

func hasNonNumericUnit(u []string) bool {
	for i, w := range u {
		if i > 1 {
			break
		}
		if nonNumericUnits[w] {
			return true
		}
	}
	return false
}

// boundsRule proposes range keywords for numbers and length keywords for
// strings and arrays.
func (c *ctx) boundsRule() []Proposal {
	numeric := c.typ == "number" || c.typ == "integer"
	str := c.typ == "string"
	arr := c.typ == "array"
	if !numeric && !str && !arr {
		return nil
	}
	type kw struct {
		key  string
		val  json.Number
		ev   span
		rule string
	}
	var kws []kw
	add := func(key string, v json.Number, ev span, rule string) {
		kws = append(kws, kw{key, v, ev, rule})
	}
	for _, h := range c.boundHits() {
		switch {
		case numeric:
			// "Format: Variable length, up to 8,2 N": a count of digits.
			if hasNonNumericUnit(h.unit) || lengthWordRe.MatchString(clauseBefore(c.desc, h.ev.start)) {
				continue
			}
			// "not more than one of those options": a count of other
			// things.
			if len(h.unit) > 0 && h.unit[0] == "of" {
				continue
			}
			key := map[string]string{bMin: "minimum", bMax: "maximum", bExMin: "exclusiveMinimum", bExMax: "exclusiveMaximum"}[h.dir]
			add(key, h.val, h.ev, RuleRange)
		case str, arr:
			if str && !wholeCharUnit(h.unit, clauseBefore(c.desc, h.ev.end)) {
				continue
			}
			if arr && (hasCharUnit(h.unit) || hasNonNumericUnit(h.unit) || c.aboutEachItem(h)) {
				continue
			}
			f, err := h.val.Float64()
			if err != nil || f != math.Trunc(f) || f < 0 {
				continue
			}
			n := int64(f)
			key := "Length"
			if arr {
				key = "Items"
			}
			switch h.dir {
			case bMin:
				key = "min" + key
			case bMax:
				key = "max" + key
			case bExMin:
				key, n = "min"+key, n+1
			case bExMax:
				key, n = "max"+key, n-1
			}
			if n < 0 {
				continue
			}
			add(key, json.Number(strconv.FormatInt(n, 10)), h.ev, RuleLength)
		}
	}
	if numeric {
		for _, m := range nonNegRe.FindAllStringIndex(c.desc, -1) {
			add("minimum", "0", span{m[0], m[1]}, RuleSign)
		}
		for _, m := range positiveRe.FindAllStringIndex(c.desc, -1) {
			if negativeRe.MatchString(strings.ReplaceAll(strings.ToLower(c.desc), "non-negative", "")) {
				break
			}
			if m[0] >= 4 && strings.EqualFold(c.desc[m[0]-4:m[0]], "non-") {
				continue
			}
			add("exclusiveMinimum", "0", span{m[0], m[1]}, RuleSign)
		}
	}
	if emptyOKRe.MatchString(c.desc) {
		kept := kws[:0]
		for _, k := range kws {
			if k.key != "minLength" && k.key != "minItems" {
				kept = append(kept, k)
			}
		}
		kws = kept
	}
	if (str || arr) && !emptyOKRe.MatchString(c.desc) {
		key := "minLength"
		if arr {
			key = "minItems"
		}
		for _, m := range nonEmptyRe.FindAllStringIndex(c.desc, -1) {
			add(key, "1", span{m[0], m[1]}, RuleNonEmpty)
		}
	}
	// A keyword stated twice with different values is ambiguous: drop it.
	first := map[string]int{}
	conflict := map[string]bool{}
	for i, k := range kws {
		if j, ok := first[k.key]; ok {
			if !equalJSON(kws[j].val, k.val) {
				conflict[k.key] = true
			}
			continue
		}
		first[k.key] = i
	}
	// Group the surviving keywords by evidence, in description order.
	type group struct {
		ev   span
		rule string
		to   map[string]any
	}
	var groups []*group
	byEv := map[span]*group{}
	for i, k := range kws {
		if first[k.key] != i || conflict[k.key] || c.hasAlready(k.key, k.val) {
			continue
		}
		g := byEv[k.ev]
		if g == nil {
			g = &group{ev: k.ev, rule: k.rule, to: map[string]any{}}
			byEv[k.ev] = g
			groups = append(groups, g)
		}
		g.to[k.key] = k.val
	}
	var out []Proposal
	for _, g := range groups {
		kind := KindRange
		if !numeric {
			kind = KindLength
		}
		out = append(out, c.proposal(kind, g.rule, g.ev, g.to))
	}
	return out
}

var numberWords = map[string]int64{"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "twenty": 20, "fifty": 50, "hundred": 100}

// readNumberWord reads a number written as a word ("six") at the start of
// s.
func readNumberWord(s string) (json.Number, int, bool) {
	w, n, ok := readIdent(s)
	if !ok {
		return "", 0, false
	}
	v, ok := numberWords[strings.ToLower(w)]
	if !ok {
		return "", 0, false
	}
	return json.Number(strconv.FormatInt(v, 10)), n, true
}

// aboutEachItem says whether an array bound counts something inside each
// item rather than the items: "Each team may have up to 10 members" on a
// list of teams. A count of the parameter's own noun ("Each slice may
// include a maximum of 100 ports" on ports) is kept.
func (c *ctx) aboutEachItem(h boundHit) bool {
	sent := strings.ToLower(strings.TrimSpace(c.sentenceText(h.ev.start)))
	if !strings.HasPrefix(sent, "each ") && !strings.HasPrefix(sent, "every ") && !strings.HasPrefix(sent, "per ") {
		return false
	}
	if len(h.unit) == 0 {
		return true
	}
	name := strings.ToLower(c.name)
	u := h.unit[0]
	return !(u == name || strings.TrimSuffix(u, "s") == strings.TrimSuffix(name, "s"))
}
