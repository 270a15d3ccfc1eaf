package parse

import (
	"bytes"
	"maps"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/codemode-dev/codemode/ir"
)

// OpenAPIFile reads an OpenAPI or Swagger document and compiles it; see
// OpenAPI.
func OpenAPIFile(path string, opts Options) (*ir.Service, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, errorf(path, "%s", oneLine(unwrapPathErr(err)))
	}
	return OpenAPI(path, data, opts)
}

// OpenAPI compiles an OpenAPI 3.0 or 3.1 document, or a Swagger 2.0 one,
// written in JSON or YAML. name is the source's file name (as given; used in
// errors and diagnostics, and, without directory and extension, as the
// service name). The document does not have to validate: every operation is
// compiled, and what cannot be used is reported in Service.Diagnostics.
func OpenAPI(name string, data []byte, opts Options) (*ir.Service, error) {
	var (
		doc any
		ord order
		err error
	)
	noBOM := bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if trimmed := bytes.TrimLeft(noBOM, " \t\r\n"); len(trimmed) > 0 && trimmed[0] == '{' {
		doc, ord, err = decodeJSON(name, noBOM)
	} else {
		doc, ord, err = decodeYAML(name, data)
	}
	if err != nil {
		return nil, err
	}
	root := asMap(doc)
	if root == nil {
		return nil, errorf(name, "not an OpenAPI document: top level is not an object")
	}
	o := &oas{
		file:   name,
		doc:    root,
		ord:    ord,
		d:      &diags{file: name},
		walked: map[string][]string{},
		synth:  map[string]string{},
	}
	switch v := root["openapi"].(type) {
	case nil:
		sw, _ := root["swagger"].(string)
		if sw == "" {
			return nil, errorf(name, "not an OpenAPI document: no \"openapi\" or \"swagger\" version")
		}
		if sw != "2.0" {
			return nil, errorf(name, "unsupported Swagger version %q (want 2.0)", sw)
		}
		o.v2 = true
		o.defsPtr = "/definitions"
		o.defs = asMap(root["definitions"])
	case string:
		if !strings.HasPrefix(v, "3.") {
			return nil, errorf(name, "unsupported OpenAPI version %q (want 3.x)", v)
		}
		o.defsPtr = "/components/schemas"
		o.defs = asMap(asMap(root["components"])["schemas"])
	default:
		return nil, errorf(name, "not an OpenAPI document: \"openapi\" is not a string")
	}
	svc := o.service(opts)
	svc.Source = ir.Source{Kind: ir.SourceOpenAPI, File: name, Digest: digest(data)}
	svc.Order = keyOrder(doc, ord)
	return svc, nil
}

// oas is one OpenAPI document being compiled.
type oas struct {
	file    string
	doc     map[string]any
	ord     order
	v2      bool
	d       *diags
	defsPtr string              // "/components/schemas" or "/definitions"
	defs    map[string]any      // the component schemas
	walked  map[string][]string // schema pointer -> $defs it references
	synth   map[string]string   // $defs name -> pointer, for other local refs
}

var methods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

func (o *oas) service(opts Options) *ir.Service {
	info := asMap(o.doc["info"])
	svc := &ir.Service{
		Name:        serviceName(opts, baseName(o.file), asString(info["title"])),
		Title:       asString(info["title"]),
		Description: asString(info["description"]),
		Version:     asString(info["version"]),
		Servers:     o.servers(),
		Security:    o.securitySchemes(),
	}
	if wh := asMap(o.doc["webhooks"]); len(wh) > 0 {
		for _, k := range slices.Sorted(maps.Keys(wh)) {
			o.d.add("webhook-skipped", "/webhooks/"+esc(k), "webhook %q is a request the API sends, not an operation; skipped", k)
		}
	}
	paths := asMap(o.doc["paths"])
	if paths == nil && o.doc["paths"] != nil {
		o.d.add("bad-paths", "/paths", "\"paths\" is not an object")
	}
	names := ir.NewNamer()
	seen := map[string]string{}
	for _, path := range o.ord.keys("/paths", paths) {
		if strings.HasPrefix(path, "x-") {
			continue // an extension, not a path
		}
		itemPtr := "/paths/" + esc(path)
		item, ptr := o.deref(paths[path], itemPtr)
		if item == nil {
			continue
		}
		order := o.ord.keys(itemPtr, item)
		if ptr != itemPtr {
			order = o.ord.keys(ptr, item)
		}
		for _, m := range order {
			if !slices.Contains(methods, m) {
				if !strings.HasPrefix(m, "x-") && !slices.Contains([]string{"parameters", "summary", "description", "servers", "$ref"}, m) {
					o.d.add("unsupported-method", itemPtr+"/"+esc(m), "path item key %q is not an HTTP method this compiler knows; skipped", m)
				}
				continue
			}
			op := asMap(item[m])
			if op == nil {
				o.d.add("bad-operation", itemPtr+"/"+m, "operation is not an object; skipped")
				continue
			}
			tool := o.operation(path, m, item, ptr, op, itemPtr+"/"+m, names)
			if prev, dup := seen[string(tool.Wire)]; dup {
				o.d.add("duplicate-tool", tool.Pointer, "operation %q is also defined at %s; both are kept, this one renamed", tool.Wire, prev)
			}
			seen[string(tool.Wire)] = tool.Pointer
			svc.Tools = append(svc.Tools, tool)
		}
	}
	svc.Diagnostics = o.d.list
	return svc
}

// deref follows local $refs (of parameters, request bodies, responses, path
// items) to the object they name. nil when it cannot.
func (o *oas) deref(v any, ptr string) (map[string]any, string) {
	for range 32 {
		m := asMap(v)
		if m == nil {
			if v != nil {
				o.d.add("bad-object", ptr, "expected an object; skipped")
			}
			return nil, ptr
		}
		ref, ok := m["$ref"].(string)
		if !ok {
			return m, ptr
		}
		frag, local := strings.CutPrefix(ref, "#")
		if !local {
			o.d.add("unresolved-ref", ptr, "$ref %q points outside this document; skipped", ref)
			return nil, ptr
		}
		if strings.Contains(frag, "%") {
			if u, err := url.PathUnescape(frag); err == nil {
				frag = u
			}
		}
		target, found := lookup(o.doc, frag)
		if !found {
			o.d.add("unresolved-ref", ptr, "$ref %q does not resolve; skipped", ref)
			return nil, ptr
		}
		v, ptr = target, frag
	}
	o.d.add("unresolved-ref", ptr, "$ref chain too long or circular; skipped")
	return nil, ptr
}

func (o *oas) servers() []string {
	if o.v2 {
		host := asString(o.doc["host"])
		base := asString(o.doc["basePath"])
		if host == "" {
			if base == "" {
				return nil
			}
			return []string{base}
		}
		schemes := asSlice(o.doc["schemes"])
		if len(schemes) == 0 {
			schemes = []any{"https"}
		}
		var out []string
		for _, s := range schemes {
			out = append(out, asString(s)+"://"+host+strings.TrimSuffix(base, "/"))
		}
		return out
	}
	var out []string
	for i, s := range asSlice(o.doc["servers"]) {
		sm := asMap(s)
		u := asString(sm["url"])
		if u == "" {
			o.d.add("bad-server", "/servers/"+strconv.Itoa(i), "server has no url; skipped")
			continue
		}
		for name, v := range asMap(sm["variables"]) {
			def := asMap(v)["default"]
			if def == nil {
				o.d.add("bad-server", "/servers/"+strconv.Itoa(i)+"/variables/"+esc(name), "server variable %q has no default; left in the URL", name)
				continue
			}
			u = strings.ReplaceAll(u, "{"+name+"}", scalarString(def))
		}
		out = append(out, u)
	}
	return out
}

func scalarString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case nil:
		return ""
	default:
		if n, ok := v.(interface{ String() string }); ok {
			return n.String()
		}
	}
	return ""
}

func (o *oas) securitySchemes() []ir.SecurityScheme {
	var defs map[string]any
	base := "/components/securitySchemes"
	if o.v2 {
		defs, base = asMap(o.doc["securityDefinitions"]), "/securityDefinitions"
	} else {
		defs = asMap(asMap(o.doc["components"])["securitySchemes"])
	}
	var out []ir.SecurityScheme
	for _, name := range slices.Sorted(maps.Keys(defs)) {
		ptr := base + "/" + esc(name)
		s, _ := o.deref(defs[name], ptr)
		if s == nil {
			continue
		}
		sc := ir.SecurityScheme{Name: name}
		switch t := asString(s["type"]); t {
		case "basic":
			sc.Type = "basic"
		case "http":
			switch scheme := strings.ToLower(asString(s["scheme"])); scheme {
			case "bearer", "basic":
				sc.Type = scheme
			default:
				o.d.add("unsupported-security", ptr, "HTTP auth scheme %q is not supported; kept as type \"http\"", scheme)
				sc.Type = "http"
			}
		case "apiKey":
			sc.Type, sc.In, sc.Header = "apiKey", asString(s["in"]), asString(s["name"])
		case "oauth2", "openIdConnect":
			sc.Type = t
		default:
			o.d.add("unsupported-security", ptr, "security scheme type %q is not supported; kept as given", t)
			sc.Type = t
		}
		out = append(out, sc)
	}
	return out
}

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

func (o *oas) operation(path, method string, item map[string]any, itemPtr string, op map[string]any, opPtr string, names *ir.Namer) *ir.Tool {
	upper := strings.ToUpper(method)
	wire := strings.TrimSpace(asString(op["operationId"]))
	if wire == "" {
		wire = upper + " " + path
	}
	summary := strings.TrimSpace(asString(op["summary"]))
	tool := &ir.Tool{
		Wire:        ir.WireName(wire),
		Py:          names.Name(wire),
		Title:       summary,
		Description: joinDoc(summary, asString(op["description"])),
		Deprecated:  asBool(op["deprecated"]),
		Pointer:     opPtr,
		HTTP:        &ir.HTTPOp{Method: upper, Path: path},
	}
	switch upper {
	case "GET", "HEAD":
		tool.Annotations.ReadOnly = true
	case "PUT":
		tool.Annotations.Idempotent = true
	case "DELETE":
		tool.Annotations.Idempotent = true
		tool.Annotations.Destructive = true
	}
	if cb := asMap(op["callbacks"]); len(cb) > 0 {
		for _, k := range slices.Sorted(maps.Keys(cb)) {
			o.d.add("callback-skipped", opPtr+"/callbacks/"+esc(k), "callback %q is a request the API sends, not an operation; skipped", k)
		}
	}
	if op["servers"] != nil {
		o.d.add("operation-servers", opPtr+"/servers", "operation-level servers are not supported; the service's servers are used")
	} else if item["servers"] != nil {
		o.d.add("operation-servers", itemPtr+"/servers", "path-level servers are not supported; the service's servers are used")
	}
	tool.HTTP.Security = o.security(op)

	refs := refSet{}
	props := map[string]any{}
	origin := ir.Origin{}
	var required []any
	taken := map[string]bool{}
	pnames := ir.NewNamer()
	addParam := func(p *ir.Param, schema map[string]any, at string) {
		arg := p.Arg
		if taken[arg] {
			arg = string(p.In) + "_" + p.Arg
			if p.In == ir.InBodyWhole {
				arg = "body_" + p.Arg
			}
			for i := 2; taken[arg]; i++ {
				arg = string(p.In) + "_" + p.Arg + "_" + strconv.Itoa(i)
			}
		}
		taken[arg] = true
		p.Arg = arg
		p.Py = pnames.Name(arg)
		s := make(map[string]any, len(schema)+2)
		maps.Copy(s, schema)
		if p.Description != "" {
			s["description"] = p.Description
		}
		if p.Deprecated {
			s["deprecated"] = true
		}
		props[arg] = s
		if at != "" {
			origin["/properties/"+esc(arg)] = at
		}
		if p.Required {
			required = append(required, arg)
		}
		tool.Params = append(tool.Params, p)
	}

	var formData []rawParam
	var bodyRaw *rawParam
	for _, rp := range o.params(item, itemPtr, op, opPtr) {
		name, in := asString(rp.m["name"]), asString(rp.m["in"])
		switch in {
		case "path", "query", "header", "cookie":
		case "formData":
			if o.v2 {
				formData = append(formData, rp)
				continue
			}
			fallthrough
		case "body":
			if o.v2 {
				if bodyRaw != nil {
					// Swagger 2.0 allows one body parameter per operation.
					o.d.add("duplicate-body", rp.at, "a second body parameter %q; Swagger 2.0 allows one, the first (%q) is used", name, asString(bodyRaw.m["name"]))
					continue
				}
				rp := rp
				bodyRaw = &rp
				continue
			}
			fallthrough
		default:
			o.d.add("bad-parameter", rp.at, "parameter %q has unknown location %q; skipped", name, in)
			continue
		}
		if in == "header" && slices.Contains([]string{"accept", "content-type", "authorization"}, strings.ToLower(name)) {
			o.d.add("ignored-header", rp.at, "header parameter %q is set by the client (OpenAPI ignores it); skipped", name)
			continue
		}
		schema, at := o.paramSchema(rp, refs)
		p := &ir.Param{
			Arg:        name,
			Wire:       ir.WireName(name),
			In:         ir.Location(in),
			Required:   asBool(rp.m["required"]) || in == "path",
			Deprecated: asBool(rp.m["deprecated"]),
			Pointer:    "/parameters/" + in + "/" + esc(name),
		}
		p.Description = asString(rp.m["description"])
		if p.Description == "" {
			t, _ := o.target(schema, rp.ptr+"/schema")
			p.Description = asString(t["description"])
		}
		p.Style, p.Explode = o.style(rp, in)
		addParam(p, schema, at)
	}

	var body []bodyParam
	var bodyType string
	var spread bool
	if o.v2 {
		body, bodyType, spread = o.body2(op, bodyRaw, formData, refs)
	} else if op["requestBody"] != nil {
		body, bodyType, spread = o.body3(op["requestBody"], opPtr+"/requestBody", refs)
	}
	tool.HTTP.BodyType, tool.HTTP.BodySpread = bodyType, spread
	switch {
	case o.v2 && len(formData) > 0:
		tool.HTTP.BodyRequired = slices.ContainsFunc(body, func(b bodyParam) bool { return b.required })
	case o.v2:
		tool.HTTP.BodyRequired = bodyRaw != nil && asBool(bodyRaw.m["required"])
	case op["requestBody"] != nil:
		rb, _ := o.deref(op["requestBody"], opPtr+"/requestBody")
		tool.HTTP.BodyRequired = asBool(rb["required"])
	}
	for _, b := range body {
		p := &ir.Param{
			Arg:         b.wire,
			Wire:        ir.WireName(b.wire),
			In:          ir.InBody,
			Required:    b.required,
			Description: b.desc,
			Deprecated:  b.deprec,
			Pointer:     "/requestBody/properties/" + esc(b.wire),
		}
		if b.whole {
			p.In, p.Pointer = ir.InBodyWhole, "/requestBody"
		}
		addParam(p, b.schema, b.at)
	}

	input := ir.Schema{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		input["required"] = required
	}
	used := refSet{}
	for _, s := range props {
		collectRefs(s, used)
	}
	if defs := o.closure(used); defs != nil {
		input["$defs"] = defs
		o.placeDefs(origin, defs)
	}
	tool.Input, tool.InputOrigin = input, origin
	tool.Output, tool.OutputOrigin = o.output(op, opPtr)
	return tool
}

func joinDoc(summary, desc string) string {
	summary, desc = strings.TrimSpace(summary), strings.TrimSpace(desc)
	switch {
	case summary == "":
		return desc
	case desc == "", desc == summary:
		return summary
	case strings.HasPrefix(desc, strings.TrimRight(summary, ".")):
		return desc
	}
	return summary + "\n\n" + desc
}

// security lists the scheme names an operation accepts (any one suffices).
func (o *oas) security(op map[string]any) []string {
	reqs, ok := op["security"]
	if !ok {
		reqs = o.doc["security"]
	}
	var out []string
	for _, r := range asSlice(reqs) {
		for _, name := range slices.Sorted(maps.Keys(asMap(r))) {
			if !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
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

func (o *oas) body3(v any, ptr string, refs refSet) ([]bodyParam, string, bool) {
	rb, rbPtr := o.deref(v, ptr)
	if rb == nil {
		return nil, "", false
	}
	content := asMap(rb["content"])
	if len(content) == 0 {
		o.d.add("body-without-content", rbPtr, "request body has no content; no body parameter")
		return nil, "", false
	}
	mt := bestMediaType(content, true)
	sPtr := rbPtr + "/content/" + esc(mt) + "/schema"
	schema := asMap(asMap(content[mt])["schema"])
	return o.body(mt, schema, sPtr, asBool(rb["required"]), asString(rb["description"]), refs)
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
		o.d.add("body-content-type", ptr, "request body is only offered as %s; taken as one string parameter \"body\"", mt)
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
func (o *oas) body2(op map[string]any, bodyRaw *rawParam, formData []rawParam, refs refSet) ([]bodyParam, string, bool) {
	consumes := asSlice(op["consumes"])
	if consumes == nil {
		consumes = asSlice(o.doc["consumes"])
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
			if asString(rp.m["type"]) == "file" {
				mt = "multipart/form-data"
			}
			name := asString(rp.m["name"])
			s, at := o.paramSchema(rp, refs)
			out = append(out, bodyParam{wire: name, schema: s, at: at, required: asBool(rp.m["required"]), desc: asString(rp.m["description"]), deprec: asBool(rp.m["deprecated"])})
		}
		if bodyRaw != nil {
			o.d.add("bad-parameter", bodyRaw.at, "operation has both body and formData parameters; the body parameter is skipped")
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
	schema := asMap(bodyRaw.m["schema"])
	if schema == nil {
		o.d.add("bad-parameter", bodyRaw.ptr, "body parameter has no schema; taken as unconstrained")
	}
	return o.body(mt, schema, bodyRaw.ptr+"/schema", asBool(bodyRaw.m["required"]), asString(bodyRaw.m["description"]), refs)
}

// output is the JSON schema of the first 2xx response that has one, with
// its $defs, and where it is in the document; or nil.
func (o *oas) output(op map[string]any, opPtr string) (ir.Schema, ir.Origin) {
	responses := asMap(op["responses"])
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
			produces := asSlice(op["produces"])
			if produces == nil {
				produces = asSlice(o.doc["produces"])
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
			schema, sPtr = asMap(resp["schema"]), rPtr+"/schema"
		} else {
			content := asMap(resp["content"])
			mt := bestMediaType(content, false)
			if r := bodyRank(mt); mt == "" || r > 2 && r != 5 {
				continue
			}
			schema, sPtr = asMap(asMap(content[mt])["schema"]), rPtr+"/content/"+esc(mt)+"/schema"
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
			o.placeDefs(origin, defs)
		}
		return out, origin
	}
	return nil, nil
}
