package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/runtime"
	"github.com/codemode-dev/codemode/store"
)

// TestJobsGetShowedLostRetryJobRunning pins the defect: codemode jobs kept
// its own copy of the lost-job rule, which missed a read-only job that had
// used up its attempts when its gateway died: the gateway reports it
// unknown, jobs get said it was still running.
func TestJobsGetShowedLostRetryJobRunning(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "state.db")
	st, err := store.Open(ctx, db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = runtime.UpdateSession(ctx, st, "s", func(sj *runtime.SessionJobs) error {
		sj.Jobs["r"] = &runtime.Job{Name: "r", Kind: "call", Tool: "api.slow.read", State: runtime.JobRunning,
			Started: time.Now().UTC(), MaxRuntime: 600, Owner: "a-replica-long-gone", Retry: true, Attempt: runtime.MaxJobAttempts}
		return nil
	})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out, err := (&exec.Cmd{Path: exe, Args: []string{"codemode", "jobs", "get", "--store", db, "--session", "s", "r"}, Env: os.Environ()}).CombinedOutput()
	if err != nil {
		t.Fatalf("jobs get: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), `"state": "unknown"`) || !strings.Contains(string(out), runtime.LostJob) {
		t.Fatalf("jobs get:\n%s", out)
	}
}
