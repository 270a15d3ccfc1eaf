package parse

import (
	"bytes"
	"encoding/json"
	"errors"
	"runtime"
	"strconv"
	"strings"
)

// jsonSplitMin is the size from which decodeJSON decodes a document in
// pieces on several goroutines, as decodeYAML does a YAML one.
var jsonSplitMin = 1 << 20

// A jsonPiece is a run of members of one object of the document, decoded
// on its own as an object standing where the whole holds them.
type jsonPiece struct {
	path   []string // keys of the holding objects, outermost first
	holder string   // which split members hold it (a key may repeat)
	text   []byte   // "{" + the members + "}"
	values map[string]any
	keys   []string // in order, repeats kept (when the holder's order is recorded)
	order  order    // recorded beneath the members
	err    error
}

// decodeJSONSplit decodes a large JSON object in pieces, one goroutine
// each, and joins them into what decodeJSON gives for the whole. ok is
// false when it does not split (not an object, no large members) or when
// anything is off (a piece that does not decode, a key both split and
// not in one object): decodeJSON then decodes the whole, for its value or
// its error.
func decodeJSONSplit(data []byte) (any, order, bool) {
	procs := runtime.GOMAXPROCS(0)
	if len(data) < jsonSplitMin || procs < 2 {
		return nil, nil, false
	}
	sp := &jsonSplitter{data: data, target: max(1, len(data)/(2*procs))}
	start := skipJSONSpace(data, 0)
	if start >= len(data) || data[start] != '{' {
		return nil, nil, false
	}
	end, ok := sp.members(start, nil, "")
	if !ok || skipJSONSpace(data, end) != len(data) || len(sp.pieces) < 2 {
		return nil, nil, false
	}
	onCores(sp.pieces, procs, (*jsonPiece).decode)
	top := &jsonJoin{}
	holders := map[string]*jsonJoin{"": top}
	for _, p := range sp.pieces {
		if p.err != nil {
			return nil, nil, false
		}
		h, ids := top, strings.Split(p.holder, "/")
		for i := range p.path {
			id := strings.Join(ids[:i+2], "/")
			in, seen := holders[id]
			if !seen {
				in = &jsonJoin{path: p.path[:i+1]}
				h.items = append(h.items, jsonItem{inner: in})
				holders[id] = in
			}
			h = in
		}
		h.items = append(h.items, jsonItem{piece: p})
	}
	ord := order{}
	v, ok := top.value(ord)
	if !ok {
		return nil, nil, false
	}
	return v, ord, true
}

// decode decodes the piece as decodeJSON decodes its members inside the
// whole (the same path, so the same depth and recorded order).
func (p *jsonPiece) decode() {
	path := make([]string, len(p.path), len(p.path)+16)
	copy(path, p.path)
	t := newTokens(p.text, path)
	v, err := t.value()
	if err != nil {
		p.err = err
		return
	}
	m, ok := v.(map[string]any)
	if !ok || len(bytes.TrimSpace(p.text[t.dec.InputOffset():])) > 0 {
		p.err = errNotOnePiece
		return
	}
	p.values = m
	at := jsonPointer(p.path)
	p.keys = t.order[at]
	delete(t.order, at)
	p.order = t.order
}

var errNotOnePiece = errors.New("not one object")

func jsonPointer(path []string) string {
	var b strings.Builder
	for _, s := range path {
		b.WriteByte('/')
		b.WriteString(esc(s))
	}
	return b.String()
}

// A jsonJoin is an object of the whole that pieces fill: what it holds in
// document order, pieces or an object further in.
type jsonJoin struct {
	path  []string
	items []jsonItem
}

type jsonItem struct {
	piece *jsonPiece
	inner *jsonJoin
}

// value is the object j stands for, as tokens.value builds it.
func (j *jsonJoin) value(ord order) (map[string]any, bool) {
	split := map[string]bool{}
	n := 0 // members, to make out at its size
	for _, it := range j.items {
		if it.piece != nil {
			n += len(it.piece.values)
		}
		if it.inner != nil {
			n++
			k := it.inner.path[len(it.inner.path)-1]
			if split[k] {
				return nil, false
			}
			split[k] = true
		}
	}
	t := &tokens{path: j.path}
	record := t.records()
	out := make(map[string]any, n)
	var keys []string
	for _, it := range j.items {
		if it.inner != nil {
			v, ok := it.inner.value(ord)
			if !ok {
				return nil, false
			}
			k := it.inner.path[len(it.inner.path)-1]
			out[k] = v
			if record {
				keys = append(keys, k)
			}
			continue
		}
		p := it.piece
		for k, v := range p.values {
			if split[k] {
				return nil, false
			}
			out[k] = v
		}
		if record {
			keys = append(keys, p.keys...)
		}
		for at, ks := range p.order {
			ord[at] = ks
		}
	}
	if record {
		ord[jsonPointer(j.path)] = keys
	}
	return out, true
}

// A jsonSplitter cuts an object's members into pieces of about target
// bytes, and a member bigger than target whose value is an object into
// pieces of its own members, no more than maxSplitDepth objects in (each
// level in skips its members again: a document of objects nested
// thousands deep would cost the square of its size).
type jsonSplitter struct {
	data   []byte
	target int
	pieces []*jsonPiece
	split  int
	ends   map[int]int // where the objects and arrays skipped into end, by start
}

// skip is skipJSONValue, remembering where the containers one level into
// the value end: an object it splits is skipped again member by member.
func (sp *jsonSplitter) skip(i int) (int, bool) {
	if e, ok := sp.ends[i]; ok {
		return e, true
	}
	if sp.ends == nil {
		sp.ends = map[int]int{}
	}
	return skipJSONValue(sp.data, i, sp.ends)
}

// members splits the members of the object starting at data[at] ('{') and
// returns the offset just past it; ok is false for anything it does not
// read as an object of members.
func (sp *jsonSplitter) members(at int, path []string, holder string) (end int, ok bool) {
	data := sp.data
	first, last, size, made := -1, -1, 0, false
	flush := func() {
		if first < 0 {
			return
		}
		text := make([]byte, 0, last-first+2)
		text = append(append(append(text, '{'), data[first:last]...), '}')
		sp.pieces = append(sp.pieces, &jsonPiece{path: path, holder: holder, text: text})
		first, size, made = -1, 0, true
	}
	i := skipJSONSpace(data, at+1)
	if i < len(data) && data[i] == '}' {
		return i + 1, false // an empty object: nothing to split
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return 0, false
		}
		ks := i
		ke, ok := skipJSONString(data, i)
		if !ok {
			return 0, false
		}
		i = skipJSONSpace(data, ke)
		if i >= len(data) || data[i] != ':' {
			return 0, false
		}
		vs := skipJSONSpace(data, i+1)
		ve, ok := sp.skip(vs)
		if !ok {
			return 0, false
		}
		if n := ve - ks; n > sp.target && data[vs] == '{' && len(path) < maxSplitDepth {
			var key string
			if json.Unmarshal(data[ks:ke], &key) != nil {
				return 0, false
			}
			flush()
			sp.split++
			inner := append(append(make([]string, 0, len(path)+1), path...), key)
			end, ok := sp.members(vs, inner, holder+"/"+strconv.Itoa(sp.split))
			if !ok || end != ve {
				return 0, false
			}
			made = true
		} else {
			if first < 0 {
				first = ks
			}
			last = ve
			if size += n; size >= sp.target {
				flush()
			}
		}
		i = skipJSONSpace(data, ve)
		if i >= len(data) {
			return 0, false
		}
		switch data[i] {
		case ',': // inside a run, it stays in its text
			i = skipJSONSpace(data, i+1)
		case '}':
			flush()
			return i + 1, made
		default:
			return 0, false
		}
	}
}

func skipJSONSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipJSONString returns the offset just past the string starting at
// data[i] ('"').
func skipJSONString(data []byte, i int) (int, bool) {
	for j := i + 1; j < len(data); {
		q := bytes.IndexByte(data[j:], '"')
		if q < 0 {
			return 0, false
		}
		j += q
		// The quote ends the string unless an odd run of backslashes
		// (escapes, each of the next byte) stands before it.
		n := 0
		for data[j-1-n] == '\\' {
			n++
		}
		if n%2 == 0 {
			return j + 1, true
		}
		j++
	}
	return 0, false
}

// skipJSONValue returns the offset just past the value starting at data[i]
// (a string, or containers balanced, or a scalar up to a delimiter); it
// does not check what it skips, which the piece's decoder does. Where the
// containers directly in the value end (but small ones) goes in ends, by
// their start.
func skipJSONValue(data []byte, i int, ends map[int]int) (int, bool) {
	if i >= len(data) {
		return 0, false
	}
	switch data[i] {
	case '"':
		return skipJSONString(data, i)
	case '{', '[':
		depth, inner := 0, 0
		for j := i; j < len(data); j++ {
			for j+8 <= len(data) && string(data[j:j+8]) == "        " {
				j += 8 // indentation
			}
			if j >= len(data) {
				break
			}
			c := data[j]
			if c != '"' && c|0x20 != '{' && c|0x20 != '}' {
				continue // neither a string nor a bracket ('{' is '[' | 0x20)
			}
			switch c {
			case '"':
				e, ok := skipJSONString(data, j)
				if !ok {
					return 0, false
				}
				j = e - 1
			case '{', '[':
				if depth++; depth == 2 {
					inner = j
				}
			case '}', ']':
				switch depth--; depth {
				case 0:
					return j + 1, true
				case 1:
					if j+1-inner >= 256 { // a small one is soon skipped again
						ends[inner] = j + 1
					}
				}
			}
		}
		return 0, false
	}
	j := i
	for j < len(data) && !bytes.ContainsRune([]byte(",}] \t\n\r"), rune(data[j])) {
		j++
	}
	return j, j > i
}
