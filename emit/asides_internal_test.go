package emit

import (
	"os"
	"regexp"
	"strconv"
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

// checkMayState fails when mayState rules out a bound the phrases state.
func checkMayState(t *testing.T, desc string, n int64) {
	t.Helper()
	if mayState(desc, n) {
		return
	}
	v := strconv.FormatInt(n, 10)
	if statesBound(desc, v, true) || statesBound(desc, v, false) {
		t.Fatalf("mayState(%q, %d) is false, but the phrases state it as a bound", desc, n)
	}
	for _, m := range boundRange.FindAllStringSubmatch(desc, -1) {
		if sameNum(m[1], v) || sameNum(m[2], v) {
			t.Fatalf("mayState(%q, %d) is false, but a range states it", desc, n)
		}
	}
}

// TestMayStateMissesNoBound: a length or count mayState rules out is
// stated by none of the bound phrases, however the description writes
// its numbers (grouped, signed, with a fraction, padded, cut short).
func TestMayStateMissesNoBound(t *testing.T) {
	descs := []string{
		"5,000 max", "max 5000.0", "max 05000", "max +5000", "max 5,000,000", "up to 1,024 items", "at most 15000",
		"max 0.0", "-0 max", "max 5000.5", "limit of 1,000.5", "between 1 and 5,000", "1..5000", "max: 50 00",
		"at least 005,000", "(1-1,000,000)", ">= 1,0000", "≤ 1e3", "MAXIMUM 1000", "no more than 99,999,999 bytes",
	}
	for _, d := range descs {
		for _, n := range []int64{0, 1, 5, 50, 99, 1000, 1024, 5000, 15000, 99999999, 1000000, -5} {
			checkMayState(t, d, n)
		}
	}
}

// FuzzMayState: mayState rules out no bound the phrases state.
func FuzzMayState(f *testing.F) {
	f.Add("max 5,000", int64(5000))
	f.Add("between 1 and 05,000.0", int64(5000))
	f.Fuzz(func(t *testing.T, desc string, n int64) { checkMayState(t, desc, n) })
}
