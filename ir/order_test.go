package ir_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/parse"
)

// deepCopy copies a decoded JSON value: every map and slice is new.
func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}

func fields(sh *ir.ObjectType) string {
	var names []string
	for _, f := range sh.Fields {
		names = append(names, f.Wire)
	}
	return strings.Join(names, ",")
}

func shapeNamed(t *testing.T, svc *ir.Service, name ir.PyIdent) *ir.ObjectType {
	t.Helper()
	var names []string
	for _, sh := range svc.Objects {
		if sh.Name == name {
			return sh
		}
		names = append(names, string(sh.Name))
	}
	t.Fatalf("no shape %s among %v", name, names)
	return nil
}

// TestFieldOrderNotTiedToMapAddress: the source order of a schema's fields
// was kept by the address of its "properties" map, so a copied schema
// printed sorted and a map allocated where a freed one had been could take
// its keys. It is kept by where the object is in the source: copies of
// every schema still print in source order, through $refs and allOf too.
func TestFieldOrderNotTiedToMapAddress(t *testing.T) {
	src := `{"tools":[{"name":"t","inputSchema":{"type":"object","properties":{
		"point":{"type":"object","required":["alpha"],"properties":{"zeta":{"type":"string"},"alpha":{"type":"string"},"mid":{"type":"integer"}}},
		"ref":{"$ref":"#/$defs/Ref"},
		"merged":{"allOf":[{"$ref":"#/$defs/Ref"},{"type":"object","properties":{"yy":{"type":"string"},"bb":{"type":"string"}}}]}},
		"$defs":{"Ref":{"type":"object","properties":{"zz":{"type":"string"},"aa":{"type":"string"}}}}}}]}`
	svc, err := parse.MCP("order.json", []byte(src), parse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range svc.Tools {
		tool.Input = deepCopy(tool.Input).(map[string]any)
	}
	ir.Resolve(svc)
	for name, want := range map[ir.PyIdent]string{
		"TPoint":  "zeta,alpha,mid",
		"Ref":     "zz,aa",
		"TMerged": "zz,aa,yy,bb",
	} {
		if got := fields(shapeNamed(t, svc, name)); got != want {
			t.Errorf("%s fields = %s, want %s", name, got, want)
		}
	}
}

// TestSharedDefinitionKnownByPlace: two operations that refer to one
// component schema share one shape because the reference names one place
// in the document, not because their $defs hold the same map: copied
// inputs still share it.
func TestSharedDefinitionKnownByPlace(t *testing.T) {
	src := `{"openapi":"3.0.0","info":{"title":"t","version":"1"},"paths":{
		"/a":{"post":{"operationId":"a","requestBody":{"content":{"application/json":{"schema":{"type":"object","properties":{"pet":{"$ref":"#/components/schemas/Pet"}}}}}},"responses":{}}},
		"/b":{"post":{"operationId":"b","requestBody":{"content":{"application/json":{"schema":{"type":"object","properties":{"pet":{"$ref":"#/components/schemas/Pet"}}}}}},"responses":{}}}},
		"components":{"schemas":{"Pet":{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"}}}}}}`
	svc, err := parse.OpenAPI("pets.json", []byte(src), parse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range svc.Tools {
		tool.Input = deepCopy(tool.Input).(map[string]any)
	}
	ir.Resolve(svc)
	var names []string
	for _, sh := range svc.Objects {
		names = append(names, string(sh.Name))
	}
	if !reflect.DeepEqual(names, []string{"Pet"}) {
		t.Fatalf("shapes = %v, want [Pet]", names)
	}
	if got := fields(svc.Objects[0]); got != "name,age" {
		t.Errorf("Pet fields = %s, want name,age", got)
	}
	a, b := svc.Tools[0].Params[0].Type, svc.Tools[1].Params[0].Type
	if a.Object != b.Object {
		t.Error("the two operations' pet parameters do not share the Pet shape")
	}
}

// TestSameNameDefinitionsInTwoToolsStayApart: two MCP tools each define
// $defs/Item differently; the references are the same string but name two
// places, so each gets its own shape.
func TestSameNameDefinitionsInTwoToolsStayApart(t *testing.T) {
	src := `[{"name":"a","inputSchema":{"type":"object","properties":{"x":{"$ref":"#/$defs/Item"}},"$defs":{"Item":{"type":"object","properties":{"p":{"type":"string"},"q":{"type":"string"}}}}}},
		{"name":"b","inputSchema":{"type":"object","properties":{"x":{"$ref":"#/$defs/Item"}},"$defs":{"Item":{"type":"object","properties":{"r":{"type":"integer"}}}}}}]`
	svc, err := parse.MCP("two.json", []byte(src), parse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ir.Resolve(svc)
	a, b := svc.Tools[0].Params[0].Type.Object, svc.Tools[1].Params[0].Type.Object
	if a == nil || b == nil || a == b {
		t.Fatalf("shapes %v and %v, want two", a, b)
	}
	if fields(a) != "p,q" || fields(b) != "r" {
		t.Errorf("fields %s and %s, want p,q and r", fields(a), fields(b))
	}
}

// TestOriginSourceLongestPrefix: a part of a schema is placed by its
// longest listed prefix.
func TestOriginSourceLongestPrefix(t *testing.T) {
	o := ir.Origin{"": "/in", "/$defs/A": "/components/schemas/A"}
	for ptr, want := range map[string]string{
		"":                    "/in",
		"/properties/x":       "/in/properties/x",
		"/$defs/A":            "/components/schemas/A",
		"/$defs/A/properties": "/components/schemas/A/properties",
		"/$defs/AB":           "/in/$defs/AB",
	} {
		if got, ok := o.DocPointer(ptr); !ok || got != want {
			t.Errorf("Source(%q) = %q, %v; want %q", ptr, got, ok, want)
		}
	}
	if _, ok := (ir.Origin{"/$defs/A": "/x"}).DocPointer("/properties/y"); ok {
		t.Error("a part under no listed prefix was placed")
	}
}
