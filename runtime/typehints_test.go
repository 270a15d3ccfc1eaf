package runtime

import (
	"testing"

	"github.com/codemode-dev/codemode/manifest"
)

// TestArgumentAt: the parameter of the argument at a checker's column, by
// keyword or by place.
func TestArgumentAt(t *testing.T) {
	params := []string{"a", "b"}
	for _, c := range []struct {
		line string
		col  int
		want string
	}{
		{`x = api.everything.get_sum(a="one", b=2)`, 28, "a"},
		{`x = api.everything.get_sum(a=1, b = "2")`, 33, "b"},
		{`x = get_sum(1, "two")`, 16, "b"},
		{`x = get_sum(f(1, 2), [3, ")"], "two")`, 32, ""},
		{`x = get_sum("a,(", "two")`, 19, "b"},
		{`x = get_sum(a == 1)`, 13, "a"},
		{`short`, 40, ""},
	} {
		if got := argumentAt(c.line, c.col, params); got != c.want {
			t.Errorf("%s at %d: %q, want %q", c.line, c.col, got, c.want)
		}
	}
}

func TestStubParams(t *testing.T) {
	tool := &manifest.Tool{Signature: `api.everything.get_annotated_message(messageType: Literal["error", "success"], *, includeImage: bool | None = None) -> Any`}
	if got := stubParams(tool); len(got) != 2 || got[0] != "messageType" || got[1] != "includeImage" {
		t.Fatalf("%q", got)
	}
}
