package findtool

import (
	"strings"
	"sync"
	"unicode"

	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/english"
)

// stopWords carry no meaning in a tool search ("search THE web"). Question
// words are here too: their intent is read before they are dropped
// (queryAction).
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the of to in on for and or is are be by with this that these those
		it its as at me my i you your we our us they them their he she his her him into from if not can
		will would could should may might must shall which when what how who whom whose where why do does
		did done some any all every each please want need am was were been being has have had so then than
		too very just also about once yet up out there here let like now again someone somebody something
		thing things using use via`) {
		stopWords[w] = true
	}
}

// words splits s into lower-case words: on every rune that is not a letter
// or digit, and inside words at camelCase boundaries ("getHTTPResponse" →
// get, http, response). With joins, the parts of one camelCase word are
// also given joined two by two ("StatefulSet" → stateful, set, statefulset;
// "ConfigMap" → configmap; a one-letter word joins nothing), so a
// query that writes the compound as one word meets a name that spells it in
// parts.
func words(s string, joins bool) []string {
	var out []string
	rs := []rune(s)
	start := -1
	var run []string // camelCase parts of the current alphanumeric run
	endRun := func() {
		if joins && len(run) > 1 {
			for i := 0; i+1 < len(run); i++ {
				if isAlpha(run[i]) && isAlpha(run[i+1]) && joinable(run[i]) && joinable(run[i+1]) {
					out = append(out, run[i]+run[i+1])
				}
			}
		}
		run = run[:0]
	}
	flush := func(end int) {
		if start < 0 {
			return
		}
		w := strings.ToLower(string(rs[start:end]))
		start = -1
		out = append(out, w)
		run = append(run, w)
	}
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush(i)
			endRun()
			continue
		}
		if start >= 0 && unicode.IsUpper(r) {
			prev := rs[i-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				flush(i)
			}
		}
		if start < 0 {
			start = i
		}
	}
	flush(len(rs))
	endRun()
	return out
}

func isAlpha(w string) bool {
	for _, r := range w {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

// term is the search term of one lower-case word, "" for none: stop words
// and one-letter words are dropped, the rest stemmed with the Snowball
// English (Porter2) stemmer ("issues" and "issue" → issu, "listing" → list,
// "protection" → protect).
func term(w string) string {
	if len(w) < 2 && !(len(w) == 1 && w[0] >= '0' && w[0] <= '9') {
		return ""
	}
	if stopWords[w] {
		return ""
	}
	return stem(w)
}

// stems caches stem: catalogues repeat their words thousands of times.
var stems sync.Map

// stem is w's Snowball English stem, of its American spelling.
func stem(w string) string {
	if len(w) < 3 {
		return w
	}
	if s, ok := stems.Load(w); ok {
		return s.(string)
	}
	env := snowballstem.NewEnv(american(w))
	english.Stem(env)
	s := env.Current()
	stems.Store(w, s)
	return s
}

// tokenize is the search terms of text.
func tokenize(s string) []string { return analyze(words(s, false)) }

// tokenizeName is the search terms of a name or identifier, with the joined
// camelCase parts (see words).
func tokenizeName(s string) []string { return analyze(words(s, true)) }

func analyze(ws []string) []string {
	out := ws[:0]
	for _, w := range ws {
		if t := term(w); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// synonyms maps a verb people say to the verbs API names use for it.
var synonyms = map[string][]string{
	"open": {"create"}, "make": {"create"}, "new": {"create"},
	"remove": {"delete"}, "destroy": {"delete"}, "erase": {"delete"}, "drop": {"delete"},
	"fetch": {"get"}, "retrieve": {"get"}, "read": {"get"}, "show": {"get", "list"}, "view": {"get"},
	"find": {"search"}, "lookup": {"search", "get"},
	"edit": {"update"}, "change": {"update"}, "modify": {"update"}, "rename": {"update"},
	"enumerate": {"list"}, "browse": {"list"},
}

// stemmedSynonyms is synonyms over search terms.
var stemmedSynonyms = map[string][]string{}

func init() {
	for k, vs := range synonyms {
		for _, v := range vs {
			stemmedSynonyms[stem(k)] = append(stemmedSynonyms[stem(k)], stem(v))
		}
	}
}

// synonymWeight is how much a synonym counts against the word itself.
const synonymWeight = 0.6

// joinable reports whether a word may be joined to its neighbour (see
// words): not a single letter ("deleteADevice" gives no "deletea"; "log
// in" still meets login).
func joinable(w string) bool { return len(w) > 1 }
