package runtime_test

import (
	"context"
	"errors"
	"github.com/codemode-dev/codemode/internal/testpack"
	"github.com/codemode-dev/codemode/internal/testpeer"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/readgate"
	"github.com/codemode-dev/codemode/runtime"
	"github.com/codemode-dev/codemode/runtime/upstream"
)

// newRuntime compiles a pack of the real reference servers (started from
// tools/npm) into a temp dir and opens a runtime over it.
func newRuntime(t testing.TB, mutate func(*runtime.Config)) *runtime.Runtime {
	t.Helper()
	rt, err := newRuntimeErr(t, mutate)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	return rt
}

// newRuntimeErr is newRuntime returning the error of runtime.New; the
// caller closes the runtime.
func newRuntimeErr(t testing.TB, mutate func(*runtime.Config)) (*runtime.Runtime, error) {
	t.Helper()
	everything, err := testpeer.NodeBin("mcp-server-everything")
	if err != nil {
		t.Fatal(err)
	}
	memory, err := testpeer.NodeBin("mcp-server-memory")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	yaml := "out: api\nservices:\n" +
		"  - name: everything\n    mcp_command: " + everything + " stdio\n" +
		"  - name: memory\n    mcp_command: " + memory + "\n    env:\n      MEMORY_FILE_PATH: " + filepath.Join(dir, "memory.jsonl") + "\n"
	p := testpack.Build(t, dir, yaml)
	rt, err := p.OpenRuntime(context.Background(), func(c *runtime.Config) {
		benchUpstreams = c.Upstreams
		c.ReadGate = readgate.Off
		c.Limits.Time = 5 * time.Second
		c.Limits.Output = 200
		c.Limits.Calls = 20
		if mutate != nil {
			mutate(c)
		}
	})
	return rt, err
}

// benchUpstreams are the upstreams of the last runtime opened, for the
// benchmarks' direct baseline.
var benchUpstreams map[ir.ServiceName]upstream.Upstream

func newBenchRuntime(b *testing.B, mutate func(*runtime.Config)) *runtime.Runtime {
	rt := newRuntime(b, func(c *runtime.Config) {
		c.Limits.Output = 1 << 20
		if mutate != nil {
			mutate(c)
		}
	})
	// Warm up: start the upstream servers and the pool.
	if res, err := rt.Run(context.Background(), "warm", "api.everything.echo(message='x')\napi.memory.read_graph()\n"); err != nil || !res.OK() {
		b.Fatal(err, res.Error)
	}
	return rt
}

func run(t *testing.T, rt *runtime.Runtime, code string) *runtime.Result {
	t.Helper()
	res, err := rt.Run(context.Background(), "s1", code)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res
}

func TestPrograms(t *testing.T) {
	rt := newRuntime(t, nil)
	cases := []struct {
		name, code, want string
	}{
		{"echo and sum", `
from api.everything import echo
import api.everything as ev
print(echo(message="hi"))
print(ev.get_sum(a=2, b=3))
print(run_tool("get-sum", {"a": 1, "b": 1}))
`, "Echo: hi\nThe sum of 2 and 3 is 5.\nThe sum of 1 and 1 is 2.\n[3 tool calls]\n"},
		{"structured content", `
w = api.everything.get_structured_content(location="New York")
print(sorted(w.keys()))
`, "['conditions', 'humidity', 'temperature']\n[1 tool call]\n"},
		{"memory graph", `
api.memory.create_entities(entities=[{"name": "Ada", "entityType": "person", "observations": ["wrote the first program"]}])
api.memory.create_relations(relations=[{"from": "Ada", "to": "Ada", "relationType": "admires"}])
g = api.memory.read_graph()
print([e["name"] for e in g["entities"]], [r["relationType"] for r in g["relations"]])
`, "['Ada'] ['admires']\n[3 tool calls]\n"},
		{"positional and keyword binding", `
print(api.everything.get_sum(7, b=1))
`, "The sum of 7 and 1 is 8.\n[1 tool call]\n"},
		{"upstream error is catchable", `
try:
    api.memory.add_observations(observations=[{"entityName": "Nobody", "contents": ["x"]}])
except RuntimeError as e:
    print("caught:", str(e)[:60])
`, "caught: api.memory.add_observations failed: Entity with name Nobody \n[1 tool call, 1 failed]\n"},
		{"validation error never reaches upstream", `
try:
    run_tool("get-structured-content", {"location": "Paris"})
except ValueError as e:
    print(e)
`, "api.everything.get_structured_content: argument location must be one of \"New York\", \"Chicago\", \"Los Angeles\"; got \"Paris\"\n[1 tool call, 1 failed]\n"},
		{"unknown keyword via run_tool name", `
try:
    run_tool("get-summ", {})
except NameError as e:
    print(e)
`, "there is no tool named \"get-summ\"; did you mean api.everything.get_sum? Find tools with find_tool(\"<what you need>\").\n[1 tool call, 1 failed]\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := run(t, rt, c.code)
			if got := res.Text(); got != c.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, c.want)
			}
		})
	}
}

func TestHostilePrograms(t *testing.T) {
	rt := newRuntime(t, nil)
	cases := []struct {
		name, code, want, limit string
	}{
		{"infinite loop", "print('before')\nwhile True:\n    pass\n",
			"before\n[0 tool calls]\n\nLimitError: time limit (5s) exceeded; the program was stopped. Make fewer or smaller calls, or filter less data per program.\nHint: a program cannot wait: start the long call with jobs.submit(\"name\", api.<service>.<tool>, arg=value) and end the turn with jobs.wait(\"name\", wake_after=seconds); a later turn reads jobs.get(\"name\").\n", "time"},
		{"memory bomb", "x = 'a' * (10 ** 10)\n", "", "memory"},
		{"print flood", "for i in range(100000):\n    print('line', i)\nprint('done')\n", "", ""},
		{"deep recursion", "def f(n):\n    return f(n + 1)\nf(0)\n", "", ""},
		{"import socket", "import socket\n", "[0 tool calls]\n\nType check failed, nothing ran:\nprogram.py:1:8: error[unresolved-import] Cannot resolve imported module `socket`\nHint: this sandbox has no network, files or processes. Call tools as api.<service>.<tool>(...) or run_tool(\"<name>\", {...}); find them with find_tool(\"<what you need>\").\n", ""},
		{"open()", "open('/etc/passwd')\n", "[0 tool calls]\n\nType check failed, nothing ran:\nprogram.py:1:1: error[unresolved-reference] Name `open` used when not defined\nHint: open() is not available in this sandbox. Call tools as api.<service>.<tool>(...) or run_tool(\"<name>\", {...}); find them with find_tool(\"<what you need>\").\n", ""},
		{"too many calls", "for i in range(10000):\n    run_tool('echo', {'message': 'x'})\n", "", "calls"},
		{"misspelt tool", "api.everything.echoo(message='x')\n", "[0 tool calls]\n\nType check failed, nothing ran:\nprogram.py:1:1: error[unresolved-attribute] Object of type `_svc_everything` has no attribute `echoo`\nHint: api.everything has no tool echoo; did you mean api.everything.echo? Find tools with find_tool(\"<what you need>\").\n", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := run(t, rt, c.code)
			if c.want != "" && res.Text() != c.want {
				t.Errorf("got:\n%s\nwant:\n%s", res.Text(), c.want)
			}
			if res.Limit != c.limit {
				t.Errorf("limit = %q, want %q (%s)", res.Limit, c.limit, res.Error)
			}
			if res.OK() {
				if c.name != "print flood" {
					t.Errorf("program succeeded: %s", res.Text())
				}
			}
		})
	}
	// The pool is still healthy.
	if got := run(t, rt, "print(1 + 1)\n").Text(); got != "2\n[0 tool calls]\n" {
		t.Errorf("after hostile programs: %q", got)
	}
}

func TestPrintFloodIsCapped(t *testing.T) {
	rt := newRuntime(t, nil)
	res := run(t, rt, "for i in range(1000):\n    print('line', i)\nprint('done')\n")
	if !res.Truncated || len(res.Output) != 200 || !res.OK() {
		t.Fatalf("truncated=%v len=%d ok=%v", res.Truncated, len(res.Output), res.OK())
	}
	if !strings.Contains(res.Text(), "[output cut at the limit: ") {
		t.Errorf("no cut notice: %s", res.Text())
	}
}

func TestTracebackPointsAtProgramLines(t *testing.T) {
	rt := newRuntime(t, nil)
	res := run(t, rt, "import api.everything\nx = 1\ndef f():\n    return 1 / 0\nf()\n")
	want := "[0 tool calls]\n\nTraceback (most recent call last):\n  File \"program.py\", line 5, in <module>\n    f()\n  File \"program.py\", line 4, in f\n    return 1 / 0\nZeroDivisionError: division by zero\n"
	if res.Text() != want {
		t.Errorf("got:\n%s\nwant:\n%s", res.Text(), want)
	}
}

func TestCancelStopsCalls(t *testing.T) {
	rt := newRuntime(t, func(c *runtime.Config) { c.Limits.Calls = 1 << 30 })
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	var res *runtime.Result
	go func() {
		defer wg.Done()
		res, _ = rt.Run(ctx, "s", "i = 0\nwhile True:\n    run_tool('echo', {'message': 'x'})\n    i += 1\n")
	}()
	time.Sleep(300 * time.Millisecond)
	cancel()
	wg.Wait()
	if res == nil || !strings.HasPrefix(res.Error, "cancelled") {
		t.Fatalf("result after cancel: %+v", res)
	}
	n := len(res.Calls)
	time.Sleep(200 * time.Millisecond)
	if len(res.Calls) != n {
		t.Errorf("calls continued after cancel")
	}
}

func TestPersistentSession(t *testing.T) {
	state := t.TempDir()
	rt := newRuntime(t, func(c *runtime.Config) { c.Persistent, c.StateDir = true, state })
	if got := run(t, rt, "x = 41\n").Text(); got != "[0 tool calls]\n" {
		t.Fatalf("first: %q", got)
	}
	if got := run(t, rt, "print(x + 1)\n").Text(); got != "42\n[0 tool calls]\n" {
		t.Errorf("second: %q", got)
	}
}

// TestConcurrentPrograms: programs run side by side on one runtime, each in
// its own worker, and none sees another's calls or output.
func TestConcurrentPrograms(t *testing.T) {
	rt := newRuntime(t, nil)
	var wg sync.WaitGroup
	got := make([]string, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := rt.Run(context.Background(), "s", "for j in range(3):\n    print(api.everything.echo(message='p"+strconv.Itoa(i)+"-' + str(j)))\n")
			if err != nil {
				t.Error(err)
				return
			}
			got[i] = res.Text()
		}()
	}
	wg.Wait()
	for i, g := range got {
		want := ""
		for j := range 3 {
			want += "Echo: p" + strconv.Itoa(i) + "-" + strconv.Itoa(j) + "\n"
		}
		want += "[3 tool calls]\n"
		if g != want {
			t.Errorf("program %d:\n%s\nwant:\n%s", i, g, want)
		}
	}
}

// TestResultErrorOnlyAString pins the defect: a Result said why a program
// failed only in text, so Go callers matched strings. Err is the same
// failure typed.
func TestResultErrorOnlyAString(t *testing.T) {
	rt := newRuntime(t, func(c *runtime.Config) { c.Limits.Time = 500 * time.Millisecond })
	var tc *runtime.TypeCheckError
	if res := run(t, rt, `api.everything.get_sum(a="one", b=2)`); !errors.As(res.Err, &tc) || tc.Error() != res.Error || tc.Checker == "" {
		t.Fatalf("type error: %T %v", res.Err, res.Err)
	}
	var pe *runtime.ProgramError
	if res := run(t, rt, `raise ValueError("no")`); !errors.As(res.Err, &pe) || pe.Type != "ValueError" || pe.Error() != res.Error {
		t.Fatalf("exception: %T %v", res.Err, res.Err)
	}
	var le *runtime.LimitError
	if res := run(t, rt, "x = 0\nwhile True:\n    x += 1\n"); !errors.As(res.Err, &le) || le.Limit != "time" {
		t.Fatalf("limit: %T %v", res.Err, res.Err)
	}
	if res := run(t, rt, `print("fine")`); res.Err != nil || res.Error != "" {
		t.Fatalf("a program that succeeded has Err %v", res.Err)
	}
}
