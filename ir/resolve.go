package ir

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Resolve derives the Python view of every schema in svc: Param.Type from
// Tool.Input, Tool.Result from Tool.Output, and the named object types (Service.Objects)
// the types refer to. It runs after enrich, so the types carry the enriched schema.
// Resolve is deterministic: object types are named in the order tools, parameters
// and fields are visited, and structurally equal object schemas share one
// ObjectType.
func Resolve(svc *Service) { ResolveFollowing(svc, nil) }

// ResolveFollowing is Resolve run behind another pass over svc's tools
// (enrich): ready(i) returns once the i-th tool is done with there, and
// ready(len(svc.Tools)-1) once every tool is. Of a tool past the one it is
// on Resolve reads only its Python name (Tool.Py, which the other pass
// must leave alone), it changes only the tools it has reached, and
// svc.Diagnostics only once every tool is done with. A nil ready is
// Resolve.
func ResolveFollowing(svc *Service, ready func(i int)) {
	if ready == nil {
		ready = func(int) {}
	}
	r := &resolver{
		svc:   svc,
		names: NewNamer(),
		byKey: map[string]*ObjectType{},

		refTypes:  map[refKey]*Type{},
		refShapes: map[refKey]*ObjectType{},
		merged:    map[string][]string{},
		moved:     map[string]string{},
	}
	for name := range Reserved {
		r.names.Take(PyIdent(name))
	}
	for _, t := range svc.Tools {
		r.names.Take(t.Py)
	}
	svc.Objects = nil
	// The approximation walk only reads the schemas, as the type walk
	// does: it runs beside it, and its diagnostics come first as before.
	approx := make(chan []Diagnostic, 1)
	go func() {
		if len(svc.Tools) > 0 {
			ready(len(svc.Tools) - 1)
		}
		approx <- approximations(svc)
	}()
	args := map[string]string{} // Pascal of each parameter name met
	for i, t := range svc.Tools {
		ready(i)
		props, _ := t.Input["properties"].(map[string]any)
		r.steps = 0
		toolName := Pascal(string(t.Py))
		// One walk state for the input's parameters, each walked in turn
		// (busy is empty between them), its pointer joined only for a
		// diagnostic: a state, a map and two strings a parameter were a
		// sixth of Resolve's allocations.
		c := &ctx{root: t.Input, origin: t.InputOrigin, defs: svc.DefsOrigin, anon: unplaced(i, "input"), busy: map[string]bool{}, where: t.Pointer}
		if svc.Source.Kind != SourceOpenAPI {
			c.where = t.Pointer + "/inputSchema"
		}
		for _, p := range t.Params {
			s, _ := props[p.Arg].(map[string]any)
			c.whereRef, c.cut = string(p.Ref), false
			arg, ok := args[p.Arg]
			if !ok {
				arg = Pascal(p.Arg)
				args[p.Arg] = arg
			}
			p.Type = r.typeOf(c, s, c.source("/properties/"+EscapeToken(p.Arg)), toolName+arg)
			if p.Description == "" {
				p.Description = p.Type.Description
			}
		}
		t.Result, t.ResultObserved = nil, false
		if t.Output == nil && t.Observed != nil {
			c := &ctx{root: t.Observed, anon: unplaced(i, "observed"), busy: map[string]bool{}, where: t.Pointer + "/observed"}
			t.Result = r.typeOf(c, t.Observed, c.source(""), toolName+"Result")
			t.ResultObserved = true
		}
		if t.Output != nil {
			ptr := t.Pointer + "/outputSchema"
			if svc.Source.Kind == SourceOpenAPI {
				ptr = t.Pointer + "/responses/2xx"
			}
			c := &ctx{root: t.Output, origin: t.OutputOrigin, defs: svc.DefsOrigin, anon: unplaced(i, "output"), busy: map[string]bool{}, where: ptr}
			t.Result = r.typeOf(c, t.Output, c.source(""), toolName+"Result")
		}
	}
	svc.Diagnostics = append(svc.Diagnostics, <-approx...)
	capDepth(svc, r.pending)
}

// unplaced stands for the source of a tool's schema that no Origin places
// (a tool not read from a document): never a key of Order, and another for
// every schema, so two such schemas share nothing.
func unplaced(tool int, which string) string {
	return "\x00" + strconv.Itoa(tool) + which
}

// Every schema is walked with its place: at, the JSON pointer of where it
// stands in the source document, by which its key order is found and a
// definition is known to be the same one from tool to tool. A schema merged
// from an allOf stands nowhere in the source: it gets a place of its own
// (starting "\x01") under which moved records where its parts came from.

type resolver struct {
	svc   *Service
	names *Namer
	byKey map[string]*ObjectType // shapeKey → inline shape

	refTypes  map[refKey]*Type       // resolved $ref targets, shared by every use
	refShapes map[refKey]*ObjectType // shapes of $ref targets, set before their fields

	merged  map[string][]string // place of a merged "properties" object → its keys in order
	mergedN int                 // merged schemas so far, to name their places
	moved   map[string]string   // place under a merged schema → the place its part came from

	steps   int          // schemas converted for the current tool (bounded by maxResolveSteps)
	total   int          // and for the whole service (maxServiceSteps)
	pending []Diagnostic // bounds hit, reported unless capDepth reports the same place
	cuts    int          // bounds hit so far
}

// Bounds of the walk, beside the cycle guard: schemas nested deeper than
// MaxSchemaDepth, and a tool whose schemas take more than maxResolveSteps
// conversions (a document can repeat a subschema at every level), or a
// service whose take more than maxServiceSteps, become Any from there, with
// a diagnostic. Printed depth has its own, lower bound (MaxTypeDepth). For
// scale: the GitHub REST API takes 15,074 steps, at most 593 for one tool.
const (
	MaxSchemaDepth  = 64
	maxResolveSteps = 200_000
	maxServiceSteps = 1_000_000
)

// ctx is the state of one walk over one root schema.
type ctx struct {
	root   Schema
	origin Origin          // places root in the source document
	defs   Origin          // places root's $defs entries (Service.DefsOrigin)
	anon   string          // root's place when origin does not place it
	busy   map[string]bool // $refs being expanded (cycle guard)
	depth  int             // schemas entered and not left
	// where and whereRef joined are the pointer of the parameter or
	// result walked, for diagnostics.
	where, whereRef string
	cut             bool // a bound was hit (reported once)
}

// source is the place of the schema at ptr, a pointer into c.root.
func (c *ctx) source(ptr string) string {
	if src, ok := docPointer(c.origin, c.defs, ptr); ok {
		return src
	}
	return c.anon + ptr
}

// child is the place of the subschema at suffix ("/items", "/properties/x")
// of the schema at at.
func (r *resolver) child(at, suffix string) string {
	p := at + suffix
	for range 64 { // merged schemas nest no deeper than flattenAllOf's bound
		if !strings.HasPrefix(p, "\x01") {
			return p
		}
		q, ok := r.movedFrom(p)
		if !ok {
			return p
		}
		p = q
	}
	return p
}

// movedFrom finds the longest prefix of p that moved.
func (r *resolver) movedFrom(p string) (string, bool) {
	for q := p; ; {
		if src, ok := r.moved[q]; ok {
			return src + p[len(q):], true
		}
		i := strings.LastIndexByte(q, '/')
		if i < 0 {
			return "", false
		}
		q = q[:i]
	}
}

// keys returns the keys of the "properties" object at at in source order,
// and whether that order is known.
func (r *resolver) keys(at string, props map[string]any) ([]string, bool) {
	if ks, ok := r.merged[at]; ok {
		return Order{at: ks}.keys(at, props)
	}
	return r.svc.Order.keys(at, props)
}

func (r *resolver) typeOf(c *ctx, s Schema, at, hint string) *Type {
	if s == nil {
		return &Type{Kind: KindAny}
	}
	r.steps++
	r.total++
	if c.depth >= MaxSchemaDepth || r.steps > maxResolveSteps || r.total > maxServiceSteps {
		r.cuts++
		if !c.cut {
			c.cut = true
			msg := fmt.Sprintf("the schema nests more than %d levels deep", MaxSchemaDepth)
			switch {
			case r.total > maxServiceSteps:
				msg = fmt.Sprintf("the service's schemas take more than %d steps to convert", maxServiceSteps)
			case r.steps > maxResolveSteps:
				msg = fmt.Sprintf("the tool's schemas take more than %d steps to convert", maxResolveSteps)
			}
			r.pending = append(r.pending, Diagnostic{
				Code: DiagTypeTooDeep, File: sourceName(r.svc.Source), Pointer: c.where + c.whereRef,
				Message: msg + "; the Python type is Any from there (the schema in the manifest keeps it and validates arguments with it)",
			})
		}
		return &Type{Kind: KindAny}
	}
	c.depth++
	defer func() { c.depth-- }()
	if ref, ok := s["$ref"].(string); ok {
		return r.refType(c, s, ref, hint)
	}
	t := r.bare(c, s, at, hint)
	annotate(t, s)
	return t
}

// refKey identifies a $ref target: the reference and the place of its
// target (an OpenAPI document's tools all refer to one component schema).
type refKey struct {
	ref string
	at  string
}

func (r *resolver) refType(c *ctx, s Schema, ref, hint string) *Type {
	target, ok := lookup(c.root, ref)
	if !ok {
		t := &Type{Kind: KindAny}
		annotate(t, s)
		return t
	}
	at := c.source(strings.TrimPrefix(ref, "#"))
	key := refKey{ref, at}
	var t *Type
	switch {
	case r.refTypes[key] != nil:
		t = r.refTypes[key]
	case r.refShapes[key] != nil: // a reference back into a cycle
		t = &Type{Kind: KindObject, Object: r.refShapes[key]}
	case c.busy[ref]:
		t = &Type{Kind: KindAny}
	default:
		c.busy[ref] = true
		name := Pascal(ref[strings.LastIndex(ref, "/")+1:])
		cuts := r.cuts
		if isShape(target) {
			t = &Type{Kind: KindObject, Object: r.shape(c, target, at, name, &key)}
		} else {
			t = r.bare(c, target, at, name)
		}
		annotate(t, target)
		delete(c.busy, ref)
		if r.cuts == cuts { // a type cut by a bound here may be whole elsewhere
			r.refTypes[key] = t
		}
	}
	// The sibling keywords of $ref (allowed since 2019-09) document this use.
	cp := *t
	annotate(&cp, s)
	return &cp
}

// bare converts s without its annotations (description, bounds, ...).
func (r *resolver) bare(c *ctx, s Schema, at, hint string) *Type {
	if all, ok := s["allOf"].([]any); ok && len(all) > 0 {
		// allOf: [{$ref}] with sibling keywords is a documented reference.
		if one, ok := all[0].(map[string]any); ok && len(all) == 1 && s["properties"] == nil {
			if ref, ok := one["$ref"].(string); ok && len(one) == 1 {
				cp := Schema{"$ref": ref}
				for k, v := range s {
					if k != "allOf" {
						cp[k] = v
					}
				}
				return r.refType(c, cp, ref, hint)
			}
		}
		return r.allOf(c, s, at, all, hint)
	}
	if v, ok := s["const"]; ok {
		return &Type{Kind: KindLiteral, Literals: []any{v}}
	}
	if vals, ok := s["enum"].([]any); ok && len(vals) > 0 {
		return literal(vals)
	}
	for _, key := range []string{"oneOf", "anyOf"} {
		if alts, ok := s[key].([]any); ok && len(alts) > 0 {
			return r.union(c, s, r.child(at, "/"+key), alts, hint)
		}
	}
	nullable := s["nullable"] == true
	var t *Type
	switch typ := s["type"].(type) {
	case []any:
		var vs []*Type
		done := map[string]bool{}
		for _, one := range typ {
			name, _ := one.(string)
			if name == "null" {
				nullable = true
				continue
			}
			if done[name] {
				continue // ["object", "object"] would walk the properties twice per level
			}
			done[name] = true
			cp := Schema{}
			for k, v := range s {
				cp[k] = v
			}
			cp["type"] = name
			vs = append(vs, r.bare(c, cp, at, hint))
		}
		t = unionOf(vs)
	case string:
		t = r.single(c, s, at, typ, hint)
	default:
		switch {
		case s["properties"] != nil || s["additionalProperties"] != nil:
			t = r.single(c, s, at, "object", hint)
		case s["items"] != nil || s["prefixItems"] != nil:
			t = r.single(c, s, at, "array", hint)
		default:
			t = &Type{Kind: KindAny}
		}
	}
	if nullable {
		t.Nullable = true
	}
	return t
}

func (r *resolver) single(c *ctx, s Schema, at, typ, hint string) *Type {
	switch typ {
	case "string":
		return &Type{Kind: KindStr}
	case "integer":
		return &Type{Kind: KindInt}
	case "number":
		return &Type{Kind: KindFloat}
	case "boolean":
		return &Type{Kind: KindBool}
	case "null":
		return &Type{Kind: KindNone}
	case "array":
		if pre, ok := s["prefixItems"].([]any); ok && len(pre) > 0 {
			t := &Type{Kind: KindTuple}
			for i, p := range pre {
				ps, _ := p.(map[string]any)
				t.Elems = append(t.Elems, r.typeOf(c, ps, r.child(at, "/prefixItems/"+strconv.Itoa(i)), hint+"Item"+strconv.Itoa(i)))
			}
			return t
		}
		items, _ := s["items"].(map[string]any)
		return &Type{Kind: KindList, Items: r.typeOf(c, items, r.child(at, "/items"), hint+"Item")}
	case "object":
		if isShape(s) {
			return &Type{Kind: KindObject, Object: r.shape(c, s, at, hint, nil)}
		}
		if ap, ok := s["additionalProperties"].(map[string]any); ok && len(ap) > 0 {
			return &Type{Kind: KindMap, Values: r.typeOf(c, ap, r.child(at, "/additionalProperties"), hint+"Value")}
		}
		return &Type{Kind: KindMap, Values: &Type{Kind: KindAny}}
	}
	return &Type{Kind: KindAny}
}

func (r *resolver) allOf(c *ctx, s Schema, at string, parts []any, hint string) *Type {
	merged, mat, ok := r.flattenAllOf(c, s, at, parts, 0)
	if !ok {
		return &Type{Kind: KindAny}
	}
	return r.bare(c, merged, mat, hint)
}

// propsAt is the place of the "properties" object of the schema at at.
func (r *resolver) propsAt(at string) string {
	if _, ok := r.merged[at+"/properties"]; ok {
		return at + "/properties"
	}
	return r.child(at, "/properties")
}

// flattenAllOf merges the parts of an allOf into one schema: object parts
// unite their properties and required lists (first definition of a property
// wins); a single non-object part lends its keywords. It reports false when
// the parts cannot be merged into one type. The merged schema's place is
// new, and records where each of its parts came from.
func (r *resolver) flattenAllOf(c *ctx, s Schema, at string, parts []any, depth int) (Schema, string, bool) {
	r.mergedN++
	mat := "\x01" + strconv.Itoa(r.mergedN)
	r.moved[mat] = at // what is not moved below comes from s
	merged := Schema{}
	for k, v := range s {
		if k != "allOf" {
			merged[k] = v
		}
	}
	props := map[string]any{}
	var order []string // the merged keys in source order, part by part
	var required []any
	if p, ok := s["properties"].(map[string]any); ok {
		ks, _ := r.keys(r.propsAt(at), p)
		for _, k := range ks {
			props[k] = p[k]
			order = append(order, k)
		}
	}
	if req, ok := s["required"].([]any); ok {
		required = append(required, req...)
	}
	var other []Schema
	var otherAt []string
	for i, part := range parts {
		ps, _ := part.(map[string]any)
		pat := r.child(at, "/allOf/"+strconv.Itoa(i))
		if ref, ok := ps["$ref"].(string); ok {
			if c.busy[ref] {
				continue
			}
			if target, ok := lookup(c.root, ref); ok {
				ps, pat = target, c.source(strings.TrimPrefix(ref, "#"))
			}
		}
		if sub, ok := ps["allOf"].([]any); ok && depth < 16 {
			flat, flatAt, ok := r.flattenAllOf(c, ps, pat, sub, depth+1)
			if !ok {
				return nil, "", false
			}
			ps, pat = flat, flatAt
		}
		pp, hasProps := ps["properties"].(map[string]any)
		if !hasProps && ps["type"] != "object" {
			if len(ps) > 0 {
				other = append(other, ps)
				otherAt = append(otherAt, pat)
			}
			continue
		}
		ks, _ := r.keys(r.propsAt(pat), pp)
		for _, k := range ks {
			if _, dup := props[k]; !dup {
				props[k] = pp[k]
				order = append(order, k)
				r.moved[mat+"/properties/"+EscapeToken(k)] = r.child(pat, "/properties/"+EscapeToken(k))
			}
		}
		if req, ok := ps["required"].([]any); ok {
			required = append(required, req...)
		}
		for _, k := range []string{"description", "discriminator", "additionalProperties"} {
			if v, ok := ps[k]; ok && merged[k] == nil {
				merged[k] = v
				r.moved[mat+"/"+k] = r.child(pat, "/"+k)
			}
		}
	}
	if len(props) == 0 {
		if len(other) > 1 {
			return nil, "", false
		}
		if len(other) == 1 {
			for k, v := range other[0] {
				if _, set := merged[k]; !set {
					merged[k] = v
					r.moved[mat+"/"+EscapeToken(k)] = r.child(otherAt[0], "/"+EscapeToken(k))
				}
			}
		}
		return merged, mat, true
	}
	merged["type"] = "object"
	merged["properties"] = props
	r.merged[mat+"/properties"] = order
	if len(required) > 0 {
		merged["required"] = required
	}
	return merged, mat, true
}

func (r *resolver) union(c *ctx, s Schema, at string, alts []any, hint string) *Type {
	var vs []*Type
	nullable := s["nullable"] == true
	var docs []EnumDoc
	allConst := true
	for i, a := range alts {
		as, _ := a.(map[string]any)
		if isNull(as) {
			nullable = true
			continue
		}
		// A sibling "type" applies to every branch (e.g. type: string + oneOf consts).
		if typ, ok := s["type"]; ok && as["type"] == nil && as["$ref"] == nil {
			cp := Schema{"type": typ}
			for k, v := range as {
				cp[k] = v
			}
			as = cp
		}
		v := r.typeOf(c, as, r.child(at, "/"+strconv.Itoa(i)), hint+"Variant"+strconv.Itoa(i+1))
		if cv, ok := as["const"]; ok {
			d, _ := as["description"].(string)
			if d == "" {
				d, _ = as["title"].(string)
			}
			docs = append(docs, EnumDoc{Value: cv, Doc: d})
		} else {
			allConst = false
		}
		vs = append(vs, v)
	}
	t := unionOf(vs)
	if allConst && len(docs) > 0 {
		t = &Type{Kind: KindLiteral}
		for _, d := range docs {
			t.Literals = append(t.Literals, d.Value)
		}
		for _, d := range docs {
			if d.Doc != "" {
				t.EnumDocs = docs
				break
			}
		}
	}
	if d, ok := s["discriminator"].(map[string]any); ok {
		t.Discriminator, _ = d["propertyName"].(string)
	}
	t.Nullable = t.Nullable || nullable
	return t
}

// shape returns the named shape for an object schema. A shape reached
// through a $ref is named after its definition and registered before its
// fields are walked, so cycles refer back to it; an inline shape is built
// first and then shared with any printed-equal shape already made.
func (r *resolver) shape(c *ctx, s Schema, at, hint string, ref *refKey) *ObjectType {
	if t, ok := s["title"].(string); ok && ref == nil && Pascal(t) != "" {
		hint = Pascal(t)
	}
	if hint == "" {
		hint = "Object"
	}
	sh := &ObjectType{}
	sh.Description, _ = s["description"].(string)
	sh.Description = strings.TrimSpace(sh.Description)
	if ref != nil {
		sh.Pointer = ref.ref
		sh.Name = r.names.Name(hint)
		r.refShapes[*ref] = sh
		r.svc.Objects = append(r.svc.Objects, sh)
	}
	req := map[string]bool{}
	if list, ok := s["required"].([]any); ok {
		for _, v := range list {
			if name, ok := v.(string); ok {
				req[name] = true
			}
		}
	}
	props, _ := s["properties"].(map[string]any)
	keys, ordered := r.keys(r.propsAt(at), props)
	for _, k := range keys {
		ps, _ := props[k].(map[string]any)
		ft := r.typeOf(c, ps, r.child(at, "/properties/"+EscapeToken(k)), hint+Pascal(k))
		f := &Field{Wire: k, Required: req[k], Type: ft, Description: ft.Description}
		f.ReadOnly = ps["readOnly"] == true
		sh.Fields = append(sh.Fields, f)
	}
	// Fields in source order; where that is unknown, required ones first,
	// each group in name order.
	if !ordered {
		sort.SliceStable(sh.Fields, func(i, j int) bool { return sh.Fields[i].Required && !sh.Fields[j].Required })
	}
	if ap, ok := s["additionalProperties"].(map[string]any); ok && len(ap) > 0 {
		sh.Extra = r.typeOf(c, ap, r.child(at, "/additionalProperties"), hint+"Value")
	}
	if ref != nil {
		return sh
	}
	key := shapeKey(sh)
	if same, ok := r.byKey[key]; ok {
		return same
	}
	sh.Name = r.names.Name(hint)
	r.byKey[key] = sh
	r.svc.Objects = append(r.svc.Objects, sh)
	return sh
}

// shapeKey identifies a shape by what it prints: its description and each
// field's key, requiredness, type and description.
func shapeKey(sh *ObjectType) string {
	var b strings.Builder
	b.WriteString(sh.Description)
	for _, f := range sh.Fields {
		fmt.Fprintf(&b, "\x00%s\x01%t\x01%t\x01%s\x01%s", f.Wire, f.Required, f.ReadOnly, typeKey(f.Type), f.Description)
		b.Write(compact(f.Type.Default))
		b.WriteString(f.Type.Format)
	}
	if sh.Extra != nil {
		b.WriteString("\x00+" + typeKey(sh.Extra))
	}
	return b.String()
}

func isShape(s Schema) bool {
	p, ok := s["properties"].(map[string]any)
	return ok && len(p) > 0
}

func isNull(s Schema) bool {
	if s["type"] == "null" {
		return true
	}
	if t, ok := s["type"].([]any); ok && len(t) == 1 && t[0] == "null" {
		return true
	}
	return false
}

func literal(vals []any) *Type {
	t := &Type{Kind: KindLiteral}
	for _, v := range vals {
		if v == nil {
			t.Nullable = true
			continue
		}
		switch v.(type) {
		case string, bool, json.Number, float64:
			t.Literals = append(t.Literals, v)
		default:
			// An object or array enum value cannot be a Literal.
			return &Type{Kind: KindAny}
		}
	}
	if len(t.Literals) == 0 {
		return &Type{Kind: KindNone}
	}
	return t
}

// unionOf flattens and de-duplicates variants; one variant is itself.
func unionOf(vs []*Type) *Type {
	var out []*Type
	seen := map[string]bool{}
	nullable := false
	for _, v := range vs {
		if v.Kind == KindNone {
			nullable = true
			continue
		}
		parts := []*Type{v}
		if v.Kind == KindUnion {
			parts = v.Variants
		}
		for _, p := range parts {
			nullable = nullable || p.Nullable
			k := typeKey(p)
			if seen[k] {
				continue
			}
			seen[k] = true
			out = append(out, p)
		}
	}
	switch len(out) {
	case 0:
		if nullable {
			return &Type{Kind: KindNone}
		}
		return &Type{Kind: KindAny}
	case 1:
		t := *out[0]
		t.Nullable = t.Nullable || nullable
		return &t
	}
	for _, o := range out {
		if o.Kind == KindAny {
			return &Type{Kind: KindAny}
		}
	}
	return &Type{Kind: KindUnion, Variants: out, Nullable: nullable}
}

// typeKey identifies a type's printed form for de-duplication.
func typeKey(t *Type) string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(int(t.Kind)))
	switch t.Kind {
	case KindObject:
		b.WriteString(string(t.Object.Name))
	case KindList:
		b.WriteString("[" + typeKey(t.Items) + "]")
	case KindMap:
		b.WriteString("{" + typeKey(t.Values) + "}")
	case KindTuple, KindUnion:
		for _, e := range append(t.Elems, t.Variants...) {
			b.WriteString("," + typeKey(e))
		}
	case KindLiteral:
		j, _ := json.Marshal(t.Literals)
		b.Write(j)
	}
	if t.Nullable {
		b.WriteString("?")
	}
	return b.String()
}

// annotate copies the documentation keywords of s onto t.
func annotate(t *Type, s Schema) {
	if d, ok := s["description"].(string); ok && t.Description == "" {
		t.Description = strings.TrimSpace(d)
	}
	if f, ok := s["format"].(string); ok {
		t.Format = f
	}
	if p, ok := s["pattern"].(string); ok {
		t.Pattern = p
	}
	if v, ok := s["default"]; ok {
		t.Default = compact(v)
	}
	if s["deprecated"] == true {
		t.Deprecated = true
	}
	setNum := func(dst **json.Number, key string) {
		if n := num(s[key]); n != nil {
			*dst = n
		}
	}
	setNum(&t.Min, "minimum")
	setNum(&t.Max, "maximum")
	setNum(&t.ExclusiveMin, "exclusiveMinimum")
	setNum(&t.ExclusiveMax, "exclusiveMaximum")
	// OpenAPI 3.0 spells exclusive bounds as booleans next to minimum/maximum.
	if s["exclusiveMinimum"] == true {
		t.ExclusiveMin, t.Min = t.Min, nil
	}
	if s["exclusiveMaximum"] == true {
		t.ExclusiveMax, t.Max = t.Max, nil
	}
	setInt := func(dst **int64, key string) {
		if n := integer(s[key]); n != nil {
			*dst = n
		}
	}
	setInt(&t.MinLength, "minLength")
	setInt(&t.MaxLength, "maxLength")
	setInt(&t.MinItems, "minItems")
	setInt(&t.MaxItems, "maxItems")
	if docs := enumDocs(s); len(docs) > 0 && len(t.EnumDocs) == 0 {
		t.EnumDocs = docs
	}
}

// enumDocs reads x-enum-descriptions (a map value → text, or a list parallel
// to enum) and x-enumDescriptions.
func enumDocs(s Schema) []EnumDoc {
	vals, _ := s["enum"].([]any)
	for _, key := range []string{"x-enum-descriptions", "x-enumDescriptions"} {
		switch d := s[key].(type) {
		case map[string]any:
			var out []EnumDoc
			for _, v := range vals {
				if text, ok := d[literalText(v)].(string); ok {
					out = append(out, EnumDoc{Value: v, Doc: text})
				}
			}
			return out
		case []any:
			var out []EnumDoc
			for i, v := range vals {
				if i < len(d) {
					if text, ok := d[i].(string); ok {
						out = append(out, EnumDoc{Value: v, Doc: text})
					}
				}
			}
			return out
		}
	}
	return nil
}

func literalText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	j, _ := json.Marshal(v)
	return string(j)
}

func num(v any) *json.Number {
	switch n := v.(type) {
	case json.Number:
		return &n
	case float64:
		j := json.Number(strconv.FormatFloat(n, 'g', -1, 64))
		return &j
	}
	return nil
}

func integer(v any) *int64 {
	n := num(v)
	if n == nil {
		return nil
	}
	i, err := n.Int64()
	if err != nil {
		return nil
	}
	return &i
}

func compact(v any) json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil
	}
	return json.RawMessage(bytes.TrimSpace(buf.Bytes()))
}

// lookup resolves a local reference ("#/$defs/X") in root.
func lookup(root Schema, ref string) (Schema, bool) {
	p, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, false
	}
	v, ok := Lookup(map[string]any(root), p)
	if !ok {
		return nil, false
	}
	s, ok := v.(map[string]any)
	return s, ok
}
