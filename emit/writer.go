package emit

import (
	"strings"
)

// writer builds a text file line by line and knows the current line number,
// so the manifest can record where each tool's definition stands.
type writer struct {
	b    strings.Builder
	line int // lines written so far
}

// ln writes one line (indent in units of four spaces).
func (w *writer) ln(indent int, s string) {
	if s != "" {
		w.b.WriteString(strings.Repeat("    ", indent))
		w.b.WriteString(s)
	}
	w.b.WriteByte('\n')
	w.line++
}

// next is the 1-based number of the line the next ln call writes.
func (w *writer) next() int { return w.line + 1 }

func (w *writer) bytes() []byte { return []byte(w.b.String()) }
