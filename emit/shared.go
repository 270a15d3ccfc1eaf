package emit

import (
	"encoding/json"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/manifest"
)

// What the module docstring says once for a whole service, and the marks
// that refer to it, are manifest's (SharedMark, SharedDocHeader,
// SharedNoteHeader, NoteMark): the runtime reads them to show a tool's
// definition whole (manifest.SharedLines).
const (
	sharedMark   = manifest.SharedMark
	sharedHeader = manifest.SharedDocHeader
	noteHeader   = manifest.SharedNoteHeader
)

var noteMark = manifest.NoteMark

// findShared picks the documentation comments to print once in the module
// docstring: a name (parameter or key) whose comment, a description and
// whatever follows it, is the same in two or more places, when printing it
// once and the mark at each place is shorter than printing it at each. A
// name documented two ways shares only its most used one.
func (p *printer) findShared() {
	type use struct {
		name, doc string
	}
	count := map[use]int{}
	var order []use
	add := func(name, desc, doc string) {
		if desc == "" || doc == "" {
			return
		}
		u := use{name, doc}
		if count[u] == 0 {
			order = append(order, u)
		}
		count[u]++
	}
	for _, t := range p.svc.Tools {
		for _, prm := range SignatureOrder(t) {
			add(string(prm.Py), prm.Description, p.paramDoc(t, prm))
		}
	}
	for _, sh := range p.svc.Objects {
		if p.canonOf(sh) != sh {
			continue // printed as another
		}
		for _, f := range sh.Fields {
			add(f.Wire, f.Description, p.fieldDoc(f))
		}
	}
	// saved is the characters one entry saves: the doc printed n-1 fewer
	// times, less the mark at each place and the entry's name and
	// indentation.
	saved := func(u use) int { n := count[u]; return (n-1)*len(u.doc) - n*len(sharedMark) - len(u.name) - 6 }
	best := map[string]use{}
	for _, u := range order {
		if count[u] < 2 || saved(u) <= 0 {
			continue
		}
		if b, ok := best[u.name]; !ok || count[b] < count[u] {
			best[u.name] = u
		}
	}
	total := 0
	for _, u := range best {
		total += saved(u)
	}
	if total <= len(sharedHeader) { // the list would cost more than it saves
		return
	}
	p.shared = map[string]string{}
	for _, u := range order {
		if best[u.name] == u {
			p.shared[u.name] = u.doc
			p.sharedOrder = append(p.sharedOrder, u.name)
		}
	}
}

// sharedDoc is the comment to print for name documented as doc: the mark
// when the module docstring has it.
func (p *printer) sharedDoc(name, doc string) string {
	if doc != "" && p.shared[name] == doc {
		return sharedMark
	}
	return p.withSentenceNotes(doc)
}

// sharedLines are the module docstring's lines for the shared docs.
func (p *printer) sharedLines() []string {
	if len(p.sharedOrder) == 0 {
		return nil
	}
	lines := []string{"", sharedHeader}
	for _, name := range p.sharedOrder {
		shown := name
		if !ir.IsPyIdent(name) {
			shown = pyString(name)
		}
		lines = append(lines, "    "+shown+": "+p.shared[name])
	}
	return lines
}

// minNoteLen is the shortest paragraph a shared note is made of.
const minNoteLen = 120

// docCache holds the documentation a printer works out once: findShared
// and findNotes read all of it before the first line is printed.
type docCache struct {
	params map[*ir.Param]string
	fields map[*ir.Field]string
	prose  map[*ir.Tool][]string
	// byKey is paramDoc by everything it reads (see docKeyOf): a
	// parameter the tools share is documented once, not once per tool.
	byKey map[docKey]string
}

// paramDoc is paramDoc(t, prm), worked out once.
func (p *printer) paramDoc(t *ir.Tool, prm *ir.Param) string {
	d, ok := p.docs.params[prm]
	if !ok {
		if p.docs.params == nil {
			p.docs.params = map[*ir.Param]string{}
		}
		shown, text := p.literalShown(prm.Type)
		if k, keyed := docKeyOf(t, prm, text); keyed {
			if d, ok = p.docs.byKey[k]; !ok {
				if p.docs.byKey == nil {
					p.docs.byKey = map[docKey]string{}
				}
				d = paramDoc(t, prm, shown)
				p.docs.byKey[k] = d
			}
		} else {
			d = paramDoc(t, prm, shown)
		}
		p.docs.params[prm] = d
	}
	return d
}

// literalShown is the values of the one Literal in t (outside objects)
// that its annotation prints in full, beside the comment: nil when t has
// none or several, or prints it by an alias (whose values another tool's
// lines may hold).
func (p *printer) literalShown(t *ir.Type) (values []any, text string) {
	var lit *ir.Type
	n := 0
	eachLiteral(t, func(lt *ir.Type) { lit = lt; n++ })
	if n != 1 {
		return nil, ""
	}
	text = p.literal(lit)
	if _, ok := p.aliases[text]; ok {
		return nil, ""
	}
	return lit.Literals, text
}

// docKey is everything paramDoc reads of a parameter and its type.
type docKey struct {
	desc, wire, py, in     string
	deprecated, typeDeprec bool
	typed                  bool
	format, pattern, disc  string
	def                    string
	hasDef                 bool
	min, max, exMin, exMax numKey
	minLen, maxLen         intKey
	minItems, maxItems     intKey
	enriched               string
	// shown is the Literal printed beside the comment whose values a
	// sentence of the description may only list (literalShown).
	shown string
	// now and orig are the parameter's property schema in Input and in
	// Original, by identity, when proseSaid reads them (it is a function of
	// their keys; emit changes no schema).
	now, orig *byte
}

type numKey struct {
	set bool
	n   string
}

type intKey struct {
	set bool
	n   int64
}

func numOf(n *json.Number) numKey {
	if n == nil {
		return numKey{}
	}
	return numKey{true, n.String()}
}

func intOf(n *int64) intKey {
	if n == nil {
		return intKey{}
	}
	return intKey{true, *n}
}

// docKeyOf is prm's docKey; false for a parameter whose type documents
// its values one by one (EnumDocs), which is documented on its own.
func docKeyOf(t *ir.Tool, prm *ir.Param, shown string) (docKey, bool) {
	k := docKey{
		desc: prm.Description, wire: string(prm.Wire), py: string(prm.Py), in: string(prm.In),
		deprecated: prm.Deprecated, enriched: strings.Join(prm.Enriched, "\x00"), shown: shown,
	}
	if t != nil && t.Original != nil && prm.Description != "" {
		prop := func(s ir.Schema) *byte {
			props, _ := s["properties"].(map[string]any)
			m, _ := props[prm.Arg].(map[string]any)
			if m == nil {
				return nil
			}
			return (*byte)(reflect.ValueOf(m).UnsafePointer())
		}
		if k.now, k.orig = prop(t.Input), prop(t.Original); k.now == nil || k.orig == nil {
			k.now, k.orig = nil, nil // proseSaid says nothing
		}
	}
	ty := prm.Type
	if ty == nil {
		return k, true
	}
	if len(ty.EnumDocs) > 0 {
		return docKey{}, false
	}
	k.typed, k.typeDeprec = true, ty.Deprecated
	k.format, k.pattern, k.disc = ty.Format, ty.Pattern, ty.Discriminator
	k.def, k.hasDef = string(ty.Default), ty.Default != nil
	k.min, k.max, k.exMin, k.exMax = numOf(ty.Min), numOf(ty.Max), numOf(ty.ExclusiveMin), numOf(ty.ExclusiveMax)
	k.minLen, k.maxLen = intOf(ty.MinLength), intOf(ty.MaxLength)
	k.minItems, k.maxItems = intOf(ty.MinItems), intOf(ty.MaxItems)
	return k, true
}

// fieldDoc is fieldDoc(f), worked out once.
func (p *printer) fieldDoc(f *ir.Field) string {
	d, ok := p.docs.fields[f]
	if !ok {
		if p.docs.fields == nil {
			p.docs.fields = map[*ir.Field]string{}
		}
		shown, _ := p.literalShown(f.Type)
		d = fieldDoc(f, shown)
		p.docs.fields[f] = d
	}
	return d
}

// toolProse is toolProse(t), worked out once.
func (p *printer) toolProse(t *ir.Tool) []string {
	d, ok := p.docs.prose[t]
	if !ok {
		if p.docs.prose == nil {
			p.docs.prose = map[*ir.Tool][]string{}
		}
		d = toolProse(t)
		p.docs.prose[t] = d
	}
	return d
}

// toolProse is the part of t's docstring its description supplies, as
// paragraph splits it.
func toolProse(t *ir.Tool) []string {
	desc := t.Description
	if desc == "" {
		desc = t.Title
	}
	if desc == "" {
		return nil
	}
	return paragraph(desc)
}

// paragraphs cuts lines at blank lines.
func paragraphs(lines []string) [][]string {
	var out [][]string
	start := 0
	for i := 0; i <= len(lines); i++ {
		if i == len(lines) || lines[i] == "" {
			if i > start {
				out = append(out, lines[start:i])
			}
			start = i + 1
		}
	}
	return out
}

// findNotes picks the paragraphs of tool descriptions to print once in the
// module docstring: one that two or more tools' descriptions have word for
// word (a notice every tool of a server repeats, an "input options" block
// several share), when printing it once and a mark in each description is
// shorter than printing it in each. A paragraph shorter than
// minNoteLen stays where it is: a mark in its place would read worse and
// save little.
func (p *printer) findNotes() {
	count := map[string]int{}
	var order []string
	for _, t := range p.svc.Tools {
		seen := map[string]bool{}
		for _, para := range paragraphs(p.toolProse(t)) {
			k := strings.Join(para, "\n")
			if seen[k] {
				continue
			}
			seen[k] = true
			if count[k] == 0 {
				order = append(order, k)
			}
			count[k]++
		}
	}
	saved := func(k string) int {
		n := count[k]
		return (n-1)*len(k) - n*len(noteMark(1)) - len("Note 1:") - 8*(strings.Count(k, "\n")+1)
	}
	var picked []string
	total := 0
	for _, k := range order {
		if count[k] >= 2 && len(k) >= minNoteLen && saved(k) > 0 {
			picked = append(picked, k)
			total += saved(k)
		}
	}
	if total <= len(noteHeader) {
		return
	}
	p.notes = map[string]int{}
	for i, k := range picked {
		p.notes[k] = i + 1
	}
	p.noteOrder = picked
}

// withNotes replaces the shared notes among a description's lines by their
// marks.
func (p *printer) withNotes(lines []string) []string {
	if len(p.notes) == 0 {
		return lines
	}
	var out []string
	for i, para := range paragraphs(lines) {
		if i > 0 {
			out = append(out, "")
		}
		if n, ok := p.notes[strings.Join(para, "\n")]; ok {
			out = append(out, noteMark(n))
		} else {
			out = append(out, para...)
		}
	}
	return out
}

// noteLines are the module docstring's lines for the shared notes.
func (p *printer) noteLines() []string {
	if len(p.noteOrder) == 0 {
		return nil
	}
	lines := []string{"", noteHeader}
	for i, k := range p.noteOrder {
		lines = append(lines, "Note "+strconv.Itoa(i+1)+":")
		// The note shown on its own: without the indentation its lines
		// share in the descriptions.
		para := strings.Split(k, "\n")
		common := len(k)
		for _, l := range para {
			common = min(common, len(l)-len(strings.TrimLeft(l, " ")))
		}
		for _, l := range para {
			lines = append(lines, "    "+l[common:])
		}
	}
	return lines
}

// hasKeyword says whether t has the constraint a JSON Schema keyword
// names (the ones facts prints).
func hasKeyword(t *ir.Type, kw string) bool {
	switch kw {
	case "default":
		return t.Default != nil
	case "format":
		return t.Format != ""
	case "pattern":
		return t.Pattern != ""
	case "minimum":
		return t.Min != nil
	case "maximum":
		return t.Max != nil
	case "exclusiveMinimum":
		return t.ExclusiveMin != nil
	case "exclusiveMaximum":
		return t.ExclusiveMax != nil
	case "minLength":
		return t.MinLength != nil
	case "maxLength":
		return t.MaxLength != nil
	case "minItems":
		return t.MinItems != nil
	case "maxItems":
		return t.MaxItems != nil
	}
	return false
}

// defaultSaid adds "default" to said (a new set when said is nil) when
// desc states t's default value itself, as "(default: 25)", "Defaults to
// false" or "default is `asc`" do; it returns said unchanged otherwise.
func defaultSaid(desc string, t *ir.Type, said map[string]bool) map[string]bool {
	if desc == "" || t == nil || t.Default == nil || !strings.Contains(strings.ToLower(desc), "default") {
		return said
	}
	var v any
	if json.Unmarshal(t.Default, &v) != nil {
		return said
	}
	var text string
	switch v := v.(type) {
	case string:
		text = v
	case float64, bool:
		text = string(t.Default)
	default: // null, a list or an object: not written the same way in prose
		return said
	}
	if text == "" || !statesDefault(desc, text) {
		return said
	}
	if said == nil {
		said = map[string]bool{}
	}
	said["default"] = true
	return said
}

// defaultPhrase is "default" or "defaults" ("is", "to", "value", a colon
// or an equals sign may follow) and the word after it, quoted or not.
var defaultPhrase = regexp.MustCompile(`(?i)\bdefaults?(?:\s+(?:value\s+)?(?:is|to|of|being))?\s*[:=]?\s*[("'` + "`" + `]?([^\s"'` + "`" + `),;]+)`)

// defaultAfter is a value "(default)" follows: `"skip" (default)`, "When
// false (default)".
var defaultAfter = regexp.MustCompile(`(?i)(?:^|[\s("'` + "`" + `])([^\s"'` + "`" + `(),;:]+)["'` + "`" + `]?\s*\((?:the\s+)?default\)`)

// statesDefault says whether desc names text as the default.
func statesDefault(desc, text string) bool {
	ms := defaultPhrase.FindAllStringSubmatch(desc, -1)
	if strings.Contains(desc, "(") {
		ms = append(ms, defaultAfter.FindAllStringSubmatch(desc, -1)...)
	}
	for _, m := range ms {
		if w := strings.TrimRight(m[1], ".:"); w == text || strings.EqualFold(w, text) && (text == "true" || text == "false") {
			return true
		}
	}
	return false
}

// canonicalShapes maps each object type of svc that prints exactly like
// one reached before it (same fields, types, comments and description:
// the same TypedDict but for its name, as a source's $defs and its inline
// copies of them give) to that one, so the module prints it once; nil
// when there is none. Two definitions the source names differently stay
// apart. Nested shapes count as the same once they are merged, so merging
// runs until nothing changes.
func canonicalShapes(svc *ir.Service) map[*ir.ObjectType]*ir.ObjectType {
	if len(svc.Objects) < 2 {
		return nil
	}
	// Only shapes with the same keys in the same order can print the
	// same: the others are never compared.
	var order []*ir.ObjectType
	{
		all := shapeOrder(svc)
		n := make(map[string]int, len(all))
		for _, sh := range all {
			n[fieldNames(sh)]++
		}
		for _, sh := range all {
			if n[fieldNames(sh)] > 1 {
				order = append(order, sh)
			}
		}
	}
	if len(order) == 0 {
		return nil
	}
	canon := make(map[*ir.ObjectType]*ir.ObjectType, len(order))
	for _, sh := range order {
		canon[sh] = sh
	}
	kp := &printer{svc: svc, canon: canon, keys: true}
	merged := false
	for {
		same := make(map[string][]*ir.ObjectType, len(order))
		var keys []string
		for _, sh := range order {
			k := kp.shapeKey(sh)
			if same[k] == nil {
				keys = append(keys, k)
			}
			same[k] = append(same[k], sh)
		}
		changed := false
		for _, k := range keys {
			// Definitions of different names are different things that
			// happen to look alike (a pet's Tag and Category): each
			// name's shapes merge among themselves, the unnamed ones too;
			// with one name at most, all merge.
			group := same[k]
			names := map[string]bool{}
			for _, sh := range group {
				if n := defName(sh); n != "" {
					names[n] = true
				}
			}
			first := map[string]*ir.ObjectType{}
			for _, sh := range group {
				n := ""
				if len(names) > 1 {
					n = defName(sh)
				}
				f, ok := first[n]
				if !ok {
					first[n] = sh
					continue
				}
				if canon[sh] != canon[f] {
					canon[sh] = canon[f]
					changed, merged = true, true
				}
			}
		}
		if !changed {
			break
		}
	}
	if !merged {
		return nil
	}
	return canon
}

// shapeOrder is svc's object types in the order the module reaches them
// (tool by tool, each one's parameters then its result, depth first), then
// any no tool reaches.
func shapeOrder(svc *ir.Service) []*ir.ObjectType {
	seen := make(map[*ir.ObjectType]bool, len(svc.Objects))
	var order []*ir.ObjectType
	var walk func(t *ir.Type)
	walk = func(t *ir.Type) {
		if t == nil {
			return
		}
		if t.Object != nil && !seen[t.Object] {
			seen[t.Object] = true
			order = append(order, t.Object)
			for _, f := range t.Object.Fields {
				walk(f.Type)
			}
			walk(t.Object.Extra)
		}
		walk(t.Items)
		walk(t.Values)
		for _, e := range t.Elems {
			walk(e)
		}
		for _, v := range t.Variants {
			walk(v)
		}
	}
	for _, t := range svc.Tools {
		for _, prm := range t.Params {
			walk(prm.Type)
		}
		walk(t.Result)
	}
	for _, sh := range svc.Objects {
		if !seen[sh] {
			seen[sh] = true
			order = append(order, sh)
		}
	}
	return order
}

// shapeKey is what sh prints as in the module, but for its name, with
// nested shapes named by their canonical ones.
func (p *printer) shapeKey(sh *ir.ObjectType) string {
	var b strings.Builder
	b.WriteString(sh.Description)
	b.WriteString("\x00")
	b.WriteString(p.typ(sh.Extra))
	for _, f := range sh.Fields {
		b.WriteString("\x00")
		b.WriteString(f.Wire)
		if f.Required {
			b.WriteString("\x01")
		}
		if f.ReadOnly {
			b.WriteString("\x02")
		}
		b.WriteString(p.typ(f.Type))
		b.WriteString("\x00")
		b.WriteString(p.fieldDoc(f))
	}
	return b.String()
}

// defName is the name sh's definition has in its source document (the
// key under $defs, definitions or components/schemas), "" for an inline
// schema (one a $ref into properties reuses included).
func defName(sh *ir.ObjectType) string {
	for _, under := range []string{"/$defs/", "/definitions/", "/components/schemas/"} {
		if i := strings.LastIndex(sh.Pointer, under); i >= 0 {
			name, _, _ := strings.Cut(sh.Pointer[i+len(under):], "/")
			return name
		}
	}
	return ""
}

// fieldNames is sh's keys in order, with whether it has a description
// and extra keys.
func fieldNames(sh *ir.ObjectType) string {
	var b strings.Builder
	if sh.Description != "" {
		b.WriteByte('d')
	}
	if sh.Extra != nil {
		b.WriteByte('e')
	}
	for _, f := range sh.Fields {
		b.WriteByte(0)
		b.WriteString(f.Wire)
	}
	return b.String()
}

// canonOf is the object type sh prints as.
func (p *printer) canonOf(sh *ir.ObjectType) *ir.ObjectType {
	if c, ok := p.canon[sh]; ok {
		return c
	}
	return sh
}
