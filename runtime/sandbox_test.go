package runtime_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/codemode-dev/codemode/runtime"
	"github.com/codemode-dev/codemode/runtime/monty"
)

// unreachableMonty copies the monty binary where the sandbox's uid cannot
// reach it, so the sandbox cannot be built around it.
func unreachableMonty(t *testing.T) string {
	t.Helper()
	src, err := monty.FindBinary()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "monty")
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// TestSandboxUnavailableFailsClosed: when the sandbox cannot be set up no
// worker runs and the error says why; runtime.sandbox: none (NoSandbox)
// runs the same binary outside it.
func TestSandboxUnavailableFailsClosed(t *testing.T) {
	bin := unreachableMonty(t)
	want := "runtime: no Monty worker could start, so nothing can run: monty pool: cannot start workers: " +
		"monty worker is dead: monty: the OS sandbox could not be set up: opening " + bin +
		": permission denied (runtime.sandbox: none runs workers without it, unsafely)"
	_, err := newRuntimeErr(t, func(c *runtime.Config) { c.MontyBin, c.Workers = bin, 1 })
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

// TestSandboxUnavailableRunSaysWhy: a persistent runtime's workers wait
// unconfigured, so the runtime starts; each program then fails, saying
// why, and nothing of it runs.
func TestSandboxUnavailableRunSaysWhy(t *testing.T) {
	bin := unreachableMonty(t)
	rt, err := newRuntimeErr(t, func(c *runtime.Config) {
		c.MontyBin, c.Workers, c.Persistent, c.StateDir = bin, 1, true, t.TempDir()
	})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	res, err := rt.Run(context.Background(), "s1", `print("ran")`)
	text := ""
	if res != nil {
		text = res.Text()
	}
	if err != nil {
		text += err.Error()
	}
	want := "configuring the sandbox worker: monty worker is dead: monty: the OS sandbox could not be set up: opening " +
		bin + ": permission denied (runtime.sandbox: none runs workers without it, unsafely)"
	if text != want {
		t.Errorf("run said %q\nwant %q", text, want)
	}
}
