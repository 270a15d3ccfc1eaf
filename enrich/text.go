package enrich

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode"

	"github.com/codemode-dev/codemode/ir"
)

// span is a byte range of the description.
type span struct{ start, end int }

// sentences splits text into sentence spans. A sentence ends at ". ", "? ",
// "! " (not after "e.g", "i.e", "etc", "vs" or a single letter), at a
// newline that is not a soft wrap, or at the end of the text. A soft wrap
// is a newline inside a sentence: a word or a comma before it and a
// lower-case word after it ("If\nnot supplied, ..."), as folded YAML and
// hand-wrapped descriptions have.
func sentences(text string) []span {
	var out []span
	start := 0
	emit := func(end int) {
		s, e := start, end
		for s < e && isSpace(text[s]) {
			s++
		}
		for e > s && isSpace(text[e-1]) {
			e--
		}
		if e > s {
			out = append(out, span{s, e})
		}
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c == '\n' {
			if softWrap(text, i) {
				continue
			}
			emit(i)
			start = i + 1
			continue
		}
		if c != '.' && c != '?' && c != '!' {
			continue
		}
		if i+1 < len(text) && !isSpace(text[i+1]) {
			continue
		}
		if c == '.' && isAbbrev(text[:i]) {
			continue
		}
		emit(i + 1)
		start = i + 1
	}
	emit(len(text))
	return out
}

// softWrap says whether the newline at text[i] wraps a sentence rather
// than ending one.
func softWrap(text string, i int) bool {
	j := i
	for j > 0 && (text[j-1] == ' ' || text[j-1] == '\t' || text[j-1] == '\r') {
		j--
	}
	if j == 0 || !(isWordByte(text[j-1]) || text[j-1] == ',') {
		return false
	}
	k := i + 1
	for k < len(text) && (text[k] == ' ' || text[k] == '\t') {
		k++
	}
	return k < len(text) && text[k] >= 'a' && text[k] <= 'z'
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

var abbrevs = []string{"e.g", "i.e", "etc", "vs", "approx", "incl", "eg", "ie", "no", "cf"}

func isAbbrev(before string) bool {
	j := len(before)
	i := j
	for i > 0 && (isWordByte(before[i-1]) || before[i-1] == '.') {
		i--
	}
	w := strings.ToLower(before[i:j])
	for _, a := range abbrevs {
		if w == a {
			return true
		}
	}
	return len(w) == 1 && unicode.IsLetter(rune(w[0]))
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// sentenceAt returns the sentence span containing byte offset i.
func sentenceAt(ss []span, i int) span {
	for _, s := range ss {
		if i >= s.start && i < s.end {
			return s
		}
	}
	return span{i, i}
}

// quote pairs: opening → closing.
var quoteClose = map[rune]rune{'`': '`', '\'': '\'', '"': '"', '“': '”', '‘': '’'}

// numberRe matches a plain decimal number, optionally signed, with optional
// thousands separators; the caller checks what follows.
var numberRe = mustCompile(`^[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?`)

// readNumber reads a number at the start of s, optionally in backticks. It
// rejects numbers glued to something that makes them a date, version or
// identifier ("2026-03-11", "1.2.3", "10k"). n is the bytes consumed.
func readNumber(s string) (json.Number, int, bool) {
	off := 0
	tick := false
	if strings.HasPrefix(s, "`") {
		tick = true
		off = 1
	}
	m := numberRe.FindString(s[off:])
	if m == "" {
		return "", 0, false
	}
	end := off + len(m)
	rest := s[end:]
	if tick {
		if !strings.HasPrefix(rest, "`") {
			return "", 0, false
		}
		end++
		rest = s[end:]
	}
	if rest != "" {
		c := rest[0]
		if isWordByte(c) || c == '-' && len(rest) > 1 && isDigit(rest[1]) || (c == '.' || c == '/' || c == ':') && len(rest) > 1 && isDigit(rest[1]) {
			return "", 0, false
		}
		if strings.HasPrefix(rest, "–") && len(rest) > 3 && isDigit(rest[3]) {
			// "3–12" is read by the range patterns, not as one number.
			return normNumber(m), end, true
		}
	}
	return normNumber(m), end, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func normNumber(m string) json.Number {
	m = strings.TrimPrefix(m, "+")
	m = strings.ReplaceAll(m, ",", "")
	if strings.Contains(m, ".") {
		f, err := strconv.ParseFloat(m, 64)
		if err == nil && f == float64(int64(f)) {
			return json.Number(strconv.FormatInt(int64(f), 10))
		}
	}
	return json.Number(m)
}

// readQuoted reads a quoted token (`x`, 'x', "x", “x”) at the start of s.
func readQuoted(s string) (string, int, bool) {
	if s == "" {
		return "", 0, false
	}
	r, size := firstRune(s)
	cl, ok := quoteClose[r]
	if !ok {
		return "", 0, false
	}
	// A backticked "quoted" token such as `"true"` keeps the inner quotes
	// off.
	rest := s[size:]
	idx := strings.IndexRune(rest, cl)
	if idx <= 0 || idx > 80 || strings.ContainsAny(rest[:idx], "\n") {
		return "", 0, false
	}
	val := rest[:idx]
	if r == '`' && len(val) >= 2 && (val[0] == '"' || val[0] == '\'') && val[len(val)-1] == val[0] {
		val = val[1 : len(val)-1]
	}
	if r == '\'' && strings.ContainsAny(val, " ") && len(val) > 30 {
		return "", 0, false
	}
	return val, size + idx + len(string(cl)), true
}

func firstRune(s string) (rune, int) {
	for _, r := range s {
		return r, len(string(r))
	}
	return 0, 0
}

// identRe is a bare value token: a word, possibly with -, _, . inside.
var identRe = mustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.\-]*[A-Za-z0-9_]|^[A-Za-z0-9_]`)

// readIdent reads a bare token at the start of s.
func readIdent(s string) (string, int, bool) {
	m := identRe.FindString(s)
	if m == "" {
		return "", 0, false
	}
	return m, len(m), true
}

func skipSpaces(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// lastSegment is the parameter name at the end of a JSON pointer.
func lastSegment(ptr string) string {
	i := strings.LastIndex(ptr, "/")
	seg := ptr[i+1:]
	return ir.UnescapeToken(seg)
}

// wordsAfter returns up to n lower-cased words starting at s.
func wordsAfter(s string, n int) []string {
	var out []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_')
	}) {
		out = append(out, strings.ToLower(f))
		if len(out) == n {
			break
		}
	}
	return out
}

// normalizeMarkdown turns markdown emphasis into what the rules read,
// keeping every byte offset: emphasis around one value ("**true**",
// "__online__", "*red*") becomes a code quote (" `true` "), emphasis
// around code ("**`x`**") or around a phrase becomes spaces.
//
// Links and HTML are stripped first, also in place: "[text](url)" keeps
// its text and blanks the brackets and the address; "<br>" and "<p>"
// become line breaks (they end a sentence); "<code>x</code>" becomes
// "`x`"; any other tag becomes spaces.
func normalizeMarkdown(s string) string {
	s = stripLinksAndTags(s)
	if !strings.ContainsAny(s, "*_") {
		return s
	}
	b := []byte(s)
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != '*' && c != '_' {
			continue
		}
		n := 1
		if i+1 < len(b) && b[i+1] == c {
			n = 2
		}
		if i+n < len(b) && b[i+n] == c {
			// "***" or a rule line: leave it.
			for i+1 < len(b) && b[i+1] == c {
				i++
			}
			continue
		}
		// An opening mark follows a non-word byte and precedes a non-space.
		if i > 0 && isWordByte(b[i-1]) || i+n >= len(b) || isSpace(b[i+n]) {
			i += n - 1
			continue
		}
		delim := string(b[i : i+n])
		rest := string(b[i+n:])
		j := strings.Index(rest, delim)
		if j <= 0 || strings.ContainsAny(rest[:j], "\n") || j > 200 {
			i += n - 1
			continue
		}
		closeAt := i + n + j
		// The closing mark follows a non-space and precedes a non-word byte.
		if isSpace(b[closeAt-1]) || closeAt+n < len(b) && isWordByte(b[closeAt+n]) {
			i += n - 1
			continue
		}
		inner := rest[:j]
		if valueTokenRe.MatchString(inner) && !strings.ContainsAny(inner, "`'\"") {
			b[i+n-1] = '`'
			b[closeAt] = '`'
			for k := i; k < i+n-1; k++ {
				b[k] = ' '
			}
			for k := closeAt + 1; k < closeAt+n; k++ {
				b[k] = ' '
			}
		} else if n == 2 || c == '*' {
			for k := i; k < i+n; k++ {
				b[k] = ' '
			}
			for k := closeAt; k < closeAt+n; k++ {
				b[k] = ' '
			}
		}
		i = closeAt + n - 1
	}
	return string(b)
}

var (
	mdLinkRe  = mustCompile(`\[([^\[\]\n]{1,300})\]\(([^()\s]{0,1000})\)`)
	htmlTagRe = mustCompile(`(?i)</?([a-z][a-z0-9]{0,9})(?:\s[^<>\n]{0,200})?\s*/?>`)
)

var htmlTags = map[string]bool{"a": true, "b": true, "i": true, "em": true, "strong": true, "code": true, "pre": true,
	"br": true, "p": true, "ul": true, "ol": true, "li": true, "div": true, "span": true, "sup": true, "sub": true, "tt": true, "kbd": true}

// stripLinksAndTags blanks markdown link syntax and HTML tags, keeping
// every byte offset (see normalizeMarkdown).
func stripLinksAndTags(s string) string {
	if !strings.ContainsAny(s, "[<") {
		return s
	}
	b := []byte(s)
	blank := func(i, j int) {
		for k := i; k < j; k++ {
			b[k] = ' '
		}
	}
	// Each pattern runs only where its match can be: a link has "](", a
	// tag "<" (Stripe's descriptions link a lot and tag little).
	if strings.Contains(s, "](") {
		for _, m := range mdLinkRe.FindAllStringSubmatchIndex(s, -1) {
			blank(m[0], m[2])
			blank(m[3], m[1])
		}
	}
	if strings.IndexByte(s, '<') < 0 {
		return string(b)
	}
	for _, m := range htmlTagRe.FindAllStringSubmatchIndex(s, -1) {
		name := strings.ToLower(s[m[2]:m[3]])
		// Only HTML's own tags, outside code: "`<id>`" is a placeholder.
		if !htmlTags[name] || strings.Count(s[:m[0]], "`")%2 == 1 {
			continue
		}
		blank(m[0], m[1])
		switch name {
		case "br", "p", "li", "ul", "ol", "div":
			b[m[0]] = '\n'
		case "code":
			if s[m[0]+1] == '/' {
				b[m[0]] = '`'
			} else {
				b[m[1]-1] = '`'
			}
		}
	}
	return string(b)
}
