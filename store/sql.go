package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// Options tune Open. Zero values take the defaults.
type Options struct {
	// Heartbeat is how often a replica records that it is alive; default
	// 2s, at least MinHeartbeat. DeadAfter is how long a replica may be
	// silent before its running jobs are taken as lost; default 15s (or
	// MinLostBeats heartbeats, if that is longer), at least MinLostBeats
	// heartbeats (CheckTimings). (A replica on the same host whose process
	// is gone is lost at once.) Every replica of a store, and every reader
	// of it (codemode jobs), should use the same DeadAfter.
	Heartbeat, DeadAfter time.Duration
	// NoReplica opens the store without registering a replica (the CLI
	// reading jobs): it runs no jobs.
	NoReplica bool
	// Observe, when set, receives each operation's latency (op is one of
	// jobs.load, jobs.update, state.load, state.save, lease, reads.load,
	// reads.add, queue.insert, shapes.load, shapes.save), e.g. for
	// metrics.Metrics.Store.
	Observe func(op string, took time.Duration, err error)
	// Logf, when set, receives the job queue's errors (River's: a lost
	// connection, a failed fetch); nil drops them.
	Logf func(format string, args ...any)
}

// dialect is what differs between SQLite and PostgreSQL.
type dialect struct {
	name string
	// rebind turns ? placeholders into the dialect's.
	rebind func(string) string
	// lockSession is run in a session's Update transaction, after its row
	// exists, to hold it ("" when the transaction itself locks).
	lockSession string
}

var sqliteDialect = dialect{name: "sqlite", rebind: func(q string) string { return q }}

var postgresDialect = dialect{
	name: "postgres",
	rebind: func(q string) string {
		var b strings.Builder
		n := 0
		for _, c := range q {
			if c == '?' {
				n++
				b.WriteString("$" + strconv.Itoa(n))
				continue
			}
			b.WriteRune(c)
		}
		return b.String()
	},
	lockSession: "SELECT id FROM codemode_session WHERE id = ? FOR UPDATE",
}

// sqlStore is both stores: database/sql over SQLite or PostgreSQL (pgx's
// stdlib), with River on the same database.
type sqlStore struct {
	db *sql.DB
	// rdb serves reads: on SQLite a pool of its own, read-only connections
	// that never take the write lock (WAL lets them read beside a
	// writer), so a read waits neither for this process's one writing
	// connection nor for another process's write transaction; on
	// PostgreSQL db itself.
	rdb  *sql.DB
	d    dialect
	desc string
	opts Options

	self, host string
	stop       chan struct{}
	done       sync.WaitGroup

	queue    queue
	newQueue func() queue
	qmu      sync.Mutex
	closed   atomic.Bool
	closers  []func() error
}

func (s *sqlStore) q(query string) string { return s.d.rebind(query) }

func (s *sqlStore) Describe() string { return s.desc }

// Ready reports whether the database answers, for a gateway's /readyz.
func (s *sqlStore) Ready(ctx context.Context) error { return s.db.PingContext(ctx) }

// observe reports one operation's latency to Options.Observe.
func (s *sqlStore) observe(op string, start time.Time, err *error) {
	if s.opts.Observe != nil {
		s.opts.Observe(op, time.Since(start), *err)
	}
}

func (s *sqlStore) Replica() string { return s.self }

func micros(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMicro()
}

func fromMicros(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.UnixMicro(n).UTC()
}

func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// register records this replica and keeps its heartbeat.
func (s *sqlStore) register(ctx context.Context) error {
	s.opts.Heartbeat, s.opts.DeadAfter = Timings(s.opts.Heartbeat, s.opts.DeadAfter)
	s.host = hostID()
	s.stop = make(chan struct{})
	if s.opts.NoReplica {
		return nil
	}
	s.self = newID()
	now := micros(time.Now())
	if _, err := s.db.ExecContext(ctx, s.q("INSERT INTO codemode_replica (id, host, pid, started_at, seen_at) VALUES (?, ?, ?, ?, ?)"), s.self, s.host, os.Getpid(), now, now); err != nil {
		return s.wrap("registering this replica", err)
	}
	s.done.Add(1)
	go func() {
		defer s.done.Done()
		t := time.NewTicker(s.opts.Heartbeat)
		defer t.Stop()
		for {
			select {
			case <-s.stop:
				return
			case <-t.C:
				ctx, cancel := context.WithTimeout(context.Background(), s.opts.Heartbeat)
				_, _ = s.db.ExecContext(ctx, s.q("UPDATE codemode_replica SET seen_at = ? WHERE id = ?"), micros(time.Now()), s.self)
				cancel()
			}
		}
	}()
	return nil
}

// The heartbeat's defaults and bounds (Options.Heartbeat, DeadAfter).
const (
	DefaultHeartbeat = 2 * time.Second
	DefaultDeadAfter = 15 * time.Second
	MinHeartbeat     = 100 * time.Millisecond
	// MinLostBeats is how many heartbeats DeadAfter must span at least, so
	// a replica that misses a beat or two (a slow database, a pause) is
	// not taken as lost.
	MinLostBeats = 3
)

// Timings fills in the defaults of a heartbeat and silence (0: unset).
func Timings(heartbeat, deadAfter time.Duration) (time.Duration, time.Duration) {
	if heartbeat <= 0 {
		heartbeat = DefaultHeartbeat
	}
	if deadAfter <= 0 {
		deadAfter = max(DefaultDeadAfter, MinLostBeats*heartbeat)
	}
	return heartbeat, deadAfter
}

// CheckTimings says whether a heartbeat and silence (0: the default) can
// work together; the error names the silence's problem in one line.
func CheckTimings(heartbeat, deadAfter time.Duration) error {
	if heartbeat > 0 && heartbeat < MinHeartbeat {
		return fmt.Errorf("heartbeat %s is too often; make it at least %s", heartbeat, MinHeartbeat)
	}
	beat, dead := Timings(heartbeat, deadAfter)
	if dead < MinLostBeats*beat {
		return fmt.Errorf("%s is less than %d heartbeats of %s: a replica that misses a beat or two would have its running jobs taken as lost; make it at least %s", dead, MinLostBeats, beat, MinLostBeats*beat)
	}
	return nil
}

func (s *sqlStore) wrap(what string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("store (%s): %s: %w", s.desc, what, err)
}

// Close stops the queue and the heartbeat; this replica's row is removed,
// so the jobs it still ran are lost to the next reader at once.
func (s *sqlStore) Close() error {
	if !s.closed.CompareAndSwap(false, true) {
		return nil
	}
	s.qmu.Lock()
	q := s.queue
	s.queue = nil
	s.qmu.Unlock()
	var err error
	if q != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err = q.stop(ctx)
		cancel()
	}
	if s.stop != nil {
		close(s.stop)
		s.done.Wait()
	}
	if s.self != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_, _ = s.db.ExecContext(ctx, s.q("DELETE FROM codemode_replica WHERE id = ?"), s.self)
		cancel()
	}
	if cerr := s.db.Close(); err == nil {
		err = cerr
	}
	for _, c := range s.closers {
		if cerr := c(); err == nil {
			err = cerr
		}
	}
	return err
}

type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// load reads a session's jobs and wait with q; raw holds each job's JSON as
// stored.
func (s *sqlStore) load(ctx context.Context, q querier, session string) (*Session, map[string]string, error) {
	sj := &Session{Jobs: map[string]*Job{}}
	var rec string
	err := q.QueryRowContext(ctx, s.q("SELECT record FROM codemode_session WHERE id = ?"), session).Scan(&rec)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, nil, s.wrap("reading session", err)
	}
	if rec != "" {
		sj.Record = json.RawMessage(rec)
	}
	rows, err := q.QueryContext(ctx, s.q(`SELECT j.name, j.body, j.owner, r.host, r.pid, r.seen_at
FROM codemode_job j LEFT JOIN codemode_replica r ON r.id = j.owner
WHERE j.session = ?`), session)
	if err != nil {
		return nil, nil, s.wrap("reading jobs", err)
	}
	defer rows.Close()
	raw := map[string]string{}
	for rows.Next() {
		var name, body, owner string
		var host sql.NullString
		var pid, seen sql.NullInt64
		if err := rows.Scan(&name, &body, &owner, &host, &pid, &seen); err != nil {
			return nil, nil, s.wrap("reading jobs", err)
		}
		j := &Job{}
		if err := json.Unmarshal([]byte(body), j); err != nil {
			return nil, nil, fmt.Errorf("store (%s): session %q: job %q is corrupt: %v", s.desc, session, name, err)
		}
		if j.State == JobRunning && owner != "" && owner != s.self {
			j.OwnerGone = !host.Valid || time.Since(fromMicros(seen.Int64)) > s.opts.DeadAfter ||
				(host.String == s.host && !processAlive(int(pid.Int64)))
		}
		sj.Jobs[name], raw[name] = j, body
	}
	return sj, raw, s.wrap("reading jobs", rows.Err())
}

// hostID names this host and process-id namespace: replicas with the same
// one can tell whether each other's process still runs (two containers
// sharing a host name but not their pid namespace cannot).
func hostID() string {
	h, _ := os.Hostname()
	if ns, err := os.Readlink("/proc/self/ns/pid"); err == nil {
		h += " " + ns
	}
	return h
}

// processAlive says whether a process of this host runs.
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// Session implements Store: a read-only transaction (deferred on SQLite,
// READ ONLY on PostgreSQL), so the session's record and jobs are read
// together without taking the write lock.
func (s *sqlStore) Session(ctx context.Context, session string) (sj *Session, err error) {
	defer s.observe("jobs.load", time.Now(), &err)
	err = retry(func() error {
		tx, err := s.rdb.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			return s.wrap("starting a read", err)
		}
		defer tx.Rollback()
		sj, _, err = s.load(ctx, tx, session)
		return err
	})
	return sj, err
}

// brokenConn says err came from a connection the server dropped (a
// restart, an administrator's terminate, a network cut): the pool then
// opens a new one, and the operation can be tried once more.
func brokenConn(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return strings.HasPrefix(pe.Code, "08") || strings.HasPrefix(pe.Code, "57P")
	}
	return errors.Is(err, driver.ErrBadConn) || errors.Is(err, io.ErrUnexpectedEOF) || pgconn.SafeToRetry(err)
}

// retry runs op, and once more when its connection was found broken.
func retry(op func() error) error {
	err := op()
	if err != nil && brokenConn(err) {
		err = op()
	}
	return err
}

// Update implements Store.
func (s *sqlStore) Update(ctx context.Context, session string, f func(*Session) error) (err error) {
	defer s.observe("jobs.update", time.Now(), &err)
	return retry(func() error { return s.update(ctx, session, f) })
}

func (s *sqlStore) update(ctx context.Context, session string, f func(*Session) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.wrap("starting a transaction", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, s.q("INSERT INTO codemode_session (id) VALUES (?) ON CONFLICT DO NOTHING"), session); err != nil {
		return s.wrap("locking session", err)
	}
	if s.d.lockSession != "" {
		if _, err := tx.ExecContext(ctx, s.q(s.d.lockSession), session); err != nil {
			return s.wrap("locking session", err)
		}
	}
	sj, raw, err := s.load(ctx, tx, session)
	if err != nil {
		return err
	}
	if err := f(sj); err != nil {
		return err
	}
	rec := string(sj.Record)
	if rec == "" {
		rec = "{}"
	}
	if _, err := tx.ExecContext(ctx, s.q("UPDATE codemode_session SET record = ? WHERE id = ?"), rec, session); err != nil {
		return s.wrap("saving session", err)
	}
	for name := range raw {
		if _, ok := sj.Jobs[name]; !ok {
			if _, err := tx.ExecContext(ctx, s.q("DELETE FROM codemode_job WHERE session = ? AND name = ?"), session, name); err != nil {
				return s.wrap("saving jobs", err)
			}
		}
	}
	for name, j := range sj.Jobs {
		j.Name = name
		b, err := json.Marshal(j)
		if err != nil {
			return fmt.Errorf("store: job %q: %v", name, err)
		}
		if old, ok := raw[name]; ok && old == string(b) {
			continue
		}
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO codemode_job (session, name, kind, tool, body, state, owner, queue_id, started_at, ended_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (session, name) DO UPDATE SET kind = excluded.kind, tool = excluded.tool, body = excluded.body, state = excluded.state,
owner = excluded.owner, queue_id = excluded.queue_id, started_at = excluded.started_at, ended_at = excluded.ended_at`),
			session, name, j.Kind, j.Tool, string(b), j.State, j.Owner, j.QueueID, micros(j.Started), micros(j.Ended)); err != nil {
			return s.wrap("saving jobs", err)
		}
	}
	return s.wrap("committing", tx.Commit())
}

// State implements Store.
func (s *sqlStore) State(ctx context.Context, session string) (st *State, err error) {
	defer s.observe("state.load", time.Now(), &err)
	err = retry(func() (err error) {
		st, err = s.state(ctx, session)
		return err
	})
	return st, err
}

func (s *sqlStore) state(ctx context.Context, session string) (*State, error) {
	var dump []byte
	var names string
	var at int64
	err := s.rdb.QueryRowContext(ctx, s.q("SELECT state, names, state_at FROM codemode_session WHERE id = ? AND state IS NOT NULL"), session).Scan(&dump, &names, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, s.wrap("reading the session's state", err)
	}
	st := &State{Dump: dump, Saved: fromMicros(at)}
	_ = json.Unmarshal([]byte(names), &st.Names)
	return st, nil
}

// SaveState implements Store.
func (s *sqlStore) SaveState(ctx context.Context, session string, st *State) (err error) {
	defer s.observe("state.save", time.Now(), &err)
	names, _ := json.Marshal(st.Names)
	if st.Names == nil {
		names = []byte("[]")
	}
	saved := st.Saved
	if saved.IsZero() {
		saved = time.Now()
	}
	dump := st.Dump
	if dump == nil {
		dump = []byte{}
	}
	_, err = s.db.ExecContext(ctx, s.q(`INSERT INTO codemode_session (id, state, names, state_at) VALUES (?, ?, ?, ?)
ON CONFLICT (id) DO UPDATE SET state = excluded.state, names = excluded.names, state_at = excluded.state_at`), session, dump, string(names), micros(saved))
	return s.wrap("saving the session's state", err)
}

// DeleteState implements Store.
func (s *sqlStore) DeleteState(ctx context.Context, session string) error {
	_, err := s.db.ExecContext(ctx, s.q("UPDATE codemode_session SET state = NULL, names = '[]', state_at = 0 WHERE id = ?"), session)
	return s.wrap("deleting the session's state", err)
}

// QuarantineState implements Store.
func (s *sqlStore) QuarantineState(ctx context.Context, session string) error {
	_, err := s.db.ExecContext(ctx, s.q("UPDATE codemode_session SET corrupt = state, corrupt_at = ?, state = NULL, names = '[]', state_at = 0 WHERE id = ? AND state IS NOT NULL"), micros(time.Now()), session)
	return s.wrap("moving the session's state aside", err)
}

// Lease implements Store.
func (s *sqlStore) Lease(ctx context.Context, session string, d time.Duration) (err error) {
	defer s.observe("lease", time.Now(), &err)
	return retry(func() error { return s.lease(ctx, session, d) })
}

func (s *sqlStore) lease(ctx context.Context, session string, d time.Duration) error {
	now := time.Now()
	if _, err := s.db.ExecContext(ctx, s.q("INSERT INTO codemode_session (id) VALUES (?) ON CONFLICT DO NOTHING"), session); err != nil {
		return s.wrap("leasing the session", err)
	}
	res, err := s.db.ExecContext(ctx, s.q("UPDATE codemode_session SET lease = ?, lease_til = ? WHERE id = ? AND (lease = '' OR lease = ? OR lease_til < ?)"),
		s.self, micros(now.Add(d)), session, s.self, micros(now))
	if err != nil {
		return s.wrap("leasing the session", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return s.wrap("leasing the session", err)
	} else if n == 0 {
		return ErrLeased
	}
	return nil
}

// Release implements Store.
func (s *sqlStore) Release(ctx context.Context, session string) error {
	_, err := s.db.ExecContext(ctx, s.q("UPDATE codemode_session SET lease = '', lease_til = 0 WHERE id = ? AND lease = ?"), session, s.self)
	return s.wrap("releasing the session", err)
}

// AddRead implements Store.
func (s *sqlStore) AddRead(ctx context.Context, session string, r Read) (err error) {
	defer s.observe("reads.add", time.Now(), &err)
	_, err = s.db.ExecContext(ctx, s.q(`INSERT INTO codemode_read (session, file, lo, hi, at) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (session, file, lo, hi) DO UPDATE SET at = excluded.at`), session, r.File, r.Lo, r.Hi, micros(time.Now()))
	return s.wrap("recording a read", err)
}

// Reads implements Store.
func (s *sqlStore) Reads(ctx context.Context, session string) (_ []Read, err error) {
	defer s.observe("reads.load", time.Now(), &err)
	rows, err := s.rdb.QueryContext(ctx, s.q("SELECT file, lo, hi FROM codemode_read WHERE session = ? ORDER BY file, lo"), session)
	if err != nil {
		return nil, s.wrap("reading reads", err)
	}
	defer rows.Close()
	var out []Read
	for rows.Next() {
		var r Read
		if err := rows.Scan(&r.File, &r.Lo, &r.Hi); err != nil {
			return nil, s.wrap("reading reads", err)
		}
		out = append(out, r)
	}
	return out, s.wrap("reading reads", rows.Err())
}

// ForgetReads implements Store.
func (s *sqlStore) ForgetReads(ctx context.Context, session string) error {
	_, err := s.db.ExecContext(ctx, s.q("DELETE FROM codemode_read WHERE session = ?"), session)
	return s.wrap("forgetting reads", err)
}

// Sweep implements Store.
func (s *sqlStore) Sweep(ctx context.Context, ttl time.Duration) error {
	old := micros(time.Now().Add(-ttl))
	for _, q := range []string{
		"UPDATE codemode_session SET state = NULL, names = '[]', state_at = 0 WHERE state IS NOT NULL AND state_at < ?",
		"DELETE FROM codemode_read WHERE at < ?",
		"DELETE FROM codemode_job WHERE state <> 'running' AND ended_at <> 0 AND ended_at < ?",
		"DELETE FROM codemode_replica WHERE seen_at < ?",
	} {
		if _, err := s.db.ExecContext(ctx, s.q(q), old); err != nil {
			return s.wrap("sweeping", err)
		}
	}
	return nil
}
