package validate

import (
	"net/url"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dlclark/regexp2/v2"

	"github.com/codemode-dev/codemode/ir"
)

// keyRule says which top-level argument keys a tool takes: its declared
// parameters and properties, and the extra keys its schema explicitly
// allows (additionalProperties or unevaluatedProperties true or a schema,
// or a patternProperties pattern the key matches). JSON Schema lets any
// other key through when additionalProperties is absent; a call does not:
// a key the tool never declared ("_meta", "__proto__", "admin") is not
// forwarded to the upstream. Without such an allowance this is the set
// the generated signature takes, so run_tool and direct calls send what
// api.<service>.<tool> can send.
type keyRule struct {
	lim      Limits
	declared map[string]bool
	args     []string // declared Args in call order, for messages
	open     bool     // any key may be passed
	patterns []keyPattern
}

// keyPattern is a patternProperties pattern: RE2 (re) or, when only the
// backtracking engine can run it, bt.
type keyPattern struct {
	re *regexp.Regexp
	bt *regexp2.Regexp
}

// newKeyRule reads the rule from the tool's parameters and Input schema.
// A tool without a schema takes any key.
func newKeyRule(args []string, input ir.Schema, lim Limits) *keyRule {
	r := &keyRule{lim: lim, declared: map[string]bool{}, args: args}
	for _, a := range args {
		r.declared[a] = true
	}
	// No schema takes any key; a schema closed at the top level refuses
	// the others itself, worded with the missing arguments in view.
	if input == nil || input["additionalProperties"] == false {
		r.open = true
		return r
	}
	seen := map[string]bool{}
	var walk func(s map[string]any)
	walk = func(s map[string]any) {
		if props, ok := s["properties"].(map[string]any); ok {
			for k := range props {
				r.declared[k] = true
			}
		}
		for _, kw := range []string{"additionalProperties", "unevaluatedProperties"} {
			if v, ok := s[kw]; ok && v != false {
				r.open = true
			}
		}
		if pp, ok := s["patternProperties"].(map[string]any); ok {
			var pats []string
			for p := range pp {
				pats = append(pats, p)
			}
			sort.Strings(pats)
			for _, p := range pats {
				if t, ok := toRE2(p); ok {
					if re, err := regexp.Compile(t); err == nil {
						r.patterns = append(r.patterns, keyPattern{re: re})
						continue
					}
				}
				if re, err := regexp2.Compile(p, regexp2.ECMAScript); err == nil {
					re.MatchTimeout = lim.PatternTimeout
					r.patterns = append(r.patterns, keyPattern{bt: re})
				}
			}
		}
		if ref, ok := s["$ref"].(string); ok && strings.HasPrefix(ref, "#") && !seen[ref] {
			seen[ref] = true
			ptr := ref[1:]
			if u, err := url.PathUnescape(ptr); err == nil {
				ptr = u
			}
			if t, ok := ir.Lookup(map[string]any(input), ptr); ok {
				if m, ok := t.(map[string]any); ok {
					walk(m)
				}
			}
		}
		for _, kw := range []string{"allOf", "anyOf", "oneOf"} {
			if bs, ok := s[kw].([]any); ok {
				for _, b := range bs {
					if m, ok := b.(map[string]any); ok {
						walk(m)
					}
				}
			}
		}
		for _, kw := range []string{"then", "else"} {
			if m, ok := s[kw].(map[string]any); ok {
				walk(m)
			}
		}
	}
	walk(input)
	var more []string
	for k := range r.declared {
		if !contains(args, k) {
			more = append(more, k)
		}
	}
	sort.Strings(more)
	r.args = append(append([]string(nil), args...), more...)
	return r
}

// undeclared lists, sorted, the keys of args the rule does not allow. A
// key is matched against a backtracking pattern within the same limits as
// a value (length, per-match timeout, time per call); a key that cannot be
// matched within them is not allowed.
func (r *keyRule) undeclared(args map[string]any) []string {
	if r.open {
		return nil
	}
	var out []string
	var spent time.Duration
	allowed := func(k string) bool {
		for _, p := range r.patterns {
			if p.re != nil {
				if p.re.MatchString(k) {
					return true
				}
				continue
			}
			if spent >= r.lim.CallRegexTime || utf8.RuneCountInString(k) > r.lim.BacktrackInput {
				continue
			}
			start := time.Now()
			ok, err := p.bt.MatchString(k)
			spent += time.Since(start)
			if ok && err == nil {
				return true
			}
		}
		return false
	}
	for k := range args {
		if !r.declared[k] && !allowed(k) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// unknownKeys words the refusal of undeclared keys: one line naming them
// and the arguments the tool takes, with a "did you mean" for one key
// close to a declared one.
func (e *entry) unknownKeys(keys []string) *Error {
	shown := make([]string, len(keys))
	for i, k := range keys {
		shown[i] = short(k)
	}
	p := Problem{Kind: "TypeError", Given: quoteList(shown, "'", 12)}
	msg := "unknown argument " + p.Given
	if len(keys) > 1 {
		msg = "unknown arguments " + p.Given
	}
	list := uniq(e.keys.args)
	if len(keys) == 1 {
		if i := closest(keys[0], list); i >= 0 {
			p.Expected = "'" + list[i] + "'"
			p.Fix = "Did you mean '" + list[i] + "'?"
		}
	}
	switch {
	case len(list) == 0:
		msg += "; this tool takes no arguments"
	default:
		if p.Expected == "" {
			p.Expected = quoteList(list, "'", 12)
		}
		msg += "; the arguments are " + quoteList(list, "'", 12)
	}
	if p.Fix != "" {
		msg += ". " + p.Fix
	}
	p.Message = msg
	return &Error{Kind: p.Kind, Tool: e.call, Expected: p.Expected, Given: p.Given, Fix: p.Fix, Problems: []Problem{p}}
}
