package parse

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/ir"
)

func TestOpenAPICorpus(t *testing.T) {
	files, _ := filepath.Glob("../testdata/corpus/openapi/*")
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, ".source.json") || strings.HasSuffix(f, "github-rest.json") {
			continue // github-rest has its own test
		}
		n++
		svc, err := OpenAPIFile(f, Options{})
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		checkOpenAPI(t, f, svc)
	}
	if n != 14 {
		t.Fatalf("compiled %d corpus files, want 14", n)
	}
}

// checkOpenAPI checks what must hold for every compiled operation.
func checkOpenAPI(t *testing.T, f string, svc *ir.Service) {
	t.Helper()
	var sidecar struct {
		Operations int `json:"operations"`
	}
	if b, err := os.ReadFile(strings.TrimSuffix(strings.TrimSuffix(f, ".json"), ".yaml") + ".source.json"); err == nil {
		_ = json.Unmarshal(b, &sidecar)
	}
	if sidecar.Operations != 0 && len(svc.Tools) != sidecar.Operations {
		t.Errorf("%s: %d tools, sidecar says %d operations", f, len(svc.Tools), sidecar.Operations)
	}
	py := map[ir.PyIdent]bool{}
	for _, tool := range svc.Tools {
		if py[tool.Py] || tool.HTTP == nil || !strings.HasPrefix(tool.Pointer, "/paths/") {
			t.Errorf("%s %s: py %q, pointer %q", f, tool.Wire, tool.Py, tool.Pointer)
		}
		py[tool.Py] = true
		props, _ := tool.Input["properties"].(map[string]any)
		if tool.Input["type"] != "object" || tool.Input["additionalProperties"] != false || len(props) != len(tool.Params) {
			t.Errorf("%s %s: input %v", f, tool.Wire, tool.Input)
		}
		for _, p := range tool.Params {
			if props[p.Arg] == nil {
				t.Errorf("%s %s: no input property for %q", f, tool.Wire, p.Arg)
			}
		}
		// Every $defs reference resolves inside the tool's own schema.
		for _, s := range []ir.Schema{tool.Input, tool.Output} {
			if s == nil {
				continue
			}
			defs, _ := s["$defs"].(map[string]any)
			eachRef(s, func(ref string) {
				if name, ok := strings.CutPrefix(ref, "#/$defs/"); ok {
					name, _, _ = strings.Cut(name, "/")
					if defs[unesc(name)] == nil {
						t.Errorf("%s %s: dangling $ref %q", f, tool.Wire, ref)
					}
				} else {
					t.Errorf("%s %s: $ref %q not rewritten", f, tool.Wire, ref)
				}
			})
		}
	}
}

func eachRef(v any, fn func(string)) {
	seen := map[*map[string]any]bool{}
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		if depth > 200 {
			return
		}
		switch x := v.(type) {
		case map[string]any:
			if seen[&x] {
				return
			}
			for k, c := range x {
				if k == "$ref" {
					if s, ok := c.(string); ok {
						fn(s)
					}
					continue
				}
				if strings.HasPrefix(k, "x-") || k == "enum" || k == "default" || k == "example" || k == "examples" || k == "const" {
					continue
				}
				walk(c, depth+1)
			}
		case []any:
			for _, c := range x {
				walk(c, depth+1)
			}
		}
	}
	walk(v, 0)
}

func TestOpenAPIPetstoreV3(t *testing.T) {
	svc, err := OpenAPIFile("../testdata/corpus/openapi/petstore-v3.json", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if svc.Name != "petstore_v3" || svc.Title != "Swagger Petstore" || len(svc.Tools) != 20 || len(svc.Diagnostics) != 0 {
		t.Errorf("service %q %q, %d tools, %v", svc.Name, svc.Title, len(svc.Tools), svc.Diagnostics)
	}
	if !reflect.DeepEqual(svc.Servers, []string{"http://petstore.swagger.io/v2"}) {
		t.Errorf("servers = %q", svc.Servers)
	}
	wantSec := []ir.SecurityScheme{{Name: "api_key", Type: "apiKey", In: "header", Header: "api_key"}, {Name: "petstore_auth", Type: "oauth2"}}
	if !reflect.DeepEqual(svc.Security, wantSec) {
		t.Errorf("security = %+v", svc.Security)
	}

	add := svc.Tools[0]
	if add.Wire != "addPet" || add.Pointer != "/paths/~1pet/post" || add.Title != "Add a new pet to the store" {
		t.Errorf("addPet = %+v", add)
	}
	if want := (&ir.HTTPOp{Method: "POST", Path: "/pet", BodyType: "application/json", BodySpread: true, BodyRequired: true, Security: []string{"petstore_auth"}}); !reflect.DeepEqual(add.HTTP, want) {
		t.Errorf("addPet HTTP = %+v", add.HTTP)
	}
	// id is readOnly in Pet: not an input.
	if got := paramArgs(add); got != "category name photoUrls tags status" {
		t.Errorf("addPet params = %q", got)
	}
	name := add.Params[1]
	if want := (&ir.Param{Arg: "name", Wire: "name", Py: "name", In: ir.InBody, Required: true, Ref: "/requestBody/properties/name"}); !reflect.DeepEqual(name, want) {
		t.Errorf("addPet name = %+v", name)
	}
	if !reflect.DeepEqual(add.Input["required"], []any{"name", "photoUrls"}) {
		t.Errorf("addPet required = %v", add.Input["required"])
	}
	defs := add.Input["$defs"].(map[string]any)
	if got := slices.Sorted(mapKeys(defs)); !reflect.DeepEqual(got, []string{"Category", "Tag"}) {
		t.Errorf("addPet $defs = %q", got)
	}
	if cat := add.Input["properties"].(map[string]any)["category"]; !reflect.DeepEqual(cat, map[string]any{"$ref": "#/$defs/Category"}) {
		t.Errorf("category = %v", cat)
	}

	get := findTool(t, svc, "getPetById")
	if !get.Annotations.ReadOnly || get.HTTP.Method != "GET" || get.HTTP.BodyType != "" || get.Output["$ref"] != "#/$defs/Pet" {
		t.Errorf("getPetById = %+v %+v, output %v", get.Annotations, get.HTTP, get.Output)
	}
	petID := get.Params[0]
	f := false
	if want := (&ir.Param{Arg: "petId", Wire: "petId", Py: "petId", In: ir.InPath, Required: true, Description: "ID of pet to return", Ref: "/parameters/path/petId", Style: "simple", Explode: &f}); !reflect.DeepEqual(petID, want) {
		t.Errorf("petId = %+v", petID)
	}

	form := findTool(t, svc, "updatePetWithForm")
	if form.HTTP.BodyType != "application/x-www-form-urlencoded" || !form.HTTP.BodySpread || paramArgs(form) != "petId name status" {
		t.Errorf("updatePetWithForm = %+v %q", form.HTTP, paramArgs(form))
	}
	del := findTool(t, svc, "deletePet")
	if !del.Annotations.Idempotent || !del.Annotations.Destructive || del.Params[0].In != ir.InHeader {
		t.Errorf("deletePet = %+v", del)
	}
	user := findTool(t, svc, "updateUser")
	if p := user.Params[2]; p.Arg != "body_username" || p.Wire != "username" || p.Py != "body_username" || p.In != ir.InBody {
		t.Errorf("updateUser collision = %+v", p)
	}
	list := findTool(t, svc, "createUsersWithArrayInput")
	whole := list.Params[0]
	if list.HTTP.BodySpread || whole.Arg != "body" || whole.In != ir.InBodyWhole || !whole.Required || whole.Ref != "/requestBody" || whole.Description != "List of user object" {
		t.Errorf("createUsersWithArrayInput = %+v %+v", list.HTTP, whole)
	}
}

func mapKeys(m map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func TestOpenAPISwagger2(t *testing.T) {
	svc, err := OpenAPIFile("../testdata/corpus/openapi/petstore-v2.json", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(svc.Servers, []string{"http://petstore.swagger.io/v2"}) {
		t.Errorf("servers = %q", svc.Servers)
	}
	form := findTool(t, svc, "updatePetWithForm")
	if form.HTTP.BodyType != "application/x-www-form-urlencoded" || !form.HTTP.BodySpread {
		t.Errorf("HTTP = %+v", form.HTTP)
	}
	want := []*ir.Param{
		{Arg: "name", Wire: "name", Py: "name", In: ir.InBody, Description: "Updated name of the pet", Ref: "/requestBody/properties/name"},
		{Arg: "status", Wire: "status", Py: "status", In: ir.InBody, Description: "Updated status of the pet", Ref: "/requestBody/properties/status"},
	}
	if !reflect.DeepEqual(form.Params[1:], want) {
		b, _ := json.Marshal(form.Params)
		t.Errorf("params = %s", b)
	}
	up := findTool(t, svc, "uploadFile")
	file := up.Input["properties"].(map[string]any)["file"]
	if up.HTTP.BodyType != "multipart/form-data" || !reflect.DeepEqual(file, map[string]any{"type": "string", "format": "binary", "description": "file to upload"}) {
		t.Errorf("uploadFile = %+v, file %v", up.HTTP, file)
	}
	byStatus := findTool(t, svc, "findPetsByStatus")
	if p := byStatus.Params[0]; p.Style != "form" || p.Explode == nil || !*p.Explode {
		t.Errorf("status = %+v", p)
	}
	add := findTool(t, svc, "addPet")
	if add.HTTP.BodyType != "application/json" || !add.HTTP.BodySpread || add.Input["$defs"].(map[string]any)["Category"] == nil {
		t.Errorf("addPet = %+v", add.HTTP)
	}
}

func TestOpenAPIKubernetes(t *testing.T) {
	svc, err := OpenAPIFile("../testdata/corpus/openapi/kubernetes-swagger.json", Options{})
	if err != nil {
		t.Fatal(err)
	}
	list := findTool(t, svc, "listCoreV1NamespacedPod")
	var cont *ir.Param
	for _, p := range list.Params {
		if p.Wire == "continue" {
			cont = p
		}
	}
	if cont == nil || cont.Py != "continue_" || cont.Arg != "continue" || cont.In != ir.InQuery || cont.Ref != "/parameters/query/continue" || cont.Required || !strings.HasPrefix(cont.Description, "The continue option") {
		t.Fatalf("continue = %+v", cont)
	}
	if s := list.Input["properties"].(map[string]any)["continue"].(map[string]any); s["type"] != "string" {
		t.Errorf("continue schema = %v", s)
	}
	// Path-level parameters first, in source order, then the operation's.
	if got := paramArgs(list); !strings.HasPrefix(got, "namespace pretty allowWatchBookmarks continue") {
		t.Errorf("params = %q", got)
	}
	patch := findTool(t, svc, "patchCoreV1NamespacedPod")
	if patch.HTTP.BodyType != "application/merge-patch+json" || patch.HTTP.BodySpread || patch.Params[len(patch.Params)-1].In != ir.InBodyWhole {
		t.Errorf("patch = %+v", patch.HTTP)
	}
	if !reflect.DeepEqual(svc.Security, []ir.SecurityScheme{{Name: "BearerToken", Type: "apiKey", In: "header", Header: "authorization"}}) {
		t.Errorf("security = %+v", svc.Security)
	}
}

func TestOpenAPICircular(t *testing.T) {
	svc, err := OpenAPIFile("../testdata/corpus/openapi/oas-schema-circular.json", Options{})
	if err != nil {
		t.Fatal(err)
	}
	tool := findTool(t, svc, "PUT /circular")
	if tool.Py != "PUT_circular" || tool.HTTP.Method != "PUT" || tool.HTTP.Path != "/circular" || tool.HTTP.BodyType != "multipart/form-data" {
		t.Errorf("tool = %+v", tool)
	}
	// Self- and mutually-recursive schemas stay references, with their
	// targets in $defs.
	b, err := json.Marshal(tool.Input)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"$ref":"#/$defs/`) {
		t.Errorf("no $defs refs in %s", b)
	}
	checkOpenAPI(t, "oas-schema-circular.json", svc)
	var cycles int
	for _, tl := range svc.Tools {
		defs, _ := tl.Input["$defs"].(map[string]any)
		for name, d := range defs {
			eachRef(d, func(ref string) {
				if ref == "#/$defs/"+name {
					cycles++
				}
			})
		}
	}
	if cycles == 0 {
		t.Errorf("no self-referencing $defs entry survived")
	}
	if len(svc.Diagnostics) != 1 || svc.Diagnostics[0].Code != "ignored-header" || svc.Diagnostics[0].Pointer != "/paths/~1circular/put/parameters/0" {
		t.Errorf("diagnostics = %v", svc.Diagnostics)
	}
}

func TestOpenAPIGitHub(t *testing.T) {
	if testing.Short() {
		t.Skip("13 MB spec")
	}
	f := "../testdata/corpus/openapi/github-rest.json"
	svc, err := OpenAPIFile(f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkOpenAPI(t, f, svc)
	tool := findTool(t, svc, "security-advisories/list-global-advisories")
	if tool.Py != "security_advisories_list_global_advisories" || tool.Pointer != "/paths/~1advisories/get" || !tool.Annotations.ReadOnly {
		t.Errorf("tool = %+v", tool)
	}
	if want := (&ir.HTTPOp{Method: "GET", Path: "/advisories"}); !reflect.DeepEqual(tool.HTTP, want) {
		t.Errorf("HTTP = %+v", tool.HTTP)
	}
	want := "ghsa_id type cve_id ecosystem severity cwes is_withdrawn affects published updated modified epss_percentage epss_percentile before after direction per_page sort"
	if got := paramArgs(tool); got != want {
		t.Errorf("params = %q", got)
	}
	typ := tool.Params[1]
	if typ.Py != "type_" || typ.In != ir.InQuery || typ.Ref != "/parameters/query/type" || typ.Style != "form" {
		t.Errorf("type = %+v", typ)
	}
	if tool.Output == nil || tool.Output["type"] != "array" || tool.Output["$defs"] == nil {
		t.Errorf("output = %v", tool.Output)
	}
	for _, d := range svc.Diagnostics {
		t.Log(d)
	}
}

func TestOpenAPIYAMLAndSpellings(t *testing.T) {
	doc := `openapi: 3.0.3
info: {title: T, version: "1"}
servers:
  - url: https://{region}.example.com/{v}
    variables:
      region: {default: eu}
      v: {default: 2}
paths:
  /items/{id}:
    parameters:
      - {name: id, in: path, schema: {type: integer}, description: the id}
    patch:
      operationId: patchItem
      summary: Patch an item.
      description: Patch an item. Fields not sent are kept.
      security: [{key: []}]
      parameters:
        - name: q
          in: query
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Q'}
      requestBody:
        required: true
        content:
          application/merge-patch+json:
            schema:
              allOf:
                - $ref: '#/components/schemas/Base'
                - type: object
                  required: [zeta]
                  properties:
                    zeta: {type: string, nullable: true, enum: [a, b]}
                    alpha: {type: number, minimum: 0, exclusiveMinimum: true}
      responses:
        "204": {description: done}
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: 'other.yaml#/X'}
    post:
      requestBody:
        content:
          text/plain:
            schema: {type: object}
      responses: {}
components:
  securitySchemes:
    key: {type: apiKey, in: query, name: api_key}
    bearer: {type: http, scheme: Bearer}
  schemas:
    Q: {type: object}
    Base:
      type: object
      properties:
        id: {type: integer, readOnly: true}
        name: {type: string, description: the name}
`
	svc, err := OpenAPI("api.yaml", []byte(doc), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if svc.Name != "api" || !reflect.DeepEqual(svc.Servers, []string{"https://eu.example.com/2"}) {
		t.Errorf("service %q servers %q", svc.Name, svc.Servers)
	}
	if want := []ir.SecurityScheme{{Name: "bearer", Type: "bearer"}, {Name: "key", Type: "apiKey", In: "query", Header: "api_key"}}; !reflect.DeepEqual(svc.Security, want) {
		t.Errorf("security = %+v", svc.Security)
	}
	tool := svc.Tools[0]
	if tool.Wire != "patchItem" || tool.Title != "Patch an item." || tool.Description != "Patch an item. Fields not sent are kept." {
		t.Errorf("tool = %+v", tool)
	}
	if want := (&ir.HTTPOp{Method: "PATCH", Path: "/items/{id}", BodyType: "application/merge-patch+json", BodySpread: true, BodyRequired: true, Security: []string{"key"}}); !reflect.DeepEqual(tool.HTTP, want) {
		t.Errorf("HTTP = %+v", tool.HTTP)
	}
	if got := paramArgs(tool); got != "id q name zeta alpha" {
		t.Errorf("params = %q", got)
	}
	props := tool.Input["properties"].(map[string]any)
	if want := map[string]any{"type": []any{"string", "null"}, "enum": []any{"a", "b", nil}}; !reflect.DeepEqual(props["zeta"], want) {
		t.Errorf("zeta = %v", props["zeta"])
	}
	if want := map[string]any{"type": "number", "exclusiveMinimum": json.Number("0")}; !reflect.DeepEqual(props["alpha"], want) {
		t.Errorf("alpha = %v", props["alpha"])
	}
	if want := map[string]any{"type": "integer", "description": "the id"}; !reflect.DeepEqual(props["id"], want) {
		t.Errorf("id = %v", props["id"])
	}
	if !reflect.DeepEqual(tool.Input["required"], []any{"id", "zeta"}) || tool.Params[2].Description != "the name" {
		t.Errorf("required = %v, name = %+v", tool.Input["required"], tool.Params[2])
	}
	if tool.Output == nil || len(tool.Output) != 0 { // unresolvable: unconstrained
		t.Errorf("output = %v", tool.Output)
	}
	post := svc.Tools[1]
	if post.Wire != "POST /items/{id}" || post.Py != "POST_items_id" || post.HTTP.BodyType != "text/plain" || paramArgs(post) != "id body" {
		t.Errorf("post = %+v %+v", post, post.HTTP)
	}
	var got []string
	for _, d := range svc.Diagnostics {
		got = append(got, string(d.Code)+" "+d.Pointer)
	}
	want := []string{
		"param-content /paths/~1items~1{id}/patch/parameters/0/content",
		"unresolved-ref /paths/~1items~1{id}/patch/responses/200/content/application~1json/schema",
		"body-content-type /paths/~1items~1{id}/post/requestBody/content/text~1plain/schema",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("diagnostics = %q", got)
	}
}

func TestOpenAPIErrors(t *testing.T) {
	cases := []struct{ name, doc, want string }{
		{"a.json", `{"openapi": "3.0.0",}`, "a.json:1:21: invalid JSON: invalid character '}' looking for beginning of object key string"},
		{"a.yaml", "openapi: 3.0.0\n  info: [", "a.yaml: invalid YAML: line 2: mapping values are not allowed in this context"},
		{"a.yaml", "", "a.yaml: invalid YAML: empty document"},
		{"a.yaml", "- 1\n- 2\n", "a.yaml: not an OpenAPI document: top level is not an object"},
		{"a.json", `{"tools": []}`, `a.json: not an OpenAPI document: no "openapi" or "swagger" version`},
		{"a.json", `{"swagger": "1.2"}`, `a.json: unsupported Swagger version "1.2" (want 2.0)`},
		{"a.json", `{"openapi": "4.0"}`, `a.json: unsupported OpenAPI version "4.0" (want 3.x)`},
		{"a.json", `{"openapi": 3.1}`, `a.json: not an OpenAPI document: "openapi" is not a string`},
	}
	for _, c := range cases {
		_, err := OpenAPI(c.name, []byte(c.doc), Options{})
		if err == nil || err.Error() != c.want {
			t.Errorf("OpenAPI(%q) error = %v, want %s", c.doc, err, c.want)
		}
	}
	if _, err := OpenAPIFile("testdata/none.yaml", Options{}); err == nil || err.Error() != "testdata/none.yaml: no such file or directory" {
		t.Errorf("missing file: %v", err)
	}
}

// BenchmarkOpenAPIGitHub compiles the largest spec of the corpus.
func BenchmarkOpenAPIGitHub(b *testing.B) {
	data, err := os.ReadFile("../testdata/corpus/openapi/github-rest.json")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := OpenAPI("github-rest.json", data, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func TestOpenAPIYAMLAliases(t *testing.T) {
	laughs := "openapi: 3.0.0\na: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\ng: [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]\n"
	for doc, want := range map[string]string{
		laughs:                         "l.yaml: invalid YAML: aliases expand to too many values",
		"openapi: 3.0.0\na: &a [*a]\n": "l.yaml: invalid YAML: recursive alias",
	} {
		_, err := OpenAPI("l.yaml", []byte(doc), Options{})
		if err == nil || err.Error() != want {
			t.Errorf("error = %v, want %s", err, want)
		}
	}
}

// BenchmarkOpenAPIKubernetes compiles the largest Swagger 2.0 spec of the
// corpus (4.5 MB).
func BenchmarkOpenAPIKubernetes(b *testing.B) {
	data, err := os.ReadFile("../testdata/corpus/openapi/kubernetes-swagger.json")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := OpenAPI("kubernetes-swagger.json", data, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestOpenAPISwagger2Defaults pins what Swagger 2.0 means where a 2.0 to 3
// conversion (kin-openapi's openapi2conv in v0.153) says otherwise or gives
// up on the whole document; see "Swagger 2.0" in doc.go.
func TestOpenAPISwagger2Defaults(t *testing.T) {
	const head = `{"swagger":"2.0","info":{"title":"t","version":"1"},`
	// A query array without collectionFormat is csv: form, not exploded.
	svc, err := OpenAPI("a.json", []byte(head+`"paths":{"/x":{"get":{"parameters":[{"name":"a","in":"query","type":"array","items":{"type":"string"}}],"responses":{}}}}}`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p := svc.Tools[0].Params[0]; p.Style != "form" || p.Explode == nil || *p.Explode {
		t.Errorf("query array = %+v", p)
	}
	// No consumes: a form body is urlencoded and a schema body JSON (not
	// "*/*"); properties and form fields keep their source order.
	svc, err = OpenAPI("a.json", []byte(head+`"paths":{"/f":{"post":{"parameters":[{"name":"zeta","in":"formData","type":"string"},{"name":"alpha","in":"formData","type":"string"}],"responses":{}}},"/b":{"post":{"parameters":[{"name":"b","in":"body","schema":{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"string"}}}}],"responses":{}}}}}`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"application/x-www-form-urlencoded", "application/json"} {
		tool := svc.Tools[i]
		if tool.HTTP.BodyType != want || paramArgs(tool) != "zeta alpha" {
			t.Errorf("%s: body %q params %q", tool.Wire, tool.HTTP.BodyType, paramArgs(tool))
		}
		if _, ok := tool.Input["properties"].(map[string]any)["zeta"].(map[string]any)["x-formData-name"]; ok {
			t.Errorf("%s: conversion marker in the schema", tool.Wire)
		}
	}
	// What cannot be used is a diagnostic, never the end of the document.
	for _, doc := range []string{
		`"paths":{"/x":{"get":{"parameters":[{"$ref":"#/parameters/nope"}],"responses":{"200":{"description":"ok","schema":{"$ref":"#/definitions/Nope"}}}}}}}`,
		`"paths":{"/x":{"get":{"responses":{"200":{"description":"ok","schema":{"$ref":"other.json#/X"}}}}}}}`,
		`"paths":{"/x":{"get":{"parameters":[{"name":"a","in":"query","type":5}],"responses":{}}}}}`,
		`"paths":{"/x":{"post":{"parameters":[{"name":"a","in":"body","schema":{}},{"name":"b","in":"body","schema":{}}],"responses":{}}}}}`,
		`"host":"a/b","paths":{"/x":{"get":{"responses":{}}}}}`,
		`"securityDefinitions":{"o":{"type":"oauth2","flow":"weird"}},"paths":{"/x":{"get":{"responses":{}}}}}`,
	} {
		svc, err := OpenAPI("a.json", []byte(head+doc), Options{})
		if err != nil || len(svc.Tools) != 1 {
			t.Errorf("%s: err %v", doc, err)
		}
	}
	// Two body parameters: the first is used and the second is named.
	svc, err = OpenAPI("a.json", []byte(head+`"paths":{"/x":{"post":{"parameters":[{"name":"a","in":"body","schema":{}},{"name":"b","in":"body","schema":{}}],"responses":{}}}}}`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var diags []string
	for _, d := range svc.Diagnostics {
		diags = append(diags, d.String())
	}
	if want := `warning: a.json#/paths/~1x/post/parameters/1: a second body parameter "b"; Swagger 2.0 allows one, the first ("a") is used [duplicate-body]`; !slices.Contains(diags, want) {
		t.Errorf("diagnostics %q lack %q", diags, want)
	}
}

// TestServerVariablesReportedInNameOrder: the server variables without a
// default were reported in map order, so the diagnostics of one document
// came out in a different order from run to run.
func TestServerVariablesReportedInNameOrder(t *testing.T) {
	doc := `{"openapi":"3.0.0","info":{"title":"t","version":"1"},"paths":{},"servers":[{"url":"https://{h}.{g}.{f}.{e}.{d}.{c}.{b}.{a}","variables":{"h":{},"g":{},"f":{},"e":{},"d":{},"c":{},"b":{},"a":{"default":"x"}}}]}`
	svc, err := OpenAPI("s.json", []byte(doc), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range svc.Diagnostics {
		got = append(got, d.Pointer)
	}
	want := []string{"/servers/0/variables/b", "/servers/0/variables/c", "/servers/0/variables/d", "/servers/0/variables/e", "/servers/0/variables/f", "/servers/0/variables/g", "/servers/0/variables/h"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("diagnostics at %v, want %v", got, want)
	}
	if len(svc.Servers) != 1 || svc.Servers[0] != "https://{h}.{g}.{f}.{e}.{d}.{c}.{b}.x" {
		t.Errorf("servers = %q", svc.Servers)
	}
}

// TestUnresolvedRequestBodyReportedOnce: a request body $ref that does not
// resolve was followed twice (for the parameters, then for "required") and
// so reported twice.
func TestUnresolvedRequestBodyReportedOnce(t *testing.T) {
	doc := `{"openapi":"3.0.0","info":{"title":"t","version":"1"},"paths":{"/x":{"post":{"requestBody":{"$ref":"#/components/requestBodies/nope"},"responses":{}}}}}`
	svc, err := OpenAPI("rb.json", []byte(doc), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range svc.Diagnostics {
		got = append(got, d.String())
	}
	want := `warning: rb.json#/paths/~1x/post/requestBody: $ref "#/components/requestBodies/nope" does not resolve; skipped [unresolved-ref]`
	if len(got) != 1 || got[0] != want {
		t.Errorf("diagnostics = %q, want [%s]", got, want)
	}
}

// TestDiscriminatorMappingDiagnosticsInKeyOrder pins the bug that a
// discriminator mapping's unresolved references were reported in Go's map
// order, so the same spec gave its manifest and enrich log in another
// order on every run.
func TestDiscriminatorMappingDiagnosticsInKeyOrder(t *testing.T) {
	spec := `{"openapi": "3.0.3", "info": {"title": "t", "version": "1"},
	"paths": {"/pets": {"post": {"operationId": "addPet", "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}}}, "responses": {"200": {"description": "ok"}}}}},
	"components": {"schemas": {"Pet": {"type": "object", "properties": {"kind": {"type": "string"}},
		"discriminator": {"propertyName": "kind", "mapping": {
			"e": "#/components/schemas/E", "b": "#/components/schemas/B", "d": "#/components/schemas/D",
			"a": "#/components/schemas/A", "c": "#/components/schemas/C", "f": "other.json#/F"}}}}}}`
	var first []string
	for run := range 20 {
		svc, err := OpenAPI("pets.json", []byte(spec), Options{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, d := range svc.Diagnostics {
			got = append(got, d.Pointer)
		}
		if run == 0 {
			first = got
			if len(got) != 5 || !slices.IsSorted(got) {
				t.Fatalf("diagnostics %q: want the five local mapping entries in key order", got)
			}
		} else if !slices.Equal(got, first) {
			t.Fatalf("run %d: diagnostics %q, first run %q", run, got, first)
		}
	}
}
