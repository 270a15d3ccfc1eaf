package ir

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// UnsafeRune reports whether r may not appear as itself in generated
// source: every C0 control character (line feed and tab included: the
// printers write their own), DEL, the C1 controls (NEL among them), the
// Unicode line and paragraph separators, the byte-order mark, and the
// bidirectional controls that make a reader see other code than the
// interpreter does. Python's tokenizer reads CR as a line break and rejects
// NUL; str.splitlines, and so every tool that counts lines, also breaks at
// form feed, vertical tab, \x1c-\x1e, NEL and U+2028/U+2029.
func UnsafeRune(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r == 0x2028, r == 0x2029, r == 0xfeff:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	}
	return false
}

// PyString quotes s as a Python string literal (double quotes). Every
// UnsafeRune is escaped, so the literal is one line of plain source;
// invalid UTF-8 becomes U+FFFD.
func PyString(s string) string {
	var b strings.Builder
	writePyString(&b, s)
	return b.String()
}

// writePyString writes PyString(s) to b (PyLiteral writes its strings so,
// not each into a string of its own first).
func writePyString(b *strings.Builder, s string) {
	b.Grow(len(s) + 2) // the quotes; an escape grows it again
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x100 && UnsafeRune(r):
			fmt.Fprintf(b, `\x%02x`, r)
		case UnsafeRune(r):
			fmt.Fprintf(b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}

// PyLiteral prints a JSON value (as decoded with UseNumber) as the equal
// Python expression: None, True, "text", 3, [1, 2], {"k": "v"} (keys
// sorted). It is the one rendering of JSON values as Python source, for
// the stubs, find_tool's examples and shapes, and (cut, PyLiteralCut)
// validation messages; an interpreter's own values are rendered by
// monty.Format, as Python's repr does.
func PyLiteral(v any) string {
	var b strings.Builder
	writePy(&b, v, nil)
	return b.String()
}

// WritePyLiteral writes PyLiteral(v) to b.
func WritePyLiteral(b *strings.Builder, v any) { writePy(b, v, nil) }

// PyLiteralCut is PyLiteral cut for a message: a string longer than
// maxString bytes keeps its first maxString-3 (at a character boundary)
// followed by ..., and a list or dict stops with ... once the literal is
// longer than maxLen bytes.
func PyLiteralCut(v any, maxString, maxLen int) string {
	var b strings.Builder
	writePy(&b, v, &pyCut{str: maxString, total: maxLen})
	return b.String()
}

type pyCut struct{ str, total int }

func (c *pyCut) over(b *strings.Builder) bool { return c != nil && b.Len() > c.total }

func writePy(b *strings.Builder, v any, cut *pyCut) {
	if cut.over(b) {
		b.WriteString("...")
		return
	}
	switch x := v.(type) {
	case nil:
		b.WriteString("None")
	case bool:
		if x {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case string:
		if cut != nil && len(x) > cut.str {
			n := max(cut.str-3, 0)
			for n > 0 && !utf8.RuneStart(x[n]) {
				n--
			}
			writePyString(b, x[:n])
			b.WriteString("...")
			return
		}
		writePyString(b, x)
	case json.Number:
		b.WriteString(x.String())
	case float64:
		b.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			if cut.over(b) {
				b.WriteString("...")
				break
			}
			writePy(b, e, cut)
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			if cut.over(b) {
				b.WriteString("...")
				break
			}
			writePyString(b, k)
			b.WriteString(": ")
			writePy(b, x[k], cut)
		}
		b.WriteByte('}')
	default:
		j, err := json.Marshal(x)
		if err != nil {
			b.WriteString(fmt.Sprint(x))
			return
		}
		b.Write(j)
	}
}

// Pascal turns "list_pets", "list-pets" or "listPets" into "ListPets":
// every run of characters outside [A-Za-z0-9] starts a new capitalised word.
func Pascal(s string) string {
	var b strings.Builder
	b.Grow(len(s)) // what is kept is ASCII, one byte a character
	up := true
	for _, r := range s {
		if !(r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r))) {
			up = true
			continue
		}
		if up {
			b.WriteRune(unicode.ToUpper(r))
			up = false
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}
