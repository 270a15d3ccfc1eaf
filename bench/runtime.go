package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/codemode-dev/codemode/findtool"
	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/opslab"
	"github.com/codemode-dev/codemode/parse"
	"github.com/codemode-dev/codemode/readgate"
	"github.com/codemode-dev/codemode/runtime"
	"github.com/codemode-dev/codemode/runtime/upstream"
)

// GoBench is one line of `go test -bench` output.
type GoBench struct {
	Package, Name string
	N             int
	Metrics       map[string]float64 // unit → value ("ns/op", "ns/call", ...)
}

var benchLine = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+(\d+)\s+(.*)$`)

// RunGoBench runs the named benchmarks of a package and parses the output.
func RunGoBench(ctx context.Context, pkg, pattern, benchtime string) ([]GoBench, error) {
	cmd := exec.CommandContext(ctx, "go", "test", "-run", "^$", "-bench", pattern, "-benchtime", benchtime, "-count", "1", pkg)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("go test -bench %s %s: %v\n%s", pattern, pkg, err, out)
	}
	return ParseGoBench(pkg, string(out)), nil
}

// serverLog is a line an upstream MCP server's stderr adds to the log (see
// upstream.MCPConfig.Log); go test interleaves it with its own output, in
// the middle of a benchmark's line.
var serverLog = regexp.MustCompile(`mcp \S+ stderr: [^\n]*\n`)

// ParseGoBench reads benchmark lines.
func ParseGoBench(pkg, out string) []GoBench {
	var res []GoBench
	out = serverLog.ReplaceAllString(out, "")
	for _, line := range strings.Split(out, "\n") {
		m := benchLine.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[2])
		b := GoBench{Package: pkg, Name: m[1], N: n, Metrics: map[string]float64{}}
		f := strings.Fields(m[3])
		for i := 0; i+1 < len(f); i += 2 {
			if v, err := strconv.ParseFloat(f[i], 64); err == nil {
				b.Metrics[f[i+1]] = v
			}
		}
		res = append(res, b)
	}
	return res
}

// LabRuntime are runtime numbers measured on the small lab.
type LabRuntime struct {
	Trivial      time.Duration // median warm run_code of print(1)
	CallDirect   time.Duration // median upstream call straight from Go
	CallProgram  time.Duration // per call inside a program of Calls calls
	Calls        int
	Throughput   []Throughput
	FindTools    int
	FindServices int
	FindIndex    time.Duration
	FindQuery    time.Duration // median over the queries
	FindQueries  int
}

// Throughput is programs per second at one concurrency.
type Throughput struct {
	Concurrency, Programs int
	PerSecond             float64
}

func median(ds []time.Duration) time.Duration {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2]
}

// MeasureLabRuntime measures run_code latency, per-call overhead and
// concurrent throughput on the small lab (compiled into work/api).
func MeasureLabRuntime(ctx context.Context, bin, work string, seed uint64) (*LabRuntime, error) {
	api := filepath.Join(work, "api")
	if _, err := CompileLab(ctx, filepath.Join(work, "pack"), api, bin, opslab.Small, seed); err != nil {
		return nil, err
	}
	p, err := LabPack(filepath.Join(work, "rt"), api, bin, opslab.Small, seed, "")
	if err != nil {
		return nil, err
	}
	rt, err := p.OpenRuntime(ctx, func(c *runtime.Config) {
		c.Limits.Calls = 5000
		c.Workers = 4
		c.ReadGate = readgate.Off // a trusted benchmark program
	})
	if err != nil {
		return nil, err
	}
	defer rt.Close()
	r := &LabRuntime{Calls: 200}
	run := func(code string) error {
		res, err := rt.Run(ctx, "bench", code)
		if err != nil {
			return err
		}
		if !res.OK() {
			return fmt.Errorf("program failed: %s", res.Error)
		}
		return nil
	}
	if err := run("api.controller.inventory_get(id=1)\n"); err != nil { // warm: start the upstream
		return nil, err
	}
	var ds []time.Duration
	for range 60 {
		t := time.Now()
		if err := run("print(1)\n"); err != nil {
			return nil, err
		}
		ds = append(ds, time.Since(t))
	}
	r.Trivial = median(ds)

	svc, _ := rt.Manifest().Service("controller")
	tool, _ := svc.Tool("inventory_get")
	up := upstream.NewMCPCommand(LabCommand(bin, opslab.Small, seed, "", "", "controller"), nil)
	defer up.Close()
	ds = ds[:0]
	for i := range r.Calls + 20 {
		t := time.Now()
		if _, err := up.Call(ctx, tool, map[string]any{"id": 1}); err != nil {
			return nil, err
		}
		if i >= 20 {
			ds = append(ds, time.Since(t))
		}
	}
	r.CallDirect = median(ds)
	prog := fmt.Sprintf("for i in range(%d):\n    api.controller.inventory_get(id=1)\n", r.Calls)
	ds = ds[:0]
	for range 5 {
		t := time.Now()
		if err := run(prog); err != nil {
			return nil, err
		}
		ds = append(ds, time.Since(t))
	}
	r.CallProgram = median(ds) / time.Duration(r.Calls)

	// Concurrent programs, each making 10 calls and printing a line.
	work10 := "n = 0\nfor i in range(10):\n    n += len(api.controller.inventory_get(id=1)[\"name\"])\nprint(n)\n"
	for _, c := range []int{1, 2, 4, 8} {
		const programs = 48
		var wg sync.WaitGroup
		errs := make(chan error, programs)
		sem := make(chan struct{}, c)
		t := time.Now()
		for range programs {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				if err := run(work10); err != nil {
					errs <- err
				}
			}()
		}
		wg.Wait()
		close(errs)
		if err := <-errs; err != nil {
			return nil, err
		}
		r.Throughput = append(r.Throughput, Throughput{Concurrency: c, Programs: programs, PerSecond: programs / time.Since(t).Seconds()})
	}
	return r, nil
}

// MeasureFind indexes every tool of the corpus (MCP lists and OpenAPI
// specs) and times find_tool's search over it.
func MeasureFind(corpus string, r *LabRuntime) error {
	var docs []findtool.Doc
	files, _ := filepath.Glob(filepath.Join(corpus, "mcp", "*.json"))
	specs, _ := filepath.Glob(filepath.Join(corpus, "openapi", "*"))
	for _, f := range specs {
		if !strings.HasSuffix(f, ".source.json") && (strings.HasSuffix(f, ".json") || strings.HasSuffix(f, ".yaml")) {
			files = append(files, f)
		}
	}
	sort.Strings(files)
	for _, f := range files {
		var svc *ir.Service
		var err error
		if strings.Contains(f, string(os.PathSeparator)+"mcp"+string(os.PathSeparator)) {
			svc, err = parse.MCPFile(f, parse.Options{})
		} else {
			svc, err = parse.OpenAPIFile(f, parse.Options{})
		}
		if err != nil {
			continue // a spec the parser refuses is reported by the compile tables
		}
		r.FindServices++
		for _, t := range svc.Tools {
			docs = append(docs, findtool.Doc{Service: svc.Name, Tool: t})
		}
	}
	r.FindTools = len(docs)
	t := time.Now()
	x := findtool.New(docs)
	r.FindIndex = time.Since(t)
	queries := []string{"create an issue", "list pull requests for a repository", "refund a payment", "take a screenshot of the page",
		"delete a pod", "search the web", "send a message to a channel", "update a customer's email", "list", "find pets by status"}
	var ds []time.Duration
	for range 20 {
		for _, q := range queries {
			t := time.Now()
			x.Search(q, 8)
			ds = append(ds, time.Since(t))
		}
	}
	r.FindQuery = median(ds)
	r.FindQueries = len(queries)
	return nil
}
