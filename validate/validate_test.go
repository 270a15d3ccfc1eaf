package validate

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/ir"
)

// decode reads JSON the way the runtime does: numbers stay json.Number.
func decode(t testing.TB, s string) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("decode %s: %v", s, err)
	}
	return m
}

// mkTool builds an ir.Tool from an input schema: one Param per property,
// in sorted order, Py chosen by the naming rule.
func mkTool(t testing.TB, wire string, input map[string]any) *ir.Tool {
	t.Helper()
	tl := &ir.Tool{Wire: ir.WireName(wire), Py: ir.Ident(wire), Input: input}
	props, _ := input["properties"].(map[string]any)
	req := map[string]bool{}
	if rs, ok := input["required"].([]any); ok {
		for _, r := range rs {
			req[r.(string)] = true
		}
	}
	var names []string
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		tl.Params = append(tl.Params, &ir.Param{Arg: n, Wire: ir.WireName(n), Py: ir.Ident(n), In: ir.InArg, Required: req[n]})
	}
	return tl
}

func newValidator(t testing.TB, tools ...Tool) *Validator {
	t.Helper()
	v, err := New(tools)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range v.Diagnostics() {
		t.Errorf("unexpected diagnostic: %s", d)
	}
	return v
}

// corpus returns the tools of one testdata/corpus/mcp file, Input = the
// tool's inputSchema.
func corpus(t testing.TB, name string) []*ir.Tool {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "testdata", "corpus", "mcp", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	var doc struct {
		Tools []struct {
			Name        string         `json:"name"`
			InputSchema map[string]any `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	var out []*ir.Tool
	for _, tl := range doc.Tools {
		out = append(out, mkTool(t, tl.Name, tl.InputSchema))
	}
	return out
}

func find(t testing.TB, tools []*ir.Tool, wire string) *ir.Tool {
	for _, tl := range tools {
		if string(tl.Wire) == wire {
			return tl
		}
	}
	t.Fatalf("no tool %s", wire)
	return nil
}

// clone deep-copies a schema through JSON.
func clone(t testing.TB, s map[string]any) map[string]any {
	raw, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return decode(t, string(raw))
}

type call struct {
	args string
	want string // "" = passes
}

func run(t *testing.T, v *Validator, svc ir.ServiceName, tool ir.WireName, calls []call) {
	t.Helper()
	for _, c := range calls {
		err := v.Check(svc, tool, decode(t, c.args))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("%s.%s(%s):\n got: %s\nwant: %s", svc, tool, c.args, got, c.want)
		}
	}
}

func TestEnumDidYouMean(t *testing.T) {
	tl := mkTool(t, "show_liked_songs", decode(t, `{"type":"object","properties":{
		"sort_by":{"type":"string","enum":["liked_at","play_count","title"]},
		"limit":{"type":"integer","minimum":1,"maximum":50}}}`))
	v := newValidator(t, FromTool("spotify", tl))
	run(t, v, "spotify", "show_liked_songs", []call{
		{`{"sort_by":"liked_at","limit":50}`, ``},
		{`{"sort_by":"likedAt"}`, `api.spotify.show_liked_songs: argument sort_by must be one of "liked_at", "play_count", "title"; got "likedAt". Did you mean "liked_at"?`},
		{`{"sort_by":"popularity"}`, `api.spotify.show_liked_songs: argument sort_by must be one of "liked_at", "play_count", "title"; got "popularity"`},
		{`{"limit":0}`, `api.spotify.show_liked_songs: argument limit must be >= 1; got 0`},
		{`{"limit":2.5}`, `api.spotify.show_liked_songs: argument limit: expected int, got float (2.5)`},
	})
	err := v.Check("spotify", "show_liked_songs", decode(t, `{"sort_by":"likedAt"}`))
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("want *Error, got %T", err)
	}
	want := Error{Kind: "ValueError", Tool: "api.spotify.show_liked_songs", Param: "sort_by",
		Expected: `one of "liked_at", "play_count", "title"`, Given: `"likedAt"`, Fix: `Did you mean "liked_at"?`}
	if e.Kind != want.Kind || e.Tool != want.Tool || e.Param != want.Param || e.Expected != want.Expected ||
		e.Given != want.Given || e.Fix != want.Fix || e.Original || len(e.Problems) != 1 {
		t.Errorf("fields: %+v", e)
	}
}

// The archived GitHub server's schemas, with what enrichment would add by
// hand: per_page gets the "max 100" its description states.
func TestCorpusGitHub(t *testing.T) {
	tools := corpus(t, "github")
	li := find(t, tools, "list_issues")
	li.Original = clone(t, li.Input)
	li.Input["properties"].(map[string]any)["per_page"].(map[string]any)["maximum"] = json.Number("100")
	li.Input["properties"].(map[string]any)["per_page"].(map[string]any)["type"] = "integer"
	var ts []Tool
	for _, tl := range tools {
		ts = append(ts, FromTool("github", tl))
	}
	v := newValidator(t, ts...)
	run(t, v, "github", "list_issues", []call{
		{`{"owner":"o","repo":"r","per_page":100,"state":"open","labels":["bug"]}`, ``},
		{`{"owner":"o","repo":"r","per_page":500}`, `api.github.list_issues: argument per_page must be <= 100; got 500`},
		{`{"owner":"o","repo":"r","per_page":"50"}`, `api.github.list_issues: argument per_page: expected int, got str ("50"). Did you mean 50 (without quotes)?`},
		{`{"owner":"o","repo":"r","state":3}`, `api.github.list_issues: argument state: expected str, got int (3)`},
		{`{"owner":"o","repo":"r","state":"Closed"}`, `api.github.list_issues: argument state must be one of "open", "closed", "all"; got "Closed". Did you mean "closed"?`},
		{`{"owner":"o","repo":"r","labels":"bug"}`, `api.github.list_issues: argument labels: expected list, got str ("bug"). Did you mean ["bug"]?`},
		{`{"owner":"o","repo":"r","labels":["bug",7]}`, `api.github.list_issues: argument labels[1]: expected str, got int (7)`},
	})
	run(t, v, "github", "create_issue", []call{
		{`{"owner":"o","repo":"r","title":"t","labels":["x"],"assignees":[]}`, ``},
		{`{"owner":"o","repo":"r","titel":"t"}`, `api.github.create_issue: unknown argument 'titel'. Did you mean 'title'?`},
		{`{"repo":"r","title":"t"}`, `api.github.create_issue: missing required argument 'owner'`},
		{`{"title":"t","body":"b"}`, `api.github.create_issue: missing required arguments 'owner', 'repo'`},
		{`{"owner":"o","repo":"r","title":"t","priority":"high"}`, `api.github.create_issue: unknown argument 'priority'; the arguments are 'assignees', 'body', 'labels', 'milestone', 'owner', 'repo', 'title'`},
		{`{"titel":"t","ownr":"o","repo":5}`, "api.github.create_issue: unknown argument 'ownr'. Did you mean 'owner'?\n" +
			"api.github.create_issue: unknown argument 'titel'. Did you mean 'title'?\n" +
			"api.github.create_issue: argument repo: expected str, got int (5)"},
	})
	// A nested array of objects with additionalProperties:false.
	run(t, v, "github", "push_files", []call{
		{`{"owner":"o","repo":"r","branch":"main","message":"m","files":[{"path":"a","content":"x"}]}`, ``},
		{`{"owner":"o","repo":"r","branch":"main","message":"m","files":[{"path":"a","content":"x"},{"path":"b","contnet":"y"}]}`,
			"api.github.push_files: argument files[1] has unknown key 'contnet'. Did you mean 'content'?"},
		{`{"owner":"o","repo":"r","branch":"main","message":"m","files":[{"path":"a"}]}`,
			"api.github.push_files: argument files[0] is missing required key 'content'"},
	})
}

func TestEveryCorpusSchemaCompiles(t *testing.T) {
	matches, _ := filepath.Glob(filepath.Join("..", "testdata", "corpus", "mcp", "*.json"))
	n := 0
	for _, m := range matches {
		svc := strings.TrimSuffix(filepath.Base(m), ".json")
		var ts []Tool
		for _, tl := range corpus(t, svc) {
			ts = append(ts, FromTool(ir.ServiceIdent(svc), tl))
		}
		v := newValidator(t, ts...)
		n += len(ts)
		// A call with no arguments is either fine or a clear refusal.
		for _, tl := range ts {
			if err := v.Check(tl.ID.Service, tl.ID.Wire, nil); err != nil && !strings.HasPrefix(err.Error(), "api.") {
				t.Errorf("%s.%s: %v", tl.ID.Service, tl.ID.Wire, err)
			}
		}
	}
	if n < 250 {
		t.Errorf("only %d corpus tools", n)
	}
}

func TestDraft07(t *testing.T) {
	// draft-07 ignores the siblings of a $ref; 2020-12 applies them.
	const body = `"type":"object","properties":{"a":{"$ref":"#/definitions/s","maxLength":2},"b":{"type":"string"},"c":{"type":"integer","exclusiveMinimum":0}},"definitions":{"s":{"type":"string"}},"dependencies":{"c":["b"]}`
	v := newValidator(t,
		FromTool("svc", mkTool(t, "seven", decode(t, `{"$schema":"http://json-schema.org/draft-07/schema#",`+body+`}`))),
		FromTool("svc", mkTool(t, "latest", decode(t, `{`+body+`}`))),
	)
	run(t, v, "svc", "seven", []call{
		{`{"a":"xyz","b":"y","c":1}`, ``},
		{`{"a":5}`, `api.svc.seven: argument a: expected str, got int (5)`},
		{`{"c":1}`, `api.svc.seven: argument 'b' is required when 'c' is given`},
		{`{"b":"y","c":0}`, `api.svc.seven: argument c must be > 0; got 0`},
	})
	run(t, v, "svc", "latest", []call{
		{`{"a":"xy"}`, ``},
		{`{"a":"xyz"}`, `api.svc.latest: argument a must be at most 2 characters long; got 3 characters`},
	})
}

func TestRecursiveRef(t *testing.T) {
	tl := mkTool(t, "put_tree", decode(t, `{"type":"object","required":["tree"],"properties":{
		"tree":{"$ref":"#/$defs/node"}},
		"$defs":{"node":{"type":"object","required":["name"],"additionalProperties":false,"properties":{
			"name":{"type":"string","minLength":1},
			"children":{"type":"array","items":{"$ref":"#/$defs/node"}}}}}}`))
	v := newValidator(t, FromTool("files", tl))
	run(t, v, "files", "put_tree", []call{
		{`{"tree":{"name":"root","children":[{"name":"a","children":[{"name":"b"}]}]}}`, ``},
		{`{"tree":{"name":"root","children":[{"name":"a","children":[{"name":"b"},{"name":5}]}]}}`,
			`api.files.put_tree: argument tree.children[0].children[1].name: expected str, got int (5)`},
		{`{"tree":{"name":"root","children":[{"name":""}]}}`,
			`api.files.put_tree: argument tree.children[0].name must be at least 1 character long; got "" (0 characters)`},
		{`{"tree":{"name":"root","children":[{"nmae":"x"}]}}`,
			"api.files.put_tree: argument tree.children[0] has unknown key 'nmae'. Did you mean 'name'?"},
	})
}

func TestJSONNumber(t *testing.T) {
	tl := mkTool(t, "count", decode(t, `{"type":"object","properties":{"n":{"type":"integer","multipleOf":5},"x":{"type":"number","maximum":1.5}}}`))
	v := newValidator(t, FromTool("m", tl))
	for _, n := range []string{"0", "5", "10", "-5", "5.0", "1e1"} {
		if err := v.Check("m", "count", map[string]any{"n": json.Number(n)}); err != nil {
			t.Errorf("n=%s: %v", n, err)
		}
	}
	run(t, v, "m", "count", []call{
		{`{"n":3.5}`, `api.m.count: argument n: expected int, got float (3.5)`},
		{`{"n":7}`, `api.m.count: argument n must be a multiple of 5; got 7`},
		{`{"x":2}`, `api.m.count: argument x must be <= 1.5; got 2`},
		{`{"x":"1"}`, `api.m.count: argument x: expected float, got str ("1"). Did you mean 1 (without quotes)?`},
	})
	// Go ints from a binder that built the map by hand work too.
	if err := v.Check("m", "count", map[string]any{"n": 10}); err != nil {
		t.Error(err)
	}
}

// A value that passes the enriched schema but not the original one is
// refused: enrichment must never make a call the upstream would reject.
func TestOriginalEnforced(t *testing.T) {
	tl := mkTool(t, "post", decode(t, `{"type":"object","properties":{"text":{"type":"string"}}}`))
	tl.Original = decode(t, `{"type":"object","properties":{"text":{"type":"string","maxLength":5}}}`)
	v := newValidator(t, FromTool("chat", tl))
	err := v.Check("chat", "post", decode(t, `{"text":"far too long"}`))
	var e *Error
	if !errors.As(err, &e) || !e.Original {
		t.Fatalf("want an *Error from the original schema, got %v", err)
	}
	if want := `api.chat.post: argument text must be at most 5 characters long; got 12 characters`; err.Error() != want {
		t.Errorf("got %s", err)
	}
	if err := v.Check("chat", "post", decode(t, `{"text":"short"}`)); err != nil {
		t.Error(err)
	}
}

func TestFormats(t *testing.T) {
	for _, draft := range []string{``, `"$schema":"http://json-schema.org/draft-07/schema#",`} {
		tl := mkTool(t, "book", decode(t, `{`+draft+`"type":"object","properties":{
			"at":{"type":"string","format":"date-time"},
			"day":{"type":"string","format":"date"},
			"email":{"type":"string","format":"email"},
			"id":{"type":"string","format":"uuid"},
			"link":{"type":"string","format":"uri"},
			"host":{"type":"string","format":"hostname"},
			"n":{"type":"string","format":"int64"}}}`))
		v := newValidator(t, FromTool("cal", tl))
		run(t, v, "cal", "book", []call{
			{`{"at":"2025-01-31T09:30:00Z","day":"2025-01-31","email":"ada@example.com","id":"123e4567-e89b-12d3-a456-426614174000","link":"/relative/path","host":"not a host","n":"x"}`, ``},
			{`{"at":"tomorrow at 9"}`, `api.cal.book: argument at must be a date-time (RFC 3339, e.g. "2025-01-31T09:30:00Z"); got "tomorrow at 9"`},
			{`{"day":"31/01/2025"}`, `api.cal.book: argument day must be a date (YYYY-MM-DD, e.g. "2025-01-31"); got "31/01/2025"`},
			{`{"email":"ada"}`, `api.cal.book: argument email must be an email address (e.g. "ada@example.com"); got "ada"`},
			{`{"id":"42"}`, `api.cal.book: argument id must be a UUID (e.g. "123e4567-e89b-12d3-a456-426614174000"); got "42"`},
		})
	}
}

func TestUnions(t *testing.T) {
	tl := mkTool(t, "f", decode(t, `{"type":"object","properties":{
		"a":{"type":["string","null"]},
		"b":{"anyOf":[{"type":"string","enum":["asc","desc"]},{"type":"null"}]},
		"c":{"anyOf":[{"type":"integer"},{"type":"boolean"}]},
		"d":{"oneOf":[{"const":"red"},{"const":"green"}]},
		"e":{"anyOf":[{"type":"object","required":["x"],"properties":{"x":{"type":"integer"}}},{"type":"string"}]}}}`))
	v := newValidator(t, FromTool("u", tl))
	run(t, v, "u", "f", []call{
		{`{"a":null,"b":null,"c":true,"d":"red","e":{"x":1}}`, ``},
		{`{"a":3}`, `api.u.f: argument a: expected str or None, got int (3)`},
		{`{"b":"up"}`, `api.u.f: argument b must be one of "asc", "desc"; got "up"`},
		{`{"c":"1"}`, `api.u.f: argument c: expected int or bool, got str ("1"). Did you mean 1 (without quotes)?`},
		{`{"d":"gren"}`, `api.u.f: argument d must be one of "red", "green"; got "gren". Did you mean "green"?`},
		{`{"e":{"x":"1"}}`, `api.u.f: argument e.x: expected int, got str ("1"). Did you mean 1 (without quotes)?`},
		{`{"e":5}`, `api.u.f: argument e: expected dict or str, got int (5)`},
	})
}

func TestPythonNames(t *testing.T) {
	tl := &ir.Tool{Wire: "list-events", Py: "list_events",
		Input: decode(t, `{"type":"object","required":["from"],"additionalProperties":false,"properties":{"from":{"type":"string"},"page-size":{"type":"integer","maximum":10}}}`),
		Params: []*ir.Param{
			{Arg: "from", Wire: "from", Py: "from_", Required: true},
			{Arg: "page-size", Wire: "page-size", Py: "page_size"},
		}}
	v := newValidator(t, FromTool("cal", tl))
	run(t, v, "cal", "list-events", []call{
		{`{"from":"a","page-size":10}`, ``},
		{`{"from":"a","page-size":11}`, `api.cal.list_events: argument page_size must be <= 10; got 11`},
		{`{"page-size":1}`, `api.cal.list_events: missing required argument 'from_'`},
		{`{"from_":"a"}`, `api.cal.list_events: unknown argument 'from_'. Did you mean 'from'?`},
		{`{"from":"a","page_sise":1}`, `api.cal.list_events: unknown argument 'page_sise'. Did you mean 'page_size'?`},
	})
}

func TestPatterns(t *testing.T) {
	tl := mkTool(t, "user", decode(t, `{"type":"object","properties":{
		"sha":{"type":"string","pattern":"^[0-9a-f]{7,40}$"},
		"login":{"type":"string","pattern":"^(?!admin)[a-z]+$"}}}`))
	v := newValidator(t, FromTool("gh", tl))
	run(t, v, "gh", "user", []call{
		{`{"sha":"abc1234","login":"bob"}`, ``},
		{`{"sha":"main"}`, `api.gh.user: argument sha must match the pattern ^[0-9a-f]{7,40}$; got "main"`},
		{`{"login":"administrator"}`, `api.gh.user: argument login must match the pattern ^(?!admin)[a-z]+$; got "administrator"`},
	})
}

func TestUncompilableSchema(t *testing.T) {
	bad := mkTool(t, "bad", decode(t, `{"type":"object","properties":{"a":{"$ref":"http://example.invalid/a.json"}}}`))
	good := mkTool(t, "good", decode(t, `{"type":"object","properties":{"a":{"type":"string"}}}`))
	v, err := New([]Tool{FromTool("s", bad), FromTool("s", good)})
	if err != nil {
		t.Fatal(err)
	}
	ds := v.Diagnostics()
	if len(ds) != 1 || ds[0].Tool != "bad" || ds[0].Schema != "input" {
		t.Fatalf("diagnostics: %v", ds)
	}
	if !strings.HasPrefix(ds[0].String(), "warning: s.bad: input schema not compiled, calls are not validated against it: ") {
		t.Errorf("diagnostic: %s", ds[0])
	}
	if err := v.Check("s", "bad", decode(t, `{"a":1}`)); err != nil {
		t.Errorf("uncompiled schema blocked a call: %v", err)
	}
	if err := v.Check("s", "good", decode(t, `{"a":1}`)); err == nil {
		t.Error("good schema not enforced")
	}
}

func TestUnknownToolAndDuplicates(t *testing.T) {
	v := newValidator(t)
	if err := v.Check("s", "t", nil); !errors.Is(err, ErrUnknownTool) || err.Error() != "validate: unknown tool s.t" {
		t.Errorf("got %v", err)
	}
	tl := mkTool(t, "t", decode(t, `{"type":"object"}`))
	if _, err := New([]Tool{FromTool("s", tl), FromTool("s", tl)}); err == nil {
		t.Error("duplicate tool accepted")
	}
}

func TestEscapedPointer(t *testing.T) {
	tl := mkTool(t, "f", decode(t, `{"type":"object","properties":{"my filters/x~":{"type":"object","additionalProperties":false,"properties":{"value":{}}}}}`))
	v := newValidator(t, FromTool("u", tl))
	run(t, v, "u", "f", []call{{`{"my filters/x~":{"vaule":1}}`, `api.u.f: argument my_filters_x has unknown key 'vaule'. Did you mean 'value'?`}})
}

func TestNoArguments(t *testing.T) {
	tl := mkTool(t, "ping", decode(t, `{"type":"object","properties":{},"additionalProperties":false}`))
	v := newValidator(t, FromTool("s", tl))
	run(t, v, "s", "ping", []call{
		{`{}`, ``},
		{`{"x":1}`, `api.s.ping: unknown argument 'x'; this tool takes no arguments`},
	})
}

func TestClosest(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cands []string
		want  int
	}{
		{"likedAt", []string{"liked_at", "play_count"}, 0},
		{"titel", []string{"body", "title"}, 1},
		{"xyz", []string{"title", "body"}, -1},
		{"ab", []string{"cd"}, -1},
		{"statte", []string{"state", "stat"}, 0},
	} {
		if got := closest(tc.name, tc.cands); got != tc.want {
			t.Errorf("closest(%q, %q) = %d, want %d", tc.name, tc.cands, got, tc.want)
		}
	}
}

func BenchmarkCheck(b *testing.B) {
	tools := corpus(b, "github")
	var ts []Tool
	for _, tl := range tools {
		ts = append(ts, FromTool("github", tl))
	}
	v, err := New(ts)
	if err != nil {
		b.Fatal(err)
	}
	good := decode(b, `{"owner":"octo","repo":"hello","title":"Crash on start","body":"Steps...","labels":["bug","p1"],"assignees":["ada"]}`)
	bad := decode(b, `{"owner":"octo","repo":"hello","titel":"Crash on start","labels":"bug"}`)
	b.Run("valid", func(b *testing.B) {
		for b.Loop() {
			if err := v.Check("github", "create_issue", good); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("invalid", func(b *testing.B) {
		for b.Loop() {
			if err := v.Check("github", "create_issue", bad); err == nil {
				b.Fatal("passed")
			}
		}
	})
}

func BenchmarkNewCorpus(b *testing.B) {
	matches, _ := filepath.Glob(filepath.Join("..", "testdata", "corpus", "mcp", "*.json"))
	var ts []Tool
	for _, m := range matches {
		svc := strings.TrimSuffix(filepath.Base(m), ".json")
		for _, tl := range corpus(b, svc) {
			ts = append(ts, FromTool(ir.ServiceIdent(svc), tl))
		}
	}
	for b.Loop() {
		if _, err := New(ts); err != nil {
			b.Fatal(err)
		}
	}
}
