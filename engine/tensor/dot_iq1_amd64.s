#include "textflag.h"

// AVX2 + FMA + F16C kernels for TQ2_0 (layout in quant_iq1.go; dotTQ2Go in
// dot_iq1.go is the definition): the one-token Rows kernel here and the
// four-token prefill kernel (gemm4TQ2AVX2, with the IQ1-family kernels
// below), which gives each token the Rows kernel's integers and float
// operations, so a token's results do not depend on how the prompt was
// batched. Conventions as in dot_k23_amd64.s: SI weights, DI activation
// codes, R8 activation scales, R13 the output.
//
// TQ2_0 stores its codes as Q2_K does: activation block j of a super-block
// is bit pair j%4 of the 32 bytes qs[32(j/4):]. q − 1 is in −1..2, so
// Σ(q − 1)·xq = Σq·xq − Σxq, and Σxq = −m8/8 is the activations' own
// (quantizeAct), the same for every row: only VPMADDUBSW of the codes
// against xq runs per row, folded by three VPHADDW levels (block sums stay
// within 32·3·127, no overflow) to one word per 16 weights, lane 0 holding
// each block's first sixteen and lane 1 its second; adding the lanes gives
// the super-block's 8 block sums Σq·xq in order, and VPADDD of m8/8 the
// exact Σ(q − 1)·xq. (The kernels computed Σxq per row by a second
// VPMADDUBSW against bytes 1 before; the integers, and so the results,
// are the same.)

// TQ2BLOCK: pair sums q·xq of one activation block (codes at xoff(X), bit
// pair shift of the bytes in Y5) into t.
#define TQ2BLOCK(shift, X, xoff, t) \
	VPSRLW     $shift, Y5, Y6; \
	VPAND      Y13, Y6, Y6; \
	VPMADDUBSW xoff(X), Y6, t

// TQ2HALF: the 128 weights of one half (codes at qoff(SI), blocks from
// xoff(X)), two VPHADDW levels into tout. Clobbers Y1, Y3, Y5–Y7.
#define TQ2HALF(qoff, X, xoff, tout) \
	VMOVDQU qoff(SI), Y5; \
	TQ2BLOCK(0, X, xoff, Y1); \
	TQ2BLOCK(2, X, xoff+32, Y3); \
	VPHADDW Y3, Y1, Y1; \
	TQ2BLOCK(4, X, xoff+64, Y3); \
	TQ2BLOCK(6, X, xoff+96, Y7); \
	VPHADDW Y7, Y3, Y3; \
	VPHADDW Y3, Y1, tout

// TQ2SB: one super-block of one token (codes at X, scales at D, m8 at M):
// acc += (d·dx)·P per block lane. Clobbers Y1–Y3, Y5–Y7, Y11.
#define TQ2SB(X, D, M, acc) \
	TQ2HALF(0, X, 0, Y11); \
	TQ2HALF(32, X, 128, Y1); \
	VPHADDW      Y1, Y11, Y1; \
	VEXTRACTI128 $1, Y1, X2; \
	VPADDW       X2, X1, X1; \
	VPMOVSXWD    X1, Y1; \
	VMOVDQU      (M), Y2; \
	VPSRAD       $3, Y2, Y2; \
	VPADDD       Y2, Y1, Y1; \
	VCVTDQ2PS    Y1, Y1; \
	VPBROADCASTW 64(SI), X3; \
	VCVTPH2PS    X3, Y3; \
	VMULPS       (D), Y3, Y3; \
	VFMADD231PS  Y3, Y1, acc

// IQ1HSUM stores the eight float lanes of acc, summed, at dst.
// Clobbers Y0 (which it may be) and X1.
#define IQ1HSUM(acc, dst) \
	VMOVAPS      acc, Y0; \
	VEXTRACTF128 $1, Y0, X1; \
	VADDPS       X1, X0, X0; \
	VHADDPS      X0, X0, X0; \
	VHADDPS      X0, X0, X0; \
	VMOVSS       X0, dst

#define IQ1BCAST32(c, x, y) \
	MOVL         c, AX; \
	VMOVD        AX, x; \
	VPBROADCASTD x, y

// func dotTQ2RowsAVX2(w *byte, xq *int8, m8 *int32, xd *float32, nsb, rows int, out *float32)
TEXT ·dotTQ2RowsAVX2(SB), NOSPLIT, $0-56
	MOVQ rows+40(FP), BX
	MOVQ out+48(FP), R13
	MOVQ w+0(FP), SI
	IQ1BCAST32($0x03030303, X13, Y13)

tq2row:
	TESTQ  BX, BX
	JEQ    tq2end
	MOVQ   xq+8(FP), DI
	MOVQ   m8+16(FP), R14
	MOVQ   xd+24(FP), R8
	MOVQ   nsb+32(FP), CX
	VXORPS Y0, Y0, Y0

tq2loop:
	PREFETCHT0 2048(SI)
	TQ2SB(DI, R8, R14, Y0)
	ADDQ $66, SI
	ADDQ $256, DI
	ADDQ $32, R8
	ADDQ $32, R14
	DECQ CX
	JNZ  tq2loop

	IQ1HSUM(Y0, (R13))
	ADDQ $4, R13
	DECQ BX
	JMP  tq2row

tq2end:
	VZEROUPPER
	RET

// ---------------------------------------------------------------------------
// IQ1_S, IQ1_M and TQ1_0: dotIQ1SGo, dotIQ1MGo and dotTQ1Go (dot_iq1.go)
// are the definitions. A block of 32 weights is one 32-byte vector of
// signed byte weights: IQ1_S's grid values g (−1, 0, 1; its W = 8g ± 1
// with one δ = ±1 per block, taken apart in IQ1STOK), IQ1_M's W = 8g ± 1
// (−9..9, never 0, δ per run of 8) and TQ1_0's trits t (W = t − 1). A
// token's block is VPMADDUBSW(|W|, VPSIGNB(x, W)) = pair sums of W·x
// (≤ 2·9·127, no saturation); for IQ1_S, |g| is 0 or 1 and VPSIGNB(x, g)
// already the products, so its one-token kernel takes VPMADDUBSW against
// bytes 1. TQ1_0's four-token kernel keeps the trits t, unsigned, which
// multiply the codes as they are, Σxq coming from the activations' m8
// (TQ1TOK); its one-token kernel makes W = t − 1 (−1, 0, 1), one
// operation fewer than t, and sums VPSIGNB(x, W) as IQ1_S's does. Two VPHADDW levels over
// four blocks leave in each 128-bit lane two words per block, each the
// sum over 8 weights (≤ 9144) of that lane's 16 (lane 0 a block's first
// 16 weights, lane 1 its second), and VPMADDWD against the scales as
// words (IQ1_M has one per 16 weights; IQ1_S repeats its per-32 one;
// TQ1_0 has 1) makes one exact dword per block and lane. The two halves'
// [first 16 | second 16] are then swapped into block order and added
// (|Σ| ≤ 32·9·127·15 < 2²⁰, exact in float32), and as in the other
// kernels one VFMADD231PS adds Σ times d·dx (IQ1: d/8).
//
// The one-token kernels of IQ1_S and IQ1_M decode and multiply block by
// block, everything in registers; the four-token kernels decode a
// super-block once, W into the frame and |W| into Y4..Y11, for all four
// tokens. Either way a token's integers and float operations are the
// same, so the four-token kernels give the one-token kernels' results.
//
// IQ1 grid runs come in four per block, each by a load from its index:
// qs byte | three high bits from the block's qh word, formed in general
// registers (R10, R11, AX) and loaded by VMOVQ or VPBROADCASTQ (a load,
// no shuffle) with VPBLENDD into place, which leaves the vector ports to
// the products. (Indices formed in vectors and moved out by VMOVQ and
// VPEXTRQ took 10–15 % longer on Zen 4; gathers longer still.) IQ1_M's
// runs come from iq1mWRuns (iqtables_gen.go), whose 4096 entries are
// the runs W = 8g + δ ready, indexed by the run's whole qh nibble (three
// high index bits and the δ sign bit) above the qs byte: no W is formed
// at decoding, for a 32 KB table.
//
// TQ1_0's trit n of byte q is floor(3·v/256) with v = q·3ⁿ mod 256 (byte
// adds make ·3); it is 0, 1, 2 as v < 86, < 171, or more, so two signed
// compares of v − 128 give t or W (TQ1TRIT, TQ1WTRIT).
// Blocks 0..4 are trits 0..4 of qs[0:32]; block 5 is [qs[32:48] | ·3],
// block 6 that times 9 and block 7 [qs[32:48]·81 | qh's four dwords
// times 1, 3, 9, 27].
//
// Frame of the four-token kernels (and TQ1_0's one-token kernel): wv-256
// the eight W vectors, ls0-288 and ls1-320 the scale words of blocks
// 0..3 and 4..7, d8-352 d (IQ1: d/8) in eight lanes, end-360 the
// weights' end, f8-392 IQ1_S's δ(2s+1) per block.

#define IQ1PF 768

DATA iq1Ones8<>+0(SB)/8, $0x0101010101010101
DATA iq1Ones8<>+8(SB)/8, $0x0101010101010101
DATA iq1Ones8<>+16(SB)/8, $0x0101010101010101
DATA iq1Ones8<>+24(SB)/8, $0x0101010101010101
GLOBL iq1Ones8<>(SB), RODATA|NOPTR, $32

DATA iq1Ones16<>+0(SB)/8, $0x0001000100010001
DATA iq1Ones16<>+8(SB)/8, $0x0001000100010001
DATA iq1Ones16<>+16(SB)/8, $0x0001000100010001
DATA iq1Ones16<>+24(SB)/8, $0x0001000100010001
GLOBL iq1Ones16<>(SB), RODATA|NOPTR, $32

DATA iq1Seven16<>+0(SB)/8, $0x0007000700070007
DATA iq1Seven16<>+8(SB)/8, $0x0007000700070007
DATA iq1Seven16<>+16(SB)/8, $0x0007000700070007
DATA iq1Seven16<>+24(SB)/8, $0x0007000700070007
GLOBL iq1Seven16<>(SB), RODATA|NOPTR, $32

DATA iq1Seven32<>+0(SB)/8, $0x0000000700000007
DATA iq1Seven32<>+8(SB)/8, $0x0000000700000007
DATA iq1Seven32<>+16(SB)/8, $0x0000000700000007
DATA iq1Seven32<>+24(SB)/8, $0x0000000700000007
GLOBL iq1Seven32<>(SB), RODATA|NOPTR, $32

DATA iq1Ones32<>+0(SB)/8, $0x0000000100000001
DATA iq1Ones32<>+8(SB)/8, $0x0000000100000001
DATA iq1Ones32<>+16(SB)/8, $0x0000000100000001
DATA iq1Ones32<>+24(SB)/8, $0x0000000100000001
GLOBL iq1Ones32<>(SB), RODATA|NOPTR, $32

DATA iq1F8<>+0(SB)/8, $0xf8f8f8f8f8f8f8f8
DATA iq1F8<>+8(SB)/8, $0xf8f8f8f8f8f8f8f8
DATA iq1F8<>+16(SB)/8, $0xf8f8f8f8f8f8f8f8
DATA iq1F8<>+24(SB)/8, $0xf8f8f8f8f8f8f8f8
GLOBL iq1F8<>(SB), RODATA|NOPTR, $32

// IQ1_M scales of blocks 4h..4h+3 from the dword of scale words 2h, 2h+1:
// word 2h to words 0..3 of each lane, 2h+1 to words 4..7; then each
// 3-bit field (lane 0: bits 0 or 6, first 16 weights; lane 1: bits 3 or
// 9, second 16; even or odd block) multiplied up to bits 13..15.
DATA iq1mScShuf<>+0(SB)/8, $0x0100010001000100
DATA iq1mScShuf<>+8(SB)/8, $0x0302030203020302
DATA iq1mScShuf<>+16(SB)/8, $0x0100010001000100
DATA iq1mScShuf<>+24(SB)/8, $0x0302030203020302
GLOBL iq1mScShuf<>(SB), RODATA|NOPTR, $32

DATA iq1mScMul<>+0(SB)/8, $0x0080008020002000
DATA iq1mScMul<>+8(SB)/8, $0x0080008020002000
DATA iq1mScMul<>+16(SB)/8, $0x0010001004000400
DATA iq1mScMul<>+24(SB)/8, $0x0010001004000400
GLOBL iq1mScMul<>(SB), RODATA|NOPTR, $32

// IQ1_M's d: the four scale words' top nibbles n0..n3 as n0 + 16n1 +
// 256n2 + 4096n3.
DATA iq1mDMul<>+0(SB)/8, $0x1000010000100001
DATA iq1mDMul<>+8(SB)/8, $0
GLOBL iq1mDMul<>(SB), RODATA|NOPTR, $16

DATA iq1Eighth<>+0(SB)/8, $0x3e0000003e000000
DATA iq1Eighth<>+8(SB)/8, $0x3e0000003e000000
DATA iq1Eighth<>+16(SB)/8, $0x3e0000003e000000
DATA iq1Eighth<>+24(SB)/8, $0x3e0000003e000000
GLOBL iq1Eighth<>(SB), RODATA|NOPTR, $32

DATA tq1X80<>+0(SB)/8, $0x8080808080808080
DATA tq1X80<>+8(SB)/8, $0x8080808080808080
DATA tq1X80<>+16(SB)/8, $0x8080808080808080
DATA tq1X80<>+24(SB)/8, $0x8080808080808080
GLOBL tq1X80<>(SB), RODATA|NOPTR, $32

// −43 and 42: v − 128 above them means v ≥ 86 and v ≥ 171.
DATA tq1Lo<>+0(SB)/8, $0xd5d5d5d5d5d5d5d5
DATA tq1Lo<>+8(SB)/8, $0xd5d5d5d5d5d5d5d5
DATA tq1Lo<>+16(SB)/8, $0xd5d5d5d5d5d5d5d5
DATA tq1Lo<>+24(SB)/8, $0xd5d5d5d5d5d5d5d5
GLOBL tq1Lo<>(SB), RODATA|NOPTR, $32

DATA tq1Hi<>+0(SB)/8, $0x2a2a2a2a2a2a2a2a
DATA tq1Hi<>+8(SB)/8, $0x2a2a2a2a2a2a2a2a
DATA tq1Hi<>+16(SB)/8, $0x2a2a2a2a2a2a2a2a
DATA tq1Hi<>+24(SB)/8, $0x2a2a2a2a2a2a2a2a
GLOBL tq1Hi<>(SB), RODATA|NOPTR, $32

// 43: 43 > v' (v − 128) means v < 171.
DATA tq1H1<>+0(SB)/8, $0x2b2b2b2b2b2b2b2b
DATA tq1H1<>+8(SB)/8, $0x2b2b2b2b2b2b2b2b
DATA tq1H1<>+16(SB)/8, $0x2b2b2b2b2b2b2b2b
DATA tq1H1<>+24(SB)/8, $0x2b2b2b2b2b2b2b2b
GLOBL tq1H1<>(SB), RODATA|NOPTR, $32

DATA tq2Three<>+0(SB)/8, $0x0303030303030303
DATA tq2Three<>+8(SB)/8, $0x0303030303030303
DATA tq2Three<>+16(SB)/8, $0x0303030303030303
DATA tq2Three<>+24(SB)/8, $0x0303030303030303
GLOBL tq2Three<>(SB), RODATA|NOPTR, $32

DATA iq1AllOnes<>+0(SB)/8, $-1
DATA iq1AllOnes<>+8(SB)/8, $-1
DATA iq1AllOnes<>+16(SB)/8, $-1
DATA iq1AllOnes<>+24(SB)/8, $-1
GLOBL iq1AllOnes<>(SB), RODATA|NOPTR, $32

// IQ1BLK: one token's block (codes at xoff(xr), W at slot, |W| in absw)
// as pair sums of W·x in t.
#define IQ1BLK(xr, xoff, slot, absw, t) \
	VMOVDQU    xoff(xr), t; \
	VPSIGNB    slot, t, t; \
	VPMADDUBSW t, absw, t

// TQ1BLK: one token's block as pair sums of t·x, the trits t in tw (slot
// unused: TQ1_0 keeps no W in the frame).
#define TQ1BLK(xr, xoff, slot, tw, t) \
	VPMADDUBSW xoff(xr), tw, t

// IQ1SUMS leaves in Y12 one token's eight block sums over the decoded
// super-block, each times its scale word (ls0, ls1 for the two halves),
// as exact dwords in block order; blk is IQ1BLK or TQ1BLK. Clobbers
// Y12..Y15.
#define IQ1SUMS(blk, xr, ls0, ls1) \
	blk(xr, 0, wv-256(SP), Y4, Y12); \
	blk(xr, 32, wv-224(SP), Y5, Y13); \
	VPHADDW     Y13, Y12, Y12; \
	blk(xr, 64, wv-192(SP), Y6, Y13); \
	blk(xr, 96, wv-160(SP), Y7, Y14); \
	VPHADDW     Y14, Y13, Y13; \
	VPHADDW     Y13, Y12, Y12; \
	VPMADDWD    ls0, Y12, Y12; \
	blk(xr, 128, wv-128(SP), Y8, Y13); \
	blk(xr, 160, wv-96(SP), Y9, Y14); \
	VPHADDW     Y14, Y13, Y13; \
	blk(xr, 192, wv-64(SP), Y10, Y14); \
	blk(xr, 224, wv-32(SP), Y11, Y15); \
	VPHADDW     Y15, Y14, Y14; \
	VPHADDW     Y14, Y13, Y13; \
	VPMADDWD    ls1, Y13, Y13; \
	VPERM2I128  $0x20, Y13, Y12, Y14; \
	VPERM2I128  $0x31, Y13, Y12, Y12; \
	VPADDD      Y14, Y12, Y12

// IQ1ACC: acc += float(Y12)·(dx·d), the token's scales dx at dxm, d (IQ1:
// d/8) in eight lanes at d8 (the frame or a register). Clobbers Y12, Y13.
#define IQ1ACC(dxm, acc, d8) \
	VCVTDQ2PS   Y12, Y12; \
	VMOVUPS     dxm, Y13; \
	VMULPS      d8, Y13, Y13; \
	VFMADD231PS Y13, Y12, acc

// IQ1TOK: acc += float(Σ)·(d·dx) for one token over the decoded
// super-block (codes at xr, scales dx at dxm; ls0, ls1 the scale words of
// the two halves; mxm, the token's m8, is for the other TOK macros).
// Clobbers Y12..Y15.
#define IQ1TOK(xr, dxm, mxm, acc, ls0, ls1) \
	IQ1SUMS(IQ1BLK, xr, ls0, ls1); \
	IQ1ACC(dxm, acc, d8-352(SP))

// TQ1TOK is IQ1TOK for TQ1_0, whose decoded weights in Y4..Y11 are the
// trits t = W + 1 in 0..2, unsigned: VPMADDUBSW takes them against the
// codes as they are (no VPSIGNB, no W in the frame), and Σ(t − 1)·xq =
// Σt·xq − Σxq = Σt·xq + m8/8 with the token's m8 at mxm, the very
// integers IQ1TOK would give.
#define TQ1TOK(xr, dxm, mxm, acc, ls0, ls1) \
	IQ1SUMS(TQ1BLK, xr, ls0, ls1); \
	VMOVDQU mxm, Y13; \
	VPSRAD  $3, Y13, Y13; \
	VPADDD  Y13, Y12, Y12; \
	IQ1ACC(dxm, acc, d8-352(SP))

// IQ1STOK is IQ1TOK for IQ1_S, whose frame holds the grid values g (−1,
// 0, 1) and Y4..Y11 their magnitudes: W = 8g + δ with one δ = ±1 per
// block, so (2s+1)·ΣW·xq = 8·(2s+1)·Σg·xq + δ(2s+1)·Σxq, and Σxq =
// −m8/8: the sums times 8, less δ(2s+1) (dwords at f8) times m8/8. The
// same integers as IQ1TOK's from W, without W's three operations a
// weight byte at decoding.
#define IQ1STOK(xr, dxm, mxm, acc, ls0, ls1) \
	IQ1SUMS(IQ1BLK, xr, ls0, ls1); \
	IQ1SDFIX(mxm, f8-392(SP)); \
	IQ1ACC(dxm, acc, d8-352(SP))

// IQ1SDFIX turns IQ1_S's sums of g·x in Y12 into those of W·x: times 8,
// less δ(2s+1) (dwords at f8, the frame or a register) times the token's
// m8/8 (at mxm). Clobbers Y13.
#define IQ1SDFIX(mxm, f8) \
	VPSLLD  $3, Y12, Y12; \
	VMOVDQU mxm, Y13; \
	VPSRAD  $3, Y13, Y13; \
	VPMULLD f8, Y13, Y13; \
	VPSUBD  Y13, Y12, Y12

// IQ1SGRID loads IQ1_S block ib's four grid entries (qs at qoff = 2+4ib,
// qh word at hoff = 34+2ib) from iq1s_grid (R9) into g (gx its low
// half): index qs | ((qh >> 3l) & 7) << 8. Clobbers tmp, R10, R11, AX.
#define IQ1SGRID(qoff, hoff, gx, g, tmp) \
	MOVWLZX      hoff(SI), R10; \
	MOVBLZX      qoff(SI), R11; \
	MOVL         R10, AX; \
	SHLL         $8, AX; \
	ANDL         $0x700, AX; \
	ORL          AX, R11; \
	VMOVQ        (R9)(R11*8), gx; \
	MOVBLZX      qoff+1(SI), R11; \
	MOVL         R10, AX; \
	SHLL         $5, AX; \
	ANDL         $0x700, AX; \
	ORL          AX, R11; \
	VPBROADCASTQ (R9)(R11*8), tmp; \
	VPBLENDD     $0x0c, tmp, g, g; \
	MOVBLZX      qoff+2(SI), R11; \
	MOVL         R10, AX; \
	SHLL         $2, AX; \
	ANDL         $0x700, AX; \
	ORL          AX, R11; \
	VPBROADCASTQ (R9)(R11*8), tmp; \
	VPBLENDD     $0x30, tmp, g, g; \
	MOVBLZX      qoff+3(SI), R11; \
	SHRL         $1, R10; \
	ANDL         $0x700, R10; \
	ORL          R10, R11; \
	VPBROADCASTQ (R9)(R11*8), tmp; \
	VPBLENDD     $0xc0, tmp, g, g

// IQ1SBLK decodes IQ1_S block ib (as IQ1SGRID): its grid values g to
// slot, |g| to absw (δ is IQ1STOK's). Clobbers Y13, Y15.
#define IQ1SBLK(qoff, hoff, absw, slot) \
	IQ1SGRID(qoff, hoff, X15, Y15, Y13); \
	VMOVDQU      Y15, slot; \
	VPABSB       Y15, absw

// IQ1MWGRID loads IQ1_M block ib's four runs W = 8g + δ (qs at qoff =
// 4ib, qh word at hoff = 32+2ib) from iq1mWRuns (R9) into g (gx its low
// half): index qs | ((qh >> 4l) & 15) << 8. Clobbers tmp, R10, R11, AX.
#define IQ1MWGRID(qoff, hoff, gx, g, tmp) \
	MOVWLZX      hoff(SI), R10; \
	MOVBLZX      qoff(SI), R11; \
	MOVL         R10, AX; \
	SHLL         $8, AX; \
	ANDL         $0xf00, AX; \
	ORL          AX, R11; \
	VMOVQ        (R9)(R11*8), gx; \
	MOVBLZX      qoff+1(SI), R11; \
	MOVL         R10, AX; \
	SHLL         $4, AX; \
	ANDL         $0xf00, AX; \
	ORL          AX, R11; \
	VPBROADCASTQ (R9)(R11*8), tmp; \
	VPBLENDD     $0x0c, tmp, g, g; \
	MOVBLZX      qoff+2(SI), R11; \
	MOVL         R10, AX; \
	ANDL         $0xf00, AX; \
	ORL          AX, R11; \
	VPBROADCASTQ (R9)(R11*8), tmp; \
	VPBLENDD     $0x30, tmp, g, g; \
	MOVBLZX      qoff+3(SI), R11; \
	SHRL         $4, R10; \
	ANDL         $0xf00, R10; \
	ORL          R10, R11; \
	VPBROADCASTQ (R9)(R11*8), tmp; \
	VPBLENDD     $0xc0, tmp, g, g

// IQ1MBLK decodes IQ1_M block ib (as IQ1MWGRID): W to slot, |W| to absw.
// Clobbers Y13, Y15.
#define IQ1MBLK(qoff, hoff, absw, slot) \
	IQ1MWGRID(qoff, hoff, X15, Y15, Y13); \
	VMOVDQU      Y15, slot; \
	VPABSB       Y15, absw

// IQ1SLS stores IQ1_S's scale words 2s+1 of four blocks (qh words at
// hoff), each twice per lane, at dst (the frame or a register). Clobbers Y12.
#define IQ1SLS(hoff, dst) \
	VPBROADCASTQ hoff(SI), Y12; \
	VPUNPCKLWD   Y12, Y12, Y12; \
	VPSRLW       $12, Y12, Y12; \
	VPAND        iq1Seven16<>(SB), Y12, Y12; \
	VPADDW       Y12, Y12, Y12; \
	VPOR         iq1Ones16<>(SB), Y12, Y12; \
	VMOVDQU      Y12, dst

// IQ1MLS stores IQ1_M's scale words 2s+1 of blocks 4h..4h+3 (scale words
// 2h, 2h+1 at soff = 48+4h) at dst. Clobbers Y12.
#define IQ1MLS(soff, dst) \
	VPBROADCASTD soff(SI), Y12; \
	VPSHUFB      iq1mScShuf<>(SB), Y12, Y12; \
	VPMULLW      iq1mScMul<>(SB), Y12, Y12; \
	VPSRLW       $13, Y12, Y12; \
	VPADDW       Y12, Y12, Y12; \
	VPOR         iq1Ones16<>(SB), Y12, Y12; \
	VMOVDQU      Y12, dst

// IQ1SDELTA stores at dst (the frame or a register) the eight blocks' δ(2s+1) as dwords: the qh
// words sign-extended (δ = −1 where bit 15 is set), s = bits 12..14, and
// VPSIGND by the word ORed with 1 (never 0) gives 2s+1 its sign.
// Clobbers Y12, Y13.
#define IQ1SDELTA(dst) \
	VPMOVSXWD 34(SI), Y12; \
	VPSRAD    $12, Y12, Y13; \
	VPAND     iq1Seven32<>(SB), Y13, Y13; \
	VPADDD    Y13, Y13, Y13; \
	VPOR      iq1Ones32<>(SB), Y13, Y13; \
	VPOR      iq1Ones32<>(SB), Y12, Y12; \
	VPSIGND   Y12, Y13, Y13; \
	VMOVDQU   Y13, dst

// IQ1SD8 puts IQ1_S's d/8 in eight lanes at dst. Clobbers Y12.
#define IQ1SD8(dst) \
	VPBROADCASTW 0(SI), X12; \
	VCVTPH2PS    X12, Y12; \
	VMULPS       iq1Eighth<>(SB), Y12, Y12; \
	VMOVUPS      Y12, dst

// IQ1MD8 puts IQ1_M's d/8 (its four scale words' top nibbles as an f16)
// in eight lanes at dst. Clobbers Y12.
#define IQ1MD8(dst) \
	VMOVQ        48(SI), X12; \
	VPSRLW       $12, X12, X12; \
	VPMADDWD     iq1mDMul<>(SB), X12, X12; \
	VPHADDD      X12, X12, X12; \
	VPBROADCASTW X12, X12; \
	VCVTPH2PS    X12, Y12; \
	VMULPS       iq1Eighth<>(SB), Y12, Y12; \
	VMOVUPS      Y12, dst

#define IQ1SDECODE \
	IQ1SBLK(2, 34, Y4, wv-256(SP)); \
	IQ1SBLK(6, 36, Y5, wv-224(SP)); \
	IQ1SBLK(10, 38, Y6, wv-192(SP)); \
	IQ1SBLK(14, 40, Y7, wv-160(SP)); \
	IQ1SBLK(18, 42, Y8, wv-128(SP)); \
	IQ1SBLK(22, 44, Y9, wv-96(SP)); \
	IQ1SBLK(26, 46, Y10, wv-64(SP)); \
	IQ1SBLK(30, 48, Y11, wv-32(SP)); \
	IQ1SLS(34, ls0-288(SP)); \
	IQ1SLS(42, ls1-320(SP)); \
	IQ1SDELTA(f8-392(SP)); \
	IQ1SD8(d8-352(SP))

#define IQ1MDECODE \
	IQ1MBLK(0, 32, Y4, wv-256(SP)); \
	IQ1MBLK(4, 34, Y5, wv-224(SP)); \
	IQ1MBLK(8, 36, Y6, wv-192(SP)); \
	IQ1MBLK(12, 38, Y7, wv-160(SP)); \
	IQ1MBLK(16, 40, Y8, wv-128(SP)); \
	IQ1MBLK(20, 42, Y9, wv-96(SP)); \
	IQ1MBLK(24, 44, Y10, wv-64(SP)); \
	IQ1MBLK(28, 46, Y11, wv-32(SP)); \
	IQ1MLS(48, ls0-288(SP)); \
	IQ1MLS(52, ls1-320(SP)); \
	IQ1MD8(d8-352(SP))

// TQ1MUL3: v = 3v bytewise (mod 256). Clobbers t.
#define TQ1MUL3(v, t) \
	VPADDB v, v, t; \
	VPADDB t, v, v

// TQ1TRIT: the trits t = floor(3v/256) of the bytes v to tw, from v' = v
// − 128 (v XOR 0x80; kept), which TQ1MUL3 keeps as it is: 3(v + 128) =
// 3v + 128 mod 256, so the offset is taken once per source vector. The
// compares give c = −t. Clobbers Y14, Y15.
#define TQ1TRIT(v, tw) \
	VPCMPGTB tq1Hi<>(SB), v, Y15; \
	VPCMPGTB tq1Lo<>(SB), v, Y14; \
	VPADDB   Y15, Y14, Y14; \
	VPABSB   Y14, tw

// TQ1WTRIT: W = t − 1 of the bytes v' (as TQ1TRIT's) to w, in three
// operations: with A = −[v' > −43] and B = −[43 > v'], t = −A + 1 + B and
// W = B − A. Lo and H1 are registers holding −43 and 43. Clobbers Y14, Y15.
#define TQ1WTRIT(v, w, Lo, H1) \
	VPCMPGTB Lo, v, Y14; \
	VPCMPGTB v, H1, Y15; \
	VPSUBB   Y14, Y15, w

// TQ1DECODE decodes a TQ1_0 super-block, trit(v, dst) making each
// block's weights (TQ1TRIT's t for the four-token kernel, TQ1TRITW's W for
// the one-token kernel) from the offset bytes. Clobbers Y12..Y15.
#define TQ1DECODE(trit) \
	VMOVDQU      0(SI), Y13; \
	VPXOR        tq1X80<>(SB), Y13, Y13; \
	trit(Y13, Y4); \
	TQ1MUL3(Y13, Y14); \
	trit(Y13, Y5); \
	TQ1MUL3(Y13, Y14); \
	trit(Y13, Y6); \
	TQ1MUL3(Y13, Y14); \
	trit(Y13, Y7); \
	TQ1MUL3(Y13, Y14); \
	trit(Y13, Y8); \
	VMOVDQU      32(SI), X13; \
	VPADDB       X13, X13, X14; \
	VPADDB       X14, X13, X14; \
	VINSERTI128  $1, X14, Y13, Y13; \
	VPXOR        tq1X80<>(SB), Y13, Y13; \
	trit(Y13, Y9); \
	TQ1MUL3(Y13, Y14); \
	TQ1MUL3(Y13, Y14); \
	trit(Y13, Y10); \
	TQ1MUL3(Y13, Y14); \
	VPBROADCASTD 48(SI), X14; \
	VPADDB       X14, X14, X15; \
	VPADDB       X15, X14, X15; \
	VPBLENDD     $2, X15, X14, X14; \
	VPADDB       X15, X15, X12; \
	VPADDB       X12, X15, X15; \
	VPBLENDD     $4, X15, X14, X14; \
	VPADDB       X15, X15, X12; \
	VPADDB       X12, X15, X15; \
	VPBLENDD     $8, X15, X14, X14; \
	VPXOR        tq1X80<>(SB), X14, X14; \
	VPERM2I128   $0x21, Y14, Y13, Y13; \
	trit(Y13, Y11); \
	VPBROADCASTW 52(SI), X12; \
	VCVTPH2PS    X12, Y12; \
	VMOVUPS      Y12, d8-352(SP)

// TQ1TRITW is TQ1WTRIT with the one-token kernel's constants (Y2, Y3).
#define TQ1TRITW(v, w) TQ1WTRIT(v, w, Y2, Y3)

// TQ1WBLK: one token's block as pair sums of W·x = VPSIGNB(x, W) (W is
// −1, 0 or 1) against bytes 1 (Y1). slot unused.
#define TQ1WBLK(xr, xoff, slot, w, t) \
	VMOVDQU    xoff(xr), t; \
	VPSIGNB    w, t, t; \
	VPMADDUBSW t, Y1, t

#define IQ1G4HSUM(y, x, tmp) \
	VEXTRACTF128 $1, y, tmp; \
	VADDPS       tmp, x, x; \
	VHADDPS      x, x, x; \
	VHADDPS      x, x, x

// IQ1GEMM4 is the body of a four-token prefill kernel: as the Rows
// kernel, each token's float operations those of IQ1ROWS. SI weights; DI,
// R10, R11, AX tokens 0..3's codes (R12 bytes apart, R14 = 3·R12); R8
// token 0's scales, token t's DX·t bytes further (BX = 3·DX), R15 its m8
// likewise; Y0..Y3 the tokens' accumulators.
#define IQ1GEMM4(decode, tok, bytes, ls0, ls1, grid, row, loop, end) \
	MOVQ  w+0(FP), SI; \
	MOVQ  out+40(FP), R13; \
	MOVQ  nsb+24(FP), CX; \
	MOVQ  CX, AX; \
	IMULQ $bytes, AX; \
	IMULQ rows+32(FP), AX; \
	ADDQ  SI, AX; \
	MOVQ  AX, end-360(SP); \
	LEAQ  grid, R9; \
	MOVQ  CX, R12; \
	SHLQ  $8, R12; \
	LEAQ  (R12)(R12*2), R14; \
	MOVQ  CX, DX; \
	SHLQ  $5, DX; \
	LEAQ  (DX)(DX*2), BX; \
row: \
	CMPQ   SI, end-360(SP); \
	JAE    end; \
	MOVQ   xq+8(FP), DI; \
	MOVQ   xd+16(FP), R8; \
	MOVQ   m8+56(FP), R15; \
	MOVQ   nsb+24(FP), CX; \
	VXORPS Y0, Y0, Y0; \
	VXORPS Y1, Y1, Y1; \
	VXORPS Y2, Y2, Y2; \
	VXORPS Y3, Y3, Y3; \
loop: \
	PREFETCHT0 IQ1PF(SI); \
	decode; \
	LEAQ (DI)(R12*1), R10; \
	LEAQ (DI)(R12*2), R11; \
	LEAQ (DI)(R14*1), AX; \
	tok(DI, (R8), (R15), Y0, ls0, ls1); \
	tok(R10, (R8)(DX*1), (R15)(DX*1), Y1, ls0, ls1); \
	tok(R11, (R8)(DX*2), (R15)(DX*2), Y2, ls0, ls1); \
	tok(AX, (R8)(BX*1), (R15)(BX*1), Y3, ls0, ls1); \
	ADDQ $bytes, SI; \
	ADDQ $256, DI; \
	ADDQ $32, R8; \
	ADDQ $32, R15; \
	DECQ CX; \
	JNZ  loop; \
	IQ1G4HSUM(Y0, X0, X8); \
	IQ1G4HSUM(Y1, X1, X9); \
	IQ1G4HSUM(Y2, X2, X10); \
	IQ1G4HSUM(Y3, X3, X11); \
	MOVQ   ostride+48(FP), AX; \
	SHLQ   $2, AX; \
	VMOVSS X0, (R13); \
	VMOVSS X1, (R13)(AX*1); \
	VMOVSS X2, (R13)(AX*2); \
	LEAQ   (AX)(AX*2), AX; \
	VMOVSS X3, (R13)(AX*1); \
	ADDQ   $4, R13; \
	JMP    row; \
end: \
	VZEROUPPER; \
	RET

// func dotTQ1RowsAVX2(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32, m8 *int32)
//
// The one-token kernel decodes W = t − 1 (TQ1TRITW, one operation fewer
// than t) and sums VPSIGNB(x, W), the very integers Σ(t − 1)·xq that
// TQ1TOK forms from t and m8, without m8.
TEXT ·dotTQ1RowsAVX2(SB), NOSPLIT, $392-56
	MOVQ rows+32(FP), BX
	MOVQ out+40(FP), R13
	MOVQ w+0(FP), SI
	VMOVDQU iq1Ones8<>(SB), Y1
	VMOVDQU tq1Lo<>(SB), Y2
	VMOVDQU tq1H1<>(SB), Y3

tq1row:
	TESTQ  BX, BX
	JEQ    tq1end
	MOVQ   xq+8(FP), DI
	MOVQ   xd+16(FP), R8
	MOVQ   nsb+24(FP), CX
	VXORPS Y0, Y0, Y0

tq1loop:
	PREFETCHT0 IQ1PF(SI)
	TQ1DECODE(TQ1TRITW)
	IQ1SUMS(TQ1WBLK, DI, iq1Ones16<>(SB), iq1Ones16<>(SB))
	IQ1ACC((R8), Y0, d8-352(SP))
	ADDQ $54, SI
	ADDQ $256, DI
	ADDQ $32, R8
	DECQ CX
	JNZ  tq1loop

	IQ1G4HSUM(Y0, X0, X4)
	VMOVSS X0, (R13)
	ADDQ   $4, R13
	DECQ   BX
	JMP    tq1row

tq1end:
	VZEROUPPER
	RET

// func gemm4TQ1AVX2(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32, ostride int, m8 *int32)
TEXT ·gemm4TQ1AVX2(SB), NOSPLIT, $392-64
	IQ1GEMM4(TQ1DECODE(TQ1TRIT), TQ1TOK, 54, iq1Ones16<>(SB), iq1Ones16<>(SB), ·iq1s_grid(SB), g4tq1row, g4tq1loop, g4tq1end)

// IQ1SDOTB: one token's IQ1_S block ib (qs at qoff, qh at hoff, codes
// at xoff(DI)) as pair sums of g·x in t, g never leaving the registers.
// Clobbers Y13, Y15 (and IQ1SGRID's).
#define IQ1SDOTB(qoff, hoff, xoff, t) \
	IQ1SGRID(qoff, hoff, X15, Y15, Y13); \
	VMOVDQU    xoff(DI), t; \
	VPSIGNB    Y15, t, t; \
	VPMADDUBSW t, Y11, t

// IQ1ROWSUMS leaves in Y12 one token's eight block sums of a super-block
// decoded block by block, dotb (IQ1SDOTB or IQ1MDOTB) making block ib's
// pair sums from its qs at q0+4ib and qh word at h0+2ib, each times its
// scale words (Y2 blocks 0..3, Y3 blocks 4..7), as exact dwords in block
// order, as IQ1SUMS does from the frame. Clobbers Y5..Y8, Y12, Y13, Y15.
#define IQ1ROWSUMS(dotb, q0, h0) \
	dotb(q0, h0, 0, Y5); \
	dotb(q0+4, h0+2, 32, Y6); \
	VPHADDW     Y6, Y5, Y5; \
	dotb(q0+8, h0+4, 64, Y6); \
	dotb(q0+12, h0+6, 96, Y7); \
	VPHADDW     Y7, Y6, Y6; \
	VPHADDW     Y6, Y5, Y5; \
	VPMADDWD    Y2, Y5, Y5; \
	dotb(q0+16, h0+8, 128, Y6); \
	dotb(q0+20, h0+10, 160, Y7); \
	VPHADDW     Y7, Y6, Y6; \
	dotb(q0+24, h0+12, 192, Y7); \
	dotb(q0+28, h0+14, 224, Y8); \
	VPHADDW     Y8, Y7, Y7; \
	VPHADDW     Y7, Y6, Y6; \
	VPMADDWD    Y3, Y6, Y6; \
	VPERM2I128  $0x20, Y6, Y5, Y7; \
	VPERM2I128  $0x31, Y6, Y5, Y12; \
	VPADDD      Y7, Y12, Y12

// func dotIQ1SRowsAVX2(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32, m8 *int32)
//
// The one-token kernel decodes and multiplies block by block, with the
// scale words (Y2, Y3), δ(2s+1) (Y1) and d/8 (Y4) in registers: the same
// integers and float operations as IQ1STOK's over IQ1SDECODE's frame.
TEXT ·dotIQ1SRowsAVX2(SB), NOSPLIT, $0-56
	MOVQ rows+32(FP), BX
	MOVQ out+40(FP), R13
	MOVQ w+0(FP), SI
	LEAQ ·iq1s_grid(SB), R9

	VMOVDQU iq1Ones8<>(SB), Y11

iq1srow:
	TESTQ  BX, BX
	JEQ    iq1send
	MOVQ   xq+8(FP), DI
	MOVQ   xd+16(FP), R8
	MOVQ   m8+48(FP), R14
	MOVQ   nsb+24(FP), CX
	VXORPS Y0, Y0, Y0

iq1sloop:
	PREFETCHT0 IQ1PF(SI)
	IQ1SLS(34, Y2)
	IQ1SLS(42, Y3)
	IQ1SDELTA(Y1)
	IQ1SD8(Y4)
	IQ1ROWSUMS(IQ1SDOTB, 2, 34)
	IQ1SDFIX((R14), Y1)
	IQ1ACC((R8), Y0, Y4)
	ADDQ $50, SI
	ADDQ $256, DI
	ADDQ $32, R8
	ADDQ $32, R14
	DECQ CX
	JNZ  iq1sloop

	IQ1G4HSUM(Y0, X0, X1)
	VMOVSS X0, (R13)
	ADDQ   $4, R13
	DECQ   BX
	JMP    iq1srow

iq1send:
	VZEROUPPER
	RET

// func gemm4IQ1SAVX2(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32, ostride int, m8 *int32)
TEXT ·gemm4IQ1SAVX2(SB), NOSPLIT, $392-64
	IQ1GEMM4(IQ1SDECODE, IQ1STOK, 50, ls0-288(SP), ls1-320(SP), ·iq1s_grid(SB), g4iq1srow, g4iq1sloop, g4iq1send)

// IQ1MDOTB is IQ1SDOTB for IQ1_M: pair sums of W·x, W never leaving the
// registers. Clobbers Y13, Y15.
#define IQ1MDOTB(qoff, hoff, xoff, t) \
	IQ1MWGRID(qoff, hoff, X15, Y15, Y13); \
	VMOVDQU    xoff(DI), t; \
	VPSIGNB    Y15, t, t; \
	VPABSB     Y15, Y15; \
	VPMADDUBSW t, Y15, t

// func dotIQ1MRowsAVX2(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32, m8 *int32)
//
// As dotIQ1SRowsAVX2: the scale words in Y2, Y3 and d/8 in Y4, IQ1TOK's
// integers and float operations.
TEXT ·dotIQ1MRowsAVX2(SB), NOSPLIT, $0-56
	MOVQ rows+32(FP), BX
	MOVQ out+40(FP), R13
	MOVQ w+0(FP), SI
	LEAQ ·iq1mWRuns(SB), R9

iq1mrow:
	TESTQ  BX, BX
	JEQ    iq1mend
	MOVQ   xq+8(FP), DI
	MOVQ   xd+16(FP), R8
	MOVQ   nsb+24(FP), CX
	VXORPS Y0, Y0, Y0

iq1mloop:
	PREFETCHT0 IQ1PF(SI)
	IQ1MLS(48, Y2)
	IQ1MLS(52, Y3)
	IQ1MD8(Y4)
	IQ1ROWSUMS(IQ1MDOTB, 0, 32)
	IQ1ACC((R8), Y0, Y4)
	ADDQ $56, SI
	ADDQ $256, DI
	ADDQ $32, R8
	DECQ CX
	JNZ  iq1mloop

	IQ1G4HSUM(Y0, X0, X1)
	VMOVSS X0, (R13)
	ADDQ   $4, R13
	DECQ   BX
	JMP    iq1mrow

iq1mend:
	VZEROUPPER
	RET

// func gemm4IQ1MAVX2(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32, ostride int, m8 *int32)
TEXT ·gemm4IQ1MAVX2(SB), NOSPLIT, $392-64
	IQ1GEMM4(IQ1MDECODE, IQ1TOK, 56, ls0-288(SP), ls1-320(SP), ·iq1mWRuns(SB), g4iq1mrow, g4iq1mloop, g4iq1mend)

// TQ2CODES4 takes the 32 code bytes at off(SI) apart into their four bit
// pairs (q0 bits 0–1 … q3 bits 6–7). Clobbers Y13, Y14.
#define TQ2CODES4(off, q0, q1, q2, q3) \
	VMOVDQU off(SI), Y13; \
	VPAND   tq2Three<>(SB), Y13, q0; \
	VPSRLW  $2, Y13, Y14; \
	VPAND   tq2Three<>(SB), Y14, q1; \
	VPSRLW  $4, Y13, Y14; \
	VPAND   tq2Three<>(SB), Y14, q2; \
	VPSRLW  $6, Y13, Y14; \
	VPAND   tq2Three<>(SB), Y14, q3

// TQ2DECODE decodes a TQ2_0 super-block for the four-token kernel: block
// j's codes q (0..2) are bit pair j%4 of qs[32(j/4):], into Y4..Y11 as
// TQ1DECODE leaves TQ1_0's trits, and d to the frame. Clobbers Y12..Y14.
#define TQ2DECODE \
	TQ2CODES4(0, Y4, Y5, Y6, Y7); \
	TQ2CODES4(32, Y8, Y9, Y10, Y11); \
	VPBROADCASTW 64(SI), X12; \
	VCVTPH2PS    X12, Y12; \
	VMOVUPS      Y12, d8-352(SP)

// func gemm4TQ2AVX2(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32, ostride int, m8 *int32)
//
// TQ2_0's four-token kernel decodes a super-block once for the four
// tokens and takes each token's products as TQ1_0's (TQ1TOK: Σq·xq +
// m8/8 = Σ(q − 1)·xq): the same integers as dotTQ2RowsAVX2's TQ2SB,
// summed in another order (exact), and the same float operations.
TEXT ·gemm4TQ2AVX2(SB), NOSPLIT, $392-64
	IQ1GEMM4(TQ2DECODE, TQ1TOK, 66, iq1Ones16<>(SB), iq1Ones16<>(SB), ·iq1s_grid(SB), g4tq2row, g4tq2loop, g4tq2end)
