package runtime

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/codemode-dev/codemode/store"
)

// Persistent sessions. A session's state is kept in the store, keyed by
// the session id itself (two ids never share a state, whatever characters
// they hold), with the names its programs defined beside it. A state
// older than SessionTTL is discarded; one that cannot be restored is moved
// aside and reported, never silently replaced.

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

// leaseSession takes a persistent session for this replica for one
// program (its time limit twice over, and a minute to restore and save
// its state), or says why it cannot.
func (r *Runtime) leaseSession(session string) (release func(), err error) {
	ctx, cancel := stateCtx()
	defer cancel()
	err = r.jobs.st.Lease(ctx, session, 2*r.limits.Time+time.Minute)
	if errors.Is(err, store.ErrLeased) {
		return nil, errors.New("run_code refused: this session is running a program on another gateway replica now, and its state is that program's until it ends; nothing ran. Run this program again when that one has ended.")
	}
	if err != nil {
		return nil, fmt.Errorf("run_code refused: the session's record could not be read, so nothing ran: %s", firstLine(err.Error()))
	}
	return func() {
		ctx, cancel := stateCtx()
		defer cancel()
		_ = r.jobs.st.Release(ctx, session)
	}, nil
}

// stateCtx bounds one read or write of a session's state in the store.
func stateCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), storeTimeout)
}

// loadState reads a session's saved state: nil when it has none, or when
// it expired (then note says so). A store that cannot be read is an error.
func (r *Runtime) loadState(session string) (state []byte, note string, err error) {
	ctx, cancel := stateCtx()
	defer cancel()
	st, err := r.jobs.st.State(ctx, session)
	if err != nil || st == nil {
		return nil, "", err
	}
	if age := time.Since(st.Saved); age > r.sessionTTL() {
		r.removeState(session)
		return nil, fmt.Sprintf("this session's saved state was last saved %s ago, longer than the session TTL (%s), and was discarded: this program starts in a fresh session", age.Round(time.Second), r.sessionTTL()), nil
	}
	return st.Dump, "", nil
}

// quarantine moves a state that cannot be restored aside, so it is kept for
// inspection and not overwritten, and says so.
func (r *Runtime) quarantine(session string, why error) string {
	ctx, cancel := stateCtx()
	defer cancel()
	moved := "it was kept aside in the store (" + r.jobs.st.Describe() + ", codemode_session.corrupt)"
	if err := r.jobs.st.QuarantineState(ctx, session); err != nil {
		moved = "it could not be moved aside (" + firstLine(err.Error()) + ")"
	}
	return fmt.Sprintf("this session's saved state could not be restored (%s): %s, and this program starts in a fresh session; the variables of earlier programs are gone", firstLine(why.Error()), moved)
}

func (r *Runtime) removeState(session string) error {
	ctx, cancel := stateCtx()
	defer cancel()
	return r.jobs.st.DeleteState(ctx, session)
}

// sessionState is a session's saved state, nil when there is none or it
// cannot be read.
func (r *Runtime) sessionState(session string) *store.State {
	ctx, cancel := stateCtx()
	defer cancel()
	st, _ := r.jobs.st.State(ctx, session)
	return st
}

// saveState saves a session's state after a program, with the names its
// programs defined at top level.
func (r *Runtime) saveState(w Interp, session, code string) error {
	dump, err := w.Dump()
	if err != nil {
		return err
	}
	var names []string
	if old := r.sessionState(session); old != nil {
		names = old.Names
	}
	defined, deleted := topNames(code)
	for _, n := range defined {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	names = slices.DeleteFunc(names, func(n string) bool { return slices.Contains(deleted, n) })
	slices.Sort(names)
	ctx, cancel := stateCtx()
	defer cancel()
	return r.jobs.st.SaveState(ctx, session, &store.State{Dump: dump, Names: names})
}

// survived tells the agent, when a program's changes were lost (its worker
// died, or a limit stopped it), what of the session is left.
func (r *Runtime) survived(session string) string {
	st := r.sessionState(session)
	if st == nil {
		return "This session had no saved state: no variables of earlier programs survive."
	}
	names := st.Names
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

// sweepStates removes what the store holds (of any session, e.g. one
// whose gateway crashed) that is older than the session TTL.
func (r *Runtime) sweepStates() {
	ctx, cancel := stateCtx()
	defer cancel()
	_ = r.jobs.st.Sweep(ctx, r.sessionTTL())
}
