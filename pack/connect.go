package pack

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/codemode-dev/codemode/emit"
	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/readgate"
	"github.com/codemode-dev/codemode/runtime"
	"github.com/codemode-dev/codemode/runtime/upstream"
)

// Generated is the compiled surface of a pack as read from its output
// directory.
type Generated struct {
	Manifest *emit.Manifest
	Files    map[string][]byte // <service>.py by name
}

// ReadGenerated loads the manifest and .py files from the pack's output
// directory.
func (p *Pack) ReadGenerated() (*Generated, error) {
	dir := p.Path(p.Out)
	data, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		return nil, fmt.Errorf("%v (run codemode gen first)", err)
	}
	m, err := emit.ReadManifest(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, ManifestFile), err)
	}
	g := &Generated{Manifest: m, Files: map[string][]byte{}}
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
func (p *Pack) Upstreams(m *emit.Manifest) (map[ir.ServiceName]upstream.Upstream, error) {
	ups := map[ir.ServiceName]upstream.Upstream{}
	for i, src := range p.Services {
		if i >= len(m.Services) {
			break
		}
		ms := &m.Services[i]
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

// RuntimeConfig builds a runtime configuration from the pack's runtime:
// section and its generated files.
func (p *Pack) RuntimeConfig(g *Generated, ups map[ir.ServiceName]upstream.Upstream) (runtime.Config, error) {
	cfg := runtime.Config{
		Manifest: g.Manifest, Files: g.Files, FileDir: p.Out, Upstreams: ups,
		Workers: p.Runtime.Workers, MontyBin: p.Path(p.Runtime.Monty),
		Limits: runtime.Limits{Calls: p.Runtime.MaxCalls, Output: p.Runtime.MaxOut},
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
		n, err := parseBytes(p.Runtime.Memory)
		if err != nil {
			return cfg, fmt.Errorf("runtime.memory: %v", err)
		}
		cfg.Limits.Memory = n
	}
	if p.Runtime.MemoryBudget != "" {
		n, err := parseBytes(p.Runtime.MemoryBudget)
		if err != nil {
			return cfg, fmt.Errorf("runtime.memory_budget: %v", err)
		}
		cfg.MemoryBudget = n
	}
	granted := false
	grants := map[ir.ServiceName][]string{}
	cfg.NotesMeta = map[ir.ServiceName]string{}
	cfg.WaitMeta = map[ir.ServiceName]string{}
	for i, src := range p.Services {
		if i >= len(g.Manifest.Services) {
			break
		}
		name := g.Manifest.Services[i].Name
		if src.Grant != nil {
			granted = true
		}
		grants[name] = src.Grant
		cfg.NotesMeta[name] = src.Notes
		cfg.WaitMeta[name] = src.Wait
	}
	if granted {
		cfg.Grants = grants
	}
	return cfg, nil
}

// OpenRuntime reads the generated files, connects the upstreams and starts
// a runtime; mutate may adjust the configuration first (e.g. the read-gate
// mode for a trusted CLI run).
func (p *Pack) OpenRuntime(ctx context.Context, mutate func(*runtime.Config)) (*runtime.Runtime, error) {
	g, err := p.ReadGenerated()
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

func parseBytes(s string) (uint64, error) {
	s = strings.TrimSpace(strings.ToUpper(s))
	mult := uint64(1)
	for _, u := range []struct {
		suffix string
		n      uint64
	}{{"GIB", 1 << 30}, {"MIB", 1 << 20}, {"KIB", 1 << 10}, {"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}, {"B", 1}} {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.n
			break
		}
	}
	var n uint64
	if _, err := fmt.Sscanf(s, "%d", &n); err != nil || n == 0 {
		return 0, fmt.Errorf("want a size like 256MB")
	}
	return n * mult, nil
}
