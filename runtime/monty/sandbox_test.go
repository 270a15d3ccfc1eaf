package monty

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/runtime/sandbox"
)

// procStatus returns the lines of /proc/PID/status named by keys.
func procStatus(t *testing.T, pid int, keys ...string) string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		for _, k := range keys {
			if strings.HasPrefix(line, k+":") {
				out = append(out, strings.Join(strings.Fields(line), " "))
			}
		}
	}
	return strings.Join(out, "\n")
}

var namespaces = []string{"cgroup", "ipc", "mnt", "net", "pid", "user", "uts"}

// sharedNamespaces lists the namespaces pid shares with this process.
func sharedNamespaces(t *testing.T, pid int) []string {
	t.Helper()
	var shared []string
	for _, ns := range namespaces {
		mine, err := os.Readlink("/proc/self/ns/" + ns)
		if err != nil {
			t.Fatal(err)
		}
		its, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/%s", pid, ns))
		if err != nil {
			t.Fatal(err)
		}
		if mine == its {
			shared = append(shared, ns)
		}
	}
	return shared
}

func TestLiveWorkerIsSandboxed(t *testing.T) {
	w := newWorker(t, Config{})
	// A first feed: the worker is past its start-up, running Monty.
	if out, err := w.Feed(context.Background(), "1 + 1", nil, Funcs{}); err != nil || !out.OK() {
		t.Fatalf("feed: %v %+v", err, out)
	}
	got := procStatus(t, w.Pid(), "Uid", "Gid", "Groups", "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb", "NoNewPrivs", "Seccomp")
	// On the host it is nobody when root started it, else that user.
	uid, gid := sandbox.ID, sandbox.ID
	if os.Geteuid() != 0 {
		uid, gid = os.Geteuid(), os.Getegid()
	}
	want := fmt.Sprintf(`Uid: %[1]d %[1]d %[1]d %[1]d
Gid: %[2]d %[2]d %[2]d %[2]d
Groups:`, uid, gid) + `
CapInh: 0000000000000000
CapPrm: 0000000000000000
CapEff: 0000000000000000
CapBnd: 0000000000000000
CapAmb: 0000000000000000
NoNewPrivs: 1
Seccomp: 2`
	if got != want {
		t.Errorf("/proc/%d/status:\n%s\nwant:\n%s", w.Pid(), got, want)
	}
	if shared := sharedNamespaces(t, w.Pid()); len(shared) > 0 {
		t.Errorf("the worker shares the host's %v namespaces", shared)
	}
	limits, err := os.ReadFile(fmt.Sprintf("/proc/%d/limits", w.Pid()))
	if err != nil {
		t.Fatal(err)
	}
	var lim []string
	for _, line := range strings.Split(string(limits), "\n") {
		for _, k := range []string{"Max cpu time", "Max file size", "Max core file size", "Max processes", "Max open files", "Max address space"} {
			if strings.HasPrefix(line, k) {
				lim = append(lim, strings.Join(strings.Fields(line), " "))
			}
		}
	}
	wantLim := `Max cpu time 3600 3600 seconds
Max file size 0 0 bytes
Max core file size 0 0 bytes
Max processes 32 32 processes
Max open files 64 64 files
Max address space 4294967296 4294967296 bytes`
	if got := strings.Join(lim, "\n"); got != wantLim {
		t.Errorf("/proc/%d/limits:\n%s\nwant:\n%s", w.Pid(), got, wantLim)
	}
	// Its root holds the loader and libraries alone (the binary runs from a
	// descriptor): nothing of the host's tree.
	root, err := os.ReadDir(fmt.Sprintf("/proc/%d/root/", w.Pid()))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range root {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, " "); got != "lib lib64" {
		t.Errorf("the worker's root holds %q, want lib lib64", got)
	}
}

func TestLiveWorkerWithoutSandboxSharesHost(t *testing.T) {
	w, err := StartWith(context.Background(), testBin(t), StartOptions{NoSandbox: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Configure(Config{}); err != nil {
		t.Fatal(err)
	}
	if shared := sharedNamespaces(t, w.Pid()); len(shared) != len(namespaces) {
		t.Errorf("an unsandboxed worker shares only %v", shared)
	}
	if got := procStatus(t, w.Pid(), "Seccomp"); got != "Seccomp: 0" {
		t.Errorf("unsandboxed: %s", got)
	}
}

// TestWorkerBinaryInPrivateDirectoryDead: the sandbox's stage two opened
// the binary by path as uid 65534, so a monty under a directory only the
// caller can enter (a checkout in a 0700 home or CI workspace) killed
// every worker ("opening …: permission denied"). The launcher now hands the
// binary over as a descriptor.
func TestWorkerBinaryInPrivateDirectoryDead(t *testing.T) {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(testBin(t))
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "monty")
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	w, err := Start(context.Background(), bin)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Configure(Config{}); err != nil {
		t.Fatal(err)
	}
	out, err := w.Feed(context.Background(), "print(6 * 7)\n", nil, Funcs{})
	if err != nil || !out.OK() {
		t.Fatalf("feed: %v %+v", err, out)
	}
	if got := procStatus(t, w.Pid(), "Seccomp"); got != "Seccomp: 2" {
		t.Errorf("the worker runs outside its filter: %s", got)
	}
}
