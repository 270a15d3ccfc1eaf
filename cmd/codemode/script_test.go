package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/codemode-dev/codemode/golden"
	"github.com/codemode-dev/codemode/internal/testmcp"
	"github.com/codemode-dev/codemode/internal/testpeer"
	"github.com/codemode-dev/codemode/runtime/monty"
)

func TestMain(m *testing.M) {
	os.Exit(testscript.RunMain(m, map[string]func() int{
		"codemode": func() int { return run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr) },
		"testmcp":  func() int { return testmcp.Main(os.Args[1:]) },
	}))
}

// TestScripts runs the CLI flows in testdata/script/*.txtar. With -update,
// a failing cmp against a file of the archive rewrites that file.
func TestScripts(t *testing.T) {
	everything, err := testpeer.NodeBin("mcp-server-everything")
	if err != nil {
		t.Fatal(err)
	}
	montyBin, err := monty.FindBinary()
	if err != nil {
		t.Fatal(err)
	}
	corpus, err := filepath.Abs("../../testdata/corpus")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: golden.Updating(),
		// Scripts reach the real peers: the npm binaries (the reference
		// MCP server) on PATH, and the pinned Monty binary (a script's work
		// directory is outside this module, where codemode would not find
		// tools/npm by itself).
		Setup: func(env *testscript.Env) error {
			env.Setenv("PATH", filepath.Dir(everything)+string(os.PathListSeparator)+env.Getenv("PATH"))
			env.Setenv("CODEMODE_MONTY", montyBin)
			env.Setenv("CORPUS", corpus)
			return nil
		},
		Cmds: map[string]func(*testscript.TestScript, bool, []string){"exit": cmdExit},
	})
}

// cmdExit is "exit CODE PROGRAM ARGS...": run the program and require that
// exact exit status (exec only tells zero from non-zero).
func cmdExit(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exit CODE PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exit: bad code %q", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exit: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with %d, want %d", args[1], got, want)
	}
}
