package runtime

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/manifest"
)

// The checker's diagnostics about a tool call's arguments, which name the
// stub's class (`_svc_everything.get_sum`) rather than what the program
// wrote, and not the parameter a wrong type was given to.
var (
	typingArgType = regexp.MustCompile("(?m)^[^\n]*?:(\\d+):(\\d+): error\\[invalid-argument-type\\] Argument to bound method `_svc_(\\w+)\\.(\\w+)` is incorrect: Expected `([^`\n]+)`, found `([^`\n]+)`")
	typingUnknown = regexp.MustCompile("Argument `(\\w+)` does not match any known parameter of bound method `_svc_(\\w+)\\.(\\w+)`")
	typingMissing = regexp.MustCompile("No argument provided for required parameter `(\\w+)` of bound method `_svc_(\\w+)\\.(\\w+)`")
)

// argHints restates the checker's argument diagnostics in the program's
// terms, as the validator's messages are: the call form, the parameter,
// what it expects and what it got, and a did-you-mean for a misspelt
// keyword.
func (r *Runtime) argHints(report, code string) []string {
	var hints []string
	lines := strings.Split(code, "\n")
	for _, m := range typingArgType.FindAllStringSubmatch(report, -1) {
		t := r.stubTool(m[3], m[4])
		if t == nil {
			continue
		}
		line, _ := strconv.Atoi(m[1])
		col, _ := strconv.Atoi(m[2])
		param := ""
		if line >= 1 && line <= len(lines) {
			param = argumentAt(lines[line-1], col, stubParams(t))
		}
		if param == "" {
			hints = append(hints, fmt.Sprintf("Hint: %s(...): an argument expected %s, got %s.", t.Call, m[5], m[6]))
			continue
		}
		hints = append(hints, fmt.Sprintf("Hint: %s(%s=...): argument %s: expected %s, got %s.", t.Call, param, param, m[5], m[6]))
	}
	// A misspelt keyword most likely meant a required parameter the call
	// left out.
	missing := map[string][]string{}
	for _, m := range typingMissing.FindAllStringSubmatch(report, -1) {
		missing[m[2]+"."+m[3]] = append(missing[m[2]+"."+m[3]], m[1])
	}
	for _, m := range typingUnknown.FindAllStringSubmatch(report, -1) {
		t := r.stubTool(m[2], m[3])
		if t == nil {
			continue
		}
		names := stubParams(t)
		msg := fmt.Sprintf("Hint: %s has no argument %s", t.Call, m[1])
		best := closest(m[1], missing[m[2]+"."+m[3]])
		if best == "" {
			best = closest(m[1], names)
		}
		if best != "" {
			msg += fmt.Sprintf("; did you mean %s=...?", best)
		} else {
			msg += "."
		}
		if len(names) == 0 {
			msg += " It takes no arguments."
		} else {
			msg += " It takes " + strings.Join(names, ", ") + "."
		}
		hints = append(hints, msg)
	}
	for _, m := range typingMissing.FindAllStringSubmatch(report, -1) {
		t := r.stubTool(m[2], m[3])
		if t == nil {
			continue
		}
		hints = append(hints, fmt.Sprintf("Hint: %s(%s=...): argument %s is required.", t.Call, m[1], m[1]))
	}
	return hints
}

// stubTool is the tool the stub's class _svc_<svc> declares as method py.
func (r *Runtime) stubTool(svc, py string) *manifest.Tool {
	s, ok := r.cfg.Manifest.Service(ir.ServiceName(svc))
	if !ok {
		return nil
	}
	for i := range s.Tools {
		if string(s.Tools[i].Py) == py {
			return &s.Tools[i]
		}
	}
	return nil
}

// stubParams are the parameter names of a tool's stub, in its signature's
// order.
func stubParams(t *manifest.Tool) []string {
	sig := t.Signature
	open := strings.IndexByte(sig, '(')
	if open < 0 {
		return nil
	}
	var names []string
	for _, part := range splitTop(sig[open+1 : closingParen(sig, open)]) {
		name, _, _ := strings.Cut(strings.TrimSpace(part), ":")
		name, _, _ = strings.Cut(name, "=")
		name = strings.TrimSpace(name)
		if name != "" && name != "*" && name != "self" && !strings.HasPrefix(name, "*") {
			names = append(names, name)
		}
	}
	return names
}

// argumentAt names the parameter of the argument that starts at column
// col (1-based) of line: its keyword, or the positional parameter its
// place in the call gives it.
func argumentAt(line string, col int, params []string) string {
	i := col - 1
	if i < 0 || i >= len(line) {
		return ""
	}
	if m := keywordArg.FindStringSubmatch(line[i:]); m != nil {
		return m[1]
	}
	// Positional: count the arguments before it, back to the call's
	// opening parenthesis.
	depth, index := 0, 0
	var quote byte
	for j := i - 1; j >= 0; j-- {
		c := line[j]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == ')' || c == ']' || c == '}':
			depth++
		case c == '[' || c == '{':
			depth--
		case c == '(':
			if depth == 0 {
				if index < len(params) {
					return params[index]
				}
				return ""
			}
			depth--
		case c == ',' && depth == 0:
			index++
		}
	}
	return ""
}

var keywordArg = regexp.MustCompile(`^([A-Za-z_]\w*)\s*=[^=]`)

// splitTop splits s at the commas outside brackets and strings.
func splitTop(s string) []string {
	var parts []string
	depth, start := 0, 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		case c == ',' && depth == 0:
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	return append(parts, s[start:])
}

// closingParen is the index of the parenthesis that closes s[open].
func closingParen(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return len(s)
}
