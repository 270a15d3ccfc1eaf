package parse

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/codemode-dev/codemode/ir"
	"github.com/go-json-experiment/json/jsontext"
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

// decodeJSON decodes data token by token into maps and slices, with the
// values encoding/json's Decode makes with UseNumber (strings, json.Number,
// bools, nil; a repeated key's last value), recording the key order of the
// objects recordKeys selects as it goes (a map throws the order away).
// jsontext reads the tokens without a value per token; what it rejects
// is worded by Decode, which rejects the same documents.
func decodeJSON(file string, data []byte) (any, order, error) {
	if v, ord, ok := decodeJSONSplit(data); ok {
		return v, ord, nil
	}
	t := newTokens(data, nil)
	v, err := t.value()
	if err != nil {
		// The tokenizer words errors its own way: say what Decode says.
		var ignored any
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if derr := dec.Decode(&ignored); derr != nil {
			err = derr
		}
		return nil, nil, jsonError(file, data, err)
	}
	off := int(t.dec.InputOffset())
	if rest := bytes.TrimSpace(data[off:]); len(rest) > 0 {
		line, col := lineCol(data, off+bytes.Index(data[off:], rest[:1]))
		return nil, nil, &Error{File: file, Line: line, Col: col, Msg: "invalid JSON: data after the top-level value"}
	}
	return v, t.order, nil
}

// maxJSONDepth is encoding/json's own bound on nesting (and jsontext's).
const maxJSONDepth = 10000

// tokens builds the value of a JSON document from its tokens.
type tokens struct {
	dec   *jsontext.Decoder
	order order
	path  []string // keys and indexes from the root to the current value
	buf   []byte   // scratch for unquoting strings
	// The members and elements of the objects and arrays being read, from
	// the outermost in: a container's are gathered here first, so its map
	// or slice is made once at its size (grown one member at a time, most
	// of a document's maps and slices were allocated two or three times).
	members  []member
	elements []any
	strs     map[string]any // see strValue
}

type member struct {
	key string
	v   any
}

// newTokens reads data, a value standing at path. Repeated keys are
// allowed (the last one wins, as in Decode) and invalid UTF-8 is left for
// the string's decoding to replace, as Decode does.
func newTokens(data []byte, path []string) *tokens {
	dec := jsontext.NewDecoder(bytes.NewBuffer(data), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	return &tokens{dec: dec, order: order{}, path: path}
}

var errTooDeep = errors.New("exceeded max depth")

func (t *tokens) value() (any, error) {
	switch t.dec.PeekKind() {
	case '[':
		return t.array()
	case '{':
		return t.object()
	}
	raw, err := t.dec.ReadValue()
	if err != nil {
		return nil, err
	}
	switch raw[0] {
	case '"':
		return t.strValue(raw), nil
	case 't':
		return true, nil
	case 'f':
		return false, nil
	case 'n':
		return nil, nil
	}
	return json.Number(raw), nil
}

// strValue is str(raw) as a value, the same one (string and interface
// both) for each string met again in the document: a document repeats its
// keys and many values (types, media types, $refs, shared descriptions),
// and each was a string and a boxed interface of its own.
// Only a string written without escapes is kept (its text is itself).
func (t *tokens) strValue(raw []byte) any {
	body := raw[1 : len(raw)-1]
	if bytes.IndexByte(body, '\\') >= 0 || !utf8.Valid(body) {
		return t.str(raw)
	}
	if v, ok := t.strs[string(body)]; ok {
		return v
	}
	if t.strs == nil {
		t.strs = map[string]any{}
	}
	s := string(body)
	var v any = s
	t.strs[s] = v
	return v
}

// str is the string a JSON string token stands for, as Decode unquotes
// it: jsontext unquotes it the same way when it is valid (escaped
// surrogates pair up, no invalid UTF-8); Decode itself unquotes the rest.
func (t *tokens) str(raw []byte) string {
	body := raw[1 : len(raw)-1]
	if bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
		return string(body)
	}
	var err error
	if t.buf, err = jsontext.AppendUnquote(t.buf[:0], raw); err == nil {
		return string(t.buf)
	}
	var s string
	_ = json.Unmarshal(raw, &s) // a string jsontext read
	return s
}

func (t *tokens) array() (any, error) {
	if len(t.path) >= maxJSONDepth {
		return nil, errTooDeep
	}
	if _, err := t.dec.ReadToken(); err != nil { // '['
		return nil, err
	}
	start := len(t.elements)
	for i := 0; t.dec.PeekKind() != ']'; i++ {
		t.path = append(t.path, strconv.Itoa(i))
		v, err := t.value()
		t.path = t.path[:len(t.path)-1]
		if err != nil {
			return nil, err
		}
		t.elements = append(t.elements, v)
	}
	out := make([]any, len(t.elements)-start)
	copy(out, t.elements[start:])
	clear(t.elements[start:])
	t.elements = t.elements[:start]
	_, err := t.dec.ReadToken() // ']'
	return out, err
}

func (t *tokens) object() (any, error) {
	if len(t.path) >= maxJSONDepth {
		return nil, errTooDeep
	}
	if _, err := t.dec.ReadToken(); err != nil { // '{'
		return nil, err
	}
	start := len(t.members)
	for t.dec.PeekKind() != '}' {
		raw, err := t.dec.ReadValue()
		if err != nil {
			return nil, err
		}
		key := t.strValue(raw).(string)
		t.path = append(t.path, key)
		v, err := t.value()
		t.path = t.path[:len(t.path)-1]
		if err != nil {
			return nil, err
		}
		t.members = append(t.members, member{key, v})
	}
	if _, err := t.dec.ReadToken(); err != nil { // '}'
		return nil, err
	}
	read := t.members[start:]
	out := make(map[string]any, len(read))
	for _, m := range read { // in order: a repeated key's last value wins
		out[m.key] = m.v
	}
	if t.records() {
		var keys []string // nil for {}
		if len(read) > 0 {
			keys = make([]string, len(read))
			for i, m := range read {
				keys[i] = m.key
			}
		}
		var b strings.Builder
		for _, s := range t.path {
			b.WriteByte('/')
			b.WriteString(esc(s))
		}
		t.order[b.String()] = keys
	}
	clear(read)
	t.members = t.members[:start]
	return out, nil
}

// records says whether the key order of the object at t.path is recorded:
// recordKeys says which objects, and none deeper than maxOrderDepth.
func (t *tokens) records() bool {
	n := len(t.path)
	return recordKeys(t.path) && (n <= maxOrderDepth || t.path[n-1] != "properties")
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

// maxOrderDepth is the deepest nesting whose key order decodeJSON records:
// a pointer costs its depth, so recording every level of a document nested
// thousands deep costs the square of it. Types are cut long before this
// (ir.MaxSchemaDepth); keys it does not know are printed sorted.
const maxOrderDepth = 8 * ir.MaxSchemaDepth

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
