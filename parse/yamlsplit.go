package parse

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// splitMin is the size from which decodeYAML decodes a document in pieces
// on several goroutines: yaml.v3 decodes on one, and it is most of the
// time a large YAML spec takes to compile.
var splitMin = 1 << 20

// maxSplitDepth is how many mappings deep decodeSplit splits (a spec's
// operations and schemas are two in): each level in copies the headers
// above it into every piece, the cube of the depth for a document of
// headers nested one in another.
const maxSplitDepth = 4

// A yamlPiece is a run of sibling mapping entries of the document, after
// the header lines ("components:", "  schemas:") of the mappings that hold
// them, so that it decodes on its own.
type yamlPiece struct {
	prefix []string // keys of the holding mappings, outermost first
	holder string   // which split entries hold it (a key may repeat)
	text   []byte
	root   yaml.Node
	err    error
	conv   *pieceConv // its entries as values (splitYAML with convert)
}

// decodeSplit decodes a large block-style YAML document in pieces, one
// goroutine each, and joins their nodes into the node yaml.Unmarshal gives
// for the whole. It splits only where each piece must decode as it does
// inside the whole: the document is a block mapping (no directives,
// document markers, tabs, CRs, BOM or complex keys), a piece starts at a
// plain key at the indentation of the mapping that holds it, no quoted
// scalar or flow collection runs past its line, and block scalars are
// skipped whole. ok is false when it does not split, or when a piece fails
// (an alias to another piece's anchor, a syntax error): the caller then
// decodes the whole document, for its value or its error.
func decodeSplit(data []byte) (root *yaml.Node, ok bool) {
	root, _, ok = splitYAML(data, false)
	return root, ok
}

// splitYAML is decodeSplit, returning the pieces too; with convert, each
// piece's entries are converted to values on its goroutine instead (see
// yamlPiece.conv and joinConverted), its nodes dropped, and no root is
// returned.
func splitYAML(data []byte, convert bool) (root *yaml.Node, pieces []*yamlPiece, ok bool) {
	procs := runtime.GOMAXPROCS(0)
	if len(data) < splitMin || procs < 2 {
		return nil, nil, false
	}
	lines, ok := scanYAMLLines(data)
	if !ok {
		return nil, nil, false
	}
	sp := &splitter{data: data, lines: lines, target: max(1, len(data)/(2*procs))}
	if !sp.entries(0, len(lines), 0, nil, "", nil) || len(sp.pieces) < 2 {
		return nil, nil, false
	}
	pieces = sp.pieces
	onCores(pieces, procs, func(p *yamlPiece) {
		if p.err = unmarshalPiece(p); p.err == nil && convert {
			p.conv = convertPiece(p)
		}
		if convert {
			// Only the values are joined (or, when they cannot be, the
			// whole is decoded again): the nodes are garbage the
			// collector need not mark while the other pieces decode.
			p.root, p.text = yaml.Node{}, nil
		}
	})
	if convert {
		for _, p := range pieces {
			if p.err != nil {
				return nil, nil, false
			}
		}
		return nil, pieces, true
	}
	top := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	holders := map[string]*yaml.Node{"": top}
	for _, p := range pieces {
		if p.err != nil || p.root.Kind != yaml.DocumentNode || len(p.root.Content) != 1 {
			return nil, nil, false
		}
		n, holder, ids := p.root.Content[0], top, strings.Split(p.holder, "/")
		for i, key := range p.prefix {
			if n.Kind != yaml.MappingNode || len(n.Content) != 2 || n.Content[0].Kind != yaml.ScalarNode || n.Content[0].Value != key || n.Content[0].Style != 0 {
				return nil, nil, false
			}
			path := strings.Join(ids[:i+2], "/")
			h, seen := holders[path]
			if !seen {
				h = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
				holder.Content = append(holder.Content, n.Content[0], h)
				holders[path] = h
			}
			holder, n = h, n.Content[1]
		}
		if n.Kind != yaml.MappingNode || n.Tag != "!!map" || n.Anchor != "" {
			return nil, nil, false
		}
		holder.Content = append(holder.Content, n.Content...)
	}
	return &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{top}}, pieces, true
}

// unmarshalPiece decodes one piece; a panic in the decoder is the piece's
// error (the whole is then decoded where the caller can see it), not the
// end of the process.
func unmarshalPiece(p *yamlPiece) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: %v", r)
		}
	}()
	return yaml.Unmarshal(p.text, &p.root)
}

// A yamlLine is one line of the document: where it starts and ends (no
// newline) and its indentation; whether it is skipped (blank, a comment,
// inside a block scalar); whether it is a key that may start a piece, and
// a header (a plain "key:" and nothing else) that may hold a mapping to
// split. No pointer in it: a large document has a line for every line.
type yamlLine struct {
	start, end, indent int
	nameLen            int // the key's, after the indentation
	skip, key, header  bool
}

// name is the key of l.
func (l *yamlLine) name(data []byte) string {
	return string(data[l.start+l.indent : l.start+l.indent+l.nameLen])
}

// scanYAMLLines reads the lines of data; ok is false for a document
// decodeSplit must not split.
func scanYAMLLines(data []byte) ([]yamlLine, bool) {
	if bytes.IndexByte(data, '\r') >= 0 || bytes.IndexByte(data, '\t') >= 0 || bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		return nil, false
	}
	// One string for the whole document, its lines slices of it (a
	// string per line was most of the split's allocation).
	text := string(data)
	out := make([]yamlLine, 0, bytes.Count(data, []byte{'\n'})+1)
	block := -1 // indentation of the line that opened a block scalar
	for start := 0; start < len(data); {
		end := bytes.IndexByte(data[start:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += start
		}
		s := text[start:end]
		rest := strings.TrimLeft(s, " ")
		l := yamlLine{start: start, end: end, indent: len(s) - len(rest)}
		start = end + 1
		if block >= 0 && (rest == "" || l.indent > block) {
			l.skip = true
			out = append(out, l)
			continue
		}
		block = -1
		if rest == "" || rest[0] == '#' {
			l.skip = true
			out = append(out, l)
			continue
		}
		if l.indent == 0 && (strings.HasPrefix(rest, "---") || strings.HasPrefix(rest, "...") || rest[0] == '%') {
			return nil, false
		}
		v, seq := rest, false
		for strings.HasPrefix(v, "- ") || v == "-" {
			v, seq = strings.TrimLeft(v[1:], " "), true
		}
		if strings.HasPrefix(v, "?") {
			return nil, false // a complex key
		}
		name, value, isKey, ok := yamlKey(v)
		if !ok {
			return nil, false
		}
		if isKey {
			v = value
			if !seq && name != "" && (name[0] == '"' || name[0] == '\'' || plainStart(name[0])) {
				l.key = true
				l.header, l.nameLen = plainKey(name) && value == "", len(name)
			}
		}
		for len(v) > 0 && (v[0] == '&' || v[0] == '!') {
			i := strings.IndexByte(v, ' ')
			if i < 0 {
				v = ""
				break
			}
			v = strings.TrimLeft(v[i:], " ")
		}
		switch {
		case v == "" || v[0] == '#':
		case v[0] == '|' || v[0] == '>':
			ind, _, _ := strings.Cut(v, " #")
			if strings.Trim(ind[1:], "+-0123456789 ") != "" {
				return nil, false
			}
			block = l.indent
		case v[0] == '"' || v[0] == '\'' || v[0] == '[' || v[0] == '{':
			if !flowEndsOnLine(v) {
				return nil, false
			}
		}
		out = append(out, l)
	}
	return out, true
}

// yamlReadable says whether yaml.v3's reader takes every character of
// data: UTF-8, and no control character but tab, newline and CR (it
// refuses the whole document otherwise).
func yamlReadable(data []byte) bool { return readableChars(data, false) }

// readableChars is yamlReadable; with fast, it also says false for the
// characters decodeYAMLFast declines: tab, CR, the line breaks NEL, LS
// and PS, and the BOM (one pass, where a search for each was six).
func readableChars(data []byte, fast bool) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for i := 0; i < len(data); {
		// Eight printable ASCII bytes at a time (no high bit, none below
		// 0x20, no 0x7f): decodeYAMLFast checks a whole document, and a
		// byte at a time was a sixth of its time.
		if i+8 <= len(data) {
			w := binary.LittleEndian.Uint64(data[i:])
			if w&highs == 0 && (w-0x20*ones)&highs == 0 && ((w^0x7f*ones)-ones)&^(w^0x7f*ones)&highs == 0 {
				i += 8
				continue
			}
		}
		c := data[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\n' && (fast || c != '\t' && c != '\r') || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 || !(r == 0x85 || 0xa0 <= r && r <= 0xd7ff || 0xe000 <= r && r <= 0xfffd || 0x10000 <= r) {
			return false
		}
		if fast && (r == 0x85 || r == 0x2028 || r == 0x2029 || r == 0xfeff) {
			return false
		}
		i += size
	}
	return true
}

// yamlKey splits "key: value" (a plain key, or a quoted one that closes
// on its line) into the key and the value (trailing spaces dropped);
// isKey is false for a line with no key, ok false for a quoted scalar
// that does not close on its line.
func yamlKey(v string) (name, value string, isKey, ok bool) {
	if v == "" || v[0] == '[' || v[0] == '{' {
		return "", "", false, true // a flow collection is no key here
	}
	if v[0] == '"' || v[0] == '\'' {
		end := quotedEnd(v)
		if end < 0 {
			return "", "", false, false
		}
		if rest := v[end:]; strings.HasPrefix(rest, ":") && (len(rest) == 1 || rest[1] == ' ') {
			return v[:end], strings.Trim(rest[1:], " "), true, true
		}
		return "", "", false, true
	}
	for i := 0; i < len(v); i++ {
		if v[i] == ':' && (i+1 == len(v) || v[i+1] == ' ') {
			return v[:i], strings.Trim(v[i+1:], " "), true, true
		}
		if v[i] == ' ' && i+1 < len(v) && v[i+1] == '#' {
			break
		}
	}
	return "", "", false, true
}

// plainKey: a key of letters, digits and _ / $ . (and - { } after the
// first), which stays one plain scalar whatever follows it.
func plainKey(k string) bool {
	if k == "" {
		return false
	}
	for i, c := range []byte(k) {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '_', c == '/', c == '$', c == '.':
		case i > 0 && (c == '-' || c == '{' || c == '}'):
		default:
			return false
		}
	}
	return true
}

// plainStart: c can start a plain key that is nothing else (an anchor,
// a tag, an alias, an indicator).
func plainStart(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '/' || c == '$' || c == '.' || c == '('
}

// quotedEnd is the index just past the quoted scalar v starts with, or -1
// when it does not close on the line.
func quotedEnd(v string) int {
	q := v[0]
	for i := 1; i < len(v); i++ {
		switch {
		case q == '"' && v[i] == '\\':
			i++
		case q == '\'' && v[i] == '\'' && i+1 < len(v) && v[i+1] == '\'':
			i++
		case v[i] == q:
			return i + 1
		}
	}
	return -1
}

// flowEndsOnLine says whether the quoted scalar or flow collection v
// starts with closes on its line, with at most a comment after it (a
// comment inside a flow collection, which may go on on the next line,
// counts as not closing).
func flowEndsOnLine(v string) bool {
	depth, i := 0, 0
	for ; i < len(v); i++ {
		switch v[i] {
		case '"', '\'':
			end := quotedEnd(v[i:])
			if end < 0 {
				return false
			}
			i += end - 1
		case '[', '{':
			depth++
		case ']', '}':
			depth--
		case '#':
			if v[i-1] == ' ' {
				return false
			}
		}
		if depth <= 0 {
			break
		}
	}
	if depth != 0 || i >= len(v) {
		return i >= len(v) && depth == 0
	}
	rest := v[i+1:]
	trimmed := strings.TrimLeft(rest, " ")
	return trimmed == "" || trimmed[0] == '#' && len(trimmed) < len(rest)
}

// A splitter cuts a document into pieces of about target bytes.
type splitter struct {
	data   []byte
	lines  []yamlLine
	target int
	pieces []*yamlPiece
	split  int // entries split so far
}

// entries cuts the entries of the mapping at indent held in lines [from,
// to) into pieces, each headed by head: runs of whole entries, and an
// entry bigger than target whose key holds a block mapping split the same
// way one level in. It returns false when the lines are not entries it can
// split.
func (sp *splitter) entries(from, to, indent int, prefix []string, holder string, head []byte) bool {
	lines, data := sp.lines, sp.data
	// A key at indent starts an entry; nothing else may be at or left of
	// indent but skipped lines and the items of an indentless sequence.
	var starts []int
	for i := from; i < to; i++ {
		switch l := lines[i]; {
		case l.skip:
		case l.indent < indent:
			return false
		case l.indent == indent && l.key:
			starts = append(starts, i)
		case l.indent == indent && data[l.start+l.indent] == '-' && len(starts) > 0:
		case l.indent == indent:
			return false
		}
	}
	if len(starts) == 0 || starts[0] != firstLine(lines, from, to) {
		return false
	}
	// The pieces leave out the comments before the first entry: a
	// character there that yaml.v3 refuses must fail the whole.
	if !yamlReadable(data[lines[from].start:lines[starts[0]].start]) {
		return false
	}
	starts = append(starts, to)
	first, size := -1, 0 // the run of entries waiting to become a piece
	flush := func(end int) {
		if first < 0 {
			return
		}
		a, b := lines[first].start, lines[end-1].end
		if b < len(data) {
			b++ // the newline, as the whole has it (a block scalar keeps it)
		}
		text := make([]byte, 0, len(head)+b-a)
		text = append(append(text, head...), data[a:b]...)
		sp.pieces = append(sp.pieces, &yamlPiece{prefix: prefix, holder: holder, text: text})
		first, size = -1, 0
	}
	for e := 0; e+1 < len(starts); e++ {
		s, end := starts[e], starts[e+1]
		l := lines[s]
		n := lines[end-1].end - l.start
		if child := firstLine(lines, s+1, end); n > sp.target && l.header && len(prefix) < maxSplitDepth && child >= 0 && lines[child].key && lines[child].indent > indent {
			flush(s)
			sp.split++
			h := append(append(append([]byte(nil), head...), data[l.start:l.end]...), '\n')
			if !sp.entries(s+1, end, lines[child].indent, append(append([]string(nil), prefix...), l.name(data)), holder+"/"+strconv.Itoa(sp.split), h) {
				return false
			}
			continue
		}
		if first < 0 {
			first = s
		}
		if size += n; size >= sp.target {
			flush(end)
		}
	}
	flush(to)
	return true
}

// firstLine is the first line in [from, to) that is not skipped, or -1.
func firstLine(lines []yamlLine, from, to int) int {
	for i := from; i < to; i++ {
		if !lines[i].skip {
			return i
		}
	}
	return -1
}
