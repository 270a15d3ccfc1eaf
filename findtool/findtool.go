package findtool

import (
	"math"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/codemode-dev/codemode/ir"
)

// Doc is one searchable tool.
type Doc struct {
	Service ir.ServiceName
	Tool    *ir.Tool
}

// Hit is one search result.
type Hit struct {
	Service ir.ServiceName
	Tool    *ir.Tool
	Score   float64
}

type field int

const (
	fName field = iota
	fTitle
	fService
	fParamName
	fDesc
	fParamDesc
	fLead // the description's first sentence, again
	numFields
)

// weights and length normalisation (b) per field.
var (
	weights = [numFields]float64{3.0, 2.0, 1.5, 1.0, 1.0, 0.5, 2.0}
	bs      = [numFields]float64{0.5, 0.5, 0.3, 0.5, 0.75, 0.75, 0.75}
)

// k1 is BM25's term-frequency saturation.
const k1 = 0.8

// nameCover is the bonus for a tool whose name is all the query's words
// (scaled by the share of its name the query covers and the share of the
// query its name covers, in units of the query words' mean IDF), so a name
// that says what the query says is not outweighed by a description that
// repeats one of its words.
const nameCover = 5.0

// intentMatch and intentMismatch scale the score of a tool whose action is
// the query's intent, or another one.
const (
	intentMatch    = 1.2
	intentMismatch = 0.85
)

// verbAsNoun is how much a query's verb that is as often a noun ("file an
// issue") counts in a tool whose name does not use it as its verb.
const verbAsNoun = 0.5

// phraseBonus is the bonus, in units of the mean IDF of two query terms,
// for a tool whose text has them side by side.
const phraseBonus = 0.5

// listMatch scales a tool that lists when the query reads several things
// (and its inverse one that gets one thing).
const listMatch = 1.15

// deprecatedFactor scales the score of a tool its API marks deprecated:
// an agent should be shown what replaces it first.
const deprecatedFactor = 0.8

// serviceBoost scales the score of a tool of a service the query names.
const serviceBoost = 1.5

// domainBoost scales the score of a tool of the service whose tools share
// the query's words most (see affinity); others in proportion.
const domainBoost = 0.6

// acronymWeight and abbreviationWeight are how much an acronym's phrase
// and a word's abbreviation count against a word of the query itself.
const (
	acronymWeight      = 0.8
	abbreviationWeight = 0.5
	joinWeight         = 0.8
)

// acronymDF is how many tools have every term of an acronym's phrase
// (bounded by the rarest term's document frequency).
func acronymDF(x *Index, terms []string) int {
	n := -1
	for _, t := range terms {
		if df := len(x.postings[t]); n < 0 || df < n {
			n = df
		}
	}
	return max(n, 0)
}

// abbreviation is the longest indexed term that is a proper prefix (three
// letters or more, at least two letters shorter) of a query word of six
// letters or more and not its stem: "repository" → repo, "environment" →
// env; none when that term is not mostly in the same tools as the word
// (together).
func (x *Index) abbreviation(w string) string {
	if len(w) < 6 || !isAlpha(w) || stopWords[w] {
		return ""
	}
	st := stem(w)
	// No prefix longer than the longest term is one (and asking for every
	// prefix of a 16,000-letter word took a search seconds).
	for n := min(len(w)-2, x.longest); n >= 3; n-- {
		p := w[:n]
		if p == st || strings.HasPrefix(st, p) && n >= len(st) {
			continue
		}
		if _, ok := x.postings[p]; ok {
			if !x.together(p, st) {
				return ""
			}
			return p
		}
	}
	return ""
}

// together reports whether the tools that have term a and those that
// have term b are mostly the same ones: at least half of either have the
// other; or no tool has b. "repo" and "repository" are (a parameter and
// its description); "pro" and "protect", "com" and "comment" are not.
func (x *Index) together(a, b string) bool {
	pa, pb := x.postings[a], x.postings[b]
	if len(pb) == 0 {
		return true
	}
	i, j, n := 0, 0, 0
	for i < len(pa) && j < len(pb) {
		switch {
		case pa[i].doc == pb[j].doc:
			n++
			i++
			j++
		case pa[i].doc < pb[j].doc:
			i++
		default:
			j++
		}
	}
	return 2*n >= min(len(pa), len(pb))
}

type posting struct {
	doc   int32
	score float64 // this term's BM25F contribution to doc's score
	// named is 1 when the term is in the tool's name.
	named float64
}

// Index is a BM25F index over tools.
type Index struct {
	docs     []Doc
	nameLen  []int   // distinct terms in each tool's name
	svcOf    []int32 // each tool's service, an index in services
	services []service
	// pairs maps two terms adjacent in a tool's name, title or description
	// ("two number") to the tools they are adjacent in, in order.
	pairs map[string][]int32
	// acronyms maps a lower-case acronym to the terms of the phrase it
	// most often stands for in the indexed text ("pr" → pull, request).
	acronyms map[string][]string
	actions  []action           // what each tool does
	nameVerb []string           // the term of each tool's name's first verb, or ""
	nameHead []string           // the term of each tool's name's first word
	many     []bool             // reading tools that give many things
	idf      map[string]float64 // per term
	postings map[string][]posting
	longest  int              // the longest term's length in bytes
	byName   map[string]int   // "service.py" and "service.wire"
	bare     map[string][]int // "py" and "wire", every service
	raw      [][]string       // each tool's raw dense words (denseWords)
	sem      *semantic        // nil without vectors (WithVectors)
	sen      *sentences       // nil without a sentence encoder (WithSentences)
	// assoc is the learned word associations (associations).
	assoc map[string][]association
	// scratches are searchScratch values (shared by the copies With...
	// makes: they index the same tools).
	scratches *sync.Pool
}

// New indexes docs. Docs with a nil Tool are skipped.
func New(docs []Doc) *Index {
	x := &Index{pairs: map[string][]int32{}, postings: map[string][]posting{}, byName: map[string]int{}, bare: map[string][]int{}, idf: map[string]float64{}, assoc: associations(), scratches: &sync.Pool{}}
	type fieldTerms [numFields]map[string]int
	var tfs []fieldTerms
	phrases := map[string]map[string]int{} // initials → phrase → count
	var lens [][numFields]int
	var total [numFields]float64
	for _, d := range docs {
		if d.Tool == nil {
			continue
		}
		i := len(x.docs)
		x.docs = append(x.docs, d)
		t := d.Tool
		svc := string(d.Service)
		for _, n := range []string{string(t.Py), string(t.Wire)} {
			if _, ok := x.byName[svc+"."+n]; !ok {
				x.byName[svc+"."+n] = i
			}
			if l := x.bare[n]; len(l) == 0 || l[len(l)-1] != i {
				x.bare[n] = append(x.bare[n], i)
			}
		}

		var text [numFields][]string
		text[fName] = union(tokenizeName(string(t.Wire)), tokenizeName(string(t.Py)))
		text[fTitle] = tokenize(t.Title)
		text[fService] = tokenize(svc)
		text[fDesc] = tokenize(t.Description)
		text[fLead] = tokenize(leadSentence(t.Description))
		for _, p := range t.Params {
			text[fParamName] = append(text[fParamName], union(tokenizeName(p.Arg), tokenizeName(string(p.Py)))...)
			text[fParamDesc] = append(text[fParamDesc], tokenize(p.Description)...)
		}
		x.raw = append(x.raw, denseWords(string(t.Wire), string(t.Py), t.Description))
		x.nameLen = append(x.nameLen, len(union(tokenize(string(t.Wire)), tokenize(string(t.Py)))))
		for _, f := range []field{fName, fTitle, fDesc} {
			if f == fName {
				x.addPairs(i, tokenize(string(t.Wire)))
				continue
			}
			x.addPairs(i, text[f])
		}
		x.svcOf = append(x.svcOf, x.serviceIndex(d.Service))
		countPhrases(phrases, string(t.Wire), t.Title, t.Description)
		x.actions = append(x.actions, toolAction(t))
		x.nameVerb = append(x.nameVerb, nameVerb(t))
		x.nameHead = append(x.nameHead, nameHead(t))
		x.many = append(x.many, collection(t))
		var ft fieldTerms
		var ln [numFields]int
		for f := range numFields {
			ft[f] = map[string]int{}
			for _, w := range text[f] {
				ft[f][w]++
			}
			ln[f] = len(text[f])
			total[f] += float64(len(text[f]))
		}
		tfs = append(tfs, ft)
		lens = append(lens, ln)
	}
	x.acronyms = acronyms(phrases)
	for i := range x.services {
		x.services[i].df = map[string]int{}
	}
	for _, s := range x.svcOf {
		x.services[s].tools++
	}
	x.serviceTerms()
	n := float64(len(x.docs))
	var avg [numFields]float64
	for f := range numFields {
		avg[f] = max(total[f]/max(n, 1), 1)
	}
	// Weighted, normalised term frequency per (term, doc).
	wtf := map[string][]posting{}
	for i, ft := range tfs {
		seen := map[string]float64{}
		for f := range numFields {
			norm := 1 - bs[f] + bs[f]*float64(lens[i][f])/avg[f]
			for w, c := range ft[f] {
				seen[w] += weights[f] * float64(c) / norm
			}
		}
		for w, tf := range seen {
			wtf[w] = append(wtf[w], posting{doc: int32(i), score: tf})
			x.services[x.svcOf[i]].df[w]++
		}
	}
	for w, ps := range wtf {
		df := float64(len(ps))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		x.idf[w] = idf
		for j := range ps {
			tf := ps[j].score
			ps[j].score = idf * tf * (k1 + 1) / (k1 + tf)
			if ft := tfs[ps[j].doc]; ft[fName][w] > 0 {
				ps[j].named = 1
			}
		}
		sort.Slice(ps, func(a, b int) bool { return ps[a].doc < ps[b].doc })
		x.postings[w] = ps
		x.longest = max(x.longest, len(w))
	}
	return x
}

// addPairs records the adjacent terms of ts for tool i.
func (x *Index) addPairs(i int, ts []string) {
	for j := 0; j+1 < len(ts); j++ {
		k := ts[j] + " " + ts[j+1]
		if l := x.pairs[k]; len(l) == 0 || l[len(l)-1] != int32(i) {
			x.pairs[k] = append(l, int32(i))
		}
	}
}

func union(a, b []string) []string {
	out := append([]string(nil), a...)
	for _, w := range b {
		found := false
		for _, v := range a {
			if v == w {
				found = true
				break
			}
		}
		if !found {
			out = append(out, w)
		}
	}
	return out
}

// Len is the number of indexed tools.
func (x *Index) Len() int { return len(x.docs) }

// Search returns up to k tools matching query, best first; k <= 0 means
// every match. Only tools sharing at least one term with the query match.
func (x *Index) Search(query string, k int) []Hit {
	query, context := focus(query)
	// With a sentence encoder, the query's vector is computed while its
	// words are scored.
	var queryVec chan []float32
	if x.sen != nil {
		queryVec = make(chan []float32, 1)
		go func() { queryVec <- x.sen.enc.Embed(query) }()
	}
	terms := tokenize(query)
	// The context names the service, perhaps ("We use Jira. File a bug."):
	// its words that name one are searched for too ("GitLab" as one word).
	for _, w := range tokenizeName(context) {
		if x.serviceTerm(w) && !slices.Contains(terms, w) {
			terms = append(terms, w)
		}
	}
	weight := map[string]float64{}
	var order []string
	for _, w := range terms {
		if _, ok := weight[w]; !ok {
			weight[w] = 1
			order = append(order, w)
		}
	}
	// A query verb also finds the verb API names use for it ("open a pull
	// request" → create), at a lower weight than the word itself.
	for _, w := range terms {
		for _, alt := range stemmedSynonyms[w] {
			if _, ok := weight[alt]; !ok {
				weight[alt] = synonymWeight
				order = append(order, alt)
			}
		}
	}
	// A word also finds the name words that real APIs' names use where
	// their summaries say it (learned, see assoc.go: "english" →
	// translate), but not its abbreviations or longer forms, which
	// abbreviation weighs.
	if x.assoc != nil {
		for _, w := range terms {
			for _, a := range x.assoc[w] {
				if strings.HasPrefix(a.term, w) || strings.HasPrefix(w, a.term) {
					continue
				}
				if _, ok := weight[a.term]; !ok {
					weight[a.term] = assocWeight
					order = append(order, a.term)
				}
			}
		}
	}
	// An acronym stands for its phrase ("pr" → pull request; a stop word
	// like "my" or "for" is none), a long word also finds the abbreviation
	// names use for it ("repository" → repo).
	for _, w := range words(query, false) {
		if exp, ok := x.acronyms[w]; ok && len(w) <= 3 && !stopWords[w] {
			if df := len(x.postings[stem(w)]); df < acronymDF(x, exp) {
				for _, e := range exp {
					if _, ok := weight[e]; !ok {
						weight[e] = acronymWeight
						order = append(order, e)
					}
				}
			}
		}
		if p := x.abbreviation(w); p != "" {
			if _, ok := weight[p]; !ok {
				weight[p] = abbreviationWeight
				order = append(order, p)
			}
		}
	}
	// Two words written apart that names write as one ("log in" → login,
	// "stateful set" → statefulset; never through a one-letter word:
	// "delete a" is no "deleteA").
	raw := words(query, false)
	joinParts := map[string][2]string{} // a join's two parts' terms
	for i := 0; i+1 < len(raw); i++ {
		if !isAlpha(raw[i]) || !isAlpha(raw[i+1]) || !joinable(raw[i]) || !joinable(raw[i+1]) {
			continue
		}
		j := stem(raw[i] + raw[i+1])
		if _, ok := x.postings[j]; ok {
			if _, seen := weight[j]; !seen {
				weight[j] = joinWeight
				order = append(order, j)
				joinParts[j] = [2]string{term(raw[i]), term(raw[i+1])}
			}
		}
	}
	// A word that names write as two ("rerun" → actions_re_run_workflow),
	// when the two stand side by side in more tools than the word is in.
	for _, w := range raw {
		for _, t := range x.split(w) {
			if _, ok := weight[t]; !ok {
				weight[t] = joinWeight
				order = append(order, t)
			}
		}
	}
	named := x.namedServices(terms)
	affinity, topAffinity := x.affinity(terms)
	queryIDF := 0.0 // what the query's words weigh together
	for _, w := range terms {
		queryIDF += x.idf[w]
	}
	queryIDF /= float64(max(len(terms), 1))
	sc := x.scratch(len(x.docs))
	defer x.done(sc)
	acc := sc.acc
	nameHits := sc.nameHits // name terms matched, weighted
	touched := sc.touched[:0]
	// A word that is as often a noun, said as the query's verb ("file an
	// issue", "post a message"), counts less in a tool whose name does not
	// use it as its verb (create_or_update_file).
	verbOnly := ""
	if ws := words(query, false); len(ws) > 0 && nounToo[ws[0]] && verbActions[ws[0]] != actNone {
		verbOnly = term(ws[0])
	}
	for _, w := range order {
		for _, p := range x.postings[w] {
			if acc[p.doc] == 0 {
				touched = append(touched, p.doc)
			}
			f := weight[w]
			if w == verbOnly && x.nameVerb[p.doc] != w {
				f *= verbAsNoun
			}
			// A join says nothing more in a tool that has both its parts
			// ("list notification" is in ListNotification already).
			if jp, ok := joinParts[w]; ok && x.has(jp[0], p.doc) && x.has(jp[1], p.doc) {
				continue
			}
			acc[p.doc] += p.score * f
			if p.named > 0 {
				nameHits[p.doc] += f
			}
		}
	}
	// Two query words side by side in a tool's text ("two numbers", "pull
	// request") say more than the same words apart.
	for j := 0; j+1 < len(terms); j++ {
		bonus := phraseBonus * (x.idf[terms[j]] + x.idf[terms[j+1]]) / 2
		for _, d := range x.pairs[terms[j]+" "+terms[j+1]] {
			if acc[d] > 0 {
				acc[d] += bonus
			}
		}
	}
	sc.touched = touched // for done to zero; complete from here
	intent := queryAction(query)
	plural := pluralObject(query)
	denominal := denominalVerb(query, intent)
	hits := sc.hits[:0]
	top := 0.0
	for _, i := range touched {
		d := x.docs[i]
		// A name made mostly of the query's words is what the query asks
		// for: issues_create over reactions_create_for_issue.
		score := acc[i]
		if x.nameLen[i] > 0 && len(terms) > 0 {
			m := min(nameHits[i], float64(x.nameLen[i]))
			score += nameCover * queryIDF * m / float64(x.nameLen[i]) * min(m/float64(len(terms)), 1)
		}
		// A tool that does what the query asks (create, read, update,
		// delete) over one that does something else to the same thing.
		if a := x.actions[i]; intent != actNone && a != actNone {
			if a == intent {
				score *= intentMatch
			} else {
				score *= intentMismatch
			}
			// Reading several things: a tool that lists over one that
			// gets one.
			if intent == actRead && a == actRead && plural {
				if x.many[i] {
					score *= listMatch
				} else {
					score *= 1 / listMatch
				}
			}
		}
		// A verb the lists lack, said of a thing ("silence an alert"),
		// makes or changes what a tool's name has as its noun
		// (postSilences): a tool that writes over one that reads or
		// deletes it. A name that opens with the word does what it says
		// (explain, merge_pull_request) and is left as it is.
		if denominal != "" && x.nameHead[i] != denominal && x.inName(denominal, i) {
			switch x.actions[i] {
			case actCreate, actUpdate:
				score *= intentMatch
			case actRead, actDelete:
				score *= intentMismatch
			}
		}
		// A deprecated operation below the one that replaces it.
		if d.Tool.Deprecated {
			score *= deprecatedFactor
		}
		// A service the query names ("... on github") over the others,
		// and one whose tools share the query's words ("in the cluster").
		if named[x.svcOf[i]] {
			score *= serviceBoost
		}
		if topAffinity > 0 {
			score *= 1 + domainBoost*affinity[x.svcOf[i]]/topAffinity
		}
		hits = append(hits, Hit{Service: d.Service, Tool: d.Tool, Score: score})
		top = max(top, score)
	}
	sc.hits = hits
	// With word vectors, the lexical score plus a little of the tool's
	// likeness in meaning to the query, in units of the best score (so
	// scores stay in the lexical ranking's units).
	if x.sem != nil && top > 0 {
		if dense := x.sem.dense(raw, touched); dense != nil {
			for j, d := range dense {
				hits[j].Score += denseWeight * top * d
			}
		}
	}
	// With a sentence encoder, the tool's likeness to the query as a
	// sentence, the same way (sentenceWeight).
	if x.sen != nil && top > 0 {
		x.sen.fuse(<-queryVec, touched, hits)
	}
	if k <= 0 || k > len(hits) {
		k = len(hits)
	}
	if k < len(hits)/4 {
		// Keep the best k by insertion: cheaper than sorting thousands.
		top := make([]Hit, 0, k+1)
		for _, h := range hits {
			if len(top) == k && !better(h, top[k-1]) {
				continue
			}
			j := sort.Search(len(top), func(j int) bool { return better(h, top[j]) })
			top = append(top, Hit{})
			copy(top[j+1:], top[j:])
			top[j] = h
			if len(top) > k {
				top = top[:k]
			}
		}
		return top
	}
	sort.Slice(hits, func(a, b int) bool { return better(hits[a], hits[b]) })
	sc.hits = nil // the caller's now
	return hits[:k]
}

// searchScratch is what one search works in, kept for the next (pooled):
// a search over thousands of tools would otherwise allocate a few hundred
// kilobytes, which the garbage collector pays for in proportion.
type searchScratch struct {
	acc, nameHits []float64 // per tool; zero but where touched says
	touched       []int32
	hits          []Hit
}

// scratch is a zeroed searchScratch for n tools.
func (x *Index) scratch(n int) *searchScratch {
	if sc, ok := x.scratches.Get().(*searchScratch); ok && len(sc.acc) == n {
		return sc
	}
	return &searchScratch{acc: make([]float64, n), nameHits: make([]float64, n)}
}

// done zeroes what sc's search touched and keeps sc for another.
func (x *Index) done(sc *searchScratch) {
	for _, i := range sc.touched {
		sc.acc[i], sc.nameHits[i] = 0, 0
	}
	sc.touched = sc.touched[:0]
	clear(sc.hits) // no Tool kept alive by the pool
	sc.hits = sc.hits[:0]
	x.scratches.Put(sc)
}

// Matcher reports whether a name or word shares a search term with query.
func (x *Index) Matcher(query string) func(string) bool {
	q := map[string]bool{}
	need, _ := focus(query)
	for _, w := range tokenize(need) {
		q[w] = true
	}
	return func(name string) bool {
		for _, w := range tokenizeName(name) {
			if q[w] {
				return true
			}
		}
		return false
	}
}

// better orders hits: higher score, then service, then tool wire name.
func better(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	if a.Service != b.Service {
		return a.Service < b.Service
	}
	return a.Tool.Wire < b.Tool.Wire
}

// Exact resolves an exact tool name: "service.tool" with the tool's Python
// or wire name, the same prefixed with "api.", or a bare tool name that
// only one service has. Surrounding space and a trailing "()" are ignored.
func (x *Index) Exact(name string) (Doc, bool) {
	s := strings.TrimSuffix(strings.TrimSpace(name), "()")
	cands := []string{s}
	if rest, ok := strings.CutPrefix(s, "api."); ok {
		cands = append(cands, rest)
	}
	for _, c := range cands {
		if i, ok := x.byName[c]; ok {
			return x.docs[i], true
		}
	}
	for _, c := range cands {
		if l := x.bare[c]; len(l) == 1 {
			return x.docs[l[0]], true
		}
	}
	return Doc{}, false
}

// leadSentence is the first sentence of a description: what the tool does,
// before the notes on how.
func leadSentence(s string) string {
	s = strings.TrimSpace(s)
	for i := 0; i < len(s); i++ {
		if (s[i] == '.' || s[i] == '\n') && (i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\n') {
			return s[:i]
		}
	}
	return s
}

// maxSplitWord is the longest query word split is asked to cut in two,
// in bytes: two long English words run together ("notificationsettings")
// are under it.
const maxSplitWord = 32

// split is the two terms a query word is written as in the indexed text,
// side by side ("rerun" → re, run): of the ways to cut it in two (two
// letters or more each), the one whose terms are adjacent in the most
// tools, when they are in more tools than the word itself; nil for none.
// A word longer than maxSplitWord is no two words written as one (and
// each cut costs a stem of its length: a 16,000-letter word took seconds).
func (x *Index) split(w string) []string {
	if len(w) < 5 || len(w) > maxSplitWord || !isAlpha(w) || stopWords[w] {
		return nil
	}
	var best []string
	n := len(x.postings[stem(w)])
	for k := 2; k <= len(w)-2; k++ {
		a, b := term(w[:k]), term(w[k:])
		if a == "" || b == "" {
			continue
		}
		if m := len(x.pairs[a+" "+b]); m > n {
			best, n = []string{a, b}, m
		}
	}
	return best
}

// inName reports whether term t is in tool doc's name.
func (x *Index) inName(t string, doc int32) bool {
	ps := x.postings[t]
	j := sort.Search(len(ps), func(j int) bool { return ps[j].doc >= doc })
	return j < len(ps) && ps[j].doc == doc && ps[j].named > 0
}

// has reports whether tool doc has term t.
func (x *Index) has(t string, doc int32) bool {
	if t == "" {
		return false
	}
	ps := x.postings[t]
	j := sort.Search(len(ps), func(j int) bool { return ps[j].doc >= doc })
	return j < len(ps) && ps[j].doc == doc
}
