package bench

import (
	"sync"

	"github.com/tiktoken-go/tokenizer"
)

// Encoding is the BPE vocabulary tokens are counted with; the tokenizer
// module embeds it, so counting works offline.
const Encoding = tokenizer.O200kBase

var (
	encOnce sync.Once
	enc     tokenizer.Codec
	encErr  error
)

// Tokens counts s's tokens with the o200k_base BPE.
func Tokens(s string) int {
	encOnce.Do(func() { enc, encErr = tokenizer.Get(Encoding) })
	if encErr != nil {
		panic("bench: tokenizer: " + encErr.Error())
	}
	n, err := enc.Count(s)
	if err != nil {
		panic("bench: tokenizer: " + err.Error())
	}
	return n
}

// Stats are a transcript's token numbers.
type Stats struct {
	Steps int
	// Output is the tokens of tool output reaching the model; Input the
	// tokens of the model's calls (arguments, programs).
	Output, Input int
	// Largest is the largest single tool response, in tokens.
	Largest     int
	LargestTool string
	// Growth is the transcript's size (prompt + calls + responses) after
	// each step; Growth[0] is the prompt alone.
	Growth []int
	// Read is what the model reads over the whole task when each step is
	// one turn: the sum over turns of the tool definitions plus the
	// transcript so far.
	Read int
}

// Measure counts a transcript; defs is the tool-definition tokens offered
// with every request.
func Measure(t *Transcript, defs int) Stats {
	s := Stats{Steps: len(t.Steps)}
	size := Tokens(t.Prompt)
	s.Growth = append(s.Growth, size)
	for _, st := range t.Steps {
		s.Read += defs + size
		in, out := Tokens(st.Input), Tokens(st.Output)
		s.Input += in
		s.Output += out
		if out > s.Largest {
			s.Largest, s.LargestTool = out, st.Tool
		}
		size += in + out
		s.Growth = append(s.Growth, size)
	}
	s.Read += defs + size // the turn that writes the final answer
	return s
}
