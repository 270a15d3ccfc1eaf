package enrich

import (
	"encoding/json"
	"flag"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/parse"
)

// freshLabels is the fourth set (enrich/testdata/fresh.jsonl): parameters
// of corpus tools no other set touches, drawn at random with a fixed seed
// and labelled from their description and schema before the rules were
// run on them.
var freshLabels = filepath.Join("testdata", "fresh.jsonl")

// finalLabels is the fifth set (enrich/testdata/final.jsonl), drawn the
// same way after the rules were tuned on the fresh set, from tools no
// other set (the fresh one included) touches, and scored once.
var finalLabels = filepath.Join("testdata", "final.jsonl")

const freshSize = 120

// drawnSets are the sets drawn at random: where each is, its seed, and
// the sets whose tools and descriptions it leaves out.
var drawnSets = []struct {
	path    string
	seed    int64
	exclude []string
}{
	{freshLabels, 15, []string{corpusLabels, heldApartLabels, unseenLabels}},
	{finalLabels, 16, []string{corpusLabels, heldApartLabels, unseenLabels, freshLabels}},
}

var writeSample = flag.String("write-sample", "", "write each drawn set's records, unlabelled, into this folder")

// freshCueRe picks descriptions that read like they might state a
// constraint (the corpus index's "prose constraints" cues, widened); most
// such descriptions state none, so the sample holds negatives too.
var freshCueRe = regexp.MustCompile(`(?i)\b(?:one of|can be|must be|may be|should be|either|valid|allowed|possible|supported|accepted|default|max|maximum|min|minimum|at most|at least|up to|between|limit|limited|capped|characters?|length|items|positive|negative|non-negative|if not|omitted|not provided|not specified|unless|format|ISO|RFC|YYYY|date|timestamp|time|URL|URI|e-?mail|UUID|GUID|true|false|yes|no)\b`)

// corpusParam is one parameter slot of a corpus file, as the rules see it.
type corpusParam struct {
	rec labelRecord
	in  string
}

// corpusFiles lists the corpus documents (MCP captures and OpenAPI specs),
// relative to the corpus folder, sorted.
func corpusFiles(t *testing.T) []string {
	t.Helper()
	root := filepath.Join("..", "testdata", "corpus")
	var out []string
	for _, dir := range []string{"mcp", "openapi"} {
		es, err := os.ReadDir(filepath.Join(root, dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			n := e.Name()
			if strings.HasSuffix(n, ".source.json") {
				continue
			}
			out = append(out, dir+"/"+n)
		}
	}
	sort.Strings(out)
	return out
}

// corpusParams parses one corpus file and lists its parameter slots in the
// order Run visits them.
func corpusParams(t *testing.T, file string) []corpusParam {
	t.Helper()
	if ps, ok := corpusParamsMemo[file]; ok {
		return ps
	}
	ps := parseCorpusParams(t, file)
	corpusParamsMemo[file] = ps
	return ps
}

// corpusParamsMemo keeps each file's parameter slots for the tests that
// read the whole corpus (they do not change them).
var corpusParamsMemo = map[string][]corpusParam{}

func parseCorpusParams(t *testing.T, file string) []corpusParam {
	t.Helper()
	path := filepath.Join("..", "testdata", "corpus", file)
	var svc *ir.Service
	var err error
	if strings.HasPrefix(file, "mcp/") {
		svc, err = parse.MCPFile(path, parse.Options{})
	} else {
		svc, err = parse.OpenAPIFile(path, parse.Options{})
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []corpusParam
	for _, tl := range svc.Tools {
		if tl.Input == nil {
			continue
		}
		props, _ := tl.Input["properties"].(map[string]any)
		for _, p := range tl.Params {
			ps, _ := props[p.Arg].(map[string]any)
			if ps == nil {
				continue
			}
			view := resolveRef(tl.Input, ps, 0)
			desc := p.Description
			if desc == "" {
				desc, _ = view["description"].(string)
			}
			in := string(p.In)
			if in == string(ir.InArg) || in == "" {
				in = "mcp-input"
			}
			targets := []target{{pointer: string(p.Ref), description: desc, view: view, required: p.Required}}
			if svc.Source.Kind == ir.SourceMCP && in == "mcp-input" {
				cut := ""
				walkNested(tl.Input, view, string(p.Ref), p.Required, map[string]bool{}, 0, &targets, &cut)
			}
			for _, tg := range targets {
				schema := deepCopy(withoutDescription(tg.view)).(map[string]any)
				out = append(out, corpusParam{in: in, rec: labelRecord{
					ID: file + "#" + string(tl.Wire) + "#" + tg.pointer, File: file, Tool: string(tl.Wire),
					Pointer: tg.pointer, Description: tg.description, Schema: schema, Required: tg.required,
				}})
			}
		}
	}
	return out
}

// freshSample draws a set: parameters with a cue-bearing description, of
// tools that none of the excluded sets labels, one per distinct
// description (and none an excluded set holds), shuffled with seed; the
// first freshSize.
func freshSample(t *testing.T, seed int64, exclude []string) []corpusParam {
	t.Helper()
	usedTool := map[string]bool{}
	usedDesc := map[string]bool{}
	for _, path := range exclude {
		for _, r := range readLabels(t, path) {
			usedTool[r.File+"#"+r.Tool] = true
			usedDesc[r.Description] = true
		}
	}
	var pool []corpusParam
	for _, f := range corpusFiles(t) {
		for _, p := range corpusParams(t, f) {
			d := p.rec.Description
			if strings.TrimSpace(d) == "" || usedTool[p.rec.File+"#"+p.rec.Tool] || usedDesc[d] || !freshCueRe.MatchString(d) {
				continue
			}
			usedDesc[d] = true
			pool = append(pool, p)
		}
	}
	sort.Slice(pool, func(i, j int) bool { return pool[i].rec.ID < pool[j].rec.ID })
	rng := rand.New(rand.NewSource(seed))
	rng.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	if len(pool) > freshSize {
		pool = pool[:freshSize]
	}
	return pool
}

// TestFreshSetIsTheSample checks that each drawn set holds exactly the
// parameters its seeded draw picks, with their descriptions, schemas and
// requiredness as the corpus has them: the sets were not chosen by hand.
// With -write-sample DIR it writes the draws, unlabelled, instead.
func TestFreshSetIsTheSample(t *testing.T) {
	if testing.Short() {
		t.Skip("parses the whole corpus")
	}
	for _, set := range drawnSets {
		sample := freshSample(t, set.seed, set.exclude)
		if *writeSample != "" {
			writeDraw(t, filepath.Join(*writeSample, filepath.Base(set.path)), sample)
			continue
		}
		if _, err := os.Stat(set.path); err != nil {
			t.Errorf("%s: %v", set.path, err)
			continue
		}
		checkDraw(t, set.path, sample)
	}
}

func writeDraw(t *testing.T, path string, sample []corpusParam) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range sample {
		b, err := json.Marshal(map[string]any{
			"id": p.rec.ID, "file": p.rec.File, "tool": p.rec.Tool, "pointer": p.rec.Pointer, "in": p.in,
			"description": p.rec.Description, "schema": p.rec.Schema, "required": p.rec.Required,
		})
		if err != nil {
			t.Fatal(err)
		}
		f.Write(append(b, '\n'))
	}
}

func checkDraw(t *testing.T, path string, sample []corpusParam) {
	t.Helper()
	got := map[string]labelRecord{}
	for _, r := range readLabels(t, path) {
		if _, dup := got[r.ID]; dup {
			t.Errorf("%s: %s labelled twice", path, r.ID)
		}
		got[r.ID] = r
	}
	if len(got) != len(sample) {
		t.Errorf("%s has %d records, the draw %d", path, len(got), len(sample))
	}
	for _, p := range sample {
		r, ok := got[p.rec.ID]
		if !ok {
			t.Errorf("%s: %s drawn but not labelled", path, p.rec.ID)
			continue
		}
		if r.Description != p.rec.Description || r.Required != p.rec.Required || !equalJSON(normJSON(t, r.Schema), normJSON(t, p.rec.Schema)) {
			t.Errorf("%s: %s differs from the corpus", path, p.rec.ID)
		}
		if r.Expect == nil {
			t.Errorf("%s: %s not labelled (no \"expect\")", path, p.rec.ID)
		}
		for _, e := range r.Expect {
			if !strings.Contains(r.Description, e.Evidence) {
				t.Errorf("%s: %s: evidence %q is not in the description", path, r.ID, e.Evidence)
			}
		}
	}
}

// normJSON round-trips v through JSON, numbers as json.Number.
func normJSON(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}
