package enrich

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/codemode-dev/codemode/ir"
)

// Kinds of proposal, in the order decisions are logged for one parameter.
const (
	KindEnum           = "enum"
	KindRange          = "range"
	KindLength         = "length"
	KindFormat         = "format"
	KindBoolString     = "bool-string"
	KindStaticDefault  = "static-default"
	KindRuntimeDefault = "runtime-default"
)

// Kinds lists every proposal kind in log order.
var Kinds = []string{KindEnum, KindRange, KindLength, KindFormat, KindBoolString, KindStaticDefault, KindRuntimeDefault}

func kindRank(k string) int {
	for i, x := range Kinds {
		if x == k {
			return i
		}
	}
	return len(Kinds)
}

// RuleProposalsFile is the Rule recorded for a proposal read from a
// proposals file that names no rule of its own.
const RuleProposalsFile = "proposals-file"

// Proposal is one suggested change to one parameter's schema.
type Proposal struct {
	// ID is deterministic: "<tool>#<pointer>#<kind>#<keywords>", the
	// keywords of To sorted and joined with ",". Overrides refer to it.
	ID   string      `json:"id"`
	Tool ir.WireName `json:"tool"`
	// Pointer names the parameter as ir.Param.Pointer does (for nested MCP
	// properties, a pointer into the tool's input schema).
	Pointer string `json:"pointer"`
	Kind    string `json:"kind"`
	// To holds the JSON Schema keywords to merge into the parameter's
	// schema, or {"required": true} for a runtime-default.
	To map[string]any `json:"to"`
	// Evidence is a verbatim span of the parameter's description.
	Evidence string `json:"evidence"`
	Rule     string `json:"rule"`
}

// Decision is a verified proposal: one line of the decisions log.
type Decision struct {
	Proposal
	Accepted bool   `json:"accepted"`
	Reason   string `json:"reason"`
}

// Options configure Run.
type Options struct {
	// Extra proposals (e.g. from a proposals file); each is considered for
	// the tool and pointer it names and verified like a rule's.
	Extra []Proposal
	// Overrides pin decisions by proposal ID: false rejects, true accepts
	// (an accepted override must still pass Verify).
	Overrides map[string]bool
	// Prefetch, when set, holds proposals worked out while the service
	// was parsed (see Prefetch); Run ends it first.
	Prefetch *Prefetch
}

// ProposalID is the deterministic id of a proposal.
func ProposalID(tool ir.WireName, pointer, kind string, to map[string]any) string {
	keys := make([]string, 0, len(to))
	for k := range to {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return string(tool) + "#" + pointer + "#" + kind + "#" + strings.Join(keys, ",")
}

func newProposal(tool ir.WireName, pointer, kind, rule, evidence string, to map[string]any) Proposal {
	return Proposal{
		ID:       ProposalID(tool, pointer, kind, to),
		Tool:     tool,
		Pointer:  pointer,
		Kind:     kind,
		To:       to,
		Evidence: evidence,
		Rule:     rule,
	}
}

// Run enriches every tool of svc in place and returns the decisions in a
// deterministic order: tools in order, parameters in order (for MCP each
// top-level parameter followed by its nested properties), kinds in order.
func Run(svc *ir.Service, opts Options) ([]Decision, error) { return run(svc, opts, nil) }

// run is Run; enriched, when not nil, is called once the i-th tool is
// enriched, after which run changes neither that tool nor svc.Diagnostics
// for it (see RunResolving).
func run(svc *ir.Service, opts Options, enriched func(i int)) ([]Decision, error) {
	if svc == nil {
		return nil, nil
	}
	var all []Decision
	memo := proposalMemo{}
	keys := slotKeys{}
	var reached map[*ir.Tool]bool
	if pf := opts.Prefetch; pf != nil {
		pf.End()
		memo, keys, reached = pf.memo, pf.keys, pf.reached
	}
	memo.prefetch(svc, keys, reached)
	verdicts := verdictMemo{}
	cow := cowMemo{}
	cues := cueMemo{}
	for i, t := range svc.Tools {
		ds, err := runTool(svc, t, opts, memo, keys, verdicts, cow, cues)
		if err != nil {
			return all, fmt.Errorf("enrich %s: %w", t.Wire, err)
		}
		all = append(all, ds...)
		if enriched != nil {
			enriched(i)
		}
	}
	return all, nil
}

// target is one parameter slot found while walking a tool's input schema.
type target struct {
	pointer     string
	description string
	// holder is the map the keywords are merged into; view is what the
	// rules and the verifier see (holder with a $ref resolved).
	holder ir.Schema
	view   ir.Schema
	// ref is the definition holder's $ref names when view is holder with
	// it resolved (one level: ref holds no $ref itself), else nil.
	ref      ir.Schema
	required bool
	// The slot is the property name of an object schema: the input
	// schema of tool, as its parameter param, or else parent (a nested
	// object). setRequired makes it required there. (Fields, not
	// closures: a closure each was two allocations a parameter.)
	name   string
	tool   *ir.Tool
	param  *ir.Param
	parent ir.Schema
	// props, when set, is the "properties" map replace puts a changed copy
	// of holder into, in its place: the holder may be shared with other
	// tools (an OpenAPI parameter's property schema), so it is copied
	// before it is changed.
	props map[string]any
}

// setRequired makes the slot's parameter required.
func (tg *target) setRequired() {
	if tg.param != nil {
		tg.param.Required = true
		addRequired(tg.tool.Input, tg.name)
		return
	}
	addRequired(tg.parent, tg.name)
}

// replaces says whether a change is made to a copy of holder (replace).
func (tg *target) replaces() bool { return tg.props != nil }

// replace puts c in holder's place.
func (tg *target) replace(c ir.Schema) { tg.props[tg.name] = map[string]any(c) }

// slotKeys is the proposal memo's key of a parameter slot whose schema
// is a property schema parse shares and enrich only ever replaces (see
// target.replace), by that map's identity, the description and the
// requiredness: the tools that share a parameter key it once.
type slotKeys map[slotKey]slotVal

type slotKey struct {
	schema      *byte
	ref         *byte // the $ref's definition, for a view resolved from schema
	description string
	required    bool
	name        string // the rules read the parameter's name too
}

type slotVal struct {
	key memoID
	ok  bool
}

// of is memoKey(tg.description, withoutDescription(tg.view), tg.required,
// the name its pointer ends in): what the rules read.
// A view resolved from a $ref is a new map each time, made of the holder
// and the definition, neither of which enrich changes in place: it is
// keyed by both.
func (m slotKeys) of(tg target) (memoID, bool) {
	var k slotKey
	switch {
	case !tg.replaces():
		return memoKey(tg.description, noDescription(tg.view), tg.required, lastSegment(tg.pointer))
	case mapID(tg.view) == mapID(tg.holder):
		k = slotKey{schema: mapID(tg.view), description: tg.description, required: tg.required, name: lastSegment(tg.pointer)}
	case tg.ref != nil:
		k = slotKey{schema: mapID(tg.holder), ref: mapID(tg.ref), description: tg.description, required: tg.required, name: lastSegment(tg.pointer)}
	default:
		return memoKey(tg.description, noDescription(tg.view), tg.required, lastSegment(tg.pointer))
	}
	v, hit := m[k]
	if !hit {
		v.key, v.ok = memoKey(tg.description, noDescription(tg.view), tg.required, lastSegment(tg.pointer))
		m[k] = v
	}
	return v.key, v.ok
}

// cowMemo is the copy a proposal's change makes of a shared holder, by the
// holder's identity and the change: the tools that share a parameter and
// take the same change share the changed copy too.
type cowMemo map[cowKey]ir.Schema

type cowKey struct {
	holder *byte
	to     memoID
}

// change applies p to tg's holder, copying a shared one first (see
// target.replace), and returns tg with its holder (and view, when that is
// the holder) the changed map.
func (m cowMemo) change(tg target, p Proposal) target {
	if !tg.replaces() || p.Kind == KindRuntimeDefault {
		apply(tg.holder, tg.view, p)
		return tg
	}
	sameView := mapID(tg.view) == mapID(tg.holder)
	to, ok := memoKey(p.To)
	key := cowKey{mapID(tg.holder), to}
	c, hit := m[key]
	if !ok || !hit {
		c = maps.Clone(tg.holder)
		apply(c, nil, p)
		if ok {
			m[key] = c
		}
	}
	tg.replace(c)
	tg.holder = c
	if sameView {
		tg.view = c
	} else {
		apply(tg.view, nil, p)
	}
	return tg
}

func mapID(m ir.Schema) *byte { return (*byte)(reflect.ValueOf(m).UnsafePointer()) }

// proposalMemo caches the rules' proposals by what they read: large specs
// repeat the same parameter (description and schema) across hundreds of
// operations, and the rules are pure functions of it.
type proposalMemo map[memoID][]Proposal

// prefetch fills the memo with the proposals for every parameter slot of
// svc's tools as they stand (but those of the tools in reached, which a
// Prefetch has looked at), on up to GOMAXPROCS goroutines: the rules are
// pure and most of enrich's time on a large spec. A slot enrich changes
// before it reaches it is simply missed here and proposed for later.
func (m proposalMemo) prefetch(svc *ir.Service, keys slotKeys, reached map[*ir.Tool]bool) {
	type job struct {
		key         memoID
		description string
		schema      ir.Schema
		required    bool
		name        string
		out         []Proposal
		err         error
	}
	var jobs []*job
	for _, t := range svc.Tools {
		if t.Input == nil || reached[t] {
			continue
		}
		for _, tg := range toolTargets(svc, t, false) {
			key, ok := keys.of(tg)
			if !ok {
				continue
			}
			if _, ok := m[key]; ok {
				continue
			}
			m[key] = nil // claimed; filled below
			jobs = append(jobs, &job{key: key, description: tg.description, schema: withoutDescription(tg.view), required: tg.required, name: lastSegment(tg.pointer)})
		}
	}
	workers := min(runtime.GOMAXPROCS(0), len(jobs)/32)
	if workers <= 1 {
		for _, j := range jobs {
			delete(m, j.key) // proposed one at a time as Run meets them
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(jobs) {
					return
				}
				j := jobs[i]
				j.out, j.err = proposeSafe("", namePointer(j.name), j.description, j.schema, j.required)
			}
		}()
	}
	wg.Wait()
	for _, j := range jobs {
		if j.err != nil {
			delete(m, j.key) // proposed again where it is met, and reported there
			continue
		}
		m[j.key] = j.out
	}
}

// namePointer is a pointer whose last token is name: the rules read a
// parameter's name from its pointer, and a memoized proposal is shared
// by every parameter of that name, description and schema.
func namePointer(name string) string { return "/" + ir.EscapeToken(name) }

func (m proposalMemo) propose(tool ir.WireName, pointer string, tg target, keys slotKeys) ([]Proposal, error) {
	key, ok := keys.of(tg)
	if !ok {
		return proposeSafe(tool, pointer, tg.description, withoutDescription(tg.view), tg.required)
	}
	cached, ok := m[key]
	if !ok {
		var err error
		if cached, err = proposeSafe("", namePointer(lastSegment(tg.pointer)), tg.description, withoutDescription(tg.view), tg.required); err != nil {
			return nil, err
		}
		m[key] = cached
	}
	out := make([]Proposal, len(cached))
	for i, p := range cached {
		p.Tool, p.Pointer = tool, pointer
		p.ID = ProposalID(tool, pointer, p.Kind, p.To)
		out[i] = p
	}
	return out, nil
}

func runTool(svc *ir.Service, t *ir.Tool, opts Options, memo proposalMemo, keys slotKeys, verdicts verdictMemo, cow cowMemo, cues cueMemo) ([]Decision, error) {
	if t.Input == nil {
		return nil, nil
	}
	mcp := svc.Source.Kind == ir.SourceMCP
	// Original is kept only for a tool enrich changes, copied just before
	// the first change. An OpenAPI tool's changes are copy-on-write: a
	// parameter's property schema is replaced by a changed copy (see
	// cowMemo.change) and its requiredness appended to the tool's own
	// "required", so Original shares every schema with Input but for the
	// top level, "properties" and "required".
	keepOriginal := func() {
		if t.Original != nil {
			return
		}
		if mcp {
			t.Original, _ = deepCopy(t.Input).(map[string]any)
			return
		}
		c := maps.Clone(t.Input)
		if props, ok := c["properties"].(map[string]any); ok {
			c["properties"] = maps.Clone(props)
		}
		switch r := c["required"].(type) {
		case []any:
			c["required"] = slices.Clone(r)
		case []string:
			c["required"] = slices.Clone(r)
		}
		t.Original = c
	}
	targets := toolTargets(svc, t, true)

	extra := map[string][]Proposal{}
	known := map[string]bool{}
	for _, tg := range targets {
		known[tg.pointer] = true
	}
	var orphans []Proposal
	for _, e := range opts.Extra {
		if e.Tool != t.Wire {
			continue
		}
		if !known[e.Pointer] {
			orphans = append(orphans, e)
			continue
		}
		extra[e.Pointer] = append(extra[e.Pointer], e)
	}

	var out []Decision
	for _, tg := range targets {
		ps, err := memo.propose(t.Wire, tg.pointer, tg, keys)
		if err != nil {
			svc.Diagnostics = append(svc.Diagnostics, ir.Diagnostic{
				Code: ir.DiagEnrichFailed, File: sourceFile(svc.Source), Pointer: t.Pointer + "/inputSchema" + tg.pointer,
				Message: fmt.Sprintf("not enriched: a rule failed on this description (%v); it is left as the source has it (please report this)", err),
			})
			continue
		}
		required := tg.required
		// The values the description states (by the rules' reading, not a
		// proposals file's) must stay valid whatever else is accepted.
		stated := statedValues(ps, func(p Proposal) bool {
			return verdicts.decide(p, tg.description, tg.view, required, nil).Accepted
		})
		for _, e := range extra[tg.pointer] {
			e = normalizeExtra(e)
			ps = append(ps, e)
		}
		sortProposals(ps)
		for _, p := range ps {
			d := verdicts.decide(p, tg.description, tg.view, required, opts.Overrides)
			d = keepStated(d, tg.view, stated, opts.Overrides)
			d = notDerived(d, t, tg, opts.Overrides, cues)
			if d.Accepted {
				keepOriginal()
				tg = cow.change(tg, p)
				if p.Kind == KindRuntimeDefault {
					required = true
					tg.setRequired()
				}
			}
			out = append(out, d)
		}
	}
	for _, e := range orphans {
		e = normalizeExtra(e)
		out = append(out, Decision{Proposal: e, Reason: "no parameter at pointer " + e.Pointer})
	}
	return out, nil
}

// toolTargets is every parameter slot of a tool the rules read; diagnose
// adds a diagnostic where MCP nesting is cut short.
func toolTargets(svc *ir.Service, t *ir.Tool, diagnose bool) []target {
	mcp := svc.Source.Kind == ir.SourceMCP
	props, _ := t.Input["properties"].(map[string]any)
	targets := make([]target, 0, len(t.Params)) // one a parameter, and MCP's nested ones
	for _, p := range t.Params {
		ps, _ := props[p.Arg].(map[string]any)
		if ps == nil {
			continue
		}
		view := resolveRef(t.Input, ps, 0)
		desc := p.Description
		if desc == "" {
			desc, _ = view["description"].(string)
		}
		ptr := string(p.Ref)
		if ptr == "" {
			ptr = "/properties/" + ir.EscapeToken(p.Arg)
		}
		tg := target{
			pointer: ptr, description: desc, holder: ps, view: view, ref: refTarget(t.Input, ps), required: p.Required,
			name: p.Arg, tool: t, param: p,
		}
		if !mcp {
			tg.props = props
		}
		targets = append(targets, tg)
		if mcp && (p.In == ir.InArg || p.In == "") {
			cut := ""
			walkNested(t.Input, view, ptr, p.Required, map[string]bool{}, 0, &targets, &cut)
			if cut != "" && diagnose {
				svc.Diagnostics = append(svc.Diagnostics, ir.Diagnostic{
					Code: ir.DiagEnrichTooDeep, File: sourceFile(svc.Source), Pointer: t.Pointer + "/inputSchema" + cut,
					Message: fmt.Sprintf("parameters nested deeper than %d levels (or more than %d of them) are not enriched", maxNestedDepth, maxNestedTargets),
				})
			}
		}
	}
	return targets
}

func normalizeExtra(e Proposal) Proposal {
	if e.Rule == "" {
		e.Rule = RuleProposalsFile
	}
	if e.ID == "" {
		e.ID = ProposalID(e.Tool, e.Pointer, e.Kind, e.To)
	}
	return e
}

func sortProposals(ps []Proposal) {
	sort.SliceStable(ps, func(i, j int) bool {
		ri, rj := kindRank(ps[i].Kind), kindRank(ps[j].Kind)
		if ri != rj {
			return ri < rj
		}
		return ps[i].ID < ps[j].ID
	})
}

// verdictMemo caches Verify's verdicts by what it reads (the proposal's
// kind, change, evidence and parameter name; the description, schema and
// requiredness): the same parameter recurs across a large spec's
// operations.
type verdictMemo map[memoID]verdict

type verdict struct {
	ok     bool
	reason string
}

// decide is decide with Verify's verdict memoized.
func (m verdictMemo) decide(p Proposal, description string, schema ir.Schema, required bool, overrides map[string]bool) Decision {
	key, ok := memoKey(string(p.Kind), p.To, p.Evidence, lastSegment(p.Pointer), description, noDescription(schema), required)
	if !ok {
		return decide(p, description, schema, required, overrides)
	}
	v, ok := m[key]
	if !ok {
		v.ok, v.reason = Verify(p, description, withoutDescription(schema), required)
		m[key] = v
	}
	return withOverride(Decision{Proposal: p, Accepted: v.ok, Reason: v.reason}, overrides)
}

// keepStated rejects an accepted decision whose change would refuse a
// value another proposal of the parameter states (contradictsStated),
// unless an override decided it.
func keepStated(d Decision, schema ir.Schema, stated []statedValue, overrides map[string]bool) Decision {
	if _, overridden := overrides[d.ID]; !d.Accepted || overridden {
		return d
	}
	if why := contradictsStated(d.Proposal, schema, stated); why != "" {
		d.Accepted, d.Reason = false, why
	}
	return d
}

// notDerived rejects an accepted runtime default that its evidence derives
// from another parameter of the tool (derivedFrom): the caller gives that
// one, so the value is not resolved from state it cannot see. An override
// keeps its decision.
func notDerived(d Decision, t *ir.Tool, tg target, overrides map[string]bool, cues cueMemo) Decision {
	if _, overridden := overrides[d.ID]; !d.Accepted || overridden || d.Kind != KindRuntimeDefault || !cues.valueCue(d.Evidence) {
		return d
	}
	names := make([]string, 0, 2*len(t.Params))
	for _, p := range t.Params {
		names = append(names, p.Arg, string(p.Wire))
	}
	if tg.parent != nil {
		props, _ := tg.parent["properties"].(map[string]any)
		names = append(names, slices.Sorted(maps.Keys(props))...) // the reason names the first
	}
	other := derivedFrom(d.Evidence, tg.name, names)
	if other == "" && nameLike(d.Evidence) {
		// And the properties nested in the input ("the common length of
		// the assetReturns arrays", a key of another parameter's items),
		// walked only when the evidence holds a name-like word.
		other = derivedFrom(d.Evidence, tg.name, nestedNames(t.Input))
	}
	if other != "" {
		d.Accepted, d.Reason = false, fmt.Sprintf("the default is derived from %q, another parameter the caller gives", other)
	}
	return d
}

// cueMemo is valueCueRe's verdict by evidence: a large spec repeats one
// runtime default's sentence on hundreds of operations (Kubernetes'
// pretty on 1,088).
type cueMemo map[string]bool

func (m cueMemo) valueCue(evidence string) bool {
	v, ok := m[evidence]
	if !ok {
		v = valueCueRe.MatchString(evidence)
		m[evidence] = v
	}
	return v
}

// nestedNames are the property names an input schema holds below its top
// level, sorted, walking at most maxNestedDepth levels and 2,000 names.
func nestedNames(in ir.Schema) []string {
	seen := map[string]bool{}
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		if depth > maxNestedDepth || len(seen) >= 2000 {
			return
		}
		switch x := v.(type) {
		case map[string]any:
			if props, ok := x["properties"].(map[string]any); ok && depth > 0 {
				for k := range props {
					seen[k] = true
				}
			}
			for _, c := range x {
				walk(c, depth+1)
			}
		case []any:
			for _, c := range x {
				walk(c, depth+1)
			}
		}
	}
	walk(map[string]any(in), 0)
	return slices.Sorted(maps.Keys(seen))
}

// decide verifies p against the current schema and applies any override.
func decide(p Proposal, description string, schema ir.Schema, required bool, overrides map[string]bool) Decision {
	ok, reason := Verify(p, description, withoutDescription(schema), required)
	return withOverride(Decision{Proposal: p, Accepted: ok, Reason: reason}, overrides)
}

// withOverride applies an override by proposal ID to a verified decision.
func withOverride(d Decision, overrides map[string]bool) Decision {
	ok, reason := d.Accepted, d.Reason
	if ov, has := overrides[d.ID]; has {
		switch {
		case !ov:
			d.Accepted = false
			d.Reason = "rejected by override"
		case ok:
			d.Reason = "accepted by override"
		default:
			d.Reason = "override to accept failed verification: " + reason
		}
	}
	return d
}

// apply merges an accepted proposal's keywords into holder (and view, when
// it is a separate resolved copy).
func apply(holder, view ir.Schema, p Proposal) {
	if p.Kind == KindRuntimeDefault {
		return
	}
	for k, v := range p.To {
		holder[k] = deepCopy(v)
		if view != nil {
			view[k] = deepCopy(v)
		}
	}
}

// ApplyProposal merges p's keywords into schema (a runtime-default changes
// nothing in the schema). It is the same merge Run performs.
func ApplyProposal(schema ir.Schema, p Proposal) { apply(schema, nil, p) }

func withoutDescription(s ir.Schema) ir.Schema {
	if _, ok := s["description"]; !ok {
		return s
	}
	c := make(ir.Schema, len(s))
	for k, v := range s {
		if k != "description" {
			c[k] = v
		}
	}
	return c
}

func addRequired(obj ir.Schema, name string) {
	req, _ := obj["required"].([]any)
	for _, r := range req {
		if r == name {
			return
		}
	}
	if rs, ok := obj["required"].([]string); ok {
		for _, r := range rs {
			if r == name {
				return
			}
		}
		obj["required"] = append(rs, name)
		return
	}
	obj["required"] = append(req, name)
}

func isRequired(obj ir.Schema, name string) bool {
	switch rs := obj["required"].(type) {
	case []any:
		for _, r := range rs {
			if r == name {
				return true
			}
		}
	case []string:
		for _, r := range rs {
			if r == name {
				return true
			}
		}
	}
	return false
}

// Bounds of walkNested: a path of distinct $refs can be long and a
// document's references can branch at every step, so the seen-set alone
// bounds no walk. Nothing real nests parameters this deeply.
const (
	maxNestedDepth   = 32   // levels of properties/items/anyOf below a parameter
	maxNestedTargets = 5000 // nested parameter slots per tool
)

// walkNested appends the nested object properties of node (an MCP
// parameter's schema) to targets. A $ref is marked seen before it is
// resolved, at every keyword the walk descends through (properties, items,
// anyOf, oneOf, allOf), so a cycle through any of them ends; the walk also
// stops at maxNestedDepth and maxNestedTargets, saying so in cut.
func walkNested(root, node ir.Schema, ptr string, required bool, seen map[string]bool, depth int, targets *[]target, cut *string) {
	if ref, ok := node["$ref"].(string); ok {
		if seen[ref] {
			return
		}
		seen = copySeen(seen)
		seen[ref] = true
		node = resolveRef(root, node, 0)
	}
	if depth >= maxNestedDepth || len(*targets) >= maxNestedTargets {
		if *cut == "" {
			*cut = ptr
		}
		return
	}
	if props, ok := node["properties"].(map[string]any); ok {
		keys := sortedKeys(props)
		for _, k := range keys {
			child, ok := props[k].(map[string]any)
			if !ok {
				continue
			}
			if ref, ok := child["$ref"].(string); ok && seen[ref] {
				continue
			}
			if len(*targets) >= maxNestedTargets {
				if *cut == "" {
					*cut = ptr
				}
				return
			}
			obj := node
			name := k
			cview := resolveRef(root, child, 0)
			creq := required && isRequired(node, k)
			cptr := ptr + "/properties/" + ir.EscapeToken(k)
			desc, _ := cview["description"].(string)
			*targets = append(*targets, target{
				pointer: cptr, description: desc, holder: child, view: cview, required: creq,
				name: name, parent: obj,
			})
			walkNested(root, child, cptr, creq, seen, depth+1, targets, cut)
		}
	}
	if items, ok := node["items"].(map[string]any); ok {
		walkNested(root, items, ptr+"/items", required, seen, depth+1, targets, cut)
	}
	for _, kw := range []string{"anyOf", "oneOf", "allOf"} {
		if arr, ok := node[kw].([]any); ok {
			for i, b := range arr {
				if bm, ok := b.(map[string]any); ok {
					walkNested(root, bm, fmt.Sprintf("%s/%s/%d", ptr, kw, i), required, seen, depth+1, targets, cut)
				}
			}
		}
	}
}

func copySeen(m map[string]bool) map[string]bool {
	c := make(map[string]bool, len(m)+1)
	for k, v := range m {
		c[k] = v
	}
	return c
}

// resolveRef returns s with a local $ref ("#/$defs/x", "#/definitions/x")
// resolved: a merged copy whose sibling keys win. Without a $ref it returns
// s itself.
// refTarget is the definition s's "#/..." $ref names, when that is a
// schema without a $ref of its own (what resolveRef merges s with), else
// nil.
func refTarget(root, s ir.Schema) ir.Schema {
	ref, ok := s["$ref"].(string)
	if !ok || !strings.HasPrefix(ref, "#/") {
		return nil
	}
	var cur any = root
	for _, part := range strings.Split(ref[2:], "/") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[ir.UnescapeToken(part)]
	}
	target, ok := cur.(map[string]any)
	if !ok {
		return nil
	}
	if _, nested := target["$ref"]; nested {
		return nil
	}
	return target
}

func resolveRef(root, s ir.Schema, depth int) ir.Schema {
	ref, ok := s["$ref"].(string)
	if !ok || depth > 16 || !strings.HasPrefix(ref, "#/") {
		return s
	}
	var cur any = root
	for _, part := range strings.Split(ref[2:], "/") {
		part = ir.UnescapeToken(part)
		m, ok := cur.(map[string]any)
		if !ok {
			return s
		}
		cur = m[part]
	}
	target, ok := cur.(map[string]any)
	if !ok {
		return s
	}
	target = resolveRef(root, target, depth+1)
	merged := make(ir.Schema, len(target)+len(s))
	for k, v := range target {
		merged[k] = v
	}
	for k, v := range s {
		if k != "$ref" {
			merged[k] = v
		}
	}
	return merged
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		c := make(map[string]any, len(x))
		for k, e := range x {
			c[k] = deepCopy(e)
		}
		return c
	case []any:
		c := make([]any, len(x))
		for i, e := range x {
			c[i] = deepCopy(e)
		}
		return c
	case []string:
		return append([]string(nil), x...)
	default:
		return v
	}
}

// ReadProposals reads a proposals file: one JSON Proposal per line; blank
// lines and lines starting with "#" are skipped. Numbers stay json.Number.
func ReadProposals(r io.Reader) ([]Proposal, error) {
	var out []Proposal
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 || b[0] == '#' {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		dec.DisallowUnknownFields()
		var p Proposal
		if err := dec.Decode(&p); err != nil {
			return out, fmt.Errorf("proposals line %d: %w", line, err)
		}
		if p.Tool == "" || p.Pointer == "" {
			return out, fmt.Errorf("proposals line %d: tool and pointer are required", line)
		}
		if kindRank(p.Kind) == len(Kinds) {
			return out, fmt.Errorf("proposals line %d: unknown kind %q", line, p.Kind)
		}
		if len(p.To) == 0 {
			return out, fmt.Errorf("proposals line %d: empty \"to\"", line)
		}
		out = append(out, normalizeExtra(p))
	}
	return out, sc.Err()
}

// WriteLog writes the decisions as JSON lines: fields in a fixed order
// (id, tool, pointer, kind, to, evidence, rule, accepted, reason), the keys
// of "to" sorted, no HTML escaping.
func WriteLog(w io.Writer, ds []Decision) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, d := range ds {
		if err := enc.Encode(d); err != nil {
			return err
		}
	}
	return nil
}

// Explain prints the decisions about one tool in a readable form, grouped
// by parameter, for `codemode enrich --explain TOOL`.
func Explain(w io.Writer, ds []Decision, tool ir.WireName) error {
	var mine []Decision
	for _, d := range ds {
		if d.Tool == tool {
			mine = append(mine, d)
		}
	}
	bw := bufio.NewWriter(w)
	acc := 0
	for _, d := range mine {
		if d.Accepted {
			acc++
		}
	}
	fmt.Fprintf(bw, "%s: %d proposal(s), %d accepted\n", tool, len(mine), acc)
	last := ""
	for _, d := range mine {
		if d.Pointer != last {
			fmt.Fprintf(bw, "  %s\n", d.Pointer)
			last = d.Pointer
		}
		mark := "-"
		verdict := "rejected"
		if d.Accepted {
			mark, verdict = "+", "accepted"
		}
		fmt.Fprintf(bw, "    %s %-15s %s  [%s]\n", mark, d.Kind, formatTo(d.To), d.Rule)
		fmt.Fprintf(bw, "        evidence: %q\n", d.Evidence)
		fmt.Fprintf(bw, "        %s: %s\n", verdict, d.Reason)
	}
	return bw.Flush()
}

func formatTo(to map[string]any) string {
	keys := make([]string, 0, len(to))
	for k := range to {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		b, err := json.Marshal(to[k])
		if err != nil {
			b = []byte(fmt.Sprint(to[k]))
		}
		parts = append(parts, k+"="+string(b))
	}
	return strings.Join(parts, " ")
}

func sourceFile(s ir.Source) string {
	switch {
	case s.File != "":
		return s.File
	case s.Command != "":
		return s.Command
	}
	return s.URL
}
