package runtime

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/manifest"
	"github.com/codemode-dev/codemode/readgate"
	"github.com/codemode-dev/codemode/runtime/monty"
	"github.com/codemode-dev/codemode/runtime/sandbox"
	"github.com/codemode-dev/codemode/runtime/upstream"
	"github.com/codemode-dev/codemode/store"
	"github.com/codemode-dev/codemode/validate"
	"golang.org/x/sync/semaphore"
)

// Config configures a Runtime.
type Config struct {
	// Manifest is the compiled surface (manifest.Read of manifest.json).
	Manifest *manifest.Manifest
	// Files are the generated .py files by name ("memory.py"), served to
	// help() and to readers; FileDir is the directory name shown for them
	// ("api").
	Files   map[string][]byte
	FileDir string
	// Upstreams connect each service; a service without one refuses calls.
	Upstreams map[ir.ServiceName]upstream.Upstream

	// Runner starts the interpreters programs run in; nil runs them in
	// Monty workers (MontyRunner) of MontyBin, "" finding the pinned
	// binary (monty.FindBinary).
	Runner   NewRunner
	MontyBin string
	Workers  int // workers kept ready; default 2
	// MaxWorkers is how many workers the pool may keep ready while
	// programs wait for one (it grows by one per program that waited, and
	// shrinks back to Workers after 30s without a wait); default
	// 4×Workers, and never below Workers.
	MaxWorkers int
	Limits     Limits
	// MemoryBudget bounds the sum of the memory limits (Limits.Memory) of
	// the programs running at once; a program waits for room (as long as
	// its context allows) rather than overcommit. Default
	// DefaultMemoryBudget; it must be at least Limits.Memory.
	MemoryBudget uint64
	// NoTypeCheck turns Monty's type check of programs off.
	NoTypeCheck bool
	// NoSandbox runs the Monty workers outside the OS sandbox (package
	// runtime/sandbox; a pack's runtime.sandbox: none): Monty is then the
	// only wall between a program and the host. Unsafe.
	NoSandbox bool

	// ReadGate is the read-gate mode; programs run by a gateway use
	// readgate.PerFile, a trusted CLI run uses readgate.Off.
	ReadGate readgate.Mode
	// Grants lists, per service, the wire names of the tools programs may
	// call, exactly; a service absent from a non-nil Grants, or with an
	// empty list, has nothing granted; nil Grants grants everything. A name
	// that is no tool's wire name is an error of New. Ungranted tools are
	// invisible: Manifest, File and Lines show a view without them.
	Grants map[ir.ServiceName][]string
	// NoPins turns off the comparison of live tool definitions (of
	// upstreams that can list them: MCP servers) with the manifest's pins.
	NoPins bool
	// PinTTL is how old a service's last look at its live tools may be
	// before a call looks again; default DefaultPinTTL.
	PinTTL time.Duration
	// PinReport, when set, receives the refusals (or the error) of every
	// check of a service's live tools, e.g. for a log.
	PinReport func(service ir.ServiceName, refused []string, err error)
	// Rules are the pack's launch policy per tool (deny, allowed values,
	// approval), checked before the hooks; see [Rule].
	Rules map[ir.ToolID]Rule
	// Hooks run around every call, in order.
	Hooks []Policy
	// NotesMeta and WaitMeta name, per service, the MCP _meta keys that
	// carry a note for the agent and mark a result as a wait.
	NotesMeta map[ir.ServiceName]string
	WaitMeta  map[ir.ServiceName]string

	// Persistent keeps one Monty session per agent session across programs,
	// dumped to StateDir after each program and restored into a new worker.
	Persistent bool
	StateDir   string
	// SessionTTL is how long a persistent session's state is kept after
	// its last program (across reconnects and gateway restarts); default
	// DefaultSessionTTL. Older states are discarded, with a note.
	SessionTTL time.Duration

	// WaitTimeout is how long a call's wait (a policy hook's, an
	// upstream's wait_meta) holds the session unless an approver resolves
	// it first; default DefaultWaitTimeout.
	WaitTimeout time.Duration

	// MaxParallel caps the api.aio calls one program has running at once;
	// default DefaultMaxParallel.
	MaxParallel int

	// Store keeps the sessions' jobs, waits, persistent state and reads,
	// and runs the jobs (package store); the caller closes it. Nil opens
	// the SQLite store StateDir/state.db, or a temporary one without a
	// StateDir, which the runtime closes.
	Store store.Store

	// Audit receives one event per run and per call; nil records nothing.
	Audit Auditor
}

// Limits bound one program. Zero values take the defaults.
type Limits struct {
	Time   time.Duration // wall time; default 30s
	Memory uint64        // bytes of sandbox heap; default 256 MiB
	Calls  int           // tool calls; default 200
	Output int           // bytes of printed output kept; default 32 KiB
	// ErrorText is the bytes of error text kept; default 32 KiB.
	ErrorText int
	// CallBytes caps the encoded arguments of one call a program makes
	// (what it hands the host); default 8 MiB.
	CallBytes int
}

// DefaultMemoryBudget is Config.MemoryBudget's default: four programs at
// the default memory limit.
const DefaultMemoryBudget = 1 << 30

func (l Limits) withDefaults() Limits {
	if l.Time <= 0 {
		l.Time = 30 * time.Second
	}
	if l.Memory == 0 {
		l.Memory = 256 << 20
	}
	if l.Calls <= 0 {
		l.Calls = 200
	}
	if l.Output <= 0 {
		l.Output = 32 << 10
	}
	if l.ErrorText <= 0 {
		l.ErrorText = 32 << 10
	}
	if l.CallBytes <= 0 {
		l.CallBytes = 8 << 20
	}
	return l
}

// Runtime runs programs. It is safe for concurrent use: each Run takes its
// own worker.
type Runtime struct {
	cfg       Config
	limits    Limits
	runner    Runner
	newRunner NewRunner // starts the runner and each warm set's (warmsets.go)
	validator *validate.Validator
	gate      *readgate.Gate
	tools     map[toolKey]*toolEntry
	byWire    map[string][]*toolEntry // wire name → tools (run_tool)
	services  []*manifest.Service
	// source is the whole manifest; cfg.Manifest is the view of the
	// granted tools.
	source    *manifest.Manifest
	stubCache sync.Map // service set → stub source
	// warm says pool workers come configured with every service's stubs
	// and pre-imported: a program only feeds.
	warm bool
	// warmSets keep workers warm for the service sets programs use, when
	// the pool's workers wait unconfigured (see warmsets.go).
	warmSets warmSets
	// newChecker, when set, starts the checkers that type-check programs
	// before they take a worker (checkers.go); checkAll says one checker
	// holds every service's stubs.
	newChecker NewChecker
	checkers   checkerSet
	checkAll   bool
	// apiInputs binds api and run_tool in every program (built once).
	apiInputs []monty.NamedValue

	pins map[ir.ServiceName]*pinned

	sessMu   sync.Mutex
	sessions map[string]*sessionLock // persistent mode: one program at a time per session
	jobs     *jobState

	// budget holds, per running program, its memory limit's bytes;
	// queued counts the programs waiting for room in it.
	budget *semaphore.Weighted
	weight int64 // one program's share: its memory limit
	queued atomic.Int64
}

// Queued is the number of programs waiting for room in the memory budget.
func (r *Runtime) Queued() int { return int(r.queued.Load()) }

// IdleWorkers is the number of sandbox workers ready to be handed out.
func (r *Runtime) IdleWorkers() int {
	if p, ok := r.runner.(interface{ Idle() int }); ok {
		return p.Idle()
	}
	return 0
}

// KeptWorkers is the number of sandbox workers the pool keeps now: Workers,
// up to MaxWorkers after programs waited for one.
func (r *Runtime) KeptWorkers() int {
	if p, ok := r.runner.(interface{ Kept() int }); ok {
		return p.Kept()
	}
	return 0
}

// Ready says whether the runtime can run programs: its worker pool (a
// Runner with a Health method) is open and its workers start.
func (r *Runtime) Ready() error {
	if p, ok := r.runner.(interface{ Health() error }); ok {
		return p.Health()
	}
	return nil
}

// toolKey is a program's address of a tool (api.<service>.<py>), which
// calls are resolved by; the tool's identity elsewhere is its ir.ToolID.
type toolKey struct {
	service ir.ServiceName
	py      string
}

// toolEntry is one callable (granted) tool with everything a call needs.
type toolEntry struct {
	svc  *manifest.Service
	tool *manifest.Tool
}

func (e *toolEntry) call() string { return e.tool.Call }

// New loads the manifest, compiles every schema and starts the worker pool.
// It fails when no worker can start: nothing runs without a sandbox.
func New(ctx context.Context, cfg Config) (*Runtime, error) {
	if cfg.Manifest == nil {
		return nil, errors.New("runtime: no manifest")
	}
	if cfg.FileDir == "" {
		cfg.FileDir = "api"
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 2
	}
	if cfg.MaxWorkers <= 0 {
		cfg.MaxWorkers = 4 * cfg.Workers
	}
	cfg.MaxWorkers = max(cfg.MaxWorkers, cfg.Workers)
	r := &Runtime{
		cfg: cfg, limits: cfg.Limits.withDefaults(),
		tools: map[toolKey]*toolEntry{}, byWire: map[string][]*toolEntry{},
		sessions: map[string]*sessionLock{},
	}
	if cfg.MemoryBudget == 0 {
		cfg.MemoryBudget = DefaultMemoryBudget
	}
	if cfg.MemoryBudget < r.limits.Memory {
		return nil, fmt.Errorf("runtime: the memory budget (%d MiB) is below one program's memory limit (%d MiB): no program could run", cfg.MemoryBudget>>20, r.limits.Memory>>20)
	}
	r.cfg.MemoryBudget = cfg.MemoryBudget
	// Weights are clamped to the semaphore's size: a program never asks
	// for more than all of it, which would wait forever.
	r.budget = semaphore.NewWeighted(int64(min(cfg.MemoryBudget, 1<<62)))
	r.weight = int64(min(r.limits.Memory, 1<<62))
	// From here on the runtime sees the granted tools only.
	vw, err := buildView(cfg.Manifest, cfg.Files, cfg.Grants)
	if err != nil {
		return nil, fmt.Errorf("runtime: %w", err)
	}
	r.source = cfg.Manifest
	r.cfg.Manifest, r.cfg.Files = vw.manifest, vw.files
	var vtools []validate.Tool
	var defs []readgate.Def
	for i := range r.cfg.Manifest.Services {
		s := &r.cfg.Manifest.Services[i]
		r.services = append(r.services, s)
		for j := range s.Tools {
			t := &s.Tools[j]
			e := &toolEntry{svc: s, tool: t}
			r.tools[toolKey{s.Name, string(t.Py)}] = e
			r.byWire[string(t.Wire)] = append(r.byWire[string(t.Wire)], e)
			vtools = append(vtools, validate.FromManifest(s.Name, t))
			defs = append(defs, readgate.Def{
				Service: s.Name, Tool: t.Wire, Py: t.Py,
				File: cfg.FileDir + "/" + s.File, Start: t.Lines[0], End: t.Lines[1],
				Sig: vw.sig[ir.ToolID{Service: s.Name, Wire: t.Wire}],
			})
		}
	}
	v, err := validate.New(vtools)
	if err != nil {
		return nil, err
	}
	r.validator = v
	r.gate = readgate.New(cfg.ReadGate, defs)
	r.newPins()
	r.apiInputs = r.inputs()
	newRunner := cfg.Runner
	if newRunner == nil {
		bin := cfg.MontyBin
		if bin == "" {
			if bin, err = monty.FindBinary(); err != nil {
				return nil, err
			}
		}
		newRunner = MontyRunner(bin, r.startOptions())
		r.newChecker = MontyChecker(bin, r.startOptions())
	}
	if cfg.Persistent && cfg.StateDir == "" {
		return nil, errors.New("runtime: persistent mode needs a StateDir")
	}
	if cfg.StateDir != "" {
		if err := os.MkdirAll(cfg.StateDir, 0o700); err != nil {
			return nil, err
		}
	}
	if err := r.initJobs(ctx); err != nil {
		return nil, err
	}
	r.gate.SetStore(r.jobs.st)
	r.sweepStates()
	r.newRunner = newRunner
	runner, err := newRunner(ctx, r.runnerConfig())
	if err != nil {
		r.closeStore()
		what := "Monty worker"
		if cfg.Runner != nil {
			what = "interpreter of Config.Runner"
		}
		return nil, fmt.Errorf("runtime: no %s could start, so nothing can run: %w", what, err)
	}
	r.runner = runner
	if err := r.startCheckers(ctx); err != nil {
		r.Close()
		return nil, fmt.Errorf("runtime: %w", err)
	}
	return r, nil
}

// warmStubLimit is the size of all services' stubs up to which one checker
// holds all of them (checkers.go), or, with a runner that has no checker,
// workers are configured with all of them and warmed up in the pool, so a
// program pays for neither; above it, each program is checked against the
// stubs of the services it names (by that set's checker, or from a warm
// set's worker when one is ready, see warmsets.go), which keeps type
// checking fast on big packs: every checked feed costs time in proportion
// to the stubs' size (about 1 ms per 10 kB here), so a program using one
// service of a large pack would otherwise pay for all of them.
const warmStubLimit = 32 << 10

// runnerConfig chooses how workers wait in the pool: warmed up with every
// service's stubs when they are small, else unconfigured (configured per
// program, or restored from a persistent session's state).
func (r *Runtime) runnerConfig() RunnerConfig {
	rc := RunnerConfig{Size: r.cfg.Workers, Max: r.cfg.MaxWorkers}
	if r.cfg.Persistent {
		return rc
	}
	stubs := ""
	if !r.cfg.NoTypeCheck {
		stubs = r.stubs(r.services)
		if r.newChecker != nil {
			// Checkers check programs; workers run them unchecked.
			r.checkAll = len(stubs) <= warmStubLimit
			stubs = ""
		} else if len(stubs) > warmStubLimit {
			return rc
		}
	}
	r.warm = true
	wc := r.workerConfig(stubs)
	rc.Config = &wc
	rc.Prepare = r.preImport
	if stubs != "" {
		rc.Prepare = r.warmUp
	}
	return rc
}

// startOptions start workers in the OS sandbox (unless NoSandbox), with
// an address-space limit that leaves room above Monty's own memory limit.
func (r *Runtime) startOptions() monty.StartOptions {
	return monty.StartOptions{
		NoSandbox: r.cfg.NoSandbox,
		Sandbox:   sandbox.Config{AddressSpace: max(sandbox.DefaultAddressSpace, r.limits.Memory+1<<30)},
	}
}

// workerConfig is a fresh program's worker configuration.
func (r *Runtime) workerConfig(stubs string) monty.Config {
	return monty.Config{
		ScriptName:      ScriptName,
		Limits:          monty.Limits{MaxDuration: r.limits.Time, MaxMemory: r.limits.Memory},
		TypeCheck:       stubs != "",
		TypeCheckStubs:  stubs,
		TypeCheckFormat: "concise",
	}
}

const preImportCode = "import json\nimport re\n"

// preImport gives a program json and re, imported before it starts, and
// binds api, run_tool and the rest of the inputs (which stay bound for
// the session's later feeds): a program's own feed then carries none,
// which on a large pack saves encoding and decoding every tool of it.
func (r *Runtime) preImport(ctx context.Context, w Interp) error {
	out, err := w.Feed(ctx, preImportCode, r.apiInputs, monty.Funcs{})
	if err != nil {
		return fmt.Errorf("preparing the sandbox worker: %w", err)
	}
	if !out.OK() {
		return fmt.Errorf("preparing the sandbox worker: %s%s", out.TypingError, excText(out.Exception))
	}
	return nil
}

// Close stops the pool and the upstreams.
func (r *Runtime) Close() error {
	// Jobs still running are left as running in the store: their outcome
	// is unknown to the next runtime, not a failure of this one's closing.
	r.jobs.closed.Store(true)
	r.closeWarmSets()
	r.closeCheckers()
	err := r.runner.Close()
	if cerr := r.closeStore(); err == nil {
		err = cerr
	}
	for _, name := range sortedServices(r.cfg.Upstreams) {
		if cerr := r.cfg.Upstreams[name].Close(); cerr != nil && err == nil {
			err = cerr
		}
	}
	return err
}

// closeStore closes the store if the runtime opened it.
func (r *Runtime) closeStore() error {
	if r.jobs.own {
		return r.jobs.st.Close()
	}
	return nil
}

func sortedServices(m map[ir.ServiceName]upstream.Upstream) []ir.ServiceName {
	names := make([]ir.ServiceName, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return names[i] < names[j] })
	return names
}

// Gate is the runtime's read-gate, for a gateway to record reads.
func (r *Runtime) Gate() *readgate.Gate { return r.gate }

// Manifest is the manifest as programs and agents see it: the granted
// tools only, with their line ranges in the files File serves.
func (r *Runtime) Manifest() *manifest.Manifest { return r.cfg.Manifest }

// Granted reports whether programs may call the tool.
func (r *Runtime) Granted(service ir.ServiceName, tool *manifest.Tool) bool {
	e, ok := r.tools[toolKey{service, string(tool.Py)}]
	return ok && e.tool.Wire == tool.Wire
}

// File returns a generated file's bytes by name ("memory.py"), as agents
// see it: without the ungranted tools.
func (r *Runtime) File(name string) ([]byte, bool) {
	b, ok := r.cfg.Files[filepath.Base(name)]
	return b, ok
}

// ToolLines returns the lines of a tool's definition from its .py file,
// numbered, and records the read for the session's read-gate: call it only
// for text that goes to the agent now (find_tool's answer).
func (r *Runtime) ToolLines(session string, service ir.ServiceName, tool *manifest.Tool) string {
	s, _ := r.cfg.Manifest.Service(service)
	text := r.toolText(s.File, tool)
	r.gate.ReadTool(session, service, tool.Wire)
	return text
}

// toolText is a tool's definition, numbered, after the lines of the
// module docstring it refers to (the parameter docs and notes the module
// says once for several tools), so it reads whole on its own.
func (r *Runtime) toolText(file string, tool *manifest.Tool) string {
	data, _ := r.File(file)
	var b strings.Builder
	for _, n := range manifest.SharedLines(data, tool.Lines[0], tool.Lines[1]) {
		b.WriteString(r.Lines(file, n, n))
	}
	b.WriteString(r.Lines(file, tool.Lines[0], tool.Lines[1]))
	return b.String()
}

// Lines returns lines start..end (1-based, inclusive; 0 = open end) of a
// generated file, each prefixed with its number.
func (r *Runtime) Lines(file string, start, end int) string {
	data, ok := r.File(file)
	if !ok {
		return ""
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if start < 1 {
		start = 1
	}
	if end <= 0 || end > len(lines) {
		end = len(lines)
	}
	var b strings.Builder
	for i := start; i <= end; i++ {
		fmt.Fprintf(&b, "%5d  %s\n", i, lines[i-1])
	}
	return b.String()
}
