package manifest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/codemode-dev/codemode/ir"
)

// PinPrefix starts every pin Pin writes (pin format 2); a pin that starts
// with PinV1Prefix alone is in format 1, as codemode wrote them first.
const (
	PinPrefix   = "v2:sha256:"
	PinV1Prefix = "sha256:"
)

// Pin digests a tool's upstream definition, "v2:sha256:" and 64 hex
// digits: the SHA-256 of {"name","description","input","output"} as
// encoding/json writes it (the original input schema where enrichment
// changed it; "null" when the definition cannot be written, as with a
// cycle), except that each object under a "$defs" key is written as its
// names, each mapped to "sha256:" and the hex SHA-256 of that definition
// written the same way. A definition is hashed once per Pinner however
// many tools share it, and a tool's pin covers every definition in its
// $defs (parse puts there each one the tool reaches): a change anywhere in
// a definition changes the pins of exactly the tools that carry it. Cycles
// between definitions need no rule: a definition names the ones it refers
// to ("$ref") without spelling them out.
func Pin(t *ir.Tool) string { return NewPinner().Pin(t) }

// PinV1 is the pin in format 1 ("sha256:" and 64 hex digits): the SHA-256
// of the whole definition as encoding/json writes it, every definition in
// $defs spelled out. Pins written by earlier versions are checked by it.
func PinV1(t *ir.Tool) string { return NewPinnerV1().Pin(t) }

// A Pinner computes the pins of one service's tools. It writes the bytes
// encoding/json.Marshal would, without reflection, and keeps the bytes of
// every schema map it meets a second time (and the hash of every
// definition), so what tools share (parse shares a document's components
// between them) is written once; the schemas must not change while the
// Pinner is in use.
type Pinner struct {
	v1    bool
	plain bool // no HTML escaping (the manifest's encoder; see Marshal)
	buf   []byte
	// hashBuf is where definitionEntry writes a definition to hash it;
	// hashing is set while it is in use.
	hashBuf []byte
	hashing bool
	seen    map[*byte]bool    // maps written once, by identity
	cache   map[*byte][]byte  // maps met twice: their bytes
	open    map[*byte]bool    // maps being written (a cycle fails)
	defs    map[*byte]defHash // format 2: the hash of each definition map
	// sets is format 2's bytes of each "$defs" object written, by identity
	// (parse shares one among the tools that reach the same definitions).
	sets  map[*byte][]byte
	depth int     // nesting of the value being written
	old   *Pinner // format 1, for PinAs
	// shared is what the Pinners of one Pins call (on several goroutines)
	// tell each other: the definitions' hashes and the "$defs" objects'
	// bytes, each worked out once among them; nil for a Pinner alone.
	shared *pinShare
}

// A pinShare holds, by map identity, the hex hash of each definition and
// format 2's bytes of each "$defs" object, for the Pinners of one Pins
// call. What it holds is never changed.
type pinShare struct {
	defs sync.Map // *byte → string
	sets sync.Map // *byte → []byte
}

// NewPinner returns an empty Pinner.
func NewPinner() *Pinner { return newPinner(false) }

// NewPinnerV1 returns an empty Pinner that writes pins in format 1 (PinV1).
func NewPinnerV1() *Pinner { return newPinner(true) }

func newPinner(v1 bool) *Pinner {
	return &Pinner{v1: v1, seen: map[*byte]bool{}, cache: map[*byte][]byte{}, open: map[*byte]bool{}, defs: map[*byte]defHash{}, sets: map[*byte][]byte{}}
}

// PinAs returns the tool's pin in the format of pin (a pin read from a
// manifest), so a definition is compared with its pin by the rule the pin
// was written with; a pin in no known format is an error.
func (p *Pinner) PinAs(pin string, t *ir.Tool) (string, error) {
	switch {
	case strings.HasPrefix(pin, PinPrefix):
		if p.v1 {
			return newPinner(false).Pin(t), nil
		}
		return p.Pin(t), nil
	case strings.HasPrefix(pin, PinV1Prefix):
		if p.v1 {
			return p.Pin(t), nil
		}
		if p.old == nil {
			p.old = newPinner(true)
		}
		return p.old.Pin(t), nil
	}
	if len(pin) > 24 {
		pin = pin[:24] + "..."
	}
	return "", fmt.Errorf("the manifest's pin %q is in a format this codemode does not know; regenerate the pack (codemode gen)", pin)
}

// Pins returns the pins of tools, in order: the same strings Pin gives,
// hashed on up to GOMAXPROCS goroutines (one Pinner each) when there are
// enough tools for it to pay. The schemas must not change meanwhile.
func Pins(tools []*ir.Tool) []string {
	out := make([]string, len(tools))
	workers := min(runtime.GOMAXPROCS(0), len(tools)/16)
	if workers <= 1 {
		p := NewPinner()
		for i, t := range tools {
			out[i] = p.Pin(t)
		}
		return out
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	shared := &pinShare{}
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := NewPinner()
			p.shared = shared
			for {
				i := int(next.Add(1) - 1)
				if i >= len(tools) {
					return
				}
				out[i] = p.Pin(tools[i])
			}
		}()
	}
	wg.Wait()
	return out
}

var errPinCycle = errors.New("pin: schema cycle")

// maxTrackDepth is the nesting past which the writer looks for a cycle (as
// encoding/json starts to past 1,000); maxDepth the nesting it refuses.
const (
	maxTrackDepth = 1000
	maxDepth      = 100_000
)

// Pin returns the tool's pin (see Pin).
func (p *Pinner) Pin(t *ir.Tool) string {
	in := t.Original
	if in == nil {
		in = t.Input
	}
	b, err := p.definition(p.buf[:0], t, in)
	if err != nil {
		b = append(b[:0], "null"...)
		clear(p.open)
		p.depth = 0
	}
	p.buf = b
	sum := sha256.Sum256(b)
	if p.v1 {
		return PinV1Prefix + hex.EncodeToString(sum[:])
	}
	return PinPrefix + hex.EncodeToString(sum[:])
}

func (p *Pinner) definition(b []byte, t *ir.Tool, in ir.Schema) ([]byte, error) {
	var err error
	b = append(b, `{"name":`...)
	b = appendJSONString(b, string(t.Wire))
	b = append(b, `,"description":`...)
	b = appendJSONString(b, t.Description)
	b = append(b, `,"input":`...)
	if b, err = p.value(b, map[string]any(in)); err != nil {
		return b, err
	}
	if len(t.Output) > 0 {
		b = append(b, `,"output":`...)
		if b, err = p.value(b, map[string]any(t.Output)); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

func mapID(m map[string]any) *byte { return (*byte)(reflect.ValueOf(m).UnsafePointer()) }

func (p *Pinner) value(b []byte, v any) ([]byte, error) {
	var err error
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case string:
		return p.str(b, x), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case json.Number:
		s := string(x)
		if s == "" {
			s = "0"
		}
		if !isValidNumber(s) {
			return b, errors.New("pin: invalid number")
		}
		return append(b, s...), nil
	case float64:
		return appendFloat(b, x)
	case int:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case []any:
		if x == nil {
			return append(b, "null"...), nil
		}
		if p.depth++; p.depth > maxDepth {
			return b, errPinCycle
		}
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = p.value(b, e); err != nil {
				return b, err
			}
		}
		p.depth--
		return append(b, ']'), nil
	case map[string]any:
		return p.object(b, x)
	}
	// Anything else as encoding/json writes it.
	if p.plain {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			return b, err
		}
		return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...), nil
	}
	j, err := json.Marshal(v)
	if err != nil {
		return b, err
	}
	return append(b, j...), nil
}

func (p *Pinner) object(b []byte, m map[string]any) ([]byte, error) {
	if m == nil {
		return append(b, "null"...), nil
	}
	// Small maps are cheaper to write again than to remember; a cycle is
	// looked for, as encoding/json does, only past a depth no schema
	// reaches (maxTrackDepth), and refused past maxDepth whatever it is.
	id := mapID(m)
	remember := len(m) >= 3
	if remember {
		if c, ok := p.cache[id]; ok {
			return append(b, c...), nil
		}
	}
	p.depth++
	if p.depth > maxDepth {
		return b, errPinCycle
	}
	track := p.depth > maxTrackDepth
	if track {
		if p.open[id] {
			return b, errPinCycle
		}
		p.open[id] = true
	}
	start := len(b)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	var err error
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = p.str(b, k)
		b = append(b, ':')
		if d, ok := m[k].(map[string]any); ok && k == "$defs" && !p.v1 {
			b, err = p.definitions(b, d)
		} else {
			b, err = p.value(b, m[k])
		}
		if err != nil {
			return b, err
		}
	}
	b = append(b, '}')
	if track {
		delete(p.open, id)
	}
	p.depth--
	if remember {
		if p.seen[id] {
			p.cache[id] = slices.Clone(b[start:])
		} else {
			p.seen[id] = true
		}
	}
	return b, nil
}

// definitions writes a "$defs" object in format 2: each name mapped to the
// hash of its definition.
func (p *Pinner) definitions(b []byte, defs map[string]any) ([]byte, error) {
	if defs == nil {
		return append(b, "null"...), nil
	}
	id := mapID(defs)
	if c, ok := p.sets[id]; ok {
		return append(b, c...), nil
	}
	if p.shared != nil {
		if c, ok := p.shared.sets.Load(id); ok {
			p.sets[id] = c.([]byte)
			return append(b, c.([]byte)...), nil
		}
	}
	start := len(b)
	names := make([]string, 0, len(defs))
	for k := range defs {
		names = append(names, k)
	}
	slices.Sort(names)
	b = append(b, '{')
	for i, name := range names {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = p.definitionEntry(b, name, defs[name]); err != nil {
			return b, err
		}
	}
	b = append(b, '}')
	p.sets[id] = slices.Clone(b[start:])
	if p.shared != nil {
		p.shared.sets.Store(id, p.sets[id])
	}
	return b, nil
}

// A defHash is a definition's hash in hex, and its entry in a $defs object
// ("name":"sha256:...") under the name it was last met by.
type defHash struct {
	hex, name string
	entry     []byte
}

// definitionEntry appends "name":"sha256:<hash of v>", hashing each
// definition map once.
func (p *Pinner) definitionEntry(b []byte, name string, v any) ([]byte, error) {
	m, isMap := v.(map[string]any)
	var id *byte
	if isMap && m != nil {
		id = mapID(m)
		if h, ok := p.defs[id]; ok {
			if h.name != name {
				h.name, h.entry = name, p.defEntryBytes(name, h.hex)
				p.defs[id] = h
			}
			return append(b, h.entry...), nil
		}
		if p.open[id] {
			return b, errPinCycle
		}
		if p.shared != nil {
			if x, ok := p.shared.defs.Load(id); ok {
				h := defHash{hex: x.(string), name: name}
				h.entry = p.defEntryBytes(name, h.hex)
				p.defs[id] = h
				return append(b, h.entry...), nil
			}
		}
	}
	// The definition is written to be hashed, into a buffer kept for it
	// (a definition met while another is written, under a nested "$defs",
	// gets a buffer of its own).
	var scratch []byte
	busy := p.hashing
	if !busy {
		scratch, p.hashing = p.hashBuf[:0], true
	}
	j, err := p.value(scratch, v)
	if !busy {
		p.hashBuf, p.hashing = j[:0], false
	}
	if err != nil {
		return b, err
	}
	sum := sha256.Sum256(j)
	h := defHash{hex: hex.EncodeToString(sum[:]), name: name}
	h.entry = p.defEntryBytes(name, h.hex)
	if id != nil {
		p.defs[id] = h
		if p.shared != nil {
			p.shared.defs.Store(id, h.hex)
		}
	}
	return append(b, h.entry...), nil
}

func (p *Pinner) defEntryBytes(name, hexSum string) []byte {
	e := p.str(nil, name)
	e = append(e, ':', '"')
	e = append(e, PinV1Prefix...)
	e = append(e, hexSum...)
	return append(e, '"')
}

// appendFloat writes f as encoding/json does (ES6 number formatting).
func appendFloat(b []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, errors.New("pin: unsupported float")
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}

const hexDigits = "0123456789abcdef"

func (p *Pinner) str(b []byte, s string) []byte {
	if p.plain {
		return appendString(b, s, false)
	}
	return appendString(b, s, true)
}

func appendJSONString(b []byte, s string) []byte { return appendString(b, s, true) }

// appendString writes s quoted as encoding/json does: <, > and & as
// \u00XX when html is set (json.Marshal; not for an Encoder with
// SetEscapeHTML(false)), control bytes as \u00XX (or \n and the like),
// invalid UTF-8 as \ufffd, U+2028 and U+2029 escaped.
func appendString(b []byte, s string, html bool) []byte {
	b = append(b, '"')
	safe := &plainSafe
	if html {
		safe = &htmlSafe
	}
	start := 0
	for i := 0; i < len(s); {
		// Eight bytes at a time while none needs a look (descriptions are
		// mostly plain ASCII: this loop was a sixth of Marshal's time a
		// byte at a time), then byte by byte to the one that does.
		i = plainWords(s, i, html)
		for i < len(s) && safe[s[i]] {
			i++
		}
		if i == len(s) {
			break
		}
		if c := s[i]; c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// plainWords is i moved on by eight bytes at a time while none of them
// may need escaping (see mayEscape).
func plainWords(s string, i int, html bool) int {
	if html {
		for ; i+8 <= len(s); i += 8 {
			if x := load8(s, i); mayEscape(x)|mayEscapeHTML(x) != 0 {
				break
			}
		}
		return i
	}
	for ; i+8 <= len(s); i += 8 {
		if mayEscape(load8(s, i)) != 0 {
			break
		}
	}
	return i
}

// load8 is the eight bytes of s from i, the first lowest.
func load8(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// mayEscape is not 0 when a byte of x may not be copied as it is: one
// below 0x20, '"' or '\\', or 0x80 or above (UTF-8, looked at rune by
// rune). It may say so of a safe byte after one that is not (the
// borrow), never the other way round. mayEscapeHTML is the same for '<',
// '>' and '&'.
func mayEscape(x uint64) uint64 {
	return ((x-0x20*ones)&^x | x | has(x, '"') | has(x, '\\')) & highs
}

func mayEscapeHTML(x uint64) uint64 {
	return (has(x, '<') | has(x, '>') | has(x, '&')) & highs
}

// has sets the high bit of (at least) each byte of x that is c.
func has(x uint64, c byte) uint64 {
	y := x ^ (uint64(c) * ones)
	return (y - ones) &^ y
}

// plainSafe and htmlSafe are the bytes appendString copies as they are
// (printable ASCII but '"' and '\\'; without '<', '>' and '&' for html).
var plainSafe, htmlSafe = func() (plain, html [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		plain[c] = c != '"' && c != '\\'
		html[c] = plain[c] && c != '<' && c != '>' && c != '&'
	}
	return plain, html
}()

// isValidNumber is the JSON number grammar (RFC 7159 section 6), as
// encoding/json checks a json.Number.
func isValidNumber(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == '-' {
		s = s[1:]
		if s == "" {
			return false
		}
	}
	switch {
	default:
		return false
	case s[0] == '0':
		s = s[1:]
	case '1' <= s[0] && s[0] <= '9':
		s = s[1:]
		for len(s) > 0 && '0' <= s[0] && s[0] <= '9' {
			s = s[1:]
		}
	}
	if len(s) >= 2 && s[0] == '.' && '0' <= s[1] && s[1] <= '9' {
		s = s[2:]
		for len(s) > 0 && '0' <= s[0] && s[0] <= '9' {
			s = s[1:]
		}
	}
	if len(s) >= 2 && (s[0] == 'e' || s[0] == 'E') {
		s = s[1:]
		if s[0] == '+' || s[0] == '-' {
			s = s[1:]
			if s == "" {
				return false
			}
		}
		for len(s) > 0 && '0' <= s[0] && s[0] <= '9' {
			s = s[1:]
		}
	}
	return s == ""
}
