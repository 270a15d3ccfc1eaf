package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/golden"
	"github.com/codemode-dev/codemode/internal/testpeer"
	"github.com/codemode-dev/codemode/runtime/monty"
)

// TestConformanceAuthClient runs every client auth scenario of the pinned
// MCP conformance suite with codemode as the client
// (testdata/conformance/auth-client.sh: a pack with an oauth service,
// codemode gen, codemode run) and asserts the exact list that passes,
// testdata/conformance/auth-pass.txt (-update rewrites it). A scenario
// passes when the suite says so: every check succeeded, no warning, and
// the client exited 0.
func TestConformanceAuthClient(t *testing.T) {
	suite, err := testpeer.NodeBin("conformance")
	if err != nil {
		t.Fatal(err)
	}
	node, err := testpeer.NodeBin("node") // Node 22, which the suite needs
	if err != nil {
		t.Fatal(err)
	}
	montyBin, err := monty.FindBinary()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", filepath.Join(bin, "codemode"), ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	client, err := filepath.Abs("testdata/conformance/auth-client.sh")
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(),
		"PATH="+bin+string(os.PathListSeparator)+filepath.Dir(node)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"CODEMODE_MONTY="+montyBin)

	list := exec.Command(suite, "list")
	list.Env = env
	out, err := list.Output()
	if err != nil {
		t.Fatalf("conformance list: %v", err)
	}
	scenarios := regexp.MustCompile(`(?m)^\s*- (auth/\S+)`).FindAllStringSubmatch(string(out), -1)
	if len(scenarios) == 0 {
		t.Fatalf("conformance list names no auth scenario:\n%s", out)
	}
	var passed, report []string
	for _, m := range scenarios {
		name := m[1]
		dir := t.TempDir()
		cmd := exec.Command(suite, "client", "--command", client, "--scenario", name, "-o", dir)
		cmd.Env = env
		cmd.Dir = dir
		log, err := cmd.CombinedOutput()
		if err == nil {
			passed = append(passed, name)
			continue
		}
		report = append(report, fmt.Sprintf("%s: %s", name, failedChecks(dir, log)))
	}
	got := strings.Join(passed, "\n") + "\n"
	want, err := os.ReadFile("testdata/conformance/auth-pass.txt")
	if golden.Updating() {
		if err := os.WriteFile("testdata/conformance/auth-pass.txt", []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote testdata/conformance/auth-pass.txt: %d of %d pass", len(passed), len(scenarios))
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d of %d auth scenarios pass; failing:\n%s", len(passed), len(scenarios), strings.Join(report, "\n"))
	if got != string(want) {
		t.Fatalf("the passing auth scenarios changed (go test -run TestConformanceAuthClient -update after review):\n got:\n%s\nwant:\n%s\nfailing:\n%s", got, want, strings.Join(report, "\n"))
	}
}

// failedChecks summarises why a scenario failed: its failed checks from
// the checks.json the suite saved, else the client's last line.
func failedChecks(dir string, log []byte) string {
	var files []string
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == "checks.json" {
			files = append(files, path)
		}
		return nil
	})
	var why []string
	for _, f := range files {
		b, _ := os.ReadFile(f)
		var checks []struct {
			Name, Status, ErrorMessage, Description string
		}
		json.Unmarshal(b, &checks)
		for _, c := range checks {
			if c.Status == "FAILURE" || c.Status == "WARNING" {
				why = append(why, c.Status+" "+c.Name+": "+c.Description+" "+c.ErrorMessage)
			}
		}
	}
	for _, l := range strings.Split(string(log), "\n") {
		if strings.HasPrefix(l, "codemode: ") {
			why = append(why, "client: "+l)
		}
	}
	if len(why) == 0 {
		return "failed (no failed check recorded)"
	}
	return strings.Join(why, "; ")
}
