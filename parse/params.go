package parse

import (
	"maps"
	"slices"
	"strconv"

	"github.com/codemode-dev/codemode/ir"
)

// OpenAPI parameters: listing, schemas, serialization styles.

// rawParam is one parameter object after $ref resolution.
type rawParam struct {
	parameterObj
	ptr string // where its definition is
	at  string // where it is listed (for diagnostics about the listing)
}

// params merges path-item and operation parameters, the operation's
// winning, in source order.
func (o *oas) params(item pathItemObj, itemPtr string, op operationObj, opPtr string) []rawParam {
	// Made at the size of both lists (a parameter is some 200 bytes; grown
	// one at a time the list was allocated about twice).
	out := make([]rawParam, 0, len(item.Parameters)+len(op.Parameters))
	index := map[string]int{}
	add := func(list []any, base string) {
		for i, p := range list {
			at := base + "/parameters/" + strconv.Itoa(i)
			m, ptr := o.deref(p, at)
			if m == nil {
				continue
			}
			rp := rawParam{o.readParameter(m, ptr != at), ptr, at}
			name, in := rp.Name, rp.In
			if name == "" || in == "" {
				o.d.add(ir.DiagBadParameter, at, "parameter has no name or no \"in\"; skipped")
				continue
			}
			key := in + "\x00" + name
			if j, ok := index[key]; ok {
				out[j] = rp
				continue
			}
			index[key] = len(out)
			out = append(out, rp)
		}
	}
	add(item.Parameters, itemPtr)
	add(op.Parameters, opPtr)
	return out
}

// readParameter reads a parameter object; shared says it was reached
// through a $ref, and so is likely listed by other operations too, which
// then get the same reading.
func (o *oas) readParameter(m map[string]any, shared bool) parameterObj {
	if !shared {
		return readParameter(m)
	}
	id := mapID(m)
	if p, ok := o.paramObjs[id]; ok {
		return p
	}
	p := readParameter(m)
	if o.paramObjs == nil {
		o.paramObjs = map[*byte]parameterObj{}
	}
	o.paramObjs[id] = p
	return p
}

// paramSchema is the walked schema of a path/query/header/cookie parameter,
// and where it is in the document ("" when it is made here).
func (o *oas) paramSchema(rp rawParam, refs refSet) (map[string]any, string) {
	if o.v2 {
		// A parameter the operations share (a $ref to /parameters) is
		// made into a schema once: every operation gets the same map and
		// its references. One whose walk reported something is made afresh
		// for each, as each walk reports what it finds.
		if m, ok := o.params2[rp.ptr]; ok {
			for _, r := range m.refs {
				refs[r] = true
			}
			return m.schema, rp.ptr
		}
		s := map[string]any{}
		for k, v := range rp.m {
			switch k {
			case "name", "in", "description", "required", "collectionFormat", "allowEmptyValue":
			default:
				s[k] = v
			}
		}
		stripCollectionFormat(s)
		own, before := refSet{}, len(o.d.list)
		o.walkAt(s, rp.ptr, own)
		for r := range own {
			refs[r] = true
		}
		if len(o.d.list) == before {
			if o.params2 == nil {
				o.params2 = map[string]param2{}
			}
			o.params2[rp.ptr] = param2{s, slices.Sorted(maps.Keys(own))}
		}
		return s, rp.ptr
	}
	if rp.HasSchema {
		s := asMap(rp.Schema)
		if s == nil {
			o.d.add(ir.DiagBadSchema, rp.ptr+"/schema", "parameter schema is not an object; taken as unconstrained")
			return map[string]any{}, ""
		}
		o.walk(s, rp.ptr+"/schema", refs)
		return s, rp.ptr + "/schema"
	}
	if content := rp.Content; len(content) > 0 {
		mt := bestMediaType(content, false)
		s := mediaSchema(content, mt)
		ptr := rp.ptr + "/content/" + esc(mt) + "/schema"
		o.d.add(ir.DiagParamContent, rp.ptr+"/content", "parameter %q is serialized as %s, which the runtime sends as JSON text; its schema is kept", rp.Name, mt)
		if s == nil {
			return map[string]any{}, ""
		}
		o.walk(s, ptr, refs)
		return s, ptr
	}
	o.d.add(ir.DiagParamWithoutSchema, rp.ptr, "parameter %q has no schema; taken as unconstrained", rp.Name)
	return map[string]any{}, ""
}

func stripCollectionFormat(s map[string]any) {
	for depth := 0; s != nil && depth < 32; depth++ {
		delete(s, "collectionFormat")
		items := asMap(s["items"])
		if items == nil {
			return
		}
		cp := maps.Clone(items)
		s["items"] = cp
		s = cp
	}
}

// style is the effective style and explode of a parameter.
func (o *oas) style(rp rawParam, in string) (string, *bool) {
	t, f := true, false
	if o.v2 {
		switch cf := rp.CollectionFormat; cf {
		case "multi":
			return "form", &t
		case "ssv":
			return "spaceDelimited", &f
		case "pipes":
			return "pipeDelimited", &f
		case "tsv":
			o.d.add(ir.DiagUnsupportedStyle, rp.ptr+"/collectionFormat", "collectionFormat \"tsv\" has no OpenAPI 3 style; sent comma-separated")
		}
		if in == "query" || in == "cookie" {
			if rp.Type == "array" {
				return "form", &f
			}
			return "form", &t
		}
		return "simple", &f
	}
	style := rp.Style
	if style == "" {
		style = "simple"
		if in == "query" || in == "cookie" {
			style = "form"
		}
	}
	explode := style == "form"
	if rp.Explode != nil {
		explode = *rp.Explode
	}
	return style, &explode
}

// param2 is a Swagger 2.0 parameter made into a schema: the schema and the
// $defs names it references.
type param2 struct {
	schema map[string]any
	refs   []string
}
