package pack

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/codemode-dev/codemode/runtime/upstream"
)

// TokenFile is where an mcp_url service with auth type oauth keeps its
// token: .codemode/oauth/<host>-<hash of the URL>.json beside the pack, so
// gen, run, serve and codemode auth login share it whatever the service
// is called. "" for any other service.
func (p *Pack) TokenFile(src Source) string {
	if src.MCPURL == "" || src.Auth == nil || src.Auth.Type != "oauth" {
		return ""
	}
	sum := sha256.Sum256([]byte(src.MCPURL))
	host := "server"
	if u, err := url.Parse(src.MCPURL); err == nil && u.Hostname() != "" {
		host = fileSafe.ReplaceAllString(u.Hostname(), "_")
	}
	return filepath.Join(p.Dir, ".codemode", "oauth", host+"-"+hex.EncodeToString(sum[:6])+".json")
}

// loginTimeout bounds a login, the user's visit to the browser included.
const loginTimeout = 5 * time.Minute

var fileSafe = regexp.MustCompile(`[^A-Za-z0-9.-]`)

// OAuthSource finds the oauth service a command names: by its name:, or
// by its URL when it has none.
func (p *Pack) OAuthSource(service string) (Source, error) {
	var names []string
	for _, s := range p.Services {
		if s.Auth == nil || s.Auth.Type != "oauth" {
			continue
		}
		name := s.Name
		if name == "" {
			name = s.MCPURL
		}
		if service == name || service == s.MCPURL {
			return s, nil
		}
		names = append(names, name)
	}
	if len(names) == 0 {
		return Source{}, fmt.Errorf("the pack has no service with auth type oauth")
	}
	return Source{}, fmt.Errorf("no oauth service %q in the pack; the oauth services are %s", service, strings.Join(names, ", "))
}

// Login authorises codemode for an oauth service: it connects, and when
// the server asks for authorization prints the URL to open on log and
// waits on the redirect URL for the browser (or, with auth.headless,
// follows the authorization server's redirect itself). The token is kept
// in TokenFile; it returns that file, or "" for grant client_credentials,
// which needs no login (the connection is checked).
func (p *Pack) Login(ctx context.Context, service string, log io.Writer) (string, error) {
	src, err := p.OAuthSource(service)
	if err != nil {
		return "", err
	}
	name := src.Name
	if name == "" {
		name = src.MCPURL
	}
	cfg, err := p.mcpConfig(src, name)
	if err != nil {
		return "", err
	}
	cfg.Login, cfg.Log = upstream.LoginInteractive, log
	// The start timeout bounds the connection, and a login waits for a
	// person.
	cfg.StartTimeout = loginTimeout
	m, err := upstream.NewMCP(cfg)
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	defer m.Close()
	if err := m.Start(ctx); err != nil {
		return "", err
	}
	if src.Auth.Grant == "client_credentials" {
		return "", nil // no user: each process gets its own token
	}
	if _, err := os.Stat(cfg.TokenFile); err != nil {
		return "", fmt.Errorf("%s: the server let codemode in without a login; no token to keep", name)
	}
	return cfg.TokenFile, nil
}

// Logout forgets an oauth service's token; it reports whether there was
// one.
func (p *Pack) Logout(service string) (bool, error) {
	src, err := p.OAuthSource(service)
	if err != nil {
		return false, err
	}
	err = os.Remove(p.TokenFile(src))
	if os.IsNotExist(err) {
		return false, nil
	}
	return err == nil, err
}
