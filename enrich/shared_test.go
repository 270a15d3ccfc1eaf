package enrich

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/parse"
)

// sharedParamDocs are one document in Swagger 2.0 and one in OpenAPI 3.0
// whose three operations share a $ref'd query parameter, the same map in
// each tool's Input once parsed.
var sharedParamDocs = map[string]string{
	"swagger.json": `{"swagger": "2.0", "info": {"title": "t", "version": "1"},
	  "parameters": {"limit": {"name": "limit", "in": "query", "type": "integer", "description": "How many to return, at most 100."}},
	  "paths": {
	    "/a": {"get": {"operationId": "listA", "parameters": [{"$ref": "#/parameters/limit"}], "responses": {"200": {"description": "ok"}}}},
	    "/b": {"get": {"operationId": "listB", "parameters": [{"$ref": "#/parameters/limit"}], "responses": {"200": {"description": "ok"}}}},
	    "/c": {"get": {"operationId": "listC", "parameters": [{"$ref": "#/parameters/limit"}], "responses": {"200": {"description": "ok"}}}}}}`,
	"openapi.json": `{"openapi": "3.0.3", "info": {"title": "t", "version": "1"},
	  "components": {"parameters": {"limit": {"name": "limit", "in": "query", "description": "How many to return, at most 100.", "schema": {"type": "integer"}}}},
	  "paths": {
	    "/a": {"get": {"operationId": "listA", "parameters": [{"$ref": "#/components/parameters/limit"}], "responses": {"200": {"description": "ok"}}}},
	    "/b": {"get": {"operationId": "listB", "parameters": [{"$ref": "#/components/parameters/limit"}], "responses": {"200": {"description": "ok"}}}},
	    "/c": {"get": {"operationId": "listC", "parameters": [{"$ref": "#/components/parameters/limit"}], "responses": {"200": {"description": "ok"}}}}}}`,
}

func limitOf(s ir.Schema) map[string]any {
	props, _ := s["properties"].(map[string]any)
	m, _ := props["limit"].(map[string]any)
	return m
}

// TestSharedParameterNarrowedInOneToolOnly: parse gives the operations
// that share a parameter one property schema; a narrowing enrich accepts in
// one tool (and an override rejects in another) changes that tool's Input
// alone, never the other tools' nor any Original.
func TestSharedParameterNarrowedInOneToolOnly(t *testing.T) {
	for name, doc := range sharedParamDocs {
		t.Run(name, func(t *testing.T) {
			svc, err := parse.OpenAPI(name, []byte(doc), parse.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(svc.Tools) != 3 {
				t.Fatalf("%d tools", len(svc.Tools))
			}
			a, b, c := svc.Tools[0], svc.Tools[1], svc.Tools[2]
			if reflect.ValueOf(limitOf(a.Input)).Pointer() != reflect.ValueOf(limitOf(b.Input)).Pointer() {
				t.Fatal("the shared parameter is not one map in the tools' inputs (this test would test nothing)")
			}
			before := map[string]any{"type": "integer", "description": "How many to return, at most 100."}
			if !reflect.DeepEqual(limitOf(a.Input), before) {
				t.Fatalf("limit parsed as %v", limitOf(a.Input))
			}
			ds, err := Run(svc, Options{Overrides: map[string]bool{"listB#/parameters/query/limit#range#maximum": false}})
			if err != nil {
				t.Fatal(err)
			}
			accepted := map[ir.WireName]bool{}
			for _, d := range ds {
				if d.Pointer == "/parameters/query/limit" && d.Kind == KindRange {
					accepted[d.Tool] = d.Accepted
				}
			}
			if want := map[ir.WireName]bool{"listA": true, "listB": false, "listC": true}; !reflect.DeepEqual(accepted, want) {
				t.Fatalf("range decisions %v, want %v", accepted, want)
			}
			narrowed := map[string]any{"type": "integer", "description": "How many to return, at most 100.", "maximum": json.Number("100")}
			for _, tool := range []*ir.Tool{a, c} {
				if got := limitOf(tool.Input); !reflect.DeepEqual(got, narrowed) {
					t.Errorf("%s: limit %v, want %v", tool.Wire, got, narrowed)
				}
				if got := limitOf(tool.Original); !reflect.DeepEqual(got, before) {
					t.Errorf("%s: original limit %v, want %v", tool.Wire, got, before)
				}
			}
			if got := limitOf(b.Input); !reflect.DeepEqual(got, before) {
				t.Errorf("listB: limit %v, want it unchanged (%v)", got, before)
			}
			if b.Original != nil {
				t.Errorf("listB: an Original (%v) though nothing was changed", b.Original)
			}
		})
	}
}
