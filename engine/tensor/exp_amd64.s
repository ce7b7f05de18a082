#include "textflag.h"

// Vectorised exp for the SwiGLU activation and the attention softmax:
// Cephes' single-precision expf (range reduction by ln 2 in two parts, a
// degree-5 polynomial, then 2^n through the exponent bits). expf in exp.go
// is the same algorithm in Go, for the tails and for CPUs without AVX2.

DATA expc<>+0(SB)/4, $0x42b00000  // 88: inputs above clamp here (e^88 < MaxFloat32)
DATA expc<>+4(SB)/4, $0xc2ae0000  // -87: below it e^x leaves the normal range
DATA expc<>+8(SB)/4, $0x3fb8aa3b  // log2(e)
DATA expc<>+12(SB)/4, $0xbf318000 // -0.693359375, ln 2's high part
DATA expc<>+16(SB)/4, $0x395e8083 // 0.693359375 - ln 2, its low part
DATA expc<>+20(SB)/4, $0x39506967 // p0
DATA expc<>+24(SB)/4, $0x3ab743ce // p1
DATA expc<>+28(SB)/4, $0x3c088908 // p2
DATA expc<>+32(SB)/4, $0x3d2aa9c1 // p3
DATA expc<>+36(SB)/4, $0x3e2aaaaa // p4
DATA expc<>+40(SB)/4, $0x3f000000 // p5 = 0.5
DATA expc<>+44(SB)/4, $0x3f800000 // 1
DATA expc<>+48(SB)/4, $0x0000007f // the exponent bias
GLOBL expc<>(SB), RODATA|NOPTR, $52

// POLY is one Horner step p = p·r + c.
#define POLY(off) \
	VBROADCASTSS expc<>+off(SB), Y12; \
	VFMADD213PS  Y12, Y9, Y11

// EXPY sets out = exp(x) lane-wise. The clamps pass a NaN through (it is
// the second source of VMINPS/VMAXPS, the one they return). x is kept;
// clobbers Y9, Y11..Y14.
#define EXPY(x, out) \
	VBROADCASTSS expc<>+0(SB), Y12; \
	VMINPS       x, Y12, Y9; \
	VBROADCASTSS expc<>+4(SB), Y12; \
	VMAXPS       Y9, Y12, Y9; \
	VBROADCASTSS expc<>+8(SB), Y12; \
	VMULPS       Y12, Y9, Y13; \
	VROUNDPS     $0, Y13, Y13; \
	VBROADCASTSS expc<>+12(SB), Y12; \
	VFMADD231PS  Y12, Y13, Y9; \
	VBROADCASTSS expc<>+16(SB), Y12; \
	VFMADD231PS  Y12, Y13, Y9; \
	VMULPS       Y9, Y9, Y14; \
	VBROADCASTSS expc<>+20(SB), Y11; \
	POLY(24); \
	POLY(28); \
	POLY(32); \
	POLY(36); \
	POLY(40); \
	VFMADD213PS  Y9, Y14, Y11; \
	VBROADCASTSS expc<>+44(SB), Y12; \
	VADDPS       Y12, Y11, Y11; \
	VCVTPS2DQ    Y13, Y13; \
	VPBROADCASTD expc<>+48(SB), Y12; \
	VPADDD       Y12, Y13, Y13; \
	VPSLLD       $23, Y13, Y13; \
	VMULPS       Y13, Y11, out

// func siluMulAVX2(gate, u *float32, n int)
// gate[i] = gate[i]/(1+exp(−gate[i]))·u[i] for n a multiple of 8.
TEXT ·siluMulAVX2(SB), NOSPLIT, $0-24
	MOVQ   gate+0(FP), DI
	MOVQ   u+8(FP), SI
	MOVQ   n+16(FP), CX
	VXORPS Y15, Y15, Y15

silu8:
	CMPQ        CX, $8
	JLT         siludone
	VMOVUPS     (DI), Y0
	VSUBPS      Y0, Y15, Y1
	EXPY(Y1, Y2)
	VBROADCASTSS expc<>+44(SB), Y12
	VADDPS      Y12, Y2, Y2
	VDIVPS      Y2, Y0, Y0
	VMULPS      (SI), Y0, Y0
	VMOVUPS     Y0, (DI)
	ADDQ        $32, DI
	ADDQ        $32, SI
	SUBQ        $8, CX
	JMP         silu8

siludone:
	VZEROUPPER
	RET

// func expShiftAVX2(x *float32, n int, m float32) float32
// x[i] = exp(x[i] − m) for n a multiple of 8; returns Σ x[i] (lane sums,
// then across lanes).
TEXT ·expShiftAVX2(SB), NOSPLIT, $0-28
	MOVQ         x+0(FP), DI
	MOVQ         n+8(FP), CX
	VBROADCASTSS m+16(FP), Y15
	VXORPS       Y10, Y10, Y10

exp8:
	CMPQ    CX, $8
	JLT     expdone
	VMOVUPS (DI), Y0
	VSUBPS  Y15, Y0, Y0
	EXPY(Y0, Y1)
	VMOVUPS Y1, (DI)
	VADDPS  Y1, Y10, Y10
	ADDQ    $32, DI
	SUBQ    $8, CX
	JMP     exp8

expdone:
	VEXTRACTF128 $1, Y10, X1
	VADDPS       X1, X10, X0
	VHADDPS      X0, X0, X0
	VHADDPS      X0, X0, X0
	VZEROUPPER
	MOVSS        X0, ret+24(FP)
	RET

// func scaleMaxAVX2(x *float32, n int, s float32) float32
// x[i] *= s for n a multiple of 8; returns the largest product, or NaN
// when one is NaN (VMAXPS alone would drop it: it returns its second
// operand when either is NaN, so the unordered lanes are collected apart).
TEXT ·scaleMaxAVX2(SB), NOSPLIT, $0-28
	MOVQ         x+0(FP), DI
	MOVQ         n+8(FP), CX
	VBROADCASTSS s+16(FP), Y15
	MOVL         $0xff800000, AX // −Inf
	MOVL         AX, X14
	VBROADCASTSS X14, Y14        // running maxima
	VXORPS       Y13, Y13, Y13   // lanes that saw a NaN

smax8:
	CMPQ    CX, $8
	JLT     smaxdone
	VMULPS  (DI), Y15, Y0
	VMOVUPS Y0, (DI)
	VCMPPS  $3, Y0, Y0, Y1       // unordered: NaN
	VORPS   Y1, Y13, Y13
	VMAXPS  Y14, Y0, Y14
	ADDQ    $32, DI
	SUBQ    $8, CX
	JMP     smax8

smaxdone:
	VEXTRACTF128 $1, Y14, X1
	VMAXPS       X1, X14, X0
	VPERMILPS    $0x4e, X0, X1
	VMAXPS       X1, X0, X0
	VPERMILPS    $0xb1, X0, X1
	VMAXPS       X1, X0, X0
	VPTEST       Y13, Y13
	JEQ          smaxret
	MOVL         $0x7fc00000, AX // NaN
	MOVL         AX, X0

smaxret:
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// func scaleAVX2(x *float32, n int, s float32)
// x[i] *= s for n a multiple of 8.
TEXT ·scaleAVX2(SB), NOSPLIT, $0-20
	MOVQ         x+0(FP), DI
	MOVQ         n+8(FP), CX
	VBROADCASTSS s+16(FP), Y15

scale8:
	CMPQ    CX, $8
	JLT     scaledone
	VMULPS  (DI), Y15, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, DI
	SUBQ    $8, CX
	JMP     scale8

scaledone:
	VZEROUPPER
	RET
