package manifest

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/codemode-dev/codemode/ir"
)

// MaxNesting is the deepest bracket nesting CheckPython lets through.
// Python's tokenizer refuses 200 levels ("too many nested parentheses") and
// so does Monty's checker, which then drops the whole stub module (every
// program fails with "Name `api` used when not defined"); ir.Resolve prints
// types no deeper than ir.MaxTypeDepth, well inside this.
const MaxNesting = 100

// CheckPython reports the first way src breaks the invariants every
// generated .py file (and every type-check stub) keeps, as "line N: what".
// It needs no Python: it checks what SafeText and ir.PyString guarantee
// and what the printers rely on, with a small lexer that knows comments,
// string literals and brackets:
//
//   - valid UTF-8, and no ir.UnsafeRune but the line feed anywhere (no CR,
//     NUL, form feed, U+2028, ...);
//   - every string literal closed: a one-line literal on its own line, a
//     triple-quoted one before the end of the file;
//   - no backslash line continuation outside a string;
//   - brackets balanced, closed by their own kind and no deeper than
//     MaxNesting.
//
// A file that passes cannot smuggle a line past a comment or a docstring:
// what Python reads as code is what the printers wrote as code.
func CheckPython(src []byte) error {
	if !utf8.Valid(src) {
		return fmt.Errorf("line %d: invalid UTF-8", lineAt(src, firstInvalid(src)))
	}
	s := string(src)
	line := 1
	for _, r := range s {
		if r == '\n' {
			line++
			continue
		}
		if ir.UnsafeRune(r) {
			return fmt.Errorf("line %d: character %U in the source", line, r)
		}
	}
	var stack []byte
	line = 1
	for i := 0; i < len(s); {
		c := s[i]
		switch c {
		case '\n':
			line++
			i++
		case '#':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case '"', '\'':
			q := s[i : i+1]
			if strings.HasPrefix(s[i:], q+q+q) {
				end, n, ok := closeTriple(s, i+3, q+q+q)
				if !ok {
					return fmt.Errorf("line %d: triple-quoted string never closed", line)
				}
				line += n
				i = end
				continue
			}
			j := i + 1
			for ; j < len(s) && s[j] != c; j++ {
				if s[j] == '\n' {
					return fmt.Errorf("line %d: string literal runs past the end of the line", line)
				}
				if s[j] == '\\' {
					j++
					if j < len(s) && s[j] == '\n' {
						return fmt.Errorf("line %d: string literal continued on the next line", line)
					}
				}
			}
			if j >= len(s) {
				return fmt.Errorf("line %d: string literal never closed", line)
			}
			i = j + 1
		case '\\':
			return fmt.Errorf("line %d: backslash outside a string", line)
		case '(', '[', '{':
			stack = append(stack, c)
			if len(stack) > MaxNesting {
				return fmt.Errorf("line %d: brackets nested more than %d deep", line, MaxNesting)
			}
			i++
		case ')', ']', '}':
			open := map[byte]byte{')': '(', ']': '[', '}': '{'}[c]
			if len(stack) == 0 || stack[len(stack)-1] != open {
				return fmt.Errorf("line %d: unbalanced %q", line, c)
			}
			stack = stack[:len(stack)-1]
			i++
		default:
			i++
		}
	}
	if len(stack) > 0 {
		return fmt.Errorf("line %d: %q never closed", line, stack[len(stack)-1])
	}
	return nil
}

// closeTriple finds the end of a triple-quoted string whose body starts at
// i: the index just past the closing quotes and the newlines inside.
func closeTriple(s string, i int, quotes string) (end, newlines int, ok bool) {
	for i < len(s) {
		switch {
		case s[i] == '\\':
			if i+1 < len(s) && s[i+1] == '\n' {
				newlines++
			}
			i += 2
		case strings.HasPrefix(s[i:], quotes):
			return i + 3, newlines, true
		default:
			if s[i] == '\n' {
				newlines++
			}
			i++
		}
	}
	return 0, 0, false
}

func firstInvalid(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return len(b)
}

func lineAt(b []byte, off int) int {
	return 1 + strings.Count(string(b[:off]), "\n")
}
