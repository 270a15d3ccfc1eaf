package opslab

import (
	"fmt"
	"hash/fnv"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// noise is a deterministic number in [0, 1) for a key and a time.
func (l *Lab) noise(key string, t int64) float64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d|%s|%d", l.cfg.Seed, key, t)
	return float64(h.Sum64()%1_000_000) / 1_000_000
}

// metricDefs are the metrics the lab serves: name, help, type.
var metricDefs = [][3]string{
	{"up", "1 if the target's exporter was scraped successfully, 0 if not; labels job, instance", "gauge"},
	{"node_filesystem_avail_bytes", "Filesystem space available to non-root users in bytes; labels instance, mountpoint, device, fstype", "gauge"},
	{"node_filesystem_size_bytes", "Filesystem size in bytes; labels instance, mountpoint, device, fstype", "gauge"},
	{"node_load1", "1m load average; label instance", "gauge"},
	{"node_memory_MemAvailable_bytes", "Memory available in bytes; label instance", "gauge"},
	{"haproxy_backend_http_responses_5xx_rate", "Per-second rate of 5xx responses per HAProxy backend and server; labels backend, server", "gauge"},
	{"probe_success", "Blackbox probe result, 1 success 0 failure; labels target, module", "gauge"},
	{"probe_http_status_code", "HTTP status code of the blackbox probe (0 when the connection failed); labels target, module", "gauge"},
	{"shop_api_checkout_failures_rate", "Per-second rate of failed checkouts in shop-api; label instance", "gauge"},
	{"pg_stat_activity_count", "PostgreSQL backends by state; labels instance, state", "gauge"},
	{"pg_settings_max_connections", "PostgreSQL max_connections setting; label instance", "gauge"},
}

type series struct {
	labels map[string]string
	value  func(t int64) float64
}

func (l *Lab) allSeries() []series {
	var out []series
	add := func(v func(int64) float64, kv ...string) {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		out = append(out, series{labels: m, value: v})
	}
	gb := float64(1 << 30)
	for _, h := range shopHosts {
		name := h[0]
		inst := name + ":9100"
		add(func(int64) float64 { return 1 }, "__name__", "up", "job", "node", "instance", inst)
		for _, fs := range []struct {
			mount, dev string
			size       float64
		}{{"/", "/dev/mapper/rhel-root", 40 * gb}, {"/var", "/dev/mapper/rhel-var", 120 * gb}, {"/data", "/dev/sdb1", 40 * gb}} {
			fs := fs
			key := name + fs.mount
			add(func(t int64) float64 {
				if name == "shop-app-01" && fs.mount == "/var" {
					if l.active("disk-full", t) {
						return 0
					}
					if l.fault != nil && l.fault.ID == "disk-full" && t < l.faultStart.Unix() {
						return float64(int64(fs.size * 0.01 * float64(l.faultStart.Unix()-t) / 600))
					}
				}
				return float64(int64(fs.size * (0.45 + 0.02*l.noise(key, t/3600))))
			}, "__name__", "node_filesystem_avail_bytes", "instance", inst, "mountpoint", fs.mount, "device", fs.dev, "fstype", "xfs")
			add(func(int64) float64 { return fs.size }, "__name__", "node_filesystem_size_bytes", "instance", inst, "mountpoint", fs.mount, "device", fs.dev, "fstype", "xfs")
		}
		add(func(t int64) float64 { return round2(0.3 + 1.2*l.noise(name+"load", t)) }, "__name__", "node_load1", "instance", inst)
		add(func(t int64) float64 { return float64(int64((6 + 2*l.noise(name+"mem", t)) * gb)) }, "__name__", "node_memory_MemAvailable_bytes", "instance", inst)
	}
	for _, w := range []string{"shop-web-01", "shop-web-02", "shop-web-03"} {
		w := w
		add(func(t int64) float64 {
			if w == "shop-web-02" && l.active("service-stopped", t) {
				return 0
			}
			return 1
		}, "__name__", "up", "job", "shop-frontend", "instance", w+":8080")
		add(func(t int64) float64 {
			switch {
			case w == "shop-web-02" && l.active("service-stopped", t):
				return round2(4 + l.noise(w+"5xx", t))
			case l.active("db-connections", t):
				return round2(1.5 + l.noise(w+"5xx", t))
			}
			return round2(0.01 * l.noise(w+"5xx", t))
		}, "__name__", "haproxy_backend_http_responses_5xx_rate", "backend", "shop_frontend", "server", w)
	}
	for _, a := range []string{"shop-app-01", "shop-app-02"} {
		a := a
		add(func(int64) float64 { return 1 }, "__name__", "up", "job", "shop-api", "instance", a+":8443")
		add(func(t int64) float64 {
			if a == "shop-app-02" && l.active("bad-setting", t) {
				return round2(0.8 + 0.3*l.noise(a+"co", t))
			}
			if l.active("db-connections", t) {
				return round2(0.5 + 0.2*l.noise(a+"co", t))
			}
			return 0
		}, "__name__", "shop_api_checkout_failures_rate", "instance", a+":8443")
	}
	for _, d := range []string{"shop-db-01", "shop-db-02"} {
		d := d
		add(func(int64) float64 { return 1 }, "__name__", "up", "job", "postgres", "instance", d+":9187")
		add(func(int64) float64 { return 100 }, "__name__", "pg_settings_max_connections", "instance", d+":9187")
		for _, st := range []string{"active", "idle", "idle in transaction"} {
			st := st
			add(func(t int64) float64 {
				if d == "shop-db-01" && l.active("db-connections", t) {
					return map[string]float64{"active": 3, "idle": 12, "idle in transaction": 85}[st]
				}
				base := map[string]float64{"active": 4, "idle": 18, "idle in transaction": 1}[st]
				return base + float64(int(3*l.noise(d+st, t)))
			}, "__name__", "pg_stat_activity_count", "instance", d+":9187", "state", st)
		}
	}
	add(func(int64) float64 { return 1 }, "__name__", "up", "job", "redis", "instance", "shop-cache-01:9121")
	add(func(int64) float64 { return 1 }, "__name__", "up", "job", "haproxy", "instance", "shop-lb-01:8405")
	for _, tg := range []string{"https://shop.example.com", "https://www.shop.example.com"} {
		tg := tg
		add(func(t int64) float64 {
			if l.active("cert-hostnames", t) {
				return 0
			}
			return 1
		}, "__name__", "probe_success", "target", tg, "module", "http_2xx_tls")
		add(func(t int64) float64 {
			if l.active("cert-hostnames", t) {
				return 0
			}
			if l.active("service-stopped", t) && l.noise(tg, t) < 0.33 {
				return 502
			}
			if l.active("bad-setting", t) || l.active("db-connections", t) {
				return 503
			}
			return 200
		}, "__name__", "probe_http_status_code", "target", tg, "module", "http_2xx_tls")
	}
	return out
}

func round2(f float64) float64 { return float64(int64(f*100)) / 100 }

var selectorRE = regexp.MustCompile(`^\s*([a-zA-Z_:][a-zA-Z0-9_:]*)?\s*(?:\{(.*)\})?\s*$`)
var matcherRE = regexp.MustCompile(`^\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!=|=)\s*"((?:[^"\\]|\\.)*)"\s*$`)

type matcher struct {
	label, op string
	re        *regexp.Regexp
	value     string
}

func (m matcher) match(labels map[string]string) bool {
	v := labels[m.label]
	switch m.op {
	case "=":
		return v == m.value
	case "!=":
		return v != m.value
	}
	return m.re.MatchString(v)
}

// parseSelector reads `name{label="v", other=~"re"}`; for logs the name is
// empty.
func parseSelector(q string) ([]matcher, error) {
	m := selectorRE.FindStringSubmatch(q)
	if m == nil {
		return nil, fmt.Errorf(`bad selector %q: want metric{label="value", label=~"regex"}`, q)
	}
	var out []matcher
	if m[1] != "" {
		out = append(out, matcher{label: "__name__", op: "=", value: m[1]})
	}
	if strings.TrimSpace(m[2]) != "" {
		for _, part := range splitMatchers(m[2]) {
			mm := matcherRE.FindStringSubmatch(part)
			if mm == nil {
				return nil, fmt.Errorf("bad label matcher %q in %q", part, q)
			}
			x := matcher{label: mm[1], op: mm[2], value: strings.ReplaceAll(mm[3], `\"`, `"`)}
			if x.op == "=~" {
				re, err := regexp.Compile("^(?:" + x.value + ")$")
				if err != nil {
					return nil, fmt.Errorf("bad regex in %q: %v", part, err)
				}
				x.re = re
			}
			out = append(out, x)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("empty selector %q", q)
	}
	return out, nil
}

func splitMatchers(s string) []string {
	var out []string
	var cur strings.Builder
	inQ := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			cur.WriteByte(c)
			cur.WriteByte(s[i+1])
			i++
			continue
		case c == '"':
			inQ = !inQ
		case c == ',' && !inQ:
			out = append(out, cur.String())
			cur.Reset()
			continue
		}
		cur.WriteByte(c)
	}
	if strings.TrimSpace(cur.String()) != "" {
		out = append(out, cur.String())
	}
	return out
}

// timeRange resolves start, end and step (unix seconds; 0 = defaults: the
// last 30 minutes, one point a minute).
func (l *Lab) timeRange(start, end, step int64, def time.Duration) (int64, int64, int64) {
	if end == 0 {
		end = l.now.Unix()
	}
	if start == 0 {
		start = end - int64(def/time.Second)
	}
	if step <= 0 {
		step = 60
	}
	if (end-start)/step > 1000 {
		step = (end - start) / 1000
	}
	return start, end, step
}

// queryMetrics answers a range query in the Prometheus API's format.
func (l *Lab) queryMetrics(q string, start, end, step int64) (obj, error) {
	ms, err := parseSelector(q)
	if err != nil {
		return nil, err
	}
	start, end, step = l.timeRange(start, end, step, 30*time.Minute)
	result := []any{}
	for _, s := range l.allSeries() {
		ok := true
		for _, m := range ms {
			ok = ok && m.match(s.labels)
		}
		if !ok {
			continue
		}
		var vals []any
		for t := start; t <= end; t += step {
			vals = append(vals, []any{t, strconv.FormatFloat(s.value(t), 'f', -1, 64)})
		}
		labels := obj{}
		for k, v := range s.labels {
			labels[k] = v
		}
		result = append(result, obj{"metric": labels, "values": vals})
	}
	return obj{"status": "success", "data": obj{"resultType": "matrix", "result": result}}, nil
}

type logLine struct {
	t    int64 // unix nanoseconds
	line string
}

type stream struct {
	labels map[string]string
	lines  func(from, to int64) []logLine
}

var paths = []string{"/", "/products/1042", "/products/2210", "/cart", "/search?q=shoes", "/category/outdoor", "/account/orders", "/checkout"}

func (l *Lab) logStreams() []stream {
	var out []stream
	every := func(from, to, period int64, f func(t int64) []string) []logLine {
		var ls []logLine
		first := (from + period - 1) / period * period
		for t := first; t <= to; t += period {
			for i, s := range f(t) {
				ls = append(ls, logLine{t: t*1e9 + int64(i)*1e6 + int64(l.noise(s, t)*1e5), line: s})
			}
		}
		return ls
	}
	ts := func(t int64) string { return time.Unix(t, 0).UTC().Format("2006-01-02T15:04:05Z") }
	fs := l.faultStart.Unix()
	fixed := func() int64 {
		if l.fixedAt.IsZero() {
			return 1 << 62
		}
		return l.fixedAt.Unix()
	}
	add := func(host, unit string, f func(from, to int64) []logLine) {
		out = append(out, stream{labels: map[string]string{"host": host, "unit": unit, "job": "systemd-journal", "env": "prod"}, lines: f})
	}
	for _, h := range shopHosts {
		host := h[0]
		add(host, "systemd", func(from, to int64) []logLine {
			ls := every(from, to, 600, func(t int64) []string {
				return []string{fmt.Sprintf("CRON[%d]: (root) CMD (run-parts /etc/cron.hourly)", 20000+int(l.noise(host, t)*9000))}
			})
			ev := func(t int64, lines ...string) {
				if t >= from && t <= to {
					for i, s := range lines {
						ls = append(ls, logLine{t: t*1e9 + int64(i)*1e6, line: s})
					}
				}
			}
			if l.fault != nil {
				switch {
				case l.fault.ID == "service-stopped" && host == "shop-web-02":
					ev(fs, "Stopping shop-frontend.service - Shop storefront...", "shop-frontend.service: Deactivated successfully.", "Stopped shop-frontend.service - Shop storefront.", "shop-frontend.service: Consumed 2h 13min 4.210s CPU time.")
					ev(fixed(), "Starting shop-frontend.service - Shop storefront...", "Started shop-frontend.service - Shop storefront.")
				case l.fault.ID == "disk-full" && host == "shop-app-01":
					ls = append(ls, every(max(from, fs), min(to, fixed()-1), 120, func(int64) []string {
						return []string{"systemd-journald[612]: Failed to write entry (22 items, 714 bytes), ignoring: No space left on device"}
					})...)
				case l.fault.ID == "bad-setting" && host == "shop-app-02":
					ev(fs, "Reloading shop-api.service - Shop API...", "Reloaded shop-api.service - Shop API.")
				case l.fault.ID == "cert-hostnames" && host == "shop-lb-01":
					ev(fs-120, "Reloading haproxy.service - HAProxy Load Balancer...", "Reloaded haproxy.service - HAProxy Load Balancer.")
				}
			}
			return ls
		})
		switch h[2] {
		case "loadbalancer":
			add(host, "haproxy", func(from, to int64) []logLine {
				return every(from, to, 10, func(t int64) []string {
					srv := fmt.Sprintf("shop-web-0%d", 1+int(l.noise("srv", t)*3))
					status := 200
					if srv == "shop-web-02" && l.active("service-stopped", t) {
						status = 502
					}
					if l.active("db-connections", t) || (l.active("bad-setting", t) && strings.Contains(paths[int(l.noise("p", t)*8)], "checkout")) {
						status = 503
					}
					line := fmt.Sprintf(`10.0.%d.%d:%d [%s] https_front~ shop_frontend/%s 0/0/1/%d/%d %d %d - - ---- 120/120/3/1/0 0/0 "GET %s HTTP/2.0"`,
						int(l.noise("a", t)*250), int(l.noise("b", t)*250), 30000+int(l.noise("c", t)*30000), ts(t), srv,
						10+int(l.noise("d", t)*80), 12+int(l.noise("d", t)*80), status, 800+int(l.noise("e", t)*9000), paths[int(l.noise("p", t)*8)])
					lines := []string{line}
					if srv == "shop-web-02" && status == 502 && l.noise("down", t) < 0.3 {
						lines = append(lines, `Server shop_frontend/shop-web-02 is DOWN, reason: Layer4 connection problem, info: "Connection refused", check duration: 0ms. 2 active and 0 backup servers left.`)
					}
					return lines
				})
			})
		case "web":
			add(host, "shop-frontend", func(from, to int64) []logLine {
				return every(from, to, 15, func(t int64) []string {
					if host == "shop-web-02" && l.active("service-stopped", t) {
						return nil
					}
					return []string{fmt.Sprintf("level=info msg=request method=GET path=%s status=200 duration_ms=%d", paths[int(l.noise(host, t)*8)], 5+int(l.noise(host+"d", t)*60))}
				})
			})
		case "app":
			add(host, "shop-api", func(from, to int64) []logLine {
				ls := every(from, to, 15, func(t int64) []string {
					switch {
					case host == "shop-app-01" && l.active("disk-full", t) && t%120 == 0:
						return []string{fmt.Sprintf(`level=error msg="export failed" job=nightly-orders err="write /var/lib/shop-api/exports/orders-2025-10-20.csv: no space left on device"`)}
					case host == "shop-app-02" && l.active("bad-setting", t) && l.noise(host+"co", t) < 0.5:
						return []string{fmt.Sprintf(`level=error msg="checkout failed" order=SO-%06d err="payment provider not configured" status=503`, 400000+int(l.noise("o", t)*99999))}
					case l.active("db-connections", t):
						return []string{`level=error msg="db connect failed" err="connection to server at \"shop-db-01\" (10.20.4.31), port 5432 failed: FATAL:  sorry, too many clients already"`}
					}
					return []string{fmt.Sprintf("level=info msg=request path=/api/v1/cart status=200 duration_ms=%d request_id=%08x", 8+int(l.noise(host, t)*40), uint32(l.noise(host+"r", t)*4e9))}
				})
				if host == "shop-app-02" && l.fault != nil && l.fault.ID == "bad-setting" && fs >= from && fs <= to {
					ls = append(ls, logLine{t: fs*1e9 + 5e8, line: `level=warn msg="invalid setting, using none" setting=checkout.payment_timeout_ms value="30s" want="integer milliseconds" file=/etc/shop-api/settings.yaml effect="payment provider client disabled"`})
				}
				if host == "shop-app-02" && l.fault != nil && l.fault.ID == "bad-setting" && fixed() >= from && fixed() <= to {
					ls = append(ls, logLine{t: fixed()*1e9 + 5e8, line: `level=info msg="settings reloaded" setting=checkout.payment_timeout_ms value=30000`})
				}
				return ls
			})
		case "database":
			add(host, "postgresql", func(from, to int64) []logLine {
				ls := every(from, to, 30, func(t int64) []string {
					if host == "shop-db-01" && l.active("db-connections", t) {
						return []string{`FATAL:  sorry, too many clients already`, `FATAL:  remaining connection slots are reserved for roles with the SUPERUSER attribute`}
					}
					return []string{fmt.Sprintf("LOG:  duration: %.3f ms  statement: SELECT id, name, price FROM products WHERE category_id = $1", 0.2+5*l.noise(host, t))}
				})
				if host == "shop-db-01" && l.fault != nil && l.fault.ID == "db-connections" {
					ls = append(ls, every(max(from, fs-600), min(to, fs), 20, func(t int64) []string {
						return []string{fmt.Sprintf("LOG:  connection authorized: user=reporting database=shop application_name=report-runner (pid %d, left idle in transaction)", 31000+int(l.noise("pid", t)*999))}
					})...)
				}
				return ls
			})
		case "cache":
			add(host, "redis", func(from, to int64) []logLine {
				return every(from, to, 300, func(t int64) []string {
					return []string{"* 100 changes in 300 seconds. Saving...", "* Background saving terminated with success"}
				})
			})
		case "monitoring":
			add(host, "blackbox-exporter", func(from, to int64) []logLine {
				return every(from, to, 30, func(t int64) []string {
					var ls []string
					for _, tg := range []string{"shop.example.com", "www.shop.example.com"} {
						if l.active("cert-hostnames", t) {
							ls = append(ls, fmt.Sprintf(`level=error module=http_2xx_tls target=https://%s msg="Error for HTTP request" err="Get \"https://%s\": tls: failed to verify certificate: x509: certificate is valid for legacy-shop.example.com, shop-lb-01.internal.example.net, not %s"`, tg, tg, tg))
						} else if l.noise(tg, t) < 0.2 {
							ls = append(ls, fmt.Sprintf(`level=info module=http_2xx_tls target=https://%s msg="Probe succeeded" duration_seconds=0.%03d`, tg, 40+int(l.noise(tg+"d", t)*200)))
						}
					}
					return ls
				})
			})
		}
	}
	return out
}

var logQueryRE = regexp.MustCompile(`^\s*(\{[^}]*\})\s*(.*)$`)
var logFilterRE = regexp.MustCompile(`^\s*(\|=|!=|\|~)\s*"((?:[^"\\]|\\.)*)"`)

// queryLogs answers a log query in the Loki API's format: newest first,
// at most limit lines.
func (l *Lab) queryLogs(q string, limit int, start, end int64) (obj, error) {
	m := logQueryRE.FindStringSubmatch(q)
	if m == nil {
		return nil, fmt.Errorf(`bad log query %q: want {host="shop-web-01", unit="shop-frontend"} |= "error"`, q)
	}
	ms, err := parseSelector(m[1])
	if err != nil {
		return nil, err
	}
	type filter struct {
		op string
		s  string
		re *regexp.Regexp
	}
	var filters []filter
	rest := m[2]
	for strings.TrimSpace(rest) != "" {
		fm := logFilterRE.FindStringSubmatch(rest)
		if fm == nil {
			return nil, fmt.Errorf(`bad line filter %q: want |= "text", != "text" or |~ "regex"`, strings.TrimSpace(rest))
		}
		f := filter{op: fm[1], s: strings.ReplaceAll(fm[2], `\"`, `"`)}
		if f.op == "|~" {
			if f.re, err = regexp.Compile(f.s); err != nil {
				return nil, fmt.Errorf("bad regex %q: %v", f.s, err)
			}
		}
		filters = append(filters, f)
		rest = rest[len(fm[0]):]
	}
	if limit <= 0 {
		limit = 100
	}
	if limit > 5000 {
		limit = 5000
	}
	start, end, _ = l.timeRange(start, end, 60, time.Hour)
	type hit struct {
		s  int
		ll logLine
	}
	var hits []hit
	streams := l.logStreams()
	for i, s := range streams {
		ok := true
		for _, mt := range ms {
			ok = ok && mt.match(s.labels)
		}
		if !ok {
			continue
		}
		for _, ll := range s.lines(start, end) {
			keep := true
			for _, f := range filters {
				switch f.op {
				case "|=":
					keep = keep && strings.Contains(ll.line, f.s)
				case "!=":
					keep = keep && !strings.Contains(ll.line, f.s)
				case "|~":
					keep = keep && f.re.MatchString(ll.line)
				}
			}
			if keep {
				hits = append(hits, hit{i, ll})
			}
		}
	}
	sort.SliceStable(hits, func(a, b int) bool {
		if hits[a].ll.t != hits[b].ll.t {
			return hits[a].ll.t > hits[b].ll.t
		}
		return hits[a].s < hits[b].s
	})
	total := len(hits)
	if len(hits) > limit {
		hits = hits[:limit]
	}
	byStream := map[int][]any{}
	var order []int
	for _, h := range hits {
		if _, ok := byStream[h.s]; !ok {
			order = append(order, h.s)
		}
		byStream[h.s] = append(byStream[h.s], []any{strconv.FormatInt(h.ll.t, 10), h.ll.line})
	}
	sort.Ints(order)
	result := []any{}
	for _, i := range order {
		labels := obj{}
		for k, v := range streams[i].labels {
			labels[k] = v
		}
		result = append(result, obj{"stream": labels, "values": byStream[i]})
	}
	return obj{"status": "success", "data": obj{"resultType": "streams", "result": result, "stats": obj{
		"summary": obj{"linesMatched": total, "linesReturned": len(hits), "limit": limit, "direction": "backward"},
	}}}, nil
}
