package enrich

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"slices"
)

// This file spares a pattern's regexp the walk over every byte of a text
// (the Go engines have no literal prefilter for an alternation or a
// (?i) pattern, and the enum and default rules' patterns are long
// alternations of phrases): where every match starts with one of a few
// literals, the places a literal stands are found by a search of the
// folded text, and the regexp, anchored, is tried only there, in order.
// The matches are the ones the regexp finds by itself: leftmost first,
// each then the one its priorities pick at that place, the next search
// from the end of the last. Texts with a byte past ASCII (whose fold is
// not aligned with them, and where (?i) matches k and s as the Kelvin
// sign and the long s) are left to the regexp.

// minLead is the shortest literal worth a search: a single letter stands
// almost everywhere.
const minLead = 2

// leadsOf returns the literals (folded) every match of re starts with,
// and false when there are none to name (a match may be empty, or start
// with a wide class).
func leadsOf(re *syntax.Regexp) ([]string, bool) {
	switch re.Op {
	case syntax.OpCapture, syntax.OpPlus:
		return leadsOf(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return leadsOf(re.Sub[0])
		}
		return nil, false
	case syntax.OpConcat:
		return leadsOfConcat(re.Sub)
	case syntax.OpAlternate:
		var all []string
		for _, s := range re.Sub {
			l, ok := leadsOf(s)
			if !ok {
				return nil, false
			}
			if all, ok = shorten(append(all, l...)); !ok {
				return nil, false
			}
		}
		return all, true
	}
	e, ok := exact(re)
	if !ok || slices.Contains(e, "") {
		return nil, false
	}
	return e, true
}

// leadsOfConcat is leadsOf for a concatenation of subs: the strings its
// first parts spell, as long as each is one of a few (empty-width
// assertions spell ""), and where one of them may still be empty the
// literals of the part that follows.
func leadsOfConcat(subs []*syntax.Regexp) ([]string, bool) {
	acc := []string{""}
	for _, s := range subs {
		if e, ok := exact(s); ok {
			p, ok := product(acc, e)
			if !ok {
				break
			}
			acc = p
			continue
		}
		if !slices.Contains(acc, "") {
			break
		}
		l, ok := leadsOf(s)
		if !ok {
			return nil, false
		}
		acc = slices.DeleteFunc(acc, func(x string) bool { return x == "" })
		var fits bool
		if acc, fits = shorten(append(acc, l...)); !fits {
			return nil, false
		}
		break
	}
	if slices.Contains(acc, "") {
		return nil, false
	}
	return acc, true
}

// shorten is ls once each, cut shorter (each cut is what its string
// starts with, so it stands wherever the string does) until there are
// maxExact or fewer; false when that would take them below minLead.
func shorten(ls []string) ([]string, bool) {
	for {
		var out []string
		longest := 0
		for _, s := range ls {
			if !slices.Contains(out, s) {
				out = append(out, s)
				longest = max(longest, len(s))
			}
		}
		if len(out) <= maxExact {
			return out, true
		}
		if longest-1 < minLead {
			return nil, false
		}
		for i, s := range out {
			out[i] = s[:min(len(s), longest-1)]
		}
		ls = out
	}
}

// leads is a pattern's literals and its regexp anchored, alone (at the
// text's start) and after one character (elsewhere, so an assertion at
// the match's start sees the character before it).
type leads struct {
	lits       [][]byte // folded, minLead bytes or more
	at, inText *regexp.Regexp
}

// newLeads returns expr's leads, or nil when its matches do not start
// with a few literals of minLead ASCII bytes or more.
func newLeads(expr string, re *syntax.Regexp) *leads {
	ls, ok := leadsOf(re)
	if !ok {
		return nil
	}
	l := &leads{}
	for _, s := range minimalPrefixes(ls) {
		if len(s) < minLead || !isASCII(s) {
			return nil
		}
		l.lits = append(l.lits, []byte(s))
	}
	l.at = regexp.MustCompile(`\A(?:` + expr + `)`)
	l.inText = regexp.MustCompile(`\A(?s:.)(?:` + expr + `)`)
	return l
}

// minimalPrefixes drops each string another of ls starts (the places of
// the shorter are the places of both).
func minimalPrefixes(ls []string) []string {
	var out []string
	for _, s := range ls {
		if !slices.ContainsFunc(ls, func(o string) bool { return o != s && len(o) < len(s) && s[:len(o)] == o }) && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// places appends to at, in order and once each, where in fold one of the
// literals stands.
func (l *leads) places(at []int, fold []byte) []int {
	for _, lit := range l.lits {
		for i := 0; ; {
			j := bytes.Index(fold[i:], lit)
			if j < 0 {
				break
			}
			at = append(at, i+j)
			i += j + 1
		}
	}
	slices.Sort(at)
	return slices.Compact(at)
}

// matchAt is the submatch indexes (in s) of the match the regexp finds
// starting at i, or nil.
func (l *leads) matchAt(s string, i int) []int {
	if i == 0 {
		return l.at.FindStringSubmatchIndex(s)
	}
	// s is ASCII: the character before i is one byte.
	m := l.inText.FindStringSubmatchIndex(s[i-1:])
	for k := range m {
		if m[k] >= 0 {
			m[k] += i - 1
		}
	}
	if m != nil {
		m[0] = i // the whole match, without the character before it
	}
	return m
}
