package readgate

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/store"
)

// Mode says what counts as having read a tool.
type Mode int

const (
	// PerFile unlocks a tool once reads of its file covered its definition
	// (the def line through the end of its docstring): reading a line
	// range unlocks the tools whose definitions lie in it, the whole file
	// unlocks them all, and reading one tool unlocks no neighbour. It is the
	// zero value and the default.
	PerFile Mode = iota
	// PerTool unlocks a tool once reads covered its whole line range: the
	// shapes printed with it as well as its definition.
	PerTool
	// Off lets every call through.
	Off
)

// String returns the mode's name as ParseMode accepts it.
func (m Mode) String() string {
	switch m {
	case PerFile:
		return "file"
	case PerTool:
		return "tool"
	case Off:
		return "off"
	}
	return "Mode(" + strconv.Itoa(int(m)) + ")"
}

// ParseMode reads a mode name from configuration: "file" (also "" and
// "per-file"), "tool" ("per-tool") or "off".
func ParseMode(s string) (Mode, error) {
	switch s {
	case "", "file", "per-file", "perfile", "service":
		return PerFile, nil
	case "tool", "per-tool", "pertool":
		return PerTool, nil
	case "off", "none":
		return Off, nil
	}
	return 0, fmt.Errorf("readgate: unknown mode %q (want file, tool or off)", s)
}

// Def is where one tool's definition lives in the generated surface.
type Def struct {
	Service ir.ServiceName
	Tool    ir.WireName
	Py      ir.PyIdent
	File    string // "api/spotify.py"
	// Start and End are the 1-based inclusive line range of the tool in
	// File: the shapes printed with it, its signature and docstring.
	Start, End int
	// Sig is the line of the def itself (Start <= Sig <= End); 0 means
	// Start. PerFile mode asks for lines Sig..End.
	Sig int
}

// lines renders the range as "41-63", or "7" for a one-line def.
func (d Def) lines() string {
	if d.End <= d.Start {
		return strconv.Itoa(d.Start)
	}
	return strconv.Itoa(d.Start) + "-" + strconv.Itoa(d.End)
}

// ErrUnknownTool is wrapped by Check's error for a tool the Gate has no
// definition for.
var ErrUnknownTool = errors.New("unknown tool")

// Refusal is the error Check returns for a tool not read yet.
type Refusal struct {
	Def  Def
	Mode Mode
}

// Error reads, for a model:
//
//	read api/spotify.py lines 41-63 first: find_tool("spotify.show_liked_songs") or read_api("spotify", "41-63")
func (r *Refusal) Error() string {
	d := r.Def
	what := "lines " + d.lines()
	if d.End <= d.Start {
		what = "line " + d.lines()
	}
	return fmt.Sprintf("read %s %s first: find_tool(%q) or read_api(%q, %q)",
		d.File, what, string(d.Service)+"."+string(d.Py), string(d.Service), d.lines())
}

// span is an inclusive line range.
type span struct{ lo, hi int }

// reads is what one session has read: per file, the merged line ranges.
type reads struct {
	files map[string][]span
}

// Gate records reads per session and checks calls against them.
type Gate struct {
	mode Mode
	defs map[ir.ToolID]Def

	mu       sync.Mutex
	sessions map[string]*reads

	// st, when set, keeps the reads beyond this process: every read is
	// written to it, and a call the reads in memory do not cover is
	// checked again against it (another replica's reads, or this one's
	// before a restart).
	st ReadStore
}

// ReadStore keeps reads (package store implements it).
type ReadStore interface {
	AddRead(ctx context.Context, session string, r store.Read) error
	Reads(ctx context.Context, session string) ([]store.Read, error)
	ForgetReads(ctx context.Context, session string) error
}

// storeTimeout bounds one read or write of the store.
const storeTimeout = 10 * time.Second

// SetStore makes the gate keep its reads in st too. Call it before the
// gate is used. A read the store cannot record is kept in memory only; a
// store that cannot be read lets through only what memory covers (it
// fails closed).
func (g *Gate) SetStore(st ReadStore) { g.st = st }

// New returns a Gate over the given definitions. When two Defs name the
// same tool the last one wins.
func New(mode Mode, defs []Def) *Gate {
	g := &Gate{mode: mode, defs: make(map[ir.ToolID]Def, len(defs)), sessions: map[string]*reads{}}
	for _, d := range defs {
		g.defs[ir.ToolID{Service: d.Service, Wire: d.Tool}] = d
	}
	return g
}

// Mode returns the gate's mode.
func (g *Gate) Mode() Mode { return g.mode }

// Def returns the definition the gate holds for a tool.
func (g *Gate) Def(service ir.ServiceName, tool ir.WireName) (Def, bool) {
	d, ok := g.defs[ir.ToolID{Service: service, Wire: tool}]
	return d, ok
}

// Read records that session read lines start..end (1-based, inclusive) of
// file. start=end=0 means the whole file; start>0 with end=0 means from start
// to the end of the file; start=0 with end>0 means from line 1. A reversed
// range is read as its reverse.
func (g *Gate) Read(session, file string, start, end int) {
	if start > end && end != 0 {
		start, end = end, start
	}
	if start <= 0 {
		start = 1
	}
	if end <= 0 {
		end = math.MaxInt
	}
	g.mu.Lock()
	s := g.sessions[session]
	if s == nil {
		s = &reads{files: map[string][]span{}}
		g.sessions[session] = s
	}
	if covers(s.files[file], span{start, end}) {
		// Read before (and so recorded): a direct call reads its tool
		// each time.
		g.mu.Unlock()
		return
	}
	s.files[file] = addSpan(s.files[file], span{start, end})
	g.mu.Unlock()
	// Recorded for the other replicas outside the lock, so a slow store
	// holds up no other session's check.
	if g.st != nil {
		ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
		defer cancel()
		_ = g.st.AddRead(ctx, session, store.Read{File: file, Lo: start, Hi: end})
	}
}

// loadReads merges the store's reads of session into memory.
func (g *Gate) loadReads(session string) {
	ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
	defer cancel()
	rs, err := g.st.Reads(ctx, session)
	if err != nil || len(rs) == 0 {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	s := g.sessions[session]
	if s == nil {
		s = &reads{files: map[string][]span{}}
		g.sessions[session] = s
	}
	for _, r := range rs {
		s.files[r.File] = addSpan(s.files[r.File], span{r.Lo, r.Hi})
	}
}

// ReadTool records that session read exactly the lines of one tool's
// definition (find_tool with an exact name, help(api.svc.tool)). It reports
// whether the tool is known; reading an unknown tool records nothing.
func (g *Gate) ReadTool(session string, service ir.ServiceName, tool ir.WireName) bool {
	d, ok := g.defs[ir.ToolID{Service: service, Wire: tool}]
	if !ok {
		return false
	}
	g.Read(session, d.File, d.Start, d.End)
	return true
}

// Check returns nil when session may call the tool, a *Refusal when it
// must read the definition first, or an error wrapping ErrUnknownTool. In
// Off mode it always returns nil.
func (g *Gate) Check(session string, service ir.ServiceName, tool ir.WireName) error {
	if g.mode == Off {
		return nil
	}
	d, ok := g.defs[ir.ToolID{Service: service, Wire: tool}]
	if !ok {
		return fmt.Errorf("readgate: %w %s.%s", ErrUnknownTool, service, tool)
	}
	if g.covered(session, d) {
		return nil
	}
	if g.st != nil {
		g.loadReads(session)
		if g.covered(session, d) {
			return nil
		}
	}
	return &Refusal{Def: d, Mode: g.mode}
}

// covered says whether the reads in memory cover d.
func (g *Gate) covered(session string, d Def) bool {
	g.mu.Lock()
	var spans []span
	if s := g.sessions[session]; s != nil {
		spans = s.files[d.File]
	}
	g.mu.Unlock()
	switch g.mode {
	case PerFile:
		sig := d.Sig
		if sig < d.Start || sig > d.End {
			sig = d.Start
		}
		return covers(spans, span{sig, d.End})
	case PerTool:
		return covers(spans, span{d.Start, d.End})
	}
	return false
}

// Forget drops everything recorded for session.
func (g *Gate) Forget(session string) {
	g.mu.Lock()
	delete(g.sessions, session)
	g.mu.Unlock()
	if g.st != nil {
		ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
		defer cancel()
		_ = g.st.ForgetReads(ctx, session)
	}
}

// addSpan inserts n into the sorted, merged list ss and returns a new list
// (the old one may be held by a concurrent Check). Adjacent ranges merge:
// 1-40 and 41-63 cover 1-63.
func addSpan(ss []span, n span) []span {
	out := make([]span, 0, len(ss)+1)
	out = append(out, ss...)
	out = append(out, n)
	sort.Slice(out, func(i, j int) bool { return out[i].lo < out[j].lo })
	merged := out[:1]
	for _, s := range out[1:] {
		last := &merged[len(merged)-1]
		if last.hi == math.MaxInt || s.lo <= last.hi+1 {
			last.hi = max(last.hi, s.hi)
			continue
		}
		merged = append(merged, s)
	}
	return merged
}

// covers reports whether the merged list ss covers all of n.
func covers(ss []span, n span) bool {
	for _, s := range ss {
		if s.lo <= n.lo && n.hi <= s.hi {
			return true
		}
	}
	return false
}
