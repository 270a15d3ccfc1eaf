package findtool

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxQueryWords is how many words of a query are read: a request for a
// tool takes a few, and a longer text (a pasted document, a hostile
// megabyte) must not cost the search more than they do.
const MaxQueryWords = 64

// focus is what of a query is searched for, and the context it gives
// around it: its first MaxQueryWords words, without the request's frame
// and the values it names for the call. Of several sentences, the ones
// that ask for something (asks) are the need and the others its context
// ("We're migrating billing this week. Refund the last charge."); with
// none that asks, the ones that tell something (tells) are the context
// and the rest the need; otherwise the whole query is the need.
func focus(q string) (need, context string) {
	if ws := spans(q); len(ws) > MaxQueryWords {
		q = q[:ws[MaxQueryWords-1].to]
	}
	ss := splitSentences(q)
	if len(ss) > 1 {
		var ask, tell, rest, restU []string // restU: rest unframed
		for _, s := range ss {
			u := unframe(s)
			switch {
			case asks(s, u):
				ask = append(ask, u)
			case tells(s):
				tell = append(tell, s)
			default:
				rest = append(rest, s)
				restU = append(restU, u)
			}
		}
		switch {
		case len(ask) > 0 && len(ask) < len(ss):
			return dropValues(strings.Join(ask, " ")), strings.Join(append(tell, rest...), " ")
		case len(tell) > 0 && len(rest) > 0:
			return dropValues(strings.Join(restU, " ")), strings.Join(tell, " ")
		}
	}
	return dropValues(unframe(q)), ""
}

// splitSentences splits q at every ".", "!" or "?" (or a run of them) that a
// space or the end follows, except the dot of an abbreviation ("e.g.",
// "etc."); "v1.2" and "jane.doe@example.com" are no ends. A sentence with
// no word in it ("!", "...") is part of the one before, or nothing when it
// comes first. It reads q once, whatever its length.
func splitSentences(q string) []string {
	var cuts [][2]int // each sentence's bounds in q
	add := func(from, to int) {
		if hasWord(q[from:to]) || len(cuts) == 0 {
			cuts = append(cuts, [2]int{from, to})
		} else {
			cuts[len(cuts)-1][1] = to
		}
	}
	start := 0
	for i := 0; i < len(q); i++ {
		if c := q[i]; c != '.' && c != '!' && c != '?' {
			continue
		}
		j := i + 1
		for j < len(q) && strings.IndexByte(".!?", q[j]) >= 0 {
			j++
		}
		if j < len(q) && q[j] != ' ' && q[j] != '\t' && q[j] != '\n' || q[i] == '.' && j == i+1 && abbreviation(q[start:i]) {
			i = j - 1
			continue
		}
		add(start, j)
		start, i = j, j-1
	}
	add(start, len(q))
	var out []string
	for _, c := range cuts {
		if s := strings.TrimSpace(q[c[0]:c[1]]); hasWord(s) {
			out = append(out, s)
		}
	}
	return out
}

// hasWord reports whether s has a letter or a digit.
func hasWord(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}

// abbreviation reports whether text ends in a word that a dot after it
// abbreviates: one letter ("e.g", "J"), or a common abbreviation. Only
// the last word is read.
func abbreviation(text string) bool {
	end := len(text)
	from := end
	for from > 0 {
		r, n := utf8.DecodeLastRuneInString(text[:from])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			break
		}
		from -= n
	}
	w := strings.ToLower(text[from:end])
	return utf8.RuneCountInString(w) == 1 || abbreviations[w]
}

var abbreviations = wordSet(`etc vs approx incl esp resp cf eg ie mr mrs ms dr st no nr fig`)

// tells reports whether a sentence tells something rather than naming a
// need: it opens with a subject, a pronoun or a possessive ("We're
// migrating billing.", "This is for a report.", "Our team is small.").
func tells(s string) bool {
	ws := spans(s)
	return len(ws) > 0 && subjects[ws[0].w]
}

// wishEnd may end the lead of a wish or a plea.
var wishEnd = wordSet(`to me us please`)

var subjects = wordSet(`i we you they he she it its this that these those there our my your their his her`)

// asks reports whether a sentence s (unframed: u) asks for something: a
// question, a wish ("I need to …"), or an action's verb first ("Refund the
// last charge.", "Can you list my calendars?"). A sentence that tells
// something ("The on-call engineer asked me for this.") is context.
func asks(s, u string) bool {
	if strings.HasSuffix(s, "?") {
		return true
	}
	// A wish or a plea before it: "I need to …", "help me …", "please …".
	if i := strings.Index(s, u); i > 0 {
		if lead := spans(s[:i]); len(lead) > 0 && wishEnd[lead[len(lead)-1].w] {
			return true
		}
	}
	ws := words(u, false)
	if len(ws) == 0 {
		return false
	}
	w := ws[0]
	return verbActions[w] != actNone || inflected(w) && inflectedActions[stem(w)] != actNone
}

// A query to find_tool is always a request for a tool, and agents often say
// so: "find a tool to create an issue", "is there an API that lists
// invoices", "how do I merge a pull request?", "send an email via the
// API". The frame around what the tool should do is no part of it, and it
// misleads the ranking: its verb ("find", "search", "how") would be read as
// the query's intent, and "api" or "tool" would favour tools and services
// named so. unframe drops it.
//
// The frame is recognised by its shape, from word classes, not by phrases:
//   - a lead: courtesy and seeking words ("please", "can you", "find",
//     "search for", "which", "is there", "I need"), articles, then a word
//     for a tool ("tool", "function", "API", "endpoint", "operation",
//     "method", "command", "call"), then what links it to the request
//     ("to", "that", "for", "which lets me", "should I use to", ":");
//   - or a lead with no tool word, as a question or a wish: "how do I",
//     "how can we", "how to", "is there a way to", "help me", "I want to",
//     "can you";
//   - a tail: "via the API", "using an endpoint", "with a tool", "please",
//     "for me";
//   - an instruction about the result at the end: "…, then tell me the
//     result", "… and print what it returns" (instructionStart).
//
// A word for a tool that says what the tool is about stays: "get API keys"
// and "list the endpoints of a service" have no link after the word,
// "create an API key" no seeking lead, "delete an API" no preposition
// before it, and "get functions that are deployed" no determiner before
// a word that is as often a tool's object. Nothing is dropped when no word
// would be left.
func unframe(q string) string {
	ws := spans(q)
	if len(ws) == 0 {
		return q
	}
	start := leadEnd(q, ws)
	end := tailStart(ws, start)
	end = instructionStart(q, ws, start, end)
	end = tailStart(ws[:end], start)
	if start >= end {
		return q
	}
	if start == 0 && end == len(ws) {
		return q
	}
	to := len(q)
	if end < len(ws) {
		to = ws[end-1].to
	}
	return q[ws[start].from:to]
}

// A span is one word of a query: its lower-case letters and digits and
// where it stands.
type span struct {
	w        string
	from, to int // byte offsets in the query
}

// spans splits q into words at every rune that is not a letter or digit
// (no camelCase splitting: the frame's words are plain English).
func spans(q string) []span {
	var out []span
	start := -1
	for i, r := range q {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			out = append(out, span{strings.ToLower(q[start:i]), start, i})
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, span{strings.ToLower(q[start:]), start, len(q)})
	}
	return out
}

// Word classes of the frame.
var (
	// frameCourtesy may open a request: "please", "hey", "can you", "I'd
	// like", "I need", "I want", "help me", "let me" ("show me" is a read:
	// "show me open issues" keeps it).
	frameCourtesy = wordSet(`please kindly hey hi hello can could would will you i we d ll m like need want
		wanna looking trying help me us let`)
	// frameSeek asks for something: "find", "search for", "look up",
	// "which", "is there any", "get me".
	frameSeek = wordSet(`find finding search searching look looking lookup locate get fetch give show
		suggest recommend pick choose which what whats s is are there any some one best right for up
		me us the a an`)
	// frameTool is a word for a tool, as an agent says it.
	frameTool = wordSet(`tool tools function functions api apis endpoint endpoints operation operations
		method methods command commands call calls action actions capability capabilities route routes
		mcp`)
	// plainTool are the tool words that mean a tool wherever they stand;
	// the others ("functions", "operations", "commands") are often what a
	// tool is about, and are a tool word only right after a determiner
	// ("find a function that", not "get functions that are deployed").
	plainTool = wordSet(`tool tools api apis endpoint endpoints mcp`)
	// frameDeterminer may stand before a tool word.
	frameDeterminer = wordSet(`a an the any some which what one`)
	// frameLink joins the tool word to what the tool should do: "to",
	// "that can", "which lets me", "should I use to", "for".
	frameLink = wordSet(`to that which who for can could will would should may might lets let allows
		allow allowing enables helps i we me us you do does is are be used use using able capable`)
	// frameQuestion opens a question or a wish with no tool word: "how
	// do I", "how to", "is there a way to", "what is the way to".
	frameQuestion = wordSet(`how do does did can could should would might i we you one to is there
		a an the way what whats s best easiest right`)
	// frameTailLink brings a tool word in at the end: "via the API",
	// "using an endpoint", "with a tool".
	frameTailLink = wordSet(`via using use through with by from in on the a an any some`)
	// frameThanks may close a request.
	frameThanks = wordSet(`please thanks thank thx`)
	// frameUser are the words for whoever asks: "tell me", "for us".
	frameUser = wordSet(`me us`)
	// instructJoin joins an instruction to the need: "…, then tell me",
	// "… and also show me".
	instructJoin = wordSet(`and then so also just finally after afterwards`)
	// instructVerb says what to do with what comes back: tell, show and
	// give the asker (instructToUser), or print, return, summarise it.
	instructVerb   = wordSet(`tell show give let print return report summarise summarize display output paste explain format render`)
	instructToUser = wordSet(`tell show give let`)
	// instructBack refers back to what the call gives: "print it", "report
	// back", "summarise what you find", "tell me whether".
	instructBack = wordSet(`it them that this those these what how whether if back here everything`)
	// outputNoun is a word for what a call gives back: "show the result".
	outputNoun = wordSet(`result results output outputs response responses answer answers reply details summary`)
)

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// leadEnd is the index of the first word past the query's lead frame (0
// for none).
func leadEnd(q string, ws []span) int {
	// A lead with a tool word: seeking words (and courtesy) up to the
	// first tool word, the tool words, then at least one link (or a colon
	// or dash right after the tool word).
	i := 0
	for i < len(ws) && (frameCourtesy[ws[i].w] || frameSeek[ws[i].w]) && !frameTool[ws[i].w] {
		i++
	}
	if i < len(ws) && frameTool[ws[i].w] && i < 8 && (i == 0 || plainTool[ws[i].w] || frameDeterminer[ws[i-1].w]) {
		j := i
		for j < len(ws) && frameTool[ws[j].w] {
			j++
		}
		k := j
		for k < len(ws) && frameLink[ws[k].w] {
			k++
		}
		punct := j < len(ws) && strings.ContainsAny(q[ws[j-1].to:ws[j].from], ":-–—")
		if (k > j || punct) && k < len(ws) {
			return k
		}
	}
	// A question or wish: "how" or a courtesy word first, "to" or a
	// pronoun somewhere in it, ending before the first word of neither
	// class.
	if frameCourtesy[ws[0].w] || ws[0].w == "how" || (ws[0].w == "is" && len(ws) > 1 && ws[1].w == "there") || ws[0].w == "what" || ws[0].w == "whats" {
		k := 0
		last := 0 // one past the last word that ends a lead ("to", "i", "me", "we", "you")
		for k < len(ws) && (frameQuestion[ws[k].w] || frameCourtesy[ws[k].w]) {
			switch ws[k].w {
			case "to", "i", "me", "we", "us", "you", "one":
				last = k + 1
			}
			k++
		}
		// "is there a way to", "how do I", "help me", "please": the lead
		// ends at its last pronoun or "to"; a lead that ends in "is
		// there", "what is" or "how many" is a real question and stays.
		if ws[0].w == "please" && last == 0 {
			last = 1
		}
		if last > 0 && last < len(ws) {
			return last
		}
	}
	return 0
}

// tailStart is the index of the first word of the query's tail frame
// (len(ws) for none), never before from.
func tailStart(ws []span, from int) int {
	end := len(ws)
	for {
		switch {
		case end > from+1 && frameThanks[ws[end-1].w]:
			end--
			continue
		case end > from+2 && ws[end-2].w == "for" && frameUser[ws[end-1].w]:
			end -= 2 // "… for me"
			continue
		}
		break
	}
	k := end
	for k > from+1 && frameTool[ws[k-1].w] {
		k--
	}
	if k == end {
		return end
	}
	j, prep := k, false
	for j > from+1 && frameTailLink[ws[j-1].w] {
		j--
		prep = prep || !frameDeterminer[ws[j].w]
	}
	// The tool word must be brought in by a preposition ("via the API"),
	// not be the query's object ("delete an API" keeps its "API").
	if !prep {
		return end
	}
	return j
}

// instructionStart is the index of the first word of an instruction the
// query ends with, about what to do with the call's result rather than
// which call to make ("…, then tell me the result", "… and print what it
// returns", "… and show me the output"): a word that joins clauses (or a
// comma, a semicolon, a dash), a verb that reports (tell, show, print,
// return, summarise…) and after it the asker ("me", "us") or, for a verb
// that reports without one, a word that refers back to what came ("it",
// "what", "back") or a word for it ("the output"). end when there is
// none; never fewer than two words of the need stay. A clause that does
// more work ("and send it", "and give them admin access") stays.
func instructionStart(q string, ws []span, from, end int) int {
	for i := from + 2; i < end; i++ {
		j := i
		for j < end && instructJoin[ws[j].w] {
			j++
		}
		if j == i && !strings.ContainsAny(q[ws[i-1].to:ws[i].from], ",;–—") {
			continue
		}
		if j+1 < end && reportsBack(ws[j:end]) {
			return i
		}
	}
	return end
}

// reportsBack reports whether ws, the words of a clause, open with an
// instruction about the result (instructionStart).
func reportsBack(ws []span) bool {
	v, next := ws[0].w, ws[1].w
	switch {
	case !instructVerb[v]:
		return false
	case frameUser[next]:
		return true
	case instructToUser[v]:
		return false
	case instructBack[next]:
		return true
	}
	return frameDeterminer[next] && len(ws) > 2 && outputNoun[ws[2].w]
}

// dropValues drops the values a query quotes or names for the call it
// will make, which say nothing about which tool makes it and match tools
// by accident ("create a branch named release-2024" is no search for
// releases; "refund charge ch_3MmlLrLkdIwHu7ix" no search for "mml"):
//   - a quoted span ('…', "…", `…`, “…”, ‘…’);
//   - a word that is shaped like an identifier or an address: letters
//     with a run of four digits or more ("INC0012345"), three or more
//     changes between letters and digits ("8f3a2c", a UUID), an e-mail
//     address, a URL or a path;
//   - a name after "named", "called", "titled" or "labelled" (a word
//     capitalised or with more than letters in it), and the introducer;
//   - "id", "number", "no" or "uuid" before a number or an identifier,
//     and what they bring in ("with id 12345", "number 42").
//
// Short mixes of letters and digits that are words of their own stay
// ("s3", "ec2", "oauth2", "sha256", "v1", "2fa"), and so do numbers
// ("add 2 and 3", "404 errors"). Nothing is dropped when no word would be
// left.
func dropValues(q string) string {
	type tok struct {
		s    string
		drop bool
	}
	var toks []tok
	var quote rune // the closing quote of an open quoted span, 0 for none
	for _, f := range strings.Fields(q) {
		t := tok{s: f}
		if quote != 0 {
			t.drop = true
			if closes(f, quote) {
				quote = 0
			}
			toks = append(toks, t)
			continue
		}
		if r, ok := opensQuote(f); ok {
			t.drop = true
			if !closes(f[len(string(r)):], closing[r]) {
				quote = closing[r]
			}
			toks = append(toks, t)
			continue
		}
		t.drop = valueShaped(strings.Trim(f, ".,;:!?()[]{}<>"))
		toks = append(toks, t)
	}
	if quote != 0 {
		// An unclosed quote quotes nothing: an apostrophe.
		return q
	}
	for i := 0; i+1 < len(toks); i++ {
		w := strings.ToLower(strings.Trim(toks[i].s, ".,;:!?()"))
		next := strings.Trim(toks[i+1].s, ".,;:!?()[]{}<>")
		if valueIntroducer[w] && nameShaped(toks[i+1].s) || idIntroducer[w] && (toks[i+1].drop || number(next)) {
			toks[i].drop, toks[i+1].drop = true, true
		}
	}
	var kept []string
	for _, t := range toks {
		if !t.drop {
			kept = append(kept, t.s)
		}
	}
	if len(kept) == len(toks) || len(spans(strings.Join(kept, " "))) == 0 {
		return q
	}
	return strings.Join(kept, " ")
}

// closing is the closing quote of each opening quote.
var closing = map[rune]rune{'\'': '\'', '"': '"', '`': '`', '“': '”', '‘': '’'}

// opensQuote reports whether a word opens a quoted span, and its quote.
func opensQuote(f string) (rune, bool) {
	for r := range closing {
		if strings.HasPrefix(f, string(r)) {
			return r, true
		}
	}
	return 0, false
}

// closes reports whether a word (the rest of it, for the opening word)
// ends a span quoted with q: q at its end, or before trailing punctuation.
func closes(f string, q rune) bool {
	f = strings.TrimRight(f, ".,;:!?)]")
	return strings.HasSuffix(f, string(q))
}

// valueIntroducer are the words that bring in a name for the call to use.
var valueIntroducer = wordSet(`named called titled entitled labelled labeled`)

// idIntroducer are the words that bring in an identifier or a number for
// the call to use ("issue number 42", "with id 8f3a2c").
var idIntroducer = wordSet(`id ids number no num uuid`)

// number reports whether a word is a number ("42", "#42", "1.5"; not
// "...").
func number(w string) bool {
	digit := false
	for _, r := range strings.TrimPrefix(w, "#") {
		switch {
		case unicode.IsDigit(r):
			digit = true
		case r != '.' && r != ',':
			return false
		}
	}
	return digit
}

// nameShaped reports whether the word after an introducer is a name
// rather than a word: quoted, capitalised, or with anything but letters in
// it ("release-2024", "Hello", "'general'"). "named entities" and "the
// hook called when" go on being words.
func nameShaped(f string) bool {
	if _, ok := opensQuote(f); ok {
		return true
	}
	f = strings.TrimRight(f, ".,;:!?)")
	for i, r := range f {
		if !unicode.IsLetter(r) || i == 0 && unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

// valueShaped reports whether a word is shaped like a value rather than a
// word: an identifier, a number, an address.
func valueShaped(w string) bool {
	if w == "" {
		return false
	}
	if strings.Contains(w, "://") || strings.HasPrefix(w, "/") && strings.Count(w, "/") > 1 ||
		strings.Contains(w, "@") && strings.Contains(w[strings.Index(w, "@"):], ".") {
		return true
	}
	w = strings.TrimPrefix(w, "#")
	digits, run, longest, changes := 0, 0, 0, 0
	last := 0 // 1 letter, 2 digit
	for _, r := range w {
		kind := 0
		switch {
		case unicode.IsDigit(r):
			kind = 2
			digits++
			run++
			longest = max(longest, run)
		case unicode.IsLetter(r):
			kind = 1
			run = 0
		default:
			run = 0
		}
		if kind != 0 {
			if last != 0 && kind != last {
				changes++
			}
			last = kind
		}
	}
	// A number alone stays: it matches no tool by accident, and it may
	// be what the tool is about ("404 errors", "the last 24 hours").
	return changes >= 3 || longest >= 4 && digits < len(w)
}
