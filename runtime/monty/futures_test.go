package monty

import (
	"context"
	"strings"
	"sync"
	"testing"
)

// futureRecorder answers every call with a future and resolves the pending
// ones in the order given by release (all at once when nil).
type futureRecorder struct {
	mu      sync.Mutex
	calls   []*Call
	out     strings.Builder
	batches [][]uint32
	answer  func(c *Call) Reply
	pending map[uint32]*Call
}

func (f *futureRecorder) Print(_ Stream, text string) { f.out.WriteString(text) }
func (f *futureRecorder) Lookup(string, *UUID) (Value, bool) {
	return nil, false
}

func (f *futureRecorder) Call(_ context.Context, c *Call) (Reply, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, c)
	if f.pending == nil {
		f.pending = map[uint32]*Call{}
	}
	f.pending[c.ID] = c
	return Future(), nil
}

func (f *futureRecorder) Resolve(_ context.Context, pending []uint32) ([]FutureResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.batches = append(f.batches, pending)
	var out []FutureResult
	for _, id := range pending {
		out = append(out, FutureResult{ID: id, Reply: f.answer(f.pending[id])})
		delete(f.pending, id)
	}
	return out, nil
}

const asyncStubs = `class _svc:
    async def echo(self, x: int) -> int: ...

class _api:
    svc: _svc

api: _api
`

func asyncInputs() []NamedValue {
	svc := NewInstance("_svc", Attr{"echo", Function{Name: "svc.echo"}})
	return []NamedValue{{"api", NewInstance("_api", Attr{"svc", svc})}}
}

func echoOrRaise(c *Call) Reply {
	x, _ := c.Kwarg("x")
	if x == int64(3) {
		return Raise("ValueError", "three")
	}
	return Return(x.(int64) * 10)
}

// TestGatherResolvesFuturesTogether pins the futures protocol: calls
// answered with Future() all start before the program waits, the child
// asks for all of them in one ResolveFutures, and a raised result reaches
// the program at its await, catchably.
func TestGatherResolvesFuturesTogether(t *testing.T) {
	w := newWorker(t, Config{ScriptName: "prog.py", TypeCheck: true, TypeCheckStubs: asyncStubs, TypeCheckFormat: "concise"})
	h := &futureRecorder{answer: echoOrRaise}
	code := `import asyncio
async def main():
    rs = await asyncio.gather(api.svc.echo(x=1), api.svc.echo(x=2), api.svc.echo(x=4))
    print(rs)
    try:
        await api.svc.echo(x=3)
    except ValueError as e:
        print("caught", e)
asyncio.run(main())
`
	out := feed(t, w, code, asyncInputs(), h)
	mustOK(t, out)
	if got, want := h.out.String(), "[10, 20, 40]\ncaught three\n"; got != want {
		t.Fatalf("output %q, want %q", got, want)
	}
	if len(h.batches) != 2 || len(h.batches[0]) != 3 || len(h.batches[1]) != 1 {
		t.Fatalf("resolve batches %v, want three ids then one", h.batches)
	}
}

// TestAsyncStubRejectsMissingAwait: with async stubs the type checker
// refuses using an un-awaited call's result as its value.
func TestAsyncStubRejectsMissingAwait(t *testing.T) {
	w := newWorker(t, Config{ScriptName: "prog.py", TypeCheck: true, TypeCheckStubs: asyncStubs, TypeCheckFormat: "concise"})
	h := &futureRecorder{answer: echoOrRaise}
	out := feed(t, w, "y: int = api.svc.echo(x=1)\n", asyncInputs(), h)
	if out.TypingError == "" || len(h.calls) != 0 {
		t.Fatalf("want a typing error and no call, got %+v (%d calls)", out, len(h.calls))
	}
	out = feed(t, w, "api.svc.echo(x='a')\n", asyncInputs(), h)
	if out.TypingError == "" {
		t.Fatalf("want a typing error for a str argument, got %+v", out)
	}
}

// TestFutureWithoutResolverRefused: a handler that answers Future() but
// cannot resolve futures stops the program with a clear error.
func TestFutureWithoutResolverRefused(t *testing.T) {
	w := newWorker(t, Config{})
	h := &recorder{answer: func(*Call) (Reply, error) { return Future(), nil }}
	_, err := w.Feed(context.Background(), "import asyncio\nasync def m():\n    await f()\nasyncio.run(m())\n", []NamedValue{{"f", Function{Name: "f"}}}, h)
	if err == nil || !strings.Contains(err.Error(), "cannot resolve futures") {
		t.Fatalf("err = %v", err)
	}
}
