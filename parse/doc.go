// Package parse turns an API description into an *ir.Service.
//
// Three kinds of source are read:
//
//   - MCP tools/list output, from a file or bytes (MCP, MCPFile): a bare
//     tools array, {"tools": [...]}, a JSON-RPC response envelope, or the
//     corpus capture format with serverInfo and instructions beside the tools.
//   - A live MCP server (MCPCommand over stdio, MCPURL over streamable HTTP),
//     listed with the go-sdk client, every page of tools.
//   - OpenAPI 3.0 and 3.1 documents and Swagger 2.0 documents, JSON or YAML
//     (OpenAPI, OpenAPIFile).
//
// parse fills every Tool's wire and Python names, documentation, source
// pointer, annotations, Params (in source order, with their locations and
// pointers), Input (a self-contained JSON Schema of the arguments object),
// Output and, for OpenAPI, HTTP. It does not derive Python types: Param.Type,
// Tool.Result and Service.Shapes are left for Resolve.
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
// reference, in the "$defs" of every tool that reaches them; nested schemas
// of parameters may be shared the same way. Treat every schema under
// Tool.Input and Tool.Output as read-only: copy before changing. The top-level
// Input object and its "properties" entries are each tool's own.
//
// # Order
//
// JSON objects decoded into maps lose their key order; parse recovers the
// order of properties (and of OpenAPI paths and methods) from the source
// bytes, so Params and Tools come in the order the source wrote them.
package parse
