package monty

import (
	"fmt"
	"strings"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
)

// Config configures a worker's session (the Configure request).
type Config struct {
	// ScriptName is the filename type-check diagnostics show for fed code
	// ("" means "main.py": the type checker fails without one). Runtime
	// tracebacks ignore it and name each feed "<python-input-N>".
	ScriptName string
	Limits     Limits
	// TypeCheck checks every fed snippet before running it; TypeCheckStubs
	// is the stub source the checker knows about (see the package tests
	// for the stub shape that makes host objects bound through Feed inputs
	// check).
	TypeCheck      bool
	TypeCheckStubs string
	// TypeCheckFormat is how diagnostics are rendered: "full" (the
	// default), "concise", "azure", "json", "jsonlines", "rdjson",
	// "pylint", "gitlab" or "github".
	TypeCheckFormat string
}

// Limits are the sandbox's resource limits; zero means unlimited (the
// child's default of 1000 for recursion depth).
type Limits struct {
	MaxDuration       time.Duration
	MaxMemory         uint64 // bytes of heap
	MaxRecursionDepth int
}

var typeCheckFormats = map[string]uint64{
	"": 0, "full": 1, "concise": 2, "azure": 3, "json": 4, "jsonlines": 5,
	"rdjson": 6, "pylint": 7, "gitlab": 8, "github": 9,
}

func (c Config) encode() ([]byte, error) {
	format, ok := typeCheckFormats[c.TypeCheckFormat]
	if !ok {
		return nil, fmt.Errorf("monty: unknown TypeCheckFormat %q", c.TypeCheckFormat)
	}
	var lim msg
	if c.Limits.MaxDuration > 0 {
		lim = lim.varint(1, uint64(c.Limits.MaxDuration/time.Microsecond))
	}
	if c.Limits.MaxMemory > 0 {
		lim = lim.varint(2, c.Limits.MaxMemory)
	}
	if c.Limits.MaxRecursionDepth > 0 {
		lim = lim.varint(4, uint64(c.Limits.MaxRecursionDepth))
	}
	var m msg
	name := c.ScriptName
	if name == "" {
		name = "main.py"
	}
	m = m.str(1, name)
	m = m.bytes(2, lim)
	if c.TypeCheck {
		m = m.varint(3, 1)
		if c.TypeCheckStubs != "" {
			m = m.str(4, c.TypeCheckStubs)
		}
		if format != 0 {
			m = m.varint(7, format)
		}
	}
	m = m.varint(9, protocolVersion)
	return msg(nil).bytes(reqConfigure, m), nil
}

// Stream is the output stream of a Print.
type Stream int

// Print streams.
const (
	Stdout Stream = 1
	Stderr Stream = 2
)

func (s Stream) String() string {
	switch s {
	case Stdout:
		return "stdout"
	case Stderr:
		return "stderr"
	}
	return fmt.Sprintf("stream(%d)", int(s))
}

// NamedValue binds a global name for one Feed (Feed inputs).
type NamedValue struct {
	Name  string
	Value Value
}

// Kwarg is one keyword argument of a Call, in call order.
type Kwarg struct {
	Name  string
	Value Value
}

// Call is a suspended call to a host function.
type Call struct {
	ID     uint32 // call_id; restarts each feed
	Name   string // the Function's name, e.g. "svc.tool"
	Args   []Value
	Kwargs []Kwarg
	// Object is the receiver's id for a method call on a host object (the
	// receiver is not in Args); nil for a plain function call.
	Object *UUID
	// Oversize is the call's encoded size when it exceeded the Handler's
	// MaxCallSize (see CallSizer): Args and Kwargs were not decoded.
	Oversize int
}

// Kwarg returns the named keyword argument.
func (c *Call) Kwarg(name string) (Value, bool) {
	for _, k := range c.Kwargs {
		if k.Name == name {
			return k.Value, true
		}
	}
	return nil, false
}

// OSCall is a suspended OS operation (filesystem, os.getenv, clock, ...).
type OSCall struct {
	ID uint32
	// Op names the operation as the protocol does: "exists", "read_text",
	// "getenv", "date_today", "date_time_now", ...
	Op string
	// Path is the virtual path for single-path filesystem operations.
	Path string
	// Raw is the operation's encoded payload, for operations with more
	// fields.
	Raw []byte
}

var osOps = map[protowire.Number]string{
	2: "exists", 3: "is_file", 4: "is_dir", 5: "is_symlink", 6: "read_text",
	7: "read_bytes", 8: "stat", 9: "iterdir", 10: "resolve", 11: "absolute",
	12: "unlink", 13: "rmdir", 14: "write_text", 15: "append_text",
	16: "write_bytes", 17: "append_bytes", 18: "open", 19: "mkdir",
	20: "rename", 21: "getenv", 22: "get_environ", 23: "date_today",
	24: "date_time_now", 25: "uname", 27: "cpu_count", 28: "getpid", 29: "system",
}

// Reply answers a Call or OSCall. Make one with Return, Raise, NotFound or
// NotHandled.
type Reply struct {
	kind  int // 1 return, 2 raise, 3 future, 4 not found, 5 not handled
	value Value
	exc   *Exception
	name  string
}

// Return answers a call with its return value.
func Return(v Value) Reply { return Reply{kind: 1, value: v} }

// Raise makes the call raise excType(message) in the program, where the
// program can catch it.
func Raise(excType, message string) Reply {
	return Reply{kind: 2, exc: &Exception{Type: excType, Message: message, HasMessage: true}}
}

// Future answers a call with a future: the program keeps running, and the
// call's value is given later, when the child asks for it (ResolveFutures),
// by the Handler's FutureHandler. Only a Handler that implements
// FutureHandler may answer with it.
func Future() Reply { return Reply{kind: 3} }

// IsFuture reports whether r is Future().
func (r Reply) IsFuture() bool { return r.kind == 3 }

// NotFound says no function of that name exists: the program gets a
// NameError.
func NotFound(name string) Reply { return Reply{kind: 4, name: name} }

// NotHandled declines an OS call: the program gets the call's default
// error (PermissionError for filesystem calls, RuntimeError otherwise).
func NotHandled() Reply { return Reply{kind: 5} }

// Result is what the program sees of a reply: the value a Return gives, or
// the exception a Raise (NameError for NotFound, RuntimeError for
// NotHandled) raises; both nil for a Future. It is for interpreters other
// than the child process, which need to read replies (see runtime.Interp).
func (r Reply) Result() (Value, *Exception) {
	switch r.kind {
	case 1:
		return r.value, nil
	case 2:
		return nil, r.exc
	case 4:
		return nil, &Exception{Type: "NameError", Message: fmt.Sprintf("name '%s' is not defined", r.name), HasMessage: true}
	case 5:
		return nil, &Exception{Type: "RuntimeError", Message: "not handled", HasMessage: true}
	}
	return nil, nil
}

func (r Reply) encode() ([]byte, error) {
	return r.encodeFor(0)
}

// encodeFor encodes r as the answer to call id (the id names the future).
func (r Reply) encodeFor(id uint32) ([]byte, error) {
	var m msg
	switch r.kind {
	case 3:
		return m.varint(3, uint64(id)), nil
	case 1:
		b, err := encodeValue(r.value)
		if err != nil {
			return nil, err
		}
		return m.bytes(1, b), nil
	case 2:
		return m.bytes(2, r.exc.encode()), nil
	case 4:
		return m.str(4, r.name), nil
	case 5:
		return m.bytes(5, nil), nil
	}
	return nil, fmt.Errorf("monty: zero Reply (use Return, Raise, NotFound or NotHandled)")
}

// Frame is one traceback frame, outermost first.
type Frame struct {
	Filename        string
	Line, Column    int // 1-based start
	EndLine, EndCol int
	Name            string // function name; "" for module level
	Preview         string // the source line
	HideCaret       bool
	HideFrameName   bool
}

// Exception is a raised Python exception with its traceback. It is the
// Exception of an Outcome and the error Feed's handler may return to abort
// the program with a chosen exception.
type Exception struct {
	Type       string // e.g. "ValueError"
	Message    string
	HasMessage bool
	Traceback  []Frame
}

func (e *Exception) Error() string {
	if e.HasMessage && e.Message != "" {
		return e.Type + ": " + e.Message
	}
	return e.Type
}

// Format renders the exception the way Python prints an uncaught one:
// "Traceback (most recent call last):", one File/line entry per frame with
// its source line, then "Type: message".
func (e *Exception) Format() string {
	var b strings.Builder
	if len(e.Traceback) > 0 {
		b.WriteString("Traceback (most recent call last):\n")
		for _, f := range e.Traceback {
			fmt.Fprintf(&b, "  File %q, line %d", f.Filename, f.Line)
			if !f.HideFrameName {
				name := f.Name
				if name == "" {
					name = "<module>"
				}
				b.WriteString(", in " + name)
			}
			b.WriteString("\n")
			if f.Preview != "" {
				b.WriteString("    " + strings.TrimSpace(f.Preview) + "\n")
			}
		}
	}
	b.WriteString(e.Error())
	b.WriteString("\n")
	return b.String()
}

func (e *Exception) encode() []byte {
	var m msg
	m = m.str(1, e.Type)
	if e.HasMessage || e.Message != "" {
		m = m.str(2, e.Message)
	}
	return m
}

func decodeException(b []byte) (*Exception, error) {
	fs, err := parseFields(b)
	if err != nil {
		return nil, err
	}
	e := &Exception{}
	for _, f := range fs {
		switch f.Num {
		case 1:
			e.Type = string(f.B)
		case 2:
			e.Message, e.HasMessage = string(f.B), true
		case 3:
			fr, err := decodeFrame(f.B)
			if err != nil {
				return nil, err
			}
			e.Traceback = append(e.Traceback, fr)
		}
	}
	return e, nil
}

func decodeLoc(b []byte) (line, col int, err error) {
	fs, err := parseFields(b)
	for _, f := range fs {
		switch f.Num {
		case 1:
			line = int(f.V)
		case 2:
			col = int(f.V)
		}
	}
	return line, col, err
}

func decodeFrame(b []byte) (Frame, error) {
	var fr Frame
	fs, err := parseFields(b)
	if err != nil {
		return fr, err
	}
	for _, f := range fs {
		switch f.Num {
		case 1:
			fr.Filename = string(f.B)
		case 2:
			fr.Line, fr.Column, err = decodeLoc(f.B)
		case 3:
			fr.EndLine, fr.EndCol, err = decodeLoc(f.B)
		case 4:
			fr.Name = string(f.B)
		case 5:
			fr.Preview = string(f.B)
		case 6:
			fr.HideCaret = f.V != 0
		case 7:
			fr.HideFrameName = f.V != 0
		}
		if err != nil {
			return fr, err
		}
	}
	return fr, nil
}

// event is one decoded ChildEvent.
type event struct {
	kind        protowire.Number
	body        []byte
	totalMicros uint64
}

func decodeEvent(b []byte) (event, error) {
	fs, err := parseFields(b)
	if err != nil {
		return event{}, err
	}
	var ev event
	for _, f := range fs {
		switch {
		case f.Num == evTotalMicros:
			ev.totalMicros = f.V
		case f.Num >= 1 && f.Num <= 19 && f.Typ == protowire.BytesType:
			ev.kind, ev.body = f.Num, f.B
		}
	}
	if ev.kind == 0 {
		return ev, fmt.Errorf("child event without a kind (%d bytes)", len(b))
	}
	return ev, nil
}

// printSegments decodes a Print event. The pinned binary sends
// {1: stream, 2: text}; the published schema's repeated segments (field 3)
// are accepted too.
func printSegments(b []byte) ([]Stream, []string, error) {
	fs, err := parseFields(b)
	if err != nil {
		return nil, nil, err
	}
	var streams []Stream
	var texts []string
	stream, text, flat := Stdout, "", false
	for _, f := range fs {
		switch f.Num {
		case 1:
			stream, flat = Stream(f.V), true
		case 2:
			text, flat = string(f.B), true
		case 3:
			sf, err := parseFields(f.B)
			if err != nil {
				return nil, nil, err
			}
			s, t := Stdout, ""
			for _, x := range sf {
				switch x.Num {
				case 1:
					s = Stream(x.V)
				case 2:
					t = string(x.B)
				}
			}
			streams, texts = append(streams, s), append(texts, t)
		}
	}
	if flat {
		streams, texts = append(streams, stream), append(texts, text)
	}
	return streams, texts, nil
}

func decodeCall(b []byte) (*Call, error) {
	fs, err := parseFields(b)
	if err != nil {
		return nil, err
	}
	c := &Call{}
	for _, f := range fs {
		switch f.Num {
		case 1:
			c.Name = string(f.B)
		case 2:
			v, err := decodeValue(f.B, 0)
			if err != nil {
				return nil, err
			}
			c.Args = append(c.Args, v)
		case 3:
			p, err := decodePair(f.B, 0)
			if err != nil {
				return nil, err
			}
			k, ok := p.Key.(string)
			if !ok {
				return nil, fmt.Errorf("kwarg name is a %s", PyType(p.Key))
			}
			c.Kwargs = append(c.Kwargs, Kwarg{k, p.Value})
		case 4:
			c.ID = uint32(f.V)
		case 5:
			u, err := decodeUUID(f.B)
			if err != nil {
				return nil, err
			}
			c.Object = &u
		}
	}
	return c, nil
}

// decodeCallHead decodes a call's name, id and receiver, skipping its
// arguments without decoding or collecting them.
func decodeCallHead(b []byte) (*Call, error) {
	c := &Call{Oversize: len(b)}
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, protowire.ParseError(n)
		}
		b = b[n:]
		var v uint64
		var body []byte
		switch typ {
		case protowire.VarintType:
			v, n = protowire.ConsumeVarint(b)
		case protowire.BytesType:
			body, n = protowire.ConsumeBytes(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return nil, protowire.ParseError(n)
		}
		b = b[n:]
		switch num {
		case 1:
			c.Name = string(body)
		case 4:
			c.ID = uint32(v)
		case 5:
			u, err := decodeUUID(body)
			if err != nil {
				return nil, err
			}
			c.Object = &u
		}
	}
	return c, nil
}

func decodeOSCall(b []byte) (*OSCall, error) {
	fs, err := parseFields(b)
	if err != nil {
		return nil, err
	}
	c := &OSCall{}
	for _, f := range fs {
		if f.Num == 1 {
			c.ID = uint32(f.V)
			continue
		}
		op, ok := osOps[f.Num]
		if !ok {
			op = fmt.Sprintf("os_call_%d", f.Num)
		}
		c.Op, c.Raw = op, f.B
		if f.Num >= 2 && f.Num <= 13 {
			c.Path = string(f.B)
		}
	}
	return c, nil
}

func decodeLookup(b []byte) (string, *UUID, error) {
	fs, err := parseFields(b)
	if err != nil {
		return "", nil, err
	}
	var name string
	var obj *UUID
	for _, f := range fs {
		switch f.Num {
		case 1:
			name = string(f.B)
		case 2:
			u, err := decodeUUID(f.B)
			if err != nil {
				return "", nil, err
			}
			obj = &u
		}
	}
	return name, obj, nil
}

// firstBytes returns the bytes of the first field numbered num.
func firstBytes(b []byte, num protowire.Number) ([]byte, bool, error) {
	fs, err := parseFields(b)
	if err != nil {
		return nil, false, err
	}
	for _, f := range fs {
		if f.Num == num {
			return f.B, true, nil
		}
	}
	return nil, false, nil
}
