package parse

// The skeleton of an OpenAPI document (operations, parameters, bodies,
// responses) is read from the decoded tree into these small structs once,
// where it is met; schemas stay raw JSON Schema (map[string]any), since they
// are rewritten in place and shared (schema.go). A field of the wrong JSON
// type reads as absent, which is how the compiler takes it.

// operationObj is an Operation Object.
type operationObj struct {
	OperationID, Summary, Description string
	Deprecated                        bool
	Parameters                        []any          // parameter objects or $refs
	RequestBody                       any            // an object or a $ref; nil when absent
	Responses                         map[string]any // status code → response or $ref
	Callbacks                         map[string]any
	HasServers                        bool
	Security                          []any // security requirements
	HasSecurity                       bool  // "security" is given (an empty list means none)
	Consumes, Produces                []any // Swagger 2.0; nil when absent
}

func readOperation(m map[string]any) operationObj {
	security, hasSecurity := m["security"]
	return operationObj{
		OperationID: asString(m["operationId"]),
		Summary:     asString(m["summary"]),
		Description: asString(m["description"]),
		Deprecated:  asBool(m["deprecated"]),
		Parameters:  asSlice(m["parameters"]),
		RequestBody: m["requestBody"],
		Responses:   asMap(m["responses"]),
		Callbacks:   asMap(m["callbacks"]),
		HasServers:  m["servers"] != nil,
		Security:    asSlice(security),
		HasSecurity: hasSecurity,
		Consumes:    asSlice(m["consumes"]),
		Produces:    asSlice(m["produces"]),
	}
}

// pathItemObj is a Path Item Object; its operations are read in source
// order from the raw object.
type pathItemObj struct {
	Parameters []any
	HasServers bool
}

func readPathItem(m map[string]any) pathItemObj {
	return pathItemObj{Parameters: asSlice(m["parameters"]), HasServers: m["servers"] != nil}
}

// parameterObj is a Parameter Object (3.x) or a Swagger 2.0 parameter,
// which is its own schema (m).
type parameterObj struct {
	Name, In, Description string
	Required, Deprecated  bool
	Style                 string
	Explode               *bool
	Schema                any  // 3.x "schema", raw
	HasSchema             bool // "schema" is given, even if not an object
	Content               map[string]any
	Type                  string // 2.0
	CollectionFormat      string // 2.0
	m                     map[string]any
}

func readParameter(m map[string]any) parameterObj {
	schema, hasSchema := m["schema"]
	p := parameterObj{
		Name: asString(m["name"]), In: asString(m["in"]), Description: asString(m["description"]),
		Required: asBool(m["required"]), Deprecated: asBool(m["deprecated"]),
		Style: asString(m["style"]), Schema: schema, HasSchema: hasSchema, Content: asMap(m["content"]),
		Type: asString(m["type"]), CollectionFormat: asString(m["collectionFormat"]), m: m,
	}
	if e, ok := m["explode"].(bool); ok {
		p.Explode = &e
	}
	return p
}

// requestBodyObj is a Request Body Object.
type requestBodyObj struct {
	Description string
	Required    bool
	Content     map[string]any // media type → Media Type Object
}

func readRequestBody(m map[string]any) requestBodyObj {
	return requestBodyObj{Description: asString(m["description"]), Required: asBool(m["required"]), Content: asMap(m["content"])}
}

// responseObj is a Response Object: a 3.x one's content, a 2.0 one's schema.
type responseObj struct {
	Content map[string]any
	Schema  map[string]any
}

func readResponse(m map[string]any) responseObj {
	return responseObj{Content: asMap(m["content"]), Schema: asMap(m["schema"])}
}

// mediaSchema is the schema of a content map's entry for mt, nil when none.
func mediaSchema(content map[string]any, mt string) map[string]any {
	return asMap(asMap(content[mt])["schema"])
}
