// Package opslab is a deterministic operations lab served over MCP: the
// environment an incident agent works in, for codemode's benchmarks and as a
// built-in example.
//
// One lab holds four systems, each its own MCP service:
//
//   - itsm: incident tickets and change requests (tickets_list, ticket_get,
//     ticket_add_note, changes_list, change_get);
//   - cmdb: configuration items and the service map of the online shop
//     (cmdb_ci_list, cmdb_ci_get, cmdb_service_map);
//   - monitoring: Prometheus-style metric range queries and Loki-style log
//     queries (metrics_list, metrics_query, logs_query);
//   - controller: an automation controller modelled on a real one (job
//     templates, inventories, hosts, jobs: list with search, page_size and
//     page; get; launch), whose records carry every field a real controller
//     returns (ids, urls, related links, summary_fields, created/modified,
//     variables) in {count, next, previous, results} pages.
//
// The data comes from a seed and a size: [Small] is the shop (8 job
// templates, 10 hosts in one inventory); [Large] adds 2,000 job templates
// named like a big catalog (restart-payments-prod-east,
// collect-logs-orders-staging) and 1,000 hosts in three more inventories.
// The same seed and size give the same bytes for every response.
//
// A lab plants at most one [Fault] (see [Faults]): a stopped service, a full
// disk, a certificate missing the shop's host names, a broken application
// setting, or a database refusing connections. The fault shows in metrics,
// logs, the CMDB and the ticket a user filed; launching the right job
// template on the right host fixes it, and later metrics show the recovery.
package opslab
