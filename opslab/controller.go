package opslab

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

func fmtAPI(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000Z") }

func userRef(id int, name string) obj {
	first, last, _ := strings.Cut(name, ".")
	return obj{"id": id, "username": name, "first_name": strings.Title(first), "last_name": strings.Title(last)} //nolint:staticcheck // ASCII names
}

func (l *Lab) invSummary(inv *inventory) obj {
	n := 0
	for _, h := range l.hosts {
		if h.Inv == inv {
			n++
		}
	}
	return obj{"id": inv.ID, "name": inv.Name, "description": inv.Desc, "has_active_failures": false, "total_hosts": n,
		"hosts_with_active_failures": 0, "total_groups": 3, "has_inventory_sources": inv.ID != 1, "total_inventory_sources": min(inv.ID-1, 1),
		"inventory_sources_with_failures": 0, "organization_id": inv.Org.ID, "kind": ""}
}

func (l *Lab) templateRecord(t *template) obj {
	base := fmt.Sprintf("/api/v2/job_templates/%d/", t.ID)
	labels := []any{}
	for i, n := range t.Labels {
		labels = append(labels, obj{"id": 100 + i, "name": n})
	}
	recent := []any{}
	for i := 0; i < 3; i++ {
		recent = append(recent, obj{"id": t.LastJobID - i*13, "status": "successful", "finished": fmtAPI(t.LastRun.Add(-time.Duration(i) * 72 * time.Hour)), "canceled_on": nil, "type": "job"})
	}
	return obj{
		"id": t.ID, "type": "job_template", "url": base,
		"related": obj{
			"named_url": fmt.Sprintf("/api/v2/job_templates/%s++%s/", t.Name, t.Org.Name), "created_by": "/api/v2/users/3/", "modified_by": "/api/v2/users/3/",
			"labels": base + "labels/", "inventory": fmt.Sprintf("/api/v2/inventories/%d/", t.Inv.ID), "project": fmt.Sprintf("/api/v2/projects/%d/", 6+t.Org.ID),
			"organization": fmt.Sprintf("/api/v2/organizations/%d/", t.Org.ID), "credentials": base + "credentials/",
			"last_job": fmt.Sprintf("/api/v2/jobs/%d/", t.LastJobID), "jobs": base + "jobs/", "schedules": base + "schedules/",
			"activity_stream": base + "activity_stream/", "launch": base + "launch/", "webhook_key": base + "webhook_key/",
			"webhook_receiver": "", "notification_templates_started": base + "notification_templates_started/",
			"notification_templates_success": base + "notification_templates_success/", "notification_templates_error": base + "notification_templates_error/",
			"access_list": base + "access_list/", "survey_spec": base + "survey_spec/", "object_roles": base + "object_roles/",
			"instance_groups": base + "instance_groups/", "slice_workflow_jobs": base + "slice_workflow_jobs/", "copy": base + "copy/",
			"execution_environment": "/api/v2/execution_environments/2/",
		},
		"summary_fields": obj{
			"organization":          obj{"id": t.Org.ID, "name": t.Org.Name, "description": t.Org.Desc},
			"inventory":             l.invSummary(t.Inv),
			"execution_environment": obj{"id": 2, "name": "Default execution environment", "description": "", "image": "registry.example.net/ansible-automation-platform-25/ee-supported-rhel9:latest"},
			"project":               obj{"id": 6 + t.Org.ID, "name": t.Org.Name + " playbooks", "description": "", "status": "successful", "scm_type": "git", "allow_override": false},
			"last_job":              obj{"id": t.LastJobID, "name": t.Name, "description": t.Desc, "finished": fmtAPI(t.LastRun), "status": "successful", "failed": false},
			"last_update":           obj{"id": t.LastJobID, "name": t.Name, "description": t.Desc, "status": "successful", "failed": false},
			"created_by":            userRef(3, "automation.admin"), "modified_by": userRef(3, "automation.admin"),
			"object_roles": obj{
				"admin_role":   obj{"description": "Can manage all aspects of the job template", "name": "Admin", "id": 1000 + t.ID*3},
				"execute_role": obj{"description": "May run the job template", "name": "Execute", "id": 1001 + t.ID*3},
				"read_role":    obj{"description": "May view settings for the job template", "name": "Read", "id": 1002 + t.ID*3},
			},
			"user_capabilities": obj{"edit": false, "delete": false, "start": t.Launchable, "schedule": false, "copy": false},
			"labels":            obj{"count": len(labels), "results": labels},
			"recent_jobs":       recent,
			"credentials":       []any{obj{"id": 4 + t.Org.ID, "name": t.Cred, "description": "", "kind": "ssh", "cloud": false}},
			"survey":            obj{"title": "", "description": ""},
		},
		"created": fmtAPI(t.Created), "modified": fmtAPI(t.Modified), "name": t.Name, "description": t.Desc,
		"job_type": "run", "inventory": t.Inv.ID, "project": 6 + t.Org.ID, "playbook": t.Playbook, "scm_branch": "",
		"forks": 0, "limit": "", "verbosity": 0, "extra_vars": t.ExtraVars, "job_tags": "", "force_handlers": false,
		"skip_tags": "", "start_at_task": "", "timeout": 0, "use_fact_cache": false, "organization": t.Org.ID,
		"last_job_run": fmtAPI(t.LastRun), "last_job_failed": false, "next_job_run": nil, "status": "successful",
		"execution_environment": 2, "host_config_key": "", "ask_scm_branch_on_launch": false, "ask_diff_mode_on_launch": false,
		"ask_variables_on_launch": true, "ask_limit_on_launch": true, "ask_tags_on_launch": false, "ask_skip_tags_on_launch": false,
		"ask_job_type_on_launch": false, "ask_verbosity_on_launch": false, "ask_inventory_on_launch": false,
		"ask_credential_on_launch": false, "ask_execution_environment_on_launch": false, "ask_labels_on_launch": false,
		"ask_forks_on_launch": false, "ask_job_slice_count_on_launch": false, "ask_timeout_on_launch": false,
		"ask_instance_groups_on_launch": false, "survey_enabled": false, "become_enabled": true, "diff_mode": false,
		"allow_simultaneous": false, "custom_virtualenv": nil, "job_slice_count": 1, "webhook_service": "",
		"webhook_credential": nil, "prevent_instance_group_fallback": false,
	}
}

func (l *Lab) hostRecord(h *host) obj {
	base := fmt.Sprintf("/api/v2/hosts/%d/", h.ID)
	lastJob := h.LastJob
	if lastJob == 0 {
		lastJob = 4000 + h.ID
	}
	return obj{
		"id": h.ID, "type": "host", "url": base,
		"related": obj{
			"created_by": "/api/v2/users/3/", "modified_by": "/api/v2/users/3/", "variable_data": base + "variable_data/",
			"groups": base + "groups/", "all_groups": base + "all_groups/", "job_events": base + "job_events/",
			"job_host_summaries": base + "job_host_summaries/", "activity_stream": base + "activity_stream/",
			"inventory_sources": base + "inventory_sources/", "smart_inventories": base + "smart_inventories/",
			"ad_hoc_commands": base + "ad_hoc_commands/", "ad_hoc_command_events": base + "ad_hoc_command_events/",
			"insights": base + "insights/", "ansible_facts": base + "ansible_facts/",
			"inventory": fmt.Sprintf("/api/v2/inventories/%d/", h.Inv.ID), "last_job": fmt.Sprintf("/api/v2/jobs/%d/", lastJob),
			"last_job_host_summary": fmt.Sprintf("/api/v2/job_host_summaries/%d/", lastJob*10+h.ID%10),
		},
		"summary_fields": obj{
			"inventory":             l.invSummary(h.Inv),
			"last_job":              obj{"id": lastJob, "name": "shop-healthcheck", "description": "", "finished": fmtAPI(labNow.Add(-26 * time.Hour)), "status": "successful", "failed": false, "job_template_id": 8, "job_template_name": "shop-healthcheck"},
			"last_job_host_summary": obj{"id": lastJob*10 + h.ID%10, "failed": false},
			"created_by":            userRef(3, "automation.admin"), "modified_by": userRef(3, "automation.admin"),
			"user_capabilities": obj{"edit": false, "delete": false},
			"groups":            obj{"count": 2, "results": []any{obj{"id": 10 + h.Inv.ID*2, "name": "linux"}, obj{"id": 11 + h.Inv.ID*2, "name": h.Inv.Name + "-all"}}},
			"recent_jobs":       []any{obj{"id": lastJob, "name": "shop-healthcheck", "type": "job", "status": "successful", "finished": fmtAPI(labNow.Add(-26 * time.Hour)), "canceled_on": nil}},
		},
		"created": fmtAPI(h.Created), "modified": fmtAPI(h.Created.Add(240 * time.Hour)), "name": h.Name, "description": h.Desc,
		"inventory": h.Inv.ID, "enabled": h.Enabled, "instance_id": "", "variables": h.Vars,
		"has_active_failures": false, "has_inventory_sources": h.Inv.ID != 1, "last_job": lastJob,
		"last_job_host_summary": lastJob*10 + h.ID%10, "insights_system_id": nil, "ansible_facts_modified": fmtAPI(labNow.Add(-26 * time.Hour)),
	}
}

func (l *Lab) inventoryRecord(inv *inventory) obj {
	base := fmt.Sprintf("/api/v2/inventories/%d/", inv.ID)
	s := l.invSummary(inv)
	return obj{
		"id": inv.ID, "type": "inventory", "url": base,
		"related": obj{
			"named_url": fmt.Sprintf("/api/v2/inventories/%s++%s/", inv.Name, inv.Org.Name), "created_by": "/api/v2/users/3/",
			"modified_by": "/api/v2/users/3/", "hosts": base + "hosts/", "groups": base + "groups/", "root_groups": base + "root_groups/",
			"variable_data": base + "variable_data/", "script": base + "script/", "tree": base + "tree/",
			"inventory_sources": base + "inventory_sources/", "update_inventory_sources": base + "update_inventory_sources/",
			"activity_stream": base + "activity_stream/", "job_templates": base + "job_templates/", "ad_hoc_commands": base + "ad_hoc_commands/",
			"access_list": base + "access_list/", "object_roles": base + "object_roles/", "instance_groups": base + "instance_groups/",
			"copy": base + "copy/", "labels": base + "labels/", "organization": fmt.Sprintf("/api/v2/organizations/%d/", inv.Org.ID),
		},
		"summary_fields": obj{
			"organization": obj{"id": inv.Org.ID, "name": inv.Org.Name, "description": inv.Org.Desc},
			"created_by":   userRef(3, "automation.admin"), "modified_by": userRef(3, "automation.admin"),
			"object_roles": obj{
				"admin_role": obj{"description": "Can manage all aspects of the inventory", "name": "Admin", "id": 500 + inv.ID*4},
				"use_role":   obj{"description": "Can use the inventory in a job template", "name": "Use", "id": 501 + inv.ID*4},
				"read_role":  obj{"description": "May view settings for the inventory", "name": "Read", "id": 502 + inv.ID*4},
			},
			"user_capabilities": obj{"edit": false, "delete": false, "copy": false, "adhoc": false},
			"labels":            obj{"count": 0, "results": []any{}},
		},
		"created": fmtAPI(inv.Created), "modified": fmtAPI(inv.Created.Add(720 * time.Hour)), "name": inv.Name, "description": inv.Desc,
		"organization": inv.Org.ID, "kind": "", "host_filter": nil, "variables": inv.Vars,
		"has_active_failures": false, "total_hosts": s["total_hosts"], "hosts_with_active_failures": 0, "total_groups": 3,
		"has_inventory_sources": inv.ID != 1, "total_inventory_sources": s["total_inventory_sources"], "inventory_sources_with_failures": 0,
		"pending_deletion": false, "prevent_instance_group_fallback": false,
	}
}

func (l *Lab) jobRecord(j *job) obj {
	base := fmt.Sprintf("/api/v2/jobs/%d/", j.ID)
	t := j.Template
	rec := l.templateRecord(t)
	delete(rec, "next_job_run")
	delete(rec, "last_job_run")
	delete(rec, "last_job_failed")
	rec["id"], rec["type"], rec["url"] = j.ID, "job", base
	rec["related"] = obj{
		"created_by": "/api/v2/users/12/", "labels": base + "labels/", "inventory": fmt.Sprintf("/api/v2/inventories/%d/", t.Inv.ID),
		"project": fmt.Sprintf("/api/v2/projects/%d/", 6+t.Org.ID), "organization": fmt.Sprintf("/api/v2/organizations/%d/", t.Org.ID),
		"credentials": base + "credentials/", "unified_job_template": fmt.Sprintf("/api/v2/job_templates/%d/", t.ID),
		"stdout": base + "stdout/", "job_events": base + "job_events/", "job_host_summaries": base + "job_host_summaries/",
		"activity_stream": base + "activity_stream/", "notifications": base + "notifications/", "create_schedule": base + "create_schedule/",
		"job_template": fmt.Sprintf("/api/v2/job_templates/%d/", t.ID), "cancel": base + "cancel/", "relaunch": base + "relaunch/",
	}
	counts := obj{}
	for _, h := range j.Hosts {
		_ = h
	}
	counts["ok"] = len(j.Hosts)
	counts["changed"] = len(j.Hosts)
	sf := rec["summary_fields"].(obj)
	sf["job_template"] = obj{"id": t.ID, "name": t.Name, "description": t.Desc}
	sf["unified_job_template"] = obj{"id": t.ID, "name": t.Name, "description": t.Desc, "unified_job_type": "job"}
	sf["created_by"] = userRef(12, "silex.agent")
	sf["user_capabilities"] = obj{"delete": false, "start": false}
	sf["instance_group"] = obj{"id": 1, "name": "default", "is_container_group": true}
	delete(sf, "recent_jobs")
	delete(sf, "last_job")
	delete(sf, "last_update")
	rec["created"], rec["modified"] = fmtAPI(j.Created), fmtAPI(j.Finished)
	rec["name"] = t.Name
	rec["launch_type"] = "manual"
	rec["status"] = j.Status
	rec["failed"] = j.Status != "successful"
	rec["started"] = fmtAPI(j.Created.Add(2 * time.Second))
	rec["finished"] = fmtAPI(j.Finished)
	rec["canceled_on"] = nil
	rec["elapsed"] = j.Finished.Sub(j.Created).Seconds()
	rec["job_explanation"] = ""
	rec["execution_node"] = "aap-exec-01.internal.example.net"
	rec["controller_node"] = "aap-ctrl-01.internal.example.net"
	rec["launched_by"] = obj{"id": 12, "name": "silex.agent", "type": "user", "url": "/api/v2/users/12/"}
	rec["work_unit_id"] = fmt.Sprintf("wu%06d", j.ID)
	rec["limit"] = j.Limit
	rec["extra_vars"] = j.ExtraVars
	rec["job_template"] = t.ID
	rec["unified_job_template"] = t.ID
	rec["passwords_needed_to_start"] = []any{}
	rec["artifacts"] = obj{}
	rec["scm_revision"] = "9f1c2e7b4d0a8e35c6b1f0d2a7e4c9b8d3f6a1e0"
	rec["instance_group"] = 1
	rec["event_processing_finished"] = true
	rec["host_status_counts"] = counts
	rec["playbook_counts"] = obj{"play_count": 1, "task_count": 4}
	rec["result_stdout"] = j.Stdout
	return rec
}

// page is one page of a list in the controller's format.
func page(path string, items []obj, q url.Values, pageNum, pageSize int) (obj, error) {
	if pageSize <= 0 {
		pageSize = 25
	}
	if pageSize > 200 {
		pageSize = 200
	}
	if pageNum <= 0 {
		pageNum = 1
	}
	n := len(items)
	pages := (n + pageSize - 1) / pageSize
	if pages == 0 {
		pages = 1
	}
	if pageNum > pages {
		return nil, fmt.Errorf(`{"detail": "Invalid page."} (page %d of %d)`, pageNum, pages)
	}
	link := func(p int) any {
		v := url.Values{}
		for k, vs := range q {
			v[k] = vs
		}
		v.Set("page", strconv.Itoa(p))
		v.Set("page_size", strconv.Itoa(pageSize))
		return path + "?" + v.Encode()
	}
	var next, prev any
	if pageNum < pages {
		next = link(pageNum + 1)
	}
	if pageNum > 1 {
		prev = link(pageNum - 1)
	}
	lo := (pageNum - 1) * pageSize
	hi := min(lo+pageSize, n)
	res := make([]any, 0, hi-lo)
	for _, it := range items[lo:hi] {
		res = append(res, it)
	}
	return obj{"count": n, "next": next, "previous": prev, "results": res}, nil
}

func contains(hay, needle string) bool {
	return needle == "" || strings.Contains(strings.ToLower(hay), strings.ToLower(needle))
}

// launch starts a job template. The lab runs jobs at once: a job finishes
// three minutes later on the lab clock, and fixes the fault when it is the
// right template on the right host.
func (l *Lab) launch(t *template, limit, extraVars string) (*job, error) {
	if !t.Launchable {
		return nil, fmt.Errorf(`{"detail": "You do not have permission to perform this action."} (403: launch of job template %d %q is not granted to this account)`, t.ID, t.Name)
	}
	var hosts []string
	for _, name := range strings.FieldsFunc(limit, func(r rune) bool { return r == ',' || r == ':' || r == ' ' }) {
		for _, h := range l.hosts {
			if h.Name == name && h.Inv == t.Inv {
				hosts = append(hosts, name)
			}
		}
	}
	if len(hosts) == 0 {
		return nil, fmt.Errorf(`{"limit": ["No hosts in inventory %q match the limit %q."]} (400)`, t.Inv.Name, limit)
	}
	created := l.now
	l.now = l.now.Add(3 * time.Minute)
	j := &job{ID: 5001 + len(l.jobs), Template: t, Limit: limit, ExtraVars: extraVars, Created: created,
		Finished: created.Add(96 * time.Second), Status: "successful", Hosts: hosts}
	var out strings.Builder
	fmt.Fprintf(&out, "PLAY [%s] ****\n\nTASK [Gathering Facts] ****\n", t.Name)
	for _, h := range hosts {
		fmt.Fprintf(&out, "ok: [%s]\n", h)
	}
	fmt.Fprintf(&out, "\nTASK [%s] ****\n", strings.TrimSuffix(strings.TrimPrefix(t.Playbook, "playbooks/"), ".yml"))
	for _, h := range hosts {
		fmt.Fprintf(&out, "changed: [%s]\n", h)
	}
	out.WriteString("\nPLAY RECAP ****\n")
	for _, h := range hosts {
		fmt.Fprintf(&out, "%-28s : ok=2    changed=1    unreachable=0    failed=0    skipped=0\n", h)
	}
	j.Stdout = out.String()
	l.jobs = append(l.jobs, j)
	if l.fixes(t.Name, limit) && l.fixedAt.IsZero() {
		l.fixedAt = j.Finished
	}
	return j, nil
}
