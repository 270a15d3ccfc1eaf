package sentence

import (
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/viterin/vek/vek32"
)

// query8 and query30 are queries of 8 and 30 words as an agent writes them.
const (
	query8  = "let the customer know by SMS about parcels"
	query30 = "find the operation that lists every open pull request in a repository which was created by a given user during the last week and has at least one failing check or a pending review"
)

// benchEmbed reports, besides the time, the process's CPU time per embed
// (cpu-ms/op: with -cpu 1 the embed's own, whatever else the machine runs).
func benchEmbed(b *testing.B, text string) {
	m := model(b)
	n := len(m.Tokenize(text))
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		m.Embed(text)
	}
	cpu := cpuTime() - cpu0
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/token")
	b.ReportMetric(float64(n), "tokens")
	b.ReportMetric(cpu.Seconds()*1e3/float64(b.N), "cpu-ms/op")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func BenchmarkEmbed8Words(b *testing.B)  { benchEmbed(b, query8) }
func BenchmarkEmbed30Words(b *testing.B) { benchEmbed(b, query30) }

// BenchmarkEmbedMany: 64 tool texts at a time, on every CPU.
func BenchmarkEmbedMany(b *testing.B) {
	m := model(b)
	var batch []string
	tokens := 0
	for i := range 64 {
		s := strings.Fields(query30)
		s = s[i%7 : 10+i%20]
		batch = append(batch, strings.Join(s, " "))
		tokens += len(m.Tokenize(batch[i]))
	}
	for b.Loop() {
		m.EmbedMany(batch)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(tokens), "ns/token")
}

// BenchmarkLoad: reading the npm package's files; heap-MB is what a
// loaded model keeps.
func BenchmarkLoad(b *testing.B) {
	dir := modelDir(b)
	b.ReportAllocs()
	var m *Model
	for b.Loop() {
		var err error
		if m, err = Load(dir); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	var before, after runtime.MemStats
	m = nil
	runtime.GC()
	runtime.ReadMemStats(&before)
	m, _ = Load(dir)
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(m)
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "heap-MB")
}

// BenchmarkMatmul: one token row block (11 tokens, a query) through the
// 512 → 1536 feed-forward matrix: with matmul's kernel (dot4x3, four rows
// by three columns), with vek's dot product one output at a time (matmul
// on a CPU without AVX2 and FMA), with vek's own matrix product (axpy
// order) and with the fastest pure Go loop tried (four tokens' rows
// updated from each weight row): why the kernel is matmul's own.
func BenchmarkMatmul(b *testing.B) {
	const n, k, cols = 11, Dims, ffnDims
	a := make([]float32, n*k)
	w := make([]float32, k*cols)
	for i := range a {
		a[i] = float32(i%7) - 3
	}
	for i := range w {
		w[i] = float32(i%5) - 2
	}
	wt := transpose(w, k, cols)
	bias := make([]float32, cols)
	c := make([]float32, n*cols)
	flops := func(b *testing.B) {
		b.ReportMetric(2*n*k*cols*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOPS")
	}
	if haveKernel {
		b.Run("kernel", func(b *testing.B) {
			for b.Loop() {
				matmul(c, a, n, k, wt, cols, bias, 0, cols)
			}
			flops(b)
		})
	}
	b.Run("dot", func(b *testing.B) {
		defer func(h bool) { haveKernel = h }(haveKernel)
		haveKernel = false
		for b.Loop() {
			matmul(c, a, n, k, wt, cols, bias, 0, cols)
		}
		flops(b)
	})
	b.Run("vek-matmul", func(b *testing.B) {
		for b.Loop() {
			vek32.MatMul_Into(c, a, w, k)
		}
		flops(b)
	})
	b.Run("go", func(b *testing.B) {
		for b.Loop() {
			clear(c)
			i := 0
			for ; i+4 <= n; i += 4 {
				c0, c1, c2, c3 := c[i*cols:(i+1)*cols], c[(i+1)*cols:(i+2)*cols], c[(i+2)*cols:(i+3)*cols], c[(i+3)*cols:(i+4)*cols]
				for kk := 0; kk < k; kk++ {
					y0, y1, y2, y3 := a[i*k+kk], a[(i+1)*k+kk], a[(i+2)*k+kk], a[(i+3)*k+kk]
					for j, x := range w[kk*cols : (kk+1)*cols] {
						c0[j] += y0 * x
						c1[j] += y1 * x
						c2[j] += y2 * x
						c3[j] += y3 * x
					}
				}
			}
			for ; i < n; i++ {
				ci := c[i*cols : (i+1)*cols]
				for kk := 0; kk < k; kk++ {
					y := a[i*k+kk]
					for j, x := range w[kk*cols : (kk+1)*cols] {
						ci[j] += y * x
					}
				}
			}
		}
		flops(b)
	})
}
