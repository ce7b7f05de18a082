#include "textflag.h"

// AVX2 + FMA + F16C kernels over a compact KV cache's rows (kvcache.go).
// The weighted sums follow weightedSumAVX2 (wsum_amd64.s): 64 columns'
// running sums stay in registers over every key, added in key order.

// func f32ToF16AVX2(dst *uint16, src *float32, n int)
// dst[i] = binary16(src[i]), rounded to nearest even; n a multiple of 8.
TEXT ·f32ToF16AVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX

h8:
	CMPQ      CX, $8
	JLT       hdone
	VMOVUPS   (SI), Y0
	VCVTPS2PH $0, Y0, X1
	VMOVDQU   X1, (DI)
	ADDQ      $32, SI
	ADDQ      $16, DI
	SUBQ      $8, CX
	JMP       h8

hdone:
	VZEROUPPER
	RET

// func weightedSumF16AVX2(out *float32, v *uint16, w *float32, n, keys int)
// out[c] = Σ_j w[j]·float(v[j·n + c]) for c < n (a multiple of 8): per
// column the same FMA chain as weightedSumAVX2 on the widened values.
TEXT ·weightedSumF16AVX2(SB), NOSPLIT, $0-40
	MOVQ out+0(FP), DI
	MOVQ v+8(FP), R8
	MOVQ n+24(FP), DX
	SHLQ $1, DX                // bytes per key row
	MOVQ n+24(FP), BX          // columns left

wh64:
	CMPQ   BX, $64
	JLT    wh8
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	MOVQ   R8, SI
	MOVQ   w+16(FP), R9
	MOVQ   keys+32(FP), CX

wh64key:
	TESTQ        CX, CX
	JEQ          wh64store
	VBROADCASTSS (R9), Y15
	VCVTPH2PS    (SI), Y8
	VCVTPH2PS    16(SI), Y9
	VCVTPH2PS    32(SI), Y10
	VCVTPH2PS    48(SI), Y11
	VCVTPH2PS    64(SI), Y12
	VCVTPH2PS    80(SI), Y13
	VCVTPH2PS    96(SI), Y14
	VFMADD231PS  Y8, Y15, Y0
	VFMADD231PS  Y9, Y15, Y1
	VFMADD231PS  Y10, Y15, Y2
	VFMADD231PS  Y11, Y15, Y3
	VFMADD231PS  Y12, Y15, Y4
	VFMADD231PS  Y13, Y15, Y5
	VFMADD231PS  Y14, Y15, Y6
	VCVTPH2PS    112(SI), Y8
	VFMADD231PS  Y8, Y15, Y7
	ADDQ         DX, SI
	ADDQ         $4, R9
	DECQ         CX
	JMP          wh64key

wh64store:
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	VMOVUPS Y4, 128(DI)
	VMOVUPS Y5, 160(DI)
	VMOVUPS Y6, 192(DI)
	VMOVUPS Y7, 224(DI)
	ADDQ    $256, DI
	ADDQ    $128, R8
	SUBQ    $64, BX
	JMP     wh64

wh8:
	CMPQ   BX, $8
	JLT    whdone
	VXORPS Y0, Y0, Y0
	MOVQ   R8, SI
	MOVQ   w+16(FP), R9
	MOVQ   keys+32(FP), CX

wh8key:
	TESTQ        CX, CX
	JEQ          wh8store
	VBROADCASTSS (R9), Y15
	VCVTPH2PS    (SI), Y8
	VFMADD231PS  Y8, Y15, Y0
	ADDQ         DX, SI
	ADDQ         $4, R9
	DECQ         CX
	JMP          wh8key

wh8store:
	VMOVUPS Y0, (DI)
	ADDQ    $32, DI
	ADDQ    $16, R8
	SUBQ    $8, BX
	JMP     wh8

whdone:
	VZEROUPPER
	RET

// Q8SCALE loads the f16 scale at off(SI) into every lane of y (x its low
// half): the half broadcast, then widened.
#define Q8SCALE(off, x, y) \
	VPBROADCASTW off(SI), x; \
	VCVTPH2PS    x, y

// Q8WIDEN widens the 32 int8 codes at off(SI) to floats in a, b, c, d.
#define Q8WIDEN(off, a, b, c, d) \
	VPMOVSXBD off(SI), a; \
	VPMOVSXBD off+8(SI), b; \
	VPMOVSXBD off+16(SI), c; \
	VPMOVSXBD off+24(SI), d; \
	VCVTDQ2PS a, a; \
	VCVTDQ2PS b, b; \
	VCVTDQ2PS c, c; \
	VCVTDQ2PS d, d

// func dotQ8_0F32RowsAVX2(w *byte, x *float32, nb, rows int, out *float32)
// For rows consecutive rows of nb Q8_0 blocks: out[r] = Σ_b d_b·(q_b·x_b),
// x in float32 (not quantised).
TEXT ·dotQ8_0F32RowsAVX2(SB), NOSPLIT, $0-40
	MOVQ w+0(FP), SI
	MOVQ rows+24(FP), R8
	MOVQ out+32(FP), R13

q8frow:
	TESTQ  R8, R8
	JEQ    q8fend
	MOVQ   x+8(FP), DI
	MOVQ   nb+16(FP), CX
	VXORPS Y0, Y0, Y0

q8fblk:
	TESTQ       CX, CX
	JEQ         q8fdone
	Q8SCALE(0, X8, Y8)
	Q8WIDEN(2, Y4, Y5, Y6, Y7)
	VMULPS      (DI), Y4, Y4
	VMULPS      64(DI), Y6, Y6
	VFMADD231PS 32(DI), Y5, Y4
	VFMADD231PS 96(DI), Y7, Y6
	VADDPS      Y6, Y4, Y4
	VFMADD231PS Y4, Y8, Y0
	ADDQ        $34, SI
	ADDQ        $128, DI
	DECQ        CX
	JMP         q8fblk

q8fdone:
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VHADDPS      X0, X0, X0
	VHADDPS      X0, X0, X0
	VMOVSS       X0, (R13)
	ADDQ         $4, R13
	DECQ         R8
	JMP          q8frow

q8fend:
	VZEROUPPER
	RET

// func weightedSumQ8_0AVX2(out *float32, v *byte, w *float32, nb, keys int)
// out[c] = Σ_j (w[j]·d_jb)·q_j[c] over keys rows of nb Q8_0 blocks, for
// the nb·32 columns c (b = c/32), two blocks (64 columns) at a time.
TEXT ·weightedSumQ8_0AVX2(SB), NOSPLIT, $0-40
	MOVQ  out+0(FP), DI
	MOVQ  v+8(FP), R8
	MOVQ  nb+24(FP), DX
	IMULQ $34, DX              // bytes per key row
	MOVQ  nb+24(FP), BX        // blocks left

wq2:
	CMPQ   BX, $2
	JLT    wq1
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	MOVQ   R8, SI
	MOVQ   w+16(FP), R9
	MOVQ   keys+32(FP), CX

wq2key:
	TESTQ        CX, CX
	JEQ          wq2store
	VBROADCASTSS (R9), Y15
	VPBROADCASTW (SI), X12
	VCVTPH2PS    X12, Y12
	VMULPS       Y15, Y12, Y12
	VPBROADCASTW 34(SI), X13
	VCVTPH2PS    X13, Y13
	VMULPS       Y15, Y13, Y13
	Q8WIDEN(2, Y8, Y9, Y10, Y11)
	VFMADD231PS  Y8, Y12, Y0
	VFMADD231PS  Y9, Y12, Y1
	VFMADD231PS  Y10, Y12, Y2
	VFMADD231PS  Y11, Y12, Y3
	Q8WIDEN(36, Y8, Y9, Y10, Y11)
	VFMADD231PS  Y8, Y13, Y4
	VFMADD231PS  Y9, Y13, Y5
	VFMADD231PS  Y10, Y13, Y6
	VFMADD231PS  Y11, Y13, Y7
	ADDQ         DX, SI
	ADDQ         $4, R9
	DECQ         CX
	JMP          wq2key

wq2store:
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	VMOVUPS Y4, 128(DI)
	VMOVUPS Y5, 160(DI)
	VMOVUPS Y6, 192(DI)
	VMOVUPS Y7, 224(DI)
	ADDQ    $256, DI
	ADDQ    $68, R8
	SUBQ    $2, BX
	JMP     wq2

wq1:
	CMPQ   BX, $1
	JLT    wqdone
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	MOVQ   R8, SI
	MOVQ   w+16(FP), R9
	MOVQ   keys+32(FP), CX

wq1key:
	TESTQ        CX, CX
	JEQ          wq1store
	VBROADCASTSS (R9), Y15
	VPBROADCASTW (SI), X12
	VCVTPH2PS    X12, Y12
	VMULPS       Y15, Y12, Y12
	Q8WIDEN(2, Y8, Y9, Y10, Y11)
	VFMADD231PS  Y8, Y12, Y0
	VFMADD231PS  Y9, Y12, Y1
	VFMADD231PS  Y10, Y12, Y2
	VFMADD231PS  Y11, Y12, Y3
	ADDQ         DX, SI
	ADDQ         $4, R9
	DECQ         CX
	JMP          wq1key

wq1store:
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	ADDQ    $128, DI
	ADDQ    $34, R8
	SUBQ    $1, BX
	JMP     wq1

wqdone:
	VZEROUPPER
	RET

// FOLD4 folds the eight-lane sums of four rows, a b c d, into their four
// totals in the low half of a (x its 128-bit name), and stores them at
// (R13). Clobbers b, c and X1.
#define FOLD4(a, b, c, d, x) \
	VHADDPS      b, a, a; \
	VHADDPS      d, c, c; \
	VHADDPS      c, a, a; \
	VEXTRACTF128 $1, a, X1; \
	VADDPS       X1, x, x; \
	VMOVUPS      x, (R13)

// func dotF16Rows4AVX2(w *uint16, x *float32, n, rows int, out *float32)
// rows (a multiple of 4) consecutive f16 rows of n values (a multiple of
// 8) times x, four rows at a time: each group of 8 of x is loaded once for
// the four, and the four sums are folded together, where a row alone
// spends as long on its fold as on its 64 products.
TEXT ·dotF16Rows4AVX2(SB), NOSPLIT, $0-40
	MOVQ w+0(FP), SI
	MOVQ out+32(FP), R13
	MOVQ n+16(FP), R10
	SHLQ $1, R10               // bytes per row
	LEAQ (R10)(R10*2), R11     // three rows
	MOVQ rows+24(FP), R8

f4row:
	CMPQ   R8, $4
	JLT    f4end
	MOVQ   x+8(FP), DI
	MOVQ   n+16(FP), CX
	MOVQ   SI, DX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7

f4loop16:
	CMPQ        CX, $16
	JLT         f4loop8
	VMOVUPS     (DI), Y14
	VMOVUPS     32(DI), Y15
	VCVTPH2PS   (DX), Y8
	VCVTPH2PS   16(DX), Y9
	VCVTPH2PS   (DX)(R10*1), Y10
	VCVTPH2PS   16(DX)(R10*1), Y11
	VFMADD231PS Y14, Y8, Y0
	VFMADD231PS Y15, Y9, Y4
	VFMADD231PS Y14, Y10, Y1
	VFMADD231PS Y15, Y11, Y5
	VCVTPH2PS   (DX)(R10*2), Y8
	VCVTPH2PS   16(DX)(R10*2), Y9
	VCVTPH2PS   (DX)(R11*1), Y10
	VCVTPH2PS   16(DX)(R11*1), Y11
	VFMADD231PS Y14, Y8, Y2
	VFMADD231PS Y15, Y9, Y6
	VFMADD231PS Y14, Y10, Y3
	VFMADD231PS Y15, Y11, Y7
	ADDQ        $32, DX
	ADDQ        $64, DI
	SUBQ        $16, CX
	JMP         f4loop16

f4loop8:
	CMPQ        CX, $8
	JLT         f4done
	VMOVUPS     (DI), Y14
	VCVTPH2PS   (DX), Y8
	VCVTPH2PS   (DX)(R10*1), Y9
	VCVTPH2PS   (DX)(R10*2), Y10
	VCVTPH2PS   (DX)(R11*1), Y11
	VFMADD231PS Y14, Y8, Y0
	VFMADD231PS Y14, Y9, Y1
	VFMADD231PS Y14, Y10, Y2
	VFMADD231PS Y14, Y11, Y3
	ADDQ        $16, DX
	ADDQ        $32, DI
	SUBQ        $8, CX
	JMP         f4loop8

f4done:
	VADDPS Y4, Y0, Y0
	VADDPS Y5, Y1, Y1
	VADDPS Y6, Y2, Y2
	VADDPS Y7, Y3, Y3
	FOLD4(Y0, Y1, Y2, Y3, X0)
	ADDQ   $16, R13
	LEAQ   (SI)(R10*4), SI
	SUBQ   $4, R8
	JMP    f4row

f4end:
	VZEROUPPER
	RET

// Q8DOT4 adds one row's Q8_0 block — its f16 scale at d, its codes at q0
// to q3, 8 each — times x's block (Y12..Y15) into acc. Clobbers Y4..Y8.
#define Q8DOT4(d, q0, q1, q2, q3, acc) \
	VPBROADCASTW d, X8; \
	VCVTPH2PS    X8, Y8; \
	VPMOVSXBD    q0, Y4; \
	VPMOVSXBD    q1, Y5; \
	VPMOVSXBD    q2, Y6; \
	VPMOVSXBD    q3, Y7; \
	VCVTDQ2PS    Y4, Y4; \
	VCVTDQ2PS    Y5, Y5; \
	VCVTDQ2PS    Y6, Y6; \
	VCVTDQ2PS    Y7, Y7; \
	VMULPS       Y12, Y4, Y4; \
	VMULPS       Y14, Y6, Y6; \
	VFMADD231PS  Y13, Y5, Y4; \
	VFMADD231PS  Y15, Y7, Y6; \
	VADDPS       Y6, Y4, Y4; \
	VFMADD231PS  Y4, Y8, acc

// func dotQ8_0F32Rows4AVX2(w *byte, x *float32, nb, rows int, out *float32)
// rows (a multiple of 4) consecutive rows of nb Q8_0 blocks times x (not
// quantised), four rows at a time: x's block is loaded once for the four,
// and the four sums are folded together.
TEXT ·dotQ8_0F32Rows4AVX2(SB), NOSPLIT, $0-40
	MOVQ  w+0(FP), SI
	MOVQ  out+32(FP), R13
	MOVQ  nb+16(FP), R10
	IMULQ $34, R10             // bytes per row
	LEAQ  (R10)(R10*2), R11    // three rows
	MOVQ  rows+24(FP), R8

q4row:
	CMPQ   R8, $4
	JLT    q4end
	MOVQ   x+8(FP), DI
	MOVQ   nb+16(FP), CX
	MOVQ   SI, DX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3

q4blk:
	TESTQ   CX, CX
	JEQ     q4done
	VMOVUPS (DI), Y12
	VMOVUPS 32(DI), Y13
	VMOVUPS 64(DI), Y14
	VMOVUPS 96(DI), Y15
	Q8DOT4((DX), 2(DX), 10(DX), 18(DX), 26(DX), Y0)
	Q8DOT4((DX)(R10*1), 2(DX)(R10*1), 10(DX)(R10*1), 18(DX)(R10*1), 26(DX)(R10*1), Y1)
	Q8DOT4((DX)(R10*2), 2(DX)(R10*2), 10(DX)(R10*2), 18(DX)(R10*2), 26(DX)(R10*2), Y2)
	Q8DOT4((DX)(R11*1), 2(DX)(R11*1), 10(DX)(R11*1), 18(DX)(R11*1), 26(DX)(R11*1), Y3)
	ADDQ    $34, DX
	ADDQ    $128, DI
	DECQ    CX
	JMP     q4blk

q4done:
	FOLD4(Y0, Y1, Y2, Y3, X0)
	ADDQ $16, R13
	LEAQ (SI)(R10*4), SI
	SUBQ $4, R8
	JMP  q4row

q4end:
	VZEROUPPER
	RET
