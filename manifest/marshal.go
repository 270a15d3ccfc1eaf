package manifest

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"strconv"
)

// marshalFast writes what encoding/json writes for m (before indenting),
// with the schemas, most of a large API's manifest, written by the
// Pinner's encoder instead of by reflection: a schema map the tools share
// (parse shares a document's parameters and components between them) is
// written once and copied after. encoding/json writes the rest, with each
// schema standing in as a one-key object whose key no input can hold (it
// carries a random nonce); the schemas are spliced in where those stand.
// ok is false when a schema cannot be written (NaN, a cycle): Marshal then
// leaves everything to encoding/json, for its error.
func marshalFast(m *Manifest) ([]byte, bool) {
	var nonce [12]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return nil, false
	}
	key := "\x00codemode-schema-" + hex.EncodeToString(nonce[:])
	var schemas []map[string]any
	stand := func(s map[string]any) map[string]any {
		if len(s) == 0 {
			return s // null or {}, and omitempty, as they were
		}
		schemas = append(schemas, s)
		return map[string]any{key: len(schemas) - 1}
	}
	c := *m
	c.Services = make([]Service, len(m.Services))
	for i, s := range m.Services {
		s.Defs = stand(s.Defs)
		tools := make([]Tool, len(s.Tools))
		for j, t := range s.Tools {
			t.Input = stand(t.Input)
			t.Original = stand(t.Original)
			t.Output = stand(t.Output)
			t.Observed = stand(t.Observed)
			tools[j] = t
		}
		if s.Tools != nil {
			s.Tools = tools
		}
		c.Services[i] = s
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&c); err != nil {
		return nil, false
	}
	src := buf.Bytes()
	// How encoding/json writes a stand-in: {"\u0000codemode-schema-...":N}
	marker := []byte(`{"\u0000codemode-schema-` + hex.EncodeToString(nonce[:]) + `":`)
	p := newPinner(true)
	p.plain = true
	out := make([]byte, 0, len(src)*4)
	for {
		i := bytes.Index(src, marker)
		if i < 0 {
			break
		}
		out = append(out, src[:i]...)
		src = src[i+len(marker):]
		end := bytes.IndexByte(src, '}')
		if end < 0 {
			return nil, false
		}
		n, err := strconv.Atoi(string(src[:end]))
		if err != nil || n < 0 || n >= len(schemas) {
			return nil, false
		}
		src = src[end+1:]
		if out, err = p.object(out, schemas[n]); err != nil {
			return nil, false
		}
	}
	return append(out, src...), true
}
