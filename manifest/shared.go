package manifest

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// What api/<service>.py says once in its module docstring instead of in
// every tool (emit writes it; the runtime shows it with a tool's lines):
// a parameter or TypedDict key whose comment is SharedMark is described in
// the list under SharedDocHeader ("    name: description"), and a tool
// description's line "(note N: see module doc)" stands for note N of the
// list under SharedNoteHeader ("Note N:" and its indented lines).
const (
	SharedMark       = "see module doc"
	SharedDocHeader  = `Shared parameter docs: a parameter or key commented "` + SharedMark + `" below is this:`
	SharedNoteHeader = `Shared notes: a description that says "(note N: ` + SharedMark + `)" has note N there:`
)

// NoteMark is what a tool's description says in place of shared note n.
func NoteMark(n int) string { return "(note " + strconv.Itoa(n) + ": " + SharedMark + ")" }

var noteRef = regexp.MustCompile(`\(note ([0-9]+): ` + SharedMark + `\)`)

// sharedIndex is where a module docstring's shared docs and notes stand:
// 1-based line numbers.
type sharedIndex struct {
	docHeader, noteHeader int
	docs                  map[string]int   // printed name (and its quoted form) → line
	notes                 map[string][]int // "1" → its lines, "Note 1:" first
	end                   int              // the docstring's last line
}

// indexShared reads the shared sections of lines' module docstring (the
// first line that starts with `"""` through the one that ends it).
func indexShared(lines []string) sharedIndex {
	ix := sharedIndex{docs: map[string]int{}, notes: map[string][]int{}}
	start := 0
	for i, l := range lines {
		if strings.HasPrefix(l, `"""`) {
			start = i + 1
			break
		}
		if l != "" && !strings.HasPrefix(l, "#") {
			return ix // no module docstring
		}
	}
	if start == 0 {
		return ix
	}
	section, note := 0, ""
	for n := start; n <= len(lines); n++ {
		l := lines[n-1]
		closes := (n > start || len(l) >= 6) && strings.HasSuffix(l, `"""`)
		switch {
		case l == SharedDocHeader:
			section, ix.docHeader = 1, n
		case l == SharedNoteHeader:
			section, ix.noteHeader = 2, n
		case l == "" || l == `"""`:
			section = 0
		case section == 1 && strings.HasPrefix(l, "    "):
			if name, _, ok := strings.Cut(l[4:], ": "); ok {
				ix.docs[name] = n
				if !strings.HasPrefix(name, `"`) && !strings.HasPrefix(name, "'") {
					ix.docs[strconv.Quote(name)] = n
				}
			}
		case section == 2 && strings.HasPrefix(l, "Note ") && strings.HasSuffix(l, ":"):
			note = strings.TrimSuffix(strings.TrimPrefix(l, "Note "), ":")
			ix.notes[note] = []int{n}
		case section == 2 && strings.HasPrefix(l, "    ") && note != "":
			ix.notes[note] = append(ix.notes[note], n)
		default:
			section = 0
		}
		if closes {
			ix.end = n
			break
		}
	}
	return ix
}

// refs adds to out the lines of the shared docs and notes line l refers
// to, with their headers.
func (ix *sharedIndex) refs(l string, out map[int]bool) {
	if strings.HasSuffix(l, "# "+SharedMark) {
		name, _, _ := strings.Cut(strings.TrimSpace(l), ":")
		if n, ok := ix.docs[name]; ok {
			out[ix.docHeader], out[n] = true, true
		}
	}
	if !strings.Contains(l, SharedMark+")") {
		return
	}
	for _, m := range noteRef.FindAllStringSubmatch(l, -1) {
		if ns, ok := ix.notes[m[1]]; ok {
			out[ix.noteHeader] = true
			for _, n := range ns {
				out[n] = true
			}
		}
	}
}

// SharedLines returns, in file order, the lines outside start..end (1-based,
// inclusive) that those lines refer to: of py's module docstring, the
// shared docs of the parameters and keys marked SharedMark there and the
// shared notes their descriptions name, each with its list's header; and
// the Literal aliases their annotations name that another tool's lines
// print ("Format = Literal[...]"). A tool's lines read with these say
// everything the file says about it.
func SharedLines(py []byte, start, end int) []int {
	text := string(py)
	hasShared, hasAlias := strings.Contains(text, SharedMark), strings.Contains(text, aliasMark)
	if !hasShared && !hasAlias {
		return nil
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	out := map[int]bool{}
	if ix := indexShared(lines); hasShared && (ix.docHeader != 0 || ix.noteHeader != 0) {
		for n := max(start, ix.end+1); n <= end && n <= len(lines); n++ {
			ix.refs(lines[n-1], out)
		}
	}
	if hasAlias {
		aliasRefs(lines, start, end, out)
	}
	return sortedLines(out)
}

// aliasMark is what a line that defines a Literal alias has after its name.
const aliasMark = " = Literal["

var (
	aliasDef   = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*) = Literal\[`)
	identifier = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
)

// aliasRefs adds to out the lines outside start..end that define a
// Literal alias the code of lines start..end (not their docstrings or
// comments) names.
func aliasRefs(lines []string, start, end int, out map[int]bool) {
	defs := map[string]int{}
	for i, l := range lines {
		if m := aliasDef.FindStringSubmatch(l); m != nil && (i+1 < start || i+1 > end) {
			defs[m[1]] = i + 1
		}
	}
	if len(defs) == 0 {
		return
	}
	inDoc := false
	for n := max(start, 1); n <= end && n <= len(lines); n++ {
		l := lines[n-1]
		quotes := strings.Count(l, `"""`)
		if inDoc {
			inDoc = quotes%2 == 0
			continue
		}
		if strings.HasPrefix(strings.TrimSpace(l), `"""`) {
			inDoc = quotes%2 == 1
			continue
		}
		if code, _, ok := strings.Cut(l, "  # "); ok {
			l = code
		}
		for _, id := range identifier.FindAllString(l, -1) {
			if d, ok := defs[id]; ok {
				out[d] = true
			}
		}
	}
}

// DropUnreferencedShared unmarks in keep (keep[n] for line n) the shared
// docs and notes of lines' module docstring that no kept line after it
// refers to, and a list's header when none of its entries stays: a view
// that hides tools hides what only they used.
func DropUnreferencedShared(lines []string, keep []bool) {
	ix := indexShared(lines)
	if ix.docHeader == 0 && ix.noteHeader == 0 {
		return
	}
	used := map[int]bool{}
	for n := ix.end + 1; n <= len(lines); n++ {
		if keep[n] {
			ix.refs(lines[n-1], used)
		}
	}
	drop := func(n int) {
		if !used[n] && n > 0 && n < ix.end {
			keep[n] = false
		}
	}
	for _, n := range ix.docs {
		drop(n)
	}
	for _, ns := range ix.notes {
		for _, n := range ns {
			drop(n)
		}
	}
	for _, h := range []int{ix.docHeader, ix.noteHeader} {
		if h > 0 && !used[h] && h < ix.end {
			keep[h] = false
			if h > 1 && lines[h-2] == "" {
				keep[h-1] = false // the blank line before the list
			}
		}
	}
}

func sortedLines(set map[int]bool) []int {
	var out []int
	for n := range set {
		if n > 0 {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}
