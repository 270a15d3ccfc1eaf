package enrich

import (
	"regexp"
	"strings"
)

// enumIntroRe introduces a closed list of values.
var enumIntroRe = regexp.MustCompile(`(?i)\b(?:` +
	`(?:can|must|may|should|could|will)(?: only)? be(?: one of| either| set to)?(?: the following)?(?: values)?` +
	`|(?:is |be )?one of(?: the following)?(?: values)?` +
	`|(?:valid|acceptable|allowed|possible|supported|accepted|permitted|available) (?:values|options|choices|settings) (?:are|is)` +
	`|the (?:options|choices|allowed values|valid values|values|possible values) are` +
	`|(?:only )?accepts?(?: only)? the values?` +
	`|the following (?:[\w-]+ ){0,2}(?:are|is) (?:currently )?(?:supported|accepted|allowed|valid|available)` +
	`|(?:supported|allowed|valid|accepted|acceptable|possible) (?:values|options)(?: are)?\s*:` +
	`)`)

// openListRe marks a description whose lists are open or multi-valued.
var openListRe = regexp.MustCompile(`(?i)may change|subject to change|not limited to|any combination|comma[- ]separated|space[- ]separated|you can also|or any other|and others\b|\betc\b|\bor more of\b|multiple values|any of the following|custom`)

// openSentenceRe marks a sentence whose values are examples.
var openSentenceRe = regexp.MustCompile(`(?i)\be\.g\.|\beg\b|\bi\.e\.|\bfor example\b|\bsuch as\b|\binclud(?:e|es|ing)\b|\bfor instance\b|\blike\b|\bamong\b`)

var (
	bulletItemRe = regexp.MustCompile("(?:^|\\s)[-*•]\\s+[`'\"]?([A-Za-z0-9_][\\w.\\-]*)[`'\"]?\\s*(?::|\\s[-–—]\\s)")
	quotedItemRe = regexp.MustCompile("[`'\"]([A-Za-z0-9_][\\w.\\-]*)[`'\"]\\s*(?:[-–—]|:)\\s")
	valueTokenRe = regexp.MustCompile(`^[\w.\-/:+@]+$`)
	sepRe        = regexp.MustCompile(`^(?:\s*[,|]\s*(?:(?:or|and)\s+)?|\s+(?:or|and)\s+|\s*/\s*)`)
)

// weakIntroRe: introducers that also start ordinary prose ("can be",
// "should be").
var weakIntroRe = regexp.MustCompile(`^(?:can|must|may|should|could|will)(?: only)? be$`)

// mutualRe marks mutual exclusion: "only one of", "not both".
var mutualRe = regexp.MustCompile(`(?i)\bonly one of\b|\bnot both\b|\bat most one of\b|\bmutually exclusive\b|\beither this\b`)

type listItem struct {
	val    string
	quoted bool
}

// listSeps records how the items of a list were joined.
type listSeps struct{ or, and, comma bool }

var parenRe = regexp.MustCompile(`^\s*\([^()]{0,200}\)`)

// parseInline reads "a, b or c" / "`a`, `b`, or `c`" / "a|b|c" at the start
// of s; a parenthetical after an item ("`all` (visible to all users)") is
// skipped. It returns the values, the bytes consumed and the separators.
func parseInline(s string) (items []listItem, end int, seps listSeps) {
	i := 0
	for {
		j := skipSpaces(s, i)
		var v string
		var n int
		var ok, quoted bool
		if v, n, ok = readQuoted(s[j:]); ok {
			quoted = true
		} else if v, n, ok = readIdent(s[j:]); !ok {
			return items, end, seps
		}
		if !valueTokenRe.MatchString(v) {
			return items, end, seps
		}
		items = append(items, listItem{v, quoted})
		end = j + n
		if quoted {
			if pm := parenRe.FindString(s[end:]); pm != "" {
				end += len(pm)
			}
		}
		sep := sepRe.FindString(s[end:])
		if sep == "" {
			return items, end, seps
		}
		w := " " + sep + " "
		seps.or = seps.or || strings.Contains(w, " or ")
		seps.and = seps.and || strings.Contains(w, " and ")
		seps.comma = seps.comma || strings.ContainsAny(sep, ",|/")
		i = end + len(sep)
	}
}

// closedAfter says whether a bare-word list ends where the text does: at a
// sentence or clause end.
func closedAfter(rest string) bool {
	r := strings.TrimLeft(rest, " \t")
	if r == "" {
		return true
	}
	switch r[0] {
	case '.', ';', ')', '\n':
		return true
	}
	return false
}

func (c *ctx) enumRule() []Proposal {
	if c.typ != "string" {
		return nil
	}
	if openListRe.MatchString(c.desc) {
		return nil
	}
	type cand struct {
		vals []string
		ev   span
		rule string
	}
	var cands []cand
	for _, m := range enumIntroRe.FindAllStringIndex(c.desc, -1) {
		if !c.subjectIsParam(m[0]) {
			continue
		}
		start := m[1]
		rest := c.desc[start:]
		k := skipSpaces(rest, 0)
		if strings.HasPrefix(rest[k:], ":") {
			k = skipSpaces(rest, k+1)
		}
		rest2 := rest[k:]
		low := strings.ToLower(rest2)
		if strings.HasPrefix(low, "any ") || strings.HasPrefix(low, "one or more") || strings.HasPrefix(low, "multiple") {
			continue
		}
		// Described items: "- a: ... - b: ..." or "'a' - ... 'b' - ...".
		if strings.HasPrefix(rest2, "- ") || strings.HasPrefix(rest2, "* ") || strings.HasPrefix(rest2, "• ") || startsQuotedItem(rest2) {
			re := bulletItemRe
			if startsQuotedItem(rest2) {
				re = quotedItemRe
			}
			base := start + k - 1 // the regexp sees a leading space
			ms := re.FindAllStringSubmatchIndex(" "+c.desc[start+k:], -1)
			var vals []string
			lastEnd := 0
			for _, mm := range ms {
				vals = append(vals, c.desc[base+mm[2]:base+mm[3]])
				lastEnd = base + mm[3]
			}
			if len(vals) == 0 || c.openSentence(m[0], start+k, false) {
				continue
			}
			cands = append(cands, cand{vals, span{m[0], lastEnd}, RuleEnumDescribed})
			continue
		}
		items, n, seps := parseInline(rest2)
		if len(items) == 0 {
			continue
		}
		allQuoted := true
		for _, it := range items {
			allQuoted = allQuoted && it.quoted
		}
		intro := strings.ToLower(c.desc[m[0]:m[1]])
		weak := weakIntroRe.MatchString(intro)
		// A bare-word list needs commas or pipes, two items, and a strong
		// introducer ("one of", "valid values are"): "should be
		// provisioned and bound" is prose.
		if !allQuoted && (len(items) < 2 || !seps.comma || weak) {
			continue
		}
		// The list must end the clause: "`sum` for summing ..." is prose.
		if !closedAfter(rest2[n:]) && !strings.HasPrefix(strings.TrimLeft(rest2[n:], " "), ",") {
			continue
		}
		// "one of `a` and `b` can be set" is mutual exclusion.
		if strings.Contains(intro, "one of") && seps.and && !seps.or {
			continue
		}
		if mutualRe.MatchString(c.sentenceText(m[0])) {
			continue
		}
		end := start + k + n
		if c.openSentence(m[0], end, true) {
			continue
		}
		vals := make([]string, len(items))
		for i, it := range items {
			vals[i] = it.val
		}
		cands = append(cands, cand{vals, span{m[0], end}, RuleEnum})
	}
	// A code-quoted alternative list after a colon or at the start:
	// "status: `pending`, `paid`, or `failed`", "'influxql' or 'flux'".
	for i := 0; i < len(c.desc); i++ {
		if !(i == 0 || c.desc[i-1] == ':' || c.desc[i-1] == '(') {
			continue
		}
		j := skipSpaces(c.desc, i)
		items, n, seps := parseInline(c.desc[j:])
		if len(items) < 2 || !seps.or || mutualRe.MatchString(c.sentenceText(j)) {
			continue
		}
		if !closedAfter(c.desc[j+n:]) && !strings.HasPrefix(strings.TrimLeft(c.desc[j+n:], " "), ",") {
			continue
		}
		ok := true
		for _, it := range items {
			ok = ok && it.quoted
		}
		if !ok || c.openSentence(j, j+n, true) || !c.subjectIsParam(j) {
			continue
		}
		cands = append(cands, cand{vals: itemVals(items), ev: span{j, j + n}, rule: RuleEnum})
	}
	// Two different lists for one parameter: the prose is scoped or
	// inconsistent, so neither is the closed set.
	for i := 1; i < len(cands); i++ {
		cd := cands[i]
		if !sameSet(strList(cd.vals), strList(cands[0].vals)) {
			return nil
		}
	}
	var out []Proposal
	for _, cd := range cands {
		to := map[string]any{"enum": strList(cd.vals)}
		if c.hasAlready("enum", to["enum"]) {
			continue
		}
		kind := KindEnum
		if allBoolWords(cd.vals) {
			kind = KindBoolString
			if cd.rule == RuleEnum {
				cd.rule = RuleBoolString
			}
		}
		out = append(out, c.proposal(kind, cd.rule, cd.ev, to))
		break
	}
	return out
}

func itemVals(items []listItem) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.val
	}
	return out
}

func allBoolWords(vs []string) bool {
	for _, v := range vs {
		if !boolWords[strings.ToLower(v)] {
			return false
		}
	}
	return len(vs) > 0
}

func startsQuotedItem(s string) bool {
	loc := quotedItemRe.FindStringIndex(s)
	return loc != nil && loc[0] == 0
}

// subjectIsParam rejects lists whose sentence subject (the words before
// the list) is something other than this parameter: a possessive ("the
// file's `purpose` must be one of") or another backticked name. A
// sentence that opens with a condition ("If the field is a checkbox, the
// value should be ...") is rejected too.
func (c *ctx) subjectIsParam(at int) bool {
	s := sentenceAt(c.sents, at)
	if s.start > at {
		return true
	}
	subj := c.desc[s.start:at]
	low := strings.ToLower(strings.TrimSpace(subj))
	for _, w := range []string{"if ", "for ", "when ", "unless ", "in case "} {
		if strings.HasPrefix(low, w) {
			return false
		}
	}
	// A fronted phrase ("In Japan, this can only be ...") scopes the list.
	if strings.Contains(subj, ",") {
		return false
	}
	if strings.Contains(subj, "'s ") || strings.Contains(subj, "’s ") {
		return false
	}
	for i := 0; i < len(subj); i++ {
		if subj[i] != '`' {
			continue
		}
		j := strings.IndexByte(subj[i+1:], '`')
		if j < 0 {
			break
		}
		if name := subj[i+1 : i+1+j]; name != c.name {
			return false
		}
		i += j + 1
	}
	return true
}

// openSentence says whether the sentence around [from,to) marks its values
// as examples. With tail, the rest of the sentence after the list counts.
func (c *ctx) openSentence(from, to int, tail bool) bool {
	s := sentenceAt(c.sents, from)
	start, end := s.start, to
	if s.start > from {
		start = from
	}
	if tail && s.end > end {
		end = s.end
	}
	return openSentenceRe.MatchString(c.desc[start:end])
}
