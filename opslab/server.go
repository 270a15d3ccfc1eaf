package opslab

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Services are the lab's MCP services, in order.
var Services = []string{"itsm", "cmdb", "monitoring", "controller"}

// Tool is one lab tool: its MCP definition and its handler.
type Tool struct {
	Service string
	Def     *mcp.Tool
	call    func(l *Lab, a args) (any, error)
}

type args map[string]any

func (a args) str(k string) string {
	switch v := a[k].(type) {
	case string:
		return v
	case nil:
		return ""
	default:
		b, _ := json.Marshal(v)
		return string(b)
	}
}

func (a args) int(k string) (int, error) {
	switch v := a[k].(type) {
	case nil:
		return 0, nil
	case float64:
		if v != float64(int64(v)) {
			return 0, fmt.Errorf("%s must be an integer, got %v", k, v)
		}
		return int(v), nil
	case json.Number:
		n, err := strconv.Atoi(string(v))
		if err != nil {
			return 0, fmt.Errorf("%s must be an integer, got %s", k, v)
		}
		return n, nil
	case string:
		n, err := strconv.Atoi(v)
		if err != nil {
			return 0, fmt.Errorf("%s must be an integer, got %q", k, v)
		}
		return n, nil
	}
	return 0, fmt.Errorf("%s must be an integer", k)
}

func prop(typ, desc string) map[string]any { return map[string]any{"type": typ, "description": desc} }

func schema(props map[string]any, required ...string) map[string]any {
	s := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

var (
	pageProps = map[string]any{
		"page":      prop("integer", "Page number, starting at 1."),
		"page_size": prop("integer", "Records per page, between 1 and 200 (default 25)."),
	}
	readOnly = &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true}
)

func with(base map[string]any, more map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range more {
		out[k] = v
	}
	return out
}

func listArgs(a args) (pageNum, size int, err error) {
	if pageNum, err = a.int("page"); err != nil {
		return
	}
	size, err = a.int("page_size")
	return
}

func query(a args, keys ...string) url.Values {
	v := url.Values{}
	for _, k := range keys {
		if s := a.str(k); s != "" {
			v.Set(k, s)
		}
	}
	return v
}

// Tools are every tool of the lab, by service, in a fixed order.
func Tools() []*Tool {
	f := false
	t := true
	return []*Tool{
		{Service: "itsm", Def: &mcp.Tool{Name: "tickets_list", Annotations: readOnly,
			Description: "List incident tickets in the ITSM, newest first. Filter by state (new, in_progress, resolved or closed) and by a search text matched against the number, short description and description.",
			InputSchema: schema(with(pageProps, map[string]any{"state": prop("string", "Only tickets in this state: new, in_progress, resolved or closed."), "search": prop("string", "Text to look for in the number and descriptions.")}))},
			call: func(l *Lab, a args) (any, error) {
				p, s, err := listArgs(a)
				if err != nil {
					return nil, err
				}
				var items []obj
				for i := len(l.tickets) - 1; i >= 0; i-- {
					t := l.tickets[i]
					if st := a.str("state"); st != "" && st != t.State {
						continue
					}
					if !contains(t.Number+" "+t.Short+" "+t.Desc, a.str("search")) {
						continue
					}
					items = append(items, l.ticketRecord(t))
				}
				return page("/api/now/table/incident", items, query(a, "state", "search"), p, s)
			}},
		{Service: "itsm", Def: &mcp.Tool{Name: "ticket_get", Annotations: readOnly,
			Description: "Get one incident ticket by its number (INC...), with its work notes.",
			InputSchema: schema(map[string]any{"number": prop("string", "The ticket number, e.g. INC0041001.")}, "number")},
			call: func(l *Lab, a args) (any, error) {
				for _, t := range l.tickets {
					if t.Number == a.str("number") {
						return l.ticketRecord(t), nil
					}
				}
				return nil, fmt.Errorf("no incident %q", a.str("number"))
			}},
		{Service: "itsm", Def: &mcp.Tool{Name: "ticket_add_note", Annotations: &mcp.ToolAnnotations{DestructiveHint: &f, OpenWorldHint: &f},
			Description: "Add a work note to an incident ticket, optionally moving it to a new state (in_progress or resolved). Returns the updated ticket.",
			InputSchema: schema(map[string]any{"number": prop("string", "The ticket number."), "note": prop("string", "The work note text."), "state": prop("string", "New state: in_progress or resolved.")}, "number", "note")},
			call: func(l *Lab, a args) (any, error) {
				for _, t := range l.tickets {
					if t.Number == a.str("number") {
						if st := a.str("state"); st != "" {
							if st != "in_progress" && st != "resolved" {
								return nil, fmt.Errorf("state must be in_progress or resolved, got %q", st)
							}
							t.State = st
						}
						t.Notes = append(t.Notes, a.str("note"))
						t.Updated = l.now
						return l.ticketRecord(t), nil
					}
				}
				return nil, fmt.Errorf("no incident %q", a.str("number"))
			}},
		{Service: "itsm", Def: &mcp.Tool{Name: "changes_list", Annotations: readOnly,
			Description: "List change requests, newest first, with a search text matched against the number, descriptions and affected CIs.",
			InputSchema: schema(with(pageProps, map[string]any{"search": prop("string", "Text to look for.")}))},
			call: func(l *Lab, a args) (any, error) {
				p, s, err := listArgs(a)
				if err != nil {
					return nil, err
				}
				cs := append([]*change(nil), l.changes...)
				sort.SliceStable(cs, func(i, j int) bool { return cs[i].Start.After(cs[j].Start) })
				var items []obj
				for _, c := range cs {
					if contains(c.Number+" "+c.Short+" "+c.Desc+" "+strings.Join(c.CIs, " "), a.str("search")) {
						items = append(items, l.changeRecord(c))
					}
				}
				return page("/api/now/table/change_request", items, query(a, "search"), p, s)
			}},
		{Service: "itsm", Def: &mcp.Tool{Name: "change_get", Annotations: readOnly,
			Description: "Get one change request by its number (CHG...).",
			InputSchema: schema(map[string]any{"number": prop("string", "The change number, e.g. CHG0030112.")}, "number")},
			call: func(l *Lab, a args) (any, error) {
				for _, c := range l.changes {
					if c.Number == a.str("number") {
						return l.changeRecord(c), nil
					}
				}
				return nil, fmt.Errorf("no change %q", a.str("number"))
			}},
		{Service: "cmdb", Def: &mcp.Tool{Name: "cmdb_ci_list", Annotations: readOnly,
			Description: "List configuration items with every attribute. Filter by class (cmdb_ci_linux_server, cmdb_ci_app_server, cmdb_ci_db_postgresql_instance, cmdb_ci_certificate, cmdb_ci_service) and a search text matched against name and description.",
			InputSchema: schema(with(pageProps, map[string]any{"ci_class": prop("string", "Only items of this class."), "search": prop("string", "Text to look for in the name and description.")}))},
			call: func(l *Lab, a args) (any, error) {
				p, s, err := listArgs(a)
				if err != nil {
					return nil, err
				}
				var items []obj
				for _, c := range l.cis {
					if cl := a.str("ci_class"); cl != "" && cl != c.Class {
						continue
					}
					desc, _ := c.Attrs["short_description"].(string)
					if contains(c.Name+" "+desc, a.str("search")) {
						items = append(items, ciRecord(c))
					}
				}
				return page("/api/now/table/cmdb_ci", items, query(a, "ci_class", "search"), p, s)
			}},
		{Service: "cmdb", Def: &mcp.Tool{Name: "cmdb_ci_get", Annotations: readOnly,
			Description: "Get one configuration item by name or sys_id, with every attribute.",
			InputSchema: schema(map[string]any{"name": prop("string", "The CI's name (shop-web-01, shop-tls, ...) or sys_id.")}, "name")},
			call: func(l *Lab, a args) (any, error) {
				for _, c := range l.cis {
					if c.Name == a.str("name") || c.SysID == a.str("name") {
						return ciRecord(c), nil
					}
				}
				return nil, fmt.Errorf("no configuration item %q", a.str("name"))
			}},
		{Service: "cmdb", Def: &mcp.Tool{Name: "cmdb_service_map", Annotations: readOnly,
			Description: "Get a business service's map: its applications, the hosts each runs on, its certificate and the dependencies between components.",
			InputSchema: schema(map[string]any{"service": prop("string", "The business service, e.g. Online Shop.")}, "service")},
			call: func(l *Lab, a args) (any, error) {
				if !strings.EqualFold(strings.TrimSpace(a.str("service")), "online shop") {
					return nil, fmt.Errorf("no business service %q (known: Online Shop)", a.str("service"))
				}
				return l.serviceMap(), nil
			}},
		{Service: "monitoring", Def: &mcp.Tool{Name: "metrics_list", Annotations: readOnly,
			Description: "List the metric names the monitoring system has, with their help text and labels.",
			InputSchema: schema(map[string]any{})},
			call: func(l *Lab, a args) (any, error) {
				var data []any
				for _, m := range metricDefs {
					data = append(data, obj{"metric": m[0], "help": m[1], "type": m[2]})
				}
				return obj{"status": "success", "data": data}, nil
			}},
		{Service: "monitoring", Def: &mcp.Tool{Name: "metrics_query", Annotations: readOnly,
			Description: `Run a range query over metrics, in the Prometheus API's format (a matrix of [unix time, "value"] pairs per series). The query is a selector: metric{label="value", label=~"regex"}. Defaults: the last 30 minutes, one point a minute.`,
			InputSchema: schema(map[string]any{"query": prop("string", `A selector, e.g. up{job="shop-frontend"}.`), "start": prop("integer", "Range start, unix seconds."),
				"end": prop("integer", "Range end, unix seconds."), "step": prop("integer", "Seconds between points.")}, "query")},
			call: func(l *Lab, a args) (any, error) {
				st, err1 := a.int("start")
				en, err2 := a.int("end")
				sp, err3 := a.int("step")
				for _, e := range []error{err1, err2, err3} {
					if e != nil {
						return nil, e
					}
				}
				return l.queryMetrics(a.str("query"), int64(st), int64(en), int64(sp))
			}},
		{Service: "monitoring", Def: &mcp.Tool{Name: "logs_query", Annotations: readOnly,
			Description: `Query logs in the Loki API's format: streams of [unix nanoseconds, line], newest first. The query is a stream selector with optional line filters: {host="shop-web-01", unit="shop-frontend"} |= "error". Labels: host, unit, job, env. Defaults: the last hour, 100 lines.`,
			InputSchema: schema(map[string]any{"query": prop("string", "A LogQL stream selector and optional line filters."), "limit": prop("integer", "Most lines to return (default 100, at most 5000)."),
				"start": prop("integer", "Range start, unix seconds."), "end": prop("integer", "Range end, unix seconds.")}, "query")},
			call: func(l *Lab, a args) (any, error) {
				lim, err1 := a.int("limit")
				st, err2 := a.int("start")
				en, err3 := a.int("end")
				for _, e := range []error{err1, err2, err3} {
					if e != nil {
						return nil, e
					}
				}
				return l.queryLogs(a.str("query"), lim, int64(st), int64(en))
			}},
		{Service: "controller", Def: &mcp.Tool{Name: "job_templates_list", Annotations: readOnly,
			Description: "List job templates of the automation controller, ordered by name, with every field. search matches name and description (case-insensitive).",
			InputSchema: schema(with(pageProps, map[string]any{"search": prop("string", "Text to look for in the name and description.")}))},
			call: func(l *Lab, a args) (any, error) {
				p, s, err := listArgs(a)
				if err != nil {
					return nil, err
				}
				var items []obj
				for _, t := range l.templates {
					if contains(t.Name+" "+t.Desc, a.str("search")) {
						items = append(items, l.templateRecord(t))
					}
				}
				return page("/api/v2/job_templates/", items, query(a, "search"), p, s)
			}},
		{Service: "controller", Def: &mcp.Tool{Name: "job_template_get", Annotations: readOnly,
			Description: "Get one job template by id, with every field.",
			InputSchema: schema(map[string]any{"id": prop("integer", "The job template's id.")}, "id")},
			call: func(l *Lab, a args) (any, error) {
				it, err := byID(a, "job template", l.templates, func(x *template) int { return x.ID })
				if err != nil {
					return nil, err
				}
				return l.templateRecord(it), nil
			}},
		{Service: "controller", Def: &mcp.Tool{Name: "job_template_launch", Annotations: &mcp.ToolAnnotations{DestructiveHint: &t, OpenWorldHint: &f},
			Description: "Launch a job template against the hosts named in limit (comma-separated host names of the template's inventory), with extra_vars as a JSON or YAML string. Returns the job.",
			InputSchema: schema(map[string]any{"id": prop("integer", "The job template's id."), "limit": prop("string", "Host names, comma-separated."),
				"extra_vars": prop("string", "Variables for the playbook, a JSON or YAML string.")}, "id", "limit")},
			call: func(l *Lab, a args) (any, error) {
				t, err := byID(a, "job template", l.templates, func(x *template) int { return x.ID })
				if err != nil {
					return nil, err
				}
				j, err := l.launch(t, a.str("limit"), a.str("extra_vars"))
				if err != nil {
					return nil, err
				}
				return l.jobRecord(j), nil
			}},
		{Service: "controller", Def: &mcp.Tool{Name: "inventories_list", Annotations: readOnly,
			Description: "List inventories, with every field. search matches name and description.",
			InputSchema: schema(with(pageProps, map[string]any{"search": prop("string", "Text to look for.")}))},
			call: func(l *Lab, a args) (any, error) {
				p, s, err := listArgs(a)
				if err != nil {
					return nil, err
				}
				var items []obj
				for _, inv := range l.inventory {
					if contains(inv.Name+" "+inv.Desc, a.str("search")) {
						items = append(items, l.inventoryRecord(inv))
					}
				}
				return page("/api/v2/inventories/", items, query(a, "search"), p, s)
			}},
		{Service: "controller", Def: &mcp.Tool{Name: "inventory_get", Annotations: readOnly,
			Description: "Get one inventory by id, with every field.",
			InputSchema: schema(map[string]any{"id": prop("integer", "The inventory's id.")}, "id")},
			call: func(l *Lab, a args) (any, error) {
				it, err := byID(a, "inventory", l.inventory, func(x *inventory) int { return x.ID })
				if err != nil {
					return nil, err
				}
				return l.inventoryRecord(it), nil
			}},
		{Service: "controller", Def: &mcp.Tool{Name: "hosts_list", Annotations: readOnly,
			Description: "List hosts, ordered by name, with every field including variables. search matches name and description; inventory limits to one inventory id.",
			InputSchema: schema(with(pageProps, map[string]any{"search": prop("string", "Text to look for in the name and description."), "inventory": prop("integer", "Only hosts of this inventory id.")}))},
			call: func(l *Lab, a args) (any, error) {
				p, s, err := listArgs(a)
				if err != nil {
					return nil, err
				}
				inv, err := a.int("inventory")
				if err != nil {
					return nil, err
				}
				hs := append([]*host(nil), l.hosts...)
				sort.SliceStable(hs, func(i, j int) bool { return hs[i].Name < hs[j].Name })
				var items []obj
				for _, h := range hs {
					if inv != 0 && h.Inv.ID != inv {
						continue
					}
					if contains(h.Name+" "+h.Desc, a.str("search")) {
						items = append(items, l.hostRecord(h))
					}
				}
				return page("/api/v2/hosts/", items, query(a, "search", "inventory"), p, s)
			}},
		{Service: "controller", Def: &mcp.Tool{Name: "host_get", Annotations: readOnly,
			Description: "Get one host by id, with every field including variables.",
			InputSchema: schema(map[string]any{"id": prop("integer", "The host's id.")}, "id")},
			call: func(l *Lab, a args) (any, error) {
				it, err := byID(a, "host", l.hosts, func(x *host) int { return x.ID })
				if err != nil {
					return nil, err
				}
				return l.hostRecord(it), nil
			}},
		{Service: "controller", Def: &mcp.Tool{Name: "jobs_list", Annotations: readOnly,
			Description: "List jobs launched in this session, newest first, with every field.",
			InputSchema: schema(pageProps)},
			call: func(l *Lab, a args) (any, error) {
				p, s, err := listArgs(a)
				if err != nil {
					return nil, err
				}
				var items []obj
				for i := len(l.jobs) - 1; i >= 0; i-- {
					items = append(items, l.jobRecord(l.jobs[i]))
				}
				return page("/api/v2/jobs/", items, nil, p, s)
			}},
		{Service: "controller", Def: &mcp.Tool{Name: "job_get", Annotations: readOnly,
			Description: "Get one job by id: its status, the hosts it ran on and its output.",
			InputSchema: schema(map[string]any{"id": prop("integer", "The job's id.")}, "id")},
			call: func(l *Lab, a args) (any, error) {
				it, err := byID(a, "job", l.jobs, func(x *job) int { return x.ID })
				if err != nil {
					return nil, err
				}
				return l.jobRecord(it), nil
			}},
	}
}

var (
	toolsOnce sync.Once
	toolIndex map[string]*Tool
)

func toolByName(name string) (*Tool, bool) {
	toolsOnce.Do(func() {
		toolIndex = map[string]*Tool{}
		for _, t := range Tools() {
			toolIndex[t.Def.Name] = t
		}
	})
	t, ok := toolIndex[name]
	return t, ok
}

// Call runs one tool against the lab and returns its response text, as the
// MCP server sends it: indented JSON, or an error message with isError.
func (l *Lab) Call(name string, arguments map[string]any) (string, bool) {
	t, ok := toolByName(name)
	if !ok {
		return fmt.Sprintf("no tool %q", name), true
	}
	l.mu.Lock()
	l.loadState()
	v, err := t.call(l, arguments)
	l.saveState()
	l.mu.Unlock()
	if err != nil {
		return name + ": " + err.Error(), true
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return name + ": " + err.Error(), true
	}
	return string(b), false
}

// NewServer returns an MCP server offering the tools of the named services
// (all of them when services is empty).
func NewServer(l *Lab, services ...string) (*mcp.Server, error) {
	want := map[string]bool{}
	for _, s := range services {
		ok := false
		for _, k := range Services {
			ok = ok || k == s
		}
		if !ok {
			return nil, fmt.Errorf("opslab: no service %q (services: %s)", s, strings.Join(Services, ", "))
		}
		want[s] = true
	}
	name := "opslab"
	if len(services) == 1 {
		name = "opslab-" + services[0]
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: name, Version: "0.1"}, &mcp.ServerOptions{
		Instructions: fmt.Sprintf("Operations lab (%s): the online shop's ITSM, CMDB, monitoring and automation controller. Lab time is %s.", l.cfg.Size, labNow.Format(time.RFC3339)),
	})
	for _, t := range Tools() {
		if len(want) > 0 && !want[t.Service] {
			continue
		}
		t := t
		srv.AddTool(t.Def, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			a := map[string]any{}
			if len(req.Params.Arguments) > 0 {
				if err := json.Unmarshal(req.Params.Arguments, &a); err != nil {
					return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "arguments must be a JSON object: " + err.Error()}}}, nil
				}
			}
			text, isErr := l.Call(t.Def.Name, a)
			return &mcp.CallToolResult{IsError: isErr, Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
		})
	}
	return srv, nil
}

// byID finds the item whose id is the call's "id" argument, or answers as
// the controller does for an unknown id.
func byID[T any](a args, what string, items []T, id func(T) int) (T, error) {
	var zero T
	want, err := a.int("id")
	if err != nil {
		return zero, err
	}
	for _, it := range items {
		if id(it) == want {
			return it, nil
		}
	}
	return zero, fmt.Errorf(`{"detail": "Not found."} (%s %d)`, what, want)
}
