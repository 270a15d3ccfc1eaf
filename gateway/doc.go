// Package gateway is codemode's MCP server: what an agent harness connects
// to. In code mode (the default) it offers exactly three tools, however many
// the pack grants:
//
//   - find_tool(query): BM25 search over the granted tools, up to 8 matches,
//     each with its call form, first sentence, arguments (types and allowed
//     values), an example call and the shape of what it returns; an exact
//     name ("github.create_issue") returns the tool's whole definition with
//     line numbers, which counts as reading it for the read-gate.
//   - run_code(code): runs a program through the runtime and returns
//     runtime.Result.Text(): notes first, then output, calls and any error.
//   - read_api(service, lines): lines of a generated api/<service>.py; the
//     same files are MCP resources. Both count as reads for the read-gate.
//
// The resource [JobsURI] (codemode://session/jobs) is the calling session's
// jobs and pending wait, as JSON; a client subscribed to it
// (resources/subscribe) is sent a notifications/message line per event and
// notifications/resources/updated when a job of that session ends or is
// cancelled and when its wait resolves. Changes made in the gateway are
// seen through the runtime's OnJobsChange hook; those made elsewhere (an
// approver's codemode jobs approve, another replica) and deadlines passing,
// by reading the store of subscribed sessions every [DefaultJobsPoll].
//
// A tools/call for any other name (for example a granted tool's own name)
// is refused and audited. In direct mode the server instead offers every
// granted tool as an ordinary MCP tool, called through runtime.Call: the
// same grant, validation, policy hooks, notes, waits and audit as a
// program's call.
//
// One policy hook belongs here: [Shapes] records a compact inferred shape
// of each tool's results, and the schema of all of them merged
// ([ObservedSchema]), in a JSON cache file: find_tool shows the shape for
// tools without an output schema, and gen types their stubs' returns from
// the schemas ([Shapes.Observed]). Pins are the runtime's own check, on every
// path (see runtime.Config.NoPins).
//
// Over streamable HTTP ([Server.NewHTTPHandler]) the server is an OAuth
// resource server: every request needs one of the configured bearer
// [Tokens] (a request without gets 401 and a WWW-Authenticate header naming
// the RFC 9728 metadata at [MetadataPath]), a session is bound to the token
// that opened it, a session idle for [HTTPOptions].IdleTTL is closed and
// its reads freed, and [ListenHTTP] serves without tokens only on a
// loopback address when told to.
//
// [Open] composes a whole gateway, as `codemode serve` runs it, from a
// [RuntimeOpener] (pack.Pack's OpenRuntime, or [FromConfig] of a
// runtime.Config built in Go) and [Options]: it takes the HTTP address,
// opens the shape cache and the audit log, installs the gateway's hooks in
// the runtime's configuration (shapes, audit, persistent state or the jobs
// store, the pins' log), checks the pins and builds the [Server];
// [Gateway.Serve] then serves stdio or HTTP until the context ends.
package gateway
