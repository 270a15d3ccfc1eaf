package manifest

import (
	"encoding/json"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// marshalIndented is marshalStd(m) (without its error): its schemas
// written and indented on up to GOMAXPROCS goroutines (an indenter each;
// indentation depends only on the depth a schema stands at) while a
// frameWriter writes the rest around where they stand, then the two
// joined. ok is false when a schema or a value between them cannot be
// written (NaN, a cycle): Marshal then leaves everything to encoding/json,
// for its error.
func marshalIndented(m *Manifest) ([]byte, bool) {
	type stand struct {
		s     any
		depth int
	}
	var schemas []stand
	standing(m, func(s any, depth int) { schemas = append(schemas, stand{s, depth}) })
	pieces := make([][]byte, len(schemas))
	var failed atomic.Bool
	var next atomic.Int64
	work := func() {
		w := &indenter{p: newPinner(true), cache: map[indentKey][]byte{}, seen: map[indentKey]bool{}, here: map[indentKey][2]int{}}
		w.p.plain = true
		var piece []byte
		for !failed.Load() {
			i := int(next.Add(1) - 1)
			if i >= len(schemas) {
				return
			}
			var err error
			if piece, err = w.value(piece[:0], schemas[i].s, schemas[i].depth); err != nil {
				failed.Store(true)
				return
			}
			pieces[i] = slices.Clone(piece)
			for k, at := range w.here {
				w.cache[k] = pieces[i][at[0]:at[1]:at[1]]
			}
			clear(w.here)
		}
	}
	// The frame is written beside the schemas (it only marks where each
	// stands): on a large API it was a third of Marshal's time after them,
	// on one goroutine.
	var wg sync.WaitGroup
	for range max(1, min(runtime.GOMAXPROCS(0), len(schemas)/16)) {
		wg.Add(1)
		go func() { defer wg.Done(); work() }()
	}
	// What the frame adds is mostly its strings (the stubs, descriptions
	// and signatures), and some indentation and names per tool.
	size := 1024
	for i := range m.Services {
		s := &m.Services[i]
		size += len(s.Stub) + len(s.Stub)/16 + 1024
		for j := range s.Tools {
			t := &s.Tools[j]
			size += 2*(len(t.Description)+len(t.Signature)) + 1024 + 256*len(t.Params)
		}
	}
	w := &frameWriter{b: make([]byte, 0, size), at: make([]int, 0, len(schemas))}
	w.manifest(m)
	if w.err != nil {
		failed.Store(true) // the schemas are not needed
	}
	wg.Wait()
	if failed.Load() || len(w.at) != len(pieces) {
		return nil, false
	}
	return w.join(pieces), true
}

// An indenter writes a schema as indentJSON would indent what its Pinner
// (plain) writes, in one pass: the maps and lists nested within maxIndent
// indented as they are written, what is deeper written compact by the
// Pinner. A map met a second time at the same depth (with 3 keys or more)
// is copied from the bytes written the second time: where they stand in
// the piece being written (here), then in that piece once it is done
// (cache; a copy each of its own was a third of the pieces' bytes again).
type indenter struct {
	p     *Pinner
	cache map[indentKey][]byte
	seen  map[indentKey]bool
	here  map[indentKey][2]int
}

type indentKey struct {
	id    *byte
	depth int
}

// value appends v standing at nesting depth.
func (w *indenter) value(b []byte, v any, depth int) ([]byte, error) {
	switch x := v.(type) {
	case nil, string, bool, json.Number, float64, int, int64:
		return w.p.value(b, v)
	case map[string]any:
		if x == nil || len(x) == 0 || depth+1 > maxIndent {
			return w.p.value(b, v)
		}
		return w.object(b, x, depth)
	case []any:
		if x == nil || len(x) == 0 || depth+1 > maxIndent {
			return w.p.value(b, v)
		}
		w.p.depth++
		b = append(b, '[')
		var err error
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = newline(b, depth+1)
			if b, err = w.value(b, e, depth+1); err != nil {
				return b, err
			}
		}
		w.p.depth--
		return append(newline(b, depth), ']'), nil
	}
	// Any other Go value: what encoding/json writes for it, indented.
	raw, err := w.p.value(nil, v)
	if err != nil {
		return b, err
	}
	b = indentAt(b, raw, depth, maxIndent)
	return b, nil
}

// object appends a map with keys standing at nesting depth (its keys at
// depth+1, within maxIndent).
func (w *indenter) object(b []byte, m map[string]any, depth int) ([]byte, error) {
	key := indentKey{mapID(m), depth}
	remember := len(m) >= 3
	if remember {
		if c, ok := w.cache[key]; ok {
			return append(b, c...), nil
		}
		if at, ok := w.here[key]; ok {
			return append(b, b[at[0]:at[1]]...), nil
		}
	}
	start := len(b)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	w.p.depth++
	b = append(b, '{')
	var err error
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = newline(b, depth+1)
		b = w.p.str(b, k)
		b = append(b, ':', ' ')
		if b, err = w.value(b, m[k], depth+1); err != nil {
			return b, err
		}
	}
	w.p.depth--
	b = append(newline(b, depth), '}')
	if remember {
		if w.seen[key] {
			w.here[key] = [2]int{start, len(b)}
		} else {
			w.seen[key] = true
		}
	}
	return b, nil
}

// newline appends a newline and the indentation of depth.
func newline(b []byte, depth int) []byte {
	b = append(b, '\n')
	for range depth {
		b = append(b, ' ', ' ')
	}
	return b
}
