package enrich

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// checkLeads fails when a pattern's leads find other matches in s than
// its regexp does (all of them, the first two, the first, whether there
// is one).
func checkLeads(t *testing.T, p *pattern, s string) {
	t.Helper()
	if got, want := p.FindAllStringSubmatchIndex(s, -1), p.Regexp.FindAllStringSubmatchIndex(s, -1); !reflect.DeepEqual(got, want) {
		t.Fatalf("%s on %q: leads find %v, the regexp %v", p, s, got, want)
	}
	if got, want := p.FindStringSubmatch(s), p.Regexp.FindStringSubmatch(s); !reflect.DeepEqual(got, want) {
		t.Fatalf("%s on %q: leads find first %q, the regexp %q", p, s, got, want)
	}
	if got, want := p.FindAllStringIndex(s, 2), p.Regexp.FindAllStringIndex(s, 2); !reflect.DeepEqual(got, want) {
		t.Fatalf("%s on %q: leads find the first two at %v, the regexp %v", p, s, got, want)
	}
	if got, want := p.FindString(s), p.Regexp.FindString(s); got != want {
		t.Fatalf("%s on %q: leads find %q first, the regexp %q", p, s, got, want)
	}
	if got, want := p.MatchString(s), p.Regexp.MatchString(s); got != want {
		t.Fatalf("%s on %q: leads match %v, the regexp %v", p, s, got, want)
	}
}

// TestLeadsFindWhatTheRegexpFinds: over every labelled description in
// ASCII, a third of them in capitals, and their pieces, every pattern with leads finds the matches
// its regexp finds, with the same groups; and the long alternations the
// rules run most have leads.
func TestLeadsFindWhatTheRegexpFinds(t *testing.T) {
	// The texts past ASCII are the regexp's own (see scan).
	var texts []string
	for i, s := range prefilterTexts(t) {
		if isASCII(s) {
			texts = append(texts, s)
			if i%3 == 0 {
				texts = append(texts, strings.ToUpper(s))
			}
		}
	}
	with := 0
	for _, p := range patterns {
		if p.leads() == nil {
			continue
		}
		with++
		for _, s := range texts {
			checkLeads(t, p, s)
		}
	}
	t.Logf("%d of %d patterns have leads; %d texts", with, len(patterns), len(texts))
	if enumIntroRe.leads() == nil {
		t.Errorf("enumIntroRe has no leads")
	}
}

// TestLeadsSeeTheCharacterBefore: a match's leading \b is decided by the
// character before it, which the anchored regexp is given.
func TestLeadsSeeTheCharacterBefore(t *testing.T) {
	p := mustCompile(`(?i)\b(?:one of|must be)\s+(\w+)`)
	q := mustCompile(`(?:is |be )?one of`)
	patterns = patterns[:len(patterns)-2]
	if p.leads() == nil || q.leads() == nil {
		t.Fatalf("no leads: %v %v", p.leads(), q.leads())
	}
	for _, s := range []string{
		"someone of them", "one of a", "xone of b, must be c", "Must Be x; MUST BEy", "be one of these, is one of those",
		"must be", "a must  be\tb must be c", "done of, one ofx one of y",
	} {
		checkLeads(t, p, s)
		checkLeads(t, q, s)
	}
}

// FuzzLeads: on any text, the patterns with leads find what their
// regexps find.
func FuzzLeads(f *testing.F) {
	f.Add("Must be one of: a, b. Defaults to `x`. Valid values are 1-3.")
	f.Add("the following are supported: json, yaml")
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range patterns {
			if p.leads() != nil {
				checkLeads(t, p, s)
			}
		}
	})
}

// TestLeadsFindWhatTheRegexpFindsHeldApart: the same over descriptions
// the rules were never written against, every eighth in ASCII of the
// held-apart catalogues (testdata/heldapart, in their order).
func TestLeadsFindWhatTheRegexpFindsHeldApart(t *testing.T) {
	if testing.Short() {
		t.Skip("thousands of descriptions")
	}
	files, _ := filepath.Glob("../testdata/heldapart/*/*.json")
	seen := map[string]bool{}
	var texts []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				if d, ok := x[k].(string); ok && k == "description" {
					if !seen[d] && isASCII(d) {
						seen[d] = true
						if len(seen)%8 == 0 {
							texts = append(texts, d)
						}
					}
					continue
				}
				walk(x[k])
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	for _, f := range files {
		if strings.HasSuffix(f, ".source.json") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc any
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		walk(doc)
	}
	if len(texts) < 1500 {
		t.Fatalf("%d held-apart descriptions", len(texts))
	}
	for _, p := range patterns {
		if p.leads() != nil {
			for _, s := range texts {
				checkLeads(t, p, s)
			}
		}
	}
	t.Logf("%d held-apart descriptions", len(texts))
}
