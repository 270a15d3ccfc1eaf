package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/codemode-dev/codemode/pack"
	"github.com/codemode-dev/codemode/readgate"
	"github.com/codemode-dev/codemode/runtime"
	"github.com/codemode-dev/codemode/store"
)

// cmdRun runs one program against a pack, as a trusted local user: the
// read-gate is off unless the pack's runtime.read_gate turns it on. Pins
// are checked as serve checks them (the runtime does it before each call).
func cmdRun(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("run", stderr)
	config := fs.String("c", "codemode.yaml", "pack `FILE`")
	session := fs.String("session", "cli", "agent session `ID` (persistent mode keeps state per session)")
	state := fs.String("state", "", "keep the session's state across runs in `DIR` (persistent mode)")
	noCheck := fs.Bool("no-type-check", false, "do not type-check the program before running it")
	auditPath := fs.String("audit", "", "append the audit log to `FILE` or a postgres:// URL (or $VAR holding one) (default the PostgreSQL store's chain, else .codemode/audit.jsonl beside the pack; \"off\" for none)")
	noPins := fs.Bool("no-pins", false, "do not compare live MCP tool definitions with the manifest's pins")
	storeFlag := fs.String("store", "", "keep the session, its jobs and waits in `STORE`: a SQLite file or a postgres:// URL (default the pack's store:, else state.db in --state, else nothing is kept)")
	asJSON := fs.Bool("json", false, "print the outcome as one JSON object on stdout: output, notes, calls, error")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErr("usage: codemode run -c codemode.yaml PROGRAM.py (- reads the program from stdin)")
	}
	var code []byte
	var err error
	if fs.Arg(0) == "-" {
		code, err = io.ReadAll(stdin)
	} else {
		code, err = os.ReadFile(fs.Arg(0))
	}
	if err != nil {
		return err
	}
	p, err := loadPack(*config, nil, "")
	if err != nil {
		return err
	}
	loc := storeLocation(p, *storeFlag, *state, "")
	log, err := openAudit(ctx, p, *auditPath, loc, func(format string, a ...any) { fmt.Fprintf(stderr, "codemode run: "+format+"\n", a...) })
	if err != nil {
		return err
	}
	if log != nil {
		defer log.Close()
	}
	if p.Runtime.NoSandbox() {
		fmt.Fprintf(stderr, "codemode run: %s\n", pack.SandboxWarning)
	}
	st, err := openStore(ctx, loc, p.StoreOptions(store.Options{}))
	if err != nil {
		return err
	}
	if st != nil {
		defer st.Close()
	}
	gateSet := p.Runtime.ReadGate != ""
	rt, err := p.OpenRuntime(ctx, func(c *runtime.Config) {
		c.Store = st
		if !gateSet {
			c.ReadGate = readgate.Off
		}
		c.NoTypeCheck = *noCheck
		if log != nil {
			c.Audit = log
		}
		c.NoPins = *noPins
		if *state != "" {
			c.Persistent, c.StateDir = true, *state
		}
	})
	if err != nil {
		return err
	}
	defer rt.Close()
	res, err := rt.Run(ctx, *session, string(code))
	if err != nil {
		return err
	}
	if *asJSON {
		file := fs.Arg(0)
		if file == "-" {
			file = ""
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(runJSON(res, file)); err != nil {
			return err
		}
		if !res.OK() {
			return &exitError{1, ""}
		}
		return nil
	}
	// The program's output, as printed, is the command's output; notes, the
	// call count and the error are codemode's own, on stderr.
	fmt.Fprint(stdout, res.Output)
	summary := res.NotesText() + res.SummaryText()
	if fs.Arg(0) != "-" {
		summary = nameScript(summary, fs.Arg(0))
	}
	fmt.Fprint(stderr, summary)
	if !res.OK() {
		return &exitError{1, ""}
	}
	return nil
}

// nameScript puts the program's file name where the runtime's tracebacks
// and type-check reports name runtime.ScriptName.
func nameScript(text, file string) string {
	const s = runtime.ScriptName
	return strings.NewReplacer(
		`File "`+s+`"`, `File "`+file+`"`,
		s+", line", file+", line",
		s+":", file+":",
	).Replace(text)
}

// runOutcome is run --json's output.
type runOutcome struct {
	OK        bool      `json:"ok"`
	Output    string    `json:"output"`
	Truncated bool      `json:"output_truncated"`
	Dropped   int       `json:"output_dropped_bytes"`
	Notes     []string  `json:"notes"`
	Calls     []runCall `json:"calls"`
	Error     *string   `json:"error"`
	Limit     *string   `json:"limit"`
	Wait      *runWait  `json:"wait"`
	Died      bool      `json:"worker_died"`
}

type runCall struct {
	Tool       string         `json:"tool"`
	Status     runtime.Status `json:"status"`
	Message    string         `json:"message,omitempty"`
	DurationMS int64          `json:"duration_ms"`
}

type runWait struct {
	Tool   string   `json:"tool"`
	Reason string   `json:"reason"`
	ID     string   `json:"id,omitempty"`
	Jobs   []string `json:"jobs,omitempty"`
}

// runJSON is a run's outcome as run --json prints it; file (when not "")
// names the program in the error.
func runJSON(res *runtime.Result, file string) runOutcome {
	out := runOutcome{
		OK: res.OK(), Output: res.Output, Truncated: res.Truncated, Dropped: res.Dropped,
		Notes: res.Notes, Calls: []runCall{}, Died: res.WorkerDied,
	}
	if out.Notes == nil {
		out.Notes = []string{}
	}
	for _, c := range res.Calls {
		out.Calls = append(out.Calls, runCall{Tool: c.Tool, Status: c.Status, Message: c.Message, DurationMS: c.Duration.Milliseconds()})
	}
	if res.Error != "" {
		e := res.Error
		if file != "" {
			e = nameScript(e, file)
		}
		out.Error = &e
	}
	if res.Limit != "" {
		out.Limit = &res.Limit
	}
	if res.Wait {
		out.Wait = &runWait{Tool: res.WaitTool, Reason: res.WaitReason, ID: res.WaitID, Jobs: res.WaitJobs}
	}
	return out
}
