package runtime_test

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/codemode-dev/codemode/runtime"
	"github.com/codemode-dev/codemode/runtime/monty"
)

// noUserNSEnv marks the run of a test inside a user namespace of its own
// that allows no more, where the OS sandbox cannot be set up.
const noUserNSEnv = "RUNTIME_TEST_NO_USERNS"

// withoutUserNamespaces runs the calling test again in a user namespace
// that allows no new ones (as a machine without unprivileged namespaces,
// or a container that forbids them, does) and reports whether this is
// that run; the outer run passes when the inner one does.
func withoutUserNamespaces(t *testing.T) bool {
	t.Helper()
	if os.Getenv(noUserNSEnv) != "" {
		if err := os.WriteFile("/proc/sys/user/max_user_namespaces", []byte("0\n"), 0); err != nil {
			t.Fatal(err)
		}
		return true
	}
	c := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1")
	c.Env = append(os.Environ(), noUserNSEnv+"=1")
	c.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Geteuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getegid(), Size: 1}},
	}
	out, err := c.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "\nPASS\n") {
		t.Fatalf("%s without user namespaces: %v\n%s", t.Name(), err, out)
	}
	return false
}

// noNamespaces is how a worker's start fails there.
const noNamespaces = "the OS sandbox could not be set up: this machine allows no new user namespaces (user.max_user_namespaces is 0): fork/exec /proc/self/exe: no space left on device (runtime.sandbox: none runs workers without it, unsafely)"

// TestSandboxUnavailableFailsClosed: when the sandbox cannot be set up no
// worker runs and the error says why; runtime.sandbox: none (NoSandbox)
// runs the same binary outside it.
func TestSandboxUnavailableFailsClosed(t *testing.T) {
	if !withoutUserNamespaces(t) {
		return
	}
	bin, err := monty.FindBinary()
	if err != nil {
		t.Fatal(err)
	}
	want := "runtime: no Monty worker could start, so nothing can run: monty pool: cannot start workers: " +
		"monty: starting " + bin + ": " + noNamespaces
	_, err = newRuntimeErr(t, func(c *runtime.Config) { c.MontyBin, c.Workers = bin, 1 })
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
	rt, err := newRuntimeErr(t, func(c *runtime.Config) { c.MontyBin, c.Workers, c.NoSandbox = bin, 1, true })
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	if got := run(t, rt, `print(1 + 1)`).Text(); got != "2\n[0 tool calls]\n" {
		t.Errorf("unsandboxed run: %q", got)
	}
}

// TestSandboxUnavailablePersistentRefused: a persistent runtime's workers
// wait unconfigured, but even those cannot start: the runtime does not
// open, and says why.
func TestSandboxUnavailablePersistentRefused(t *testing.T) {
	if !withoutUserNamespaces(t) {
		return
	}
	bin, err := monty.FindBinary()
	if err != nil {
		t.Fatal(err)
	}
	_, err = newRuntimeErr(t, func(c *runtime.Config) {
		c.MontyBin, c.Workers, c.Persistent, c.StateDir = bin, 1, true, t.TempDir()
	})
	want := "runtime: no Monty worker could start, so nothing can run: monty pool: cannot start workers: " +
		"monty: starting " + bin + ": " + noNamespaces
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
}
