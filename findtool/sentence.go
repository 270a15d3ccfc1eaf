package findtool

import (
	"context"
	"errors"
	"math"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/viterin/vek/vek32"
)

// Encoder embeds a text as a sentence vector: the same dimension for every
// text, nil when it cannot. It must be safe for concurrent use.
type Encoder interface {
	Embed(text string) []float32
}

// ToolSentences are the sentence vectors of an index's tools
// (Index.EmbedTools) and the encoder that embeds queries the same way.
// Immutable; safe for concurrent use.
type ToolSentences struct {
	enc    Encoder
	docs   []Doc // the index's, to check they are its tools
	dims   int
	docVec [][]float32 // unit; nil where the encoder gave none
}

// sentences is what an Index keeps to rank by a sentence encoder.
type sentences = ToolSentences

// EmbedTools embeds each tool's SentenceText with enc, on every CPU: the
// slow part of ranking by sentences (Index.WithSentences), done while x
// keeps serving. It returns ctx's error when ctx ends first, and an error
// when enc gives no tool a vector.
func (x *Index) EmbedTools(ctx context.Context, enc Encoder) (*ToolSentences, error) {
	vecs := make([][]float32, len(x.docs))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(len(x.docs), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= len(x.docs) {
					return
				}
				vecs[i] = unitVector(enc.Embed(SentenceText(x.docs[i])))
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s := &ToolSentences{enc: enc, docs: x.docs, docVec: vecs}
	for _, v := range vecs {
		if v != nil {
			s.dims = len(v)
			break
		}
	}
	if s.dims == 0 && len(vecs) > 0 {
		return nil, errors.New("the sentence encoder gave no tool a vector")
	}
	for i, v := range vecs {
		if len(v) != s.dims {
			vecs[i] = nil
		}
	}
	return s, nil
}

// WithSentences is x ranking by meaning with the sentence vectors s of its
// tools too (EmbedTools of x, or of an index x was made from with
// WithVectors): each query is embedded when it is searched, and its cosine
// with a tool's vector fused into the lexical score (see the package doc).
// x itself is unchanged; s nil, or of other tools, gives x.
func (x *Index) WithSentences(s *ToolSentences) *Index {
	if s == nil || len(s.docs) != len(x.docs) || len(x.docs) > 0 && &s.docs[0] != &x.docs[0] {
		return x
	}
	y := *x
	y.sen = s
	return &y
}

// Sentences reports whether x ranks with a sentence encoder too
// (WithSentences).
func (x *Index) Sentences() bool { return x.sen != nil }

// SentenceText is the text of a tool that its sentence vector is made of:
// its wire name as words ("list pull requests") and its description
// (its first sentenceDescBytes bytes, cut at a space), without HTML tags,
// on one line.
func SentenceText(d Doc) string {
	t := d.Tool
	name := strings.Join(words(string(t.Wire), false), " ")
	desc := truncWords(plainText(t.Description), sentenceDescBytes)
	if desc == "" || desc == name {
		return name
	}
	return name + ". " + desc
}

// sentenceDescBytes is how much of a description SentenceText keeps: more
// than the model reads (128 tokens) of most.
const sentenceDescBytes = 400

// truncWords is s cut to at most n bytes, at a space when there is one.
func truncWords(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if i := strings.LastIndexByte(s[:n], ' '); i > 0 {
		return s[:i]
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

var htmlTag = regexp.MustCompile(`</?[a-zA-Z][^<>]*>`)

// plainText is s without HTML tags, every run of white space one space.
func plainText(s string) string {
	return strings.Join(strings.Fields(htmlTag.ReplaceAllString(s, " ")), " ")
}

// unitVector is v scaled to unit length (a copy), nil for nil or zero.
func unitVector(v []float32) []float32 {
	n := 0.0
	for _, c := range v {
		n += float64(c) * float64(c)
	}
	if n == 0 || math.IsNaN(n) || math.IsInf(n, 0) {
		return nil
	}
	n = math.Sqrt(n)
	out := make([]float32, len(v))
	for i, c := range v {
		out[i] = float32(float64(c) / n)
	}
	return out
}

// sentenceWeight is how much the sentence score (the cosine of a tool's
// sentence vector with the query's, above sentenceFloor, rescaled to 0..1)
// adds to a tool's score, in units of the best score.
const (
	sentenceWeight = 0.75
	sentenceFloor  = 0.5
)

// fuse adds the sentence score of each hit (tools docs) to its score: the
// cosine of the query's sentence vector q with the tool's above
// sentenceFloor, rescaled to 0..1, times sentenceWeight times the best
// score. Nothing when the encoder gave the query no vector.
func (s *sentences) fuse(q []float32, docs []int32, hits []Hit) {
	qv := unitVector(q)
	if len(qv) != s.dims || len(hits) == 0 {
		return
	}
	top := 0.0
	for _, h := range hits {
		top = max(top, h.Score)
	}
	add := func(lo, hi int) {
		for j, i := range docs[lo:hi] {
			dv := s.docVec[i]
			if dv == nil {
				continue
			}
			// A SIMD dot product (vek's AVX2 kernel where the CPU has it):
			// a scalar loop here was a tenth of a search's CPU over
			// thousands of touched tools.
			c := vek32.Dot(qv, dv)
			if float64(c) > sentenceFloor {
				hits[lo+j].Score += sentenceWeight * top * (float64(c) - sentenceFloor) / (1 - sentenceFloor)
			}
		}
	}
	// Thousands of tools are megabytes of vectors to read: with the query
	// embedded, the other cores are idle, so each reads a share.
	parts := min(runtime.GOMAXPROCS(0), len(docs)/fuseShare)
	if parts <= 1 {
		add(0, len(docs))
		return
	}
	step := (len(docs) + parts - 1) / parts
	var wg sync.WaitGroup
	for lo := step; lo < len(docs); lo += step {
		wg.Go(func() { add(lo, min(lo+step, len(docs))) })
	}
	add(0, step)
	wg.Wait()
}

// fuseShare is the fewest tools whose sentence cosines fuse hands to a
// goroutine of their own.
const fuseShare = 1024
