package runtime_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/manifest"
	"github.com/codemode-dev/codemode/readgate"
	"github.com/codemode-dev/codemode/runtime"
	"github.com/codemode-dev/codemode/runtime/upstream"
)

// TestToolLinesShowSharedDocs: find_tool's exact answer (ToolLines) showed
// a tool's own lines, where a parameter the module docstring describes for
// several tools says only "see module doc"; the lines it refers to come
// first, numbered as in the file.
func TestToolLinesShowSharedDocs(t *testing.T) {
	s, err := manifest.LoadSurface(os.DirFS("../testdata/golden/slack/want"), "manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeRunner{}
	rt, err := runtime.New(context.Background(), runtime.Config{
		Manifest: s.Manifest, Files: s.Files, Runner: f.new, ReadGate: readgate.Off, NoPins: true,
		Upstreams: map[ir.ServiceName]upstream.Upstream{"slack": &argsUpstream{}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	tool, _ := s.Manifest.Services[0].Tool("slack_get_users")
	got := rt.ToolLines("s", "slack", tool)
	want := "    9  Shared parameter docs: a parameter or key commented \"see module doc\" below is this:\n" +
		"   10      cursor: Pagination cursor for next page of results\n" +
		fmt.Sprintf("%5d  def slack_get_users(\n", tool.Lines[0]) +
		fmt.Sprintf("%5d      *,\n", tool.Lines[0]+1) +
		fmt.Sprintf("%5d      cursor: str = None,  # see module doc\n", tool.Lines[0]+2)
	if !strings.HasPrefix(got, want) {
		t.Errorf("ToolLines:\n%s\nwant it to start:\n%s", got, want)
	}
}
