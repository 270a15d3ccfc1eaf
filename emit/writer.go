package emit

import (
	"bytes"
	"strings"

	"github.com/codemode-dev/codemode/ir"
)

// writer builds a text file line by line and knows the current line number,
// so the manifest can record where each tool's definition stands.
//
// Every line passes through SafeText: whatever text a source supplies
// (descriptions, patterns, formats, file names), a printed line is one line
// of source that Python's tokenizer, Monty's parser and every line counter
// read the same way. String literals are escaped before they get here
// (ir.PyString), so SafeText never changes their value.
type writer struct {
	b    bytes.Buffer
	line int // lines written so far
}

// ln writes one line (indent in units of four spaces).
func (w *writer) ln(indent int, s string) {
	s = SafeText(s)
	if s != "" {
		for range indent {
			w.b.WriteString("    ")
		}
		w.b.WriteString(s)
	}
	w.b.WriteByte('\n')
	w.line++
}

// lnJoin writes the line a+sep+b as ln does, without joining them first;
// sep is plain ASCII (so SafeText reads a and b as it reads them joined:
// no character spans a part's edge).
func (w *writer) lnJoin(indent int, a, sep, b string) {
	for range indent {
		w.b.WriteString("    ")
	}
	w.b.WriteString(SafeText(a))
	w.b.WriteString(sep)
	w.b.WriteString(SafeText(b))
	w.b.WriteByte('\n')
	w.line++
}

// next is the 1-based number of the line the next ln call writes.
func (w *writer) next() int { return w.line + 1 }

func (w *writer) bytes() []byte { return w.b.Bytes() }

// SafeText makes s safe to print as part of one line of generated source
// (a comment, a docstring line, a Go comment): every ir.UnsafeRune that
// separates words (CR, LF, tab, form feed, vertical tab, the file, group
// and record separators, NEL, U+2028, U+2029) becomes a space, any other
// one U+FFFD, and invalid UTF-8 U+FFFD.
func SafeText(s string) string {
	clean := true
	for _, r := range s {
		if ir.UnsafeRune(r) || r == '\uFFFD' {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\t', r == '\n', r == '\v', r == '\f', r == '\r', r >= 0x1c && r <= 0x1f,
			r == 0x85, r == 0x2028, r == 0x2029:
			b.WriteByte(' ')
		case ir.UnsafeRune(r):
			b.WriteRune('\uFFFD')
		default:
			b.WriteRune(r) // invalid UTF-8 arrives as U+FFFD and is written valid
		}
	}
	return b.String()
}
