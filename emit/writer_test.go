package emit

import "testing"

// TestLnJoinIsLnOfTheJoinedLine: lnJoin writes what ln writes for the
// parts joined, whatever the parts hold (line breaks, invalid UTF-8 cut at
// a part's edge, an empty part).
func TestLnJoinIsLnOfTheJoinedLine(t *testing.T) {
	parts := []string{"", "x: int", "a\nb\tc", "\xe2\x82", "\x82\xacend", "é\u2028\ufffd", "\x1f"}
	for _, a := range parts {
		for _, b := range parts {
			for _, sep := range []string{",", ",  # "} {
				var got, want writer
				got.lnJoin(1, a, sep, b)
				want.ln(1, a+sep+b)
				if string(got.bytes()) != string(want.bytes()) || got.line != want.line {
					t.Errorf("lnJoin(%q, %q, %q) = %q, ln of them joined %q", a, sep, b, got.bytes(), want.bytes())
				}
			}
		}
	}
}
