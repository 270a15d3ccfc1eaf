package validate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/manifest"
)

// Tool is what the validator needs of one tool: which tool it is, its
// parameters (in call order) and its input schemas. FromTool and
// FromManifest build it from a resolved or a compiled tool.
type Tool struct {
	ID ir.ToolID
	Py ir.PyIdent // the tool's Python name, for api.<service>.<py> in messages
	// Params are the tool's parameters: Arg is the argument key a call
	// passes, Py the Python parameter name messages use.
	Params []Param
	// Input is the schema calls are checked against; Original, when set
	// and different, the upstream's schema before enrichment, checked too.
	Input, Original ir.Schema
}

// Param is one parameter of a Tool.
type Param struct {
	Arg string
	Py  ir.PyIdent
}

// FromTool is the Tool of a resolved tool of the given service.
func FromTool(service ir.ServiceName, t *ir.Tool) Tool {
	vt := Tool{ID: ir.ToolID{Service: service, Wire: t.Wire}, Py: t.Py, Input: t.Input, Original: t.Original}
	for _, p := range t.Params {
		vt.Params = append(vt.Params, Param{Arg: p.Arg, Py: p.Py})
	}
	return vt
}

// FromManifest is the Tool of a compiled tool of the given service.
func FromManifest(service ir.ServiceName, t *manifest.Tool) Tool {
	vt := Tool{ID: ir.ToolID{Service: service, Wire: t.Wire}, Py: t.Py, Input: t.Input, Original: t.Original}
	for _, p := range t.Params {
		vt.Params = append(vt.Params, Param{Arg: p.Arg, Py: p.Py})
	}
	return vt
}

// FromServices lists every tool of the given services, for New.
func FromServices(services []*ir.Service) []Tool {
	var out []Tool
	for _, s := range services {
		for _, t := range s.Tools {
			out = append(out, FromTool(s.Name, t))
		}
	}
	return out
}

// ErrUnknownTool is wrapped by Check's error for a tool New was not given.
var ErrUnknownTool = errors.New("unknown tool")

// Diagnostic records a schema that could not be compiled. Calls to its tool
// are not checked against that schema (see the package comment).
type Diagnostic struct {
	Service ir.ServiceName
	Tool    ir.WireName
	Schema  string // "input" (the enriched schema) or "original"
	Err     error
}

func (d Diagnostic) String() string {
	return fmt.Sprintf("warning: %s.%s: %s schema not compiled, calls are not validated against it: %v [%s]",
		d.Service, d.Tool, d.Schema, d.Err, ir.DiagUncompiledSchema)
}

// entry is one tool, compiled.
type entry struct {
	call   string            // api.<service>.<py>
	py     map[string]string // Arg -> Python parameter name
	params []string          // Python names in call order, for "the arguments are"
	args   []string          // Args in call order, for "did you mean"
	docs   map[string]any    // resource URL -> the schema document, for pointer lookups
	lim    Limits
	keys   *keyRule

	// first is the tool's schemas as compiled on its first Check. When
	// they have patterns only the backtracking engine runs, each Check
	// needs a copy with a budget of its own: free holds the copies not in
	// use, and more are compiled when concurrent calls need them.
	first  *compiled
	pooled bool // first has backtracking patterns: one copy per Check
	mu     sync.Mutex
	free   []*compiled

	// The schemas are compiled on the tool's first Check (a pack of
	// thousands of operations starts at once and pays only for what runs).
	once                  sync.Once
	service               ir.ServiceName
	tool                  ir.WireName
	index                 int
	srcInput, srcOriginal ir.Schema
	diags                 []Diagnostic
}

// compiled is one compiled copy of a tool's schemas, with the budget its
// backtracking patterns spend.
type compiled struct {
	input, orig *jsonschema.Schema
	st          *budget
}

// maxFree is how many idle compiled copies a tool keeps.
const maxFree = 8

// Validator checks arguments against compiled schemas. It is immutable
// after New and safe for concurrent use.
type Validator struct {
	tools map[ir.ToolID]*entry
}

// New takes every tool's Input schema and, when it is set and differs from
// Input, its Original schema; each is compiled on the tool's first Check. A
// schema that does not compile is recorded as a Diagnostic and calls to that
// tool skip it.
// New fails only on a tool given twice or one without a name. Checks run within
// DefaultLimits.
func New(tools []Tool) (*Validator, error) {
	return NewWithLimits(tools, Limits{})
}

// NewWithLimits is New with other limits; zero fields take the defaults.
func NewWithLimits(tools []Tool, lim Limits) (*Validator, error) {
	lim = lim.withDefaults()
	v := &Validator{tools: make(map[ir.ToolID]*entry, len(tools))}
	for i, t := range tools {
		if t.ID.Wire == "" {
			return nil, fmt.Errorf("validate: tool %d of service %q has no name", i, t.ID.Service)
		}
		if _, dup := v.tools[t.ID]; dup {
			return nil, fmt.Errorf("validate: tool %s given twice", t.ID)
		}
		e := &entry{
			call: "api." + string(t.ID.Service) + "." + string(t.Py),
			py:   map[string]string{},
			docs: map[string]any{},
			lim:  lim,
		}
		for _, p := range t.Params {
			e.py[p.Arg] = string(p.Py)
			e.params = append(e.params, string(p.Py))
			e.args = append(e.args, p.Arg)
		}
		e.service, e.tool, e.index, e.srcInput = t.ID.Service, t.ID.Wire, i, t.Input
		if t.Original != nil && !reflect.DeepEqual(t.Original, t.Input) {
			e.srcOriginal = t.Original
		}
		v.tools[t.ID] = e
	}
	return v, nil
}

// ensure compiles e's schemas once.
func (e *entry) ensure() {
	e.once.Do(func() {
		e.keys = newKeyRule(e.args, e.srcInput, e.lim)
		c := &compiled{st: &budget{lim: e.lim}}
		var err error
		c.input, err = e.compile(fmt.Sprintf("mem:///tools/%d/input.json", e.index), e.srcInput, c.st, true)
		if err != nil {
			e.diags = append(e.diags, Diagnostic{e.service, e.tool, "input", err})
		}
		if e.srcOriginal != nil {
			c.orig, err = e.compile(fmt.Sprintf("mem:///tools/%d/original.json", e.index), e.srcOriginal, c.st, true)
			if err != nil {
				e.diags = append(e.diags, Diagnostic{e.service, e.tool, "original", err})
			}
		}
		e.first = c
		if c.st.backtracking.Load() > 0 {
			e.pooled = true
			e.free = append(e.free, c)
		}
	})
}

// acquire returns a compiled copy for one Check. A copy without
// backtracking patterns has no state and serves every Check at once.
func (e *entry) acquire() (*compiled, error) {
	if !e.pooled {
		return e.first, nil
	}
	e.mu.Lock()
	if n := len(e.free); n > 0 {
		c := e.free[n-1]
		e.free = e.free[:n-1]
		e.mu.Unlock()
		c.st.reset()
		return c, nil
	}
	e.mu.Unlock()
	// The first copy compiled, so this one does too; should it not, the
	// call is refused rather than let through unchecked.
	c := &compiled{st: &budget{lim: e.lim}}
	var err error
	if e.first.input != nil {
		c.input, err = e.compile(fmt.Sprintf("mem:///tools/%d/input.json", e.index), e.srcInput, c.st, false)
	}
	if e.first.orig != nil && err == nil {
		c.orig, err = e.compile(fmt.Sprintf("mem:///tools/%d/original.json", e.index), e.srcOriginal, c.st, false)
	}
	return c, err
}

func (e *entry) release(c *compiled) {
	if !e.pooled {
		return
	}
	e.mu.Lock()
	if len(e.free) < maxFree {
		e.free = append(e.free, c)
	}
	e.mu.Unlock()
}

// Diagnostics compiles every schema not compiled yet and lists those that
// could not be, by service and tool.
func (v *Validator) Diagnostics() []Diagnostic {
	var out []Diagnostic
	for _, e := range v.tools {
		e.ensure()
		out = append(out, e.diags...)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Service != b.Service {
			return a.Service < b.Service
		}
		if a.Tool != b.Tool {
			return a.Tool < b.Tool
		}
		return a.Schema < b.Schema
	})
	return out
}

// compile compiles one schema document under url. A nil schema checks
// nothing. The document is copied through encoding/json first, so the
// compiled schema shares nothing with the IR and every number is a
// json.Number whatever built the map.
// Its backtracking patterns spend st; keep records the document for
// messages (the first compile only).
func (e *entry) compile(url string, s ir.Schema, st *budget, keep bool) (*jsonschema.Schema, error) {
	if s == nil {
		return nil, nil
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	c := newCompiler(st)
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	sch, err := c.Compile(url)
	if err != nil {
		return nil, err
	}
	if keep {
		e.docs[url] = doc
	}
	return sch, nil
}

// Check validates the arguments object of one call (keys are Param.Arg,
// values as decoded by encoding/json with UseNumber) against the tool's
// enriched schema, then against its original schema. Before any schema
// runs, the arguments must fit the limits (depth, size, values) and hold
// no key the tool does not take (see keyRule). It returns nil, an *Error
// written for the model, or an error wrapping ErrUnknownTool.
func (v *Validator) Check(service ir.ServiceName, tool ir.WireName, args map[string]any) error {
	e := v.tools[ir.ToolID{Service: service, Wire: tool}]
	if e == nil {
		return fmt.Errorf("validate: %w %s.%s", ErrUnknownTool, service, tool)
	}
	e.ensure()
	var inst any = args
	if args == nil {
		inst = map[string]any{}
	}
	if msg := e.lim.measure(args); msg != "" {
		return &Error{Kind: "ValueError", Tool: e.call, Problems: []Problem{{Kind: "ValueError", Message: msg}}}
	}
	if keys := e.keys.undeclared(args); len(keys) > 0 {
		return e.unknownKeys(keys)
	}
	c, err := e.acquire()
	if err != nil {
		return &Error{Kind: "ValueError", Tool: e.call, Problems: []Problem{{Kind: "ValueError", Message: "the arguments could not be checked: " + err.Error()}}}
	}
	defer e.release(c)
	for _, s := range [...]*jsonschema.Schema{c.input, c.orig} {
		if s == nil {
			continue
		}
		err := s.Validate(inst)
		if c.st.refusal != "" {
			out := e.overBudget(c.st, inst)
			out.Original = s == c.orig
			return out
		}
		if err == nil {
			continue
		}
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			out := e.explain(ve, inst)
			out.Original = s == c.orig
			return out
		}
		// Not a JSON value (a Go int slice, a struct): the binder's bug,
		// but say it in the same voice.
		return &Error{Kind: "TypeError", Tool: e.call, Expected: "JSON values", Given: err.Error(),
			lines: []string{"arguments must be JSON values: " + err.Error()}}
	}
	return nil
}

// overBudget words a refusal the pattern budget made: the value (or key)
// it is about, found in the arguments, and the budget's reason.
func (e *entry) overBudget(st *budget, inst any) *Error {
	subject := "a value"
	if loc, isKey, ok := findString(inst, st.value, nil); ok {
		path := e.pyPath(loc, inst)
		switch {
		case isKey && path == "":
			subject = "argument name '" + short(st.value) + "'"
		case isKey:
			subject = "key '" + short(st.value) + "' of argument " + path
		default:
			subject = "argument " + path
		}
	}
	p := Problem{Kind: "ValueError", Given: plural(len([]rune(st.value)), "character"),
		Message: subject + " " + st.refusal + "; the call was refused"}
	if strings.HasPrefix(subject, "argument ") && !strings.HasPrefix(subject, "argument name") {
		p.Param = strings.TrimPrefix(subject, "argument ")
	}
	return &Error{Kind: p.Kind, Tool: e.call, Param: p.Param, Given: p.Given, Problems: []Problem{p}}
}

// short cuts a key or value quoted in a message to 64 characters.
func short(s string) string {
	if r := []rune(s); len(r) > 64 {
		return string(r[:61]) + "..."
	}
	return s
}

// findString finds s in the instance: the location of the first string
// value equal to s, or of the first object that has s as a key (isKey).
func findString(inst any, s string, loc []string) ([]string, bool, bool) {
	switch x := inst.(type) {
	case string:
		return loc, false, x == s
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if k == s {
				return loc, true, true
			}
		}
		for _, k := range keys {
			if l, isKey, ok := findString(x[k], s, append(loc[:len(loc):len(loc)], k)); ok {
				return l, isKey, true
			}
		}
	case []any:
		for i, v := range x {
			if l, isKey, ok := findString(v, s, append(loc[:len(loc):len(loc)], strconv.Itoa(i))); ok {
				return l, isKey, true
			}
		}
	}
	return nil, false, false
}

// pyPath renders an instance location as the model wrote it: the Python
// parameter name, then [i] for list items and .key for dict keys.
func (e *entry) pyPath(loc []string, inst any) string {
	var b strings.Builder
	cur := inst
	for i, tok := range loc {
		var next any
		switch c := cur.(type) {
		case []any:
			b.WriteString("[" + tok + "]")
			var n int
			if _, err := fmt.Sscan(tok, &n); err == nil && n >= 0 && n < len(c) {
				next = c[n]
			}
		case map[string]any:
			next = c[tok]
			if i == 0 {
				if py, ok := e.py[tok]; ok {
					tok = py
				}
				b.WriteString(tok)
			} else {
				b.WriteString("." + tok)
			}
		default:
			b.WriteString("." + tok)
		}
		cur = next
	}
	return b.String()
}

// valueAt returns the instance value at loc.
func valueAt(inst any, loc []string) any {
	cur := inst
	for _, tok := range loc {
		switch c := cur.(type) {
		case []any:
			var n int
			if _, err := fmt.Sscan(tok, &n); err != nil || n < 0 || n >= len(c) {
				return nil
			}
			cur = c[n]
		case map[string]any:
			cur = c[tok]
		default:
			return nil
		}
	}
	return cur
}

// schemaAt returns the schema object a ValidationError's SchemaURL names.
func (e *entry) schemaAt(loc string) map[string]any {
	base, frag, _ := strings.Cut(loc, "#")
	cur := e.docs[base]
	if frag != "" {
		for _, tok := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
			if u, err := url.PathUnescape(tok); err == nil {
				tok = u
			}
			tok = ir.UnescapeToken(tok)
			switch c := cur.(type) {
			case map[string]any:
				cur = c[tok]
			case []any:
				var n int
				if _, err := fmt.Sscan(tok, &n); err != nil || n < 0 || n >= len(c) {
					return nil
				}
				cur = c[n]
			default:
				return nil
			}
		}
	}
	m, _ := cur.(map[string]any)
	return m
}
