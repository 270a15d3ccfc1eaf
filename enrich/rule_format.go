package enrich

import (
	"strings"
)

var (
	rfc3339Re = mustCompile(`(?i)\bRFC[ -]?3339\b`)
	isoDTRe   = mustCompile(`(?i)YYYY-MM-DD[T ]hh`)
	// rfc3339TemplateRe: a written date-time template with seconds, and a
	// "T" or a zone after them.
	rfc3339TemplateRe = mustCompile(`(?i)^YYYY-MM-DD(?:T|t)hh:mm:ss|^YYYY-MM-DD[T ]hh:mm:ss(?:\.s+)?(?:Z|[+-]hh:?mm|TZD|\s*(?:UTC|GMT|\(?(?:time ?zone|offset)))`)
	iso8601Re         = mustCompile(`(?i)\bISO[- _]?8601(?:(date-?time|datetime|timestamp|time)|(date))?\b`)
	ymdRe             = mustCompile(`(?i)\bYYYY-MM-DD\b`)
	timeWordRe        = mustCompile(`(?i)\b(?:timestamp|date-?time|datetime|date and time|time)\b`)
	dateWordRe        = mustCompile(`(?i)\bdate\b`)
	durationRe        = mustCompile(`(?i)\b(?:duration|interval|period|week|offset)\b`)
	assertURIRe       = mustCompile(`(?i)\b(?:must be|should be|is|given as|written as|expressed as|in the form of|formatted as) an? (?:valid |absolute |fully[- ]qualified |full |HTTPS? |public |publicly accessible )?(?:URL|URI)\b`)
	assertMail        = mustCompile(`(?i)\b(?:must be|should be|is|given as|written as|expressed as|in the form of|formatted as) an? (?:valid )?e-?mail address\b`)
	// thisURIRe: the value named by a demonstrative after a preposition
	// ("customers will be directed to this URL", "mail is sent to this
	// email address").
	thisURIRe  = mustCompile(`(?i)\b(?:to|at|from|on|via) this (?:URL|URI)\b`)
	thisMailRe = mustCompile(`(?i)\b(?:to|at|from|via) this e-?mail address\b`)
	uuidAnyRe  = mustCompile(`\((?:a |an )?(?:UUID|GUID)\)|\bUUID format\b|\b(?:a|valid) (?:UUID|GUID)\b`)
	// templateRe: a quoted value shape with placeholders or a range.
	templateRe = mustCompile("[`'\"][^`'\"\\s]*(?:\\{[^}]*\\}|<[^>]*>|\\.\\.)[^`'\"\\s]*[`'\"]")
	// partsRe: the format describes parts of the value.
	partsRe = mustCompile(`(?i)\b(?:each|both|either end|range|span|pair|list of|comma[- ]separated|start and end)\b`)
	// rangeEndRe: one end of a range named ("End date for activity range",
	// "start of the date range").
	rangeEndRe = mustCompile(`(?i)\b(?:start|end|beginning|begin|first|last)\b(?:\s+[\w-]+){0,2}\s+(?:of|for|in)\s+(?:the\s+|an?\s+)?(?:[\w-]+\s+){0,2}range\b`)
	// headRe: the head noun of the description's first words.
	headRe = mustCompile(`^(?:(?:[Tt]he|[Aa]n?|[Yy]our)\s+)?((?:[\w'’-]+\s+){0,3}?)(URL|URI|[Uu]rl|[Ee]-?mail address(?:es)?|UUID|GUID)\b`)
)

// afterHead lists the words that may follow a head noun ("The URL of
// ...", "URL to navigate to"); any other word makes the noun a modifier
// ("URL mode", "URL path", "email template").
var afterHead = map[string]bool{"to": true, "of": true, "that": true, "which": true, "where": true, "for": true,
	"used": true, "pointing": true, "is": true, "must": true, "should": true, "will": true, "can": true, "may": true,
	"with": true, "from": true, "at": true, "on": true, "in": true, "when": true, "if": true, "as": true,
	"you": true, "we": true, "containing": true, "whose": true, "associated": true, "returned": true, "provided": true,
	"assigned": true, "identifying": true, "under": true, "by": true, "used.": true}

// headEnds says whether the text after a head noun ends the noun phrase:
// punctuation, the end, or a function word.
func headEnds(after string) bool {
	t := strings.TrimLeft(after, " \t")
	if t == "" {
		return true
	}
	if r, _ := firstRune(t); !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
		return r != '-' && r != '/'
	}
	if after == t { // glued: "URLs", "UUIDv4"
		return false
	}
	w := wordsAfter(t, 1)
	return len(w) == 1 && afterHead[w[0]]
}

var headStop = map[string]bool{"or": true, "and": true, "of": true, "to": true, "for": true, "with": true, "from": true, "whether": true, "relative": true, "partial": true, "if": true, "not": true, "by": true, "in": true, "on": true, "at": true}

func (c *ctx) formatRule() []Proposal {
	if c.typ != "string" {
		return nil
	}
	if _, has := c.schema["format"]; has {
		return nil
	}
	d := c.desc
	try := func(format string, m []int) []Proposal {
		if m == nil || c.alternative(m[0], m[1]) || c.widened(m[0], m[1]) {
			return nil
		}
		// A format is the whole story only when the value is one such
		// thing: not a template ("`{from}..{to}`", "must contain
		// `<num>`"), and for dates not a range whose parts each are one.
		// "End date for activity range": one end of a range is one date.
		if templateRe.MatchString(d) || (format == "date-time" || format == "date") && partsRe.MatchString(rangeEndRe.ReplaceAllString(c.sentenceText(m[0]), "")) {
			return nil
		}
		return []Proposal{c.proposal(KindFormat, RuleFormat, span{m[0], m[1]}, map[string]any{"format": format})}
	}
	// Timestamps and dates.
	if m := rfc3339Re.FindStringIndex(d); m != nil {
		return try("date-time", m)
	}
	if m := isoDTRe.FindStringIndex(d); m != nil && wholeToken(d, m[0], m[1]) {
		// "YYYY-MM-DD hh:mm" is no RFC 3339 date-time (which has
		// seconds, and a "T" or a zone): the template says another shape.
		if !rfc3339TemplateRe.MatchString(d[m[0]:]) {
			return nil
		}
		return try("date-time", m)
	}
	if m := iso8601Re.FindStringSubmatchIndex(d); m != nil {
		s := c.sentenceText(m[0])
		// "ISO8601DateTime", "ISO8601Date": the kind in the same token.
		if m[2] >= 0 {
			return try("date-time", m[:2])
		}
		if m[4] >= 0 {
			return try("date", m[:2])
		}
		m = m[:2]
		if !durationRe.MatchString(s) {
			if timeWordRe.MatchString(s) {
				return try("date-time", m)
			}
			if dateWordRe.MatchString(s) {
				// "ISO 8601 date string (e.g. "2026-03-16T23:59:59Z")":
				// the examples say which.
				if c.examplesAreDateTimes() {
					return try("date-time", m)
				}
				return try("date", m)
			}
		}
	}
	if m := ymdRe.FindStringIndex(d); m != nil && wholeToken(d, m[0], m[1]) {
		return try("date", m)
	}
	// Head noun: "The URL to ...", "Billing email address", "The UUID of ...".
	hs := c.headStart()
	if hm := headRe.FindStringSubmatchIndex(d[hs:]); hm != nil {
		for i := range hm {
			if hm[i] >= 0 {
				hm[i] += hs
			}
		}
		mods := strings.Fields(strings.ToLower(d[hm[2]:hm[3]]))
		ok := true
		for _, w := range mods {
			if headStop[w] {
				ok = false
			}
		}
		head := d[hm[4]:hm[5]]
		after := d[hm[5]:]
		if ok {
			switch {
			case strings.EqualFold(head, "url") || head == "URI":
				if strings.HasPrefix(after, "-") || strings.HasPrefix(after, "s") {
					break
				}
				if !headEnds(after) {
					break
				}
				return try("uri", []int{hm[0], hm[5]})
			case head == "UUID" || head == "GUID":
				if !headEnds(after) {
					break
				}
				return try("uuid", []int{hm[0], hm[5]})
			default:
				if !headEnds(after) {
					break
				}
				return try("email", []int{hm[0], hm[5]})
			}
		}
	}
	if m := assertURIRe.FindStringIndex(d); m != nil {
		return try("uri", m)
	}
	if m := assertMail.FindStringIndex(d); m != nil {
		return try("email", m)
	}
	if m := thisURIRe.FindStringIndex(d); m != nil {
		return try("uri", m)
	}
	if m := thisMailRe.FindStringIndex(d); m != nil {
		return try("email", m)
	}
	if m := uuidAnyRe.FindStringIndex(d); m != nil {
		return try("uuid", m)
	}
	return nil
}

// alternative says whether the format cue at [start,end) sits next to an
// "or": "a URL or a local path", "an RFC 3339 time or a relative time", "a
// user name or an email address".
// widenedRe: the value is more than the format ("An email address with
// optional expansion tokens"), or only written in it ("must be an URI
// encoded string").
var widenedRe = mustCompile(`(?i)^[^.;]*?\b(?:with|containing|or)\s+(?:optional\s+|any\s+)?(?:expansion\s+)?(?:tokens?|wildcards?|placeholders?|variables?|patterns?|templates?)\b|^[\s-]*(?:encoded|encoding|escaped)\b`)

// widened says whether the words after a format's evidence [start, end)
// widen the value past the format or name an encoding (widenedRe).
func (c *ctx) widened(start, end int) bool {
	return widenedRe.MatchString(c.desc[end:sentenceAt(c.sents, start).end])
}

func (c *ctx) alternative(start, end int) bool {
	s := sentenceAt(c.sents, start)
	before := strings.Fields(strings.ToLower(c.desc[s.start:start]))
	if len(before) > 3 {
		before = before[len(before)-3:]
	}
	stop := s.end
	if stop < end {
		stop = end
	}
	after := c.desc[end:stop]
	if k := strings.IndexAny(after, ".;()"); k >= 0 {
		after = after[:k]
	}
	aw := strings.Fields(strings.ToLower(after))
	if len(aw) > 4 {
		aw = aw[:4]
	}
	for _, w := range append(before, aw...) {
		w = strings.Trim(w, ",:")
		if w == "or" || w == "and/or" {
			return true
		}
	}
	return false
}

// wholeToken says whether the pattern at [start,end) is the whole of its
// token: "`YYYY-MM-DD`", "(YYYY-MM-DD)" or "YYYY-MM-DDThh:mm:ssZ", not a
// part of a template such as "report-{YYYY-MM-DD}.csv".
func wholeToken(d string, start, end int) bool {
	i, j := start, end
	for i > 0 && !isSpace(d[i-1]) {
		i--
	}
	for j < len(d) && !isSpace(d[j]) {
		j++
	}
	tok := strings.Trim(d[i:j], "`'\"()[],.;:“”")
	if !strings.HasPrefix(strings.ToUpper(tok), "YYYY-MM-DD") {
		return false
	}
	rest := strings.ToUpper(tok[len("YYYY-MM-DD"):])
	return strings.Trim(rest, "THMS:.Z+-0123456789 ") == "" || rest == ""
}

// noteRe: a leading sentence that is a note about the parameter, not its
// head ("**Required unless you provide `invitee_id`**.", "Optional.",
// "Deprecated: ...").
var noteRe = mustCompile(`(?i)^[\s(]*(?:required|optional|deprecated|note|important|warning|beta|preview)\b`)

// headStart is where the description's head noun phrase starts: at the
// first sentence that is not a leading note.
func (c *ctx) headStart() int {
	for _, s := range c.sents {
		if !noteRe.MatchString(c.desc[s.start:s.end]) {
			return s.start
		}
	}
	return 0
}

// examplesAreDateTimes says whether the description gives example values
// and each is a date-time (RFC 3339), none a date alone.
func (c *ctx) examplesAreDateTimes() bool {
	ex := proseExamples(c.desc, "string")
	for _, v := range ex {
		if s, ok := v.(string); !ok || !formatAccepts("date-time", s) {
			return false
		}
	}
	return len(ex) > 0
}
