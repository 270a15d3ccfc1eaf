// Package bench measures codemode: the token economy of direct tool calling
// against code mode on the ops lab (package opslab), compile speed beside
// other generators, and runtime overhead. cmd/bench runs it all and writes
// BENCHMARKS.md; the incident scripts here are fixed (no model), so their
// token counts are reproducible to the token.
package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-dev/codemode/gateway"
	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/opslab"
	"github.com/codemode-dev/codemode/pack"
	"github.com/codemode-dev/codemode/runtime"
	"github.com/codemode-dev/codemode/runtime/upstream"
)

// Step is one tool call of a transcript: what the model sent (Input) and
// what came back to it (Output).
type Step struct {
	Tool    string
	Input   string
	Output  string
	IsError bool
}

// Transcript is one solved task: the prompt, the steps, the final answer.
type Transcript struct {
	Arm    string // "direct" or "code"
	Size   opslab.Size
	Fault  *opslab.Fault
	Prompt string
	Steps  []Step
	Answer string
}

// Prompt is the task an agent is started with: only the ticket's symptom.
func Prompt(f *opslab.Fault) string {
	return fmt.Sprintf("A new incident was filed: %s. Triage it: find the cause from the environment's sources, fix it with an approved job template, verify, and write up the ticket.", f.Symptom)
}

// LabCommand is the argv that serves the lab's services (all when services
// is empty) with a fault planted.
func LabCommand(bin string, size opslab.Size, seed uint64, fault, state string, services ...string) []string {
	argv := []string{bin, "-size", string(size), "-seed", fmt.Sprint(seed)}
	if fault != "" {
		argv = append(argv, "-fault", fault)
	}
	if state != "" {
		argv = append(argv, "-state", state)
	}
	if len(services) > 0 {
		argv = append(argv, "-services", strings.Join(services, ","))
	}
	return argv
}

// Direct is the direct arm's client: every lab tool is a tool of the model,
// and every full response enters the transcript.
type Direct struct {
	cs *mcp.ClientSession
	T  *Transcript
}

// DialDirect starts the lab binary with the fault planted and connects to it
// over stdio with the go-sdk client.
func DialDirect(ctx context.Context, bin string, size opslab.Size, seed uint64, f *opslab.Fault) (*Direct, error) {
	argv := LabCommand(bin, size, seed, f.ID, "")
	c := mcp.NewClient(&mcp.Implementation{Name: "bench-direct", Version: "0.1"}, nil)
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(argv[0], argv[1:]...)}, nil)
	if err != nil {
		return nil, err
	}
	return &Direct{cs: cs, T: &Transcript{Arm: "direct", Size: size, Fault: f, Prompt: Prompt(f)}}, nil
}

// Close ends the session and the lab process.
func (d *Direct) Close() error { return d.cs.Close() }

// Call calls a lab tool, records the step, and decodes the JSON response
// (nil when it is not JSON).
func (d *Direct) Call(ctx context.Context, tool string, args map[string]any) (map[string]any, error) {
	in, _ := json.Marshal(map[string]any{"name": tool, "arguments": args})
	res, err := d.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return nil, err
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	d.T.Steps = append(d.T.Steps, Step{Tool: tool, Input: string(in), Output: text.String(), IsError: res.IsError})
	if res.IsError {
		return nil, fmt.Errorf("%s: %s", tool, text.String())
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(text.String()), &v); err != nil {
		return nil, nil
	}
	return v, nil
}

// ToolDefs lists the tools a server offers, as the JSON a harness puts in
// every request.
func ToolDefs(ctx context.Context, cs *mcp.ClientSession) ([]string, error) {
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, t := range res.Tools {
		b, err := json.Marshal(t)
		if err != nil {
			return nil, err
		}
		out = append(out, string(b))
	}
	return out, nil
}

// Tools lists the direct arm's tool definitions.
func (d *Direct) Tools(ctx context.Context) ([]string, error) { return ToolDefs(ctx, d.cs) }

// Code is the code-mode arm's client: the model sees the gateway's tools
// (find_tool, run_code, read_api); programs run for real in Monty against
// the lab, and only find_tool's answers and run_code's Text() enter the
// transcript.
type Code struct {
	rt *runtime.Runtime
	cs *mcp.ClientSession
	T  *Transcript
}

// LabPack writes a pack for the lab to dir: one service per lab system,
// each an opslab process with the fault planted, and out: pointing at
// apiDir. With a fault, the processes share their state through a file in
// dir.
func LabPack(dir, apiDir, bin string, size opslab.Size, seed uint64, fault string) (*pack.Pack, error) {
	state := ""
	if fault != "" {
		state = filepath.Join(dir, "lab-state.json")
		os.Remove(state)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "out: %s\nservices:\n", apiDir)
	for _, s := range opslab.Services {
		argv, _ := json.Marshal(LabCommand(bin, size, seed, fault, state, s))
		fmt.Fprintf(&b, "  - name: %s\n    mcp_command: %s\n", s, argv)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "codemode.yaml")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return nil, err
	}
	return pack.Load(path)
}

// CompileLab compiles the lab with codemode into apiDir (the pack lives in
// dir) and returns the compile output.
func CompileLab(ctx context.Context, dir, apiDir, bin string, size opslab.Size, seed uint64) (*pack.Output, error) {
	p, err := LabPack(dir, apiDir, bin, size, seed, "")
	if err != nil {
		return nil, err
	}
	out, err := pack.Compile(ctx, p, pack.Options{})
	if err != nil {
		return nil, err
	}
	return out, out.Write()
}

// DialCode opens a runtime over the compiled lab (apiDir) with the fault
// planted, and connects an MCP client to the gateway serving it.
func DialCode(ctx context.Context, dir, apiDir, bin string, size opslab.Size, seed uint64, f *opslab.Fault) (*Code, error) {
	fid := ""
	if f != nil {
		fid = f.ID
	}
	// The surface was compiled from the clean lab; the runtime opens over
	// that pack (the manifest records its commands) and then talks to the
	// same servers with the fault planted: the same tools, other data.
	faulted, err := LabPack(dir, apiDir, bin, size, seed, fid)
	if err != nil {
		return nil, err
	}
	p, err := LabPack(dir, apiDir, bin, size, seed, "")
	if err != nil {
		return nil, err
	}
	env, err := upstream.ServerEnv(nil)
	if err != nil {
		return nil, err
	}
	rt, err := p.OpenRuntime(ctx, func(c *runtime.Config) {
		c.Limits.Calls = 2000
		for _, src := range faulted.Services {
			c.Upstreams[ir.ServiceName(src.Name)] = upstream.NewMCPCommand(src.MCPCommand, env)
		}
	})
	if err != nil {
		return nil, err
	}
	g, err := gateway.New(gateway.Config{Runtime: rt})
	if err != nil {
		rt.Close()
		return nil, err
	}
	st, ct := mcp.NewInMemoryTransports()
	if _, err := g.MCP().Connect(ctx, st, nil); err != nil {
		rt.Close()
		return nil, err
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "bench-code", Version: "0.1"}, nil)
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		rt.Close()
		return nil, err
	}
	code := &Code{rt: rt, cs: cs}
	if f != nil {
		code.T = &Transcript{Arm: "code", Size: size, Fault: f, Prompt: Prompt(f)}
	}
	return code, nil
}

// Runtime is the runtime behind the gateway.
func (c *Code) Runtime() *runtime.Runtime { return c.rt }

// Close ends the session, the runtime and the lab processes.
func (c *Code) Close() error {
	c.cs.Close()
	return c.rt.Close()
}

// Tools lists the code-mode arm's tool definitions (the gateway's).
func (c *Code) Tools(ctx context.Context) ([]string, error) { return ToolDefs(ctx, c.cs) }

func (c *Code) call(ctx context.Context, tool string, args map[string]any) (string, error) {
	in, _ := json.Marshal(map[string]any{"name": tool, "arguments": args})
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return "", err
	}
	var text strings.Builder
	for _, ct := range res.Content {
		if tc, ok := ct.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	c.T.Steps = append(c.T.Steps, Step{Tool: tool, Input: string(in), Output: text.String(), IsError: res.IsError})
	if res.IsError {
		return text.String(), fmt.Errorf("%s failed:\n%s", tool, text.String())
	}
	return text.String(), nil
}

// Find is find_tool.
func (c *Code) Find(ctx context.Context, query string) (string, error) {
	return c.call(ctx, gateway.FindTool, map[string]any{"query": query})
}

// Run is run_code; it returns run_code's text (notes, printed lines,
// calls, error).
func (c *Code) Run(ctx context.Context, program string) (string, error) {
	return c.call(ctx, gateway.RunCode, map[string]any{"code": program})
}
