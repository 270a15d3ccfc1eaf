package findtool

import (
	"strings"
	"unicode"
)

// stopWords carry no meaning in a tool search ("search THE web").
var stopWords = map[string]bool{
	"a": true, "an": true, "the": true, "of": true, "to": true, "in": true, "on": true,
	"for": true, "and": true, "or": true, "is": true, "are": true, "be": true, "by": true,
	"with": true, "this": true, "that": true, "it": true, "its": true, "as": true, "at": true,
	"me": true, "my": true, "i": true, "you": true, "your": true, "we": true, "our": true,
	"into": true, "from": true, "if": true, "not": true, "can": true, "will": true,
	"should": true, "which": true, "when": true, "what": true, "how": true, "do": true,
	"does": true, "some": true, "any": true, "please": true, "want": true, "need": true,
}

// tokenize splits text into search terms: on every rune that is not a
// letter or digit, and inside words at camelCase boundaries
// ("getHTTPResponse" → get, http, response); lower case; stop words and
// one-letter words dropped; plurals stemmed.
func tokenize(s string) []string {
	var out []string
	rs := []rune(s)
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		w := strings.ToLower(string(rs[start:end]))
		start = -1
		if len(w) < 2 && !(len(w) == 1 && w[0] >= '0' && w[0] <= '9') {
			return
		}
		if stopWords[w] {
			return
		}
		out = append(out, stem(w))
	}
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush(i)
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
	return out
}

// keepS are words whose final s is not a plural.
var keepS = map[string]bool{
	"news": true, "series": true, "species": true, "always": true, "perhaps": true,
	"yes": true, "alias": true, "canvas": true, "atlas": true, "bias": true, "gas": true,
	"lens": true, "https": true, "ios": true, "macos": true, "dns": true, "aws": true,
}

// stem removes plural endings: issues → issue, entities → entity,
// searches → search, addresses → address. Words in -ss, -us and -is keep
// their s (class, status, analysis).
func stem(w string) string {
	if keepS[w] {
		return w
	}
	n := len(w)
	switch {
	case n > 4 && strings.HasSuffix(w, "ies"):
		return w[:n-3] + "y"
	case n > 4 && strings.HasSuffix(w, "sses"):
		return w[:n-2]
	case n > 4 && (strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes") || strings.HasSuffix(w, "xes")):
		return w[:n-2]
	case n > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") &&
		!strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		return w[:n-1]
	}
	return w
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

// synonymWeight is how much a synonym counts against the word itself.
const synonymWeight = 0.6
