package enrich

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/ir"
)

func testService(t *testing.T) *ir.Service {
	input := mustSchema(t, `{
	  "type": "object",
	  "properties": {
	    "title": {"type": "string", "description": "Issue title (max 256 chars)."},
	    "state": {"type": "string", "description": "Initial state. One of open, closed."},
	    "assignee": {"type": "string", "description": "Login to assign; defaults to the current user."},
	    "milestone": {"$ref": "#/$defs/milestone", "description": "Milestone number, at most 99."},
	    "options": {
	      "type": "object",
	      "description": "Extra options.",
	      "properties": {
	        "priority": {"type": "integer", "description": "Priority between 1 and 5."},
	        "labels": {"type": "array", "items": {"$ref": "#/$defs/label"}, "description": "Labels, up to 10."}
	      }
	    }
	  },
	  "required": ["title"],
	  "$defs": {
	    "milestone": {"type": "integer", "minimum": 1},
	    "label": {"type": "object", "properties": {"color": {"type": "string", "description": "Hex color. Defaults to 'ffffff'."}}}
	  }
	}`)
	props := input["properties"].(map[string]any)
	var params []*ir.Param
	for _, name := range []string{"title", "state", "assignee", "milestone", "options"} {
		d, _ := props[name].(map[string]any)["description"].(string)
		params = append(params, &ir.Param{
			Arg: name, Wire: ir.WireName(name), Py: ir.PyIdent(name), In: ir.InArg,
			Required: name == "title", Description: d, Ref: ir.ParamRef("/properties/" + name),
		})
	}
	return &ir.Service{
		Name:   "issues",
		Source: ir.Source{Kind: ir.SourceMCP, File: "issues.json"},
		Tools:  []*ir.Tool{{Wire: "create_issue", Py: "create_issue", Params: params, Input: input}},
	}
}

func TestRun(t *testing.T) {
	svc := testService(t)
	extra, err := ReadProposals(strings.NewReader(
		`{"tool":"create_issue","pointer":"/properties/title","kind":"length","to":{"minLength":1},"evidence":"Issue title"}` + "\n" +
			`{"tool":"create_issue","pointer":"/properties/state","kind":"static-default","to":{"default":"draft"},"evidence":"Initial state"}` + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	ds, err := Run(svc, Options{
		Extra:     extra,
		Overrides: map[string]bool{"create_issue#/properties/options/properties/priority#range#maximum,minimum": false},
	})
	if err != nil {
		t.Fatal(err)
	}
	tool := svc.Tools[0]

	var log bytes.Buffer
	if err := WriteLog(&log, ds); err != nil {
		t.Fatal(err)
	}
	wantLog := `{"id":"create_issue#/properties/title#length#maxLength","tool":"create_issue","pointer":"/properties/title","kind":"length","to":{"maxLength":256},"evidence":"max 256","rule":"prose-length","accepted":true,"reason":"verified"}
{"id":"create_issue#/properties/title#length#minLength","tool":"create_issue","pointer":"/properties/title","kind":"length","to":{"minLength":1},"evidence":"Issue title","rule":"proposals-file","accepted":true,"reason":"verified"}
{"id":"create_issue#/properties/state#enum#enum","tool":"create_issue","pointer":"/properties/state","kind":"enum","to":{"enum":["open","closed"]},"evidence":"One of open, closed","rule":"prose-enum","accepted":true,"reason":"verified"}
{"id":"create_issue#/properties/state#static-default#default","tool":"create_issue","pointer":"/properties/state","kind":"static-default","to":{"default":"draft"},"evidence":"Initial state","rule":"proposals-file","accepted":false,"reason":"default \"draft\" is outside the existing enum"}
{"id":"create_issue#/properties/assignee#runtime-default#required","tool":"create_issue","pointer":"/properties/assignee","kind":"runtime-default","to":{"required":true},"evidence":"defaults to the current user","rule":"prose-runtime-default","accepted":true,"reason":"verified"}
{"id":"create_issue#/properties/milestone#range#maximum","tool":"create_issue","pointer":"/properties/milestone","kind":"range","to":{"maximum":99},"evidence":"at most 99","rule":"prose-range","accepted":true,"reason":"verified"}
{"id":"create_issue#/properties/options/properties/labels#length#maxItems","tool":"create_issue","pointer":"/properties/options/properties/labels","kind":"length","to":{"maxItems":10},"evidence":"up to 10","rule":"prose-length","accepted":true,"reason":"verified"}
{"id":"create_issue#/properties/options/properties/labels/items/properties/color#static-default#default","tool":"create_issue","pointer":"/properties/options/properties/labels/items/properties/color","kind":"static-default","to":{"default":"ffffff"},"evidence":"Defaults to 'ffffff'","rule":"prose-default","accepted":true,"reason":"verified"}
{"id":"create_issue#/properties/options/properties/priority#range#maximum,minimum","tool":"create_issue","pointer":"/properties/options/properties/priority","kind":"range","to":{"maximum":5,"minimum":1},"evidence":"between 1 and 5","rule":"prose-range","accepted":false,"reason":"rejected by override"}
`
	if log.String() != wantLog {
		t.Errorf("log:\n%s\nwant:\n%s", log.String(), wantLog)
	}

	gotInput, _ := json.MarshalIndent(tool.Input, "", "  ")
	wantInput := `{
  "$defs": {
    "label": {
      "properties": {
        "color": {
          "default": "ffffff",
          "description": "Hex color. Defaults to 'ffffff'.",
          "type": "string"
        }
      },
      "type": "object"
    },
    "milestone": {
      "minimum": 1,
      "type": "integer"
    }
  },
  "properties": {
    "assignee": {
      "description": "Login to assign; defaults to the current user.",
      "type": "string"
    },
    "milestone": {
      "$ref": "#/$defs/milestone",
      "description": "Milestone number, at most 99.",
      "maximum": 99
    },
    "options": {
      "description": "Extra options.",
      "properties": {
        "labels": {
          "description": "Labels, up to 10.",
          "items": {
            "$ref": "#/$defs/label"
          },
          "maxItems": 10,
          "type": "array"
        },
        "priority": {
          "description": "Priority between 1 and 5.",
          "type": "integer"
        }
      },
      "type": "object"
    },
    "state": {
      "description": "Initial state. One of open, closed.",
      "enum": [
        "open",
        "closed"
      ],
      "type": "string"
    },
    "title": {
      "description": "Issue title (max 256 chars).",
      "maxLength": 256,
      "minLength": 1,
      "type": "string"
    }
  },
  "required": [
    "title",
    "assignee"
  ],
  "type": "object"
}`
	if string(gotInput) != wantInput {
		t.Errorf("input:\n%s\nwant:\n%s", gotInput, wantInput)
	}
	// Original is the untouched input.
	if _, has := tool.Original["properties"].(map[string]any)["title"].(map[string]any)["maxLength"]; has {
		t.Error("Original was modified")
	}
	if req, _ := tool.Original["required"].([]any); len(req) != 1 {
		t.Errorf("Original required = %v", tool.Original["required"])
	}
	var reqs []bool
	for _, p := range tool.Params {
		reqs = append(reqs, p.Required)
	}
	if show(reqs) != "[true,false,true,false,false]" {
		t.Errorf("Param.Required = %v", reqs)
	}
	for _, p := range tool.Params {
		if p.Type != nil {
			t.Errorf("%s: Type was set", p.Arg)
		}
	}

	// Run is deterministic.
	again, _ := Run(testService(t), Options{Extra: extra, Overrides: map[string]bool{"create_issue#/properties/options/properties/priority#range#maximum,minimum": false}})
	var log2 bytes.Buffer
	_ = WriteLog(&log2, again)
	if log2.String() != log.String() {
		t.Error("second run logged differently")
	}
}

// A parameter that is a $ref is enriched beside the $ref (sibling keys),
// so the shared definition stays as it was; a property that lives inside a
// definition carries its own description, so it is enriched there.
func TestRunRefs(t *testing.T) {
	svc := testService(t)
	if _, err := Run(svc, Options{}); err != nil {
		t.Fatal(err)
	}
	in := svc.Tools[0].Input
	ms := in["properties"].(map[string]any)["milestone"].(map[string]any)
	if show(ms["maximum"]) != "99" || ms["$ref"] != "#/$defs/milestone" {
		t.Errorf("milestone = %v", ms)
	}
	defs := in["$defs"].(map[string]any)
	if _, has := defs["milestone"].(map[string]any)["maximum"]; has {
		t.Error("the milestone definition was changed")
	}
	color := defs["label"].(map[string]any)["properties"].(map[string]any)["color"].(map[string]any)
	if color["default"] != "ffffff" {
		t.Errorf("color = %v", color)
	}
}

func TestOverrideAcceptStillVerified(t *testing.T) {
	svc := testService(t)
	extra := []Proposal{{Tool: "create_issue", Pointer: "/properties/milestone", Kind: KindStaticDefault, To: map[string]any{"default": "x"}, Evidence: "Milestone number"}}
	id := ProposalID("create_issue", "/properties/milestone", KindStaticDefault, extra[0].To)
	ds, err := Run(svc, Options{Extra: extra, Overrides: map[string]bool{id: true}})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		if d.ID == id {
			if d.Accepted || d.Reason != `override to accept failed verification: default "x" is not of the schema's type integer` {
				t.Errorf("got %v %q", d.Accepted, d.Reason)
			}
			return
		}
	}
	t.Error("no decision for the override")
}

func TestReadProposalsErrors(t *testing.T) {
	for _, in := range []string{
		`{"tool":"t","pointer":"/properties/a","kind":"colour","to":{"x":1},"evidence":"e"}`,
		`{"tool":"t","pointer":"/properties/a","kind":"enum","to":{},"evidence":"e"}`,
		`{"pointer":"/properties/a","kind":"enum","to":{"enum":["a"]},"evidence":"e"}`,
		`{"tool":"t","pointer":"/properties/a","kind":"enum","to":{"enum":["a"]},"evidence":"e","extra":1}`,
		`not json`,
	} {
		if _, err := ReadProposals(strings.NewReader(in)); err == nil {
			t.Errorf("%s: no error", in)
		}
	}
}

func TestExplain(t *testing.T) {
	svc := testService(t)
	ds, _ := Run(svc, Options{})
	var b bytes.Buffer
	if err := Explain(&b, ds, "create_issue"); err != nil {
		t.Fatal(err)
	}
	want := `create_issue: 7 proposal(s), 7 accepted
  /properties/title
    + length          maxLength=256  [prose-length]
        evidence: "max 256"
        accepted: verified
`
	if !strings.HasPrefix(b.String(), want) {
		t.Errorf("explain:\n%s", b.String())
	}
}

// TestRulePanicLostTheCompile pins what a rule's bug costs: a rule that
// panicked on one description (as omitHits did on Spotify's) took the
// whole compile down with a stack trace. Now only that parameter goes
// unenriched, with a warning naming it; every other narrowing is made.
func TestRulePanicLostTheCompile(t *testing.T) {
	saved := ruleSet
	t.Cleanup(func() { ruleSet = saved })
	ruleSet = append([]func(*ctx, []Proposal) []Proposal{func(c *ctx, _ []Proposal) []Proposal {
		if strings.HasPrefix(c.raw, "Login to assign") {
			var s []int
			_ = s[len(c.raw)] // a rule's out-of-range slice, as in the bug
		}
		return nil
	}}, saved...)
	svc := testService(t)
	ds, err := Run(svc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(svc.Diagnostics) != 1 {
		t.Fatalf("diagnostics: %v", svc.Diagnostics)
	}
	d := svc.Diagnostics[0]
	if d.Code != ir.DiagEnrichFailed || !strings.HasSuffix(d.Pointer, "/properties/assignee") || !strings.Contains(d.Message, "index out of range") {
		t.Errorf("diagnostic: %+v", d)
	}
	var accepted []string
	for _, d := range ds {
		if d.Accepted {
			accepted = append(accepted, d.Pointer+" "+d.Kind)
		}
		if d.Pointer == "/properties/assignee" {
			t.Errorf("a decision on the failed parameter: %+v", d)
		}
	}
	if len(accepted) != 6 {
		t.Errorf("accepted %d decisions, want the 6 others: %v", len(accepted), accepted)
	}
}
