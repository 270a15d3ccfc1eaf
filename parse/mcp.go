package parse

import (
	"os"
	"strconv"

	"github.com/codemode-dev/codemode/ir"
)

// MCPFile reads an MCP tools/list file and compiles it; see MCP.
func MCPFile(path string, opts Options) (*ir.Service, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, errorf(path, "%s", oneLine(unwrapPathErr(err)))
	}
	return MCP(path, data, opts)
}

func unwrapPathErr(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}

// MCP compiles MCP tools/list output. name is the source's file name (as
// given; used in errors and diagnostics, and, without its directory and
// extension, as the service name when the document names no server). data
// may be a bare array of tools, {"tools": [...]}, a JSON-RPC response whose
// result holds the tools, or a capture with "serverInfo" and "instructions"
// beside "tools".
func MCP(name string, data []byte, opts Options) (*ir.Service, error) {
	doc, ord, err := decodeJSON(name, data)
	if err != nil {
		return nil, err
	}
	svc, err := mcpService(name, doc, ord, opts)
	if err != nil {
		return nil, err
	}
	svc.Source = ir.Source{Kind: ir.SourceMCP, File: name, Digest: digest(data)}
	return svc, nil
}

// mcpDoc finds the tools array of an MCP document, its JSON pointer, and
// what the document says of its server (serverInfo/instructions).
func mcpDoc(file string, doc any) (tools []any, ptr string, server mcpServerObj, err error) {
	switch d := doc.(type) {
	case []any:
		return d, "", server, nil
	case map[string]any:
		env := readMCPEnvelope(d)
		if env.HasTools {
			s, ok := env.Tools.([]any)
			if !ok {
				return nil, "", server, errorf(file, "not an MCP tools/list document: \"tools\" is not an array")
			}
			return s, "/tools", env.Server, nil
		}
		if env.IsError {
			return nil, "", server, errorf(file, "JSON-RPC error response: %s", oneLine(env.ErrorMessage))
		}
		if env.Result != nil {
			if res := readMCPEnvelope(env.Result); res.HasTools {
				s, ok := res.Tools.([]any)
				if !ok {
					return nil, "", server, errorf(file, "not an MCP tools/list document: \"result.tools\" is not an array")
				}
				return s, "/result/tools", res.Server, nil
			}
		}
		return nil, "", server, errorf(file, "not an MCP tools/list document: no \"tools\" array")
	}
	return nil, "", server, errorf(file, "not an MCP tools/list document: top level is not an object or array")
}

func mcpService(file string, doc any, ord order, opts Options) (*ir.Service, error) {
	tools, base, server, err := mcpDoc(file, doc)
	if err != nil {
		return nil, err
	}
	svc := &ir.Service{
		Name:        serviceName(opts, server.Name, baseName(file)),
		Title:       server.Title,
		Description: server.Instructions,
		Version:     server.Version,
	}
	if svc.Title == "" {
		svc.Title = server.Name
	}
	d := &diags{file: file}
	names := ir.NewNamer()
	seen := map[string]string{}
	for i, t := range tools {
		ptr := base + "/" + strconv.Itoa(i)
		tm, ok := t.(map[string]any)
		if !ok {
			d.add(ir.DiagBadTool, ptr, "tool is not an object; skipped")
			continue
		}
		to := readMCPTool(tm)
		wire := to.Name
		if wire == "" {
			d.add(ir.DiagBadTool, ptr, "tool has no name; skipped")
			continue
		}
		if prev, dup := seen[wire]; dup {
			d.add(ir.DiagDuplicateTool, ptr, "tool %q is also defined at %s; both are kept, this one renamed", wire, prev)
		}
		seen[wire] = ptr
		svc.Tools = append(svc.Tools, mcpTool(to, ptr, ord, names, d))
	}
	svc.Diagnostics = d.list
	svc.Order = keyOrder(doc, ord)
	return svc, nil
}

func mcpTool(to mcpToolObj, ptr string, ord order, names *ir.Namer, d *diags) *ir.Tool {
	wire := to.Name
	tool := &ir.Tool{
		Wire:        ir.WireName(wire),
		Py:          names.Name(wire),
		Title:       to.Title,
		Description: to.Description,
		Pointer:     ptr,
		Annotations: ir.Annotations{
			ReadOnly:    to.Annotations.ReadOnly,
			Destructive: to.Annotations.Destructive,
			Idempotent:  to.Annotations.Idempotent,
			OpenWorld:   to.Annotations.OpenWorld,
		},
	}
	if tool.Title == "" {
		tool.Title = to.Annotations.Title
	}
	if to.Output != nil {
		tool.Output, tool.OutputOrigin = to.Output, ir.Origin{"": ptr + "/outputSchema"}
	} else if to.BadOutput {
		d.add(ir.DiagBadSchema, ptr+"/outputSchema", "outputSchema is not an object; ignored")
	}

	in := to.Input
	inPtr := ptr + "/inputSchema"
	switch {
	case in == nil:
		d.add(ir.DiagEmptyInputSchema, inPtr, "tool %q has no inputSchema object; taken as an object with no properties", wire)
		in = ir.Schema{"type": "object", "properties": map[string]any{}}
	case in["type"] == nil && in["properties"] == nil && in["$ref"] == nil && in["allOf"] == nil && in["anyOf"] == nil && in["oneOf"] == nil:
		d.add(ir.DiagEmptyInputSchema, inPtr, "inputSchema of tool %q has no \"type\" and no \"properties\"; taken as an object with no properties", wire)
		fixed := ir.Schema{"type": "object", "properties": map[string]any{}}
		for _, k := range []string{"$defs", "definitions"} {
			if v, ok := in[k]; ok {
				fixed[k] = v
			}
		}
		in = fixed
	case in["type"] != nil && in["type"] != "object":
		d.add(ir.DiagBadInputSchema, inPtr+"/type", "inputSchema of tool %q has type %v, not \"object\"", wire, in["type"])
	}
	tool.Input, tool.InputOrigin = in, ir.Origin{"": inPtr}

	// The properties to list: the schema's own, or those of a local $ref
	// it consists of.
	props, propsPtr := asMap(in["properties"]), inPtr+"/properties"
	required := stringSet(in["required"])
	if props == nil {
		if ref := asString(in["$ref"]); len(ref) > 1 && ref[0] == '#' {
			if target, ok := lookup(in, ref[1:]); ok {
				tm := asMap(target)
				props, propsPtr = asMap(tm["properties"]), inPtr+ref[1:]+"/properties"
				required = stringSet(tm["required"])
			}
		}
	}
	if props == nil && in["properties"] != nil {
		d.add(ir.DiagBadInputSchema, propsPtr, "properties of tool %q is not an object", wire)
	}
	if props == nil && (in["allOf"] != nil || in["anyOf"] != nil || in["oneOf"] != nil) {
		d.add(ir.DiagUnsupportedInputSchema, inPtr, "inputSchema of tool %q combines schemas (allOf/anyOf/oneOf) at the top; its arguments are not listed as parameters", wire)
	}
	pnames := ir.NewNamer()
	for _, key := range ord.keys(propsPtr, props) {
		ps, _ := props[key].(map[string]any)
		p := &ir.Param{
			Arg:      key,
			Wire:     ir.WireName(key),
			Py:       pnames.Name(key),
			In:       ir.InArg,
			Required: required[key],
			Ref:      ir.ParamRef("/properties/" + esc(key)),
		}
		if ps != nil {
			pr := readMCPProperty(ps)
			p.Description, p.Deprecated = pr.Description, pr.Deprecated
		}
		tool.Params = append(tool.Params, p)
	}
	return tool
}
