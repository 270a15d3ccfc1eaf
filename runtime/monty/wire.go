package monty

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"

	"google.golang.org/protobuf/encoding/protowire"
)

// Protocol field numbers (monty.v1, protocol_version 2 as spoken by the
// pinned binary).
const (
	protocolVersion = 2

	// ParentRequest.kind
	reqConfigure  = 1
	reqFeed       = 3
	reqResumeCall = 4
	reqResumeName = 5
	reqResumeFut  = 6
	reqDump       = 7
	reqLoad       = 8
	reqReset      = 9
	reqShutdown   = 10
	reqAbortFeed  = 11

	// ChildEvent.kind
	evPrint          = 1
	evFunctionCall   = 2
	evOsCall         = 3
	evNameLookup     = 4
	evResolveFutures = 5
	evComplete       = 6
	evError          = 7
	evTypingError    = 8
	evDumpResult     = 9
	evOk             = 10
	evFatalError     = 11
	evShutdownDump   = 12
	evTotalMicros    = 20

	// MontyObject.kind
	objEllipsis    = 1
	objNone        = 2
	objBool        = 4
	objInt         = 5
	objBigInt      = 6
	objFloat       = 7
	objStr         = 8
	objBytes       = 9
	objList        = 11
	objTuple       = 12
	objNamedTuple  = 13
	objDict        = 14
	objSet         = 15
	objFrozenSet   = 16
	objException   = 22
	objType        = 23
	objInstance    = 24
	objFunction    = 25
	objBuiltinFunc = 26
	objPath        = 27
	objRepr        = 29
	objCycle       = 30
)

// maxFrame bounds one frame read from the child. A length prefix above it
// is refused before anything is allocated.
const maxFrame = 1 << 30

// frameChunk is how much of a frame is allocated ahead of the bytes that
// arrive: a length prefix alone (a lying or desynced child) cannot make
// the host allocate more than this.
const frameChunk = 1 << 20

// field is one decoded protobuf field: V for varint/fixed, B for bytes.
type field struct {
	Num protowire.Number
	Typ protowire.Type
	V   uint64
	B   []byte
}

func parseFields(b []byte) ([]field, error) {
	// Counted first, so the slice is allocated once (every message of a
	// call's round trip is parsed here).
	n := 0
	if err := eachField(b, func(field) error { n++; return nil }); err != nil {
		return nil, err
	}
	out := make([]field, 0, n)
	err := eachField(b, func(f field) error {
		out = append(out, f)
		return nil
	})
	return out, err
}

// eachField calls fn on each field of b in order, without collecting them
// (a list of many small elements would otherwise cost far more host
// memory than its encoding).
func eachField(b []byte, fn func(field) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		f := field{Num: num, Typ: typ}
		switch typ {
		case protowire.VarintType:
			f.V, n = protowire.ConsumeVarint(b)
		case protowire.Fixed64Type:
			f.V, n = protowire.ConsumeFixed64(b)
		case protowire.Fixed32Type:
			var v uint32
			v, n = protowire.ConsumeFixed32(b)
			f.V = uint64(v)
		case protowire.BytesType:
			f.B, n = protowire.ConsumeBytes(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		if err := fn(f); err != nil {
			return err
		}
	}
	return nil
}

// msg is a tiny protobuf message builder.
type msg []byte

func (m msg) bytes(num protowire.Number, b []byte) msg {
	m = protowire.AppendTag(m, num, protowire.BytesType)
	return protowire.AppendBytes(m, b)
}
func (m msg) str(num protowire.Number, s string) msg {
	m = protowire.AppendTag(m, num, protowire.BytesType)
	return protowire.AppendString(m, s)
}
func (m msg) varint(num protowire.Number, v uint64) msg {
	m = protowire.AppendTag(m, num, protowire.VarintType)
	return protowire.AppendVarint(m, v)
}

// writeFrame writes one length-prefixed frame.
func writeFrame(w io.Writer, b []byte) error {
	buf := make([]byte, 4+len(b))
	binary.LittleEndian.PutUint32(buf, uint32(len(b)))
	copy(buf[4:], b)
	_, err := w.Write(buf)
	return err
}

// readFrame reads one length-prefixed frame. The buffer grows with the
// bytes actually read, never from the length prefix alone.
func readFrame(r io.Reader) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	n := binary.LittleEndian.Uint32(hdr[:])
	if n > maxFrame {
		return nil, fmt.Errorf("frame of %d bytes exceeds the limit of %d bytes", n, maxFrame)
	}
	b := make([]byte, 0, min(int(n), frameChunk))
	for len(b) < int(n) {
		if len(b) == cap(b) { // double, up to the frame's length
			nb := make([]byte, len(b), min(int(n), 2*cap(b)))
			copy(nb, b)
			b = nb
		}
		k, err := io.ReadFull(r, b[len(b):min(int(n), cap(b))])
		b = b[:len(b)+k]
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
	return b, nil
}

// encodeValue encodes v as a MontyObject message body.
func encodeValue(v Value) ([]byte, error) {
	var m msg
	switch x := v.(type) {
	case nil:
		return m.bytes(objNone, nil), nil
	case bool:
		b := uint64(0)
		if x {
			b = 1
		}
		return m.varint(objBool, b), nil
	case int:
		return encodeInt(int64(x)), nil
	case int8:
		return encodeInt(int64(x)), nil
	case int16:
		return encodeInt(int64(x)), nil
	case int32:
		return encodeInt(int64(x)), nil
	case int64:
		return encodeInt(x), nil
	case uint8:
		return encodeInt(int64(x)), nil
	case uint16:
		return encodeInt(int64(x)), nil
	case uint32:
		return encodeInt(int64(x)), nil
	case uint:
		return encodeValue(new(big.Int).SetUint64(uint64(x)))
	case uint64:
		return encodeValue(new(big.Int).SetUint64(x))
	case *big.Int:
		if x.IsInt64() {
			return encodeInt(x.Int64()), nil
		}
		var bi msg
		if x.Sign() < 0 {
			bi = bi.varint(1, 1)
		}
		bi = bi.bytes(2, new(big.Int).Abs(x).Bytes())
		return m.bytes(objBigInt, bi), nil
	case float64:
		m = protowire.AppendTag(m, objFloat, protowire.Fixed64Type)
		return protowire.AppendFixed64(m, math.Float64bits(x)), nil
	case float32:
		return encodeValue(float64(x))
	case string:
		return m.str(objStr, x), nil
	case []byte:
		return m.bytes(objBytes, x), nil
	case []any:
		return encodeList(objList, x)
	case Tuple:
		return encodeList(objTuple, x)
	case Set:
		return encodeList(objSet, x)
	case FrozenSet:
		return encodeList(objFrozenSet, x)
	case *Dict:
		d, err := encodeDict(x.Pairs)
		if err != nil {
			return nil, err
		}
		return m.bytes(objDict, d), nil
	case *NamedTuple:
		var nt msg
		nt = nt.str(1, x.TypeName)
		for _, f := range x.Fields {
			nt = nt.str(2, f)
		}
		for _, e := range x.Values {
			b, err := encodeValue(e)
			if err != nil {
				return nil, err
			}
			nt = nt.bytes(3, b)
		}
		return m.bytes(objNamedTuple, nt), nil
	case Ellipsis:
		return m.bytes(objEllipsis, nil), nil
	case *ExceptionValue:
		var e msg
		e = e.str(1, x.Type)
		if x.HasArg {
			e = e.str(2, x.Arg)
		}
		return m.bytes(objException, e), nil
	case *TypeValue:
		t, err := encodeType(x.Name, x.ID, x.Origin, x.IsDataclass, x.Attrs)
		if err != nil {
			return nil, err
		}
		return m.bytes(objType, t), nil
	case *Instance:
		t, err := encodeType(x.TypeName, x.TypeID, x.Origin, x.IsDataclass, nil)
		if err != nil {
			return nil, err
		}
		var in msg
		in = in.bytes(1, t)
		in = in.bytes(2, msg(nil).bytes(1, x.ID[:]))
		attrs, err := encodeAttrs(x.Attrs)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", x.TypeName, err)
		}
		in = in.bytes(3, attrs)
		return m.bytes(objInstance, in), nil
	case Function:
		var f msg
		f = f.str(1, x.Name)
		if x.Doc != "" {
			f = f.str(2, x.Doc)
		}
		return m.bytes(objFunction, f), nil
	case BuiltinFunction:
		return m.str(objBuiltinFunc, string(x)), nil
	case Path:
		return m.str(objPath, string(x)), nil
	case Opaque:
		return m.bytes(protowire.Number(x.Field), x.Raw), nil
	case Repr, Cycle:
		return nil, fmt.Errorf("%T is output-only and cannot be sent to the sandbox", v)
	default:
		return nil, fmt.Errorf("cannot send Go %T to the sandbox", v)
	}
}

func encodeInt(i int64) []byte {
	m := protowire.AppendTag(nil, objInt, protowire.VarintType)
	return protowire.AppendVarint(m, protowire.EncodeZigZag(i))
}

func encodeList(num protowire.Number, xs []any) ([]byte, error) {
	var l msg
	for i, e := range xs {
		b, err := encodeValue(e)
		if err != nil {
			return nil, fmt.Errorf("[%d]: %w", i, err)
		}
		l = l.bytes(1, b)
	}
	return msg(nil).bytes(num, l), nil
}

func encodePair(k, v Value) ([]byte, error) {
	kb, err := encodeValue(k)
	if err != nil {
		return nil, err
	}
	vb, err := encodeValue(v)
	if err != nil {
		return nil, fmt.Errorf("[%s]: %w", Format(k), err)
	}
	return msg(nil).bytes(1, kb).bytes(2, vb), nil
}

func encodeDict(pairs []Pair) ([]byte, error) {
	var d msg
	for _, p := range pairs {
		b, err := encodePair(p.Key, p.Value)
		if err != nil {
			return nil, err
		}
		d = d.bytes(1, b)
	}
	return d, nil
}

func encodeAttrs(attrs []Attr) ([]byte, error) {
	var d msg
	for _, a := range attrs {
		b, err := encodePair(a.Name, a.Value)
		if err != nil {
			return nil, err
		}
		d = d.bytes(1, b)
	}
	return d, nil
}

func encodeType(name string, id UUID, origin Origin, dataclass bool, attrs []Attr) ([]byte, error) {
	var t msg
	t = t.str(1, name)
	if origin != OriginBuiltin {
		t = t.bytes(2, msg(nil).bytes(1, id[:]))
	}
	t = t.varint(3, uint64(origin))
	if dataclass {
		t = t.varint(4, 1)
	}
	if len(attrs) > 0 {
		a, err := encodeAttrs(attrs)
		if err != nil {
			return nil, err
		}
		t = t.bytes(5, a)
	}
	return t, nil
}

// maxDepth bounds how deeply the values a child sends may nest, as
// encoding/json does: decoding recurses once per level.
const maxDepth = 10000

// decodeValue decodes a MontyObject message body nested depth levels deep.
func decodeValue(b []byte, depth int) (Value, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("value nested more than %d levels deep", maxDepth)
	}
	fs, err := parseFields(b)
	if err != nil {
		return nil, err
	}
	if len(fs) == 0 {
		return nil, errors.New("empty MontyObject")
	}
	f := fs[len(fs)-1] // last oneof arm wins
	switch f.Num {
	case objNone:
		return nil, nil
	case objEllipsis:
		return Ellipsis{}, nil
	case objBool:
		return f.V != 0, nil
	case objInt:
		return protowire.DecodeZigZag(f.V), nil
	case objBigInt:
		bf, err := parseFields(f.B)
		if err != nil {
			return nil, err
		}
		n := new(big.Int)
		neg := false
		for _, x := range bf {
			switch x.Num {
			case 1:
				neg = x.V != 0
			case 2:
				n.SetBytes(x.B)
			}
		}
		if neg {
			n.Neg(n)
		}
		return n, nil
	case objFloat:
		return math.Float64frombits(f.V), nil
	case objStr:
		return string(f.B), nil
	case objBytes:
		return append([]byte{}, f.B...), nil
	case objList:
		return decodeList(f.B, depth+1)
	case objTuple:
		l, err := decodeList(f.B, depth+1)
		return Tuple(l), err
	case objSet:
		l, err := decodeList(f.B, depth+1)
		return Set(l), err
	case objFrozenSet:
		l, err := decodeList(f.B, depth+1)
		return FrozenSet(l), err
	case objDict:
		pairs, err := decodeDict(f.B, depth+1)
		if err != nil {
			return nil, err
		}
		return &Dict{Pairs: pairs}, nil
	case objNamedTuple:
		nf, err := parseFields(f.B)
		if err != nil {
			return nil, err
		}
		nt := &NamedTuple{}
		for _, x := range nf {
			switch x.Num {
			case 1:
				nt.TypeName = string(x.B)
			case 2:
				nt.Fields = append(nt.Fields, string(x.B))
			case 3:
				v, err := decodeValue(x.B, depth+1)
				if err != nil {
					return nil, err
				}
				nt.Values = append(nt.Values, v)
			}
		}
		return nt, nil
	case objException:
		ef, err := parseFields(f.B)
		if err != nil {
			return nil, err
		}
		e := &ExceptionValue{}
		for _, x := range ef {
			switch x.Num {
			case 1:
				e.Type = string(x.B)
			case 2:
				e.Arg, e.HasArg = string(x.B), true
			}
		}
		return e, nil
	case objType:
		return decodeType(f.B, depth+1)
	case objInstance:
		inf, err := parseFields(f.B)
		if err != nil {
			return nil, err
		}
		in := &Instance{}
		for _, x := range inf {
			switch x.Num {
			case 1:
				t, err := decodeType(x.B, depth+1)
				if err != nil {
					return nil, err
				}
				in.TypeName, in.TypeID, in.Origin, in.IsDataclass = t.Name, t.ID, t.Origin, t.IsDataclass
			case 2:
				in.ID, err = decodeUUID(x.B)
				if err != nil {
					return nil, err
				}
			case 3:
				in.Attrs, err = decodeAttrs(x.B, depth+1)
				if err != nil {
					return nil, err
				}
			}
		}
		return in, nil
	case objFunction:
		ff, err := parseFields(f.B)
		if err != nil {
			return nil, err
		}
		var fn Function
		for _, x := range ff {
			switch x.Num {
			case 1:
				fn.Name = string(x.B)
			case 2:
				fn.Doc = string(x.B)
			}
		}
		return fn, nil
	case objBuiltinFunc:
		return BuiltinFunction(f.B), nil
	case objPath:
		return Path(f.B), nil
	case objRepr:
		return Repr(f.B), nil
	case objCycle:
		cf, err := parseFields(f.B)
		if err != nil {
			return nil, err
		}
		var c Cycle
		for _, x := range cf {
			switch x.Num {
			case 1:
				c.Identity = x.V
			case 2:
				c.Placeholder = string(x.B)
			}
		}
		return c, nil
	default:
		if f.Typ != protowire.BytesType {
			return nil, fmt.Errorf("unexpected MontyObject field %d", f.Num)
		}
		return Opaque{Field: int(f.Num), Raw: append([]byte{}, f.B...)}, nil
	}
}

func decodeList(b []byte, depth int) ([]any, error) {
	var out []any
	err := eachField(b, func(f field) error {
		if f.Num != 1 {
			return nil
		}
		v, err := decodeValue(f.B, depth+1)
		out = append(out, v)
		return err
	})
	if err != nil {
		return nil, err
	}
	if out == nil {
		out = []any{}
	}
	return out, nil
}

func decodePair(b []byte, depth int) (Pair, error) {
	fs, err := parseFields(b)
	if err != nil {
		return Pair{}, err
	}
	var p Pair
	for _, f := range fs {
		switch f.Num {
		case 1:
			p.Key, err = decodeValue(f.B, depth+1)
		case 2:
			p.Value, err = decodeValue(f.B, depth+1)
		}
		if err != nil {
			return Pair{}, err
		}
	}
	return p, nil
}

func decodeDict(b []byte, depth int) ([]Pair, error) {
	var out []Pair
	err := eachField(b, func(f field) error {
		if f.Num != 1 {
			return nil
		}
		p, err := decodePair(f.B, depth+1)
		out = append(out, p)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func decodeAttrs(b []byte, depth int) ([]Attr, error) {
	pairs, err := decodeDict(b, depth+1)
	if err != nil {
		return nil, err
	}
	out := make([]Attr, len(pairs))
	for i, p := range pairs {
		k, ok := p.Key.(string)
		if !ok {
			return nil, fmt.Errorf("attribute name is a %s", PyType(p.Key))
		}
		out[i] = Attr{k, p.Value}
	}
	return out, nil
}

func decodeUUID(b []byte) (UUID, error) {
	var u UUID
	fs, err := parseFields(b)
	if err != nil {
		return u, err
	}
	for _, f := range fs {
		if f.Num == 1 {
			if len(f.B) != 16 {
				return u, fmt.Errorf("uuid of %d bytes", len(f.B))
			}
			copy(u[:], f.B)
		}
	}
	return u, nil
}

func decodeType(b []byte, depth int) (*TypeValue, error) {
	fs, err := parseFields(b)
	if err != nil {
		return nil, err
	}
	t := &TypeValue{}
	for _, f := range fs {
		switch f.Num {
		case 1:
			t.Name = string(f.B)
		case 2:
			t.ID, err = decodeUUID(f.B)
		case 3:
			t.Origin = Origin(f.V)
		case 4:
			t.IsDataclass = f.V != 0
		case 5:
			t.Attrs, err = decodeAttrs(f.B, depth+1)
		}
		if err != nil {
			return nil, err
		}
	}
	return t, nil
}
