package monty

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/codemode-dev/codemode/internal/tail"

	"github.com/codemode-dev/codemode/runtime/sandbox"
	"google.golang.org/protobuf/encoding/protowire"
)

// Handler answers what a running program asks of the host. Feed calls it
// from the goroutine that called Feed, one request at a time.
type Handler interface {
	// Print receives the program's output, in order.
	Print(stream Stream, text string)
	// Call answers a call to a host Function. A non-nil error stops the
	// program: Feed aborts it at this call, where it cannot be caught
	// (an *Exception error chooses the exception it sees), and returns the
	// error.
	Call(ctx context.Context, c *Call) (Reply, error)
	// Lookup resolves a name the program read but never defined (object is
	// nil), or a lazy attribute of a host object (object is its id).
	// false means undefined: NameError, or AttributeError for an attribute.
	Lookup(name string, object *UUID) (Value, bool)
}

// OSHandler is implemented by a Handler that services OS calls
// (filesystem, os.getenv, clocks). Without it every OS call is declined
// with NotHandled.
type OSHandler interface {
	OSCall(ctx context.Context, c *OSCall) (Reply, error)
}

// FutureHandler is implemented by a Handler whose Call may answer
// Future(): the call then runs on the host while the program goes on, and
// Resolve is asked for the results when every task of the program waits
// on one. pending are the call ids the child waits on (ids restart each
// Feed); Resolve blocks until at least one of them is done and returns
// every one that is done, each answered like a call (Return or Raise). A
// non-nil error stops the program as Call's does.
type FutureHandler interface {
	Resolve(ctx context.Context, pending []uint32) ([]FutureResult, error)
}

// FutureResult is the outcome of one call answered with Future().
type FutureResult struct {
	ID    uint32
	Reply Reply
}

// CallSizer is implemented by a Handler that caps how much one call may
// hand the host: a FunctionCall whose encoded arguments exceed
// MaxCallSize bytes reaches Call with Args and Kwargs left undecoded (nil)
// and Call.Oversize set to its encoded size, so the handler can refuse it
// without the host ever holding the decoded values.
type CallSizer interface {
	MaxCallSize() int
}

// Funcs is a Handler built from functions; nil fields print nothing, answer
// calls NotFound and lookups undefined.
type Funcs struct {
	OnPrint  func(stream Stream, text string)
	OnCall   func(ctx context.Context, c *Call) (Reply, error)
	OnLookup func(name string, object *UUID) (Value, bool)
}

// Print implements Handler.
func (f Funcs) Print(stream Stream, text string) {
	if f.OnPrint != nil {
		f.OnPrint(stream, text)
	}
}

// Call implements Handler.
func (f Funcs) Call(ctx context.Context, c *Call) (Reply, error) {
	if f.OnCall != nil {
		return f.OnCall(ctx, c)
	}
	return NotFound(c.Name), nil
}

// Lookup implements Handler.
func (f Funcs) Lookup(name string, object *UUID) (Value, bool) {
	if f.OnLookup != nil {
		return f.OnLookup(name, object)
	}
	return nil, false
}

// Limit says which resource limit stopped a program.
type Limit string

// Limits reported in Outcome.Limit.
const (
	LimitTime   Limit = "time"
	LimitMemory Limit = "memory"
)

// Outcome is how a fed snippet ended. Exactly one of these holds: the
// snippet completed (Value, possibly nil for None), it raised (Exception),
// or type checking rejected it (TypingError, nothing ran).
type Outcome struct {
	Value     Value
	Exception *Exception
	// TypingError is the type checker's rendered diagnostics.
	TypingError string
	// Limit is set when Exception is a resource limit stopping the
	// program (uncatchably). The session must then be reset or discarded.
	Limit Limit
	// ExecTime is the session's cumulative sandbox execution time.
	ExecTime time.Duration
}

// OK reports whether the snippet completed.
func (o *Outcome) OK() bool { return o.Exception == nil && o.TypingError == "" }

// Worker is one `monty subprocess` child and its session. Its methods are
// not safe for concurrent use, except Kill, which may be called from any
// goroutine at any time.
type Worker struct {
	cmd    *exec.Cmd
	stdin  *os.File
	stdout *bufio.Reader
	outF   *os.File
	stderr *tail.Buffer

	exited  chan struct{} // closed when the process has been reaped
	waitErr error

	// maxMemory is the memory limit the session was configured with (0:
	// unknown or none), which a real memory limit error names.
	maxMemory uint64

	mu      sync.Mutex
	deadErr error // set once the worker can no longer be used
}

// ErrDead is wrapped by every error from a worker that can no longer be
// used (exited, killed, protocol desync).
var ErrDead = errors.New("monty worker is dead")

// ErrNotStarted is wrapped (with ErrDead) by Feed's error when the worker
// was dead before it received the snippet: nothing of it ran.
var ErrNotStarted = errors.New("the worker ended before it received the program")

// ErrMemoryLimit is wrapped (with ErrDead) when the child exited because an
// allocation would have crossed its memory limit: the memory limit, ending
// the worker rather than raising MemoryError.
var ErrMemoryLimit = errors.New("the program exceeded the memory limit")

var sandboxFailed = regexp.MustCompile(`(?m)^codemode sandbox: (.*)$`)

var allocOverLimit = regexp.MustCompile(`(?m)^monty worker: allocation of \d+ bytes exceeds the memory limit$`)

// Start spawns `bin subprocess` inside the OS sandbox (see package
// runtime/sandbox) with its default limits, an empty environment and no
// extra file descriptors. The worker has no session until Configure or
// Load. ctx only bounds the start; it does not bound the worker's life.
func Start(ctx context.Context, bin string) (*Worker, error) {
	return StartWith(ctx, bin, StartOptions{})
}

// StartOptions say how a worker is started.
type StartOptions struct {
	// NoSandbox starts the worker directly, outside the OS sandbox: Monty
	// is then the only wall between a program and the host.
	NoSandbox bool
	// Sandbox sets the sandbox's resource limits.
	Sandbox sandbox.Config
}

// StartWith is Start with options.
func StartWith(ctx context.Context, bin string, o StartOptions) (*Worker, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var cmd *exec.Cmd
	if o.NoSandbox {
		cmd = exec.Command(bin, "subprocess")
		cmd.Env = []string{}
		cmd.Dir = "/"
		// The child dies with this process (even when it is SIGKILLed) and
		// leads its own process group, which Kill and Close end as a whole.
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	} else {
		var err error
		// The sandbox sets the same parent-death signal and process group.
		if cmd, err = sandbox.Command(o.Sandbox, bin, "subprocess"); err != nil {
			return nil, fmt.Errorf("monty: %w: %w", sandbox.ErrSetup, err)
		}
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("monty: %w", err)
	}
	outR, outW, err := replyPipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("monty: %w", err)
	}
	w := &Worker{stderr: &tail.Buffer{Max: 4096}, exited: make(chan struct{})}
	cmd.Stdin = inR
	cmd.Stdout = outW
	cmd.Stderr = w.stderr
	err = cmd.Start()
	sandbox.ReleaseFiles(cmd)
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		if !o.NoSandbox {
			return nil, fmt.Errorf("monty: starting %s: %w (runtime.sandbox: none runs workers without it, unsafely)", bin, sandbox.StartError(err))
		}
		return nil, fmt.Errorf("monty: start %s: %w", bin, err)
	}
	inR.Close()
	outW.Close()
	w.cmd, w.stdin, w.outF, w.stdout = cmd, inW, outR, bufio.NewReaderSize(outR, 64<<10)
	go func() {
		w.waitErr = cmd.Wait()
		close(w.exited)
	}()
	return w, nil
}

// replyPipe is the pipe the child answers on. Its read end is a blocking
// descriptor, outside Go's poller: the goroutine that wrote a request then
// blocks in read(2) on its own thread, and the child's reply wakes that
// thread directly. Through the poller the reply woke whichever thread was
// polling, often on the other core, and the goroutine was handed to it: a
// host call's round trip took about twice as long, and varied more, on a
// two-core VM (BenchmarkCallOverhead's host-µs/call, median of eight
// alternated runs, 57 → 30 µs). Nothing interrupts such a read but the
// child's end closing, which Kill does by killing the child's process
// group (the sandboxed child starts no process of its own).
func replyPipe() (r, w *os.File, err error) {
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
		return nil, nil, err
	}
	return os.NewFile(uintptr(p[0]), "|0"), os.NewFile(uintptr(p[1]), "|1"), nil
}

// Pid is the child's process id.
func (w *Worker) Pid() int { return w.cmd.Process.Pid }

// Kill kills the child at once. The worker is unusable afterwards; a Feed
// in progress returns an error.
func (w *Worker) Kill() {
	w.markDead(fmt.Errorf("%w: killed", ErrDead))
	w.kill()
}

// kill sends SIGKILL to the child's process group (the child and anything
// it started), and to the child itself.
func (w *Worker) kill() {
	pid := w.cmd.Process.Pid
	select {
	case <-w.exited: // reaped: the pid may belong to another process now
		return
	default:
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	_ = w.cmd.Process.Kill()
}

// Close ends the worker: Shutdown if it is idle, then kill. It waits for the
// process to be reaped.
func (w *Worker) Close() error {
	if w.alive() == nil {
		// A child that does not answer the shutdown is killed.
		stuck := time.AfterFunc(time.Second, w.kill)
		defer stuck.Stop()
		if ev, err := w.request(msg(nil).bytes(reqShutdown, nil)); err == nil && ev.kind == evOk {
			select {
			case <-w.exited:
			case <-time.After(500 * time.Millisecond):
			}
		}
	}
	w.markDead(fmt.Errorf("%w: closed", ErrDead))
	w.destroy()
	return nil
}

// destroy kills the child, reaps it and releases the pipes.
func (w *Worker) destroy() {
	w.markDead(fmt.Errorf("%w: killed", ErrDead))
	w.kill()
	<-w.exited
	w.stdin.Close()
	w.outF.Close()
}

// Exited is closed when the child process has exited.
func (w *Worker) Exited() <-chan struct{} { return w.exited }

func (w *Worker) markDead(err error) {
	w.mu.Lock()
	if w.deadErr == nil {
		w.deadErr = err
	}
	w.mu.Unlock()
}

func (w *Worker) alive() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.deadErr
}

// fail marks the worker dead because of err and kills it.
func (w *Worker) fail(err error) error {
	w.markDead(fmt.Errorf("%w: %v", ErrDead, err))
	w.kill()
	return err
}

// exitError explains why reading from the child failed.
func (w *Worker) exitError(readErr error) error {
	if d := w.alive(); d != nil {
		return d
	}
	select {
	case <-w.exited:
	case <-time.After(time.Second):
	}
	status := "still running"
	select {
	case <-w.exited:
		status = "exit status 0"
		if w.waitErr != nil {
			status = w.waitErr.Error()
		}
	default:
	}
	msg := fmt.Sprintf("monty worker exited: %s (read: %v)", status, readErr)
	tail := strings.TrimSpace(w.stderr.String())
	if tail != "" {
		msg += "; stderr: " + tail
	}
	// The program cannot write to the child's stderr (its prints are
	// Print events): this line is the child's own, or the sandbox's.
	if m := sandboxFailed.FindStringSubmatch(tail); m != nil {
		return w.fail(fmt.Errorf("%w: monty: %w: %s (runtime.sandbox: none runs workers without it, unsafely)", ErrDead, sandbox.ErrSetup, m[1]))
	}
	if allocOverLimit.MatchString(tail) {
		return w.fail(fmt.Errorf("%w: %w: %s", ErrDead, ErrMemoryLimit, msg))
	}
	return w.fail(fmt.Errorf("%w: %s", ErrDead, msg))
}

func (w *Worker) send(req []byte) error {
	if err := w.alive(); err != nil {
		return err
	}
	if err := writeFrame(w.stdin, req); err != nil {
		return w.exitError(err)
	}
	return nil
}

func (w *Worker) recv() (event, error) {
	b, err := readFrame(w.stdout)
	if err != nil {
		return event{}, w.exitError(err)
	}
	ev, err := decodeEvent(b)
	if err != nil {
		return ev, w.fail(fmt.Errorf("monty: bad event from child: %w", err))
	}
	if ev.kind == evFatalError {
		m, _, _ := firstBytes(ev.body, 1)
		return ev, w.fail(fmt.Errorf("%w: monty worker fatal error: %s", ErrDead, m))
	}
	return ev, nil
}

// request sends req and reads events up to the turn end, dropping Prints.
func (w *Worker) request(req []byte) (event, error) {
	if err := w.send(req); err != nil {
		return event{}, err
	}
	for {
		ev, err := w.recv()
		if err != nil || ev.kind != evPrint {
			return ev, err
		}
	}
}

// expectOK turns a non-Ok reply into an error.
func expectOK(what string, ev event) error {
	switch ev.kind {
	case evOk:
		return nil
	case evError:
		b, _, _ := firstBytes(ev.body, 1)
		e, err := decodeException(b)
		if err != nil {
			return fmt.Errorf("monty: %s: bad Error event: %w", what, err)
		}
		return fmt.Errorf("monty: %s: %w", what, e)
	}
	return fmt.Errorf("monty: %s: unexpected event %d", what, ev.kind)
}

// Configure creates the worker's session.
func (w *Worker) Configure(c Config) error {
	req, err := c.encode()
	if err != nil {
		return err
	}
	ev, err := w.request(req)
	if err != nil {
		return err
	}
	w.maxMemory = c.Limits.MaxMemory
	return expectOK("configure", ev)
}

// Reset drops the session; the worker then takes Configure or Load again.
func (w *Worker) Reset() error {
	ev, err := w.request(msg(nil).bytes(reqReset, nil))
	if err != nil {
		return err
	}
	return expectOK("reset", ev)
}

// Dump returns an opaque snapshot of the idle session, for Load in another
// worker built from the same binary.
func (w *Worker) Dump() ([]byte, error) {
	ev, err := w.request(msg(nil).bytes(reqDump, nil))
	if err != nil {
		return nil, err
	}
	if ev.kind != evDumpResult {
		return nil, expectOK("dump", ev)
	}
	b, _, err := firstBytes(ev.body, 1)
	if err != nil {
		return nil, fmt.Errorf("monty: dump: %w", err)
	}
	return append([]byte{}, b...), nil
}

// Load restores a session from Dump into a worker that has none (not
// configured, or Reset).
func (w *Worker) Load(state []byte) error {
	ev, err := w.request(msg(nil).bytes(reqLoad, msg(nil).bytes(1, state)))
	if err != nil {
		return err
	}
	if ev.kind != evOk {
		if ev.kind >= evFunctionCall && ev.kind <= evResolveFutures {
			return w.fail(errors.New("monty: load: the state was dumped while suspended; only idle sessions are supported"))
		}
		return expectOK("load", ev)
	}
	return nil
}

// Feed runs one snippet to its end, answering its host requests through h.
// inputs bind global names for this snippet (host objects such as `api`).
//
// The returned error is non-nil when the program could not be run to a
// Python-level end: the worker died or was killed (ErrDead), ctx was
// cancelled (the worker is killed), or h returned an error (the program is
// aborted at its suspended call and the Outcome holding the abort exception
// is returned with the error; the session survives). A Python exception,
// a resource limit and a type-check failure are Outcomes, not errors. A
// request the child refuses ("protocol violation: ...") is an error that
// leaves the worker usable.
func (w *Worker) Feed(ctx context.Context, code string, inputs []NamedValue, h Handler) (*Outcome, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var f msg
	f = f.str(1, code)
	for _, in := range inputs {
		b, err := encodeValue(in.Value)
		if err != nil {
			return nil, fmt.Errorf("monty: input %s: %w", in.Name, err)
		}
		f = f.bytes(2, msg(nil).str(1, in.Name).bytes(2, b))
	}
	stop := context.AfterFunc(ctx, func() {
		w.markDead(fmt.Errorf("%w: %w", ErrDead, context.Cause(ctx)))
		w.kill()
	})
	defer stop()
	out, err := w.feed(ctx, msg(nil).bytes(reqFeed, f), h)
	if err != nil && ctx.Err() != nil {
		return nil, fmt.Errorf("monty: program stopped: %w", context.Cause(ctx))
	}
	return out, err
}

func (w *Worker) feed(ctx context.Context, req []byte, h Handler) (*Outcome, error) {
	var abortErr error
	for first := true; ; first = false {
		if err := w.send(req); err != nil {
			if first {
				return nil, fmt.Errorf("%w: %w", ErrNotStarted, err)
			}
			return nil, err
		}
		ev, err := w.recv()
		for err == nil && ev.kind == evPrint {
			streams, texts, perr := printSegments(ev.body)
			if perr != nil {
				return nil, w.fail(fmt.Errorf("monty: bad Print event: %w", perr))
			}
			for i := range texts {
				h.Print(streams[i], texts[i])
			}
			ev, err = w.recv()
		}
		if err != nil {
			return nil, err
		}
		var reply Reply
		var herr error
		switch ev.kind {
		case evComplete:
			out := &Outcome{ExecTime: time.Duration(ev.totalMicros) * time.Microsecond}
			if b, ok, err := firstBytes(ev.body, 1); err != nil {
				return nil, w.fail(fmt.Errorf("monty: bad Complete event: %w", err))
			} else if ok {
				if out.Value, err = decodeValue(b, 0); err != nil {
					return nil, w.fail(fmt.Errorf("monty: bad Complete value: %w", err))
				}
			}
			return out, abortErr
		case evError:
			b, _, err := firstBytes(ev.body, 1)
			var e *Exception
			if err == nil {
				e, err = decodeException(b)
			}
			if err != nil {
				return nil, w.fail(fmt.Errorf("monty: bad Error event: %w", err))
			}
			if len(e.Traceback) == 0 && strings.HasPrefix(e.Message, "protocol violation:") {
				// The child refused the request and stayed where it was.
				return nil, fmt.Errorf("monty: %s", e.Message)
			}
			out := &Outcome{Exception: e, Limit: limitOf(e, w.maxMemory), ExecTime: time.Duration(ev.totalMicros) * time.Microsecond}
			if abortErr != nil {
				out.Limit = ""
			}
			return out, abortErr
		case evTypingError:
			b, _, err := firstBytes(ev.body, 1)
			if err != nil {
				return nil, w.fail(fmt.Errorf("monty: bad TypingError event: %w", err))
			}
			return &Outcome{TypingError: string(b), ExecTime: time.Duration(ev.totalMicros) * time.Microsecond}, abortErr
		case evFunctionCall:
			var c *Call
			var err error
			if cs, ok := h.(CallSizer); ok && cs.MaxCallSize() > 0 && len(ev.body) > cs.MaxCallSize() {
				c, err = decodeCallHead(ev.body)
			} else {
				c, err = decodeCall(ev.body)
			}
			if err != nil {
				return nil, w.fail(fmt.Errorf("monty: bad FunctionCall event: %w", err))
			}
			reply, herr = h.Call(ctx, c)
			if herr == nil && reply.IsFuture() {
				if _, ok := h.(FutureHandler); !ok {
					herr = errors.New("monty: the handler answered a call with a future but cannot resolve futures")
				}
			}
			if herr == nil {
				req, herr = resumeCall(c.ID, reply)
			}
		case evOsCall:
			c, err := decodeOSCall(ev.body)
			if err != nil {
				return nil, w.fail(fmt.Errorf("monty: bad OsCall event: %w", err))
			}
			reply = NotHandled()
			if oh, ok := h.(OSHandler); ok {
				reply, herr = oh.OSCall(ctx, c)
			}
			if herr == nil {
				req, herr = resumeCall(c.ID, reply)
			}
		case evNameLookup:
			name, obj, err := decodeLookup(ev.body)
			if err != nil {
				return nil, w.fail(fmt.Errorf("monty: bad NameLookup event: %w", err))
			}
			var r msg
			if v, ok := h.Lookup(name, obj); ok {
				b, err := encodeValue(v)
				if err != nil {
					herr = fmt.Errorf("monty: lookup %s: %w", name, err)
				} else {
					r = r.bytes(1, b)
				}
			} else {
				r = r.bytes(2, nil)
			}
			req = msg(nil).bytes(reqResumeName, r)
		case evResolveFutures:
			pending, err := decodePending(ev.body)
			if err != nil {
				return nil, w.fail(fmt.Errorf("monty: bad ResolveFutures event: %w", err))
			}
			fh, ok := h.(FutureHandler)
			if !ok {
				return nil, w.fail(errors.New("monty: child asked to resolve futures, which this handler never creates"))
			}
			var results []FutureResult
			results, herr = fh.Resolve(ctx, pending)
			if herr == nil {
				req, herr = resumeFutures(results)
			}
		default:
			return nil, w.fail(fmt.Errorf("monty: unexpected event %d during a feed", ev.kind))
		}
		if herr == nil {
			herr = ctx.Err()
		}
		if herr != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if abortErr != nil { // abort refused: give up on the worker
				return nil, w.fail(abortErr)
			}
			abortErr = fmt.Errorf("monty: program stopped: %w", herr)
			exc := &Exception{Type: "RuntimeError", Message: herr.Error(), HasMessage: true}
			var pe *Exception
			if errors.As(herr, &pe) {
				exc = pe
			}
			req = msg(nil).bytes(reqAbortFeed, msg(nil).bytes(1, exc.encode()))
		}
	}
}

func resumeFutures(results []FutureResult) ([]byte, error) {
	if len(results) == 0 {
		return nil, errors.New("monty: no future was resolved")
	}
	var m msg
	for _, fr := range results {
		if fr.Reply.IsFuture() {
			return nil, fmt.Errorf("monty: future %d resolved with another future", fr.ID)
		}
		b, err := fr.Reply.encode()
		if err != nil {
			return nil, err
		}
		m = m.bytes(1, msg(nil).varint(1, uint64(fr.ID)).bytes(2, b))
	}
	return msg(nil).bytes(reqResumeFut, m), nil
}

// decodePending decodes the call ids of a ResolveFutures event (packed or
// not).
func decodePending(b []byte) ([]uint32, error) {
	var ids []uint32
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, protowire.ParseError(n)
		}
		b = b[n:]
		switch {
		case num == 1 && typ == protowire.VarintType:
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return nil, protowire.ParseError(n)
			}
			ids, b = append(ids, uint32(v)), b[n:]
		case num == 1 && typ == protowire.BytesType:
			p, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return nil, protowire.ParseError(n)
			}
			b = b[n:]
			for len(p) > 0 {
				v, k := protowire.ConsumeVarint(p)
				if k < 0 {
					return nil, protowire.ParseError(k)
				}
				ids, p = append(ids, uint32(v)), p[k:]
			}
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return nil, protowire.ParseError(n)
			}
			b = b[n:]
		}
	}
	return ids, nil
}

func resumeCall(id uint32, r Reply) ([]byte, error) {
	b, err := r.encodeFor(id)
	if err != nil {
		return nil, err
	}
	return msg(nil).bytes(reqResumeCall, msg(nil).varint(1, uint64(id)).bytes(2, b)), nil
}

// limitOf recognises the uncatchable errors the child raises when a
// resource limit is exceeded, which a program raising TimeoutError or
// MemoryError itself with the same message must not pass for: the child
// raises a time limit with no traceback, and a memory limit with none or
// with the frame of the allocation that crossed it; a program's own
// exception comes from a raise statement, whose innermost frame the child
// marks HideCaret. The message must also have the child's exact form (and
// name the worker's configured limit, when it is known).
func limitOf(e *Exception, maxMemory uint64) Limit {
	if n := len(e.Traceback); n > 0 && e.Traceback[n-1].HideCaret {
		return ""
	}
	switch {
	case e.Type == "TimeoutError" && len(e.Traceback) == 0 && timeLimitMsg.MatchString(e.Message):
		return LimitTime
	case e.Type == "MemoryError":
		m := memLimitMsg.FindStringSubmatch(e.Message)
		if m == nil || maxMemory > 0 && m[1] != strconv.FormatUint(maxMemory, 10) {
			return ""
		}
		return LimitMemory
	}
	return ""
}

var (
	timeLimitMsg = regexp.MustCompile(`^time limit exceeded: \S+ > \S+$`)
	memLimitMsg  = regexp.MustCompile(`^memory limit exceeded: \d+ bytes > (\d+) bytes$`)
)
