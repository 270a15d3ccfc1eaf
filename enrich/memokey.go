package enrich

import (
	"encoding/binary"
	"encoding/json"
	"hash/maphash"
	"math"
	"slices"
	"sync"
)

// memoKey is the key the proposal and verdict memos file their inputs
// under: two seeded 64-bit hashes (hash/maphash, seeds drawn per process)
// of a tagged, length-prefixed encoding of the values (sorted map keys),
// so two inputs share a key only when they are equal, but for a chance of
// about 2^-128 per pair no input can aim at. It replaces a json.Marshal
// per parameter, and keeping the encoding itself as the key, which on a
// large spec (every parameter's description, three times over) was tens
// of megabytes to allocate and collect. ok is false for a value it cannot
// encode (the caller then skips the memo).
//
// The key is a memoID, not a string: a string would be an allocation a
// key, and the memos make one for every parameter and verdict.
func memoKey(parts ...any) (key memoID, ok bool) {
	bp := keyBufs.Get().(*[]byte)
	b := (*bp)[:0]
	for _, p := range parts {
		if b, ok = appendKey(b, p, 0); !ok {
			break
		}
	}
	if ok {
		binary.LittleEndian.PutUint64(key[:8], maphash.Bytes(keySeeds[0], b))
		binary.LittleEndian.PutUint64(key[8:], maphash.Bytes(keySeeds[1], b))
	}
	if cap(b) <= 1<<20 {
		*bp = b
		keyBufs.Put(bp)
	}
	return key, ok
}

// A memoID is a memoKey: two 64-bit hashes.
type memoID [16]byte

// noDescription is a schema as memoKey reads withoutDescription of it
// (the same encoding), without the copy.
type noDescription map[string]any

var (
	keySeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}
	keyBufs  = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}
)

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
		return appendKeyMap(b, x, depth, false)
	case noDescription:
		if x == nil {
			return append(b, 'M'), true
		}
		return appendKeyMap(b, x, depth, true)
	}
	j, err := json.Marshal(v)
	if err != nil {
		return b, false
	}
	return appendKeyString(b, 'j', string(j)), true
}

// appendKeyMap appends m's encoding (that of m without its "description"
// key when noDesc is set).
func appendKeyMap(b []byte, m map[string]any, depth int, noDesc bool) ([]byte, bool) {
	keys := make([]string, 0, len(m))
	for k := range m {
		if !noDesc || k != "description" {
			keys = append(keys, k)
		}
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
