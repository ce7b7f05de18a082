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

// With AVX-512 (VL) there are 32 vector registers: three rows × two tokens
// of four accumulators fit, and each loaded x and converted w serves three
// or two products instead of one: the AVX2 kernel above needs 1.5 loads per
// FMA, this one 0.83. The operations per (row, token) are still
// dotF16RowsAVX2's. Accumulators (k = 0..3): row a Y16+k (token 0),
// Y20+k (token 1); row b Y24+k, Y28+k; row c Yk, Y4+k.

// F16G3 is one 8-element group: weights of rows a, b, c at woff(R9),
// woff(R10), woff(R10)(R11*1); tokens at xoff(DI), xoff(DI)(DX*1).
#define F16G3(woff, xoff, a0, a1, b0, b1, c0, c1) \
	VCVTPH2PS   woff(R9), Y8; \
	VCVTPH2PS   woff(R10), Y9; \
	VCVTPH2PS   woff(R10)(R11*1), Y10; \
	VMOVUPS     xoff(DI), Y11; \
	VMOVUPS     xoff(DI)(DX*1), Y12; \
	VFMADD231PS Y11, Y8, a0; \
	VFMADD231PS Y12, Y8, a1; \
	VFMADD231PS Y11, Y9, b0; \
	VFMADD231PS Y12, Y9, b1; \
	VFMADD231PS Y11, Y10, c0; \
	VFMADD231PS Y12, Y10, c1

// F16FOLDTO folds a0..a3 as F16FOLD does, through Y13 (VHADDPS has no
// encoding for the upper sixteen registers; a move changes no bits), and
// stores the sum at dst.
#define F16FOLDTO(a0, a1, a2, a3, dst) \
	VADDPS       a1, a0, a0; \
	VADDPS       a3, a2, a2; \
	VADDPS       a2, a0, a0; \
	VMOVAPS      a0, Y13; \
	VEXTRACTF128 $1, Y13, X14; \
	VADDPS       X14, X13, X13; \
	VHADDPS      X13, X13, X13; \
	VHADDPS      X13, X13, X13; \
	VMOVSS       X13, dst

// func gemm2F16x3AVX512(w *uint16, x *float32, n, rows int, out *float32, ostride int)
// As gemm2F16AVX2 for rows a multiple of 3.
TEXT ·gemm2F16x3AVX512(SB), NOSPLIT, $0-48
	MOVQ w+0(FP), SI
	MOVQ n+16(FP), DX
	SHLQ $2, DX                // bytes per token
	MOVQ n+16(FP), R11
	SHLQ $1, R11               // bytes per row
	MOVQ out+32(FP), R13
	MOVQ ostride+40(FP), R12
	SHLQ $2, R12
	MOVQ rows+24(FP), R8

gfe3row:
	CMPQ   R8, $3
	JLT    gfe3end
	MOVQ   x+8(FP), DI
	MOVQ   n+16(FP), CX
	MOVQ   SI, R9
	LEAQ   (SI)(R11*1), R10
	VPXORD Y0, Y0, Y0
	VPXORD Y1, Y1, Y1
	VPXORD Y2, Y2, Y2
	VPXORD Y3, Y3, Y3
	VPXORD Y4, Y4, Y4
	VPXORD Y5, Y5, Y5
	VPXORD Y6, Y6, Y6
	VPXORD Y7, Y7, Y7
	VPXORD Y16, Y16, Y16
	VPXORD Y17, Y17, Y17
	VPXORD Y18, Y18, Y18
	VPXORD Y19, Y19, Y19
	VPXORD Y20, Y20, Y20
	VPXORD Y21, Y21, Y21
	VPXORD Y22, Y22, Y22
	VPXORD Y23, Y23, Y23
	VPXORD Y24, Y24, Y24
	VPXORD Y25, Y25, Y25
	VPXORD Y26, Y26, Y26
	VPXORD Y27, Y27, Y27
	VPXORD Y28, Y28, Y28
	VPXORD Y29, Y29, Y29
	VPXORD Y30, Y30, Y30
	VPXORD Y31, Y31, Y31

gfe3loop32:
	CMPQ CX, $32
	JLT  gfe3loop8
	F16G3(0, 0, Y16, Y20, Y24, Y28, Y0, Y4)
	F16G3(16, 32, Y17, Y21, Y25, Y29, Y1, Y5)
	F16G3(32, 64, Y18, Y22, Y26, Y30, Y2, Y6)
	F16G3(48, 96, Y19, Y23, Y27, Y31, Y3, Y7)
	ADDQ $64, R9
	ADDQ $64, R10
	ADDQ $128, DI
	SUBQ $32, CX
	JMP  gfe3loop32

gfe3loop8:
	CMPQ CX, $8
	JLT  gfe3done
	F16G3(0, 0, Y16, Y20, Y24, Y28, Y0, Y4)
	ADDQ $16, R9
	ADDQ $16, R10
	ADDQ $32, DI
	SUBQ $8, CX
	JMP  gfe3loop8

gfe3done:
	F16FOLDTO(Y16, Y17, Y18, Y19, (R13))
	F16FOLDTO(Y20, Y21, Y22, Y23, (R13)(R12*1))
	F16FOLDTO(Y24, Y25, Y26, Y27, 4(R13))
	F16FOLDTO(Y28, Y29, Y30, Y31, 4(R13)(R12*1))
	F16FOLDTO(Y0, Y1, Y2, Y3, 8(R13))
	F16FOLDTO(Y4, Y5, Y6, Y7, 8(R13)(R12*1))
	ADDQ $12, R13
	LEAQ (SI)(R11*2), SI
	ADDQ R11, SI
	SUBQ $3, R8
	JMP  gfe3row

gfe3end:
	VZEROUPPER
	RET
