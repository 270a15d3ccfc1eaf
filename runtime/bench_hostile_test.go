package runtime_test

import (
	"context"
	"testing"
)

// BenchmarkRunToolAdversarialName is the host work of one run_tool call on
// a name that names no tool: a misspelling (fuzzy matched), a 1 MB name
// (refused by length before matching) and a 20 MB name (refused by the call
// size cap before decoding). Compare the three as ratios: the long names
// must cost about what the short one does, not seconds.
func BenchmarkRunToolAdversarialName(b *testing.B) {
	for _, c := range []struct{ name, expr string }{
		{"misspelt", "'echoo'"},
		{"1MB", "'q' * (1 << 20)"},
		{"20MB", "'q' * (20 << 20)"},
	} {
		b.Run(c.name, func(b *testing.B) {
			rt := newBenchRuntime(b, nil)
			code := "n = " + c.expr + "\ntry:\n    run_tool(n, {})\nexcept (NameError, ValueError):\n    pass\n"
			for b.Loop() {
				res, err := rt.Run(context.Background(), "b", code)
				if err != nil || !res.OK() || len(res.Calls) != 1 || res.Calls[0].Status != "refused" {
					b.Fatal(err, res.Error, res.Calls)
				}
			}
		})
	}
}
