package validate

import "strings"

// closest returns the index of the candidate the given name most likely
// meant, or -1. Names are compared without case, '_', '-' and spaces
// ("likedAt" is "liked_at"); the edit distance must be at most a third of
// the candidate's length (and at least 1, at most 3) for a suggestion.
// Ties go to the earlier candidate.
func closest(name string, cands []string) int {
	n := fold(name)
	best, bestD := -1, 1<<30
	for i, c := range cands {
		fc := fold(c)
		limit := min(max(len([]rune(fc))/3, 1), 3)
		d := distance(n, fc)
		if d <= limit && d < bestD && c != name {
			best, bestD = i, d
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

// distance is the optimal string alignment distance between a and b, in
// runes: Levenshtein plus the transposition of two neighbours ("titel").
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
