package runtime

import (
	"context"
	"time"
)

// The jobs' event hook: what a gateway needs to tell a session's client
// that its jobs or its wait changed (see gateway's jobs resource).

// OnJobsChange calls f(session) after every change this runtime saves to
// a session's jobs or wait (a job submitted, ended or cancelled, a wait
// recorded, resolved or cleared). f is called after the store's locks are
// released and must not block for long. Changes made by another process
// (codemode jobs approve, another replica) and deadlines passing are not
// seen here: read the store with SessionJobs to notice them.
func (r *Runtime) OnJobsChange(f func(session string)) {
	if f == nil {
		r.jobs.changed.Store(nil)
		return
	}
	r.jobs.changed.Store(&f)
}

// notifyChanged calls the OnJobsChange hook, if any.
func (js *jobState) notifyChanged(session string) {
	if f := js.changed.Load(); f != nil {
		(*f)(session)
	}
}

// SessionJobs is a snapshot of a session's jobs and wait as the store has
// them now: one read, and a write only when a job must be settled (its
// replica is gone, or it is overdue), as run_code settles it.
func (r *Runtime) SessionJobs(session string) (*SessionJobs, error) {
	ctx, stop := context.WithTimeout(context.Background(), storeTimeout)
	defer stop()
	sj, err := LoadSession(ctx, r.jobs.st, session)
	if err != nil {
		return nil, err
	}
	for _, j := range sj.Jobs {
		if j.State == JobRunning && (j.OwnerGone || time.Since(j.Started) > time.Duration(j.MaxRuntime*float64(time.Second))+jobGrace) {
			return r.jobs.view(session)
		}
	}
	return sj, nil
}

// Holds says whether w still holds its session at now: a call wait until
// its deadline, a job wait until every job it awaits has ended or the
// deadline passes (as run_code decides).
func (w *JobWait) Holds(sj *SessionJobs, now time.Time) bool {
	if !now.Before(w.Deadline) {
		return false
	}
	if len(w.Jobs) == 0 {
		return true
	}
	for _, n := range w.Jobs {
		if j, ok := sj.Jobs[n]; ok && j.State == JobRunning {
			return true
		}
	}
	return false
}
