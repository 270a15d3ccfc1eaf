package conformance

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// programs are what the client runs in each client scenario, as an agent
// would: a call to the scenario server's tool. A scenario not named here
// (initialize, the auth scenarios) runs codemode gen only, which connects,
// initializes and lists the tools.
var programs = map[string]string{
	"tools_call":                          "print(api.conf.add_numbers(a=5, b=3))\n",
	"sse-retry":                           "print(api.conf.test_reconnection())\n",
	"elicitation-sep1034-client-defaults": "print(api.conf.test_client_elicitation_defaults())\n",
}

// client is the client under test: the suite runs the test binary with
// the scenario's server URL as the last argument and the scenario in
// $MCP_CONFORMANCE_SCENARIO. It compiles a pack naming that server (codemode
// gen), then runs the scenario's program against it (codemode run), as a
// user would.
func client(bin string, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "conformance client: no server URL")
		return 2
	}
	url := args[len(args)-1]
	scenario := os.Getenv("MCP_CONFORMANCE_SCENARIO")
	dir, err := os.MkdirTemp("", "codemode-conformance-client")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	yaml := fmt.Sprintf("out: api\nservices:\n  - name: conf\n    mcp_url: %s\nruntime:\n  read_gate: off\n", url)
	if err := os.WriteFile(filepath.Join(dir, "codemode.yaml"), []byte(yaml), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	steps := [][]string{{"gen", "-c", filepath.Join(dir, "codemode.yaml")}}
	if prog, ok := programs[scenario]; ok {
		file := filepath.Join(dir, "program.py")
		if err := os.WriteFile(file, []byte(prog), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		steps = append(steps, []string{"run", "-c", filepath.Join(dir, "codemode.yaml"), "--audit", "off", file})
	}
	for _, step := range steps {
		cmd := exec.Command(bin, step...)
		cmd.Dir = dir
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintf(os.Stderr, "conformance client: codemode %s: %v\n", step[0], err)
			return 1
		}
	}
	return 0
}

// TestConformanceClient runs the suite's client scenarios against codemode
// as the client of the suite's servers (codemode gen, then codemode run).
func TestConformanceClient(t *testing.T) {
	tl := needTools(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env := []string{envClient + "=" + codemodeBin, "CODEMODE_MONTY=" + tl.monty}
	comparePassList(t, "client", "codemode as the client of the suite's servers (codemode gen, codemode run): conformance client scenarios",
		suiteRun(t, tl, env, "client", "--command", self, "--suite", "all", "--timeout", "20000"))
}
