package validate

import (
	"encoding/json"
	"errors"
	"github.com/codemode-dev/codemode/ir"
	"strings"
	"sync"
	"testing"
	"time"
)

// evil is a value on which ^(?!x)(a+)+$ backtracks exponentially: the
// lookahead keeps the pattern off RE2, the nested quantifier and the final
// "!" do the rest.
var evil = strings.Repeat("a", 40) + "!"

const evilPattern = `^(?!x)(a+)+$`

// patternTool is a tool whose one argument v has the given schema.
func patternTool(t testing.TB, vSchema string) Tool {
	return FromTool("s", mkTool(t, "t", decode(t, `{"type":"object","properties":{"v":`+vSchema+`}}`)))
}

// TestTimedOutPatternCountsAsValid pins the bug where a backtracking match
// that ran out of time counted as a match: now it refuses the call, with
// the pattern and the budget named, wherever the pattern sits (a not or an
// anyOf would turn a plain "no match" into a pass).
func TestTimedOutPatternCountsAsValid(t *testing.T) {
	refusal := `api.s.t: argument v could not be checked against the pattern ^(?!x)(a+)+$ within its 25 ms budget (the pattern backtracks too much on this value); the call was refused`
	for _, sch := range []string{
		`{"type":"string","pattern":"^(?!x)(a+)+$"}`,
		`{"not":{"type":"string","pattern":"^(?!x)(a+)+$"}}`,
		`{"anyOf":[{"type":"string","pattern":"^(?!x)(a+)+$"},{"type":"string","minLength":1}]}`,
	} {
		v := newValidator(t, patternTool(t, sch))
		err := v.Check("s", "t", map[string]any{"v": evil})
		if err == nil || err.Error() != refusal {
			t.Errorf("%s:\n got: %v\nwant: %s", sch, err, refusal)
		}
		var e *Error
		if !errors.As(err, &e) || e.Kind != "ValueError" || e.Param != "v" {
			t.Errorf("%s: fields %+v", sch, e)
		}
	}
	// The same copy of the schema serves the next call with a fresh budget.
	v := newValidator(t, patternTool(t, `{"type":"string","pattern":"^(?!x)(a+)+$"}`))
	_ = v.Check("s", "t", map[string]any{"v": evil})
	run(t, v, "s", "t", []call{
		{`{"v":"aaa"}`, ``},
		{`{"v":"xaa"}`, `api.s.t: argument v must match the pattern ^(?!x)(a+)+$; got "xaa"`},
	})
}

// TestTimedOutPatternInNestedValue names where the value sits.
func TestTimedOutPatternInNestedValue(t *testing.T) {
	v := newValidator(t, patternTool(t, `{"type":"array","items":{"type":"object","properties":{"id":{"type":"string","pattern":"^(?!x)(a+)+$"}}}}`))
	err := v.Check("s", "t", map[string]any{"v": []any{map[string]any{"id": "aa"}, map[string]any{"id": evil}}})
	want := `api.s.t: argument v[1].id could not be checked against the pattern ^(?!x)(a+)+$ within its 25 ms budget (the pattern backtracks too much on this value); the call was refused`
	if err == nil || err.Error() != want {
		t.Errorf("got: %v\nwant: %s", err, want)
	}
}

// TestTimedOutPatternPropertyKey: a patternProperties pattern that runs
// out of time on a key refuses too.
func TestTimedOutPatternPropertyKey(t *testing.T) {
	v := newValidator(t, patternTool(t, `{"type":"object","patternProperties":{"^(?!x)(a+)+$":{"type":"integer"}}}`))
	err := v.Check("s", "t", map[string]any{"v": map[string]any{evil: json.Number("1")}})
	want := `api.s.t: key '` + evil + `' of argument v could not be checked against the pattern ^(?!x)(a+)+$ within its 25 ms budget (the pattern backtracks too much on this value); the call was refused`
	if err == nil || err.Error() != want {
		t.Errorf("got: %v\nwant: %s", err, want)
	}
}

// TestLongValueOnBacktrackingPatternRefused: the backtracking engine runs
// on at most BacktrackInput characters.
func TestLongValueOnBacktrackingPatternRefused(t *testing.T) {
	v := newValidator(t, patternTool(t, `{"type":"string","pattern":"^(?!\\s*$).+"}`))
	run(t, v, "s", "t", []call{
		{`{"v":"` + strings.Repeat("x", 10_000) + `"}`, ``},
		{`{"v":"` + strings.Repeat("x", 10_001) + `"}`, `api.s.t: argument v is 10001 characters long; the pattern ^(?!\s*$).+ needs the backtracking engine, which runs on at most 10000 characters; the call was refused`},
		{`{"v":"  "}`, `api.s.t: argument v must match the pattern ^(?!\s*$).+; got "  "`},
	})
}

// TestCallRegexTimeSpent: once a call's pattern time is spent, the next
// backtracking match refuses the call.
func TestCallRegexTimeSpent(t *testing.T) {
	tl := patternTool(t, `{"type":"array","items":{"type":"string","pattern":"^(?!x)a+$"}}`)
	v, err := NewWithLimits([]Tool{tl}, Limits{CallRegexTime: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	err = v.Check("s", "t", map[string]any{"v": []any{"aa", "aaa"}})
	want := `api.s.t: argument v[1] could not be checked against the pattern ^(?!x)a+$: this call's 1ns of pattern matching is spent; the call was refused`
	if err == nil || err.Error() != want {
		t.Errorf("got: %v\nwant: %s", err, want)
	}
	if err := v.Check("s", "t", map[string]any{"v": []any{"aa"}}); err != nil {
		t.Errorf("one match within the budget: %v", err)
	}
}

// TestCatastrophicPatternRunsOnRE2: a pattern without lookaround or
// backreferences runs on RE2 (linear time), so the classic catastrophic
// input is answered, not timed out.
func TestCatastrophicPatternRunsOnRE2(t *testing.T) {
	v := newValidator(t, patternTool(t, `{"type":"string","pattern":"^(a+)+$"}`))
	run(t, v, "s", "t", []call{
		{`{"v":"` + evil + `"}`, `api.s.t: argument v must match the pattern ^(a+)+$; got "` + evil + `"`},
		{`{"v":"aaaa"}`, ``},
	})
	if e := v.tools[ir.ToolID{Service: "s", Wire: "t"}]; e.first.st.backtracking.Load() != 0 {
		t.Error("^(a+)+$ compiled for the backtracking engine")
	}
}

// TestECMAPatternSemantics checks patterns whose meaning differs between
// ECMAScript and RE2 against what JavaScript answers (node, RegExp with the
// u flag; the annex B literal braces without it), and which engine runs
// each one.
func TestECMAPatternSemantics(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		re2     bool // runs on RE2
		values  map[string]bool
	}{
		{`^\s$`, true, map[string]bool{"\u00a0": true, "\v": true, "\ufeff": true, "\u2028": true, " ": true, "x": false, "\u0085": false}},
		{`^\S$`, true, map[string]bool{"\u00a0": false, "x": true}},
		{`^[\s]$`, true, map[string]bool{"\u3000": true, "a": false}},
		{`^[^\s]$`, true, map[string]bool{"\u3000": false, "a": true}},
		{`^[\S]$`, true, map[string]bool{"\u3000": false, "a": true}},
		{`^[\s\S]{2}$`, true, map[string]bool{"\n\u2028": true, "ab": true, "a": false}},
		{`^[a\S]$`, true, map[string]bool{"\u3000": false, "b": true}},
		{`^[^\S]$`, true, map[string]bool{"\u3000": true, "b": false}},
		{`^[^a\S]$`, false, map[string]bool{"\u3000": true, "a": false, "b": false}},
		{`^.$`, true, map[string]bool{"\r": false, "\n": false, "\u2028": false, "a": true, "\U0001F600": true}},
		{`^[^]$`, true, map[string]bool{"\n": true, "a": true}},
		{`[]`, true, map[string]bool{"": false, "a": false}},
		{`^\d+$`, true, map[string]bool{"123": true, "\u0661\u0662": false}},
		{`^\w+$`, true, map[string]bool{"abc_1": true, "\u00e9": false}},
		{`\bfoo\b`, true, map[string]bool{"a foo b": true, "\u00e9foo": true}},
		{`^abc$`, true, map[string]bool{"abc": true, "abc\n": false}},
		{`^[[:alpha:]]+$`, true, map[string]bool{"abc": false, "a]": true, "[]]": true}},
		{`^\u00e9$`, true, map[string]bool{"\u00e9": true, "e": false}},
		{`^\u{1F600}$`, true, map[string]bool{"\U0001F600": true}},
		{`^\ud83d\ude00$`, true, map[string]bool{"\U0001F600": true}},
		{`^\cJ$`, true, map[string]bool{"\n": true}},
		{`^a{,5}$`, true, map[string]bool{"a{,5}": true, "aaa": false}},
		{`^a{2,3}$`, true, map[string]bool{"aa": true, "aaaa": false}},
		{`^x{$`, true, map[string]bool{"x{": true}},
		{`^a]$`, true, map[string]bool{"a]": true}},
		{`^a}$`, true, map[string]bool{"a}": true}},
		{`^[a-z\-]+$`, true, map[string]bool{"a-b": true, "A": false}},
		{`^\x41\0$`, true, map[string]bool{"A\x00": true}},
		{`^\/api\/$`, true, map[string]bool{"/api/": true}},
		{`^(?<year>\d{4})-\d{2}$`, true, map[string]bool{"2024-01": true, "24-01": false}},
		{`^\p{L}+$`, true, map[string]bool{"\u00e9t\u00e9": true, "1": false}},
		{`^\p{Script=Greek}+$`, true, map[string]bool{"\u03b1\u03b2": true, "a": false}},
		{`^[\b]$`, true, map[string]bool{"\b": true, "b": false}},
		{`^\v$`, true, map[string]bool{"\v": true}},
		{`^[^a]$`, true, map[string]bool{"\U0001F600": true, "a": false}},
		{`^[a\]]+$`, true, map[string]bool{"a]a": true}},
		{`^[\u0041-\u005A]+$`, true, map[string]bool{"ABC": true, "abc": false}},
		{`^(?!admin)[a-z]+$`, false, map[string]bool{"bob": true, "administrator": false}},
		{`^(?=.*\d)(?=.*[a-z]).{8,}$`, false, map[string]bool{"abcdefg1": true, "abcdefgh": false}},
		{`^(a)\1$`, false, map[string]bool{"aa": true, "ab": false}},
		// The backtracking engine's ECMAScript mode, corrected where it
		// differs from JavaScript: . and U+2028, \b and Unicode letters.
		{`(?=.)^.$`, false, map[string]bool{"\u2028": false, "\r": false, "a": true, "\U0001F600": true}},
		{`(?=f)\bfoo`, false, map[string]bool{"\u00e9foo": true, "afoo": false}},
		{`(?=f)\Bfoo`, false, map[string]bool{"\u00e9foo": false, "afoo": true}},
		{`(?!x)^\p{L}$`, false, map[string]bool{"\u00e9": true, "1": false}},
		{`(?!x)^\u{1F600}$`, false, map[string]bool{"\U0001F600": true}},
		{`(?!x)^\s$`, false, map[string]bool{"\u00a0": true, "\v": true, "\u0085": false}},
		{`(?!x)^[.\b]+$`, false, map[string]bool{".\b": true, "a": false}},
		{`(?!x)^a{,5}$`, false, map[string]bool{"a{,5}": true}},
	} {
		st := &budget{lim: DefaultLimits}
		re, err := st.compile(tc.pattern)
		if err != nil {
			t.Errorf("%s: %v", tc.pattern, err)
			continue
		}
		if re.String() != tc.pattern {
			t.Errorf("%s: String() = %s", tc.pattern, re.String())
		}
		if _, ok := re.(re2Regexp); ok != tc.re2 {
			t.Errorf("%s: on RE2 = %v, want %v", tc.pattern, ok, tc.re2)
		}
		for val, want := range tc.values {
			if got := re.MatchString(val); got != want {
				t.Errorf("%s on %q = %v, want %v", tc.pattern, val, got, want)
			}
		}
	}
}

// TestDeepArgumentsRefused, TestHugeArgumentsRefused and
// TestTooManyValuesRefused: the arguments are measured before any schema
// runs, and the walk stops at the first limit exceeded.
func TestDeepArgumentsRefused(t *testing.T) {
	v := newValidator(t, patternTool(t, `{}`))
	deep := func(n int) map[string]any {
		var x any = "leaf"
		for range n {
			x = []any{x}
		}
		return map[string]any{"v": x}
	}
	if err := v.Check("s", "t", deep(63)); err != nil {
		t.Errorf("64 levels: %v", err)
	}
	want := `api.s.t: the arguments nest more than 64 levels deep; pass flatter data`
	for _, n := range []int{64, 100_000} {
		if err := v.Check("s", "t", deep(n)); err == nil || err.Error() != want {
			t.Errorf("%d levels: got %v", n+1, err)
		}
	}
}

func TestHugeArgumentsRefused(t *testing.T) {
	v := newValidator(t, patternTool(t, `{"type":"string","pattern":"^[a-z]+$"}`))
	if err := v.Check("s", "t", map[string]any{"v": strings.Repeat("a", 4<<20-16)}); err != nil {
		t.Errorf("just under: %v", err)
	}
	err := v.Check("s", "t", map[string]any{"v": strings.Repeat("a", 4<<20)})
	want := `api.s.t: the arguments are larger than 4 MiB; pass less data per call`
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
	var e *Error
	if !errors.As(err, &e) || e.Kind != "ValueError" {
		t.Errorf("fields %+v", e)
	}
}

func TestTooManyValuesRefused(t *testing.T) {
	v := newValidator(t, patternTool(t, `{"type":"array"}`))
	list := make([]any, 100_000)
	for i := range list {
		list[i] = json.Number("1")
	}
	err := v.Check("s", "t", map[string]any{"v": list})
	want := `api.s.t: the arguments hold more than 100,000 values; pass fewer per call`
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
	if err := v.Check("s", "t", map[string]any{"v": list[:99_990]}); err != nil {
		t.Errorf("under: %v", err)
	}
}

// TestUndeclaredKeysForwarded pins the bug where run_tool's keys the
// schema never declared (_meta, __proto__, admin) reached the upstream:
// JSON Schema lets them through when additionalProperties is absent; a call
// refuses them unless the schema allows extra keys explicitly.
func TestUndeclaredKeysForwarded(t *testing.T) {
	open := func(extra string) Tool {
		return FromTool("s", mkTool(t, "t", decode(t, `{"type":"object","properties":{"message":{"type":"string"},"count":{"type":"integer"}}`+extra+`}`)))
	}
	v := newValidator(t, open(""))
	run(t, v, "s", "t", []call{
		{`{"message":"hi"}`, ``},
		{`{"message":"hi","admin":true}`, `api.s.t: unknown argument 'admin'; the arguments are 'count', 'message'`},
		{`{"message":"hi","_meta":{},"__proto__":{"admin":true},"admin":true}`, `api.s.t: unknown arguments '__proto__', '_meta', 'admin'; the arguments are 'count', 'message'`},
		{`{"mesage":"hi"}`, `api.s.t: unknown argument 'mesage'; the arguments are 'count', 'message'. Did you mean 'message'?`},
	})
	long := strings.Repeat("k", 1000)
	if err := v.Check("s", "t", map[string]any{long: 1}); err == nil || err.Error() != "api.s.t: unknown argument '"+strings.Repeat("k", 61)+"...'; the arguments are 'count', 'message'" {
		t.Errorf("long key: %v", err)
	}
	var e *Error
	if err := v.Check("s", "t", decode(t, `{"admin":true}`)); !errors.As(err, &e) || e.Kind != "TypeError" || e.Given != "'admin'" || e.Expected != "'count', 'message'" {
		t.Errorf("fields %+v", e)
	}
	for _, extra := range []string{`,"additionalProperties":true`, `,"additionalProperties":{}`, `,"unevaluatedProperties":true`} {
		v := newValidator(t, open(extra))
		run(t, v, "s", "t", []call{{`{"message":"hi","admin":true}`, ``}})
	}
	v = newValidator(t, open(`,"additionalProperties":{"type":"string"}`))
	run(t, v, "s", "t", []call{
		{`{"message":"hi","note":"x"}`, ``},
		{`{"message":"hi","note":1}`, `api.s.t: argument note: expected str, got int (1)`},
	})
	v = newValidator(t, open(`,"patternProperties":{"^x-":{"type":"string"},"^(?=y)y-":{}}`))
	run(t, v, "s", "t", []call{
		{`{"x-trace":"1","y-z":1}`, ``},
		{`{"x-trace":"1","admin":true}`, `api.s.t: unknown argument 'admin'; the arguments are 'count', 'message'`},
	})
	// Keys declared through allOf and $ref count as declared.
	tl := mkTool(t, "t", decode(t, `{"$defs":{"b":{"properties":{"beta":{}}}},"allOf":[{"properties":{"alpha":{}}},{"$ref":"#/$defs/b"}]}`))
	v = newValidator(t, FromTool("s", tl))
	run(t, v, "s", "t", []call{
		{`{"alpha":1,"beta":2}`, ``},
		{`{"alpha":1,"gamma":2}`, `api.s.t: unknown argument 'gamma'; the arguments are 'alpha', 'beta'`},
	})
	v = newValidator(t, FromTool("s", mkTool(t, "t", decode(t, `{"type":"object"}`))))
	run(t, v, "s", "t", []call{
		{`{}`, ``},
		{`{"x":1}`, `api.s.t: unknown argument 'x'; this tool takes no arguments`},
	})
	// A tool without a schema checks nothing.
	v = newValidator(t, FromTool("s", mkTool(t, "t", nil)))
	run(t, v, "s", "t", []call{{`{"x":1}`, ``}})
}

// TestConcurrentChecksHaveOwnBudgets: calls of one tool at the same time
// each get a compiled copy with a budget of their own, so one call's
// timeout never refuses (or passes) another.
func TestConcurrentChecksHaveOwnBudgets(t *testing.T) {
	v := newValidator(t, patternTool(t, `{"type":"string","pattern":"^(?!x)(a+)+$"}`))
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			val := "aaaa"
			if i%2 == 0 {
				val = evil
			}
			errs[i] = v.Check("s", "t", map[string]any{"v": val})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if (err != nil) != (i%2 == 0) {
			t.Errorf("call %d: %v", i, err)
		}
	}
}

// FuzzToRE2: the rewrite never panics, and what it produces compiles as
// RE2 or is left to the other engine at compile time.
func FuzzToRE2(f *testing.F) {
	for _, s := range []string{`^\s.$`, `[^]`, `[]`, `a{,5}`, `(?<y>\d{4})`, `\u{1F600}`, `\ud83d\ude00`, `[\S]`, `[a-\s]`, `\p{Script=Greek}`, `(?=a)`, `\cJ`, `[[:alpha:]]`, `\`, `[`, `(?<`, `\u{`, `\p{`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		st := &budget{lim: DefaultLimits}
		if re, err := st.compile(p); err == nil && re.String() != p {
			t.Errorf("String() = %q, want %q", re.String(), p)
		}
	})
}
