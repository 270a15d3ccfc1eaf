package validate

import (
	"errors"
	"fmt"
	"regexp"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/dlclark/regexp2/v2"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// assertedFormats are the formats a call is refused for. They have one
// unambiguous syntax that every upstream which declares them also enforces,
// and enrichment adds them from prose ("ISO 8601 timestamp", "email
// address"). Every other format is an annotation: "uri" (OpenAPI documents
// use it for relative and templated references), "hostname", "time"
// (without a zone, which RFC 3339 requires, upstreams still accept it),
// "duration", the pointer and template formats, and vendor formats such as
// "int32" or "unix-time" which the validator does not know anyway.
var assertedFormats = map[string]bool{
	"date-time": true,
	"date":      true,
	"email":     true,
	"uuid":      true,
	"ipv4":      true,
	"ipv6":      true,
}

// annotationFormats are the formats the jsonschema library knows and would
// assert; they are replaced by formats that accept everything. ("regex"
// cannot be replaced; its check goes through the ECMAScript-aware engine
// below, so it refuses only what no JavaScript upstream would accept.)
var annotationFormats = []string{
	"json-pointer", "relative-json-pointer", "duration", "period", "hostname",
	"time", "uri", "iri", "uri-reference", "iri-reference", "uri-template", "semver",
}

func acceptAll(any) error { return nil }

// newCompiler returns a compiler whose backtracking patterns spend st.
func newCompiler(st *budget) *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	// Assert formats in every draft (2020-12 treats them as annotations
	// by default, draft-07 asserts them all), then switch the ones not in
	// assertedFormats back off: the same rule whatever $schema says.
	c.AssertFormat()
	for _, name := range annotationFormats {
		c.RegisterFormat(&jsonschema.Format{Name: name, Validate: acceptAll})
	}
	c.UseRegexpEngine(st.compile)
	c.UseLoader(noLoader{})
	return c
}

// noLoader refuses every external reference: schemas are self-contained
// ($defs inlined), and a validator must not fetch anything at load time.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external reference %s not loaded: schemas must be self-contained", url)
}

func init() {
	// The backtracking engine checks its match timeouts against a clock
	// that ticks every 100 ms by default, so a 25 ms budget would run for
	// up to 200 ms. A 1 ms tick keeps a timed-out match close to its
	// budget; the ticking goroutine runs only while matches with a
	// timeout are under way (and a second after).
	regexp2.SetTimeoutCheckPeriod(time.Millisecond)
}

// budget is the regex work one Check may do on patterns that needed the
// backtracking engine, and what refused the call when it ran out. Each
// compiled copy of a tool's schemas has its own budget, and a copy serves
// one Check at a time.
type budget struct {
	lim Limits
	// backtracking counts the patterns compiled for the backtracking
	// engine; a tool with none needs no budget and shares one copy.
	backtracking atomic.Int32

	used    time.Duration
	refusal string // the one-line reason, "" while the call may go on
	value   string // the value the refusal is about
}

func (st *budget) reset() {
	st.used, st.refusal, st.value = 0, "", ""
}

// compile compiles a JSON Schema pattern. Patterns are ECMA-262 regular
// expressions; when toRE2 can rewrite one with the same meaning it runs on
// Go's RE2 engine, in linear time. Lookarounds, backreferences and the
// rest go to an ECMAScript-mode backtracking engine whose matches spend the
// call's budget: running out refuses the call.
func (st *budget) compile(s string) (jsonschema.Regexp, error) {
	if t, ok := toRE2(s); ok {
		if re, err := regexp.Compile(t); err == nil {
			return re2Regexp{re, s}, nil
		}
	}
	// The engine's Unicode mode is JavaScript's u flag (code points, \u{X},
	// \p{...}); a pattern only valid without it (identity escapes, lone
	// braces) compiles in plain ECMAScript mode. The pattern as written is
	// the last resort, should the rewrite not compile.
	var re *regexp2.Regexp
	var err error
	for _, try := range []struct {
		p   string
		opt regexp2.RegexOptions
	}{
		{forBacktracking(s), regexp2.ECMAScript | regexp2.Unicode},
		{forBacktracking(s), regexp2.ECMAScript},
		{s, regexp2.ECMAScript | regexp2.Unicode},
		{s, regexp2.ECMAScript},
	} {
		if re, err = regexp2.Compile(try.p, try.opt); err == nil {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	st.backtracking.Add(1)
	return &ecmaRegexp{re: re, src: s, st: st}, nil
}

// re2Regexp is a pattern rewritten for RE2; String is the pattern as the
// schema wrote it, for messages.
type re2Regexp struct {
	re  *regexp.Regexp
	src string
}

func (r re2Regexp) MatchString(s string) bool { return r.re.MatchString(s) }
func (r re2Regexp) String() string            { return r.src }

// ecmaRegexp is a pattern only the backtracking engine can run.
type ecmaRegexp struct {
	re  *regexp2.Regexp
	src string // the pattern as the schema wrote it
	st  *budget
}

// MatchString matches s within the budget. A value too long for a
// backtracking match, a match that runs out of time, and every match after
// the call's regex time is spent report no match and record the refusal,
// which Check reports whatever the schema made of the "no match" (a not or
// an anyOf would turn it into a pass).
func (r *ecmaRegexp) MatchString(s string) bool {
	st := r.st
	if st.refusal != "" {
		return false
	}
	if n := utf8.RuneCountInString(s); n > st.lim.BacktrackInput {
		st.refuse(s, fmt.Sprintf("is %d characters long; the pattern %s needs the backtracking engine, which runs on at most %d characters", n, r.src, st.lim.BacktrackInput))
		return false
	}
	left := st.lim.CallRegexTime - st.used
	if left <= 0 {
		st.refuse(s, fmt.Sprintf("could not be checked against the pattern %s: this call's %s of pattern matching is spent", r.src, ms(st.lim.CallRegexTime)))
		return false
	}
	// The engine's clock ticks every millisecond: a shorter timeout would
	// expire before the match starts.
	timeout := max(min(st.lim.PatternTimeout, left), minPatternTimeout)
	r.re.MatchTimeout = timeout
	start := time.Now()
	ok, err := r.re.MatchString(s)
	st.used += time.Since(start)
	switch {
	case errors.Is(err, regexp2.ErrBacktrackingStackLimit):
		st.refuse(s, fmt.Sprintf("could not be checked against the pattern %s: the match needs more backtracking memory than the engine allows", r.src))
		return false
	case err != nil:
		st.refuse(s, fmt.Sprintf("could not be checked against the pattern %s within its %s budget (the pattern backtracks too much on this value)", r.src, ms(timeout)))
		return false
	}
	return ok
}

func (r *ecmaRegexp) String() string { return r.src }

func (st *budget) refuse(value, reason string) {
	st.value, st.refusal = value, reason
}

// minPatternTimeout is the shortest timeout a match is given, so the last
// match of a call may overrun CallRegexTime by this much.
const minPatternTimeout = 2 * time.Millisecond

// ms prints a duration in whole milliseconds ("25 ms"), or as Go does when
// it is shorter or not whole.
func ms(d time.Duration) string {
	if d < time.Millisecond || d%time.Millisecond != 0 {
		return d.String()
	}
	return fmt.Sprintf("%d ms", d.Milliseconds())
}
