package enrich

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"slices"
	"sync"
	"unicode"
	"unicode/utf8"
)

// A pattern is a compiled regexp with a prefilter: literals one of which
// every match contains (compared with case folded away), found in the
// regexp's syntax tree when it is compiled. Its Match and Find methods run
// the regexp only on a text that contains one of them, so a description
// with none of a rule's words costs a few substring searches instead of a
// backtracking run, and every result is the regexp's own.
type pattern struct {
	*regexp.Regexp
	need  []string // folded (see fold); nil: no prefilter, always run
	needB [][]byte // need as bytes
}

// patterns is every pattern compiled, for the prefilter's tests.
var patterns []*pattern

// mustCompile is regexp.MustCompile with a prefilter.
func mustCompile(expr string) *pattern {
	p := &pattern{Regexp: regexp.MustCompile(expr)}
	if re, err := syntax.Parse(expr, syntax.Perl); err == nil {
		if need, ok := needs(re); ok && !slices.Contains(need, "") {
			p.need = need
			for _, l := range need {
				p.needB = append(p.needB, []byte(l))
			}
		}
	}
	patterns = append(patterns, p)
	return p
}

// needs returns literals (folded) one of which every match of re
// contains, and false when there are none to require.
func needs(re *syntax.Regexp) ([]string, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		if len(re.Rune) == 0 {
			return nil, false
		}
		return []string{fold(string(re.Rune))}, true
	case syntax.OpCharClass:
		// A small class: one of its characters.
		var out []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i+1]-re.Rune[i] > 8 || len(out) > 12 {
				return nil, false
			}
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				if l := fold(string(r)); !slices.Contains(out, l) {
					out = append(out, l)
				}
			}
		}
		return out, len(out) > 0
	case syntax.OpCapture, syntax.OpPlus:
		return needs(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return needs(re.Sub[0])
		}
	case syntax.OpConcat:
		var best []string
		ok := false
		for _, s := range re.Sub {
			if n, o := needs(s); o && (!ok || better(n, best)) {
				best, ok = n, true
			}
		}
		return best, ok
	case syntax.OpAlternate:
		var all []string
		for _, s := range re.Sub {
			n, o := needs(s)
			if !o {
				return nil, false
			}
			for _, l := range n {
				if !slices.Contains(all, l) {
					all = append(all, l)
				}
			}
		}
		return all, len(all) > 0
	}
	return nil, false
}

// better says whether the set of literals a filters more than b: a longer
// shortest literal, then fewer literals.
func better(a, b []string) bool {
	la, lb := shortest(a), shortest(b)
	if la != lb {
		return la > lb
	}
	return len(a) < len(b)
}

func shortest(s []string) int {
	n := -1
	for _, l := range s {
		if n < 0 || len(l) < n {
			n = len(l)
		}
	}
	return n
}

// fold maps every rune to the least rune of its case-folding orbit (what
// (?i) treats as the same letter: k, K and the Kelvin sign are all K), so
// a text that matches a literal, with or without (?i), contains its folded
// form once folded itself.
func fold(s string) string { return string(appendFold(nil, s)) }

func appendFold(b []byte, s string) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			b = append(b, c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		b = utf8.AppendRune(b, least)
		i += n
	}
	return b
}

// foldBufs holds the buffers may folds texts into.
var foldBufs = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// may reports whether s can match: it contains one of the literals.
func (p *pattern) may(s string) bool {
	if p.need == nil {
		return true
	}
	bp := foldBufs.Get().(*[]byte)
	f := appendFold((*bp)[:0], s)
	ok := false
	for _, l := range p.needB {
		if bytes.Contains(f, l) {
			ok = true
			break
		}
	}
	*bp = f
	foldBufs.Put(bp)
	return ok
}

func (p *pattern) MatchString(s string) bool {
	return p.may(s) && p.Regexp.MatchString(s)
}

func (p *pattern) FindString(s string) string {
	if !p.may(s) {
		return ""
	}
	return p.Regexp.FindString(s)
}

func (p *pattern) FindStringIndex(s string) []int {
	if !p.may(s) {
		return nil
	}
	return p.Regexp.FindStringIndex(s)
}

func (p *pattern) FindStringSubmatch(s string) []string {
	if !p.may(s) {
		return nil
	}
	return p.Regexp.FindStringSubmatch(s)
}

func (p *pattern) FindStringSubmatchIndex(s string) []int {
	if !p.may(s) {
		return nil
	}
	return p.Regexp.FindStringSubmatchIndex(s)
}

func (p *pattern) FindAllStringIndex(s string, n int) [][]int {
	if !p.may(s) {
		return nil
	}
	return p.Regexp.FindAllStringIndex(s, n)
}

func (p *pattern) FindAllStringSubmatch(s string, n int) [][]string {
	if !p.may(s) {
		return nil
	}
	return p.Regexp.FindAllStringSubmatch(s, n)
}

func (p *pattern) FindAllStringSubmatchIndex(s string, n int) [][]int {
	if !p.may(s) {
		return nil
	}
	return p.Regexp.FindAllStringSubmatchIndex(s, n)
}
