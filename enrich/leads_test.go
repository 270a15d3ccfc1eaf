package enrich

import (
	"reflect"
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
		if p.lead == nil {
			continue
		}
		with++
		for _, s := range texts {
			checkLeads(t, p, s)
		}
	}
	t.Logf("%d of %d patterns have leads; %d texts", with, len(patterns), len(texts))
	if enumIntroRe.lead == nil {
		t.Errorf("enumIntroRe has no leads")
	}
}

// TestLeadsSeeTheCharacterBefore: a match's leading \b is decided by the
// character before it, which the anchored regexp is given.
func TestLeadsSeeTheCharacterBefore(t *testing.T) {
	p := mustCompile(`(?i)\b(?:one of|must be)\s+(\w+)`)
	q := mustCompile(`(?:is |be )?one of`)
	patterns = patterns[:len(patterns)-2]
	if p.lead == nil || q.lead == nil {
		t.Fatalf("no leads: %v %v", p.lead, q.lead)
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
			if p.lead != nil {
				checkLeads(t, p, s)
			}
		}
	})
}
