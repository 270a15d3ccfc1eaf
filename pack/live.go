package pack

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/codemode-dev/codemode/internal/bytesize"
	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/parse"
	"github.com/codemode-dev/codemode/runtime/upstream"
)

// Redactor holds every secret value the pack holds, as codemode's
// environment has them now: each service's auth: secrets and the env:
// values taken from $VARs. Every upstream Upstreams connects applies it to
// what it returns; the runtime applies it to notes and any other text that
// reaches a program or the audit. Each call makes a new one.
func (p *Pack) Redactor() *upstream.Redactor {
	r := upstream.NewRedactor()
	for _, s := range p.Services {
		r.Add(s.Auth.Secrets()...)
		for _, v := range s.Env {
			if ref, ok := upstream.EnvRef(v); ok {
				if val, ok := os.LookupEnv(ref); ok {
					r.Add(val)
				}
			}
		}
	}
	return r
}

func (s Service) startTimeout() (time.Duration, error) {
	if s.StartTimeout == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s.StartTimeout)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q is not a duration like 30s", s.StartTimeout)
	}
	return d, nil
}

// maxReply is runtime.max_reply in bytes, 0 for the default.
func (p *Pack) maxReply() (int64, error) {
	if p.Runtime.MaxReply == "" {
		return 0, nil
	}
	n, err := bytesize.Parse(p.Runtime.MaxReply)
	if err != nil {
		return 0, fmt.Errorf("runtime.max_reply: %v", err)
	}
	return int64(n), nil
}

// mcpConfig is how to start src's MCP server; name names it in messages
// and the log.
func (p *Pack) mcpConfig(src Service, name string) (upstream.MCPConfig, error) {
	cfg := upstream.MCPConfig{Name: name, Env: src.Env, Auth: src.Auth, Redactor: p.Redactor()}
	if len(src.MCPCommand) > 0 {
		cfg.Command = p.CommandArgv(src)
	} else {
		cfg.URL = src.MCPURL
		cfg.TokenFile = p.TokenFile(src)
		if src.Auth != nil && src.Auth.ClientKeyFile != "" {
			a := *src.Auth
			a.ClientKeyFile = p.Path(a.ClientKeyFile)
			cfg.Auth = &a
		}
	}
	var err error
	if cfg.StartTimeout, err = src.startTimeout(); err != nil {
		return cfg, fmt.Errorf("start_timeout: %v", err)
	}
	if cfg.MaxReply, err = p.maxReply(); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// mcpUpstream connects src's MCP server for run and serve.
func (p *Pack) mcpUpstream(src Service, name string) (*upstream.MCP, error) {
	cfg, err := p.mcpConfig(src, name)
	if err != nil {
		return nil, err
	}
	return upstream.NewMCP(cfg)
}

// parseLive starts src's MCP server the way run and serve do, lists its
// tools and compiles them.
func (p *Pack) parseLive(ctx context.Context, src Service, opts parse.Options) (*ir.Service, error) {
	cfg, err := p.mcpConfig(src, src.Name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", src.Describe(), err)
	}
	list, err := upstream.ListTools(ctx, cfg)
	if err != nil {
		return nil, err
	}
	where, fallback := src.MCPURL, ""
	if len(cfg.Command) > 0 {
		where = strings.Join(cfg.Command, " ")
		fallback = filepath.Base(cfg.Command[0])
		if ext := filepath.Ext(fallback); ext != "" && ext != fallback {
			fallback = strings.TrimSuffix(fallback, ext)
		}
	} else if u, err := url.Parse(src.MCPURL); err == nil {
		fallback = u.Hostname()
	}
	s := list.Server
	svc, err := parse.MCPListed(where, list.Tools, parse.Server{Name: s.Name, Title: s.Title, Version: s.Version, Instructions: s.Instructions}, fallback, opts)
	if err != nil {
		return nil, err
	}
	if len(cfg.Command) > 0 {
		svc.Source.Command = where
	} else {
		svc.Source.URL = where
	}
	return svc, nil
}
