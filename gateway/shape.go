package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/runtime"
	"github.com/codemode-dev/codemode/runtime/upstream"
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
// successful result the runtime saw, and keeps the shapes in a JSON file
// ({"service.wire": "shape"}) so they outlive the process. It never denies
// a call. Safe for concurrent use.
type Shapes struct {
	mu     sync.Mutex
	path   string
	shapes map[ir.ToolID]string
}

var _ runtime.Policy = (*Shapes)(nil)

// OpenShapes loads the cache file at path (a missing file is an empty
// cache); path "" keeps the shapes in memory only.
func OpenShapes(path string) (*Shapes, error) {
	s := &Shapes{path: path, shapes: map[ir.ToolID]string{}}
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
	return s, nil
}

// Get returns the recorded shape of a tool's results.
func (s *Shapes) Get(service ir.ServiceName, wire ir.WireName) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.shapes[ir.ToolID{Service: service, Wire: wire}]
	return v, ok
}

// Before allows every call.
func (s *Shapes) Before(context.Context, *runtime.CallInfo) runtime.Verdict {
	return runtime.Verdict{}
}

// After records the result's shape; a failed result is not a shape.
func (s *Shapes) After(_ context.Context, c *runtime.CallInfo, res *upstream.Result) runtime.Verdict {
	if res == nil || res.IsError {
		return runtime.Verdict{}
	}
	shape := Shape(res.Value)
	key := ir.ToolID{Service: c.Service, Wire: c.Tool.Wire}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shapes[key] == shape {
		return runtime.Verdict{}
	}
	s.shapes[key] = shape
	if s.path != "" {
		// A cache that cannot be written only costs a later find_tool
		// its hint; the call itself is not affected.
		_ = s.save()
	}
	return runtime.Verdict{}
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
