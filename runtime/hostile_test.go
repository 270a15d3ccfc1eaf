package runtime_test

import (
	"context"
	"github.com/codemode-dev/codemode/internal/testpack"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/internal/testpeer"
	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/manifest"
	"github.com/codemode-dev/codemode/readgate"
	"github.com/codemode-dev/codemode/runtime"
	"github.com/codemode-dev/codemode/runtime/upstream"
)

// TestProgramsAgainstPrism runs programs against Petstore operations served
// by Prism, which validates every request against the spec: a wrongly built
// path, query, header or body fails the call.
func TestProgramsAgainstPrism(t *testing.T) {
	spec, err := filepath.Abs("../testdata/corpus/openapi/petstore-v3.json")
	if err != nil {
		t.Fatal(err)
	}
	base := testpeer.StartPrism(t, spec)
	t.Setenv("PETSTORE_KEY", "special-key")
	dir := t.TempDir()
	yaml := "out: api\nservices:\n  - name: pets\n    openapi: " + spec + "\n    base_url: " + base + "\n" +
		"    auth: {type: apiKey, in: header, name: api_key, token_env: PETSTORE_KEY}\n"
	p := testpack.Build(t, dir, yaml)
	rt, err := p.OpenRuntime(context.Background(), func(c *runtime.Config) { c.ReadGate = readgate.Off })
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	res, err := rt.Run(context.Background(), "s", `
pet = api.pets.getPetById(petId=1)
print(sorted(pet.keys()))
order = api.pets.placeOrder(petId=7, quantity=2, status="placed")
print(order["status"], order["complete"])
try:
    run_tool("getPetById", {"petId": -1.5})
except TypeError as e:
    print("refused before sending:", e)
`)
	if err != nil {
		t.Fatal(err)
	}
	want := "['category', 'id', 'name', 'photoUrls', 'status', 'tags']\nplaced False\nrefused before sending: api.pets.getPetById: argument petId: expected int, got float (-1.5)\n[3 tool calls, 1 failed]\n"
	if got := res.Text(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// hanging is an upstream that never answers until the call is cancelled.
type hanging struct{}

func (hanging) Call(ctx context.Context, _ *manifest.Tool, _ map[string]any) (*upstream.Result, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}
func (hanging) Close() error { return nil }

func TestUpstreamThatHangs(t *testing.T) {
	rt := newRuntime(t, func(c *runtime.Config) {
		c.Upstreams[ir.ServiceName("everything")] = hanging{}
		c.Limits.Time = 2 * time.Second
	})
	res := run(t, rt, "print('before')\napi.everything.echo(message='x')\nprint('after')\n")
	if res.Limit != "time" || res.Output != "before\n" {
		t.Errorf("limit=%q output=%q error=%s", res.Limit, res.Output, res.Error)
	}
	if got := run(t, rt, "print(1)\n").Text(); got != "1\n[0 tool calls]\n" {
		t.Errorf("after the hang: %q", got)
	}
}

// TestWorkerKilledMidProgram kills the Monty worker running a program: the
// program gets a clear error and the pool keeps serving.
func TestWorkerKilledMidProgram(t *testing.T) {
	rt := newRuntime(t, nil)
	done := make(chan *runtime.Result)
	go func() {
		res, _ := rt.Run(context.Background(), "s", "print('working')\nwhile True:\n    pass\n")
		done <- res
	}()
	time.Sleep(500 * time.Millisecond)
	// Kill every worker, the busy one and the idle ones in the pool.
	var killed []int
	for pid := range montyChildren(t) {
		syscall.Kill(pid, syscall.SIGKILL)
		killed = append(killed, pid)
	}
	if len(killed) == 0 {
		t.Fatal("found no worker to kill")
	}
	res := <-done
	// Once the killed workers have exited, the pool's dead ones are
	// replaced before a program is given to them.
	for _, pid := range killed {
		for f := strings.Fields(readStat(pid)); len(f) > 0 && f[0] != "Z"; f = strings.Fields(readStat(pid)) {
			time.Sleep(5 * time.Millisecond)
		}
	}
	if !strings.HasPrefix(res.Error, "the sandbox worker died while running the program") || !res.WorkerDied || !strings.HasSuffix(res.Error, "No tool call was made before the worker died, so nothing outside the sandbox changed.") {
		t.Errorf("error = %q", res.Error)
	}
	if got := run(t, rt, "print(2)\n").Text(); got != "2\n[0 tool calls]\n" {
		t.Errorf("after the kill: %q", got)
	}
}

// montyChildren lists the pids of this process's `monty subprocess`
// children.
func montyChildren(t *testing.T) map[int]bool {
	t.Helper()
	out := map[int]bool{}
	me := strconv.Itoa(os.Getpid())
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if len(f) > 1 && f[1] == me && strings.Contains(string(cmdline), "subprocess") {
			out[pid] = true
		}
	}
	return out
}

// TestBindingErrors: without the type checker, the runtime's own binding
// refuses a bad call with the signature, and files and the environment are
// refused with the way that works here.
func TestBindingErrors(t *testing.T) {
	rt := newRuntime(t, func(c *runtime.Config) { c.NoTypeCheck = true })
	for _, c := range []struct{ code, want string }{
		{"api.everything.echo(mesage='x')",
			"TypeError: api.everything.echo() got an unexpected keyword argument 'mesage'. Did you mean 'message'? Signature: api.everything.echo(message: str) -> Any"},
		{"api.everything.get_sum(1)",
			"TypeError: api.everything.get_sum() missing required argument: 'b'. Signature: api.everything.get_sum(a: float, b: float) -> Any"},
		{"api.everything.get_sum(1, 2, 3)",
			"TypeError: api.everything.get_sum() takes 2 positional arguments but 3 were given; pass optional arguments by keyword. Signature: api.everything.get_sum(a: float, b: float) -> Any"},
		{"api.everything.get_sum(1, a=2, b=3)",
			"TypeError: api.everything.get_sum() got multiple values for argument 'a'. Signature: api.everything.get_sum(a: float, b: float) -> Any"},
		{"import os\nos.getenv('HOME')",
			"PermissionError: this sandbox has no environment variables, network or processes. Call tools as api.<service>.<tool>(...) or run_tool(\"<name>\", {...}); find them with find_tool(\"<what you need>\")."},
		{"from pathlib import Path\nPath('/etc/passwd').read_text()",
			"PermissionError: this sandbox has no files, network or processes. Call tools as api.<service>.<tool>(...) or run_tool(\"<name>\", {...}); find them with find_tool(\"<what you need>\")."},
		{"print(api.everything.echoo)",
			"AttributeError: '_svc_everything' object has no attribute 'echoo'\nHint: api.everything has no tool echoo; did you mean api.everything.echo? Find tools with find_tool(\"<what you need>\")."},
	} {
		res := run(t, rt, c.code)
		lines := strings.Split(strings.TrimRight(res.Error, "\n"), "\n")
		// The last line (two with a hint) is the exception; the ones before
		// are the traceback.
		got := lines[len(lines)-1]
		if strings.HasPrefix(got, "Hint: ") {
			got = lines[len(lines)-2] + "\n" + got
		}
		if got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.code, got, c.want)
		}
	}
}

// TestHelpAndCallInOneProgram pins the bug where help(api.s.t); api.s.t()
// in one program called a tool whose definition the agent had never seen:
// help's text reaches the agent only when run_code returns, so it counts as
// a read from the next program on. dir lists services and tools.
func TestHelpAndCallInOneProgram(t *testing.T) {
	rt := newRuntime(t, func(c *runtime.Config) { c.ReadGate, c.Limits.Output = readgate.PerFile, 4096 })
	res := run(t, rt, `
try:
    api.everything.echo(message="x")
except PermissionError as e:
    print("refused:", e)
help(api.everything.echo)
try:
    api.everything.echo(message="right after help")
except PermissionError as e:
    print("still refused")
print(dir(api), dir(api.everything)[:2])
`)
	svc, _ := rt.Manifest().Service("everything")
	echo, _ := svc.Tool("echo")
	lines := strconv.Itoa(echo.Lines[0]) + "-" + strconv.Itoa(echo.Lines[1])
	want := "refused: api.everything.echo was refused: read api/everything.py lines " + lines + " first: find_tool(\"everything.echo\") or read_api(\"everything\", \"" + lines + "\")\n" +
		rt.Lines("everything.py", echo.Lines[0], echo.Lines[1]) +
		"still refused\n['everything', 'memory'] ['echo', 'get_annotated_message']\n[2 tool calls, 2 failed]\n"
	if got := res.Text(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	// The next program may call it.
	if got := run(t, rt, `print(api.everything.echo(message="next program"))`).Text(); got != "Echo: next program\n[1 tool call]\n" {
		t.Errorf("next program: %q", got)
	}
	// A help() whose text the output cap cut did not reach the agent.
	rt2 := newRuntime(t, func(c *runtime.Config) { c.ReadGate, c.Limits.Output = readgate.PerFile, 100 })
	run(t, rt2, `help(api.everything.echo)`)
	if got := run(t, rt2, `api.everything.echo(message="x")`); !strings.Contains(got.Error, "was refused: read api/everything.py") {
		t.Errorf("help cut by the output cap unlocked echo: %s", got.Text())
	}
}

// TestFailsClosed: without a sandbox nothing runs; the runtime does not
// start.
func TestFailsClosed(t *testing.T) {
	_, err := runtime.New(context.Background(), runtime.Config{
		Manifest: &manifest.Manifest{Version: manifest.Version},
		MontyBin: "/nonexistent/monty",
	})
	if err == nil || !strings.HasPrefix(err.Error(), "runtime: no Monty worker could start, so nothing can run: ") {
		t.Fatalf("err = %v", err)
	}
}

// metaUpstream answers every call with _meta entries.
type metaUpstream struct{ meta map[string]any }

func (m metaUpstream) Call(context.Context, *manifest.Tool, map[string]any) (*upstream.Result, error) {
	return &upstream.Result{Value: "done", Meta: m.meta}, nil
}
func (metaUpstream) Close() error { return nil }

// TestNotesAndWaitsFromMeta: the _meta keys the pack names become notes at
// the top of the response (out of the program's reach) and a wait that
// refuses the program's later calls.
func TestNotesAndWaitsFromMeta(t *testing.T) {
	rt := newRuntime(t, func(c *runtime.Config) {
		c.Upstreams["everything"] = metaUpstream{meta: map[string]any{"acme/notes": "templates 7 and 9 are read-only", "acme/wait": "change CHG-12 needs approval"}}
		c.NotesMeta = map[ir.ServiceName]string{"everything": "acme/notes"}
		c.WaitMeta = map[ir.ServiceName]string{"everything": "acme/wait"}
	})
	res := run(t, rt, `
print(api.everything.echo(message="launch"))
try:
    api.everything.echo(message="again")
except RuntimeError as e:
    print("refused:", str(e)[:60])
`)
	want := "NOTE: api.everything.echo: templates 7 and 9 are read-only\n" +
		"NOTE: WAIT: api.everything.echo is waiting: change CHG-12 needs approval. End your turn now.\n" +
		"NOTE: WAIT: this session waits (wait " + res.WaitID + ") until an approver resolves it or until " + res.WaitDeadline.Format(time.RFC3339) + "; run_code is refused until then.\n\n" +
		"{'reason': 'change CHG-12 needs approval', 'status': 'waiting'}\n" +
		"refused: api.everything.echo was not called: an earlier call in this \n" +
		"[2 tool calls, 1 failed]\n"
	if got := res.Text(); got != want || !res.Wait {
		t.Errorf("wait=%v got:\n%s\nwant:\n%s", res.Wait, got, want)
	}
}
