// Package validate checks a call's arguments against its tool's JSON Schemas
// before the request leaves, and words every refusal for the model that
// wrote the call.
//
// Each tool's schemas are compiled once, with
// github.com/santhosh-tekuri/jsonschema/v6, on the tool's first call: the
// enriched Input schema and, when it is set and differs, the Original one.
// [New] itself compiles nothing, so a pack of a thousand operations (GitHub's
// REST API) starts at once instead of compiling schemas no program calls. [Validator.Check] validates
// the bound arguments object against Input and then Original, so a value
// enrichment let through but the upstream's own schema forbids is still
// refused. On failure it returns an [*Error]; the runtime raises it in the
// program as a TypeError (wrong type, unknown or missing argument) or a
// ValueError (enum, bounds, length, pattern, format), catchable, and the
// upstream is never called.
//
// # Messages
//
// One line per problem, most useful first, at most three, each starting
// with the call form:
//
//	api.spotify.show_liked_songs: argument sort_by must be one of "liked_at", "play_count", "title"; got "likedAt". Did you mean "liked_at"?
//	api.github.list_issues: argument per_page must be <= 100; got 500
//	api.github.list_issues: argument state: expected str, got int (3)
//	api.github.create_issue: unknown argument 'titel'. Did you mean 'title'?
//	api.github.create_issue: missing required argument 'owner'
//	api.jira.search: argument filters[0].value must be at most 64 characters long; got 80 characters
//
// Wire keys are mapped back to Python parameter names through ir.Param.
// "Did you mean" is codemode's one rule (internal/suggest, shared with the
// runtime's hints): edit distance with transpositions, ignoring case, '_'
// and '-', or a unique prefix. An
// unknown argument whose suggestion is also reported missing is reported
// once. A failed anyOf/oneOf is explained by the branch the value came
// closest to; branches that only disagree on the type are merged ("expected
// str or None").
//
// # Schema semantics
//
//   - Draft 2020-12 unless the schema's $schema names another draft
//     (draft-07, as zod-generated MCP schemas do, is honoured).
//   - $defs, internal $ref and recursive schemas work; external references
//     are never fetched: such a schema does not compile.
//   - Numbers stay json.Number, so no precision is lost: 3 and 3.0 are
//     integers (JSON Schema counts a zero fraction as one), 3.5 is not.
//   - Patterns are ECMA-262. A pattern RE2 can run with the same meaning
//     is rewritten for it and runs in linear time (\s and . are widened to
//     ECMAScript's sets, \uXXXX, \cX, [^] and the like translated; \d, \w,
//     \b, ^ and $ mean the same in both). Lookarounds and backreferences
//     go to an ECMAScript backtracking engine (its Unicode mode, with . and
//     \b rewritten to JavaScript's meaning) within a budget: a value
//     longer than Limits.BacktrackInput (10,000 characters), a match over
//     Limits.PatternTimeout (25 ms) and any match once the call has spent
//     Limits.CallRegexTime (100 ms) refuse the call with a ValueError
//     naming the value, the pattern and the budget. It never counts as a
//     pass, even under a not or an anyOf.
//   - Formats: date-time, date, email, uuid, ipv4 and ipv6 are asserted in
//     every draft; all others are annotations (uri is one: OpenAPI documents
//     use it for relative and templated URLs).
//
// # Bounded work and undeclared keys
//
// Before any schema runs, Check measures the arguments and refuses, in one
// line, arguments nested deeper than Limits.Depth (64), larger than
// Limits.Size (4 MiB as JSON) or holding more than Limits.Values (100,000)
// values; the walk stops at the first limit exceeded. [NewWithLimits]
// sets other limits.
//
// A top-level key the tool does not declare (not a parameter, not a
// property of its schema, including those under allOf, anyOf, oneOf and
// local $refs) is refused with a TypeError naming the keys and the
// arguments the tool takes, with a "did you mean" for a close one:
//
//	api.rec.record: unknown arguments '__proto__', '_meta', 'admin'; the arguments are 'message'
//
// JSON Schema itself lets such keys through when additionalProperties is
// absent; a call does not, so run_tool and direct calls send only keys the
// generated signature takes, unless the schema allows more explicitly:
// additionalProperties or unevaluatedProperties true or a schema, or a
// patternProperties pattern the key matches. A schema closed
// with additionalProperties false words the refusal itself (above).
//
// # Schemas that do not compile
//
// A schema the compiler rejects does not make New fail and does not block
// calls: it is recorded as a [Diagnostic] (see [Validator.Diagnostics]) and
// calls to that tool are not checked against it. The upstream still checks
// the request, and a compiler bug must not take a tool away from the agent.
// Diagnostics compiles whatever is not compiled yet, to list them all.
package validate
