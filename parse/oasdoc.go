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

// documentObj is the top of an OpenAPI 3.x or Swagger 2.0 document.
type documentObj struct {
	Title, Description, Version string // info
	Paths                       map[string]any
	PathsNotObject              bool // "paths" is given but is no object
	Webhooks                    map[string]any
	Servers                     []any // 3.x
	Host, BasePath              string
	Schemes                     []any // 2.0
	Security                    []any
	Consumes, Produces          []any          // 2.0
	SecuritySchemes             map[string]any // components.securitySchemes (3.x), securityDefinitions (2.0)
}

func readDocument(m map[string]any, v2 bool) documentObj {
	info := asMap(m["info"])
	d := documentObj{
		Title: asString(info["title"]), Description: asString(info["description"]), Version: asString(info["version"]),
		Paths: asMap(m["paths"]), Webhooks: asMap(m["webhooks"]), Servers: asSlice(m["servers"]),
		Host: asString(m["host"]), BasePath: asString(m["basePath"]), Schemes: asSlice(m["schemes"]),
		Security: asSlice(m["security"]), Consumes: asSlice(m["consumes"]), Produces: asSlice(m["produces"]),
		SecuritySchemes: asMap(asMap(m["components"])["securitySchemes"]),
	}
	d.PathsNotObject = d.Paths == nil && m["paths"] != nil
	if v2 {
		d.SecuritySchemes = asMap(m["securityDefinitions"])
	}
	return d
}

// serverObj is a Server Object.
type serverObj struct {
	URL       string
	Variables map[string]any // name → Server Variable Object
}

func readServer(m map[string]any) serverObj {
	return serverObj{URL: asString(m["url"]), Variables: asMap(m["variables"])}
}

// securitySchemeObj is a Security Scheme Object.
type securitySchemeObj struct {
	Type, Scheme, In, Name string
}

func readSecurityScheme(m map[string]any) securitySchemeObj {
	return securitySchemeObj{Type: asString(m["type"]), Scheme: asString(m["scheme"]), In: asString(m["in"]), Name: asString(m["name"])}
}
