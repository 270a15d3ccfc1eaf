package parse_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/enrich"
	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/manifest"
	"github.com/codemode-dev/codemode/parse"
)

// TestReadUnhoistsAsAFullWalkOnCorpus: over every service of the OpenAPI
// corpus, compiled as a pack does, manifest.Read gives each tool the same
// definitions back as walking every definition it reaches, for each tool
// (what Read did before it followed definitions by name: Stripe's
// regeneration spent a third of its CPU there), and ReadObserved finds
// the observed schemas Read does.
func TestReadUnhoistsAsAFullWalkOnCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles the whole corpus")
	}
	files, _ := filepath.Glob("../testdata/corpus/openapi/*")
	reached := 0
	for _, f := range files {
		if strings.HasSuffix(f, ".source.json") {
			continue
		}
		svc, err := parse.OpenAPIFile(f, parse.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := enrich.Run(svc, enrich.Options{}); err != nil {
			t.Fatal(err)
		}
		ir.Resolve(svc)
		// One tool has an observed schema, to be found again.
		svc.Tools[0].ResultObserved = true
		svc.Tools[0].Observed = ir.Schema{"type": "object", "properties": map[string]any{"id": map[string]any{"type": "string"}}}
		data := manifestOf(t, svc)
		got, err := manifest.Read(data)
		if err != nil {
			t.Fatal(err)
		}
		var want manifest.Manifest
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if err := dec.Decode(&want); err != nil {
			t.Fatal(err)
		}
		for i := range want.Services {
			s := &want.Services[i]
			for j := range s.Tools {
				tl := &s.Tools[j]
				tl.Input = walkUnhoist(s.Defs, tl.Input)
				tl.Original = walkUnhoist(s.Defs, tl.Original)
				tl.Output = walkUnhoist(s.Defs, tl.Output)
				if d, ok := tl.Input["$defs"].(map[string]any); ok {
					reached += len(d)
				}
			}
		}
		if !reflect.DeepEqual(got, &want) {
			for j := range want.Services[0].Tools {
				if g, w := got.Services[0].Tools[j], want.Services[0].Tools[j]; !reflect.DeepEqual(g, w) {
					t.Errorf("%s %s: Read gives %d definitions, a full walk %d", f, w.Wire, len(defsOf(g.Input)), len(defsOf(w.Input)))
					break
				}
			}
			t.Errorf("%s: Read differs from a full walk", f)
		}
		obs, err := manifest.ReadObserved(data)
		if err != nil {
			t.Fatal(err)
		}
		wantObs := map[ir.ToolID]ir.Schema{{Service: svc.Name, Wire: svc.Tools[0].Wire}: got.Services[0].Tools[0].Observed}
		if !reflect.DeepEqual(obs, wantObs) {
			t.Errorf("%s: ReadObserved %v, Read %v", f, obs, wantObs)
		}
	}
	if reached < 1000 {
		t.Errorf("%d definitions reached by the corpus' tools: too few to test unhoisting", reached)
	}
}

func defsOf(s ir.Schema) map[string]any { d, _ := s["$defs"].(map[string]any); return d }

// walkUnhoist is unhoist by a full walk of every definition reached (the
// reference): the schema, its own definitions and each shared definition
// it reaches, transitively, walked for their references.
func walkUnhoist(defs map[string]any, schema ir.Schema) ir.Schema {
	if schema == nil || len(defs) == 0 {
		return schema
	}
	merged := map[string]any{}
	own := defsOf(schema)
	for k, v := range own {
		merged[k] = v
	}
	var visit func(v any)
	visit = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if ref, ok := x["$ref"].(string); ok {
				if name, ok := strings.CutPrefix(ref, "#/$defs/"); ok {
					name, _, _ = strings.Cut(name, "/")
					name = ir.UnescapeToken(name)
					if _, have := merged[name]; !have {
						if d, ok := defs[name]; ok {
							merged[name] = d
							visit(d)
						}
					}
				}
			}
			for k, e := range x {
				if k != "$defs" {
					visit(e)
				}
			}
		case []any:
			for _, e := range x {
				visit(e)
			}
		}
	}
	visit(map[string]any(schema))
	for _, d := range own {
		visit(d)
	}
	if len(merged) > 0 {
		schema["$defs"] = merged
	}
	return schema
}

// BenchmarkReadManifest reads Stripe's generated manifest (9 MB) with
// manifest.Read, the runtime's load of a pack, beside encoding/json
// decoding the same bytes into any (the floor): read-x-floor is their
// ratio in one run.
func BenchmarkReadManifest(b *testing.B) {
	spec, err := os.ReadFile("../testdata/corpus/openapi/stripe.yaml")
	if err != nil {
		b.Fatal(err)
	}
	data := compileSpec(b, "stripe.yaml", spec)
	var read, floor time.Duration
	for b.Loop() {
		start := time.Now()
		if _, err := manifest.Read(data); err != nil {
			b.Fatal(err)
		}
		read += time.Since(start)
		start = time.Now()
		var v any
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			b.Fatal(err)
		}
		floor += time.Since(start)
	}
	b.ReportMetric(read.Seconds()/floor.Seconds(), "read-x-floor")
}
