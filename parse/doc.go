// Package parse turns an API description into an *ir.Service.
//
// Three kinds of source are read:
//
//   - MCP tools/list output, from a file or bytes (MCP, MCPFile): a bare
//     tools array, {"tools": [...]}, a JSON-RPC response envelope, or the
//     corpus capture format with serverInfo and instructions beside the tools.
//   - What a live MCP server listed (MCPListed): the {"tools": [...]}
//     bytes of every tools/list page and its initialize result. parse only
//     reads bytes; starting and listing the server is upstream.ListTools,
//     the one launcher gen, check, run and serve share.
//   - OpenAPI 3.0 and 3.1 documents and Swagger 2.0 documents, JSON or YAML
//     (OpenAPI, OpenAPIFile).
//
// parse fills every Tool's wire and Python names, documentation, source
// pointer, annotations, Params (in source order, with their locations and
// pointers), Input (a self-contained JSON Schema of the arguments object),
// Output and, for OpenAPI, HTTP. It does not derive Python types: Param.Type,
// Tool.Result and Service.Objects are left for Resolve.
//
// A document does not have to be valid to be compiled: whatever cannot be
// represented (an unresolved $ref, a body in a media type with no schema, a
// webhook) becomes an ir.Diagnostic with a JSON pointer into the source, and
// everything else is kept. Only a document that is not JSON/YAML, or not an
// MCP tool list or OpenAPI document at all, is an error (*Error), naming the
// file and the reason on one line.
//
// # Names
//
// Options.Service names the service when set. Otherwise an MCP file is named
// by its serverInfo.name (else the file's base name), a live server by its
// initialize result, and an OpenAPI document by its file's base name (else
// info.title). Tools are named by one ir.Namer per service and parameters by
// one per tool, in source order. An OpenAPI operation without an operationId
// has the wire name "METHOD /path".
//
// # Shared schemas
//
// OpenAPI component schemas are decoded once per document and placed, by
// reference, in the "$defs" of every tool that reaches them; the tools that
// reach the same definitions share one "$defs" object, and the operations
// that share a parameter (a $ref to it, or a Swagger 2.0 parameter) share
// its "properties" entry. Treat every schema under Tool.Input and
// Tool.Output as read-only: copy before changing (enrich replaces a
// parameter's entry with a changed copy). The top-level Input object and
// its "properties" object are each tool's own.
//
// # Swagger 2.0
//
// A 2.0 document goes through the same code as a 3.x one, which reads the
// few places where 2.0 differs (definitions, body and formData parameters,
// collectionFormat, consumes/produces, host/basePath/schemes, x-nullable,
// type "file") itself, so its diagnostics point into the user's file. It is
// not converted with kin-openapi's openapi2conv.ToV3 (v0.153), which was
// measured and rejected: on kubernetes-swagger.json decoding into
// openapi2.T alone takes ~260 ms, 2.7 times this package's whole compile
// (~100 ms), and decode, convert, marshal and compile take ~550 ms and
// 240 MB against 61 MB; ToV3 always resolves $refs with a loader and so
// fails the whole document on one unresolved or external $ref, and it also
// fails on two body parameters, a host with a path, an unknown OAuth2 flow,
// or a field of the wrong JSON type; and what it does produce needs fixing
// after (properties come back in map order, a query array without
// collectionFormat loses its csv default, no consumes becomes "*/*", form
// fields carry "x-formData-name"). TestOpenAPISwagger2Defaults pins these.
//
// # kin-openapi as the reference
//
// OpenAPI documents are read as JSON/YAML trees rather than through
// kin-openapi's loader, which is several times slower on the large specs
// (GitHub's 13 MB spec: ~2.5 s through encoding/json and ref resolution,
// against ~0.2 s here), needs a valid document, and cannot point into the
// user's file. kin-openapi is the oracle instead: the differential tests
// in oracle_test.go load every corpus document with it (3.x directly, 2.0
// through openapi2conv) and require parse to find the same operations,
// names, parameters (location and requiredness) and JSON body properties.
//
// # Order
//
// JSON objects decoded into maps lose their key order, so the decoders
// record it as they go (JSON token by token with json.Decoder.Token, YAML
// from yaml.v3's nodes), by the JSON pointer of the object: the keys of
// every "properties" object and of the OpenAPI paths and path items. Params
// and Tools come in the order the source wrote them, and Service.Order
// carries the properties' order to Resolve, which finds a tool's part of it
// through Tool.InputOrigin and Tool.OutputOrigin: where in the source each
// part of the tool's schemas (the whole, a parameter, a $defs entry) was
// written. Nothing is keyed by a map's address.
//
// # Files
//
// mcp.go and live.go read tool lists; openapi.go walks an OpenAPI
// document's paths into tools, with oasdoc.go reading its skeleton
// (operations, parameters, bodies, responses) into small structs,
// params.go and body.go the parameters and bodies, oasinfo.go the servers
// and security schemes, and schema.go rewriting its schemas into JSON Schema
// with $defs. tree.go and yaml.go decode.
package parse
