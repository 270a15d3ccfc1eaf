//go:build !amd64 || purego

package sentence

// haveKernel is false where there is no assembly kernel: matmul takes one
// dot product at a time.
var haveKernel = false

func dot4x3(a0, a1, a2, a3, w0, w1, w2 *float32, k int, out *[12]float32) {
	panic("sentence: dot4x3 without its kernel")
}
