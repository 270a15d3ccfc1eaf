package testpg

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestStartServesQueries(t *testing.T) {
	url := Start(t)
	bin, err := binDir()
	if err != nil {
		t.Fatal(err)
	}
	psql := filepath.Join(bin, "psql")
	// Not a count of the cluster's client backends: the backend of Start's
	// own readiness check may not have exited yet (CI once saw 2).
	out, err := exec.Command(psql, url, "-Atc", "select current_user || ' ' || (select count(*) from pg_stat_activity where pid = pg_backend_pid())").CombinedOutput()
	if err != nil {
		t.Fatalf("psql: %v\n%s", err, out)
	}
	if got := strings.TrimSpace(string(out)); got != "postgres 1" {
		t.Fatalf("got %q, want %q", got, "postgres 1")
	}
	out, err = exec.Command(psql, url, "-Atc", "select usesuper from pg_user where usename = current_user").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "t" {
		t.Fatalf("superuser check: %v %q", err, out)
	}
}

func TestClustersAreSeparate(t *testing.T) {
	a, b := Start(t), Start(t)
	if a == b {
		t.Fatalf("two clusters share a URL: %s", a)
	}
	bin, _ := binDir()
	psql := filepath.Join(bin, "psql")
	if out, err := exec.Command(psql, a, "-Atc", "create table only_in_a(x int)").CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	out, err := exec.Command(psql, b, "-Atc", "select count(*) from pg_tables where tablename = 'only_in_a'").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "0" {
		t.Fatalf("cluster b sees a's table: %v %q", err, out)
	}
}
