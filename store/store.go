// Package store keeps what outlives one program and one gateway process:
// each session's jobs and pending wait, its persistent state (the Monty
// dump and the names its programs defined), the read-gate's reads, and the
// replicas that run jobs. Jobs are executed by River
// (github.com/riverqueue/river) on the same database.
//
// There is one interface, Store, and two implementations behind Open: an
// embedded SQLite file (modernc.org/sqlite, no cgo; the default, beside the
// pack as .codemode/state.db) and PostgreSQL (pgx), selected by a
// postgres:// URL, which several gateways ("replicas") share. Both run
// their versioned migrations, and River's, at Open; a database whose
// schema is newer than this binary knows is refused.
//
// The package sits beside runtime and readgate rather than under runtime:
// the read-gate, the runtime, the gateway and the CLI all use it, and it
// depends on none of them.
package store

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"
)

// Job states.
const (
	JobRunning   = "running"
	JobDone      = "done"
	JobFailed    = "failed"
	JobCancelled = "cancelled"
	JobUnknown   = "unknown"
)

// Job is one background job of a session.
type Job struct {
	Name string `json:"name"`
	// Kind says what the job runs: "call" (one tool call, Tool with
	// Args). Another kind adds its own fields to Spec, not to the store.
	Kind       string         `json:"kind"`
	Tool       string         `json:"tool"`
	Args       map[string]any `json:"args,omitempty"`
	Spec       map[string]any `json:"spec,omitempty"`
	State      string         `json:"state"`
	Result     any            `json:"result,omitempty"`
	Error      string         `json:"error,omitempty"`
	Started    time.Time      `json:"started"`
	Ended      time.Time      `json:"ended,omitzero"`
	MaxRuntime float64        `json:"max_runtime"` // seconds
	// Owner is the replica that runs it ("" while it is queued); a running
	// job whose owner is gone has an unknown outcome.
	Owner string `json:"owner"`
	// RunID is the run that submitted it, and Call the number of the job's
	// call in that run: its call is audited under both.
	RunID string `json:"run,omitempty"`
	Call  int    `json:"call,omitempty"`
	// Token names this run of the job in the queue: a queued run whose
	// token is not the job's (an earlier one) does nothing.
	Token string `json:"token,omitempty"`
	// Retry says the job may run again after its owner died (its tool is
	// read-only or idempotent); Attempt counts its runs.
	Retry   bool `json:"retry,omitempty"`
	Attempt int  `json:"attempt,omitempty"`
	// QueueID is the job's id in River's queue.
	QueueID int64 `json:"queue_id,omitempty"`

	// OwnerGone is set by the store when the job runs and its owner is
	// gone (stopped, killed, or silent for longer than the store's
	// DeadAfter).
	OwnerGone bool `json:"-"`
}

// Session is what the store keeps of one session's jobs.
type Session struct {
	Jobs map[string]*Job
	// Record is the rest of what the runtime keeps of the session (its
	// pending wait, how the last one was resolved, approvals), as JSON
	// the store keeps without reading it.
	Record json.RawMessage
}

// State is a persistent session's saved state.
type State struct {
	Dump  []byte
	Names []string
	Saved time.Time
}

// Read is one line range of a file a session read (1-based, inclusive).
type Read struct {
	File   string
	Lo, Hi int
}

// JobRef names a queued job: what River carries.
type JobRef struct {
	Session string `json:"session"`
	Name    string `json:"name"`
	// Token is the job's Token when it was queued.
	Token string `json:"token"`
}

// Worker runs one queued job; the store calls it from River's workers.
type Worker func(ctx context.Context, ref JobRef) error

// EnqueueOptions say how River runs a job.
type EnqueueOptions struct {
	// MaxAttempts is 1 unless the job may run again (a read-only or
	// idempotent tool).
	MaxAttempts int
	// Timeout bounds one run (the job's max_runtime, and a margin).
	Timeout time.Duration
}

// Store is the durable state of sessions, jobs and replicas.
type Store interface {
	// Session returns a session's jobs and record, empty when it has none.
	Session(ctx context.Context, session string) (*Session, error)
	// Update changes a session's jobs and record under the session's lock
	// (a transaction holding its row; the database's write lock on
	// SQLite); an error from f changes nothing and is returned.
	Update(ctx context.Context, session string, f func(*Session) error) error

	// State returns a session's saved state, nil when it has none.
	State(ctx context.Context, session string) (*State, error)
	SaveState(ctx context.Context, session string, st *State) error
	DeleteState(ctx context.Context, session string) error
	// QuarantineState moves a state that cannot be restored aside (kept
	// for inspection, never overwritten by the session's next state).
	QuarantineState(ctx context.Context, session string) error

	// Lease takes the session for this replica for d (one program): it
	// fails with ErrLeased while another replica holds it. Release gives
	// it back.
	Lease(ctx context.Context, session string, d time.Duration) error
	Release(ctx context.Context, session string) error

	AddRead(ctx context.Context, session string, r Read) error
	Reads(ctx context.Context, session string) ([]Read, error)
	ForgetReads(ctx context.Context, session string) error

	// Sweep drops what is older than ttl: saved states, reads, ended jobs.
	Sweep(ctx context.Context, ttl time.Duration) error

	// Replica is this process's id among the replicas sharing the store.
	Replica() string
	// StartQueue starts working queued jobs with w (River's client); it is
	// called once.
	StartQueue(ctx context.Context, w Worker) error
	// Enqueue queues a job; it needs StartQueue first.
	Enqueue(ctx context.Context, ref JobRef, o EnqueueOptions) (int64, error)
	// CancelQueued cancels a queued job, or asks the replica running it to.
	CancelQueued(ctx context.Context, id int64) error

	// Describe says which store this is, for messages ("SQLite
	// /p/.codemode/state.db", "PostgreSQL db@host").
	Describe() string
	Close() error
}

// ErrNewerSchema is wrapped by Open's error for a database migrated by a
// newer codemode.
var ErrNewerSchema = errors.New("the store's schema is newer than this codemode knows")

// ErrLeased is Lease's error while another replica runs a program of the
// session.
var ErrLeased = errors.New("the session is running a program on another replica")

// IsPostgres says whether a store location names PostgreSQL.
func IsPostgres(loc string) bool {
	return strings.HasPrefix(loc, "postgres://") || strings.HasPrefix(loc, "postgresql://")
}
