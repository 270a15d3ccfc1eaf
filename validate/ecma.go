package validate

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ecmaSpace is what ECMAScript's \s matches (WhiteSpace and
// LineTerminator), as the inside of an RE2 character class. RE2's own \s is
// only [\t\n\f\r ]: no \v, no no-break space, no Unicode spaces.
const ecmaSpace = `\t\n\x{0B}\f\r \x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}`

// ecmaDot is what ECMAScript's . matches without the s flag: anything but
// a line terminator. RE2's . only leaves out \n.
const ecmaDot = `[^\n\r\x{2028}\x{2029}]`

// toRE2 rewrites an ECMA-262 pattern as an RE2 pattern with the same
// meaning, or reports false when the pattern needs what RE2 lacks
// (lookaround, backreferences) or uses a construct this rewrite does not
// know; those patterns go to the backtracking engine.
//
// The rewrite keeps what both dialects mean the same way (\d, \w, \b and
// their negations are ASCII in both; ^ and $ are the ends of the input in
// both, $ never before a final newline; quantifiers, alternation, groups)
// and translates what differs: \s and . (see ecmaSpace, ecmaDot), \v,
// \uXXXX and \u{X}, \cX, \0, named groups, a ] right after [ (ECMAScript's
// empty class), a [ inside a class (RE2 would read [:alpha:] as a POSIX
// class), and a { that starts no quantifier (a literal in ECMAScript).
// Matching is by code point, as with ECMAScript's u flag, which JSON
// Schema validators use.
func toRE2(p string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(p); {
		c := p[i]
		switch c {
		case '\\':
			s, n, ok := escape(p[i:], false)
			if !ok {
				return "", false
			}
			b.WriteString(s)
			i += n
		case '.':
			b.WriteString(ecmaDot)
			i++
		case '[':
			s, n, ok := class(p[i:])
			if !ok {
				return "", false
			}
			b.WriteString(s)
			i += n
		case '(':
			rest := p[i+1:]
			switch {
			case strings.HasPrefix(rest, "?:"):
				b.WriteString("(?:")
				i += 3
			case strings.HasPrefix(rest, "?<") && !strings.HasPrefix(rest, "?<=") && !strings.HasPrefix(rest, "?<!"):
				end := strings.IndexByte(rest, '>')
				if end < 0 {
					return "", false
				}
				b.WriteString("(?P<" + rest[2:end] + ">")
				i += 1 + end + 1
			case strings.HasPrefix(rest, "?"):
				return "", false // lookaround, modifiers
			default:
				b.WriteByte('(')
				i++
			}
		case '{':
			if n := quantifier(p[i:]); n > 0 {
				b.WriteString(p[i : i+n])
				i += n
			} else {
				b.WriteString(`\{`)
				i++
			}
		case '}', ']':
			b.WriteString(`\` + string(c))
			i++
		default:
			r, n := utf8.DecodeRuneInString(p[i:])
			if r == utf8.RuneError && n == 1 {
				return "", false
			}
			b.WriteString(p[i : i+n])
			i += n
		}
	}
	return b.String(), true
}

// quantifier returns the length of the {n}, {n,} or {n,m} at the start of
// s, or 0 when s does not start with one.
func quantifier(s string) int {
	i := 1
	digits := func() int {
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - j
	}
	if digits() == 0 {
		return 0
	}
	if i < len(s) && s[i] == ',' {
		i++
		digits()
	}
	if i < len(s) && s[i] == '}' {
		return i + 1
	}
	return 0
}

// class rewrites the character class at the start of s ("[...]").
func class(s string) (string, int, bool) {
	i := 1
	neg := false
	if i < len(s) && s[i] == '^' {
		neg = true
		i++
	}
	var items strings.Builder
	empty := true
	notSpace := false // the class has \S, which RE2 cannot put in a class
	for {
		if i >= len(s) {
			return "", 0, false // unterminated
		}
		c := s[i]
		if c == ']' {
			i++
			break
		}
		empty = false
		switch c {
		case '\\':
			if strings.HasPrefix(s[i:], `\S`) {
				// [^\S] is \s; any other [^...\S...] and a range from
				// or to \S are left to the other engine; [...\S...] is the
				// class or [^ecmaSpace].
				if neg && items.Len() == 0 && strings.HasPrefix(s[i+2:], "]") {
					neg = false
					items.WriteString(ecmaSpace)
					i += 2
					continue
				}
				if neg || strings.HasPrefix(s[i+2:], "-") && !strings.HasPrefix(s[i+3:], "]") ||
					strings.HasSuffix(items.String(), "-") && items.Len() > 1 {
					return "", 0, false
				}
				notSpace = true
				i += 2
				continue
			}
			if strings.HasPrefix(s[i:], `\s`) {
				// A range from or to \s means something else in each
				// dialect (or nothing): leave it to the other engine.
				if strings.HasPrefix(s[i+2:], "-") && !strings.HasPrefix(s[i+3:], "]") {
					return "", 0, false
				}
				if strings.HasSuffix(items.String(), "-") && items.Len() > 1 {
					return "", 0, false
				}
				items.WriteString(ecmaSpace)
				i += 2
				continue
			}
			e, n, ok := escape(s[i:], true)
			if !ok {
				return "", 0, false
			}
			items.WriteString(e)
			i += n
		case '[', '^', '&', '~', ':':
			// Literal in ECMAScript (without the v flag); escaped so RE2
			// reads no POSIX class or negation into it.
			items.WriteString(`\` + string(c))
			i++
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				return "", 0, false
			}
			items.WriteString(s[i : i+n])
			i += n
		}
	}
	if notSpace {
		if items.Len() == 0 {
			return "[^" + ecmaSpace + "]", i, true
		}
		return "(?:[" + items.String() + "]|[^" + ecmaSpace + "])", i, true
	}
	switch {
	case empty && neg: // [^] is any character
		return `[\x{0}-\x{10FFFF}]`, i, true
	case empty: // [] matches nothing
		return `[^\x{0}-\x{10FFFF}]`, i, true
	case neg:
		return "[^" + items.String() + "]", i, true
	}
	return "[" + items.String() + "]", i, true
}

// escape rewrites the escape sequence at the start of s (s[0] is '\').
func escape(s string, inClass bool) (string, int, bool) {
	if len(s) < 2 {
		return "", 0, false
	}
	c := s[1]
	switch c {
	case 'd', 'D', 'w', 'W':
		return s[:2], 2, true
	case 'b':
		if inClass {
			return `\x{08}`, 2, true // backspace
		}
		return s[:2], 2, true
	case 'B':
		if inClass {
			return "", 0, false
		}
		return s[:2], 2, true
	case 's':
		return "[" + ecmaSpace + "]", 2, true
	case 'S':
		return "[^" + ecmaSpace + "]", 2, true
	case 't', 'n', 'r', 'f':
		return s[:2], 2, true
	case 'v':
		return `\x{0B}`, 2, true
	case '0':
		if len(s) > 2 && s[2] >= '0' && s[2] <= '9' {
			return "", 0, false // legacy octal
		}
		return `\x{0}`, 2, true
	case 'x':
		if len(s) >= 4 && isHex(s[2:4]) {
			return `\x{` + s[2:4] + `}`, 4, true
		}
		return "", 0, false
	case 'u':
		r, n, ok := unicodeEscape(s)
		if !ok {
			return "", 0, false
		}
		return fmt.Sprintf(`\x{%X}`, r), n, true
	case 'c':
		if len(s) >= 3 && (s[2] >= 'a' && s[2] <= 'z' || s[2] >= 'A' && s[2] <= 'Z') {
			return fmt.Sprintf(`\x{%X}`, s[2]%32), 3, true
		}
		return "", 0, false
	case 'p', 'P':
		return property(s)
	}
	if c < utf8.RuneSelf && strings.IndexByte(`^$\.*+?()[]{}|/-`, c) >= 0 {
		return s[:2], 2, true
	}
	// Backreferences, \k<name>, and identity escapes whose letter means
	// something else to RE2 (\a, \z, \Q, ...).
	return "", 0, false
}

// unicodeEscape reads \uXXXX (a surrogate pair as one code point) or
// \u{X...} at the start of s.
func unicodeEscape(s string) (rune, int, bool) {
	if strings.HasPrefix(s, `\u{`) {
		end := strings.IndexByte(s, '}')
		if end < 4 || !isHex(s[3:end]) {
			return 0, 0, false
		}
		v, err := strconv.ParseUint(s[3:end], 16, 32)
		if err != nil || v > utf8.MaxRune || v >= 0xD800 && v <= 0xDFFF {
			return 0, 0, false
		}
		return rune(v), end + 1, true
	}
	if len(s) < 6 || !isHex(s[2:6]) {
		return 0, 0, false
	}
	v, _ := strconv.ParseUint(s[2:6], 16, 32)
	if v >= 0xD800 && v <= 0xDBFF && len(s) >= 12 && s[6:8] == `\u` && isHex(s[8:12]) {
		lo, _ := strconv.ParseUint(s[8:12], 16, 32)
		if lo >= 0xDC00 && lo <= 0xDFFF {
			return rune(0x10000 + (v-0xD800)<<10 + (lo - 0xDC00)), 12, true
		}
	}
	if v >= 0xD800 && v <= 0xDFFF {
		return 0, 0, false // a lone surrogate: no code point RE2 can match
	}
	return rune(v), 6, true
}

// property rewrites \p{...} and \P{...}: general categories and scripts,
// with ECMAScript's gc=, General_Category=, sc= and Script= prefixes.
// Names RE2 does not know make the RE2 compile fail, and the pattern goes
// to the other engine.
func property(s string) (string, int, bool) {
	if len(s) < 4 || s[2] != '{' {
		return "", 0, false
	}
	end := strings.IndexByte(s, '}')
	if end < 0 {
		return "", 0, false
	}
	name := s[3:end]
	if k, v, ok := strings.Cut(name, "="); ok {
		switch k {
		case "gc", "General_Category", "sc", "Script":
			name = v
		default:
			return "", 0, false
		}
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '_') {
			return "", 0, false
		}
	}
	if name == "" {
		return "", 0, false
	}
	return `\` + string(s[1]) + "{" + name + "}", end + 1, true
}

func isHex(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// asciiBoundary and asciiNonBoundary are ECMAScript's \b and \B (ASCII word
// characters) for the backtracking engine, whose own \b counts Unicode
// letters as word characters.
const (
	asciiWord        = `[A-Za-z0-9_]`
	asciiBoundary    = `(?:(?<=` + asciiWord + `)(?!` + asciiWord + `)|(?<!` + asciiWord + `)(?=` + asciiWord + `))`
	asciiNonBoundary = `(?:(?<=` + asciiWord + `)(?=` + asciiWord + `)|(?<!` + asciiWord + `)(?!` + asciiWord + `))`
)

// forBacktracking rewrites the two constructs the backtracking engine's
// ECMAScript mode reads differently from JavaScript (with the u flag): .
// (it matches U+2028 and U+2029) and \b, \B outside a class (Unicode word
// characters). Everything else is copied.
func forBacktracking(p string) string {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			switch n := p[i+1]; {
			case !inClass && n == 'b':
				b.WriteString(asciiBoundary)
			case !inClass && n == 'B':
				b.WriteString(asciiNonBoundary)
			default:
				b.WriteByte(c)
				b.WriteByte(n)
			}
			i++
		case inClass:
			if c == ']' {
				inClass = false
			}
			b.WriteByte(c)
		case c == '[':
			inClass = true
			b.WriteByte(c)
			// A ] right after [ or [^ closes the class in ECMAScript; copy
			// it as the class's end.
			if strings.HasPrefix(p[i+1:], "^]") {
				b.WriteString("^]")
				i += 2
				inClass = false
			} else if strings.HasPrefix(p[i+1:], "]") {
				b.WriteByte(']')
				i++
				inClass = false
			}
		case c == '.':
			b.WriteString(`[^\n\r\u2028\u2029]`)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
