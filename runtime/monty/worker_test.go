package monty

import (
	"context"
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestPrintAndValue(t *testing.T) {
	w := newWorker(t, Config{ScriptName: "prog.py"})
	h := &recorder{}
	out := feed(t, w, "print('hello')\nprint(1, 2, sep='-')\nprint('no newline', end='')\nx = 40 + 2\nx", nil, h)
	mustOK(t, out)
	if got, want := h.output(), "hello\n1-2\nno newline"; got != want {
		t.Errorf("output = %q, want %q", got, want)
	}
	if out.Value != int64(42) {
		t.Errorf("value = %#v, want int64(42)", out.Value)
	}
	// The session keeps globals between feeds.
	out = feed(t, w, "x * 2", nil, h)
	mustOK(t, out)
	if out.Value != int64(84) {
		t.Errorf("second feed value = %#v, want 84", out.Value)
	}
}

// api.svc.tool(x=1) on host instances arrives as a call named "svc.tool";
// the dict/list the host returns are ordinary Python values in the program.
func TestHostInstanceCalls(t *testing.T) {
	w := newWorker(t, Config{ScriptName: "prog.py"})
	svc := NewInstance("svc",
		Attr{"tool", Function{Name: "svc.tool", Doc: "Run the tool."}},
		Attr{"list_items", Function{Name: "svc.list_items"}})
	api := NewInstance("_api", Attr{"svc", svc})
	h := &recorder{answer: func(c *Call) (Reply, error) {
		switch c.Name {
		case "svc.tool":
			return Return(NewDict("name", "widget", "tags", []any{"a", "b"}, "n", int64(7))), nil
		case "svc.list_items":
			return Return([]any{NewDict("id", int64(1)), NewDict("id", int64(2))}), nil
		}
		return NotFound(c.Name), nil
	}}
	code := `r = api.svc.tool(x=1, y="two")
items = api.svc.list_items("q", limit=2)
print(r["name"], r["tags"][1], r["n"] + 1, len(items), [i["id"] for i in items])
r["seen"] = True
r
`
	out := feed(t, w, code, []NamedValue{{"api", api}}, h)
	mustOK(t, out)
	if got, want := h.output(), "widget b 8 2 [1, 2]\n"; got != want {
		t.Errorf("output = %q, want %q", got, want)
	}
	if len(h.calls) != 2 {
		t.Fatalf("got %d calls, want 2", len(h.calls))
	}
	c := h.calls[0]
	if c.Name != "svc.tool" || len(c.Args) != 0 || c.Object != nil {
		t.Errorf("call 0 = %+v", c)
	}
	if want := []Kwarg{{"x", int64(1)}, {"y", "two"}}; !reflect.DeepEqual(c.Kwargs, want) {
		t.Errorf("kwargs = %#v, want %#v", c.Kwargs, want)
	}
	c = h.calls[1]
	if c.Name != "svc.list_items" || !reflect.DeepEqual(c.Args, []Value{"q"}) ||
		!reflect.DeepEqual(c.Kwargs, []Kwarg{{"limit", int64(2)}}) {
		t.Errorf("call 1 = %+v", c)
	}
	want := NewDict("name", "widget", "tags", []any{"a", "b"}, "n", int64(7), "seen", true)
	if !reflect.DeepEqual(out.Value, want) {
		t.Errorf("value = %s, want %s", Format(out.Value), Format(want))
	}
}

func TestHostRaiseIsCatchable(t *testing.T) {
	w := newWorker(t, Config{})
	h := &recorder{answer: func(c *Call) (Reply, error) {
		return Raise("ValueError", "no such repo: "+c.Args[0].(string)), nil
	}}
	code := `try:
    fetch("octo/cat")
except ValueError as e:
    print("caught:", e)
`
	out := feed(t, w, code, []NamedValue{{"fetch", Function{Name: "fetch"}}}, h)
	mustOK(t, out)
	if got, want := h.output(), "caught: no such repo: octo/cat\n"; got != want {
		t.Errorf("output = %q, want %q", got, want)
	}
}

func TestUncaughtTraceback(t *testing.T) {
	w := newWorker(t, Config{ScriptName: "prog.py"})
	code := `x = 1

def inner(d):
    return d["missing"]

def outer():
    return inner({"a": 1})

outer()
`
	out := feed(t, w, code, nil, &recorder{})
	e := out.Exception
	if e == nil {
		t.Fatalf("no exception, value %s", Format(out.Value))
	}
	if e.Type != "KeyError" || e.Message != "missing" || out.Limit != "" {
		t.Errorf("exception = %s (%q), limit %q", e.Type, e.Message, out.Limit)
	}
	type frame struct {
		line    int
		name    string
		preview string
	}
	var got []frame
	for _, f := range e.Traceback {
		got = append(got, frame{f.Line, f.Name, strings.TrimSpace(f.Preview)})
		// Runtime tracebacks name each feed "<python-input-N>", whatever
		// Config.ScriptName says.
		if f.Filename != "<python-input-0>" {
			t.Errorf("frame filename = %q", f.Filename)
		}
	}
	want := []frame{
		{9, "<module>", "outer()"},
		{7, "outer", `return inner({"a": 1})`},
		{4, "inner", `return d["missing"]`},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("traceback = %+v, want %+v", got, want)
	}
	if e.Traceback[2].Column != 12 {
		t.Errorf("inner frame column = %d, want 12", e.Traceback[2].Column)
	}
	wantText := `Traceback (most recent call last):
  File "<python-input-0>", line 9, in <module>
    outer()
  File "<python-input-0>", line 7, in outer
    return inner({"a": 1})
  File "<python-input-0>", line 4, in inner
    return d["missing"]
KeyError: missing
`
	if got := e.Format(); got != wantText {
		t.Errorf("Format() =\n%s\nwant\n%s", got, wantText)
	}
	// A second feed is "<python-input-1>", lines relative to that feed.
	out = feed(t, w, "y = 2\nraise RuntimeError('second')", nil, &recorder{})
	if f := out.Exception.Traceback[0]; f.Filename != "<python-input-1>" || f.Line != 2 {
		t.Errorf("second feed frame = %+v", f)
	}
}

func TestTimeLimit(t *testing.T) {
	w := newWorker(t, Config{Limits: Limits{MaxDuration: 200 * time.Millisecond}})
	start := time.Now()
	code := `try:
    while True:
        pass
except BaseException:
    print("caught the limit")
`
	h := &recorder{}
	out := feed(t, w, code, nil, h)
	if out.Limit != LimitTime || out.Exception == nil || out.Exception.Type != "TimeoutError" {
		t.Fatalf("outcome = %+v, exception %v", out, out.Exception)
	}
	if !strings.HasPrefix(out.Exception.Message, "time limit exceeded: ") || !strings.HasSuffix(out.Exception.Message, " > 200ms") {
		t.Errorf("message = %q", out.Exception.Message)
	}
	if h.output() != "" {
		t.Errorf("the program caught the limit: %q", h.output())
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v", d)
	}
	// A program raising TimeoutError itself is not a limit.
	w2 := newWorker(t, Config{})
	out = feed(t, w2, "raise TimeoutError('time limit exceeded: fake')", nil, &recorder{})
	if out.Limit != "" {
		t.Errorf("a raised TimeoutError was taken for a limit")
	}
}

func TestMemoryLimit(t *testing.T) {
	w := newWorker(t, Config{Limits: Limits{MaxMemory: 20 << 20}})
	code := `x = []
try:
    while True:
        x.append("a" * 10000)
except BaseException:
    print("caught the limit")
`
	h := &recorder{}
	out := feed(t, w, code, nil, h)
	if out.Limit != LimitMemory || out.Exception == nil || out.Exception.Type != "MemoryError" {
		t.Fatalf("outcome = %+v, exception %v", out, out.Exception)
	}
	if !strings.HasPrefix(out.Exception.Message, "memory limit exceeded: ") || !strings.HasSuffix(out.Exception.Message, " > 20971520 bytes") {
		t.Errorf("message = %q", out.Exception.Message)
	}
	if h.output() != "" {
		t.Errorf("the program caught the limit: %q", h.output())
	}
}

func TestKillMidProgram(t *testing.T) {
	w := newWorker(t, Config{})
	go func() {
		time.Sleep(100 * time.Millisecond)
		w.Kill()
	}()
	start := time.Now()
	out, err := w.Feed(context.Background(), "while True:\n    pass\n", nil, &recorder{})
	if err == nil || out != nil {
		t.Fatalf("Feed = %+v, %v; want an error", out, err)
	}
	if !errors.Is(err, ErrDead) || !strings.Contains(err.Error(), "killed") {
		t.Errorf("err = %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v", d)
	}
	if _, err := w.Feed(context.Background(), "1", nil, &recorder{}); !errors.Is(err, ErrDead) {
		t.Errorf("feed after kill: %v", err)
	}
}

func TestContextCancelStopsProgram(t *testing.T) {
	w := newWorker(t, Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := w.Feed(ctx, "while True:\n    pass\n", nil, &recorder{})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want deadline exceeded", err)
	}
	select {
	case <-w.Exited():
	case <-time.After(2 * time.Second):
		t.Fatal("worker still running after cancellation")
	}
}

// A handler error aborts the program at its call, where it cannot catch
// it; the session survives.
func TestHandlerErrorAborts(t *testing.T) {
	w := newWorker(t, Config{})
	limit := errors.New("call limit reached")
	h := &recorder{answer: func(c *Call) (Reply, error) {
		if c.Args[0].(int64) >= 2 {
			return Reply{}, limit
		}
		return Return(nil), nil
	}}
	code := `n = 0
for i in range(5):
    try:
        tool(i)
        n += 1
    except BaseException:
        print("caught")
`
	out, err := w.Feed(context.Background(), code, []NamedValue{{"tool", Function{Name: "tool"}}}, h)
	if !errors.Is(err, limit) {
		t.Fatalf("err = %v", err)
	}
	if out == nil || out.Exception == nil || out.Exception.Type != "RuntimeError" || out.Exception.Message != "call limit reached" {
		t.Fatalf("outcome = %+v", out)
	}
	if f := out.Exception.Traceback; len(f) != 1 || f[0].Line != 4 {
		t.Errorf("traceback = %+v", f)
	}
	if h.output() != "" || len(h.calls) != 3 {
		t.Errorf("output %q, %d calls", h.output(), len(h.calls))
	}
	out = feed(t, w, "n", nil, h)
	if out.Value != int64(2) {
		t.Errorf("n = %v, want 2", out.Value)
	}
}

func TestDumpLoad(t *testing.T) {
	w := newWorker(t, Config{ScriptName: "prog.py"})
	mustOK(t, feed(t, w, "state = {'count': 3, 'names': ['a', 'b']}\ndef bump():\n    state['count'] += 1\n    return state['count']", nil, &recorder{}))
	snap, err := w.Dump()
	if err != nil {
		t.Fatal(err)
	}
	w2, err := Start(context.Background(), testBin(t))
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Close()
	if err := w2.Load(snap); err != nil {
		t.Fatal(err)
	}
	out := feed(t, w2, "bump()\nstate", nil, &recorder{})
	mustOK(t, out)
	want := NewDict("count", int64(4), "names", []any{"a", "b"})
	if !reflect.DeepEqual(out.Value, want) {
		t.Errorf("restored state = %s, want %s", Format(out.Value), Format(want))
	}
	// Reset drops the session; the worker can be configured again.
	if err := w2.Reset(); err != nil {
		t.Fatal(err)
	}
	if err := w2.Configure(Config{}); err != nil {
		t.Fatal(err)
	}
	out = feed(t, w2, "state", nil, &recorder{names: map[string]Value{}})
	if out.Exception == nil || out.Exception.Type != "NameError" {
		t.Errorf("after reset: %+v", out)
	}
}

func TestLookupAndOSCalls(t *testing.T) {
	w := newWorker(t, Config{})
	h := &recorder{names: map[string]Value{"VERSION": "1.2"}}
	out := feed(t, w, "import os\nprint(VERSION)\nos.getenv('HOME')", nil, h)
	if !reflect.DeepEqual(h.lookups, []string{"VERSION"}) || h.output() != "1.2\n" {
		t.Errorf("lookups %v, output %q", h.lookups, h.output())
	}
	// No OSHandler: the OS call is declined.
	if out.Exception == nil || out.Exception.Type != "RuntimeError" {
		t.Errorf("os.getenv outcome: %+v", out)
	}
}

func TestValuesRoundTrip(t *testing.T) {
	w := newWorker(t, Config{})
	huge, _ := new(big.Int).SetString("-123456789012345678901234567890", 10)
	values := []Value{
		nil, true, false, int64(-5), int64(1) << 62, huge, 1.5, "héllo", []byte{0, 1, 255},
		[]any{int64(1), "a", nil}, Tuple{int64(1), "x"}, Set{int64(3)},
		NewDict("k", []any{NewDict(int64(1), 2.5)}, Tuple{int64(1), int64(2)}, "tuple key"),
		&ExceptionValue{Type: "ValueError", Arg: "bad", HasArg: true},
	}
	for _, v := range values {
		out := feed(t, w, "v", []NamedValue{{"v", v}}, &recorder{})
		mustOK(t, out)
		if !reflect.DeepEqual(out.Value, v) {
			t.Errorf("round trip of %s (%T) = %s (%T)", Format(v), v, Format(out.Value), out.Value)
		}
	}
	// Values the sandbox made itself.
	out := feed(t, w, "(1, [2.0, None], {'a': b'x'}, {5}, 2**70, ...)", nil, &recorder{})
	mustOK(t, out)
	want := Tuple{int64(1), []any{2.0, nil}, NewDict("a", []byte("x")), Set{int64(5)}, new(big.Int).Lsh(big.NewInt(1), 70), Ellipsis{}}
	if !reflect.DeepEqual(out.Value, want) {
		t.Errorf("value = %s, want %s", Format(out.Value), Format(want))
	}
}

func TestDeadChildError(t *testing.T) {
	script := filepath.Join(t.TempDir(), "fake-monty")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho 'something broke' >&2\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A script: the sandbox holds no shell to run it.
	w, err := StartWith(context.Background(), script, StartOptions{NoSandbox: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	err = w.Configure(Config{})
	if err == nil {
		t.Fatal("Configure succeeded against a dead child")
	}
	if !errors.Is(err, ErrDead) || !strings.Contains(err.Error(), "monty worker exited: exit status 3") ||
		!strings.Contains(err.Error(), "stderr: something broke") {
		t.Errorf("err = %v", err)
	}
}

func TestEmptyEnvironment(t *testing.T) {
	// The driver gives the child no environment at all; check on the real
	// process.
	w := newWorker(t, Config{})
	env, err := os.ReadFile(filepath.Join("/proc", itoa(w.Pid()), "environ"))
	if err != nil {
		t.Fatal(err)
	}
	if len(env) != 0 {
		t.Errorf("child environment = %q, want empty", env)
	}
}

func itoa(i int) string { return big.NewInt(int64(i)).String() }

func TestFindBinary(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module github.com/codemode-dev/codemode\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := FindBinaryFrom(sub)
	if err == nil || !strings.Contains(err.Error(), "run `npm ci` in "+filepath.Join(dir, "tools", "npm")) {
		t.Errorf("err = %v", err)
	}
	t.Setenv(BinaryEnv, filepath.Join(dir, "nope"))
	if _, err := FindBinary(); err == nil || !strings.Contains(err.Error(), BinaryEnv) {
		t.Errorf("override err = %v", err)
	}
}

// TestReplyPipeIsOutsideThePoller: the child's replies are read by a
// blocking read on the thread that wrote the request (see replyPipe); a
// read end in Go's poller (O_NONBLOCK) doubled a host call's round trip.
func TestReplyPipeIsOutsideThePoller(t *testing.T) {
	w := newWorker(t, Config{})
	rc, err := w.outF.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var flags int
	var ferr error
	if err := rc.Control(func(fd uintptr) { flags, ferr = unix.FcntlInt(fd, unix.F_GETFL, 0) }); err != nil || ferr != nil {
		t.Fatal(err, ferr)
	}
	if flags&unix.O_NONBLOCK != 0 {
		t.Errorf("the reply pipe's read end is non-blocking (flags %#x)", flags)
	}
	if out := feed(t, w, "print(1)", nil, &recorder{}); !out.OK() {
		t.Errorf("feed: %+v", out)
	}
}
