//go:build !purego

package sentence

import "golang.org/x/sys/cpu"

// haveKernel says whether matmul may use dot4x3: it needs AVX2 and FMA.
// A variable so that a test can run the other path too.
var haveKernel = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// dot4x3 sets out[3·r+c] to the dot product of a_r and w_c, each k floats
// long (k a multiple of 8). In kernel_amd64.s.
//
//go:noescape
func dot4x3(a0, a1, a2, a3, w0, w1, w2 *float32, k int, out *[12]float32)
