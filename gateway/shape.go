package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/runtime"
	"github.com/codemode-dev/codemode/runtime/upstream"
	"github.com/codemode-dev/codemode/store"
)

// Limits of a rendered shape: nesting depth, keys shown per object, values
// shown per Literal.
const (
	shapeDepth = 4
	shapeKeys  = 12
	shapeEnum  = 6
)

// Shape renders the shape of a JSON value compactly, in the notation
// find_tool uses: {key: type, ...}, [item], str, int, float, bool, None.
// Object keys are sorted; a list shows the shape of its first item.
func Shape(v any) string {
	var b strings.Builder
	writeShape(&b, v, 0)
	return b.String()
}

func writeShape(b *strings.Builder, v any, depth int) {
	switch x := v.(type) {
	case nil:
		b.WriteString("None")
	case bool:
		b.WriteString("bool")
	case string:
		b.WriteString("str")
	case json.Number:
		if strings.ContainsAny(string(x), ".eE") {
			b.WriteString("float")
		} else {
			b.WriteString("int")
		}
	case float64:
		if x == float64(int64(x)) {
			b.WriteString("int")
		} else {
			b.WriteString("float")
		}
	case int, int64:
		b.WriteString("int")
	case []any:
		if len(x) == 0 {
			b.WriteString("[]")
			return
		}
		if depth >= shapeDepth {
			b.WriteString("[...]")
			return
		}
		b.WriteString("[")
		writeShape(b, x[0], depth+1)
		b.WriteString("]")
	case map[string]any:
		if len(x) == 0 {
			b.WriteString("{}")
			return
		}
		if depth >= shapeDepth {
			b.WriteString("{...}")
			return
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString("{")
		for i, k := range keys {
			if i == shapeKeys {
				fmt.Fprintf(b, ", ...%d more", len(keys)-shapeKeys)
				break
			}
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(k + ": ")
			writeShape(b, x[k], depth+1)
		}
		b.WriteString("}")
	default:
		fmt.Fprintf(b, "%T", v)
	}
}

// SchemaShape renders a JSON Schema in the same notation as Shape. An
// optional object key is marked with "?"; enums become Literal[...].
func SchemaShape(s ir.Schema) string {
	var b strings.Builder
	writeSchema(&b, s, 0)
	return b.String()
}

func writeSchema(b *strings.Builder, s map[string]any, depth int) {
	if s == nil {
		b.WriteString("Any")
		return
	}
	if c, ok := s["const"]; ok {
		b.WriteString("Literal[" + pyLiteral(c) + "]")
		return
	}
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		b.WriteString("Literal[")
		for i, v := range e {
			if i == shapeEnum {
				fmt.Fprintf(b, ", ...%d more", len(e)-shapeEnum)
				break
			}
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(pyLiteral(v))
		}
		b.WriteString("]")
		return
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if alts, ok := s[k].([]any); ok && len(alts) > 0 {
			for i, a := range alts {
				if i > 0 {
					b.WriteString(" | ")
				}
				m, _ := a.(map[string]any)
				writeSchema(b, m, depth)
			}
			return
		}
	}
	var types []string
	switch t := s["type"].(type) {
	case string:
		types = []string{t}
	case []any:
		for _, x := range t {
			if str, ok := x.(string); ok {
				types = append(types, str)
			}
		}
	}
	if len(types) == 0 {
		switch {
		case s["properties"] != nil:
			types = []string{"object"}
		case s["items"] != nil:
			types = []string{"array"}
		default:
			b.WriteString("Any")
			return
		}
	}
	for i, t := range types {
		if i > 0 {
			b.WriteString(" | ")
		}
		writeSchemaType(b, t, s, depth)
	}
}

func writeSchemaType(b *strings.Builder, t string, s map[string]any, depth int) {
	switch t {
	case "string":
		b.WriteString("str")
	case "integer":
		b.WriteString("int")
	case "number":
		b.WriteString("float")
	case "boolean":
		b.WriteString("bool")
	case "null":
		b.WriteString("None")
	case "array":
		items, _ := s["items"].(map[string]any)
		if depth >= shapeDepth {
			b.WriteString("[...]")
			return
		}
		b.WriteString("[")
		writeSchema(b, items, depth+1)
		b.WriteString("]")
	case "object":
		props, _ := s["properties"].(map[string]any)
		if len(props) == 0 {
			if ap, ok := s["additionalProperties"].(map[string]any); ok {
				b.WriteString("{str: ")
				writeSchema(b, ap, depth+1)
				b.WriteString("}")
				return
			}
			b.WriteString("dict")
			return
		}
		if depth >= shapeDepth {
			b.WriteString("{...}")
			return
		}
		req := map[string]bool{}
		if r, ok := s["required"].([]any); ok {
			for _, x := range r {
				if k, ok := x.(string); ok {
					req[k] = true
				}
			}
		}
		keys := make([]string, 0, len(props))
		for k := range props {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString("{")
		for i, k := range keys {
			if i == shapeKeys {
				fmt.Fprintf(b, ", ...%d more", len(keys)-shapeKeys)
				break
			}
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(k)
			if !req[k] {
				b.WriteString("?")
			}
			b.WriteString(": ")
			m, _ := props[k].(map[string]any)
			writeSchema(b, m, depth+1)
		}
		b.WriteString("}")
	default:
		b.WriteString(t)
	}
}

// pyLiteral renders a JSON value as a Python literal.
func pyLiteral(v any) string { return ir.PyLiteral(v) }

// Shapes is a policy hook that records, per tool, the shape of the last
// successful result the runtime saw and the schema of every result seen
// (ObservedSchema, merged), and keeps them in a JSON file
// ({"service.wire": {"shape": "...", "schema": {...}}}; a value that is a
// bare string, the old form, is a shape) so they outlive the process, or
// in a store (OpenStoreShapes) several gateways share. It never denies a
// call. Safe for concurrent use.
type Shapes struct {
	mu     sync.Mutex
	path   string
	st     store.ShapeStore
	shapes map[ir.ToolID]*observed
}

// observed is what the cache keeps of one tool's results.
type observed struct {
	Shape  string    `json:"shape"`
	Schema ir.Schema `json:"schema,omitempty"`
}

// UnmarshalJSON reads the entry, or a bare shape string (the old form).
func (o *observed) UnmarshalJSON(b []byte) error {
	var shape string
	if json.Unmarshal(b, &shape) == nil {
		*o = observed{Shape: shape}
		return nil
	}
	type plain observed
	return json.Unmarshal(b, (*plain)(o))
}

var _ runtime.Policy = (*Shapes)(nil)

// OpenShapes loads the cache file at path (a missing file is an empty
// cache); path "" keeps the shapes in memory only.
func OpenShapes(path string) (*Shapes, error) {
	s := &Shapes{path: path, shapes: map[ir.ToolID]*observed{}}
	if path == "" {
		return s, nil
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, &s.shapes); err != nil {
		return nil, fmt.Errorf("shape cache %s: %v (delete it to start afresh)", path, err)
	}
	for k, v := range s.shapes {
		if v == nil {
			delete(s.shapes, k)
		}
	}
	return s, nil
}

// OpenStoreShapes reads the shape cache kept in st. Each change is written
// through to it, merged with what other gateways on the store saw of the
// same tool (the union of the schemas; the newest shape), and the merge is
// kept here too. An entry the store holds that is not a cache entry is
// skipped (the next result of its tool replaces it).
func OpenStoreShapes(ctx context.Context, st store.ShapeStore) (*Shapes, error) {
	rows, err := st.Shapes(ctx)
	if err != nil {
		return nil, err
	}
	s := &Shapes{st: st, shapes: map[ir.ToolID]*observed{}}
	for k, body := range rows {
		var o *observed
		if json.Unmarshal(body, &o) != nil || o == nil {
			continue
		}
		s.shapes[ir.ToolID{Service: ir.ServiceName(k.Service), Wire: ir.WireName(k.Tool)}] = o
	}
	return s, nil
}

// Adopt writes what from holds of tools this cache has no entry for (a
// shapes.json kept before the gateway had a store) through to the store:
// nothing the store holds is replaced.
func (s *Shapes) Adopt(ctx context.Context, from *Shapes) {
	if s.st == nil || from == nil {
		return
	}
	from.mu.Lock()
	todo := map[ir.ToolID]*observed{}
	for k, v := range from.shapes {
		todo[k] = v
	}
	from.mu.Unlock()
	for k, v := range todo {
		s.mu.Lock()
		_, have := s.shapes[k]
		if !have {
			s.shapes[k] = v
		}
		s.mu.Unlock()
		if !have {
			s.writeThrough(ctx, k, v)
		}
	}
}

// storeWriteTimeout bounds writing one change of the cache to the store.
const storeWriteTimeout = 5 * time.Second

// writeThrough merges next into the store's entry for key and what this
// cache holds of it with the result.
func (s *Shapes) writeThrough(ctx context.Context, key ir.ToolID, next *observed) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeWriteTimeout)
	defer cancel()
	var merged observed
	_, err := s.st.MergeShape(ctx, store.ShapeKey{Service: string(key.Service), Tool: string(key.Wire)}, func(old json.RawMessage) (json.RawMessage, error) {
		merged = *next
		var prev *observed
		if old != nil && json.Unmarshal(old, &prev) == nil && prev != nil {
			merged.Schema = MergeObserved(prev.Schema, next.Schema)
		}
		return json.Marshal(&merged)
	})
	if err != nil {
		// As with a file that cannot be written: a later find_tool loses
		// its hint, the call is not affected.
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if cur := s.shapes[key]; cur != nil && cur != next {
		// A newer result of this gateway came meanwhile (and is being
		// written): its shape stays.
		merged.Shape = cur.Shape
		merged.Schema = MergeObserved(cur.Schema, merged.Schema)
	}
	s.shapes[key] = &merged
}

// Get returns the recorded shape of a tool's results.
func (s *Shapes) Get(service ir.ServiceName, wire ir.WireName) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.shapes[ir.ToolID{Service: service, Wire: wire}]
	if !ok {
		return "", false
	}
	return v.Shape, true
}

// Observed returns, by tool, the schemas of the results seen that can type
// a stub's return: an object with keys, or a list of such objects.
func (s *Shapes) Observed() map[ir.ToolID]ir.Schema {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[ir.ToolID]ir.Schema{}
	for k, v := range s.shapes {
		if pinnable(v.Schema) {
			out[k] = v.Schema
		}
	}
	return out
}

// pinnable reports whether an observed schema is worth a return type: an
// object with keys, or a list of them (a str or an int says nothing a
// program could get wrong by a key).
func pinnable(s ir.Schema) bool {
	if s["type"] == "array" {
		s, _ = s["items"].(map[string]any)
	}
	props, _ := s["properties"].(map[string]any)
	return s["type"] == "object" && len(props) > 0
}

// Before allows every call.
func (s *Shapes) Before(context.Context, *runtime.CallInfo) runtime.Verdict {
	return runtime.Verdict{}
}

// After records the result's shape and merges its schema into the ones
// seen; a failed result is neither.
func (s *Shapes) After(ctx context.Context, c *runtime.CallInfo, res *upstream.Result) runtime.Verdict {
	if res == nil || res.IsError {
		return runtime.Verdict{}
	}
	shape := Shape(res.Value)
	schema := ObservedSchema(res.Value)
	key := ir.ToolID{Service: c.Service, Wire: c.Tool.Wire}
	s.mu.Lock()
	next := &observed{Shape: shape, Schema: schema}
	if prev := s.shapes[key]; prev != nil {
		next.Schema = MergeObserved(prev.Schema, schema)
		if prev.Shape == next.Shape && jsonEqual(prev.Schema, next.Schema) {
			s.mu.Unlock()
			return runtime.Verdict{}
		}
	}
	s.shapes[key] = next
	if s.st != nil {
		// Written through outside the lock: a store's round trip does
		// not hold up the other calls' hooks.
		s.mu.Unlock()
		s.writeThrough(ctx, key, next)
		return runtime.Verdict{}
	}
	defer s.mu.Unlock()
	if s.path != "" {
		// A cache that cannot be written only costs a later find_tool
		// its hint; the call itself is not affected.
		_ = s.save()
	}
	return runtime.Verdict{}
}

func jsonEqual(a, b ir.Schema) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

// Limits of an observed schema: nesting depth, list items looked at, and
// keys an object may have before it is taken for a map keyed by data.
const (
	observedDepth = 6
	observedItems = 20
	observedKeys  = 40
)

// ObservedSchema is the JSON Schema of one result value as seen: objects
// with their keys as properties, none of them required (another result may
// lack any of them); a list's items merged over its first items; a null,
// or anything deeper than the limit, as {} (any value). An object with
// more keys than a record has, or whose keys are numbers, is a map
// ({"type": "object"}).
func ObservedSchema(v any) ir.Schema { return observe(v, 0) }

func observe(v any, depth int) ir.Schema {
	if depth > observedDepth {
		return ir.Schema{}
	}
	switch x := v.(type) {
	case bool:
		return ir.Schema{"type": "boolean"}
	case string:
		return ir.Schema{"type": "string"}
	case json.Number:
		if strings.ContainsAny(string(x), ".eE") {
			return ir.Schema{"type": "number"}
		}
		return ir.Schema{"type": "integer"}
	case float64:
		if x == float64(int64(x)) {
			return ir.Schema{"type": "integer"}
		}
		return ir.Schema{"type": "number"}
	case int, int64:
		return ir.Schema{"type": "integer"}
	case []any:
		out := ir.Schema{"type": "array"}
		var items ir.Schema
		for i, e := range x {
			if i == observedItems {
				break
			}
			if i == 0 {
				items = observe(e, depth+1)
			} else {
				items = MergeObserved(items, observe(e, depth+1))
			}
		}
		if items != nil {
			out["items"] = map[string]any(items)
		}
		return out
	case map[string]any:
		if len(x) == 0 || len(x) > observedKeys || numericKeys(x) {
			return ir.Schema{"type": "object"}
		}
		props := map[string]any{}
		for k, e := range x {
			props[k] = map[string]any(observe(e, depth+1))
		}
		return ir.Schema{"type": "object", "properties": props}
	}
	return ir.Schema{}
}

func numericKeys(m map[string]any) bool {
	for k := range m {
		if k == "" || k[0] < '0' || k[0] > '9' {
			return false
		}
	}
	return true
}

// MergeObserved is a schema that fits the results of both a and b: the
// union of two objects' keys, a list of either's items, number for an
// integer and a number; any value ({}) where they disagree. nil is no
// result seen.
func MergeObserved(a, b ir.Schema) ir.Schema {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	ta, _ := a["type"].(string)
	tb, _ := b["type"].(string)
	switch {
	case ta == "" || tb == "":
		return ir.Schema{}
	case ta != tb:
		if (ta == "integer" || ta == "number") && (tb == "integer" || tb == "number") {
			return ir.Schema{"type": "number"}
		}
		return ir.Schema{}
	case ta == "array":
		ia, _ := a["items"].(map[string]any)
		ib, _ := b["items"].(map[string]any)
		out := ir.Schema{"type": "array"}
		if m := MergeObserved(ia, ib); m != nil {
			out["items"] = map[string]any(m)
		}
		return out
	case ta == "object":
		pa, _ := a["properties"].(map[string]any)
		pb, _ := b["properties"].(map[string]any)
		if (pa == nil) != (pb == nil) && (len(pa) > 0 || len(pb) > 0) {
			// A record and a map: a map.
			return ir.Schema{"type": "object"}
		}
		if pa == nil {
			return ir.Schema{"type": "object"}
		}
		props := map[string]any{}
		for k, v := range pa {
			props[k] = v
		}
		for k, v := range pb {
			vb, _ := v.(map[string]any)
			if va, ok := props[k].(map[string]any); ok {
				props[k] = map[string]any(MergeObserved(va, vb))
			} else {
				props[k] = vb
			}
		}
		if len(props) > observedKeys {
			return ir.Schema{"type": "object"}
		}
		return ir.Schema{"type": "object", "properties": props}
	}
	return a
}

func (s *Shapes) save() error {
	data, err := json.MarshalIndent(s.shapes, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return err
	}
	tmp := s.path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, s.path)
}
