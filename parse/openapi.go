package parse

import (
	"bytes"
	"maps"
	"net/url"
	"os"
	"reflect"
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
	o.top = readDocument(root, o.v2)
	// The source's digest is hashed beside the operations' loop, which
	// leaves the other core idle between the tools it hands on (a
	// megabyte takes about half a millisecond).
	digestOf := make(chan string, 1)
	go func() { digestOf <- digest(data) }()
	svc := o.service(opts)
	svc.Source = ir.Source{Kind: ir.SourceOpenAPI, File: name, Digest: <-digestOf}
	svc.Order = keyOrder(doc, ord)
	return svc, nil
}

// oas is one OpenAPI document being compiled.
type oas struct {
	file    string
	doc     map[string]any // the decoded document, which $refs point into
	top     documentObj
	ord     order
	v2      bool
	d       *diags
	defsPtr string              // "/components/schemas" or "/definitions"
	defs    map[string]any      // the component schemas
	walked  map[string][]string // schema pointer -> $defs it references
	synth   map[string]string   // $defs name -> pointer, for other local refs
	// entries are the component schemas' $defs entries met so far;
	// closures counts the closures taken (see defEntry.mark).
	entries  map[string]*defEntry
	closures int
	// closed is the $defs object of every closure taken with entries,
	// by its sorted references joined with NULs.
	closed map[string]map[string]any
	// params2 is each Swagger 2.0 parameter made into a schema, by where
	// it is defined; props each parameter's property schema, by what it
	// is made of (see addParam).
	params2 map[string]param2
	// defsOrigin places every $defs entry the tools carry (the service's
	// DefsOrigin).
	defsOrigin ir.Origin
	props      map[propKey]map[string]any
	// queue and found are closure's buffers, kept from one to the next.
	queue []string
	found []*defEntry
	// refTargets is what each local $ref deref has followed names, with
	// its pointer: the parameters and responses of a large API are mostly
	// references to a few shared ones, each looked up again by every
	// operation that lists it.
	refTargets map[string]refTarget
	// paramObjs is each parameter reached through a $ref, read (its
	// object is never changed, so reading it again gives the same).
	paramObjs map[*byte]parameterObj
}

// refTarget is where a $ref led: the object and its pointer.
type refTarget struct {
	m   map[string]any
	ptr string
}

var methods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

func (o *oas) service(opts Options) *ir.Service {
	svc := &ir.Service{
		Name:        serviceName(opts, baseName(o.file), o.top.Title),
		Title:       o.top.Title,
		Description: o.top.Description,
		Version:     o.top.Version,
		Servers:     o.servers(),
		Security:    o.securitySchemes(),
	}
	if wh := o.top.Webhooks; len(wh) > 0 {
		for _, k := range slices.Sorted(maps.Keys(wh)) {
			o.d.add(ir.DiagWebhookSkipped, "/webhooks/"+esc(k), "webhook %q is a request the API sends, not an operation; skipped", k)
		}
	}
	paths := o.top.Paths
	if o.top.PathsNotObject {
		o.d.add(ir.DiagBadPaths, "/paths", "\"paths\" is not an object")
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
					o.d.add(ir.DiagUnsupportedMethod, itemPtr+"/"+esc(m), "path item key %q is not an HTTP method this compiler knows; skipped", m)
				}
				continue
			}
			op := asMap(item[m])
			if op == nil {
				o.d.add(ir.DiagBadOperation, itemPtr+"/"+m, "operation is not an object; skipped")
				continue
			}
			tool := o.operation(path, m, readPathItem(item), ptr, readOperation(op), itemPtr+"/"+m, names)
			if prev, dup := seen[string(tool.Wire)]; dup {
				o.d.add(ir.DiagDuplicateTool, tool.Pointer, "operation %q is also defined at %s; both are kept, this one renamed", tool.Wire, prev)
			}
			seen[string(tool.Wire)] = tool.Pointer
			svc.Tools = append(svc.Tools, tool)
			if opts.Parsed != nil {
				opts.Parsed(tool)
			}
		}
	}
	svc.Diagnostics = o.d.list
	svc.DefsOrigin = o.defsOrigin
	return svc
}

// deref follows local $refs (of parameters, request bodies, responses, path
// items) to the object they name. nil when it cannot.
func (o *oas) deref(v any, ptr string) (map[string]any, string) {
	for range 32 {
		m := asMap(v)
		if m == nil {
			if v != nil {
				o.d.add(ir.DiagBadObject, ptr, "expected an object; skipped")
			}
			return nil, ptr
		}
		ref, ok := m["$ref"].(string)
		if !ok {
			return m, ptr
		}
		if t, ok := o.refTargets[ref]; ok {
			v, ptr = t.m, t.ptr
			continue
		}
		frag, local := strings.CutPrefix(ref, "#")
		if !local {
			o.d.add(ir.DiagUnresolvedRef, ptr, "$ref %q points outside this document; skipped", ref)
			return nil, ptr
		}
		if strings.Contains(frag, "%") {
			if u, err := url.PathUnescape(frag); err == nil {
				frag = u
			}
		}
		target, found := lookup(o.doc, frag)
		if !found {
			o.d.add(ir.DiagUnresolvedRef, ptr, "$ref %q does not resolve; skipped", ref)
			return nil, ptr
		}
		if m := asMap(target); m != nil {
			if o.refTargets == nil {
				o.refTargets = map[string]refTarget{}
			}
			o.refTargets[ref] = refTarget{m, frag}
		}
		v, ptr = target, frag
	}
	o.d.add(ir.DiagUnresolvedRef, ptr, "$ref chain too long or circular; skipped")
	return nil, ptr
}

func (o *oas) operation(path, method string, item pathItemObj, itemPtr string, op operationObj, opPtr string, names *ir.Namer) *ir.Tool {
	upper := strings.ToUpper(method)
	wire := strings.TrimSpace(op.OperationID)
	if wire == "" {
		wire = upper + " " + path
	}
	summary := strings.TrimSpace(op.Summary)
	tool := &ir.Tool{
		Wire:        ir.WireName(wire),
		Py:          names.Name(wire),
		Title:       summary,
		Description: joinDoc(summary, op.Description),
		Deprecated:  op.Deprecated,
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
	if cb := op.Callbacks; len(cb) > 0 {
		for _, k := range slices.Sorted(maps.Keys(cb)) {
			o.d.add(ir.DiagCallbackSkipped, opPtr+"/callbacks/"+esc(k), "callback %q is a request the API sends, not an operation; skipped", k)
		}
	}
	if op.HasServers {
		o.d.add(ir.DiagOperationServers, opPtr+"/servers", "operation-level servers are not supported; the service's servers are used")
	} else if item.HasServers {
		o.d.add(ir.DiagOperationServers, itemPtr+"/servers", "path-level servers are not supported; the service's servers are used")
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
		props[arg] = o.property(schema, p.Description, p.Deprecated)
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
		name, in := rp.Name, rp.In
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
					o.d.add(ir.DiagDuplicateBody, rp.at, "a second body parameter %q; Swagger 2.0 allows one, the first (%q) is used", name, bodyRaw.Name)
					continue
				}
				rp := rp
				bodyRaw = &rp
				continue
			}
			fallthrough
		default:
			o.d.add(ir.DiagBadParameter, rp.at, "parameter %q has unknown location %q; skipped", name, in)
			continue
		}
		if in == "header" && slices.Contains([]string{"accept", "content-type", "authorization"}, strings.ToLower(name)) {
			o.d.add(ir.DiagIgnoredHeader, rp.at, "header parameter %q is set by the client (OpenAPI ignores it); skipped", name)
			continue
		}
		schema, at := o.paramSchema(rp, refs)
		p := &ir.Param{
			Arg:        name,
			Wire:       ir.WireName(name),
			In:         ir.Location(in),
			Required:   rp.Required || in == "path",
			Deprecated: rp.Deprecated,
			Ref:        ir.ParamRef("/parameters/" + in + "/" + esc(name)),
		}
		p.Description = rp.Description
		if p.Description == "" {
			t, _ := o.target(schema, rp.ptr+"/schema")
			p.Description = asString(t["description"])
		}
		p.Style, p.Explode = o.style(rp, in)
		addParam(p, schema, at)
	}

	var body []bodyParam
	var bodyType string
	var spread, bodyRequired bool
	if o.v2 {
		body, bodyType, spread = o.body2(op, bodyRaw, formData, refs)
	} else if op.RequestBody != nil {
		body, bodyType, spread, bodyRequired = o.body3(op.RequestBody, opPtr+"/requestBody", refs)
	}
	tool.HTTP.BodyType, tool.HTTP.BodySpread = bodyType, spread
	switch {
	case o.v2 && len(formData) > 0:
		tool.HTTP.BodyRequired = slices.ContainsFunc(body, func(b bodyParam) bool { return b.required })
	case o.v2:
		tool.HTTP.BodyRequired = bodyRaw != nil && bodyRaw.Required
	default:
		tool.HTTP.BodyRequired = bodyRequired
	}
	for _, b := range body {
		p := &ir.Param{
			Arg:         b.wire,
			Wire:        ir.WireName(b.wire),
			In:          ir.InBody,
			Required:    b.required,
			Description: b.desc,
			Deprecated:  b.deprec,
			Ref:         ir.ParamRef("/requestBody/properties/" + esc(b.wire)),
		}
		if b.whole {
			p.In, p.Ref = ir.InBodyWhole, "/requestBody"
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
	}
	tool.Input, tool.InputOrigin = input, origin
	tool.Output, tool.OutputOrigin = o.output(op, opPtr)
	return tool
}

// propKey is what a parameter's property schema is made of: the schema
// (by identity), the description and whether it is deprecated.
type propKey struct {
	schema     *byte
	desc       string
	deprecated bool
}

// property is a parameter's entry under the tool's "properties": schema
// with the parameter's description and deprecation. The operations that
// share a parameter share one map (read-only, as the schemas in it are).
func (o *oas) property(schema map[string]any, desc string, deprecated bool) map[string]any {
	key := propKey{mapID(schema), desc, deprecated}
	if s, ok := o.props[key]; ok && schema != nil {
		return s
	}
	s := make(map[string]any, len(schema)+2)
	maps.Copy(s, schema)
	if desc != "" {
		s["description"] = desc
	}
	if deprecated {
		s["deprecated"] = true
	}
	if schema != nil {
		if o.props == nil {
			o.props = map[propKey]map[string]any{}
		}
		o.props[key] = s
	}
	return s
}

func mapID(m map[string]any) *byte { return (*byte)(reflect.ValueOf(m).UnsafePointer()) }

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
func (o *oas) security(op operationObj) []string {
	reqs := op.Security
	if !op.HasSecurity {
		reqs = o.top.Security
	}
	var out []string
	for _, r := range reqs {
		for _, name := range slices.Sorted(maps.Keys(asMap(r))) {
			if !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	return out
}
