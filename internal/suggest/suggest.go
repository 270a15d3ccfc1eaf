// Package suggest is codemode's one "did you mean" rule, for every name an
// agent or a pack author can misspell: arguments, enum values, tools,
// services, modules, grants.
package suggest

import (
	"strings"
)

// MaxLen is the longest name Closest considers: no misspelling of a name
// is longer, and the work grows with it (a program may pass any string).
const MaxLen = 64

// Closest returns the index of the candidate name most likely meant, or -1.
// Names are compared folded: without case, '_', '-' and spaces ("likedAt"
// is "liked_at"). The nearest candidate by edit distance (Levenshtein plus
// the transposition of two neighbours, "titel") is taken when the distance
// is at most a third of the folded candidate's length (at least 1, at most
// 3); ties go to the earlier candidate. Failing that, a name of three or
// more characters that starts exactly one candidate ("github" for
// "github_rest") is taken as its shorthand. A candidate equal to name is
// never suggested, and a name longer than MaxLen matches nothing.
func Closest(name string, cands []string) int {
	if len(name) > MaxLen {
		return -1
	}
	n := []rune(fold(name))
	best, bestD := -1, 1<<30
	for i, c := range cands {
		if c == name || bestD == 0 {
			continue
		}
		fc := []rune(fold(c))
		limit := min(max(len(fc)/3, 1), 3)
		if d := distanceWithin(n, fc, min(limit, bestD-1)); d <= limit && d < bestD {
			best, bestD = i, d
		}
	}
	if best >= 0 || len(n) < 3 {
		return best
	}
	for i, c := range cands {
		if c != name && strings.HasPrefix(fold(c), string(n)) {
			if best >= 0 {
				return -1
			}
			best = i
		}
	}
	return best
}

func fold(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '_', '-', ' ':
			return -1
		}
		return r
	}, strings.ToLower(s))
}

// distanceWithin is the optimal string alignment distance of a and b when
// it is at most bound, else bound+1; it stops as soon as a row shows the
// distance must exceed bound.
func distanceWithin(a, b []rune, bound int) int {
	if d := len(a) - len(b); d > bound || -d > bound {
		return bound + 1
	}
	pp := make([]int, len(b)+1) // row i-2
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], pp[j-2]+1)
			}
			rowMin = min(rowMin, cur[j])
		}
		if rowMin > bound {
			return bound + 1
		}
		pp, prev, cur = prev, cur, pp
	}
	return min(prev[len(b)], bound+1)
}
