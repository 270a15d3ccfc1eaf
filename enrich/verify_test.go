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
		{KindEnum, "`open` or `closed`", `{"type":"string","enum":["open","closed","merged"]}`, map[string]any{"enum": []any{"open", "closed"}}},
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
