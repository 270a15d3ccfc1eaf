package findtool

import (
	"strings"

	"github.com/codemode-dev/codemode/ir"
)

// action is what a tool does to what it names, or what a query asks for.
type action uint8

const (
	actNone action = iota
	actCreate
	actRead
	actUpdate
	actDelete
)

// verbActions are English verbs (and question words) by the action they
// ask for. A query's first such word is its intent; a tool's is the first
// such word of its name, else its HTTP method, else its read-only hint.
var verbActions = map[string]action{}

func init() {
	for act, ws := range map[action]string{
		actCreate: `create add new make open post insert register publish start file write save submit
			book place generate upload put send launch spawn build compose draft invite attach append`,
		actRead: `get list read fetch retrieve show view find search lookup look query describe browse
			enumerate download check inspect see display which what who where whose how count many`,
		actUpdate: `update edit change modify rename set patch replace move configure adjust toggle enable
			disable rotate reset`,
		actDelete: `delete remove destroy erase drop forget purge clear unregister uninstall revoke
			detach discard wipe`,
	} {
		for _, w := range strings.Fields(ws) {
			verbActions[w] = act
		}
	}
}

// nounToo are verbs that are as often nouns ("read a file", "a new
// post"): they give a query's intent only as its first word.
var nounToo = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`file post book place list search set view check count start draft issue
		open new build query patch download upload send display order log record note watch`) {
		nounToo[w] = true
	}
}

// queryAction is the intent of a query: the action of its first word when
// that is a verb, else of its first verb that is not also a noun. A first
// word that is a verb in another form ("creates an issue", "generating a
// report": what is left of "a tool that creates an issue" and "a function
// for generating a report" once the frame is dropped) counts as the verb,
// unless the verb is as often a noun ("files", "posts"). Past the first
// word such a form is mostly a noun ("watch a page for changes"), and -ed
// forms mostly adjectives ("deleted files"): they give no intent.
func queryAction(q string) action {
	for i, w := range words(q, false) {
		a := verbActions[w]
		if a != actNone && (i == 0 || !nounToo[w]) {
			return a
		}
		if a == actNone && i == 0 {
			if a := inflectedActions[stem(w)]; a != actNone && inflected(w) {
				return a
			}
		}
	}
	return actNone
}

// inflectedActions are verbActions by stem, without the verbs that are as
// often nouns and the question words; a stem two actions' verbs share
// gives none (actNone), whatever order the verbs are met in.
var inflectedActions = map[string]action{}

func init() {
	for w, a := range verbActions {
		if nounToo[w] || stopWords[w] || len(w) <= 3 {
			continue
		}
		if had, ok := inflectedActions[stem(w)]; ok && had != a {
			a = actNone
		}
		inflectedActions[stem(w)] = a
	}
}

// inflected reports whether a word has a verb's ending: -s, -es, -ing
// (not -ings: "bookings", "meetings" are nouns).
func inflected(w string) bool {
	return !strings.HasSuffix(w, "ings") && (strings.HasSuffix(w, "s") || strings.HasSuffix(w, "ing"))
}

// pluralObject reports whether a query asks about several things: a word
// of it past the first is a plural ("open pull requests", "alerts").
func pluralObject(q string) bool {
	for i, w := range words(q, false) {
		if i > 0 && plural(w) {
			return true
		}
	}
	return false
}

// plural reports whether a lower-case word looks like an English plural.
func plural(w string) bool {
	return len(w) > 3 && isAlpha(w) && !stopWords[w] && strings.HasSuffix(w, "s") &&
		!strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is") && stem(w) != w
}

// collection reports whether a reading tool gives many things: a GET of a
// path that does not end in a parameter, or, with no HTTP operation, a name
// that lists or searches or names a plural.
func collection(t *ir.Tool) bool {
	if t.HTTP != nil && t.HTTP.Method == "GET" {
		return !strings.HasSuffix(t.HTTP.Path, "}")
	}
	for _, w := range words(string(t.Wire), false) {
		if w == "list" || w == "search" || w == "query" || w == "find" || plural(w) {
			return true
		}
	}
	return false
}

// toolAction is what a tool does: an OpenAPI operation's HTTP method (POST
// to a path that ends in a parameter updates it), else the first verb of
// its name, else read when it is marked read-only.
func toolAction(t *ir.Tool) action {
	if t.HTTP != nil {
		switch t.HTTP.Method {
		case "GET", "HEAD":
			return actRead
		case "PUT", "PATCH":
			return actUpdate
		case "DELETE":
			return actDelete
		case "POST":
			if strings.HasSuffix(t.HTTP.Path, "}") {
				return actUpdate
			}
			return actCreate
		}
	}
	for _, w := range words(string(t.Wire), false) {
		if a := verbActions[w]; a != actNone {
			return a
		}
	}
	if t.Annotations.ReadOnly {
		return actRead
	}
	return actNone
}

// denominalVerb is the search term of a verb that no action's list has,
// said of a thing, in a query with no intent (intent is queryAction's):
// the first word of one of its sentences, of four letters or more, that a
// determiner follows ("silence an alert", "protect the main branch"; "The
// on-call engineer asked me. Silence the alert"). A first word followed
// by anything else is mostly a noun ("replies to a thread", "commit
// history of a branch"). "" when there is none.
func denominalVerb(q string, intent action) string {
	if intent != actNone {
		return ""
	}
	for _, s := range splitSentences(q) {
		ws := words(s, false)
		if len(ws) >= 2 && len(ws[0]) >= 4 && isAlpha(ws[0]) && !stopWords[ws[0]] && determiners[ws[1]] {
			return term(ws[0])
		}
	}
	return ""
}

// determiners are the words that open a noun phrase: a word before one
// is a verb.
var determiners = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the my our your this that these those its their his her all every each some any both`) {
		determiners[w] = true
	}
}

// nameHead is the search term of the first word of a tool's wire name.
func nameHead(t *ir.Tool) string {
	if ws := words(string(t.Wire), false); len(ws) > 0 {
		return term(ws[0])
	}
	return ""
}

// nameVerb is the search term of the first verb of a tool's wire name
// ("create" of create_or_update_file), "" for none.
func nameVerb(t *ir.Tool) string {
	for _, w := range words(string(t.Wire), false) {
		if verbActions[w] != actNone {
			return term(w)
		}
	}
	return ""
}
