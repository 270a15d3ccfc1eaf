package enrich

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// A pattern is a compiled regexp with a prefilter: sets of literals
// (compared with case folded away), found in the regexp's syntax tree when
// it is compiled, such that every match contains a literal of each set.
// Its Match and Find methods run the regexp only on a text that passes
// every set, so a description without a rule's words costs a few
// substring searches instead of a backtracking run, and every result is
// the regexp's own.
type pattern struct {
	*regexp.Regexp
	// need is the most selective set (see better): what the tests show.
	need []string // folded (see fold); nil: no prefilter, always run
	// all is every set, the most selective first, as bytes.
	all []clause
	// lead is what every match starts with, nil when there is nothing
	// to name (see leads); worked out on first use (leads), as its two
	// anchored regexps would add a third to every process's start.
	lead     *leads
	leadOnce sync.Once
	// anchored is true when every match starts at the text's start (^
	// without (?m), or \A): neither filter nor leads pay there.
	anchored bool
}

// atStart says whether every match of re starts at the text's start.
func atStart(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpBeginText:
		return true
	case syntax.OpCapture:
		return atStart(re.Sub[0])
	case syntax.OpConcat:
		return len(re.Sub) > 0 && atStart(re.Sub[0])
	case syntax.OpAlternate:
		for _, s := range re.Sub {
			if !atStart(s) {
				return false
			}
		}
		return true
	}
	return false
}

// A clause is a set of folded literals one of which a text must contain;
// bytes, when every literal is one byte, holds them for one
// bytes.ContainsAny instead of a search per literal.
type clause struct {
	lits  [][]byte
	pairs [][]uint16 // each literal's byte pairs (see folded.pairs)
	bytes string
}

// patterns is every pattern compiled, for the prefilter's tests.
var patterns []*pattern

// mustCompile is regexp.MustCompile with a prefilter.
func mustCompile(expr string) *pattern {
	p := &pattern{Regexp: regexp.MustCompile(expr)}
	re, err := syntax.Parse(expr, syntax.Perl)
	switch {
	case err != nil:
	case atStart(re):
		// Tried at the text's start alone: the regexp looks at no more
		// than it matches, and folding the text to filter it (most often
		// what follows a match, a new text each time) looked at all of
		// it.
		p.anchored = true
	default:
		sets := sortSets(needAll(re))
		if n, ok := needs(re); ok && !slices.Contains(n, "") && !slices.ContainsFunc(sets, func(o []string) bool { return slices.Equal(o, n) }) {
			// The one set needs finds, even one sortSets would not
			// keep, last: a weak filter still spares some runs.
			sets = append(sets, n)
		}
		if len(sets) > 0 {
			p.need = sets[0]
		}
		for _, set := range sets {
			var c clause
			one := true
			for _, l := range set {
				c.lits = append(c.lits, []byte(l))
				c.pairs = append(c.pairs, pairsOf([]byte(l)))
				one = one && len(l) == 1 && l[0] < utf8.RuneSelf
			}
			if one {
				c.bytes = strings.Join(set, "")
			}
			p.all = append(p.all, c)
		}
	}
	patterns = append(patterns, p)
	return p
}

// needAll returns sets of literals (folded) such that every match of re
// contains one literal of each set: for a concatenation, the sets of each
// of its parts; for an alternation, the union of each branch's most
// selective set, of each branch's second (or its last), and so on.
func needAll(re *syntax.Regexp) [][]string {
	switch re.Op {
	case syntax.OpCapture, syntax.OpPlus:
		return needAll(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return needAll(re.Sub[0])
		}
		return nil
	case syntax.OpConcat:
		// A run of parts that each match one of a few strings needs one
		// of their concatenations ("UR" then [IL]: URL or URI).
		var all [][]string
		var run []string // nil: no run
		flush := func() {
			if run != nil && !slices.Contains(run, "") {
				all = append(all, run)
			}
			run = nil
		}
		for _, s := range re.Sub {
			e, ok := exact(s)
			if !ok {
				flush()
				all = append(all, needAll(s)...)
				continue
			}
			if run == nil {
				run = e
				continue
			}
			if p, ok := product(run, e); ok {
				run = p
				continue
			}
			flush()
			run = e
		}
		flush()
		return all
	case syntax.OpAlternate:
		var branches [][][]string
		most := 0
		for _, s := range re.Sub {
			b := sortSets(needAll(s))
			if len(b) == 0 {
				return nil
			}
			branches = append(branches, b)
			most = max(most, len(b))
		}
		var all [][]string
		for k := range most {
			var union []string
			for _, b := range branches {
				for _, l := range b[min(k, len(b)-1)] {
					if !slices.Contains(union, l) {
						union = append(union, l)
					}
				}
			}
			all = append(all, union)
		}
		return all
	case syntax.OpCharClass:
		if n, ok := class(re, 9); ok { // [0-9] too
			return [][]string{n}
		}
		return nil
	}
	if n, ok := needs(re); ok {
		return [][]string{n}
	}
	return nil
}

// class returns the characters of a small class (folded): no range in it
// spans more than span.
func class(re *syntax.Regexp, span rune) ([]string, bool) {
	var out []string
	for i := 0; i+1 < len(re.Rune); i += 2 {
		if re.Rune[i+1]-re.Rune[i] > span || len(out) > 12 {
			return nil, false
		}
		for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
			if l := fold(string(r)); !slices.Contains(out, l) {
				out = append(out, l)
			}
		}
	}
	return out, len(out) > 0
}

// maxExact bounds the strings exact and product list.
const maxExact = 64

// exact returns the strings (folded) every match of re is one of, when
// there are few: a literal, a small class, an empty-width assertion, and
// optional parts, alternations and concatenations of them.
func exact(re *syntax.Regexp) ([]string, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return []string{fold(string(re.Rune))}, true
	case syntax.OpCharClass:
		return class(re, 9)
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return []string{""}, true
	case syntax.OpCapture:
		return exact(re.Sub[0])
	case syntax.OpQuest:
		e, ok := exact(re.Sub[0])
		if !ok {
			return nil, false
		}
		return union([]string{""}, e)
	case syntax.OpAlternate:
		var all []string
		for _, s := range re.Sub {
			e, ok := exact(s)
			if !ok {
				return nil, false
			}
			if all, ok = union(all, e); !ok {
				return nil, false
			}
		}
		return all, true
	case syntax.OpConcat:
		all := []string{""}
		for _, s := range re.Sub {
			e, ok := exact(s)
			if !ok {
				return nil, false
			}
			if all, ok = product(all, e); !ok {
				return nil, false
			}
		}
		return all, true
	}
	return nil, false
}

// union is a's strings and then b's not in a, or false past maxExact.
func union(a, b []string) ([]string, bool) {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out, len(out) <= maxExact
}

// product is every string of a followed by one of b, or false past
// maxExact.
func product(a, b []string) ([]string, bool) {
	if len(a)*len(b) > maxExact {
		return nil, false
	}
	var out []string
	for _, x := range a {
		for _, y := range b {
			if s := x + y; !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out, true
}

// sortSets keeps the sets that filter (see filters), once each, and
// orders them the most selective first (see better), where most texts
// fail.
func sortSets(sets [][]string) [][]string {
	var out [][]string
	for _, set := range sets {
		set = minimal(set)
		if filters(set) && !slices.ContainsFunc(out, func(o []string) bool { return slices.Equal(o, set) }) {
			out = append(out, set)
		}
	}
	slices.SortStableFunc(out, func(a, b []string) int {
		switch {
		case better(a, b):
			return -1
		case better(b, a):
			return 1
		}
		return 0
	})
	return out
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
		return class(re, 8)
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

// minimal drops the literals of a set that contain another of its
// literals (a text with VALID URL has URL): the same texts pass.
func minimal(set []string) []string {
	var out []string
	for i, l := range set {
		redundant := false
		for j, o := range set {
			if j != i && strings.Contains(l, o) && (len(o) < len(l) || j < i) {
				redundant = true
				break
			}
		}
		if !redundant {
			out = append(out, l)
		}
	}
	return out
}

// filters says whether a set is worth its searches: every literal two
// bytes or more, or every one a single byte that is neither a letter nor
// a space (a digit, a bracket), which almost every description has.
func filters(set []string) bool {
	if len(set) == 0 {
		return false
	}
	if shortest(set) >= 2 {
		return true
	}
	for _, l := range set {
		if len(l) != 1 || l[0] >= utf8.RuneSelf || unicode.IsLetter(rune(l[0])) || isSpace(l[0]) || l[0] == '\f' {
			return false
		}
	}
	return true
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

// A folded is a text and its fold, the buffer may folds texts into. The
// rules run their patterns on one description after another, so the text
// a buffer last folded is most often the next one asked for: it is
// folded once, not once per pattern.
type folded struct {
	text  string
	fold  []byte
	ascii bool // text has no byte past ASCII: fold is aligned with it
	// pairs has a bit set for each two adjacent bytes of fold: a literal
	// with a pair not in it is not in fold, known without a search.
	pairs [1 << 16 / 64]uint64
}

// refold makes b the fold of s, clearing the old text's pairs first.
func (b *folded) refold(s string) {
	for i := 0; i+1 < len(b.fold); i++ {
		k := pair(b.fold[i], b.fold[i+1])
		b.pairs[k/64] = 0
	}
	b.text, b.fold, b.ascii = s, appendFold(b.fold[:0], s), isASCII(s)
	for i := 0; i+1 < len(b.fold); i++ {
		k := pair(b.fold[i], b.fold[i+1])
		b.pairs[k/64] |= 1 << (k % 64)
	}
}

func pair(x, y byte) uint16 { return uint16(x)<<8 | uint16(y) }

// pairsOf is the byte pairs of a literal.
func pairsOf(l []byte) []uint16 {
	var out []uint16
	for i := 0; i+1 < len(l); i++ {
		out = append(out, pair(l[i], l[i+1]))
	}
	return out
}

// foldBufs holds the folded buffers.
var foldBufs = sync.Pool{New: func() any { return &folded{fold: make([]byte, 0, 512)} }}

// may reports whether s can match: it contains a literal of every set.
func (p *pattern) may(s string) bool {
	if p.all == nil {
		return true
	}
	b := foldBufs.Get().(*folded)
	if b.text != s || len(b.fold) == 0 {
		b.refold(s)
	}
	ok := true
	for _, c := range p.all {
		if !c.in(b) {
			ok = false
			break
		}
	}
	foldBufs.Put(b)
	return ok
}

// in says whether b's fold contains one of c's literals.
func (c clause) in(b *folded) bool {
	if c.bytes != "" {
		return bytes.ContainsAny(b.fold, c.bytes)
	}
next:
	for i, l := range c.lits {
		for _, k := range c.pairs[i] {
			if b.pairs[k/64]&(1<<(k%64)) == 0 {
				continue next
			}
		}
		if bytes.Contains(b.fold, l) {
			return true
		}
	}
	return false
}

// leads is the pattern's leads, nil when it has none or is tried at the
// text's start alone.
func (p *pattern) leads() *leads {
	p.leadOnce.Do(func() {
		if p.anchored {
			return
		}
		expr := p.Regexp.String()
		if re, err := syntax.Parse(expr, syntax.Perl); err == nil {
			p.lead = newLeads(expr, re)
		}
	})
	return p.lead
}

// scan is the regexp's submatch indexes of up to n matches of s (all
// when n < 0), found by the pattern's leads; ok is false when it has
// none or s is not ASCII, and the regexp must search itself.
func (p *pattern) scan(s string, n int) (ms [][]int, ok bool) {
	lead := p.leads()
	if lead == nil {
		return nil, false
	}
	b := foldBufs.Get().(*folded)
	if b.text != s || len(b.fold) == 0 {
		b.refold(s)
	}
	if !b.ascii {
		foldBufs.Put(b)
		return nil, false
	}
	var buf [16]int
	at := lead.places(buf[:0], b.fold)
	foldBufs.Put(b)
	end := 0
	for _, i := range at {
		if n >= 0 && len(ms) == n {
			break
		}
		if i < end {
			continue
		}
		if m := lead.matchAt(s, i); m != nil {
			ms = append(ms, m)
			end = m[1]
		}
	}
	return ms, true
}

// submatches is the strings of s that m indexes ("" where a group took
// no part), as FindStringSubmatch gives them.
func submatches(s string, m []int) []string {
	out := make([]string, len(m)/2)
	for i := range out {
		if m[2*i] >= 0 {
			out[i] = s[m[2*i]:m[2*i+1]]
		}
	}
	return out
}

func (p *pattern) MatchString(s string) bool {
	if !p.may(s) {
		return false
	}
	if ms, ok := p.scan(s, 1); ok {
		return len(ms) > 0
	}
	return p.Regexp.MatchString(s)
}

// first is the submatch indexes of the first match of s by the
// pattern's leads (nil when there is none); ok as for scan.
func (p *pattern) first(s string) (m []int, ok bool) {
	ms, ok := p.scan(s, 1)
	if len(ms) > 0 {
		m = ms[0]
	}
	return m, ok
}

func (p *pattern) FindString(s string) string {
	if m := p.FindStringIndex(s); m != nil {
		return s[m[0]:m[1]]
	}
	return ""
}

func (p *pattern) FindStringIndex(s string) []int {
	if !p.may(s) {
		return nil
	}
	if m, ok := p.first(s); ok {
		if m == nil {
			return nil
		}
		return m[:2:2]
	}
	return p.Regexp.FindStringIndex(s)
}

func (p *pattern) FindStringSubmatch(s string) []string {
	if m := p.FindStringSubmatchIndex(s); m != nil {
		return submatches(s, m)
	}
	return nil
}

func (p *pattern) FindStringSubmatchIndex(s string) []int {
	if !p.may(s) {
		return nil
	}
	if m, ok := p.first(s); ok {
		return m
	}
	return p.Regexp.FindStringSubmatchIndex(s)
}

func (p *pattern) FindAllStringIndex(s string, n int) [][]int {
	if n == 0 || !p.may(s) {
		return nil
	}
	if ms, ok := p.scan(s, n); ok {
		for i, m := range ms {
			ms[i] = m[:2:2]
		}
		return ms
	}
	return p.Regexp.FindAllStringIndex(s, n)
}

func (p *pattern) FindAllStringSubmatch(s string, n int) [][]string {
	ms := p.FindAllStringSubmatchIndex(s, n)
	if ms == nil {
		return nil
	}
	out := make([][]string, len(ms))
	for i, m := range ms {
		out[i] = submatches(s, m)
	}
	return out
}

func (p *pattern) FindAllStringSubmatchIndex(s string, n int) [][]int {
	if n == 0 || !p.may(s) {
		return nil
	}
	if ms, ok := p.scan(s, n); ok {
		return ms
	}
	return p.Regexp.FindAllStringSubmatchIndex(s, n)
}
