package audit

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/codemode-dev/codemode/runtime"
)

// A PostgreSQL audit log keeps the chain in one table shared by every
// replica: codemode_audit holds one row per event (seq, prev, hash and the
// exact line a file log would hold), codemode_audit_head the chain's head.
// Every append locks the head row (SELECT ... FOR UPDATE) inside its
// transaction, takes the next seq and the head's hash as prev, inserts its
// row and moves the head: appends from any number of processes are
// serialised by the database into one chain, which [VerifyPostgres] checks
// with the same rules as a file's. The schema is created and upgraded at
// open by versioned migrations (migrations/postgres/NNNN_*.sql), applied
// under an advisory lock so replicas starting together apply each once.

//go:embed migrations/postgres/*.sql
var pgMigrations embed.FS

// pgTimeout bounds one append or one look at the head.
const pgTimeout = 10 * time.Second

// IsPostgres reports whether loc is a PostgreSQL URL.
func IsPostgres(loc string) bool {
	return strings.HasPrefix(loc, "postgres://") || strings.HasPrefix(loc, "postgresql://")
}

// ExpandLocation reads a location given as "$VAR" from the environment
// (so a URL with a password need not be on a command line).
func ExpandLocation(loc string) (string, error) {
	name, ok := strings.CutPrefix(loc, "$")
	if !ok {
		return loc, nil
	}
	v := os.Getenv(name)
	if v == "" {
		return "", fmt.Errorf("audit: $%s is empty or unset", name)
	}
	return v, nil
}

// Redact is loc with any password replaced, for messages.
func Redact(loc string) string {
	u, err := url.Parse(loc)
	if err != nil {
		return "postgres://…"
	}
	return u.Redacted()
}

// PGLog appends events to the PostgreSQL audit chain. It implements
// runtime.Auditor and is safe for concurrent use, also by several
// processes (replicas) on one database.
type PGLog struct {
	pool *pgxpool.Pool
	opt  Options
	desc string // the redacted URL

	mu     sync.Mutex
	closed bool
}

var _ runtime.Auditor = (*PGLog)(nil)

// OpenPostgres connects to the database at loc, runs the audit's
// migrations and checks that the chain's head is its last row (a mismatch
// is reported to o.Warn; `codemode audit verify` names the rows).
func OpenPostgres(ctx context.Context, loc string, o Options) (*PGLog, error) {
	desc := Redact(loc)
	cfg, err := pgxpool.ParseConfig(loc)
	if err != nil {
		return nil, fmt.Errorf("audit: %s: not a PostgreSQL URL", desc)
	}
	cfg.MaxConns = 8
	ctx, cancel := context.WithTimeout(ctx, pgTimeout)
	defer cancel()
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("audit: %s: %w", desc, err)
	}
	l := &PGLog{pool: pool, opt: o, desc: desc}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("audit: %s: %w", desc, err)
	}
	if err := migrate(ctx, pool); err != nil {
		pool.Close()
		return nil, fmt.Errorf("audit: %s: migrating: %w", desc, err)
	}
	if msg := checkHead(ctx, pool); msg != "" {
		// Reported, and recorded as a break event after the head; a
		// chain that cannot take it fails the open (nothing could be
		// audited).
		msg += "; the log goes on after the head"
		if o.Warn != nil {
			o.Warn(desc + ": " + msg)
		}
		if err := l.Record(breakEvent(msg)); err != nil {
			pool.Close()
			return nil, err
		}
	}
	return l, nil
}

// migrate applies the migrations newer than the database's version, in
// one transaction under an advisory lock.
func migrate(ctx context.Context, pool *pgxpool.Pool) error {
	names, err := fs.Glob(pgMigrations, "migrations/postgres/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('codemode_audit_schema'))`); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS codemode_audit_schema (version int PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return err
	}
	var have int
	if err := tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM codemode_audit_schema`).Scan(&have); err != nil {
		return err
	}
	for _, name := range names {
		base := name[strings.LastIndexByte(name, '/')+1:]
		v, err := strconv.Atoi(strings.SplitN(base, "_", 2)[0])
		if err != nil {
			return fmt.Errorf("migration %s: no version", base)
		}
		if v <= have {
			continue
		}
		sql, err := pgMigrations.ReadFile(name)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, string(sql)); err != nil {
			return fmt.Errorf("migration %s: %w", base, err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO codemode_audit_schema (version) VALUES ($1)`, v); err != nil {
			return err
		}
	}
	return tx.Commit(ctx)
}

// checkHead says how the head and the last row disagree, or "". One
// statement reads both, so an append committed meanwhile is seen in both
// or in neither.
func checkHead(ctx context.Context, pool *pgxpool.Pool) string {
	var headSeq, lastSeq int64
	var headHash, lastHash string
	err := pool.QueryRow(ctx, `SELECT h.seq, h.hash,
		coalesce((SELECT seq FROM codemode_audit ORDER BY seq DESC LIMIT 1), 0),
		coalesce((SELECT hash FROM codemode_audit ORDER BY seq DESC LIMIT 1), '')
		FROM codemode_audit_head h WHERE h.id = 1`).Scan(&headSeq, &headHash, &lastSeq, &lastHash)
	if err != nil {
		return "the chain's head cannot be read: " + err.Error()
	}
	if headSeq != lastSeq || headHash != lastHash {
		return fmt.Sprintf("the chain's head (seq %d) is not its last row (seq %d): rows were deleted or added by hand", headSeq, lastSeq)
	}
	return ""
}

// Record appends one event: under the head row's lock, the next seq, the
// head's hash as prev, the row, the new head, committed. When it returns an
// error the event is not in the chain.
func (l *PGLog) Record(ev runtime.Event) error {
	l.mu.Lock()
	closed := l.closed
	l.mu.Unlock()
	if closed {
		return errors.New("audit: log is closed")
	}
	ev.Message = runtime.CapText(ev.Message, runtime.AuditMessageCap)
	ev.Tool = runtime.CapText(ev.Tool, 1<<10)
	ctx, cancel := context.WithTimeout(context.Background(), pgTimeout)
	defer cancel()
	if err := l.append(ctx, ev); err != nil {
		return fmt.Errorf("audit: writing to %s: %w", l.desc, err)
	}
	return nil
}

func (l *PGLog) append(ctx context.Context, ev runtime.Event) error {
	tx, err := l.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	var seq int64
	var prev string
	if err := tx.QueryRow(ctx, `SELECT seq, hash FROM codemode_audit_head WHERE id = 1 FOR UPDATE`).Scan(&seq, &prev); err != nil {
		return err
	}
	b, hash, err := encodeLine(l.opt.Key, int(seq)+1, prev, ev)
	if err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `INSERT INTO codemode_audit (seq, prev, hash, line) VALUES ($1, $2, $3, $4)`, seq+1, prev, hash, strings.TrimSuffix(string(b), "\n")); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `UPDATE codemode_audit_head SET seq = $1, hash = $2 WHERE id = 1`, seq+1, hash); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// Ready reports whether the database answers (for /readyz).
func (l *PGLog) Ready(ctx context.Context) error { return l.pool.Ping(ctx) }

// Close closes the connections.
func (l *PGLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.closed {
		l.closed = true
		l.pool.Close()
	}
	return nil
}

// VerifyPostgres checks the whole chain in the database at loc, with the
// rules of VerifyWith. In the Result (and its error), a LineError's Line,
// an Unknown's Line and HeadLine are rows' seq values, not line numbers.
// A head row that is not the last row (rows deleted from the end, or
// added without moving the head) is a problem too.
func VerifyPostgres(ctx context.Context, loc string, o VerifyOptions) (Result, error) {
	desc := Redact(loc)
	conn, err := pgx.Connect(ctx, loc)
	if err != nil {
		return Result{}, fmt.Errorf("audit: %s: %w", desc, err)
	}
	defer conn.Close(ctx)
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT to_regclass('codemode_audit') IS NOT NULL`).Scan(&exists); err != nil {
		return Result{}, fmt.Errorf("audit: %s: %w", desc, err)
	}
	if !exists {
		return Result{}, fmt.Errorf("audit: %s holds no audit log (no codemode_audit table)", desc)
	}
	// One snapshot: appends going on meanwhile are not half seen.
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return Result{}, fmt.Errorf("audit: %s: %w", desc, err)
	}
	defer tx.Rollback(ctx)
	var headSeq int64
	var headHash string
	if err := tx.QueryRow(ctx, `SELECT seq, hash FROM codemode_audit_head WHERE id = 1`).Scan(&headSeq, &headHash); err != nil {
		return Result{}, fmt.Errorf("audit: %s: reading the head: %w", desc, err)
	}
	rows, err := tx.Query(ctx, `SELECT seq, line FROM codemode_audit ORDER BY seq`)
	if err != nil {
		return Result{}, fmt.Errorf("audit: %s: %w", desc, err)
	}
	pr, pw := io.Pipe()
	var (
		mu   sync.Mutex // seqs grows while the verifier reads it
		seqs []int64
	)
	go func() {
		var err error
		for rows.Next() {
			var seq int64
			var line string
			if err = rows.Scan(&seq, &line); err != nil {
				break
			}
			mu.Lock()
			seqs = append(seqs, seq)
			mu.Unlock()
			if _, err = io.WriteString(pw, strings.TrimRight(line, "\n")+"\n"); err != nil {
				break
			}
		}
		rows.Close()
		if err == nil {
			err = rows.Err()
		}
		pw.CloseWithError(err)
	}()
	// Messages name rows by seq; the reader's goroutine has appended the
	// nth row's seq before the verifier reads the nth line.
	row := func(line int) int {
		mu.Lock()
		defer mu.Unlock()
		if line >= 1 && line <= len(seqs) {
			return int(seqs[line-1])
		}
		return line
	}
	o.row = row
	res, verr := VerifyReaderWith(pr, o)
	_ = pr.Close()
	var le *LineError
	if verr != nil && !errors.As(verr, &le) {
		return res, fmt.Errorf("audit: %s: %w", desc, verr)
	}
	for i := range res.Problems {
		res.Problems[i].Line = row(res.Problems[i].Line)
	}
	for i := range res.Unknown {
		res.Unknown[i].Line = row(res.Unknown[i].Line)
	}
	if res.HeadLine > 0 {
		res.HeadLine = row(res.HeadLine)
	}
	var last int64
	if len(seqs) > 0 {
		last = seqs[len(seqs)-1]
	}
	// res.Head is the hash of the last sound line: an unsound last row
	// leaves an earlier one's, which is not the head's either.
	if headSeq != last || headHash != res.Head {
		res.Problems = append(res.Problems, LineError{int(headSeq), fmt.Sprintf("the chain's head (seq %d) is not its last row (seq %d): rows after it were deleted, or added by hand", headSeq, last)})
	}
	if len(res.Problems) > 0 {
		return res, &res.Problems[0]
	}
	return res, nil
}

// Sink is an open audit log: a file or a database chain.
type Sink interface {
	runtime.Auditor
	Close() error
}

// OpenLocation opens the audit log at loc: "off" (none: nil), a
// postgres:// URL, a file, or "$VAR" holding one of these; "" opens the
// file def ("" too: none). A file's directory is made if need be.
func OpenLocation(ctx context.Context, loc, def string, o Options) (Sink, error) {
	loc, err := ExpandLocation(loc)
	if err != nil {
		return nil, err
	}
	if loc == "" {
		loc = def
	}
	if loc == "off" || loc == "" {
		return nil, nil
	}
	if IsPostgres(loc) {
		l, err := OpenPostgres(ctx, loc, o)
		if err != nil {
			return nil, err
		}
		return l, nil
	}
	if err := os.MkdirAll(filepath.Dir(loc), 0o700); err != nil {
		return nil, err
	}
	l, err := OpenWith(loc, o)
	if err != nil {
		return nil, err
	}
	return l, nil
}
