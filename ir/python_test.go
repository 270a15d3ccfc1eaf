package ir

import (
	"strings"
	"testing"
)

// TestPyLiteralCut: a message's cut literal is PyLiteral's, strings cut at
// a character boundary and containers stopped once the literal is long.
func TestPyLiteralCut(t *testing.T) {
	long := strings.Repeat("é", 40) // 80 bytes
	for _, c := range []struct {
		v    any
		want string
	}{
		{map[string]any{"b": []any{true, nil}, "a": "x\ry"}, `{"a": "x\x0dy", "b": [True, None]}`},
		{long, `"` + strings.Repeat("é", 28) + `"...`},
		{[]any{strings.Repeat("a", 50), strings.Repeat("b", 50), "c"}, `["` + strings.Repeat("a", 50) + `", "` + strings.Repeat("b", 50) + `", ...]`},
	} {
		if got := PyLiteralCut(c.v, 60, 80); got != c.want {
			t.Errorf("PyLiteralCut(%v) = %s, want %s", c.v, got, c.want)
		}
	}
}
