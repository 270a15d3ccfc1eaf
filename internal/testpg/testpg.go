// Package testpg starts a throwaway PostgreSQL cluster for a test: initdb
// into a fresh directory as an unprivileged user, a postmaster on a loopback
// port, and a clean stop when the test ends.
//
// It never skips. PostgreSQL 15 from Debian's packages is installed by the
// project's own script (scripts/postgres, run by make test and .ci/run); a
// machine without it fails the test with one line naming that script.
package testpg

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Start initialises and starts a new cluster for t and returns a URL for its
// postgres database (user postgres, trust authentication on loopback only).
// The cluster is stopped and its directory removed when t ends.
func Start(t testing.TB) string {
	t.Helper()
	bin, err := binDir()
	if err != nil {
		t.Fatal(err)
	}
	cred, uid, gid, err := unprivileged()
	if err != nil {
		t.Fatal(err)
	}
	root, err := os.MkdirTemp("", "testpg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	if cred != nil {
		if err := os.Chown(root, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	data := filepath.Join(root, "data")
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres",
		"--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		t.Fatalf("testpg: initdb: %v\n%s", err, out)
	}

	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		port, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		url, stop, err := launch(bin, root, data, port, cred)
		if err == nil {
			t.Cleanup(stop)
			return url
		}
		lastErr = err
	}
	t.Fatalf("testpg: %v", lastErr)
	return ""
}

// launch starts the postmaster itself (not through pg_ctl) so that it is the
// test's child: it gets SIGKILL if the test process dies, and its backends
// exit when they see the postmaster gone.
func launch(bin, root, data string, port int, cred *syscall.Credential) (string, func(), error) {
	logPath := filepath.Join(root, "postgres.log")
	logf, err := os.Create(logPath)
	if err != nil {
		return "", nil, err
	}
	if cred != nil {
		os.Chown(logPath, int(cred.Uid), int(cred.Gid))
	}
	cmd := exec.Command(filepath.Join(bin, "postgres"), "-D", data,
		"-p", strconv.Itoa(port), "-k", root,
		"-c", "listen_addresses=127.0.0.1",
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
		"-c", "max_connections=200")
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGKILL, Setpgid: true}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return "", nil, fmt.Errorf("starting postgres: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait(); logf.Close() }()
	stop := func() {
		// SIGQUIT is PostgreSQL's immediate shutdown; the cluster is thrown away.
		cmd.Process.Signal(syscall.SIGQUIT)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case err := <-exited:
			return "", nil, fmt.Errorf("postgres exited before it was ready (%v): %s", err, tail(logPath))
		default:
		}
		ready := exec.Command(filepath.Join(bin, "pg_isready"), "-q", "-h", "127.0.0.1", "-p", strconv.Itoa(port), "-U", "postgres")
		if ready.Run() == nil {
			return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port), stop, nil
		}
		if time.Now().After(deadline) {
			stop()
			return "", nil, fmt.Errorf("postgres not ready after 30s: %s", tail(logPath))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// binDir finds PostgreSQL's server binaries: Debian keeps them in
// /usr/lib/postgresql/<major>/bin (the newest is taken), elsewhere they are
// on PATH.
func binDir() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return major(dirs[i]) > major(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", fmt.Errorf("testpg: PostgreSQL is not installed (no initdb in /usr/lib/postgresql/*/bin or on PATH); run scripts/postgres, which make test runs")
}

func major(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

// unprivileged returns the credential to run PostgreSQL under: none when the
// test is not root (it runs as the test's own user), else the postgres user
// Debian's package creates, or nobody.
func unprivileged() (*syscall.Credential, int, int, error) {
	if os.Geteuid() != 0 {
		return nil, os.Getuid(), os.Getgid(), nil
	}
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}, uid, gid, nil
	}
	return nil, 0, 0, fmt.Errorf("testpg: running as root and no unprivileged user (postgres, nobody) to run PostgreSQL as")
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func tail(path string) string {
	b, _ := os.ReadFile(path)
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return strings.TrimSpace(string(bytes.ToValidUTF8(b, nil)))
}
