package enrich

import (
	"strings"
)

var (
	// "If 'true', ...", "When true: ..." — the parameter used as a flag.
	flagTrueRe = mustCompile("(?i)\\b(?:if|when)\\s+(?:set to\\s+)?[`'\"]?(true|yes)[`'\"]?\\s*[,:]|\\bset (?:it |this |this parameter )?to [`'\"]?(true|yes)[`'\"]?\\s+to\\b")
	// quotedAnyRe: a quoted token anywhere.
	quotedAnyRe = mustCompile("[`'\"]([^`'\"\\s]+)[`'\"]")
	flagFalseRe = mustCompile("(?i)\\b(?:if|when)\\s+[`'\"]?(false|no)[`'\"]?\\s*[,:]|\\bdefaults? (?:to|is)\\s+[`'\"](false|no)[`'\"]|[`'\"](false|no)[`'\"]")
	pairRe      = mustCompile("(?i)[`'\"]?\\b(true|yes)\\b[`'\"]?\\s*(?:/|\\bor\\b|\\|)\\s*[`'\"]?\\b(false|no)\\b[`'\"]?")
	boolOpenRe  = mustCompile(`(?i)\bany value\b|\bany of the following\b|\bfor example\b|\be\.g\.`)
)

// boolStringRule proposes enum ["true","false"] (or the yes/no words) for a
// string parameter whose prose treats it as a flag.
func (c *ctx) boolStringRule(prior []Proposal) []Proposal {
	if c.typ != "string" {
		return nil
	}
	if _, has := c.schema["enum"]; has {
		return nil
	}
	for _, p := range prior {
		if _, ok := p.To["enum"]; ok {
			return nil
		}
	}
	if boolOpenRe.MatchString(c.desc) {
		return nil
	}
	words := func(t string) []any {
		if strings.EqualFold(t, "yes") {
			return []any{"yes", "no"}
		}
		return []any{"true", "false"}
	}
	if m := flagTrueRe.FindStringSubmatchIndex(c.desc); m != nil {
		g := 2
		if m[g] < 0 {
			g = 4
		}
		t := strings.ToLower(c.desc[m[g]:m[g+1]])
		for _, f := range flagFalseRe.FindAllStringSubmatchIndex(c.desc, -1) {
			fw := ""
			for g := 2; g+1 < len(f); g += 2 {
				if f[g] >= 0 {
					fw = strings.ToLower(c.desc[f[g]:f[g+1]])
				}
			}
			if (t == "true") != (fw == "false") {
				continue
			}
			lo, hi := m[0], f[1]
			if f[0] < lo {
				lo, hi = f[0], m[1]
			}
			return []Proposal{c.proposal(KindBoolString, RuleBoolString, span{lo, hi}, map[string]any{"enum": words(t)})}
		}
		// "When true, ..." alone, on a string that names no other value:
		// the string is a flag.
		other := false
		for _, q := range quotedAnyRe.FindAllStringSubmatch(c.desc, -1) {
			if !boolWords[strings.ToLower(q[1])] {
				other = true
			}
		}
		if !other && !strings.Contains(strings.ToLower(c.desc), " or ") {
			return []Proposal{c.proposal(KindBoolString, RuleBoolString, span{m[0], m[1]}, map[string]any{"enum": words(t)})}
		}
	}
	for _, m := range pairRe.FindAllStringSubmatchIndex(c.desc, -1) {
		if !c.subjectIsParam(m[0]) || c.openSentence(m[0], m[1], true) {
			continue
		}
		t := strings.ToLower(c.desc[m[2]:m[3]])
		return []Proposal{c.proposal(KindBoolString, RuleBoolString, span{m[0], m[1]}, map[string]any{"enum": words(t)})}
	}
	return nil
}
