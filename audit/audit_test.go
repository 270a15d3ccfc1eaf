package audit_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/audit"
	"github.com/codemode-dev/codemode/runtime"
)

// writeLog records n events and returns the file's lines.
func writeLog(t *testing.T, path string, n int) []string {
	t.Helper()
	l, err := audit.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		ev := runtime.Event{
			Time: time.Date(2026, 1, 2, 3, 4, i, 0, time.UTC), Kind: "call", RunID: "r1", Session: "s",
			Tool: "api.everything.echo", Args: runtime.ValuePayload(map[string]any{"message": "hi <&>"}), Status: "ok",
			Result: runtime.ValuePayload("Echo: hi"), Duration: time.Millisecond,
		}
		if i == n-1 {
			ev = runtime.Event{Time: ev.Time, Kind: "run", RunID: "r1", Session: "s", Code: runtime.CodePayload("print(1)\n"), Status: "ok", Calls: n - 1}
		}
		if err := l.Record(ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

func writeLines(t *testing.T, path string, lines []string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestChain(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	lines := writeLog(t, path, 4)
	if len(lines) != 4 {
		t.Fatalf("%d lines", len(lines))
	}
	want := `{"seq":1,"prev":"","time":"2026-01-02T03:04:00Z","kind":"call","run":"r1","session":"s","tool":"api.everything.echo","args":{"value":{"message":"hi <&>"},"bytes":20,"sha256":"sha256:43085d1b5741581bac4712a7d8f7820f0c4a9ec1e0a001fd4ec7177b249eb0dc"},"status":"ok","result":{"value":"Echo: hi","bytes":10,"sha256":"sha256:b94bef64238c16d34d6c69c0677eb1ee93eec8de869ba46a625b7989a2c5cbb0"},"duration_ns":1000000,"hash":"sha256:`
	if !strings.HasPrefix(lines[0], want) {
		t.Fatalf("line 1:\n%s\nwant prefix\n%s", lines[0], want)
	}
	res, err := audit.Verify(path)
	if err != nil || res.Events != 4 || !strings.HasSuffix(lines[3], `"hash":"`+res.Head+`"}`) {
		t.Fatalf("Verify = %+v, %v", res, err)
	}
	// Reopening appends to the same chain.
	more := writeLog(t, path, 2)
	if len(more) != 6 {
		t.Fatalf("%d lines after reopening", len(more))
	}
	if res, err := audit.Verify(path); err != nil || res.Events != 6 {
		t.Fatalf("after reopening: %+v, %v", res, err)
	}
}

func TestTamper(t *testing.T) {
	dir := t.TempDir()
	orig := writeLog(t, filepath.Join(dir, "orig.jsonl"), 5)
	cases := []struct {
		name  string
		edit  func([]string) []string
		line  int
		cause string
		more  int // problems after the first
	}{
		{"edit a value", func(l []string) []string {
			l[2] = strings.Replace(l[2], `"status":"ok"`, `"status":"no"`, 1)
			return l
		}, 3, "edited: the line's content does not match its hash", 0},
		{"edit an argument", func(l []string) []string {
			l[1] = strings.Replace(l[1], `"hi <&>"`, `"hi"`, 1)
			return l
		}, 2, "edited: the line's content does not match its hash", 0},
		{"delete a middle line", func(l []string) []string {
			return append(l[:2:2], l[3:]...)
		}, 3, "chain broken: prev does not match the hash of line 2 (a line before it was deleted, inserted or moved)", 0},
		{"delete the first line", func(l []string) []string { return l[1:] }, 1,
			"chain broken: the first line's prev is not empty (lines before it were deleted)", 0},
		{"swap two lines", func(l []string) []string {
			l[1], l[2] = l[2], l[1]
			return l
		}, 2, "chain broken: prev does not match the hash of line 1 (a line before it was deleted, inserted or moved)", 2},
		{"move the last line first", func(l []string) []string {
			return append([]string{l[4]}, l[:4]...)
		}, 1, "chain broken: the first line's prev is not empty (lines before it were deleted)", 1},
		{"duplicate a line", func(l []string) []string {
			return append(l[:3:3], l[2:]...)
		}, 4, "chain broken: prev does not match the hash of line 3 (a line before it was deleted, inserted or moved)", 0},
		{"drop the hash", func(l []string) []string {
			l[0] = l[0][:strings.LastIndex(l[0], `,"hash"`)] + "}"
			return l
		}, 1, "not an audit line: it does not end with its hash", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".jsonl")
			writeLines(t, path, c.edit(append([]string(nil), orig...)))
			_, err := audit.Verify(path)
			var le *audit.LineError
			if !errors.As(err, &le) || le.Line != c.line || le.Reason != c.cause {
				t.Fatalf("Verify = %v, want line %d: %s", err, c.line, c.cause)
			}
			// A broken log still opens: the break is reported once and
			// recorded, and verify still names the broken line.
			var warned []string
			l, err := audit.OpenWith(path, audit.Options{Warn: func(m string) { warned = append(warned, m) }})
			if err != nil {
				t.Fatalf("Open of a broken log = %v", err)
			}
			l.Close()
			want := path + ": the chain is broken at 1 line, first " + le.Error() + "; the log goes on after it"
			if c.more > 0 {
				want = fmt.Sprintf("%s: the chain is broken at %d lines, first %s; the log goes on after them", path, c.more+1, le.Error())
			}
			if len(warned) != 1 || warned[0] != want {
				t.Fatalf("warned %q, want %q", warned, want)
			}
			res, err := audit.Verify(path)
			if !errors.As(err, &le) || le.Line != c.line || le.Reason != c.cause || len(res.Problems) != c.more+1 || res.Breaks != 1 {
				t.Fatalf("Verify after open = %v %+v", err, res)
			}
			warned = nil
			l, err = audit.OpenWith(path, audit.Options{Warn: func(m string) { warned = append(warned, m) }})
			if err != nil || len(warned) != 0 {
				t.Fatalf("second open: %v, warned %q", err, warned)
			}
			l.Close()
		})
	}
	// A last line cut short (no newline) is reported.
	path := filepath.Join(dir, "cut.jsonl")
	data := strings.Join(orig, "\n") + "\n"
	if err := os.WriteFile(path, []byte(data[:len(data)-20]), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := audit.Verify(path)
	var le *audit.LineError
	if !errors.As(err, &le) || le.Line != 5 || le.Reason != "the line is cut short (no newline): the file was truncated or is being written" {
		t.Fatalf("cut line: %v", err)
	}
}

func event(i int) runtime.Event {
	return runtime.Event{
		Time: time.Date(2026, 1, 2, 3, 4, 5, i, time.UTC), Kind: "call", RunID: "r", Session: "s", Call: i,
		Tool: "api.everything.echo", Args: runtime.ValuePayload(map[string]any{"message": i}), Status: "ok",
	}
}

// TestTwoServersOnOnePackBreakTheChain pins defect 4: two logs (two
// processes' worth: each has its own file description, so its own flock) on
// one file, appending at the same time, keep one sound chain.
func TestTwoServersOnOnePackBreakTheChain(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	writeLog(t, path, 3)
	var logs [2]*audit.Log
	for i := range logs {
		l, err := audit.OpenWith(path, audit.Options{Warn: func(m string) { t.Errorf("warned: %s", m) }})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		logs[i] = l
	}
	var wg sync.WaitGroup
	for i, l := range logs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 50 {
				if err := l.Record(event(i*100 + j)); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	res, err := audit.Verify(path)
	if err != nil || res.Events != 103 || len(res.Problems) != 0 || res.Breaks != 0 {
		t.Fatalf("Verify = %+v, %v", res, err)
	}
	// A third opener finds the chain sound too.
	l, err := audit.OpenWith(path, audit.Options{Warn: func(m string) { t.Errorf("warned: %s", m) }})
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
}

// TestTruncatedTailDetectedWithHead: dropping lines from the end leaves a
// sound chain; the head kept from earlier is no longer in it.
func TestTruncatedTailDetectedWithHead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	lines := writeLog(t, path, 5)
	res, err := audit.Verify(path)
	if err != nil {
		t.Fatal(err)
	}
	kept := res.Head
	res, err = audit.VerifyWith(path, audit.VerifyOptions{Head: kept})
	if err != nil || res.HeadLine != 5 {
		t.Fatalf("head of the whole log: %+v %v", res, err)
	}
	writeLines(t, path, lines[:3])
	res, err = audit.VerifyWith(path, audit.VerifyOptions{Head: kept})
	if err != nil || res.Events != 3 || res.HeadLine != 0 {
		t.Fatalf("after truncation: %+v %v", res, err)
	}
}

// TestRehashedChainFailsWithKey: whoever edits a keyed log and re-hashes
// every line (with sha256, or an HMAC under a key of their own) is caught
// by a verify with the real key; without it, verify says it cannot check.
func TestRehashedChainFailsWithKey(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	key := []byte("the operator's secret")
	l, err := audit.OpenWith(path, audit.Options{Key: key})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := l.Record(event(i)); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	if res, err := audit.VerifyWith(path, audit.VerifyOptions{Key: key}); err != nil || res.Events != 3 || !strings.HasPrefix(res.Head, "hmac-sha256:") {
		t.Fatalf("keyed log: %+v %v", res, err)
	}
	var le *audit.LineError
	if _, err := audit.Verify(path); !errors.As(err, &le) || le.Line != 1 || le.Reason != "signed with a key: set CODEMODE_AUDIT_KEY to verify it" {
		t.Fatalf("without the key: %v", err)
	}
	// Forge: rewrite the log from edited events, as an attacker can.
	for _, forger := range [][]byte{nil, []byte("a guess")} {
		forged := filepath.Join(dir, fmt.Sprintf("forged%d.jsonl", len(forger)))
		f, err := audit.OpenWith(forged, audit.Options{Key: forger})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			ev := event(i)
			ev.Status = "refused"
			if err := f.Record(ev); err != nil {
				t.Fatal(err)
			}
		}
		f.Close()
		res, err := audit.VerifyWith(forged, audit.VerifyOptions{Key: key})
		want := "edited: the line's content does not match its HMAC (or it was signed with another key)"
		if forger == nil {
			want = "not signed with the key (a plain sha256): written without CODEMODE_AUDIT_KEY, or re-hashed"
		}
		if !errors.As(err, &le) || le.Line != 1 || le.Reason != want || len(res.Problems) != 3 {
			t.Fatalf("forged with key %q: %v %+v", forger, err, res)
		}
	}
}

// TestIntentWithoutOutcomeIsUnknown: an intent with no outcome after it
// (the process died mid-call) and a run with no end are listed.
func TestIntentWithoutOutcomeIsUnknown(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l, err := audit.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	evs := []runtime.Event{
		{Kind: "run", RunID: "r1", Session: "s", Code: runtime.CodePayload("x"), Status: "started"},
		{Kind: "intent", RunID: "r1", Session: "s", Call: 1, Tool: "api.a.b", Status: "intent"},
		{Kind: "call", RunID: "r1", Session: "s", Call: 1, Tool: "api.a.b", Status: "ok"},
		{Kind: "intent", RunID: "r1", Session: "s", Call: 2, Tool: "api.a.c", Status: "intent"},
		{Kind: "run", RunID: "r2", Session: "t", Code: runtime.CodePayload("y"), Status: "started"},
		{Kind: "run_end", RunID: "r2", Session: "t", Status: "ok"},
	}
	for _, ev := range evs {
		if err := l.Record(ev); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	res, err := audit.Verify(path)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range res.Unknown {
		got = append(got, u.String())
	}
	want := []string{"line 1: run r1 (session s) started and has no end", "line 4: api.a.c (run r1, call 2): its intent has no outcome"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("unknown:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestCutTailStartsANewChain: a last line cut short (a writer that died
// mid-line) is reported once and a new chain starts after it; verify names
// the cut line and finds the rest sound.
func TestCutTailStartsANewChain(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	lines := writeLog(t, path, 3)
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")[:len(strings.Join(lines, "\n"))-30]), 0o600); err != nil {
		t.Fatal(err)
	}
	var warned []string
	l, err := audit.OpenWith(path, audit.Options{Warn: func(m string) { warned = append(warned, m) }})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Record(event(1)); err != nil {
		t.Fatal(err)
	}
	l.Close()
	want := []string{
		path + ": the chain is broken at 1 line, first line 3: the line is cut short (no newline): the file was truncated or is being written; the log goes on after it",
		path + ": the file's last line is not sound (the line is cut short (no newline)); a new chain starts here",
	}
	if strings.Join(warned, "\n") != strings.Join(want, "\n") {
		t.Fatalf("warned %q\nwant %q", warned, want)
	}
	// Lines 1-2 sound, 3 cut, then a new chain: its start (a break), the
	// break found at open, the event.
	res, err := audit.Verify(path)
	var le *audit.LineError
	if !errors.As(err, &le) || le.Line != 3 || le.Reason != "not an audit line: it does not end with its hash" || len(res.Problems) != 1 || res.Events != 5 || res.Breaks != 2 {
		t.Fatalf("Verify = %v %+v", err, res)
	}
}

// TestFailedAuditWriteIsAnError: a log on a full device returns the error
// (the runtime then does not make the call) and writes nothing.
func TestFailedAuditWriteIsAnError(t *testing.T) {
	l, err := audit.Open("/dev/full")
	if err != nil {
		t.Skipf("no /dev/full here: %v", err)
	}
	defer l.Close()
	err = l.Record(event(1))
	if err == nil || err.Error() != "audit: writing /dev/full: write /dev/full: no space left on device" {
		t.Fatalf("Record on a full disk = %v", err)
	}
}

// BenchmarkRecord measures the write path (lock, append, fsync), one log
// and two logs on one file taking turns (each append re-reads the tail).
func BenchmarkRecord(b *testing.B) {
	for _, n := range []int{1, 2} {
		b.Run(fmt.Sprintf("logs=%d", n), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "audit.jsonl")
			var logs []*audit.Log
			for range n {
				l, err := audit.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				defer l.Close()
				logs = append(logs, l)
			}
			ev := event(1)
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				if err := logs[i%n].Record(ev); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}
