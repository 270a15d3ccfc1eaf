package ir

import "testing"

func TestPointers(t *testing.T) {
	doc := map[string]any{"a/b": map[string]any{"~k": []any{"x", "y"}}}
	for ptr, want := range map[string]any{"/a~1b/~0k/1": "y", "/a~1b/~0k/0": "x"} {
		if got, ok := Lookup(doc, ptr); !ok || got != want {
			t.Errorf("Lookup(%q) = %v, %v", ptr, got, ok)
		}
	}
	for _, bad := range []string{"/a~1b/~0k/2", "/a~1b/~0k/01", "/a~1b/~0k/-1", "/nope", "a"} {
		if _, ok := Lookup(doc, bad); ok {
			t.Errorf("Lookup(%q) found something", bad)
		}
	}
	if got, _ := Lookup(doc, ""); got == nil {
		t.Error(`Lookup("") is not the document`)
	}
	if e := EscapeToken("a/~b"); e != "a~1~0b" || UnescapeToken(e) != "a/~b" {
		t.Errorf("escape round trip: %q", e)
	}
}
