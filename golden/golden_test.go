package golden

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDiff(t *testing.T) {
	want := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n"
	got := "a\nb\nc\nd\nE\nf\ng\nh\ni\nj\nk\n"
	const exp = `--- x.py (want)
+++ x.py (got)
@@ -2,9 +2,10 @@
 b
 c
 d
-e
+E
 f
 g
 h
 i
 j
+k
`
	if d := Diff("x.py", []byte(want), []byte(got)); d != exp {
		t.Errorf("Diff =\n%s\nwant\n%s", d, exp)
	}
}

func TestDiffNoNewline(t *testing.T) {
	d := Diff("f", []byte("a\nb"), []byte("a\nc"))
	const exp = "--- f (want)\n+++ f (got)\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n"
	if d != exp {
		t.Errorf("Diff =\n%q\nwant\n%q", d, exp)
	}
}

func TestCompare(t *testing.T) {
	dir := t.TempDir()
	if err := Write(dir, map[string][]byte{"a.py": []byte("x\n"), "sub/b.json": []byte("{}\n"), "old.py": []byte("y\n")}); err != nil {
		t.Fatal(err)
	}
	got := Compare(dir, map[string][]byte{"a.py": []byte("z\n"), "sub/b.json": []byte("{}\n"), "new.py": []byte("n\n")})
	if len(got) != 3 {
		t.Fatalf("got %d messages: %q", len(got), got)
	}
	if !strings.HasPrefix(got[0], "a.py differs (run with -update to accept):\n--- "+filepath.ToSlash(dir)+"/a.py (want)") {
		t.Errorf("message 0 = %q", got[0])
	}
	if got[1] != "new.py: generated but not in "+dir+" (run with -update to accept)" {
		t.Errorf("message 1 = %q", got[1])
	}
	if got[2] != "old.py: in "+dir+" but no longer generated" {
		t.Errorf("message 2 = %q", got[2])
	}
	if msgs := Compare(dir, map[string][]byte{"a.py": []byte("x\n"), "sub/b.json": []byte("{}\n"), "old.py": []byte("y\n")}); len(msgs) != 0 {
		t.Errorf("identical directory reported %q", msgs)
	}
}

type recorder struct{ errs []string }

func (r *recorder) Helper()                      {}
func (r *recorder) Errorf(f string, args ...any) { r.errs = append(r.errs, f) }
func (r *recorder) Fatalf(f string, args ...any) { r.errs = append(r.errs, "fatal:"+f) }

func TestUpdateNeverTouchesOtherDirs(t *testing.T) {
	root := t.TempDir()
	input := filepath.Join(root, "input.json")
	os.WriteFile(input, []byte("in"), 0o644)
	t.Setenv(UpdateEnv, "1")
	r := &recorder{}
	Dir(r, filepath.Join(root, "want"), map[string][]byte{"a.py": []byte("a\n")})
	if len(r.errs) != 0 {
		t.Fatal(r.errs)
	}
	if b, _ := os.ReadFile(input); string(b) != "in" {
		t.Errorf("input changed: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "want", "a.py")); string(b) != "a\n" {
		t.Errorf("want/a.py = %q", b)
	}
}

// TestOwnUpdateFlagDoesNotPanic: a pack author's test declares its own
// -update flag (golden used to register one at init, and the second
// definition panicked), and golden follows it.
func TestOwnUpdateFlagDoesNotPanic(t *testing.T) {
	fs := flag.CommandLine
	if fs.Lookup("update") == nil {
		fs.Bool("update", false, "the test's own flag")
	}
	if Updating() {
		t.Fatal("Updating() with -update false")
	}
	if err := fs.Set("update", "true"); err != nil {
		t.Fatal(err)
	}
	defer fs.Set("update", "false")
	if !Updating() {
		t.Fatal("Updating() ignores the test's -update")
	}
}

// TestDifferencesSubset: in Subset mode only the generated files are
// compared (a Go package directory holds hand-written files too), and a
// missing directory makes every file Missing rather than an error.
func TestDifferencesSubset(t *testing.T) {
	dir := t.TempDir()
	if err := Write(dir, map[string][]byte{"gen.go": []byte("a\n"), "doc.go": []byte("hand\n")}); err != nil {
		t.Fatal(err)
	}
	diffs, err := Differences(dir, map[string][]byte{"gen.go": []byte("b\n"), "new.go": []byte("n\n")}, Subset)
	if err != nil {
		t.Fatal(err)
	}
	want := []Difference{
		{Name: "gen.go", Dir: dir, Kind: Changed, Diff: Diff(filepath.ToSlash(filepath.Join(dir, "gen.go")), []byte("a\n"), []byte("b\n"))},
		{Name: "new.go", Dir: dir, Kind: Missing},
	}
	if len(diffs) != len(want) || diffs[0] != want[0] || diffs[1] != want[1] {
		t.Fatalf("Differences = %+v\nwant %+v", diffs, want)
	}
	if m := diffs[0].Message("run codemode gen"); m != "gen.go differs (run codemode gen):\n"+want[0].Diff {
		t.Errorf("Message = %q", m)
	}
	if m := diffs[1].Message(""); m != "new.go: generated but not in "+dir {
		t.Errorf("Message = %q", m)
	}
	diffs, err = Differences(filepath.Join(dir, "absent"), map[string][]byte{"x": nil}, Subset)
	if err != nil || len(diffs) != 1 || diffs[0].Kind != Missing {
		t.Errorf("absent dir: %+v, %v", diffs, err)
	}
	if _, err := Differences(filepath.Join(dir, "absent"), map[string][]byte{"x": nil}, Exact); err == nil {
		t.Error("Exact on a missing directory: no error")
	}
}
