package parse

import (
	"runtime"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// decodeYAMLFast decodes a YAML document written in the block-style subset
// large specs use, giving exactly the value and key order decodeYAML's
// yaml.v3 path gives; ok is false for anything outside the subset, and the
// caller then decodes with yaml.v3 (for its value or its error).
//
// It is hand-rolled because no maintained Go decoder is fast enough:
// yaml.v3 building its nodes is nearly all of a large YAML spec's compile
// (stripe.yaml, 4.5 MB: about 300 ms of CPU even split over two cores),
// and go.yaml.in v3 and v4 are the same code or slower, goccy/go-yaml 3
// times slower. This reads the subset straight into values, the way
// decodeJSON reads JSON: stripe.yaml in 34 to 40 ms on one goroutine, 29
// to 32 ms split over two (decodeFastSplit), against 150 to 175 ms.
//
// The subset: block mappings and sequences by indentation in spaces
// (compact "- key: v" entries and indentless sequences too), plain keys
// and single-line quoted keys, plain scalars (folded over lines as yaml.v3
// folds them), single-line quoted scalars with yaml.v3's escapes, literal
// and folded block scalars with any chomping and indentation indicator,
// comments, empty values, the empty flow collections [] and {}, and flow
// sequences of quoted and simple plain scalars on one line. It declines
// tabs, CRs, line breaks other than \n, a BOM, document markers (but a
// first "---"), directives, anchors, aliases, tags, "<<" keys, "?" keys,
// other flow collections, multi-line quoted scalars, repeated keys, a
// document that is not a mapping or a sequence, and anything yaml.v3
// would refuse.
func decodeYAMLFast(data []byte) (v any, ord order, ok bool) {
	if !readableChars(data, true) {
		return nil, nil, false
	}
	// One string for the whole document: keys and scalars are slices of
	// it, allocated once.
	p := newFastYAML(string(data), len(data))
	p.setLine(0)
	p.skipBlank()
	if r := p.rest(); !p.eof() && p.col == 0 && strings.HasPrefix(r, "---") && p.lineEnds(p.ls+3) {
		p.nextLine() // the document's start marker
		p.skipBlank()
	}
	if p.eof() {
		return nil, nil, false
	}
	if procs := runtime.GOMAXPROCS(0); len(data) >= fastSplitMin && procs >= 2 && p.col == 0 {
		if v, ord, ok, cut := decodeFastSplit(p, procs); cut {
			return v, ord, ok
		}
	}
	r := p.rest()
	if !seqEntry(r) {
		if _, _, isKey, ok := p.key(); !isKey || !ok {
			return nil, nil, false // a scalar document
		}
	}
	v, ok = p.node(-1)
	if !ok {
		return nil, nil, false
	}
	p.skipBlank()
	if !p.eof() {
		return nil, nil, false
	}
	return v, p.order, true
}

// maxFastDepth is the nesting past which decodeYAMLFast declines (yaml.v3
// then decodes, with its own limits).
const maxFastDepth = 1000

// maxFastKey is the longest plain key decodeYAMLFast reads: yaml.v3 refuses
// an implicit key over 1024 characters, and a byte count is never less.
const maxFastKey = 1000

// fastYAML reads a document line by line; the current line is s[ls:le]
// (no newline), its content starting at column col (its indentation, or
// where a compact entry's node starts after "- "). It reads s up to lim,
// the end of the piece it decodes (see decodeFastSplit), or of s.
type fastYAML struct {
	s          string
	lim        int
	ls, le     int
	col        int
	path       []string
	order      order
	depth      int
	members    []member
	elements   []any
	buf        []byte
	strs       map[string]any // each plain scalar's value, made once (see tokens.strValue)
	quotes     map[string]any // each quoted scalar's
	resolveBuf yaml.Node
}

func newFastYAML(s string, lim int) *fastYAML {
	return &fastYAML{s: s, lim: lim, order: order{}, strs: map[string]any{}, quotes: map[string]any{}}
}

func (p *fastYAML) setLine(start int) {
	if start >= p.lim {
		p.ls, p.le, p.col = p.lim, p.lim, 0
		return
	}
	p.ls = start
	if e := strings.IndexByte(p.s[start:p.lim], '\n'); e >= 0 {
		p.le = start + e
	} else {
		p.le = p.lim
	}
	c := start
	for c < p.le && p.s[c] == ' ' {
		c++
	}
	p.col = c - start
}

func (p *fastYAML) nextLine() { p.setLine(p.le + 1) }

func (p *fastYAML) eof() bool { return p.ls >= p.lim }

// rest is the current line from its content on.
func (p *fastYAML) rest() string { return p.s[p.ls+p.col : p.le] }

// skipBlank moves on to the first line from the current one with content
// other than a comment.
func (p *fastYAML) skipBlank() {
	for !p.eof() {
		if c := p.ls + p.col; c < p.le && p.s[c] != '#' {
			return
		}
		p.nextLine()
	}
}

// seqEntry: r starts a block sequence entry.
func seqEntry(r string) bool {
	return r != "" && r[0] == '-' && (len(r) == 1 || r[1] == ' ')
}

// node reads the node starting at the current line's content; ind is the
// indentation of the collection holding it (yaml.v3's parser.indent, from
// which scalars' continuation lines are indented).
func (p *fastYAML) node(ind int) (any, bool) {
	if p.depth >= maxFastDepth {
		return nil, false
	}
	p.depth++
	defer func() { p.depth-- }()
	if seqEntry(p.rest()) {
		return p.sequence(p.col)
	}
	if _, _, isKey, ok := p.key(); !ok {
		return nil, false
	} else if isKey {
		return p.mapping(p.col)
	}
	return p.inline(p.ls+p.col, ind)
}

// key reads the mapping key the current line's content starts with: its
// text and the index just past its ':'. isKey is false when the content
// is no key; ok is false for one outside the subset.
func (p *fastYAML) key() (key string, after int, isKey, ok bool) {
	s, a, le := p.s, p.ls+p.col, p.le
	switch c := s[a]; c {
	case '"', '\'':
		k, e, ok := p.quoted(a)
		if !ok || e-a > maxFastKey {
			return "", 0, false, false
		}
		if e < le && s[e] == ':' && (e+1 == le || s[e+1] == ' ') {
			return k, e + 1, true, true
		}
		return "", 0, false, true
	}
	if !plainFirst(s[a:le]) || strings.HasPrefix(s[a:le], "...") || strings.HasPrefix(s[a:le], "---") {
		// Anything else an indicator starts is outside the subset
		// anyway; a document end at column 0 too.
		return "", 0, false, true
	}
	for j := a; j < le; j++ {
		switch s[j] {
		case ':':
			if j+1 == le || s[j+1] == ' ' {
				if j-a > maxFastKey {
					return "", 0, false, false
				}
				k := strings.TrimRight(s[a:j], " ")
				if k == "<<" {
					return "", 0, false, false // a merge key
				}
				return k, j + 1, true, true
			}
		case '#':
			if s[j-1] == ' ' {
				return "", 0, false, true
			}
		}
	}
	return "", 0, false, true
}

// plainFirst: t starts with a character that starts a plain scalar in
// the subset (no indicator; "-" only before a non-space, as in -1).
func plainFirst(t string) bool {
	switch t[0] {
	case '-':
		return len(t) > 1 && t[1] != ' '
	case ' ', '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
		return false
	}
	return true
}

// mapping reads the block mapping whose keys are at column c, the first on
// the current line.
func (p *fastYAML) mapping(c int) (any, bool) {
	start := len(p.members)
	if !p.entries(c) {
		return nil, false
	}
	read := p.members[start:]
	out := make(map[string]any, len(read))
	for _, m := range read {
		out[m.key] = m.v
	}
	if len(out) != len(read) {
		return nil, false // a repeated key
	}
	if recordKeys(p.path) {
		keys := make([]string, len(read))
		for i, m := range read {
			keys[i] = m.key
		}
		p.record(keys)
	}
	clear(read)
	p.members = p.members[:start]
	return out, true
}

// entries reads the entries of the block mapping whose keys are at column
// c, the first on the current line, onto p.members.
func (p *fastYAML) entries(c int) bool {
	for {
		k, after, isKey, ok := p.key()
		if !ok || !isKey {
			return false
		}
		p.path = append(p.path, k)
		v, ok := p.value(after, c)
		p.path = p.path[:len(p.path)-1]
		if !ok {
			return false
		}
		p.members = append(p.members, member{k, v})
		p.skipBlank()
		if p.eof() || p.col < c {
			return true
		}
		if p.col > c {
			return false
		}
	}
}

// record sets the key order of the mapping at p.path, as yamlConv does.
func (p *fastYAML) record(keys []string) {
	var b strings.Builder
	for _, s := range p.path {
		b.WriteByte('/')
		b.WriteString(esc(s))
	}
	p.order[b.String()] = keys
}

// value reads the value of a key of the mapping at column c, from index
// pos of the current line (just past the ':') on.
func (p *fastYAML) value(pos, c int) (any, bool) {
	s := p.s
	for pos < p.le && s[pos] == ' ' {
		pos++
	}
	if pos < p.le && s[pos] != '#' {
		return p.inline(pos, c)
	}
	// Nothing on the line: a node on the lines below, more indented or an
	// indentless sequence, or null.
	p.nextLine()
	p.skipBlank()
	switch {
	case p.eof():
	case p.col > c:
		return p.node(c)
	case p.col == c && seqEntry(p.rest()):
		if p.depth >= maxFastDepth {
			return nil, false
		}
		p.depth++
		defer func() { p.depth-- }()
		return p.sequence(c)
	}
	return nil, true
}

// sequence reads the block sequence whose entries' dashes are at column
// c, the first on the current line.
func (p *fastYAML) sequence(c int) (any, bool) {
	start := len(p.elements)
	for i := 0; ; i++ {
		if !seqEntry(p.rest()) {
			return nil, false
		}
		p.path = append(p.path, strconv.Itoa(i))
		q := p.ls + p.col + 1
		for q < p.le && p.s[q] == ' ' {
			q++
		}
		var v any
		ok := true
		if q == p.le || p.s[q] == '#' {
			p.nextLine()
			p.skipBlank()
			if !p.eof() && p.col > c {
				v, ok = p.node(c)
			}
		} else {
			p.col = q - p.ls
			v, ok = p.node(c)
		}
		p.path = p.path[:len(p.path)-1]
		if !ok {
			return nil, false
		}
		p.elements = append(p.elements, v)
		p.skipBlank()
		if p.eof() || p.col < c || p.col == c && !seqEntry(p.rest()) {
			break
		}
		if p.col > c {
			return nil, false
		}
	}
	out := make([]any, len(p.elements)-start)
	copy(out, p.elements[start:])
	clear(p.elements[start:])
	p.elements = p.elements[:start]
	return out, true
}

// inline reads the scalar or flow collection starting at index pos of the
// current line, in a collection at indentation ind, leaving the current
// line just after it.
func (p *fastYAML) inline(pos, ind int) (any, bool) {
	s := p.s
	switch s[pos] {
	case '"', '\'':
		v, e, ok := p.quoted(pos)
		if !ok || !p.lineEnds(e) {
			return nil, false
		}
		p.nextLine()
		return p.quotedValue(v), true
	case '[':
		v, ok := p.flowSeq(pos)
		if ok {
			p.nextLine()
		}
		return v, ok
	case '{':
		if pos+1 == p.le || s[pos+1] != '}' || !p.lineEnds(pos+2) {
			return nil, false
		}
		p.nextLine()
		if recordKeys(p.path) {
			p.record([]string{})
		}
		return map[string]any{}, true
	case '|', '>':
		return p.block(pos, ind)
	}
	if !plainFirst(s[pos:p.le]) {
		return nil, false
	}
	return p.plain(pos, ind)
}

// flowSeq reads the flow sequence starting at index pos of the current
// line when it ends there too: "[]", or items that are quoted scalars or
// plain ones of letters, digits, spaces and _ . / + - (nothing a flow
// context reads otherwise), separated by commas.
func (p *fastYAML) flowSeq(pos int) (any, bool) {
	s, le := p.s, p.le
	j := pos + 1
	skip := func() {
		for j < le && s[j] == ' ' {
			j++
		}
	}
	skip()
	if j < le && s[j] == ']' {
		return []any{}, p.lineEnds(j + 1)
	}
	start := len(p.elements)
	defer func() {
		clear(p.elements[start:])
		p.elements = p.elements[:start]
	}()
	for {
		if j >= le {
			return nil, false
		}
		if c := s[j]; c == '"' || c == '\'' {
			v, e, ok := p.quoted(j)
			if !ok {
				return nil, false
			}
			p.elements = append(p.elements, p.quotedValue(v))
			j = e
		} else {
			k := j
			for k < le && flowPlain(s[k]) {
				k++
			}
			t := strings.TrimRight(s[j:k], " ")
			if t == "" || !plainFirst(t) {
				return nil, false
			}
			p.elements = append(p.elements, p.scalar(t))
			j = k
		}
		skip()
		if j >= le {
			return nil, false
		}
		switch s[j] {
		case ']':
			if !p.lineEnds(j + 1) {
				return nil, false
			}
			out := make([]any, len(p.elements)-start)
			copy(out, p.elements[start:])
			return out, true
		case ',':
			j++
			skip()
			if j < le && s[j] == ']' {
				return nil, false // a trailing comma
			}
		default:
			return nil, false
		}
	}
}

// flowPlain: c may be in a plain item of flowSeq.
func flowPlain(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == ' ' || c == '_' || c == '.' || c == '/' || c == '+' || c == '-'
}

// lineEnds: nothing but spaces and a comment follows index e of the
// current line.
func (p *fastYAML) lineEnds(e int) bool {
	i := e
	for i < p.le && p.s[i] == ' ' {
		i++
	}
	return i == p.le || p.s[i] == '#' && i > e
}

// plainLine is the text of a plain scalar's line from index i to le: up
// to a comment, trailing spaces dropped; comment says one ended it. ok is
// false for a ": " in it (a mapping yaml.v3 refuses there).
func plainLine(s string, i, le int) (text string, comment, ok bool) {
	for j := i; j < le; j++ {
		switch s[j] {
		case ':':
			if j+1 == le || s[j+1] == ' ' {
				return "", false, false
			}
		case '#':
			if j > i && s[j-1] == ' ' {
				return strings.TrimRight(s[i:j], " "), true, true
			}
		}
	}
	return strings.TrimRight(s[i:le], " "), false, true
}

// plain reads a plain scalar from index pos of the current line, folding
// the lines that continue it (indented past ind) as yaml.v3 does: a line
// break is a space, and each blank line between is a newline.
func (p *fastYAML) plain(pos, ind int) (any, bool) {
	first, comment, ok := plainLine(p.s, pos, p.le)
	if !ok {
		return nil, false
	}
	p.nextLine()
	if comment {
		return p.scalar(first), true
	}
	var b []byte
	for {
		// Blank lines, then a line indented past ind continues it.
		blank := 0
		for !p.eof() && p.ls+p.col == p.le {
			blank++
			p.nextLine()
		}
		if p.eof() || p.col <= ind || p.s[p.ls+p.col] == '#' {
			break
		}
		if p.col == 0 {
			return nil, false // a document marker, or worse
		}
		text, comment, ok := plainLine(p.s, p.ls+p.col, p.le)
		if !ok {
			return nil, false
		}
		if b == nil {
			b = append(p.buf[:0], first...)
		}
		if blank == 0 {
			b = append(b, ' ')
		}
		for range blank {
			b = append(b, '\n')
		}
		b = append(b, text...)
		p.nextLine()
		if comment {
			break
		}
	}
	if b == nil {
		return p.scalar(first), true
	}
	p.buf = b
	return p.scalar(string(b)), true
}

// scalar is the value of the plain scalar t, as the yaml.v3 path reads it
// (scalar, with the tag yaml.v3 resolves): only text starting with a
// character yaml.v3's resolver looks further at is resolved.
func (p *fastYAML) scalar(t string) any {
	if v, ok := p.strs[t]; ok {
		return v
	}
	var v any = t
	switch c := t[0]; {
	case '0' <= c && c <= '9', c == '+', c == '-', c == '.', c == '~', strings.IndexByte("yYnNtTfFoO", c) >= 0:
		p.resolveBuf = yaml.Node{Kind: yaml.ScalarNode, Value: t}
		p.resolveBuf.Tag = p.resolveBuf.ShortTag()
		v = scalar(&p.resolveBuf)
	}
	p.strs[t] = v
	return v
}

// quotedValue is the value of a quoted scalar, one per text.
func (p *fastYAML) quotedValue(t string) any {
	if v, ok := p.quotes[t]; ok {
		return v
	}
	var v any = t
	p.quotes[t] = v
	return v
}

// quoted reads the quoted scalar starting at index a of the current line:
// its value and the index past its closing quote. ok is false when it does
// not close on the line or has an escape yaml.v3 refuses.
func (p *fastYAML) quoted(a int) (string, int, bool) {
	s, le := p.s, p.le
	if s[a] == '\'' {
		b := p.buf[:0]
		plain := true
		for j := a + 1; j < le; j++ {
			if s[j] != '\'' {
				b = append(b, s[j])
				continue
			}
			if j+1 < le && s[j+1] == '\'' {
				b = append(b, '\'')
				plain = false
				j++
				continue
			}
			p.buf = b
			if plain {
				return s[a+1 : j], j + 1, true
			}
			return string(b), j + 1, true
		}
		return "", 0, false
	}
	b := p.buf[:0]
	plain := true
	for j := a + 1; j < le; j++ {
		c := s[j]
		if c == '"' {
			p.buf = b
			if plain {
				return s[a+1 : j], j + 1, true
			}
			return string(b), j + 1, true
		}
		if c != '\\' {
			b = append(b, c)
			continue
		}
		plain = false
		if j+1 >= le {
			return "", 0, false // an escaped line break
		}
		j++
		n := 0
		switch s[j] {
		case '0':
			b = append(b, 0)
		case 'a':
			b = append(b, '\a')
		case 'b':
			b = append(b, '\b')
		case 't':
			b = append(b, '\t')
		case 'n':
			b = append(b, '\n')
		case 'v':
			b = append(b, '\v')
		case 'f':
			b = append(b, '\f')
		case 'r':
			b = append(b, '\r')
		case 'e':
			b = append(b, 0x1b)
		case ' ', '"', '\'', '\\':
			b = append(b, s[j])
		case 'N':
			b = append(b, "\u0085"...)
		case '_':
			b = append(b, "\u00a0"...)
		case 'L':
			b = append(b, "\u2028"...)
		case 'P':
			b = append(b, "\u2029"...)
		case 'x':
			n = 2
		case 'u':
			n = 4
		case 'U':
			n = 8
		default:
			return "", 0, false // yaml.v3 refuses it (\/ among them)
		}
		if n > 0 {
			if j+n >= le {
				return "", 0, false
			}
			r, err := strconv.ParseUint(s[j+1:j+1+n], 16, 32)
			if err != nil || r >= 0xd800 && r <= 0xdfff || r > 0x10ffff {
				return "", 0, false
			}
			// Surrogates and code points past 0x10FFFF are declined
			// above, so this is the UTF-8 yaml.v3 writes.
			b = utf8.AppendRune(b, rune(r))
			j += n
		}
	}
	return "", 0, false
}

// block reads the literal or folded block scalar whose header starts at
// index pos of the current line, in a collection at indentation ind, the
// way yaml.v3's scanner does (yaml_parser_scan_block_scalar), leaving the
// current line at the first line after it.
func (p *fastYAML) block(pos, ind int) (any, bool) {
	s := p.s
	literal := s[pos] == '|'
	i := pos + 1
	chomp, inc := 0, 0
	readChomp := func() {
		if i < p.le && (s[i] == '+' || s[i] == '-') {
			chomp = 1
			if s[i] == '-' {
				chomp = -1
			}
			i++
		}
	}
	readInc := func() bool {
		if i < p.le && '0' <= s[i] && s[i] <= '9' {
			if s[i] == '0' {
				return false
			}
			inc = int(s[i] - '0')
			i++
		}
		return true
	}
	if i < p.le && (s[i] == '+' || s[i] == '-') {
		readChomp()
		if !readInc() {
			return nil, false
		}
	} else {
		if !readInc() {
			return nil, false
		}
		readChomp()
	}
	if !p.lineEnds(i) {
		return nil, false
	}
	indent := 0
	if inc > 0 {
		indent = inc
		if ind >= 0 {
			indent = ind + inc
		}
	}
	i = min(p.le+1, p.lim)
	ls := i // start of the line i is on
	trailing := 0
	// breaks eats indentation and blank lines, counting them in trailing,
	// and settles indent when it is not yet known.
	breaks := func() {
		maxIndent := 0
		for {
			for (indent == 0 || i-ls < indent) && i < p.lim && s[i] == ' ' {
				i++
			}
			maxIndent = max(maxIndent, i-ls)
			if i >= p.lim || s[i] != '\n' {
				break
			}
			trailing++
			i++
			ls = i
		}
		if indent == 0 {
			indent = max(maxIndent, ind+1, 1)
		}
	}
	breaks()
	b := p.buf[:0]
	leadingBreak, leadingBlank := false, false
	for i < p.lim && i-ls == indent {
		trailingBlank := s[i] == ' '
		if !literal && leadingBreak && !leadingBlank && !trailingBlank {
			if trailing == 0 {
				b = append(b, ' ')
			}
		} else if leadingBreak {
			b = append(b, '\n')
		}
		for range trailing {
			b = append(b, '\n')
		}
		trailing = 0
		leadingBlank = s[i] == ' '
		e := strings.IndexByte(s[i:p.lim], '\n')
		if e < 0 {
			e = p.lim
		} else {
			e += i
		}
		b = append(b, s[i:e]...)
		i, leadingBreak = e, false
		if i < p.lim {
			i++
			ls, leadingBreak = i, true
		}
		breaks()
	}
	if chomp != -1 && leadingBreak {
		b = append(b, '\n')
	}
	if chomp == 1 {
		for range trailing {
			b = append(b, '\n')
		}
	}
	p.buf = b
	p.setLine(ls)
	return string(b), true
}
