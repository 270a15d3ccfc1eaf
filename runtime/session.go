package runtime

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// Persistent sessions. A session's state is one file in StateDir, named
// after a digest of the session id (two ids never share a file, whatever
// characters they hold), with the names its programs defined beside it.
// A state older than SessionTTL is discarded; one that cannot be restored
// is moved aside and reported, never silently replaced.

// DefaultSessionTTL is Config.SessionTTL's default.
const DefaultSessionTTL = 24 * time.Hour

// sessionLock serialises the programs of one persistent session; it is
// dropped when no program holds or waits for it.
type sessionLock struct {
	mu   sync.Mutex
	refs int
}

func (r *Runtime) lockSession(session string) func() {
	r.sessMu.Lock()
	l, ok := r.sessions[session]
	if !ok {
		l = &sessionLock{}
		r.sessions[session] = l
	}
	l.refs++
	r.sessMu.Unlock()
	l.mu.Lock()
	return func() {
		l.mu.Unlock()
		r.sessMu.Lock()
		if l.refs--; l.refs == 0 {
			delete(r.sessions, session)
		}
		r.sessMu.Unlock()
	}
}

// SessionLocks is how many sessions have a lock held or waited for.
func (r *Runtime) SessionLocks() int {
	r.sessMu.Lock()
	defer r.sessMu.Unlock()
	return len(r.sessions)
}

func (r *Runtime) sessionTTL() time.Duration {
	if r.cfg.SessionTTL > 0 {
		return r.cfg.SessionTTL
	}
	return DefaultSessionTTL
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]`)

func (r *Runtime) statePath(session string) string {
	sum := sha256.Sum256([]byte(session))
	name := unsafeName.ReplaceAllString(session, "_")
	if len(name) > 40 {
		name = name[:40]
	}
	return filepath.Join(r.cfg.StateDir, name+"-"+hex.EncodeToString(sum[:12])+".monty")
}

func (r *Runtime) namesPath(session string) string { return r.statePath(session) + ".names" }

// loadState reads a session's saved state: nil when it has none, or when
// it expired (then note says so). An unreadable file is an error.
func (r *Runtime) loadState(session string) (state []byte, note string, err error) {
	path := r.statePath(session)
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, "", nil
	}
	if err == nil && time.Since(fi.ModTime()) > r.sessionTTL() {
		r.removeState(session)
		return nil, fmt.Sprintf("this session's saved state was last saved %s ago, longer than the session TTL (%s), and was discarded: this program starts in a fresh session", time.Since(fi.ModTime()).Round(time.Second), r.sessionTTL()), nil
	}
	if err == nil {
		state, err = os.ReadFile(path)
	}
	return state, "", err
}

// quarantine moves a state that cannot be restored aside, so it is kept for
// inspection and not overwritten, and says so.
func (r *Runtime) quarantine(session string, why error) string {
	path := r.statePath(session)
	aside := path + ".corrupt-" + time.Now().UTC().Format("20060102T150405Z")
	moved := "it was moved to " + filepath.Base(aside)
	if err := os.Rename(path, aside); err != nil {
		moved = "it could not be moved aside (" + err.Error() + ")"
	}
	_ = os.Remove(r.namesPath(session))
	return fmt.Sprintf("this session's saved state could not be restored (%s): %s, and this program starts in a fresh session; the variables of earlier programs are gone", firstLine(why.Error()), moved)
}

func (r *Runtime) removeState(session string) {
	_ = os.Remove(r.statePath(session))
	_ = os.Remove(r.namesPath(session))
}

// sessionNames are the names the session's saved programs defined at top
// level, as recorded beside its state.
func (r *Runtime) sessionNames(session string) []string {
	b, err := os.ReadFile(r.namesPath(session))
	if err != nil {
		return nil
	}
	var names []string
	_ = json.Unmarshal(b, &names)
	return names
}

// saveNames records the names after a program that was saved.
func (r *Runtime) saveNames(session, code string) error {
	names := r.sessionNames(session)
	defined, deleted := topNames(code)
	for _, n := range defined {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	names = slices.DeleteFunc(names, func(n string) bool { return slices.Contains(deleted, n) })
	slices.Sort(names)
	b, _ := json.Marshal(names)
	tmp := r.namesPath(session) + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, r.namesPath(session))
}

// survived tells the agent, when a program's changes were lost (its worker
// died, or a limit stopped it), what of the session is left.
func (r *Runtime) survived(session string) string {
	if _, err := os.Stat(r.statePath(session)); err != nil {
		return "This session had no saved state: no variables of earlier programs survive."
	}
	names := r.sessionNames(session)
	list := "none that the runtime recorded"
	if len(names) > 0 {
		if len(names) > 30 {
			names = append(names[:30:30], fmt.Sprintf("and %d more", len(names)-30))
		}
		list = strings.Join(names, ", ")
	}
	return "The session's state as saved after its previous program survives (names defined: " + list + "); what this program changed in it is lost."
}

var (
	topAssign = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*(?:\s*,\s*[A-Za-z_][A-Za-z0-9_]*)*)\s*(?::[^=]*)?(?:[-+*/%&|^@]|//|\*\*|<<|>>)?=[^=]`)
	topDef    = regexp.MustCompile(`^(?:async\s+)?(?:def|class)\s+([A-Za-z_][A-Za-z0-9_]*)`)
	topImport = regexp.MustCompile(`^(?:from\s+\S+\s+)?import\s+(.+)$`)
	topFor    = regexp.MustCompile(`^(?:async\s+)?for\s+([A-Za-z_][A-Za-z0-9_]*(?:\s*,\s*[A-Za-z_][A-Za-z0-9_]*)*)\s+in\b`)
	topDel    = regexp.MustCompile(`^del\s+([A-Za-z_][A-Za-z0-9_]*(?:\s*,\s*[A-Za-z_][A-Za-z0-9_]*)*)\s*$`)
	identRe   = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
)

// topNames are the names a program binds, and deletes, at top level, read
// from its unindented lines: assignments, def and class, imports and for
// targets. It is a report for the agent, not a parser: a name bound some
// other way is missing from it.
func topNames(code string) (defined, deleted []string) {
	for line := range strings.SplitSeq(code, "\n") {
		if line == "" || line[0] == ' ' || line[0] == '\t' || line[0] == '#' {
			continue
		}
		line = strings.TrimRight(line, " \r")
		if m := topDel.FindStringSubmatch(line); m != nil {
			deleted = append(deleted, identRe.FindAllString(m[1], -1)...)
			continue
		}
		if m := topDef.FindStringSubmatch(line); m != nil {
			defined = append(defined, m[1])
		} else if m := topFor.FindStringSubmatch(line); m != nil {
			defined = append(defined, identRe.FindAllString(m[1], -1)...)
		} else if m := topImport.FindStringSubmatch(line); m != nil {
			for _, part := range strings.Split(strings.Trim(m[1], "() "), ",") {
				f := strings.Fields(part)
				switch {
				case len(f) == 3 && f[1] == "as":
					defined = append(defined, f[2])
				case len(f) == 1:
					defined = append(defined, strings.Split(f[0], ".")[0])
				}
			}
		} else if m := topAssign.FindStringSubmatch(line); m != nil {
			defined = append(defined, identRe.FindAllString(m[1], -1)...)
		}
	}
	return defined, deleted
}

// sweepStates removes the saved states (of any session, e.g. one whose
// gateway crashed) older than the session TTL.
func (r *Runtime) sweepStates() {
	ents, err := os.ReadDir(r.cfg.StateDir)
	if err != nil {
		return
	}
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, ".monty") && !strings.HasSuffix(name, ".monty.names") {
			continue
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > r.sessionTTL() {
			_ = os.Remove(filepath.Join(r.cfg.StateDir, name))
		}
	}
}
