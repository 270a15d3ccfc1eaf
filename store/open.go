package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	_ "modernc.org/sqlite"
)

//go:embed migrations
var migrations embed.FS

// Open opens the store at loc: a postgres:// (or postgresql://) URL, or
// the path of a SQLite file (created with its directory when missing).
// It runs the store's migrations and River's.
func Open(ctx context.Context, loc string, o Options) (Store, error) {
	if err := checkOptions(o); err != nil {
		return nil, err
	}
	switch {
	case loc == "":
		return nil, errors.New("store: no location (a SQLite file's path or a postgres:// URL)")
	case IsPostgres(loc):
		return openPostgres(ctx, loc, o)
	case strings.Contains(loc, "://"):
		return nil, fmt.Errorf("store: %q: want a SQLite file's path or a postgres:// URL", redact(loc))
	}
	return openSQLite(ctx, loc, o)
}

// OpenTemp opens a SQLite store in a new temporary file, removed at Close
// (a runtime that keeps nothing across restarts).
func OpenTemp(ctx context.Context, o Options) (Store, error) {
	if err := checkOptions(o); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "codemode-store-")
	if err != nil {
		return nil, err
	}
	st, err := openSQLite(ctx, filepath.Join(dir, "state.db"), o)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	s := st.(*sqlStore)
	s.closers = append(s.closers, func() error { return os.RemoveAll(dir) })
	return s, nil
}

func sqliteDSN(path string) string {
	return "file:" + path + "?_pragma=busy_timeout(20000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate"
}

func checkOptions(o Options) error {
	if err := CheckTimings(o.Heartbeat, o.DeadAfter); err != nil {
		if o.Heartbeat > 0 && o.Heartbeat < MinHeartbeat {
			return fmt.Errorf("store: %v", err)
		}
		return fmt.Errorf("store: a replica silent for %v", err)
	}
	return nil
}

// sqliteReadDSN opens the SQLite file for reads only: a transaction there
// is deferred, and query_only refuses any write.
func sqliteReadDSN(path string) string {
	return "file:" + path + "?_pragma=busy_timeout(20000)&_pragma=query_only(1)"
}

// sqliteReaders is how many reads of one SQLite store run at once.
const sqliteReaders = 4

func openSQLite(ctx context.Context, path string, o Options) (Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("store: %v", err)
	}
	db, err := sql.Open("sqlite", sqliteDSN(path))
	if err != nil {
		return nil, fmt.Errorf("store: SQLite %s: %v", path, err)
	}
	// SQLite has one writer: one connection for writes keeps it from
	// failing with "database is locked" inside the process; other
	// processes wait on busy_timeout.
	db.SetMaxOpenConns(1)
	// Reads have connections of their own, read-only and without the
	// immediate lock: they read beside the writer.
	rdb, err := sql.Open("sqlite", sqliteReadDSN(path))
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("store: SQLite %s: %v", path, err)
	}
	rdb.SetMaxOpenConns(sqliteReaders)
	s := &sqlStore{db: db, rdb: rdb, d: sqliteDialect, desc: "SQLite " + path, opts: o}
	s.closers = append(s.closers, rdb.Close)
	// River gets a pool of its own, also of one connection (its driver's
	// advice), so that a job's completion never waits behind a session's
	// transaction on the same connection.
	qdb, err := sql.Open("sqlite", sqliteDSN(path))
	if err != nil {
		db.Close()
		rdb.Close()
		return nil, fmt.Errorf("store: SQLite %s: %v", path, err)
	}
	qdb.SetMaxOpenConns(1)
	s.closers = append(s.closers, qdb.Close)
	return start(ctx, s, riversqlite.New(qdb))
}

func openPostgres(ctx context.Context, loc string, o Options) (Store, error) {
	cfg, err := pgxpool.ParseConfig(loc)
	if err != nil {
		return nil, fmt.Errorf("store: PostgreSQL %s: %v", redact(loc), err)
	}
	if !strings.Contains(loc, "pool_max_conns") {
		// River holds a connection for its listener and its leader; the
		// rest serve sessions: more than pgx's default of max(4, CPUs).
		cfg.MaxConns = max(cfg.MaxConns, 16)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("store: PostgreSQL %s: %v", redact(loc), err)
	}
	desc := "PostgreSQL " + redact(loc)
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	err = pool.Ping(pctx)
	cancel()
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("store: %s is unreachable: %v", desc, err)
	}
	db := stdlib.OpenDBFromPool(pool)
	s := &sqlStore{db: db, rdb: db, d: postgresDialect, desc: desc, opts: o}
	s.closers = append(s.closers, func() error { pool.Close(); return nil })
	return start(ctx, s, riverpgxv5.New(pool))
}

// start migrates the database (ours, then River's), sets the job queue on
// River's driver for it and registers this replica; on failure the store
// is closed.
func start[TTx any](ctx context.Context, s *sqlStore, drv riverdriver.Driver[TTx]) (Store, error) {
	if err := s.migrate(ctx, func(ctx context.Context) error { return riverMigrate(ctx, drv) }); err != nil {
		s.Close()
		return nil, err
	}
	s.newQueue = func() queue { return newRiverQueue(drv, s.opts.Logf) }
	if err := s.register(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func riverMigrate[TTx any](ctx context.Context, drv riverdriver.Driver[TTx]) error {
	m, err := rivermigrate.New(drv, nil)
	if err != nil {
		return fmt.Errorf("River's migrations: %v", err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("River's migrations: %v", err)
	}
	return nil
}

// redact hides a URL's password.
func redact(loc string) string {
	u, err := url.Parse(loc)
	if err != nil {
		return "(an unparsable URL)"
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

// migrationLock is the PostgreSQL advisory lock held while migrating, so
// that replicas starting together migrate once.
const migrationLock = 0x636f64656d6f6465 // "codemode"

// migrate brings the schema to the newest version this binary knows, in
// one transaction per version, then runs River's migrations (more).
func (s *sqlStore) migrate(ctx context.Context, more func(context.Context) error) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return s.wrap("connecting", err)
	}
	defer conn.Close()
	if s.d.name == "postgres" {
		if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock($1)", int64(migrationLock)); err != nil {
			return s.wrap("locking for migrations", err)
		}
		defer conn.ExecContext(context.Background(), "SELECT pg_advisory_unlock($1)", int64(migrationLock))
	}
	if _, err := conn.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS codemode_schema (version BIGINT PRIMARY KEY, applied_at BIGINT NOT NULL)"); err != nil {
		return s.wrap("creating the version table", err)
	}
	var have sql.NullInt64
	if err := conn.QueryRowContext(ctx, "SELECT max(version) FROM codemode_schema").Scan(&have); err != nil {
		return s.wrap("reading the schema version", err)
	}
	files, err := fs.ReadDir(migrations, "migrations/"+s.d.name)
	if err != nil {
		return err
	}
	type mig struct {
		v    int64
		file string
	}
	var ms []mig
	for _, f := range files {
		n, _, _ := strings.Cut(f.Name(), "_")
		v, err := strconv.ParseInt(n, 10, 64)
		if err != nil {
			return fmt.Errorf("store: migration %s: no version number", f.Name())
		}
		ms = append(ms, mig{v, f.Name()})
	}
	slices.SortFunc(ms, func(a, b mig) int { return int(a.v - b.v) })
	known := ms[len(ms)-1].v
	if have.Int64 > known {
		return fmt.Errorf("store (%s): %w: it is at version %d, this codemode knows up to %d; upgrade codemode", s.desc, ErrNewerSchema, have.Int64, known)
	}
	for _, m := range ms {
		if m.v <= have.Int64 {
			continue
		}
		body, err := migrations.ReadFile("migrations/" + s.d.name + "/" + m.file)
		if err != nil {
			return err
		}
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			return s.wrap("migrating", err)
		}
		if _, err := tx.ExecContext(ctx, string(body)); err != nil {
			tx.Rollback()
			return s.wrap("migration "+m.file, err)
		}
		if _, err := tx.ExecContext(ctx, s.q("INSERT INTO codemode_schema (version, applied_at) VALUES (?, ?)"), m.v, micros(time.Now())); err != nil {
			tx.Rollback()
			return s.wrap("migration "+m.file, err)
		}
		if err := tx.Commit(); err != nil {
			return s.wrap("migration "+m.file, err)
		}
	}
	if err := more(ctx); err != nil {
		return s.wrap("migrating", err)
	}
	return nil
}
