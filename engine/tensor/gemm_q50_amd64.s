#include "textflag.h"

// Four-token Q5_0 prefill on AVX-512 VNNI (512-bit VPDPBUSD, VPERMT2B,
// GF2P8AFFINEQB, byte-masked VPADDB: AVX512F, BW, VNNI, VBMI and GFNI).
// Per token it computes exactly what dotQ5_0RowsAVX2 (dot_legacy_amd64.s)
// does:
//
//   - for each group of four blocks, the four exact block sums
//     Σ = Σ q·xq over the unsigned codes q = nibble | fifth bit << 4
//     (0…31), converted, times d·dx (d first), FMA'd into a four-lane
//     accumulator (lane b gathers blocks 4g+b); and the offset terms d·xs
//     (xs = dx·Σxq, the activations' block sums), FMA'd into a second
//     four-lane accumulator, lane b again gathering blocks 4g+b;
//   - for each of the 0–3 blocks left over, the eight int32 sums of four
//     products (lane k: activations 4k…4k+3 of the block), converted,
//     times the broadcast d·dx, FMA'd into an eight-lane accumulator, and
//     d·xs FMA'd into lane 0 of the offset accumulator;
//   - at the row's end, LROWEND's additions: (tail_i + acc_i) +
//     (tail_{i+4} + 0), then the two VHADDPS; the offset lanes' two
//     VHADDPS, times 16, subtracted.
//
// The integer sums are exact in any order, so they are formed here as is
// cheapest for four tokens at once; the float operations are the decode
// kernel's, with the same operands in the same order.
//
// The codes are unsigned already (the −16 is the decode kernel's float
// offset term), so VPDPBUSD takes them as its unsigned side and the
// activation codes as its signed side, and its sums need no correction.
//
// A group of four blocks: Z16 holds their codes 0–15 (low nibbles), block
// b in 128-bit lane b, and Z17 their codes 16–31 (high nibbles) likewise;
// each dword lane 4b+c of Z16 is block b's chunk c (codes 4c…4c+3), of
// Z17 its chunk 4+c. Z5 and Z6 are Z16 and Z17 with each lane's dword
// pairs swapped (lane 4b+c holding chunk c^2). Tokens go in pairs, one
// accumulator per pair (Z0 for tokens 0|1, Z1 for 2|3): lanes 4b+0 and
// 4b+1 are the pair's first token's, 4b+2 and 4b+3 its second's, and the
// four VPDPBUSD against Z16, Z17, Z5, Z6 bring each token's eight chunks
// of block b into its two lanes. The activations were laid out for this
// (act.qX, see byPairs): per group of four blocks 512 bytes, the four
// 64-byte operands of tokens 0|1, then those of 2|3, read straight from
// memory. A VSHUFPS pair and one add fold the two accumulators into
// sixteen block sums, lane 4b+t for token t's block b: the layout of the
// activations' dT and sT (four tokens' dx, xs side by side per block, see
// prepActVNNI), so the float work is one convert, one multiply and two
// FMAs per group for all four tokens.
//
// The 0–3 blocks left over run one at a time, two tokens per 512-bit
// register, on the activation codes as they are (act.qs): the block's
// codes in activation order in both 256-bit halves, the fifth bits from a
// general register.
//
// Registers:
//
//	SI  weights (the current block)   DI  qX at the current group
//	BX  token 0's codes (qs) at the current block, R12 32·nb (one
//	    token's codes to the next), R14 = 3·R12
//	R10 dT at the current block       R11 sT at the current block
//	R8  rows left   CX blocks left   R13 out[row]   AX, R9 scratch
//	K1, K2 the fifth bits of Z16, Z17   K3 lanes 0…3
//	Z0, Z1 the token pairs' integer sums; Z4 GF2P8AFFINEQB's x >> 4;
//	    Z5, Z6 Z16, Z17 swapped; Z8 scratch; Z9 d; Z10…Z15 scratch
//	Z16, Z17 the group's codes; Z19 VPERMT2B's indices (gq5Qs)
//	Z20 the offset accumulators, lane 4b+t
//	Z24 the four-lane accumulators, lane 4b+t; Z25, Z26 the leftover
//	    blocks' eight-lane accumulators, tokens 0|1 and 2|3
//	Z22 16.0  Z27 the 4×4 transpose (lane 4b+t ↔ 4t+b)
//	Z28 d_b to lanes 4b…4b+3  Z29 0x10 bytes
//	Z30 the dword shifts 0, 4 per 128-bit lane pair  Z31 0x0F bytes

// LPF is how far ahead the weights are prefetched, as in gemm_legacy_amd64.s.
#define LPF 2048

// Dword shift counts for a leftover block: 0 for the 128-bit lanes that
// take its low nibbles (lanes 0 and 2), 4 for those that take its high
// ones.
DATA gq5Shift<>+0(SB)/8, $0
DATA gq5Shift<>+8(SB)/8, $0
DATA gq5Shift<>+16(SB)/8, $0x0000000400000004
DATA gq5Shift<>+24(SB)/8, $0x0000000400000004
DATA gq5Shift<>+32(SB)/8, $0
DATA gq5Shift<>+40(SB)/8, $0
DATA gq5Shift<>+48(SB)/8, $0x0000000400000004
DATA gq5Shift<>+56(SB)/8, $0x0000000400000004
GLOBL gq5Shift<>(SB), RODATA|NOPTR, $64

// The 4×4 transpose of dwords: lane 4b+t takes lane 4t+b.
DATA gq5T<>+0(SB)/8, $0x0000000400000000
DATA gq5T<>+8(SB)/8, $0x0000000c00000008
DATA gq5T<>+16(SB)/8, $0x0000000500000001
DATA gq5T<>+24(SB)/8, $0x0000000d00000009
DATA gq5T<>+32(SB)/8, $0x0000000600000002
DATA gq5T<>+40(SB)/8, $0x0000000e0000000a
DATA gq5T<>+48(SB)/8, $0x0000000700000003
DATA gq5T<>+56(SB)/8, $0x0000000f0000000b
GLOBL gq5T<>(SB), RODATA|NOPTR, $64

// Lane 4b+t takes lane b: the group's four d to each token's lanes.
DATA gq5D<>+0(SB)/8, $0
DATA gq5D<>+8(SB)/8, $0
DATA gq5D<>+16(SB)/8, $0x0000000100000001
DATA gq5D<>+24(SB)/8, $0x0000000100000001
DATA gq5D<>+32(SB)/8, $0x0000000200000002
DATA gq5D<>+40(SB)/8, $0x0000000200000002
DATA gq5D<>+48(SB)/8, $0x0000000300000003
DATA gq5D<>+56(SB)/8, $0x0000000300000003
GLOBL gq5D<>(SB), RODATA|NOPTR, $64

// VPERMT2B's byte indices over the group's bytes 0–63 (0…63) and 24–87
// (64…127): the four blocks' sixteen nibble bytes, block b in 128-bit
// lane b.
DATA gq5Qs<>+0(SB)/8, $0x0d0c0b0a09080706
DATA gq5Qs<>+8(SB)/8, $0x1514131211100f0e
DATA gq5Qs<>+16(SB)/8, $0x232221201f1e1d1c
DATA gq5Qs<>+24(SB)/8, $0x2b2a292827262524
DATA gq5Qs<>+32(SB)/8, $0x3938373635343332
DATA gq5Qs<>+40(SB)/8, $0x69683f3e3d3c3b3a
DATA gq5Qs<>+48(SB)/8, $0x7776757473727170
DATA gq5Qs<>+56(SB)/8, $0x7f7e7d7c7b7a7978
GLOBL gq5Qs<>(SB), RODATA|NOPTR, $64

// QCODES4 sets Z16 and Z17 to the group's codes 0–15 and 16–31, block b
// in 128-bit lane b: VPERMT2B gathers the four blocks' nibble bytes from
// two loads, GF2P8AFFINEQB (Z4) takes their high nibbles down, VPANDD
// their low ones, and a masked VPADDB adds 16 where the fifth bit is set.
// The byte masks are built in AX: K1 the four qh words' low halves (bits
// 0–15, codes 0–15), K2 their high halves, block b's at bit 16b. (Built
// with VPSHUFBITQMB from the broadcast words instead, the group measured
// 10% slower.) Clobbers R9.
#define QCODES4 \
	VMOVDQU64      0(SI), Z16; \
	VPERMT2B       24(SI), Z19, Z16; \
	VGF2P8AFFINEQB $0, Z4, Z16, Z17; \
	VPANDD         Z31, Z16, Z16; \
	MOVWQZX        2(SI), AX; \
	MOVWQZX        24(SI), R9; \
	SHLQ           $16, R9; \
	ORQ            R9, AX; \
	MOVWQZX        46(SI), R9; \
	SHLQ           $32, R9; \
	ORQ            R9, AX; \
	MOVWQZX        68(SI), R9; \
	SHLQ           $48, R9; \
	ORQ            R9, AX; \
	KMOVQ          AX, K1; \
	MOVWQZX        4(SI), AX; \
	MOVWQZX        26(SI), R9; \
	SHLQ           $16, R9; \
	ORQ            R9, AX; \
	MOVWQZX        48(SI), R9; \
	SHLQ           $32, R9; \
	ORQ            R9, AX; \
	MOVWQZX        70(SI), R9; \
	SHLQ           $48, R9; \
	ORQ            R9, AX; \
	KMOVQ          AX, K2; \
	VPADDB         Z29, Z16, K1, Z16; \
	VPADDB         Z29, Z17, K2, Z17

// QPAIR sets acc to two tokens' integer sums over the group, lane 4b+c
// for block b: c = 0, 1 the pair's first token's, 2, 3 its second's (two
// partial sums each), from the four vectors of their codes at off(DI)
// (act.qX, see byPairs) against Z16, Z17 and their swapped copies Z5, Z6.
#define QPAIR(off, acc) \
	VPXORD   acc, acc, acc; \
	VPDPBUSD off(DI), Z16, acc; \
	VPDPBUSD off+64(DI), Z17, acc; \
	VPDPBUSD off+128(DI), Z5, acc; \
	VPDPBUSD off+192(DI), Z6, acc

// QHALVES4 converts the four f16 d of the group (at 0, 22, 44, 66 (SI))
// into X9's lanes, packed in AX as LHALVES4 does. Clobbers R9.
#define QHALVES4 \
	MOVWQZX   0(SI), AX; \
	MOVWQZX   22(SI), R9; \
	SHLQ      $16, R9; \
	ORQ       R9, AX; \
	MOVWQZX   44(SI), R9; \
	SHLQ      $32, R9; \
	ORQ       R9, AX; \
	MOVWQZX   66(SI), R9; \
	SHLQ      $48, R9; \
	ORQ       R9, AX; \
	VMOVQ     AX, X9; \
	VCVTPH2PS X9, X9

// QGROUP runs a group of four blocks for the four tokens into Z24 and Z20:
// VPSHUFD swaps the dword pairs of each lane (lane 4b+c then holds chunk
// c^2 of block b), the two pairs' sums are folded to lane 4b+t (VSHUFPS
// picks the even and the odd partial sums), converted, times d·dx and
// FMA'd; and d·xs is FMA'd into the offset accumulator.
#define QGROUP \
	QCODES4; \
	VPSHUFD     $0x4e, Z16, Z5; \
	VPSHUFD     $0x4e, Z17, Z6; \
	QPAIR(0, Z0); \
	QPAIR(256, Z1); \
	VSHUFPS     $0x88, Z1, Z0, Z10; \
	VSHUFPS     $0xdd, Z1, Z0, Z11; \
	VPADDD      Z11, Z10, Z0; \
	VCVTDQ2PS   Z0, Z0; \
	QHALVES4; \
	VPERMPS     Z9, Z28, Z9; \
	VMULPS      (R10), Z9, Z12; \
	VFMADD231PS Z0, Z12, Z24; \
	VFMADD231PS (R11), Z9, Z20

// QTAILPAIR adds two tokens' shares of a leftover block (codes in both
// 256-bit halves of Z16, d in every lane of Z9) to acc: codes at xa, xb;
// scales dx at da, db. Clobbers Z0, Z10, Z11.
#define QTAILPAIR(xa, xb, da, db, acc) \
	VMOVDQU      xa, Y10; \
	VINSERTI64X4 $1, xb, Z10, Z10; \
	VPXORD       Z0, Z0, Z0; \
	VPDPBUSD     Z10, Z16, Z0; \
	VCVTDQ2PS    Z0, Z0; \
	VBROADCASTSS da, Y10; \
	VBROADCASTSS db, Y11; \
	VINSERTF64X4 $1, Y11, Z10, Z10; \
	VMULPS       Z10, Z9, Z10; \
	VFMADD231PS  Z0, Z10, acc

// func gemm4Q5_0VNNI(w *byte, xq, xx *int8, dT, sT *float32, nb, rows int, out *float32, ostride int)
TEXT ·gemm4Q5_0VNNI(SB), NOSPLIT, $0-72
	MOVQ         w+0(FP), SI
	MOVQ         nb+40(FP), R12
	SHLQ         $5, R12
	LEAQ         (R12)(R12*2), R14
	MOVQ         out+56(FP), R13
	MOVQ         rows+48(FP), R8
	VMOVDQU64    gq5Shift<>(SB), Z30
	VMOVDQU64    gq5T<>(SB), Z27
	VMOVDQU64    gq5D<>(SB), Z28
	VMOVDQU64    gq5Qs<>(SB), Z19
	MOVL         $0x0f0f0f0f, AX
	VPBROADCASTD AX, Z31
	MOVL         $0x10101010, AX
	VPBROADCASTD AX, Z29

	// GF2P8AFFINEQB's matrix for x >> 4: bit i of the result is the
	// parity of x AND the matrix's byte 7−i, so bytes 7…4 are 0x10, 0x20,
	// 0x40, 0x80 (bits 0–3 take x's bits 4–7) and bytes 3…0 are zero.
	MOVQ         $0x1020408000000000, AX
	VPBROADCASTQ AX, Z4
	MOVL         $0x41800000, AX // 16.0
	VPBROADCASTD AX, Z22
	MOVL         $0x000f, AX
	KMOVW        AX, K3

qrow:
	TESTQ  R8, R8
	JEQ    qend
	MOVQ   xq+8(FP), BX
	MOVQ   xx+16(FP), DI
	MOVQ   dT+24(FP), R10
	MOVQ   sT+32(FP), R11
	MOVQ   nb+40(FP), CX
	VPXORD Z20, Z20, Z20
	VPXORD Z24, Z24, Z24
	VPXORD Z25, Z25, Z25
	VPXORD Z26, Z26, Z26

qloop4:
	CMPQ       CX, $4
	JLT        qtail
	PREFETCHT0 LPF(SI)
	PREFETCHT0 LPF+64(SI)
	QGROUP
	ADDQ       $88, SI
	ADDQ       $512, DI
	ADDQ       $128, BX
	ADDQ       $64, R10
	ADDQ       $64, R11
	SUBQ       $4, CX
	JMP        qloop4

qtail:
	TESTQ           CX, CX
	JEQ             qdone
	VBROADCASTI32X4 6(SI), Z16
	VPSRLVD         Z30, Z16, Z16
	VPANDD          Z31, Z16, Z16
	MOVL            2(SI), AX
	MOVQ            AX, R9
	SHLQ            $32, R9
	ORQ             R9, AX
	KMOVQ           AX, K1
	VPADDB          Z29, Z16, K1, Z16
	MOVWLZX         0(SI), AX
	VMOVD           AX, X9
	VCVTPH2PS       X9, X9
	VBROADCASTSS    X9, Z9
	QTAILPAIR(0(BX), 0(BX)(R12*1), 0(R10), 4(R10), Z25)
	QTAILPAIR(0(BX)(R12*2), 0(BX)(R14*1), 8(R10), 12(R10), Z26)

	// The offset term goes to each token's lane 0 (lane t), as the
	// decode kernel's VFMADD231SS to X13's low lane.
	VMOVUPS     (R11), X8
	VFMADD231PS Z8, Z9, K3, Z20
	ADDQ        $22, SI
	ADDQ        $32, BX
	ADDQ        $16, R10
	ADDQ        $16, R11
	DECQ        CX
	JMP         qtail

qdone:
	// LROWEND for the four tokens: Z24 to lane 4t+b, and the leftover
	// sums' lanes 0–3 (Z10) and 4–7 (Z11) of each token side by side
	// likewise; then per token (tail_i + acc_i) + (tail_{i+4} + 0) and the
	// decode kernel's own two VHADDPS, two tokens per YMM. The offset
	// lanes go to lane 4t+b too (Z14, as VHADDPS has no EVEX form) and
	// take their two VHADDPS likewise, then ×16 and the subtraction.
	VPERMPS       Z24, Z27, Z24
	VSHUFF32X4    $0x88, Z26, Z25, Z10
	VSHUFF32X4    $0xdd, Z26, Z25, Z11
	VPXORD        Z12, Z12, Z12
	VADDPS        Z24, Z10, Z10
	VADDPS        Z12, Z11, Z11
	VADDPS        Z11, Z10, Z10
	VEXTRACTF64X4 $1, Z10, Y11
	VHADDPS       Y10, Y10, Y10
	VHADDPS       Y10, Y10, Y10
	VHADDPS       Y11, Y11, Y11
	VHADDPS       Y11, Y11, Y11
	VPERMPS       Z20, Z27, Z14
	VEXTRACTF64X4 $1, Z14, Y15
	VHADDPS       Y14, Y14, Y14
	VHADDPS       Y14, Y14, Y14
	VHADDPS       Y15, Y15, Y15
	VHADDPS       Y15, Y15, Y15
	VMULPS        Y22, Y14, Y14
	VMULPS        Y22, Y15, Y15
	VSUBPS        Y14, Y10, Y10
	VSUBPS        Y15, Y11, Y11
	MOVQ          ostride+64(FP), AX
	SHLQ          $2, AX
	VMOVSS        X10, (R13)
	VEXTRACTF128  $1, Y10, X12
	VMOVSS        X12, (R13)(AX*1)
	VMOVSS        X11, (R13)(AX*2)
	VEXTRACTF128  $1, Y11, X12
	LEAQ          (AX)(AX*2), AX
	VMOVSS        X12, (R13)(AX*1)
	ADDQ          $4, R13
	DECQ          R8
	JMP           qrow

qend:
	VZEROUPPER
	RET
