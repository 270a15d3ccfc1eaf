package sentence

import (
	"slices"
	"strings"
	"unicode/utf16"

	"golang.org/x/text/unicode/norm"
)

// separator is sentencepiece's word-start mark, which stands for a space.
const separator = '\u2581'

// reserved is how many of the vocabulary's first pieces are control
// symbols, never matched in text ("\ufffd" for unknown, <s>, </s>, three
// extra ids).
const reserved = 6

// tokenizer is a port of @energetic-ai/embeddings' Tokenizer (itself
// TensorFlow.js's Universal Sentence Encoder tokenizer): a trie of the
// vocabulary's pieces and a Viterbi pass keeping, at each position, the
// best sum of piece scores. Immutable once built.
type tokenizer struct {
	nodes []trieNode
	// width is each piece's length in UTF-16 code units, the unit the JS
	// steps back by when it walks the best path.
	width []int
}

type trieNode struct {
	children map[rune]int32 // symbol → node
	end      bool
	score    float64
	id       int
}

func newTokenizer(pieces []string, scores []float64) *tokenizer {
	t := &tokenizer{nodes: []trieNode{{}}, width: make([]int, len(pieces))}
	for i, p := range pieces {
		for _, r := range p {
			t.width[i] += utf16.RuneLen(r)
		}
		if i < reserved {
			continue
		}
		n := int32(0)
		for _, r := range p {
			c, ok := t.nodes[n].children[r]
			if !ok {
				c = int32(len(t.nodes))
				t.nodes = append(t.nodes, trieNode{})
				if t.nodes[n].children == nil {
					t.nodes[n].children = map[rune]int32{}
				}
				t.nodes[n].children[r] = c
			}
			n = c
		}
		if n != 0 {
			// A piece given twice keeps its last score and id, as in the JS.
			t.nodes[n].end, t.nodes[n].score, t.nodes[n].id = true, scores[i], i
		}
	}
	return t
}

// candidate is a piece that ends at some position.
type candidate struct {
	start, end int
	score      float64
	id         int
}

// encode is the JS Tokenizer.encode: the text NFKC-normalised, each space
// a separator and one more in front; its code points segmented into the
// pieces of the best total score, a code point that starts no piece being
// the unknown id 0 (several in a row give one 0). Invalid UTF-8 reads as
// U+FFFD.
func (t *tokenizer) encode(text string) []int {
	s := norm.NFKC.String(strings.ToValidUTF8(text, "\ufffd"))
	if s == "" {
		return nil
	}
	symbols := make([]rune, 0, len(s)+1)
	symbols = append(symbols, separator)
	for _, r := range s {
		if r == ' ' {
			r = separator
		}
		symbols = append(symbols, r)
	}
	n := len(symbols)
	// The pieces found at each start, starts ascending; then ordered by
	// end (a stable counting sort), so that the pieces ending at e are
	// visited by ascending start, as the JS visits them.
	found := make([]candidate, 0, 4*n)
	for i := 0; i < n; i++ {
		before := len(found)
		node, ok := t.nodes[0].children[symbols[i]]
		for k := i; ok; {
			nd := &t.nodes[node]
			if nd.end {
				found = append(found, candidate{i, k + 1, nd.score, nd.id})
			}
			if k++; k >= n {
				break
			}
			node, ok = nd.children[symbols[k]]
		}
		if len(found) == before {
			found = append(found, candidate{i, i + 1, 0, 0})
		}
	}
	first := make([]int, n+2)
	for _, c := range found {
		first[c.end+1]++
	}
	for e := 1; e <= n+1; e++ {
		first[e] += first[e-1]
	}
	byEnd := make([]candidate, len(found))
	fill := slices.Clone(first)
	for _, c := range found {
		byEnd[fill[c.end]] = c
		fill[c.end]++
	}
	best := make([]float64, n+1)
	words := make([]int, n+1)
	for e := 0; e <= n; e++ {
		for _, c := range byEnd[first[e]:first[e+1]] {
			score := c.score + best[c.start]
			// An exact 0 counts as no score yet, as in the JS.
			if best[e] == 0 || score >= best[e] {
				best[e], words[e] = score, c.id
			}
		}
	}
	var ids []int
	for i := n; i > 0; i -= t.width[words[i]] {
		ids = append(ids, words[i])
	}
	out := make([]int, 0, len(ids))
	prevUnk := false
	for _, id := range ids {
		if !(prevUnk && id == 0) {
			out = append(out, id)
		}
		prevUnk = id == 0
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}
