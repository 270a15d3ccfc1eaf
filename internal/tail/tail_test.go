package tail

import (
	"strings"
	"testing"
)

func TestBufferKeepsLastBytes(t *testing.T) {
	b := &Buffer{Max: 8}
	for _, w := range []string{"abc", "defg", "hi", "", "jklmnopqrstu", "v"} {
		if n, err := b.Write([]byte(w)); n != len(w) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", w, n, err)
		}
	}
	if got := b.String(); got != "opqrstuv" {
		t.Fatalf("kept %q, want %q", got, "opqrstuv")
	}
	var zero Buffer
	zero.Write([]byte("x"))
	if zero.String() != "" {
		t.Fatal("the zero Buffer kept something")
	}
	big := &Buffer{Max: 4096}
	big.Write([]byte(strings.Repeat("a", 5000) + "end"))
	if s := big.String(); len(s) != 4096 || !strings.HasSuffix(s, "end") {
		t.Fatalf("kept %d bytes ending %q", len(s), s[len(s)-3:])
	}
}
