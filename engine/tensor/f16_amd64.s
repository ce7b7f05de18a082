#include "textflag.h"

// F16 weights against float32 activations for prefill: one pass over a
// weight row serves two tokens, so each 8-element group is converted from
// half precision once per two tokens. Per token, the arithmetic is
// dotF16RowsAVX2's (dot_amd64.s) in the same order: groups of 32 spread over
// four accumulators, a tail of 8s into the first, then (a0+a1)+(a2+a3) and
// the same horizontal sum, so a batch's results are bit for bit the tokens'
// alone.

// F16FOLD folds accumulators a0..a3 as dotF16RowsAVX2 does, into the low
// lane of x0 (the low half of a0). Clobbers xt.
#define F16FOLD(a0, a1, a2, a3, x0, xt) \
	VADDPS       a1, a0, a0; \
	VADDPS       a3, a2, a2; \
	VADDPS       a2, a0, a0; \
	VEXTRACTF128 $1, a0, xt; \
	VADDPS       xt, x0, x0; \
	VHADDPS      x0, x0, x0; \
	VHADDPS      x0, x0, x0

// func gemm2F16AVX2(w *uint16, x *float32, n, rows int, out *float32, ostride int)
// For rows consecutive rows of n elements (n a multiple of 8) and two tokens
// x and x+n: out[t·ostride + r] = row r · token t. Token 0 accumulates in
// Y0..Y3, token 1 in Y4..Y7.
TEXT ·gemm2F16AVX2(SB), NOSPLIT, $0-48
	MOVQ w+0(FP), SI
	MOVQ n+16(FP), DX
	SHLQ $2, DX                // bytes per token
	MOVQ out+32(FP), R13
	MOVQ ostride+40(FP), R12
	SHLQ $2, R12
	MOVQ rows+24(FP), R8

gf16row:
	TESTQ  R8, R8
	JEQ    gf16end
	MOVQ   x+8(FP), DI
	MOVQ   n+16(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7

gf16loop32:
	CMPQ        CX, $32
	JLT         gf16loop8
	VCVTPH2PS   0(SI), Y8
	VCVTPH2PS   16(SI), Y9
	VCVTPH2PS   32(SI), Y10
	VCVTPH2PS   48(SI), Y11
	VFMADD231PS (DI), Y8, Y0
	VFMADD231PS 32(DI), Y9, Y1
	VFMADD231PS 64(DI), Y10, Y2
	VFMADD231PS 96(DI), Y11, Y3
	VFMADD231PS (DI)(DX*1), Y8, Y4
	VFMADD231PS 32(DI)(DX*1), Y9, Y5
	VFMADD231PS 64(DI)(DX*1), Y10, Y6
	VFMADD231PS 96(DI)(DX*1), Y11, Y7
	ADDQ        $64, SI
	ADDQ        $128, DI
	SUBQ        $32, CX
	JMP         gf16loop32

gf16loop8:
	CMPQ        CX, $8
	JLT         gf16done
	VCVTPH2PS   0(SI), Y8
	VFMADD231PS (DI), Y8, Y0
	VFMADD231PS (DI)(DX*1), Y8, Y4
	ADDQ        $16, SI
	ADDQ        $32, DI
	SUBQ        $8, CX
	JMP         gf16loop8

gf16done:
	F16FOLD(Y0, Y1, Y2, Y3, X0, X1)
	F16FOLD(Y4, Y5, Y6, Y7, X4, X5)
	VMOVSS X0, (R13)
	VMOVSS X4, (R13)(R12*1)
	ADDQ   $4, R13
	DECQ   R8
	JMP    gf16row

gf16end:
	VZEROUPPER
	RET
