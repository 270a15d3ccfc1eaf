package enrich

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"
)

// Phrases that introduce a default value; the value follows the match.
var defaultIntros = []*pattern{
	mustCompile(`(?i)\bdefaults?\s+to\s+`),                                            // "defaults to X"
	mustCompile(`(?i)\bdefault(?:\s+[a-z]+)?\s+is\s+`),                                // "Default is X", "The default value is X"
	mustCompile(`(?i)\bdefault\s*[:=]\s*`),                                            // "default: X"
	mustCompile(`(?i)\bby default,?\s+(?:this value|the value|its value|it)\s+is\s+`), // "By default, this value is X"
}

// wordsRe is a run of words; useClauseRe a clause "uses X".
var (
	wordsRe     = mustCompile(`^[a-zA-Z][\w ]*$`)
	useClauseRe = mustCompile(`(?i)^uses?\s+(.+)$`)
)

// byDefaultSelfRe: "By default, the `x` is|will be ..." (the name is checked).
var byDefaultSelfRe = mustCompile("(?i)\\bby default,?\\s+(?:the\\s+)?(`[^`]+`|[\\w-]+)\\s+(?:is|will be)\\s+")

// "default 100", "(default false)", "Default `x`": a literal right after.
var defaultLiteralRe = mustCompile(`(?i)\bdefault\s+`)

var (
	// "`pointer` (default)", "When false (default)".
	parenDefaultRe = mustCompile("([`'\"“]?[\\w.\\-]+[`'\"”]?)\\s*\\(default\\)")
	// "summary by default", "On by default."
	byDefaultRe = mustCompile("(?i)(?:^|[,;(:.]\\s*|\\()([`'\"“]?[\\w.\\-]+[`'\"”]?)\\s+by default\\b")
	// omitRe: the parameter is left out.
	omitRe = mustCompile(`(?i)\b(?:if|when|where)\s+(?:(?:it|this|this value|this field|this parameter|this option|the value|the parameter|the field|a value|no value)\s+(?:is|are)\s+)?(?:not\s+(?:specified|provided|set|given|passed|supplied|present|defined|included|used|sent)|omitted|unset|unspecified|absent|missing|left (?:blank|empty|out|unset)|nil|null|empty|blank)\b` +
		`|\b(?:if|when)\s+(?:you\s+)?(?:do not|don't|did not)\s+(?:specify|provide|pass|set|supply|give|include)(?:\s+(?:a value|one|it|this parameter|this))?\b` +
		`|\b(?:if|when)\s+(?:the\s+)?[\w-]+\s+(?:does not|doesn't)\s+(?:provide|specify|set|pass|supply)\s+(?:this|it|one|a value)\b` +
		`|\b(?:if|when)\s+(?:you\s+)?(?:omit|leave\s+out|skip)\s+(?:it|this|this parameter|this field|the\s+[\w-]+)\b|\bif\s+no\s+(?:value|[\w-]+)\s+is\s+(?:given|provided|specified|set|passed|supplied|sent|included)\b`)
	// tailRe: where a condition starts inside a value phrase.
	tailRe = mustCompile(`(?i)\s+(?:if|unless|when|whenever|except|depending|in case)\b`)
	// runtimeCueRe: the value comes from state the caller cannot see.
	runtimeCueRe = mustCompile(`(?i)\b(?:current|now|today|ago|your|yours|caller|sender|requester|authenticated|unauthenticated|logged[- ]in|signed[- ]in|inferred|derived|detected|determined|decided|resolved|assigned|computed|calculated|most recent|latest|newest|per[- ](?:object|resource|user|account|request|type|project)|remote|configured|configuration|environment|session|user-agent|default|looked up|taken from|read from|fetched|assumed|account|token|credentials)\b|\bIP\b` +
		// the state of a referenced resource: "the full amount of the
		// authorization", "the remaining balance".
		`|\b(?:full|entire|whole|remaining|outstanding|original|existing) (?:[\w-]+ )?(?:amount|balance|quantity|price|total)\b`)
	authCueRe    = mustCompile(`(?i)\b(?:authenticated|unauthenticated|keyless|logged[- ]in|signed[- ]in|anonymous)\b`)
	relTimeRe    = mustCompile(`(?i)^\S+\s+(?:seconds?|minutes?|hours?|days?|weeks?|months?|years?|ms|milliseconds?)\s+(?:from|after|before|since|ago|prior)\b|\bago\b|\bfrom now\b`)
	nonValueRe   = mustCompile(`(?i)^(?:everything|all|nothing|none|empty|null|nil|unset|unlimited|infinite|any|no limit|n/a)\b|^\[|^(?:the\s+)?(?:first|beginning|start)\b`)
	definiteRe   = mustCompile(`(?i)^(?:the|your|its|their|this|that|whichever)\s|\w['’]s\b`)
	usedRe       = mustCompile(`(?i)^(?:then\s+)?(.+?)\s+(?:is|will be|are|gets|get)\s+used\b`)
	usedBeforeRe = mustCompile(`(?i)^(.+?)\s+(?:is|will be)\s+used$`)
	usesRe       = mustCompile(`(?i)^(?:then\s+)?(?:(?:it|the [\w-]+)\s+)?uses?\s+(.+)$`)
	otherwiseRe  = mustCompile(`(?i)\botherwise,?\s+([^.;]+)`)
	// selfValueRe: "`size` is `30`", "the limit is 50".
	selfValueRe = mustCompile("^(?:the\\s+)?(`[^`]+`|[\\w-]+)\\s+(?:is|will be|becomes)\\s+(`[^`]+`|'[^']+'|\"[^\"]+\"|[+-]?\\d+(?:\\.\\d+)?|true|false)$")
	// bulletDefaultRe: a value bullet marked as the default.
	bulletDefaultRe = mustCompile("(?m)^[ \\t]*[-*•][ \\t]+(`[^`\\n]+`|'[^'\\n]+'|\"[^\"\\n]+\")[ \\t]*(?::|[-–—])[^\\n]*\\(default\\)[ \\t.]*$")
	// otherParamCondRe: a condition naming a code-quoted name or value.
	otherParamCondRe = mustCompile("`[^`]+`|=")
	// behaviourRe: what happens when the parameter is left out, not which
	// value it takes ("the current value is returned and nothing is
	// changed", "all items are listed").
	behaviourRe = mustCompile(`(?i)\b(?:is|are|will be|gets|get)\s+(?:returned|shown|listed|displayed|printed|changed|modified|performed|ignored|skipped|kept|left|unchanged|preserved|deleted|removed|cleared|searched|included|excluded|shared|sent|synced|copied)\b|\bnothing\b|\bno (?:change|filter|limit)s?\b` +
		// an active verb of what the service then does ("Stripe will
		// dynamically show relevant payment methods", "the response
		// lists the account level templates"), or will not do ("the
		// credentials will not expire")
		`|\b(?:will|would)\s+(?:\w+ly\s+)?(?:show|display|return|list|present|offer|skip|ignore|keep|leave|include|exclude)\b` +
		// "the service will update all fields populated in the request"
		`|\b(?:will|would)\s+(?:\w+ly\s+)?\w+\s+all\b` +
		`|\b(?:response|result|results|endpoint|request|call|query|operation|server|service|API|it|we)\s+(?:\w+ly\s+)?(?:lists|returns|shows|displays|includes|excludes|contains|gives|searches)\b` +
		`|\b(?:will|would|does|do|is|are)\s+not\s+(?:be\s+)?\w+|\b(?:won't|doesn't|don't|isn't|aren't)\s+\w+`)
	// insteadRe: leaving the parameter out selects another mechanism,
	// not a value for it ("If omitted, the federated token is used
	// directly", "the password is used instead").
	insteadRe = mustCompile(`(?i)\b(?:is|are|will be|gets)\s+used\s+(?:directly|instead|as[- ]is|alone|on its own)\b`)
	// scopedRe: a literal default that holds for one case only ("2 for
	// directories and 0 for files").
	scopedRe = mustCompile(`(?i)^(?:for|when|if|unless|except)\b`)
	// fallbackRe: "otherwise png" - a conditional default with a literal
	// fallback.
	fallbackRe   = mustCompile("(?i)\\botherwise,?\\s+(?:[`'\"][^`'\"]+[`'\"]|[\\w.-]+)\\s*[.;]?\\s*$")
	literalBefRe = mustCompile("(?i)(`[^`]+`|'[^']+'|\"[^\"]+\"|[+-]?\\d+(?:\\.\\d+)?)(?:\\s+[a-z]+)?\\s+$")
)

// followingDefaultRe: a default the sentence goes on to spell out.
var followingDefaultRe = mustCompile(`(?i)\bthe following default\b`)

// literalDefaultRe: a literal called the default inside an omission's
// clause ("use 100 as the default", "the default of 31 days", "a default
// page size of 500").
var literalDefaultRe = mustCompile("(?i)\\buse[sd]?\\s+(`[^`]+`|[+-]?\\d+(?:\\.\\d+)?)\\s+as\\s+(?:the\\s+|a\\s+)?default\\b|\\b(?:the|a) default (?:[\\w-]+\\s+){0,2}of\\s+(`[^`]+`|[+-]?\\d+(?:\\.\\d+)?)")

// orValueRe: an omission joined to a value ("If not set or 0", "if
// omitted or empty").
var orValueRe = mustCompile("(?i)^\\s+or\\s+(?:`[^`]+`|'[^']+'|\"[^\"]+\"|(?:[+-]?\\d+(?:\\.\\d+)?|null|empty|blank|false|true|none)\\b)")

// namesEnumValue says whether clause code-quotes exactly one value, and
// the parameter's enum lists it.
func (c *ctx) namesEnumValue(clause string) bool {
	es, _ := c.schema["enum"].([]any)
	if len(es) == 0 {
		return false
	}
	ms := codeQuotedRe.FindAllStringSubmatch(clause, -1)
	if len(ms) != 1 {
		return false
	}
	for _, e := range es {
		if e == ms[0][1] {
			return true
		}
	}
	return false
}

var codeQuotedRe = mustCompile("`([^`]+)`")

// moreValuesRe: a value phrase continued by more quoted values.
var moreValuesRe = mustCompile("^\\s*(?:,\\s*(?:and\\s+|or\\s+)?|(?:and|or)\\s+)[`'\"]")

// nextDefaultRe: another subject's default stated in the same clause as a
// value phrase, after a conjunction ("-timestamp and replays default to").
var nextDefaultRe = mustCompile(`(?i)\s+(?:and|or|but|while|whereas)\s+(?:[\w-]+\s+){0,4}defaults?\s+(?:to|is)\b`)

// Words that are not values when they stand alone after "defaults to".
var notValueWords = map[string]bool{
	"everything": true, "all": true, "nothing": true, "none": true, "empty": true, "null": true, "nil": true,
	"unset": true, "unlimited": true, "infinite": true, "any": true, "used": true, "applied": true, "ignored": true,
	"shown": true, "returned": true, "set": true, "the": true, "a": true, "an": true, "it": true, "this": true,
	"that": true, "zero": true, "off": false,
}

// valueKind is what a default phrase turned out to be.
type valueKind int

const (
	vkNone valueKind = iota
	vkStatic
	vkRuntime
)

type defaultHit struct {
	kind  valueKind
	value any
	ev    span
}

// phraseEnd returns the end of the value phrase starting at i: the end of
// the clause, skipping over quoted tokens.
func phraseEnd(s string, i int) int {
	j := i
	for j < len(s) {
		ch := s[j]
		if r, size := firstRune(s[j:]); quoteClose[r] != 0 && j == i {
			if _, n, ok := readQuoted(s[j:]); ok {
				j += n
				continue
			}
			j += size
			continue
		}
		switch ch {
		case ',', ';', '(', ')', '\n', '[':
			if ch == '[' && j == i {
				j++
				continue
			}
			return j
		case '.', '?', '!':
			if j+1 >= len(s) || isSpace(s[j+1]) {
				return j
			}
		case ' ':
			if strings.HasPrefix(s[j:], " - ") || strings.HasPrefix(s[j:], " – ") {
				return j
			}
		}
		j++
	}
	return j
}

// classify reads a default value phrase against the parameter's type.
func (c *ctx) classify(phrase, sentence string) (valueKind, any) {
	phrase = strings.TrimSpace(phrase)
	core, conditional := phrase, false
	if loc := tailRe.FindStringIndex(phrase); loc != nil {
		core = strings.TrimSpace(phrase[:loc[0]])
		tail := phrase[loc[0]:]
		conditional = !omitRe.MatchString(tail)
	}
	core = strings.TrimRight(core, " .:")
	if core == "" {
		return vkNone, nil
	}
	// A default that depends on another parameter's value ("`read` unless
	// `path` is a directory", "true if `resourceVersion=\"\"`") is not one
	// the caller cannot see: it is left alone.
	if conditional && otherParamCondRe.MatchString(phrase[len(core):]) {
		return vkNone, nil
	}
	// "now", "today", "yesterday" name the time of the call.
	if w := strings.Trim(core, "`'\"“”"); strings.EqualFold(w, "now") || strings.EqualFold(w, "today") || strings.EqualFold(w, "yesterday") || strings.EqualFold(w, "tomorrow") {
		return vkRuntime, nil
	}
	if v, ok := c.literal(core); ok {
		if authCueRe.MatchString(sentence) {
			return vkRuntime, nil
		}
		if conditional {
			// A literal default for one case ("true when Alexandria is
			// combined with web", "false when attaching a PaymentMethod to
			// a Customer") is a conditional default: omitting the
			// parameter stays a choice the schema can describe. Only a
			// case that is itself runtime state ("if the account has ...")
			// makes it one the caller cannot see.
			if runtimeCueRe.MatchString(phrase[len(core):]) {
				return vkRuntime, nil
			}
			return vkNone, nil
		}
		return vkStatic, v
	}
	if relTimeRe.MatchString(core) {
		return vkRuntime, nil
	}
	if looksLiteral(core) {
		if conditional {
			return vkRuntime, nil
		}
		return vkNone, nil
	}
	if c.typ == "array" && strings.HasPrefix(core, "[") {
		var arr []any
		if err := json.Unmarshal([]byte(strings.Trim(core, "`")), &arr); err == nil && !conditional {
			return vkStatic, arr
		}
	}
	if nonValueRe.MatchString(core) {
		return vkNone, nil
	}
	if runtimeCueRe.MatchString(core) || definiteRe.MatchString(core) || conditional || authCueRe.MatchString(sentence) {
		return vkRuntime, nil
	}
	return vkNone, nil
}

// looksLiteral: a quoted token, a number, or one bare word.
func looksLiteral(core string) bool {
	if _, n, ok := readQuoted(core); ok && n == len(core) {
		return true
	}
	if _, _, ok := readNumber(core); ok {
		return true
	}
	if w, n, ok := readIdent(core); ok && n == len(core) && !notValueWords[strings.ToLower(w)] {
		return true
	}
	return false
}

// literal types a default phrase as a value of the parameter's type.
func (c *ctx) literal(core string) (any, bool) {
	var text string
	quoted, isNum := false, false
	if q, n, ok := readQuoted(core); ok && n == len(core) {
		text, quoted = q, true
	} else if num, n, ok := readNumber(core); ok {
		if relTimeRe.MatchString(core) {
			return nil, false
		}
		rest := strings.TrimSpace(core[n:])
		if rest != "" && !wordsRe.MatchString(rest) || scopedRe.MatchString(rest) {
			return nil, false
		}
		text, isNum = string(num), true
	} else if w, n, ok := readIdent(core); ok && n == len(core) {
		if notValueWords[strings.ToLower(w)] {
			return nil, false
		}
		text = w
	} else {
		return nil, false
	}
	switch c.typ {
	case "boolean":
		switch strings.ToLower(text) {
		case "true", "on", "yes", "enabled":
			return true, true
		case "false", "off", "no", "disabled":
			return false, true
		}
		return nil, false
	case "integer", "number":
		if isNum || quoted {
			if n, k, ok := readNumber(text); ok && k == len(text) {
				if c.typ == "integer" && !isWhole(string(n)) {
					return nil, false
				}
				return n, true
			}
		}
		return nil, false
	case "string":
		if enum, ok := c.schema["enum"].([]any); ok {
			for _, e := range enum {
				if es, ok := e.(string); ok && strings.EqualFold(es, text) {
					return es, true
				}
			}
			return nil, false
		}
		return text, true
	}
	return nil, false
}

// defaultRules proposes a static default from prose, or marks a
// runtime-resolved default (making the parameter required).
func (c *ctx) defaultRules() []Proposal {
	var hits []defaultHit
	d := c.desc
	addPhrase := func(intro []int, valStart int) {
		end := phraseEnd(d, valStart)
		// "event datasets default to -timestamp and replays default to
		// -started_at": the value ends where another subject's default
		// starts (that one is read as a hit of its own).
		if m := nextDefaultRe.FindStringIndex(d[valStart:end]); m != nil {
			end = valStart + m[0]
		}
		// "Defaults to `metadata`, `groupType`, and `name`": several
		// values, no one of them the default.
		if moreValuesRe.MatchString(d[end:]) {
			return
		}
		sent := c.sentenceText(intro[0])
		if !c.defaultSubjectOK(intro[0]) || c.frontedCondition(intro[0]) {
			return
		}
		k, v := c.classify(d[valStart:end], sent)
		if k != vkNone {
			hits = append(hits, defaultHit{k, v, span{intro[0], end}})
		}
	}
	for _, re := range defaultIntros {
		for _, m := range re.FindAllStringIndex(d, -1) {
			addPhrase(m, m[1])
		}
	}
	// "By default, the `author` will be the authenticated user": the
	// parameter's own name as the subject.
	for _, m := range byDefaultSelfRe.FindAllStringSubmatchIndex(d, -1) {
		if strings.Trim(d[m[2]:m[3]], "`") == c.name {
			addPhrase(m[:2], m[1])
		}
	}
	for _, m := range defaultLiteralRe.FindAllStringIndex(d, -1) {
		rest := d[m[1]:]
		var n int
		var ok bool
		if _, n, ok = readQuoted(rest); !ok {
			if _, n, ok = readNumber(rest); !ok {
				w, k, ok2 := readIdent(rest)
				lw := strings.ToLower(w)
				if !ok2 || (lw != "true" && lw != "false") {
					continue
				}
				n = k
			}
		}
		end := m[1] + n
		if end < len(d) && (isWordByte(d[end]) || d[end] == '-') {
			continue
		}
		if !closedAfter(d[end:]) && !strings.HasPrefix(strings.TrimLeft(d[end:], " "), ",") {
			continue
		}
		if v, ok := c.literal(d[m[1]:end]); ok {
			hits = append(hits, defaultHit{vkStatic, v, span{m[0], end}})
		}
	}
	for _, m := range parenDefaultRe.FindAllStringSubmatchIndex(d, -1) {
		if v, ok := c.literal(d[m[2]:m[3]]); ok {
			hits = append(hits, defaultHit{vkStatic, v, span{m[0], m[1]}})
		}
	}
	// A bullet that describes one value and ends "(default)": "- `none`:
	// no access (default)".
	for _, m := range bulletDefaultRe.FindAllStringSubmatchIndex(d, -1) {
		if v, ok := c.literal(d[m[2]:m[3]]); ok {
			hits = append(hits, defaultHit{vkStatic, v, span{m[2], m[1]}})
		}
	}
	for _, m := range byDefaultRe.FindAllStringSubmatchIndex(d, -1) {
		if v, ok := c.literal(d[m[2]:m[3]]); ok {
			hits = append(hits, defaultHit{vkStatic, v, span{m[2], m[1]}})
		}
	}
	hits = append(hits, c.omitHits()...)
	for _, m := range otherwiseRe.FindAllStringSubmatchIndex(d, -1) {
		// "Otherwise, all fields will be returned by default": behaviour.
		if clause := d[m[2]:m[3]]; len(strings.Fields(clause)) <= 8 && runtimeCueRe.MatchString(clause) && !behaviourRe.MatchString(clause) {
			hits = append(hits, defaultHit{vkRuntime, nil, span{m[0], m[1]}})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].ev.start < hits[j].ev.start })

	// Two different values stated as the default are defaults for two
	// cases ("event datasets default to -timestamp and replays default to
	// -started_at"): neither is the parameter's.
	perCase := false
	var first any
	for _, h := range hits {
		if h.kind != vkStatic || !c.canDefault(h.value) {
			continue
		}
		if first == nil {
			first = h.value
		} else if !reflect.DeepEqual(first, h.value) {
			perCase = true
		}
	}
	var out []Proposal
	doneStatic, doneRuntime := false, false
	for _, h := range hits {
		switch h.kind {
		case vkStatic:
			if doneStatic || perCase || !c.canDefault(h.value) {
				continue
			}
			doneStatic = true
			if c.hasAlready("default", h.value) {
				continue
			}
			out = append(out, c.proposal(KindStaticDefault, RuleDefault, h.ev, map[string]any{"default": h.value}))
		case vkRuntime:
			if doneRuntime || c.required {
				continue
			}
			doneRuntime = true
			out = append(out, c.proposal(KindRuntimeDefault, RuleRuntimeDefault, h.ev, map[string]any{"required": true}))
		}
	}
	return out
}

// canDefault: the value fits the schema's type, enum and bounds.
func (c *ctx) canDefault(v any) bool {
	if v == nil || !typeAccepts(c.schema, v) {
		return false
	}
	return outsideSchema(c.schema, v) == ""
}

// defaultSubjectOK rejects a default stated for another, backticked
// parameter in the same sentence ("the `per_page` defaults to 30").
func (c *ctx) defaultSubjectOK(at int) bool {
	s := sentenceAt(c.sents, at)
	if s.start > at {
		return true
	}
	subj := c.desc[s.start:at]
	if m := otherSubjectRe.FindStringSubmatch(subj); m != nil && m[1] != c.name {
		return false
	}
	return true
}

// otherSubjectRe: a backticked name right before the default phrase is its
// subject ("the `per_page` defaults to", "The `limit` parameter defaults to").
var otherSubjectRe = mustCompile("`([^`]+)`\\s*(?:(?:parameter|field|option|argument|property|flag|setting|value)\\s*)?(?:also\\s*|then\\s*|always\\s*)?(?:is\\s*|will\\s*|,\\s*|[-–—:]\\s*)?$")

// omitHits reads sentences about the parameter being left out: "If
// omitted, the account's default currency will be used", "60000
// milliseconds if not specified", "If not specified, the value is assigned
// by IP".
func (c *ctx) omitHits() []defaultHit {
	var hits []defaultHit
	d := c.desc
	for _, m := range omitRe.FindAllStringIndex(d, -1) {
		s := sentenceAt(c.sents, m[0])
		if m[1] > s.end {
			// The phrase runs over a sentence's end ("If\n\nNot
			// supplied"): not a phrase of one sentence.
			continue
		}
		sent := d[s.start:s.end]
		after := strings.TrimSpace(strings.TrimLeft(d[m[1]:s.end], " ,:"))
		after = strings.TrimRight(after, ". ")
		before := strings.TrimSpace(d[s.start:m[0]])
		ev := span{s.start, s.end}
		// "<literal> [unit] if not specified"
		if lm := literalBefRe.FindStringSubmatchIndex(d[s.start:m[0]]); lm != nil && after == "" && clauseStartBefore(d[s.start:s.start+lm[0]]) {
			lit := d[s.start+lm[2] : s.start+lm[3]]
			if v, ok := c.literal(lit); ok {
				hits = append(hits, defaultHit{vkStatic, v, span{s.start + lm[0], m[1]}})
				continue
			}
		}
		clause := after
		isBefore := false
		if clause == "" || strings.HasPrefix(strings.ToLower(clause), "for ") && !strings.Contains(clause, ",") {
			clause, isBefore = before, true
			if k := strings.LastIndexByte(clause, ';'); k >= 0 {
				clause = strings.TrimSpace(clause[k+1:])
			}
		} else if strings.HasPrefix(strings.ToLower(clause), "for ") {
			// "If omitted for close, current tab is closed."
			clause = strings.TrimSpace(clause[strings.Index(clause, ",")+1:])
		}
		if clause == "" || insteadRe.MatchString(clause) {
			continue
		}
		// "If no mask is provided, the following default mask is used:
		// `...`" spells the default out.
		if followingDefaultRe.MatchString(clause) {
			continue
		}
		// "If unspecified, the server will use 100 as the default", "If
		// you omit this field, the default of 31 days is used": a literal.
		if lm := literalDefaultRe.FindStringSubmatch(clause); lm != nil {
			if v, ok := c.literal(lm[1] + lm[2]); ok { // one of the two is set
				hits = append(hits, defaultHit{vkStatic, v, ev})
			}
			continue
		}
		// "If not included, `size` is `30`": the parameter's own name, then
		// its value.
		if nm := selfValueRe.FindStringSubmatch(clause); nm != nil && strings.Trim(nm[1], "`'\"") == c.name {
			if v, ok := c.literal(nm[2]); ok {
				hits = append(hits, defaultHit{vkStatic, v, ev})
				continue
			}
		}
		// A default intro in the clause is read by the intro patterns
		// ("the default is lexical search"), unless it is only "the
		// user's default team is used".
		hasIntro := false
		for _, re := range defaultIntros {
			for _, im := range re.FindAllStringIndex(clause, -1) {
				w := wordsAfter(clause[im[1]:], 1)
				if len(w) == 1 && (w[0] == "used" || w[0] == "applied") {
					continue
				}
				hasIntro = true
			}
		}
		if hasIntro || hasDefaultLiteral(clause) {
			continue
		}
		var phrase string
		if !isBefore {
			if um := usedRe.FindStringSubmatch(clause); um != nil {
				phrase = um[1]
			} else if um := usesRe.FindStringSubmatch(clause); um != nil {
				phrase = um[1]
			}
		} else {
			if um := usedBeforeRe.FindStringSubmatch(clause); um != nil {
				phrase = um[1]
			} else if um := useClauseRe.FindStringSubmatch(clause); um != nil {
				phrase = um[1]
			}
		}
		if phrase != "" {
			if k, v := c.classify(phrase, sent); k != vkNone {
				hits = append(hits, defaultHit{k, v, ev})
				continue
			}
		}
		// "If not set or 0, ...": leaving it out is the value 0.
		if orValueRe.MatchString(d[m[1]:s.end]) {
			continue
		}
		// "If not specified, a file attachment of type `asana` will be
		// assumed": the one value the clause names, which the enum lists,
		// is what leaving it out gives.
		if c.namesEnumValue(clause) {
			continue
		}
		if runtimeCueRe.MatchString(clause) && !behaviourRe.MatchString(clause) && !fallbackRe.MatchString(sent) {
			hits = append(hits, defaultHit{vkRuntime, nil, ev})
		}
	}
	return hits
}

// clauseStartBefore says whether text ends where a clause can start: at
// nothing, or after "-", ":", "(", ",", ";".
func clauseStartBefore(text string) bool {
	t := strings.TrimRight(text, " ")
	return t == "" || strings.ContainsAny(t[len(t)-1:], "-–:(,;")
}

// hasDefaultLiteral: "default 100", "default `x`", "default true".
func hasDefaultLiteral(s string) bool {
	for _, m := range defaultLiteralRe.FindAllStringIndex(s, -1) {
		rest := s[m[1]:]
		if _, _, ok := readQuoted(rest); ok {
			return true
		}
		if _, _, ok := readNumber(rest); ok {
			return true
		}
		w, _, _ := readIdent(rest)
		if lw := strings.ToLower(w); lw == "true" || lw == "false" {
			return true
		}
	}
	return false
}

// labelRe: a leading label of a sentence ("Note:", "Important:").
var labelRe = mustCompile("(?i)^\\s*`?(?:note|important|warning|tip)\\s*:`?\\s*")

// frontedCondition says whether the sentence holding offset at opens with
// a condition before it that is not the parameter's omission: "If you're
// creating a repository in an organization that has disabled projects,
// the default is `false`" states a default for one case. "If not
// specified, defaults to 10" is the omission itself.
func (c *ctx) frontedCondition(at int) bool {
	s := sentenceAt(c.sents, at)
	if s.start > at {
		return false
	}
	before := c.desc[s.start:at]
	if m := labelRe.FindStringIndex(before); m != nil {
		before = before[m[1]:]
	}
	low := strings.ToLower(strings.TrimSpace(before))
	for _, w := range []string{"if ", "when ", "for ", "unless ", "in case ", "where "} {
		if strings.HasPrefix(low, w) {
			return !omitRe.MatchString(before)
		}
	}
	return false
}
