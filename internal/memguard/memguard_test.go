package memguard

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestMain lets the test binary be the process a test stops: with
// MEMGUARD_HOG set it starts the guard and holds more memory than the
// limit, as a compile of a huge spec does.
func TestMain(m *testing.M) {
	if os.Getenv("MEMGUARD_HOG") != "" {
		limit, err := Limit()
		if err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(2)
		}
		Start(limit, os.Stderr)
		var hold [][]byte
		for range 64 {
			b := make([]byte, 8<<20)
			for i := range b {
				b[i] = 1
			}
			hold = append(hold, b)
		}
		os.Stdout.WriteString("held 512 MiB\n")
		_ = hold
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func hog(t *testing.T, env string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "MEMGUARD_HOG=1", Env+"="+env)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// TestUnboundedCompileMemoryKilledMachine pins the bug: a process that
// kept growing was stopped by the kernel's OOM killer after taking the
// machine's memory. Past its limit it now stops itself, with one line.
func TestUnboundedCompileMemoryKilledMachine(t *testing.T) {
	out, errOut, code := hog(t, "64MiB")
	if code != 1 || out != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if !strings.HasPrefix(errOut, "codemode: stopped: it needed more than 64 MiB of memory (") ||
		!strings.HasSuffix(errOut, " MiB in use); set CODEMODE_MAX_MEMORY to a larger size, or off\n") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("stderr %q", errOut)
	}
}

func TestMemoryLimitOffOrAbove(t *testing.T) {
	for _, env := range []string{"off", "2GiB"} {
		out, errOut, code := hog(t, env)
		if code != 0 || out != "held 512 MiB\n" || errOut != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", env, code, out, errOut)
		}
	}
}

func TestMemoryLimitRefused(t *testing.T) {
	_, errOut, code := hog(t, "lots")
	if code != 2 || errOut != "CODEMODE_MAX_MEMORY=\"lots\": want a whole, positive size like 256MB or 8MiB, or off\n" {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

func TestDefaultLimitCapped(t *testing.T) {
	t.Setenv(Env, "")
	n, err := Limit()
	if err != nil || n == 0 || n > DefaultCap {
		t.Errorf("default limit %d, %v", n, err)
	}
}
