package enrich

import (
	"fmt"
	"sort"
	"strings"

	"github.com/codemode-dev/codemode/ir"
)

// Rule names, as recorded in Proposal.Rule.
const (
	RuleEnum           = "prose-enum"
	RuleEnumDescribed  = "prose-enum-described"
	RuleRange          = "prose-range"
	RuleSign           = "prose-sign"
	RuleLength         = "prose-length"
	RuleNonEmpty       = "prose-non-empty"
	RuleFormat         = "prose-format"
	RuleBoolString     = "prose-bool-string"
	RuleDefault        = "prose-default"
	RuleRuntimeDefault = "prose-runtime-default"
)

// ctx is one parameter under consideration by the rules.
type ctx struct {
	tool    ir.WireName
	pointer string
	name    string
	// desc is the description with markdown emphasis turned into code
	// quotes, byte for byte the same length as raw (the verbatim text the
	// evidence is cut from).
	desc     string
	raw      string
	schema   ir.Schema
	required bool
	typ      string
	sents    []span
	// open memoises openSentence by the span it reads: the quoted-list
	// scan asks it for every candidate of one sentence.
	open map[span]bool
}

// Propose runs every rule on one parameter and returns its proposals, in
// kind order. Proposals that would restate what the schema already says
// (same keyword, same value) are not made.
func Propose(tool ir.WireName, pointer, description string, schema ir.Schema, required bool) []Proposal {
	ps, _ := proposeSafe(tool, pointer, description, schema, required)
	return ps
}

// proposeSafe runs the rules, turning a rule's panic (a bug: every rule is
// meant to read any text) into an error, so one description no rule can
// read loses only its own narrowings and never the compile.
func proposeSafe(tool ir.WireName, pointer, description string, schema ir.Schema, required bool) (ps []Proposal, err error) {
	defer func() {
		if r := recover(); r != nil {
			ps, err = nil, fmt.Errorf("%v", r)
		}
	}()
	return propose(tool, pointer, description, schema, required), nil
}

func propose(tool ir.WireName, pointer, description string, schema ir.Schema, required bool) []Proposal {
	if strings.TrimSpace(description) == "" {
		return nil
	}
	if schema == nil {
		schema = ir.Schema{}
	}
	norm := normalizeMarkdown(description)
	c := &ctx{
		tool: tool, pointer: pointer, name: lastSegment(pointer), desc: norm, raw: description,
		schema: schema, required: required, typ: mainType(schema), sents: sentences(norm),
	}
	var out []Proposal
	for _, rule := range ruleSet {
		out = append(out, rule(c, out)...)
	}
	// One proposal per id: the first (in description order) wins.
	seen := map[string]bool{}
	uniq := out[:0]
	for _, p := range out {
		if seen[p.ID] {
			continue
		}
		seen[p.ID] = true
		uniq = append(uniq, p)
	}
	sortProposals(uniq)
	return uniq
}

// ruleSet is the rules in the order they run; each sees the proposals
// made before it.
var ruleSet = []func(c *ctx, before []Proposal) []Proposal{
	func(c *ctx, _ []Proposal) []Proposal { return c.enumRule() },
	func(c *ctx, _ []Proposal) []Proposal { return c.boundsRule() },
	func(c *ctx, _ []Proposal) []Proposal { return c.formatRule() },
	func(c *ctx, before []Proposal) []Proposal { return c.boolStringRule(before) },
	func(c *ctx, _ []Proposal) []Proposal { return c.defaultRules() },
}

func (c *ctx) proposal(kind, rule string, ev span, to map[string]any) Proposal {
	return newProposal(c.tool, c.pointer, kind, rule, strings.TrimSpace(c.raw[ev.start:ev.end]), to)
}

// sentenceText is the text of the sentence holding offset i.
func (c *ctx) sentenceText(i int) string {
	s := sentenceAt(c.sents, i)
	return c.desc[s.start:s.end]
}

// hasAlready says whether the schema already carries keyword k with value v.
func (c *ctx) hasAlready(k string, v any) bool {
	old, ok := c.schema[k]
	if !ok {
		return false
	}
	if k == "enum" {
		a, ok1 := old.([]any)
		b, ok2 := v.([]any)
		return ok1 && ok2 && sameSet(a, b)
	}
	return equalJSON(old, v)
}

// sortSpans orders spans by start.
func sortSpans(ss []span) {
	sort.Slice(ss, func(i, j int) bool { return ss[i].start < ss[j].start })
}

// strList converts values to a JSON list of strings.
func strList(vs []string) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = v
	}
	return out
}
