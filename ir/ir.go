package ir

import (
	"encoding/json"
	"sort"
	"strings"
)

// ServiceName is a service's Python module name: api/<ServiceName>.py.
type ServiceName string

// WireName is a name exactly as the upstream spells it: an MCP tool name, an
// OpenAPI operationId (or "METHOD /path"), a parameter's HTTP name.
type WireName string

// PyIdent is a valid Python identifier chosen by the naming rules.
type PyIdent string

// Schema is a JSON Schema object as decoded by encoding/json with UseNumber:
// numbers stay json.Number so no precision is lost and output is stable.
type Schema = map[string]any

// SourceKind says what a service was compiled from.
type SourceKind string

const (
	SourceMCP     SourceKind = "mcp"
	SourceOpenAPI SourceKind = "openapi"
)

// Source records where a service came from, for the manifest and for errors.
type Source struct {
	Kind SourceKind `json:"kind"`
	// Exactly one of File, Command and URL is set.
	File    string `json:"file,omitempty"`
	Command string `json:"command,omitempty"`
	URL     string `json:"url,omitempty"`
	// Digest is "sha256:<hex>" of the bytes the service was compiled from
	// (for a live server: the canonical JSON of its tool list).
	Digest string `json:"digest"`
}

// Service is one api/<Name>.py file.
type Service struct {
	Name        ServiceName
	Title       string // human title: server name, spec info.title
	Description string // server instructions, spec info.description
	Version     string // server or spec version, informational
	Source      Source
	Servers     []string         // OpenAPI server URLs, variables substituted with defaults
	Security    []SecurityScheme // OpenAPI security schemes the operations use
	Tools       []*Tool          // in source order
	Objects     []*ObjectType    // named object types, filled by Resolve
	Diagnostics []Diagnostic     // what could not be represented
	// Order is the source order of the keys of the document's
	// "properties" objects, so object types print fields as the source wrote them.
	Order Order
	// DefsOrigin places each "$defs" entry the tools' schemas carry
	// ("/$defs/<name>") in the source document. A name is the same
	// definition in every tool of a document, so it is placed here once,
	// not in each tool's Origins; nil when the tools' $defs are not read
	// from one document (MCP).
	DefsOrigin Origin
	Extra      map[string]string // free-form facts for the module docstring, sorted on output
}

// Order maps a "properties" object, by its JSON pointer in the service's
// source document, to its keys in source order. Tools find their part of it
// through their Origins; an object it does not list prints sorted.
type Order map[string][]string

// keys returns m's keys in the order recorded for the object at ptr, else
// sorted; ordered says whether ptr has a recorded order.
func (o Order) keys(ptr string, m map[string]any) (keys []string, ordered bool) {
	ks, ordered := o[ptr]
	if ordered && len(ks) == len(m) && hasAll(m, ks) {
		return ks, true
	}
	keys = make([]string, 0, len(m))
	for key := range m {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	return keys, ordered
}

func hasAll(m map[string]any, keys []string) bool {
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			return false
		}
	}
	return true
}

// Origin says where the parts of a tool's Input or Output schema were
// written in the service's source document. It maps a JSON pointer into the
// schema ("" for the whole, "/properties/<arg>", "/$defs/<name>") to a JSON
// pointer into the source; a part it does not list is placed by its longest
// listed prefix. Resolve uses it to find a schema's key order (Order) and to
// know two tools' references to one definition for the same thing.
type Origin map[string]string

// ParamRef names a parameter of a tool, as the enrichment log, the
// manifest and diagnostics do: for MCP it is a JSON pointer into the input
// schema (/properties/limit); for OpenAPI it is /parameters/<in>/<name>,
// /requestBody/properties/<name> or /requestBody, which address nothing in
// the document (a parameter's place there is an index, and a body's
// properties sit under its media type). It is a name, not a pointer: use
// it to find the parameter, never to walk a document.
type ParamRef string

// DocPointer is the pointer into the source document of the schema at ptr
// (a pointer into the tool's schema), when o places it.
func (o Origin) DocPointer(ptr string) (string, bool) { return docPointer(o, nil, ptr) }

// docPointer is DocPointer over o and defs (a service's DefsOrigin) as
// one Origin: they place different parts of a schema.
func docPointer(o, defs Origin, ptr string) (string, bool) {
	for p := ptr; ; {
		if src, ok := o[p]; ok {
			return src + ptr[len(p):], true
		}
		if src, ok := defs[p]; ok {
			return src + ptr[len(p):], true
		}
		i := strings.LastIndexByte(p, '/')
		if i < 0 {
			return "", false
		}
		p = p[:i]
	}
}

// SecurityScheme is an OpenAPI security scheme reduced to what a client injects.
type SecurityScheme struct {
	Name   string `json:"name"`             // key in components.securitySchemes
	Type   string `json:"type"`             // "bearer", "basic", "apiKey", "oauth2", "openIdConnect"
	In     string `json:"in,omitempty"`     // apiKey: "header", "query", "cookie"
	Header string `json:"header,omitempty"` // apiKey: the header/query/cookie name
}

// Tool is one callable: an MCP tool or an OpenAPI operation.
type Tool struct {
	Wire        WireName
	Py          PyIdent
	Title       string
	Description string
	Deprecated  bool
	Pointer     string // JSON pointer of the tool in its source document

	// Params in call order as parsed: emit puts required ones first.
	Params []*Param

	// Input is the JSON Schema of the arguments object (keys are Param.Arg);
	// it is self-contained ($defs inlined). Original is Input before enrich.
	Input    Schema
	Original Schema
	// Output is the schema of a successful result (MCP outputSchema, the
	// OpenAPI 2xx JSON response), or nil.
	Output Schema
	// InputOrigin and OutputOrigin place Input and Output in the source
	// document (their $defs entries are placed by Service.DefsOrigin); nil
	// when they were not read from one.
	InputOrigin, OutputOrigin Origin

	// Observed is the schema of the results the runtime has seen, for a
	// tool with no Output (inferred from real values: every key optional);
	// nil when none was seen. Resolve types Result from it, marked
	// ResultObserved. It is not part of the tool's pin.
	Observed Schema

	Result         *Type // filled by Resolve from Output (else Observed); nil means Any
	ResultObserved bool  // Result comes from Observed

	Annotations Annotations
	HTTP        *HTTPOp // set for OpenAPI operations
}

// Annotations are the MCP tool hints that matter to the runtime.
type Annotations struct {
	ReadOnly    bool `json:"readOnly,omitempty"`
	Destructive bool `json:"destructive,omitempty"`
	Idempotent  bool `json:"idempotent,omitempty"`
	OpenWorld   bool `json:"openWorld,omitempty"`
}

// HTTPOp is how an OpenAPI operation goes on the wire.
type HTTPOp struct {
	Method string `json:"method"` // upper case
	Path   string `json:"path"`   // template, e.g. /pets/{petId}
	// BodyType is the request body's media type, "" when there is none.
	BodyType string `json:"bodyType,omitempty"`
	// BodySpread is true when the body's top-level properties are Params of
	// their own (In == InBody); false when one Param (In == InBodyWhole)
	// carries the whole body.
	BodySpread bool `json:"bodySpread,omitempty"`
	// BodyRequired says the operation needs a body even when no body
	// argument is given (an empty object then); otherwise a spread body is
	// sent only when some body argument is.
	BodyRequired bool     `json:"bodyRequired,omitempty"`
	Security     []string `json:"security,omitempty"` // scheme names, any one suffices
}

// Location says where a parameter travels.
type Location string

const (
	InArg       Location = "arg"    // MCP: a key of the arguments object
	InPath      Location = "path"   // OpenAPI path parameter
	InQuery     Location = "query"  // OpenAPI query parameter
	InHeader    Location = "header" // OpenAPI header parameter
	InCookie    Location = "cookie" // OpenAPI cookie parameter
	InBody      Location = "body"   // a top-level property of the request body
	InBodyWhole Location = "bodyWhole"
)

// Param is one argument of a tool.
type Param struct {
	// Arg is the key of this parameter in the tool's arguments object
	// (run_tool("name", {Arg: value})): unique within the tool. For MCP it is
	// the wire name; for OpenAPI it is the wire name unless two locations
	// share it.
	Arg  string
	Wire WireName // the name on the wire (HTTP name, body property, MCP key)
	Py   PyIdent  // the Python parameter name
	In   Location

	Required    bool
	Description string
	Deprecated  bool
	// Ref names the parameter the way the enrichment log does.
	Ref ParamRef

	Style   string `json:",omitempty"` // OpenAPI serialization style
	Explode *bool  `json:",omitempty"`

	// Enriched lists the keywords enrich added to this parameter's schema
	// from its description ("enum", "maximum", "required", ...), so the
	// docstring can say which constraints came from prose.
	Enriched []string `json:",omitempty"`

	Type *Type // filled by Resolve from Input.properties[Arg]
}

// Diagnostic is something the compiler could not represent, with where.
type Diagnostic struct {
	Code    DiagCode // stable name, e.g. DiagUnresolvedRef ("unresolved-ref")
	File    string   // source file (or command/url)
	Pointer string   // JSON pointer into the source document
	Message string
}

func (d Diagnostic) String() string {
	return "warning: " + d.File + "#" + d.Pointer + ": " + d.Message + " [" + string(d.Code) + "]"
}

// Kind says what a Type is.
type Kind int

const (
	KindAny Kind = iota
	KindNone
	KindBool
	KindInt
	KindFloat
	KindStr
	KindBytes
	KindList    // Items
	KindTuple   // Elems (prefixItems)
	KindMap     // dict[str, Values]
	KindObject  // Object
	KindLiteral // Literals
	KindUnion   // Variants
)

// Type is the Python view of a JSON Schema. Resolve builds it; emit prints it.
type Type struct {
	Kind     Kind
	Items    *Type
	Elems    []*Type
	Values   *Type
	Object   *ObjectType
	Literals []any // JSON scalars: string, json.Number, bool, nil
	Variants []*Type
	Nullable bool // prints as "X | None"

	// Docs carried into docstrings.
	Description   string
	Format        string
	Default       json.RawMessage // compact JSON, nil when none
	Deprecated    bool
	Pattern       string
	Min, Max      *json.Number
	ExclusiveMin  *json.Number
	ExclusiveMax  *json.Number
	MinLength     *int64
	MaxLength     *int64
	MinItems      *int64
	MaxItems      *int64
	EnumDocs      []EnumDoc // per-value descriptions
	Discriminator string    // property name that selects the variant
}

// EnumDoc documents one allowed value.
type EnumDoc struct {
	Value any
	Doc   string
}

// ObjectType is a named object type (a TypedDict in the stubs).
type ObjectType struct {
	Name        PyIdent
	Description string
	Fields      []*Field
	Extra       *Type // additionalProperties schema, nil when closed or absent
	Pointer     string
}

// Field is one property of an ObjectType; Wire is the dict key.
type Field struct {
	Wire        string
	Required    bool
	ReadOnly    bool
	Description string
	Type        *Type
}
