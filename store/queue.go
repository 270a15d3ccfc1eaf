package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivertype"
)

// queue is River's client, whatever its driver's transaction type.
type queue interface {
	start(ctx context.Context, w Worker) error
	insert(ctx context.Context, ref JobRef, o EnqueueOptions) (int64, error)
	cancel(ctx context.Context, id int64) error
	stop(ctx context.Context) error
}

// jobArgs is what River keeps of a job: which session's job to run. Every
// job kind goes through it (the kind is the store's, in Job.Kind), so a kind
// is added without touching the queue.
type jobArgs struct {
	JobRef
	TimeoutMS int64 `json:"timeout_ms"`
}

func (jobArgs) Kind() string { return "codemode_job" }

type riverWorker struct {
	river.WorkerDefaults[jobArgs]
	w Worker
}

func (rw *riverWorker) Work(ctx context.Context, job *river.Job[jobArgs]) error {
	return rw.w(ctx, job.Args.JobRef)
}

func (rw *riverWorker) Timeout(job *river.Job[jobArgs]) time.Duration {
	if job.Args.TimeoutMS > 0 {
		return time.Duration(job.Args.TimeoutMS) * time.Millisecond
	}
	return 0
}

type riverQueue[TTx any] struct {
	drv riverdriver.Driver[TTx]
	c   *river.Client[TTx]
	log io.Writer // River's errors
}

func newRiverQueue[TTx any](drv riverdriver.Driver[TTx], logf func(string, ...any)) queue {
	return &riverQueue[TTx]{drv: drv, log: logWriter(logf)}
}

// logWriter writes each line to logf; nil discards them.
func logWriter(logf func(string, ...any)) io.Writer {
	if logf == nil {
		return io.Discard
	}
	return writerFunc(func(p []byte) (int, error) {
		logf("job queue: %s", strings.TrimRight(string(p), "\n"))
		return len(p), nil
	})
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// rescueAfter is when River takes a running job as stuck: past the longest
// max_runtime a job may have. A replica's death is noticed much sooner, by
// the store (its heartbeat), which reports the job's outcome unknown and
// cancels its River job, so River's rescue never re-runs it.
const rescueAfter = 25 * time.Hour

func (q *riverQueue[TTx]) start(ctx context.Context, w Worker) error {
	workers := river.NewWorkers()
	if err := river.AddWorkerSafely(workers, &riverWorker{w: w}); err != nil {
		return err
	}
	c, err := river.NewClient(q.drv, &river.Config{
		Queues:               map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 32}},
		Workers:              workers,
		JobTimeout:           -1,
		RescueStuckJobsAfter: rescueAfter,
		// Inserts wake the replicas at once (PostgreSQL's LISTEN/NOTIFY;
		// on SQLite River's outbox table, polled every 50 ms); the poll
		// is the fallback.
		FetchPollInterval: time.Second,
		FetchCooldown:     10 * time.Millisecond,
		Logger:            slog.New(slog.NewTextHandler(q.log, &slog.HandlerOptions{Level: slog.LevelError})),
	})
	if err != nil {
		return fmt.Errorf("the job queue (River): %v", err)
	}
	if err := c.Start(ctx); err != nil {
		return fmt.Errorf("the job queue (River) did not start: %v", err)
	}
	q.c = c
	return nil
}

func (q *riverQueue[TTx]) insert(ctx context.Context, ref JobRef, o EnqueueOptions) (int64, error) {
	res, err := q.c.Insert(ctx, jobArgs{JobRef: ref, TimeoutMS: o.Timeout.Milliseconds()}, &river.InsertOpts{MaxAttempts: max(o.MaxAttempts, 1)})
	if err != nil {
		return 0, err
	}
	return res.Job.ID, nil
}

func (q *riverQueue[TTx]) cancel(ctx context.Context, id int64) error {
	_, err := q.c.JobCancel(ctx, id)
	if errors.Is(err, rivertype.ErrNotFound) {
		return nil
	}
	return err
}

func (q *riverQueue[TTx]) stop(ctx context.Context) error {
	if q.c == nil {
		return nil
	}
	// Jobs still running are cancelled: their outcome is for the next
	// replica that reads them to settle (the store's replica row goes).
	err := q.c.StopAndCancel(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		return nil // jobs still running are left to the next replica's verdict
	}
	return err
}

// StartQueue implements Store.
func (s *sqlStore) StartQueue(ctx context.Context, w Worker) error {
	s.qmu.Lock()
	defer s.qmu.Unlock()
	if s.queue != nil {
		return errors.New("store: the job queue is already started")
	}
	if s.opts.NoReplica {
		return errors.New("store: opened without a replica, it runs no jobs")
	}
	q := s.newQueue()
	if err := q.start(ctx, w); err != nil {
		return s.wrap("starting the job queue", err)
	}
	s.queue = q
	return nil
}

func (s *sqlStore) q0() (queue, error) {
	s.qmu.Lock()
	defer s.qmu.Unlock()
	if s.queue == nil {
		return nil, errors.New("store: the job queue is not started")
	}
	return s.queue, nil
}

// Enqueue implements Store.
func (s *sqlStore) Enqueue(ctx context.Context, ref JobRef, o EnqueueOptions) (_ int64, err error) {
	defer s.observe("queue.insert", time.Now(), &err)
	q, err := s.q0()
	if err != nil {
		return 0, err
	}
	id, err := q.insert(ctx, ref, o)
	return id, s.wrap("queueing job "+ref.Name, err)
}

// CancelQueued implements Store.
func (s *sqlStore) CancelQueued(ctx context.Context, id int64) error {
	if id == 0 {
		return nil
	}
	q, err := s.q0()
	if err != nil {
		return err
	}
	return s.wrap("cancelling a queued job", q.cancel(ctx, id))
}
