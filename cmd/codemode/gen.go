package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/codemode-dev/codemode/gateway"
	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/pack"
	"github.com/codemode-dev/codemode/store"
)

// sourceFlags collects --mcp/--mcp-cmd/--mcp-url/--openapi in order, with
// --service naming the source before it.
type sourceFlags struct{ sources []pack.Service }

func (s *sourceFlags) register(fs *flag.FlagSet) {
	fs.Func("mcp", "MCP tools/list JSON `FILE`", func(v string) error {
		s.sources = append(s.sources, pack.Service{MCP: v})
		return nil
	})
	fs.Func("mcp-cmd", "stdio MCP server `COMMAND` (quoted, with its arguments)", func(v string) error {
		argv, err := pack.SplitCommand(v)
		if err != nil {
			return err
		}
		if len(argv) == 0 {
			return fmt.Errorf("empty command")
		}
		s.sources = append(s.sources, pack.Service{MCPCommand: argv})
		return nil
	})
	fs.Func("mcp-url", "streamable-HTTP MCP server `URL`", func(v string) error {
		s.sources = append(s.sources, pack.Service{MCPURL: v})
		return nil
	})
	fs.Func("openapi", "OpenAPI 2.0/3.x `FILE` (JSON or YAML)", func(v string) error {
		s.sources = append(s.sources, pack.Service{OpenAPI: v})
		return nil
	})
	fs.Func("service", "service `NAME` of the source given just before", func(v string) error {
		if len(s.sources) == 0 {
			return fmt.Errorf("--service must follow the source it names")
		}
		s.sources[len(s.sources)-1].Name = v
		return nil
	})
}

// loadPack builds the pack from -c or from source flags.
func loadPack(config string, srcs []pack.Service, out string) (*pack.Pack, error) {
	if config != "" {
		if len(srcs) > 0 {
			return nil, usageErr("codemode: give either -c or source flags, not both")
		}
		p, err := pack.Load(config)
		if err != nil {
			return nil, err
		}
		if out != "" {
			p.Out = out
			p.Dir = "."
		}
		return p, nil
	}
	if len(srcs) == 0 {
		return nil, usageErr("codemode: no source: no codemode.yaml here; give -c FILE or one of --mcp, --mcp-cmd, --mcp-url, --openapi")
	}
	if out == "" {
		out = "api"
	}
	return &pack.Pack{Dir: ".", Out: out, Services: srcs}, nil
}

func cmdGen(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("gen", stderr)
	var srcs sourceFlags
	srcs.register(fs)
	config := fs.String("c", "", "pack `FILE` (default ./codemode.yaml when no source flag is given)")
	out := fs.String("o", "", "output `DIR` (default api/, or the pack's out:)")
	noEnrich := fs.Bool("no-enrich", false, "turn the enrichment pass off")
	goPkg := fs.String("go-package", "", "also emit a Go package embedding the surface into `DIR`")
	asJSON := fs.Bool("json", false, "print JSON on stdout: services, tools, enrichment counts, warnings and the files written (warnings are not also printed on stderr)")
	observedFrom := observedFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErr("codemode gen: unexpected argument %q", fs.Arg(0))
	}
	if *config == "" && len(srcs.sources) == 0 {
		// Bare gen compiles ./codemode.yaml, as the other commands do.
		if _, err := os.Stat("codemode.yaml"); err == nil {
			*config = "codemode.yaml"
		}
	}
	p, err := loadPack(*config, srcs.sources, *out)
	if err != nil {
		return err
	}
	if *goPkg != "" {
		p.GoPackage = *goPkg
	}
	observed, err := observedReturns(ctx, p, observedFrom)
	if err != nil {
		return err
	}
	res, err := pack.Compile(ctx, p, pack.Options{NoEnrich: *noEnrich, Observed: observed})
	if err != nil {
		return err
	}
	if !*asJSON {
		for _, d := range res.Diagnostics {
			fmt.Fprintln(stderr, d.String())
		}
	}
	if err := res.CheckStubs(ctx, p); err != nil && !errors.Is(err, pack.ErrNoMonty) {
		return err
	}
	if err := res.Write(); err != nil {
		return err
	}
	accepted := 0
	for _, d := range res.Decisions {
		if d.Accepted {
			accepted++
		}
	}
	tools := 0
	for _, s := range res.Services {
		tools += len(s.Tools)
	}
	if *asJSON {
		return genJSON(stdout, p, res, tools, accepted)
	}
	fmt.Fprintf(stdout, "wrote %s: %s, %s, %d of %s accepted, %s\n", p.Path(p.Out),
		count(len(res.Services), "service"), count(tools, "tool"), accepted,
		count(len(res.Decisions), "enrichment proposal"), count(len(res.Diagnostics), "warning"))
	for i, t := range res.Trees {
		if i > 0 {
			fmt.Fprintf(stdout, "wrote %s:\n", t.Dir)
		}
		names := make([]string, 0, len(t.Files))
		for n := range t.Files {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Fprintf(stdout, "  %s\n", n)
		}
	}
	return nil
}

// count says "1 tool", "2 tools".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// observedFlags are gen's and check's flags for return types typed from
// observed results.
func observedFlags(fs *flag.FlagSet) *observedFrom {
	var o observedFrom
	fs.StringVar(&o.shapes, "shapes", "", "type the returns of tools without an output schema from the results serve saw, kept in `FILE` (default the store, when --store or the pack's store: names one; else .codemode/shapes.json beside the pack, when there is one)")
	fs.StringVar(&o.store, "store", "", "read the results serve saw from `STORE`, a SQLite file or a postgres:// URL (default the pack's store:)")
	fs.BoolVar(&o.off, "no-observed", false, "do not type returns from observed results")
	return &o
}

// observedFrom says where gen and check read observed result schemas.
type observedFrom struct {
	shapes, store string
	off           bool
}

// observedReturns reads the result schemas serve recorded: the shape cache
// in the store --store or the pack's store: names, else in the file
// --shapes names (default .codemode/shapes.json beside the pack). Without
// a cache (a fresh clone, CI; a SQLite store not made yet, or one with no
// results) the generated manifest's own observed schemas are kept, so gen
// and check agree everywhere; none when off is set.
func observedReturns(ctx context.Context, p *pack.Pack, from *observedFrom) (map[ir.ToolID]ir.Schema, error) {
	if from.off {
		return nil, nil
	}
	if from.shapes != "" && from.store != "" {
		return nil, usageErr("codemode: give --shapes or --store, not both (they name two shape caches)")
	}
	if loc := namedStore(p, from.store); loc != "" && from.shapes == "" {
		return storeObserved(ctx, p, loc)
	}
	path := from.shapes
	if path == "" {
		path = p.Path(filepath.Join(".codemode", "shapes.json"))
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return pack.ObservedIn(p.Path(p.Out)), nil
	}
	s, err := gateway.OpenShapes(path)
	if err != nil {
		return nil, err
	}
	return s.Observed(), nil
}

// storeObserved reads the observed result schemas from the store at loc.
func storeObserved(ctx context.Context, p *pack.Pack, loc string) (map[ir.ToolID]ir.Schema, error) {
	if !store.IsPostgres(loc) {
		// Reading must not make an empty store beside the pack.
		if _, err := os.Stat(loc); errors.Is(err, os.ErrNotExist) {
			return pack.ObservedIn(p.Path(p.Out)), nil
		}
	}
	st, err := store.Open(ctx, loc, store.Options{NoReplica: true})
	if err != nil {
		return nil, err
	}
	defer st.Close()
	ss, ok := st.(store.ShapeStore)
	if !ok {
		return nil, fmt.Errorf("store %s keeps no shape cache", st.Describe())
	}
	s, err := gateway.OpenStoreShapes(ctx, ss)
	if err != nil {
		return nil, err
	}
	if obs := s.Observed(); len(obs) > 0 {
		return obs, nil
	}
	return pack.ObservedIn(p.Path(p.Out)), nil
}

// genReport is codemode gen --json.
type genReport struct {
	Out      string          `json:"out"`
	Services []genService    `json:"services"`
	Tools    int             `json:"tools"`
	Enrich   genEnrich       `json:"enrichment"`
	Warnings []genWarning    `json:"warnings"`
	Written  []genWrittenDir `json:"written"`
}

type genService struct {
	Name  string `json:"name"`
	Tools int    `json:"tools"`
}

type genEnrich struct {
	Proposals int `json:"proposals"`
	Accepted  int `json:"accepted"`
}

type genWarning struct {
	Code    string `json:"code"`
	File    string `json:"file"`
	Pointer string `json:"pointer"`
	Message string `json:"message"`
}

type genWrittenDir struct {
	Dir   string   `json:"dir"`
	Files []string `json:"files"`
}

func genJSON(stdout io.Writer, p *pack.Pack, res *pack.Output, tools, accepted int) error {
	r := genReport{Out: p.Path(p.Out), Services: []genService{}, Tools: tools,
		Enrich: genEnrich{Proposals: len(res.Decisions), Accepted: accepted}, Warnings: []genWarning{}, Written: []genWrittenDir{}}
	for _, s := range res.Services {
		r.Services = append(r.Services, genService{Name: string(s.Name), Tools: len(s.Tools)})
	}
	for _, d := range res.Diagnostics {
		r.Warnings = append(r.Warnings, genWarning{Code: string(d.Code), File: d.File, Pointer: d.Pointer, Message: d.Message})
	}
	for _, t := range res.Trees {
		names := make([]string, 0, len(t.Files))
		for n := range t.Files {
			names = append(names, n)
		}
		sort.Strings(names)
		r.Written = append(r.Written, genWrittenDir{Dir: t.Dir, Files: names})
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
