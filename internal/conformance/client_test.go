package conformance

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// envDirect set to 1 makes the client an agent in front of `codemode serve
// --direct` instead of a program.
const envDirect = "CODEMODE_CONFORMANCE_DIRECT"

// directCalls are the direct-mode agent's calls in each client scenario:
// tool and arguments.
var directCalls = map[string]struct {
	tool string
	args map[string]any
}{
	"tools_call":                          {"add_numbers", map[string]any{"a": 5, "b": 3}},
	"sse-retry":                           {"test_reconnection", nil},
	"elicitation-sep1034-client-defaults": {"test_client_elicitation_defaults", nil},
}

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
	if os.Getenv(envDirect) == "1" {
		steps = steps[:1]
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
	if os.Getenv(envDirect) == "1" {
		return agent(bin, dir, scenario)
	}
	return 0
}

// agent is an agent's client (go-sdk) running `codemode serve --direct` on
// the pack in dir over stdio and making the scenario's call; it answers an
// elicitation by accepting every default of the requested schema.
func agent(bin, dir, scenario string) int {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.Command(bin, "serve", "--direct", "-c", filepath.Join(dir, "codemode.yaml"), "--audit", "off")
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	c := mcp.NewClient(&mcp.Implementation{Name: "conformance-agent", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			content := map[string]any{}
			if schema, ok := req.Params.RequestedSchema.(map[string]any); ok {
				props, _ := schema["properties"].(map[string]any)
				for name, p := range props {
					if d, ok := p.(map[string]any)["default"]; ok {
						content[name] = d
					}
				}
			}
			return &mcp.ElicitResult{Action: "accept", Content: content}, nil
		},
	})
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "conformance agent:", err)
		return 1
	}
	defer cs.Close()
	if call, ok := directCalls[scenario]; ok {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: call.tool, Arguments: call.args})
		if err != nil {
			fmt.Fprintln(os.Stderr, "conformance agent:", err)
			return 1
		}
		for _, c := range res.Content {
			if t, ok := c.(*mcp.TextContent); ok {
				fmt.Println(t.Text)
			}
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
	// The auth scenarios need the pack's auth: key written from the
	// scenario's context: cmd/codemode's TestConformanceAuthClient runs
	// them so, with its own pass list; only the others are listed here.
	var lines []string
	for _, l := range suiteRun(t, tl, env, "client", "--command", self, "--suite", "all", "--timeout", "20000") {
		if !strings.Contains(l, " auth/") {
			lines = append(lines, l)
		}
	}
	comparePassList(t, "client", "codemode as the client of the suite's servers (codemode gen, codemode run): conformance client scenarios but auth (see cmd/codemode/testdata/conformance)", lines)
}

// TestConformanceClientDirect runs the suite's core client scenarios
// against codemode serve --direct as the client of the suite's servers,
// with an agent in front (the agent function): what a direct session
// forwards (elicitation) reaches the agent's client.
func TestConformanceClientDirect(t *testing.T) {
	tl := needTools(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env := []string{envClient + "=" + codemodeBin, envDirect + "=1", "CODEMODE_MONTY=" + tl.monty}
	// The auth scenarios exercise the same upstream connection as
	// TestConformanceClient's; only the others are listed here.
	var lines []string
	for _, l := range suiteRun(t, tl, env, "client", "--command", self, "--suite", "core", "--timeout", "20000") {
		if !strings.Contains(l, " auth/") {
			lines = append(lines, l)
		}
	}
	comparePassList(t, "client-direct", "an agent in front of codemode serve --direct, the client of the suite's servers: conformance core client scenarios but auth", lines)
}
