package monty

import (
	"context"
	"strings"
	"sync"
	"testing"
)

// testBin returns the real monty binary or fails the test: these tests
// never run without it.
func testBin(tb testing.TB) string {
	tb.Helper()
	bin, err := FindBinary()
	if err != nil {
		tb.Fatalf("the monty binary is required (run `npm ci` in tools/npm): %v", err)
	}
	return bin
}

// newWorker starts and configures a worker that the test closes.
func newWorker(tb testing.TB, cfg Config) *Worker {
	tb.Helper()
	w, err := Start(context.Background(), testBin(tb))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { w.Close() })
	if err := w.Configure(cfg); err != nil {
		tb.Fatal(err)
	}
	return w
}

// recorder is a Handler that records prints and calls and answers calls
// from a table.
type recorder struct {
	mu      sync.Mutex
	out     strings.Builder
	calls   []*Call
	lookups []string
	answer  func(c *Call) (Reply, error)
	names   map[string]Value
}

func (r *recorder) Print(stream Stream, text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if stream != Stdout {
		r.out.WriteString("[" + stream.String() + "]")
	}
	r.out.WriteString(text)
}

func (r *recorder) Call(ctx context.Context, c *Call) (Reply, error) {
	r.mu.Lock()
	r.calls = append(r.calls, c)
	r.mu.Unlock()
	if r.answer == nil {
		return NotFound(c.Name), nil
	}
	return r.answer(c)
}

func (r *recorder) Lookup(name string, object *UUID) (Value, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lookups = append(r.lookups, name)
	v, ok := r.names[name]
	return v, ok
}

func (r *recorder) output() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.out.String()
}

// feed runs code and fails the test on a driver error.
func feed(tb testing.TB, w *Worker, code string, inputs []NamedValue, h Handler) *Outcome {
	tb.Helper()
	out, err := w.Feed(context.Background(), code, inputs, h)
	if err != nil {
		tb.Fatalf("Feed: %v", err)
	}
	return out
}

// mustOK fails unless the outcome completed.
func mustOK(tb testing.TB, out *Outcome) {
	tb.Helper()
	if out.Exception != nil {
		tb.Fatalf("program raised:\n%s", out.Exception.Format())
	}
	if out.TypingError != "" {
		tb.Fatalf("type check failed:\n%s", out.TypingError)
	}
}
