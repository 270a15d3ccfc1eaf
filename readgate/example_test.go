package readgate_test

import (
	"fmt"

	"github.com/codemode-dev/codemode/readgate"
)

func Example() {
	g := readgate.New(readgate.PerTool, []readgate.Def{{
		Service: "spotify", Tool: "show_liked_songs", Py: "show_liked_songs",
		File: "api/spotify.py", Start: 41, End: 63,
	}})
	fmt.Println(g.Check("session-1", "spotify", "show_liked_songs"))

	// find_tool("spotify.show_liked_songs") served the definition.
	g.ReadTool("session-1", "spotify", "show_liked_songs")
	fmt.Println(g.Check("session-1", "spotify", "show_liked_songs"))
	// Output:
	// read api/spotify.py lines 41-63 first: find_tool("spotify.show_liked_songs") or read_api("spotify", "41-63")
	// <nil>
}
