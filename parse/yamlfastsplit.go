package parse

import (
	"strings"
)

// fastSplitMin is the size from which decodeYAMLFast reads a document in
// pieces on several goroutines.
var fastSplitMin = 1 << 20

// heldEntries stands, in the top-level entries joinFast gathers, for the
// value of a split entry: its index in tops.
type heldEntries int

// A fastPiece is a run of entries of the top-level mapping, or of the
// mapping a top-level key holds (holder >= 0), that decodeFastSplit reads
// on a goroutine of its own: the lines s[from:to], keys at column col.
type fastPiece struct {
	from, to int
	holder   int // index in tops of the key holding the entries, or -1
	col      int
	members  []member
	order    order
	ok       bool
}

// decodeFastSplit is decodeYAMLFast over several goroutines for a large
// document whose top-level mapping starts on p's current line at column 0
// (what the fast path reads on one goroutine was 40 ms of stripe.yaml).
// It cuts the document at lines that start an entry of the top-level
// mapping and, inside a top-level entry too large for one piece whose
// value is a block mapping, at lines that start one of its entries: at the
// column of a mapping's keys, a line holding anything but a comment is
// the next entry of the whole's mapping or makes the whole decline (a
// block or plain scalar ends before it), so each piece reads its lines as
// the whole reads them. ok is false when a piece declines (the whole
// would too) or a key repeats across pieces; cut is false when the
// document has no two pieces to read (one large entry that is no block
// mapping: "a: |" and a megabyte of text), for one goroutine to read.
func decodeFastSplit(p *fastYAML, procs int) (v any, ord order, ok, cut bool) {
	s := p.s
	target := max(1, len(s)/(2*procs))
	// The top-level entries: every line at column 0 but a comment or an
	// entry of an indentless sequence.
	var tops []int
	for ls := p.ls; ls < len(s); {
		if c := s[ls]; c != ' ' && c != '#' && c != '\n' && c != '-' {
			tops = append(tops, ls)
		}
		e := strings.IndexByte(s[ls:], '\n')
		if e < 0 {
			break
		}
		ls += e + 1
	}
	if len(tops) == 0 || tops[0] != p.ls {
		return nil, nil, false, false
	}
	tops = append(tops, len(s))
	var pieces []*fastPiece
	keys := make([]string, len(tops)) // of the split entries, by index in tops
	run := -1                         // start of the run of whole entries being gathered
	flush := func(to int) {
		if run >= 0 {
			pieces = append(pieces, &fastPiece{from: run, to: to, holder: -1})
			run = -1
		}
	}
	for i := 0; i+1 < len(tops); i++ {
		a, b := tops[i], tops[i+1]
		if b-a > target {
			if k, first, col, ok := p.splitHeader(a, b); ok {
				flush(a)
				keys[i] = k
				pieces = append(pieces, childPieces(s, first, b, col, i, target)...)
				continue
			}
		}
		if run < 0 {
			run = a
		}
		if b-run >= target {
			flush(b)
		}
	}
	flush(len(s))
	if len(pieces) < 2 {
		return nil, nil, false, false
	}
	onCores(pieces, procs, func(pc *fastPiece) { pc.read(s, keys) })
	v, ord, ok = joinFast(pieces, keys)
	return v, ord, ok, true
}

// splitHeader reads the top-level entry s[a:b] when its value is a block
// mapping: its key, and the first line and key column of the mapping.
func (p *fastYAML) splitHeader(a, b int) (key string, first, col int, ok bool) {
	q := newFastYAML(p.s, b)
	q.setLine(a)
	k, after, isKey, ok := q.key()
	if !ok || !isKey || !q.lineEnds(after) {
		return "", 0, 0, false
	}
	q.nextLine()
	q.skipBlank()
	if q.eof() || q.col == 0 || seqEntry(q.rest()) {
		return "", 0, 0, false
	}
	if _, _, isKey, ok := q.key(); !ok || !isKey {
		return "", 0, 0, false
	}
	return k, q.ls, q.col, true
}

// childPieces cuts the entries of the mapping whose keys are at column
// col, on the lines s[from:to], into runs of about target bytes.
func childPieces(s string, from, to, col, holder, target int) []*fastPiece {
	var out []*fastPiece
	start := from
	for ls := from; ls < to; {
		e := strings.IndexByte(s[ls:to], '\n')
		if e < 0 {
			break
		}
		ls += e + 1
		if ls < to && ls-start >= target && ls+col < to && strings.TrimLeft(s[ls:ls+col], " ") == "" {
			if c := s[ls+col]; c != ' ' && c != '#' && c != '\n' && c != '-' {
				out = append(out, &fastPiece{from: start, to: ls, holder: holder, col: col})
				start = ls
			}
		}
	}
	return append(out, &fastPiece{from: start, to: to, holder: holder, col: col})
}

// read decodes the piece's entries as the whole document's mapping holds
// them: under the key holding them, as deep.
func (pc *fastPiece) read(s string, keys []string) {
	q := newFastYAML(s, pc.to)
	q.depth = 1
	if pc.holder >= 0 {
		q.depth = 2
		q.path = []string{keys[pc.holder]}
	}
	q.setLine(pc.from)
	q.skipBlank()
	if q.eof() || q.col != pc.col || !q.entries(pc.col) || !q.eof() {
		return
	}
	pc.members, pc.order, pc.ok = q.members, q.order, true
}

// joinFast joins the pieces' entries into the top-level mapping (and the
// split mappings it holds), and their key orders, as decodeYAMLFast reads
// the whole.
func joinFast(pieces []*fastPiece, keys []string) (any, order, bool) {
	ord := order{}
	var top []member
	held := map[int][]member{}
	for _, pc := range pieces {
		if !pc.ok {
			return nil, nil, false
		}
		for ptr, ks := range pc.order {
			ord[ptr] = ks
		}
		if pc.holder < 0 {
			top = append(top, pc.members...)
			continue
		}
		if _, seen := held[pc.holder]; !seen {
			top = append(top, member{key: keys[pc.holder], v: heldEntries(pc.holder)})
		}
		held[pc.holder] = append(held[pc.holder], pc.members...)
	}
	toMap := func(ms []member, path []string) (map[string]any, bool) {
		out := make(map[string]any, len(ms))
		for _, m := range ms {
			out[m.key] = m.v
		}
		if len(out) != len(ms) {
			return nil, false // a repeated key: the whole declines
		}
		if recordKeys(path) {
			ks := make([]string, len(ms))
			for i, m := range ms {
				ks[i] = m.key
			}
			ord["/"+esc(path[0])] = ks
		}
		return out, true
	}
	for i, m := range top {
		if h, ok := m.v.(heldEntries); ok {
			v, ok := toMap(held[int(h)], []string{keys[h]})
			if !ok {
				return nil, nil, false
			}
			top[i].v = v
		}
	}
	v, ok := toMap(top, nil)
	if !ok {
		return nil, nil, false
	}
	return v, ord, true
}
