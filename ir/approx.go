package ir

import (
	"reflect"
	"slices"
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

// approximations returns one diagnostic per place where a schema uses a
// keyword the Python types leave out, so nothing is dropped silently. A
// shared definition is reported once, where the document defines it. It
// only reads svc.
func approximations(svc *Service) []Diagnostic {
	seen := map[string]bool{} // places walked
	var out []Diagnostic
	// A subschema's pointer and its place grow by the same tokens from the
	// root walked: walkAt carries the root's pointer and the length of its
	// place, and a pointer is built only for a diagnostic.
	var walkAt func(v any, ptr, at string, base int, own bool, depth int)
	walk := func(v any, ptr, at string, own bool) { walkAt(v, ptr, at, len(at), own, 0) }
	has := hasApprox{}
	walkAt = func(v any, ptr, at string, base int, own bool, depth int) {
		if depth > 8*MaxSchemaDepth {
			return // printed as Any long before (and a pointer costs its depth)
		}
		if !has.in(v, 0) {
			return // nothing to report under it: no place built for it
		}
		switch x := v.(type) {
		case map[string]any:
			if len(x) == 0 {
				return
			}
			if !own {
				if seen[at] {
					return
				}
				seen[at] = true
			}
			var buf [16]string
			keys := buf[:0]
			for k := range x {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				if approximated[k] {
					out = append(out, Diagnostic{
						Code: DiagApproximatedKeyword, File: sourceName(svc.Source), Pointer: ptr + at[base:] + "/" + EscapeToken(k),
						Message: "the Python type cannot express " + k + "; the schema in the manifest keeps it (and validates arguments with it)",
					})
				}
				if k == "const" || k == "enum" || k == "default" || k == "examples" || k == "example" || strings.HasPrefix(k, "x-") {
					continue
				}
				if container(x[k]) {
					walkAt(x[k], ptr, at+"/"+EscapeToken(k), base, false, depth+1)
				}
			}
		case []any:
			for i, e := range x {
				if container(e) {
					walkAt(e, ptr, at+"/"+strconv.Itoa(i), base, false, depth+1)
				}
			}
		}
	}
	// A definition already walked at its place, or with nothing to report
	// under it, is not walked again, nor sorted among the ones still to
	// walk (a large API's tools each carry hundreds of the same
	// definitions).
	walked := func(v any, at string) bool {
		m, ok := v.(map[string]any)
		return ok && len(m) > 0 && (seen[at] || !has.in(m, 0))
	}
	done := map[*byte]bool{}
	for i, t := range svc.Tools {
		walkSchemas(svc, i, t, walk, walked, done)
	}
	return out
}

// hasApprox says, by a schema map's identity, whether an approximated
// keyword is in it or under it where the approximation walk goes: the
// walk skips the subschemas that have none without building their places
// (most of a large API's schemas, walked once per tool that holds them).
type hasApprox map[*byte]bool

// in reports whether v holds an approximated keyword where walkAt looks;
// true past the walk's depth (walkAt then decides).
func (h hasApprox) in(v any, depth int) bool {
	if depth > 8*MaxSchemaDepth {
		return true
	}
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 {
			return false
		}
		id := mapPtr(x)
		if r, ok := h[id]; ok {
			return r
		}
		h[id] = true // a map met again inside itself is walked as before
		r := false
		for k, e := range x {
			if approximated[k] {
				r = true
				break
			}
			if k == "const" || k == "enum" || k == "default" || k == "examples" || k == "example" || strings.HasPrefix(k, "x-") {
				continue
			}
			if container(e) && h.in(e, depth+1) {
				r = true
				break
			}
		}
		h[id] = r
		return r
	case []any:
		for _, e := range x {
			if container(e) && h.in(e, depth+1) {
				return true
			}
		}
	}
	return false
}

// container reports whether v is a map or a list, which alone the
// approximation walk enters (no place is built for a scalar).
func container(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return true
	}
	return false
}

// walkSchemas visits a tool's input and output schemas with pointers into
// its source: shared OpenAPI definitions at /components/schemas/<name>,
// parameters at the tool's pointer plus the parameter's pointer. Each goes
// with its place in the source (see Origin), so a definition two tools
// share is walked once; a schema parse made for the tool (its arguments
// object, a parameter's own copy) goes with none, and only what is under
// it is shared.
//
// done holds the OpenAPI "$defs" objects walked, by identity: parse shares
// one between the tools that reach the same definitions and places each
// entry at its definition, the same place in every tool, so a $defs object
// met again has nothing left to walk.
func walkSchemas(svc *Service, i int, t *Tool, walk func(v any, ptr, at string, own bool), walked func(v any, at string) bool, done map[*byte]bool) {
	openapi := svc.Source.Kind == SourceOpenAPI
	type root struct {
		s      Schema
		origin Origin
		anon   string
	}
	place := func(r root, ptr string) string {
		if src, ok := docPointer(r.origin, svc.DefsOrigin, ptr); ok {
			return src
		}
		return r.anon + ptr
	}
	in := root{t.Input, t.InputOrigin, unplaced(i, "input")}
	out := root{t.Output, t.OutputOrigin, unplaced(i, "output")}
	for _, r := range []root{in, out} {
		if defs, ok := r.s["$defs"].(map[string]any); ok {
			if openapi && defs != nil {
				id := mapPtr(defs)
				if done[id] {
					continue
				}
				done[id] = true
			}
			type def struct{ name, at string }
			var todo []def // most are walked already: no room made for all
			var key []byte
			for n, v := range defs {
				// place(r, "/$defs/<n>") without building the pointer
				// when the origin holds it (parse places every entry).
				key = append(append(key[:0], "/$defs/"...), EscapeToken(n)...)
				at, ok := r.origin[string(key)]
				if !ok {
					at, ok = svc.DefsOrigin[string(key)]
				}
				if !ok {
					at = place(r, string(key))
				}
				if !walked(v, at) {
					todo = append(todo, def{n, at})
				}
			}
			slices.SortFunc(todo, func(a, b def) int { return strings.Compare(a.name, b.name) })
			for _, d := range todo {
				base := t.Pointer + "/inputSchema/$defs/"
				if openapi {
					base = "/components/schemas/"
				}
				walk(defs[d.name], base+EscapeToken(d.name), d.at, false)
			}
		}
	}
	if openapi {
		props, _ := t.Input["properties"].(map[string]any)
		for _, p := range t.Params {
			walk(props[p.Arg], t.Pointer+string(p.Ref), place(in, "/properties/"+EscapeToken(p.Arg)), true)
		}
		if t.Output != nil {
			walkWithout(t.Output, t.Pointer+"/responses/2xx", place(out, ""), walk)
		}
		return
	}
	walkWithout(t.Input, t.Pointer+"/inputSchema", place(in, ""), walk)
	if t.Output != nil {
		walkWithout(t.Output, t.Pointer+"/outputSchema", place(out, ""), walk)
	}
}

// walkWithout walks a schema's keywords except $defs (walked on their own).
func walkWithout(s Schema, ptr, at string, walk func(v any, ptr, at string, own bool)) {
	rest := make(map[string]any, len(s))
	for k, v := range s {
		if k != "$defs" && k != "definitions" {
			rest[k] = v
		}
	}
	walk(rest, ptr, at, true)
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

// mapPtr is a map's identity.
func mapPtr(m map[string]any) *byte { return (*byte)(reflect.ValueOf(m).UnsafePointer()) }
