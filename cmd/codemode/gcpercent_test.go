package main

import (
	"io"
	"runtime/debug"
	"strings"
	"testing"
)

// TestCompileCommandsCollectLessOften: the one-shot compiling commands run
// with GOGC 400 unless GOGC is set; the others, and a set GOGC, keep the
// runtime's own; and the process's setting is back as it was once run
// returns.
func TestCompileCommandsCollectLessOften(t *testing.T) {
	for _, c := range []struct {
		cmd, env string
		want     int
	}{
		{"gen", "", 400}, {"check", "", 400}, {"tools", "", 400}, {"enrich", "", 400},
		{"serve", "", 0}, {"run", "", 0}, {"jobs", "", 0}, {"audit", "", 0},
		{"gen", "100", 0}, {"gen", "off", 0}, {"check", "50", 0},
	} {
		if got := compileGCPercent(c.cmd, c.env); got != c.want {
			t.Errorf("compileGCPercent(%q, GOGC=%q) = %d, want %d", c.cmd, c.env, got, c.want)
		}
	}
	t.Setenv("GOGC", "")
	before := debug.SetGCPercent(73)
	defer debug.SetGCPercent(before)
	var stderr strings.Builder
	if code := run([]string{"gen", "--openapi", "../../testdata/corpus/openapi/burgershop.yaml", "-o", t.TempDir()}, strings.NewReader(""), io.Discard, &stderr); code != 0 {
		t.Fatalf("gen: exit %d: %s", code, stderr.String())
	}
	if got := debug.SetGCPercent(73); got != 73 {
		t.Errorf("after gen, GOGC is %d, want 73 as before it", got)
	}
}
