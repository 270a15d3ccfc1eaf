// Package audit keeps the runtime's audit log: an append-only JSONL file
// in which every line is one runtime.Event plus its position in a hash
// chain.
//
// Each line is a JSON object holding "seq" (1, 2, 3, ...), "prev" (the hash
// of the line before it; "" for the first), the event's fields, and last
// "hash": the sha256 of the line's bytes up to the hash field with the
// closing brace put back, that is, of
//
//	{"seq":N,"prev":"sha256:...",...event fields...}
//
// Editing a line breaks its own hash; deleting or reordering lines breaks
// the next line's prev and seq, so [Verify] names the first line that does
// not fit. Dropping whole lines from the end cannot be seen from the file
// alone: [Verify] returns the count and the head hash, which an operator can
// keep elsewhere to compare later.
package audit

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/codemode-dev/codemode/runtime"
)

// Log appends events to an audit file. It implements runtime.Auditor and is
// safe for concurrent use.
type Log struct {
	mu   sync.Mutex
	f    *os.File
	path string
	seq  int
	prev string
}

var _ runtime.Auditor = (*Log)(nil)

// Open opens (or creates) the audit file at path for appending. An existing
// file is verified first: appending to a broken chain would hide where it
// broke, so Open fails and names the bad line.
func Open(path string) (*Log, error) {
	res, err := Verify(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	return &Log{f: f, path: path, seq: res.Events, prev: res.Head}, nil
}

// line is the fixed head of every line; the event's own fields follow.
type line struct {
	Seq  int    `json:"seq"`
	Prev string `json:"prev"`
	runtime.Event
}

// Record appends one event and syncs it to disk.
func (l *Log) Record(ev runtime.Event) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return errors.New("audit: log is closed")
	}
	body, err := marshal(line{Seq: l.seq + 1, Prev: l.prev, Event: ev})
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	hash := digest(body)
	out := make([]byte, 0, len(body)+len(hash)+12)
	out = append(out, body[:len(body)-1]...)
	out = append(out, `,"hash":"`...)
	out = append(out, hash...)
	out = append(out, "\"}\n"...)
	if _, err := l.f.Write(out); err != nil {
		return fmt.Errorf("audit: writing %s: %w", l.path, err)
	}
	if err := l.f.Sync(); err != nil {
		return fmt.Errorf("audit: syncing %s: %w", l.path, err)
	}
	l.seq++
	l.prev = hash
	return nil
}

// Close closes the file.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Result is what Verify found in a sound file.
type Result struct {
	Events int    // number of lines (events)
	Head   string // hash of the last line; "" for an empty file
}

// LineError names the first line of a file that breaks the chain.
type LineError struct {
	Line   int // 1-based
	Reason string
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Reason) }

// hashTail is what ends every line: ,"hash":"sha256:<64 hex>"}
const hashTail = len(`,"hash":"sha256:`) + 64 + len(`"}`)

// Verify checks the whole chain of the audit file at path. It returns the
// number of events and the head hash, or a *LineError naming the first line
// that was edited, moved, or follows a deleted line (or an I/O error).
func Verify(path string) (Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return Result{}, err
	}
	defer f.Close()
	return VerifyReader(f)
}

// VerifyReader is Verify over a reader.
func VerifyReader(r io.Reader) (Result, error) {
	br := bufio.NewReader(r)
	var res Result
	for n := 1; ; n++ {
		raw, err := br.ReadBytes('\n')
		if len(raw) == 0 && err == io.EOF {
			return res, nil
		}
		if err != nil && err != io.EOF {
			return res, err
		}
		if err == io.EOF {
			return res, &LineError{n, "the line is cut short (no newline): the file was truncated or is being written"}
		}
		b := raw[:len(raw)-1]
		if len(b) < hashTail || !bytes.HasPrefix(b[len(b)-hashTail:], []byte(`,"hash":"sha256:`)) || !bytes.HasSuffix(b, []byte(`"}`)) {
			return res, &LineError{n, "not an audit line: it does not end with its hash"}
		}
		body := append(append([]byte(nil), b[:len(b)-hashTail]...), '}')
		want := string(b[len(b)-hashTail+len(`,"hash":"`) : len(b)-2])
		if got := digest(body); got != want {
			return res, &LineError{n, "edited: the line's content does not match its hash"}
		}
		var head struct {
			Seq  *int    `json:"seq"`
			Prev *string `json:"prev"`
		}
		if err := json.Unmarshal(body, &head); err != nil || head.Seq == nil || head.Prev == nil {
			return res, &LineError{n, "not an audit line: no seq or prev"}
		}
		if *head.Prev != res.Head && n == 1 {
			return res, &LineError{n, "chain broken: the first line's prev is not empty (lines before it were deleted)"}
		}
		if *head.Prev != res.Head {
			return res, &LineError{n, fmt.Sprintf("chain broken: prev does not match the hash of line %d (a line before it was deleted, inserted or moved)", n-1)}
		}
		if *head.Seq != n {
			return res, &LineError{n, fmt.Sprintf("sequence broken: seq %d at line %d", *head.Seq, n)}
		}
		res.Events = n
		res.Head = want
	}
}
