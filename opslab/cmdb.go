package opslab

import (
	"math/rand/v2"
)

// shopApps are the shop's application CIs: name, class, hosts, port,
// description.
var shopApps = []struct {
	name, class string
	hosts       []string
	port        int
	desc        string
}{
	{"haproxy-shop", "cmdb_ci_app_server", []string{"shop-lb-01"}, 443, "HAProxy frontend for shop.example.com and www.shop.example.com"},
	{"shop-frontend", "cmdb_ci_app_server", []string{"shop-web-01", "shop-web-02", "shop-web-03"}, 8080, "Storefront (systemd unit shop-frontend.service)"},
	{"shop-api", "cmdb_ci_app_server", []string{"shop-app-01", "shop-app-02"}, 8443, "Shop API and checkout (systemd unit shop-api.service, settings in /etc/shop-api/settings.yaml)"},
	{"postgresql-shop", "cmdb_ci_db_postgresql_instance", []string{"shop-db-01", "shop-db-02"}, 5432, "PostgreSQL 15, primary shop-db-01, replica shop-db-02"},
	{"redis-shop", "cmdb_ci_app_server", []string{"shop-cache-01"}, 6379, "Redis 7 cache and session store"},
}

func (l *Lab) buildCMDB(r *rand.Rand) {
	for _, h := range l.hosts {
		if !h.Shop {
			continue
		}
		l.cis = append(l.cis, &ci{SysID: sysID(r), Name: h.Name, Class: "cmdb_ci_linux_server", Updated: daysBefore(r, labNow, 1, 30), Attrs: obj{
			"ip_address": h.IP, "fqdn": h.Name + ".internal.example.net", "os": "Red Hat Enterprise Linux", "os_version": "9.4",
			"cpu_count": 4, "ram": 16384, "disk_space": 200, "environment": "Production", "operational_status": "Operational",
			"install_status": "Installed", "support_group": "Shop SRE", "managed_by": "shop-sre", "location": "Frankfurt DC1",
			"short_description": h.Desc, "serial_number": sysID(r)[:12], "manufacturer": "VMware, Inc.", "virtual": true,
			"filesystems": []any{obj{"mount": "/", "size_gb": 40}, obj{"mount": "/var", "size_gb": 120}, obj{"mount": "/data", "size_gb": 40}},
		}})
	}
	for _, a := range shopApps {
		attrs := obj{
			"short_description": a.desc, "tcp_port": a.port, "runs_on": a.hosts, "environment": "Production",
			"operational_status": "Operational", "support_group": "Shop SRE", "version": "",
		}
		if a.name == "postgresql-shop" {
			attrs["max_connections"] = 100
			attrs["version"] = "15.8"
		}
		if a.name == "shop-api" {
			attrs["settings_file"] = "/etc/shop-api/settings.yaml"
			attrs["version"] = "4.12.3"
		}
		l.cis = append(l.cis, &ci{SysID: sysID(r), Name: a.name, Class: a.class, Updated: daysBefore(r, labNow, 1, 30), Attrs: attrs})
	}
	sans := []any{"shop.example.com", "www.shop.example.com"}
	if l.fault != nil && l.fault.ID == "cert-hostnames" {
		sans = []any{"legacy-shop.example.com", "shop-lb-01.internal.example.net"}
	}
	l.cis = append(l.cis, &ci{SysID: sysID(r), Name: "shop-tls", Class: "cmdb_ci_certificate", Updated: labNow.Add(-26 * 60 * 1e9), Attrs: obj{
		"short_description": "TLS certificate served by haproxy-shop on shop-lb-01", "subject_common_name": sans[0],
		"subject_alternative_names": sans, "issuer": "CN=Silex Internal CA G2,O=Silex Shop GmbH", "valid_from": "2025-10-20 09:04:00",
		"valid_to": "2026-10-20 09:04:00", "key_algorithm": "ECDSA P-256", "installed_on": []any{"shop-lb-01"},
		"fingerprint_sha256": sysID(r) + sysID(r), "environment": "Production", "support_group": "Shop SRE",
	}})
	l.cis = append(l.cis, &ci{SysID: sysID(r), Name: "Online Shop", Class: "cmdb_ci_service", Updated: daysBefore(r, labNow, 1, 30), Attrs: obj{
		"short_description":    "The customer-facing online shop at https://shop.example.com and https://www.shop.example.com",
		"business_criticality": "1 - most critical", "owned_by": "Head of E-Commerce", "support_group": "Shop SRE",
		"environment": "Production", "operational_status": "Operational", "urls": []any{"https://shop.example.com", "https://www.shop.example.com"},
	}})
}

func ciRecord(c *ci) obj {
	rec := obj{
		"sys_id": c.SysID, "name": c.Name, "sys_class_name": c.Class, "sys_updated_on": fmtSN(c.Updated),
		"sys_created_on": fmtSN(c.Updated.AddDate(-1, 0, 0)), "sys_created_by": "discovery", "sys_updated_by": "discovery",
		"discovery_source": "ServiceWatch", "company": obj{"display_value": "Silex Shop GmbH", "link": "/api/now/table/core_company/1"},
		"url": "/api/now/table/" + c.Class + "/" + c.SysID,
	}
	for k, v := range c.Attrs {
		rec[k] = v
	}
	return rec
}

// serviceMap is the shop's service map: tiers, their applications and hosts,
// and the dependencies between tiers.
func (l *Lab) serviceMap() obj {
	var tiers []any
	for _, a := range shopApps {
		tiers = append(tiers, obj{"application": a.name, "class": a.class, "port": a.port, "hosts": a.hosts, "description": a.desc})
	}
	return obj{
		"service": "Online Shop", "urls": []any{"https://shop.example.com", "https://www.shop.example.com"},
		"certificate": "shop-tls", "components": tiers,
		"dependencies": []any{
			obj{"from": "haproxy-shop", "to": "shop-frontend", "type": "Sends traffic to"},
			obj{"from": "shop-frontend", "to": "shop-api", "type": "Calls"},
			obj{"from": "shop-api", "to": "postgresql-shop", "type": "Depends on"},
			obj{"from": "shop-api", "to": "redis-shop", "type": "Depends on"},
			obj{"from": "haproxy-shop", "to": "shop-tls", "type": "Uses"},
		},
	}
}
