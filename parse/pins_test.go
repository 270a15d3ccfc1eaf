package parse_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/manifest"
	"github.com/codemode-dev/codemode/parse"
)

// pinsDoc has four operations over shared components: reachA reaches C
// through A and B (a request body), reachB reaches C through B (a
// response), other reaches D only, none no component. Cycle refers to
// itself and to C.
const pinsDoc = `{"openapi": "3.0.3", "info": {"title": "pins", "version": "1"},
 "paths": {
  "/a": {"post": {"operationId": "reachA", "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/A"}}}}, "responses": {"204": {"description": "ok"}}}},
  "/b": {"get": {"operationId": "reachB", "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/B"}}}}}}},
  "/d": {"get": {"operationId": "other", "parameters": [{"name": "q", "in": "query", "schema": {"$ref": "#/components/schemas/D"}}], "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/D"}}}}}}},
  "/c": {"get": {"operationId": "cycle", "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Cycle"}}}}}}},
  "/n": {"get": {"operationId": "none", "parameters": [{"name": "n", "in": "query", "schema": {"type": "integer"}}], "responses": {"204": {"description": "ok"}}}}
 },
 "components": {"schemas": {
  "A": {"type": "object", "properties": {"b": {"$ref": "#/components/schemas/B"}}},
  "B": {"type": "object", "properties": {"c": {"type": "array", "items": {"$ref": "#/components/schemas/C"}}}},
  "C": {"type": "object", "properties": {"deep": {"type": "object", "properties": {"leaf": {"type": "string", "maxLength": 10}}}}},
  "D": {"type": "string", "enum": ["x", "y"]},
  "Cycle": {"type": "object", "properties": {"next": {"$ref": "#/components/schemas/Cycle"}, "c": {"$ref": "#/components/schemas/C"}}}
 }}}`

func docPins(t *testing.T, doc string) map[ir.WireName]string {
	t.Helper()
	svc, err := parse.OpenAPI("pins.json", []byte(doc), parse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[ir.WireName]string{}
	for i, p := range manifest.Pins(svc.Tools) {
		out[svc.Tools[i].Wire] = p
	}
	return out
}

// TestPinChangesForExactlyTheToolsThatReachAChange: pins (format 2) hash
// each shared definition once instead of spelling it out in every tool, and
// still change when anything a call depends on changes: one keyword deep
// inside the shared definition C changes the pins of exactly the tools
// that reach C (through a body, a response, a chain of two definitions or
// a cycle), and no other; a change to D changes only other's.
func TestPinChangesForExactlyTheToolsThatReachAChange(t *testing.T) {
	before := docPins(t, pinsDoc)
	if len(before) != 5 {
		t.Fatalf("pins: %v", before)
	}
	for wire, p := range before {
		if !strings.HasPrefix(p, manifest.PinPrefix) || len(p) != len(manifest.PinPrefix)+64 {
			t.Errorf("%s: pin %q", wire, p)
		}
	}
	changed := func(doc string) []string {
		t.Helper()
		after := docPins(t, doc)
		var out []string
		for wire, p := range after {
			if before[wire] != p {
				out = append(out, string(wire))
			}
		}
		slices.Sort(out)
		return out
	}
	deep := strings.Replace(pinsDoc, `"maxLength": 10`, `"maxLength": 11`, 1)
	if got, want := changed(deep), []string{"cycle", "reachA", "reachB"}; !slices.Equal(got, want) {
		t.Errorf("C's leaf changed: pins changed for %v, want %v", got, want)
	}
	enum := strings.Replace(pinsDoc, `"enum": ["x", "y"]`, `"enum": ["x", "y", "z"]`, 1)
	if got, want := changed(enum), []string{"other"}; !slices.Equal(got, want) {
		t.Errorf("D changed: pins changed for %v, want %v", got, want)
	}
	if got := changed(pinsDoc); len(got) != 0 {
		t.Errorf("same document: pins changed for %v", got)
	}
}
