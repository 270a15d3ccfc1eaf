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
// With a key (Options.Key, from CODEMODE_AUDIT_KEY) the hash is an
// HMAC-SHA256 ("hmac-sha256:..."), so whoever edits the file cannot re-hash
// the chain to hide it without the key.
//
// Editing a line breaks its own hash; deleting or reordering lines breaks
// the next line's prev and seq, so [Verify] names every line that does not
// fit. Dropping whole lines from the end cannot be seen from the file alone:
// [Verify] returns the count and the head hash, which an operator can keep
// elsewhere and compare later (VerifyOptions.Head).
//
// Several processes may append to one file: every append takes an OS lock
// on the file (flock) and re-reads the file's last line under it, so the
// chain runs through every writer's events. A chain found broken when a log
// opens, or a last line that is not sound when appending, does not stop
// the log: it is reported (Options.Warn) and recorded as a "break" event,
// and the log goes on after it (a new chain, seq 1, when the last line
// itself is not sound). The verifier still reports every broken line.
package audit

import (
	"bufio"
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/codemode-dev/codemode/runtime"
)

// KeyEnv is the environment variable that holds the audit log's HMAC key.
const KeyEnv = "CODEMODE_AUDIT_KEY"

// KeyFromEnv returns the key in $CODEMODE_AUDIT_KEY, or nil when it is
// unset or empty.
func KeyFromEnv() []byte {
	if v := os.Getenv(KeyEnv); v != "" {
		return []byte(v)
	}
	return nil
}

// Options configure a Log.
type Options struct {
	// Key, when set, makes every line's hash an HMAC-SHA256 with this key.
	Key []byte
	// Warn is told, in one line, of a chain found broken; the break is also
	// recorded in the log. nil discards the message.
	Warn func(msg string)
}

// Log appends events to an audit file. It implements runtime.Auditor and is
// safe for concurrent use, also by several processes on one file.
type Log struct {
	mu   sync.Mutex
	f    *os.File
	path string
	opt  Options

	// The chain's tail as this Log last saw it; size is the file's size
	// then (-1: unknown), so an append by another process is noticed.
	size    int64
	seq     int
	prev    string
	tailBad string // why the file's last line is not sound; "" if it is
	warned  string // the last tailBad reported, so a full disk warns once
	pending string // a break found at open, not yet written
}

var _ runtime.Auditor = (*Log)(nil)

// Open opens (or creates) the audit file at path for appending, with no
// key and no warnings.
func Open(path string) (*Log, error) { return OpenWith(path, Options{}) }

// OpenWith opens (or creates) the audit file at path for appending. An
// existing file is verified first; problems not already recorded by an
// earlier break event are reported to o.Warn and recorded as a "break"
// event, and the log goes on.
func OpenWith(path string, o Options) (*Log, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	l := &Log{f: f, path: path, opt: o, size: -1}
	if err := l.lock(); err != nil {
		f.Close()
		return nil, err
	}
	defer l.unlock()
	size, regular, err := l.stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !regular || size == 0 {
		return l, nil
	}
	res, err := VerifyReaderWith(io.NewSectionReader(f, 0, size), VerifyOptions{Key: o.Key})
	var le *LineError
	if err != nil && !errors.As(err, &le) {
		f.Close()
		return nil, fmt.Errorf("audit: reading %s: %w", path, err)
	}
	var fresh []LineError
	for _, p := range res.Problems {
		if p.Line > res.lastBreak {
			fresh = append(fresh, p)
		}
	}
	if len(fresh) == 0 {
		return l, nil
	}
	msg := fmt.Sprintf("the chain is broken at %d line%s, first line %d: %s; the log goes on after %s",
		len(fresh), plural(len(fresh)), fresh[0].Line, fresh[0].Reason, them(len(fresh)))
	l.warn(msg)
	// Recorded now, or else before the next event (a full disk must not
	// stop the start: the calls fail closed instead).
	l.pending = msg
	_ = l.appendLocked(size)
	return l, nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func them(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

func (l *Log) warn(msg string) {
	if l.opt.Warn != nil {
		l.opt.Warn(l.path + ": " + msg)
	}
}

func (l *Log) lock() error {
	for {
		err := unix.Flock(int(l.f.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			if err != nil {
				return fmt.Errorf("audit: locking %s: %w", l.path, err)
			}
			return nil
		}
	}
}

func (l *Log) unlock() { _ = unix.Flock(int(l.f.Fd()), unix.LOCK_UN) }

// stat returns the file's size and whether it is a regular file (a device
// such as /dev/full has no tail to read).
func (l *Log) stat() (int64, bool, error) {
	st, err := l.f.Stat()
	if err != nil {
		return 0, false, fmt.Errorf("audit: %w", err)
	}
	if !st.Mode().IsRegular() {
		return 0, false, nil
	}
	return st.Size(), true, nil
}

// line is the fixed head of every line; the event's own fields follow.
type line struct {
	Seq  int    `json:"seq"`
	Prev string `json:"prev"`
	runtime.Event
}

// Record appends one event and syncs it to disk. When it returns an error
// the event is not in the file.
func (l *Log) Record(ev runtime.Event) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return errors.New("audit: log is closed")
	}
	if err := l.lock(); err != nil {
		return err
	}
	defer l.unlock()
	size, _, err := l.stat()
	if err != nil {
		return err
	}
	// No event balloons the log, whoever built it.
	ev.Message = runtime.CapText(ev.Message, runtime.AuditMessageCap)
	ev.Tool = runtime.CapText(ev.Tool, 1<<10)
	return l.appendLocked(size, ev)
}

// appendLocked appends events, under the file lock, to a file of this size:
// after the chain's last line (re-read when another process appended), or
// after a break event starting a new chain when that line is not sound.
// A break found at open and not yet written goes first.
func (l *Log) appendLocked(size int64, events ...runtime.Event) error {
	if size != l.size {
		l.readTail(size)
	}
	var evs []runtime.Event
	if l.pending != "" {
		evs = append(evs, breakEvent(l.pending))
	}
	evs = append(evs, events...)
	var out []byte
	seq, prev := l.seq, l.prev
	if l.tailBad != "" {
		if !l.endsWithNewline(size) {
			out = append(out, '\n')
		}
		msg := "the file's last line is not sound (" + l.tailBad + "); a new chain starts here"
		if l.warned != msg {
			l.warn(msg)
			l.warned = msg
		}
		seq, prev = 0, ""
		evs = append([]runtime.Event{breakEvent(msg)}, evs...)
	}
	for _, e := range evs {
		b, hash, err := encodeLine(l.opt.Key, seq+1, prev, e)
		if err != nil {
			return err
		}
		out = append(out, b...)
		seq, prev = seq+1, hash
	}
	if _, err := l.f.Write(out); err != nil {
		l.undo(size)
		return fmt.Errorf("audit: writing %s: %w", l.path, err)
	}
	if err := l.f.Sync(); err != nil {
		l.undo(size)
		return fmt.Errorf("audit: syncing %s: %w", l.path, err)
	}
	l.size, l.seq, l.prev, l.tailBad, l.pending = size+int64(len(out)), seq, prev, "", ""
	return nil
}

func breakEvent(msg string) runtime.Event {
	return runtime.Event{Time: time.Now().UTC(), Kind: "break", Status: runtime.StatusBroken, Message: msg}
}

// undo cuts a failed append (a part of it may have been written) off the
// file, so the file stays sound.
func (l *Log) undo(size int64) {
	if _, regular, err := l.stat(); err == nil && regular {
		_ = l.f.Truncate(size)
	}
	l.size = -1
}

// encodeLine is one event's line, with its newline, and its hash.
func encodeLine(key []byte, seq int, prev string, ev runtime.Event) ([]byte, string, error) {
	body, err := marshal(line{Seq: seq, Prev: prev, Event: ev})
	if err != nil {
		return nil, "", fmt.Errorf("audit: %w", err)
	}
	hash := sign(body, key)
	out := make([]byte, 0, len(body)+len(hash)+12)
	out = append(out, body[:len(body)-1]...)
	out = append(out, `,"hash":"`...)
	out = append(out, hash...)
	out = append(out, "\"}\n"...)
	return out, hash, nil
}

// readTail sets the chain's tail from the file's last line.
func (l *Log) readTail(size int64) {
	l.seq, l.prev, l.tailBad = 0, "", ""
	if size <= 0 {
		return
	}
	b, err := lastLine(l.f, size)
	if err != nil {
		l.tailBad = err.Error()
		return
	}
	c, reason := checkLine(b, l.opt.Key)
	if reason != "" {
		l.tailBad = reason
		return
	}
	l.seq, l.prev = *c.Seq, c.hash
}

func (l *Log) endsWithNewline(size int64) bool {
	var b [1]byte
	_, err := l.f.ReadAt(b[:], size-1)
	return err != nil || b[0] == '\n'
}

// lastLine returns the file's last line without its newline.
func lastLine(f *os.File, size int64) ([]byte, error) {
	var b [1]byte
	if _, err := f.ReadAt(b[:], size-1); err != nil {
		return nil, err
	}
	if b[0] != '\n' {
		return nil, errors.New("the line is cut short (no newline)")
	}
	// buf holds the bytes [pos, size-1), read backwards in chunks until
	// the newline before the last line.
	var buf []byte
	const chunk = 64 << 10
	for pos := size - 1; pos > 0; {
		n := min(int64(chunk), pos)
		pos -= n
		part := make([]byte, n)
		if _, err := f.ReadAt(part, pos); err != nil {
			return nil, err
		}
		buf = append(part, buf...)
		if i := bytes.LastIndexByte(part, '\n'); i >= 0 {
			return buf[i+1:], nil
		}
	}
	return buf, nil
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

// sign is a line body's hash: sha256, or HMAC-SHA256 with a key.
func sign(b, key []byte) string {
	if key == nil {
		sum := sha256.Sum256(b)
		return "sha256:" + hex.EncodeToString(sum[:])
	}
	m := hmac.New(sha256.New, key)
	m.Write(b)
	return "hmac-sha256:" + hex.EncodeToString(m.Sum(nil))
}

// checked is what a sound line says of itself.
type checked struct {
	Seq     *int    `json:"seq"`
	Prev    *string `json:"prev"`
	Kind    string  `json:"kind"`
	Run     string  `json:"run"`
	Session string  `json:"session"`
	Call    int     `json:"call"`
	Tool    string  `json:"tool"`
	hash    string
}

const hashKey = `,"hash":"`

// checkLine checks one line (without its newline) against its own hash and
// returns its head, or why it is not sound.
func checkLine(b, key []byte) (c checked, reason string) {
	i := bytes.LastIndex(b, []byte(hashKey))
	if i < 0 || !bytes.HasSuffix(b, []byte(`"}`)) {
		return c, "not an audit line: it does not end with its hash"
	}
	want := string(b[i+len(hashKey) : len(b)-2])
	scheme, hexed, _ := strings.Cut(want, ":")
	if (scheme != "sha256" && scheme != "hmac-sha256") || len(hexed) != 64 {
		return c, "not an audit line: it does not end with its hash"
	}
	if scheme == "hmac-sha256" && key == nil {
		return c, "signed with a key: set " + KeyEnv + " to verify it"
	}
	if scheme == "sha256" && key != nil {
		return c, "not signed with the key (a plain sha256): written without " + KeyEnv + ", or re-hashed"
	}
	body := append(append(make([]byte, 0, i+1), b[:i]...), '}')
	if sign(body, key) != want {
		if key != nil {
			return c, "edited: the line's content does not match its HMAC (or it was signed with another key)"
		}
		return c, "edited: the line's content does not match its hash"
	}
	if err := json.Unmarshal(body, &c); err != nil || c.Seq == nil || c.Prev == nil {
		return c, "not an audit line: no seq or prev"
	}
	c.hash = want
	return c, ""
}

// Result is what Verify found.
type Result struct {
	Events int    // number of sound lines (events)
	Head   string // hash of the last sound line; "" for an empty file
	// Breaks counts the break events: where a writer found the chain
	// broken and went on.
	Breaks int
	// Problems are the lines that break the chain, in order.
	Problems []LineError
	// Unknown are the calls whose intent was recorded with no outcome
	// after it, and the runs that started with no end: the process
	// stopped (or is still busy) in the middle.
	Unknown []Unknown
	// HeadLine is the event whose hash is VerifyOptions.Head (1-based), 0
	// when it is not in the file or none was given.
	HeadLine int

	lastBreak int // the line of the last break event
}

// Unknown is a call or run with no outcome in the log.
type Unknown struct {
	Line    int
	Kind    string // "intent" or "run"
	Run     string
	Session string
	Call    int
	Tool    string
}

func (u Unknown) String() string {
	if u.Kind == "run" {
		return fmt.Sprintf("line %d: run %s (session %s) started and has no end", u.Line, u.Run, u.Session)
	}
	return fmt.Sprintf("line %d: %s (run %s, call %d): its intent has no outcome", u.Line, u.Tool, u.Run, u.Call)
}

// LineError names a line of a file that breaks the chain.
type LineError struct {
	Line   int // 1-based
	Reason string
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Reason) }

// VerifyOptions configure a verification.
type VerifyOptions struct {
	Key  []byte // the HMAC key the log was written with, if any
	Head string // a head hash kept from earlier: Result.HeadLine finds it

	row func(line int) int // a database's rows: the seq of the nth line read
}

// name names the nth line read in a message: "line n", or a database's
// "row SEQ".
func (o VerifyOptions) name(n int) string {
	if o.row != nil {
		return fmt.Sprintf("row %d", o.row(n))
	}
	return fmt.Sprintf("line %d", n)
}

func (o VerifyOptions) unit() string {
	if o.row != nil {
		return "row"
	}
	return "line"
}

// Verify checks the whole chain of the audit file at path. It returns what
// it found; the error is the first problem (a *LineError) or an I/O error.
func Verify(path string) (Result, error) { return VerifyWith(path, VerifyOptions{}) }

// VerifyWith is Verify with a key or a head to look for.
func VerifyWith(path string, o VerifyOptions) (Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return Result{}, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && !st.Mode().IsRegular() {
		return Result{}, fmt.Errorf("%s is not a regular file", path)
	}
	// A shared lock: no writer is half-way through a line.
	if err := unix.Flock(int(f.Fd()), unix.LOCK_SH); err == nil {
		defer unix.Flock(int(f.Fd()), unix.LOCK_UN)
	}
	return VerifyReaderWith(f, o)
}

// VerifyReader is Verify over a reader.
func VerifyReader(r io.Reader) (Result, error) { return VerifyReaderWith(r, VerifyOptions{}) }

// VerifyReaderWith is VerifyWith over a reader. After a broken line the
// chain is taken up again at the next sound line, so every broken line is
// reported.
func VerifyReaderWith(r io.Reader, o VerifyOptions) (Result, error) {
	br := bufio.NewReader(r)
	var res Result
	intents := map[string]Unknown{}
	runs := map[string]Unknown{}
	synced := true // the line before was sound
	prevSeq := 0
	for n := 1; ; n++ {
		raw, err := br.ReadBytes('\n')
		if len(raw) == 0 && err == io.EOF {
			break
		}
		if err != nil && err != io.EOF {
			return res, err
		}
		if err == io.EOF {
			res.Problems = append(res.Problems, LineError{n, "the line is cut short (no newline): the file was truncated or is being written"})
			break
		}
		c, reason := checkLine(raw[:len(raw)-1], o.Key)
		if reason != "" {
			res.Problems = append(res.Problems, LineError{n, reason})
			synced = false
			continue
		}
		restart := c.Kind == "break" && *c.Seq == 1 && *c.Prev == ""
		switch {
		case restart && !synced:
		case restart && n > 1:
			res.Problems = append(res.Problems, LineError{n, "chain broken: a new chain starts here though the line before it is sound"})
		case !synced:
			// Taken up again after the broken line (reported already).
		case *c.Prev != res.Head && n == 1:
			res.Problems = append(res.Problems, LineError{n, "chain broken: the first line's prev is not empty (lines before it were deleted)"})
		case *c.Prev != res.Head:
			res.Problems = append(res.Problems, LineError{n, fmt.Sprintf("chain broken: prev does not match the hash of %s (a %s before it was deleted, inserted or moved)", o.name(n-1), o.unit())})
		case *c.Seq != prevSeq+1:
			res.Problems = append(res.Problems, LineError{n, fmt.Sprintf("sequence broken: seq %d at %s, want %d", *c.Seq, o.name(n), prevSeq+1)})
		}
		synced = true
		prevSeq = *c.Seq
		res.Events++
		res.Head = c.hash
		if o.Head != "" && c.hash == o.Head {
			res.HeadLine = n
		}
		key := c.Run + "/" + fmt.Sprint(c.Call)
		switch c.Kind {
		case "break":
			res.Breaks++
			res.lastBreak = n
		case "run":
			runs[c.Run] = Unknown{Line: n, Kind: "run", Run: c.Run, Session: c.Session}
		case "run_end":
			delete(runs, c.Run)
		case "intent":
			intents[key] = Unknown{Line: n, Kind: "intent", Run: c.Run, Session: c.Session, Call: c.Call, Tool: c.Tool}
		case "call":
			delete(intents, key)
		}
	}
	for _, u := range intents {
		res.Unknown = append(res.Unknown, u)
	}
	for _, u := range runs {
		res.Unknown = append(res.Unknown, u)
	}
	sort.Slice(res.Unknown, func(i, j int) bool { return res.Unknown[i].Line < res.Unknown[j].Line })
	if len(res.Problems) > 0 {
		return res, &res.Problems[0]
	}
	return res, nil
}
