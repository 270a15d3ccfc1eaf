package enrich

import (
	"path/filepath"
	"strings"
	"testing"
)

// prefilterTexts are the descriptions of every labelled set (the texts
// the rules were written against), each also with the letters k and s
// spelled as the Kelvin sign and the long s (which (?i) matches), and as the 60 bytes after every third space (the rules run
// anchored patterns on what follows a match). The goldens cover the rest
// of the corpus end to end.
func prefilterTexts(t *testing.T) []string {
	t.Helper()
	var labelled []string
	labels, _ := filepath.Glob("testdata/*.jsonl")
	for _, path := range append(labels, corpusLabels) {
		for _, r := range readLabels(t, path) {
			labelled = append(labelled, r.Description)
		}
	}
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	odd := strings.NewReplacer("k", "\u212a", "s", "\u017f", "K", "\u212a")
	for _, d := range labelled {
		add(d)
		add(odd.Replace(d))
		n := 0
		for i := 0; i < len(d); i++ {
			if d[i] == ' ' {
				if n++; n%3 == 0 {
					add(d[i+1 : min(len(d), i+61)])
				}
			}
		}
	}
	return out
}

// TestPrefilterKeepsEveryMatch: a pattern's prefilter never turns away a
// text its regexp matches, over every labelled description, its case
// variants and pieces; and most patterns (but those tried at the text's
// start alone) have a prefilter.
func TestPrefilterKeepsEveryMatch(t *testing.T) {
	texts := prefilterTexts(t)
	filtered, skipped := 0, 0
	for _, p := range patterns {
		if p.need == nil {
			continue
		}
		filtered++
		for _, s := range texts {
			if p.may(s) {
				continue
			}
			skipped++
			if p.Regexp.MatchString(s) {
				t.Errorf("%s (needs %q) turned away %q, which it matches", p, p.need, s)
			}
		}
	}
	anchored := 0
	for _, p := range patterns {
		if p.anchored {
			anchored++
		}
	}
	t.Logf("%d patterns, %d tried at the start alone, %d with a prefilter; %d texts; %d pattern runs skipped", len(patterns), anchored, filtered, len(texts), skipped)
	if filtered < (len(patterns)-anchored)*3/4 {
		t.Errorf("only %d of %d patterns not tried at the start alone have a prefilter", filtered, len(patterns)-anchored)
	}
}

// TestPrefilterFold: fold makes the letters (?i) treats as one the same,
// and leaves what it does not alone.
func TestPrefilterFold(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Max k s", "MAX K S"},
		{"\u212a\u017f", "KS"},
		{"≤ é É", "≤ É É"},
		{"\xff", "\ufffd"},
	} {
		if got := fold(c.in); got != c.want {
			t.Errorf("fold(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	p := mustCompile(`(?i)\bdefaults?\s+to\s+`)
	patterns = patterns[:len(patterns)-1]
	if got := p.need; len(got) != 1 || got[0] != "DEFAULT" {
		t.Errorf("needs %q, want [DEFAULT]", got)
	}
	for s, want := range map[string]bool{"Defaults to 3": true, "DEFAULT TO x": true, "de\u017fault to": false, "no default here": false} {
		if got := p.MatchString(s); got != want || got != p.Regexp.MatchString(s) {
			t.Errorf("MatchString(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestPrefilterNeedsEveryPart: a pattern turns away a text that lacks any
// part a match needs (each part of a concatenation, one of each
// alternation branch's parts), not only its most selective part, and
// still runs on every text it matches.
func TestPrefilterNeedsEveryPart(t *testing.T) {
	p := mustCompile(`(?i)\bdefault\s*[:=]\s*(\d+)`)
	q := mustCompile(`(?i)\b(?:if|when) not (?:set|given)\b|\bunless (?:it is )?given\b`)
	// A run of parts that each match a few strings needs one of their
	// concatenations ("is a url"), not only "UR" and then a letter.
	r := mustCompile(`(?i)\bis an? (?:valid )?(?:URL|URI)\b`)
	patterns = patterns[:len(patterns)-3]
	for _, c := range []struct {
		p    *pattern
		s    string
		want bool // may
	}{
		{p, "Default: 30", true},
		{p, "default is 30", false},   // no : or =
		{p, "Default: thirty", false}, // no digit
		{p, "the 30 defaults", false},
		{q, "If not set, 3.", true},
		{q, "Used unless given.", true},
		{q, "If set, 3.", false},      // no "not"
		{q, "Not given here.", false}, // no if, when or unless
		{q, "When the default is set.", false},
		{r, "It is a valid URL.", true},
		{r, "This is an uri", true},
		{r, "This is a URN, during return", false},
		{r, "The URL, which is a string", false}, // no "is a url"
	} {
		if got := c.p.may(c.s); got != c.want {
			t.Errorf("%s: may(%q) = %v, want %v", c.p, c.s, got, c.want)
		}
		if c.p.Regexp.MatchString(c.s) && !c.p.MatchString(c.s) {
			t.Errorf("%s turned away %q, which it matches", c.p, c.s)
		}
	}
	if len(p.all) < 3 {
		t.Errorf("%s: %d sets, want DEFAULT, [:=] and a digit", p, len(p.all))
	}
}
