package opslab

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func call(t *testing.T, l *Lab, tool string, a map[string]any) map[string]any {
	t.Helper()
	text, isErr := l.Call(tool, a)
	if isErr {
		t.Fatalf("%s(%v): %s", tool, a, text)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatalf("%s: not JSON: %v", tool, err)
	}
	return v
}

func newLab(t *testing.T, size Size, fault string) *Lab {
	t.Helper()
	l, err := New(Config{Seed: 7, Size: size, Fault: fault})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// every call of a fixed script, for comparing two labs byte for byte.
var script = []struct {
	tool string
	args map[string]any
}{
	{"job_templates_list", map[string]any{"page_size": 200.0, "page": 3.0}},
	{"hosts_list", map[string]any{"search": "0", "page_size": 200.0}},
	{"inventories_list", nil},
	{"tickets_list", nil},
	{"changes_list", nil},
	{"cmdb_ci_list", map[string]any{"page_size": 50.0}},
	{"metrics_query", map[string]any{"query": `{__name__=~".+"}`}},
	{"logs_query", map[string]any{"query": `{env="prod"}`, "limit": 2000.0}},
	{"job_template_launch", map[string]any{"id": 1.0, "limit": "shop-web-02"}},
	{"jobs_list", nil},
}

func TestDeterministic(t *testing.T) {
	for _, size := range []Size{Small, Large} {
		a, b := newLab(t, size, "service-stopped"), newLab(t, size, "service-stopped")
		for _, s := range script {
			ta, ea := a.Call(s.tool, s.args)
			tb, eb := b.Call(s.tool, s.args)
			if ta != tb || ea != eb {
				t.Errorf("%s %s: two labs from the same seed differ", size, s.tool)
			}
		}
		other, _ := New(Config{Seed: 8, Size: size, Fault: "service-stopped"})
		x, _ := other.Call("hosts_list", map[string]any{"page_size": 5.0})
		y, _ := a.Call("hosts_list", map[string]any{"page_size": 5.0})
		if x == y {
			t.Errorf("%s: seeds 7 and 8 gave the same hosts", size)
		}
	}
}

func TestSizes(t *testing.T) {
	small := newLab(t, Small, "")
	if n := call(t, small, "job_templates_list", nil)["count"]; n != 8.0 {
		t.Errorf("small: %v job templates, want 8", n)
	}
	if n := call(t, small, "hosts_list", nil)["count"]; n != 10.0 {
		t.Errorf("small: %v hosts, want 10", n)
	}
	if n := call(t, small, "inventories_list", nil)["count"]; n != 1.0 {
		t.Errorf("small: %v inventories, want 1", n)
	}
	large := newLab(t, Large, "")
	if n := call(t, large, "job_templates_list", nil)["count"]; n != 2008.0 {
		t.Errorf("large: %v job templates, want 2008", n)
	}
	if n := call(t, large, "hosts_list", nil)["count"]; n != 1010.0 {
		t.Errorf("large: %v hosts, want 1010", n)
	}
	if n := call(t, large, "inventories_list", nil)["count"]; n != 4.0 {
		t.Errorf("large: %v inventories, want 4", n)
	}
	for _, name := range []string{"restart-payments-prod-east", "collect-logs-orders-staging"} {
		if n := call(t, large, "job_templates_list", map[string]any{"search": name})["count"]; n != 1.0 {
			t.Logf("catalog has %v templates named %s (the catalog is a seeded sample)", n, name)
		}
	}
	// A record has every field a controller returns.
	rec := call(t, large, "job_templates_list", map[string]any{"page_size": 1.0})["results"].([]any)[0].(map[string]any)
	for _, k := range []string{"id", "type", "url", "related", "summary_fields", "created", "modified", "extra_vars", "ask_limit_on_launch", "execution_environment"} {
		if _, ok := rec[k]; !ok {
			t.Errorf("job template record lacks %q", k)
		}
	}
	h := call(t, large, "host_get", map[string]any{"id": 500.0})
	var vars map[string]any
	if err := json.Unmarshal([]byte(h["variables"].(string)), &vars); err != nil || vars["ansible_host"] == nil {
		t.Errorf("host variables are not a JSON document with ansible_host: %v %v", err, h["variables"])
	}
	// The noise cannot be launched.
	noise := call(t, large, "job_templates_list", map[string]any{"search": "restart-payments"})["results"].([]any)[0].(map[string]any)
	if text, isErr := large.Call("job_template_launch", map[string]any{"id": noise["id"], "limit": "shop-web-01"}); !isErr || !strings.Contains(text, "permission") {
		t.Errorf("launching a catalog template: %v %s", isErr, text)
	}
}

func TestPagination(t *testing.T) {
	l := newLab(t, Large, "")
	seen := map[float64]bool{}
	next := any("start")
	total := 0
	for p := 1; next != nil; p++ {
		pg := call(t, l, "job_templates_list", map[string]any{"page_size": 150.0, "page": float64(p)})
		rs := pg["results"].([]any)
		total += len(rs)
		for _, r := range rs {
			id := r.(map[string]any)["id"].(float64)
			if seen[id] {
				t.Fatalf("template %v on two pages", id)
			}
			seen[id] = true
		}
		if p == 1 && pg["previous"] != nil {
			t.Errorf("page 1 has a previous link: %v", pg["previous"])
		}
		if p > 1 && !strings.Contains(pg["previous"].(string), "page="+itoa(p-1)) {
			t.Errorf("page %d previous = %v", p, pg["previous"])
		}
		next = pg["next"]
		if next != nil && !strings.Contains(next.(string), "page="+itoa(p+1)) || next != nil && !strings.Contains(next.(string), "page_size=150") {
			t.Errorf("page %d next = %v", p, next)
		}
	}
	if total != 2008 || len(seen) != 2008 {
		t.Errorf("paged through %d templates (%d distinct), want 2008", total, len(seen))
	}
	if text, isErr := l.Call("job_templates_list", map[string]any{"page_size": 150.0, "page": 99.0}); !isErr || !strings.Contains(text, "Invalid page") {
		t.Errorf("page past the end: %v %s", isErr, text)
	}
	pg := call(t, l, "hosts_list", map[string]any{"page_size": 1000.0})
	if n := len(pg["results"].([]any)); n != 200 {
		t.Errorf("page_size 1000 gave %d results, want the cap of 200", n)
	}
	pg = call(t, l, "hosts_list", map[string]any{"search": "shop-web", "inventory": 1.0})
	if pg["count"] != 3.0 || pg["next"] != nil {
		t.Errorf("search shop-web in inventory 1: count %v next %v", pg["count"], pg["next"])
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func lastValues(t *testing.T, l *Lab, q string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, r := range call(t, l, "metrics_query", map[string]any{"query": q})["data"].(map[string]any)["result"].([]any) {
		s := r.(map[string]any)
		vals := s["values"].([]any)
		b, _ := json.Marshal(s["metric"])
		out[string(b)] = vals[len(vals)-1].([]any)[1].(string)
	}
	return out
}

func logText(t *testing.T, l *Lab, q string) string {
	t.Helper()
	text, isErr := l.Call("logs_query", map[string]any{"query": q, "limit": 500.0})
	if isErr {
		t.Fatal(text)
	}
	return text
}

// TestFaultsVisible checks each planted fault shows through its tools, is
// absent from a lab without it, and goes away after the right launch.
func TestFaultsVisible(t *testing.T) {
	checks := map[string]struct {
		metric, metricWant, metricHealthy string
		logs, logWant                     string
		extra                             func(t *testing.T, l *Lab) bool
		launch                            string
	}{
		"service-stopped": {`up{job="shop-frontend",instance="shop-web-02:8080"}`, "0", "1",
			`{host="shop-web-02", unit="systemd"}`, "Stopped shop-frontend.service", nil, "restart-service"},
		"disk-full": {`node_filesystem_avail_bytes{instance="shop-app-01:9100",mountpoint="/var"}`, "0", "",
			`{host="shop-app-01", unit="shop-api"}`, "no space left on device", nil, "cleanup-disk"},
		"cert-hostnames": {`probe_success{target="https://www.shop.example.com"}`, "0", "1",
			`{unit="blackbox-exporter"}`, "not www.shop.example.com", func(t *testing.T, l *Lab) bool {
				sans := call(t, l, "cmdb_ci_get", map[string]any{"name": "shop-tls"})["subject_alternative_names"].([]any)
				for _, s := range sans {
					if s == "www.shop.example.com" {
						return false
					}
				}
				return true
			}, "renew-certificate"},
		"bad-setting": {`shop_api_checkout_failures_rate{instance="shop-app-02:8443"}`, "", "0",
			`{host="shop-app-02", unit="shop-api"}`, `setting=checkout.payment_timeout_ms value=\"30s`, func(t *testing.T, l *Lab) bool {
				c := call(t, l, "change_get", map[string]any{"number": "CHG0030112"})
				return strings.Contains(c["close_notes"].(string), "30s")
			}, "set-app-setting"},
		"db-connections": {`pg_stat_activity_count{instance="shop-db-01:9187",state="idle in transaction"}`, "85", "",
			`{host="shop-db-01", unit="postgresql"}`, "too many clients already", nil, "db-terminate-idle-sessions"},
	}
	for _, f := range Faults {
		c := checks[f.ID]
		t.Run(f.ID, func(t *testing.T) {
			l := newLab(t, Small, f.ID)
			clean := newLab(t, Small, "")
			for _, v := range lastValues(t, l, c.metric) {
				if c.metricWant != "" && v != c.metricWant {
					t.Errorf("%s = %s, want %s", c.metric, v, c.metricWant)
				}
				if c.metricWant == "" && (v == "0" || v == c.metricHealthy) {
					t.Errorf("%s = %s, want a faulty value", c.metric, v)
				}
			}
			for _, v := range lastValues(t, clean, c.metric) {
				if v == c.metricWant {
					t.Errorf("without the fault %s = %s", c.metric, v)
				}
			}
			if !strings.Contains(logText(t, l, c.logs), c.logWant) {
				t.Errorf("logs %s lack %q", c.logs, c.logWant)
			}
			if strings.Contains(logText(t, clean, c.logs), c.logWant) {
				t.Errorf("without the fault, logs %s have %q", c.logs, c.logWant)
			}
			if c.extra != nil && !c.extra(t, l) {
				t.Errorf("CMDB/ITSM does not show the fault")
			}
			if c.extra != nil && c.extra(t, clean) {
				t.Errorf("CMDB/ITSM shows the fault in a clean lab")
			}
			tk := call(t, l, "tickets_list", map[string]any{"state": "new"})["results"].([]any)
			if len(tk) != 1 || tk[0].(map[string]any)["number"] != f.Ticket {
				t.Errorf("new tickets = %v, want only %s", tk, f.Ticket)
			}
			// A wrong launch fixes nothing; the right one does.
			id := 0.0
			for _, r := range call(t, l, "job_templates_list", nil)["results"].([]any) {
				if r.(map[string]any)["name"] == c.launch {
					id = r.(map[string]any)["id"].(float64)
				}
			}
			call(t, l, "job_template_launch", map[string]any{"id": id, "limit": "shop-mon-01"})
			for _, v := range lastValues(t, l, c.metric) {
				if c.metricWant != "" && v != c.metricWant {
					t.Errorf("after a launch on the wrong host %s = %s", c.metric, v)
				}
			}
			call(t, l, "job_template_launch", map[string]any{"id": id, "limit": f.Host})
			for _, v := range lastValues(t, l, c.metric) {
				if v == c.metricWant || (c.metricHealthy != "" && v != c.metricHealthy) {
					t.Errorf("after the fix %s = %s", c.metric, v)
				}
			}
		})
	}
}

func TestServer(t *testing.T) {
	ctx := context.Background()
	l := newLab(t, Small, "disk-full")
	srv, err := NewServer(l, "controller", "itsm")
	if err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != 14 {
		t.Errorf("controller+itsm offer %d tools, want 14", len(res.Tools))
	}
	r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "hosts_list", Arguments: map[string]any{"search": "shop-app-01"}})
	if err != nil || r.IsError {
		t.Fatal(err, r)
	}
	want, _ := l.Call("hosts_list", map[string]any{"search": "shop-app-01"})
	if got := r.Content[0].(*mcp.TextContent).Text; got != want {
		t.Errorf("MCP response differs from Lab.Call")
	}
	if _, err := NewServer(l, "nope"); err == nil {
		t.Error("unknown service accepted")
	}
	if _, err := New(Config{Fault: "nope"}); err == nil {
		t.Error("unknown fault accepted")
	}
}
