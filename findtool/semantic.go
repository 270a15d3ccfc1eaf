package findtool

import (
	"math"

	"github.com/viterin/vek/vek32"
)

// denseWeight is how much the dense score (the cosine of a tool's mean word
// vector with the query's, above denseFloor, rescaled to 0..1) adds to a
// lexical score, in units of the best lexical score.
const (
	denseWeight = 0.05
	denseFloor  = 0.3
)

// semantic is what an Index keeps to rank by meaning: each tool's mean
// word vector.
type semantic struct {
	vec *Vectors
	// docVec is each tool's unit mean vector, nil when none of its words
	// has one.
	docVec [][]float32
	// df is each raw word's document frequency over the tools' dense words,
	// n the number of tools: the IDF weights of the means.
	df map[string]int
	n  int
}

// WithVectors is x ranking by meaning too, with word vectors v: each
// tool's IDF-weighted mean vector of the raw words of its name and its
// description's first sentence is compared with the query's, and the
// cosine added, a little, to the lexical score. x itself is unchanged; v
// nil gives x.
func (x *Index) WithVectors(v *Vectors) *Index {
	if v == nil {
		return x
	}
	y := *x
	s := &semantic{vec: v, df: map[string]int{}, n: len(x.docs)}
	for _, ws := range x.raw {
		seen := map[string]bool{}
		for _, w := range ws {
			if !seen[w] {
				seen[w] = true
				s.df[w]++
			}
		}
	}
	s.docVec = make([][]float32, len(x.docs))
	for i, ws := range x.raw {
		s.docVec[i] = s.mean(ws)
	}
	y.sem = s
	return &y
}

// Semantic reports whether x ranks by meaning too (WithVectors).
func (x *Index) Semantic() bool { return x.sem != nil }

// mean is the unit IDF-weighted mean vector of words (stop words left
// out), nil when none has a vector.
func (s *semantic) mean(words []string) []float32 {
	acc := make([]float64, s.vec.dims)
	found := false
	for _, w := range words {
		if stopWords[w] {
			continue
		}
		r := s.vec.row(w)
		if r == nil {
			continue
		}
		found = true
		df := float64(s.df[w])
		idf := math.Log(1 + (float64(s.n)-df+0.5)/(df+0.5))
		for j, c := range r {
			acc[j] += idf * float64(c)
		}
	}
	if !found {
		return nil
	}
	norm := 0.0
	for _, a := range acc {
		norm += a * a
	}
	if norm == 0 {
		return nil
	}
	norm = math.Sqrt(norm)
	out := make([]float32, len(acc))
	for j, a := range acc {
		out[j] = float32(a / norm)
	}
	return out
}

// dense is the dense score of each of docs for the raw query words, in
// docs' order: the cosine of the means above denseFloor, rescaled to 0..1;
// nil when the query has no word with a vector. Only the tools the words
// touched are scored: the others get no score to add to.
func (s *semantic) dense(query []string, docs []int32) []float64 {
	qv := s.mean(query)
	if qv == nil {
		return nil
	}
	out := make([]float64, len(docs))
	for j, i := range docs {
		dv := s.docVec[i]
		if dv == nil {
			continue
		}
		c := vek32.Dot(qv, dv)
		if float64(c) > denseFloor {
			out[j] = (float64(c) - denseFloor) / (1 - denseFloor)
		}
	}
	return out
}

// denseWords are the raw words of a tool its mean vector is made of: its
// names' parts and its description's first sentence, lower-case letters
// only.
func denseWords(wire, py, description string) []string {
	ws := append(union(words(wire, false), words(py, false)), words(leadSentence(description), false)...)
	out := ws[:0]
	for _, w := range ws {
		if len(w) > 1 && isAlpha(w) {
			out = append(out, w)
		}
	}
	return out
}
