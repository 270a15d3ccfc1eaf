package manifest

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/ir"
)

// TestFrameKnowsEveryField: the frameWriter writes each struct's fields by
// hand, so a field added to Manifest, Service, Tool or Param must be added
// there too (and to the list below, after checking its omitempty rule).
func TestFrameKnowsEveryField(t *testing.T) {
	known := map[reflect.Type]string{
		reflect.TypeFor[Manifest](): "version services",
		reflect.TypeFor[Service]():  "name title,omitempty file source servers,omitempty security,omitempty tools diagnostics,omitempty defs,omitempty stub",
		reflect.TypeFor[Tool]():     "wire py call signature title,omitempty description,omitempty deprecated,omitempty lines params input original,omitempty output,omitempty annotations http,omitempty enrichment,omitempty pin observed,omitempty",
		reflect.TypeFor[Param]():    "arg wire py in required style,omitempty explode,omitempty pointer",
	}
	for ty, want := range known {
		var tags []string
		for f := range ty.Fields() {
			tags = append(tags, f.Tag.Get("json"))
		}
		if got := strings.Join(tags, " "); got != want {
			t.Errorf("%s's fields are %q; the frameWriter writes %q: teach it the new field", ty.Name(), got, want)
		}
	}
}

// TestFrameWritesEveryFieldAsEncodingJSON: a manifest with every field
// set (and one with every field empty) gives encoding/json's bytes.
func TestFrameWritesEveryFieldAsEncodingJSON(t *testing.T) {
	no := false
	full := &Manifest{Version: Version, Services: []Service{{
		Name: "s", Title: "T <&>", File: "s.py", Source: ir.Source{Kind: "openapi", File: "a b.json", Digest: "sha256:x"},
		Servers: []string{"https://a/<x>", ""}, Security: []ir.SecurityScheme{{Name: "k", Type: "apiKey", In: "header", Header: "X-K"}},
		Tools: []Tool{{
			Wire: "w\u2028", Py: "p", Call: "api.s.p", Signature: "p(a: str) -> Any", Title: "t\x01", Description: "d\n\"q\"\\ \xff",
			Deprecated: true, Lines: [2]int{3, 14}, Params: []Param{
				{Arg: "a", Wire: "a", Py: "a", In: "query", Required: true, Style: "form", Explode: &no, Ref: "/a"},
				{Arg: "b", Wire: "b", Py: "b", In: "path", Ref: "/b"},
			},
			Input: ir.Schema{"type": "object"}, Original: ir.Schema{"type": "object", "x": 1}, Output: ir.Schema{"type": "string"},
			Annotations: ir.Annotations{ReadOnly: true, OpenWorld: true},
			HTTP:        &ir.HTTPOp{Method: "GET", Path: "/a/{b}", BodyType: "application/json", BodySpread: true, BodyRequired: true, Security: []string{"k"}},
			Enrichment:  []json.RawMessage{json.RawMessage(` { "a" : [ 1 , "<&>" ] } `), json.RawMessage(`2`)},
			Pin:         "v2:sha256:0", Observed: ir.Schema{"type": "object", "properties": map[string]any{}},
		}, {Wire: "empty", Input: ir.Schema{}, Params: nil}},
		Diagnostics: []string{"d1", "<d2>"}, Defs: map[string]any{"A": map[string]any{"type": "string"}}, Stub: "def p():\n    ...\n",
	}, {}}}
	for name, m := range map[string]*Manifest{"full": full, "empty": {}, "no services": {Version: 1, Services: []Service{}}} {
		got, ok := marshalIndented(m)
		if !ok {
			t.Fatalf("%s: marshalIndented gave up", name)
		}
		want, err := marshalStd(m)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: differs from encoding/json:\n%s\nwant:\n%s", name, got, want)
		}
	}
	bad := &Manifest{Services: []Service{{Tools: []Tool{{Enrichment: []json.RawMessage{json.RawMessage(`{`)}}}}}}
	if _, ok := marshalIndented(bad); ok {
		t.Error("a bad enrichment line: marshalIndented wrote it")
	}
	if _, err := Marshal(bad); err == nil {
		t.Error("a bad enrichment line: no error")
	}
}
