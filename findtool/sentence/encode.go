package sentence

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/viterin/vek/vek32"
	"gonum.org/v1/gonum/blas/gonum"
)

// Model is the Universal Sentence Encoder lite: a tokenizer and the
// graph's two transformer layers, pooled into one unit vector. Immutable
// once loaded; safe for concurrent use.
type Model struct {
	tok    *tokenizer
	emb    []float32 // rows × embDims
	rows   int
	inv    []float32 // the timing signal's inverse timescales (embDims/2)
	eps    float32   // layer norm's
	layers [2]layer
	hidW   []float32 // Dims × Dims, transposed
	hidB   []float32
	l2eps  float32
	work   sync.Pool // *workspace
}

const (
	embDims = 256
	ffnDims = 1536
	heads   = 4
)

// layer is one KonaTransformer layer: pre-norm multi-head self-attention
// and a ReLU feed-forward network, each added to its input; layer 0 also
// projects its 256-wide input to the model's 512 for the residual. Every
// matrix is kept transposed (output × input), so that each output is one
// dot product of two contiguous rows.
type layer struct {
	in, hd     int     // input width (the attention's too); head width
	scale      float32 // the queries' scale, 1/√hd
	ln1s, ln1b []float32
	resW, resB []float32 // layer 0 only
	qkvW, qkvB []float32
	outW, outB []float32
	ln2s, ln2b []float32
	ff1W, ff1B []float32
	ff2W, ff2B []float32
}

var blas = gonum.Implementation{}

// build checks the weights against what this encoder computes and lays
// them out for it.
func build(w map[string]tensor, pieces []string, scores []float64) (*Model, error) {
	var err error
	get := func(name string, shape ...int) []float32 {
		if err != nil {
			return nil
		}
		t, ok := w[name]
		switch {
		case !ok:
			err = fmt.Errorf("model.json: no weight %s", name)
		case t.f == nil:
			err = fmt.Errorf("weight %s: int32, want float32", name)
		case !slices.Equal(t.shape, shape):
			err = fmt.Errorf("weight %s: shape %v, want %v", name, t.shape, shape)
		}
		return t.f
	}
	getInt := func(name string, want ...int32) {
		if err != nil {
			return
		}
		switch t, ok := w[name]; {
		case !ok:
			err = fmt.Errorf("model.json: no weight %s", name)
		case t.i == nil:
			err = fmt.Errorf("weight %s: float32, want int32 %v", name, want)
		case !slices.Equal(t.i, want):
			err = fmt.Errorf("weight %s: %v, want %v", name, t.i, want)
		}
	}
	scalar := func(name string, lo, hi float64) float32 {
		v := get(name)
		if err == nil && (float64(v[0]) < lo || float64(v[0]) > hi) {
			err = fmt.Errorf("weight %s: %g, want %g to %g", name, v[0], lo, hi)
		}
		if err != nil {
			return 0
		}
		return v[0]
	}
	m := &Model{}
	if emb, ok := w["module/Embeddings_en"]; ok && (len(emb.shape) != 2 || emb.shape[1] != embDims) {
		return nil, fmt.Errorf("weight module/Embeddings_en: shape %v, want [rows %d]", emb.shape, embDims)
	} else if ok {
		m.rows = emb.shape[0]
	}
	m.emb = get("module/Embeddings_en", m.rows, embDims)
	if err == nil && m.rows < len(pieces) {
		err = fmt.Errorf("vocab.json: %d pieces, the embedding table has %d rows", len(pieces), m.rows)
	}
	m.inv = get(stk+"Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1", 1, embDims/2)
	m.eps = scalar(stk+"Layer_1/TransformerLayer/FFN/layer_prepostprocess/layer_norm/Cast/x", 0, 1e-3)
	getInt(pre+"ClipToMaxLength/Less/y", MaxTokens)
	getInt(stk+"Layer_1/TransformerLayer/MultiheadAttention/split_heads/split_last_dimension/Reshape/shape/2", heads)
	for l := range m.layers {
		in := embDims << l
		L := fmt.Sprintf("Layer_%d/TransformerLayer/", l)
		y := &m.layers[l]
		y.in, y.hd = in, in/heads
		getInt(stk+L+"MultiheadAttention/Const", int32(in), int32(in), int32(in))
		getInt(stk+fmt.Sprintf("Layer_%d/TransformerLayer/MultiheadAttention/split_heads/split_last_dimension/Reshape/shape/3", l), int32(y.hd))
		want := 1 / math.Sqrt(float64(y.hd))
		y.scale = scalar(stk+L+"MultiheadAttention/mul/y", want*0.999, want*1.001)
		y.ln1s = get(enc+L+"layer_prepostprocess/layer_norm/layer_norm_scale"+cat, in)
		y.ln1b = get(enc+L+"layer_prepostprocess/layer_norm/layer_norm_bias"+cat, in)
		if l == 0 {
			y.resW = transpose(get(enc+L+"dense/kernel"+cat, in, Dims), in, Dims)
			y.resB = get(enc+L+"dense/bias"+cat, Dims)
		}
		y.qkvW = transpose(get(kern+L+"MultiheadAttention/qkv_transform_single/kernel/part_0", 1, 1, in, 3*in), in, 3*in)
		y.qkvB = get(enc+L+"MultiheadAttention/qkv_transform_single/bias"+cat, 3*in)
		y.outW = transpose(get(kern+L+"MultiheadAttention/output_transform_single/kernel/part_0", 1, 1, in, Dims), in, Dims)
		y.outB = get(enc+L+"MultiheadAttention/output_transform_single/bias"+cat, Dims)
		y.ln2s = get(enc+L+"FFN/layer_prepostprocess/layer_norm/layer_norm_scale"+cat, Dims)
		y.ln2b = get(enc+L+"FFN/layer_prepostprocess/layer_norm/layer_norm_bias"+cat, Dims)
		y.ff1W = transpose(get(stk+L+"FFN/conv1/Tensordot/Reshape_1", Dims, ffnDims), Dims, ffnDims)
		y.ff1B = get(enc+L+"FFN/conv1/bias"+cat, ffnDims)
		y.ff2W = transpose(get(stk+L+"FFN/conv2/Tensordot/Reshape_1", ffnDims, Dims), ffnDims, Dims)
		y.ff2B = get(enc+L+"FFN/conv2/bias"+cat, Dims)
	}
	m.hidW = transpose(get("module/Encoder_en/hidden_layers/tanh_layer_0/weights", Dims, Dims), Dims, Dims)
	m.hidB = get("module/Encoder_en/hidden_layers/tanh_layer_0/bias", Dims)
	m.l2eps = scalar("module_apply_default/Encoder_en/hidden_layers/l2_normalize/Maximum/y", 0, 1e-6)
	if err != nil {
		return nil, err
	}
	m.tok = newTokenizer(pieces, scores)
	m.work.New = func() any { return newWorkspace() }
	return m, nil
}

// transpose is the rows × cols matrix a as cols × rows.
func transpose(a []float32, rows, cols int) []float32 {
	if a == nil {
		return nil
	}
	t := make([]float32, len(a))
	for r := 0; r < rows; r++ {
		for c, v := range a[r*cols : (r+1)*cols] {
			t[c*rows+r] = v
		}
	}
	return t
}

// workspace holds one embedding's intermediate values, for up to
// MaxTokens tokens.
type workspace struct {
	x, ln, att, y, tmp []float32 // tokens × Dims
	qkv, h             []float32 // tokens × ffnDims (3 × Dims = ffnDims)
	q, p               []float32
	pool               []float32
	par                int // goroutines a matrix product is split over
}

func newWorkspace() *workspace {
	return &workspace{
		x: make([]float32, MaxTokens*Dims), ln: make([]float32, MaxTokens*Dims),
		att: make([]float32, MaxTokens*Dims), y: make([]float32, MaxTokens*Dims),
		tmp: make([]float32, MaxTokens*Dims),
		qkv: make([]float32, MaxTokens*ffnDims), h: make([]float32, MaxTokens*ffnDims),
		q: make([]float32, Dims), p: make([]float32, MaxTokens), pool: make([]float32, 2*Dims),
	}
}

// Tokenize is the text's token ids as the JS tokenizer gives them (all of
// them: the model reads the first MaxTokens).
func (m *Model) Tokenize(text string) []int { return m.tok.encode(text) }

// Embed is the text's sentence vector: Dims floats of unit length (so a
// dot product is the cosine), as the TF.js model computes it (within
// about 1e-6). A text with no tokens ("") gets the vector of an empty
// sequence (the bias through tanh, normalised), which the JS computes for
// such a text inside a batch and refuses alone. Its matrix products are
// split over GOMAXPROCS goroutines (at most 4).
func (m *Model) Embed(text string) []float32 {
	ws := m.work.Get().(*workspace)
	defer m.work.Put(ws)
	ws.par = min(runtime.GOMAXPROCS(0), 4)
	out := make([]float32, Dims)
	m.embed(ws, m.tok.encode(text), out)
	return out
}

// EmbedMany is Embed of each text, the texts spread over GOMAXPROCS
// goroutines (each text's products on one).
func (m *Model) EmbedMany(texts []string) [][]float32 {
	out := make([][]float32, len(texts))
	flat := make([]float32, len(texts)*Dims)
	for i := range out {
		out[i] = flat[i*Dims : (i+1)*Dims : (i+1)*Dims]
	}
	workers := min(runtime.GOMAXPROCS(0), len(texts))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			ws := m.work.Get().(*workspace)
			defer m.work.Put(ws)
			ws.par = 1
			for {
				i := int(next.Add(1) - 1)
				if i >= len(texts) {
					return
				}
				m.embed(ws, m.tok.encode(texts[i]), out[i])
			}
		})
	}
	wg.Wait()
	return out
}

// embed computes the graph for one sequence of ids into out.
func (m *Model) embed(ws *workspace, ids []int, out []float32) {
	if len(ids) > MaxTokens {
		ids = ids[:MaxTokens]
	}
	n := len(ids)
	// The graph adds the timing signal to the embeddings and that sum to
	// the embeddings again: 2·e + t.
	half := embDims / 2
	x := ws.x[:n*embDims]
	for i, id := range ids {
		e := m.emb[id*embDims : (id+1)*embDims]
		row := x[i*embDims : (i+1)*embDims]
		for k := 0; k < half; k++ {
			a := float32(i) * m.inv[k]
			row[k] = e[k] + (e[k] + float32(math.Sin(float64(a))))
			row[half+k] = e[half+k] + (e[half+k] + float32(math.Cos(float64(a))))
		}
	}
	m.layer(ws, &m.layers[0], n, x, ws.x, nil)
	// The mean over the tokens (at least one, as the graph divides by),
	// then the tanh layer and unit length.
	mean := ws.pool[:Dims]
	clear(mean)
	if n > 0 {
		m.layer(ws, &m.layers[1], n, ws.x, nil, mean)
	}
	h := ws.pool[Dims : 2*Dims]
	matmul(h, mean, 1, Dims, m.hidW, Dims, m.hidB, 0, Dims)
	var ss float32
	for j, v := range h {
		v = float32(math.Tanh(float64(v)))
		h[j] = v
		ss += v * v
	}
	r := float32(1 / math.Sqrt(float64(max(ss, m.l2eps))))
	for j, v := range h {
		out[j] = v * r
	}
}

// layer computes one transformer layer over n tokens: x (n × y.in) to dst
// (n × Dims; it may be x's storage), or with mean set (n > 0), the mean
// of the tokens' outputs to mean: the feed-forward network's last matrix
// is linear, so it multiplies the mean of its inputs once instead of each
// token's (a sixth of the work of a query, the same within float32
// rounding).
func (m *Model) layer(ws *workspace, y *layer, n int, x, dst, mean []float32) {
	in := y.in
	x = x[:n*in]
	ln := ws.ln[:n*in]
	layerNorm(ln, x, in, y.ln1s, y.ln1b, m.eps)
	res := ws.y[:n*Dims]
	if y.resW != nil {
		ws.matmul(res, x, n, in, y.resW, Dims, y.resB)
	} else {
		copy(res, x)
	}
	qkv := ws.qkv[:n*3*in]
	ws.matmul(qkv, ln, n, in, y.qkvW, 3*in, y.qkvB)
	att := ws.att[:n*in]
	m.attention(ws, y, n, qkv, att)
	a := ws.tmp[:n*Dims]
	ws.matmul(a, att, n, in, y.outW, Dims, y.outB)
	for i, v := range a {
		res[i] = v + res[i]
	}
	ln = ws.ln[:n*Dims]
	layerNorm(ln, res, Dims, y.ln2s, y.ln2b, m.eps)
	h := ws.h[:n*ffnDims]
	ws.matmul(h, ln, n, Dims, y.ff1W, ffnDims, y.ff1B)
	for i, v := range h {
		h[i] = max(v, 0)
	}
	if mean != nil {
		hm := ws.qkv[:ffnDims]
		clear(hm)
		for i := 0; i < n; i++ {
			for k, v := range h[i*ffnDims : (i+1)*ffnDims] {
				hm[k] += v
			}
		}
		d := float32(n)
		for k := range hm {
			hm[k] /= d
		}
		matmul(mean, hm, 1, ffnDims, y.ff2W, Dims, y.ff2B, 0, Dims)
		for i := 0; i < n; i++ {
			for k, v := range res[i*Dims : (i+1)*Dims] {
				mean[k] += v / d
			}
		}
		return
	}
	f := ws.tmp[:n*Dims]
	ws.matmul(f, h, n, ffnDims, y.ff2W, Dims, y.ff2B)
	dst = dst[:n*Dims]
	for i, v := range f {
		dst[i] = v + res[i]
	}
}

// attention is multi-head scaled dot-product self-attention over all n
// tokens (one sequence has no padding to mask): qkv holds each token's
// queries, keys and values (each in wide, head h at columns h·hd), out
// each token's heads side by side.
func (m *Model) attention(ws *workspace, y *layer, n int, qkv, out []float32) {
	in, hd := y.in, y.hd
	w := 3 * in
	q := ws.q[:hd]
	p := ws.p[:n]
	for hh := 0; hh < heads; hh++ {
		for i := 0; i < n; i++ {
			for k, v := range qkv[i*w+hh*hd : i*w+hh*hd+hd] {
				q[k] = v * y.scale
			}
			top := float32(math.Inf(-1))
			for j := 0; j < n; j++ {
				kj := qkv[j*w+in+hh*hd : j*w+in+hh*hd+hd]
				p[j] = vek32.Dot(q, kj)
				top = max(top, p[j])
			}
			var sum float32
			for j, v := range p {
				e := float32(math.Exp(float64(v - top)))
				p[j] = e
				sum += e
			}
			o := out[i*in+hh*hd : i*in+hh*hd+hd]
			clear(o)
			for j, pj := range p {
				vj := qkv[j*w+2*in+hh*hd : j*w+2*in+hh*hd+hd]
				blas.Saxpy(hd, pj/sum, vj, 1, o, 1)
			}
		}
	}
}

// matmul sets columns lo to hi of c (n × cols) to a (n × k) times the
// transposed matrix wt (cols × k), plus bias.
func matmul(c, a []float32, n, k int, wt []float32, cols int, bias []float32, lo, hi int) {
	if haveKernel && n >= 3 && k%8 == 0 {
		matmulBlocked(c, a, n, k, wt, cols, bias, lo, hi)
		return
	}
	for j := lo; j < hi; j++ {
		w := wt[j*k : (j+1)*k]
		b := bias[j]
		for i := 0; i < n; i++ {
			c[i*cols+j] = vek32.Dot(a[i*k:(i+1)*k], w) + b
		}
	}
}

// matmulBlocked is matmul in blocks of four rows by three columns, each
// block one dot4x3: a block loads each weight once for four rows, where
// a dot product at a time loads it once a row. A last block short of rows
// or columns repeats the last one: those sums are worked out twice and
// written twice, the same value. (Below three rows a dot product at a
// time is as fast.)
func matmulBlocked(c, a []float32, n, k int, wt []float32, cols int, bias []float32, lo, hi int) {
	if lo >= hi {
		return
	}
	// The kernel reads k floats from each row it is given, unchecked.
	_, _ = a[n*k-1], wt[hi*k-1]
	var out [12]float32
	for j := lo; j < hi; j += 3 {
		js := [3]int{j, min(j+1, hi-1), min(j+2, hi-1)}
		w0, w1, w2 := &wt[js[0]*k], &wt[js[1]*k], &wt[js[2]*k]
		for i := 0; i < n; i += 4 {
			is := [4]int{i, min(i+1, n-1), min(i+2, n-1), min(i+3, n-1)}
			dot4x3(&a[is[0]*k], &a[is[1]*k], &a[is[2]*k], &a[is[3]*k], w0, w1, w2, k, &out)
			for r, ii := range is {
				row := c[ii*cols : (ii+1)*cols]
				for q, jj := range js {
					row[jj] = out[3*r+q] + bias[jj]
				}
			}
		}
	}
}

// minSplit is the smallest product (n·k·cols multiply-adds) whose columns
// are split over goroutines: below it the hand-over costs more than it
// saves.
const minSplit = 1 << 17

// matmul is matmul with its columns split over ws.par goroutines.
func (ws *workspace) matmul(c, a []float32, n, k int, wt []float32, cols int, bias []float32) {
	p := ws.par
	if p <= 1 || n*k*cols < minSplit {
		matmul(c, a, n, k, wt, cols, bias, 0, cols)
		return
	}
	step := (cols + p - 1) / p
	step = (step + 2) / 3 * 3 // whole blocks of matmulBlocked's columns
	var wg sync.WaitGroup
	for lo := step; lo < cols; lo += step {
		wg.Go(func() { matmul(c, a, n, k, wt, cols, bias, lo, min(lo+step, cols)) })
	}
	matmul(c, a, n, k, wt, cols, bias, 0, min(step, cols))
	wg.Wait()
}

// layerNorm normalises each width-wide row of x into dst: (x - mean) ·
// rsqrt(variance + eps) · scale + bias, in the graph's order.
func layerNorm(dst, x []float32, width int, scale, bias []float32, eps float32) {
	d := float32(width)
	for r := 0; r < len(x)/width; r++ {
		row := x[r*width : (r+1)*width]
		var s float32
		for _, v := range row {
			s += v
		}
		mean := s / d
		var vs float32
		for _, v := range row {
			c := v - mean
			vs += c * c
		}
		inv := float32(1 / math.Sqrt(float64(vs/d+eps)))
		o := dst[r*width : (r+1)*width]
		for k, v := range row {
			o[k] = scale[k]*inv*(v-mean) + bias[k]
		}
	}
}
