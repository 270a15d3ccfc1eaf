package opslab

import (
	"fmt"
	"math/rand/v2"
	"time"
)

type obj = map[string]any

type ticket struct {
	Number, SysID      string
	Short, Desc        string
	State              string
	Priority           int
	CI                 string
	Caller             string
	Opened, Updated    time.Time
	Category, Subcat   string
	Notes              []string
	Resolution         string
	AssignmentGroup    string
	ContactType        string
	BusinessService    string
	CorrelationDisplay string
}

type change struct {
	Number, SysID string
	Short, Desc   string
	State         string
	Risk          string
	CIs           []string
	Start, End    time.Time
	Requested     string
	Approver      string
	Implemented   string
	Backout       string
}

type ci struct {
	SysID, Name, Class string
	Attrs              obj
	Updated            time.Time
}

func sysID(r *rand.Rand) string {
	return fmt.Sprintf("%016x%016x", r.Uint64(), r.Uint64())
}

var backgroundTickets = [][4]string{
	{"Password reset for shop admin console", "Access", "shop-app-01", "resolved"},
	{"Slow product search on the shop", "Performance", "shop-web-01", "resolved"},
	{"Disk usage warning on shop-mon-01", "Capacity", "shop-mon-01", "closed"},
	{"Redis memory above 80% on shop-cache-01", "Capacity", "shop-cache-01", "resolved"},
	{"Replica lag alert on shop-db-02", "Database", "shop-db-02", "closed"},
	{"Patch window for shop web tier", "Maintenance", "shop-web-03", "closed"},
	{"Checkout page shows wrong currency symbol", "Application", "shop-app-02", "resolved"},
	{"HAProxy health check flapping for shop-web-03", "Network", "shop-lb-01", "resolved"},
	{"New TLS cipher policy rollout", "Security", "shop-lb-01", "closed"},
	{"Grafana dashboard for orders missing data", "Monitoring", "shop-mon-01", "resolved"},
	{"Order confirmation emails delayed", "Application", "shop-app-01", "resolved"},
	{"Nightly backup of shop-db-01 took 3 hours", "Database", "shop-db-01", "closed"},
}

func (l *Lab) buildITSM(r *rand.Rand) {
	users := []string{"anna.keller", "tom.becker", "lena.vogt", "mark.weber", "sara.roth"}
	for i, b := range backgroundTickets {
		opened := daysBefore(r, labNow, 2, 60)
		l.tickets = append(l.tickets, &ticket{
			Number: fmt.Sprintf("INC00%d", 40100+i*7), SysID: sysID(r), Short: b[0],
			Desc:  b[0] + ". Reported by the service desk after a user call; see work notes for the steps taken.",
			State: b[3], Priority: 3 + r.IntN(2), CI: b[2], Caller: users[r.IntN(len(users))], Opened: opened,
			Updated: opened.Add(time.Duration(2+r.IntN(40)) * time.Hour), Category: b[1], Subcat: "General",
			Notes:           []string{"Acknowledged by on-call.", "Root cause identified and fixed; monitoring normal for 24h."},
			Resolution:      "Solved (permanently)",
			AssignmentGroup: "Shop SRE", ContactType: "phone", BusinessService: "Online Shop",
		})
	}
	if f := l.fault; f != nil {
		l.tickets = append(l.tickets, &ticket{
			Number: f.Ticket, SysID: sysID(r), Short: f.Symptom,
			Desc: f.Symptom + ". Noticed by the customer support team from customer complaints in the last half hour. " +
				"No other details; please investigate.",
			State: "new", Priority: 2, CI: "Online Shop", Caller: "support.desk", Opened: labNow.Add(-15 * time.Minute),
			Updated: labNow.Add(-15 * time.Minute), Category: "Service disruption", Subcat: "Customer facing",
			AssignmentGroup: "Shop SRE", ContactType: "self-service", BusinessService: "Online Shop",
		})
	}
	for i, c := range []struct{ short, ci string }{
		{"Upgrade HAProxy to 2.8.10 on shop-lb-01", "shop-lb-01"},
		{"Rotate database credentials for shop-api", "shop-db-01"},
		{"Increase Redis maxmemory on shop-cache-01", "shop-cache-01"},
		{"Kernel patching, shop web tier", "shop-web-01"},
		{"Add product search index", "shop-db-01"},
	} {
		start := daysBefore(r, labNow, 2, 40)
		l.changes = append(l.changes, &change{
			Number: fmt.Sprintf("CHG00%d", 30050+i*11), SysID: sysID(r), Short: c.short,
			Desc: c.short + ". Standard change from the shop SRE catalog.", State: "closed", Risk: "low", CIs: []string{c.ci},
			Start: start, End: start.Add(time.Hour), Requested: users[r.IntN(len(users))], Approver: "cab.shop",
			Implemented: "Implemented as planned.", Backout: "Revert with the previous package version.",
		})
	}
	bad := l.fault != nil && l.fault.ID == "bad-setting"
	c := &change{
		Number: "CHG0030112", SysID: sysID(r), State: "implemented", Risk: "low", CIs: []string{"shop-app-02"},
		Start: labNow.Add(-30 * time.Minute), End: labNow.Add(-24 * time.Minute), Requested: "mark.weber", Approver: "cab.shop",
		Backout: "Set the previous value back with the set-app-setting job template.",
	}
	if bad {
		c.Short = "Tune checkout payment provider timeout on shop-app-02"
		c.Desc = "Raise the payment provider timeout for checkout on shop-app-02 (canary) from 20000 to 30000 ms. Setting: checkout.payment_timeout_ms in /etc/shop-api/settings.yaml."
		c.Implemented = "Setting changed with set-app-setting (value entered as 30s); service reloaded without errors."
	} else {
		c.Short = "Enable gzip for static assets on shop-app-02"
		c.Desc = "Turn on gzip compression for static assets served by shop-api on shop-app-02 (canary)."
		c.Implemented = "Implemented as planned; service reloaded."
	}
	l.changes = append(l.changes, c)
}

func (l *Lab) ticketRecord(t *ticket) obj {
	notes := []any{}
	for i, n := range t.Notes {
		notes = append(notes, obj{"sys_created_on": fmtSN(t.Opened.Add(time.Duration(i+1) * 30 * time.Minute)), "sys_created_by": "shop.sre", "value": n})
	}
	return obj{
		"number": t.Number, "sys_id": t.SysID, "sys_class_name": "incident",
		"short_description": t.Short, "description": t.Desc, "state": t.State,
		"priority": fmt.Sprintf("%d - %s", t.Priority, []string{"", "Critical", "High", "Moderate", "Low", "Planning"}[t.Priority]),
		"impact":   "2 - Medium", "urgency": "2 - Medium", "severity": "3 - Low",
		"category": t.Category, "subcategory": t.Subcat, "contact_type": t.ContactType,
		"caller_id":        obj{"display_value": t.Caller, "link": "/api/now/table/sys_user?user_name=" + t.Caller},
		"opened_by":        obj{"display_value": t.Caller, "link": "/api/now/table/sys_user?user_name=" + t.Caller},
		"assignment_group": obj{"display_value": t.AssignmentGroup, "link": "/api/now/table/sys_user_group?name=Shop+SRE"},
		"assigned_to":      "",
		"business_service": obj{"display_value": t.BusinessService, "link": "/api/now/table/cmdb_ci_service?name=Online+Shop"},
		"cmdb_ci":          obj{"display_value": t.CI, "link": "/api/now/table/cmdb_ci?name=" + t.CI},
		"company":          obj{"display_value": "Silex Shop GmbH", "link": "/api/now/table/core_company/1"},
		"location":         obj{"display_value": "Frankfurt DC1", "link": "/api/now/table/cmn_location/7"},
		"opened_at":        fmtSN(t.Opened), "sys_created_on": fmtSN(t.Opened), "sys_updated_on": fmtSN(t.Updated),
		"sys_created_by": t.Caller, "sys_updated_by": "system", "sys_mod_count": len(t.Notes) + 1,
		"resolved_at": resolvedAt(t), "closed_at": "", "close_code": t.Resolution, "close_notes": resolutionNotes(t),
		"work_notes": notes, "comments": []any{}, "active": t.State == "new" || t.State == "in_progress",
		"escalation": "0", "upon_approval": "proceed", "upon_reject": "cancel", "approval": "not requested",
		"sla_due": "", "made_sla": true, "reassignment_count": 0, "reopen_count": 0, "knowledge": false,
		"correlation_id": "", "correlation_display": t.CorrelationDisplay, "watch_list": "", "work_notes_list": "",
		"hold_reason": "", "child_incidents": 0, "parent_incident": "", "problem_id": "", "rfc": "",
		"url": "/api/now/table/incident/" + t.SysID,
	}
}

func resolvedAt(t *ticket) string {
	if t.State == "resolved" || t.State == "closed" {
		return fmtSN(t.Updated)
	}
	return ""
}

func resolutionNotes(t *ticket) string {
	if t.Resolution == "" {
		return ""
	}
	return "Fixed; see work notes."
}

func (l *Lab) changeRecord(c *change) obj {
	cis := []any{}
	for _, n := range c.CIs {
		cis = append(cis, obj{"display_value": n, "link": "/api/now/table/cmdb_ci?name=" + n})
	}
	return obj{
		"number": c.Number, "sys_id": c.SysID, "sys_class_name": "change_request", "type": "standard",
		"short_description": c.Short, "description": c.Desc, "state": c.State, "risk": c.Risk, "impact": "3 - Low",
		"priority": "4 - Low", "category": "Software", "affected_cis": cis,
		"start_date": fmtSN(c.Start), "end_date": fmtSN(c.End), "work_start": fmtSN(c.Start), "work_end": fmtSN(c.End),
		"requested_by": obj{"display_value": c.Requested, "link": "/api/now/table/sys_user?user_name=" + c.Requested},
		"approval":     "approved", "approval_history": fmt.Sprintf("%s approved via CAB", c.Approver),
		"assignment_group":    obj{"display_value": "Shop SRE", "link": "/api/now/table/sys_user_group?name=Shop+SRE"},
		"implementation_plan": "Run the catalog job template against the listed CIs during the window.",
		"backout_plan":        c.Backout, "test_plan": "Check the shop healthcheck and dashboards after the change.",
		"close_notes": c.Implemented, "close_code": "successful", "on_hold": false, "conflict_status": "No Conflict",
		"sys_created_on": fmtSN(c.Start.Add(-48 * time.Hour)), "sys_updated_on": fmtSN(c.End), "sys_mod_count": 9,
		"url": "/api/now/table/change_request/" + c.SysID,
	}
}

func fmtSN(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05") }
