package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/codemode-dev/codemode/opslab"
)

// An incident's runbook knowledge: what a competent agent looks at, the
// fix template it picks, and how it words the finding. The values it acts
// on (hosts, mounts, settings, counts) come from the lab's responses.
type incident struct {
	search   string // the word the agent searches the template catalog for
	template string // the template it picks
	// extraVars are the launch variables, from the finding's detail.
	extraVars func(detail string) map[string]any
	// answer words the finding.
	answer func(host, detail string) string
	// direct diagnoses with direct calls; returns host and detail.
	direct func(ctx context.Context, d *Direct) (string, string, error)
	// program is the code arm's triage program; it prints
	// "FINDING <host>|<detail>".
	program string
	// verifyQuery is the metric re-read after the fix, and healthy tells
	// whether its last value says the fault is gone.
	verifyQuery func(host string) string
	healthy     func(last float64) bool
}

var incidents = map[string]incident{
	"service-stopped": {
		search: "restart", template: "restart-service",
		extraVars: func(string) map[string]any { return map[string]any{"service_name": "shop-frontend"} },
		answer: func(host, detail string) string {
			return fmt.Sprintf("%s: the shop-frontend service is stopped (journal: %q), so HAProxy sends some requests to a dead backend (502)", host, detail)
		},
		direct: func(ctx context.Context, d *Direct) (string, string, error) {
			m, err := d.Call(ctx, "metrics_query", map[string]any{"query": `up{job="shop-frontend"}`})
			if err != nil {
				return "", "", err
			}
			host := ""
			for _, s := range seriesOf(m) {
				if s.last == 0 {
					host = strings.Split(s.labels["instance"], ":")[0]
				}
			}
			if host == "" {
				return "", "", fmt.Errorf("no shop-frontend instance is down")
			}
			logs, err := d.Call(ctx, "logs_query", map[string]any{"query": fmt.Sprintf(`{host=%q, unit="systemd"} |= "shop-frontend"`, host), "limit": 20})
			if err != nil {
				return "", "", err
			}
			for _, l := range linesOf(logs) {
				if strings.HasPrefix(l.line, "Stopped") {
					return host, l.line, nil
				}
			}
			return "", "", fmt.Errorf("no stop in %s's journal", host)
		},
		program: `r = api.monitoring.metrics_query(query='up{job="shop-frontend"}')
for s in r["data"]["result"]:
    if s["values"][-1][1] == "0":
        host = s["metric"]["instance"].split(":")[0]
        print("DOWN", s["metric"]["instance"], "since", s["values"][0][0] if s["values"][0][1] == "0" else "within the window")
        logs = api.monitoring.logs_query(query='{host="' + host + '", unit="systemd"} |= "shop-frontend"', limit=20)
        for st in logs["data"]["result"]:
            for v in st["values"]:
                if v[1].startswith("Stopped"):
                    print("FINDING " + host + "|" + v[1])
`,
		verifyQuery: func(host string) string { return fmt.Sprintf(`up{job="shop-frontend",instance="%s:8080"}`, host) },
		healthy:     func(v float64) bool { return v == 1 },
	},
	"disk-full": {
		search: "cleanup", template: "cleanup-disk",
		extraVars: func(mount string) map[string]any { return map[string]any{"mountpoint": mount} },
		answer: func(host, mount string) string {
			return fmt.Sprintf("%s: filesystem %s is full (0 bytes available), so shop-api's nightly order export fails with 'no space left on device'", host, mount)
		},
		direct: func(ctx context.Context, d *Direct) (string, string, error) {
			logs, err := d.Call(ctx, "logs_query", map[string]any{"query": `{unit="shop-api"} |= "error"`, "limit": 50})
			if err != nil {
				return "", "", err
			}
			host := ""
			for _, l := range linesOf(logs) {
				if strings.Contains(l.line, "no space left on device") {
					host = l.labels["host"]
				}
			}
			if host == "" {
				return "", "", fmt.Errorf("no disk errors in shop-api's logs")
			}
			m, err := d.Call(ctx, "metrics_query", map[string]any{"query": fmt.Sprintf(`node_filesystem_avail_bytes{instance="%s:9100"}`, host)})
			if err != nil {
				return "", "", err
			}
			for _, s := range seriesOf(m) {
				if s.last == 0 {
					return host, s.labels["mountpoint"], nil
				}
			}
			return "", "", fmt.Errorf("no full filesystem on %s", host)
		},
		program: `logs = api.monitoring.logs_query(query='{unit="shop-api"} |= "error"', limit=50)
hosts = {}
for st in logs["data"]["result"]:
    for v in st["values"]:
        if "no space left on device" in v[1]:
            hosts[st["stream"]["host"]] = v[1]
for host in hosts:
    print("ERROR", host, hosts[host][:160])
    r = api.monitoring.metrics_query(query='node_filesystem_avail_bytes{instance="' + host + ':9100"}')
    for s in r["data"]["result"]:
        avail = float(s["values"][-1][1])
        print("FS", host, s["metric"]["mountpoint"], int(avail / 2**30), "GiB free")
        if avail == 0:
            print("FINDING " + host + "|" + s["metric"]["mountpoint"])
`,
		verifyQuery: func(host string) string {
			return fmt.Sprintf(`node_filesystem_avail_bytes{instance="%s:9100",mountpoint="/var"}`, host)
		},
		healthy: func(v float64) bool { return v > 0 },
	},
	"cert-hostnames": {
		search: "certificate", template: "renew-certificate",
		extraVars: func(string) map[string]any {
			return map[string]any{"cert_name": "shop-tls", "san": []any{"shop.example.com", "www.shop.example.com"}}
		},
		answer: func(host, names string) string {
			return fmt.Sprintf("%s serves the TLS certificate shop-tls, which is valid only for %s and not for shop.example.com or www.shop.example.com, so browsers reject it", host, names)
		},
		direct: func(ctx context.Context, d *Direct) (string, string, error) {
			m, err := d.Call(ctx, "metrics_query", map[string]any{"query": `probe_success`})
			if err != nil {
				return "", "", err
			}
			failing := 0
			for _, s := range seriesOf(m) {
				if s.last == 0 {
					failing++
				}
			}
			if failing == 0 {
				return "", "", fmt.Errorf("every probe succeeds")
			}
			if _, err := d.Call(ctx, "logs_query", map[string]any{"query": `{unit="blackbox-exporter"} |= "x509"`, "limit": 10}); err != nil {
				return "", "", err
			}
			ci, err := d.Call(ctx, "cmdb_ci_get", map[string]any{"name": "shop-tls"})
			if err != nil {
				return "", "", err
			}
			host := fmt.Sprint(ci["installed_on"].([]any)[0])
			var names []string
			for _, n := range ci["subject_alternative_names"].([]any) {
				names = append(names, fmt.Sprint(n))
			}
			return host, strings.Join(names, ", "), nil
		},
		program: `r = api.monitoring.metrics_query(query="probe_success")
for s in r["data"]["result"]:
    print("PROBE", s["metric"]["target"], s["values"][-1][1])
logs = api.monitoring.logs_query(query='{unit="blackbox-exporter"} |= "x509"', limit=2)
for st in logs["data"]["result"]:
    for v in st["values"]:
        print("LOG", v[1][v[1].find("x509"):])
ci = api.cmdb.cmdb_ci_get(name="shop-tls")
print("CERT", ci["name"], "on", ci["installed_on"], "names", ci["subject_alternative_names"])
print("FINDING " + ci["installed_on"][0] + "|" + ", ".join(ci["subject_alternative_names"]))
`,
		verifyQuery: func(string) string { return `probe_success{target="https://www.shop.example.com"}` },
		healthy:     func(v float64) bool { return v == 1 },
	},
	"bad-setting": {
		search: "setting", template: "set-app-setting",
		extraVars: func(string) map[string]any {
			return map[string]any{"setting": "checkout.payment_timeout_ms", "value": 30000}
		},
		answer: func(host, detail string) string {
			return fmt.Sprintf("%s: shop-api setting checkout.payment_timeout_ms has an invalid value (%s), so the payment provider client is disabled and checkouts fail", host, detail)
		},
		direct: func(ctx context.Context, d *Direct) (string, string, error) {
			m, err := d.Call(ctx, "metrics_query", map[string]any{"query": `shop_api_checkout_failures_rate`})
			if err != nil {
				return "", "", err
			}
			host := ""
			for _, s := range seriesOf(m) {
				if s.last > 0.1 {
					host = strings.Split(s.labels["instance"], ":")[0]
				}
			}
			if host == "" {
				return "", "", fmt.Errorf("no checkout failures")
			}
			logs, err := d.Call(ctx, "logs_query", map[string]any{"query": fmt.Sprintf(`{host=%q, unit="shop-api"} |= "setting"`, host), "limit": 20})
			if err != nil {
				return "", "", err
			}
			detail := ""
			for _, l := range linesOf(logs) {
				if strings.Contains(l.line, "invalid setting") {
					detail = settingDetail(l.line)
				}
			}
			chg, err := d.Call(ctx, "changes_list", map[string]any{"search": host, "page_size": 5})
			if err != nil {
				return "", "", err
			}
			if rs, _ := chg["results"].([]any); len(rs) > 0 {
				detail += ", set by " + fmt.Sprint(rs[0].(map[string]any)["number"])
			}
			return host, detail, nil
		},
		program: `r = api.monitoring.metrics_query(query="shop_api_checkout_failures_rate")
for s in r["data"]["result"]:
    rate = float(s["values"][-1][1])
    print("CHECKOUT_FAILURES", s["metric"]["instance"], rate)
    if rate > 0.1:
        host = s["metric"]["instance"].split(":")[0]
        logs = api.monitoring.logs_query(query='{host="' + host + '", unit="shop-api"} |= "invalid setting"', limit=5)
        detail = ""
        for st in logs["data"]["result"]:
            for v in st["values"]:
                m = re.search(r'setting=(\S+) value=("[^"]*"|\S+)', v[1])
                if m:
                    detail = m.group(1) + "=" + m.group(2)
        changes = api.itsm.changes_list(search=host, page_size=5)["results"]
        if changes:
            print("CHANGE", changes[0]["number"], changes[0]["short_description"], "|", changes[0]["close_notes"])
            detail = detail + ", set by " + changes[0]["number"]
        print("FINDING " + host + "|" + detail)
`,
		verifyQuery: func(host string) string {
			return fmt.Sprintf(`shop_api_checkout_failures_rate{instance="%s:8443"}`, host)
		},
		healthy: func(v float64) bool { return v < 0.1 },
	},
	"db-connections": {
		search: "idle", template: "db-terminate-idle-sessions",
		extraVars: func(string) map[string]any { return map[string]any{"older_than_minutes": 10} },
		answer: func(host, detail string) string {
			return fmt.Sprintf("%s: PostgreSQL refuses new connections ('too many clients already'): %s", host, detail)
		},
		direct: func(ctx context.Context, d *Direct) (string, string, error) {
			logs, err := d.Call(ctx, "logs_query", map[string]any{"query": `{unit="shop-api"} |= "error"`, "limit": 20})
			if err != nil {
				return "", "", err
			}
			host := ""
			re := regexp.MustCompile(`server at \\?"([^"\\]+)`)
			for _, l := range linesOf(logs) {
				if m := re.FindStringSubmatch(l.line); m != nil && strings.Contains(l.line, "too many clients") {
					host = m[1]
				}
			}
			if host == "" {
				return "", "", fmt.Errorf("no database errors in shop-api's logs")
			}
			m, err := d.Call(ctx, "metrics_query", map[string]any{"query": fmt.Sprintf(`pg_stat_activity_count{instance="%s:9187"}`, host)})
			if err != nil {
				return "", "", err
			}
			total, idle := 0.0, 0.0
			for _, s := range seriesOf(m) {
				total += s.last
				if s.labels["state"] == "idle in transaction" {
					idle = s.last
				}
			}
			mx, err := d.Call(ctx, "metrics_query", map[string]any{"query": fmt.Sprintf(`pg_settings_max_connections{instance="%s:9187"}`, host)})
			if err != nil {
				return "", "", err
			}
			limit := seriesOf(mx)[0].last
			return host, fmt.Sprintf("%d of %d connection slots used, %d idle in transaction", int(total), int(limit), int(idle)), nil
		},
		program: `logs = api.monitoring.logs_query(query='{unit="shop-api"} |= "error"', limit=20)
dbs = {}
for st in logs["data"]["result"]:
    for v in st["values"]:
        m = re.search(r'server at \\?"([^"\\]+)', v[1])
        if m and "too many clients" in v[1]:
            dbs[m.group(1)] = dbs.get(m.group(1), 0) + 1
print("DB_ERRORS", dbs)
for host in dbs:
    r = api.monitoring.metrics_query(query='pg_stat_activity_count{instance="' + host + ':9187"}')
    used = {s["metric"]["state"]: int(float(s["values"][-1][1])) for s in r["data"]["result"]}
    mx = api.monitoring.metrics_query(query='pg_settings_max_connections{instance="' + host + ':9187"}')
    limit = int(float(mx["data"]["result"][0]["values"][-1][1]))
    total = sum(used.values())
    print("BACKENDS", host, used, "max", limit)
    print("FINDING " + host + "|" + str(total) + " of " + str(limit) + " connection slots used, " + str(used["idle in transaction"]) + " idle in transaction")
`,
		verifyQuery: func(host string) string {
			return fmt.Sprintf(`pg_stat_activity_count{instance="%s:9187",state="idle in transaction"}`, host)
		},
		healthy: func(v float64) bool { return v < 10 },
	},
}

func settingDetail(line string) string {
	m := regexp.MustCompile(`setting=(\S+) value=("[^"]*"|\S+)`).FindStringSubmatch(line)
	if m == nil {
		return line
	}
	return m[1] + "=" + m[2]
}

type seriesVal struct {
	labels map[string]string
	last   float64
}

// seriesOf reads a Prometheus matrix: each series' labels and last value.
func seriesOf(m map[string]any) []seriesVal {
	data, _ := m["data"].(map[string]any)
	res, _ := data["result"].([]any)
	var out []seriesVal
	for _, r := range res {
		s := r.(map[string]any)
		labels := map[string]string{}
		for k, v := range s["metric"].(map[string]any) {
			labels[k] = fmt.Sprint(v)
		}
		vals := s["values"].([]any)
		last := vals[len(vals)-1].([]any)
		f, _ := strconv.ParseFloat(fmt.Sprint(last[1]), 64)
		out = append(out, seriesVal{labels, f})
	}
	return out
}

type logLine struct {
	labels map[string]string
	line   string
}

// linesOf reads a Loki streams answer.
func linesOf(m map[string]any) []logLine {
	data, _ := m["data"].(map[string]any)
	res, _ := data["result"].([]any)
	var out []logLine
	for _, r := range res {
		s := r.(map[string]any)
		labels := map[string]string{}
		for k, v := range s["stream"].(map[string]any) {
			labels[k] = fmt.Sprint(v)
		}
		for _, v := range s["values"].([]any) {
			out = append(out, logLine{labels, fmt.Sprint(v.([]any)[1])})
		}
	}
	return out
}

func results(m map[string]any) []map[string]any {
	rs, _ := m["results"].([]any)
	var out []map[string]any
	for _, r := range rs {
		out = append(out, r.(map[string]any))
	}
	return out
}

func num(v any) int {
	f, _ := v.(float64)
	return int(f)
}

// SolveDirect works the lab's incident with direct tool calls, as an agent
// would: read the ticket and the service map, diagnose, browse the job
// template catalog, confirm the host, launch, check the job, verify and
// write up. It returns the final answer.
func SolveDirect(ctx context.Context, d *Direct) (string, error) {
	f := d.T.Fault
	inc := incidents[f.ID]
	tl, err := d.Call(ctx, "tickets_list", map[string]any{"state": "new"})
	if err != nil {
		return "", err
	}
	ts := results(tl)
	if len(ts) == 0 {
		return "", fmt.Errorf("no new ticket")
	}
	number := fmt.Sprint(ts[0]["number"])
	if _, err := d.Call(ctx, "ticket_get", map[string]any{"number": number}); err != nil {
		return "", err
	}
	if _, err := d.Call(ctx, "cmdb_service_map", map[string]any{"service": "Online Shop"}); err != nil {
		return "", err
	}
	host, detail, err := inc.direct(ctx, d)
	if err != nil {
		return "", err
	}
	// The catalog: first a browse of one big page, as agents do, then a
	// search when the template is not on it.
	tmplID, invID := 0, 0
	pick := func(m map[string]any) {
		for _, t := range results(m) {
			if t["name"] == inc.template {
				tmplID, invID = num(t["id"]), num(t["inventory"])
			}
		}
	}
	m, err := d.Call(ctx, "job_templates_list", map[string]any{"page_size": 100})
	if err != nil {
		return "", err
	}
	pick(m)
	for p := 1; tmplID == 0; p++ {
		m, err := d.Call(ctx, "job_templates_list", map[string]any{"search": inc.search, "page_size": 100, "page": p})
		if err != nil {
			return "", err
		}
		pick(m)
		if m["next"] == nil {
			break
		}
	}
	if tmplID == 0 {
		return "", fmt.Errorf("no template %s", inc.template)
	}
	hm, err := d.Call(ctx, "hosts_list", map[string]any{"search": host})
	if err != nil {
		return "", err
	}
	ok := false
	for _, h := range results(hm) {
		ok = ok || (h["name"] == host && num(h["inventory"]) == invID)
	}
	if !ok {
		return "", fmt.Errorf("host %s is not in the template's inventory", host)
	}
	ev, _ := json.Marshal(inc.extraVars(detail))
	job, err := d.Call(ctx, "job_template_launch", map[string]any{"id": tmplID, "limit": host, "extra_vars": string(ev)})
	if err != nil {
		return "", err
	}
	jd, err := d.Call(ctx, "job_get", map[string]any{"id": num(job["id"])})
	if err != nil {
		return "", err
	}
	vm, err := d.Call(ctx, "metrics_query", map[string]any{"query": inc.verifyQuery(host)})
	if err != nil {
		return "", err
	}
	sv := seriesOf(vm)
	if len(sv) == 0 || !inc.healthy(sv[0].last) {
		return "", fmt.Errorf("not fixed after job %d", num(job["id"]))
	}
	answer := fmt.Sprintf("%s. Fixed by job %d (%s, %s); verified: %s = %v.", inc.answer(host, detail), num(jd["id"]), inc.template, jd["status"], inc.verifyQuery(host), sv[0].last)
	if _, err := d.Call(ctx, "ticket_add_note", map[string]any{"number": number, "note": answer, "state": "resolved"}); err != nil {
		return "", err
	}
	d.T.Answer = answer
	return answer, nil
}

// codeFinds are the find_tool searches the code arm makes before its first
// program, one per system. Before each program it also reads, by exact
// name, the definition of every tool the program calls that it has not
// read yet (readCalled): the read-gate unlocks a tool once its definition
// was read.
var codeFinds = []string{
	"list new incident tickets",
	"service map hosts of a business service",
	"query metrics and logs",
}

var calledTool = regexp.MustCompile(`\bapi\.([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*)\(`)

// readCalled has find_tool show the definition of each tool program calls
// that read does not hold yet, in order of first use.
func readCalled(ctx context.Context, c *Code, program string, read map[string]bool) error {
	for _, m := range calledTool.FindAllStringSubmatch(program, -1) {
		name := m[1] + "." + m[2]
		if read[name] {
			continue
		}
		read[name] = true
		if _, err := c.Find(ctx, name); err != nil {
			return err
		}
	}
	return nil
}

// SolveCode works the lab's incident in code mode: find_tool to learn the
// surface, one triage program, then one program that finds the template,
// confirms the host, launches, checks, verifies and writes up.
func SolveCode(ctx context.Context, c *Code) (string, error) {
	f := c.T.Fault
	inc := incidents[f.ID]
	for _, q := range codeFinds {
		if _, err := c.Find(ctx, q); err != nil {
			return "", err
		}
	}
	read := map[string]bool{}
	triage := `t = api.itsm.tickets_list(state="new")["results"][0]
print("TICKET", t["number"], t["short_description"])
m = api.cmdb.cmdb_service_map(service="Online Shop")
for comp in m["components"]:
    print("TIER", comp["application"], ",".join(comp["hosts"]))
` + inc.program
	if err := readCalled(ctx, c, triage, read); err != nil {
		return "", err
	}
	out, err := c.Run(ctx, triage)
	if err != nil {
		return "", err
	}
	number, host, detail := "", "", ""
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(line, "TICKET "); ok {
			number = strings.Fields(rest)[0]
		}
		if rest, ok := strings.CutPrefix(line, "FINDING "); ok {
			host, detail, _ = strings.Cut(rest, "|")
		}
	}
	if number == "" || host == "" {
		return "", fmt.Errorf("triage found nothing:\n%s", out)
	}
	if _, err := c.Find(ctx, "launch a job template"); err != nil {
		return "", err
	}
	ev, _ := json.Marshal(inc.extraVars(detail))
	answerStart := inc.answer(host, detail)
	fix := fmt.Sprintf(`host = %q
wanted = %q
tid = 0
inv = 0
chosen = {}
page = 1
while tid == 0:
    r = api.controller.job_templates_list(search=%q, page_size=200, page=page)
    for t in r["results"]:
        if t["name"] == wanted:
            tid = t["id"]
            inv = t["inventory"]
            chosen = t
    if r["next"] is None:
        break
    page += 1
print("TEMPLATE", tid, wanted, "launchable:", chosen["summary_fields"]["user_capabilities"]["start"])
hs = [h for h in api.controller.hosts_list(search=host)["results"] if h["name"] == host]
print("HOST", host, "in template inventory:", len(hs) == 1 and hs[0]["inventory"] == inv)
job = api.controller.job_template_launch(id=tid, limit=host, extra_vars=%q)
j = api.controller.job_get(id=job["id"])
print("JOB", j["id"], j["status"], j["host_status_counts"])
v = api.monitoring.metrics_query(query=%q)
last = float(v["data"]["result"][0]["values"][-1][1])
print("VERIFY", %q, last)
note = %q + ". Fixed by job " + str(j["id"]) + " (" + wanted + ", " + j["status"] + "); verified: " + %q + " = " + str(last) + "."
api.itsm.ticket_add_note(number=%q, note=note, state="resolved")
print("NOTE", note)
`, host, inc.template, inc.search, string(ev), inc.verifyQuery(host), inc.verifyQuery(host), answerStart, inc.verifyQuery(host), number)
	if err := readCalled(ctx, c, fix, read); err != nil {
		return "", err
	}
	out, err = c.Run(ctx, fix)
	if err != nil {
		return "", err
	}
	answer := ""
	verified := false
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(line, "NOTE "); ok {
			answer = rest
		}
		if rest, ok := strings.CutPrefix(line, "VERIFY "); ok {
			fs := strings.Fields(rest)
			v, _ := strconv.ParseFloat(fs[len(fs)-1], 64)
			verified = inc.healthy(v)
		}
	}
	if answer == "" || !verified {
		return "", fmt.Errorf("fix program did not verify:\n%s", out)
	}
	c.T.Answer = answer
	return answer, nil
}

// Faults lists the lab's faults (for callers that range over incidents).
func Faults() []*opslab.Fault { return opslab.Faults }
