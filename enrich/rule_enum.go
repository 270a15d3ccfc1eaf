package enrich

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// enumIntroRe introduces a closed list of values.
var enumIntroRe = mustCompile(`(?i)\b(?:` +
	`(?:can|must|may|should|could|will)(?: only)? be(?: one of| either| set to| (?:passed|given|sent|specified|provided|set) as)?(?: the following)?(?: values)?` +
	`|(?:is |be )?one of(?: the following)?(?: values)?` +
	`|(?:valid|acceptable|allowed|possible|supported|accepted|permitted|available) (?:values|options|choices|settings) (?:are|is)` +
	`|the (?:options|choices|allowed values|valid values|values|possible values) are` +
	`|(?:only )?accepts?(?: only)? the values?` +
	`|the following (?:[\w-]+ ){0,2}(?:are|is) (?:currently )?(?:supported|accepted|allowed|valid|available)` +
	`|(?:supported|allowed|valid|accepted|acceptable|possible|permitted|available) (?:values|options)(?: are)?\s*:` +
	`|(?:supported|allowed|valid|accepted|acceptable|possible|available|permitted) (?:kinds|types|modes|levels|states|statuses|units|roles|choices|settings|variants|strategies)(?: are)?\s*:` +
	`|(?:can|may|will) (?:only )?take (?:one of )?(?:the following|these|two|three|four|five|\d+) (?:possible )?values?\s*[;:,]?` +
	`)`)

// openListRe marks a description whose lists are open or multi-valued.
var openListRe = mustCompile(`(?i)may change|subject to change|not limited to|any combination|comma[- ]separated|space[- ]separated|you can also|or any other|and others\b|\betc\b|\bor more of\b|multiple values|any of the following|custom`)

// openSentenceRe marks a sentence whose values are examples.
var openSentenceRe = mustCompile(`(?i)\be\.g\.|\beg\b|\bi\.e\.|\bfor example\b|\bsuch as\b|\binclud(?:e|es|ing)\b|\bfor instance\b|\blike\b|\bamong\b|\b(?:examples?|samples?)\b|\bformats?\s*:`)

var (
	bulletItemRe = mustCompile("(?:^|\\s)[-*•]\\s+[`'\"]?([A-Za-z0-9_][\\w.\\-]*)[`'\"]?\\s*(?::|\\s[-–—]\\s)")
	quotedItemRe = mustCompile("[`'\"]([A-Za-z0-9_][\\w.\\-]*)[`'\"]\\s*(?:[-–—]|:)\\s")
	valueTokenRe = mustCompile(`^[\w.\-/:+@]+$`)
	sepRe        = mustCompile(`^(?:\s*[,|]\s*(?:(?:or|and)\s+)?|\s+(?:or|and)\s+|\s*/\s*)`)
)

// weakIntroRe: introducers that also start ordinary prose ("can be",
// "should be").
var weakIntroRe = mustCompile(`^(?:can|must|may|should|could|will)(?: only)? be$`)

// mutualRe marks mutual exclusion: "only one of", "not both".
var mutualRe = mustCompile(`(?i)\bonly one of\b|\bnot both\b|\bat most one of\b|\bmutually exclusive\b|\beither this\b`)

type listItem struct {
	val    string
	quoted bool
}

// listSeps records how the items of a list were joined.
type listSeps struct{ or, and, comma, pipe bool }

var parenRe = mustCompile(`^\s*\([^()]{0,200}\)`)

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
		seps.pipe = seps.pipe || strings.Contains(sep, "|")
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
	case '.', ';', ')', '\n', '(':
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
		for k < len(rest) && (rest[k] == '\n' || rest[k] == '\r' || rest[k] == ' ' || rest[k] == '\t') {
			k++
		}
		rest2 := rest[k:]
		low := strings.ToLower(rest2)
		// A bullet list of bare values, one a line: "Valid values are:\n- a\n- b".
		if vals, n := bulletValues(rest2); len(vals) >= 2 {
			if !c.openSentence(m[0], start+k, false) && !mutualRe.MatchString(c.sentenceText(m[0])) {
				cands = append(cands, cand{vals, span{m[0], start + k + n}, RuleEnum})
			}
			continue
		}
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
		if !orListStart(c.desc, i) {
			continue
		}
		j := skipSpaces(c.desc, i)
		if lw := strings.ToLower(c.desc[j:]); strings.HasPrefix(lw, "either ") {
			j = skipSpaces(c.desc, j+len("either "))
		}
		items, n, seps := parseInline(c.desc[j:])
		if len(items) < 2 || !(seps.or || seps.pipe) || seps.and || mutualRe.MatchString(c.sentenceText(j)) {
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
	for _, bc := range c.bareAlternatives() {
		cands = append(cands, cand{bc.vals, bc.ev, RuleEnum})
	}
	for _, bc := range c.supportedLists() {
		cands = append(cands, cand{bc.vals, bc.ev, RuleEnum})
	}
	// One flag word alone ("must be set to `true` ...") is a usage, not
	// the closed list.
	kept := cands[:0]
	for _, cd := range cands {
		if !(len(cd.vals) == 1 && allBoolWords(cd.vals)) {
			kept = append(kept, cd)
		}
	}
	cands = kept
	// Two different lists for one parameter: the prose is scoped or
	// inconsistent, so neither is the closed set.
	for i := 1; i < len(cands); i++ {
		cd := cands[i]
		if !sameSet(strList(cd.vals), strList(cands[0].vals)) {
			return nil
		}
	}
	for _, cd := range cands {
		if syntaxList(cd.vals) {
			return nil
		}
	}
	mods := signModifiers(c.desc)
	var out []Proposal
	for _, cd := range cands {
		vals := cd.vals
		for _, m := range mods {
			for _, v := range cd.vals {
				vals = append(vals, m+v)
			}
		}
		cd.vals = vals
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
	if k := strings.Index(subj, ","); k >= 0 && frontedPhrase(subj[:k]) {
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
	sp := span{start, end}
	if open, ok := c.open[sp]; ok {
		return open
	}
	open := openSentenceRe.MatchString(c.desc[start:end])
	if c.open == nil {
		c.open = map[span]bool{}
	}
	c.open[sp] = open
	return open
}

// orListStart says whether a quoted alternative list may start at i: at
// the start, after ":", "(", ",", or after "is", "be", "are", "either".
func orListStart(d string, i int) bool {
	if i == 0 {
		return true
	}
	switch d[i-1] {
	case ':', '(', ',':
		return true
	case ' ':
	default:
		return false
	}
	// The text before the space, lowered, ends with one of the words or
	// is one: its last six runes decide, not the whole text lowered at
	// every space.
	w, whole := lowerTail(d[:i-1], 6)
	for _, x := range []string{" is", " be", " are", "either"} {
		if strings.HasSuffix(w, x) || whole && w == strings.TrimSpace(x) {
			return true
		}
	}
	return false
}

// lowerTail is the last n runes of s lowered as strings.ToLower lowers
// them (rune by rune, an invalid byte as U+FFFD), and whether they are
// all of s.
func lowerTail(s string, n int) (string, bool) {
	start := len(s)
	for ; n > 0 && start > 0; n-- {
		_, size := utf8.DecodeLastRuneInString(s[:start])
		start -= size
	}
	var b []byte
	for _, r := range s[start:] {
		b = utf8.AppendRune(b, unicode.ToLower(r))
	}
	return string(b), start == 0
}

var bulletLineRe = mustCompile("^[ \t]*[-*•][ \t]+[`'\"]?([A-Za-z0-9_][\\w.\\-]*)[`'\"]?[ \t]*(?:$|[:–—][^\n]*$|[ \t]-[ \t][^\n]*$)")

// bulletValues reads a bullet list whose lines each give one value
// ("- public", "* `repo`", "- `all`: everyone") at the start of s. It
// returns the values and the bytes consumed.
func bulletValues(s string) ([]string, int) {
	var vals []string
	end, pos := 0, 0
	for pos < len(s) {
		nl := strings.IndexByte(s[pos:], '\n')
		line := s[pos:]
		if nl >= 0 {
			line = s[pos : pos+nl]
		}
		m := bulletLineRe.FindStringSubmatchIndex(line)
		if m == nil {
			break
		}
		vals = append(vals, line[m[2]:m[3]])
		end = pos + m[3]
		if j := strings.IndexAny(line[m[3]:], "`'\""); j == 0 {
			end++
		}
		if nl < 0 {
			break
		}
		pos += nl + 1
	}
	return vals, end
}

// placeholderRe marks a value that is a syntax or a format, not a value:
// "YYYY-MM", "{from}", "<name>".
var placeholderRe = mustCompile(`YYYY|\bMM\b|\bDD\b|\bhh\b|\bHH\b|[{}<>\[\]]`)

// syntaxList says whether values describe syntaxes rather than values: a
// placeholder in one, or one value extending another ("name" and
// "name:tag", "YYYY-MM" and "YYYY-MM-DD").
func syntaxList(vals []string) bool {
	for _, v := range vals {
		if placeholderRe.MatchString(v) {
			return true
		}
		for _, w := range vals {
			if len(w) > len(v) && strings.HasPrefix(w, v) && !isWordByte(w[len(v)]) {
				return true
			}
		}
	}
	return false
}

var (
	plusMinusRe = mustCompile(`\+\s*/\s*[-−]|\+\s+or\s+[-−]\s|[-−]\s*/\s*\+`)
	minusRe     = mustCompile("(?i)\\bprefix(?:ed)?(?: (?:it|them|the (?:value|field|name|key)|a (?:value|field|name)|values?|fields?|names?))? (?:with|by) (?:an? )?(?:[`'\"][-−][`'\"]|hyphen|minus(?: sign)?|dash)|[`'\"][-−][`'\"] (?:prefix|sign)|\\bprepend (?:an? )?(?:[`'\"][-−][`'\"]|hyphen|minus(?: sign)?|dash)|\\bleading (?:[`'\"][-−][`'\"]|hyphen|minus(?: sign)?|dash)|\\bminus sign\\b")
)

// signModifiers returns the prefixes a sign rule allows on the listed
// values: "+/-" gives "+" and "-"; "prefix with `-` for descending" gives
// "-".
func signModifiers(d string) []string {
	if plusMinusRe.MatchString(d) {
		return []string{"+", "-"}
	}
	if minusRe.MatchString(d) {
		return []string{"-"}
	}
	return nil
}

// frontedWords open a phrase that scopes what follows it ("In Japan,",
// "For card payments,", "Otherwise,").
var frontedWords = map[string]bool{"in": true, "on": true, "at": true, "for": true, "with": true, "within": true, "under": true,
	"after": true, "before": true, "during": true, "since": true, "until": true, "otherwise": true, "also": true,
	"however": true, "by": true, "from": true, "as": true, "once": true, "where": true, "while": true, "except": true}

// frontedPhrase says whether text before a comma is a scoping phrase, not
// the parameter's own noun ("Field to sort by,", "Sort order,").
func frontedPhrase(text string) bool {
	w := wordsAfter(text, 1)
	return len(w) == 1 && frontedWords[w[0]]
}

// A bare alternative list ("red or blue") is read only in two sentence
// shapes, where the words can be nothing but the parameter's values:
//
//	<noun phrase>, [either] a[, b] or c.     "Colour of the label, red or blue."
//	... is|are|be either a[, b] or c.         "Can be either deployed or decommissioned."
//
// The noun phrase opens the sentence and holds no verb marker ("Items to
// update, add, or remove" lists actions; "files to be updated, renamed,
// or deleted" lists what happens to them); the values are lower-case
// words, not function words or the parameter's own name ("use either
// manifest or filename" names parameters), joined by "or" alone, and the
// list ends the sentence.
var (
	bareNPRe     = mustCompile(`^([A-Za-z][\w'’ -]{0,60}), (?:either )?`)
	bareEitherRe = mustCompile(`(?i)\b(?:is|are|be) either `)
	bareTokRe    = mustCompile(`^[a-z][a-z0-9_-]*$`)
	npVerbRe     = mustCompile(`(?i)\b(?:to|be|is|are|was|will|would|should|can|could|may|must|use|set|if|when|whether)\b|\w(?:ed|ing)$`)
	bareStop     = map[string]bool{"a": true, "an": true, "the": true, "not": true, "to": true, "of": true, "and": true, "or": true,
		"in": true, "on": true, "it": true, "this": true, "that": true, "other": true, "any": true, "both": true, "neither": true,
		"more": true, "less": true, "otherwise": true, "else": true, "so": true, "only": true}
)

// categoryNouns name a dimension whose values are a closed set of words
// ("Colour of the label", "Sort order", "Travel mode"); a noun phrase
// without one ("Name of the branch, main or master") may be followed by
// examples rather than values.
var categoryNouns = map[string]bool{"colour": true, "color": true, "mode": true, "type": true, "kind": true, "order": true,
	"direction": true, "state": true, "status": true, "format": true, "level": true, "unit": true, "units": true, "side": true,
	"style": true, "layout": true, "visibility": true, "method": true, "strategy": true, "policy": true, "scope": true,
	"orientation": true, "position": true, "alignment": true, "size": true, "priority": true, "severity": true,
	"category": true, "variant": true, "flavor": true, "flavour": true, "shape": true, "theme": true, "protocol": true}

func namesCategory(np string) bool {
	for _, w := range wordsAfter(np, 8) {
		if categoryNouns[w] {
			return true
		}
	}
	return false
}

type bareList struct {
	vals []string
	ev   span
}

func (c *ctx) bareAlternatives() []bareList {
	var out []bareList
	for _, s := range c.sents {
		sent := c.desc[s.start:s.end]
		starts := []int{}
		if m := bareNPRe.FindStringSubmatchIndex(sent); m != nil && !npVerbRe.MatchString(strings.TrimSpace(sent[m[2]:m[3]])) && namesCategory(sent[m[2]:m[3]]) {
			starts = append(starts, m[1])
		}
		for _, m := range bareEitherRe.FindAllStringIndex(sent, -1) {
			starts = append(starts, m[1])
		}
		for _, at := range starts {
			items, n, seps := parseInline(sent[at:])
			if len(items) < 2 || len(items) > 4 || !seps.or || seps.and || seps.pipe {
				continue
			}
			rest := strings.TrimSpace(sent[at+n:])
			if rest != "" && rest != "." && rest != ")" && rest != ")." {
				continue
			}
			ok := true
			for _, it := range items {
				ok = ok && !it.quoted && bareTokRe.MatchString(it.val) && !bareStop[it.val] && it.val != c.name
			}
			if !ok || c.openSentence(s.start+at, s.start+at+n, true) || mutualRe.MatchString(sent) || !c.subjectIsParam(s.start+at) {
				continue
			}
			out = append(out, bareList{itemVals(items), span{s.start + at, s.start + at + n}})
		}
	}
	return out
}

// A list whose verb follows it: "Currently, `utf-8` and `base64` are
// supported.", "Only `json` is accepted." The quoted values open the
// sentence (after a fronted adverb) and the verb ends it.
var (
	frontAdverbRe  = mustCompile(`(?i)^(?:currently|at present|at the moment|today|only|right now)\s*,?\s*`)
	supportedEndRe = mustCompile(`(?i)^\s+(?:is|are)\s+(?:the\s+)?(?:only\s+)?(?:currently\s+)?(?:supported|accepted|allowed|valid|permitted|possible)(?:\s+(?:values?|options?|choices?))?\s*\.?$`)
)

func (c *ctx) supportedLists() []bareList {
	var out []bareList
	for _, s := range c.sents {
		sent := c.desc[s.start:s.end]
		at := 0
		if m := frontAdverbRe.FindStringIndex(sent); m != nil {
			at = m[1]
		}
		items, n, _ := parseInline(sent[at:])
		if len(items) == 0 {
			continue
		}
		ok := true
		for _, it := range items {
			ok = ok && it.quoted
		}
		if !ok || !supportedEndRe.MatchString(sent[at+n:]) || c.openSentence(s.start, s.end, true) {
			continue
		}
		out = append(out, bareList{itemVals(items), span{s.start + at, s.end}})
	}
	return out
}
