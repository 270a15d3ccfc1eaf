package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	goruntime "runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/codemode-dev/codemode/manifest"
	"github.com/codemode-dev/codemode/runtime"
	"github.com/codemode-dev/codemode/runtime/upstream"
)

// A memory limit that ends the worker (rather than raising MemoryError)
// is the memory limit, reported once, as a LimitError; the program is not
// run again.
func TestMemoryLimitDeathReportedAsLimitNotRerun(t *testing.T) {
	rt := newRuntime(t, func(c *runtime.Config) { c.Limits.Memory = 20 << 20 })
	res := run(t, rt, "x = {i: i for i in range(10**8)}\n")
	var le *runtime.LimitError
	if res.Limit != "memory" || !errors.As(res.Err, &le) || le.Limit != "memory" || res.WorkerDied || res.Attempts != 1 {
		t.Fatalf("limit=%q err=%v died=%v attempts=%d error=%s", res.Limit, res.Err, res.WorkerDied, res.Attempts, res.Error)
	}
	if want := "LimitError: memory limit (20 MiB) exceeded; the program was stopped. Keep less data in variables."; res.Error != want {
		t.Errorf("error = %q, want %q", res.Error, want)
	}
}

// A program raising MemoryError with the limit's own message keeps its
// exception: it is not reported as the runtime's limit.
func TestUserRaisedMemoryErrorNotShownAsLimit(t *testing.T) {
	rt := newRuntime(t, nil)
	res := run(t, rt, "raise MemoryError('memory limit exceeded: 300000000 bytes > 268435456 bytes')\n")
	var pe *runtime.ProgramError
	if res.Limit != "" || !errors.As(res.Err, &pe) || pe.Type != "MemoryError" {
		t.Fatalf("limit=%q err=%T %v", res.Limit, res.Err, res.Err)
	}
	want := "Traceback (most recent call last):\n  File \"program.py\", line 1, in <module>\n    raise MemoryError('memory limit exceeded: 300000000 bytes > 268435456 bytes')\nMemoryError: memory limit exceeded: 300000000 bytes > 268435456 bytes\n"
	if res.Error != want {
		t.Errorf("error:\n%s\nwant:\n%s", res.Error, want)
	}
}

// After a worker dies following a write, the reply lists the calls that
// completed and does not advise running the program again blindly.
func TestWorkerDeathAfterWriteListsCompletedCalls(t *testing.T) {
	rt := newRuntime(t, nil)
	done := make(chan *runtime.Result)
	go func() {
		res, _ := rt.Run(context.Background(), "s", "api.memory.create_entities(entities=[{'name': 'a', 'entityType': 't', 'observations': []}])\nprint(api.everything.echo(message='written'))\nwhile True:\n    pass\n")
		done <- res
	}()
	// Kill the workers once the program is past its calls and spinning.
	for len(montyChildren(t)) > 0 {
		killedBusy := false
		for pid := range montyChildren(t) {
			if busy(pid) {
				syscall.Kill(pid, syscall.SIGKILL)
				killedBusy = true
			}
		}
		if killedBusy {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	res := <-done
	want := "the sandbox worker died while running the program"
	tail := "; it was replaced. 2 calls completed before the worker died: api.memory.create_entities (ok), api.everything.echo (ok); check their effects before running the program again."
	if !res.WorkerDied || res.Attempts != 1 || !strings.HasPrefix(res.Error, want) || !strings.HasSuffix(res.Error, tail) || res.Output != "Echo: written\n" {
		t.Errorf("died=%v output=%q error=%q", res.WorkerDied, res.Output, res.Error)
	}
}

// busy reports whether a process has used a lot of CPU (a spinning
// program), from /proc/<pid>/stat utime.
func busy(pid int) bool {
	var utime int
	stat := readStat(pid)
	if f := strings.Fields(stat); len(f) > 11 {
		fmt.Sscan(f[11], &utime)
	}
	return utime > 20 // clock ticks: 0.2 s of CPU
}

// The output cut never splits a UTF-8 character.
func TestOutputCutKeepsUTF8Whole(t *testing.T) {
	rt := newRuntime(t, nil) // output limit 200 bytes
	res := run(t, rt, "print('a' + 'é' * 150)\nprint('b')\n")
	if !res.Truncated || !utf8.ValidString(res.Output) || len(res.Output) != 199 || res.Dropped != 304-199 {
		t.Errorf("truncated=%v valid=%v len=%d dropped=%d", res.Truncated, utf8.ValidString(res.Output), len(res.Output), res.Dropped)
	}
}

// A huge exception message is cut like output, on a UTF-8 boundary, and
// the cut says so.
func TestHugeErrorTextCapped(t *testing.T) {
	rt := newRuntime(t, func(c *runtime.Config) { c.Limits.ErrorText = 1001 })
	res := run(t, rt, "raise ValueError('é' * (15 << 20))\n")
	if !utf8.ValidString(res.Error) || res.ErrorDropped == 0 || len(res.Error) > 1001+100 {
		t.Fatalf("valid=%v dropped=%d len=%d", utf8.ValidString(res.Error), res.ErrorDropped, len(res.Error))
	}
	if !strings.HasSuffix(res.Error, fmt.Sprintf("\n[error text cut at 1001 bytes: %d more bytes were not kept]", res.ErrorDropped)) {
		t.Errorf("error ends %q", res.Error[len(res.Error)-100:])
	}
}

// run_tool with a 20 MB name is refused before the host decodes it, and a
// long name under the call cap is refused before any fuzzy matching.
func TestLongToolNameRefusedBeforeFuzzyMatching(t *testing.T) {
	rt := newRuntime(t, nil)
	res := run(t, rt, "try:\n    run_tool('q' * (20 << 20), {})\nexcept ValueError as e:\n    print(str(e)[:40])\ntry:\n    run_tool('q' * (1 << 20), {})\nexcept NameError as e:\n    print(str(e)[-110:])\n")
	want := "run_tool(...) was not called: its argume\n" +
		"qqqqqqqqqqq… (1048576 bytes)\": tool names are at most 256 bytes. Find tools with find_tool(\"<what you need>\").\n"
	if res.Output != want || len(res.Calls) != 2 || res.Calls[0].Status != "refused" || res.Calls[1].Status != "refused" {
		t.Errorf("output:\n%q\nwant:\n%q\ncalls %+v", res.Output, want, res.Calls)
	}
}

// A 60 MB argument is refused undecoded: the host holds the frame, not
// copies of the value.
func TestHugeCallArgumentRefusedUndecoded(t *testing.T) {
	rt := newRuntime(t, nil)
	run(t, rt, "print(1)\n") // warm up
	var before, after goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&before)
	res := run(t, rt, "try:\n    api.everything.echo(message='x' * (60 << 20))\nexcept ValueError as e:\n    print(e)\n")
	goruntime.ReadMemStats(&after)
	want := "api.everything.echo(...) was not called: its arguments are 62914603 bytes, over the limit of 8388608 bytes for one call; pass less data per call\n"
	if res.Output != want || len(res.Calls) != 1 || res.Calls[0].Status != "refused" {
		t.Errorf("output %q calls %+v", res.Output, res.Calls)
	}
	// The frame is read in doubling chunks: about twice its size in all.
	t.Logf("host allocation for a 60 MiB argument: %d MiB", (after.TotalAlloc-before.TotalAlloc)>>20)
	if got := after.TotalAlloc - before.TotalAlloc; got > 3*(60<<20) {
		t.Errorf("the host allocated %d MiB for a 60 MiB argument", got>>20)
	}
}

// blocking is an upstream whose calls wait for release, recording the order
// in which calls start and end.
type blocking struct {
	mu      sync.Mutex
	events  []string
	started chan string
	release chan struct{}
}

func (b *blocking) Call(ctx context.Context, _ *manifest.Tool, args map[string]any) (*upstream.Result, error) {
	m, _ := args["message"].(string)
	b.mu.Lock()
	b.events = append(b.events, "start "+m)
	b.mu.Unlock()
	b.started <- m
	<-b.release
	b.mu.Lock()
	b.events = append(b.events, "end "+m)
	b.mu.Unlock()
	return &upstream.Result{Value: m}, nil
}
func (*blocking) Close() error { return nil }

// With a budget of one program's memory, a second program waits for the
// first to finish instead of running beside it.
func TestMemoryBudgetQueuesConcurrentPrograms(t *testing.T) {
	up := &blocking{started: make(chan string, 2), release: make(chan struct{}, 2)}
	rt := newRuntime(t, func(c *runtime.Config) {
		c.Upstreams["everything"] = up
		c.Limits.Memory = 64 << 20
		c.MemoryBudget = 64 << 20
	})
	var wg sync.WaitGroup
	results := make([]*runtime.Result, 2)
	start := func(i int, msg string) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], _ = rt.Run(context.Background(), msg, "print(api.everything.echo(message='"+msg+"'))\n")
		}()
	}
	start(0, "A")
	if got := <-up.started; got != "A" {
		t.Fatalf("first call %q", got)
	}
	start(1, "B")
	for rt.Queued() == 0 {
		goruntime.Gosched()
	}
	up.release <- struct{}{}
	if got := <-up.started; got != "B" {
		t.Fatalf("second call %q", got)
	}
	up.release <- struct{}{}
	wg.Wait()
	if got := strings.Join(up.events, ", "); got != "start A, end A, start B, end B" {
		t.Errorf("events: %s", got)
	}
	for i, r := range results {
		if r == nil || !r.OK() {
			t.Errorf("program %d: %+v", i, r)
		}
	}
	// A program waiting for room gives up with its context.
	up.started = make(chan string, 1)
	go rt.Run(context.Background(), "C", "api.everything.echo(message='C')\n")
	<-up.started
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error)
	go func() { _, err := rt.Run(ctx, "D", "print(1)\n"); errc <- err }()
	for rt.Queued() == 0 {
		goruntime.Gosched()
	}
	cancel()
	if err := <-errc; err == nil || !strings.HasPrefix(err.Error(), "no room in the sandbox memory budget before the run ended, nothing ran: ") {
		t.Errorf("err = %v", err)
	}
	up.release <- struct{}{}
}

func TestMemoryBudgetBelowOneProgramRefused(t *testing.T) {
	_, err := runtime.New(context.Background(), runtime.Config{
		Manifest:     &manifest.Manifest{Version: manifest.Version},
		MemoryBudget: 100 << 20,
	})
	if err == nil || err.Error() != "runtime: the memory budget (100 MiB) is below one program's memory limit (256 MiB): no program could run" {
		t.Fatalf("err = %v", err)
	}
}

// readStat is /proc/<pid>/stat after the command name: state, ppid, ...
func readStat(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	s := string(b)
	return s[strings.LastIndexByte(s, ')')+1:]
}
