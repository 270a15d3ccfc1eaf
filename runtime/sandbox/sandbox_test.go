package sandbox_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/runtime/sandbox"
)

// helper is the misbehaving binary (testdata/misbehave), built by TestMain
// into a directory uid sandbox.ID can read.
var helper string

func TestMain(m *testing.M) {
	os.Exit(func() int {
		dir, err := os.MkdirTemp("", "sandbox-helper-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		if err := os.Chmod(dir, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		helper = filepath.Join(dir, "misbehave")
		build := exec.Command("go", "build", "-o", helper, "./testdata/misbehave")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "building the helper: %v\n%s", err, out)
			return 1
		}
		return m.Run()
	}())
}

// run starts the helper under the sandbox's launcher, exactly as a worker
// is started, and returns its output.
func run(t *testing.T, cfg sandbox.Config, args ...string) string {
	t.Helper()
	return runBin(t, cfg, helper, args...)
}

func runBin(t *testing.T, cfg sandbox.Config, bin string, args ...string) string {
	t.Helper()
	cmd, err := sandbox.Command(cfg, bin, args...)
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Start()
	sandbox.ReleaseFiles(cmd)
	if err == nil {
		err = cmd.Wait()
	}
	if err != nil {
		t.Fatalf("helper %v: %v; stderr: %s; stdout: %s", args, err, errOut.String(), out.String())
	}
	return out.String()
}

func expect(t *testing.T, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("helper said:\n%s\nwant:\n%s", got, want)
	}
}

func TestSandboxedCannotOpenSocket(t *testing.T) {
	expect(t, run(t, sandbox.Config{}, "socket"), `socket inet: operation not permitted
socket inet6: operation not permitted
socket unix: operation not permitted
socket netlink: operation not permitted
`)
}

func TestSandboxedCannotReadHostFile(t *testing.T) {
	host := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(host, []byte("token"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Nothing is there to read: the program runs from a descriptor.
	expect(t, run(t, sandbox.Config{}, "read", host), "read "+host+`: no such file or directory
read /etc/passwd: no such file or directory
read /proc/self/status: no such file or directory
read /dev/null: no such file or directory
read /prog: no such file or directory
`)
}

func TestSandboxedCannotWriteHostFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	host := filepath.Join(dir, "planted")
	expect(t, run(t, sandbox.Config{}, "write", host), "write "+host+`: no such file or directory
write /new-file: read-only file system
write /prog: read-only file system
write /tmp/x: no such file or directory
`)
	if _, err := os.Stat(host); !os.IsNotExist(err) {
		t.Errorf("the helper created %s on the host (stat: %v)", host, err)
	}
}

func TestSandboxedCannotSeeHostPIDs(t *testing.T) {
	// It is process 1 of its own PID namespace: the host's processes do
	// not exist for it (tgkill, which the filter allows, finds none), and
	// there is no /proc.
	expect(t, run(t, sandbox.Config{}, "pids", strconv.Itoa(os.Getpid())), `getpid: 1
getppid: -1
kill host pid: operation not permitted
tgkill host pid: no such process
open /proc: no such file or directory
`)
}

func TestSandboxedCannotForkPastLimit(t *testing.T) {
	const limit = 12
	out := run(t, sandbox.Config{Procs: limit}, "fork")
	var n int
	if _, err := fmt.Sscanf(out, "forked: %d\nfork: resource temporarily unavailable\n", &n); err != nil {
		t.Fatalf("helper said:\n%s\nwant forked: N, then fork: resource temporarily unavailable", out)
	}
	// The helper's own threads count against the limit too.
	if n < 1 || n >= limit {
		t.Errorf("forked %d processes under RLIMIT_NPROC %d", n, limit)
	}
}

func TestSandboxedCannotGainPrivileges(t *testing.T) {
	expect(t, run(t, sandbox.Config{}, "privileges"), `setuid 0: operation not permitted
unshare user: operation not permitted
clone new user namespace: operation not permitted
mount tmpfs: operation not permitted
chroot: operation not permitted
no_new_privs: operation not permitted
capget: operation not permitted
ptrace attach 1: operation not permitted
`)
}

// parentEnv makes the test binary the helper's parent, for
// TestSandboxedDiesWithParent.
const parentEnv = "SANDBOX_TEST_PARENT"

func TestSandboxedDiesWithParent(t *testing.T) {
	if os.Getenv(parentEnv) != "" {
		// The parent: start the spinning helper, say its pid, wait to be
		// killed.
		cmd, err := sandbox.Command(sandbox.Config{}, helper, "spin")
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, _ := bufio.NewReader(out).ReadString('\n')
		fmt.Printf("%d %s", cmd.Process.Pid, line)
		for { // until killed (select{} would be a deadlock the runtime ends)
			time.Sleep(time.Hour)
		}
	}
	parent := exec.Command(os.Args[0], "-test.run=^TestSandboxedDiesWithParent$")
	parent.Env = append(os.Environ(), parentEnv+"=1")
	out, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	parent.Stderr = os.Stderr
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	var pid int
	var said string
	if _, err := fmt.Fscanf(out, "%d %s\n", &pid, &said); err != nil || said != "spinning" {
		parent.Process.Kill()
		parent.Wait()
		t.Fatalf("parent said pid %d %q (%v)", pid, said, err)
	}
	if err := parent.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	parent.Wait()
	// The helper gets SIGKILL when its parent dies; the host's init reaps
	// it. The bound is not a timing assertion: it only ends the test.
	deadline := time.Now().Add(20 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the sandboxed helper (pid %d) outlived its killed parent", pid)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// alive reports whether pid is a process that has not exited (a zombie
// has).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

func TestScriptRefused(t *testing.T) {
	script := filepath.Join(t.TempDir(), "fake")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho hi\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := sandbox.Command(sandbox.Config{}, script)
	want := "sandbox: " + script + " is not an ELF executable (a script cannot run in the sandbox: its interpreter is not there)"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
}

// TestBinaryInPrivateDirectoryFailed: stage two opened the program by path
// as uid 65534, so a binary in a directory only the caller can enter (a
// checkout in a 0700 home or CI workspace) stopped every worker. The
// launcher now opens it as the caller and stage two executes the
// descriptor: the program runs, and the file beside it stays out of reach.
func TestBinaryInPrivateDirectoryFailed(t *testing.T) {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(helper)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "misbehave")
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(dir, "secret")
	if err := os.WriteFile(secret, []byte("token"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := runBin(t, sandbox.Config{}, bin, "read", secret)
	if !strings.HasPrefix(out, "read "+secret+": no such file or directory\n") {
		t.Errorf("output = %q, want the file beside the binary out of reach", out)
	}
}

// TestVanishedBinaryFailsClosed: a program the launcher cannot open is
// refused before anything starts, with its path.
func TestVanishedBinaryFailsClosed(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "gone")
	_, err := sandbox.Command(sandbox.Config{}, bin, "socket")
	if err == nil || !strings.Contains(err.Error(), bin) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("err = %v, want a not-exist error naming %s", err, bin)
	}
}

// noUserNSEnv makes the test binary, in a user namespace of its own that
// allows no more, try to start the helper, for
// TestNoUserNamespacesFailsClosed.
const noUserNSEnv = "SANDBOX_TEST_NO_USERNS"

func TestNoUserNamespacesFailsClosed(t *testing.T) {
	if os.Getenv(noUserNSEnv) != "" {
		if err := os.WriteFile("/proc/sys/user/max_user_namespaces", []byte("0\n"), 0); err != nil {
			t.Fatal(err)
		}
		cmd, err := sandbox.Command(sandbox.Config{}, helper, "socket")
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		cmd.Stdout = &out
		err = cmd.Start()
		if err == nil {
			cmd.Wait()
		}
		fmt.Printf("started: %v\nerror: %v\noutput: %q\n", err == nil, sandbox.StartError(err), out.String())
		return
	}
	c := exec.Command(os.Args[0], "-test.run=^TestNoUserNamespacesFailsClosed$")
	c.Env = append(os.Environ(), noUserNSEnv+"=1")
	c.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Geteuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getegid(), Size: 1}},
	}
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	want := `started: false
error: the OS sandbox could not be set up: this machine allows no new user namespaces (user.max_user_namespaces is 0): fork/exec /proc/self/exe: no space left on device
output: ""
PASS
`
	if string(out) != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}
}

// TestStageTwoOutsideLauncherRefused: this executable run under the
// stage-two name by anything but Command (so in the host's namespaces)
// does nothing to the host: it refuses, before touching a mount.
func TestStageTwoOutsideLauncherRefused(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c := &exec.Cmd{Path: exe, Args: []string{sandbox.InitName, `{"prog":"/bin/true"}`}}
	var stderr bytes.Buffer
	c.Stderr = &stderr
	err = c.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != sandbox.ExitSetup {
		t.Fatalf("err = %v, want exit status %d", err, sandbox.ExitSetup)
	}
	if want := "codemode sandbox: not started by the sandbox's launcher (no new user and PID namespace)\n"; stderr.String() != want {
		t.Errorf("stderr = %q, want %q", stderr.String(), want)
	}
}
