package ir

import (
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// approximated are the JSON Schema keywords a Python type cannot express.
// The stubs show the schema without them; the manifest keeps them and
// every call is still validated against them.
var approximated = map[string]bool{
	"not": true, "if": true, "then": true, "else": true,
	"patternProperties": true, "propertyNames": true,
	"dependentSchemas": true, "dependentRequired": true, "dependencies": true,
	"contains": true, "unevaluatedProperties": true, "unevaluatedItems": true,
}

// diagnoseApproximations adds one diagnostic per place where a schema uses
// a keyword the Python types leave out, so nothing is dropped silently. A
// shared definition is reported once, where the document defines it.
func diagnoseApproximations(svc *Service) {
	seen := map[uintptr]bool{}
	var out []Diagnostic
	var walkAt func(v any, ptr string, depth int)
	walk := func(v any, ptr string) { walkAt(v, ptr, 0) }
	walkAt = func(v any, ptr string, depth int) {
		if depth > 8*MaxSchemaDepth {
			return // printed as Any long before (and a pointer costs its depth)
		}
		switch x := v.(type) {
		case map[string]any:
			if len(x) == 0 {
				return
			}
			id := reflect.ValueOf(x).Pointer()
			if seen[id] {
				return
			}
			seen[id] = true
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if approximated[k] {
					out = append(out, Diagnostic{
						Code: DiagApproximatedKeyword, File: sourceName(svc.Source), Pointer: ptr + "/" + EscapeToken(k),
						Message: "the Python type cannot express " + k + "; the schema in the manifest keeps it (and validates arguments with it)",
					})
				}
				if k == "const" || k == "enum" || k == "default" || k == "examples" || k == "example" || strings.HasPrefix(k, "x-") {
					continue
				}
				walkAt(x[k], ptr+"/"+EscapeToken(k), depth+1)
			}
		case []any:
			for i, e := range x {
				walkAt(e, ptr+"/"+strconv.Itoa(i), depth+1)
			}
		}
	}
	for _, t := range svc.Tools {
		walkSchemas(svc, t, walk)
	}
	svc.Diagnostics = append(svc.Diagnostics, out...)
}

// walkSchemas visits a tool's input and output schemas with pointers into
// its source: shared OpenAPI definitions at /components/schemas/<name>,
// parameters at the tool's pointer plus the parameter's pointer.
func walkSchemas(svc *Service, t *Tool, walk func(v any, ptr string)) {
	openapi := svc.Source.Kind == SourceOpenAPI
	for _, s := range []Schema{t.Input, t.Output} {
		if defs, ok := s["$defs"].(map[string]any); ok {
			names := make([]string, 0, len(defs))
			for n := range defs {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				base := t.Pointer + "/inputSchema/$defs/"
				if openapi {
					base = "/components/schemas/"
				}
				walk(defs[n], base+EscapeToken(n))
			}
		}
	}
	if openapi {
		props, _ := t.Input["properties"].(map[string]any)
		for _, p := range t.Params {
			walk(props[p.Arg], t.Pointer+p.Pointer)
		}
		if t.Output != nil {
			walkWithout(t.Output, t.Pointer+"/responses/2xx", walk)
		}
		return
	}
	walkWithout(t.Input, t.Pointer+"/inputSchema", walk)
	if t.Output != nil {
		walkWithout(t.Output, t.Pointer+"/outputSchema", walk)
	}
}

// walkWithout walks a schema's keywords except $defs (walked on their own).
func walkWithout(s Schema, ptr string, walk func(v any, ptr string)) {
	keys := make([]string, 0, len(s))
	for k := range s {
		if k != "$defs" && k != "definitions" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	rest := make(map[string]any, len(keys))
	for _, k := range keys {
		rest[k] = s[k]
	}
	walk(rest, ptr)
}

func sourceName(s Source) string {
	switch {
	case s.File != "":
		return s.File
	case s.Command != "":
		return s.Command
	}
	return s.URL
}
