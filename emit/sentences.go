package emit

import (
	"regexp"
	"slices"
	"strings"
)

// noteRef matches a note's mark.
var noteRef = regexp.MustCompile(`\(note [0-9]+: ` + regexp.QuoteMeta(sharedMark) + `\)`)

// minSentenceLen is the shortest sentence of a comment a shared note is
// made of.
const minSentenceLen = 60

// markCost is what a note's mark in a comment costs, in characters of the
// prose it stands for: its 25 characters are about 9 tokens, as many as
// about 60 characters of prose.
const markCost = 60

// segment is a piece of a comment: a run of consecutive repeated
// sentences (key is its text trimmed) or the text between runs.
type segment struct {
	text, key string
	run       bool
}

// eachSentence calls fn with each sentence of s as sentences cuts it.
func eachSentence(s string, fn func(string)) {
	start := 0
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != '.' && c != '!' && c != '?' || i+1 < len(s) && s[i+1] != ' ' {
			continue
		}
		j := i + 1
		for j < len(s) && s[j] == ' ' {
			j++
		}
		fn(s[start:j])
		start, i = j, j-1
	}
	if start < len(s) {
		fn(s[start:])
	}
}

// segments cuts doc into runs of consecutive sentences p.repeated holds
// and the text between them (the texts join back to doc), nil when doc
// has none of them.
func (p *printer) segments(doc string) []segment {
	var out []segment
	from, at, run, any := 0, 0, false, false
	eachSentence(doc, func(s string) {
		rep := p.repeated[strings.TrimSpace(s)]
		if rep != run && at > from {
			out = append(out, segment{text: doc[from:at], run: run})
			from = at
		}
		run, any = rep, any || rep
		at += len(s)
	})
	if !any {
		return nil
	}
	if at > from {
		out = append(out, segment{text: doc[from:at], run: run})
	}
	for i := range out {
		if out[i].run {
			out[i].key = strings.TrimSpace(out[i].text)
		}
	}
	return out
}

// findSentenceNotes picks the sentences of parameter and key comments and
// of the lines of tool descriptions to print once in the module
// docstring, as shared notes: a sentence (or a run of them) that two or
// more comments or lines printed in full have word for word ("For custom
// objects, use the get-schemas tool to get the objectType." after a
// different first sentence in each), when printing it once and a mark in
// each place is shorter than printing it in each.
// A run the comments share whole is one note; the sentences of runs they
// share only in part are counted one by one.
func (p *printer) findSentenceNotes() {
	var docs []string
	for _, t := range p.svc.Tools {
		for _, prm := range SignatureOrder(t) {
			if d := p.paramDoc(t, prm); d != "" && p.shared[string(prm.Py)] != d {
				docs = append(docs, d)
			}
		}
	}
	for _, sh := range p.svc.Objects {
		if p.canonOf(sh) != sh {
			continue // printed as another
		}
		for _, f := range sh.Fields {
			if d := p.fieldDoc(f); d != "" && p.shared[f.Wire] != d {
				docs = append(docs, d)
			}
		}
	}
	// The lines of tool descriptions, but for the paragraphs shared
	// whole (findNotes).
	for _, t := range p.svc.Tools {
		for _, l := range p.withNotes(p.toolProse(t)) {
			if len(l) >= minSentenceLen && !noteRef.MatchString(l) {
				docs = append(docs, l)
			}
		}
	}
	count := map[string]int{}
	var seen []string // the doc's sentences counted
	for _, d := range docs {
		if len(d) < minSentenceLen {
			continue
		}
		seen = seen[:0]
		eachSentence(d, func(s string) {
			if k := strings.TrimSpace(s); len(k) >= minSentenceLen && !slices.Contains(seen, k) {
				seen = append(seen, k)
				count[k]++
			}
		})
	}
	for k, n := range count {
		if n >= 2 {
			if p.repeated == nil {
				p.repeated = map[string]bool{}
			}
			p.repeated[k] = true
		}
	}
	if p.repeated == nil {
		return
	}
	// saved is what a note saves, in characters of prose: the sentence
	// printed n-1 fewer times, less a mark in each place and the note's
	// own line.
	saved := func(k string, n int) int { return (n-1)*len(k) - n*markCost - 40 }
	// Runs first, then the sentences of the runs not picked.
	runs, order := map[string]int{}, []string(nil)
	for _, d := range docs {
		if len(d) < minSentenceLen {
			continue
		}
		for _, sg := range p.segments(d) {
			if !sg.run {
				continue
			}
			if runs[sg.key] == 0 {
				order = append(order, sg.key)
			}
			runs[sg.key]++
		}
	}
	var picked []string
	isPicked := map[string]bool{}
	total := 0
	pick := func(k string, n int) {
		if s := saved(k, n); s > 0 && !isPicked[k] {
			picked = append(picked, k)
			isPicked[k] = true
			total += s
		}
	}
	single, singleOrder := map[string]int{}, []string(nil)
	for _, k := range order {
		if runs[k] >= 2 && saved(k, runs[k]) > 0 {
			pick(k, runs[k])
			continue
		}
		eachSentence(k, func(s string) {
			s = strings.TrimSpace(s)
			if single[s] == 0 {
				singleOrder = append(singleOrder, s)
			}
			single[s] += runs[k]
		})
	}
	for _, s := range singleOrder {
		if single[s] >= 2 {
			pick(s, single[s])
		}
	}
	if len(picked) == 0 || len(p.noteOrder) == 0 && total <= len(noteHeader) {
		return
	}
	if p.notes == nil {
		p.notes = map[string]int{}
	}
	for _, k := range picked {
		if _, ok := p.notes[k]; !ok {
			p.noteOrder = append(p.noteOrder, k)
			p.notes[k] = len(p.noteOrder)
		}
	}
}

// withSentenceNotes replaces the shared notes among doc's sentences by
// their marks.
func (p *printer) withSentenceNotes(doc string) string {
	if len(p.repeated) == 0 || len(p.notes) == 0 || len(doc) < minSentenceLen {
		return doc
	}
	segs := p.segments(doc)
	if segs == nil {
		return doc
	}
	var b strings.Builder
	for _, sg := range segs {
		if !sg.run {
			b.WriteString(sg.text)
			continue
		}
		if n, ok := p.notes[sg.key]; ok {
			b.WriteString(marked(sg.text, n))
			continue
		}
		eachSentence(sg.text, func(s string) {
			if n, ok := p.notes[strings.TrimSpace(s)]; ok {
				b.WriteString(marked(s, n))
			} else {
				b.WriteString(s)
			}
		})
	}
	return b.String()
}

// marked is note n's mark in the place of text, with the spaces around
// text kept.
func marked(text string, n int) string {
	t := strings.TrimSpace(text)
	i := strings.Index(text, t)
	return text[:i] + noteMark(n) + text[i+len(t):]
}
