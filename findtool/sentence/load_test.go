package sentence

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copyModel is the model's directory laid anew in a temporary one:
// model.json and vocab.json copied (edit applies to model.json's text
// first), the shards linked.
func copyModel(t *testing.T, edit func(modelJSON string) string) string {
	t.Helper()
	src := modelDir(t)
	dst := t.TempDir()
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		p := filepath.Join(src, e.Name())
		switch e.Name() {
		case "model.json", "vocab.json":
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if e.Name() == "model.json" && edit != nil {
				s := edit(string(b))
				if s == string(b) {
					t.Fatal("the edit changed nothing in model.json")
				}
				b = []byte(s)
			}
			if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
				t.Fatal(err)
			}
		default:
			if err := os.Symlink(p, filepath.Join(dst, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dst
}

// weightEdit is a model.json edit: f changes the manifest's entry for
// the weight named.
func weightEdit(t *testing.T, name string, f func(w map[string]any)) func(string) string {
	return jsonEdit(t, func(m map[string]any) {
		for _, g := range m["weightsManifest"].([]any) {
			for _, w := range g.(map[string]any)["weights"].([]any) {
				if w := w.(map[string]any); w["name"] == name {
					f(w)
					return
				}
			}
		}
		t.Fatalf("no weight %s in the manifest", name)
	})
}

// nodeEdit is a model.json edit: f changes the graph's node named.
func nodeEdit(t *testing.T, name string, f func(n map[string]any)) func(string) string {
	return jsonEdit(t, func(m map[string]any) {
		for _, n := range m["modelTopology"].(map[string]any)["node"].([]any) {
			if n := n.(map[string]any); n["name"] == name {
				f(n)
				return
			}
		}
		t.Fatalf("no node %s in the graph", name)
	})
}

func jsonEdit(t *testing.T, f func(map[string]any)) func(string) string {
	return func(s string) string {
		d := json.NewDecoder(strings.NewReader(s))
		d.UseNumber()
		var m map[string]any
		if err := d.Decode(&m); err != nil {
			t.Fatal(err)
		}
		f(m)
		var b bytes.Buffer
		e := json.NewEncoder(&b)
		e.SetEscapeHTML(false)
		if err := e.Encode(m); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
}

// replaceShard writes the shard's bytes, changed by change, in place of
// its link.
func replaceShard(t *testing.T, dir, name string, change func([]byte) []byte) {
	t.Helper()
	p := filepath.Join(dir, name)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(p)
	if err := os.WriteFile(p, change(b), 0o644); err != nil {
		t.Fatal(err)
	}
}

// refused checks that Load(dir) fails with the one line "sentence model
// <dir>: want".
func refused(t *testing.T, dir, want string) {
	t.Helper()
	m, err := Load(dir)
	if err == nil {
		t.Fatalf("loaded %v, want the error %q", m != nil, want)
	}
	if got := err.Error(); got != "sentence model "+dir+": "+want || strings.Contains(got, "\n") {
		t.Errorf("error\n  %s\nwant\n  sentence model %s: %s", got, dir, want)
	}
}

// TestModelCopyLoads: the copies the refusals below edit load unedited.
func TestModelCopyLoads(t *testing.T) {
	if _, err := Load(copyModel(t, nil)); err != nil {
		t.Fatal(err)
	}
	// Re-encoded (as the edits of the tests below are), model.json still
	// holds the graph this encoder computes.
	if _, err := Load(copyModel(t, jsonEdit(t, func(m map[string]any) { m["format"] = "graph-model" }))); err != nil {
		t.Fatal(err)
	}
}

func TestTruncatedShardRefused(t *testing.T) {
	dir := copyModel(t, nil)
	replaceShard(t, dir, "group1-shard7of7", func(b []byte) []byte { return b[:1000] })
	refused(t, dir, "weights group 1 (7 shards, group1-shard1of7 to group1-shard7of7): 25166824 bytes, its 61 weights take 27903656 (a shard is truncated)")
}

func TestShardLongerThanItsWeightsRefused(t *testing.T) {
	dir := copyModel(t, nil)
	replaceShard(t, dir, "group1-shard7of7", func(b []byte) []byte { return append(b, 0, 0, 0, 0) })
	refused(t, dir, "group1-shard7of7: longer than the manifest's weights")
}

func TestMissingShardRefused(t *testing.T) {
	dir := copyModel(t, nil)
	os.Remove(filepath.Join(dir, "group1-shard3of7"))
	refused(t, dir, "group1-shard3of7: no such file or directory")
}

func TestMissingModelJSONRefused(t *testing.T) {
	dir := t.TempDir()
	refused(t, dir, "model.json: no such file or directory")
}

func TestTruncatedModelJSONRefused(t *testing.T) {
	dir := copyModel(t, func(s string) string { return s[:len(s)/2] })
	refused(t, dir, "model.json: unexpected end of JSON input")
}

// The shard's first weight is layer 1's second feed-forward matrix.
func TestNaNWeightRefused(t *testing.T) {
	dir := copyModel(t, nil)
	replaceShard(t, dir, "group1-shard1of7", func(b []byte) []byte {
		binary.LittleEndian.PutUint32(b[8:], math.Float32bits(float32(math.NaN())))
		return b
	})
	refused(t, dir, "weight "+stk+"Layer_1/TransformerLayer/FFN/conv2/Tensordot/Reshape_1: value 2 is NaN")
}

func TestWrongWeightShapeRefused(t *testing.T) {
	name := kern + "Layer_0/TransformerLayer/MultiheadAttention/qkv_transform_single/kernel/part_0"
	dir := copyModel(t, weightEdit(t, name, func(w map[string]any) { w["shape"] = []int{1, 1, 768, 256} }))
	refused(t, dir, "weight "+kern+"Layer_0/TransformerLayer/MultiheadAttention/qkv_transform_single/kernel/part_0: shape [1 1 768 256], want [1 1 256 768]")
}

func TestEmbeddingTableShapeRefused(t *testing.T) {
	dir := copyModel(t, weightEdit(t, "module/Embeddings_en", func(w map[string]any) { w["shape"] = []int{256, 8002} }))
	refused(t, dir, "weight module/Embeddings_en: shape [256 8002], want [rows 256]")
}

func TestMissingWeightRefused(t *testing.T) {
	name := "module/Encoder_en/hidden_layers/tanh_layer_0/bias"
	dir := copyModel(t, weightEdit(t, name, func(w map[string]any) { w["name"] = name + "_renamed" }))
	refused(t, dir, "model.json: no weight module/Encoder_en/hidden_layers/tanh_layer_0/bias")
}

func TestWrongDtypeRefused(t *testing.T) {
	dir := copyModel(t, weightEdit(t, "module/Embeddings_en", func(w map[string]any) { w["dtype"] = "float16" }))
	refused(t, dir, `model.json: weight module/Embeddings_en has dtype "float16", want float32 or int32`)
}

func TestQuantizedWeightRefused(t *testing.T) {
	dir := copyModel(t, weightEdit(t, "module/Embeddings_en", func(w map[string]any) {
		w["quantization"] = map[string]any{"dtype": "uint8", "min": -1, "scale": 0.01}
	}))
	refused(t, dir, "model.json: weight module/Embeddings_en is quantized, which this encoder does not read")
}

func TestShardPathOutsideTheModelRefused(t *testing.T) {
	dir := copyModel(t, func(s string) string {
		return strings.Replace(s, `"group1-shard1of7"`, `"../group1-shard1of7"`, 1)
	})
	refused(t, dir, `model.json: shard path "../group1-shard1of7" is not a file beside model.json`)
}

// A graph that computes something else (here a sigmoid for the tanh) is
// refused rather than computed as this encoder does.
func TestOtherGraphRefused(t *testing.T) {
	dir := copyModel(t, nodeEdit(t, "module_apply_default/Encoder_en/hidden_layers/tanh_layer_0/Tanh", func(n map[string]any) { n["op"] = "Sigmoid" }))
	_, err := Load(dir)
	want := "sentence model " + dir + ": model.json: not the Universal Sentence Encoder lite graph this encoder implements (317 nodes, fingerprint "
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), ", want 088a69cac18f)") {
		t.Errorf("error %v, want %q…", err, want)
	}
}

func writeVocab(t *testing.T, dir, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "vocab.json"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestUnknownPieceFormatRefused(t *testing.T) {
	dir := copyModel(t, nil)
	writeVocab(t, dir, `[["\ufffd",0],["<s>",0],["</s>",0],["e1",0],["e2",0],["e3",0],{"piece":"▁the","score":-3.5}]`)
	refused(t, dir, `vocab.json: entry 6 is not a [piece, score] pair: {"piece":"▁the","score":-3.5}`)
}

func TestPieceWithStringScoreRefused(t *testing.T) {
	dir := copyModel(t, nil)
	writeVocab(t, dir, `[["\ufffd",0],["<s>",0],["</s>",0],["e1",0],["e2",0],["e3",0],["▁the","-3.5"]]`)
	refused(t, dir, `vocab.json: entry 6 is not a [piece, score] pair: ["▁the","-3.5"]`)
}

func TestVocabularyLargerThanTheTableRefused(t *testing.T) {
	dir := copyModel(t, nil)
	var b strings.Builder
	b.WriteString(`[["\ufffd",0]`)
	for range 8002 {
		b.WriteString(`,["x",-1]`)
	}
	b.WriteString(`]`)
	writeVocab(t, dir, b.String())
	refused(t, dir, "vocab.json: 8003 pieces, the embedding table has 8002 rows")
}

func TestEmptyUnknownPieceRefused(t *testing.T) {
	dir := copyModel(t, nil)
	writeVocab(t, dir, `[["",0],["<s>",0],["</s>",0],["e1",0],["e2",0],["e3",0],["▁the",-3.5]]`)
	refused(t, dir, "vocab.json: piece 0 (the unknown piece) is empty")
}

func TestMissingVocabRefused(t *testing.T) {
	dir := copyModel(t, nil)
	os.Remove(filepath.Join(dir, "vocab.json"))
	refused(t, dir, "vocab.json: no such file or directory")
}

// TestFindLocatesThePackage: the package's dist directory beside a pack.
func TestFindLocatesThePackage(t *testing.T) {
	pack := t.TempDir()
	dist := filepath.Join(pack, "node_modules", filepath.FromSlash(Package), "dist")
	if err := os.MkdirAll(dist, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dist, "model.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, ok := Find(pack); !ok || got != dist {
		t.Errorf("Find = %q, %v, want %q", got, ok, dist)
	}
}

func TestHugeWeightShapeRefused(t *testing.T) {
	dir := copyModel(t, weightEdit(t, "module/Embeddings_en", func(w map[string]any) { w["shape"] = []int{1 << 20, 1 << 20, 1 << 20} }))
	refused(t, dir, "model.json: weight module/Embeddings_en has shape [1048576 1048576 1048576]")
}

// TestOtherConstantRefused: a constant the computation is written for (the
// 128 tokens read) changed in the shards is refused.
func TestOtherConstantRefused(t *testing.T) {
	dir := copyModel(t, nil)
	raw, err := os.ReadFile(filepath.Join(dir, "model.json"))
	if err != nil {
		t.Fatal(err)
	}
	var mj modelJSON
	if err := json.Unmarshal(raw, &mj); err != nil {
		t.Fatal(err)
	}
	name := pre + "ClipToMaxLength/Less/y"
	off := -1
	pos := 0
	for _, w := range mj.Manifest[0].Weights {
		if w.Name == name {
			off = pos
		}
		n := 4
		for _, d := range w.Shape {
			n *= d
		}
		pos += n
	}
	const shard = 4 << 20 // each shard but the last
	replaceShard(t, dir, mj.Manifest[0].Paths[off/shard], func(b []byte) []byte {
		if got := binary.LittleEndian.Uint32(b[off%shard:]); got != MaxTokens {
			t.Fatalf("%s is %d in the shard, want %d", name, got, MaxTokens)
		}
		binary.LittleEndian.PutUint32(b[off%shard:], 64)
		return b
	})
	refused(t, dir, "weight "+name+": [64], want [128]")
}
