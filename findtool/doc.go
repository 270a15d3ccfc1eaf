// Package findtool ranks tools for the gateway's find_tool(query).
//
// [New] indexes each tool's wire name, Python name, service name, title,
// description, parameter names and parameter descriptions; [Index.Search]
// ranks them with BM25F: BM25 over one weighted term frequency per tool,
// each field length-normalised on its own, so a word in a tool's name counts
// more than the same word deep in its description:
//
//	name (wire and Python)  3.0
//	title                   2.0
//	service                 1.5
//	parameter names         1.0
//	description             1.0
//	parameter descriptions  0.5
//
// On top of BM25F, a tool whose name is made of the query's words gets a
// bonus (the share of its name the query covers times the share of the
// query its name covers, in units of the query words' mean IDF), so among
// hundreds of operations that mention "issue", "create an issue" finds
// issues/create rather than one whose description repeats the word.
//
// Text is split on anything but letters and digits and at camelCase
// boundaries ("listIssues", "list_issues", "list-issues", "github/issues"
// all give "list", "issue"), lower-cased, stripped of English stop words and
// lightly stemmed (plurals: "issues" → "issue", "entities" → "entity").
// A query verb also matches the verb API names use for it, at 0.6 of its
// weight ("open a pull request" finds create_pull_request; remove → delete,
// fetch → get, find → search, edit → update). Ties are broken by service, then tool wire name, so results are
// deterministic.
//
// [Index.Exact] resolves an exact name: "service.tool" (Python or wire
// name), "api.service.tool", or a bare tool name that is unique across
// services. An Index is immutable after New and safe for concurrent use.
package findtool
