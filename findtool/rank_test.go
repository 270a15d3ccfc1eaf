package findtool

import (
	"fmt"
	"testing"
)

// TestStopWordIsNoAcronym: a stop word is never read as an acronym ("my"
// stood for "main yaml", "for" for "field option resource" where those
// phrases were common).
func TestStopWordIsNoAcronym(t *testing.T) {
	var docs []Doc
	for i := range 6 {
		docs = append(docs, Doc{"ci", tool(fmt.Sprintf("lint_config_%d", i), "Checks the main YAML file")})
	}
	docs = append(docs,
		Doc{"gh", tool("get_settings", "Get the settings")},
		Doc{"ci", tool("main_yaml_settings", "Settings of the main YAML file")},
	)
	x := New(docs)
	if got := first(x, "my settings"); got != "gh.get_settings" {
		t.Errorf("first %s, want gh.get_settings", got)
	}
}
