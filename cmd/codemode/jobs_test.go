package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/runtime"
	"github.com/codemode-dev/codemode/store"
)

// TestJobsCommandReadsStore: codemode jobs list, get and wait read the
// store a gateway keeps; wait returns once the job is no longer running
// and fails at its timeout while it is; a missing job is a one-line error.
func TestJobsCommandReadsStore(t *testing.T) {
	state := t.TempDir()
	st, err := store.Open(context.Background(), filepath.Join(state, runtime.StoreFile), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	save := func(sj *runtime.SessionJobs) error {
		return runtime.UpdateSession(context.Background(), st, "job-42", func(cur *runtime.SessionJobs) error {
			*cur = *sj
			return nil
		})
	}
	started := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	sj := &runtime.SessionJobs{Jobs: map[string]*runtime.Job{
		"build": {Name: "build", Kind: "call", Tool: "api.ci.build", State: runtime.JobRunning, Started: started, MaxRuntime: 600},
		"lint":  {Name: "lint", Kind: "call", Tool: "api.ci.lint", State: runtime.JobDone, Result: "clean", Started: started, Ended: started.Add(time.Second), MaxRuntime: 600},
	}}
	if err := save(sj); err != nil {
		t.Fatal(err)
	}
	cli := func(args ...string) (string, string, int) {
		var out, errb bytes.Buffer
		code := run(append([]string{"jobs"}, args...), nil, &out, &errb)
		return out.String(), errb.String(), code
	}
	if out, _, code := cli("list", "--state", state, "--session", "job-42"); code != 0 || out != "build\trunning\tapi.ci.build\nlint\tdone\tapi.ci.lint\n" {
		t.Fatalf("list: %d %q", code, out)
	}
	if out, _, code := cli("get", "--state", state, "--session", "job-42", "lint"); code != 0 || !strings.Contains(out, `"result": "clean"`) {
		t.Fatalf("get: %d %q", code, out)
	}
	if _, errs, code := cli("wait", "--state", state, "--session", "job-42", "--timeout", "1ms", "build"); code != 1 || errs != "codemode jobs wait: job \"build\" is still running after 1ms\n" {
		t.Fatalf("wait on a running job: %d %q", code, errs)
	}
	sj.Jobs["build"].State, sj.Jobs["build"].Result = runtime.JobDone, "ok"
	if err := save(sj); err != nil {
		t.Fatal(err)
	}
	if out, _, code := cli("wait", "--state", state, "--session", "job-42", "build"); code != 0 || !strings.Contains(out, `"state": "done"`) {
		t.Fatalf("wait on an ended job: %d %q", code, out)
	}
	if _, errs, code := cli("get", "--state", state, "--session", "other", "build"); code != 1 || errs != "codemode jobs get: session \"other\" has no job named \"build\"\n" {
		t.Fatalf("another session: %d %q", code, errs)
	}
	if _, _, code := cli("get", "--state", state, "build"); code != 2 {
		t.Fatalf("no --session: exit %d", code)
	}
}
