package findtool

import (
	"strings"

	"github.com/codemode-dev/codemode/ir"
)

// service is one indexed service.
type service struct {
	name ir.ServiceName
	// terms are the distinctive words of its name: "github_rest" →
	// github, rest; words most services' names share ("mcp", "server")
	// are left out.
	terms map[string]bool
	// df counts its tools that have each term; tools is how many it has.
	df    map[string]int
	tools int
}

// affinity is how much each service's tools share the query's terms: the
// sum over the terms of their IDF times the share of the service's tools
// that have them (smoothed, so a one-tool service is no certainty), and the
// largest such value.
func (x *Index) affinity(terms []string) ([]float64, float64) {
	out := make([]float64, len(x.services))
	top := 0.0
	for i, s := range x.services {
		for _, w := range terms {
			out[i] += x.idf[w] * float64(s.df[w]) / float64(s.tools+affinitySmoothing)
		}
		top = max(top, out[i])
	}
	return out, top
}

// affinitySmoothing is added to a service's tool count in affinity.
const affinitySmoothing = 5

func (x *Index) serviceIndex(name ir.ServiceName) int32 {
	for i := len(x.services) - 1; i >= 0; i-- {
		if x.services[i].name == name {
			return int32(i)
		}
	}
	x.services = append(x.services, service{name: name})
	return int32(len(x.services) - 1)
}

// serviceTerms fills each service's distinctive name words: a word in the
// names of more than a quarter of the services (and more than two) says
// nothing about which one a query means.
func (x *Index) serviceTerms() {
	df := map[string]int{}
	names := make([][]string, len(x.services))
	for i, s := range x.services {
		names[i] = tokenize(string(s.name))
		seen := map[string]bool{}
		for _, w := range names[i] {
			if !seen[w] {
				seen[w] = true
				df[w]++
			}
		}
	}
	limit := max(2, len(x.services)/4)
	for i := range x.services {
		x.services[i].terms = map[string]bool{}
		for _, w := range names[i] {
			if df[w] <= limit {
				x.services[i].terms[w] = true
			}
		}
	}
}

// serviceTerm reports whether a search term is a distinctive name word of
// a service.
func (x *Index) serviceTerm(w string) bool {
	for _, s := range x.services {
		if s.terms[w] {
			return true
		}
	}
	return false
}

// namedServices is which services a query names: those with a
// distinctive name word among the query's terms ("... on github").
func (x *Index) namedServices(terms []string) map[int32]bool {
	var out map[int32]bool
	for i, s := range x.services {
		for _, w := range terms {
			if s.terms[w] {
				if out == nil {
					out = map[int32]bool{}
				}
				out[int32(i)] = true
			}
		}
	}
	return out
}

// countPhrases counts, by their initials, the two- and three-word phrases
// of text (names split as usual), for acronyms.
func countPhrases(into map[string]map[string]int, texts ...string) {
	for _, text := range texts {
		ws := words(text, false)
		for i := range ws {
			for n := 2; n <= 3 && i+n <= len(ws); n++ {
				phrase := ws[i : i+n]
				ok := true
				var ini strings.Builder
				for _, w := range phrase {
					if len(w) < 2 || stopWords[w] || !isAlpha(w) {
						ok = false
						break
					}
					ini.WriteByte(w[0])
				}
				if !ok {
					continue
				}
				k := ini.String()
				if into[k] == nil {
					into[k] = map[string]int{}
				}
				stems := make([]string, len(phrase))
				for j, w := range phrase {
					stems[j] = stem(w)
				}
				into[k][strings.Join(stems, " ")]++
			}
		}
	}
}

// acronyms keeps, for each set of initials, the phrase they most often
// stand for, when it is common (at least minAcronym times), at least a
// third of the phrases with those initials and half again as common as the
// next one.
func acronyms(phrases map[string]map[string]int) map[string][]string {
	out := map[string][]string{}
	for ini, ps := range phrases {
		best, bestN, second, total := "", 0, 0, 0
		for p, n := range ps {
			total += n
			switch {
			case n > bestN || (n == bestN && p < best):
				best, bestN, second = p, n, bestN
			case n > second:
				second = n
			}
		}
		if bestN < minAcronym || 3*bestN < total || 2*bestN < 3*second {
			continue
		}
		out[ini] = strings.Fields(best)
	}
	return out
}

// minAcronym is how often a phrase must occur for its initials to stand for
// it.
const minAcronym = 5
