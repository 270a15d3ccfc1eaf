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
	seen := map[memoID]int{}
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

// TestMemoKeyOfNoDescriptionIsWithoutDescription: a schema read as
// noDescription keys as its copy without "description" does (the memos
// key views so instead of copying them), and apart from its own
// description it still tells schemas apart.
func TestMemoKeyOfNoDescriptionIsWithoutDescription(t *testing.T) {
	for _, s := range []map[string]any{
		nil, {}, {"description": "d"}, {"type": "string"}, {"type": "string", "description": "d"},
		{"description": "d", "properties": map[string]any{"x": map[string]any{"description": "kept"}}},
		{"": "empty key", "description": 1.0},
	} {
		got, ok1 := memoKey("p", noDescription(s), true)
		want, ok2 := memoKey("p", withoutDescription(s), true)
		if !ok1 || !ok2 || got != want {
			t.Errorf("%v: noDescription keys %x (%v), withoutDescription %x (%v)", s, got, ok1, want, ok2)
		}
	}
	a, _ := memoKey(noDescription{"type": "string", "description": "a"})
	b, _ := memoKey(noDescription{"type": "integer", "description": "a"})
	if a == b {
		t.Error("schemas that differ beside their description share a key")
	}
}
