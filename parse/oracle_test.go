package parse

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	"github.com/getkin/kin-openapi/openapi3"
	"gopkg.in/yaml.v3"

	"github.com/codemode-dev/codemode/ir"
)

// TestOpenAPIAgreesWithKinOpenAPI is a differential test: kin-openapi, the
// reference loader, reads each OpenAPI 3.x corpus document, and parse must
// find the same operations with the same names and the same path, query,
// header and cookie parameters (location and requiredness, path-level ones
// merged under the operation's), and every writable top-level property of a
// spread JSON body. parse reads documents itself for speed and for JSON
// pointers into the user's file (see doc.go); this keeps it honest.
func TestOpenAPIAgreesWithKinOpenAPI(t *testing.T) {
	files := []string{
		"petstore-v3.json", "petstore-v31.json", "notion.json", "train-travel.json",
		"oas-discriminators.json", "oas-parameters-style.json", "oas-polymorphism.json",
		"oas-schema-circular.json", "uspto.json", "burgershop.yaml", "stripe.yaml",
	}
	if !testing.Short() {
		files = append(files, "github-rest.json")
	}
	for _, name := range files {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("..", "testdata", "corpus", "openapi", name)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			svc, err := OpenAPI(name, data, Options{})
			if err != nil {
				t.Fatal(err)
			}
			loader := openapi3.NewLoader()
			doc, err := loader.LoadFromData(data)
			if want, invalid := kinRefuses[name]; invalid {
				// An invalid document kin-openapi rejects whole; parse
				// compiles what it can and names the rest.
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("kin-openapi: %v, want an error with %q", err, want)
				}
				return
			}
			if err != nil {
				t.Fatalf("kin-openapi: %v", err)
			}
			compareDoc(t, svc, doc, true)
		})
	}
}

// compareDoc checks that parse found every operation kin-openapi found,
// with the same name (an operation without an operationId is "METHOD
// /path"; Swagger 2.0 conversion may invent none) and parameters, and, for
// 3.x documents, every writable JSON body property.
func compareDoc(t *testing.T, svc *ir.Service, doc *openapi3.T, v3 bool) {
	t.Helper()
	ours := map[string]*ir.Tool{}
	for _, tool := range svc.Tools {
		ours[tool.HTTP.Method+" "+tool.HTTP.Path] = tool
	}
	n := 0
	for _, p := range doc.Paths.InMatchingOrder() {
		item := doc.Paths.Value(p)
		for method, op := range item.Operations() {
			n++
			key := strings.ToUpper(method) + " " + p
			tool, ok := ours[key]
			if !ok {
				t.Errorf("%s: kin-openapi has it, parse does not", key)
				continue
			}
			wantWire := op.OperationID
			if wantWire == "" && v3 {
				wantWire = key
			}
			if wantWire != "" && string(tool.Wire) != wantWire {
				t.Errorf("%s: wire name %q, kin-openapi %q", key, tool.Wire, wantWire)
			}
			compareParams(t, key, tool, item.Parameters, op)
			if v3 {
				compareBody(t, key, tool, op)
			}
		}
	}
	if n != len(svc.Tools) {
		t.Errorf("kin-openapi finds %d operations, parse %d", n, len(svc.Tools))
	}
}

// kinRefuses lists corpus documents kin-openapi rejects, with its reason.
var kinRefuses = map[string]string{
	"burgershop.yaml": "cannot contain both schema and content in a parameter",
}

// TestSwagger2AgreesWithKinOpenAPI: the same check for Swagger 2.0, against
// kin-openapi's conversion to OpenAPI 3.
func TestSwagger2AgreesWithKinOpenAPI(t *testing.T) {
	for _, name := range []string{"petstore-v2.json", "alertmanager.yaml", "kubernetes-swagger.json"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("..", "testdata", "corpus", "openapi", name))
			if err != nil {
				t.Fatal(err)
			}
			svc, err := OpenAPI(name, data, Options{})
			if err != nil {
				t.Fatal(err)
			}
			// kin-openapi's types decode JSON: YAML goes through a generic value.
			var raw any
			if err := yaml.Unmarshal(data, &raw); err != nil {
				t.Fatal(err)
			}
			js, err := json.Marshal(raw)
			if err != nil {
				t.Fatal(err)
			}
			var v2 openapi2.T
			if err := json.Unmarshal(js, &v2); err != nil {
				t.Fatalf("kin-openapi: %v", err)
			}
			doc, err := openapi2conv.ToV3(&v2)
			if err != nil {
				t.Fatalf("kin-openapi: %v", err)
			}
			compareDoc(t, svc, doc, false)
		})
	}
}

func compareParams(t *testing.T, key string, tool *ir.Tool, pathLevel openapi3.Parameters, op *openapi3.Operation) {
	t.Helper()
	want := map[string]bool{} // "in name" → required
	for _, list := range []openapi3.Parameters{pathLevel, op.Parameters} {
		for _, ref := range list {
			p := ref.Value
			if p == nil {
				continue
			}
			if p.In == "header" && (strings.EqualFold(p.Name, "accept") || strings.EqualFold(p.Name, "content-type") || strings.EqualFold(p.Name, "authorization")) {
				continue // set by the client; parse skips them with a diagnostic
			}
			want[p.In+" "+p.Name] = p.Required || p.In == "path"
		}
	}
	got := map[string]bool{}
	for _, p := range tool.Params {
		switch p.In {
		case ir.InPath, ir.InQuery, ir.InHeader, ir.InCookie:
			got[string(p.In)+" "+string(p.Wire)] = p.Required
		}
	}
	if fmt.Sprint(sortedMap(got)) != fmt.Sprint(sortedMap(want)) {
		t.Errorf("%s: parameters\n parse %v\n  kin  %v", key, sortedMap(got), sortedMap(want))
	}
}

func compareBody(t *testing.T, key string, tool *ir.Tool, op *openapi3.Operation) {
	t.Helper()
	if op.RequestBody == nil || op.RequestBody.Value == nil || !tool.HTTP.BodySpread || !strings.Contains(tool.HTTP.BodyType, "json") {
		return
	}
	mt := op.RequestBody.Value.Content.Get(tool.HTTP.BodyType)
	if mt == nil || mt.Schema == nil || mt.Schema.Value == nil {
		return
	}
	got := map[string]bool{}
	for _, p := range tool.Params {
		if p.In == ir.InBody {
			got[string(p.Wire)] = true
		}
	}
	props := map[string]*openapi3.SchemaRef{}
	s := mt.Schema.Value
	for name, ps := range s.Properties {
		props[name] = ps
	}
	for _, part := range s.AllOf {
		if part.Value != nil {
			for name, ps := range part.Value.Properties {
				props[name] = ps
			}
		}
	}
	for name, ps := range props {
		if ps.Value != nil && ps.Value.ReadOnly {
			continue
		}
		if !got[name] {
			t.Errorf("%s: body property %q is in kin-openapi's schema, not among parse's body parameters", key, name)
		}
	}
}

func sortedMap(m map[string]bool) []string {
	var out []string
	for k, v := range m {
		out = append(out, fmt.Sprintf("%s=%v", k, v))
	}
	sort.Strings(out)
	return out
}
