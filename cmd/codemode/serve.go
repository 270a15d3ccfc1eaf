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

	"github.com/codemode-dev/codemode/audit"
	"github.com/codemode-dev/codemode/gateway"
	"github.com/codemode-dev/codemode/ir"
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
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErr("codemode serve: unexpected argument %q", fs.Arg(0))
	}
	p, err := loadPack(*config, nil, "")
	if err != nil {
		return err
	}
	logf := func(format string, a ...any) { fmt.Fprintf(stderr, "codemode serve: "+format+"\n", a...) }

	if *shapesPath == "" {
		*shapesPath = p.Path(filepath.Join(".codemode", "shapes.json"))
	}
	shapes, err := gateway.OpenShapes(*shapesPath)
	if err != nil {
		return err
	}
	var auditor runtime.Auditor
	if *auditPath != "off" {
		if *auditPath == "" {
			*auditPath = p.Path(filepath.Join(".codemode", "audit.jsonl"))
		}
		if err := mkdirFor(*auditPath); err != nil {
			return err
		}
		log, err := audit.Open(*auditPath)
		if err != nil {
			return err
		}
		defer log.Close()
		auditor = log
	}
	rt, err := p.OpenRuntime(ctx, func(c *runtime.Config) {
		c.Hooks = append(c.Hooks, shapes)
		c.Audit = auditor
		if *state != "" {
			c.Persistent, c.StateDir = true, *state
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
		Version: version(),
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
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: srv.HTTPHandler(), ReadHeaderTimeout: 10 * time.Second}
	logf("serving MCP over streamable HTTP at http://%s/", ln.Addr())
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return hs.Shutdown(sctx)
	}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

func mkdirFor(path string) error {
	return os.MkdirAll(filepath.Dir(path), 0o700)
}
