// Package metrics keeps a gateway's Prometheus metrics: programs run (by
// outcome), tool calls (by service and status), refusals (by reason),
// limits hit, the worker pool, run_code's latency and the store's.
//
// Every label takes values from a fixed set (outcomes, statuses, reasons,
// limits, the pack's services, the store's operation names): no tool
// arguments, session ids or tool names reach a label, so the number of
// series is bounded by the pack.
//
// Calls are counted from the runtime's audit events ([Metrics.Auditor]
// wraps the auditor, or stands in for none), so every path a call can take
// (a program's, a direct call's, a job's) is counted once, exactly as it is
// audited.
package metrics

import (
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/codemode-dev/codemode/runtime"
)

// Run outcomes (codemode_runs_total{outcome}).
const (
	OutcomeOK         = "ok"          // the program ended without an error
	OutcomeError      = "error"       // the program raised, or did not type-check
	OutcomeLimit      = "limit"       // a limit stopped it (time, memory, calls)
	OutcomeWait       = "wait"        // it ended on a wait
	OutcomeWorkerDied = "worker_died" // its sandbox worker died
	OutcomeCut        = "cut"         // the gateway's drain timeout stopped it
	OutcomeRefused    = "refused"     // not run: the session waits
	OutcomeDraining   = "draining"    // not run: the gateway is draining
	OutcomeFailed     = "failed"      // not run: the runtime could not run it
)

var outcomes = []string{OutcomeOK, OutcomeError, OutcomeLimit, OutcomeWait, OutcomeWorkerDied, OutcomeCut, OutcomeRefused, OutcomeDraining, OutcomeFailed}

var statuses = []runtime.Status{runtime.StatusOK, runtime.StatusError, runtime.StatusRefused, runtime.StatusInvalid, runtime.StatusWait, runtime.StatusCut, runtime.StatusCancelled}

var reasons = []string{runtime.ReasonGrant, runtime.ReasonReadGate, runtime.ReasonValidation, runtime.ReasonPolicy, runtime.ReasonPin, runtime.ReasonLimit, runtime.ReasonWait, ReasonOther}

var limits = []string{"time", "memory", "calls"}

// ReasonOther is the refusal reason of a call refused for none of the
// runtime's reasons (e.g. a tool's own name called directly in code mode).
const ReasonOther = "other"

// ServiceOther is the service label of a call to a name that is no
// service of the pack.
const ServiceOther = "other"

// Metrics is one gateway's metrics, in its own registry.
type Metrics struct {
	reg *prometheus.Registry
	// services is the pack's services, replaced whole (calls may be
	// counted while Services runs).
	services atomic.Pointer[map[string]bool]

	runs       *prometheus.CounterVec
	calls      *prometheus.CounterVec
	refusals   *prometheus.CounterVec
	limits     *prometheus.CounterVec
	runLatency prometheus.Histogram
	handout    prometheus.Histogram
	store      *prometheus.HistogramVec
}

// New makes the metrics of a pack with these services.
func New(services []string) *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	m.services.Store(&map[string]bool{})
	m.runs = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "codemode_runs_total", Help: "run_code programs, by outcome.",
	}, []string{"outcome"})
	m.calls = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "codemode_tool_calls_total", Help: "Tool calls (made or refused), by service and status.",
	}, []string{"service", "status"})
	m.refusals = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "codemode_refusals_total", Help: "Tool calls not made, by reason.",
	}, []string{"reason"})
	m.limits = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "codemode_limits_total", Help: "Programs stopped by a limit, by limit.",
	}, []string{"limit"})
	m.runLatency = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "codemode_run_code_seconds", Help: "run_code latency, from the request to the result.",
		Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120},
	})
	m.handout = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "codemode_pool_handout_seconds", Help: "How long a program waited for a sandbox worker.",
		Buckets: []float64{.0001, .0005, .001, .005, .01, .05, .1, .5, 1, 5},
	})
	m.store = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "codemode_store_seconds", Help: "Store operations' latency, by operation and outcome.",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 5},
	}, []string{"op", "outcome"})
	m.reg.MustRegister(m.runs, m.calls, m.refusals, m.limits, m.runLatency, m.handout, m.store,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	// Every series of a fixed label set exists from the start, at 0, so a
	// rate over it needs no first event.
	for _, o := range outcomes {
		m.runs.WithLabelValues(o)
	}
	for _, r := range reasons {
		m.refusals.WithLabelValues(r)
	}
	for _, l := range limits {
		m.limits.WithLabelValues(l)
	}
	m.Services(services)
	return m
}

// Services adds the pack's services: a call's service label is one of
// them, else ServiceOther. Call it before the gateway serves.
func (m *Metrics) Services(names []string) {
	next := map[string]bool{}
	for s := range *m.services.Load() {
		next[s] = true
	}
	for _, s := range names {
		next[s] = true
	}
	m.services.Store(&next)
	for _, s := range names {
		for _, st := range statuses {
			m.calls.WithLabelValues(s, string(st))
		}
	}
}

// Gauge adds a gauge read when the metrics are scraped (the gateway's
// idle workers, programs in flight, draining).
func (m *Metrics) Gauge(name, help string, f func() float64) {
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, f))
}

// Handler serves the metrics in Prometheus' text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// Registry is the metrics' registry, for a gateway builder's own
// collectors.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Auditor returns an auditor that counts every call event and passes every
// event on to inner (nil: none).
func (m *Metrics) Auditor(inner runtime.Auditor) runtime.Auditor {
	return &auditor{m: m, inner: inner}
}

type auditor struct {
	m     *Metrics
	inner runtime.Auditor
}

func (a *auditor) Record(ev runtime.Event) error {
	if ev.Kind == "call" {
		a.m.call(ev)
	}
	if a.inner == nil {
		return nil
	}
	return a.inner.Record(ev)
}

func (m *Metrics) call(ev runtime.Event) {
	m.calls.WithLabelValues(m.service(ev.Tool), string(ev.Status)).Inc()
	if ev.Status == runtime.StatusRefused || ev.Status == runtime.StatusInvalid {
		reason := ev.Reason
		if reason == "" {
			reason = ReasonOther
		}
		m.refusals.WithLabelValues(reason).Inc()
	}
}

// service is the pack's service a call's tool ("api.<service>.<tool>")
// belongs to, else ServiceOther.
func (m *Metrics) service(tool string) string {
	svc, _, ok := strings.Cut(strings.TrimPrefix(tool, "api."), ".")
	if ok && (*m.services.Load())[svc] {
		return svc
	}
	return ServiceOther
}

// Outcome classifies a program's result.
func Outcome(res *runtime.Result) string {
	switch {
	case res.Wait && res.Error != "":
		return OutcomeRefused
	case res.Limit != "":
		return OutcomeLimit
	case res.WorkerDied:
		return OutcomeWorkerDied
	case strings.HasPrefix(res.Error, "cut: "):
		return OutcomeCut
	case res.Error != "":
		return OutcomeError
	case res.Wait:
		return OutcomeWait
	}
	return OutcomeOK
}

// Run counts one run_code request: its outcome, the limit that stopped it,
// its latency and, when it ran, its wait for a worker.
func (m *Metrics) Run(outcome string, res *runtime.Result, took time.Duration) {
	if m == nil {
		return
	}
	m.runs.WithLabelValues(outcome).Inc()
	m.runLatency.Observe(took.Seconds())
	if res == nil {
		return
	}
	if res.Limit != "" {
		m.limits.WithLabelValues(res.Limit).Inc()
	}
	if res.Attempts > 0 {
		m.handout.Observe(res.HandOut.Seconds())
	}
}

// Store records one store operation's latency; op names the operation and
// must be one of a fixed set (a constant of the store, never a key).
func (m *Metrics) Store(op string, took time.Duration, err error) {
	if m == nil {
		return
	}
	outcome := "ok"
	if err != nil {
		outcome = "error"
	}
	m.store.WithLabelValues(op, outcome).Observe(took.Seconds())
}
