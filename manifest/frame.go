package manifest

import (
	"bytes"
	"encoding/json"
	"maps"
	"runtime"
	"slices"
	"strconv"
	"sync"
)

// A frameWriter writes a manifest as indentJSON indents what encoding/json
// (no HTML escaping) writes for it, field by field in the structs' order
// and with their omitempty rules, without reflection; the schemas, written
// beforehand (see marshalIndented), are copied in where they stand, and
// the small structs between (a source, security schemes, annotations, an
// HTTP operation, enrichment decisions) are left to encoding/json and
// indented. The schemas are not copied in as it goes: it marks where
// each stands (at), so it can run while they are written, and join puts
// frame and schemas together. TestFrameKnowsEveryField fails when a
// struct gains a field.
type frameWriter struct {
	b     []byte
	depth int
	first bool  // no member written yet in the innermost container
	at    []int // where in b each schema stands, in order
	err   error
}

// piece marks that the next schema stands here.
func (w *frameWriter) piece() { w.at = append(w.at, len(w.b)) }

// join is the frame with the schemas (pieces, in the order they stand)
// where it marked them, in one buffer of the size they make. A large
// manifest is copied on every core, each a run of pieces: what a copy of
// tens of megabytes costs is mostly the kernel mapping the new buffer's
// pages, and each core maps its own.
func (w *frameWriter) join(pieces [][]byte) []byte {
	n := len(w.b)
	for _, p := range pieces {
		n += len(p)
	}
	out := make([]byte, n)
	// off[i] is where the frame's bytes before piece i go; piece i
	// follows them.
	off := make([]int, len(w.at)+1)
	o, from := 0, 0
	for i, at := range w.at {
		off[i] = o
		o += at - from + len(pieces[i])
		from = at
	}
	off[len(w.at)] = o
	copyRun := func(first, end int) {
		for i := first; i < end; i++ {
			from := 0
			if i > 0 {
				from = w.at[i-1]
			}
			c := off[i] + copy(out[off[i]:], w.b[from:w.at[i]])
			copy(out[c:], pieces[i])
		}
	}
	// Each of the first workers-1 runs ends at the first piece standing
	// past its share of the bytes; the last is copied here.
	workers := max(1, min(runtime.GOMAXPROCS(0), n/joinPerCore))
	var wg sync.WaitGroup
	first := 0
	for k := 1; k < workers; k++ {
		end := first
		for end < len(w.at) && off[end] < n*k/workers {
			end++
		}
		wg.Add(1)
		go func(first, end int) { defer wg.Done(); copyRun(first, end) }(first, end)
		first = end
	}
	copyRun(first, len(w.at))
	last := 0
	if len(w.at) > 0 {
		last = w.at[len(w.at)-1]
	}
	copy(out[off[len(w.at)]:], w.b[last:])
	wg.Wait()
	return out
}

// joinPerCore is the fewest bytes of a manifest join copies on a core of
// its own (a variable for the tests).
var joinPerCore = 4 << 20

// standing calls f with each schema that stands as its own piece, in
// order, and the nesting it stands at: where frameWriter.schema and
// frameWriter.defs mark a piece. A service's defs are a piece each
// (sorted by name; the frame writes the object around them): written as
// one, they were a tenth of the manifest's schemas on one goroutine, in a
// buffer grown a quarter at a time.
func standing(m *Manifest, f func(s any, depth int)) {
	for i := range m.Services {
		s := &m.Services[i]
		for j := range s.Tools {
			t := &s.Tools[j]
			for _, sc := range []map[string]any{t.Input, t.Original, t.Output, t.Observed} {
				if len(sc) > 0 {
					f(sc, 5) // manifest, services, service, tools, tool
				}
			}
		}
		for _, k := range slices.Sorted(maps.Keys(s.Defs)) {
			f(s.Defs[k], 4) // manifest, services, service, defs
		}
	}
}

func (w *frameWriter) open(c byte) {
	w.b = append(w.b, c)
	w.depth++
	w.first = true
}

func (w *frameWriter) close(c byte) {
	w.depth--
	if !w.first {
		w.b = newline(w.b, w.depth)
	}
	w.b = append(w.b, c)
	w.first = false
}

// member starts a container's next member: a list's element, or (with a
// key) an object's.
func (w *frameWriter) member() {
	if !w.first {
		w.b = append(w.b, ',')
	}
	w.first = false
	w.b = newline(w.b, w.depth)
}

func (w *frameWriter) key(k string) {
	w.member()
	w.b = appendString(w.b, k, false)
	w.b = append(w.b, ':', ' ')
}

func (w *frameWriter) str(k, v string) { w.key(k); w.b = appendString(w.b, v, false) }

func (w *frameWriter) strOmit(k, v string) {
	if v != "" {
		w.str(k, v)
	}
}

func (w *frameWriter) boolean(k string, v bool) { w.key(k); w.b = strconv.AppendBool(w.b, v) }

func (w *frameWriter) strings(k string, v []string) {
	w.key(k)
	if v == nil {
		w.b = append(w.b, "null"...)
		return
	}
	w.open('[')
	for _, s := range v {
		w.member()
		w.b = appendString(w.b, s, false)
	}
	w.close(']')
}

// any writes v as encoding/json does, indented where it stands.
func (w *frameWriter) any(k string, v any) {
	w.key(k)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		w.err = err
		return
	}
	w.b = indentAt(w.b, bytes.TrimSuffix(buf.Bytes(), []byte("\n")), w.depth, maxIndent)
}

// schema writes a schema field: null, {}, or its piece.
func (w *frameWriter) schema(k string, s map[string]any, omitEmpty bool) {
	if omitEmpty && len(s) == 0 {
		return
	}
	w.key(k)
	switch {
	case s == nil:
		w.b = append(w.b, "null"...)
	case len(s) == 0:
		w.b = append(w.b, '{', '}')
	default:
		w.piece()
	}
}

// defs writes a service's defs (omitted when empty) as the indenter
// writes a map, each definition its piece.
func (w *frameWriter) defs(defs map[string]any) {
	if len(defs) == 0 {
		return
	}
	w.key("defs")
	w.open('{')
	for _, k := range slices.Sorted(maps.Keys(defs)) {
		w.key(k)
		w.piece()
	}
	w.close('}')
}

// array writes a slice of structs as encoding/json does: null for nil,
// each element by write.
func array[T any](w *frameWriter, v []T, write func(*T)) {
	if v == nil {
		w.b = append(w.b, "null"...)
		return
	}
	w.open('[')
	for i := range v {
		w.member()
		write(&v[i])
	}
	w.close(']')
}

func (w *frameWriter) manifest(m *Manifest) {
	w.open('{')
	w.key("version")
	w.b = strconv.AppendInt(w.b, int64(m.Version), 10)
	w.key("services")
	array(w, m.Services, w.service)
	w.close('}')
	w.b = append(w.b, '\n')
}

func (w *frameWriter) service(s *Service) {
	w.open('{')
	w.str("name", string(s.Name))
	w.strOmit("title", s.Title)
	w.str("file", s.File)
	w.any("source", s.Source)
	if len(s.Servers) > 0 {
		w.strings("servers", s.Servers)
	}
	if len(s.Security) > 0 {
		w.any("security", s.Security)
	}
	w.key("tools")
	array(w, s.Tools, w.tool)
	if len(s.Diagnostics) > 0 {
		w.strings("diagnostics", s.Diagnostics)
	}
	w.defs(s.Defs)
	w.str("stub", s.Stub)
	w.close('}')
}

func (w *frameWriter) tool(t *Tool) {
	w.open('{')
	w.str("wire", string(t.Wire))
	w.str("py", string(t.Py))
	w.str("call", t.Call)
	w.str("signature", t.Signature)
	w.strOmit("title", t.Title)
	w.strOmit("description", t.Description)
	if t.Deprecated {
		w.boolean("deprecated", true)
	}
	w.key("lines")
	w.open('[')
	for _, n := range t.Lines {
		w.member()
		w.b = strconv.AppendInt(w.b, int64(n), 10)
	}
	w.close(']')
	w.key("params")
	array(w, t.Params, w.param)
	w.schema("input", t.Input, false)
	w.schema("original", t.Original, true)
	w.schema("output", t.Output, true)
	w.any("annotations", t.Annotations)
	if t.HTTP != nil {
		w.any("http", t.HTTP)
	}
	if len(t.Enrichment) > 0 {
		w.any("enrichment", t.Enrichment)
	}
	w.str("pin", t.Pin)
	w.schema("observed", t.Observed, true)
	w.close('}')
}

func (w *frameWriter) param(p *Param) {
	w.open('{')
	w.str("arg", p.Arg)
	w.str("wire", string(p.Wire))
	w.str("py", string(p.Py))
	w.str("in", string(p.In))
	w.boolean("required", p.Required)
	w.strOmit("style", p.Style)
	if p.Explode != nil {
		w.boolean("explode", *p.Explode)
	}
	w.str("pointer", string(p.Ref))
	w.close('}')
}
