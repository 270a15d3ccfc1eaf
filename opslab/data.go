package opslab

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"time"
)

// Size is how much of an environment a lab holds.
type Size string

// The two lab sizes.
const (
	Small Size = "small" // the shop: 8 job templates, 10 hosts in one inventory
	Large Size = "large" // the shop plus 2,000 job templates and 1,000 hosts in three inventories
)

// Config chooses a lab.
type Config struct {
	Seed  uint64
	Size  Size
	Fault string // a Fault ID, or "" for none
	// State is a file the lab keeps its clock and fix in, so that several
	// processes serving the same lab's services (one per service, as a
	// pack runs them) see each other's launches. "" keeps state in memory.
	State string
}

// Lab is one generated environment. It is safe for concurrent use.
type Lab struct {
	mu    sync.Mutex // one call at a time
	cfg   Config
	fault *Fault

	now        time.Time // the lab clock; launches move it on
	orgs       []*org
	inventory  []*inventory
	hosts      []*host
	templates  []*template
	jobs       []*job
	tickets    []*ticket
	changes    []*change
	cis        []*ci
	fixedAt    time.Time // when the fault was fixed; zero while it is not
	faultStart time.Time
}

type org struct {
	ID          int
	Name, Desc  string
	Created     time.Time
	Maintainers string
}

type inventory struct {
	ID         int
	Name, Desc string
	Org        *org
	Created    time.Time
	Vars       string
}

type host struct {
	ID      int
	Name    string
	Desc    string
	Inv     *inventory
	Enabled bool
	Vars    string // JSON, as a controller stores host variables
	Created time.Time
	IP      string
	Shop    bool
	LastJob int
}

type template struct {
	ID         int
	Name, Desc string
	Playbook   string
	Inv        *inventory
	Org        *org
	Created    time.Time
	Modified   time.Time
	ExtraVars  string
	Launchable bool // the lab's agent account may launch it
	LastJobID  int
	LastRun    time.Time
	Labels     []string
	Cred       string
}

type job struct {
	ID        int
	Template  *template
	Limit     string
	ExtraVars string
	Created   time.Time
	Finished  time.Time
	Status    string
	Stdout    string
	Hosts     []string
}

// The lab's fixed points in time: the clock starts at labNow.
var labNow = time.Date(2025, 10, 20, 9, 30, 0, 0, time.UTC)

// shopHosts are the shop's hosts, in inventory order: name, address, role,
// description.
var shopHosts = [][4]string{
	{"shop-lb-01", "10.20.1.10", "loadbalancer", "HAProxy load balancer terminating TLS for the online shop"},
	{"shop-web-01", "10.20.2.11", "web", "Storefront web server (shop-frontend)"},
	{"shop-web-02", "10.20.2.12", "web", "Storefront web server (shop-frontend)"},
	{"shop-web-03", "10.20.2.13", "web", "Storefront web server (shop-frontend)"},
	{"shop-app-01", "10.20.3.21", "app", "Shop API and checkout application server (shop-api)"},
	{"shop-app-02", "10.20.3.22", "app", "Shop API and checkout application server (shop-api)"},
	{"shop-db-01", "10.20.4.31", "database", "PostgreSQL 15 primary for the shop"},
	{"shop-db-02", "10.20.4.32", "database", "PostgreSQL 15 streaming replica for the shop"},
	{"shop-cache-01", "10.20.5.41", "cache", "Redis cache and session store for the shop"},
	{"shop-mon-01", "10.20.6.51", "monitoring", "Prometheus, Loki and blackbox exporter for the shop"},
}

// shopTemplates are the small lab's job templates: name, playbook,
// description.
var shopTemplates = [][3]string{
	{"restart-service", "playbooks/restart_service.yml", "Restart a systemd service on the limited hosts; extra_vars: service_name"},
	{"cleanup-disk", "playbooks/cleanup_disk.yml", "Free space on a filesystem: rotate and compress logs, remove old exports and package caches; extra_vars: mountpoint"},
	{"renew-certificate", "playbooks/renew_certificate.yml", "Issue and deploy a TLS certificate from the internal CA; extra_vars: cert_name, san (list of host names)"},
	{"set-app-setting", "playbooks/set_app_setting.yml", "Set one shop-api setting in /etc/shop-api/settings.yaml and reload the service; extra_vars: setting, value"},
	{"db-terminate-idle-sessions", "playbooks/pg_terminate_idle.yml", "Terminate idle and idle-in-transaction PostgreSQL sessions older than a threshold; extra_vars: older_than_minutes"},
	{"collect-diagnostics", "playbooks/collect_diagnostics.yml", "Collect journal, dmesg, disk and process listings from the limited hosts into an archive"},
	{"patch-linux-hosts", "playbooks/patch_linux.yml", "Apply pending OS updates and reboot if required, one host at a time"},
	{"shop-healthcheck", "playbooks/shop_healthcheck.yml", "Check every tier of the shop: load balancer, web, API, database, cache"},
}

// Catalog words of the large lab's job templates.
var (
	catalogVerbs = []string{"restart", "collect-logs", "deploy", "rollback", "scale-out", "backup", "restore",
		"rotate-credentials", "patch", "reboot", "healthcheck", "drain", "failover", "flush-cache", "renew-cert",
		"sync-config", "vacuum", "reindex", "snapshot", "decommission", "provision", "audit-access", "update-dns",
		"purge-queue", "warm-cache"}
	catalogServices = []string{"payments", "orders", "inventory", "catalog", "search", "billing", "identity",
		"shipping", "notifications", "reporting", "analytics", "ledger", "pricing", "reviews", "recommendations",
		"fraud", "loyalty", "media", "gateway", "warehouse"}
	catalogEnvs = []string{"prod-east", "prod-west", "prod-central", "prod-eu", "staging", "dev", "qa"}
)

// The large lab's extra inventories: name, description, hosts, host name
// prefixes (service, role), domain, subnet.
var noiseInventories = []struct {
	name, desc string
	n          int
	services   []string
	roles      []string
	env        string
	subnet     string
}{
	{"payments-prod", "Payments platform, production, all regions", 400, []string{"pay", "ledger", "fraud", "billing"}, []string{"api", "worker", "db", "cache", "kafka"}, "prod", "10.40"},
	{"orders-staging", "Orders and fulfilment, staging", 300, []string{"orders", "shipping", "warehouse", "pricing"}, []string{"api", "worker", "db", "queue"}, "staging", "10.50"},
	{"data-platform", "Analytics and reporting clusters", 300, []string{"spark", "trino", "airflow", "kafka", "hdfs"}, []string{"master", "worker", "edge", "broker"}, "prod", "10.60"},
}

// New builds a lab. The same Config always gives the same lab.
func New(cfg Config) (*Lab, error) {
	if cfg.Size == "" {
		cfg.Size = Small
	}
	if cfg.Size != Small && cfg.Size != Large {
		return nil, fmt.Errorf("opslab: size %q is not small or large", cfg.Size)
	}
	l := &Lab{cfg: cfg, now: labNow, faultStart: labNow.Add(-22 * time.Minute)}
	if cfg.Fault != "" {
		f, ok := FaultByID(cfg.Fault)
		if !ok {
			return nil, fmt.Errorf("opslab: no fault %q (faults: %s)", cfg.Fault, strings.Join(FaultIDs(), ", "))
		}
		l.fault = f
	}
	r := rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15))
	l.build(r)
	return l, nil
}

// Size is the lab's size.
func (l *Lab) Size() Size { return l.cfg.Size }

// Fault is the planted fault, or nil.
func (l *Lab) Fault() *Fault { return l.fault }

func daysBefore(r *rand.Rand, t time.Time, minDays, maxDays int) time.Time {
	d := minDays + r.IntN(maxDays-minDays+1)
	return t.Add(-time.Duration(d)*24*time.Hour - time.Duration(r.IntN(86400))*time.Second).Truncate(time.Microsecond)
}

func (l *Lab) build(r *rand.Rand) {
	shopOrg := &org{ID: 1, Name: "Silex Shop", Desc: "Online shop operations", Created: daysBefore(r, labNow, 600, 700), Maintainers: "shop-sre"}
	l.orgs = []*org{shopOrg}
	shopInv := &inventory{ID: 1, Name: "shop-production", Desc: "Online shop, production", Org: shopOrg,
		Created: daysBefore(r, labNow, 500, 600), Vars: `{"ansible_user": "automation", "ntp_servers": ["10.20.0.5", "10.20.0.6"], "shop_domain": "shop.example.com"}`}
	l.inventory = []*inventory{shopInv}
	for i, h := range shopHosts {
		l.hosts = append(l.hosts, &host{
			ID: i + 1, Name: h[0], Desc: h[3], Inv: shopInv, Enabled: true, IP: h[1], Shop: true,
			Created: daysBefore(r, labNow, 200, 480),
			Vars:    hostVars(r, h[0], h[1], h[2], "prod", "dc1-"+[]string{"a", "b"}[i%2], "shop-sre"),
		})
	}
	for i, t := range shopTemplates {
		created := daysBefore(r, labNow, 100, 400)
		l.templates = append(l.templates, &template{
			ID: i + 1, Name: t[0], Desc: t[2], Playbook: t[1], Inv: shopInv, Org: shopOrg,
			Created: created, Modified: daysBefore(r, labNow, 5, 90), Launchable: true,
			ExtraVars: "---\n", Labels: []string{"shop", "level1"}, Cred: "shop-machine-credential",
			LastJobID: 4000 + i*37, LastRun: daysBefore(r, labNow, 1, 30),
		})
	}
	if l.cfg.Size == Large {
		l.buildLarge(r)
	}
	sort.SliceStable(l.templates, func(i, j int) bool { return l.templates[i].Name < l.templates[j].Name })
	l.buildITSM(r)
	l.buildCMDB(r)
}

func (l *Lab) buildLarge(r *rand.Rand) {
	names := map[string]bool{}
	for _, t := range shopTemplates {
		names[t[0]] = true
	}
	var all []string
	for _, v := range catalogVerbs {
		for _, s := range catalogServices {
			for _, e := range catalogEnvs {
				all = append(all, v+"-"+s+"-"+e)
			}
		}
	}
	r.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	all = all[:2000]
	sort.Strings(all)
	platform := &org{ID: 2, Name: "Platform Engineering", Desc: "Shared platform automation catalog", Created: daysBefore(r, labNow, 700, 900), Maintainers: "platform-automation"}
	l.orgs = append(l.orgs, platform)
	nextInv := 2
	var invs []*inventory
	for _, ni := range noiseInventories {
		inv := &inventory{ID: nextInv, Name: ni.name, Desc: ni.desc, Org: platform, Created: daysBefore(r, labNow, 300, 800),
			Vars: fmt.Sprintf(`{"ansible_user": "svc-ansible", "environment": %q}`, ni.env)}
		nextInv++
		l.inventory = append(l.inventory, inv)
		invs = append(invs, inv)
	}
	for i, name := range all {
		parts := strings.SplitN(name, "-", 2)
		verb := parts[0]
		for _, v := range catalogVerbs {
			if strings.HasPrefix(name, v+"-") {
				verb = v
			}
		}
		rest := strings.TrimPrefix(name, verb+"-")
		inv := invs[i%len(invs)]
		l.templates = append(l.templates, &template{
			ID: len(shopTemplates) + 1 + i, Name: name,
			Desc:     fmt.Sprintf("%s for %s (owned by %s; change ticket required in prod)", strings.ReplaceAll(verb, "-", " "), rest, []string{"platform-automation", "payments-sre", "orders-sre", "data-eng"}[r.IntN(4)]),
			Playbook: fmt.Sprintf("playbooks/%s/%s.yml", strings.ReplaceAll(verb, "-", "_"), strings.SplitN(rest, "-", 2)[0]),
			Inv:      inv, Org: platform, Created: daysBefore(r, labNow, 60, 900), Modified: daysBefore(r, labNow, 1, 59),
			ExtraVars: fmt.Sprintf("---\nservice: %s\nnotify_channel: \"#ops-%s\"\nserial: %d\n", strings.SplitN(rest, "-", 2)[0], strings.SplitN(rest, "-", 2)[0], 1+r.IntN(5)),
			Labels:    []string{strings.SplitN(rest, "-", 2)[0], verb}, Cred: "platform-ssh-" + inv.Name,
			LastJobID: 10000 + r.IntN(90000), LastRun: daysBefore(r, labNow, 0, 120),
		})
	}
	id := len(l.hosts) + 1
	regions := []string{"east", "west", "central", "eu"}
	for k, ni := range noiseInventories {
		for i := 0; i < ni.n; i++ {
			svc := ni.services[r.IntN(len(ni.services))]
			role := ni.roles[r.IntN(len(ni.roles))]
			region := regions[r.IntN(len(regions))]
			name := fmt.Sprintf("%s-%s-%s-%s-%04d", svc, role, ni.env, region, i+1)
			ip := fmt.Sprintf("%s.%d.%d", ni.subnet, i/250, 1+i%250)
			l.hosts = append(l.hosts, &host{
				ID: id, Name: name + ".internal.example.net", Desc: fmt.Sprintf("%s %s node (%s, %s)", svc, role, ni.env, region),
				Inv: invs[k], Enabled: r.IntN(20) != 0, IP: ip, Created: daysBefore(r, labNow, 10, 900),
				Vars:    hostVars(r, name, ip, role, ni.env, region+"-"+[]string{"a", "b", "c"}[r.IntN(3)], svc+"-team"),
				LastJob: 10000 + r.IntN(90000),
			})
			id++
		}
	}
}

// hostVars is a host's variables as a controller keeps them: a JSON
// document of connection facts, placement and ownership.
func hostVars(r *rand.Rand, name, ip, role, env, zone, team string) string {
	dists := []struct{ fam, dist, ver, kernel string }{
		{"RedHat", "RedHat", "9.4", "5.14.0-427.31.1.el9_4.x86_64"},
		{"RedHat", "RedHat", "8.10", "4.18.0-553.16.1.el8_10.x86_64"},
		{"Debian", "Ubuntu", "22.04", "5.15.0-119-generic"},
	}
	d := dists[r.IntN(len(dists))]
	cpus := []int{2, 4, 8, 16}[r.IntN(4)]
	mem := cpus * []int{2048, 4096, 8192}[r.IntN(3)]
	return fmt.Sprintf(`{"ansible_host": %q, "ansible_port": 22, "ansible_user": "automation", "ansible_python_interpreter": "/usr/bin/python3", `+
		`"os_family": %q, "distribution": %q, "distribution_version": %q, "kernel": %q, "role": %q, "environment": %q, `+
		`"datacenter": "dc1", "zone": %q, "rack": "r%02d-u%02d", "vcpus": %d, "memory_mb": %d, "owner_team": %q, `+
		`"patch_group": "%s-wave-%d", "backup_policy": %q, "monitoring": {"node_exporter": true, "scrape_interval": "30s", "tier": %q}, `+
		`"tags": ["%s", "%s", "managed-by-ansible"], "hostname": %q}`,
		ip, d.fam, d.dist, d.ver, d.kernel, role, env, zone, 1+r.IntN(40), 1+r.IntN(42), cpus, mem, team,
		env, 1+r.IntN(3), []string{"daily-14d", "weekly-8w", "none"}[r.IntN(3)], []string{"gold", "silver", "bronze"}[r.IntN(3)],
		role, env, name)
}
