package findtool

import (
	_ "embed"
	"strconv"
	"strings"
	"sync"
)

// assocText is the table of word associations learned from real APIs by
// findtool/internal/assocgen (its header says from what, and what was left
// out): a summary term, then the name terms it predicts, each with
// P(name term | summary term) by IBM model 1.
//
//go:embed assoc.txt
var assocText string

type association struct {
	term string
	p    float64
}

var (
	assocOnce  sync.Once
	assocTable map[string][]association
)

// associations is the table, parsed once.
func associations() map[string][]association {
	assocOnce.Do(func() { assocTable = parseAssociations(assocText) })
	return assocTable
}

// parseAssociations reads the table's lines ("term\tname p\tname p");
// comment lines start with "#".
func parseAssociations(s string) map[string][]association {
	out := map[string][]association{}
	for _, line := range strings.Split(s, "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		fs := strings.Split(line, "\t")
		for _, f := range fs[1:] {
			t, ps, ok := strings.Cut(f, " ")
			p, err := strconv.ParseFloat(ps, 64)
			if !ok || err != nil || t == "" {
				continue
			}
			out[fs[0]] = append(out[fs[0]], association{t, p})
		}
	}
	return out
}

// assocWeight is how much a learned association counts against the word
// itself.
const assocWeight = 0.3
