package ir

import (
	"strconv"
	"strings"
	"unicode"
)

// The naming rule, applied to every name the stubs print (services, tools,
// parameters, object types). A rename changes the API a program sees, so the rule is
// fixed and documented here:
//
//  1. Every run of characters that cannot appear in a Python identifier
//     (anything but ASCII letters, digits and "_") becomes one "_"; leading
//     and trailing "_" that this creates are trimmed. Case is kept.
//  2. A name that starts with a digit gets a leading "n" ("2fa" -> "n2fa").
//  3. A name that is empty after 1 becomes "x".
//  4. A Python keyword, or a name reserved by the generated module
//     (Reserved), gets a trailing "_" ("from" -> "from_", "self" ->
//     "self_").
//  5. Within one scope (the tools of a service, the parameters of a tool,
//     the object types of a service) names are taken in source order; a name
//     already taken gets "_2", "_3", ... (the first free one).
//
// Service names are additionally lower-cased, since they are module names.
// The wire name is always kept beside the identifier in the manifest.

// pyKeywords are Python's hard keywords and the soft keywords that would
// confuse a reader as parameter names.
var pyKeywords = map[string]bool{
	"False": true, "None": true, "True": true, "and": true, "as": true,
	"assert": true, "async": true, "await": true, "break": true,
	"class": true, "continue": true, "def": true, "del": true, "elif": true,
	"else": true, "except": true, "finally": true, "for": true, "from": true,
	"global": true, "if": true, "import": true, "in": true, "is": true,
	"lambda": true, "nonlocal": true, "not": true, "or": true, "pass": true,
	"raise": true, "return": true, "try": true, "while": true, "with": true,
	"yield": true, "match": true, "case": true, "type": true, "_": true,
}

// Reserved are names the generated modules use themselves: typing names
// imported at the top of every api/<service>.py; "self", the first
// parameter of every method of the type-check stubs (a parameter of that
// name could not be passed by keyword); and the builtin types the
// annotations name, which a def or a TypedDict key of that name would
// shadow for every annotation after it.
var Reserved = map[string]bool{
	"Any": true, "Literal": true, "TypedDict": true, "NotRequired": true, "Required": true,
	"self": true, "str": true, "int": true, "float": true, "bool": true,
	"bytes": true, "list": true, "dict": true, "tuple": true,
}

// IsKeyword reports whether s is a Python keyword (or soft keyword).
func IsKeyword(s string) bool { return pyKeywords[s] }

// Ident turns any name into a Python identifier by rules 1-4.
func Ident(name string) PyIdent {
	s := name // most names are identifiers already: rule 1 keeps them whole
	if !identChars(name) {
		var b strings.Builder
		b.Grow(len(name)) // a run of other characters becomes one '_' or none
		pendingUnderscore := false
		for _, r := range name {
			ok := r == '_' || r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r))
			if !ok {
				pendingUnderscore = b.Len() > 0
				continue
			}
			if pendingUnderscore {
				b.WriteByte('_')
				pendingUnderscore = false
			}
			b.WriteRune(r)
		}
		s = b.String()
	}
	s = strings.TrimRight(s, "_")
	// Keep leading underscores the source wrote itself, but not ones created
	// by rule 1 (those were never written: pendingUnderscore needs b.Len()>0).
	if s == "" {
		s = "x"
	}
	if s[0] >= '0' && s[0] <= '9' {
		s = "n" + s
	}
	if pyKeywords[s] || Reserved[s] {
		s += "_"
	}
	return PyIdent(s)
}

// identChars reports whether every byte of s is an ASCII letter, digit or
// '_' (what Ident's rule 1 keeps as it is).
func identChars(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// ServiceIdent is Ident for a module name: lower case as well.
func ServiceIdent(name string) ServiceName {
	return ServiceName(Ident(strings.ToLower(name)))
}

// Namer hands out unique identifiers within one scope (rule 5).
type Namer struct{ used map[PyIdent]bool }

// NewNamer returns a Namer with the given names already taken.
func NewNamer(taken ...string) *Namer {
	n := &Namer{used: map[PyIdent]bool{}}
	for _, t := range taken {
		n.used[PyIdent(t)] = true
	}
	return n
}

// Name returns Ident(name), or the first free "_N" variant of it.
func (n *Namer) Name(name string) PyIdent {
	return n.Take(Ident(name))
}

// Take reserves id, or its first free "_N" variant, and returns it.
func (n *Namer) Take(id PyIdent) PyIdent {
	if !n.used[id] {
		n.used[id] = true
		return id
	}
	for i := 2; ; i++ {
		c := PyIdent(string(id) + "_" + strconv.Itoa(i))
		if !n.used[c] {
			n.used[c] = true
			return c
		}
	}
}

// IsPyIdent reports whether s is an identifier the naming rule can produce:
// ASCII letters, digits and "_", not starting with a digit, no keyword.
func IsPyIdent(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' || pyKeywords[s] {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
