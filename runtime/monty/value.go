package monty

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
)

// Value is a Python value crossing the sandbox boundary (monty's
// MontyObject). The Go representation of each kind:
//
//	None             nil
//	bool             bool
//	int              int64 (decoded); int, int32, ... accepted on input
//	int (> 64 bits)  *big.Int
//	float            float64
//	str              string
//	bytes            []byte
//	list             []any
//	tuple            Tuple
//	dict             *Dict (ordered pairs)
//	set / frozenset  Set / FrozenSet
//	named tuple      *NamedTuple
//	Ellipsis         Ellipsis{}
//	exception value  *ExceptionValue
//	type object      *TypeValue
//	class instance   *Instance
//	host function    Function
//	builtin function BuiltinFunction
//	pathlib.Path     Path
//	repr fallback    Repr (output only)
//	cycle marker     Cycle (output only)
//	anything else    Opaque (dates, times, file handles, ...: kept as raw
//	                 protobuf and sent back verbatim)
type Value = any

// Tuple is a Python tuple.
type Tuple []any

// Set is a Python set, in the order the child sent it.
type Set []any

// FrozenSet is a Python frozenset.
type FrozenSet []any

// Ellipsis is Python's `...`.
type Ellipsis struct{}

// Repr is the output-only repr() of a value that has no other
// representation. The child rejects it as an input.
type Repr string

// BuiltinFunction is a builtin function named by its Python name ("len").
type BuiltinFunction string

// Path is a pathlib.Path value (a virtual POSIX path inside the sandbox).
type Path string

// Cycle is the output-only marker that breaks a reference cycle.
type Cycle struct {
	Identity    uint64
	Placeholder string // e.g. "[...]"
}

// Opaque is a value of a kind this package does not model (date, time,
// datetime, timedelta, timezone, file handle, NotImplemented). Field is its
// MontyObject field number and Raw its encoded body; it is sent back as is.
type Opaque struct {
	Field int
	Raw   []byte
}

// Pair is one key/value entry of a Dict.
type Pair struct {
	Key, Value Value
}

// Dict is a Python dict: insertion-ordered pairs with any hashable keys.
type Dict struct {
	Pairs []Pair
}

// NewDict builds a Dict from alternating keys and values.
func NewDict(kv ...Value) *Dict {
	if len(kv)%2 != 0 {
		panic("monty.NewDict: odd number of arguments")
	}
	d := &Dict{}
	for i := 0; i < len(kv); i += 2 {
		d.Pairs = append(d.Pairs, Pair{kv[i], kv[i+1]})
	}
	return d
}

// Get returns the value for a str key.
func (d *Dict) Get(key string) (Value, bool) {
	for _, p := range d.Pairs {
		if k, ok := p.Key.(string); ok && k == key {
			return p.Value, true
		}
	}
	return nil, false
}

// NamedTuple is a named tuple such as os.stat_result.
type NamedTuple struct {
	TypeName string
	Fields   []string
	Values   []any
}

// ExceptionValue is an exception held as a value (no traceback).
type ExceptionValue struct {
	Type   string // e.g. "ValueError"
	Arg    string
	HasArg bool
}

// UUID is the 16-byte identity of a class or instance.
type UUID [16]byte

// NewUUID returns a random (version 4) UUID.
func NewUUID() UUID {
	var u UUID
	if _, err := rand.Read(u[:]); err != nil {
		panic("monty: crypto/rand: " + err.Error())
	}
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return u
}

func (u UUID) String() string { return hex.EncodeToString(u[:]) }

// Origin says where a type was defined.
type Origin int

// Type origins, as on the wire.
const (
	OriginBuiltin Origin = 1
	OriginSandbox Origin = 2
	OriginHost    Origin = 3
)

// TypeValue is a Python type object.
type TypeValue struct {
	Name        string
	ID          UUID // zero for builtins
	Origin      Origin
	IsDataclass bool
	Attrs       []Attr // class attributes sent with the type
}

// Attr is a named attribute of an Instance or a type.
type Attr struct {
	Name  string
	Value Value
}

// Instance is a class instance. Host instances (Origin OriginHost) are
// defined here: their attrs are sent eagerly, and a Function attr called by
// the program arrives as a Call named "<path>.<attr>" (for an instance bound
// as `api` whose attr `svc` holds an instance with Function `tool`,
// `api.svc.tool()` arrives as "svc.tool": the name comes from the Function).
type Instance struct {
	TypeName    string
	TypeID      UUID
	ID          UUID
	Origin      Origin // OriginHost for instances made by NewInstance
	IsDataclass bool
	Attrs       []Attr
}

// NewInstance makes a host instance of a fresh class named typeName.
func NewInstance(typeName string, attrs ...Attr) *Instance {
	return &Instance{TypeName: typeName, TypeID: NewUUID(), ID: NewUUID(), Origin: OriginHost, Attrs: attrs}
}

// Attr returns the named attribute.
func (in *Instance) Attr(name string) (Value, bool) {
	for _, a := range in.Attrs {
		if a.Name == name {
			return a.Value, true
		}
	}
	return nil, false
}

// Function is a host function value: calling it in the sandbox suspends
// the program with a Call named Name.
type Function struct {
	Name string
	Doc  string // "" sends no docstring
}

// FromJSON converts a value decoded by encoding/json (with UseNumber) into a
// Value: json.Number becomes int64 when it is an integer that fits, *big.Int
// when it is a wider integer, float64 otherwise; map[string]any becomes a
// *Dict with its keys sorted (so output is deterministic); []any becomes a
// list. float64 (decoding without UseNumber) is accepted as is.
func FromJSON(v any) (Value, error) {
	switch x := v.(type) {
	case nil, bool, string, float64:
		return x, nil
	case json.Number:
		return numberValue(string(x))
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			c, err := FromJSON(e)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			out[i] = c
		}
		return out, nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		d := &Dict{Pairs: make([]Pair, 0, len(keys))}
		for _, k := range keys {
			c, err := FromJSON(x[k])
			if err != nil {
				return nil, fmt.Errorf("%q: %w", k, err)
			}
			d.Pairs = append(d.Pairs, Pair{k, c})
		}
		return d, nil
	default:
		return nil, fmt.Errorf("monty.FromJSON: unsupported Go type %T", v)
	}
}

func numberValue(s string) (Value, error) {
	if !strings.ContainsAny(s, ".eE") {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return i, nil
		}
		if b, ok := new(big.Int).SetString(s, 10); ok {
			return b, nil
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, fmt.Errorf("monty.FromJSON: bad number %q", s)
	}
	return f, nil
}

// ToJSON converts a Value into data encoding/json marshals: dicts become
// map[string]any (their keys must be str), lists, tuples and sets become
// []any, ints become int64 or json.Number (wide ints), float64 stays float64
// (NaN and infinities are an error). Anything else (instances, functions,
// bytes, ...) is an error naming the Python type.
func ToJSON(v Value) (any, error) {
	switch x := v.(type) {
	case nil, bool, string, int64:
		return x, nil
	case int:
		return int64(x), nil
	case int32:
		return int64(x), nil
	case *big.Int:
		return json.Number(x.String()), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("float %v is not valid JSON", x)
		}
		return x, nil
	case json.Number:
		return x, nil
	case []any:
		return listJSON(x)
	case Tuple:
		return listJSON(x)
	case Set:
		return listJSON(x)
	case FrozenSet:
		return listJSON(x)
	case *Dict:
		m := make(map[string]any, len(x.Pairs))
		for _, p := range x.Pairs {
			k, ok := p.Key.(string)
			if !ok {
				return nil, fmt.Errorf("dict key %s is a %s, JSON object keys must be str", Format(p.Key), PyType(p.Key))
			}
			c, err := ToJSON(p.Value)
			if err != nil {
				return nil, fmt.Errorf("[%q]: %w", k, err)
			}
			m[k] = c
		}
		return m, nil
	default:
		return nil, fmt.Errorf("a value of type %s cannot be converted to JSON", PyType(v))
	}
}

func listJSON(xs []any) (any, error) {
	out := make([]any, len(xs))
	for i, e := range xs {
		c, err := ToJSON(e)
		if err != nil {
			return nil, fmt.Errorf("[%d]: %w", i, err)
		}
		out[i] = c
	}
	return out, nil
}

// PyType names the Python type of a Value, for messages.
func PyType(v Value) string {
	switch x := v.(type) {
	case nil:
		return "NoneType"
	case bool:
		return "bool"
	case int, int32, int64, *big.Int:
		return "int"
	case float64:
		return "float"
	case string:
		return "str"
	case []byte:
		return "bytes"
	case []any:
		return "list"
	case Tuple:
		return "tuple"
	case *Dict:
		return "dict"
	case Set:
		return "set"
	case FrozenSet:
		return "frozenset"
	case Ellipsis:
		return "ellipsis"
	case *NamedTuple:
		return x.TypeName
	case *ExceptionValue:
		return x.Type
	case *TypeValue:
		return "type"
	case *Instance:
		return x.TypeName
	case Function, BuiltinFunction:
		return "function"
	case Path:
		return "PosixPath"
	case Repr:
		return "object"
	default:
		return fmt.Sprintf("%T", v)
	}
}

// Format renders a Value roughly as Python's repr would, for messages and
// tests. It is not guaranteed to match CPython byte for byte.
func Format(v Value) string {
	var b strings.Builder
	formatTo(&b, v)
	return b.String()
}

func formatTo(b *strings.Builder, v Value) {
	seq := func(open, close string, xs []any) {
		b.WriteString(open)
		for i, e := range xs {
			if i > 0 {
				b.WriteString(", ")
			}
			formatTo(b, e)
		}
		b.WriteString(close)
	}
	switch x := v.(type) {
	case nil:
		b.WriteString("None")
	case bool:
		if x {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case int:
		b.WriteString(strconv.Itoa(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case *big.Int:
		b.WriteString(x.String())
	case float64:
		s := strconv.FormatFloat(x, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eIN") {
			s += ".0"
		}
		b.WriteString(s)
	case string:
		b.WriteString(pyQuote(x))
	case []byte:
		b.WriteString("b" + pyQuote(string(x)))
	case []any:
		seq("[", "]", x)
	case Tuple:
		if len(x) == 1 {
			seq("(", ",)", x)
		} else {
			seq("(", ")", x)
		}
	case Set:
		seq("{", "}", x)
	case FrozenSet:
		seq("frozenset({", "})", x)
	case *Dict:
		b.WriteString("{")
		for i, p := range x.Pairs {
			if i > 0 {
				b.WriteString(", ")
			}
			formatTo(b, p.Key)
			b.WriteString(": ")
			formatTo(b, p.Value)
		}
		b.WriteString("}")
	case Ellipsis:
		b.WriteString("Ellipsis")
	case Repr:
		b.WriteString(string(x))
	case Function:
		b.WriteString("<function " + x.Name + ">")
	case BuiltinFunction:
		b.WriteString("<built-in function " + string(x) + ">")
	case Path:
		b.WriteString("PosixPath(" + pyQuote(string(x)) + ")")
	case *ExceptionValue:
		if x.HasArg {
			b.WriteString(x.Type + "(" + pyQuote(x.Arg) + ")")
		} else {
			b.WriteString(x.Type + "()")
		}
	case *TypeValue:
		b.WriteString("<class '" + x.Name + "'>")
	case *Instance:
		b.WriteString("<" + x.TypeName + " object>")
	case *NamedTuple:
		b.WriteString(x.TypeName + "(")
		for i, val := range x.Values {
			if i > 0 {
				b.WriteString(", ")
			}
			if i < len(x.Fields) {
				b.WriteString(x.Fields[i] + "=")
			}
			formatTo(b, val)
		}
		b.WriteString(")")
	case Cycle:
		b.WriteString(x.Placeholder)
	default:
		fmt.Fprintf(b, "<%T>", v)
	}
}

func pyQuote(s string) string {
	q := byte('\'')
	if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
		q = '"'
	}
	var b strings.Builder
	b.WriteByte(q)
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == rune(q):
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(q)
	return b.String()
}
