package enrich

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"slices"
)

// memoKey is the key the proposal and verdict memos file their inputs
// under: a tagged, length-prefixed encoding of the values (sorted map
// keys), so two inputs share a key only when they are equal. It replaces
// a json.Marshal per parameter, most of what the memos cost on a large
// spec. ok is false for a value it cannot encode (the caller then skips
// the memo).
func memoKey(parts ...any) (key string, ok bool) {
	b := make([]byte, 0, 256)
	for _, p := range parts {
		if b, ok = appendKey(b, p, 0); !ok {
			return "", false
		}
	}
	return string(b), true
}

func appendKeyString(b []byte, tag byte, s string) []byte {
	b = append(b, tag)
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendKey(b []byte, v any, depth int) ([]byte, bool) {
	if depth > 10000 {
		return b, false
	}
	switch x := v.(type) {
	case nil:
		return append(b, 'n'), true
	case bool:
		if x {
			return append(b, 't'), true
		}
		return append(b, 'f'), true
	case string:
		return appendKeyString(b, 's', x), true
	case json.Number:
		return appendKeyString(b, 'N', string(x)), true
	case float64:
		b = append(b, 'F')
		return binary.LittleEndian.AppendUint64(b, math.Float64bits(x)), true
	case int:
		b = append(b, 'I')
		return binary.AppendVarint(b, int64(x)), true
	case int64:
		b = append(b, 'J')
		return binary.AppendVarint(b, x), true
	case []any:
		if x == nil {
			return append(b, 'L'), true
		}
		b = append(b, '[')
		b = binary.AppendUvarint(b, uint64(len(x)))
		var ok bool
		for _, e := range x {
			if b, ok = appendKey(b, e, depth+1); !ok {
				return b, false
			}
		}
		return b, true
	case map[string]any:
		if x == nil {
			return append(b, 'M'), true
		}
		return appendKeyMap(b, x, depth)
	}
	j, err := json.Marshal(v)
	if err != nil {
		return b, false
	}
	return appendKeyString(b, 'j', string(j)), true
}

func appendKeyMap(b []byte, m map[string]any, depth int) ([]byte, bool) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	b = binary.AppendUvarint(b, uint64(len(keys)))
	var ok bool
	for _, k := range keys {
		b = appendKeyString(b, 's', k)
		if b, ok = appendKey(b, m[k], depth+1); !ok {
			return b, false
		}
	}
	return b, true
}
