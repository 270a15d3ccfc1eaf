package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-dev/codemode/gateway"
	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/pack"
	"github.com/codemode-dev/codemode/runtime"
)

// cmdServe runs the MCP server: find_tool, run_code and read_api (or every
// granted tool with --direct), over stdio or streamable HTTP.
func cmdServe(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("serve", stderr)
	config := fs.String("c", "codemode.yaml", "pack `FILE`")
	addr := fs.String("http", "", "serve streamable HTTP on `ADDR` (host:port) instead of stdio")
	direct := fs.Bool("direct", false, "offer every granted tool as an MCP tool instead of find_tool/run_code")
	auditPath := fs.String("audit", "", "append the audit log to `FILE` (default .codemode/audit.jsonl beside the pack; \"off\" for none)")
	shapesPath := fs.String("shapes", "", "keep the result-shape cache in `FILE` (default .codemode/shapes.json beside the pack)")
	noPins := fs.Bool("no-pins", false, "do not compare live MCP tool definitions with the manifest's pins")
	state := fs.String("state", "", "keep each session's variables across programs, saved in `DIR` (persistent mode)")
	tokenEnv := fs.String("token-env", "", "with --http, accept the bearer tokens in environment variable `VAR` (one per line)")
	tokenFile := fs.String("token-file", "", "with --http, accept the bearer tokens in `FILE` (one per line; read again when it changes)")
	noAuth := fs.Bool("insecure-no-auth", false, "with --http on a loopback address, serve without authentication")
	idleTTL := fs.Duration("idle-ttl", 0, "with --http, close a session after `DURATION` without a request (default 30m, or serve.idle_ttl)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErr("codemode serve: unexpected argument %q", fs.Arg(0))
	}
	if *addr == "" && (*tokenEnv != "" || *tokenFile != "" || *noAuth || *idleTTL != 0) {
		return usageErr("codemode serve: --token-env, --token-file, --insecure-no-auth and --idle-ttl are for --http")
	}
	p, err := loadPack(*config, nil, "")
	if err != nil {
		return err
	}
	logf := func(format string, a ...any) { fmt.Fprintf(stderr, "codemode serve: "+format+"\n", a...) }
	if p.Runtime.NoSandbox() {
		logf("%s", pack.SandboxWarning)
	}
	// The HTTP settings are checked, and the address taken, before anything
	// starts.
	var hopts gateway.HTTPOptions
	var ln net.Listener
	if *addr != "" {
		if hopts, err = httpOptions(p, *tokenEnv, *tokenFile, *noAuth, *idleTTL, logf); err != nil {
			return err
		}
		if ln, err = gateway.ListenHTTP(*addr, hopts); err != nil {
			return err
		}
		defer ln.Close()
	}

	if *shapesPath == "" {
		*shapesPath = p.Path(filepath.Join(".codemode", "shapes.json"))
	}
	shapes, err := gateway.OpenShapes(*shapesPath)
	if err != nil {
		return err
	}
	var auditor runtime.Auditor
	if log, err := openAudit(p, *auditPath, logf); err != nil {
		return err
	} else if log != nil {
		defer log.Close()
		auditor = log
	}
	rt, err := p.OpenRuntime(ctx, func(c *runtime.Config) {
		c.Hooks = append(c.Hooks, shapes)
		c.Audit = auditor
		if *state != "" {
			c.Persistent, c.StateDir = true, *state
		} else {
			// Jobs outlive the gateway, beside the pack.
			c.Jobs = runtime.FileJobStore{Dir: p.Path(filepath.Join(".codemode", "jobs"))}
		}
		// The runtime checks live MCP tool definitions against the pins
		// before calls; here every check's refusals are also logged.
		c.NoPins = *noPins
		c.PinReport = func(svc ir.ServiceName, refused []string, err error) {
			if err != nil {
				logf("service %s: checking pins: %v", svc, err)
			}
			for _, r := range refused {
				logf("service %s: refusing: %s", svc, r)
			}
		}
	})
	if err != nil {
		return err
	}
	defer rt.Close()
	// Connect now, so the pins are checked (and refusals logged) before the
	// first call.
	if !*noPins {
		rt.CheckPins(ctx)
	}
	srv, err := gateway.New(gateway.Config{
		Runtime: rt, FileDir: p.Out, Direct: *direct, Shapes: shapes, Audit: auditor, Persistent: *state != "",
		Version: version(), Logf: logf,
	})
	if err != nil {
		return err
	}
	if *addr == "" {
		err := srv.MCP().Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{stdout}})
		if err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) {
			return err
		}
		return nil
	}
	handler, err := srv.NewHTTPHandler(hopts)
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	if hopts.NoAuth {
		logf("WARNING: --insecure-no-auth: anyone who can connect to %s runs programs with this pack's credentials", ln.Addr())
	} else {
		logf("bearer tokens from %s: %d accepted", hopts.Tokens.Source(), hopts.Tokens.Len())
	}
	logf("serving MCP over streamable HTTP at http://%s%s", ln.Addr(), gateway.MCPPath)
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		// Requests under way get a moment; an open event stream never
		// ends by itself, so what is left is then closed.
		sctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		if err := hs.Shutdown(sctx); errors.Is(err, context.DeadlineExceeded) {
			return hs.Close()
		} else {
			return err
		}
	}
}

// httpOptions resolves the HTTP settings: flags over the pack's serve
// section.
func httpOptions(p *pack.Pack, tokenEnv, tokenFile string, noAuth bool, idleTTL time.Duration, logf func(string, ...any)) (gateway.HTTPOptions, error) {
	o := gateway.HTTPOptions{
		NoAuth: noAuth, IdleTTL: p.Serve.IdleTTLDuration(), PublicURL: p.Serve.PublicURL,
		AuthorizationServers: p.Serve.Auth.AuthorizationServers,
	}
	if idleTTL < 0 {
		return o, usageErr("codemode serve: --idle-ttl %s: want a positive duration like 30m", idleTTL)
	}
	if idleTTL > 0 {
		o.IdleTTL = idleTTL
	}
	if tokenEnv != "" && tokenFile != "" {
		return o, usageErr("codemode serve: give one of --token-env and --token-file")
	}
	if tokenEnv == "" && tokenFile == "" {
		tokenEnv, tokenFile = p.Serve.Auth.TokensEnv, p.Path(p.Serve.Auth.TokensFile)
		if noAuth && (tokenEnv != "" || tokenFile != "") {
			return o, usageErr("codemode serve: --insecure-no-auth, but the pack names bearer tokens (serve.auth)")
		}
	} else if noAuth {
		return o, usageErr("codemode serve: --insecure-no-auth with --token-env or --token-file")
	}
	var err error
	switch {
	case tokenEnv != "":
		o.Tokens, err = gateway.TokensFromEnv(tokenEnv)
	case tokenFile != "":
		o.Tokens, err = gateway.TokensFromFile(tokenFile, logf)
	}
	return o, err
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

func mkdirFor(path string) error {
	return os.MkdirAll(filepath.Dir(path), 0o700)
}
