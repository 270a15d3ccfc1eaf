package enrich

import (
	"encoding/json"
	"testing"
)

// TestMemoKeyEqualOnlyWhenEqual: the memo key of two inputs is the same
// when they are equal (map order aside) and differs when they are not, so
// a memo never hands one parameter's proposals or verdicts to another.
func TestMemoKeyEqualOnlyWhenEqual(t *testing.T) {
	distinct := [][]any{
		{"ab", "c"}, {"a", "bc"}, {"abc"},
		{json.Number("1")}, {"1"}, {1.0}, {1}, {int64(1)}, {true}, {false}, {nil},
		{[]any{}}, {[]any(nil)}, {map[string]any{}}, {map[string]any(nil)},
		{map[string]any{"a": "b"}}, {map[string]any{"a": []any{"b"}}}, {[]any{"a", "b"}},
		{map[string]any{"a": map[string]any{"b": 1.0}}}, {map[string]any{"a": map[string]any{"b": 2.0}}},
		{map[string]string{"a": "b"}},
	}
	seen := map[string]int{}
	for i, parts := range distinct {
		k, ok := memoKey(parts...)
		if !ok {
			t.Fatalf("%v: no key", parts)
		}
		if j, dup := seen[k]; dup {
			t.Errorf("%v and %v share a key", distinct[j], parts)
		}
		seen[k] = i
	}
	a, _ := memoKey(map[string]any{"x": 1.0, "y": []any{"z"}, "w": nil})
	b, _ := memoKey(map[string]any{"w": nil, "y": []any{"z"}, "x": 1.0})
	if a != b {
		t.Error("equal maps have different keys")
	}
}
