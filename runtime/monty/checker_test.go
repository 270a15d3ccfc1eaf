package monty

import (
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"
)

// newChecker starts a checker over checkStubs, with json and re
// pre-imported as the runtime's workers have them.
func newChecker(t *testing.T) (*Checker, Config) {
	t.Helper()
	cfg := Config{ScriptName: "prog.py", TypeCheck: true, TypeCheckStubs: checkStubs, TypeCheckFormat: "concise"}
	c, err := NewChecker(context.Background(), CheckerConfig{Bin: testBin(t), Config: cfg, Prelude: "import json\nimport re\n", WarmUp: "print(1)\n"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, cfg
}

func mustCheck(t *testing.T, c *Checker, code string) string {
	t.Helper()
	got, err := c.Check(context.Background(), code)
	if err != nil {
		t.Fatalf("%q: %v", code, err)
	}
	return got
}

// The checker reports exactly what a worker configured with the same stubs
// reports when it checks the program itself: the sentinel line's own
// diagnostic is gone and every line number is the program's.
func TestCheckerMatchesWorkerCheck(t *testing.T) {
	c, cfg := newChecker(t)
	for _, code := range []string{
		"print(1)\n",
		"x = 1\napi.github.create_issue(title=5)\n",
		`api.github.create_issue(title="x", state="opened")` + "\n",
		"api.gitlab.list()\ny: str = json.dumps(1)\nz: int = re.compile('a')\n",
		"# type: ignore\nx: int = ''\n",
		"'''doc'''\nx: int = 's'\n",
		"\tx = 1\n",
		"x = (\n",
		"await api.github.create_issue(title=1)\n",
		"raise ValueError('x')\nlen(1)\n",
		"def f(:\n",
		"x: int = '' # type: ignore\n\n\n\n\n\n\n\n\n\ny: str = 1\n",
	} {
		got := mustCheck(t, c, code)
		w := newWorker(t, cfg)
		mustOK(t, feed(t, w, "import json\nimport re\n", nil, &recorder{}))
		want := feed(t, w, code, nil, &recorder{}).TypingError
		if got != want {
			t.Errorf("%q:\nchecker %q\nworker  %q", code, got, want)
		}
	}
}

// A program that passes the check is not run by the checker and leaves
// nothing behind: a name it defines is unknown to the next check, and a
// definition that shadows a builtin does not change how the next program
// is checked.
func TestCheckerProgramCannotChangeNextCheck(t *testing.T) {
	c, _ := newChecker(t)
	if got := mustCheck(t, c, "x = 1\ndef len(a: object) -> str:\n    return ''\nprint(x)\n"); got != "" {
		t.Fatalf("first program: %q", got)
	}
	want := "prog.py:1:7: error[unresolved-reference] Name `x` used when not defined\n"
	if got := mustCheck(t, c, "print(x)\n"); got != want {
		t.Errorf("second program:\ngot  %q\nwant %q", got, want)
	}
	want = "prog.py:1:10: error[invalid-assignment] Object of type `int` is not assignable to `str`\n"
	if got := mustCheck(t, c, "s: str = len([1])\n"); got != want {
		t.Errorf("third program:\ngot  %q\nwant %q", got, want)
	}
}

// A checker whose worker died between checks is replaced by the next
// check, which then succeeds on a new worker.
func TestCheckerReplacedAfterDeath(t *testing.T) {
	c, _ := newChecker(t)
	w := c.live.Load()
	if err := syscall.Kill(w.Pid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-w.Exited()
	got := mustCheck(t, c, "x: int = 'a'\n")
	if !strings.HasPrefix(got, "prog.py:1:10: error[invalid-assignment]") {
		t.Fatalf("after the death: %q", got)
	}
	if c.Pid() == w.Pid() || c.Pid() == 0 {
		t.Errorf("pid %d, was %d", c.Pid(), w.Pid())
	}
}

// A checker that hangs holds a check only until the check's context ends:
// the check fails with the context's cause, the worker is killed, and the
// next check gets a fresh one.
func TestCheckerHungIsKilledAtContextEnd(t *testing.T) {
	c, _ := newChecker(t)
	pid := c.Pid()
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeoutCause(context.Background(), 200*time.Millisecond, errors.New("the time limit"))
	defer cancel()
	_, err := c.Check(ctx, "print(1)\n")
	if err == nil || !strings.Contains(err.Error(), "type check stopped: the time limit") {
		t.Fatalf("err = %v", err)
	}
	if got := mustCheck(t, c, "print(1)\n"); got != "" {
		t.Fatalf("after the hang: %q", got)
	}
	if c.Pid() == pid {
		t.Error("the hung worker is still the checker's")
	}
}

// After Close a check fails with ErrCheckerClosed.
func TestCheckerClosed(t *testing.T) {
	c, _ := newChecker(t)
	c.Close()
	if _, err := c.Check(context.Background(), "print(1)\n"); !errors.Is(err, ErrCheckerClosed) {
		t.Fatalf("err = %v", err)
	}
}

func TestCheckerNeedsConciseFormat(t *testing.T) {
	_, err := NewChecker(context.Background(), CheckerConfig{Bin: testBin(t), Config: Config{TypeCheckFormat: "full"}})
	if err == nil || err.Error() != `monty: a checker needs TypeCheckFormat "concise", not "full"` {
		t.Fatalf("err = %v", err)
	}
}

// A feed that does not end in the sentinel's diagnostic is not trusted:
// the check fails with a clear error, the worker is replaced, and the next
// check is sound again.
func TestCheckerDistrustsAFeedWithoutTheSentinel(t *testing.T) {
	c, _ := newChecker(t)
	pid := c.Pid()
	c.mu.Lock()
	c.sentinel = "prog.py:1:1: error[something-else]\n" // as if the worker answered otherwise
	c.mu.Unlock()
	_, err := c.Check(context.Background(), "print(1)\n")
	if err == nil || err.Error() != "monty: the type checker did not check the program (diagnostics without the sentinel's); its worker is replaced" {
		t.Fatalf("err = %v", err)
	}
	if got := mustCheck(t, c, "x: int = 'a'\n"); !strings.HasPrefix(got, "prog.py:1:10: error[invalid-assignment]") {
		t.Fatalf("next check: %q", got)
	}
	if c.Pid() == pid {
		t.Error("the distrusted worker is still the checker's")
	}
}

// Checks from many goroutines at once are serialized, each getting its own
// program's diagnostics.
func TestCheckerConcurrentChecks(t *testing.T) {
	c, _ := newChecker(t)
	errs := make(chan error, 16)
	for i := range 16 {
		go func() {
			code, want := "print(1)\n", ""
			if i%2 == 1 {
				code = strings.Repeat("\n", i) + "x: int = 'a'\n"
				want = "prog.py:" + itoa(i+1) + ":10: error[invalid-assignment] Object of type `Literal[\"a\"]` is not assignable to `int`\n"
			}
			got, err := c.Check(context.Background(), code)
			if err == nil && got != want {
				err = errors.New("got " + got + ", want " + want)
			}
			errs <- err
		}()
	}
	for range 16 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
