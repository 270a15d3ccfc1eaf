package pack

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	goruntime "runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/codemode-dev/codemode/emit"
	"github.com/codemode-dev/codemode/enrich"
	"github.com/codemode-dev/codemode/internal/filetree"
	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/manifest"
	"github.com/codemode-dev/codemode/parse"
	"github.com/codemode-dev/codemode/runtime"
)

// Output is what compiling a pack produced, in memory: the files to write
// (Trees) and what they were made from (the resolved services, enrichment
// decisions, diagnostics). Surface is the part a runtime loads.
type Output struct {
	// Files are the generated files, keyed by slash path relative to the
	// output directory: <service>.py, manifest.json, enrich.jsonl.
	Files       map[string][]byte
	Services    []*ir.Service
	Manifest    *manifest.Manifest
	Decisions   []enrich.Decision
	Diagnostics []ir.Diagnostic
	// Trees says where every generated file goes: first the output
	// directory (exactly Files), then, with go_package, the Go package.
	Trees []Tree
}

// Tree is a set of generated files under one directory.
type Tree struct {
	Dir   string            // the directory, resolved against the pack's
	Files map[string][]byte // slash paths relative to Dir
	// Whole: Dir holds exactly Files (written with WriteDir, checked for
	// extra files); otherwise Dir holds other files too (a Go package's
	// hand-written ones) and only Files are written and checked.
	Whole bool
}

// Options changes how a pack compiles.
type Options struct {
	NoEnrich bool // skip the enrichment pass (the --no-enrich flag)
	// Observed are result schemas inferred from real results, by tool: a
	// tool with no output schema gets its return type from them.
	Observed map[ir.ToolID]ir.Schema
}

// Manifest and log file names inside the output directory.
const (
	ManifestFile = "manifest.json"
	EnrichLog    = "enrich.jsonl"
)

// GeneratedWithoutEnrichment reports whether the generated files in dir
// were written without the enrichment pass (gen --no-enrich): gen writes
// EnrichLog beside ManifestFile exactly when the pass runs, so a
// directory with a manifest and no log says so. codemode check reads it
// instead of needing --no-enrich repeated.
func GeneratedWithoutEnrichment(dir string) bool {
	_, merr := os.Stat(filepath.Join(dir, ManifestFile))
	_, lerr := os.Stat(filepath.Join(dir, EnrichLog))
	return merr == nil && errors.Is(lerr, fs.ErrNotExist)
}

// ObservedIn is the observed result schemas the manifest generated in dir
// records (Options.Observed, as the files there were generated); nil when
// there is none or it cannot be read.
func ObservedIn(dir string) map[ir.ToolID]ir.Schema {
	data, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		return nil
	}
	// A manifest without the key holds no observed schema: most packs,
	// and decoding megabytes of schemas to learn so was a tenth of a
	// regeneration's CPU. (A key spelled with \u escapes is decoded.)
	if !bytes.Contains(data, []byte(`"observed"`)) && !bytes.Contains(data, []byte(`\u`)) {
		return nil
	}
	out, err := manifest.ReadObserved(data)
	if err != nil {
		return nil
	}
	return out
}

// Compile parses every source of p, enriches, resolves and emits. Nothing
// is written to disk. The services are compiled on up to GOMAXPROCS
// goroutines (each is independent of the others until its name is checked
// against theirs), the live ones listed from the start, and gathered in
// the pack's order: the output, and the error when one fails (the first in
// that order), are those of compiling them one by one.
func Compile(ctx context.Context, p *Pack, opts Options) (*Output, error) {
	out := &Output{Files: map[string][]byte{}, Manifest: &manifest.Manifest{Version: manifest.Version}}
	eopts, err := p.enrichOptions()
	if err != nil {
		return nil, err
	}
	units := p.compileServices(ctx, eopts, opts)
	seen := map[ir.ServiceName]string{}
	for i, u := range units {
		src := p.Services[i]
		if u.parseErr != nil {
			return nil, u.parseErr
		}
		if prev, dup := seen[u.svc.Name]; dup {
			return nil, fmt.Errorf("%s: service name %q is already used by %s; set name: in the pack", src.Describe(), u.svc.Name, prev)
		}
		seen[u.svc.Name] = src.Describe()
		if u.err != nil {
			return nil, u.err
		}
		out.Files[u.file] = u.py
		out.Manifest.Services = append(out.Manifest.Services, u.ms)
		out.Services = append(out.Services, u.svc)
		out.Decisions = append(out.Decisions, u.decisions...)
		out.Diagnostics = append(out.Diagnostics, u.svc.Diagnostics...)
	}
	out.Diagnostics = p.filter(out.Diagnostics)
	m, err := manifest.Marshal(out.Manifest)
	if err != nil {
		return nil, err
	}
	out.Files[ManifestFile] = m
	if !opts.NoEnrich && !p.Enrich.Disabled {
		var buf bytes.Buffer
		if err := enrich.WriteLog(&buf, out.Decisions); err != nil {
			return nil, err
		}
		out.Files[EnrichLog] = buf.Bytes()
	}
	out.Trees = []Tree{{Dir: p.Path(p.Out), Files: out.Files, Whole: true}}
	if p.GoPackage != "" {
		trees, err := p.goPackage(out)
		if err != nil {
			return nil, err
		}
		out.Trees = append(out.Trees, trees...)
	}
	return out, nil
}

// A unit is one service of a pack, compiled: its module and manifest entry,
// or the error that stopped it (parseErr when it could not be read at all,
// before its name is known).
type unit struct {
	svc       *ir.Service
	file      string
	py        []byte
	ms        manifest.Service
	decisions []enrich.Decision
	parseErr  error
	err       error
}

// compileServices compiles every service of p (compileService), on up to
// GOMAXPROCS goroutines, and returns them in order. Once one fails, no
// service after it is started (what Compile reports is then that failure
// or one before it). The live services are listed from the start, up to
// maxListing at once (listing waits on a process or a server, not on
// this CPU); none is still being listed when it returns.
func (p *Pack) compileServices(ctx context.Context, eopts enrich.Options, opts Options) []unit {
	units := make([]unit, len(p.Services))
	lists, stop := p.listLive(ctx)
	defer stop()
	var next atomic.Int64
	var failed atomic.Int64 // the first failed index known, else len
	failed.Store(int64(len(units)))
	work := func() {
		for {
			i := int(next.Add(1) - 1)
			if i >= len(units) || int64(i) > failed.Load() {
				return
			}
			u := &units[i]
			*u = p.compileService(ctx, p.Services[i], eopts, opts, lists[i])
			if u.parseErr != nil || u.err != nil {
				for {
					f := failed.Load()
					if int64(i) >= f || failed.CompareAndSwap(f, int64(i)) {
						break
					}
				}
			}
		}
	}
	workers := min(goruntime.GOMAXPROCS(0), len(units))
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Add(1)
		go func() { defer wg.Done(); work() }()
	}
	work()
	wg.Wait()
	return units
}

// maxListing is how many live services a pack lists at once.
const maxListing = 8

// listLive starts listing every live service of p (mcp_command, mcp_url),
// maxListing at a time in pack order, and returns, for each service, a
// function that waits for its parse (nil for a service from a file), and
// stop, which ends the listings no one waited for and waits for them all.
func (p *Pack) listLive(ctx context.Context) (lists []func() (*ir.Service, error), stop func()) {
	lists = make([]func() (*ir.Service, error), len(p.Services))
	type listing struct {
		i    int
		svc  *ir.Service
		err  error
		done chan struct{}
	}
	var live []*listing
	for i, src := range p.Services {
		if len(src.MCPCommand) > 0 || src.MCPURL != "" {
			l := &listing{i: i, done: make(chan struct{})}
			live = append(live, l)
			lists[i] = func() (*ir.Service, error) { <-l.done; return l.svc, l.err }
		}
	}
	if len(live) == 0 {
		return lists, func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(len(live))
	go func() { // starts them in order, maxListing at a time
		slots := make(chan struct{}, maxListing)
		for _, l := range live {
			slots <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-slots }()
				defer close(l.done)
				l.svc, l.err = p.parse(ctx, p.Services[l.i], nil)
			}()
		}
	}()
	return lists, func() { cancel(); wg.Wait() }
}

// compileService parses, enriches, resolves and emits one service of p;
// listed, when not nil, waits for its parse, done by listLive.
func (p *Pack) compileService(ctx context.Context, src Service, eopts enrich.Options, opts Options, listed func() (*ir.Service, error)) unit {
	enriching := !opts.NoEnrich && !p.Enrich.Disabled
	// An OpenAPI document's proposals are worked out while it is parsed.
	var pf *enrich.Prefetch
	read := func() (*ir.Service, error) { return p.parse(ctx, src, nil) }
	switch {
	case listed != nil:
		read = listed
	case enriching && src.OpenAPI != "":
		pf = enrich.NewPrefetch(ir.SourceOpenAPI)
		read = func() (*ir.Service, error) {
			defer pf.End()
			return p.parse(ctx, src, pf.Add)
		}
	}
	svc, err := read()
	if err != nil {
		return unit{parseErr: err}
	}
	u := unit{svc: svc}
	// The generated files name the source as the pack does, so they do
	// not change with the directory codemode runs in.
	if f := src.MCP + src.OpenAPI; f != "" {
		resolved := svc.Source.File
		svc.Source.File = filepath.ToSlash(f)
		for i := range svc.Diagnostics {
			if svc.Diagnostics[i].File == resolved {
				svc.Diagnostics[i].File = svc.Source.File
			}
		}
	}
	if len(src.MCPCommand) > 0 {
		// As written, not as resolved against the pack's directory: the
		// manifest records the pack's identity of the service.
		svc.Source.Command = JoinCommand(src.MCPCommand)
	}
	for _, t := range svc.Tools {
		if s := opts.Observed[ir.ToolID{Service: svc.Name, Wire: t.Wire}]; t.Output == nil && s != nil {
			t.Observed = s
		}
	}
	if enriching {
		eopts.Prefetch = pf
		u.decisions, err = enrich.RunResolving(svc, eopts)
		if err != nil {
			u.err = fmt.Errorf("%s: enrich: %w", src.Describe(), err)
			return u
		}
		markEnriched(svc, u.decisions)
	} else {
		ir.Resolve(svc)
	}
	u.file = string(svc.Name) + ".py"
	u.py, u.ms = emit.Emit(svc, u.file, byTool(u.decisions))
	if err := checkGenerated(src, u.file, u.py, u.ms.Stub); err != nil {
		u.err = err
		return u
	}
	if src.Grant != nil {
		if err := runtime.CheckGrant(&u.ms, src.Grant); err != nil {
			u.err = fmt.Errorf("%s: %w", src.Describe(), err)
			return u
		}
	}
	if _, err := policyRules(src, &u.ms); err != nil {
		u.err = fmt.Errorf("%s: %w", src.Describe(), err)
	}
	return u
}

// checkGenerated refuses a generated file (or type-check stub) that breaks
// the invariants manifest.CheckPython checks. The emitter guarantees them for
// any input, so this is a compiler bug, stopped before anything is written.
func checkGenerated(src Service, file string, py []byte, stub string) error {
	if err := manifest.CheckPython(py); err != nil {
		return fmt.Errorf("%s: codemode bug: generated %s is not safe Python (%v); nothing was written", src.Describe(), file, err)
	}
	if err := manifest.CheckPython([]byte(stub)); err != nil {
		return fmt.Errorf("%s: codemode bug: the type-check stub of %s is not safe Python (%v); nothing was written", src.Describe(), file, err)
	}
	return nil
}

// GoSurfaceDir is where the Go package keeps its copy of the surface when
// the output directory is not inside the package directory.
const GoSurfaceDir = "api"

// goPackage emits the Go package of go_package: one file, embedding the
// output directory when it lies inside the package directory, and
// otherwise a copy of the manifest and .py files in <package>/api.
func (p *Pack) goPackage(out *Output) ([]Tree, error) {
	dir := p.Path(p.GoPackage)
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	name, err := emit.GoPackageName(filepath.Base(abs))
	if err != nil {
		return nil, err
	}
	var trees []Tree
	embed := ""
	rel, err := filepath.Rel(dir, p.Path(p.Out))
	if err == nil && rel == "." {
		return nil, fmt.Errorf("go_package: %s is also out:, which gen replaces whole; make out: a subdirectory (api)", p.GoPackage)
	}
	if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		embed = filepath.ToSlash(rel)
	} else {
		embed = GoSurfaceDir
		surface := map[string][]byte{ManifestFile: out.Files[ManifestFile]}
		for _, s := range out.Manifest.Services {
			surface[s.File] = out.Files[s.File]
		}
		trees = append(trees, Tree{Dir: filepath.Join(dir, GoSurfaceDir), Files: surface, Whole: true})
	}
	src, err := emit.GoPackage(emit.GoOptions{Package: name, Manifest: path.Join(embed, ManifestFile)}, out.Manifest, out.Services)
	if err != nil {
		return nil, err
	}
	trees = append([]Tree{{Dir: dir, Files: map[string][]byte{emit.GoFile: src}}}, trees...)
	return trees, nil
}

// Surface is the compiled surface of the output: the manifest and the .py
// files it names, as ReadSurface reads them back once written.
func (o *Output) Surface() *manifest.Surface {
	s := &manifest.Surface{Manifest: o.Manifest, Files: map[string][]byte{}}
	for _, ms := range o.Manifest.Services {
		s.Files[ms.File] = o.Files[ms.File]
	}
	return s
}

// Write writes every tree: a whole one with WriteDir, the others file by
// file, each replaced atomically.
func (o *Output) Write() error {
	for _, t := range o.Trees {
		var err error
		if t.Whole {
			err = WriteDir(t.Dir, t.Files)
		} else {
			err = WriteFiles(t.Dir, t.Files)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// WriteFiles writes files into dir, leaving its other files alone; each
// file is written to a temporary file beside it and renamed into place.
func WriteFiles(dir string, files map[string][]byte) error { return filetree.WriteFiles(dir, files) }

// parse reads one source into a service, named by the pack when it says
// so; parsed, when not nil, is given each tool of an OpenAPI document as it
// is built (parse.Options.Parsed).
func (p *Pack) parse(ctx context.Context, src Service, parsed func(*ir.Tool)) (*ir.Service, error) {
	opts := parse.Options{Service: src.Name, Parsed: parsed}
	switch {
	case src.MCP != "":
		return parse.MCPFile(p.Path(src.MCP), opts)
	case len(src.MCPCommand) > 0, src.MCPURL != "":
		return p.parseLive(ctx, src, opts)
	default:
		return parse.OpenAPIFile(p.Path(src.OpenAPI), opts)
	}
}

// CommandArgv is src's MCP command with a pack-relative program path
// ("./server", "../bin/server") resolved against the pack's directory; bare
// names are looked up on PATH as usual.
func (p *Pack) CommandArgv(src Service) []string {
	argv := append([]string(nil), src.MCPCommand...)
	if strings.HasPrefix(argv[0], "./") || strings.HasPrefix(argv[0], "../") {
		argv[0] = p.Path(argv[0])
	}
	return argv
}

func (p *Pack) enrichOptions() (enrich.Options, error) {
	var o enrich.Options
	if p.Enrich.Proposals != "" {
		f, err := os.Open(p.Path(p.Enrich.Proposals))
		if err != nil {
			return o, err
		}
		defer f.Close()
		o.Extra, err = enrich.ReadProposals(f)
		if err != nil {
			return o, fmt.Errorf("%s: %w", p.Enrich.Proposals, err)
		}
	}
	if p.Enrich.Overrides != "" {
		data, err := os.ReadFile(p.Path(p.Enrich.Overrides))
		if err != nil {
			return o, err
		}
		if err := json.Unmarshal(data, &o.Overrides); err != nil {
			return o, fmt.Errorf("%s: overrides must be a JSON object of decision id → true/false: %v", p.Enrich.Overrides, err)
		}
	}
	return o, nil
}

// markEnriched records on each top-level parameter which keywords accepted
// decisions added, so the docstring can say so.
func markEnriched(svc *ir.Service, ds []enrich.Decision) {
	type key struct {
		tool    ir.WireName
		pointer string
	}
	added := map[key][]string{}
	for _, d := range ds {
		if !d.Accepted {
			continue
		}
		k := key{d.Tool, d.Pointer}
		for kw := range d.To {
			added[k] = append(added[k], kw)
		}
	}
	for _, t := range svc.Tools {
		for _, prm := range t.Params {
			kws := added[key{t.Wire, string(prm.Ref)}]
			sort.Strings(kws)
			prm.Enriched = kws
		}
	}
}

func byTool(ds []enrich.Decision) map[ir.WireName][]json.RawMessage {
	m := map[ir.WireName][]json.RawMessage{}
	for _, d := range ds {
		j, err := json.Marshal(d)
		if err == nil {
			m[d.Tool] = append(m[d.Tool], j)
		}
	}
	return m
}

// WriteDir replaces dir with exactly files, atomically: the files are
// written to a new sibling directory which is then renamed into place, so a
// failure leaves the old directory as it was.
func WriteDir(dir string, files map[string][]byte) error { return filetree.WriteDir(dir, files) }

// filter drops the diagnostics the pack's ignore rules match and adds one
// for every rule that matched none.
func (p *Pack) filter(ds []ir.Diagnostic) []ir.Diagnostic {
	if len(p.Ignore) == 0 {
		return ds
	}
	used := make([]bool, len(p.Ignore))
	var out []ir.Diagnostic
	for _, d := range ds {
		ignored := false
		for i, rule := range p.Ignore {
			code, where, _ := strings.Cut(strings.TrimSpace(rule), " ")
			if ir.DiagCode(code) == d.Code && strings.HasPrefix(d.File+"#"+d.Pointer, strings.TrimSpace(where)) {
				used[i], ignored = true, true
			}
		}
		if !ignored {
			out = append(out, d)
		}
	}
	for i, rule := range p.Ignore {
		if !used[i] {
			out = append(out, ir.Diagnostic{Code: ir.DiagUnusedIgnore, File: "codemode.yaml", Pointer: fmt.Sprintf("/ignore/%d", i),
				Message: fmt.Sprintf("ignore rule %q matches no diagnostic; remove it", rule)})
		}
	}
	return out
}
