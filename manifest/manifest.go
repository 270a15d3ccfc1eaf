package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/codemode-dev/codemode/ir"
)

// Version is bumped when the manifest's meaning changes.
const Version = 1

// Manifest is everything the runtime needs without re-parsing a source.
type Manifest struct {
	Version  int       `json:"version"`
	Services []Service `json:"services"`
}

// Service is one api/<service>.py. Its Source is the service's
// identity as the pack writes it (kind, and the mcp or openapi file,
// mcp_command or mcp_url) with the digest of what was compiled: the runtime
// pairs pack and manifest services by name and refuses a pair whose
// sources differ.
type Service struct {
	Name        ir.ServiceName      `json:"name"`
	Title       string              `json:"title,omitempty"`
	File        string              `json:"file"` // relative to the output dir
	Source      ir.Source           `json:"source"`
	Servers     []string            `json:"servers,omitempty"`
	Security    []ir.SecurityScheme `json:"security,omitempty"`
	Tools       []Tool              `json:"tools"`
	Diagnostics []string            `json:"diagnostics,omitempty"`
	// Defs are schema definitions the service's tools share: a tool schema's
	// "$defs" is Defs plus what the schema still carries itself (see
	// Hoist and Read).
	Defs map[string]any `json:"defs,omitempty"`
	// Stub is the service's source for Monty's type checker (emit.ServiceStub).
	Stub string `json:"stub"`
}

// Tool is one callable with its signature, schemas and pin.
type Tool struct {
	Wire        ir.WireName `json:"wire"`
	Py          ir.PyIdent  `json:"py"`
	Call        string      `json:"call"`            // api.<service>.<py>
	Signature   string      `json:"signature"`       // the Python signature, one line
	Title       string      `json:"title,omitempty"` // MCP title, OpenAPI summary
	Description string      `json:"description,omitempty"`
	Deprecated  bool        `json:"deprecated,omitempty"`
	Lines       [2]int      `json:"lines"` // 1-based inclusive span in File
	Params      []Param     `json:"params"`
	Input       ir.Schema   `json:"input"`
	// Original is the input schema before enrichment; omitted when enrich
	// changed nothing.
	Original    ir.Schema      `json:"original,omitempty"`
	Output      ir.Schema      `json:"output,omitempty"`
	Annotations ir.Annotations `json:"annotations"`
	HTTP        *ir.HTTPOp     `json:"http,omitempty"`
	// Enrichment holds this tool's enrichment decisions, accepted or not.
	Enrichment []json.RawMessage `json:"enrichment,omitempty"`
	// Pin is a digest of the tool's upstream definition (name, description,
	// original input schema, output schema; see Pin): the runtime refuses a
	// tool whose live definition no longer matches. A pin in format 1
	// ("sha256:", from earlier versions) is checked by its own rule.
	Pin string `json:"pin"`
	// Observed is the result schema inferred from real results, for a tool
	// with no Output (every key optional); the stub's return type is typed
	// from it. Not part of Pin.
	Observed ir.Schema `json:"observed,omitempty"`
}

// Param is one parameter in signature order (required first).
type Param struct {
	Arg      string      `json:"arg"`
	Wire     ir.WireName `json:"wire"`
	Py       ir.PyIdent  `json:"py"`
	In       ir.Location `json:"in"`
	Required bool        `json:"required"`
	Style    string      `json:"style,omitempty"`
	Explode  *bool       `json:"explode,omitempty"`
	Ref      ir.ParamRef `json:"pointer"` // how the enrichment log names it (not a pointer into the document)
}

// Hoist moves the definitions a schema shares with other tools (the same
// map, as parse shares an OpenAPI document's components) into defs, so the
// manifest holds each once; a definition of the same name that differs
// stays in the schema. It returns a shallow copy; schema is not changed.
func Hoist(defs map[string]any, schema ir.Schema) ir.Schema {
	return (&Hoister{Defs: defs}).Hoist(schema)
}

// A Hoister is Hoist into Defs for the schemas of one service, which
// remembers what stays of each "$defs" object it has met (by identity:
// parse shares one between the tools that reach the same definitions) once
// all its names are in Defs, so a shared one is gone through once.
type Hoister struct {
	Defs map[string]any
	rest map[*byte]map[string]any
}

// Hoist is Hoist(h.Defs, schema).
func (h *Hoister) Hoist(schema ir.Schema) ir.Schema {
	own, ok := schema["$defs"].(map[string]any)
	if !ok {
		return schema
	}
	out := make(ir.Schema, len(schema))
	for k, v := range schema {
		out[k] = v
	}
	delete(out, "$defs")
	var id *byte
	if own != nil {
		id = mapID(own)
		if rest, ok := h.rest[id]; ok {
			if len(rest) > 0 {
				out["$defs"] = rest
			}
			return out
		}
	}
	rest := map[string]any{}
	added := false
	for name, d := range own {
		prev, seen := h.Defs[name]
		switch {
		case !seen:
			h.Defs[name] = d
			added = true
		case sameMap(prev, d):
		default:
			rest[name] = d
		}
	}
	// Once every name was there before, the same object gives the same
	// rest however often it is met (Defs only grows).
	if id != nil && !added {
		if h.rest == nil {
			h.rest = map[*byte]map[string]any{}
		}
		h.rest[id] = rest
	}
	if len(rest) > 0 {
		out["$defs"] = rest
	}
	return out
}

func sameMap(a, b any) bool {
	am, ok1 := a.(map[string]any)
	bm, ok2 := b.(map[string]any)
	return ok1 && ok2 && reflect.ValueOf(am).Pointer() == reflect.ValueOf(bm).Pointer()
}

// unhoist gives a schema back the shared definitions it reaches (through
// "#/$defs/..." references, transitively), so every tool schema is
// self-contained again after loading and carries no more than it uses. A
// definition of its own ("$defs" in schema) stands for the shared one of
// that name. refs holds what each shared definition refers to, worked
// out the first time one is reached and kept for the service's other
// tools: a tool's schema is walked, and the definitions it reaches are
// followed by name, not walked again for each tool that reaches them.
func unhoist(defs map[string]any, refs map[string][]string, schema ir.Schema) ir.Schema {
	if schema == nil || len(defs) == 0 {
		return schema
	}
	own, _ := schema["$defs"].(map[string]any)
	merged := make(map[string]any, len(own))
	for k, v := range own {
		merged[k] = v
	}
	var queue []string
	reach := func(name string) {
		if _, have := merged[name]; have {
			return
		}
		if d, ok := defs[name]; ok {
			merged[name] = d
			queue = append(queue, name)
		}
	}
	eachRef(map[string]any(schema), reach)
	for _, d := range own {
		eachRef(d, reach)
	}
	for len(queue) > 0 {
		name := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		names, ok := refs[name]
		if !ok {
			eachRef(defs[name], func(n string) { names = append(names, n) })
			if names == nil {
				names = []string{}
			}
			refs[name] = names
		}
		for _, n := range names {
			reach(n)
		}
	}
	if len(merged) > 0 {
		schema["$defs"] = merged
	}
	return schema
}

// eachRef calls f with the definition name of each "#/$defs/..."
// reference in v, outside any "$defs" object of v's.
func eachRef(v any, f func(name string)) {
	switch x := v.(type) {
	case map[string]any:
		if ref, ok := x["$ref"].(string); ok {
			if name, ok := strings.CutPrefix(ref, "#/$defs/"); ok {
				name, _, _ = strings.Cut(name, "/")
				f(ir.UnescapeToken(name))
			}
		}
		for k, e := range x {
			if k != "$defs" {
				eachRef(e, f)
			}
		}
	case []any:
		for _, e := range x {
			eachRef(e, f)
		}
	}
}

// Service returns the named service.
func (m *Manifest) Service(name ir.ServiceName) (*Service, bool) {
	for i := range m.Services {
		if m.Services[i].Name == name {
			return &m.Services[i], true
		}
	}
	return nil, false
}

// Tool returns the tool with the given wire name or Python name.
func (s *Service) Tool(name string) (*Tool, bool) {
	for i := range s.Tools {
		if string(s.Tools[i].Wire) == name {
			return &s.Tools[i], true
		}
	}
	for i := range s.Tools {
		if string(s.Tools[i].Py) == name {
			return &s.Tools[i], true
		}
	}
	return nil, false
}

// Read decodes a manifest (numbers as json.Number).
func Read(data []byte) (*Manifest, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var m Manifest
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("bad manifest: %v", err)
	}
	if m.Version != Version {
		return nil, fmt.Errorf("manifest version %d, this codemode reads version %d: regenerate with codemode gen", m.Version, Version)
	}
	for i := range m.Services {
		s := &m.Services[i]
		refs := map[string][]string{}
		for j := range s.Tools {
			t := &s.Tools[j]
			if !usesRefs(t.Input) && !usesRefs(t.Original) && !usesRefs(t.Output) {
				continue
			}
			t.Input = unhoist(s.Defs, refs, t.Input)
			t.Original = unhoist(s.Defs, refs, t.Original)
			t.Output = unhoist(s.Defs, refs, t.Output)
		}
	}
	return &m, nil
}

// ReadObserved reads only the observed result schemas of the manifest in
// data (Tool.Observed, by service and wire name), the version checked as
// Read does: what codemode gen carries over when it regenerates a pack,
// without decoding and unhoisting every schema. nil when there are none.
func ReadObserved(data []byte) (map[ir.ToolID]ir.Schema, error) {
	var m struct {
		Version  int `json:"version"`
		Services []struct {
			Name  ir.ServiceName `json:"name"`
			Tools []struct {
				Wire     ir.WireName `json:"wire"`
				Observed ir.Schema   `json:"observed"`
			} `json:"tools"`
		} `json:"services"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("bad manifest: %v", err)
	}
	if m.Version != Version {
		return nil, fmt.Errorf("manifest version %d, this codemode reads version %d: regenerate with codemode gen", m.Version, Version)
	}
	var out map[ir.ToolID]ir.Schema
	for _, s := range m.Services {
		for _, t := range s.Tools {
			if t.Observed != nil {
				if out == nil {
					out = map[ir.ToolID]ir.Schema{}
				}
				out[ir.ToolID{Service: s.Name, Wire: t.Wire}] = t.Observed
			}
		}
	}
	return out, nil
}

// usesRefs reports whether a schema contains a "$ref" anywhere.
func usesRefs(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		if _, ok := x["$ref"]; ok {
			return true
		}
		for _, e := range x {
			if usesRefs(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if usesRefs(e) {
				return true
			}
		}
	}
	return false
}

// Marshal encodes a manifest as indented JSON with a trailing newline.
func Marshal(m *Manifest) ([]byte, error) {
	if b, ok := marshalIndented(m); ok {
		return b, nil
	}
	return marshalStd(m)
}

// marshalStd is Marshal by encoding/json alone.
func marshalStd(m *Manifest) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	return indentJSON(buf.Bytes(), maxIndent), nil
}

// maxIndent is the deepest nesting the manifest indents: json.Indent's
// output grows with the square of the nesting (a schema nested 3,000
// levels in 100 kB made 126 MB), so below this depth values stay compact.
const maxIndent = 48

// indentJSON is json.Indent(dst, src, "", "  ") for compact, valid JSON,
// except that containers nested deeper than max are written compact.
func indentJSON(src []byte, max int) []byte {
	return indentAt(make([]byte, 0, len(src)+len(src)/2), src, 0, max)
}

// indentAt appends to out src indented as indentJSON indents it when it
// stands at nesting depth.
func indentAt(out, src []byte, depth, max int) []byte {
	newline := func(d int) {
		out = append(out, '\n')
		for range d {
			out = append(out, ' ', ' ')
		}
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch c {
		case '"':
			j := i + 1
			for j < len(src) && src[j] != '"' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			out = append(out, src[i:min(j+1, len(src))]...)
			i = j
		case '{', '[':
			out = append(out, c)
			depth++
			if i+1 < len(src) && (src[i+1] == '}' || src[i+1] == ']') {
				out = append(out, src[i+1])
				i++
				depth--
			} else if depth <= max {
				newline(depth)
			}
		case '}', ']':
			if depth <= max {
				newline(depth - 1)
			}
			depth--
			out = append(out, c)
		case ',':
			out = append(out, c)
			if depth <= max {
				newline(depth)
			}
		case ':':
			out = append(out, c)
			if depth <= max {
				out = append(out, ' ')
			}
		default:
			out = append(out, c)
		}
	}
	return out
}
