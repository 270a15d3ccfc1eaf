package monty

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A program raising MemoryError or TimeoutError with the very message the
// child uses for its limits is a program's own exception, not a limit.
func TestUserRaisedMemoryErrorIsNotALimit(t *testing.T) {
	for _, code := range []string{
		"raise MemoryError('memory limit exceeded: 21070672 bytes > 20971520 bytes')",
		"def f():\n    raise MemoryError('memory limit exceeded: 21070672 bytes > 20971520 bytes')\nf()\n",
		"e = MemoryError('memory limit exceeded: 1 bytes > 20971520 bytes')\nraise e\n",
		"raise TimeoutError('time limit exceeded: 300ms > 200ms')",
	} {
		w := newWorker(t, Config{Limits: Limits{MaxMemory: 20 << 20, MaxDuration: 200 * time.Millisecond}})
		out := feed(t, w, code, nil, &recorder{})
		if out.Exception == nil || out.Limit != "" {
			t.Errorf("%q: limit %q, exception %v; want the program's own exception", code, out.Limit, out.Exception)
		}
	}
	// The real limits are still recognised, with and without a traceback.
	for _, code := range []string{
		"x = []\nwhile True:\n    x.append('a' * 10000)\n",
		"x = 'a' * (50 << 20)\n",
	} {
		w := newWorker(t, Config{Limits: Limits{MaxMemory: 20 << 20}})
		if out := feed(t, w, code, nil, &recorder{}); out.Limit != LimitMemory {
			t.Errorf("%q: limit %q, exception %v; want the memory limit", code, out.Limit, out.Exception)
		}
	}
}

// A length prefix can claim up to 4 GiB: a claim above the frame cap is
// refused outright, and one below it allocates only as the bytes arrive.
func TestFrameLengthPrefixAllocatesNothingAhead(t *testing.T) {
	hdr := func(n uint32, body string) *bytes.Reader {
		b := binary.LittleEndian.AppendUint32(nil, n)
		return bytes.NewReader(append(b, body...))
	}
	if _, err := readFrame(hdr(0xFFFFFFFF, "x")); err == nil || !strings.Contains(err.Error(), "exceeds the limit") {
		t.Fatalf("4 GiB prefix: err = %v", err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := readFrame(hdr(maxFrame, "only a few bytes"))
	runtime.ReadMemStats(&after)
	if !errors.Is(err, errUnexpectedEOF()) {
		t.Fatalf("truncated frame: err = %v", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 2*frameChunk {
		t.Errorf("a %d-byte claim with 16 bytes behind it allocated %d bytes", maxFrame, got)
	}
	// A real frame bigger than one chunk still reads whole.
	body := strings.Repeat("ab", frameChunk+17)
	b, err := readFrame(hdr(uint32(len(body)), body))
	if err != nil || string(b) != body {
		t.Fatalf("big frame: %d bytes, %v", len(b), err)
	}
}

func errUnexpectedEOF() error {
	_, err := readFrame(bytes.NewReader([]byte{5, 0, 0, 0, 1}))
	return err
}

// Values nested deeper than maxDepth are refused, not recursed into until
// the stack runs out.
func TestDeeplyNestedValueRefused(t *testing.T) {
	v := encodeInt(1)
	for range maxDepth {
		v = msg(nil).bytes(objList, msg(nil).bytes(1, v))
	}
	if _, err := decodeValue(v, 0); err == nil || !strings.Contains(err.Error(), "nested more than") {
		t.Fatalf("err = %v", err)
	}
}

// A call whose encoded arguments exceed the handler's MaxCallSize arrives
// with its name and id only.
type sizedRecorder struct {
	recorder
	max int
}

func (s *sizedRecorder) MaxCallSize() int { return s.max }

func TestOversizeCallArrivesUndecoded(t *testing.T) {
	w := newWorker(t, Config{})
	h := &sizedRecorder{max: 1 << 20}
	h.answer = func(c *Call) (Reply, error) {
		if c.Oversize > 0 {
			return Raise("ValueError", fmt.Sprintf("%s: %d bytes, args %v", c.Name, c.Oversize, c.Args)), nil
		}
		return Return(len(c.Args)), nil
	}
	code := "print(f('small'))\ntry:\n    f('q' * (2 << 20), {})\nexcept ValueError as e:\n    print(str(e)[:16], 'args' in str(e), str(e).endswith('args []'))\n"
	out := feed(t, w, code, []NamedValue{{Name: "f", Value: Function{Name: "f"}}}, h)
	mustOK(t, out)
	if got, want := h.output(), "1\nf: 2097171 bytes True True\n"; got != want {
		t.Errorf("output = %q, want %q", got, want)
	}
}

// FuzzDecodeEvent feeds arbitrary bytes from the child through the frame
// reader and every event decoder: nothing may panic, and a length prefix
// cannot make the host allocate ahead of the bytes.
func FuzzDecodeEvent(f *testing.F) {
	frame := func(b []byte) []byte { return append(binary.LittleEndian.AppendUint32(nil, uint32(len(b))), b...) }
	val, _ := encodeValue(&Dict{Pairs: []Pair{{Key: "a", Value: []any{int64(1), 2.5, "x", nil, Tuple{true}}}}})
	exc := (&Exception{Type: "ValueError", Message: "bad", HasMessage: true}).encode()
	exc = msg(exc).bytes(3, msg(nil).str(1, "<python-input-0>").bytes(2, msg(nil).varint(1, 3).varint(2, 1)).varint(6, 1))
	call := msg(nil).str(1, "svc.tool").bytes(2, val).bytes(3, msg(nil).bytes(1, msg(nil).str(objStr, "k")).bytes(2, val)).varint(4, 7)
	for _, ev := range [][]byte{
		msg(nil).bytes(evPrint, msg(nil).varint(1, 1).str(2, "hello\n")),
		msg(nil).bytes(evComplete, msg(nil).bytes(1, val)).varint(evTotalMicros, 12),
		msg(nil).bytes(evError, msg(nil).bytes(1, exc)),
		msg(nil).bytes(evFunctionCall, call),
		msg(nil).bytes(evOsCall, msg(nil).varint(1, 2).str(6, "/etc/passwd")),
		msg(nil).bytes(evNameLookup, msg(nil).str(1, "x").bytes(2, msg(nil).bytes(1, make([]byte, 16)))),
		msg(nil).bytes(evTypingError, msg(nil).str(1, "error")),
	} {
		f.Add(frame(ev))
	}
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 1, 2, 3})
	f.Add([]byte{0xff, 0xff, 0xff, 0x3f, 1, 2, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bytes.NewReader(data)
		for {
			b, err := readFrame(r)
			if err != nil {
				return
			}
			ev, err := decodeEvent(b)
			if err != nil {
				continue
			}
			decodeEventBody(ev)
		}
	})
}

// decodeEventBody runs the decoder Feed uses for the event's kind.
func decodeEventBody(ev event) {
	switch ev.kind {
	case evPrint:
		printSegments(ev.body)
	case evComplete, evDumpResult:
		if b, ok, err := firstBytes(ev.body, 1); err == nil && ok {
			decodeValue(b, 0)
		}
	case evError, evFatalError:
		if b, _, err := firstBytes(ev.body, 1); err == nil {
			if e, err := decodeException(b); err == nil {
				limitOf(e, 20<<20)
				e.Format()
			}
		}
	case evFunctionCall:
		decodeCall(ev.body)
		decodeCallHead(ev.body)
	case evOsCall:
		decodeOSCall(ev.body)
	case evNameLookup:
		decodeLookup(ev.body)
	}
}

// TestWorkerDiesWithItsParent: a process holding a busy worker is
// SIGKILLed; the worker must not outlive it. The test binary re-runs
// itself as that process (TestHelperHoldsBusyWorker).
func TestWorkerDiesWithItsParent(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperHoldsBusyWorker$")
	cmd.Env = append(os.Environ(), "MONTY_HELPER_BUSY=1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("helper: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(line), "worker "))
	if err != nil {
		t.Fatalf("helper said %q", line)
	}
	if !running(pid) {
		t.Fatalf("worker %d is not running before its parent is killed", pid)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if !gone(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("worker %d is still running after its parent was killed", pid)
	}
}

func TestHelperHoldsBusyWorker(t *testing.T) {
	if os.Getenv("MONTY_HELPER_BUSY") != "1" {
		t.Skip("helper process for TestWorkerDiesWithItsParent")
	}
	w, err := Start(context.Background(), testBin(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Configure(Config{}); err != nil {
		t.Fatal(err)
	}
	h := &recorder{answer: func(c *Call) (Reply, error) {
		fmt.Printf("worker %d\n", w.Pid())
		return Return(nil), nil
	}}
	w.Feed(context.Background(), "f()\nwhile True:\n    pass\n", []NamedValue{{Name: "f", Value: Function{Name: "f"}}}, h)
}

// Kill ends the worker's whole process group, not only the child.
func TestKillEndsWorkerProcessGroup(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "grandchild")
	bin := filepath.Join(dir, "fake-monty")
	script := "#!/bin/sh\nsleep 300 &\necho $! > " + pidFile + ".tmp\nmv " + pidFile + ".tmp " + pidFile + "\nwait\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	// A script: the sandbox holds no shell to run it (inside it the PID
	// namespace ends the whole tree with the worker, see sandbox tests).
	w, err := StartWith(context.Background(), bin, StartOptions{NoSandbox: true})
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	for i := 0; i < 1000 && pid == 0; i++ {
		if b, err := os.ReadFile(pidFile); err == nil {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		} else {
			time.Sleep(10 * time.Millisecond)
		}
	}
	if pid == 0 {
		w.Kill()
		t.Fatal("the fake worker never started its child")
	}
	w.Kill()
	<-w.Exited()
	if !gone(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("the worker's child %d survived Kill", pid)
	}
}

// running reports whether pid is a live (not zombie) process.
func running(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] != 'Z' && s[i+2] != 'X'
}

// gone waits (up to 10 s, polling) for pid to stop running.
func gone(pid int) bool {
	for range 1000 {
		if !running(pid) {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

// Some allocations over the memory limit end the child instead of raising
// MemoryError; Feed says so with ErrMemoryLimit.
func TestMemoryLimitDeathIsTheMemoryLimit(t *testing.T) {
	w := newWorker(t, Config{Limits: Limits{MaxMemory: 20 << 20}})
	out, err := w.Feed(context.Background(), "x = {i: i for i in range(10**8)}\n", nil, &recorder{})
	if out != nil || !errors.Is(err, ErrDead) || !errors.Is(err, ErrMemoryLimit) {
		t.Fatalf("Feed = %+v, %v; want a dead worker with ErrMemoryLimit", out, err)
	}
}

// A worker that died before it was sent a snippet reports ErrNotStarted:
// nothing of the snippet ran, so it may be given to another worker.
func TestFeedToExitedWorkerNotStarted(t *testing.T) {
	w := newWorker(t, Config{})
	syscall.Kill(w.Pid(), syscall.SIGKILL)
	<-w.Exited()
	_, err := w.Feed(context.Background(), "print(1)", nil, &recorder{})
	if !errors.Is(err, ErrNotStarted) || !errors.Is(err, ErrDead) {
		t.Fatalf("err = %v", err)
	}
	// A worker that dies while it runs the snippet has started it.
	w = newWorker(t, Config{})
	h := &recorder{answer: func(c *Call) (Reply, error) {
		syscall.Kill(w.Pid(), syscall.SIGKILL)
		<-w.Exited()
		return Return(nil), nil
	}}
	_, err = w.Feed(context.Background(), "f()\n", []NamedValue{{Name: "f", Value: Function{Name: "f"}}}, h)
	if errors.Is(err, ErrNotStarted) || !errors.Is(err, ErrDead) {
		t.Fatalf("err = %v", err)
	}
}
