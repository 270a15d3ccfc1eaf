package validate

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"os/exec"
	"testing"
)

// jsRegexps answers each case with JavaScript's RegExp (the u flag, or
// without it for a pattern only valid so, as annex B reads lone braces),
// run by node: the oracle the pattern engines are checked against.
const jsRegexps = `
const cases = JSON.parse(require("fs").readFileSync(0, "utf8"));
console.log(JSON.stringify(cases.map(([p, s]) => {
  let re;
  try { re = new RegExp(p, "u"); } catch (e) { try { re = new RegExp(p); } catch (e2) { return null; } }
  return re.test(s);
})));
`

// TestPatternsAgreeWithJavaScript builds random patterns from the
// constructs whose meaning differs between ECMAScript and RE2 (or the
// backtracking engine's ECMAScript mode), with and without lookarounds,
// and checks every match against node's answer.
func TestPatternsAgreeWithJavaScript(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is needed as the JavaScript oracle: ", err)
	}
	// The constructs that differ come several times, to be drawn often.
	atoms := []string{`.`, `.`, `.`, `\s`, `\s`, `\S`, `\S`, `\b`, `\b`, `\B`, `\w`, `\W`,
		`a`, `b`, `.`, `\s`, `\S`, `\d`, `\w`, `\W`, `\b`, `\B`, `[ab]`, `[^a]`, `[\s]`, `[^\s]`,
		`[\s\S]`, `[a\S]`, `[^\S]`, `[a-c]`, `^`, `$`, `\n`, `\v`, `\x41`, `\u00e9`, `[^]`, `[]`, `(a|b)`, `(?:ab)`,
		`a{1,2}`, `a*`, `b+`, `a?`, `\.`, `[\b]`, `\0`, `[.]`, `\cA`, `[\d\s]`, `\/`, `{`, `}`, `]`, `[[:a:]]`,
		`\u{1F600}`, `\p{L}`}
	lookarounds := []string{`(?=a)`, `(?!b)`, `(?<=a)`, `(?<!\s)`, `(?=.)`, `(?=\b)`, `(a)\1`}
	chars := []rune{'a', 'b', 'c', ' ', '\n', '\r', '\t', '\v', '\u00a0', '\u2028', '\ufeff', '\u0085', 'A', '1', '_',
		'.', '-', '\x00', '\b', 'é', '\U0001F600', '/', '{', '}', ']', '[', ':'}
	// Characters the dialects disagree about, drawn half the time.
	special := []rune{'\r', '\u2028', '\u2029', '\u00a0', '\v', '\ufeff', '\u3000', 'é', '\U0001F600', '\n'}
	r := rand.New(rand.NewSource(1))
	type result struct {
		pattern, value string
		re2, got       bool
	}
	var cases [][2]string
	var ours []result
	for len(cases) < 8000 {
		var p string
		if len(cases)%2 == 1 {
			p = lookarounds[r.Intn(len(lookarounds))]
		}
		for n := r.Intn(3) + 1; n > 0; n-- {
			p += atoms[r.Intn(len(atoms))]
		}
		if len(cases)%4 < 2 { // anchored: every character of the value counts
			p = "^" + p + "$"
		}
		st := &budget{lim: DefaultLimits}
		re, err := st.compile(p)
		if err != nil {
			continue
		}
		var s []rune
		for n := r.Intn(4); n > 0; n-- {
			if r.Intn(2) == 0 {
				s = append(s, special[r.Intn(len(special))])
			} else {
				s = append(s, chars[r.Intn(len(chars))])
			}
		}
		_, onRE2 := re.(re2Regexp)
		cases = append(cases, [2]string{p, string(s)})
		ours = append(ours, result{p, string(s), onRE2, re.MatchString(string(s))})
	}
	in, _ := json.Marshal(cases)
	cmd := exec.Command(node, "-e", jsRegexps)
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var js []*bool
	if err := json.Unmarshal(out, &js); err != nil || len(js) != len(cases) {
		t.Fatalf("node answered %d of %d: %v", len(js), len(cases), err)
	}
	var onRE2, bad int
	for i, o := range ours {
		if o.re2 {
			onRE2++
		}
		if js[i] == nil {
			continue // JavaScript refuses the pattern; the engine is lenient
		}
		if *js[i] != o.got {
			if bad++; bad <= 10 {
				t.Errorf("%q on %q: got %v (RE2 %v), JavaScript %v", o.pattern, o.value, o.got, o.re2, *js[i])
			}
		}
	}
	if onRE2 < len(cases)/3 {
		t.Errorf("only %d of %d patterns ran on RE2", onRE2, len(cases))
	}
}
