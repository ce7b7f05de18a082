#include "textflag.h"
#include "ahead_amd64.h"

// Packed IQ4_NL (and MXFP4, packed into its layout), Q5_0 and Q5_1 kernels
// (layouts and arithmetic: packlegacy.go, packmxfp4.go), sixteen rows per ZMM lane, on AVX-512 VNNI. Per block:
// Z16 the rows' f16 scales widened (Q5_1: Z17 their offsets m), the codes
// unpacked into Z8…Z15 (V0 low/high … V3 low/high) once for every token,
// then per token an exact integer sum by VPDPBUSD (unsigned codes or
// levels times one signed activation dword broadcast to every lane; low
// nibbles of Vv meet activation dword v, high ones dword 4+v) and the FMAs
// of the contract. The decode kernels walk two groups at once, as packed
// Q4_0's do (pack_amd64.s): two weight streams per thread.
//
// Z31 = 0x0F bytes. IQ4_NL (and MXFP4): Z28 = the level table +128 in each
// 128-bit lane, for VPSHUFB, which looks bytes up within their own lane
// and zeroes a byte whose top bit is set (so the nibbles are masked
// first). Q5_0, Q5_1: Z30 = 0x10 bytes, added under an opmask (K1…K4 in
// turn) to the codes whose fifth bit is set.
//
// The integer sums stay far inside int32: |m8-derived start| ≤ 128·32·127
// and each product ≤ 241·127, so they are exact in any order.

// NLCONSTS loads Z31 and Z28, the table of 16 unsigned levels from the
// address in the argument lv: kvalues_iq4nl + 128 (iq4nlLevelsU) for
// IQ4_NL, MXFP4's doubled E2M1 values + 128 (mxfp4LevelsU) for packed
// MXFP4, which is packed IQ4_NL's layout (packmxfp4.go).
#define NLCONSTS(lv) \
	MOVL            $0x0f0f0f0f, AX; \
	VPBROADCASTD    AX, Z31; \
	MOVQ            lv, AX; \
	VBROADCASTI32X4 (AX), Z28

#define Q5CONSTS \
	MOVL         $0x0f0f0f0f, AX; \
	VPBROADCASTD AX, Z31; \
	MOVL         $0x10101010, AX; \
	VPBROADCASTD AX, Z30

// NLLEV turns the 64-byte code vector at off(base) into the levels of its
// low nibbles (lo) and its high nibbles (hi).
#define NLLEV(off, base, lo, hi) \
	VPANDD  off(base), Z31, lo; \
	VPSRLW  $4, off(base), hi; \
	VPANDD  Z31, hi, hi; \
	VPSHUFB lo, Z28, lo; \
	VPSHUFB hi, Z28, hi

// NLBLK prepares the IQ4_NL block at woff(base): Z16 its scales, Z8…Z15
// its levels.
#define NLBLK(woff, base) \
	NLLEV(woff+32, base, Z8, Z9); \
	NLLEV(woff+96, base, Z10, Z11); \
	NLLEV(woff+160, base, Z12, Z13); \
	NLLEV(woff+224, base, Z14, Z15); \
	VCVTPH2PS woff(base), Z16

// Q5LO and Q5HI put the low (Q5LO) or high (Q5HI) nibbles of the 64 bytes
// at qoff(base) in zc, plus 16 in the bytes that the mask at moff(base)
// marks. A word shift leaks the next byte's low nibble into a byte's high
// one; the mask of 0x0F drops it.
#define Q5LO(qoff, moff, base, zc, k) \
	KMOVQ  moff(base), k; \
	VPANDD qoff(base), Z31, zc; \
	VPADDB Z30, zc, k, zc

#define Q5HI(qoff, moff, base, zc, k) \
	KMOVQ  moff(base), k; \
	VPSRLW $4, qoff(base), zc; \
	VPANDD Z31, zc, zc; \
	VPADDB Z30, zc, k, zc

// Q5CODES unpacks the codes 0…31 of a Q5 block whose masks are at
// moff(base) and code vectors at qoff(base).
#define Q5CODES(moff, qoff, base) \
	Q5LO(qoff, moff, base, Z8, K1); \
	Q5HI(qoff, moff+8, base, Z9, K2); \
	Q5LO(qoff+64, moff+16, base, Z10, K3); \
	Q5HI(qoff+64, moff+24, base, Z11, K4); \
	Q5LO(qoff+128, moff+32, base, Z12, K1); \
	Q5HI(qoff+128, moff+40, base, Z13, K2); \
	Q5LO(qoff+192, moff+48, base, Z14, K3); \
	Q5HI(qoff+192, moff+56, base, Z15, K4)

// Q50BLK prepares the Q5_0 block at woff(base): Z16 its scales, Z8…Z15
// its codes.
#define Q50BLK(woff, base) \
	Q5CODES(woff+32, woff+96, base); \
	VCVTPH2PS woff(base), Z16

// Q51BLK prepares the Q5_1 block at woff(base): Z16 its scales, Z17 its
// offsets, Z8…Z15 its codes.
#define Q51BLK(woff, base) \
	Q5CODES(woff+64, woff+128, base); \
	VCVTPH2PS woff(base), Z16; \
	VCVTPH2PS woff+32(base), Z17

// LSUMS completes isum, already started, with one token's codes at
// xoff(xb), and turns it into float.
#define LSUMS(xb, xoff, isum) \
	VPDPBUSD.BCST xoff(xb), Z8, isum; \
	VPDPBUSD.BCST xoff+16(xb), Z9, isum; \
	VPDPBUSD.BCST xoff+4(xb), Z10, isum; \
	VPDPBUSD.BCST xoff+20(xb), Z11, isum; \
	VPDPBUSD.BCST xoff+8(xb), Z12, isum; \
	VPDPBUSD.BCST xoff+24(xb), Z13, isum; \
	VPDPBUSD.BCST xoff+12(xb), Z14, isum; \
	VPDPBUSD.BCST xoff+28(xb), Z15, isum; \
	VCVTDQ2PS     isum, isum

// LTOK adds one token's share of a prepared IQ4_NL (sh = 4: from 16·m8) or
// Q5_0 (sh = 1: from 2·m8) block to acc: the token's codes at xoff(xb),
// its m8 at maddr and scale at daddr; isum and sc are scratch.
#define LTOK(sh, xb, xoff, maddr, daddr, isum, sc, acc) \
	VPBROADCASTD maddr, isum; \
	VPSLLD       $sh, isum, isum; \
	LSUMS(xb, xoff, isum); \
	VMULPS.BCST  daddr, Z16, sc; \
	VFMADD231PS  isum, sc, acc

// L1TOK adds one token's share of a prepared Q5_1 block to acc: its codes
// at xoff(xb), block scale at daddr and block sum at saddr.
#define L1TOK(xb, xoff, daddr, saddr, isum, sc, acc) \
	VPXORD           isum, isum, isum; \
	LSUMS(xb, xoff, isum); \
	VMULPS.BCST      daddr, Z16, sc; \
	VFMADD231PS      isum, sc, acc; \
	VFMADD231PS.BCST saddr, Z17, acc

// ---- IQ4_NL ----

// func rowsIQ4NLx16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nb, groups int, out *float32, lv *byte)
//
// out[r] = row r · x for groups·16 packed IQ4_NL rows of nb blocks, as
// pack_amd64.s's rowsQ4_0x16VNNI: SI weights, DI codes, R9 m8, R10 scales
// (each at the current block), CX blocks left, R8 groups left, R13 out;
// Z0/Z1 even/odd-block sums; groups two at a time (R11 the second's
// weights, BX the bytes of a group, Z2/Z3 its sums), then a last odd one
// alone.
TEXT ·rowsIQ4NLx16VNNI(SB), NOSPLIT, $0-64
	MOVQ  p+0(FP), SI
	MOVQ  out+48(FP), R13
	MOVQ  groups+40(FP), R8
	MOVQ  nb+32(FP), BX
	IMULQ $288, BX
	NLCONSTS(lv+56(FP))

nlrpair:
	CMPQ   R8, $2
	JLT    nlrgroup
	LEAQ   (SI)(BX*1), R11
	MOVQ   xq+8(FP), DI
	MOVQ   m8+16(FP), R9
	MOVQ   xd+24(FP), R10
	MOVQ   nb+32(FP), CX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3

nlrploop2:
	CMPQ CX, $2
	JLT  nlrptail
	PFL8(0)
	PFL(512)
	PFLB8(0)
	PFLB(512)
	NLBLK(0, SI)
	LTOK(4, DI, 0, (R9), (R10), Z17, Z18, Z0)
	NLBLK(0, R11)
	LTOK(4, DI, 0, (R9), (R10), Z21, Z22, Z2)
	NLBLK(288, SI)
	LTOK(4, DI, 32, 4(R9), 4(R10), Z19, Z20, Z1)
	NLBLK(288, R11)
	LTOK(4, DI, 32, 4(R9), 4(R10), Z23, Z24, Z3)
	ADDQ $576, SI
	ADDQ $576, R11
	ADDQ $64, DI
	ADDQ $8, R9
	ADDQ $8, R10
	SUBQ $2, CX
	JMP  nlrploop2

nlrptail:
	TESTQ CX, CX
	JEQ   nlrpdone
	NLBLK(0, SI)
	LTOK(4, DI, 0, (R9), (R10), Z17, Z18, Z0)
	NLBLK(0, R11)
	LTOK(4, DI, 0, (R9), (R10), Z21, Z22, Z2)
	ADDQ  $288, R11

nlrpdone:
	VADDPS  Z1, Z0, Z0
	VADDPS  Z3, Z2, Z2
	VMOVUPS Z0, (R13)
	VMOVUPS Z2, 64(R13)
	ADDQ    $128, R13
	MOVQ    R11, SI
	SUBQ    $2, R8
	JMP     nlrpair

nlrgroup:
	TESTQ  R8, R8
	JEQ    nlrend
	MOVQ   xq+8(FP), DI
	MOVQ   m8+16(FP), R9
	MOVQ   xd+24(FP), R10
	MOVQ   nb+32(FP), CX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1

nlrloop2:
	CMPQ CX, $2
	JLT  nlrtail
	PFL8(0)
	PFL(512)
	NLBLK(0, SI)
	LTOK(4, DI, 0, (R9), (R10), Z17, Z18, Z0)
	NLBLK(288, SI)
	LTOK(4, DI, 32, 4(R9), 4(R10), Z19, Z20, Z1)
	ADDQ $576, SI
	ADDQ $64, DI
	ADDQ $8, R9
	ADDQ $8, R10
	SUBQ $2, CX
	JMP  nlrloop2

nlrtail:
	TESTQ CX, CX
	JEQ   nlrdone
	NLBLK(0, SI)
	LTOK(4, DI, 0, (R9), (R10), Z17, Z18, Z0)
	ADDQ  $288, SI

nlrdone:
	VADDPS  Z1, Z0, Z0
	VMOVUPS Z0, (R13)
	ADDQ    $64, R13
	DECQ    R8
	JMP     nlrgroup

nlrend:
	VZEROUPPER
	RET

// nlBLK4 runs the IQ4_NL block at woff(SI) for four tokens: codes at xoff
// from DI, R11, R12, R14; m8 and scales at moff from R9 and R10, the
// tokens DX bytes apart (BX = 3·DX); into accumulators a0…a3.
#define nlBLK4(woff, xoff, moff, a0, a1, a2, a3) \
	NLBLK(woff, SI); \
	LTOK(4, DI, xoff, moff(R9), moff(R10), Z17, Z21, a0); \
	LTOK(4, R11, xoff, moff(R9)(DX*1), moff(R10)(DX*1), Z18, Z22, a1); \
	LTOK(4, R12, xoff, moff(R9)(DX*2), moff(R10)(DX*2), Z19, Z23, a2); \
	LTOK(4, R14, xoff, moff(R9)(BX*1), moff(R10)(BX*1), Z20, Z24, a3)

// func gemm4IQ4NLx16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nb, groups int, out *float32, ostride int, lv *byte)
//
// out[t·ostride + r] = row r · token t for groups·16 packed IQ4_NL rows and
// four tokens whose codes are xq + t·32·nb, m8 m8 + t·nb and scales xd +
// t·nb; registers as pack_amd64.s's gemm4Q4_0x16VNNI. Token t sums even
// blocks in Z(2t), odd ones in Z(2t+1).
TEXT ·gemm4IQ4NLx16VNNI(SB), NOSPLIT, $0-72
	MOVQ p+0(FP), SI
	MOVQ nb+32(FP), DX
	SHLQ $2, DX
	LEAQ (DX)(DX*2), BX
	MOVQ out+48(FP), R13
	MOVQ groups+40(FP), R8
	NLCONSTS(lv+64(FP))

nlggroup:
	TESTQ  R8, R8
	JEQ    nlgend
	MOVQ   xq+8(FP), DI
	MOVQ   nb+32(FP), AX
	SHLQ   $5, AX              // codes per token
	LEAQ   (DI)(AX*1), R11
	LEAQ   (R11)(AX*1), R12
	LEAQ   (R12)(AX*1), R14
	MOVQ   m8+16(FP), R9
	MOVQ   xd+24(FP), R10
	MOVQ   nb+32(FP), CX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7

nlgloop2:
	CMPQ CX, $2
	JLT  nlgtail
	nlBLK4(0, 0, 0, Z0, Z2, Z4, Z6)
	nlBLK4(288, 32, 4, Z1, Z3, Z5, Z7)
	ADDQ $576, SI
	ADDQ $64, DI
	ADDQ $64, R11
	ADDQ $64, R12
	ADDQ $64, R14
	ADDQ $8, R9
	ADDQ $8, R10
	SUBQ $2, CX
	JMP  nlgloop2

nlgtail:
	TESTQ CX, CX
	JEQ   nlgdone
	nlBLK4(0, 0, 0, Z0, Z2, Z4, Z6)
	ADDQ  $288, SI

nlgdone:
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
	JMP     nlggroup

nlgend:
	VZEROUPPER
	RET

// ---- Q5_0 ----

// func rowsQ5_0x16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nb, groups int, out *float32)
//
// out[r] = row r · x for groups·16 packed Q5_0 rows of nb blocks, as
// pack_amd64.s's rowsQ4_0x16VNNI: SI weights, DI codes, R9 m8, R10 scales
// (each at the current block), CX blocks left, R8 groups left, R13 out;
// Z0/Z1 even/odd-block sums; groups two at a time (R11 the second's
// weights, BX the bytes of a group, Z2/Z3 its sums), then a last odd one
// alone.
TEXT ·rowsQ5_0x16VNNI(SB), NOSPLIT, $0-56
	MOVQ  p+0(FP), SI
	MOVQ  out+48(FP), R13
	MOVQ  groups+40(FP), R8
	MOVQ  nb+32(FP), BX
	IMULQ $352, BX
	Q5CONSTS

q50rpair:
	CMPQ   R8, $2
	JLT    q50rgroup
	LEAQ   (SI)(BX*1), R11
	MOVQ   xq+8(FP), DI
	MOVQ   m8+16(FP), R9
	MOVQ   xd+24(FP), R10
	MOVQ   nb+32(FP), CX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3

q50rploop2:
	CMPQ CX, $2
	JLT  q50rptail
	PFL8(0)
	PFL2(512)
	PFL(640)
	PFLB8(0)
	PFLB2(512)
	PFLB(640)
	Q50BLK(0, SI)
	LTOK(1, DI, 0, (R9), (R10), Z17, Z18, Z0)
	Q50BLK(0, R11)
	LTOK(1, DI, 0, (R9), (R10), Z21, Z22, Z2)
	Q50BLK(352, SI)
	LTOK(1, DI, 32, 4(R9), 4(R10), Z19, Z20, Z1)
	Q50BLK(352, R11)
	LTOK(1, DI, 32, 4(R9), 4(R10), Z23, Z24, Z3)
	ADDQ $704, SI
	ADDQ $704, R11
	ADDQ $64, DI
	ADDQ $8, R9
	ADDQ $8, R10
	SUBQ $2, CX
	JMP  q50rploop2

q50rptail:
	TESTQ CX, CX
	JEQ   q50rpdone
	Q50BLK(0, SI)
	LTOK(1, DI, 0, (R9), (R10), Z17, Z18, Z0)
	Q50BLK(0, R11)
	LTOK(1, DI, 0, (R9), (R10), Z21, Z22, Z2)
	ADDQ  $352, R11

q50rpdone:
	VADDPS  Z1, Z0, Z0
	VADDPS  Z3, Z2, Z2
	VMOVUPS Z0, (R13)
	VMOVUPS Z2, 64(R13)
	ADDQ    $128, R13
	MOVQ    R11, SI
	SUBQ    $2, R8
	JMP     q50rpair

q50rgroup:
	TESTQ  R8, R8
	JEQ    q50rend
	MOVQ   xq+8(FP), DI
	MOVQ   m8+16(FP), R9
	MOVQ   xd+24(FP), R10
	MOVQ   nb+32(FP), CX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1

q50rloop2:
	CMPQ CX, $2
	JLT  q50rtail
	PFL8(0)
	PFL2(512)
	PFL(640)
	Q50BLK(0, SI)
	LTOK(1, DI, 0, (R9), (R10), Z17, Z18, Z0)
	Q50BLK(352, SI)
	LTOK(1, DI, 32, 4(R9), 4(R10), Z19, Z20, Z1)
	ADDQ $704, SI
	ADDQ $64, DI
	ADDQ $8, R9
	ADDQ $8, R10
	SUBQ $2, CX
	JMP  q50rloop2

q50rtail:
	TESTQ CX, CX
	JEQ   q50rdone
	Q50BLK(0, SI)
	LTOK(1, DI, 0, (R9), (R10), Z17, Z18, Z0)
	ADDQ  $352, SI

q50rdone:
	VADDPS  Z1, Z0, Z0
	VMOVUPS Z0, (R13)
	ADDQ    $64, R13
	DECQ    R8
	JMP     q50rgroup

q50rend:
	VZEROUPPER
	RET

// q50BLK4 runs the Q5_0 block at woff(SI) for four tokens: codes at xoff
// from DI, R11, R12, R14; m8 and scales at moff from R9 and R10, the
// tokens DX bytes apart (BX = 3·DX); into accumulators a0…a3.
#define q50BLK4(woff, xoff, moff, a0, a1, a2, a3) \
	Q50BLK(woff, SI); \
	LTOK(1, DI, xoff, moff(R9), moff(R10), Z17, Z21, a0); \
	LTOK(1, R11, xoff, moff(R9)(DX*1), moff(R10)(DX*1), Z18, Z22, a1); \
	LTOK(1, R12, xoff, moff(R9)(DX*2), moff(R10)(DX*2), Z19, Z23, a2); \
	LTOK(1, R14, xoff, moff(R9)(BX*1), moff(R10)(BX*1), Z20, Z24, a3)

// func gemm4Q5_0x16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nb, groups int, out *float32, ostride int)
//
// out[t·ostride + r] = row r · token t for groups·16 packed Q5_0 rows and
// four tokens whose codes are xq + t·32·nb, m8 m8 + t·nb and scales xd +
// t·nb; registers as pack_amd64.s's gemm4Q4_0x16VNNI. Token t sums even
// blocks in Z(2t), odd ones in Z(2t+1).
TEXT ·gemm4Q5_0x16VNNI(SB), NOSPLIT, $0-64
	MOVQ p+0(FP), SI
	MOVQ nb+32(FP), DX
	SHLQ $2, DX
	LEAQ (DX)(DX*2), BX
	MOVQ out+48(FP), R13
	MOVQ groups+40(FP), R8
	Q5CONSTS

q50ggroup:
	TESTQ  R8, R8
	JEQ    q50gend
	MOVQ   xq+8(FP), DI
	MOVQ   nb+32(FP), AX
	SHLQ   $5, AX              // codes per token
	LEAQ   (DI)(AX*1), R11
	LEAQ   (R11)(AX*1), R12
	LEAQ   (R12)(AX*1), R14
	MOVQ   m8+16(FP), R9
	MOVQ   xd+24(FP), R10
	MOVQ   nb+32(FP), CX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7

q50gloop2:
	CMPQ CX, $2
	JLT  q50gtail
	q50BLK4(0, 0, 0, Z0, Z2, Z4, Z6)
	q50BLK4(352, 32, 4, Z1, Z3, Z5, Z7)
	ADDQ $704, SI
	ADDQ $64, DI
	ADDQ $64, R11
	ADDQ $64, R12
	ADDQ $64, R14
	ADDQ $8, R9
	ADDQ $8, R10
	SUBQ $2, CX
	JMP  q50gloop2

q50gtail:
	TESTQ CX, CX
	JEQ   q50gdone
	q50BLK4(0, 0, 0, Z0, Z2, Z4, Z6)
	ADDQ  $352, SI

q50gdone:
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
	JMP     q50ggroup

q50gend:
	VZEROUPPER
	RET

// ---- Q5_1 ----

// func rowsQ5_1x16VNNI(p *byte, xq *int8, xd, xs *float32, nb, groups int, out *float32)
//
// out[r] = row r · x for groups·16 packed Q5_1 rows of nb blocks, as
// packk_amd64.s's rowsQ4_1x16VNNI: SI weights, DI codes, R9 block scales,
// R10 block sums, CX blocks left, R8 groups left, R13 out, Z0 the sums;
// groups two at a time (R11 the second's weights, BX the bytes of a group,
// Z1 its sums), then a last odd one alone.
TEXT ·rowsQ5_1x16VNNI(SB), NOSPLIT, $0-56
	MOVQ  p+0(FP), SI
	MOVQ  out+48(FP), R13
	MOVQ  groups+40(FP), R8
	MOVQ  nb+32(FP), BX
	IMULQ $384, BX
	Q5CONSTS

q51rpair:
	CMPQ   R8, $2
	JLT    q51rgroup
	LEAQ   (SI)(BX*1), R11
	MOVQ   xq+8(FP), DI
	MOVQ   xd+16(FP), R9
	MOVQ   xs+24(FP), R10
	MOVQ   nb+32(FP), CX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1

q51rploop:
	PFL4(0)
	PFL2(256)
	PFLB4(0)
	PFLB2(256)
	Q51BLK(0, SI)
	L1TOK(DI, 0, (R9), (R10), Z18, Z19, Z0)
	Q51BLK(0, R11)
	L1TOK(DI, 0, (R9), (R10), Z20, Z21, Z1)
	ADDQ $384, SI
	ADDQ $384, R11
	ADDQ $32, DI
	ADDQ $4, R9
	ADDQ $4, R10
	DECQ CX
	JNZ  q51rploop

	VMOVUPS Z0, (R13)
	VMOVUPS Z1, 64(R13)
	ADDQ    $128, R13
	MOVQ    R11, SI
	SUBQ    $2, R8
	JMP     q51rpair

q51rgroup:
	TESTQ  R8, R8
	JEQ    q51rend
	MOVQ   xq+8(FP), DI
	MOVQ   xd+16(FP), R9
	MOVQ   xs+24(FP), R10
	MOVQ   nb+32(FP), CX
	VPXORD Z0, Z0, Z0

q51rloop:
	PFL4(0)
	PFL2(256)
	Q51BLK(0, SI)
	L1TOK(DI, 0, (R9), (R10), Z18, Z19, Z0)
	ADDQ $384, SI
	ADDQ $32, DI
	ADDQ $4, R9
	ADDQ $4, R10
	DECQ CX
	JNZ  q51rloop

	VMOVUPS Z0, (R13)
	ADDQ    $64, R13
	DECQ    R8
	JMP     q51rgroup

q51rend:
	VZEROUPPER
	RET

// func gemm4Q5_1x16VNNI(p *byte, xq *int8, xd, xs *float32, nb, groups int, out *float32, ostride int)
//
// out[t·ostride + r] = row r · token t for groups·16 packed Q5_1 rows and
// four tokens whose codes are xq + t·32·nb, block scales xd + t·nb and
// block sums xs + t·nb; registers as packk_amd64.s's gemm4Q4_1x16VNNI.
TEXT ·gemm4Q5_1x16VNNI(SB), NOSPLIT, $0-64
	Q5CONSTS
	MOVQ p+0(FP), SI
	MOVQ nb+32(FP), DX
	SHLQ $2, DX
	LEAQ (DX)(DX*2), BX
	MOVQ out+48(FP), R13
	MOVQ groups+40(FP), R8

q51ggroup:
	TESTQ  R8, R8
	JEQ    q51gend
	MOVQ   xq+8(FP), DI
	MOVQ   nb+32(FP), CX
	SHLQ   $5, CX              // codes per token
	LEAQ   (DI)(CX*1), R11
	LEAQ   (R11)(CX*1), R12
	LEAQ   (R12)(CX*1), R14
	MOVQ   xd+16(FP), R9
	MOVQ   xs+24(FP), R10
	MOVQ   nb+32(FP), CX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3

q51gloop:
	Q51BLK(0, SI)
	L1TOK(DI, 0, (R9), (R10), Z18, Z19, Z0)
	L1TOK(R11, 0, (R9)(DX*1), (R10)(DX*1), Z20, Z21, Z1)
	L1TOK(R12, 0, (R9)(DX*2), (R10)(DX*2), Z22, Z23, Z2)
	L1TOK(R14, 0, (R9)(BX*1), (R10)(BX*1), Z24, Z25, Z3)
	ADDQ $384, SI
	ADDQ $32, DI
	ADDQ $32, R11
	ADDQ $32, R12
	ADDQ $32, R14
	ADDQ $4, R9
	ADDQ $4, R10
	DECQ CX
	JNZ  q51gloop

	MOVQ    ostride+56(FP), AX
	SHLQ    $2, AX
	VMOVUPS Z0, (R13)
	VMOVUPS Z1, (R13)(AX*1)
	VMOVUPS Z2, (R13)(AX*2)
	LEAQ    (AX)(AX*2), AX
	VMOVUPS Z3, (R13)(AX*1)
	ADDQ    $64, R13
	DECQ    R8
	JMP     q51ggroup

q51gend:
	VZEROUPPER
	RET
