package parse

import (
	"maps"
	"strconv"
)

// OpenAPI parameters: listing, schemas, serialization styles.

// rawParam is one parameter object after $ref resolution.
type rawParam struct {
	m   map[string]any
	ptr string // where its definition is
	at  string // where it is listed (for diagnostics about the listing)
}

// params merges path-item and operation parameters, the operation's
// winning, in source order.
func (o *oas) params(item map[string]any, itemPtr string, op map[string]any, opPtr string) []rawParam {
	var out []rawParam
	index := map[string]int{}
	add := func(list any, base string) {
		for i, p := range asSlice(list) {
			at := base + "/parameters/" + strconv.Itoa(i)
			m, ptr := o.deref(p, at)
			if m == nil {
				continue
			}
			name, in := asString(m["name"]), asString(m["in"])
			if name == "" || in == "" {
				o.d.add("bad-parameter", at, "parameter has no name or no \"in\"; skipped")
				continue
			}
			key := in + "\x00" + name
			if j, ok := index[key]; ok {
				out[j] = rawParam{m, ptr, at}
				continue
			}
			index[key] = len(out)
			out = append(out, rawParam{m, ptr, at})
		}
	}
	add(item["parameters"], itemPtr)
	add(op["parameters"], opPtr)
	return out
}

// paramSchema is the walked schema of a path/query/header/cookie parameter,
// and where it is in the document ("" when it is made here).
func (o *oas) paramSchema(rp rawParam, refs refSet) (map[string]any, string) {
	if o.v2 {
		s := map[string]any{}
		for k, v := range rp.m {
			switch k {
			case "name", "in", "description", "required", "collectionFormat", "allowEmptyValue":
			default:
				s[k] = v
			}
		}
		stripCollectionFormat(s)
		o.walkAt(s, rp.ptr, refs)
		return s, rp.ptr
	}
	if sv, ok := rp.m["schema"]; ok {
		s := asMap(sv)
		if s == nil {
			o.d.add("bad-schema", rp.ptr+"/schema", "parameter schema is not an object; taken as unconstrained")
			return map[string]any{}, ""
		}
		o.walk(s, rp.ptr+"/schema", refs)
		return s, rp.ptr + "/schema"
	}
	if content := asMap(rp.m["content"]); len(content) > 0 {
		mt := bestMediaType(content, false)
		s := asMap(asMap(content[mt])["schema"])
		ptr := rp.ptr + "/content/" + esc(mt) + "/schema"
		o.d.add("param-content", rp.ptr+"/content", "parameter %q is serialized as %s, which the runtime sends as JSON text; its schema is kept", asString(rp.m["name"]), mt)
		if s == nil {
			return map[string]any{}, ""
		}
		o.walk(s, ptr, refs)
		return s, ptr
	}
	o.d.add("param-without-schema", rp.ptr, "parameter %q has no schema; taken as unconstrained", asString(rp.m["name"]))
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
		switch cf := asString(rp.m["collectionFormat"]); cf {
		case "multi":
			return "form", &t
		case "ssv":
			return "spaceDelimited", &f
		case "pipes":
			return "pipeDelimited", &f
		case "tsv":
			o.d.add("unsupported-style", rp.ptr+"/collectionFormat", "collectionFormat \"tsv\" has no OpenAPI 3 style; sent comma-separated")
		}
		if in == "query" || in == "cookie" {
			if asString(rp.m["type"]) == "array" {
				return "form", &f
			}
			return "form", &t
		}
		return "simple", &f
	}
	style := asString(rp.m["style"])
	if style == "" {
		style = "simple"
		if in == "query" || in == "cookie" {
			style = "form"
		}
	}
	explode := style == "form"
	if e, ok := rp.m["explode"].(bool); ok {
		explode = e
	}
	return style, &explode
}
