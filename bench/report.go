package bench

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Machine describes where the numbers were taken.
type Machine struct {
	CPUs               string
	CPU, Memory, GoVer string
}

// ThisMachine reads nproc, the CPU model, memory and the Go version.
func ThisMachine() Machine {
	m := Machine{CPUs: "?", CPU: "?", Memory: "?", GoVer: "?"}
	if out, err := exec.Command("nproc").Output(); err == nil {
		m.CPUs = strings.TrimSpace(string(out))
	}
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(l, "MemTotal:") {
				var kb int
				fmt.Sscanf(strings.TrimSpace(strings.TrimPrefix(l, "MemTotal:")), "%d", &kb)
				m.Memory = fmt.Sprintf("%.1f GiB", float64(kb)/(1<<20))
			}
		}
	}
	if out, err := exec.Command("go", "version").Output(); err == nil {
		m.GoVer = strings.TrimSpace(string(out))
	}
	return m
}

// Report is everything cmd/bench measured.
type Report struct {
	Date     time.Time
	Machine  Machine
	Seed     uint64
	Labs     []*LabTokens
	Chart    string // relative path of the SVG
	Steps    string // relative path of the per-step listing
	OpenAPI  []CompileResult
	MCP      []CompileResult
	Runtime  *LabRuntime
	GoBench  []GoBench
	Goals    []Goal
	Problems []string // what failed to run, said plainly
}

func pct(a, b int) string {
	if b == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f%%", 100*(1-float64(a)/float64(b)))
}

func ratio(a, b float64) string {
	if b == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f×", a/b)
}

// Markdown renders BENCHMARKS.md.
func (r *Report) Markdown() string {
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	w("# Benchmarks\n\n")
	w("Written by `make bench` (`go run ./cmd/bench`); do not edit by hand. Token numbers are exact and reproduce on every run (the lab's data comes from seed %d and the incident scripts are fixed); times are ratios or medians and move with the machine's load.\n\n", r.Seed)
	w("- date: %s\n- machine: %s CPUs (`nproc`), %s, %s memory\n- %s\n- tokenizer: %s BPE (github.com/tiktoken-go/tokenizer v0.10.0, vocabulary embedded)\n\n", r.Date.UTC().Format("2006-01-02 15:04 MST"), r.Machine.CPUs, r.Machine.CPU, r.Machine.Memory, r.Machine.GoVer, Encoding)
	if len(r.Problems) > 0 {
		w("**Did not run:**\n\n")
		for _, p := range r.Problems {
			w("- %s\n", p)
		}
		w("\n")
	}

	if len(r.Goals) > 0 {
		w("## Performance goals\n\n")
		w("Each value is a ratio (or a time) of things measured side by side in the same benchmark iterations, so both sides see the same machine load; the source names the benchmark and its metric. A goal is met when the value is at or under its target; the pool's hand-out waits are documented, with no target.\n\n")
		w("%s\n", GoalsTable(r.Goals))
	}

	w("## Token economy on the ops lab\n\n")
	w("The ops lab (`opslab`, `cmd/opslab`) is an ITSM, a CMDB, monitoring and an automation controller served over MCP with deterministic data. ")
	w("Five incidents are planted one at a time; each is solved twice by a fixed script (no model): **direct** calls the lab's tools one by one through the go-sdk client and every full response enters the transcript; **code** talks to codemode's gateway (`find_tool`, `run_code`, `read_api`) over the lab compiled with codemode, its programs run for real in Monty against the lab processes, and only `find_tool`'s answers and `run_code`'s text enter the transcript. ")
	w("Both arms do the same work: read the new ticket and the service map, diagnose from metrics, logs, the CMDB and changes, find the fix in the job template catalog, confirm the host, launch, check the job, verify the recovery, and write up the ticket. Each final answer is checked to name the planted fault.\n\n")
	w("Columns: *steps* = tool calls; *output* = tokens of tool output reaching the model; *largest* = the largest single response; *transcript* = prompt + calls + responses at the end; *read* = what the model reads over the task if each step is one turn (tool definitions + transcript so far, summed over turns; the turn count is the steps + 1).\n\n")
	for _, lt := range r.Labs {
		w("### %s lab\n\n", strings.Title(string(lt.Size))) //nolint:staticcheck // ASCII
		w("| offered with every request | tools | tokens |\n|---|---:|---:|\n")
		w("| direct: every lab tool | %d | %d |\n", lt.DirectTools, lt.DirectDefs)
		w("| code mode: the gateway's tools | %d | %d |\n\n", lt.CodeTools, lt.CodeDefs)
		w("| incident | arm | steps | output | largest (tool) | transcript | read | answer names the fault |\n|---|---|---:|---:|---|---:|---:|---|\n")
		var dOut, cOut, dRead, cRead, dPeak, cPeak int
		for _, t := range lt.Tasks {
			w("| %s | direct | %d | %d | %d (%s) | %d | %d | %s |\n", t.Fault.ID, t.Direct.Steps, t.Direct.Output, t.Direct.Largest, t.Direct.LargestTool, last(t.Direct.Growth), t.Direct.Read, yes(t.DirectOK))
			w("| | code | %d | %d | %d (%s) | %d | %d | %s |\n", t.Code.Steps, t.Code.Output, t.Code.Largest, t.Code.LargestTool, last(t.Code.Growth), t.Code.Read, yes(t.CodeOK))
			dOut += t.Direct.Output
			cOut += t.Code.Output
			dRead += t.Direct.Read
			cRead += t.Code.Read
			dPeak = max(dPeak, last(t.Direct.Growth)+lt.DirectDefs)
			cPeak = max(cPeak, last(t.Code.Growth)+lt.CodeDefs)
		}
		w("\nAll five: tool output %d (direct) vs %d (code), %s less; tokens read %d vs %d, %s less; largest request (definitions + transcript) %d vs %d.\n\n", dOut, cOut, pct(cOut, dOut), dRead, cRead, pct(cRead, dRead), dPeak, cPeak)
	}
	if r.Chart != "" {
		w("Transcript growth per step, both arms, both labs: [%s](%s)\n\n![transcript growth](%s)\n\n", r.Chart, r.Chart, r.Chart)
	}
	if r.Steps != "" {
		w("Every step of every transcript (tool, tokens in and out): [%s](%s).\n\n", r.Steps, r.Steps)
	}
	w("No harness truncation is modelled: a harness that cuts large responses (to a file, or to a head and tail) would shrink the direct arm's numbers and lose what was cut.\n\n")

	w("## Compile speed\n\n")
	w("Wall time of one process per input (start to exit), best of several runs, as a ratio to `codemode gen` on the same input (above 1× = slower than codemode). Peers: `%s`, `%s` (built once with `go install` outside this module), `%s` (npm, pinned in tools/npm; its `generateTypesFromJsonSchema` driven by `bench/cftypes.mjs`, one node process per tool list). A peer that exits non-zero is reported as failed with its first error line; its time is then the time to fail.\n\n", OapiCodegen, Ogen, CloudflareCodemode)
	if len(r.OpenAPI)+len(r.MCP) > 0 {
		w("| input | tool | result | time vs codemode | output |\n|---|---|---|---:|---:|\n")
		rows := append(append([]CompileResult(nil), r.OpenAPI...), r.MCP...)
		base := map[string]float64{}
		for _, c := range rows {
			if c.Tool == "codemode gen" {
				base[c.Input] = c.Seconds
			}
		}
		for _, c := range rows {
			res := "ok"
			if !c.OK {
				res = "**failed**: " + strings.ReplaceAll(c.Note, "|", "\\|")
			}
			size := "–"
			if c.OK {
				size = fmt.Sprintf("%.0f KB", float64(c.OutBytes)/1024)
			}
			w("| %s | %s | %s | %s | %s |\n", c.Input, c.Tool, res, ratio(c.Seconds, base[c.Input]), size)
		}
		w("\nThe outputs differ in kind: codemode writes a typed Python surface, a manifest with both schemas and every enrichment decision; oapi-codegen and ogen write Go clients; Cloudflare's generator writes TypeScript declarations only. Whether a peer's output compiles is not checked here.\n\n")
	}

	w("## Runtime\n\n")
	if rt := r.Runtime; rt != nil {
		w("Measured on the small lab (codemode runtime, pool of 4 Monty workers, the lab's controller process as the upstream):\n\n")
		w("| what | value |\n|---|---:|\n")
		w("| warm `run_code` of `print(1)` (median of 60; hand-out, configure, type check, run) | %s |\n", dur(rt.Trivial))
		w("| one upstream call straight from Go (median) | %s |\n", dur(rt.CallDirect))
		w("| one call from a program (%d calls in one program, per call) | %s |\n", rt.Calls, dur(rt.CallProgram))
		w("| per-call overhead of code mode (program call / direct call) | %s |\n", ratio(float64(rt.CallProgram), float64(rt.CallDirect)))
		for _, tp := range rt.Throughput {
			w("| throughput, %d programs of 10 calls, %d at a time | %.1f programs/s |\n", tp.Programs, tp.Concurrency, tp.PerSecond)
		}
		if rt.FindTools > 0 {
			w("| `find_tool` index over all corpus tools (%d tools, %d services) | %s to build |\n", rt.FindTools, rt.FindServices, dur(rt.FindIndex))
			w("| `find_tool` search, top 8 (median over %d queries × 20) | %s |\n", rt.FindQueries, dur(rt.FindQuery))
		}
		w("\n")
	}
	if len(r.GoBench) > 0 {
		w("The repository's own Go benchmarks, run by the same command (`go test -bench`, against the reference MCP servers from tools/npm):\n\n")
		w("| package | benchmark | per op | other |\n|---|---|---:|---|\n")
		for _, g := range r.GoBench {
			var other []string
			for u, v := range g.Metrics {
				if u != "ns/op" && u != "B/op" && u != "allocs/op" {
					other = append(other, fmt.Sprintf("%s %s", dur(time.Duration(v)), strings.TrimPrefix(u, "ns")))
				}
			}
			w("| %s | %s | %s | %s |\n", strings.TrimPrefix(g.Package, "./"), g.Name, dur(time.Duration(g.Metrics["ns/op"])), strings.Join(other, ", "))
		}
		w("\n")
	}
	return b.String()
}

func dur(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.2f ms", float64(d)/1e6)
	case d >= time.Microsecond:
		return fmt.Sprintf("%.1f µs", float64(d)/1e3)
	}
	return fmt.Sprintf("%d ns", d.Nanoseconds())
}

func last(xs []int) int {
	if len(xs) == 0 {
		return 0
	}
	return xs[len(xs)-1]
}

func yes(ok bool) string {
	if ok {
		return "yes"
	}
	return "**no**"
}

// StepsListing lists every step of every transcript with its token counts.
func StepsListing(labs []*LabTokens) string {
	var b strings.Builder
	b.WriteString("# Transcript steps\n\nWritten by `make bench`. Tokens (o200k_base) of each step's call (in) and response (out); the transcript column is the running size.\n")
	for _, lt := range labs {
		for _, t := range lt.Tasks {
			for _, tr := range []*Transcript{t.DirectTranscript, t.CodeTranscript} {
				fmt.Fprintf(&b, "\n## %s lab, %s, %s\n\nAnswer: %s\n\n| step | tool | in | out | transcript |\n|---:|---|---:|---:|---:|\n", lt.Size, t.Fault.ID, tr.Arm, tr.Answer)
				size := Tokens(tr.Prompt)
				fmt.Fprintf(&b, "| 0 | (prompt) | | | %d |\n", size)
				for i, s := range tr.Steps {
					in, out := Tokens(s.Input), Tokens(s.Output)
					size += in + out
					fmt.Fprintf(&b, "| %d | %s `%s` | %d | %d | %d |\n", i+1, s.Tool, callSummary(s), in, out, size)
				}
			}
		}
	}
	return b.String()
}

// callSummary is a step's arguments, shortened for the listing.
func callSummary(s Step) string {
	in := s.Input
	if i := strings.Index(in, `"arguments":`); i >= 0 {
		in = in[i+len(`"arguments":`):]
		in = strings.TrimSuffix(in, "}")
	}
	in = strings.ReplaceAll(strings.ReplaceAll(in, "\\n", " "), "|", "\\|")
	if len(in) > 90 {
		in = in[:90] + "…"
	}
	return strings.ReplaceAll(in, "`", "'")
}

// Chart draws transcript growth per step: one panel per lab size, a line
// per incident and arm.
func Chart(labs []*LabTokens) string {
	colors := []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"}
	var panels []Panel
	for _, lt := range labs {
		p := Panel{Title: fmt.Sprintf("%s lab: transcript tokens after each step", lt.Size)}
		for i, t := range lt.Tasks {
			p.Series = append(p.Series,
				Series{Name: t.Fault.ID + " direct", Color: colors[i%len(colors)], Points: t.Direct.Growth},
				Series{Name: t.Fault.ID + " code", Color: colors[i%len(colors)], Dashed: true, Points: t.Code.Growth})
		}
		panels = append(panels, p)
	}
	return SVG("Transcript growth: direct tool calls (solid) vs code mode (dashed)", panels)
}

// GoalsTable renders the goals as a Markdown table: value beside target.
func GoalsTable(goals []Goal) string {
	var b strings.Builder
	b.WriteString("| goal | value | target | met | source |\n|---|---:|---:|---|---|\n")
	for _, g := range goals {
		val, target, met := "not measured", "–", "–"
		if !math.IsNaN(g.Value) {
			val = fmt.Sprintf("%.*f%s", decimals(g.Value), g.Value, g.Unit)
		}
		if g.Target > 0 {
			target = fmt.Sprintf("≤ %g%s", g.Target, g.Unit)
			met = "**no**"
			if g.Met() {
				met = "yes"
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", g.What, val, target, met, g.Source)
	}
	return b.String()
}

func decimals(v float64) int {
	switch a := math.Abs(v); {
	case a >= 100:
		return 0
	case a >= 10:
		return 1
	case a >= 0.1:
		return 2
	}
	return 3
}
