package pack_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/pack"
)

// corpusPack is one pack of every corpus file (corpusPacks), the OpenAPI
// documents named <stem>_rest, GitHub's REST API left out with -short.
func corpusPack(t testing.TB) *pack.Pack {
	t.Helper()
	packs := corpusPacks(t)
	p := &pack.Pack{Dir: ".", Out: "api"}
	for _, name := range sortedNames(packs) {
		if testing.Short() && strings.Contains(name, "github-rest") {
			continue
		}
		src := packs[name].Services[0]
		if src.OpenAPI != "" { // Stripe's MCP server and REST API share a name
			stem := strings.TrimSuffix(filepath.Base(src.OpenAPI), filepath.Ext(src.OpenAPI))
			src.Name = strings.ReplaceAll(stem, "-", "_") + "_rest"
		}
		p.Services = append(p.Services, src)
	}
	return p
}

// TestConcurrentCompileMatchesOneAtATime: a pack's services compiled at
// once (Compile, on every core) give the bytes, diagnostics and decisions
// of compiling them one at a time (GOMAXPROCS 1), in the pack's order.
func TestConcurrentCompileMatchesOneAtATime(t *testing.T) {
	p := corpusPack(t)
	compileOn := func(procs int) *pack.Output {
		defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(procs))
		out, err := pack.Compile(context.Background(), p, pack.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	one, many := compileOn(1), compileOn(max(goruntime.GOMAXPROCS(0), 4))
	if len(one.Files) != len(many.Files) {
		t.Fatalf("%d files one at a time, %d at once", len(one.Files), len(many.Files))
	}
	for f, data := range one.Files {
		if !bytes.Equal(data, many.Files[f]) {
			t.Errorf("%s differs when the services are compiled at once", f)
		}
	}
	if len(one.Diagnostics) != len(many.Diagnostics) || len(one.Decisions) != len(many.Decisions) {
		t.Errorf("diagnostics %d/%d, decisions %d/%d", len(one.Diagnostics), len(many.Diagnostics), len(one.Decisions), len(many.Decisions))
	}
	var names, want []string
	for _, s := range many.Services {
		names = append(names, string(s.Name))
	}
	for _, s := range one.Services {
		want = append(want, string(s.Name))
	}
	if !slices.Equal(names, want) {
		t.Errorf("services in order %v, want %v", names, want)
	}
}

// TestCompileReportsFirstFailureInPackOrder: with services compiled at
// once, the error is the one compiling them in order meets first: an
// unreadable source before a clash of names after it, a clash before a
// later unreadable source.
func TestCompileReportsFirstFailureInPackOrder(t *testing.T) {
	dir := t.TempDir()
	good := "../testdata/corpus/mcp/everything.json"
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"tools": [`), 0o644)
	big := "../testdata/corpus/openapi/stripe.yaml" // slow: finishes after the others
	dead := filepath.Join(dir, "no-such-server")
	prev := goruntime.GOMAXPROCS(max(goruntime.GOMAXPROCS(0), 4))
	defer goruntime.GOMAXPROCS(prev)
	for _, c := range []struct {
		name     string
		services []pack.Service
		want     string
	}{
		{"unreadable before clash", []pack.Service{{OpenAPI: big}, {MCP: bad}, {MCP: good}, {MCP: good}}, bad + ": invalid JSON: unexpected end of input"},
		{"clash before unreadable", []pack.Service{{MCP: good}, {MCP: good}, {MCP: bad}}, good + `: service name "mcp_servers_everything" is already used by ` + good + "; set name: in the pack"},
		{"unreadable after a slow one", []pack.Service{{OpenAPI: big}, {MCP: good}, {MCP: bad}}, bad + ": invalid JSON: unexpected end of input"},
		// Live services are listed from the start, beside the rest.
		{"dead server before unreadable", []pack.Service{{MCP: good}, {Name: "x", MCPCommand: []string{dead, "stdio"}}, {MCP: bad}}, "mcp x: cannot start the server: fork/exec " + dead + ": no such file or directory"},
		{"unreadable before dead server", []pack.Service{{OpenAPI: big}, {MCP: bad}, {Name: "x", MCPCommand: []string{dead, "stdio"}}}, bad + ": invalid JSON: unexpected end of input"},
	} {
		p := &pack.Pack{Dir: ".", Out: filepath.Join(dir, "api"), Services: c.services}
		_, err := pack.Compile(context.Background(), p, pack.Options{})
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: err = %v, want %s", c.name, err, c.want)
		}
	}
}

// BenchmarkCompilePack compiles the corpus pack (every corpus file, 32
// services) as Compile does, its services at once, and, in the same
// iterations, one service at a time (a one-service pack each, in turn: how
// Compile ran before), reporting atonce-x-inturn, the first's time over
// the second's.
func BenchmarkCompilePack(b *testing.B) {
	p := corpusPack(b)
	ctx := context.Background()
	var atOnce, inTurn time.Duration
	for b.Loop() {
		start := time.Now()
		if _, err := pack.Compile(ctx, p, pack.Options{}); err != nil {
			b.Fatal(err)
		}
		atOnce += time.Since(start)
		start = time.Now()
		for _, src := range p.Services {
			one := &pack.Pack{Dir: p.Dir, Out: p.Out, Services: []pack.Service{src}}
			if _, err := pack.Compile(ctx, one, pack.Options{}); err != nil {
				b.Fatal(err)
			}
		}
		inTurn += time.Since(start)
	}
	b.ReportMetric(atOnce.Seconds()/inTurn.Seconds(), "atonce-x-inturn")
	b.ReportMetric(atOnce.Seconds()/float64(b.N), "atonce-s/op")
}
