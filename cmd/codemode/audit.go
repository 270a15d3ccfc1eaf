package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/codemode-dev/codemode/audit"
	"github.com/codemode-dev/codemode/pack"
	"github.com/codemode-dev/codemode/store"
)

// cmdAudit is "codemode audit verify [--head HASH] FILE|URL": exit 0 with
// "ok: N events (head H)" when the hash chain holds, 1 naming every bad line
// otherwise. Calls whose intent has no outcome (and runs with no end) are
// listed as unknown. --head is a head kept from an earlier verify: if it is
// no longer in the file, the log was truncated or rewritten since. With
// $CODEMODE_AUDIT_KEY set, every line must carry that key's HMAC. A
// postgres:// URL (the argument, or --store; "$VAR" reads it from the
// environment) verifies the database's chain, naming rows by seq.
func cmdAudit(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	const use = "usage: codemode audit verify [--head HASH] FILE | [--store] postgres://URL"
	if len(args) == 0 || args[0] != "verify" {
		return usageErr(use)
	}
	fs := newFlags("audit verify", stderr)
	head := fs.String("head", "", "a head `HASH` kept from earlier: fail if the log no longer holds it (truncated or rewritten)")
	storeLoc := fs.String("store", "", "verify the chain in the PostgreSQL database at `URL` (postgres://…, or $VAR holding it)")
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if (*storeLoc == "") == (fs.NArg() != 1) || fs.NArg() > 1 {
		return usageErr(use)
	}
	file := *storeLoc
	if file == "" {
		file = fs.Arg(0)
	}
	loc, err := audit.ExpandLocation(file)
	if err != nil {
		return err
	}
	opts := audit.VerifyOptions{Key: audit.KeyFromEnv(), Head: *head}
	var res audit.Result
	unit := "line"
	if audit.IsPostgres(loc) {
		file, unit = audit.Redact(loc), "row"
		res, err = audit.VerifyPostgres(ctx, loc, opts)
	} else if *storeLoc != "" {
		return usageErr("codemode audit verify: --store %s: want a postgres:// URL (a file is the argument)", file)
	} else {
		res, err = audit.VerifyWith(file, opts)
	}
	var le *audit.LineError
	if err != nil && !errors.As(err, &le) {
		return err
	}
	var bad []string
	for _, p := range res.Problems {
		bad = append(bad, fmt.Sprintf("%s: %s %d: %s", file, unit, p.Line, p.Reason))
	}
	if *head != "" && res.HeadLine == 0 {
		bad = append(bad, fmt.Sprintf("%s: head %s is not in the log: it was truncated or rewritten after that head was taken", file, *head))
	}
	for _, u := range res.Unknown {
		line := u.String()
		if unit == "row" {
			line = "row " + strings.TrimPrefix(line, "line ")
		}
		fmt.Fprintf(stdout, "unknown: %s\n", line)
	}
	if len(bad) > 0 {
		return &exitError{1, strings.Join(bad, "\n")}
	}
	h := ""
	if res.Head != "" {
		h = " (head " + res.Head + ")"
	}
	fmt.Fprintf(stdout, "ok: %d events%s\n", res.Events, h)
	if *head != "" {
		fmt.Fprintf(stdout, "the kept head is %s %d\n", unit, res.HeadLine)
	}
	return nil
}

// openAudit opens the audit log run writes: FILE, a postgres:// URL (or a
// $VAR holding either), none for "off", or, when path is "", the chain of
// a PostgreSQL store (storeLoc) or .codemode/audit.jsonl beside the pack.
// A chain found broken is reported through warn (and recorded); the log
// goes on.
func openAudit(ctx context.Context, p *pack.Pack, path, storeLoc string, warn func(string, ...any)) (audit.Sink, error) {
	if path == "" && store.IsPostgres(storeLoc) {
		// Replicas and runs sharing a PostgreSQL store share its chain.
		path = storeLoc
	}
	return audit.OpenLocation(ctx, path, p.Path(filepath.Join(".codemode", "audit.jsonl")),
		audit.Options{Key: audit.KeyFromEnv(), Warn: func(msg string) { warn("AUDIT: %s", msg) }})
}
