#include "textflag.h"
#include "ahead_amd64.h"
#include "packz_amd64.h"

// Packed TQ1_0 kernels (layout and arithmetic: packtq.go), sixteen rows per
// ZMM lane, on AVX-512 VNNI: the trits are decoded from the file's own
// bytes, base 3, in the kernel. A byte q holds its trits as
// v₀ = q, vₙ₊₁ = 3vₙ mod 256 (two byte adds), trit n = ⌊3vₙ/256⌋, so
// 3vₙ = 256·tₙ + vₙ₊₁ and, over any run of a plane,
//
//	Σ tₙ·x = (3·Σ vₙ·x − Σ vₙ₊₁·x) / 256
//
// exactly: two VPDPBUSD a plane (vₙ and vₙ₊₁, unsigned bytes, times the
// same activation dword broadcast), one sum A of the first, one B of the
// second; the block's integer sum is p = (3A − B)/256 − Σx, and from there
// the float work is packed TQ2_0's (packtq_amd64.s): convert, one multiply
// by d·dx, one FMA into the block position's accumulator, the eight summed
// as PHSUM8 does (packz_amd64.h). |A|, |B| ≤ 32·255·128 < 2²⁰: every sum is exact in
// int32, and 3A − B is a multiple of 256, so the shift divides exactly.

// TQ1TRIPLE sets v to 3v mod 256 in every byte; t is scratch.
#define TQ1TRIPLE(v, t) \
	VPADDB v, v, t; \
	VPADDB t, v, v

// TQ1TRIPLE8 and TQ1TRIPLE4 triple the vectors Z8…Z15 (qs[0:32]) or
// Z8…Z11 (qs[32:48]); Z21…Z23 are scratch.
#define TQ1TRIPLE8 \
	TQ1TRIPLE4; \
	TQ1TRIPLE(Z12, Z22); \
	TQ1TRIPLE(Z13, Z23); \
	TQ1TRIPLE(Z14, Z21); \
	TQ1TRIPLE(Z15, Z22)

#define TQ1TRIPLE4 \
	TQ1TRIPLE(Z8, Z21); \
	TQ1TRIPLE(Z9, Z22); \
	TQ1TRIPLE(Z10, Z23); \
	TQ1TRIPLE(Z11, Z21)

// TQ1PLANE8 is one trit plane of the eight vectors Z8…Z15 (qs[0:32]) for
// one token whose activation dwords start at xoff(xb): A into a0/a1, the
// vectors tripled, B into b0/b1 (two chains each, even and odd vectors).
#define TQ1PLANE8(xb, xoff, a0, a1, b0, b1) \
	VPDPBUSD.BCST xoff(xb), Z8, a0; \
	VPDPBUSD.BCST xoff+4(xb), Z9, a1; \
	VPDPBUSD.BCST xoff+8(xb), Z10, a0; \
	VPDPBUSD.BCST xoff+12(xb), Z11, a1; \
	VPDPBUSD.BCST xoff+16(xb), Z12, a0; \
	VPDPBUSD.BCST xoff+20(xb), Z13, a1; \
	VPDPBUSD.BCST xoff+24(xb), Z14, a0; \
	VPDPBUSD.BCST xoff+28(xb), Z15, a1; \
	TQ1TRIPLE8; \
	VPDPBUSD.BCST xoff(xb), Z8, b0; \
	VPDPBUSD.BCST xoff+4(xb), Z9, b1; \
	VPDPBUSD.BCST xoff+8(xb), Z10, b0; \
	VPDPBUSD.BCST xoff+12(xb), Z11, b1; \
	VPDPBUSD.BCST xoff+16(xb), Z12, b0; \
	VPDPBUSD.BCST xoff+20(xb), Z13, b1; \
	VPDPBUSD.BCST xoff+24(xb), Z14, b0; \
	VPDPBUSD.BCST xoff+28(xb), Z15, b1

// TQ1PLANE4 is one trit plane of the four vectors Z8…Z11 (qs[32:48]).
#define TQ1PLANE4(xb, xoff, a0, a1, b0, b1) \
	VPDPBUSD.BCST xoff(xb), Z8, a0; \
	VPDPBUSD.BCST xoff+4(xb), Z9, a1; \
	VPDPBUSD.BCST xoff+8(xb), Z10, a0; \
	VPDPBUSD.BCST xoff+12(xb), Z11, a1; \
	TQ1TRIPLE4; \
	VPDPBUSD.BCST xoff(xb), Z8, b0; \
	VPDPBUSD.BCST xoff+4(xb), Z9, b1; \
	VPDPBUSD.BCST xoff+8(xb), Z10, b0; \
	VPDPBUSD.BCST xoff+12(xb), Z11, b1

// TQ1PLANEH is one trit plane of qh's vector Z12 (four weights a row).
#define TQ1PLANEH(xb, xoff, a, b) \
	VPDPBUSD.BCST xoff(xb), Z12, a; \
	TQ1TRIPLE(Z12, Z23); \
	VPDPBUSD.BCST xoff(xb), Z12, b

// TQ1SUM sets a0 to the block's integer sum (3A − B)/256 − Σx from the
// chains a0, a1 (A) and b0, b1 (B) and the token's m8 at maddr (−Σx =
// m8/8); t is scratch.
#define TQ1SUM(a0, a1, b0, b1, maddr, t) \
	VPADDD       a1, a0, a0; \
	VPADDD       b1, b0, b0; \
	VPADDD       a0, a0, t; \
	VPADDD       t, a0, a0; \
	VPSUBD       b0, a0, a0; \
	VPSRAD       $8, a0, a0; \
	VPBROADCASTD maddr, t; \
	VPSRAD       $3, t, t; \
	VPADDD       t, a0, a0

#define TQ1ZERO4(z0, z1, z2, z3) \
	VPXORD z0, z0, z0; \
	VPXORD z1, z1, z1; \
	VPXORD z2, z2, z2; \
	VPXORD z3, z3, z3

// TQ1END1 ends block j of the decode kernel into acc (d in Z16).
#define TQ1END1(j, acc) \
	TQ1SUM(Z17, Z18, Z19, Z20, 4*j(R9), Z21); \
	VCVTDQ2PS   Z17, Z17; \
	VMULPS.BCST 4*j(R10), Z16, Z21; \
	VFMADD231PS Z17, Z21, acc

// TQ1LOAD8 and TQ1LOAD5 load a group's qs[0:32] vectors into Z8…Z15, and
// its qs[32:48] vectors and qh's into Z8…Z12.
#define TQ1LOAD8 \
	VMOVDQU64 32(SI), Z8; \
	VMOVDQU64 96(SI), Z9; \
	VMOVDQU64 160(SI), Z10; \
	VMOVDQU64 224(SI), Z11; \
	VMOVDQU64 288(SI), Z12; \
	VMOVDQU64 352(SI), Z13; \
	VMOVDQU64 416(SI), Z14; \
	VMOVDQU64 480(SI), Z15

#define TQ1LOAD5 \
	VMOVDQU64 544(SI), Z8; \
	VMOVDQU64 608(SI), Z9; \
	VMOVDQU64 672(SI), Z10; \
	VMOVDQU64 736(SI), Z11; \
	VMOVDQU64 800(SI), Z12

// func rowsTQ1x16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32)
//
// out[r] = row r · x for groups·16 packed TQ1_0 rows of nsb super-blocks.
// SI weights, DI codes, R9 m8, R10 block scales (each at the current
// super-block), CX super-blocks left, R8 groups left, R13 out; Z0…Z7 the
// block accumulators, Z16 the rows' d, Z17/Z18 A's chains and Z19/Z20
// B's.
TEXT ·rowsTQ1x16VNNI(SB), NOSPLIT, $0-56
	MOVQ p+0(FP), SI
	MOVQ out+48(FP), R13
	MOVQ groups+40(FP), R8

tq1rgroup:
	TESTQ R8, R8
	JEQ   tq1rend
	MOVQ  xq+8(FP), DI
	MOVQ  m8+16(FP), R9
	MOVQ  xd+24(FP), R10
	MOVQ  nsb+32(FP), CX
	PZERO8(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)

tq1rloop:
	VCVTPH2PS (SI), Z16
	PFL8(0)
	PFL4(512)
	PFL2(768)
	TQ1LOAD8
	TQ1ZERO4(Z17, Z18, Z19, Z20)
	TQ1PLANE8(DI, 0, Z17, Z18, Z19, Z20)
	TQ1END1(0, Z0)
	TQ1ZERO4(Z17, Z18, Z19, Z20)
	TQ1PLANE8(DI, 32, Z17, Z18, Z19, Z20)
	TQ1END1(1, Z1)
	TQ1ZERO4(Z17, Z18, Z19, Z20)
	TQ1PLANE8(DI, 64, Z17, Z18, Z19, Z20)
	TQ1END1(2, Z2)
	TQ1ZERO4(Z17, Z18, Z19, Z20)
	TQ1PLANE8(DI, 96, Z17, Z18, Z19, Z20)
	TQ1END1(3, Z3)
	TQ1ZERO4(Z17, Z18, Z19, Z20)
	TQ1PLANE8(DI, 128, Z17, Z18, Z19, Z20)
	TQ1END1(4, Z4)
	TQ1LOAD5
	TQ1ZERO4(Z17, Z18, Z19, Z20)
	TQ1PLANE4(DI, 160, Z17, Z18, Z19, Z20)
	TQ1PLANE4(DI, 176, Z17, Z18, Z19, Z20)
	TQ1END1(5, Z5)
	TQ1ZERO4(Z17, Z18, Z19, Z20)
	TQ1PLANE4(DI, 192, Z17, Z18, Z19, Z20)
	TQ1PLANE4(DI, 208, Z17, Z18, Z19, Z20)
	TQ1END1(6, Z6)
	TQ1ZERO4(Z17, Z18, Z19, Z20)
	TQ1PLANE4(DI, 224, Z17, Z18, Z19, Z20)
	TQ1PLANEH(DI, 240, Z17, Z19)
	TQ1PLANEH(DI, 244, Z18, Z20)
	TQ1PLANEH(DI, 248, Z17, Z19)
	TQ1PLANEH(DI, 252, Z18, Z20)
	TQ1END1(7, Z7)
	ADDQ $864, SI
	ADDQ $256, DI
	ADDQ $32, R9
	ADDQ $32, R10
	DECQ CX
	JNZ  tq1rloop

	PHSUM8(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	VMOVUPS Z0, (R13)
	ADDQ    $64, R13
	DECQ    R8
	JMP     tq1rgroup

tq1rend:
	VZEROUPPER
	RET

// Four tokens: the codes of token t at DI, R11, R12, R14; m8 and block
// scales DX bytes apart (BX = 3·DX). Token t keeps one A chain, Z(17+t),
// and one B chain, Z(24+t): the four tokens are the four chains. The block
// accumulators (token t, block j) live in the frame at 512t + 64j.

// TQ1P8X4 is one plane of Z8…Z15 for the four tokens: A first, the vectors
// tripled, then B.
#define TQ1P8X4(xoff) \
	TQ1A8(DI, xoff, Z17); \
	TQ1A8(R11, xoff, Z18); \
	TQ1A8(R12, xoff, Z19); \
	TQ1A8(R14, xoff, Z20); \
	TQ1TRIPLE8; \
	TQ1A8(DI, xoff, Z24); \
	TQ1A8(R11, xoff, Z25); \
	TQ1A8(R12, xoff, Z26); \
	TQ1A8(R14, xoff, Z27)

#define TQ1A8(xb, xoff, a) \
	VPDPBUSD.BCST xoff(xb), Z8, a; \
	VPDPBUSD.BCST xoff+4(xb), Z9, a; \
	VPDPBUSD.BCST xoff+8(xb), Z10, a; \
	VPDPBUSD.BCST xoff+12(xb), Z11, a; \
	VPDPBUSD.BCST xoff+16(xb), Z12, a; \
	VPDPBUSD.BCST xoff+20(xb), Z13, a; \
	VPDPBUSD.BCST xoff+24(xb), Z14, a; \
	VPDPBUSD.BCST xoff+28(xb), Z15, a

#define TQ1A4(xb, xoff, a) \
	VPDPBUSD.BCST xoff(xb), Z8, a; \
	VPDPBUSD.BCST xoff+4(xb), Z9, a; \
	VPDPBUSD.BCST xoff+8(xb), Z10, a; \
	VPDPBUSD.BCST xoff+12(xb), Z11, a

#define TQ1P4X4(xoff) \
	TQ1A4(DI, xoff, Z17); \
	TQ1A4(R11, xoff, Z18); \
	TQ1A4(R12, xoff, Z19); \
	TQ1A4(R14, xoff, Z20); \
	TQ1TRIPLE4; \
	TQ1A4(DI, xoff, Z24); \
	TQ1A4(R11, xoff, Z25); \
	TQ1A4(R12, xoff, Z26); \
	TQ1A4(R14, xoff, Z27)

#define TQ1PHX4(xoff) \
	VPDPBUSD.BCST xoff(DI), Z12, Z17; \
	VPDPBUSD.BCST xoff(R11), Z12, Z18; \
	VPDPBUSD.BCST xoff(R12), Z12, Z19; \
	VPDPBUSD.BCST xoff(R14), Z12, Z20; \
	TQ1TRIPLE(Z12, Z23); \
	VPDPBUSD.BCST xoff(DI), Z12, Z24; \
	VPDPBUSD.BCST xoff(R11), Z12, Z25; \
	VPDPBUSD.BCST xoff(R12), Z12, Z26; \
	VPDPBUSD.BCST xoff(R14), Z12, Z27

// TQ1FIN is one token's end of a block: its integer sum from A (a) and B
// (b), then convert, times d·dx, and FMA into its accumulator in the frame
// at acc(SP).
#define TQ1FIN(a, b, maddr, daddr, acc) \
	VPADDD       a, a, Z21; \
	VPADDD       Z21, a, a; \
	VPSUBD       b, a, a; \
	VPSRAD       $8, a, a; \
	VPBROADCASTD maddr, Z21; \
	VPSRAD       $3, Z21, Z21; \
	VPADDD       Z21, a, a; \
	VCVTDQ2PS    a, a; \
	VMULPS.BCST  daddr, Z16, Z22; \
	VMOVUPS      acc(SP), Z23; \
	VFMADD231PS  a, Z22, Z23; \
	VMOVUPS      Z23, acc(SP)

// TQ1END4 ends block j for the four tokens.
#define TQ1END4(j) \
	TQ1FIN(Z17, Z24, 4*j(R9), 4*j(R10), 64*j); \
	TQ1FIN(Z18, Z25, 4*j(R9)(DX*1), 4*j(R10)(DX*1), 512+64*j); \
	TQ1FIN(Z19, Z26, 4*j(R9)(DX*2), 4*j(R10)(DX*2), 1024+64*j); \
	TQ1FIN(Z20, Z27, 4*j(R9)(BX*1), 4*j(R10)(BX*1), 1536+64*j)

#define TQ1ZERO8X4 \
	TQ1ZERO4(Z17, Z18, Z19, Z20); \
	TQ1ZERO4(Z24, Z25, Z26, Z27)

// func gemm4TQ1x16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32, ostride int)
//
// Not NOSPLIT: its 2 KiB frame is more than a nosplit function may take.
// out[t·ostride + r] = row r · token t for groups·16 packed TQ1_0 rows and
// four tokens whose codes are xq + t·256·nsb, m8 m8 + t·8·nsb and block
// scales xd + t·8·nsb: per token, bit for bit rowsTQ1x16VNNI (the same
// integer sums, the same float operations in the same order; the
// accumulators wait in the frame between blocks). The trits are decoded
// once for the four tokens.
TEXT ·gemm4TQ1x16VNNI(SB), 0, $2048-64
	MOVQ p+0(FP), SI
	MOVQ nsb+32(FP), DX
	SHLQ $5, DX                // 8 blocks · 4 bytes per super-block
	LEAQ (DX)(DX*2), BX
	MOVQ out+48(FP), R13
	MOVQ groups+40(FP), R8

tq1ggroup:
	TESTQ R8, R8
	JEQ   tq1gend
	PG4START
	VPXORD Z0, Z0, Z0
	MOVQ  $0, AX

tq1gzero:
	VMOVUPS Z0, (SP)(AX*1)
	ADDQ    $64, AX
	CMPQ    AX, $2048
	JLT     tq1gzero

tq1gloop:
	VCVTPH2PS (SI), Z16
	TQ1LOAD8
	TQ1ZERO8X4
	TQ1P8X4(0)
	TQ1END4(0)
	TQ1ZERO8X4
	TQ1P8X4(32)
	TQ1END4(1)
	TQ1ZERO8X4
	TQ1P8X4(64)
	TQ1END4(2)
	TQ1ZERO8X4
	TQ1P8X4(96)
	TQ1END4(3)
	TQ1ZERO8X4
	TQ1P8X4(128)
	TQ1END4(4)
	TQ1LOAD5
	TQ1ZERO8X4
	TQ1P4X4(160)
	TQ1P4X4(176)
	TQ1END4(5)
	TQ1ZERO8X4
	TQ1P4X4(192)
	TQ1P4X4(208)
	TQ1END4(6)
	TQ1ZERO8X4
	TQ1P4X4(224)
	TQ1PHX4(240)
	TQ1PHX4(244)
	TQ1PHX4(248)
	TQ1PHX4(252)
	TQ1END4(7)
	ADDQ $864, SI
	ADDQ $256, DI
	ADDQ $256, R11
	ADDQ $256, R12
	ADDQ $256, R14
	ADDQ $32, R9
	ADDQ $32, R10
	DECQ CX
	JNZ  tq1gloop

	MOVQ ostride+56(FP), AX
	SHLQ $2, AX
	PF4HSUM8(0, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	DECQ R8
	JMP  tq1ggroup

tq1gend:
	VZEROUPPER
	RET
