package ir

import (
	"fmt"
	"strconv"
)

// MaxTypeDepth is how deeply the brackets of one printed type may nest
// (list[...], dict[str, ...], tuple[...], Literal[...]; a TypedDict is
// printed by name and starts afresh). Python and Monty's checker refuse 200
// levels; no real API nests anywhere near this.
const MaxTypeDepth = 32

// capDepth replaces every part of a type that would print deeper than
// MaxTypeDepth by Any, with one type-too-deep diagnostic per parameter,
// result or shape field it cut. Types are shared (a $ref target's type is
// used everywhere it is referenced), so a cut copies instead of changing
// the shared value. The schemas in the manifest are untouched and still
// validate every argument in full.
//
// pending are Resolve's own type-too-deep diagnostics (schemas nested past
// MaxSchemaDepth), each at the pointer of the parameter or result it cut;
// one is dropped where capDepth already reports a cut in the same one.
func capDepth(svc *Service, pending []Diagnostic) {
	c := &capper{svc: svc, shapes: map[*ObjectType]bool{}, cut: map[string]bool{}}
	defer func() {
		for _, d := range pending {
			if !c.cut[d.Pointer] {
				svc.Diagnostics = append(svc.Diagnostics, d)
			}
		}
	}()
	for _, t := range svc.Tools {
		base := t.Pointer
		if svc.Source.Kind != SourceOpenAPI {
			base += "/inputSchema"
		}
		for _, p := range t.Params {
			ptr := string(p.Ref)
			if ptr == "" {
				ptr = "/properties/" + EscapeToken(p.Arg)
			}
			c.root = base + ptr
			p.Type = c.visit(p.Type, 1, c.root)
		}
		if t.Result != nil {
			out := t.Pointer + "/outputSchema"
			if svc.Source.Kind == SourceOpenAPI {
				out = t.Pointer + "/responses/2xx"
			}
			c.root = out
			t.Result = c.visit(t.Result, 0, out)
		}
	}
	for _, sh := range svc.Objects { // defensive: Resolve makes only reachable ones
		c.root = sh.Pointer
		c.shape(sh, sh.Pointer)
	}
}

type capper struct {
	svc    *Service
	shapes map[*ObjectType]bool // walked
	root   string               // pointer of the parameter or result being walked
	cut    map[string]bool      // roots and places with a cut reported
}

// visit returns t, or a copy of it cut at MaxTypeDepth, for a type whose
// outer brackets open at depth (the brackets around it already open).
func (c *capper) visit(t *Type, depth int, ptr string) *Type {
	if t == nil {
		return nil
	}
	opens := 0
	switch t.Kind {
	case KindList, KindTuple, KindMap, KindLiteral:
		opens = 1
	}
	if depth+opens > MaxTypeDepth {
		c.cut[c.root] = true
		if !c.cut[ptr] { // one per place (the variants of a union share it)
			c.cut[ptr] = true
			c.svc.Diagnostics = append(c.svc.Diagnostics, Diagnostic{
				Code: DiagTypeTooDeep, File: sourceName(c.svc.Source), Pointer: ptr,
				Message: fmt.Sprintf("the type nests more than %d brackets deep; printed as Any from here (the schema in the manifest keeps it and validates arguments with it)", MaxTypeDepth),
			})
		}
		return &Type{Kind: KindAny, Nullable: t.Nullable, Description: t.Description}
	}
	d := depth + opens
	switch t.Kind {
	case KindList:
		if it := c.visit(t.Items, d, ptr+"/items"); it != t.Items {
			cp := *t
			cp.Items = it
			return &cp
		}
	case KindMap:
		if v := c.visit(t.Values, d, ptr+"/additionalProperties"); v != t.Values {
			cp := *t
			cp.Values = v
			return &cp
		}
	case KindTuple:
		elems := c.each(t.Elems, func(i int, e *Type) *Type { return c.visit(e, d, ptr+"/prefixItems/"+strconv.Itoa(i)) })
		if elems != nil {
			cp := *t
			cp.Elems = elems
			return &cp
		}
	case KindUnion:
		// The variants print side by side; which keyword (anyOf, oneOf,
		// type list) holds them is not kept, so the pointer stays here.
		vs := c.each(t.Variants, func(_ int, v *Type) *Type { return c.visit(v, depth, ptr) })
		if vs != nil {
			cp := *t
			cp.Variants = vs
			return &cp
		}
	case KindObject:
		c.shape(t.Object, ptr)
	}
	return t
}

// each applies f to every element and returns the new elements, or nil
// when f changed none.
func (c *capper) each(elems []*Type, f func(int, *Type) *Type) []*Type {
	var out []*Type
	for i, e := range elems {
		n := f(i, e)
		if n != e && out == nil {
			out = append([]*Type(nil), elems...)
		}
		if out != nil {
			out[i] = n
		}
	}
	return out
}

// shape walks a shape's fields once: each prints inside NotRequired[...]
// or a functional TypedDict's braces, so at depth 2.
func (c *capper) shape(sh *ObjectType, ptr string) {
	if sh == nil || c.shapes[sh] {
		return
	}
	c.shapes[sh] = true
	for _, f := range sh.Fields {
		f.Type = c.visit(f.Type, 2, ptr+"/properties/"+EscapeToken(f.Wire))
	}
	if sh.Extra != nil {
		sh.Extra = c.visit(sh.Extra, 2, ptr+"/additionalProperties")
	}
}
