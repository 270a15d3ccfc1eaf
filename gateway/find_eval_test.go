package gateway_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/bench"
	"github.com/codemode-dev/codemode/gateway"
	"github.com/codemode-dev/codemode/internal/evalpack"
	"github.com/codemode-dev/codemode/internal/proccpu"
	"github.com/codemode-dev/codemode/manifest"
	"github.com/codemode-dev/codemode/pack"
)

// evalQuery is one line of findtool/testdata/eval.tsv or heldapart.tsv.
type evalQuery = evalpack.Query

func loadEval(tb testing.TB) []evalQuery {
	return loadEvalFile(tb, "eval.tsv", "tune", "held", "fresh")
}

// loadEvalFile reads one evaluation file of findtool/testdata whose lines
// belong to the given halves.
func loadEvalFile(tb testing.TB, name string, halves ...string) []evalQuery {
	tb.Helper()
	qs, err := evalpack.Queries("../findtool/testdata/"+name, halves...)
	if err != nil {
		tb.Fatal(err)
	}
	return qs
}

var evalPack struct {
	once     sync.Once
	finder   *gateway.Finder
	manifest *manifest.Manifest
	err      error
	// vectors is finder with word vectors (evalVectorFinder).
	vonce   sync.Once
	vectors *gateway.Finder
	verr    error
	// sentences is vectors with the sentence encoder too
	// (evalSentenceFinder).
	sonce     sync.Once
	sentences *gateway.Finder
	serr      error
}

// evalFinder compiles every MCP tools/list file of the corpus and the
// OpenAPI specs with real operations (GitHub, Stripe and Kubernetes REST,
// Notion, train travel, petstore, Alertmanager, USPTO, burger shop), 3,264
// tools, and with them the held-apart catalogues of testdata/heldapart
// (Twilio, SendGrid, Asana, Jira, Adyen, Vimeo, DigitalOcean, Google
// Calendar, Zoom, Netlify and LaunchDarkly REST; monday.com, MongoDB,
// Airtable, CircleCI and Sentry MCP), 2,628 tools, as one pack of 5,892
// tools. Every half of every evaluation set is scored over this one pack:
// an agent's pack holds many services, and a ranking that only does well
// among fewer, unrelated tools would be measured too kindly.
func evalFinder(tb testing.TB) *gateway.Finder {
	tb.Helper()
	evalPack.once.Do(func() {
		p := evalpack.Pack("..")
		out, err := pack.Compile(context.Background(), p, pack.Options{})
		if err != nil {
			evalPack.err = err
			return
		}
		evalPack.manifest = out.Manifest
		evalPack.finder = gateway.NewFinder(out.Manifest, "api", nil, nil)
	})
	if evalPack.err != nil {
		tb.Fatal(evalPack.err)
	}
	return evalPack.finder
}

// evalVectorFinder is evalFinder ranking by meaning too, with the word
// vectors of the npm package tools/npm pins (converted once into the
// user's cache).
func evalVectorFinder(tb testing.TB) *gateway.Finder {
	tb.Helper()
	evalFinder(tb)
	evalPack.vonce.Do(func() {
		path, why := gateway.FindVectors("", "..")
		if path == "" {
			evalPack.verr = fmt.Errorf("%s (or run `npm ci` in tools/npm)", why)
			return
		}
		f := gateway.NewFinder(evalPack.manifest, "api", nil, nil)
		var line string
		if !gateway.LoadVectors(context.Background(), f, path, func(format string, args ...any) { line = fmt.Sprintf(format, args...) }, gateway.VectorsCache("")...) {
			evalPack.verr = errors.New(line)
			return
		}
		evalPack.vectors = f
	})
	if evalPack.verr != nil {
		tb.Fatal(evalPack.verr)
	}
	return evalPack.vectors
}

// evalSentenceFinder is evalFinder with word vectors and the sentence
// encoder of the npm package tools/npm pins.
func evalSentenceFinder(tb testing.TB) *gateway.Finder {
	tb.Helper()
	evalVectorFinder(tb)
	evalPack.sonce.Do(func() {
		dir, why := gateway.FindSentences("", "..")
		if dir == "" {
			evalPack.serr = fmt.Errorf("%s (or run `npm ci` in tools/npm)", why)
			return
		}
		f := gateway.NewFinder(evalPack.manifest, "api", nil, nil)
		path, _ := gateway.FindVectors("", "..")
		var line string
		logf := func(format string, args ...any) { line = fmt.Sprintf(format, args...) }
		if !gateway.LoadVectors(context.Background(), f, path, logf, gateway.VectorsCache("")...) {
			evalPack.serr = errors.New(line)
			return
		}
		start := time.Now()
		if !gateway.LoadSentences(context.Background(), f, dir, logf, gateway.SentencesCache("")...) {
			evalPack.serr = errors.New(line)
			return
		}
		tb.Logf("sentence model loaded and %d tools embedded in %s", f.Len(), time.Since(start).Round(time.Millisecond))
		evalPack.sentences = f
	})
	if evalPack.serr != nil {
		tb.Fatal(evalPack.serr)
	}
	return evalPack.sentences
}

// evalRankings are the rankings every evaluation scores: by words only,
// with word vectors, and with word vectors and the sentence encoder.
func evalRankings(tb testing.TB) []evalRanking {
	return []evalRanking{{"words", evalFinder(tb)}, {"vectors", evalVectorFinder(tb)}, {"sentences", evalSentenceFinder(tb)}}
}

type evalRanking struct {
	name string
	f    *gateway.Finder
}

type evalScore struct {
	evalpack.Score
	misses []string
}

func (s evalScore) String() string {
	top1, top3, top8, mrr := s.Rates()
	return fmt.Sprintf("%d queries: top-1 %.3f, top-3 %.3f, top-8 %.3f, MRR %.3f", s.N, top1, top3, top8, mrr)
}

// below reports whether the score is under any of the floors.
func (s evalScore) below(floor evalFloor) bool {
	top1, _, top8, mrr := s.Rates()
	return top1 < floor.top1 || top8 < floor.top8 || mrr < floor.mrr
}

type evalFloor struct{ top1, top8, mrr float64 }

// scoreEval runs every query through the finder and scores each half, with
// the size in tokens of every answer, sorted.
func scoreEval(f *gateway.Finder, qs []evalQuery) (map[string]*evalScore, []int) {
	scores := map[string]*evalScore{}
	var sizes []int
	for _, q := range qs {
		ms := f.Search(q.Text)
		sc := scores[q.Half]
		if sc == nil {
			sc = &evalScore{}
			scores[q.Half] = sc
		}
		rank := 0
		var got []string
		for i, m := range ms {
			id := string(m.Service) + "." + string(m.Tool.Py)
			got = append(got, id)
			if rank == 0 && slices.Contains(q.Want, id) {
				rank = i + 1
			}
		}
		sc.Add(rank)
		if rank != 1 {
			sc.misses = append(sc.misses, fmt.Sprintf("%s rank %d %q: want %v, got %v", q.Half, rank, q.Text, q.Want, got[:min(len(got), 3)]))
		}
		sizes = append(sizes, bench.Tokens(f.Answer(q.Text, ms)))
	}
	sort.Ints(sizes)
	return scores, sizes
}

// checkAnswers fails the test for every right answer of the set that names
// no tool of the evaluation pack, so that a typo in a set is not scored as
// a miss.
func checkAnswers(t *testing.T, name string, qs []evalQuery) {
	t.Helper()
	tools := map[string]bool{}
	for _, s := range evalPack.manifest.Services {
		for _, tl := range s.Tools {
			tools[string(s.Name)+"."+string(tl.Py)] = true
		}
	}
	for _, q := range qs {
		for _, w := range q.Want {
			if !tools[w] {
				t.Errorf("%s: %q: right answer %s is no tool of the pack", name, q.Text, w)
			}
		}
	}
}

// TestFindEval scores find_tool's ranking over the evaluation set, by
// words only and with word vectors, each half on its own (held: catalogues
// not looked at while tuning; fresh: queries written from the tool lists
// alone, never tuned on), and the size of its answers in tokens. Only the
// tune half's misses are printed (-v): reading the others' would make them
// more tuning sets.
//
// The fresh half, scored once before any ranking change was made after it
// was written: 114 queries, top-1 0.49, top-3 0.62, top-8 0.75, MRR 0.57
// (over the corpus pack alone, 3,264 tools).
func TestFindEval(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles the GitHub, Stripe and Kubernetes specs")
	}
	t.Logf("%d tools", evalFinder(t).Len())
	qs := loadEval(t)
	checkAnswers(t, "eval.tsv", qs)
	// Floors a little under what each ranking reaches over the whole
	// evaluation pack, so a change that loses ground fails here.
	//
	// By words only (5,892 tools; tune: top-1 0.64, top-8 0.85, MRR 0.72;
	// held: top-1 0.62, top-8 0.89, MRR 0.70; fresh: top-1 0.44, top-8 0.73,
	// MRR 0.54). Over the corpus pack alone (3,264 tools) the same ranking
	// reached tune 0.74, 0.90, 0.80; held 0.67, 0.93, 0.77; fresh 0.50,
	// 0.77, 0.58: the 2,628 held-apart tools cost every half 0.04 to 0.10
	// of top-1.
	//
	// With word vectors (5,892 tools): tune 0.66, 0.87, 0.74; held 0.62,
	// 0.89, 0.70; fresh 0.46, 0.74, 0.56.
	//
	// After the mechanisms of issue 14's second round (findtool's doc: a
	// stop word is no acronym, no join through a one-letter word, a verb
	// that is as often a noun counts half where it is the name's object, a
	// join counts once, a word that names write as two, an abbreviation
	// only where it and the word share their tools): by words tune 0.69,
	// 0.86, 0.76; held 0.67, 0.89, 0.75; fresh 0.47, 0.73, 0.57; with
	// vectors tune 0.72, 0.87, 0.78; held 0.67, 0.89, 0.75; fresh 0.49,
	// 0.74, 0.58.
	floors := map[string]map[string]evalFloor{
		"words": {
			"tune":  {0.67, 0.83, 0.73},
			"held":  {0.64, 0.86, 0.72},
			"fresh": {0.44, 0.70, 0.54},
		},
		"vectors": {
			"tune":  {0.70, 0.85, 0.75},
			"held":  {0.64, 0.86, 0.72},
			"fresh": {0.46, 0.71, 0.55},
		},
		// With word vectors and the sentence encoder (issue 14's third
		// round, findtool's doc): tune 0.737, 0.898, 0.786; held 0.685,
		// 0.910, 0.764; fresh 0.500, 0.763, 0.595. With the learned word
		// associations (findtool's assoc.txt): tune 0.745, 0.898, 0.790;
		// held 0.685, 0.910, 0.764; fresh 0.509, 0.763, 0.599.
		"sentences": {
			"tune":  {0.73, 0.88, 0.77},
			"held":  {0.66, 0.88, 0.74},
			"fresh": {0.49, 0.74, 0.57},
		},
	}
	for _, r := range evalRankings(t) {
		scores, sizes := scoreEval(r.f, qs)
		p50, p95 := sizes[len(sizes)/2], sizes[len(sizes)*95/100]
		for _, h := range []string{"tune", "held", "fresh"} {
			t.Logf("%s, %s: %s", r.name, h, scores[h])
			if testing.Verbose() && h == "tune" {
				for _, m := range scores[h].misses {
					t.Log("  " + m)
				}
			}
		}
		t.Logf("%s: answer size: p50 %d tokens, p95 %d tokens, max %d", r.name, p50, p95, sizes[len(sizes)-1])
		for h, floor := range floors[r.name] {
			if sc := scores[h]; sc.below(floor) {
				t.Errorf("%s, %s: %s, below the floors top-1 %.3f, top-8 %.3f, MRR %.3f", r.name, h, sc, floor.top1, floor.top8, floor.mrr)
			}
		}
		if p95 > 1500 {
			t.Errorf("%s: answers: p95 %d tokens, want at most 1,500", r.name, p95)
		}
	}
}

// TestFindHeldApart scores find_tool over findtool/testdata/heldapart.tsv:
// queries over the catalogues of testdata/heldapart, which no ranking work
// has looked at, written from their tool names and first sentences before
// find_tool was run on them, and scored in the whole evaluation pack. It
// stands for what an evaluator measures on catalogues and queries never
// seen, so its misses are never printed and the ranking is never changed
// to fix one of its queries.
func TestFindHeldApart(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles the GitHub, Stripe, Kubernetes, Jira and Zoom specs")
	}
	f := evalFinder(t)
	qs := loadEvalFile(t, "heldapart.tsv", "heldapart")
	checkAnswers(t, "heldapart.tsv", qs)
	// Scored once, when the set was written and before anything was tuned:
	// 194 queries, top-1 0.51, top-3 0.69, top-8 0.78, MRR 0.60 (answers:
	// p50 731 tokens, p95 1,069). The floors sit a little under that, so a
	// change that loses ground on unseen catalogues fails here; the ranking
	// with word vectors is held to the same floors (it was never scored on
	// this set while it was built). After issue 14's second round (its
	// misses still never read): top-1 0.54, top-8 0.78 (0.79 with
	// vectors), MRR 0.63.
	floor := evalFloor{0.52, 0.75, 0.60}
	// With the sentence encoder too (reported for every method tried, the
	// method chosen on eval.tsv's tune half alone): top-1 0.552, top-8
	// 0.799, MRR 0.637; with the learned word associations too, 0.557,
	// 0.804, 0.641.
	floors := map[string]evalFloor{"sentences": {0.54, 0.78, 0.62}}
	t.Logf("%d tools", f.Len())
	for _, r := range evalRankings(t) {
		scores, sizes := scoreEval(r.f, qs)
		sc := scores["heldapart"]
		floor := floor
		if fl, ok := floors[r.name]; ok {
			floor = fl
		}
		t.Logf("%s, heldapart: %s", r.name, sc)
		t.Logf("%s: answer size: p50 %d tokens, p95 %d tokens, max %d", r.name, sizes[len(sizes)/2], sizes[len(sizes)*95/100], sizes[len(sizes)-1])
		if sc.below(floor) {
			t.Errorf("%s, heldapart: %s, below the floors top-1 %.3f, top-8 %.3f, MRR %.3f", r.name, sc, floor.top1, floor.top8, floor.mrr)
		}
	}
}

// BenchmarkFindEval runs every query of the evaluation sets (eval.tsv and
// heldapart.tsv) through search and rendering over the whole evaluation
// pack, by words only, with word vectors and with the sentence encoder
// too; p50-ms (make bench's goal) is the median time of one query, cpu-ms/op the process's CPU time for one (every goroutine's: the
// query is embedded beside the word scoring), steadier than the wall time
// on a shared machine.
func BenchmarkFindEval(b *testing.B) {
	qs := append(loadEval(b), loadEvalFile(b, "heldapart.tsv", "heldapart")...)
	for _, r := range evalRankings(b) {
		b.Run(r.name, func(b *testing.B) {
			var times []time.Duration
			cpu0 := proccpu.Used()
			for i := 0; b.Loop(); i++ {
				q := qs[i%len(qs)].Text
				start := time.Now()
				r.f.Answer(q, r.f.Search(q))
				times = append(times, time.Since(start))
			}
			cpu := proccpu.Used() - cpu0
			sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
			b.ReportMetric(float64(times[len(times)/2].Nanoseconds())/1e6, "p50-ms")
			b.ReportMetric(cpu.Seconds()*1e3/float64(b.N), "cpu-ms/op")
		})
	}
}

// framesHeldApart are requests for a tool as agents word them around what
// the tool should do. They were written before findtool dropped a
// request's frame (findtool's unframe) and never tuned on: the frames it
// was built with were others ("find a tool to %s", "how do I %s?", "%s
// using the api", …).
var framesHeldApart = []string{
	"look for an endpoint that lets me %s", "which tool should I use to %s", "get me the function for: %s",
	"how can I %s", "need an operation to %s", "%s via the API", "help me %s", "what's the method to %s",
	"Can you %s?", "searching tools: %s", "any api call that will %s", "is there a way to %s",
}

// TestFramedQueriesRankAsUnframed pins the bug that a request's frame
// misled the ranking: every query of every evaluation set, put in each of
// framesHeldApart, must rank (by words) within a query or two of the query
// alone. Before the frame was dropped, by words, "get me the function for:
// %s" took tune's top-1 from 0.693 to 0.380 and held-apart's from 0.541 to
// 0.268, "how can I %s" to 0.591 and 0.376 (findtool's doc, eighth round).
func TestFramedQueriesRankAsUnframed(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles the GitHub, Stripe and Kubernetes specs")
	}
	rankAsBare(t, framesHeldApart)
}

// TestNamedValuesRankAsBare pins the bug that a name given for the call
// matched tools by its words: "… labelled \"needs-review\"" took tune's
// top-1 by words from 0.693 to 0.577, held-apart's from 0.541 to 0.469
// (findtool's doc, eighth round).
func TestNamedValuesRankAsBare(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles the GitHub, Stripe and Kubernetes specs")
	}
	rankAsBare(t, []string{`%s labelled "needs-review"`, `%s called 'weekly-report'`, `%s named "release-2024"`})
}

// rankAsBare fails the test when any evaluation set, its queries put in
// one of the frames, ranks (by words) more than 0.02 below the bare
// queries at top-1 or top-8.
func rankAsBare(t *testing.T, frames []string) {
	t.Helper()
	changes := map[string]func(string) string{}
	for _, frame := range frames {
		changes[fmt.Sprintf("%q", frame)] = func(q string) string { return fmt.Sprintf(frame, q) }
	}
	rankNear(t, changes, 0.02)
}

// rankNear fails the test when any evaluation set, each query changed by
// one of changes, ranks (by words) more than tol below the bare queries at
// top-1 or top-8.
func rankNear(t *testing.T, changes map[string]func(string) string, tol float64) {
	t.Helper()
	f := evalFinder(t)
	qs := append(loadEval(t), loadEvalFile(t, "heldapart.tsv", "heldapart")...)
	plain, _ := scoreEval(f, qs)
	for name, change := range changes {
		scores, _ := scoreEval(f, changeQueries(qs, change))
		for half, sc := range scores {
			top1, _, top8, _ := sc.Rates()
			want1, _, want8, _ := plain[half].Rates()
			if top1 < want1-tol || top8 < want8-tol {
				t.Errorf("%s, %s: top-1 %.3f, top-8 %.3f; bare %.3f, %.3f", name, half, top1, top8, want1, want8)
			}
		}
	}
}

// changeQueries is qs with each query's text changed by change.
func changeQueries(qs []evalQuery, change func(string) string) []evalQuery {
	out := make([]evalQuery, len(qs))
	for i, q := range qs {
		out[i] = q
		out[i].Text = change(q.Text)
	}
	return out
}

// TestInflectedVerbsRankAsBare pins the bug that a query's verb in
// another form than its base ("creates an issue", what is left of "a tool
// that creates an issue") gave no intent: every query whose first word is
// a verb, said in the third person, must rank within 0.03 of the bare
// query. Before, top-1 by words fell on tune from 0.693 to 0.657, on held
// from 0.674 to 0.618 and on held-apart from 0.541 to 0.505; now 0.679,
// 0.663 and 0.526.
func TestInflectedVerbsRankAsBare(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles the GitHub, Stripe and Kubernetes specs")
	}
	third := func(q string) string {
		w, rest, _ := strings.Cut(q, " ")
		switch w {
		case "create", "delete", "update", "remove", "make", "change", "retrieve", "describe", "rename":
			return w + "s " + rest
		case "get", "add", "send", "list", "start", "open", "read", "find", "edit", "set", "show", "upload", "run", "stop":
			return w + "s " + rest
		case "search", "fetch", "push", "watch", "publish":
			return w + "es " + rest
		}
		return q
	}
	rankNear(t, map[string]func(string) string{"third person": third}, 0.03)
}

// tailsBuild are instructions agents add after the need, about what to do
// with the result; the rule that drops them (findtool's instructionStart)
// was written with these. tailsHeldApart were written at the same time
// and scored once, after the rule was done.
var tailsBuild = []string{
	"%s, then tell me the result", "%s and show me the output", "%s and give me the response as JSON",
	"%s for me, please", "%s and print what it returns", "%s, then summarise it in a table",
}

var tailsHeldApart = []string{
	"%s and let me know how it went", "%s, then report back with the details", "%s and return the raw response",
	"%s and paste the output here", "%s, and show the answer in markdown", "%s, then list what happened",
	"%s and tell me if it worked", "%s thanks!",
}

// TestInstructionTailsRankAsBare pins the bug that an instruction after
// the need ("…, then tell me the result") misled the ranking: by words,
// tailsBuild's mean top-1 was on tune 0.602 (bare 0.693), held 0.560
// (0.674), fresh 0.406 (0.482), held-apart 0.490 (0.541); now each is
// within 0.001 of the bare queries and every frame within 0.02. Over
// tailsHeldApart the mean went from tune 0.616, held 0.563, fresh 0.416,
// held-apart 0.492 to 0.639, 0.612, 0.445 and 0.514: it must stay within
// 0.08 of the bare queries.
func TestInstructionTailsRankAsBare(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles the GitHub, Stripe and Kubernetes specs")
	}
	rankAsBare(t, tailsBuild)
	meanNearBare(t, "held-apart tails", tailsHeldApart, 0.08)
}

// contextBuild are sentences of context agents put around the need; the
// rule that sets them apart (findtool's focus) was written with these.
// contextHeldApart were written at the same time and scored once the rule
// was done.
var contextBuild = []string{
	"We're migrating our billing system this week. %s", "I'm writing a script for the support team. %s",
	"%s. This is for a report due tomorrow.", contextOpeningWithThe,
}

// contextOpeningWithThe is the one of contextBuild the rule leaves: a
// sentence that opens with "the" may be the need.
const contextOpeningWithThe = "The on-call engineer asked me for this. %s"

var contextHeldApart = []string{
	"Our customer success team is overloaded. %s", "Context: nightly cleanup job for the staging environment. %s",
	"I got paged about this an hour ago. %s", "%s. It's part of onboarding a new client.",
	"My manager wants a summary by Friday. %s", "%s — this runs every Monday morning.",
}

// TestContextSentencesRankAsBare pins the bug that a sentence of context
// around the need ("We're migrating our billing system this week. …")
// was searched as if it were the need: by words, contextBuild's mean
// top-1 was on tune 0.591 (bare 0.693), held 0.514 (0.674), fresh 0.379
// (0.482), held-apart 0.474 (0.541), now 0.686, 0.663, 0.461, 0.532
// (contextOpeningWithThe is left: 0.664, 0.629, 0.421, 0.505, held
// within 0.07); every other frame must stay within 0.02. Over
// contextHeldApart the mean went from tune 0.450, held 0.451, fresh
// 0.317, held-apart 0.423 to 0.578, 0.597, 0.402 and 0.480: it must stay
// within 0.13 of the bare queries.
func TestContextSentencesRankAsBare(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles the GitHub, Stripe and Kubernetes specs")
	}
	rankAsBare(t, slices.DeleteFunc(slices.Clone(contextBuild), func(f string) bool { return f == contextOpeningWithThe }))
	meanNearBare(t, "context opening with the", []string{contextOpeningWithThe}, 0.07)
	meanNearBare(t, "held-apart context", contextHeldApart, 0.13)
}

// meanNearBare fails the test when any evaluation set, its queries put in
// each of frames, ranks (by words) on the mean more than tol below the
// bare queries at top-1; it logs each set's mean.
func meanNearBare(t *testing.T, name string, frames []string, tol float64) {
	t.Helper()
	f := evalFinder(t)
	qs := append(loadEval(t), loadEvalFile(t, "heldapart.tsv", "heldapart")...)
	plain, _ := scoreEval(f, qs)
	sum := map[string]float64{}
	for _, frame := range frames {
		scores, _ := scoreEval(f, changeQueries(qs, func(q string) string { return fmt.Sprintf(frame, q) }))
		for half, sc := range scores {
			top1, _, _, _ := sc.Rates()
			sum[half] += top1
		}
	}
	for half, sc := range plain {
		bare, _, _, _ := sc.Rates()
		mean := sum[half] / float64(len(frames))
		t.Logf("%s, %s: mean top-1 %.3f, bare %.3f", name, half, mean, bare)
		if mean < bare-tol {
			t.Errorf("%s, %s: mean top-1 %.3f, more than %.2f below the bare %.3f", name, half, mean, tol, bare)
		}
	}
}

// TestBritishSpellingsRankAsBare pins the bug that a query spelt the
// British way ranked below the same query spelt the American way
// ("invite someone to the organisation": the stemmer parts organis from
// organ): every query with a word that British English spells otherwise
// (findtool/spelling.txt), so spelt, must rank as the bare query does on
// every set, by words. Before, those of tune (4) fell from top-1 1.000 to
// 0.250 and MRR 1.000 to 0.432, held-apart's one from first to third.
func TestBritishSpellingsRankAsBare(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles the GitHub, Stripe and Kubernetes specs")
	}
	raw, err := os.ReadFile("../findtool/spelling.txt")
	if err != nil {
		t.Fatal(err)
	}
	british := map[string]string{} // American → British, the first of several
	for _, line := range strings.Split(string(raw), "\n") {
		if b, a, ok := strings.Cut(line, "\t"); ok && !strings.HasPrefix(line, "#") {
			if o, seen := british[a]; !seen || b < o {
				british[a] = b
			}
		}
	}
	word := regexp.MustCompile(`[A-Za-z]+`)
	var bare, spelt []evalQuery
	for _, q := range append(loadEval(t), loadEvalFile(t, "heldapart.tsv", "heldapart")...) {
		b := word.ReplaceAllStringFunc(q.Text, func(w string) string {
			if x, ok := british[strings.ToLower(w)]; ok {
				return x
			}
			return w
		})
		if b != q.Text {
			bare = append(bare, q)
			q.Text = b
			spelt = append(spelt, q)
		}
	}
	if len(spelt) < 10 {
		t.Fatalf("%d queries with a British spelling", len(spelt))
	}
	f := evalFinder(t)
	want, _ := scoreEval(f, bare)
	got, _ := scoreEval(f, spelt)
	for half, sc := range want {
		if g := got[half]; g.String() != sc.String() {
			t.Errorf("%s, spelt the British way: %v; bare %v", half, g, sc)
		}
	}
}
