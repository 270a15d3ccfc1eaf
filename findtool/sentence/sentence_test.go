package sentence

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/codemode-dev/codemode/internal/testpeer"
)

// The model and the JS that computes the reference vectors are the pinned
// npm packages in tools/npm (make test installs them).
func nodeModules(t testing.TB) (node, nm string) {
	t.Helper()
	node, err := testpeer.NodeBin("node")
	if err != nil {
		t.Skipf("node not installed (%v): the sentence model's tests need tools/npm", err)
	}
	nm = filepath.Dir(filepath.Dir(node))
	for _, p := range []string{Package, "@energetic-ai/embeddings", "@energetic-ai/core"} {
		if _, err := os.Stat(filepath.Join(nm, p, "package.json")); err != nil {
			t.Skipf("npm package %s not installed in %s: run npm ci in tools/npm", p, nm)
		}
	}
	return node, nm
}

func modelDir(t testing.TB) string {
	_, nm := nodeModules(t)
	return filepath.Join(nm, filepath.FromSlash(Package), "dist")
}

var shared struct {
	once sync.Once
	m    *Model
	err  error
}

func model(t testing.TB) *Model {
	t.Helper()
	dir := modelDir(t)
	shared.once.Do(func() { shared.m, shared.err = Load(dir) })
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.m
}

// reference is what the JS gives for texts: each one's token ids and
// vector (nil for a text it refuses), and the batch of all of them.
type reference struct {
	IDs     [][]int     `json:"ids"`
	Vectors [][]float64 `json:"vectors"`
	Batch   [][]float64 `json:"batch"`
}

func runJS(t testing.TB, texts []string) reference {
	t.Helper()
	node, nm := nodeModules(t)
	in, _ := json.Marshal(texts)
	cmd := exec.Command(node, "testdata/embed.js", nm, "batch")
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node testdata/embed.js: %v: %s", err, stderr.String())
	}
	var r reference
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("node testdata/embed.js: %v", err)
	}
	if len(r.IDs) != len(texts) || len(r.Vectors) != len(texts) || len(r.Batch) != len(texts) {
		t.Fatalf("node testdata/embed.js: %d ids, %d vectors, %d in the batch for %d texts", len(r.IDs), len(r.Vectors), len(r.Batch), len(texts))
	}
	return r
}

func TestProbe(t *testing.T) {
	m := model(t)
	texts := []string{"", "hello world", "let the customer know by SMS that the parcel left", "Create a new message resource"}
	r := runJS(t, texts)
	for i, s := range texts {
		ids := m.Tokenize(s)
		if !slices.Equal(ids, r.IDs[i]) {
			t.Errorf("%q: ids %v, js %v", s, ids, r.IDs[i])
		}
		v := m.Embed(s)
		ref := r.Vectors[i]
		if ref == nil {
			ref = r.Batch[i]
		}
		var d float64
		for k := range v {
			d = max(d, math.Abs(float64(v[k])-ref[k]))
		}
		t.Logf("%q: max diff %.3g", s, d)
	}
	_ = fmt.Sprint
	_ = strings.Join
}
