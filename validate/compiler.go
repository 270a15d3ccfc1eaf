package validate

import (
	"fmt"
	"regexp"
	"time"

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

func newCompiler() *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	// Assert formats in every draft (2020-12 treats them as annotations
	// by default, draft-07 asserts them all), then switch the ones not in
	// assertedFormats back off: the same rule whatever $schema says.
	c.AssertFormat()
	for _, name := range annotationFormats {
		c.RegisterFormat(&jsonschema.Format{Name: name, Validate: acceptAll})
	}
	c.UseRegexpEngine(compileRegexp)
	c.UseLoader(noLoader{})
	return c
}

// noLoader refuses every external reference: schemas are self-contained
// ($defs inlined), and a validator must not fetch anything at load time.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external reference %s not loaded: schemas must be self-contained", url)
}

// patternTimeout bounds one match of a pattern that needed the backtracking
// engine. A match that runs out of time counts as a match: the upstream is
// the final judge, and a call is never refused for our own slowness.
const patternTimeout = 50 * time.Millisecond

// compileRegexp compiles a JSON Schema pattern. Patterns are ECMA-262
// regular expressions; Go's RE2 syntax covers most of them and runs in
// linear time, so it is tried first. Lookarounds and backreferences fall
// back to an ECMAScript-mode backtracking engine with a match timeout.
func compileRegexp(s string) (jsonschema.Regexp, error) {
	if re, err := regexp.Compile(s); err == nil {
		return re, nil
	}
	re, err := regexp2.Compile(s, regexp2.ECMAScript)
	if err != nil {
		return nil, err
	}
	re.MatchTimeout = patternTimeout
	return ecmaRegexp{re}, nil
}

type ecmaRegexp struct{ re *regexp2.Regexp }

func (r ecmaRegexp) MatchString(s string) bool {
	ok, err := r.re.MatchString(s)
	return ok || err != nil
}

func (r ecmaRegexp) String() string { return r.re.String() }
