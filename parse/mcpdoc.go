package parse

// The skeleton of an MCP tools/list document (its envelope, serverInfo,
// each tool's name, title, description and annotations) is read from the
// decoded tree into these small structs once, as the OpenAPI skeleton is
// (oasdoc.go); schemas stay raw JSON Schema. A field of the wrong JSON type
// reads as absent.

// mcpEnvelope is the object around the tools: {"tools": [...]}, a JSON-RPC
// response, or a capture with serverInfo and instructions.
type mcpEnvelope struct {
	Tools        any  // "tools", raw (it must be an array)
	HasTools     bool // "tools" is given
	ErrorMessage string
	IsError      bool           // "error" is an object
	Result       map[string]any // "result", when an object
	Server       mcpServerObj
}

func readMCPEnvelope(m map[string]any) mcpEnvelope {
	tools, hasTools := m["tools"]
	e := mcpEnvelope{Tools: tools, HasTools: hasTools, Result: asMap(m["result"]), Server: readMCPServer(m)}
	if em := asMap(m["error"]); em != nil {
		e.IsError, e.ErrorMessage = true, asString(em["message"])
	}
	return e
}

// mcpServerObj is what a capture says of its server: serverInfo and
// instructions.
type mcpServerObj struct {
	Name, Title, Version, Instructions string
}

func readMCPServer(m map[string]any) mcpServerObj {
	info := asMap(m["serverInfo"])
	return mcpServerObj{
		Name: asString(info["name"]), Title: asString(info["title"]), Version: asString(info["version"]),
		Instructions: asString(m["instructions"]),
	}
}

// mcpToolObj is one Tool of tools/list.
type mcpToolObj struct {
	Name, Title, Description string
	Annotations              mcpAnnotationsObj
	Input                    map[string]any // "inputSchema", when an object
	Output                   map[string]any // "outputSchema", when an object
	BadOutput                bool           // "outputSchema" is given, not null, and not an object
}

// mcpAnnotationsObj are a tool's annotations (hints).
type mcpAnnotationsObj struct {
	Title                                        string
	ReadOnly, Destructive, Idempotent, OpenWorld bool
}

func readMCPTool(m map[string]any) mcpToolObj {
	ann := asMap(m["annotations"])
	t := mcpToolObj{
		Name: asString(m["name"]), Title: asString(m["title"]), Description: asString(m["description"]),
		Annotations: mcpAnnotationsObj{
			Title:    asString(ann["title"]),
			ReadOnly: asBool(ann["readOnlyHint"]), Destructive: asBool(ann["destructiveHint"]),
			Idempotent: asBool(ann["idempotentHint"]), OpenWorld: asBool(ann["openWorldHint"]),
		},
		Input:  asMap(m["inputSchema"]),
		Output: asMap(m["outputSchema"]),
	}
	if out, ok := m["outputSchema"]; ok && out != nil && t.Output == nil {
		t.BadOutput = true
	}
	return t
}

// mcpPropertyObj is what a parameter takes from its property schema.
type mcpPropertyObj struct {
	Description string
	Deprecated  bool
}

func readMCPProperty(m map[string]any) mcpPropertyObj {
	return mcpPropertyObj{Description: asString(m["description"]), Deprecated: asBool(m["deprecated"])}
}
