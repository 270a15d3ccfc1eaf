// Command bench runs codemode's benchmarks and writes BENCHMARKS.md: the
// token economy of direct tool calling vs code mode on the ops lab (both
// sizes, five incidents), compile speed beside oapi-codegen, ogen and
// @cloudflare/codemode's type generator, and runtime numbers. Run it from
// the repository root (make bench).
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/codemode-dev/codemode/bench"
	"github.com/codemode-dev/codemode/opslab"
)

func main() {
	out := flag.String("o", "BENCHMARKS.md", "report to write")
	dir := flag.String("dir", "benchmarks", "directory for the chart and the step listing (relative to the report)")
	seed := flag.Uint64("seed", 1, "lab data seed")
	work := flag.String("work", "", "scratch directory (default: a new temporary one, removed after)")
	peers := flag.String("peers", "", "where to build the Go peers (default: under the scratch directory)")
	skipCompile := flag.Bool("skip-compile", false, "skip the compile-speed comparison")
	skipRuntime := flag.Bool("skip-runtime", false, "skip the runtime numbers")
	runs := flag.Int("runs", 3, "runs per compile measurement (best kept; 1 for GitHub REST)")
	skipTokens := flag.Bool("skip-tokens", false, "skip the token economy on the ops lab")
	flag.BoolVar(&skipGoals, "skip-goals", false, "skip the performance goals")
	flag.Parse()
	if err := run(*out, *dir, *work, *peers, *seed, *runs, *skipTokens, *skipCompile, *skipRuntime); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func logf(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, a...)...)
}

// skipGoals skips the performance goals (-skip-goals).
var skipGoals bool

func run(out, dir, work, peersDir string, seed uint64, runs int, skipTokens, skipCompile, skipRuntime bool) error {
	ctx := context.Background()
	if work == "" {
		w, err := os.MkdirTemp("", "codemode-bench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(w)
		work = w
	}
	work, _ = filepath.Abs(work)
	bin := filepath.Join(work, "bin")
	logf("building opslab and codemode")
	for name, pkg := range map[string]string{"opslab": "./cmd/opslab", "codemode": "./cmd/codemode"} {
		if b, err := exec.Command("go", "build", "-o", filepath.Join(bin, name), pkg).CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
		}
	}
	lab, cm := filepath.Join(bin, "opslab"), filepath.Join(bin, "codemode")
	rep := &bench.Report{Date: time.Now(), Machine: bench.ThisMachine(), Seed: seed}

	sizes := []opslab.Size{opslab.Small, opslab.Large}
	if skipTokens {
		sizes = nil
	}
	for _, size := range sizes {
		logf("token economy: %s lab, 5 incidents × 2 arms", size)
		lt, err := bench.RunTokens(ctx, lab, filepath.Join(work, "lab-"+string(size)), size, seed)
		if err != nil {
			return err
		}
		rep.Labs = append(rep.Labs, lt)
	}
	reportDir := filepath.Dir(out)
	if err := os.MkdirAll(filepath.Join(reportDir, dir), 0o755); err != nil {
		return err
	}
	if len(rep.Labs) > 0 {
		rep.Chart = filepath.ToSlash(filepath.Join(dir, "transcript.svg"))
		rep.Steps = filepath.ToSlash(filepath.Join(dir, "steps.md"))
		if err := os.WriteFile(filepath.Join(reportDir, rep.Chart), []byte(bench.Chart(rep.Labs)), 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(reportDir, rep.Steps), []byte(bench.StepsListing(rep.Labs)), 0o644); err != nil {
			return err
		}
	}
	// Write what we have now, so a later failure still leaves the tables.
	if err := os.WriteFile(out, []byte(rep.Markdown()), 0o644); err != nil {
		return err
	}

	if !skipCompile {
		if peersDir == "" {
			peersDir = filepath.Join(work, "peers")
		}
		os.MkdirAll(peersDir, 0o755)
		logf("building peers: %s, %s", bench.OapiCodegen, bench.Ogen)
		peers, err := bench.InstallPeers(ctx, peersDir)
		if err != nil {
			rep.Problems = append(rep.Problems, "Go peers could not be built: "+err.Error())
		} else {
			specs := []string{"testdata/corpus/openapi/petstore-v3.json", "testdata/corpus/openapi/stripe.yaml", "testdata/corpus/openapi/github-rest.json"}
			logf("compile speed: %d OpenAPI specs × 3 tools", len(specs))
			rep.OpenAPI = bench.CompileOpenAPI(ctx, work, cm, peers, specs, func(spec string) int {
				if filepath.Base(spec) == "github-rest.json" {
					return 1
				}
				return runs
			})
		}
		lists, _ := filepath.Glob("testdata/corpus/mcp/*.json")
		script, _ := filepath.Abs("bench/cftypes.mjs")
		logf("compile speed: %d MCP tool lists × 2 tools", len(lists))
		rep.MCP = bench.CompileMCP(ctx, work, cm, script, lists, runs)
		if err := os.WriteFile(out, []byte(rep.Markdown()), 0o644); err != nil {
			return err
		}
	}

	if !skipRuntime {
		logf("runtime: small lab")
		rt, err := bench.MeasureLabRuntime(ctx, lab, filepath.Join(work, "runtime"), seed)
		if err != nil {
			rep.Problems = append(rep.Problems, "lab runtime numbers: "+err.Error())
		} else {
			logf("runtime: find_tool over the corpus")
			if err := bench.MeasureFind("testdata/corpus", rt); err != nil {
				rep.Problems = append(rep.Problems, "find_tool numbers: "+err.Error())
			}
			rep.Runtime = rt
		}
		for _, gb := range []struct{ pkg, pattern, benchtime string }{
			{"./runtime", "^(BenchmarkTrivialProgram|BenchmarkCallDirect|BenchmarkCallInProgram|Benchmark1000Calls)$", "1s"},
			{"./findtool", "^BenchmarkSearch5000$", "1s"},
			{"./gateway", "^BenchmarkFindTool$", "1s"},
		} {
			logf("go test -bench %s %s", gb.pattern, gb.pkg)
			res, err := bench.RunGoBench(ctx, gb.pkg, gb.pattern, gb.benchtime)
			if err != nil {
				rep.Problems = append(rep.Problems, err.Error())
				continue
			}
			rep.GoBench = append(rep.GoBench, res...)
		}
	}
	if !skipGoals {
		var gb []bench.GoBench
		for _, g := range bench.GoalBenchmarks {
			logf("goals: go test -bench %s %s", g.Pattern, g.Pkg)
			res, err := bench.RunGoBench(ctx, g.Pkg, g.Pattern, g.Benchtime)
			if err != nil {
				rep.Problems = append(rep.Problems, err.Error())
				continue
			}
			gb = append(gb, res...)
		}
		var ratios [3]float64
		for i, dir := range []string{"testdata/corpus/mcp", "testdata/heldapart/mcp", "testdata/stubfresh/mcp"} {
			ratios[i] = math.NaN()
			if stub, wire, err := bench.StubTokens(dir); err != nil {
				rep.Problems = append(rep.Problems, "stub tokens: "+err.Error())
			} else {
				ratios[i] = float64(stub) / float64(wire)
			}
		}
		rep.Goals = bench.Goals(gb, ratios[0], ratios[1], ratios[2])
		fmt.Print(bench.GoalsTable(rep.Goals))
	}
	logf("writing %s", out)
	return os.WriteFile(out, []byte(rep.Markdown()), 0o644)
}
