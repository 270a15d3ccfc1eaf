package bench

import (
	"context"
	"encoding/xml"
	"io"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/opslab"
)

// buildLab builds cmd/opslab into a temporary directory.
func buildLab(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "opslab")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/codemode-dev/codemode/cmd/opslab").CombinedOutput()
	if err != nil {
		t.Fatalf("go build opslab: %v\n%s", err, out)
	}
	return bin
}

// TestScriptsSolveIncidents runs each incident's two fixed scripts against
// the real lab server and checks that the final answer names the planted
// fault (and that the fix verified, which the scripts check themselves).
func TestScriptsSolveIncidents(t *testing.T) {
	ctx := context.Background()
	bin := buildLab(t)
	sizes := []opslab.Size{opslab.Small}
	if !testing.Short() {
		sizes = append(sizes, opslab.Large)
	}
	for _, size := range sizes {
		dir := t.TempDir()
		api := filepath.Join(dir, "api")
		if _, err := CompileLab(ctx, filepath.Join(dir, "pack"), api, bin, size, 1); err != nil {
			t.Fatal(err)
		}
		for _, f := range opslab.Faults {
			t.Run(string(size)+"/"+f.ID, func(t *testing.T) {
				d, err := DialDirect(ctx, bin, size, 1, f)
				if err != nil {
					t.Fatal(err)
				}
				defer d.Close()
				ans, err := SolveDirect(ctx, d)
				if err != nil {
					t.Fatalf("direct: %v", err)
				}
				if !f.Names(ans) {
					t.Errorf("direct answer does not name %s: %s", f.ID, ans)
				}
				c, err := DialCode(ctx, filepath.Join(dir, "run-"+f.ID), api, bin, size, 1, f)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				ans, err = SolveCode(ctx, c)
				if err != nil {
					t.Fatalf("code: %v", err)
				}
				if !f.Names(ans) {
					t.Errorf("code answer does not name %s: %s", f.ID, ans)
				}
				for _, other := range opslab.Faults {
					if other != f && other.Names(ans) {
						t.Errorf("code answer also names %s: %s", other.ID, ans)
					}
				}
				t.Logf("direct %d steps, code %d steps: %s", len(d.T.Steps), len(c.T.Steps), ans)
			})
		}
	}
}

// TestTokensReproduce runs the small lab's token benchmark twice: every
// count must be the same (deterministic data, fixed scripts).
func TestTokensReproduce(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the lab twice")
	}
	ctx := context.Background()
	bin := buildLab(t)
	a, err := RunTokens(ctx, bin, t.TempDir(), opslab.Small, 1)
	if err != nil {
		t.Fatal(err)
	}
	b, err := RunTokens(ctx, bin, t.TempDir(), opslab.Small, 1)
	if err != nil {
		t.Fatal(err)
	}
	if a.DirectDefs != b.DirectDefs || a.CodeDefs != b.CodeDefs {
		t.Errorf("definition tokens differ: %d/%d vs %d/%d", a.DirectDefs, a.CodeDefs, b.DirectDefs, b.CodeDefs)
	}
	for i := range a.Tasks {
		x, y := a.Tasks[i], b.Tasks[i]
		if !reflect.DeepEqual(x.Direct, y.Direct) || !reflect.DeepEqual(x.Code, y.Code) {
			t.Errorf("%s: token numbers differ between runs:\n%+v\n%+v", x.Fault.ID, x.Code, y.Code)
		}
		if !x.DirectOK || !x.CodeOK {
			t.Errorf("%s: an answer does not name the fault", x.Fault.ID)
		}
	}
	if a.DirectDefs <= a.CodeDefs {
		t.Errorf("direct definitions (%d tokens) not larger than code mode's (%d)", a.DirectDefs, a.CodeDefs)
	}
}

func TestMeasure(t *testing.T) {
	tr := &Transcript{Prompt: "hello world", Steps: []Step{{Tool: "a", Input: "x", Output: "one two three"}, {Tool: "b", Input: "y", Output: "z"}}}
	s := Measure(tr, 10)
	p := Tokens("hello world")
	if s.Steps != 2 || s.Growth[0] != p || len(s.Growth) != 3 || s.LargestTool != "a" {
		t.Fatalf("%+v", s)
	}
	want := (10 + s.Growth[0]) + (10 + s.Growth[1]) + (10 + s.Growth[2])
	if s.Read != want {
		t.Errorf("Read = %d, want %d", s.Read, want)
	}
	if Tokens("") != 0 || Tokens("hello") != 1 {
		t.Errorf("tokenizer: %d %d", Tokens(""), Tokens("hello"))
	}
}

func TestSVGIsXML(t *testing.T) {
	svg := SVG("t <&>", []Panel{{Title: "p", Series: []Series{{Name: "a", Color: "#000", Points: []int{1, 5, 9}}, {Name: "b", Dashed: true, Color: "#f00", Points: []int{0, 2}}}}})
	d := xml.NewDecoder(strings.NewReader(svg))
	for {
		_, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not XML: %v\n%s", err, svg)
		}
	}
	if !strings.Contains(svg, "<polyline") || !strings.Contains(svg, "t &lt;&amp;&gt;") {
		t.Error("missing lines or escaping")
	}
}

func TestParseGoBench(t *testing.T) {
	out := "goos: linux\nBenchmarkCallInProgram-2   \t      26\t  44851234 ns/op\t    448512 ns/call\nBenchmarkSearch5000/list-2 \t 33000\t 36012 ns/op\nPASS\n"
	got := ParseGoBench("./runtime", out)
	if len(got) != 2 || got[0].Name != "BenchmarkCallInProgram" || got[0].Metrics["ns/call"] != 448512 || got[1].Name != "BenchmarkSearch5000/list" || got[1].N != 33000 {
		t.Errorf("%+v", got)
	}
}

// TestBenchLineCutByServerLog: an upstream server's stderr line, written
// while the benchmark ran, landed in the middle of its line, and the row
// went missing from BENCHMARKS.md.
func TestBenchLineCutByServerLog(t *testing.T) {
	out := "BenchmarkCallInProgram-2   \tmcp everything stderr: Starting default (STDIO) server...\n      26\t  44851234 ns/op\t    448512 ns/call\nPASS\n"
	got := ParseGoBench("./runtime", out)
	if len(got) != 1 || got[0].Name != "BenchmarkCallInProgram" || got[0].N != 26 || got[0].Metrics["ns/call"] != 448512 {
		t.Errorf("got %+v", got)
	}
}
