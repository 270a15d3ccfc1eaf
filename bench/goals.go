package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/codemode-dev/codemode/pack"
)

// Goal is one performance goal (issue 18): a value measured as a ratio
// (or a time) side by side in one benchmark run, beside its target.
type Goal struct {
	What   string
	Value  float64 // NaN when it was not measured
	Unit   string  // "×", " ms", " MB"
	Target float64 // met when Value <= Target; 0 for a number that is only documented
	Source string  // the benchmark and metric, or the function, it comes from
}

// Met says whether the goal is reached.
func (g Goal) Met() bool { return g.Target > 0 && !math.IsNaN(g.Value) && g.Value <= g.Target }

// goalMetric is a goal read from a Go benchmark's reported metric.
type goalMetric struct {
	what, pkg, bench, metric, unit string
	target                         float64
}

// GoalBenchmarks are the Go benchmarks that measure the goals, with the
// -benchtime each is run at (cmd/bench runs them).
var GoalBenchmarks = []struct{ Pkg, Pattern, Benchtime string }{
	{"./parse", "^BenchmarkCompileVsKinFloor$", "5x"}, // 2x flipped Kubernetes between 0.44 and 0.64 from run to run
	{"./parse", "^BenchmarkReadManifest$", "3x"},
	{"./pack", "^BenchmarkCompilePack$", "3x"},
	{"./runtime", "^(BenchmarkRunCodeFloor|BenchmarkCallOverhead|BenchmarkTimeLimitLateness)$", "10x"},
	{"./runtime", "^BenchmarkPoolUnderLoad$", "3x"},
	{"./gateway", "^BenchmarkFindEval$", "1000x"},
}

var goalMetrics = []goalMetric{
	{"compile Stripe (494 ops, YAML) / kin-openapi load", "./parse", "BenchmarkCompileVsKinFloor", "stripe-x-floor", "×", 0.5},
	{"compile GitHub REST (1,223 ops) / kin-openapi load", "./parse", "BenchmarkCompileVsKinFloor", "github-x-floor", "×", 0.5},
	{"compile Kubernetes (Swagger 2.0) / kin-openapi load", "./parse", "BenchmarkCompileVsKinFloor", "kubernetes-x-floor", "×", 0.5},
	{"compile Stripe: peak live heap", "./parse", "BenchmarkCompileVsKinFloor", "stripe-peak-MB", " MB", 300},
	{"compile GitHub REST: peak live heap", "./parse", "BenchmarkCompileVsKinFloor", "github-peak-MB", " MB", 300},
	{"compile Kubernetes: peak live heap", "./parse", "BenchmarkCompileVsKinFloor", "kubernetes-peak-MB", " MB", 300},
	{"load Stripe's manifest (manifest.Read, as run and serve load a pack) / encoding/json decode", "./parse", "BenchmarkReadManifest", "read-x-floor", "×", 0},
	{"compile a pack of every corpus file (32 services): its services at once / one at a time", "./pack", "BenchmarkCompilePack", "atonce-x-inturn", "×", 0},
	{"warm trivial run_code, no type check / bare Monty feed", "./runtime", "BenchmarkRunCodeFloor", "notc-x-feed", "×", 50},
	{"warm trivial run_code with type check, small pack", "./runtime", "BenchmarkRunCodeFloor", "tc-ms", " ms", 3},
	{"one-service program, type-checked: large pack / small pack", "./runtime", "BenchmarkRunCodeFloor", "tc-large/small", "×", 1.5},
	{"per-call overhead over a direct call / Monty host round trip", "./runtime", "BenchmarkCallOverhead", "overhead-x-hostcall", "×", 2},
	{"1,000 calls to an in-process upstream, one program", "./runtime", "BenchmarkCallOverhead", "ms/1000calls", " ms", 60},
	{"program stopped after its time limit (host work included)", "./runtime", "BenchmarkTimeLimitLateness", "ms-late", " ms", 100},
	{"hand-out wait p50, 1 program at a time", "./runtime", "BenchmarkPoolUnderLoad", "p50-ms@1", " ms", 0},
	{"hand-out wait p99, 1 program at a time", "./runtime", "BenchmarkPoolUnderLoad", "p99-ms@1", " ms", 0},
	{"hand-out wait p50, 8 programs at once", "./runtime", "BenchmarkPoolUnderLoad", "p50-ms@8", " ms", 0},
	{"hand-out wait p99, 8 programs at once", "./runtime", "BenchmarkPoolUnderLoad", "p99-ms@8", " ms", 0},
	{"hand-out wait p50, 32 programs at once", "./runtime", "BenchmarkPoolUnderLoad", "p50-ms@32", " ms", 0},
	{"hand-out wait p99, 32 programs at once", "./runtime", "BenchmarkPoolUnderLoad", "p99-ms@32", " ms", 0},
	{"workers the pool keeps after 32 programs at once (4 at rest, grows to 16 while programs wait)", "./runtime", "BenchmarkPoolUnderLoad", "kept@32", " workers", 0},
	{"find_tool search and answer p50 over the 5,892-tool evaluation pack, words only (issue 14)", "./gateway", "BenchmarkFindEval/words", "p50-ms", " ms", 0},
	{"find_tool search and answer p50 over the 5,892-tool evaluation pack, with word vectors and the sentence encoder (issue 14)", "./gateway", "BenchmarkFindEval/sentences", "p50-ms", " ms", 5},
}

// Goals reads every goal from the Go benchmarks' results, and the stub
// token ratios (NaN when not measured): over the corpus the stubs were
// shaped on, over the held-apart MCP tool lists (held apart at first,
// looked at while the shared-docs mechanisms were written), and over
// testdata/stubfresh's lists, never looked at before they were measured.
func Goals(gb []GoBench, stubTokens, stubTokensHeldApart, stubTokensFresh float64) []Goal {
	var out []Goal
	for _, m := range goalMetrics {
		if m.metric == "ms-late" { // before the time limit, after the calls
			out = append(out,
				Goal{What: "stub tokens / wire JSON tokens (MCP corpus, the stubs' format was shaped on it), every default, bound, pattern and enum kept", Value: stubTokens, Unit: "×", Target: 0.6, Source: "bench.StubTokens (testdata/corpus/mcp)"},
				Goal{What: "stub tokens / wire JSON tokens (held-apart MCP tool lists, looked at while the shared docs were written)", Value: stubTokensHeldApart, Unit: "×", Target: 0.6, Source: "bench.StubTokens (testdata/heldapart/mcp)"},
				Goal{What: "stub tokens / wire JSON tokens (fresh MCP tool lists, never looked at before measured)", Value: stubTokensFresh, Unit: "×", Target: 0.6, Source: "bench.StubTokens (testdata/stubfresh/mcp)"})
		}
		g := Goal{What: m.what, Value: math.NaN(), Unit: m.unit, Target: m.target, Source: fmt.Sprintf("%s %s (%s)", strings.TrimPrefix(m.pkg, "./"), m.bench, m.metric)}
		for _, b := range gb {
			if b.Package == m.pkg && b.Name == m.bench {
				if v, ok := b.Metrics[m.metric]; ok {
					g.Value = v
				}
			}
		}
		out = append(out, g)
	}
	return out
}

// StubTokens is the tokens of the Python modules a pack writes for the
// MCP tool lists under dir (api/<svc>.py, what the model reads) and the
// tokens of the same tools as the wire sends them (each list's "tools"
// array, compact JSON, and the server's instructions where it has them,
// which the module's docstring carries), summed over the lists.
func StubTokens(dir string) (stub, wire int, err error) {
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	sort.Strings(files)
	if len(files) == 0 {
		return 0, 0, fmt.Errorf("no tool lists in %s", dir)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return 0, 0, err
		}
		var doc struct {
			Tools        json.RawMessage `json:"tools"`
			Instructions string          `json:"instructions"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			return 0, 0, fmt.Errorf("%s: %v", f, err)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, doc.Tools); err != nil {
			return 0, 0, fmt.Errorf("%s: %v", f, err)
		}
		// The module as a pack writes it (enrich's marks on the
		// parameters included).
		out, err := pack.Compile(context.Background(), &pack.Pack{Dir: ".", Out: "api", Services: []pack.Service{{MCP: f}}}, pack.Options{})
		if err != nil {
			return 0, 0, err
		}
		for _, s := range out.Manifest.Services {
			stub += Tokens(string(out.Files[s.File]))
		}
		wire += Tokens(compact.String())
		if doc.Instructions != "" {
			// The server's instructions reach the model with its tools (the
			// initialize result); the module's docstring carries them.
			j, _ := json.Marshal(doc.Instructions)
			wire += Tokens(string(j))
		}
	}
	return stub, wire, nil
}
