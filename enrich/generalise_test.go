package enrich

import (
	"testing"

	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/validate"
)

// TestSignPrefixedSortAcceptsDescending pins the write-up's example: a
// "+/-" sign rule before the list gives the values with their signs, so the
// validator accepts "-play_count" (a descending sort) and still refuses a
// field the list does not name.
func TestSignPrefixedSortAcceptsDescending(t *testing.T) {
	input := mustSchema(t, `{"type":"object","properties":{"sort_by":{"type":"string","description":"+/- one of liked_at, play_count, title"}}}`)
	svc := &ir.Service{
		Name:   "music",
		Source: ir.Source{Kind: ir.SourceMCP, File: "music.json"},
		Tools: []*ir.Tool{{Wire: "list_tracks", Py: "list_tracks", Input: input, Params: []*ir.Param{{
			Arg: "sort_by", Wire: "sort_by", Py: "sort_by", In: ir.InArg,
			Description: "+/- one of liked_at, play_count, title", Ref: "/properties/sort_by",
		}}}},
	}
	ds, err := Run(svc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 1 || !ds[0].Accepted || ds[0].Kind != KindEnum {
		t.Fatalf("decisions: %+v", ds)
	}
	v, err := validate.New(validate.FromServices([]*ir.Service{svc}))
	if err != nil {
		t.Fatal(err)
	}
	for _, ok := range []string{"-play_count", "+title", "liked_at"} {
		if err := v.Check("music", "list_tracks", map[string]any{"sort_by": ok}); err != nil {
			t.Errorf("sort_by %q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"-popularity", "popularity", "--title"} {
		if err := v.Check("music", "list_tracks", map[string]any{"sort_by": bad}); err == nil {
			t.Errorf("sort_by %q accepted", bad)
		}
	}
}

// Made-up descriptions of the kinds issue 15 lists, none of them in the
// label sets: each general rule must read them.
func TestGeneralRulesPositive(t *testing.T) {
	cases := []struct {
		name, desc, schema string
		want               map[string]string
	}{
		{"minus prefix rule", "Ordering key, one of `size`, `age`. Prefix the key with `-` to reverse it.", `{"type":"string"}`,
			map[string]string{KindEnum: `{"enum":["size","age","-size","-age"]}`}},
		{"plus or minus sign", "Sort, one of `a`, `b` (+ or - before it sets the direction).", `{"type":"string"}`,
			map[string]string{KindEnum: `{"enum":["a","b","+a","+b","-a","-b"]}`}},
		{"bold values", "The mode is **draft** or **final**.", `{"type":"string"}`,
			map[string]string{KindEnum: `{"enum":["draft","final"]}`}},
		{"bullet list after valid values", "Where it runs. Valid values are:\n- edge\n- core", `{"type":"string"}`,
			map[string]string{KindEnum: `{"enum":["edge","core"]}`}},
		{"starred bullet list of code values", "Permitted options:\n* `r`\n* `rw`\n* `none`", `{"type":"string"}`,
			map[string]string{KindEnum: `{"enum":["r","rw","none"]}`}},
		{"supported nouns", "Supported modes: `circle`, `square`.", `{"type":"string"}`,
			map[string]string{KindEnum: `{"enum":["circle","square"]}`}},
		{"takes N values", "This flag can take three values: `low`, `mid` and `high`.", `{"type":"string"}`,
			map[string]string{KindEnum: `{"enum":["low","mid","high"]}`}},
		{"pipe-separated values", "Units: `m` | `ft`.", `{"type":"string"}`,
			map[string]string{KindEnum: `{"enum":["m","ft"]}`}},
		{"either at the start", "Either `push` or `pull`.", `{"type":"string"}`,
			map[string]string{KindEnum: `{"enum":["push","pull"]}`}},
		{"noun phrase then comma", "Layout of the page, `grid` or `list`.", `{"type":"string"}`,
			map[string]string{KindEnum: `{"enum":["grid","list"]}`}},
		{"capped at", "Rows per call, capped at 1000 by the service.", `{"type":"integer"}`,
			map[string]string{KindRange: `{"maximum":1000}`}},
		{"limited to", "Retries, limited to 7.", `{"type":"integer"}`,
			map[string]string{KindRange: `{"maximum":7}`}},
		{"starting at", "Index of the first row, starting at 0.", `{"type":"integer"}`,
			map[string]string{KindRange: `{"minimum":0}`}},
		{"number word", "You may attach up to three files.", `{"type":"array"}`,
			map[string]string{KindLength: `{"maxItems":3}`}},
		{"N to M characters", "Nickname, 2 to 16 characters.", `{"type":"string"}`,
			map[string]string{KindLength: `{"maxLength":16,"minLength":2}`}},
		{"a count of the parameter's own noun", "Ports of the slice. Each slice may include a maximum of 8 params.", `{"type":"array"}`,
			map[string]string{KindLength: `{"maxItems":8}`}},
		{"N characters or fewer", "Short title. Must be 80 characters or fewer.", `{"type":"string"}`,
			map[string]string{KindLength: `{"maxLength":80}`}},
		{"a value bullet marked default", "Seat plan.\n- `solo`: one seat (default)\n- `team`: five seats", `{"type":"string","enum":["solo","team"]}`,
			map[string]string{KindStaticDefault: `{"default":"solo"}`}},
		{"given as an email address", "Who to notify, given as an email address.", `{"type":"string"}`,
			map[string]string{KindFormat: `{"format":"email"}`}},
		{"must be an HTTPS URL", "Feed location; must be an HTTPS URL.", `{"type":"string"}`,
			map[string]string{KindFormat: `{"format":"uri"}`}},
		{"when true on a string", "When true, archived rows are kept.", `{"type":"string"}`,
			map[string]string{KindBoolString: `{"enum":["true","false"]}`}},
		{"set to yes with a default", "Set to `yes` to sign the build; defaults to `no`.", `{"type":"string"}`,
			map[string]string{KindBoolString: `{"enum":["yes","no"]}`, KindStaticDefault: `{"default":"no"}`}},
		{"own name then value when omitted", "Batch; if omitted, `param` is `8`.", `{"type":"integer"}`,
			map[string]string{KindStaticDefault: `{"default":8}`}},
		{"JSON array default", "Channels to use. Defaults to [\"web\"].", `{"type":"array"}`,
			map[string]string{KindStaticDefault: `{"default":["web"]}`}},
		{"looked up when not given", "Tenant; looked up from the session if not provided.", `{"type":"string"}`,
			map[string]string{KindRuntimeDefault: `{"required":true}`}},
		{"assumed account", "Payer. Assumed to be your account if not set.", `{"type":"string"}`,
			map[string]string{KindRuntimeDefault: `{"required":true}`}},
	}
	for _, c := range cases {
		got := changes(t, c.desc, c.schema, false)
		if len(got) != len(c.want) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
			continue
		}
		for k, v := range c.want {
			if got[k] != v {
				t.Errorf("%s: %s = %s, want %s", c.name, k, got[k], v)
			}
		}
	}
}

// Made-up descriptions of the wrong narrowings issue 15 lists: none may
// change the schema.
func TestGeneralRulesNegative(t *testing.T) {
	cases := []struct{ name, desc, schema string }{
		{"ISO time or a relative one", "Lower bound: an ISO 8601 time, or a relative one such as `-30m`.", `{"type":"string"}`},
		{"a range template", "Time span written `{start}..{end}`, each in ISO 8601.", `{"type":"string"}`},
		{"a default template with a date pattern", "Archive name. Default: `backup-{YYYY-MM-DD}.tar`.", `{"type":"string","default":"x"}`},
		{"a list of formats", "Billing period, as `YYYY` or `YYYY-MM`.", `{"type":"string"}`},
		{"a list of syntaxes", "The package, either `pkg` or `pkg@version`.", `{"type":"string"}`},
		{"a maximum that is only a default", "Returns 20 at most unless the account is configured otherwise.", `{"type":"integer"}`},
		{"a configurable maximum", "At most 64 workers by default (configurable).", `{"type":"integer"}`},
		{"a limit on the items", "Labels to add. Each label is limited to 30 characters.", `{"type":"array","items":{"type":"string"}}`},
		{"a default of another parameter", "Items per page. The `offset` parameter defaults to 0.", `{"type":"integer"}`},
		{"omitting is meaningful", "New name. If omitted, the current name is kept and nothing is changed.", `{"type":"string"}`},
		{"a default conditional on another parameter", "Defaults to `fast` when `mode` is `auto`.", `{"type":"string"}`},
		{"a default that differs per case", "Depth to walk. Defaults to 1 for files and 3 for folders.", `{"type":"integer"}`},
		{"a fallback after inference", "Codec. If unset, inferred from the file name, otherwise `h264`.", `{"type":"string"}`},
		{"an example outside the list", "Region code: `eu` or `us`.", `{"type":"string","example":"ap"}`},
		{"an e.g. value above the bound", "Parallel jobs, up to 4 (e.g. 8 on large runners).", `{"type":"integer"}`},
		{"an e.g. value that is no URI", "Site URL, e.g. `www.example.org`.", `{"type":"string"}`},
		{"a limit inside each item", "Teams to add. Each team may have up to 10 members.", `{"type":"array","items":{"type":"string"}}`},
		{"a URL template", "The URL must contain `<id>` for the ticket number.", `{"type":"string"}`},
		{"a list of paths used inside the value", "A selector expression. Supported paths:\n- metadata.uid\n- metadata.name", `{"type":"string"}`},
		{"a number word after at least", "Must contain at least one letter.", `{"type":"string"}`},
		{"a number word after more than", "Cannot be more than two intervals ahead.", `{"type":"integer"}`},
		{"a value bullet that defaults to something", "Title style.\n- `SHORT` - default to the first line.\n- `LONG` - the whole message.", `{"type":"string","enum":["SHORT","LONG"]}`},
	}
	for _, c := range cases {
		if got := changes(t, c.desc, c.schema, false); len(got) != 0 {
			t.Errorf("%s: %q changed the schema: %v", c.name, c.desc, got)
		}
	}
}

// TestOrMoreWithoutUnitDoesNotPanic pins a crash: "<n> or more" with no
// unit word between the number and "or" left the unit group unmatched.
func TestOrMoreWithoutUnitDoesNotPanic(t *testing.T) {
	got := changes(t, "Workers to start: 2 or more.", `{"type":"integer"}`, false)
	if got[KindRange] != `{"minimum":2}` || len(got) != 1 {
		t.Errorf("got %v, want range {\"minimum\":2}", got)
	}
}
