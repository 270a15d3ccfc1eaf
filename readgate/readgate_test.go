package readgate

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/codemode-dev/codemode/ir"
)

var defs = []Def{
	{Service: "spotify", Tool: "show_liked_songs", Py: "show_liked_songs", File: "api/spotify.py", Start: 41, End: 63},
	{Service: "spotify", Tool: "play", Py: "play", File: "api/spotify.py", Start: 65, End: 80, Sig: 72},
	{Service: "spotify", Tool: "ping", Py: "ping", File: "api/spotify.py", Start: 82, End: 82},
	{Service: "hubspot", Tool: "hubspot-list-objects", Py: "hubspot_list_objects", File: "api/hubspot.py", Start: 10, End: 30},
}

func refusal(t *testing.T, err error) string {
	t.Helper()
	var r *Refusal
	if !errors.As(err, &r) {
		t.Fatalf("want *Refusal, got %v", err)
	}
	return r.Error()
}

func TestRefusalMessage(t *testing.T) {
	for _, mode := range []Mode{PerFile, PerTool} {
		g := New(mode, defs)
		for _, tc := range []struct {
			svc, tool, want string
		}{
			{"spotify", "show_liked_songs", `read api/spotify.py lines 41-63 first: find_tool("spotify.show_liked_songs") or read_api("spotify", "41-63")`},
			{"spotify", "ping", `read api/spotify.py line 82 first: find_tool("spotify.ping") or read_api("spotify", "82")`},
			{"hubspot", "hubspot-list-objects", `read api/hubspot.py lines 10-30 first: find_tool("hubspot.hubspot_list_objects") or read_api("hubspot", "10-30")`},
		} {
			if got := refusal(t, g.Check("s", ir.ServiceName(tc.svc), ir.WireName(tc.tool))); got != tc.want {
				t.Errorf("%v %s.%s:\n got %s\nwant %s", mode, tc.svc, tc.tool, got, tc.want)
			}
		}
	}
}

// TestReadOfOneToolUnlocksTheWholeFile pins the bug where, in file mode,
// any read of a service's file (its docstring, one tool's lines) unlocked
// every tool in it. A read covers the tools whose definitions lie in it.
func TestReadOfOneToolUnlocksTheWholeFile(t *testing.T) {
	g := New(PerFile, defs)
	check := func(svc, tool string, want bool) {
		t.Helper()
		err := g.Check("s", ir.ServiceName(svc), ir.WireName(tool))
		if (err == nil) != want {
			t.Errorf("%s.%s: unlocked=%v, want %v (%v)", svc, tool, err == nil, want, err)
		}
	}
	g.Read("s", "api/spotify.py", 1, 5) // the module docstring only
	for _, tool := range []string{"show_liked_songs", "play", "ping"} {
		check("spotify", tool, false)
	}
	g.ReadTool("s", "spotify", "show_liked_songs")
	check("spotify", "show_liked_songs", true)
	check("spotify", "play", false)
	check("spotify", "ping", false)
	// play's def starts at line 72: its shapes (65-71) are not needed.
	g.Read("s", "api/spotify.py", 72, 82)
	check("spotify", "play", true)
	check("spotify", "ping", true)
	check("hubspot", "hubspot-list-objects", false)
	g.Read("s", "api/hubspot.py", 0, 0) // the whole file
	check("hubspot", "hubspot-list-objects", true)
}

func TestPerTool(t *testing.T) {
	g := New(PerTool, defs)
	check := func(tool string, want bool) {
		t.Helper()
		err := g.Check("s", "spotify", ir.WireName(tool))
		if (err == nil) != want {
			t.Errorf("%s: unlocked=%v, want %v (%v)", tool, err == nil, want, err)
		}
	}
	g.Read("s", "api/spotify.py", 1, 50) // half of show_liked_songs
	check("show_liked_songs", false)
	check("play", false)
	g.Read("s", "api/spotify.py", 51, 70) // the rest of it, and half of play
	check("show_liked_songs", true)
	check("play", false)
	g.Read("s", "api/spotify.py", 82, 82)
	check("ping", true)
	check("play", false)
	g.ReadTool("s", "spotify", "play")
	check("play", true)

	g2 := New(PerTool, defs)
	g2.Read("s", "api/spotify.py", 60, 0) // from line 60 to the end
	if g2.Check("s", "spotify", "play") != nil || g2.Check("s", "spotify", "show_liked_songs") == nil {
		t.Error("open-ended read")
	}
	g2.Read("s", "api/spotify.py", 0, 0) // whole file
	if g2.Check("s", "spotify", "show_liked_songs") != nil {
		t.Error("whole-file read")
	}
	g3 := New(PerTool, defs)
	g3.Read("s", "api/spotify.py", 63, 41) // reversed
	if g3.Check("s", "spotify", "show_liked_songs") != nil {
		t.Error("reversed read")
	}
	if g3.Check("s", "spotify", "play") == nil {
		t.Error("play unlocked")
	}
}

func TestOff(t *testing.T) {
	g := New(Off, defs)
	if err := g.Check("s", "spotify", "show_liked_songs"); err != nil {
		t.Error(err)
	}
	if err := g.Check("s", "nope", "nope"); err != nil {
		t.Error(err)
	}
}

func TestUnknownTool(t *testing.T) {
	g := New(PerFile, defs)
	err := g.Check("s", "spotify", "nope")
	if !errors.Is(err, ErrUnknownTool) || err.Error() != "readgate: unknown tool spotify.nope" {
		t.Errorf("got %v", err)
	}
	if g.ReadTool("s", "spotify", "nope") {
		t.Error("ReadTool of an unknown tool")
	}
}

func TestSessionsIsolatedAndForget(t *testing.T) {
	g := New(PerFile, defs)
	g.Read("a", "api/spotify.py", 0, 0)
	if g.Check("a", "spotify", "play") != nil {
		t.Error("a refused")
	}
	if g.Check("b", "spotify", "play") == nil {
		t.Error("b unlocked by a's read")
	}
	g.Forget("a")
	if g.Check("a", "spotify", "play") == nil {
		t.Error("a still unlocked after Forget")
	}
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]Mode{"": PerFile, "file": PerFile, "tool": PerTool, "per-tool": PerTool, "off": Off} {
		if got, err := ParseMode(in); err != nil || got != want {
			t.Errorf("%q: %v %v", in, got, err)
		}
	}
	if _, err := ParseMode("sometimes"); err == nil {
		t.Error("bad mode accepted")
	}
	for _, m := range []Mode{PerFile, PerTool, Off} {
		if got, _ := ParseMode(m.String()); got != m {
			t.Errorf("round trip %v", m)
		}
	}
}

func TestConcurrent(t *testing.T) {
	g := New(PerTool, defs)
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := fmt.Sprint("s", i%4)
			for j := range 200 {
				g.Read(s, "api/spotify.py", j%90, j%90+5)
				_ = g.Check(s, "spotify", "play")
				g.ReadTool(s, "spotify", "ping")
				if j%50 == 0 {
					g.Forget(s)
				}
			}
		}()
	}
	wg.Wait()
	g.Read("z", "api/spotify.py", 0, 0)
	if g.Check("z", "spotify", "play") != nil {
		t.Error("after concurrent use")
	}
}
