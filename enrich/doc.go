// Package enrich narrows a service's input schemas using what their prose
// says.
//
// Real tool and API descriptions state many constraints only in words: "Can
// be `closed`, `suspended` or `active`", "max 100", "RFC 3339 timestamp",
// "Defaults to `true`", "defaults to the current user". Named rules (Propose)
// turn such sentences into proposals: JSON Schema keywords to add to a
// parameter's schema (enum, minimum/maximum, minLength/maxItems, format,
// default) or, for a default resolved from runtime state the caller cannot
// see, a flip of the parameter to required. A proposals file in the same
// format can add more (ReadProposals).
//
// Every proposal carries its evidence, a verbatim span of the description,
// and goes through Verify: the evidence must occur in the source and be
// about this parameter (not a code-quoted other name), the change may only
// narrow what the original schema accepts, a hard constraint may not come
// from a hedged clause ("by default", "configurable", "unless ..."), and
// every value the source itself gives for the parameter (its default,
// example(s), existing enum, values quoted after "e.g." or "for example")
// must still satisfy the enriched schema; otherwise the proposal is
// rejected with that value as the reason. Run applies the
// accepted proposals to each tool's Input (keeping the untouched schema in
// Original) and returns one Decision per proposal, accepted or rejected with
// its reason; WriteLog writes them as JSON lines and Explain prints them for
// one tool.
//
// The rules are linguistic patterns, not lists of known tools: they must
// hold on schemas never seen before, so they prefer missing a constraint to
// inventing one (open lists, conditional requiredness, alternatives,
// lists of formats or syntaxes, templates, defaults that depend on another
// parameter and behaviour-of-omission sentences are deliberately left
// alone). Markdown is stripped first, in place: links keep their text,
// HTML tags become spaces or line breaks ("<code>x</code>" a code quote),
// and emphasis is read as quoting ("**true**" as "`true`"). A sign rule
// ("+/-", "prefix with `-` for descending") gives the listed values with
// their signs, never the bare list. Bare (unquoted) alternatives are read
// only in two sentence shapes ("<noun phrase>, red or blue.", "is either
// a or b."). A schema without a type whose anyOf/oneOf branches share one
// type is read as that type, and a proposal must then fit some branch and
// keep every value the branches list. An enum may narrow an existing one
// only by dropping values unlike every listed value (a stray lower-case
// "side" beside `LEFT` and `RIGHT`), never "" or null.
package enrich
