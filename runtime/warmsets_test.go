package runtime_test

import (
	"testing"
	"time"
)

// TestWarmSetChecksLikeAColdWorker: on a pack whose stubs are too large to
// warm every worker with, a program naming one service is checked the
// same (the same type error, the same output) whether its worker was
// configured for it on the program's path or taken from the warm set kept
// for that service.
func TestWarmSetChecksLikeAColdWorker(t *testing.T) {
	rt := goalRuntime(t, allLists(t), nil)
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
