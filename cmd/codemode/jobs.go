package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/codemode-dev/codemode/pack"
	"github.com/codemode-dev/codemode/runtime"
	"github.com/codemode-dev/codemode/store"
)

// cmdJobs is "codemode jobs list|get|wait|approve|deny --session ID [JOB|WAIT]":
// it reads the store a gateway keeps (beside the pack, in --state DIR, or
// the --store / pack's store: database), for a workflow engine that holds a run until a job ends. wait
// polls until the job is no longer running, or fails at --timeout; approve
// resolves the session's pending wait (the one named WAIT, if given), so
// its next run_code runs, and lists the calls it approved; deny resolves it
// with those calls refused (--reason says why to the agent).
func cmdJobs(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	const use = "usage: codemode jobs list|get|wait|approve|deny [-c codemode.yaml] [--state DIR] [--store STORE] --session ID [--timeout DURATION] [--reason TEXT] [JOB|WAIT]"
	if len(args) == 0 || !slices.Contains([]string{"list", "get", "wait", "approve", "deny"}, args[0]) {
		return usageErr(use)
	}
	sub := args[0]
	fs := newFlags("jobs "+sub, stderr)
	config := fs.String("c", "codemode.yaml", "pack `FILE` (its jobs are in .codemode/state.db beside it, or in its store:)")
	state := fs.String("state", "", "the gateway's --state `DIR` (its jobs are in DIR/state.db)")
	storeFlag := fs.String("store", "", "the gateway's --store `STORE` (a SQLite file or a postgres:// URL)")
	session := fs.String("session", "", "the agent session `ID` (the _meta \"codemode/session\" name; over authenticated HTTP, \"token:…\"/name)")
	timeout := fs.Duration("timeout", 10*time.Minute, "with wait, give up after `DURATION`")
	reason := fs.String("reason", "", "with deny, the `TEXT` the agent is told")
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if *session == "" {
		return usageErr("codemode jobs %s: --session is required\n%s", sub, use)
	}
	resolve := sub == "approve" || sub == "deny"
	if !resolve && (sub == "list") != (fs.NArg() == 0) || fs.NArg() > 1 {
		return usageErr(use)
	}
	var loc string
	opts := store.Options{NoReplica: true}
	if *storeFlag != "" || *state != "" {
		loc = storeLocation(nil, *storeFlag, *state, "")
		// A pack named too gives the store's timings (when a gateway is
		// taken as lost).
		if flagSet(fs, "c") {
			p, err := pack.Load(*config)
			if err != nil {
				return err
			}
			opts = p.StoreOptions(opts)
		}
	} else {
		p, err := pack.Load(*config)
		if err != nil {
			return err
		}
		loc = storeLocation(p, "", "", defaultStore(p))
		opts = p.StoreOptions(opts)
	}
	st, err := store.Open(ctx, loc, opts)
	if err != nil {
		return &exitError{1, "codemode jobs " + sub + ": " + err.Error()}
	}
	defer st.Close()
	load := func() (*runtime.SessionJobs, error) {
		sj, err := runtime.LoadSession(ctx, st, *session)
		if err != nil {
			return nil, err
		}
		for _, j := range sj.Jobs {
			if runtime.Lost(j) {
				// As the gateway will report it on its next read.
				j.State, j.Error = runtime.JobUnknown, runtime.LostJob
			}
		}
		return sj, nil
	}
	if resolve {
		var w *runtime.JobWait
		err := runtime.UpdateSession(ctx, st, *session, func(sj *runtime.SessionJobs) (err error) {
			if sub == "deny" {
				w, err = runtime.DenyWait(sj, fs.Arg(0), *reason)
			} else {
				w, err = runtime.ApproveWait(sj, fs.Arg(0))
			}
			return err
		})
		if errors.Is(err, runtime.ErrNoWait) {
			return &exitError{1, fmt.Sprintf("codemode jobs %s: session %q has no pending wait", sub, *session)}
		}
		if err != nil {
			return &exitError{1, "codemode jobs " + sub + ": " + err.Error()}
		}
		fmt.Fprintf(stdout, "%s %s: %s\n", map[string]string{"approve": "approved", "deny": "denied"}[sub], w.ID, w.What())
		for _, c := range w.Calls {
			fmt.Fprintf(stdout, "  %s\n", c)
		}
		return nil
	}
	sj, err := load()
	if err != nil {
		return err
	}
	if sub == "list" {
		if w := sj.Wait; w != nil {
			fmt.Fprintf(stdout, "wait %s\t%s\tuntil %s\n", w.ID, w.What(), w.Deadline.Format(time.RFC3339))
			for _, c := range w.Calls {
				fmt.Fprintf(stdout, "  %s\n", c)
			}
		}
		names := make([]string, 0, len(sj.Jobs))
		for n := range sj.Jobs {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			j := sj.Jobs[n]
			fmt.Fprintf(stdout, "%s\t%s\t%s\n", j.Name, j.State, j.Tool)
		}
		return nil
	}
	name := fs.Arg(0)
	deadline := time.Now().Add(*timeout)
	for {
		j, ok := sj.Jobs[name]
		if !ok {
			return &exitError{1, fmt.Sprintf("codemode jobs %s: session %q has no job named %q", sub, *session, name)}
		}
		if sub == "get" || j.State != runtime.JobRunning {
			b, _ := json.MarshalIndent(j, "", "  ")
			fmt.Fprintf(stdout, "%s\n", b)
			return nil
		}
		if time.Now().After(deadline) {
			return &exitError{1, fmt.Sprintf("codemode jobs wait: job %q is still running after %s", name, *timeout)}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
		if sj, err = load(); err != nil {
			return err
		}
	}
}

// flagSet says the flag name was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
