package enrich

import (
	"encoding/json"
	"testing"
)

func TestVerifyRejects(t *testing.T) {
	const desc = "Page size, between 1 and 500. Defaults to 20. Status: `open` or `closed`."
	n := func(s string) json.Number { return json.Number(s) }
	cases := []struct {
		name     string
		kind     string
		to       map[string]any
		evidence string
		schema   string
		required bool
		reason   string
	}{
		{"evidence not in source", KindRange, map[string]any{"maximum": n("100")}, "max 100",
			`{"type":"integer"}`, false, "evidence not found in the description"},
		{"no evidence", KindRange, map[string]any{"maximum": n("100")}, "",
			`{"type":"integer"}`, false, "no evidence"},
		{"maximum raised (widening)", KindRange, map[string]any{"maximum": n("500")}, "between 1 and 500",
			`{"type":"integer","maximum":100}`, false, "maximum 500 would raise the existing 100"},
		{"minimum lowered (widening)", KindRange, map[string]any{"minimum": n("1")}, "between 1 and 500",
			`{"type":"integer","minimum":5}`, false, "minimum 1 would lower the existing 5"},
		{"maxLength raised", KindLength, map[string]any{"maxLength": n("500")}, "between 1 and 500",
			`{"type":"string","maxLength":40}`, false, "maxLength 500 would raise the existing 40"},
		{"minItems lowered", KindLength, map[string]any{"minItems": n("1")}, "between 1 and 500",
			`{"type":"array","minItems":2}`, false, "minItems 1 would lower the existing 2"},
		{"range on a string", KindRange, map[string]any{"maximum": n("500")}, "between 1 and 500",
			`{"type":"string"}`, false, "range applies only to a number or integer schema"},
		{"bounds that cross", KindRange, map[string]any{"maximum": n("1")}, "between 1 and 500",
			`{"type":"integer","exclusiveMinimum":1}`, false, "bounds would accept no value"},
		{"enum outside existing enum", KindEnum, map[string]any{"enum": []any{"open", "closed"}}, "`open` or `closed`",
			`{"type":"string","enum":["open","merged"]}`, false, `enum value "closed" is outside the existing enum`},
		{"enum of the wrong type", KindEnum, map[string]any{"enum": []any{"open", n("3")}}, "`open` or `closed`",
			`{"type":"string"}`, false, `enum value 3 is not of the schema's type string`},
		{"enum already there", KindEnum, map[string]any{"enum": []any{"closed", "open"}}, "`open` or `closed`",
			`{"type":"string","enum":["open","closed"]}`, false, "schema already has this enum"},
		{"default of the wrong type", KindStaticDefault, map[string]any{"default": "20"}, "Defaults to 20",
			`{"type":"integer"}`, false, `default "20" is not of the schema's type integer`},
		{"default outside bounds", KindStaticDefault, map[string]any{"default": n("20")}, "Defaults to 20",
			`{"type":"integer","maximum":10}`, false, "default 20 is above maximum 10"},
		{"default already set", KindStaticDefault, map[string]any{"default": n("20")}, "Defaults to 20",
			`{"type":"integer","default":25}`, false, "schema already has a different default 25"},
		{"format on an integer", KindFormat, map[string]any{"format": "date-time"}, "Page size",
			`{"type":"integer"}`, false, "format applies only to a string schema"},
		{"format already set", KindFormat, map[string]any{"format": "uri"}, "Page size",
			`{"type":"string","format":"hostname"}`, false, `schema already has format "hostname"`},
		{"unknown format", KindFormat, map[string]any{"format": "phone"}, "Page size",
			`{"type":"string"}`, false, `format "phone" is not one of date-time, date, email, uuid, uri`},
		{"runtime default on a required parameter", KindRuntimeDefault, map[string]any{"required": true}, "Defaults to 20",
			`{"type":"integer"}`, true, "parameter is already required"},
		{"runtime default that does not flip to required", KindRuntimeDefault, map[string]any{"required": false}, "Defaults to 20",
			`{"type":"integer"}`, false, "runtime-default must set required to true"},
		{"enum narrowing an existing enum", KindEnum, map[string]any{"enum": []any{"open", "closed"}}, "`open` or `closed`",
			`{"type":"string","enum":["open","closed","merged"]}`, false, `the existing enum value "merged" is outside the existing enum`},
		{"keyword outside the kind", KindRange, map[string]any{"pattern": "^a"}, "Page size",
			`{"type":"integer"}`, false, `keyword "pattern" is not allowed for kind range`},
	}
	for _, c := range cases {
		p := newProposal("t", "/properties/p", c.kind, "test", c.evidence, c.to)
		p.Evidence = c.evidence
		ok, reason := Verify(p, desc, mustSchema(t, c.schema), c.required)
		if ok || reason != c.reason {
			t.Errorf("%s: got (%v, %q), want (false, %q)", c.name, ok, reason, c.reason)
		}
	}
}

func TestVerifyAccepts(t *testing.T) {
	const desc = "Page size, between 1 and 500. Defaults to 20. Status: `open` or `closed`."
	n := func(s string) json.Number { return json.Number(s) }
	cases := []struct {
		kind, evidence, schema string
		to                     map[string]any
	}{
		{KindRange, "between 1 and 500", `{"type":"integer","maximum":1000}`, map[string]any{"minimum": n("1"), "maximum": n("500")}},
		{KindRange, "between 1 and 500", `{"type":"number","minimum":0}`, map[string]any{"exclusiveMinimum": n("0")}},
		{KindEnum, "`open` or `closed`", `{"type":"string"}`, map[string]any{"enum": []any{"open", "closed"}}},
		{KindStaticDefault, "Defaults to 20", `{"type":"integer","minimum":1}`, map[string]any{"default": n("20")}},
		{KindFormat, "Page size", `{"type":["string","null"]}`, map[string]any{"format": "uri"}},
		{KindRuntimeDefault, "Defaults to 20", `{"type":"integer"}`, map[string]any{"required": true}},
	}
	for _, c := range cases {
		p := newProposal("t", "/properties/p", c.kind, "test", c.evidence, c.to)
		if ok, reason := Verify(p, desc, mustSchema(t, c.schema), false); !ok || reason != "verified" {
			t.Errorf("%s %v on %s: got (%v, %q)", c.kind, c.to, c.schema, ok, reason)
		}
	}
}

// TestConsistencyVerifierRejects pins the consistency verifier: a value the
// source itself gives for the parameter (default, example, examples,
// existing enum, a value quoted after "e.g." or "for example") that the
// enriched schema would refuse rejects the proposal, naming the value.
func TestConsistencyVerifierRejects(t *testing.T) {
	n := func(s string) json.Number { return json.Number(s) }
	cases := []struct {
		name, desc, schema, kind, evidence string
		to                                 map[string]any
		reason                             string
	}{
		{"example outside the enum", "Language code: `en` or `de`.", `{"type":"string","example":"pt-BR"}`,
			KindEnum, "`en` or `de`", map[string]any{"enum": []any{"en", "de"}}, `the example "pt-BR" is outside the existing enum`},
		{"default outside the enum", "Region, one of `us-east-1` or `us-west-2`.", `{"type":"string","default":"eu-west-1"}`,
			KindEnum, "one of `us-east-1` or `us-west-2`", map[string]any{"enum": []any{"us-east-1", "us-west-2"}}, `the default "eu-west-1" is outside the existing enum`},
		{"examples above the maximum", "Number of rows, max 100.", `{"type":"integer","examples":[500]}`,
			KindRange, "max 100", map[string]any{"maximum": n("100")}, `the example 500 is above maximum 100`},
		{"e.g. number above the maximum", "Depth to crawl, up to 5 (e.g. `10` for deep sites).", `{"type":"integer"}`,
			KindRange, "up to 5", map[string]any{"maximum": n("5")}, `the description's example 10 is above maximum 5`},
		{"e.g. value that is not a URI", "The project's homepage URL, e.g. `example.com`.", `{"type":"string"}`,
			KindFormat, "The project's homepage URL", map[string]any{"format": "uri"}, `the description's example "example.com" is not a valid uri`},
		{"for example value outside the enum", "Sort, one of `asc`, `desc`. For example `-asc`.", `{"type":"string"}`,
			KindEnum, "one of `asc`, `desc`", map[string]any{"enum": []any{"asc", "desc"}}, `the description's example "-asc" is outside the existing enum`},
		{"existing enum longer than maxLength", "Country, limited to 2 characters.", `{"type":"string","enum":["US","ALL"]}`,
			KindLength, "limited to 2 characters", map[string]any{"maxLength": n("2")}, `the existing enum value "ALL" is longer than maxLength 2`},
		{"example not a date", "Day of the report, in ISO 8601 format.", `{"type":"string","example":"2026-03"}`,
			KindFormat, "in ISO 8601 format", map[string]any{"format": "date"}, `the example "2026-03" is not a valid date`},
		{"evidence about another parameter", "Items per page. The `limit` parameter defaults to 10.", `{"type":"integer"}`,
			KindStaticDefault, "defaults to 10", map[string]any{"default": n("10")}, `the evidence is about "limit", not this parameter`},
		{"evidence about one listed value", "Title style.\n- `SHORT` - default to the first line.", `{"type":"string"}`,
			KindRuntimeDefault, "default to the first line.", map[string]any{"required": true}, `the evidence is about "SHORT", not this parameter`},
		{"maximum with an alternative", "Rows, up to 100, or 1000 on request.", `{"type":"integer"}`,
			KindRange, "up to 100", map[string]any{"maximum": n("100")}, `the constraint is hedged ("or 1000"): not a hard limit`},
		{"hedged maximum", "Seconds to wait, at most 300 by default (configurable).", `{"type":"integer"}`,
			KindRange, "at most 300", map[string]any{"maximum": n("300")}, `the constraint is hedged ("by default"): not a hard limit`},
		{"maximum with an exception", "Returns 50 at most unless the server is configured otherwise.", `{"type":"integer"}`,
			KindRange, "50 at most", map[string]any{"maximum": n("50")}, `the constraint is hedged ("unless"): not a hard limit`},
	}
	for _, c := range cases {
		p := newProposal("t", "/properties/p", c.kind, "test", c.evidence, c.to)
		ok, reason := Verify(p, c.desc, mustSchema(t, c.schema), false)
		if ok || reason != c.reason {
			t.Errorf("%s: got (%v, %q), want (false, %q)", c.name, ok, reason, c.reason)
		}
	}
}

// TestConsistencyVerifierAccepts: source values that satisfy the enriched
// schema, and example values of another type, do not block a proposal.
func TestConsistencyVerifierAccepts(t *testing.T) {
	n := func(s string) json.Number { return json.Number(s) }
	cases := []struct {
		name, desc, schema, kind, evidence string
		to                                 map[string]any
	}{
		{"example inside the enum", "Language code: `en` or `de`.", `{"type":"string","example":"de"}`,
			KindEnum, "`en` or `de`", map[string]any{"enum": []any{"en", "de"}}},
		{"e.g. number within the bound", "Results, max 100 (e.g. 25).", `{"type":"integer"}`,
			KindRange, "max 100", map[string]any{"maximum": n("100")}},
		{"e.g. value that is a URI", "Callback URL, e.g. `https://example.com/hook`.", `{"type":"string"}`,
			KindFormat, "Callback URL", map[string]any{"format": "uri"}},
		{"e.g. string on an integer is not judged", "Page size, max 100 (e.g. `all`).", `{"type":"integer"}`,
			KindRange, "max 100", map[string]any{"maximum": n("100")}},
		{"example an email address", "Given as an email address.", `{"type":"string","example":"ana@example.com"}`,
			KindFormat, "Given as an email address", map[string]any{"format": "email"}},
	}
	for _, c := range cases {
		p := newProposal("t", "/properties/p", c.kind, "test", c.evidence, c.to)
		if ok, reason := Verify(p, c.desc, mustSchema(t, c.schema), false); !ok {
			t.Errorf("%s: rejected: %s", c.name, reason)
		}
	}
}
