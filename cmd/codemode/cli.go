package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/codemode-dev/codemode/internal/memguard"
	"github.com/codemode-dev/codemode/runtime/monty"
)

// Version is set at build time with -ldflags "-X main.Version=v1.2.3"; when
// empty, the module version from the build info is used.
var Version = ""

const usage = `codemode compiles API descriptions into typed Python and runs programs against them.

Usage:
  codemode init [sources]
  codemode gen [sources] [-o DIR] [--no-enrich] [--go-package DIR] [--json]
  codemode gen [-c codemode.yaml] [--json] [--store STORE]
  codemode check -c codemode.yaml [--json]
  codemode run -c codemode.yaml [--json] [--state DIR] [--store STORE] PROGRAM.py
  codemode serve -c codemode.yaml [--direct] [--state DIR] [--store STORE] [--http ADDR --token-file FILE]
  codemode tools -c codemode.yaml [--all] [--json]
  codemode enrich -c codemode.yaml --explain TOOL
  codemode audit verify [--head HASH] FILE | [--store] postgres://URL
  codemode jobs list|get|wait|approve|deny [-c codemode.yaml | --state DIR | --store STORE] --session ID [JOB|WAIT]
  codemode auth login|logout|status [-c codemode.yaml] [SERVICE]
  codemode version
  codemode help

Sources (init, gen), each optionally followed by --service NAME:
  --mcp FILE        MCP tools/list output (bare array, {"tools":[...]}, JSON-RPC response)
  --mcp-cmd 'CMD'   a stdio MCP server to start and list
  --mcp-url URL     a streamable-HTTP MCP server
  --openapi FILE    an OpenAPI 2.0/3.0/3.1 document, JSON or YAML
`

// compileGCPercent is the GOGC a command runs with, 0 for the runtime's
// own: the commands that compile a pack once and exit (gen, check, tools,
// enrich) collect garbage a quarter as often, as Go's own compiler starts
// with a larger heap. Most of what a compile allocates dies young; on
// Stripe's spec gen took 0.90× the wall time and 0.84× the CPU of GOGC=100,
// its peak 108 → 131 MiB (still bounded by memguard's limit, which the
// runtime collects harder to stay under). A GOGC set in the environment
// is left as it is.
func compileGCPercent(cmd, env string) int {
	if env != "" {
		return 0
	}
	switch cmd {
	case "gen", "check", "tools", "enrich":
		return 400
	}
	return 0
}

// exitError carries an exit code with its message.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func usageErr(format string, args ...any) error {
	return &exitError{2, fmt.Sprintf(format, args...)}
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	limit, err := memguard.Limit()
	if err != nil {
		fmt.Fprintln(stderr, "codemode: "+err.Error())
		return 2
	}
	defer memguard.Start(limit, stderr)()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The first signal asks for a clean end (serve drains); a second one
	// ends the process at once.
	context.AfterFunc(ctx, stop)
	if pct := compileGCPercent(args[0], os.Getenv("GOGC")); pct > 0 {
		defer debug.SetGCPercent(debug.SetGCPercent(pct))
	}
	switch cmd, rest := args[0], args[1:]; cmd {
	case "gen":
		err = cmdGen(ctx, rest, stdout, stderr)
	case "check":
		err = cmdCheck(ctx, rest, stdout, stderr)
	case "run":
		err = cmdRun(ctx, rest, stdin, stdout, stderr)
	case "serve":
		err = cmdServe(ctx, rest, stdin, stdout, stderr)
	case "enrich":
		err = cmdEnrich(ctx, rest, stdout, stderr)
	case "tools":
		err = cmdTools(ctx, rest, stdout, stderr)
	case "init":
		err = cmdInit(ctx, rest, stdout, stderr)
	case "audit":
		err = cmdAudit(ctx, rest, stdout, stderr)
	case "jobs":
		err = cmdJobs(ctx, rest, stdout, stderr)
	case "auth":
		err = cmdAuth(ctx, rest, stdout, stderr)
	case "version", "--version", "-version":
		fmt.Fprintln(stdout, versionLine())
		fmt.Fprintln(stdout, montyLine(ctx))
	case "help", "-h", "--help", "-help":
		fmt.Fprint(stdout, usage)
	default:
		err = usageErr("codemode: unknown command %q (run codemode help)", cmd)
	}
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintln(stderr, ee.msg)
		}
		return ee.code
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	fmt.Fprintln(stderr, "codemode: "+strings.TrimPrefix(err.Error(), "codemode: "))
	return 1
}

// version is the module version: Version when set at build time, else the
// build info's module version ("v1.2.3" after go install ...@v1.2.3, a
// pseudo-version or "(devel)" for a build in a checkout).
func version() string {
	bi, _ := debug.ReadBuildInfo()
	v, _ := buildVersion(bi, Version)
	return v
}

// versionLine is what codemode version prints: the version and, for a build
// from a checkout, the VCS revision (and "modified" when the tree had
// uncommitted changes).
func versionLine() string {
	bi, _ := debug.ReadBuildInfo()
	v, rev := buildVersion(bi, Version)
	if rev == "" {
		return "codemode " + v
	}
	return "codemode " + v + " (" + rev + ")"
}

// montyLine names the Monty binary run and the pack would use from here
// and its version, or why none was found.
func montyLine(ctx context.Context) string {
	bin, err := monty.FindBinaryNear(".")
	if err != nil {
		if msg := err.Error(); strings.HasPrefix(msg, "monty: ") {
			return msg
		}
		return "monty: " + err.Error()
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--version")
	cmd.Env = []string{}
	out, err := cmd.Output()
	if err != nil {
		return fmt.Sprintf("monty: %s (its version could not be read: %v)", bin, err)
	}
	return fmt.Sprintf("monty: %s (%s)", bin, strings.TrimSpace(string(out)))
}

func buildVersion(bi *debug.BuildInfo, ldflag string) (version, revision string) {
	version = "(devel)"
	if bi != nil && bi.Main.Version != "" {
		version = bi.Main.Version
	}
	if ldflag != "" {
		version = ldflag
	}
	if bi == nil {
		return version, ""
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev == "" {
		return version, ""
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	revision = "revision " + rev
	if modified == "true" {
		revision += ", modified"
	}
	return version, revision
}

// newFlags returns a FlagSet that reports errors instead of exiting.
func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("codemode "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// parseFlags parses and turns a flag error into a usage error (exit 2).
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return &exitError{2, ""}
	}
	return nil
}
