package parse

import (
	"strings"

	"gopkg.in/yaml.v3"
)

// A pieceConv is one piece's entries converted on its goroutine as
// decodeYAML converts them inside the whole: their values by key, the keys
// in the order they first appear, the key order recorded beneath them, and
// the values aliases expanded to.
type pieceConv struct {
	values  map[string]any
	keys    []string
	order   order
	aliased int
	err     error
}

// convertPiece converts the entries of p's innermost mapping, standing
// where the whole document holds them (under p.prefix, as deep). It
// returns nil when the piece is not shaped as splitYAML joins it (the
// whole is then decoded).
func convertPiece(p *yamlPiece) *pieceConv {
	if p.root.Kind != yaml.DocumentNode || len(p.root.Content) != 1 {
		return nil
	}
	n := p.root.Content[0]
	for _, key := range p.prefix {
		if n.Kind != yaml.MappingNode || len(n.Content) != 2 || n.Content[0].Kind != yaml.ScalarNode || n.Content[0].Value != key || n.Content[0].Style != 0 {
			return nil
		}
		n = n.Content[1]
	}
	if n.Kind != yaml.MappingNode || n.Tag != "!!map" || n.Anchor != "" {
		return nil
	}
	// The path is the piece's own (pieces of one holder share prefix).
	path := make([]string, len(p.prefix))
	copy(path, p.prefix)
	c := &yamlConv{order: order{}, depth: 1 + len(path), path: path}
	pc := &pieceConv{values: make(map[string]any, len(n.Content)/2), keys: make([]string, 0, len(n.Content)/2)}
	pc.err = c.mapping(n, pc.values, &pc.keys)
	pc.order, pc.aliased = c.order, c.aliased
	return pc
}

// A joinNode is a mapping of the whole document that pieces fill: what it
// holds in document order, each piece's converted entries or a mapping
// further in.
type joinNode struct {
	path  []string
	key   string // in the mapping that holds it
	items []joinItem
}

type joinItem struct {
	conv  *pieceConv
	inner *joinNode
}

// joinConverted joins the converted pieces of splitYAML into the value and
// key order decodeYAML gives for the whole document, applying what each
// piece set in the order the whole is converted. ok is false when a piece
// was not converted or failed (the whole is then decoded, for its value or
// its error), or when a key is both split and not in one mapping (decoded
// whole too: which of them wins depends on their order).
func joinConverted(pieces []*yamlPiece) (any, order, bool) {
	top := &joinNode{}
	holders := map[string]*joinNode{"": top}
	aliased := 0
	for _, p := range pieces {
		if p.conv == nil || p.conv.err != nil {
			return nil, nil, false
		}
		aliased += p.conv.aliased
		h, ids := top, strings.Split(p.holder, "/")
		for i, key := range p.prefix {
			path := strings.Join(ids[:i+2], "/")
			in, seen := holders[path]
			if !seen {
				in = &joinNode{path: p.prefix[:i+1], key: key}
				h.items = append(h.items, joinItem{inner: in})
				holders[path] = in
			}
			h = in
		}
		h.items = append(h.items, joinItem{conv: p.conv})
	}
	if aliased > maxAliasValues {
		return nil, nil, false
	}
	ord := order{}
	v, ok := top.value(ord)
	if !ok {
		return nil, nil, false
	}
	return v, ord, true
}

// value is the mapping n stands for, as yamlConv.value converts it.
func (n *joinNode) value(ord order) (map[string]any, bool) {
	split := map[string]bool{}
	for _, it := range n.items {
		if it.inner != nil {
			if split[it.inner.key] {
				return nil, false
			}
			split[it.inner.key] = true
		}
	}
	out := map[string]any{}
	var keys []string
	if recordKeys(n.path) {
		keys = []string{}
	}
	set := func(k string, v any) {
		if _, dup := out[k]; !dup && keys != nil {
			keys = append(keys, k)
		}
		out[k] = v
	}
	for _, it := range n.items {
		if it.inner != nil {
			v, ok := it.inner.value(ord)
			if !ok {
				return nil, false
			}
			set(it.inner.key, v)
			continue
		}
		for _, k := range it.conv.keys {
			if split[k] {
				return nil, false
			}
			set(k, it.conv.values[k])
		}
		for p, ks := range it.conv.order {
			ord[p] = ks
		}
	}
	if keys != nil {
		var b strings.Builder
		for _, s := range n.path {
			b.WriteByte('/')
			b.WriteString(esc(s))
		}
		ord[b.String()] = keys
	}
	return out, true
}
