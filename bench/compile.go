package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Peer versions, pinned (served by the Go module proxy and npm).
const (
	OapiCodegen        = "github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2"
	Ogen               = "github.com/ogen-go/ogen/cmd/ogen@v1.24.0"
	CloudflareCodemode = "@cloudflare/codemode@0.5.6"
)

// InstallPeers builds the Go peers into dir/bin with go install, run in dir
// (outside this module, so go.mod is untouched).
func InstallPeers(ctx context.Context, dir string) (map[string]string, error) {
	bin := filepath.Join(dir, "bin")
	out := map[string]string{}
	for name, pkg := range map[string]string{"oapi-codegen": OapiCodegen, "ogen": Ogen} {
		p := filepath.Join(bin, name)
		if _, err := os.Stat(p); err != nil {
			cmd := exec.CommandContext(ctx, "go", "install", pkg)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "GOBIN="+bin, "GOFLAGS=-buildvcs=false")
			if b, err := cmd.CombinedOutput(); err != nil {
				return nil, fmt.Errorf("go install %s: %v\n%s", pkg, err, b)
			}
		}
		out[name] = p
	}
	return out, nil
}

// CompileResult is one tool on one input: the best of its runs.
type CompileResult struct {
	Input, Tool string
	Seconds     float64 // best wall time (process start to exit)
	OK          bool
	Note        string // the failure's first line
	OutBytes    int64
}

// timeCmd runs argv runs times and keeps the best time; a failing run stops.
func timeCmd(ctx context.Context, runs int, dir string, argv []string, outPath string) (float64, bool, string, int64) {
	best := 0.0
	for i := 0; i < runs; i++ {
		os.RemoveAll(filepath.Join(dir, "out"))
		os.MkdirAll(filepath.Join(dir, "out"), 0o755)
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Dir = dir
		var buf strings.Builder
		cmd.Stdout, cmd.Stderr = &buf, &buf
		start := time.Now()
		err := cmd.Run()
		d := time.Since(start).Seconds()
		if err != nil {
			return d, false, firstErrLine(buf.String(), err), 0
		}
		if best == 0 || d < best {
			best = d
		}
	}
	return best, true, "", dirSize(outPath)
}

// firstErrLine picks the line of a failed run that says why: a pointer
// into the spec ("file:line -> reason"), a "not implemented", or the first
// line mentioning an error; log lines at INFO level are skipped.
func firstErrLine(out string, err error) string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "INFO") || strings.Contains(l, "\tINFO\t") {
			continue
		}
		lines = append(lines, l)
	}
	pick := ""
	for _, test := range []func(string) bool{
		func(l string) bool { return strings.Contains(l, " -> ") },
		func(l string) bool { return strings.Contains(l, "not implemented") },
		func(l string) bool { return strings.Contains(strings.ToLower(l), "error") },
	} {
		for _, l := range lines {
			if pick == "" && test(l) {
				pick = l
			}
		}
	}
	if pick == "" {
		pick = err.Error()
	}
	pick = strings.TrimPrefix(pick, "- ")
	if len(pick) > 160 {
		pick = pick[:160] + "…"
	}
	return pick
}

func dirSize(p string) int64 {
	var n int64
	filepath.Walk(p, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			n += fi.Size()
		}
		return nil
	})
	return n
}

// CompileOpenAPI times codemode gen, oapi-codegen and ogen on each spec.
func CompileOpenAPI(ctx context.Context, work, codemode string, peers map[string]string, specs []string, runs func(spec string) int) []CompileResult {
	var out []CompileResult
	for _, spec := range specs {
		abs, _ := filepath.Abs(spec)
		name := filepath.Base(spec)
		n := runs(spec)
		tools := []struct {
			tool string
			argv []string
			out  string
		}{
			{"codemode gen", []string{codemode, "gen", "--openapi", abs, "--service", "api", "-o", "out/api"}, "out"},
			{"oapi-codegen", []string{peers["oapi-codegen"], "-generate", "types,client", "-package", "api", "-o", "out/api.go", abs}, "out"},
			{"ogen", []string{peers["ogen"], "--target", "out/ogen", "--package", "api", "--clean", abs}, "out"},
		}
		for _, t := range tools {
			dir := filepath.Join(work, "compile", strings.ReplaceAll(t.tool, " ", "-"))
			os.MkdirAll(dir, 0o755)
			s, ok, note, size := timeCmd(ctx, n, dir, t.argv, filepath.Join(dir, t.out))
			out = append(out, CompileResult{Input: name, Tool: t.tool, Seconds: s, OK: ok, Note: note, OutBytes: size})
		}
	}
	return out
}

// CompileMCP times codemode gen --mcp and @cloudflare/codemode's type
// generator on every tool list, one process per list; each list's best of
// runs is summed per tool.
func CompileMCP(ctx context.Context, work, codemode, script string, lists []string, runs int) []CompileResult {
	sort.Strings(lists)
	total := map[string]*CompileResult{
		"codemode gen":                 {Input: fmt.Sprintf("%d MCP tool lists", len(lists)), Tool: "codemode gen", OK: true},
		"@cloudflare/codemode (types)": {Input: fmt.Sprintf("%d MCP tool lists", len(lists)), Tool: "@cloudflare/codemode (types)", OK: true},
	}
	for _, l := range lists {
		abs, _ := filepath.Abs(l)
		for tool, argv := range map[string][]string{
			"codemode gen":                 {codemode, "gen", "--mcp", abs, "-o", "out/api"},
			"@cloudflare/codemode (types)": {"node", script, abs, "out/types.d.ts"},
		} {
			dir := filepath.Join(work, "compile-mcp", strings.NewReplacer(" ", "-", "@", "", "/", "-", "(", "", ")", "").Replace(tool))
			os.MkdirAll(dir, 0o755)
			s, ok, note, size := timeCmd(ctx, runs, dir, argv, filepath.Join(dir, "out"))
			r := total[tool]
			r.Seconds += s
			r.OutBytes += size
			if !ok {
				r.OK = false
				r.Note = filepath.Base(l) + ": " + note
			}
		}
	}
	return []CompileResult{*total["codemode gen"], *total["@cloudflare/codemode (types)"]}
}
