// Package tail keeps the last bytes a child process wrote: the one tail
// of a Monty worker's and an MCP server's stderr, which error messages
// quote.
package tail

import "sync"

// Buffer is an io.Writer that keeps the last Max bytes written to it. It
// is safe for concurrent use; the zero value keeps nothing.
type Buffer struct {
	Max int

	mu sync.Mutex
	b  []byte
}

// Write keeps p's last bytes; it never fails.
func (t *Buffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(p) >= t.Max {
		t.b = append(t.b[:0], p[len(p)-t.Max:]...)
		return len(p), nil
	}
	if len(t.b)+len(p) > t.Max {
		keep := t.Max - len(p)
		copy(t.b, t.b[len(t.b)-keep:])
		t.b = t.b[:keep]
	}
	t.b = append(t.b, p...)
	return len(p), nil
}

// String is what is kept.
func (t *Buffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
