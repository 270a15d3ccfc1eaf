package pack

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/codemode-dev/codemode/internal/bytesize"
	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/manifest"
	"github.com/codemode-dev/codemode/readgate"
	"github.com/codemode-dev/codemode/runtime"
	"github.com/codemode-dev/codemode/runtime/upstream"
)

// ReadSurface loads the compiled surface (the manifest and the .py files
// it names) from the pack's output directory.
func (p *Pack) ReadSurface() (*manifest.Surface, error) {
	dir := p.Path(p.Out)
	data, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		return nil, fmt.Errorf("%v (run codemode gen first)", err)
	}
	m, err := manifest.Read(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, ManifestFile), err)
	}
	g := &manifest.Surface{Manifest: m, Files: map[string][]byte{}}
	for _, s := range m.Services {
		b, err := os.ReadFile(filepath.Join(dir, s.File))
		if err != nil {
			return nil, err
		}
		g.Files[s.File] = b
	}
	return g, nil
}

// Upstreams connects every service of the manifest as the pack says:
// MCP servers by command or URL, OpenAPI services over HTTP with the pack's
// auth. Secrets are read from the environment variables the pack names.
// Services are paired by name and source (see Join); a pack and manifest
// that disagree are an error naming codemode gen.
func (p *Pack) Upstreams(m *manifest.Manifest) (map[ir.ServiceName]upstream.Upstream, error) {
	pairs, err := p.Join(m)
	if err != nil {
		return nil, err
	}
	ups := map[ir.ServiceName]upstream.Upstream{}
	for _, pr := range pairs {
		src, ms := pr.Service, pr.Manifest
		var up upstream.Upstream
		switch {
		case len(src.MCPCommand) > 0, src.MCPURL != "":
			mc, err := p.mcpUpstream(src, string(ms.Name))
			if err != nil {
				return nil, fmt.Errorf("service %s: %w", ms.Name, err)
			}
			up = mc
		case src.OpenAPI != "":
			h, err := p.httpUpstream(src, ms)
			if err != nil {
				return nil, fmt.Errorf("service %s: %w", ms.Name, err)
			}
			up = h
		default:
			// A tools/list file says nothing about where the server runs.
			continue
		}
		ups[ms.Name] = up
	}
	return ups, nil
}

// Pair is one service of the pack with its entry in the manifest.
type Pair struct {
	Service  Service
	Manifest *manifest.Service
}

// Join pairs the pack's services with the manifest's by name (a service the
// pack does not name by its source), never by position, and checks that
// each pair has the same source identity (Service.Identity). A service on one
// side only, or a name whose source differs, is a one-line error saying to
// run codemode gen.
func (p *Pack) Join(m *manifest.Manifest) ([]Pair, error) {
	stale := func(format string, a ...any) error {
		return fmt.Errorf("the generated files in %s do not match the pack: %s; run codemode gen to regenerate them", p.Out, fmt.Sprintf(format, a...))
	}
	used := map[ir.ServiceName]bool{}
	var pairs []Pair
	for _, src := range p.Services {
		id := src.Identity()
		var ms *manifest.Service
		if src.Name != "" {
			s, ok := m.Service(ir.ServiceName(src.Name))
			if !ok {
				return nil, stale("service %s (%s) is not in %s", src.Name, describeIdentity(id), ManifestFile)
			}
			ms = s
		} else {
			for i := range m.Services {
				if sameSource(m.Services[i].Source, id) && !used[m.Services[i].Name] {
					ms = &m.Services[i]
					break
				}
			}
			if ms == nil {
				return nil, stale("no service of %s comes from %s", ManifestFile, describeIdentity(id))
			}
		}
		if !sameSource(ms.Source, id) {
			return nil, stale("service %s is %s in the pack but %s in %s", ms.Name, describeIdentity(id), describeIdentity(ms.Source), ManifestFile)
		}
		if used[ms.Name] {
			return nil, stale("service %s is listed twice in the pack", ms.Name)
		}
		used[ms.Name] = true
		pairs = append(pairs, Pair{Service: src, Manifest: ms})
	}
	for _, s := range m.Services {
		if !used[s.Name] {
			return nil, stale("service %s (%s) is in %s but not in the pack", s.Name, describeIdentity(s.Source), ManifestFile)
		}
	}
	return pairs, nil
}

// Identity is where a service comes from as the pack writes it: the kind
// and the mcp file, mcp_command, mcp_url or openapi file. The manifest
// records the same (ir.Source, without the digest), so a pack whose
// services were swapped, renamed or pointed elsewhere is caught.
func (s Service) Identity() ir.Source {
	switch {
	case s.MCP != "":
		return ir.Source{Kind: ir.SourceMCP, File: filepath.ToSlash(s.MCP)}
	case len(s.MCPCommand) > 0:
		return ir.Source{Kind: ir.SourceMCP, Command: JoinCommand(s.MCPCommand)}
	case s.MCPURL != "":
		return ir.Source{Kind: ir.SourceMCP, URL: s.MCPURL}
	}
	return ir.Source{Kind: ir.SourceOpenAPI, File: filepath.ToSlash(s.OpenAPI)}
}

func sameSource(a, b ir.Source) bool {
	return a.Kind == b.Kind && a.File == b.File && a.Command == b.Command && a.URL == b.URL
}

func describeIdentity(s ir.Source) string {
	switch {
	case s.Command != "":
		return fmt.Sprintf("%s command %q", s.Kind, s.Command)
	case s.URL != "":
		return fmt.Sprintf("%s %s", s.Kind, s.URL)
	}
	return fmt.Sprintf("%s %s", s.Kind, s.File)
}

// JoinCommand writes an argv back as one command line that SplitCommand
// reads as the same argv: words with spaces, quotes or backslashes (and
// empty ones) are double-quoted.
func JoinCommand(argv []string) string {
	words := make([]string, len(argv))
	for i, w := range argv {
		if w != "" && !strings.ContainsAny(w, " \t\n'\"\\") {
			words[i] = w
			continue
		}
		words[i] = `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(w) + `"`
	}
	return strings.Join(words, " ")
}

// RuntimeConfig builds a runtime configuration from the pack's runtime:
// section and its compiled surface (ReadSurface, Output.Surface, or a
// generated Go package's Surface).
func (p *Pack) RuntimeConfig(g *manifest.Surface, ups map[ir.ServiceName]upstream.Upstream) (runtime.Config, error) {
	cfg := runtime.Config{
		Manifest: g.Manifest, Files: g.Files, FileDir: p.Out, Upstreams: ups,
		Workers: p.Runtime.Workers, MaxWorkers: p.Runtime.MaxWorkers, MontyBin: p.montyBin(),
		Limits:      runtime.Limits{Calls: p.Runtime.MaxCalls, Output: p.Runtime.MaxOut},
		MaxParallel: p.Runtime.MaxParallel,
		NoSandbox:   p.Runtime.NoSandbox(),
	}
	if p.Runtime.Monty != "" {
		if fi, err := os.Stat(cfg.MontyBin); err != nil {
			return cfg, fmt.Errorf("runtime.monty: %w", err)
		} else if fi.IsDir() || fi.Mode()&0o111 == 0 {
			return cfg, fmt.Errorf("runtime.monty: %s is not an executable file", cfg.MontyBin)
		}
	}
	if p.Runtime.SessionTTL != "" {
		d, err := time.ParseDuration(p.Runtime.SessionTTL)
		if err != nil || d <= 0 {
			return cfg, fmt.Errorf("runtime.session_ttl: %q is not a positive duration (e.g. \"24h\")", p.Runtime.SessionTTL)
		}
		cfg.SessionTTL = d
	}
	if p.Runtime.WaitTimeout != "" {
		d, err := time.ParseDuration(p.Runtime.WaitTimeout)
		if err != nil || d <= 0 {
			return cfg, fmt.Errorf("runtime.wait_timeout: %q is not a positive duration (e.g. \"1h\")", p.Runtime.WaitTimeout)
		}
		cfg.WaitTimeout = d
	}
	if p.Runtime.MaxWorkers < 0 || p.Runtime.MaxWorkers > 0 && p.Runtime.MaxWorkers < p.Runtime.Workers {
		return cfg, fmt.Errorf("runtime.max_workers: %d is below runtime.workers (%d); give at least as many (default 4× workers)", p.Runtime.MaxWorkers, p.Runtime.Workers)
	}
	if p.Runtime.MaxParallel < 0 {
		return cfg, fmt.Errorf("runtime.max_parallel: %d is not a number of calls; give 1 or more (default %d)", p.Runtime.MaxParallel, runtime.DefaultMaxParallel)
	}
	mode, err := readgate.ParseMode(p.Runtime.ReadGate)
	if err != nil {
		return cfg, err
	}
	cfg.ReadGate = mode
	if p.Runtime.Timeout != "" {
		d, err := time.ParseDuration(p.Runtime.Timeout)
		if err != nil {
			return cfg, fmt.Errorf("runtime.timeout: %v", err)
		}
		cfg.Limits.Time = d
	}
	if p.Runtime.Memory != "" {
		n, err := bytesize.Parse(p.Runtime.Memory)
		if err != nil {
			return cfg, fmt.Errorf("runtime.memory: %v", err)
		}
		cfg.Limits.Memory = n
	}
	if p.Runtime.MemoryBudget != "" {
		n, err := bytesize.Parse(p.Runtime.MemoryBudget)
		if err != nil {
			return cfg, fmt.Errorf("runtime.memory_budget: %v", err)
		}
		cfg.MemoryBudget = n
	}
	pairs, err := p.Join(g.Manifest)
	if err != nil {
		return cfg, err
	}
	cfg.Grants = map[ir.ServiceName][]string{}
	cfg.NotesMeta = map[ir.ServiceName]string{}
	cfg.WaitMeta = map[ir.ServiceName]string{}
	for _, pr := range pairs {
		name := pr.Manifest.Name
		cfg.Grants[name] = grantList(pr.Service, pr.Manifest)
		cfg.NotesMeta[name] = pr.Service.Notes
		cfg.WaitMeta[name] = pr.Service.Wait
		rules, err := policyRules(pr.Service, pr.Manifest)
		if err != nil {
			return cfg, fmt.Errorf("%s: %w", pr.Service.Describe(), err)
		}
		for id, rl := range rules {
			if cfg.Rules == nil {
				cfg.Rules = map[ir.ToolID]runtime.Rule{}
			}
			cfg.Rules[id] = rl
		}
	}
	return cfg, nil
}

// OpenRuntime reads the generated files, connects the upstreams and starts
// a runtime; mutate may adjust the configuration first (e.g. the read-gate
// mode for a trusted CLI run).
func (p *Pack) OpenRuntime(ctx context.Context, mutate func(*runtime.Config)) (*runtime.Runtime, error) {
	g, err := p.ReadSurface()
	if err != nil {
		return nil, err
	}
	ups, err := p.Upstreams(g.Manifest)
	if err != nil {
		return nil, err
	}
	cfg, err := p.RuntimeConfig(g, ups)
	if err != nil {
		return nil, err
	}
	if mutate != nil {
		mutate(&cfg)
	}
	return runtime.New(ctx, cfg)
}

// grantList is the runtime grant of one service: the pack's grant as
// written (wire names; [] grants nothing), or every tool when the pack has
// no grant: key.
func grantList(src Service, ms *manifest.Service) []string {
	if src.Grant != nil {
		return src.Grant
	}
	all := make([]string, 0, len(ms.Tools))
	for _, t := range ms.Tools {
		all = append(all, string(t.Wire))
	}
	return all
}

// policyRules turns a service's policy: entries into runtime rules, checking
// that each names a tool by its wire name and only arguments it has.
func policyRules(src Service, ms *manifest.Service) (map[ir.ToolID]runtime.Rule, error) {
	rules := map[ir.ToolID]runtime.Rule{}
	names := make([]string, 0, len(src.Policy))
	for n := range src.Policy {
		names = append(names, n)
	}
	if err := runtime.CheckGrant(ms, names); err != nil {
		return nil, errors.New(strings.Replace(err.Error(), "grant of service", "policy of service", 1))
	}
	for i := range ms.Tools {
		t := &ms.Tools[i]
		tp, ok := src.Policy[string(t.Wire)]
		if !ok {
			continue
		}
		allow, err := runtime.CheckRule(t, tp.Allow)
		if err != nil {
			return nil, err
		}
		if tp.Deny == "" && len(allow) == 0 && !tp.Approve {
			return nil, fmt.Errorf("policy of %s: the entry says nothing (give deny, allow or approve)", t.Wire)
		}
		rules[ir.ToolID{Service: ms.Name, Wire: t.Wire}] = runtime.Rule{Deny: tp.Deny, Allow: allow, Approve: tp.Approve}
	}
	return rules, nil
}
