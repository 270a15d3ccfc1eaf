package parse

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/codemode-dev/codemode/ir"
)

// order records the source order of the keys of some objects, by the JSON
// pointer of the object: every object that is the value of a "properties"
// key, and the OpenAPI "/paths" object and its path items.
type order map[string][]string

// keys returns the keys of m in source order when the order of the object
// at ptr is known; keys it does not know come after, sorted.
func (o order) keys(ptr string, m map[string]any) []string {
	known := o[ptr]
	out := make([]string, 0, len(m))
	seen := make(map[string]bool, len(m))
	for _, k := range known {
		if _, ok := m[k]; ok && !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	if len(out) == len(m) {
		return out
	}
	rest := make([]string, 0, len(m)-len(out))
	for k := range m {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	return append(out, rest...)
}

// recordKeys says whether the keys of an object are worth recording, given
// the path of keys (and indexes) leading to it.
func recordKeys(path []string) bool {
	n := len(path)
	switch {
	case n >= 1 && path[n-1] == "properties":
		return true
	case n == 1 && path[0] == "paths":
		return true
	case n == 2 && path[0] == "paths":
		return true
	}
	return false
}

// decodeJSON decodes data with UseNumber and recovers the key order the
// decoder throws away.
func decodeJSON(file string, data []byte) (any, order, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, nil, jsonError(file, data, err)
	}
	if rest := bytes.TrimSpace(data[dec.InputOffset():]); len(rest) > 0 {
		line, col := lineCol(data, int(dec.InputOffset())+bytes.Index(data[dec.InputOffset():], rest[:1]))
		return nil, nil, &Error{File: file, Line: line, Col: col, Msg: "invalid JSON: data after the top-level value"}
	}
	return v, scanOrder(data), nil
}

func jsonError(file string, data []byte, err error) error {
	var syn *json.SyntaxError
	switch {
	case errors.Is(err, io.EOF):
		return errorf(file, "invalid JSON: empty document")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errorf(file, "invalid JSON: unexpected end of input")
	case errors.As(err, &syn):
		line, col := lineCol(data, int(syn.Offset)-1)
		return &Error{File: file, Line: line, Col: col, Msg: "invalid JSON: " + syn.Error()}
	}
	return errorf(file, "invalid JSON: %s", oneLine(err.Error()))
}

// lineCol turns a byte offset into a 1-based line and column.
func lineCol(data []byte, off int) (int, int) {
	off = max(0, min(off, len(data)))
	before := data[:off]
	line := bytes.Count(before, []byte{'\n'}) + 1
	col := off - bytes.LastIndexByte(before, '\n')
	return line, col
}

func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// maxOrderDepth is the deepest nesting whose key order scanOrder records:
// a pointer costs its depth, so recording every level of a document nested
// thousands deep costs the square of it. Types are cut long before this
// (ir.MaxSchemaDepth); keys it does not know are printed sorted.
const maxOrderDepth = 8 * ir.MaxSchemaDepth

// scanOrder walks JSON that is already known to be valid and records the
// key order of the objects recordKeys selects. It builds no values, so it
// costs a small fraction of the decode.
func scanOrder(data []byte) order {
	type frame struct {
		obj    bool
		key    string
		idx    int
		keys   *[]string
		ptr    string
		expect bool // object: the next string is a key
	}
	out := order{}
	var stack []frame
	path := func() []string {
		p := make([]string, 0, len(stack))
		for _, f := range stack {
			if f.obj {
				p = append(p, f.key)
			} else {
				p = append(p, strconv.Itoa(f.idx))
			}
		}
		return p
	}
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '{':
			f := frame{obj: true, expect: true}
			n := len(stack)
			rec := n <= maxOrderDepth && n > 0 && stack[n-1].obj && stack[n-1].key == "properties" ||
				n == 1 && stack[0].obj && stack[0].key == "paths" ||
				n == 2 && stack[0].obj && stack[0].key == "paths" && stack[1].obj
			if rec {
				if p := path(); recordKeys(p) {
					var b strings.Builder
					for _, s := range p {
						b.WriteByte('/')
						b.WriteString(esc(s))
					}
					f.ptr = b.String()
					f.keys = new([]string)
				}
			}
			stack = append(stack, f)
		case '[':
			stack = append(stack, frame{})
		case '}', ']':
			if n := len(stack); n > 0 {
				if f := stack[n-1]; f.keys != nil {
					out[f.ptr] = *f.keys
				}
				stack = stack[:n-1]
			}
		case ',':
			if n := len(stack); n > 0 {
				if stack[n-1].obj {
					stack[n-1].expect = true
				} else {
					stack[n-1].idx++
				}
			}
		case '"':
			start := i
			i++
			escaped := false
			for i < len(data) {
				j := bytes.IndexAny(data[i:], "\"\\")
				if j < 0 {
					i = len(data)
					break
				}
				i += j
				if data[i] == '\\' {
					escaped = true
					i += 2
					continue
				}
				break
			}
			if n := len(stack); n > 0 && stack[n-1].obj && stack[n-1].expect {
				f := &stack[n-1]
				f.expect = false
				raw := data[start:min(i+1, len(data))]
				var key string
				if escaped {
					_ = json.Unmarshal(raw, &key)
				} else if len(raw) >= 2 {
					key = string(raw[1 : len(raw)-1])
				}
				f.key = key
				if f.keys != nil {
					*f.keys = append(*f.keys, key)
				}
			}
		}
	}
	return out
}

// keyOrder is the service's ir.Order: the source order of every recorded
// "properties" object of the decoded document (with more than one key), by
// its pointer.
func keyOrder(root any, o order) ir.Order {
	ko := ir.Order{}
	for ptr := range o {
		if !strings.HasSuffix(ptr, "/properties") {
			continue
		}
		cur, _ := lookup(root, ptr)
		if m, ok := cur.(map[string]any); ok && len(m) > 1 {
			ko[ptr] = o.keys(ptr, m)
		}
	}
	return ko
}
