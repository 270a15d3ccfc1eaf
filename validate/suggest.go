package validate

import "github.com/codemode-dev/codemode/internal/suggest"

// closest returns the index of the candidate the given name most likely
// meant, or -1: suggest.Closest, the one rule.
func closest(name string, cands []string) int { return suggest.Closest(name, cands) }
