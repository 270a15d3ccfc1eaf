package parse

import (
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/codemode-dev/codemode/ir"
)

// This file prepares OpenAPI schemas to be JSON Schema in a tool's Input or
// Output: references to component schemas become "#/$defs/<name>", other
// local references become $defs of their own, and the OpenAPI 3.0 / Swagger
// spellings that change what a value may be are rewritten to JSON Schema
// 2020-12 (nullable, boolean exclusiveMinimum/Maximum, type "file").
//
// Schemas are rewritten in place, once each: the decoded document belongs to
// this package, and the same component schema map is then shared by every
// tool whose $defs need it.

// defsRef is the prefix every rewritten component reference gets.
const defsRef = "#/$defs/"

// schemaKeywordsOne hold one subschema; schemaKeywordsList an array of them;
// schemaKeywordsMap an object of named subschemas.
var (
	schemaKeywordsOne = map[string]bool{
		"items": true, "additionalProperties": true, "not": true, "if": true,
		"then": true, "else": true, "contains": true, "propertyNames": true,
		"unevaluatedItems": true, "unevaluatedProperties": true,
		"additionalItems": true, "contentSchema": true,
	}
	schemaKeywordsList = map[string]bool{
		"allOf": true, "anyOf": true, "oneOf": true, "prefixItems": true,
	}
	schemaKeywordsMap = map[string]bool{
		"properties": true, "patternProperties": true, "$defs": true,
		"definitions": true, "dependentSchemas": true,
	}
)

// refSet is the set of $defs names a schema reaches directly.
type refSet map[string]bool

// walk rewrites the schema at ptr (a pointer into the source) in place and
// records the $defs it references. A schema already walked (reached again
// through a shared parameter, say) is not walked twice.
func (o *oas) walk(v any, ptr string, refs refSet) {
	if done, ok := o.walked[ptr]; ok {
		for _, r := range done {
			refs[r] = true
		}
		return
	}
	own := refSet{}
	o.walkAt(v, ptr, own)
	o.walked[ptr] = slices.Sorted(maps.Keys(own))
	for r := range own {
		refs[r] = true
	}
}

func (o *oas) walkAt(v any, ptr string, refs refSet) {
	x, ok := v.(map[string]any)
	if !ok {
		return // true/false schemas, or junk: nothing to rewrite
	}
	o.normalize(x, ptr)
	for k, child := range x {
		switch {
		case k == "$ref":
			o.ref(x, ptr, refs)
		case k == "discriminator":
			o.mapping(asMap(asMap(child)["mapping"]), ptr+"/discriminator/mapping", refs)
		case schemaKeywordsOne[k]:
			if _, isSlice := child.([]any); isSlice { // draft-04 tuple items
				o.walkList(child, ptr+"/"+k, refs)
			} else {
				o.walkAt(child, ptr+"/"+esc(k), refs)
			}
		case schemaKeywordsList[k]:
			o.walkList(child, ptr+"/"+k, refs)
		case schemaKeywordsMap[k]:
			for name, sub := range asMap(child) {
				o.walkAt(sub, ptr+"/"+k+"/"+esc(name), refs)
			}
		}
	}
}

func (o *oas) walkList(v any, ptr string, refs refSet) {
	for i, sub := range asSlice(v) {
		o.walkAt(sub, ptr+"/"+strconv.Itoa(i), refs)
	}
}

// normalize rewrites OpenAPI 3.0 and Swagger 2.0 spellings to JSON Schema.
func (o *oas) normalize(x map[string]any, ptr string) {
	for _, key := range []string{"nullable", "x-nullable"} {
		n, ok := x[key].(bool)
		if !ok {
			continue
		}
		if !n {
			delete(x, key)
			continue
		}
		switch t := x["type"].(type) {
		case string:
			x["type"] = []any{t, "null"}
			delete(x, key)
		case []any:
			if !slices.Contains(t, any("null")) {
				x["type"] = append(t, "null")
			}
			delete(x, key)
		default:
			if key == "x-nullable" {
				x["nullable"] = true
				delete(x, key)
			}
			continue // no type to widen: Resolve reads "nullable" itself
		}
		if e, ok := x["enum"].([]any); ok && !slices.Contains(e, nil) {
			x["enum"] = append(e, nil)
		}
	}
	for _, b := range [...][2]string{{"exclusiveMinimum", "minimum"}, {"exclusiveMaximum", "maximum"}} {
		ex, ok := x[b[0]].(bool)
		if !ok {
			continue
		}
		delete(x, b[0])
		if bound, has := x[b[1]]; ex && has {
			x[b[0]] = bound
			delete(x, b[1])
		}
	}
	if o.v2 && x["type"] == "file" {
		x["type"] = "string"
		x["format"] = "binary"
	}
}

// ref rewrites the "$ref" of x.
func (o *oas) ref(x map[string]any, ptr string, refs refSet) {
	ref, ok := x["$ref"].(string)
	if !ok {
		o.d.add(ir.DiagBadRef, ptr+"/$ref", "$ref is not a string; dropped")
		delete(x, "$ref")
		return
	}
	if name, ok := strings.CutPrefix(ref, defsRef); ok {
		// Already rewritten (a schema shared between two places).
		seg, _, _ := strings.Cut(name, "/")
		refs[unesc(seg)] = true
		return
	}
	if newRef, name, ok := o.defRef(ref, ptr); ok {
		x["$ref"] = newRef
		refs[name] = true
		return
	}
	delete(x, "$ref")
}

func (o *oas) mapping(m map[string]any, ptr string, refs refSet) {
	// In key order: what it cannot resolve is reported in the same order
	// on every run.
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v := m[k]
		ref, ok := v.(string)
		if !ok || !strings.HasPrefix(ref, "#") {
			continue // a bare schema name, or an external document
		}
		if strings.HasPrefix(ref, defsRef) {
			seg, _, _ := strings.Cut(ref[len(defsRef):], "/")
			refs[unesc(seg)] = true
			continue
		}
		if newRef, name, ok := o.defRef(ref, ptr+"/"+esc(k)); ok {
			m[k] = newRef
			refs[name] = true
		}
	}
}

// defRef maps a source reference to its place under $defs, reporting what
// it cannot resolve.
func (o *oas) defRef(ref, ptr string) (newRef, name string, ok bool) {
	frag, isLocal := strings.CutPrefix(ref, "#")
	if !isLocal {
		o.d.add(ir.DiagUnresolvedRef, ptr, "$ref %q points outside this document; replaced by an unconstrained schema", ref)
		return "", "", false
	}
	if strings.Contains(frag, "%") {
		if u, err := url.PathUnescape(frag); err == nil {
			frag = u
		}
	}
	if rest, ok := strings.CutPrefix(frag, o.defsPtr+"/"); ok {
		seg, tail, _ := strings.Cut(rest, "/")
		name := unesc(seg)
		if _, exists := o.defs[name]; exists {
			if tail != "" {
				if _, found := lookup(o.defs[name], "/"+tail); !found {
					o.d.add(ir.DiagUnresolvedRef, ptr, "$ref %q does not resolve; replaced by an unconstrained schema", ref)
					return "", "", false
				}
				tail = "/" + tail
			}
			return defsRef + esc(name) + tail, name, true
		}
		o.d.add(ir.DiagUnresolvedRef, ptr, "$ref %q names no schema in %s; replaced by an unconstrained schema", ref, o.defsPtr)
		return "", "", false
	}
	// Any other place in the document: give it a $defs entry of its own.
	if _, found := lookup(o.doc, frag); !found {
		o.d.add(ir.DiagUnresolvedRef, ptr, "$ref %q does not resolve; replaced by an unconstrained schema", ref)
		return "", "", false
	}
	synth := strings.ReplaceAll(strings.TrimPrefix(frag, "/"), "/", ".")
	if _, clash := o.defs[synth]; clash {
		synth = "ref." + synth
	}
	o.synth[synth] = frag
	return defsRef + esc(synth), synth, true
}

// def returns the $defs entry name and the names it references directly,
// walking it on first use.
func (o *oas) def(name string) (any, []string) {
	if e := o.entry(name); e != nil {
		return e.v, e.next
	}
	return nil, nil
}

// A defEntry is one $defs entry as the closures of many schemas meet it:
// its value, the names it references, where it is in the document and
// its key in an Origin ("/$defs/<name>"), and the last closure that took
// it.
type defEntry struct {
	name, key, at string
	v             any
	next          []string
	mark          int
}

// entry is def's answer for name with its places; a component schema's is
// kept (it cannot change once walked), a synthesized entry's made afresh.
func (o *oas) entry(name string) *defEntry {
	if ptr, ok := o.synth[name]; ok {
		v, _ := lookup(o.doc, ptr)
		refs := refSet{}
		o.walk(v, ptr, refs)
		if v == nil {
			return nil
		}
		return &defEntry{name: name, key: "/$defs/" + esc(name), at: ptr, v: v, next: o.walked[ptr]}
	}
	if e, ok := o.entries[name]; ok {
		return e
	}
	v, ok := o.defs[name]
	if !ok {
		return nil
	}
	ptr := o.defsPtr + "/" + esc(name)
	next, done := o.walked[ptr]
	if !done {
		o.walk(v, ptr, refSet{})
		next = o.walked[ptr]
	}
	if v == nil {
		return nil
	}
	e := &defEntry{name: name, key: "/$defs/" + esc(name), at: ptr, v: v, next: next}
	if o.entries == nil {
		o.entries = map[string]*defEntry{}
	}
	o.entries[name] = e
	return e
}

// closure is the $defs object for a schema that references refs: every
// entry reachable from them, nil when there are none. Each entry it takes
// is placed in the service's DefsOrigin.
func (o *oas) closure(refs refSet) map[string]any {
	if len(refs) == 0 {
		return nil
	}
	queue := o.queue[:0]
	for name := range refs {
		queue = append(queue, name)
	}
	slices.Sort(queue)
	// The same references reach the same entries: their $defs object is
	// made (and placed) once and shared by every schema that has them
	// (read-only, as the component schemas it holds are).
	key := strings.Join(queue, "\x00")
	if defs, ok := o.closed[key]; ok {
		o.queue = queue[:0]
		return defs
	}
	o.closures++
	mark := o.closures
	found := o.found[:0]
	taken := map[string]bool{} // synthesized entries, made afresh each time
	resolved := true           // every name met names an entry
	for i := 0; i < len(queue); i++ {
		e := o.entry(queue[i])
		if e == nil {
			resolved = false
			continue
		}
		if e.mark == mark || taken[e.name] {
			continue
		}
		e.mark = mark
		if _, kept := o.entries[e.name]; !kept {
			taken[e.name] = true
		}
		found = append(found, e)
		for _, n := range e.next {
			// one already met is not queued again (most are, in a large API)
			if k, ok := o.entries[n]; ok && k.mark == mark {
				if _, synth := o.synth[n]; !synth {
					continue
				}
			}
			queue = append(queue, n)
		}
	}
	o.queue, o.found = queue[:0], found
	if len(found) == 0 {
		return map[string]any{}
	}
	out := make(map[string]any, len(found))
	if o.defsOrigin == nil {
		o.defsOrigin = ir.Origin{}
	}
	for _, e := range found {
		out[e.name] = e.v
		o.defsOrigin[e.key] = e.at
	}
	// A name that names nothing yet might once a later walk makes a $defs
	// entry for it: such a closure is taken afresh each time.
	if resolved {
		if o.closed == nil {
			o.closed = map[string]map[string]any{}
		}
		o.closed[key] = out
	}
	return out
}

// target follows a schema's own rewritten $ref (to a $defs entry) and
// returns what it points at, with that schema's source pointer.
func (o *oas) target(s map[string]any, ptr string) (map[string]any, string) {
	for range 32 {
		ref, ok := s["$ref"].(string)
		if !ok {
			return s, ptr
		}
		name, isDef := strings.CutPrefix(ref, defsRef)
		if !isDef {
			return s, ptr
		}
		seg, tail, _ := strings.Cut(name, "/")
		name = unesc(seg)
		v, _ := o.def(name)
		base := o.defsPtr + "/" + esc(name)
		if p, ok := o.synth[name]; ok {
			base = p
		}
		if tail != "" {
			v, _ = lookup(v, "/"+tail)
			base += "/" + tail
		}
		next := asMap(v)
		if next == nil {
			return s, ptr
		}
		s, ptr = next, base
	}
	return s, ptr
}

// collectRefs adds to refs the $defs names a walked schema references
// itself (not through its $defs entries).
func collectRefs(v any, refs refSet) {
	x, ok := v.(map[string]any)
	if !ok {
		return
	}
	for k, child := range x {
		switch {
		case k == "$ref":
			if name, ok := strings.CutPrefix(asString(child), defsRef); ok {
				seg, _, _ := strings.Cut(name, "/")
				refs[unesc(seg)] = true
			}
		case k == "discriminator":
			for _, r := range asMap(asMap(child)["mapping"]) {
				if name, ok := strings.CutPrefix(asString(r), defsRef); ok {
					seg, _, _ := strings.Cut(name, "/")
					refs[unesc(seg)] = true
				}
			}
		case schemaKeywordsOne[k]:
			if list, isSlice := child.([]any); isSlice {
				for _, sub := range list {
					collectRefs(sub, refs)
				}
			} else {
				collectRefs(child, refs)
			}
		case schemaKeywordsList[k]:
			for _, sub := range asSlice(child) {
				collectRefs(sub, refs)
			}
		case schemaKeywordsMap[k]:
			for _, sub := range asMap(child) {
				collectRefs(sub, refs)
			}
		}
	}
}
