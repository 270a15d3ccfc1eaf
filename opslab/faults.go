package opslab

import "strings"

// Fault is one planted incident: what is wrong, where, how a user reported
// it, and the job template that fixes it.
type Fault struct {
	ID       string // "service-stopped", ...
	Title    string // what is wrong, for a report
	Host     string // the host at fault
	Ticket   string // the incident a user filed (symptom only)
	Symptom  string // the ticket's short description
	Template string // the job template that fixes it
	// Keywords are words a correct diagnosis names (all of them, any case).
	Keywords []string
}

// Faults are the five incidents, in a fixed order.
var Faults = []*Fault{
	{
		ID: "service-stopped", Title: "shop-frontend service stopped on shop-web-02", Host: "shop-web-02",
		Ticket: "INC0041001", Symptom: "Customers intermittently get 502 Bad Gateway on the shop",
		Template: "restart-service", Keywords: []string{"shop-web-02", "shop-frontend", "stopped"},
	},
	{
		ID: "disk-full", Title: "/var full on shop-app-01", Host: "shop-app-01",
		Ticket: "INC0041002", Symptom: "Nightly order export reports are failing",
		Template: "cleanup-disk", Keywords: []string{"shop-app-01", "/var", "full"},
	},
	{
		ID: "cert-hostnames", Title: "TLS certificate on shop-lb-01 does not cover shop.example.com and www.shop.example.com", Host: "shop-lb-01",
		Ticket: "INC0041003", Symptom: "Browsers say the shop's connection is not private",
		Template: "renew-certificate", Keywords: []string{"shop-lb-01", "certificate", "www.shop.example.com"},
	},
	{
		ID: "bad-setting", Title: "invalid shop-api setting checkout.payment_timeout_ms on shop-app-02", Host: "shop-app-02",
		Ticket: "INC0041004", Symptom: "Some customers cannot pay at checkout ('payment unavailable')",
		Template: "set-app-setting", Keywords: []string{"shop-app-02", "checkout.payment_timeout_ms"},
	},
	{
		ID: "db-connections", Title: "PostgreSQL on shop-db-01 refuses connections: all connection slots used by idle sessions", Host: "shop-db-01",
		Ticket: "INC0041005", Symptom: "Shop pages time out and the order history is empty",
		Template: "db-terminate-idle-sessions", Keywords: []string{"shop-db-01", "connection"},
	},
}

// FaultByID finds a fault.
func FaultByID(id string) (*Fault, bool) {
	for _, f := range Faults {
		if f.ID == id {
			return f, true
		}
	}
	return nil, false
}

// FaultIDs lists the faults' ids.
func FaultIDs() []string {
	var ids []string
	for _, f := range Faults {
		ids = append(ids, f.ID)
	}
	return ids
}

// Names reports whether an answer names this fault: every keyword appears
// in it (case-insensitive), and no other fault's host is blamed instead.
func (f *Fault) Names(answer string) bool {
	a := strings.ToLower(answer)
	for _, k := range f.Keywords {
		if !strings.Contains(a, strings.ToLower(k)) {
			return false
		}
	}
	return true
}

// fixes reports whether launching tmpl with limit fixes the lab's fault.
func (l *Lab) fixes(tmpl, limit string) bool {
	if l.fault == nil || tmpl != l.fault.Template {
		return false
	}
	for _, h := range strings.FieldsFunc(limit, func(r rune) bool { return r == ',' || r == ':' || r == ' ' }) {
		if h == l.fault.Host {
			return true
		}
	}
	return false
}

// active reports whether the fault with this id is planted and not fixed at t.
func (l *Lab) active(id string, t int64) bool {
	if l.fault == nil || l.fault.ID != id {
		return false
	}
	if t < l.faultStart.Unix() {
		return false
	}
	return l.fixedAt.IsZero() || t < l.fixedAt.Unix()
}
