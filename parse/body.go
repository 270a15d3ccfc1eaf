package parse

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/codemode-dev/codemode/ir"
)

// OpenAPI request and response bodies: media types, body parameters, the
// result schema.

// bodyParam is a request body property (or the whole body) before names
// are assigned.
type bodyParam struct {
	wire     string
	schema   map[string]any
	at       string // where schema is in the document; "" when made here
	required bool
	desc     string
	deprec   bool
	whole    bool
}

// bodyRank orders request media types: JSON first, then forms, then
// anything else.
func bodyRank(mt string) int {
	base, _, _ := strings.Cut(strings.ToLower(mt), ";")
	base = strings.TrimSpace(base)
	switch {
	case base == "application/json":
		return 0
	case base == "application/merge-patch+json":
		return 1
	case strings.HasSuffix(base, "+json") || strings.Contains(base, "json"):
		return 2
	case base == "application/x-www-form-urlencoded":
		return 3
	case base == "multipart/form-data":
		return 4
	case base == "*/*" || base == "application/*":
		return 5
	}
	return 6
}

// bestMediaType picks the best-ranked media type of a content map
// (ties: by name). forms says whether form types are acceptable.
func bestMediaType(content map[string]any, forms bool) string {
	best, bestRank := "", 99
	for _, mt := range slices.Sorted(maps.Keys(content)) {
		r := bodyRank(mt)
		if !forms && (r == 3 || r == 4) {
			r = 6
		}
		if r < bestRank {
			best, bestRank = mt, r
		}
	}
	return best
}

// body3 builds the body parameters of a 3.x request body (v is the object
// or its $ref) and says whether the body is required.
func (o *oas) body3(v any, ptr string, refs refSet) (params []bodyParam, mt string, spread, required bool) {
	rb, rbPtr := o.deref(v, ptr)
	if rb == nil {
		return nil, "", false, false
	}
	b := readRequestBody(rb)
	content := b.Content
	if len(content) == 0 {
		o.d.add(ir.DiagBodyWithoutContent, rbPtr, "request body has no content; no body parameter")
		return nil, "", false, b.Required
	}
	mt = bestMediaType(content, true)
	sPtr := rbPtr + "/content/" + esc(mt) + "/schema"
	params, mt, spread = o.body(mt, mediaSchema(content, mt), sPtr, b.Required, b.Description, refs)
	return params, mt, spread, b.Required
}

// body builds the body parameters from the chosen media type's schema.
func (o *oas) body(mt string, schema map[string]any, ptr string, required bool, desc string, refs refSet) ([]bodyParam, string, bool) {
	if bodyRank(mt) == 6 {
		s, at := map[string]any{"type": "string"}, ""
		if schema != nil && schema["type"] == "string" {
			s, at = schema, ptr
			o.walk(schema, ptr, refs)
		}
		if strings.Contains(strings.ToLower(mt), "octet-stream") && s["format"] == nil {
			s, at = map[string]any{"type": "string", "format": "binary"}, ""
		}
		o.d.add(ir.DiagBodyContentType, ptr, "request body is only offered as %s; taken as one string parameter \"body\"", mt)
		return []bodyParam{{wire: "body", schema: s, at: at, required: required, desc: desc, whole: true}}, mt, false
	}
	at := ptr
	if schema == nil {
		schema, at = map[string]any{}, ""
	}
	o.walk(schema, ptr, refs)
	if props, ok := o.spread(schema, ptr, required, refs); ok {
		return props, mt, true
	}
	if desc == "" {
		t, _ := o.target(schema, ptr)
		desc = asString(t["description"])
	}
	return []bodyParam{{wire: "body", schema: schema, at: at, required: required, desc: desc, whole: true}}, mt, false
}

// spread lists the top-level properties of an object body (a top-level
// allOf merged), dropping readOnly ones. ok is false when the body is not
// an object with properties.
func (o *oas) spread(schema map[string]any, ptr string, bodyRequired bool, refs refSet) ([]bodyParam, bool) {
	type member struct {
		s   map[string]any
		ptr string
	}
	var members []member
	visited := map[string]bool{}
	var collect func(s map[string]any, ptr string, depth int) bool
	collect = func(s map[string]any, ptr string, depth int) bool {
		s, ptr = o.target(s, ptr)
		if visited[ptr] {
			return true // merged already (or a cycle: nothing new to add)
		}
		visited[ptr] = true
		if depth > 16 || len(members) > 256 || s["oneOf"] != nil || s["anyOf"] != nil || s["not"] != nil {
			return false
		}
		switch t := s["type"].(type) {
		case nil:
		case string:
			if t != "object" {
				return false
			}
		case []any: // a nullable object body: null is no body at all
			for _, e := range t {
				if e != "object" && e != "null" {
					return false
				}
			}
		default:
			return false
		}
		if ap, ok := s["additionalProperties"]; ok && ap != false {
			if m, isMap := ap.(map[string]any); !isMap || len(m) > 0 {
				return false
			}
		}
		members = append(members, member{s, ptr})
		for i, sub := range asSlice(s["allOf"]) {
			sm := asMap(sub)
			if sm == nil || !collect(sm, ptr+"/allOf/"+strconv.Itoa(i), depth+1) {
				return false
			}
		}
		return true
	}
	if !collect(schema, ptr, 0) {
		return nil, false
	}
	var out []bodyParam
	seen := map[string]int{}
	for _, m := range members {
		props := asMap(m.s["properties"])
		req := stringSet(m.s["required"])
		for _, name := range o.ord.keys(m.ptr+"/properties", props) {
			ps, at := asMap(props[name]), m.ptr+"/properties/"+esc(name)
			if ps == nil {
				ps, at = map[string]any{}, ""
			}
			t, _ := o.target(ps, m.ptr+"/properties/"+esc(name))
			if asBool(ps["readOnly"]) || asBool(t["readOnly"]) {
				continue
			}
			desc := asString(ps["description"])
			if desc == "" {
				desc = asString(t["description"])
			}
			bp := bodyParam{wire: name, schema: ps, at: at, required: bodyRequired && req[name], desc: desc, deprec: asBool(ps["deprecated"])}
			if i, dup := seen[name]; dup {
				bp.required = bp.required || out[i].required
				out[i] = bp
				continue
			}
			seen[name] = len(out)
			out = append(out, bp)
		}
		// "required" may name a property another member declares.
		for name := range req {
			if i, ok := seen[name]; ok && bodyRequired {
				out[i].required = true
			}
		}
	}
	if len(out) == 0 {
		return nil, false
	}
	return out, true
}

// body2 builds the body of a Swagger 2.0 operation from its body or
// formData parameters.
func (o *oas) body2(op operationObj, bodyRaw *rawParam, formData []rawParam, refs refSet) ([]bodyParam, string, bool) {
	consumes := op.Consumes
	if consumes == nil {
		consumes = o.top.Consumes
	}
	content := map[string]any{}
	for _, c := range consumes {
		if s := asString(c); s != "" {
			content[s] = true
		}
	}
	if len(formData) > 0 {
		mt := "application/x-www-form-urlencoded"
		if content["multipart/form-data"] != nil {
			mt = "multipart/form-data"
		}
		var out []bodyParam
		for _, rp := range formData {
			if rp.Type == "file" {
				mt = "multipart/form-data"
			}
			s, at := o.paramSchema(rp, refs)
			out = append(out, bodyParam{wire: rp.Name, schema: s, at: at, required: rp.Required, desc: rp.Description, deprec: rp.Deprecated})
		}
		if bodyRaw != nil {
			o.d.add(ir.DiagBadParameter, bodyRaw.at, "operation has both body and formData parameters; the body parameter is skipped")
		}
		return out, mt, true
	}
	if bodyRaw == nil {
		return nil, "", false
	}
	mt := "application/json"
	if len(content) > 0 {
		mt = bestMediaType(content, true)
		if bodyRank(mt) == 3 || bodyRank(mt) == 4 {
			// A schema body is never a form in Swagger 2.0: prefer JSON if offered.
			mt = bestMediaType(content, false)
		}
	}
	schema := asMap(bodyRaw.Schema)
	if schema == nil {
		o.d.add(ir.DiagBadParameter, bodyRaw.ptr, "body parameter has no schema; taken as unconstrained")
	}
	return o.body(mt, schema, bodyRaw.ptr+"/schema", bodyRaw.Required, bodyRaw.Description, refs)
}

// output is the JSON schema of the first 2xx response that has one, with
// its $defs, and where it is in the document; or nil.
func (o *oas) output(op operationObj, opPtr string) (ir.Schema, ir.Origin) {
	responses := op.Responses
	codes := make([]string, 0, len(responses))
	for c := range responses {
		if len(c) == 3 && c[0] == '2' {
			codes = append(codes, c)
		}
	}
	slices.SortFunc(codes, func(a, b string) int {
		// "200" < "201" < ... < "2XX"
		return strings.Compare(strings.ToUpper(a), strings.ToUpper(b))
	})
	for _, c := range codes {
		resp, rPtr := o.deref(responses[c], opPtr+"/responses/"+c)
		if resp == nil {
			continue
		}
		var schema map[string]any
		var sPtr string
		if o.v2 {
			produces := op.Produces
			if produces == nil {
				produces = o.top.Produces
			}
			json := len(produces) == 0
			for _, p := range produces {
				if r := bodyRank(asString(p)); r <= 2 || r == 5 {
					json = true
				}
			}
			if !json {
				continue
			}
			schema, sPtr = readResponse(resp).Schema, rPtr+"/schema"
		} else {
			content := readResponse(resp).Content
			mt := bestMediaType(content, false)
			if r := bodyRank(mt); mt == "" || r > 2 && r != 5 {
				continue
			}
			schema, sPtr = mediaSchema(content, mt), rPtr+"/content/"+esc(mt)+"/schema"
		}
		if schema == nil {
			continue
		}
		refs := refSet{}
		o.walk(schema, sPtr, refs)
		out := maps.Clone(schema)
		origin := ir.Origin{"": sPtr}
		if defs := o.closure(refs); defs != nil {
			out["$defs"] = defs
		}
		return out, origin
	}
	return nil, nil
}
