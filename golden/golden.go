// Package golden compares generated files with expected ones, for this
// project's tests and for pack authors' CI.
//
// A test calls Dir (or File) with the files it generated; on a mismatch the
// test fails with a unified diff per file. Run the test with -update to
// rewrite the expected files instead: only the expected directory is ever
// written, never a test's inputs.
//
// The package registers no flag of its own (a library that did would make a
// test declaring its own -update panic). The test package declares it, and
// golden reads it by name; [UpdateEnv] set to 1 works without a flag:
//
//	var _ = flag.Bool("update", false, "rewrite golden files")
//
//	func TestPack(t *testing.T) {
//		files := generate(t) // map of relative path → bytes
//		golden.Dir(t, "testdata/pack/want", files)
//	}
package golden

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/codemode-dev/codemode/internal/filetree"
)

// UpdateEnv names the environment variable that, set to 1, rewrites
// expected files as -update does.
const UpdateEnv = "GOLDEN_UPDATE"

// Updating reports whether expected files are to be rewritten instead of
// compared: the test binary's -update flag (declared by the test package, if
// it declares one) is true, or UpdateEnv is 1.
func Updating() bool {
	if os.Getenv(UpdateEnv) == "1" {
		return true
	}
	f := flag.Lookup("update")
	if f == nil {
		return false
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return false
	}
	on, _ := g.Get().(bool)
	return on
}

// T is the part of testing.TB golden uses.
type T interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// Dir compares files (relative slash paths → contents) with the directory
// want: every file must match, and want must hold no other file. With
// -update it rewrites want to hold exactly files.
func Dir(t T, want string, files map[string][]byte) {
	t.Helper()
	if Updating() {
		if err := Write(want, files); err != nil {
			t.Fatalf("golden: %v", err)
		}
		return
	}
	for _, d := range Compare(want, files) {
		t.Errorf("%s", d)
	}
}

// File compares one generated file with the expected file path.
func File(t T, path string, got []byte) {
	t.Helper()
	if Updating() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatalf("golden: %v", err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatalf("golden: %v", err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden: %v (run the test with -update to create it)", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs from what was generated (run with -update to accept):\n%s", path, Diff(path, want, got))
	}
}

// Compare returns one message per difference between the directory want and
// files: a unified diff for a changed file, a line for a missing or extra one.
// An empty result means they match.
func Compare(want string, files map[string][]byte) []string {
	diffs, err := Differences(want, files, Exact)
	if err != nil {
		return []string{fmt.Sprintf("golden: %v (run with -update to create it)", err)}
	}
	out := make([]string, 0, len(diffs))
	for _, d := range diffs {
		out = append(out, d.Message("run with -update to accept"))
	}
	return out
}

// Kind says how a generated file differs from the expected directory.
type Kind int

const (
	// Changed: the file is in both, with different bytes.
	Changed Kind = iota
	// Missing: the file was generated but is not in the directory.
	Missing
	// Extra: the file is in the directory but no longer generated.
	Extra
)

// Difference is one file that does not match.
type Difference struct {
	Name string // slash path relative to the directory
	Dir  string // the expected directory
	Kind Kind
	// Diff is the unified diff from the expected file to the generated one,
	// for a Changed file.
	Diff string
}

// Message says what differs; fix, when not empty, says how to accept the
// generated files ("run with -update to accept"). An Extra file is never
// accepted by regenerating, so its message names no fix.
func (d Difference) Message(fix string) string {
	paren := ""
	if fix != "" {
		paren = " (" + fix + ")"
	}
	switch d.Kind {
	case Missing:
		return fmt.Sprintf("%s: generated but not in %s%s", d.Name, d.Dir, paren)
	case Extra:
		return fmt.Sprintf("%s: in %s but no longer generated", d.Name, d.Dir)
	}
	return fmt.Sprintf("%s differs%s:\n%s", d.Name, paren, d.Diff)
}

// Mode says whether the expected directory must hold only the generated files.
type Mode int

const (
	// Exact: a file in the directory that was not generated is a difference.
	Exact Mode = iota
	// Subset: only the generated files are compared; others are ignored
	// (a Go package directory holding hand-written files too).
	Subset
)

// Differences compares the directory want with files (slash paths relative
// to want), in path order: changed and missing files first, then (in Exact
// mode) extra ones. The error is for a directory that cannot be read; in
// Subset mode a missing directory makes every file Missing.
func Differences(want string, files map[string][]byte, mode Mode) ([]Difference, error) {
	var have map[string][]byte
	var err error
	if mode == Exact {
		have, err = Read(want)
	} else {
		have, err = readSome(want, files)
	}
	if err != nil {
		return nil, err
	}
	var out []Difference
	for _, name := range sortedKeys(files) {
		w, ok := have[name]
		switch {
		case !ok:
			out = append(out, Difference{Name: name, Dir: want, Kind: Missing})
		case !bytes.Equal(w, files[name]):
			out = append(out, Difference{Name: name, Dir: want, Kind: Changed,
				Diff: Diff(filepath.ToSlash(filepath.Join(want, name)), w, files[name])})
		}
	}
	if mode == Exact {
		for _, name := range sortedKeys(have) {
			if _, ok := files[name]; !ok {
				out = append(out, Difference{Name: name, Dir: want, Kind: Extra})
			}
		}
	}
	return out, nil
}

// readSome reads the files of dir named in files that exist.
func readSome(dir string, files map[string][]byte) (map[string][]byte, error) {
	have := map[string][]byte{}
	for name := range files {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		have[name] = data
	}
	return have, nil
}

// Read loads every regular file under dir, keyed by slash path relative to dir.
func Read(dir string) (map[string][]byte, error) { return filetree.Read(dir) }

// Write replaces dir's contents with exactly files, atomically.
func Write(dir string, files map[string][]byte) error { return filetree.WriteDir(dir, files) }

func sortedKeys(m map[string][]byte) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Diff returns a unified diff (3 lines of context) from want to got.
func Diff(name string, want, got []byte) string {
	a, b := lines(want), lines(got)
	ops := diffLines(a, b)
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s (want)\n+++ %s (got)\n", name, name)
	const ctx = 3
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		// A hunk: from ctx lines before the change to ctx lines after the
		// last change that is within 2*ctx of the previous one.
		start := i
		for start > 0 && i-start < ctx && ops[start-1].kind == ' ' {
			start--
		}
		end := i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*ctx {
				end += min(ctx, run-end)
				break
			}
			end = run
		}
		aStart, bStart, aN, bN := ops[start].a, ops[start].b, 0, 0
		for _, op := range ops[start:end] {
			if op.kind != '+' {
				aN++
			}
			if op.kind != '-' {
				bN++
			}
		}
		fmt.Fprintf(&out, "@@ -%d,%d +%d,%d @@\n", aStart+1, aN, bStart+1, bN)
		for _, op := range ops[start:end] {
			text := op.text
			out.WriteByte(op.kind)
			out.WriteString(text)
			if !strings.HasSuffix(text, "\n") {
				out.WriteString("\n\\ No newline at end of file\n")
			}
		}
		i = end
	}
	return out.String()
}

func lines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	return strings.SplitAfter(string(b), "\n")[:strings.Count(string(b), "\n")+boolInt(!bytes.HasSuffix(b, []byte("\n")))]
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

type op struct {
	kind byte // ' ', '-', '+'
	text string
	a, b int // line index in want and got where this op stands
}

// diffLines is a longest-common-subsequence line diff over the part of the
// inputs between their common prefix and suffix. When that middle is too large
// for a quadratic table, it is shown as removed then added.
func diffLines(a, b []string) []op {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []op
	for i := 0; i < pre; i++ {
		ops = append(ops, op{' ', a[i], i, i})
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	if len(ma)*len(mb) > 4_000_000 {
		for i, l := range ma {
			ops = append(ops, op{'-', l, pre + i, pre})
		}
		for j, l := range mb {
			ops = append(ops, op{'+', l, pre + len(ma), pre + j})
		}
	} else {
		n, m := len(ma), len(mb)
		lcs := make([][]int32, n+1)
		for i := range lcs {
			lcs[i] = make([]int32, m+1)
		}
		for i := n - 1; i >= 0; i-- {
			for j := m - 1; j >= 0; j-- {
				if ma[i] == mb[j] {
					lcs[i][j] = lcs[i+1][j+1] + 1
				} else {
					lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
				}
			}
		}
		i, j := 0, 0
		for i < n || j < m {
			switch {
			case i < n && j < m && ma[i] == mb[j]:
				ops = append(ops, op{' ', ma[i], pre + i, pre + j})
				i++
				j++
			case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
				ops = append(ops, op{'-', ma[i], pre + i, pre + j})
				i++
			default:
				ops = append(ops, op{'+', mb[j], pre + i, pre + j})
				j++
			}
		}
	}
	for k := 0; k < suf; k++ {
		i, j := len(a)-suf+k, len(b)-suf+k
		ops = append(ops, op{' ', a[i], i, j})
	}
	return ops
}
