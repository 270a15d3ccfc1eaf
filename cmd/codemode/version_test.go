package main

import (
	"runtime/debug"
	"testing"
)

// TestVersionPrintsDevelOnly: version gives the module version from the
// build info, with the VCS revision of a build from a checkout; the
// -ldflags version wins over the build info's.
func TestVersionPrintsDevelOnly(t *testing.T) {
	rev := []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "3a18984c1f2e7d0b9a8c6e5f4d3c2b1a09876543"}}
	for _, c := range []struct {
		name         string
		bi           *debug.BuildInfo
		ldflag       string
		version, rev string
	}{
		{"no build info", nil, "", "(devel)", ""},
		{"go install @version", &debug.BuildInfo{Main: debug.Module{Version: "v0.4.1"}}, "", "v0.4.1", ""},
		{"checkout", &debug.BuildInfo{Main: debug.Module{Version: "v0.4.2-0.20261201100000-3a18984c1f2e"}, Settings: rev}, "",
			"v0.4.2-0.20261201100000-3a18984c1f2e", "revision 3a18984c1f2e"},
		{"modified checkout", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
			Settings: append(rev, debug.BuildSetting{Key: "vcs.modified", Value: "true"})}, "",
			"(devel)", "revision 3a18984c1f2e, modified"},
		{"ldflags", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "v1.0.0", "v1.0.0", ""},
	} {
		v, r := buildVersion(c.bi, c.ldflag)
		if v != c.version || r != c.rev {
			t.Errorf("%s: got %q, %q; want %q, %q", c.name, v, r, c.version, c.rev)
		}
	}
}
