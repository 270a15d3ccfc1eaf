package findtool

import (
	_ "embed"
	"strings"
	"sync"
)

// spellingText is the table of British spellings and their American ones
// (scripts/spellgen writes it from the npm package
// american-british-english-translator).
//
//go:embed spelling.txt
var spellingText string

var (
	spellingOnce  sync.Once
	spellingTable map[string]string
)

// american is w, a lower-case word, as American English spells it, when
// it is a British spelling of the table ("organisation" → organization,
// "authorised" → authorized, "colour" → color, "catalogue" → catalog,
// "centre" → center, "licence" → license); else w. The stemmer does not
// join the two ("organisation" and "organization" stem to organis and
// organ), and APIs and agents spell either way (Adyen writes
// "authorise"). Only the table's words are rewritten, so a word spelt the
// same way in both ("advertise", "precise") keeps its stem and meets its
// other forms ("advertisement", "precision").
func american(w string) string {
	spellingOnce.Do(func() {
		spellingTable = map[string]string{}
		for _, line := range strings.Split(spellingText, "\n") {
			if b, a, ok := strings.Cut(line, "\t"); ok && line[0] != '#' {
				spellingTable[b] = a
			}
		}
	})
	if a, ok := spellingTable[w]; ok {
		return a
	}
	return w
}
