// Package ir is the one model every stage of codemode shares.
//
// parse builds it from a source (an MCP tools/list, a live MCP server, an
// OpenAPI document), enrich narrows its schemas, Resolve derives the Python
// types from those schemas, and emit prints it. Names are resolved here once,
// by the rules in naming.go: the emitter never invents an identifier.
//
// # Order and places
//
// Schemas are decoded JSON (map[string]any), whose maps keep no key order.
// parse records the source order of every "properties" object in
// Service.Order, by the object's JSON pointer in the source document, and
// says in Tool.InputOrigin and Tool.OutputOrigin where each part of a tool's
// schemas (the whole, a parameter, a $defs entry) was written. Resolve walks
// every schema with that place: fields print in source order, and two
// tools' references to one definition resolve to one ObjectType, whether or not
// their schemas share maps. Nothing is keyed by a map's address.
//
// # Diagnostics
//
// A Diagnostic is a warning about a source that compiled anyway: something
// skipped, approximated or kept as given. Its line ends with its code in
// brackets; a pack's ignore: rule names the code (and optionally a
// "file#pointer" prefix) once the warning is reviewed. The codes
// (DiagCode):
//
// From MCP tool lists:
//   - bad-tool: a tool that is not an object or has no name; skipped.
//   - duplicate-tool: a second tool (or OpenAPI operation) with a name
//     already taken; both are kept, the later one renamed.
//   - empty-input-schema: no inputSchema, or one with neither type nor
//     properties; taken as an object with no properties.
//   - bad-input-schema: an inputSchema whose type is not "object", or whose
//     properties is not an object.
//   - unsupported-input-schema: an inputSchema that combines schemas
//     (allOf/anyOf/oneOf) at the top; its arguments are not listed as
//     parameters.
//   - bad-schema: an outputSchema or parameter schema that is not an
//     object; ignored or taken as unconstrained.
//
// From OpenAPI documents:
//   - bad-paths: "paths" is not an object.
//   - bad-operation: an operation that is not an object; skipped.
//   - bad-object: an object expected and something else found; skipped.
//   - bad-parameter: a parameter with no name, no "in", or an unknown
//     location; skipped.
//   - bad-ref: a $ref that is not a string; dropped.
//   - unresolved-ref: a $ref that points outside the document or does not
//     resolve; skipped.
//   - bad-server: a server with no url (skipped) or a server variable with
//     no default (left in the URL).
//   - operation-servers: path- or operation-level servers; the service's
//     servers are used.
//   - unsupported-method: a path item key that is not an HTTP method;
//     skipped.
//   - unsupported-security: a security scheme (or HTTP auth scheme) the
//     runtime does not support; kept as given.
//   - unsupported-style: a Swagger 2.0 collectionFormat with no OpenAPI 3
//     style; sent comma-separated.
//   - webhook-skipped: a webhook is a request the API sends; skipped.
//   - callback-skipped: a callback is a request the API sends; skipped.
//   - ignored-header: a header parameter the client sets itself (Accept,
//     Content-Type, Authorization); skipped.
//   - param-content: a parameter serialized with content (a media type);
//     sent as JSON text, its schema kept.
//   - param-without-schema: a parameter with no schema; taken as
//     unconstrained.
//   - body-content-type: a request body offered only in a media type other
//     than JSON; taken as one string parameter "body".
//   - body-without-content: a request body with no content; no body
//     parameter.
//   - duplicate-body: a second Swagger 2.0 body parameter; the first is
//     used.
//
// From deriving Python types:
//   - type-too-deep: a type nested more than MaxTypeDepth brackets deep;
//     printed as Any from there (the manifest's schema keeps it).
//   - approximated-keyword: a schema keyword the Python type cannot
//     express; the manifest's schema keeps it and validates with it.
//
// From enrichment:
//   - enrich-too-deep: parameters nested too deep, or too many of them, to
//     enrich.
//   - enrich-failed: a rule failed on a parameter's description (a bug);
//     that parameter is left as the source has it.
//
// From the pack:
//   - unused-ignore: an ignore: rule that matches no diagnostic.
//
// From the runtime's validator (validate.Diagnostic):
//   - uncompiled-schema: a tool schema that does not compile; calls are
//     not validated against it.
package ir
