package validate

import (
	"strings"
	"testing"
	"time"
)

// benchCheck runs Check on args b.N times; wantErr says whether each call
// must be refused.
func benchCheck(b *testing.B, v *Validator, args map[string]any, wantErr bool) {
	b.Helper()
	for b.Loop() {
		if err := v.Check("s", "t", args); (err != nil) != wantErr {
			b.Fatalf("Check: %v", err)
		}
	}
}

// BenchmarkPatternHostWork is the host work of one call per pattern kind
// and input: a benign pattern, the classic catastrophic pattern (now on
// RE2) on its catastrophic input, a lookahead pattern (backtracking engine)
// on an ordinary value, and the lookahead pattern on a catastrophic input,
// which the per-match budget cuts off. Compare the ns/op of the last with
// "benign", or read BenchmarkPatternRatio.
func BenchmarkPatternHostWork(b *testing.B) {
	cases := []struct {
		name, schema string
		value        string
		wantErr      bool
	}{
		{"benign", `{"type":"string","pattern":"^[0-9a-f]{7,40}$"}`, "0123456789abcdef", false},
		{"re2-catastrophic", `{"type":"string","pattern":"^(a+)+$"}`, evil, true},
		{"lookahead-benign", `{"type":"string","pattern":"^(?!admin)[a-z]+$"}`, "octocat", false},
		{"lookahead-catastrophic", `{"type":"string","pattern":"` + evilPattern + `"}`, evil, true},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			v := newValidator(b, patternTool(b, c.schema))
			benchCheck(b, v, map[string]any{"v": c.value}, c.wantErr)
		})
	}
}

// BenchmarkPatternRatio reports how many times a benign call's host work a
// call with a catastrophic value costs (x-benign): for a pattern RE2 runs,
// and for one only the backtracking engine runs, where the budget bounds
// it (about PatternTimeout over the benign call's microseconds).
func BenchmarkPatternRatio(b *testing.B) {
	measure := func(v *Validator, value string, n int) time.Duration {
		args := map[string]any{"v": value}
		start := time.Now()
		for range n {
			_ = v.Check("s", "t", args)
		}
		return time.Since(start) / time.Duration(n)
	}
	for _, c := range []struct{ name, pattern string }{
		{"re2", `^(a+)+$`},
		{"backtracking", evilPattern},
	} {
		b.Run(c.name, func(b *testing.B) {
			v := newValidator(b, patternTool(b, `{"type":"string","pattern":"`+c.pattern+`"}`))
			var benign, bad time.Duration
			for b.Loop() {
				benign += measure(v, "aaaa", 100)
				bad += measure(v, evil, 1)
			}
			b.ReportMetric(float64(bad)/float64(benign), "x-benign")
		})
	}
}

// BenchmarkLargeArgument is the host work of one call with a large
// argument: a 1 MiB string checked against an RE2 pattern, 10,000 list
// items, and arguments over the size and depth limits, refused by the
// measuring walk before any schema runs.
func BenchmarkLargeArgument(b *testing.B) {
	b.Run("1MiB-string", func(b *testing.B) {
		v := newValidator(b, patternTool(b, `{"type":"string","pattern":"^[a-z]+$"}`))
		benchCheck(b, v, map[string]any{"v": strings.Repeat("a", 1<<20)}, false)
	})
	b.Run("10k-items", func(b *testing.B) {
		v := newValidator(b, patternTool(b, `{"type":"array","items":{"type":"object","properties":{"id":{"type":"string","pattern":"^[a-z]+$"}}}}`))
		list := make([]any, 10_000)
		for i := range list {
			list[i] = map[string]any{"id": "abc"}
		}
		benchCheck(b, v, map[string]any{"v": list}, false)
	})
	b.Run("over-size", func(b *testing.B) {
		v := newValidator(b, patternTool(b, `{"type":"string","pattern":"^[a-z]+$"}`))
		benchCheck(b, v, map[string]any{"v": strings.Repeat("a", 64<<20)}, true)
	})
	b.Run("over-depth", func(b *testing.B) {
		v := newValidator(b, patternTool(b, `{}`))
		var x any = "leaf"
		for range 1_000_000 {
			x = []any{x}
		}
		benchCheck(b, v, map[string]any{"v": x}, true)
	})
}
