package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/codemode-dev/codemode/golden"
	"github.com/codemode-dev/codemode/internal/testoauth"
	"github.com/codemode-dev/codemode/runtime/monty"
)

// TestAuthScripts runs the codemode auth flows in testdata/auth/*.txtar
// against a real OAuth authorization server and the MCP server it guards
// (internal/testoauth). Scripts write their pack with "oauthpack FILE
// [headless]" and check files with "notoken FILE...": no token the
// authorization server issued is in them.
func TestAuthScripts(t *testing.T) {
	montyBin, err := monty.FindBinary()
	if err != nil {
		t.Fatal(err)
	}
	srv := testoauth.New(t, testoauth.Options{})
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/auth",
		UpdateScripts: golden.Updating(),
		Setup: func(env *testscript.Env) error {
			env.Setenv("CODEMODE_MONTY", montyBin)
			return nil
		},
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			"exit": cmdExit,
			"oauthpack": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) < 1 {
					ts.Fatalf("usage: oauthpack FILE [headless]")
				}
				headless := len(args) > 1 && args[1] == "headless"
				pack := fmt.Sprintf("services:\n  - name: guarded\n    mcp_url: %s\n    auth: {type: oauth, headless: %v, redirect_url: %q}\n", srv.MCP, headless, testoauth.FreeRedirect(t))
				ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(pack), 0o644))
			},
			"notoken": func(ts *testscript.TestScript, neg bool, args []string) {
				issued := srv.Issued()
				if len(issued) == 0 {
					ts.Fatalf("notoken: the authorization server issued no token")
				}
				for _, pattern := range args {
					files, _ := filepath.Glob(ts.MkAbs(pattern))
					if len(files) == 0 {
						ts.Fatalf("notoken: no file %s", pattern)
					}
					for _, f := range files {
						b, err := os.ReadFile(f)
						ts.Check(err)
						for _, tok := range issued {
							if strings.Contains(string(b), tok) {
								ts.Fatalf("%s holds a token", f)
							}
						}
					}
				}
			},
		},
	})
}
