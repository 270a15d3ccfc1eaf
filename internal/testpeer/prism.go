// Package testpeer starts the real peers this project's tests run against:
// programs installed by `npm ci` in tools/npm.
package testpeer

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// StartPrism mocks an OpenAPI spec with Prism's static examples on a free
// loopback port, stops it when the test ends, and returns its base URL.
// Prism validates every request against the spec, so a wrongly built
// request fails the test.
func StartPrism(t testing.TB, spec string) string {
	t.Helper()
	bin, err := NodeBin("prism")
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(bin, "mock", "-h", "127.0.0.1", "-p", fmt.Sprint(port), spec)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			t.Error("prism did not exit")
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
		if err == nil {
			c.Close()
			return fmt.Sprintf("http://127.0.0.1:%d", port)
		}
		select {
		case <-exited:
			t.Fatalf("prism exited: %s", out.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("prism did not listen on %d within 60s: %s", port, out.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}
