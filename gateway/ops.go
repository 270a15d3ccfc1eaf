package gateway

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Paths of the operations endpoints. HealthPath and ReadyPath need no
// bearer token and say nothing but "ok", "ready" or the names of the checks
// that failed; MetricsPath is behind the token on the MCP listener.
const (
	HealthPath  = "/healthz"
	ReadyPath   = "/readyz"
	MetricsPath = "/metrics"
)

// DefaultDrainTimeout is how long a draining gateway lets the programs in
// flight run before it cuts them.
const DefaultDrainTimeout = 10 * time.Second

// ErrDraining is run_code's refusal while the gateway drains.
var ErrDraining = errors.New("the gateway is shutting down (draining): no new program starts here; run it again in a moment (another replica takes it)")

// ReadyCheck is one condition of readiness (e.g. the store is reachable);
// its error makes /readyz answer 503 naming the check.
type ReadyCheck func(ctx context.Context) error

type readyCheck struct {
	name string
	f    ReadyCheck
}

// ops is a server's drain state and readiness checks.
type ops struct {
	mu       sync.Mutex
	draining bool
	inflight int
	idle     chan struct{} // closed when inflight drops to 0; nil while it is 0
	checks   []readyCheck

	// cut ends every program in flight, with its cause.
	cut     context.Context
	cutWith context.CancelCauseFunc
}

func (o *ops) init() {
	o.cut, o.cutWith = context.WithCancelCause(context.Background())
}

// begin admits one program, unless the server drains.
func (o *ops) begin() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.draining {
		return false
	}
	if o.inflight == 0 {
		o.idle = make(chan struct{})
	}
	o.inflight++
	return true
}

func (o *ops) end() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.inflight--
	if o.inflight == 0 {
		close(o.idle)
		o.idle = nil
	}
}

// programContext is ctx, also ended (with its cause) when the server cuts
// the programs in flight.
func (o *ops) programContext(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(o.cut, func() { cancel(context.Cause(o.cut)) })
	return ctx, func() { stop(); cancel(nil) }
}

// AddReadyCheck adds a condition of readiness, named in /readyz's answer
// when it fails (e.g. "store"). Add checks before serving.
func (s *Server) AddReadyCheck(name string, f ReadyCheck) {
	s.ops.mu.Lock()
	defer s.ops.mu.Unlock()
	s.ops.checks = append(s.ops.checks, readyCheck{name, f})
}

// Drain starts draining: /readyz fails, new run_code programs are refused
// with ErrDraining, new HTTP sessions get 503; programs in flight go on.
func (s *Server) Drain() {
	s.ops.mu.Lock()
	defer s.ops.mu.Unlock()
	s.ops.draining = true
}

// Draining reports whether Drain was called.
func (s *Server) Draining() bool {
	s.ops.mu.Lock()
	defer s.ops.mu.Unlock()
	return s.ops.draining
}

// InFlight is the number of run_code programs running now.
func (s *Server) InFlight() int {
	s.ops.mu.Lock()
	defer s.ops.mu.Unlock()
	return s.ops.inflight
}

// WaitIdle waits until no run_code program runs, or ctx ends.
func (s *Server) WaitIdle(ctx context.Context) error {
	s.ops.mu.Lock()
	idle := s.ops.idle
	s.ops.mu.Unlock()
	if idle == nil {
		return nil
	}
	select {
	case <-idle:
		// A program admitted before Drain may have started since.
		return s.WaitIdle(ctx)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Cut stops every program in flight with cause: each is reported to its
// agent as cut (with the calls that completed) and its call under way is
// audited as cut.
func (s *Server) Cut(cause error) { s.ops.cutWith(cause) }

// Ready says whether the server can serve programs: it is not draining,
// its worker pool hands out workers, and every ReadyCheck passes. The
// error names what failed ("draining", "workers", a check's name), never
// why in detail.
func (s *Server) Ready(ctx context.Context) error {
	s.ops.mu.Lock()
	draining, checks := s.ops.draining, s.ops.checks
	s.ops.mu.Unlock()
	var failed []string
	if draining {
		failed = append(failed, "draining")
	}
	if err := s.rt.Ready(); err != nil {
		failed = append(failed, "workers")
	}
	for _, c := range checks {
		if err := c.f(ctx); err != nil {
			failed = append(failed, c.name)
		}
	}
	if len(failed) > 0 {
		return errors.New("not ready: " + strings.Join(failed, ", "))
	}
	return nil
}

// readyTimeout bounds /readyz's checks.
const readyTimeout = 2 * time.Second

func (s *Server) serveHealth(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write([]byte("ok\n"))
}

func (s *Server) serveReady(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
	defer cancel()
	if err := s.Ready(ctx); err != nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(err.Error() + "\n"))
		return
	}
	_, _ = w.Write([]byte("ready\n"))
}

// handleOps adds /healthz and /readyz (no token) to mux.
func (s *Server) handleOps(mux *http.ServeMux) {
	mux.HandleFunc(HealthPath, s.serveHealth)
	mux.HandleFunc(ReadyPath, s.serveReady)
}

// OpsHandler serves /healthz, /readyz and, when metrics is not nil,
// /metrics, all without a token: for a listener of its own on an address
// only the platform reaches (codemode serve --metrics-addr).
func (s *Server) OpsHandler(metrics http.Handler) http.Handler {
	mux := http.NewServeMux()
	s.handleOps(mux)
	if metrics != nil {
		mux.Handle(MetricsPath, metrics)
	}
	return mux
}

// refuseNewWhileDraining answers a request that would open a new MCP
// session with 503 while the server drains; requests of sessions already
// open go on (their run_code is refused with ErrDraining).
func (s *Server) refuseNewWhileDraining(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Session-Id") == "" && s.Draining() {
			w.Header().Set("Retry-After", "1")
			http.Error(w, "codemode: "+ErrDraining.Error(), http.StatusServiceUnavailable)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// cutGrace bounds the wait, after Cut, for the cut programs' replies.
const cutGrace = 5 * time.Second

// Shutdown drains the server: new programs are refused, those in flight
// get until timeout to finish, and the rest are then cut (each reported to
// its agent, its call under way audited as cut) and their replies awaited
// (a few seconds at most). It returns how many programs were cut.
func (s *Server) Shutdown(timeout time.Duration) int {
	s.Drain()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if s.WaitIdle(ctx) == nil {
		return 0
	}
	n := s.InFlight()
	s.Cut(fmt.Errorf("the gateway shut down and its drain timeout (%s) passed", timeout))
	gctx, gcancel := context.WithTimeout(context.Background(), cutGrace)
	defer gcancel()
	_ = s.WaitIdle(gctx)
	return n
}

// lateHandler serves a listener taken before the gateway has started:
// until its handler is set, /healthz answers ok (the process is up) and
// everything else 503 "not ready: starting" (upstreams and workers are
// still starting).
type lateHandler struct{ h atomic.Pointer[http.Handler] }

func (l *lateHandler) set(h http.Handler) { l.h.Store(&h) }

func (l *lateHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h := l.h.Load(); h != nil {
		(*h).ServeHTTP(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if r.URL.Path == HealthPath {
		_, _ = w.Write([]byte("ok\n"))
		return
	}
	w.Header().Set("Retry-After", "1")
	w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = w.Write([]byte("not ready: starting\n"))
}

// answering wraps a transport and counts the requests read and not yet
// answered: a drain over stdio waits for its replies to be written before
// it ends the session (a handler returns before its reply is written).
type answering struct {
	mcp.Transport

	mu      sync.Mutex
	pending int
	zero    chan struct{} // closed when pending drops to 0; nil while it is 0
}

func (a *answering) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := a.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &answeringConn{Connection: c, a: a}, nil
}

func (a *answering) add(n int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.pending == 0 && n > 0 {
		a.zero = make(chan struct{})
	}
	a.pending += n
	if a.pending <= 0 && a.zero != nil {
		a.pending = 0
		close(a.zero)
		a.zero = nil
	}
}

// wait waits until every request read has been answered, or ctx ends.
func (a *answering) wait(ctx context.Context) {
	a.mu.Lock()
	zero := a.zero
	a.mu.Unlock()
	if zero == nil {
		return
	}
	select {
	case <-zero:
	case <-ctx.Done():
	}
}

type answeringConn struct {
	mcp.Connection
	a *answering
}

func (c *answeringConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := c.Connection.Read(ctx)
	if r, ok := m.(*jsonrpc.Request); ok && err == nil && r.ID.IsValid() {
		c.a.add(1)
	}
	return m, err
}

func (c *answeringConn) Write(ctx context.Context, m jsonrpc.Message) error {
	err := c.Connection.Write(ctx, m)
	if _, ok := m.(*jsonrpc.Response); ok {
		c.a.add(-1)
	}
	return err
}
