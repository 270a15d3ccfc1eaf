package emit

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// asidesExpr is what replaceAsides stands for.
var asidesExpr = regexp.MustCompile(`\s*\([^()]*\)`)

func checkAsides(t *testing.T, s string) {
	t.Helper()
	mark := func(m string) string { return "<" + m + ">" }
	if got, want := replaceAsides(s, mark), asidesExpr.ReplaceAllStringFunc(s, mark); got != want {
		t.Fatalf("replaceAsides(%q) = %q, the expression gives %q", s, got, want)
	}
}

// TestReplaceAsidesIsTheExpression: the hand-written scan replaces what
// the regular expression it stands for replaces, on hostile strings and on
// every line of two corpus specs.
func TestReplaceAsidesIsTheExpression(t *testing.T) {
	for _, s := range []string{
		"", "(", ")", "()", " ()", "a (b) c", "a ((b) c", "a (b (c) d) e", "((()))", ")(", "(a)(b)",
		"x \t\n\f\r(y)", "x \v(y)", "x\u00a0(y)", " ( ", "(a\nb)", "(\xff)", "\xff (a)", "a  (b)  (c)",
		"one of (a, b, c).", "(a) (", "( (a)", "a) (b", "((a)", "(a))",
	} {
		checkAsides(t, s)
	}
	for _, f := range []string{"kubernetes-swagger.json", "stripe.yaml"} {
		data, err := os.ReadFile("../testdata/corpus/openapi/" + f)
		if err != nil {
			t.Fatal(err)
		}
		for l := range strings.Lines(string(data)) {
			if strings.Contains(l, "(") {
				checkAsides(t, l)
			}
		}
	}
}

// FuzzReplaceAsides: the scan and the expression agree on any string.
func FuzzReplaceAsides(f *testing.F) {
	for _, s := range []string{"a (b) c", "a ((b) c", " \t(x)(y) (", "(\xff)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkAsides(t, s) })
}
