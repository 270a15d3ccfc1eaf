//go:build !purego

#include "textflag.h"

// func dot4x3(a0, a1, a2, a3, w0, w1, w2 *float32, k int, out *[12]float32)
//
// out[3·r+c] = Σ_i a_r[i]·w_c[i] over k floats (a multiple of 8): four
// rows by three columns in twelve AVX2 accumulators, so that each 8-float
// step loads 7 vectors for 12 fused multiply-adds (a lone dot product
// loads 2 for 1).
TEXT ·dot4x3(SB), NOSPLIT, $0-72
	MOVQ a0+0(FP), R8
	MOVQ a1+8(FP), R9
	MOVQ a2+16(FP), R10
	MOVQ a3+24(FP), R11
	MOVQ w0+32(FP), R12
	MOVQ w1+40(FP), R13
	MOVQ w2+48(FP), R14
	MOVQ k+56(FP), CX
	MOVQ out+64(FP), DI
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	SHLQ $2, CX
	XORQ SI, SI
	CMPQ SI, CX
	JGE  reduce

loop:
	VMOVUPS (R12)(SI*1), Y12
	VMOVUPS (R13)(SI*1), Y13
	VMOVUPS (R14)(SI*1), Y14
	VMOVUPS (R8)(SI*1), Y15
	VFMADD231PS Y12, Y15, Y0
	VFMADD231PS Y13, Y15, Y1
	VFMADD231PS Y14, Y15, Y2
	VMOVUPS (R9)(SI*1), Y15
	VFMADD231PS Y12, Y15, Y3
	VFMADD231PS Y13, Y15, Y4
	VFMADD231PS Y14, Y15, Y5
	VMOVUPS (R10)(SI*1), Y15
	VFMADD231PS Y12, Y15, Y6
	VFMADD231PS Y13, Y15, Y7
	VFMADD231PS Y14, Y15, Y8
	VMOVUPS (R11)(SI*1), Y15
	VFMADD231PS Y12, Y15, Y9
	VFMADD231PS Y13, Y15, Y10
	VFMADD231PS Y14, Y15, Y11
	ADDQ $32, SI
	CMPQ SI, CX
	JLT  loop

reduce:
	// Four accumulators at a time: two horizontal adds within each
	// 128-bit lane, then the two lanes added: four sums in one register.
	VHADDPS Y1, Y0, Y0
	VHADDPS Y3, Y2, Y2
	VHADDPS Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X12
	VADDPS X12, X0, X0
	VMOVUPS X0, (DI)
	VHADDPS Y5, Y4, Y4
	VHADDPS Y7, Y6, Y6
	VHADDPS Y6, Y4, Y4
	VEXTRACTF128 $1, Y4, X12
	VADDPS X12, X4, X4
	VMOVUPS X4, 16(DI)
	VHADDPS Y9, Y8, Y8
	VHADDPS Y11, Y10, Y10
	VHADDPS Y10, Y8, Y8
	VEXTRACTF128 $1, Y8, X12
	VADDPS X12, X8, X8
	VMOVUPS X8, 32(DI)
	VZEROUPPER
	RET
