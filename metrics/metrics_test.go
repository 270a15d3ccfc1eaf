package metrics_test

import (
	"errors"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/metrics"
	"github.com/codemode-dev/codemode/runtime"
)

func scrape(t *testing.T, m *metrics.Metrics, prefixes ...string) string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	var b strings.Builder
	for _, l := range strings.Split(string(body), "\n") {
		for _, p := range prefixes {
			if strings.HasPrefix(l, p) {
				b.WriteString(l + "\n")
			}
		}
	}
	return b.String()
}

// TestMetricsUnknownServiceLabelBounded: a call to a name that is no
// service of the pack (whatever a program passed) counts under "other", so
// no program can add series; a refusal without a reason counts as "other";
// store operations are counted by op and outcome.
func TestMetricsUnknownServiceLabelBounded(t *testing.T) {
	m := metrics.New([]string{"svc"})
	inner := &recorder{}
	a := m.Auditor(inner)
	for _, ev := range []runtime.Event{
		{Kind: "call", Tool: "api.svc.tool", Status: runtime.StatusOK},
		{Kind: "call", Tool: "api.svc.tool", Status: runtime.StatusRefused, Reason: runtime.ReasonPolicy},
		{Kind: "call", Tool: "api.no-such-service-made-up-by-a-program.x", Status: runtime.StatusRefused, Reason: runtime.ReasonGrant},
		{Kind: "call", Tool: "get-env", Status: runtime.StatusRefused},
		{Kind: "intent", Tool: "api.svc.tool", Status: runtime.StatusIntent},
		{Kind: "run", Status: runtime.StatusStarted},
	} {
		if err := a.Record(ev); err != nil {
			t.Fatal(err)
		}
	}
	if inner.n != 6 {
		t.Fatalf("passed on %d events, want 6", inner.n)
	}
	m.Store("session.load", time.Millisecond, nil)
	m.Store("session.load", time.Millisecond, errors.New("down"))
	got := scrape(t, m, `codemode_tool_calls_total{service="other"`, `codemode_tool_calls_total{service="svc",status="ok"`, `codemode_tool_calls_total{service="svc",status="refused"`, "codemode_refusals_total", "codemode_store_seconds_count")
	want := `codemode_refusals_total{reason="grant"} 1
codemode_refusals_total{reason="limit"} 0
codemode_refusals_total{reason="other"} 1
codemode_refusals_total{reason="pin"} 0
codemode_refusals_total{reason="policy"} 1
codemode_refusals_total{reason="read-gate"} 0
codemode_refusals_total{reason="validation"} 0
codemode_refusals_total{reason="wait"} 0
codemode_store_seconds_count{op="session.load",outcome="error"} 1
codemode_store_seconds_count{op="session.load",outcome="ok"} 1
codemode_tool_calls_total{service="other",status="refused"} 2
codemode_tool_calls_total{service="svc",status="ok"} 1
codemode_tool_calls_total{service="svc",status="refused"} 1
`
	if got != want {
		t.Fatalf("scrape:\n%s\nwant:\n%s", got, want)
	}
	// A nil *Metrics counts nothing and does not fail.
	var none *metrics.Metrics
	none.Run(metrics.OutcomeOK, nil, time.Second)
	none.Store("x", time.Second, nil)
}

type recorder struct{ n int }

func (r *recorder) Record(runtime.Event) error { r.n++; return nil }
