#include "textflag.h"
#include "e8m0_amd64.h"

// Four-token prefill kernels for Q4_1, Q5_0, Q5_1, IQ4_NL and MXFP4, and
// a two-token one for BF16. As in gemm_amd64.s, one pass over a weight row
// serves several tokens: what depends on the weights alone (the nibbles,
// the fifth bits from qh, IQ4_NL's table lookup, the f16 scales) is decoded
// once, and each token then does exactly the float operations of its
// one-token Rows kernel (dot_legacy_amd64.s, dot_amd64.s) with the same
// operands in the same order, so a token's results do not depend on how the
// prompt was batched. The integer sums feeding those float operations are
// exact however they are formed, so they are formed here with the cheapest
// instructions that give the same numbers in the same lanes.
//
// The one-token kernels run a row four blocks at a time into a four-lane
// accumulator (X1: lane i gathers block 4g+i's d·dx·Σ), then the 0–3 blocks
// left over one at a time into an eight-lane one (Y0), and keep the offset
// terms (m·(dx·Σxq), or Q5_0's d·(dx·Σxq)) in a third (X13, four lanes for
// the groups, the low lane for the leftover blocks). Here:
//
//   - the four-lane accumulators of two tokens share one register, the first
//     token's lanes low and the second's high (Y12: tokens 0|1, Y11: 2|3),
//     so one convert, multiply and FMA serve two tokens;
//   - the leftover blocks use Y0..Y3, one per token;
//   - Q4_1's offset terms gather in the main loop, paired as above (Y9:
//     tokens 0|1, Y10: 2|3); Q5_0's and Q5_1's, which do not depend on the
//     codes, in a second, cheap pass over the row's scales once the main one
//     is done (X4..X7, one per token), as gemm_amd64.s's Q4_0 kernel does,
//     since their kernels need Y8..Y10 for the fifth bits;
//   - a row's closing sums are the one-token kernels' additions, for two
//     or four tokens per instruction.
//
// Register roles in the four-token kernels:
//
//	SI  weights (the current block)
//	DI  token 0's activation codes      R12 bytes from one token's codes to the next (32·nb); R14 = 3·R12
//	R10 token 0's activation scales dx
//	R11 token 0's block sums dx·Σxq (Q4_1); the row's first block, for the second pass (Q5_0, Q5_1)
//	DX  bytes from one token's scales or sums to the next (4·nb); BX = 3·DX
//	R13 out[row]   R8 rows left   CX blocks left   AX, R9 scratch
//	Y15 int16 ones   Y14 nibble mask 0x0F   Y13 the group's four d, in both lanes
//	Y12, Y11 the four-lane accumulators of tokens 0|1, 2|3
//	Y0..Y3 the group's four blocks of codes; in the leftover blocks and at
//	       the row's end, tokens 0..3's eight-lane sums
//	Y4..Y7 scratch; Y8 scratch too, but GQH's byte shuffle in Q5_0 and Q5_1
//	Y9, Y10 Q4_1: the offset sums of tokens 0|1, 2|3; Q5_0, Q5_1: GQH's
//	       other constants; IQ4_NL: Y9 scratch, Y10 the table of levels
//	In the second pass: X4..X7 tokens 0..3's offset sums, X12 scratch (the
//	accumulators Y11, Y12 are folded by then)

// LPF is how far ahead the weights are prefetched, as in dot_legacy_amd64.s:
// the first four tokens of a tile read its rows from DRAM.
#define LPF 2048

#define GONES16_Y15 \
	MOVL         $0x00010001, AX; \
	VMOVD        AX, X15; \
	VPBROADCASTD X15, Y15

#define GMASK0F_Y14 \
	MOVL         $0x0f0f0f0f, AX; \
	VMOVD        AX, X14; \
	VPBROADCASTD X14, Y14

// GSTRIDES sets R12, R14, DX and BX (the tokens' strides, see above) from
// the argument nb.
#define GSTRIDES(nb) \
	MOVQ nb, R12; \
	SHLQ $5, R12; \
	LEAQ (R12)(R12*2), R14; \
	MOVQ nb, DX; \
	SHLQ $2, DX; \
	LEAQ (DX)(DX*2), BX

// GF16 loads the half at off(SI) into the low float lane of reg.
#define GF16(off, reg) \
	MOVWLZX   off(SI), AX; \
	VMOVD     AX, reg; \
	VCVTPH2PS reg, reg

// GHALVES4 converts the f16 fields at off0..off3(base) (the same field of
// four blocks) into x's four float lanes, packed in AX as
// dot_legacy_amd64.s's LHALVES4 does. Clobbers R9.
#define GHALVES4(base, off0, off1, off2, off3, x) \
	MOVWQZX   off0(base), AX; \
	MOVWQZX   off1(base), R9; \
	SHLQ      $16, R9; \
	ORQ       R9, AX; \
	MOVWQZX   off2(base), R9; \
	SHLQ      $32, R9; \
	ORQ       R9, AX; \
	MOVWQZX   off3(base), R9; \
	SHLQ      $48, R9; \
	ORQ       R9, AX; \
	VMOVQ     AX, x; \
	VCVTPH2PS x, x

// GDVEC sets Y13 to the four blocks' d (f16 at off0..off3(SI)) in both lanes,
// to scale two tokens at once.
#define GDVEC(off0, off1, off2, off3) \
	GHALVES4(SI, off0, off1, off2, off3, X13); \
	VINSERTF128 $1, X13, Y13, Y13

// GNIBBLES loads the 16 bytes of nibbles at off(SI) into reg as 32 codes
// 0..15, low nibbles in the low lane and high ones in the high lane, as
// dot_legacy_amd64.s's LNIBBLES does.
#define GNIBBLES(off, reg) \
	VBROADCASTI128 off(SI), reg; \
	VPSRLVD        glNibbleShift<>(SB), reg, reg; \
	VPAND          Y14, reg, reg

// GQH expands the 32 fifth bits at off(SI) into reg as bytes 0x10 or 0,
// as LQH does (Y8: the byte shuffle, Y9: the bit of each byte, Y10: 0x10).
#define GQH(off, reg) \
	VPBROADCASTD off(SI), reg; \
	VPSHUFB      Y8, reg, reg; \
	VPAND        Y9, reg, reg; \
	VPCMPEQB     Y9, reg, reg; \
	VPAND        Y10, reg, reg

// GQHCONSTS loads GQH's three constants.
#define GQHCONSTS \
	VMOVDQU      glQHShuf<>(SB), Y8; \
	MOVQ         $0x8040201008040201, AX; \
	VMOVQ        AX, X9; \
	VPBROADCASTQ X9, Y9; \
	MOVL         $0x10101010, AX; \
	VMOVD        AX, X10; \
	VPBROADCASTD X10, Y10

// GCODES5 sets reg to the 32 five-bit codes of the block whose fifth bits
// are at qh(SI) and nibbles at qs(SI). Clobbers Y4 (reg is not Y4).
#define GCODES5(qh, qs, reg) \
	GQH(qh, Y4); \
	GNIBBLES(qs, reg); \
	VPOR Y4, reg, reg

// Byte j of the shuffle is j/8 modulo the lane (see legacyQHShuf).
DATA glQHShuf<>+0(SB)/8, $0x0000000000000000
DATA glQHShuf<>+8(SB)/8, $0x0101010101010101
DATA glQHShuf<>+16(SB)/8, $0x0202020202020202
DATA glQHShuf<>+24(SB)/8, $0x0303030303030303
GLOBL glQHShuf<>(SB), RODATA|NOPTR, $32

// Dword shift counts for GNIBBLES: 0 in the low lane, 4 in the high one.
DATA glNibbleShift<>+0(SB)/8, $0
DATA glNibbleShift<>+8(SB)/8, $0
DATA glNibbleShift<>+16(SB)/8, $0x0000000400000004
DATA glNibbleShift<>+24(SB)/8, $0x0000000400000004
GLOBL glNibbleShift<>(SB), RODATA|NOPTR, $32

// kvalues_iq4nl as signed bytes (iq4nlValues in quant_legacy.go).
DATA glIQ4NLValues<>+0(SB)/8, $0xf6eaddcfbfad9881
DATA glIQ4NLValues<>+8(SB)/8, $0x7159453526190d01
GLOBL glIQ4NLValues<>(SB), RODATA|NOPTR, $16

// MXFP4's doubled E2M1 values as signed bytes (mxfp4Values in
// quant_mxfp4.go).
DATA glMXFP4Values<>+0(SB)/8, $0x0c08060403020100
DATA glMXFP4Values<>+8(SB)/8, $0xf4f8fafcfdfeff00
GLOBL glMXFP4Values<>(SB), RODATA|NOPTR, $16

// GTOK16 leaves in r0 one token's sums of code × activation over the
// group's four blocks (codes in Y0..Y3, the token's activations at a0..a3):
// per lane [Σ0, Σ1, Σ2, Σ3] as int32, the low lane over weights 0..15 and
// the high one over 16..31, as the one-token kernels' VPHADDD fold has them
// before its lane fold. The pair sums are added as int16 first (two levels
// of VPHADDW) and widened once: with codes ≤ 31 and |xq| ≤ 128, eight
// products are at most 31744, inside int16, so every sum is exact and the
// same number the one-token kernel forms with four VPMADDWD and three
// VPHADDD. (VPHADDW is slow on the Zen 5 this was written on, two cycles
// each, but the transposes that avoid it, VPUNPCK* and VPADDW, need twice
// the instructions and measured 5–9 % slower.) Clobbers r1, r2.
#define GTOK16(a0, a1, a2, a3, r0, r1, r2) \
	VPMADDUBSW a0, Y0, r0; \
	VPMADDUBSW a1, Y1, r1; \
	VPHADDW    r1, r0, r0; \
	VPMADDUBSW a2, Y2, r1; \
	VPMADDUBSW a3, Y3, r2; \
	VPHADDW    r2, r1, r1; \
	VPHADDW    r1, r0, r0; \
	VPMADDWD   Y15, r0, r0

// GPAIRFIN finishes a group for two tokens A and B whose GTOK sums are in
// ra and rb: it adds each token's high lane to its low one, giving
// [A's Σ0…Σ3 | B's Σ0…Σ3], converts, and adds them times d·dx (dA, dB: the
// tokens' four scales dx) to acc, [A | B]: per token the one-token
// kernel's VMULPS (d·dx, d first) and VFMADD231PS (d·dx · Σ + acc).
// Clobbers ra, t.
#define GPAIRFIN(ra, rb, t, tx, dA, dB, acc) \
	VPERM2I128  $0x20, rb, ra, t; \
	VPERM2I128  $0x31, rb, ra, ra; \
	VPADDD      t, ra, ra; \
	VCVTDQ2PS   ra, ra; \
	VMOVUPS     dA, tx; \
	VINSERTF128 $1, dB, t, t; \
	VMULPS      t, Y13, t; \
	VFMADD231PS ra, t, acc

// GPAIRS16 runs a group of four Q4_1/Q5_0/Q5_1 blocks (codes in Y0..Y3, d
// in Y13) for the four tokens.
#define GPAIRS16 \
	GTOK16(0(DI), 32(DI), 64(DI), 96(DI), Y4, Y5, Y6); \
	GTOK16(0(DI)(R12*1), 32(DI)(R12*1), 64(DI)(R12*1), 96(DI)(R12*1), Y5, Y6, Y7); \
	GPAIRFIN(Y4, Y5, Y6, X6, 0(R10), 0(R10)(DX*1), Y12); \
	GTOK16(0(DI)(R12*2), 32(DI)(R12*2), 64(DI)(R12*2), 96(DI)(R12*2), Y4, Y5, Y6); \
	GTOK16(0(DI)(R14*1), 32(DI)(R14*1), 64(DI)(R14*1), 96(DI)(R14*1), Y5, Y6, Y7); \
	GPAIRFIN(Y4, Y5, Y6, X6, 0(R10)(DX*2), 0(R10)(BX*1), Y11)

// GTAILTOK is one token's share of a leftover block whose codes are in Y4
// and d in all of Y5's lanes, as the one-token kernels' one-block macros do
// it: d·dx (d first) in every lane (they multiply, then broadcast; here the
// broadcast is the load's), times the eight converted int32 pair sums,
// added to acc. Clobbers Y6, Y7.
#define GTAILTOK(xaddr, daddr, acc) \
	VBROADCASTSS daddr, Y6; \
	VMULPS       Y6, Y5, Y6; \
	VPMADDUBSW   xaddr, Y4, Y7; \
	VPMADDWD     Y15, Y7, Y7; \
	VCVTDQ2PS    Y7, Y7; \
	VFMADD231PS  Y7, Y6, acc

// GTAIL4 runs a leftover block (codes in Y4, d in Y5) for the four tokens.
#define GTAIL4 \
	GTAILTOK(0(DI), 0(R10), Y0); \
	GTAILTOK(0(DI)(R12*1), 0(R10)(DX*1), Y1); \
	GTAILTOK(0(DI)(R12*2), 0(R10)(DX*2), Y2); \
	GTAILTOK(0(DI)(R14*1), 0(R10)(BX*1), Y3)

// GZERO4 clears Y0..Y3 for the leftover blocks.
#define GZERO4 \
	VXORPS Y0, Y0, Y0; \
	VXORPS Y1, Y1, Y1; \
	VXORPS Y2, Y2, Y2; \
	VXORPS Y3, Y3, Y3

// GFOLDPAIR is LROWEND's first half for two tokens A and B, whose
// leftover sums are in ya and yb and four-lane accumulators in acc, [A | B]:
// the one-token kernel adds its four-lane accumulator as an eight-lane
// register whose upper half is zero (X1 as Y1), so each token's sums get
// acc in the low half and zero in the high one; then the high half goes onto
// the low one. Here the two tokens' low halves gather in rl and their high
// halves in rh, so each addition serves both: rl = [A's 4 sums | B's 4].
// zero is a zeroed register. Clobbers rh.
#define GFOLDPAIR(ya, yb, acc, rl, rh, zero) \
	VPERM2F128 $0x20, yb, ya, rl; \
	VPERM2F128 $0x31, yb, ya, rh; \
	VADDPS     acc, rl, rl; \
	VADDPS     zero, rh, rh; \
	VADDPS     rh, rl, rl

// GROWEND4 folds the four tokens' sums: GFOLDPAIR for tokens 0|1 and 2|3,
// then the one-token kernel's two VHADDPS, each serving all four tokens
// (per lane VHADDPS adds elements 0+1 and 2+3 of each source). It leaves
// token 0's sum in lane 0 of Y0, token 2's in lane 1, token 1's in lane 4
// and token 3's in lane 5. Clobbers Y4..Y7.
#define GROWEND4 \
	VXORPS  Y7, Y7, Y7; \
	GFOLDPAIR(Y0, Y1, Y12, Y4, Y5, Y7); \
	GFOLDPAIR(Y2, Y3, Y11, Y6, Y5, Y7); \
	VHADDPS Y6, Y4, Y0; \
	VHADDPS Y0, Y0, Y0

// GSTORE4 writes the four tokens' results from Y0 (GROWEND4's layout) to
// out[t·ostride + row] (ostride is the argument's frame slot) and moves R13
// to the next row. Clobbers X1.
#define GSTORE4(ostride) \
	MOVQ         ostride, AX; \
	SHLQ         $2, AX; \
	VMOVSS       X0, (R13); \
	VEXTRACTPS   $1, X0, (R13)(AX*2); \
	VEXTRACTF128 $1, Y0, X1; \
	VMOVSS       X1, (R13)(AX*1); \
	LEAQ         (AX)(AX*2), AX; \
	VEXTRACTPS   $1, X1, (R13)(AX*1); \
	ADDQ         $4, R13

// GROWSTART starts a row: R11 keeps its first block, DI, R10 and CX go
// back to the start of the tokens' activations, and the accumulators clear.
#define GROWSTART(xq, xd, nb) \
	MOVQ   SI, R11; \
	MOVQ   xq, DI; \
	MOVQ   xd, R10; \
	MOVQ   nb, CX; \
	VXORPS Y12, Y12, Y12; \
	VXORPS Y11, Y11, Y11

// Q4_1's offset terms in the main loop (Y9: tokens 0|1, Y10: 2|3).

// GMGRP adds a group's offset terms: the f16 m at off0..off3(SI) of four
// blocks, in both lanes of Y8, times the tokens' block sums at R11, as the
// one-token kernel's VFMADD231PS into X13 (m first). Clobbers Y6, Y8.
#define GMGRP(off0, off1, off2, off3) \
	GHALVES4(SI, off0, off1, off2, off3, X8); \
	VINSERTF128 $1, X8, Y8, Y8; \
	VMOVUPS     (R11), X6; \
	VINSERTF128 $1, (R11)(DX*1), Y6, Y6; \
	VFMADD231PS Y6, Y8, Y9; \
	VMOVUPS     (R11)(DX*2), X6; \
	VINSERTF128 $1, (R11)(BX*1), Y6, Y6; \
	VFMADD231PS Y6, Y8, Y10

// GMBLKPAIR is a leftover block's offset term for two tokens whose block
// sums are at sA and sB, into lanes 0 and 4 of acc (the one-token kernel's
// VFMADD231SS into X13's low lane): the FMA runs on all lanes of a copy and
// a blend keeps lanes 0 and 4. Y13 holds the block's m in every lane.
// Clobbers Y6, Y7.
#define GMBLKPAIR(sA, sB, acc) \
	VMOVSS       sA, X6; \
	VBROADCASTSS sB, Y7; \
	VBLENDPS     $0xf0, Y7, Y6, Y6; \
	VFMADD213PS  acc, Y13, Y6; \
	VBLENDPS     $0x11, Y6, acc, acc

// GMBLK is GMGRP for a leftover block whose m is at off(SI).
#define GMBLK(off) \
	GF16(off, X13); \
	VBROADCASTSS X13, Y13; \
	GMBLKPAIR((R11), (R11)(DX*1), Y9); \
	GMBLKPAIR((R11)(DX*2), (R11)(BX*1), Y10)

// GMFOLD folds Y9, Y10 as the one-token kernel's two VHADDPS on X13, into
// Y4 in GROWEND4's layout.
#define GMFOLD \
	VHADDPS Y10, Y9, Y4; \
	VHADDPS Y4, Y4, Y4

// The second pass of Q5_0 and Q5_1 (X4..X7: tokens 0..3).

// GMINZERO clears the second pass's accumulators X4..X7 (one per token, the
// one-token kernels' X13) and points R10 at token 0's block sums.
#define GMINZERO(xs) \
	VXORPS X4, X4, X4; \
	VXORPS X5, X5, X5; \
	VXORPS X6, X6, X6; \
	VXORPS X7, X7, X7; \
	MOVQ   xs, R10

// GMINGRP adds the f16 field at off0..off3(R11) (m, or Q5_0's d, of four
// blocks) times each token's four block sums to X4..X7: the one-token
// kernels' VFMADD231PS into X13.
#define GMINGRP(off0, off1, off2, off3) \
	GHALVES4(R11, off0, off1, off2, off3, X12); \
	VFMADD231PS (R10), X12, X4; \
	VFMADD231PS (R10)(DX*1), X12, X5; \
	VFMADD231PS (R10)(DX*2), X12, X6; \
	VFMADD231PS (R10)(BX*1), X12, X7

// GMINBLK is GMINGRP for one leftover block: the one-token kernels'
// VFMADD231SS into X13's low lane.
#define GMINBLK(off) \
	MOVWLZX     off(R11), AX; \
	VMOVD       AX, X12; \
	VCVTPH2PS   X12, X12; \
	VFMADD231SS (R10), X12, X4; \
	VFMADD231SS (R10)(DX*1), X12, X5; \
	VFMADD231SS (R10)(DX*2), X12, X6; \
	VFMADD231SS (R10)(BX*1), X12, X7

// GMINFOLD is LROWEND's second half: the one-token kernel's two VHADDPS on
// X13, for X4..X7 with four tokens per instruction, into Y4 in GROWEND4's
// layout. Clobbers Y6.
#define GMINFOLD \
	VINSERTF128 $1, X5, Y4, Y4; \
	VINSERTF128 $1, X7, Y6, Y6; \
	VHADDPS     Y6, Y4, Y4; \
	VHADDPS     Y4, Y4, Y4

// func gemm4Q4_1AVX2(w *byte, xq *int8, xd, xs *float32, nb, rows int, out *float32, ostride int)
//
// For rows consecutive Q4_1 rows of nb blocks and four tokens whose codes
// are xq + t·32·nb, scales xd + t·nb and block sums xs + t·nb:
// out[t·ostride + r] = row r · token t, as dotQ4_1RowsAVX2 computes it.
TEXT ·gemm4Q4_1AVX2(SB), NOSPLIT, $0-64
	MOVQ w+0(FP), SI
	GSTRIDES(nb+32(FP))
	MOVQ out+48(FP), R13
	MOVQ rows+40(FP), R8
	GONES16_Y15
	GMASK0F_Y14

g41row:
	TESTQ  R8, R8
	JEQ    g41end
	GROWSTART(xq+8(FP), xd+16(FP), nb+32(FP))
	MOVQ   xs+24(FP), R11
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10

g41loop4:
	CMPQ       CX, $4
	JLT        g41tail0
	PREFETCHT0 LPF(SI)
	PREFETCHT0 LPF+64(SI)
	GMGRP(2, 22, 42, 62)
	GNIBBLES(4, Y0)
	GNIBBLES(24, Y1)
	GNIBBLES(44, Y2)
	GNIBBLES(64, Y3)
	GDVEC(0, 20, 40, 60)
	GPAIRS16
	ADDQ       $80, SI
	ADDQ       $128, DI
	ADDQ       $16, R10
	ADDQ       $16, R11
	SUBQ       $4, CX
	JMP        g41loop4

g41tail0:
	GZERO4

g41tail:
	TESTQ        CX, CX
	JEQ          g41done
	GMBLK(2)
	GNIBBLES(4, Y4)
	GF16(0, X5)
	VBROADCASTSS X5, Y5
	GTAIL4
	ADDQ         $20, SI
	ADDQ         $32, DI
	ADDQ         $4, R10
	ADDQ         $4, R11
	DECQ         CX
	JMP          g41tail

g41done:
	GROWEND4
	GMFOLD
	VADDPS Y4, Y0, Y0          // sum + offset sum (the one-token kernel's VADDSS)
	GSTORE4(ostride+56(FP))
	DECQ   R8
	JMP    g41row

g41end:
	VZEROUPPER
	RET

// func gemm4Q5_0AVX2(w *byte, xq *int8, xd, xs *float32, nb, rows int, out *float32, ostride int)
//
// As gemm4Q4_1AVX2 for Q5_0 (22-byte blocks: d, qh, qs), as
// dotQ5_0RowsAVX2 computes it: the offset sum is of d, taken 16 times and
// subtracted.
TEXT ·gemm4Q5_0AVX2(SB), NOSPLIT, $0-64
	MOVQ w+0(FP), SI
	GSTRIDES(nb+32(FP))
	MOVQ out+48(FP), R13
	MOVQ rows+40(FP), R8
	GONES16_Y15
	GMASK0F_Y14
	GQHCONSTS

g50row:
	TESTQ R8, R8
	JEQ   g50end
	GROWSTART(xq+8(FP), xd+16(FP), nb+32(FP))

g50loop4:
	CMPQ       CX, $4
	JLT        g50tail0
	PREFETCHT0 LPF(SI)
	PREFETCHT0 LPF+64(SI)
	GCODES5(2, 6, Y0)
	GCODES5(24, 28, Y1)
	GCODES5(46, 50, Y2)
	GCODES5(68, 72, Y3)
	GDVEC(0, 22, 44, 66)
	GPAIRS16
	ADDQ       $88, SI
	ADDQ       $128, DI
	ADDQ       $16, R10
	SUBQ       $4, CX
	JMP        g50loop4

g50tail0:
	GZERO4

g50tail:
	TESTQ        CX, CX
	JEQ          g50done
	GQH(2, Y5)
	GNIBBLES(6, Y4)
	VPOR         Y5, Y4, Y4
	GF16(0, X5)
	VBROADCASTSS X5, Y5
	GTAIL4
	ADDQ         $22, SI
	ADDQ         $32, DI
	ADDQ         $4, R10
	DECQ         CX
	JMP          g50tail

g50done:
	GROWEND4
	GMINZERO(xs+24(FP))
	MOVQ nb+32(FP), CX

g50min4:
	CMPQ CX, $4
	JLT  g50min1
	GMINGRP(0, 22, 44, 66)
	ADDQ $88, R11
	ADDQ $16, R10
	SUBQ $4, CX
	JMP  g50min4

g50min1:
	TESTQ CX, CX
	JEQ   g50mindone
	GMINBLK(0)
	ADDQ  $22, R11
	ADDQ  $4, R10
	DECQ  CX
	JMP   g50min1

g50mindone:
	GMINFOLD
	MOVL         $0x41800000, AX     // 16.0
	VMOVD        AX, X12
	VBROADCASTSS X12, Y12
	VMULPS       Y12, Y4, Y4         // 16·offset sum, minus: the one-token kernel's VMULSS, VSUBSS
	VSUBPS       Y4, Y0, Y0
	GSTORE4(ostride+56(FP))
	DECQ         R8
	JMP          g50row

g50end:
	VZEROUPPER
	RET

// func gemm4Q5_1AVX2(w *byte, xq *int8, xd, xs *float32, nb, rows int, out *float32, ostride int)
//
// As gemm4Q4_1AVX2 for Q5_1 (24-byte blocks: d, m, qh, qs), as
// dotQ5_1RowsAVX2 computes it.
TEXT ·gemm4Q5_1AVX2(SB), NOSPLIT, $0-64
	MOVQ w+0(FP), SI
	GSTRIDES(nb+32(FP))
	MOVQ out+48(FP), R13
	MOVQ rows+40(FP), R8
	GONES16_Y15
	GMASK0F_Y14
	GQHCONSTS

g51row:
	TESTQ R8, R8
	JEQ   g51end
	GROWSTART(xq+8(FP), xd+16(FP), nb+32(FP))

g51loop4:
	CMPQ       CX, $4
	JLT        g51tail0
	PREFETCHT0 LPF(SI)
	PREFETCHT0 LPF+64(SI)
	GCODES5(4, 8, Y0)
	GCODES5(28, 32, Y1)
	GCODES5(52, 56, Y2)
	GCODES5(76, 80, Y3)
	GDVEC(0, 24, 48, 72)
	GPAIRS16
	ADDQ       $96, SI
	ADDQ       $128, DI
	ADDQ       $16, R10
	SUBQ       $4, CX
	JMP        g51loop4

g51tail0:
	GZERO4

g51tail:
	TESTQ        CX, CX
	JEQ          g51done
	GQH(4, Y5)
	GNIBBLES(8, Y4)
	VPOR         Y5, Y4, Y4
	GF16(0, X5)
	VBROADCASTSS X5, Y5
	GTAIL4
	ADDQ         $24, SI
	ADDQ         $32, DI
	ADDQ         $4, R10
	DECQ         CX
	JMP          g51tail

g51done:
	GROWEND4
	GMINZERO(xs+24(FP))
	MOVQ nb+32(FP), CX

g51min4:
	CMPQ CX, $4
	JLT  g51min1
	GMINGRP(2, 26, 50, 74)
	ADDQ $96, R11
	ADDQ $16, R10
	SUBQ $4, CX
	JMP  g51min4

g51min1:
	TESTQ CX, CX
	JEQ   g51mindone
	GMINBLK(2)
	ADDQ  $24, R11
	ADDQ  $4, R10
	DECQ  CX
	JMP   g51min1

g51mindone:
	GMINFOLD
	VADDPS Y4, Y0, Y0          // sum + offset sum (the one-token kernel's VADDSS)
	GSTORE4(ostride+56(FP))
	DECQ   R8
	JMP    g51row

g51end:
	VZEROUPPER
	RET

// IQ4_NL's levels are signed (−127…113), and VPMADDUBSW wants one operand
// unsigned, so the one-token kernel moves each level's sign onto the
// activation (VPSIGNB) and multiplies its magnitude. The levels are
// decoded once per group: their magnitudes stay in Y0..Y3 and the signed
// levels go to the frame (lv0..lv3), where each token's VPSIGNB reads them
// as a memory operand. Products reach 2·127·128 per pair, too much for
// GTOK16's int16 sums, so the pair sums widen at once, as in the one-token
// kernel, and the transpose runs on int32.

// GIQLEVELS decodes the IQ4_NL block whose nibbles are at off(SI): its
// signed levels to lv, their magnitudes to reg.
#define GIQLEVELS(off, reg, lv) \
	GNIBBLES(off, reg); \
	VPSHUFB reg, Y10, reg; \
	VMOVDQU reg, lv; \
	VPABSB  reg, reg

// GIQBLK leaves in r the eight int32 pair sums of a token's activations at
// xaddr against the block whose magnitudes are in mag and levels at lv.
#define GIQBLK(xaddr, mag, lv, r) \
	VMOVDQU    xaddr, r; \
	VPSIGNB    lv, r, r; \
	VPMADDUBSW r, mag, r; \
	VPMADDWD   Y15, r, r

// GIQTOK is GTOK16 for IQ4_NL: each block's eight int32 sums, transposed
// by interleaving dwords (blocks 0 with 1, 2 with 3) and adding, then
// qwords, and adding: per lane [Σ0, Σ1, Σ2, Σ3]. Clobbers r1..r3.
#define GIQTOK(a0, a1, a2, a3, r0, r1, r2, r3) \
	GIQBLK(a0, Y0, lv0-128(SP), r0); \
	GIQBLK(a1, Y1, lv1-96(SP), r1); \
	VPUNPCKLDQ  r1, r0, r2; \
	VPUNPCKHDQ  r1, r0, r0; \
	VPADDD      r2, r0, r0; \
	GIQBLK(a2, Y2, lv2-64(SP), r1); \
	GIQBLK(a3, Y3, lv3-32(SP), r2); \
	VPUNPCKLDQ  r2, r1, r3; \
	VPUNPCKHDQ  r2, r1, r1; \
	VPADDD      r3, r1, r1; \
	VPUNPCKLQDQ r1, r0, r2; \
	VPUNPCKHQDQ r1, r0, r0; \
	VPADDD      r2, r0, r0

// GIQTAILTOK is GTAILTOK for an IQ4_NL block whose levels are in Y8 and
// magnitudes in Y4.
#define GIQTAILTOK(xaddr, daddr, acc) \
	VBROADCASTSS daddr, Y6; \
	VMULPS       Y6, Y5, Y6; \
	VMOVDQU      xaddr, Y7; \
	VPSIGNB      Y8, Y7, Y7; \
	VPMADDUBSW   Y7, Y4, Y7; \
	VPMADDWD     Y15, Y7, Y7; \
	VCVTDQ2PS    Y7, Y7; \
	VFMADD231PS  Y7, Y6, acc

// func gemm4IQ4NLAVX2(w *byte, xq *int8, xd *float32, nb, rows int, out *float32, ostride int)
//
// As gemm4Q4_1AVX2 for IQ4_NL (18-byte blocks: d, qs), as
// dotIQ4NLRowsAVX2 computes it; there is no offset sum. Y10 holds the
// table of levels in both lanes; the frame holds the group's levels.
TEXT ·gemm4IQ4NLAVX2(SB), NOSPLIT, $128-56
	MOVQ           w+0(FP), SI
	GSTRIDES(nb+24(FP))
	MOVQ           out+40(FP), R13
	MOVQ           rows+32(FP), R8
	GONES16_Y15
	GMASK0F_Y14
	VBROADCASTI128 glIQ4NLValues<>(SB), Y10

giqrow:
	TESTQ R8, R8
	JEQ   giqend
	GROWSTART(xq+8(FP), xd+16(FP), nb+24(FP))

giqloop4:
	CMPQ       CX, $4
	JLT        giqtail0
	PREFETCHT0 LPF(SI)
	PREFETCHT0 LPF+64(SI)
	GIQLEVELS(2, Y0, lv0-128(SP))
	GIQLEVELS(20, Y1, lv1-96(SP))
	GIQLEVELS(38, Y2, lv2-64(SP))
	GIQLEVELS(56, Y3, lv3-32(SP))
	GDVEC(0, 18, 36, 54)
	GIQTOK(0(DI), 32(DI), 64(DI), 96(DI), Y4, Y5, Y6, Y7)
	GIQTOK(0(DI)(R12*1), 32(DI)(R12*1), 64(DI)(R12*1), 96(DI)(R12*1), Y5, Y6, Y7, Y8)
	GPAIRFIN(Y4, Y5, Y6, X6, 0(R10), 0(R10)(DX*1), Y12)
	GIQTOK(0(DI)(R12*2), 32(DI)(R12*2), 64(DI)(R12*2), 96(DI)(R12*2), Y4, Y5, Y6, Y7)
	GIQTOK(0(DI)(R14*1), 32(DI)(R14*1), 64(DI)(R14*1), 96(DI)(R14*1), Y5, Y6, Y7, Y8)
	GPAIRFIN(Y4, Y5, Y6, X6, 0(R10)(DX*2), 0(R10)(BX*1), Y11)
	ADDQ       $72, SI
	ADDQ       $128, DI
	ADDQ       $16, R10
	SUBQ       $4, CX
	JMP        giqloop4

giqtail0:
	GZERO4

giqtail:
	TESTQ        CX, CX
	JEQ          giqdone
	GNIBBLES(2, Y8)
	VPSHUFB      Y8, Y10, Y8
	VPABSB       Y8, Y4
	GF16(0, X5)
	VBROADCASTSS X5, Y5
	GIQTAILTOK(0(DI), 0(R10), Y0)
	GIQTAILTOK(0(DI)(R12*1), 0(R10)(DX*1), Y1)
	GIQTAILTOK(0(DI)(R12*2), 0(R10)(DX*2), Y2)
	GIQTAILTOK(0(DI)(R14*1), 0(R10)(BX*1), Y3)
	ADDQ         $18, SI
	ADDQ         $32, DI
	ADDQ         $4, R10
	DECQ         CX
	JMP          giqtail

giqdone:
	GROWEND4
	GSTORE4(ostride+48(FP))
	DECQ R8
	JMP  giqrow

giqend:
	VZEROUPPER
	RET

// BF16 weights against float32 activations for prefill: gemm2F16AVX2
// (f16_amd64.s) with dotBF16RowsAVX2's widening (a bfloat16 is the high
// half of a float32, so the conversion is a zero-extend and a shift, and
// exact). One pass over a weight row serves two tokens, so each 8-element
// group is widened once per two tokens; per token the arithmetic is
// dotBF16RowsAVX2's in the same order: groups of 32 over four accumulators,
// a tail of 8s into the first, then (a0+a1)+(a2+a3) and the same horizontal
// sum.

// GBF16 widens the eight bfloat16s at addr into y's float lanes.
#define GBF16(addr, y) \
	VPMOVZXWD addr, y; \
	VPSLLD    $16, y, y

// GBF16FOLD folds accumulators a0..a3 as dotBF16RowsAVX2 does, into the low
// lane of x0 (the low half of a0). Clobbers xt.
#define GBF16FOLD(a0, a1, a2, a3, x0, xt) \
	VADDPS       a1, a0, a0; \
	VADDPS       a3, a2, a2; \
	VADDPS       a2, a0, a0; \
	VEXTRACTF128 $1, a0, xt; \
	VADDPS       xt, x0, x0; \
	VHADDPS      x0, x0, x0; \
	VHADDPS      x0, x0, x0

// func gemm2BF16AVX2(w *uint16, x *float32, n, rows int, out *float32, ostride int)
//
// For rows consecutive rows of n elements (n a multiple of 8) and two tokens
// x and x+n: out[t·ostride + r] = row r · token t. Registers: SI weights,
// DI token 0's activations, DX bytes from token 0's to token 1's, R13
// out[row], R12 ostride in bytes, R8 rows left, CX elements left; token 0
// accumulates in Y0..Y3, token 1 in Y4..Y7; Y8..Y11 the widened weights.
TEXT ·gemm2BF16AVX2(SB), NOSPLIT, $0-48
	MOVQ w+0(FP), SI
	MOVQ n+16(FP), DX
	SHLQ $2, DX
	MOVQ out+32(FP), R13
	MOVQ ostride+40(FP), R12
	SHLQ $2, R12
	MOVQ rows+24(FP), R8

gbf16row:
	TESTQ  R8, R8
	JEQ    gbf16end
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

gbf16loop32:
	CMPQ        CX, $32
	JLT         gbf16loop8
	PREFETCHT0  LPF(SI)
	GBF16(0(SI), Y8)
	GBF16(16(SI), Y9)
	GBF16(32(SI), Y10)
	GBF16(48(SI), Y11)
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
	JMP         gbf16loop32

gbf16loop8:
	CMPQ        CX, $8
	JLT         gbf16done
	GBF16(0(SI), Y8)
	VFMADD231PS (DI), Y8, Y0
	VFMADD231PS (DI)(DX*1), Y8, Y4
	ADDQ        $16, SI
	ADDQ        $32, DI
	SUBQ        $8, CX
	JMP         gbf16loop8

gbf16done:
	GBF16FOLD(Y0, Y1, Y2, Y3, X0, X1)
	GBF16FOLD(Y4, Y5, Y6, Y7, X4, X5)
	VMOVSS X0, (R13)
	VMOVSS X4, (R13)(R12*1)
	ADDQ   $4, R13
	DECQ   R8
	JMP    gbf16row

gbf16end:
	VZEROUPPER
	RET

// GMXDVEC is GDVEC for four MXFP4 blocks: Y13 their scales 2^(e−128)
// (E8M0HALF of the exponent bytes at 0, 17, 34 and 51(SI)) in both lanes.
// Clobbers AX, R9, X8 and X9.
#define GMXDVEC \
	E8M0BYTES4(SI, 0, 17, 34, 51, X13, R9); \
	E8M0C4(X9); \
	E8M0HALF(X13, X9, X8); \
	VINSERTF128 $1, X13, Y13, Y13

// func gemm4MXFP4AVX2(w *byte, xq *int8, xd *float32, nb, rows int, out *float32, ostride int)
//
// gemm4IQ4NLAVX2 for MXFP4 (17-byte blocks: e, qs), as dotMXFP4RowsAVX2
// computes it: Y10 holds MXFP4's levels, and the scales are E8M0HALF's.
TEXT ·gemm4MXFP4AVX2(SB), NOSPLIT, $128-56
	MOVQ           w+0(FP), SI
	GSTRIDES(nb+24(FP))
	MOVQ           out+40(FP), R13
	MOVQ           rows+32(FP), R8
	GONES16_Y15
	GMASK0F_Y14
	VBROADCASTI128 glMXFP4Values<>(SB), Y10

gmxrow:
	TESTQ R8, R8
	JEQ   gmxend
	GROWSTART(xq+8(FP), xd+16(FP), nb+24(FP))

gmxloop4:
	CMPQ       CX, $4
	JLT        gmxtail0
	PREFETCHT0 LPF(SI)
	PREFETCHT0 LPF+64(SI)
	GIQLEVELS(1, Y0, lv0-128(SP))
	GIQLEVELS(18, Y1, lv1-96(SP))
	GIQLEVELS(35, Y2, lv2-64(SP))
	GIQLEVELS(52, Y3, lv3-32(SP))
	GMXDVEC
	GIQTOK(0(DI), 32(DI), 64(DI), 96(DI), Y4, Y5, Y6, Y7)
	GIQTOK(0(DI)(R12*1), 32(DI)(R12*1), 64(DI)(R12*1), 96(DI)(R12*1), Y5, Y6, Y7, Y8)
	GPAIRFIN(Y4, Y5, Y6, X6, 0(R10), 0(R10)(DX*1), Y12)
	GIQTOK(0(DI)(R12*2), 32(DI)(R12*2), 64(DI)(R12*2), 96(DI)(R12*2), Y4, Y5, Y6, Y7)
	GIQTOK(0(DI)(R14*1), 32(DI)(R14*1), 64(DI)(R14*1), 96(DI)(R14*1), Y5, Y6, Y7, Y8)
	GPAIRFIN(Y4, Y5, Y6, X6, 0(R10)(DX*2), 0(R10)(BX*1), Y11)
	ADDQ       $68, SI
	ADDQ       $128, DI
	ADDQ       $16, R10
	SUBQ       $4, CX
	JMP        gmxloop4

gmxtail0:
	GZERO4

gmxtail:
	TESTQ        CX, CX
	JEQ          gmxdone
	GNIBBLES(1, Y8)
	VPSHUFB      Y8, Y10, Y8
	VPABSB       Y8, Y4
	MOVBLZX      0(SI), AX
	VMOVD        AX, X5
	E8M0C4(X9)
	E8M0HALF(X5, X9, X6)
	VBROADCASTSS X5, Y5
	GIQTAILTOK(0(DI), 0(R10), Y0)
	GIQTAILTOK(0(DI)(R12*1), 0(R10)(DX*1), Y1)
	GIQTAILTOK(0(DI)(R12*2), 0(R10)(DX*2), Y2)
	GIQTAILTOK(0(DI)(R14*1), 0(R10)(BX*1), Y3)
	ADDQ         $17, SI
	ADDQ         $32, DI
	ADDQ         $4, R10
	DECQ         CX
	JMP          gmxtail

gmxdone:
	GROWEND4
	GSTORE4(ostride+48(FP))
	DECQ R8
	JMP  gmxrow

gmxend:
	VZEROUPPER
	RET
