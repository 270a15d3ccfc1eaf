package runtime_test

import (
	"testing"
	"time"

	"github.com/codemode-dev/codemode/runtime"
	"github.com/codemode-dev/codemode/runtime/monty"
)

// workerChecked runs programs through Config.Runner's Monty pool, which
// has no separate type checker: programs are checked by their own worker
// (warm sets included).
func workerChecked(t *testing.T) func(*runtime.Config) {
	bin, err := monty.FindBinary()
	if err != nil {
		t.Fatal(err)
	}
	return func(c *runtime.Config) { c.Runner = runtime.MontyRunner(bin, monty.StartOptions{}) }
}

// TestWarmSetChecksLikeAColdWorker: on a pack whose stubs are too large to
// warm every worker with, and a runner without a separate type checker, a
// program naming one service is checked the same (the same type error,
// the same output) whether its worker was configured for it on the
// program's path or taken from the warm set kept for that service.
func TestWarmSetChecksLikeAColdWorker(t *testing.T) {
	rt := goalRuntime(t, allLists(t), workerChecked(t))
	bad := "print(api.everything.echo(mesage='x'))\n"
	good := "print(api.everything.echo(message='x'))\n"
	cold := run(t, rt, bad)
	if cold.Warmed {
		t.Fatal("the first program of a service set had a warm worker")
	}
	var warm string
	for range 200 { // until the set's worker is ready
		res := run(t, rt, bad)
		if res.Warmed {
			warm = res.Text()
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if warm == "" {
		t.Fatal("no program got the warm set's worker")
	}
	if warm != cold.Text() {
		t.Errorf("warm worker:\n%s\ncold worker:\n%s", warm, cold.Text())
	}
	if res := run(t, rt, good); res.Output != "Echo: x\n" || !res.OK() {
		t.Errorf("good program: %q %s", res.Output, res.Error)
	}
}

// TestCheckerChecksLikeTheWorker: a program checked by the runtime's type
// checker gets the same result (the same type error with its hints, the
// same output) as one checked by its own worker, on a small pack (one
// checker with every stub) and a large one (a checker per service set).
func TestCheckerChecksLikeTheWorker(t *testing.T) {
	progs := []string{
		"print(api.everything.echo(mesage='x'))\n",
		"x = 1\n\nprint(api.everything.echo(message=x))\n",
		"print(api.everything.echo(message='x'))\n",
		"print(api.nope.echo(message='x'))\n",
		"def f(:\n",
	}
	for _, lists := range [][]string{{"everything"}, allLists(t)} {
		checker := goalRuntime(t, lists, nil)
		worker := goalRuntime(t, lists, workerChecked(t))
		for _, p := range progs {
			a, b := run(t, checker, p), run(t, worker, p)
			if a.Text() != b.Text() {
				t.Errorf("%d services, %q:\nchecker:\n%s\nworker:\n%s", len(lists), p, a.Text(), b.Text())
			}
			if a.OK() != (a.Attempts == 1) {
				t.Errorf("%q: %d workers for a program that ok=%v", p, a.Attempts, a.OK())
			}
		}
	}
}
