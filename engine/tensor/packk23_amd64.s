#include "textflag.h"
#include "ahead_amd64.h"

// Packed Q3_K and Q2_K kernels (layouts and arithmetic: packk23.go),
// sixteen rows per ZMM lane, on AVX-512 VNNI. Q3_K: per super-block, Z29
// the rows' d; per block j, Z16 the scales of its two halves as the two
// words of each row's dword and its codes 0…7 in Z8…Z15 (code k meets
// activation dword k), once for every token; per token, Z24 and Z25 the
// halves' corrections −4·Σx, each half's exact integer sum by VPDPBUSD,
// the two sums put in one dword's words and scaled and added by VPMADDWD
// (p_b), and the one FMA of the contract. Z31 = 0x03 bytes, Z30 = 0x04
// bytes, added under an opmask (K1…K4 in turn) to the codes whose high
// bit is set; Z17 = 0x0000FFFF dwords, the low words' select.
//
// The integer sums stay far inside int32 (|p_b| < 2^24, packk23.go): they
// are exact in any order, and p_b converts to float32 exactly.

#define K3CONSTS \
	MOVL         $0x03030303, AX; \
	VPBROADCASTD AX, Z31; \
	MOVL         $0x04040404, AX; \
	VPBROADCASTD AX, Z30; \
	MOVL         $0xffff, AX; \
	VPBROADCASTD AX, Z17

// K3LO puts the two bits at the bottom of each byte of the vector at
// off(base) in zc, plus 4 in the bytes that the mask at moff(base) marks;
// K3SH those sh bits up. A word shift leaks the next byte's low bits into
// a byte's top ones; the mask of 0x03 drops them.
#define K3LO(off, moff, base, zc, k) \
	KMOVQ  moff(base), k; \
	VPANDD off(base), Z31, zc; \
	VPADDB Z30, zc, k, zc

#define K3SH(sh, off, moff, base, zc, k) \
	KMOVQ  moff(base), k; \
	VPSRLW $sh, off(base), zc; \
	VPANDD Z31, zc, zc; \
	VPADDB Z30, zc, k, zc

// K3PREP prepares block j of the super-block at base: Z16 its halves'
// scales, Z8…Z15 its codes.
#define K3PREP(j, base) \
	VPMOVSXBW 64+32*j(base), Z16; \
	K3LO(320+192*j, 448+192*j, base, Z8, K1); \
	K3SH(2, 320+192*j, 456+192*j, base, Z9, K2); \
	K3SH(4, 320+192*j, 464+192*j, base, Z10, K3); \
	K3SH(6, 320+192*j, 472+192*j, base, Z11, K4); \
	K3LO(384+192*j, 480+192*j, base, Z12, K1); \
	K3SH(2, 384+192*j, 488+192*j, base, Z13, K2); \
	K3SH(4, 384+192*j, 496+192*j, base, Z14, K3); \
	K3SH(6, 384+192*j, 504+192*j, base, Z15, K4)

// K3CORR sets Z24 and Z25 to one token's −4·Σx over the first and the
// second half of a block, from the block's eight m4 corrections (−32·Σx
// per four codes) at maddr: each half's four summed, divided by 8 (exact:
// the sum is a multiple of 32), and broadcast. Z26, Z27 are scratch.
#define K3CORR(maddr) K23CORR(maddr, 3)

// K23CORR is K3CORR with the sums shifted right by sh: 3 for Q3_K's −4·Σx,
// 5 for Q2_K's −Σx.
#define K23CORR(maddr, sh) \
	VMOVDQU32  maddr, Y26; \
	VPSHUFD    $0x4e, Y26, Y27; \
	VPADDD     Y27, Y26, Y26; \
	VPSHUFD    $0xb1, Y26, Y27; \
	VPADDD     Y27, Y26, Y26; \
	VPSRAD     $sh, Y26, Y26; \
	VSHUFI32X4 $0x00, Z26, Z26, Z24; \
	VSHUFI32X4 $0x55, Z26, Z26, Z25

// K3TOK adds one token's share of the prepared block to acc: its codes at
// xoff(xb), its block scale at daddr, the rows' d in dv, its corrections
// in Z24, Z25; i0, i1 and sc are scratch. VPTERNLOGD $0xe2 keeps the bits
// of i0 where Z17 has them and takes i1's elsewhere: the first half's sum
// in each low word, the second's (shifted up) in the high one.
#define K3TOK(xb, xoff, daddr, dv, i0, i1, sc, acc) \
	VMOVDQA64     Z24, i0; \
	VPDPBUSD.BCST xoff(xb), Z8, i0; \
	VPDPBUSD.BCST xoff+4(xb), Z9, i0; \
	VPDPBUSD.BCST xoff+8(xb), Z10, i0; \
	VPDPBUSD.BCST xoff+12(xb), Z11, i0; \
	VMOVDQA64     Z25, i1; \
	VPDPBUSD.BCST xoff+16(xb), Z12, i1; \
	VPDPBUSD.BCST xoff+20(xb), Z13, i1; \
	VPDPBUSD.BCST xoff+24(xb), Z14, i1; \
	VPDPBUSD.BCST xoff+28(xb), Z15, i1; \
	VPSLLD        $16, i1, i1; \
	VPTERNLOGD    $0xe2, i1, Z17, i0; \
	VPMADDWD      Z16, i0, i0; \
	VCVTDQ2PS     i0, i0; \
	VMULPS.BCST   daddr, dv, sc; \
	VFMADD231PS   i0, sc, acc

// K3BLK2 is block j for one token of two groups at once: the group at SI
// (d in Z29, sums in a) and the next at R11 (Z28, b); codes at DI, m4 at
// R9, block scales at R10. It prefetches the block's three lines of each
// group.
#define K3BLK2(j, a, b) \
	PFL2(320+192*j); \
	PFL(448+192*j); \
	PFLB2(320+192*j); \
	PFLB(448+192*j); \
	K3CORR(32*j(R9)); \
	K3PREP(j, SI); \
	K3TOK(DI, 32*j, 4*j(R10), Z29, Z18, Z19, Z20, a); \
	K3PREP(j, R11); \
	K3TOK(DI, 32*j, 4*j(R10), Z28, Z21, Z22, Z23, b)

// K3BLK1 is block j for one token of the group at SI (sums in a).
#define K3BLK1(j, a) \
	PFL2(320+192*j); \
	PFL(448+192*j); \
	K3CORR(32*j(R9)); \
	K3PREP(j, SI); \
	K3TOK(DI, 32*j, 4*j(R10), Z29, Z18, Z19, Z20, a)

// func rowsQ3Kx16VNNI(p *byte, xq *int8, xd *float32, m4 *int32, nsb, groups int, out *float32)
//
// out[r] = row r · x for groups·16 packed rows of nsb super-blocks.
// SI weights, DI codes, R9 m4, R10 block scales (each at the current
// super-block), CX super-blocks left, R8 groups left, R13 out; Z0/Z1 the
// even/odd-block sums. Groups go two at a time (R11 the second's weights,
// BX the bytes of a group, Z2/Z3 its sums), then a last odd one alone.
TEXT ·rowsQ3Kx16VNNI(SB), NOSPLIT, $0-56
	MOVQ  p+0(FP), SI
	MOVQ  out+48(FP), R13
	MOVQ  groups+40(FP), R8
	MOVQ  nsb+32(FP), BX
	IMULQ $1856, BX
	K3CONSTS

k3rpair:
	CMPQ   R8, $2
	JLT    k3rgroup
	LEAQ   (SI)(BX*1), R11
	MOVQ   xq+8(FP), DI
	MOVQ   xd+16(FP), R10
	MOVQ   m4+24(FP), R9
	MOVQ   nsb+32(FP), CX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3

k3rploop:
	VMOVUPS (SI), Z29
	VMOVUPS (R11), Z28
	PFL4(0)
	PFL(256)
	PFLB4(0)
	PFLB(256)
	K3BLK2(0, Z0, Z2)
	K3BLK2(1, Z1, Z3)
	K3BLK2(2, Z0, Z2)
	K3BLK2(3, Z1, Z3)
	K3BLK2(4, Z0, Z2)
	K3BLK2(5, Z1, Z3)
	K3BLK2(6, Z0, Z2)
	K3BLK2(7, Z1, Z3)
	ADDQ $1856, SI
	ADDQ $1856, R11
	ADDQ $256, DI
	ADDQ $256, R9
	ADDQ $32, R10
	DECQ CX
	JNZ  k3rploop

	VADDPS  Z1, Z0, Z0
	VADDPS  Z3, Z2, Z2
	VMOVUPS Z0, (R13)
	VMOVUPS Z2, 64(R13)
	ADDQ    $128, R13
	MOVQ    R11, SI
	SUBQ    $2, R8
	JMP     k3rpair

k3rgroup:
	TESTQ  R8, R8
	JEQ    k3rend
	MOVQ   xq+8(FP), DI
	MOVQ   xd+16(FP), R10
	MOVQ   m4+24(FP), R9
	MOVQ   nsb+32(FP), CX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1

k3rloop:
	VMOVUPS (SI), Z29
	PFL4(0)
	PFL(256)
	K3BLK1(0, Z0)
	K3BLK1(1, Z1)
	K3BLK1(2, Z0)
	K3BLK1(3, Z1)
	K3BLK1(4, Z0)
	K3BLK1(5, Z1)
	K3BLK1(6, Z0)
	K3BLK1(7, Z1)
	ADDQ $1856, SI
	ADDQ $256, DI
	ADDQ $256, R9
	ADDQ $32, R10
	DECQ CX
	JNZ  k3rloop

	VADDPS  Z1, Z0, Z0
	VMOVUPS Z0, (R13)
	ADDQ    $64, R13
	DECQ    R8
	JMP     k3rgroup

k3rend:
	VZEROUPPER
	RET

// K3BLK4 is block j for four tokens: codes at DI, R11, R12, R14, each
// token's m4 AX bytes after its codes (the two have the same stride);
// block scales from R10, the tokens DX bytes apart (BX = 3·DX); token t's
// sums in Z(2t) (a = 0, even blocks) or Z(2t+1) (a = 1, odd ones).
#define K3BLK4(j, a0, a1, a2, a3) \
	K3PREP(j, SI); \
	K3CORR(32*j(DI)(AX*1)); \
	K3TOK(DI, 32*j, 4*j(R10), Z29, Z18, Z19, Z20, a0); \
	K3CORR(32*j(R11)(AX*1)); \
	K3TOK(R11, 32*j, 4*j(R10)(DX*1), Z29, Z21, Z22, Z23, a1); \
	K3CORR(32*j(R12)(AX*1)); \
	K3TOK(R12, 32*j, 4*j(R10)(DX*2), Z29, Z18, Z19, Z20, a2); \
	K3CORR(32*j(R14)(AX*1)); \
	K3TOK(R14, 32*j, 4*j(R10)(BX*1), Z29, Z21, Z22, Z23, a3)

// func gemm4Q3Kx16VNNI(p *byte, xq *int8, xd *float32, m4 *int32, nsb, groups int, out *float32, ostride int)
//
// out[t·ostride + r] = row r · token t for groups·16 packed rows and four
// tokens whose codes are xq + t·256·nsb, block scales xd + t·8·nsb and m4
// corrections m4 + t·64·nsb (as many bytes per token as the codes). SI
// weights, DI, R11, R12, R14 the four tokens' codes, AX = m4 − xq, R10
// token 0's block scales (DX bytes per token, BX three tokens); CX
// super-blocks left, R8 groups left, R13 out.
TEXT ·gemm4Q3Kx16VNNI(SB), NOSPLIT, $0-64
	K3CONSTS
	MOVQ p+0(FP), SI
	MOVQ nsb+32(FP), DX
	SHLQ $5, DX                // 8 blocks · 4 bytes per super-block
	LEAQ (DX)(DX*2), BX
	MOVQ out+48(FP), R13
	MOVQ groups+40(FP), R8

k3ggroup:
	TESTQ  R8, R8
	JEQ    k3gend
	MOVQ   xq+8(FP), DI
	MOVQ   nsb+32(FP), CX
	SHLQ   $8, CX              // codes per token
	LEAQ   (DI)(CX*1), R11
	LEAQ   (R11)(CX*1), R12
	LEAQ   (R12)(CX*1), R14
	MOVQ   m4+24(FP), AX
	SUBQ   DI, AX
	MOVQ   xd+16(FP), R10
	MOVQ   nsb+32(FP), CX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7

k3gloop:
	VMOVUPS (SI), Z29
	K3BLK4(0, Z0, Z2, Z4, Z6)
	K3BLK4(1, Z1, Z3, Z5, Z7)
	K3BLK4(2, Z0, Z2, Z4, Z6)
	K3BLK4(3, Z1, Z3, Z5, Z7)
	K3BLK4(4, Z0, Z2, Z4, Z6)
	K3BLK4(5, Z1, Z3, Z5, Z7)
	K3BLK4(6, Z0, Z2, Z4, Z6)
	K3BLK4(7, Z1, Z3, Z5, Z7)
	ADDQ $1856, SI
	ADDQ $256, DI
	ADDQ $256, R11
	ADDQ $256, R12
	ADDQ $256, R14
	ADDQ $32, R10
	DECQ CX
	JNZ  k3gloop

	VADDPS  Z1, Z0, Z0
	VADDPS  Z3, Z2, Z2
	VADDPS  Z5, Z4, Z4
	VADDPS  Z7, Z6, Z6
	MOVQ    ostride+56(FP), AX
	SHLQ    $2, AX
	VMOVUPS Z0, (R13)
	VMOVUPS Z2, (R13)(AX*1)
	VMOVUPS Z4, (R13)(AX*2)
	LEAQ    (AX)(AX*2), AX
	VMOVUPS Z6, (R13)(AX*1)
	ADDQ    $64, R13
	DECQ    R8
	JMP     k3ggroup

k3gend:
	VZEROUPPER
	RET

// ---- Q2_K ----
//
// Per super-block: the rows' d and dmin widened from f16; per block j:
// Z16 its halves' scales and m their mins, as the two words of each row's
// dword, and its codes 0…3 in Z8…Z15, once for every token; per token Z24
// the halves' −Σx as the two words of a dword, each half's exact integer
// sum by VPDPBUSD, p_b and n_b by VPMADDWD as for Q3_K, and the two FMAs
// of the contract. Z31 = 0x03 bytes, Z30 = 0x000F words, Z17 = 0x0000FFFF
// dwords.

#define K2CONSTS \
	MOVL         $0x03030303, AX; \
	VPBROADCASTD AX, Z31; \
	MOVL         $0x000f000f, AX; \
	VPBROADCASTD AX, Z30; \
	MOVL         $0xffff, AX; \
	VPBROADCASTD AX, Z17

// K2CORR sets Z24 to one token's −Σx over the first half of a block in
// each low word and over the second in each high one (|Σx| ≤ 16·127).
#define K2CORR(maddr) \
	K23CORR(maddr, 5); \
	VPSLLD     $16, Z25, Z25; \
	VPTERNLOGD $0xe2, Z25, Z17, Z24

// K2CODES unpacks the code vector at off(base) into its four codes.
#define K2CODES(off, base, z0, z1, z2, z3) \
	VPANDD off(base), Z31, z0; \
	VPSRLW $2, off(base), z1; \
	VPANDD Z31, z1, z1; \
	VPSRLW $4, off(base), z2; \
	VPANDD Z31, z2, z2; \
	VPSRLW $6, off(base), z3; \
	VPANDD Z31, z3, z3

// K2PREP prepares block j of the super-block at base: Z16 its halves'
// scales, m their mins, Z8…Z15 its codes.
#define K2PREP(j, base, m) \
	VPMOVZXBW 64+32*j(base), Z16; \
	VPSRLW    $4, Z16, m; \
	VPANDD    Z30, Z16, Z16; \
	K2CODES(320+128*j, base, Z8, Z9, Z10, Z11); \
	K2CODES(384+128*j, base, Z12, Z13, Z14, Z15)

// K2TOK adds one token's share of the prepared block to acc: its codes at
// xoff(xb), its block scale at daddr, the rows' d and dmin in dv and mv,
// the mins in m and the token's −Σx in Z24; i0, i1 and sc are scratch.
#define K2TOK(xb, xoff, daddr, dv, mv, m, i0, i1, sc, acc) \
	VPXORD        i0, i0, i0; \
	VPDPBUSD.BCST xoff(xb), Z8, i0; \
	VPDPBUSD.BCST xoff+4(xb), Z9, i0; \
	VPDPBUSD.BCST xoff+8(xb), Z10, i0; \
	VPDPBUSD.BCST xoff+12(xb), Z11, i0; \
	VPXORD        i1, i1, i1; \
	VPDPBUSD.BCST xoff+16(xb), Z12, i1; \
	VPDPBUSD.BCST xoff+20(xb), Z13, i1; \
	VPDPBUSD.BCST xoff+24(xb), Z14, i1; \
	VPDPBUSD.BCST xoff+28(xb), Z15, i1; \
	VPSLLD        $16, i1, i1; \
	VPTERNLOGD    $0xe2, i1, Z17, i0; \
	VPMADDWD      Z16, i0, i0; \
	VPMADDWD      Z24, m, i1; \
	VCVTDQ2PS     i0, i0; \
	VCVTDQ2PS     i1, i1; \
	VMULPS.BCST   daddr, dv, sc; \
	VFMADD231PS   i0, sc, acc; \
	VMULPS.BCST   daddr, mv, sc; \
	VFMADD231PS   i1, sc, acc

// K2BLK2 is block j for one token of two groups at once: the group at SI
// (d, dmin in Z29, Z28; sums in a) and the next at R11 (Z7, Z6; b); codes
// at DI, m4 at R9, block scales at R10; Z4 the mins.
#define K2BLK2(j, a, b) \
	PFL2(320+128*j); \
	PFLB2(320+128*j); \
	K2CORR(32*j(R9)); \
	K2PREP(j, SI, Z4); \
	K2TOK(DI, 32*j, 4*j(R10), Z29, Z28, Z4, Z18, Z19, Z20, a); \
	K2PREP(j, R11, Z4); \
	K2TOK(DI, 32*j, 4*j(R10), Z7, Z6, Z4, Z21, Z22, Z23, b)

// K2BLK1 is block j for one token of the group at SI (sums in a).
#define K2BLK1(j, a) \
	PFL2(320+128*j); \
	K2CORR(32*j(R9)); \
	K2PREP(j, SI, Z4); \
	K2TOK(DI, 32*j, 4*j(R10), Z29, Z28, Z4, Z18, Z19, Z20, a)

// func rowsQ2Kx16VNNI(p *byte, xq *int8, xd *float32, m4 *int32, nsb, groups int, out *float32)
//
// out[r] = row r · x for groups·16 packed rows of nsb super-blocks;
// registers as rowsQ3Kx16VNNI's.
TEXT ·rowsQ2Kx16VNNI(SB), NOSPLIT, $0-56
	MOVQ  p+0(FP), SI
	MOVQ  out+48(FP), R13
	MOVQ  groups+40(FP), R8
	MOVQ  nsb+32(FP), BX
	IMULQ $1344, BX
	K2CONSTS

k2rpair:
	CMPQ   R8, $2
	JLT    k2rgroup
	LEAQ   (SI)(BX*1), R11
	MOVQ   xq+8(FP), DI
	MOVQ   xd+16(FP), R10
	MOVQ   m4+24(FP), R9
	MOVQ   nsb+32(FP), CX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3

k2rploop:
	VCVTPH2PS (SI), Z29
	VCVTPH2PS 32(SI), Z28
	VCVTPH2PS (R11), Z7
	VCVTPH2PS 32(R11), Z6
	PFL4(0)
	PFL(256)
	PFLB4(0)
	PFLB(256)
	K2BLK2(0, Z0, Z2)
	K2BLK2(1, Z1, Z3)
	K2BLK2(2, Z0, Z2)
	K2BLK2(3, Z1, Z3)
	K2BLK2(4, Z0, Z2)
	K2BLK2(5, Z1, Z3)
	K2BLK2(6, Z0, Z2)
	K2BLK2(7, Z1, Z3)
	ADDQ $1344, SI
	ADDQ $1344, R11
	ADDQ $256, DI
	ADDQ $256, R9
	ADDQ $32, R10
	DECQ CX
	JNZ  k2rploop

	VADDPS  Z1, Z0, Z0
	VADDPS  Z3, Z2, Z2
	VMOVUPS Z0, (R13)
	VMOVUPS Z2, 64(R13)
	ADDQ    $128, R13
	MOVQ    R11, SI
	SUBQ    $2, R8
	JMP     k2rpair

k2rgroup:
	TESTQ  R8, R8
	JEQ    k2rend
	MOVQ   xq+8(FP), DI
	MOVQ   xd+16(FP), R10
	MOVQ   m4+24(FP), R9
	MOVQ   nsb+32(FP), CX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1

k2rloop:
	VCVTPH2PS (SI), Z29
	VCVTPH2PS 32(SI), Z28
	PFL4(0)
	PFL(256)
	K2BLK1(0, Z0)
	K2BLK1(1, Z1)
	K2BLK1(2, Z0)
	K2BLK1(3, Z1)
	K2BLK1(4, Z0)
	K2BLK1(5, Z1)
	K2BLK1(6, Z0)
	K2BLK1(7, Z1)
	ADDQ $1344, SI
	ADDQ $256, DI
	ADDQ $256, R9
	ADDQ $32, R10
	DECQ CX
	JNZ  k2rloop

	VADDPS  Z1, Z0, Z0
	VMOVUPS Z0, (R13)
	ADDQ    $64, R13
	DECQ    R8
	JMP     k2rgroup

k2rend:
	VZEROUPPER
	RET

// K2BLK4 is block j for four tokens, as K3BLK4: codes at DI, R11, R12,
// R14, each token's m4 AX bytes after its codes, block scales from R10
// (DX bytes per token, BX three tokens); the mins in Z21.
#define K2BLK4(j, a0, a1, a2, a3) \
	K2PREP(j, SI, Z21); \
	K2CORR(32*j(DI)(AX*1)); \
	K2TOK(DI, 32*j, 4*j(R10), Z29, Z28, Z21, Z18, Z19, Z20, a0); \
	K2CORR(32*j(R11)(AX*1)); \
	K2TOK(R11, 32*j, 4*j(R10)(DX*1), Z29, Z28, Z21, Z18, Z19, Z20, a1); \
	K2CORR(32*j(R12)(AX*1)); \
	K2TOK(R12, 32*j, 4*j(R10)(DX*2), Z29, Z28, Z21, Z18, Z19, Z20, a2); \
	K2CORR(32*j(R14)(AX*1)); \
	K2TOK(R14, 32*j, 4*j(R10)(BX*1), Z29, Z28, Z21, Z18, Z19, Z20, a3)

// func gemm4Q2Kx16VNNI(p *byte, xq *int8, xd *float32, m4 *int32, nsb, groups int, out *float32, ostride int)
//
// out[t·ostride + r] = row r · token t for groups·16 packed rows and four
// tokens; arguments and registers as gemm4Q3Kx16VNNI's.
TEXT ·gemm4Q2Kx16VNNI(SB), NOSPLIT, $0-64
	K2CONSTS
	MOVQ p+0(FP), SI
	MOVQ nsb+32(FP), DX
	SHLQ $5, DX                // 8 blocks · 4 bytes per super-block
	LEAQ (DX)(DX*2), BX
	MOVQ out+48(FP), R13
	MOVQ groups+40(FP), R8

k2ggroup:
	TESTQ  R8, R8
	JEQ    k2gend
	MOVQ   xq+8(FP), DI
	MOVQ   nsb+32(FP), CX
	SHLQ   $8, CX              // codes per token
	LEAQ   (DI)(CX*1), R11
	LEAQ   (R11)(CX*1), R12
	LEAQ   (R12)(CX*1), R14
	MOVQ   m4+24(FP), AX
	SUBQ   DI, AX
	MOVQ   xd+16(FP), R10
	MOVQ   nsb+32(FP), CX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7

k2gloop:
	VCVTPH2PS (SI), Z29
	VCVTPH2PS 32(SI), Z28
	K2BLK4(0, Z0, Z2, Z4, Z6)
	K2BLK4(1, Z1, Z3, Z5, Z7)
	K2BLK4(2, Z0, Z2, Z4, Z6)
	K2BLK4(3, Z1, Z3, Z5, Z7)
	K2BLK4(4, Z0, Z2, Z4, Z6)
	K2BLK4(5, Z1, Z3, Z5, Z7)
	K2BLK4(6, Z0, Z2, Z4, Z6)
	K2BLK4(7, Z1, Z3, Z5, Z7)
	ADDQ $1344, SI
	ADDQ $256, DI
	ADDQ $256, R11
	ADDQ $256, R12
	ADDQ $256, R14
	ADDQ $32, R10
	DECQ CX
	JNZ  k2gloop

	VADDPS  Z1, Z0, Z0
	VADDPS  Z3, Z2, Z2
	VADDPS  Z5, Z4, Z4
	VADDPS  Z7, Z6, Z6
	MOVQ    ostride+56(FP), AX
	SHLQ    $2, AX
	VMOVUPS Z0, (R13)
	VMOVUPS Z2, (R13)(AX*1)
	VMOVUPS Z4, (R13)(AX*2)
	LEAQ    (AX)(AX*2), AX
	VMOVUPS Z6, (R13)(AX*1)
	ADDQ    $64, R13
	DECQ    R8
	JMP     k2ggroup

k2gend:
	VZEROUPPER
	RET
