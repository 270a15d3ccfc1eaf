package sentence

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestMatmulKernelMatchesFloat64 holds both of matmul's paths (the
// blocked kernel where the CPU has it, a dot product at a time) to a
// float64 product, for row and column counts that leave every kind of
// short last block, at the encoder's input widths.
func TestMatmulKernelMatchesFloat64(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	paths := []bool{false}
	if haveKernel {
		paths = append(paths, true)
	}
	defer func(h bool) { haveKernel = h }(haveKernel)
	for _, kernel := range paths {
		haveKernel = kernel
		for _, k := range []int{8, 256, 512, ffnDims} {
			for _, n := range []int{1, 2, 3, 4, 5, 7, 11, 13} {
				for _, cols := range []int{1, 2, 3, 4, 5, 512} {
					a := randoms(r, n*k)
					wt := randoms(r, cols*k)
					bias := randoms(r, cols)
					c := make([]float32, n*cols)
					for lo := 0; lo < cols; lo += 7 { // split as the workers do
						matmul(c, a, n, k, wt, cols, bias, lo, min(lo+7, cols))
					}
					for i := range n {
						for j := range cols {
							want, mag := float64(bias[j]), math.Abs(float64(bias[j]))
							for q := range k {
								p := float64(a[i*k+q]) * float64(wt[j*k+q])
								want += p
								mag += math.Abs(p)
							}
							if d := math.Abs(float64(c[i*cols+j]) - want); d > 1e-6*mag {
								t.Fatalf("kernel %v, n %d k %d cols %d: c[%d,%d] = %v, want %v", kernel, n, k, cols, i, j, c[i*cols+j], want)
							}
						}
					}
				}
			}
		}
	}
}

func randoms(r *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(r.NormFloat64())
	}
	return s
}
