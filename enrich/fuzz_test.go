package enrich

import (
	"strings"
	"testing"
)

// FuzzPropose runs the rules and the verifier on arbitrary descriptions
// for each parameter type: nothing may panic, and every evidence must be a
// verbatim span of the description.
func FuzzPropose(f *testing.F) {
	for _, s := range []string{
		"+/- one of liked_at, play_count, title",
		"Valid values are:\n- public\n- private",
		"**true** or **false**; defaults to `no`",
		"Workers to start: 2 or more.",
		"Must be 100 characters or fewer, e.g. `abc`.",
		"If not included, `size` is `30`. Defaults to [\"a\"].",
		"- `x`: first (default)\n- `y`: second",
		"Up to six, capped at 5 unless configured; starting at 1 (e.g. 0)",
		"*_`**__*`_",
		"See [the docs](https://x/y). One of <code>a</code> or <code>b</code>.<br>Colour, red or blue.",
		"Currently, `a` and `b` are supported. By default, the `p` will be the current user.",
		"The id of the device. If\n\nNot supplied, the active device is used.\nIf\nnot given, 5",
	} {
		f.Add(s)
	}
	types := []string{`{"type":"string"}`, `{"type":"integer"}`, `{"type":"number"}`, `{"type":"array"}`, `{"type":"boolean"}`, `{"type":"string","enum":["a","b"],"default":"a","example":"b"}`,
		`{"anyOf":[{"type":"string","const":"a"},{"type":"string","enum":["","b"]}]}`}
	f.Fuzz(func(t *testing.T, desc string) {
		for _, ts := range types {
			s := mustSchema(t, ts)
			_, _, ds := enrichOne("t", "/properties/p", desc, s, false)
			for _, d := range ds {
				if d.Evidence != "" && !strings.Contains(desc, d.Evidence) {
					t.Fatalf("evidence %q not in %q", d.Evidence, desc)
				}
			}
		}
	})
}
