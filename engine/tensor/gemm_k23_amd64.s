#include "textflag.h"

// Four-token prefill kernels of Q2_K, Q3_K and IQ4_XS. As in
// gemm_k_amd64.s, one pass over a weight row serves four tokens: what
// depends on the weights alone (f16 scales, packed sub-block scales and
// mins, 2-bit codes and hmask bits, IQ4 levels) is decoded once per
// super-block, and each token then does exactly the float operations of its
// one-token Rows kernel in dot_k23_amd64.s, with the same operands in the
// same order, so a token's results do not depend on how the prompt was
// batched. The integer sums feeding those operations are exact however
// they are formed, so they are formed here with fewer instructions where
// that pays; they end in the Rows kernels' lane layout (lane b: activation
// block b), which is what the float operations see.
//
// Registers common to the three kernels: SI weights; DI, R10, R11, AX
// tokens 0..3's activation codes at this super-block (R12 bytes apart,
// R14 = 3·R12; AX is scratch until the per-token pointers are set);
// R8 token 0's activation scales, token t's DX·t bytes further (BX = 3·DX).
// CX counts super-blocks, R13 walks out. Y0..Y3 are tokens 0..3's float
// accumulators (the Rows kernels' Y0), Y4..Y11 the decoded weights (Q2_K
// and Q3_K: a super-block's eight code vectors, one per activation block;
// IQ4_XS: see there), Y12..Y15 scratch.

// PF is how far ahead of the loads the weights are prefetched, as in
// gemm_k_amd64.s: the first four tokens of a tile read its rows from DRAM.
#define PF 512

// K23G4SETUP sets the strides between tokens from nsb (in CX): R12 = 256·nsb
// code bytes, R14 = 3·R12, DX = 32·nsb scale bytes, BX = 3·DX.
#define K23G4SETUP \
	MOVQ CX, R12; \
	SHLQ $8, R12; \
	LEAQ (R12)(R12*2), R14; \
	MOVQ CX, DX; \
	SHLQ $5, DX; \
	LEAQ (DX)(DX*2), BX

// K23G4TOKENS points R10, R11, AX at tokens 1..3's codes.
#define K23G4TOKENS \
	LEAQ (DI)(R12*1), R10; \
	LEAQ (DI)(R12*2), R11; \
	LEAQ (DI)(R14*1), AX

// K23G4HSUM folds the eight float lanes of y into the low lane of x, as
// dot_k23_amd64.s's K23HSUM does for Y0 (the same additions, operands in
// the same places). Clobbers tmp.
#define K23G4HSUM(y, x, tmp) \
	VEXTRACTF128 $1, y, tmp; \
	VADDPS       tmp, x, x; \
	VHADDPS      x, x, x; \
	VHADDPS      x, x, x

// K23G4END is the Rows kernels' ending per token (HSUM, store) for the
// four tokens: out[t·ostride] of this row gets token t's sum (ostride the
// argument's frame slot); R13 moves to the next row. Clobbers AX, X8..X11.
#define K23G4END(ostride) \
	K23G4HSUM(Y0, X0, X8); \
	K23G4HSUM(Y1, X1, X9); \
	K23G4HSUM(Y2, X2, X10); \
	K23G4HSUM(Y3, X3, X11); \
	MOVQ   ostride, AX; \
	SHLQ   $2, AX; \
	VMOVSS X0, (R13); \
	VMOVSS X1, (R13)(AX*1); \
	VMOVSS X2, (R13)(AX*2); \
	LEAQ   (AX)(AX*2), AX; \
	VMOVSS X3, (R13)(AX*1); \
	ADDQ   $4, R13

#define K23G4ZERO4 \
	VXORPS Y0, Y0, Y0; \
	VXORPS Y1, Y1, Y1; \
	VXORPS Y2, Y2, Y2; \
	VXORPS Y3, Y3, Y3

// F16 halves broadcast to eight float lanes, as dot_k23_amd64.s's K23HALF8.
#define K23G4HALF8(off, x, y) \
	VPBROADCASTW off(SI), x; \
	VCVTPH2PS    x, y

DATA k23gMask0F<>+0(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA k23gMask0F<>+8(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA k23gMask0F<>+16(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA k23gMask0F<>+24(SB)/8, $0x0f0f0f0f0f0f0f0f
GLOBL k23gMask0F<>(SB), RODATA|NOPTR, $32

DATA k23gMask03<>+0(SB)/8, $0x0303030303030303
DATA k23gMask03<>+8(SB)/8, $0x0303030303030303
DATA k23gMask03<>+16(SB)/8, $0x0303030303030303
DATA k23gMask03<>+24(SB)/8, $0x0303030303030303
GLOBL k23gMask03<>(SB), RODATA|NOPTR, $32

DATA k23gMask04<>+0(SB)/8, $0x0404040404040404
DATA k23gMask04<>+8(SB)/8, $0x0404040404040404
DATA k23gMask04<>+16(SB)/8, $0x0404040404040404
DATA k23gMask04<>+24(SB)/8, $0x0404040404040404
GLOBL k23gMask04<>(SB), RODATA|NOPTR, $32

DATA k23gOnes8<>+0(SB)/8, $0x0101010101010101
DATA k23gOnes8<>+8(SB)/8, $0x0101010101010101
DATA k23gOnes8<>+16(SB)/8, $0x0101010101010101
DATA k23gOnes8<>+24(SB)/8, $0x0101010101010101
GLOBL k23gOnes8<>(SB), RODATA|NOPTR, $32

DATA k23gOnes16<>+0(SB)/8, $0x0001000100010001
DATA k23gOnes16<>+8(SB)/8, $0x0001000100010001
DATA k23gOnes16<>+16(SB)/8, $0x0001000100010001
DATA k23gOnes16<>+24(SB)/8, $0x0001000100010001
GLOBL k23gOnes16<>(SB), RODATA|NOPTR, $32

// Word shuffle [0 4 1 5 2 6 3 7] within each 128-bit lane (dot_k23_amd64.s's
// k23WordOrder).
DATA k23gWordOrder<>+0(SB)/8, $0x0b0a030209080100
DATA k23gWordOrder<>+8(SB)/8, $0x0f0e07060d0c0504
DATA k23gWordOrder<>+16(SB)/8, $0x0b0a030209080100
DATA k23gWordOrder<>+24(SB)/8, $0x0f0e07060d0c0504
GLOBL k23gWordOrder<>(SB), RODATA|NOPTR, $32

// ---------------------------------------------------------------------------
// Q2_K and Q3_K
//
// Both scale every 16 weights. A token's super-block is, as in the Rows
// kernels, a VPHADDW tree over the eight blocks' VPMADDUBSW pair sums down
// to the 16 sub-block sums as words, one VPMADDWD against the sub-block
// scales giving the eight exact block sums. The Rows kernels also need,
// per token and super-block, sums of the activation codes alone over each
// 16 weights (Q2_K's mins; Q3_K's −4 offset, see Q3KTOK): these depend on
// no weight, so each call forms them once for its four tokens into the
// frame's xs (128 bytes per super-block: token t's sixteen words at 32·t)
// instead of once per row. The frame holds 128 super-blocks (rows of up to
// 32768 weights, k23Gemm4MaxSB in gemm_k23_amd64.go); the Go wrappers run
// wider rows through the one-token kernels.
//
// Frame: end-8 the weights' end; sc-40 the sub-block scales as words;
// mn-72 Q2_K's mins as words; dv-104 d and dmv-136 Q2_K's dmin, broadcast;
// xs-16520 the activation sums. R9 walks xs.

// K23TREE multiplies the eight code vectors c0..c7 by one token's eight
// activation blocks at xr and folds the pair sums to the sixteen sub-block
// sums, as words in sub-block order, in Y12 (dot_k23_amd64.s's Q2KHALF
// pair, then K23SUBSUMS). Clobbers Y13..Y15. Q2_K's pair sums reach
// 2·3·128, a sub-block's 16·3·128 = 6144; Q3_K's (codes q+4 in 0..7)
// 2·7·128 and 14336; the activation sums' (codes 1) 2048: all within int16,
// and VPHADDW wraps rather than saturates anyway.
#define K23TREE(xr, c0, c1, c2, c3, c4, c5, c6, c7) \
	VPMADDUBSW 0(xr), c0, Y12; \
	VPMADDUBSW 32(xr), c1, Y13; \
	VPHADDW    Y13, Y12, Y12; \
	VPMADDUBSW 64(xr), c2, Y13; \
	VPMADDUBSW 96(xr), c3, Y14; \
	VPHADDW    Y14, Y13, Y13; \
	VPHADDW    Y13, Y12, Y12; \
	VPMADDUBSW 128(xr), c4, Y13; \
	VPMADDUBSW 160(xr), c5, Y14; \
	VPHADDW    Y14, Y13, Y13; \
	VPMADDUBSW 192(xr), c6, Y14; \
	VPMADDUBSW 224(xr), c7, Y15; \
	VPHADDW    Y15, Y14, Y14; \
	VPHADDW    Y14, Y13, Y13; \
	VPHADDW    Y13, Y12, Y12; \
	VPERMQ     $0xD8, Y12, Y12; \
	VPSHUFB    k23gWordOrder<>(SB), Y12, Y12

// K23XSLOOPSTART points DI and R9 at the tokens' codes and xs, CX at the
// super-block count, and puts the bytes 1 in Y4, for a loop of K23XSUMS.
#define K23XSLOOPSTART \
	MOVQ    xq+8(FP), DI; \
	LEAQ    xs-16520(SP), R9; \
	MOVQ    nsb+24(FP), CX; \
	VMOVDQU k23gOnes8<>(SB), Y4

// K23XSUMS fills one super-block's 128 bytes of xs: each token's sixteen
// Σxq over 16 weights (K23TREE against codes of 1), shifted left by sh
// (Q3_K keeps 4·Σxq), then moves DI and R9 on. Needs R12, R14; clobbers
// R10, R11, AX, Y12..Y15.
#define K23XSUMS(sh) \
	K23G4TOKENS; \
	K23XSUM(DI, 0(R9), sh); \
	K23XSUM(R10, 32(R9), sh); \
	K23XSUM(R11, 64(R9), sh); \
	K23XSUM(AX, 96(R9), sh); \
	ADDQ $256, DI; \
	ADDQ $128, R9

#define K23XSUM(xr, dst, sh) \
	K23TREE(xr, Y4, Y4, Y4, Y4, Y4, Y4, Y4, Y4); \
	VPSLLW  $sh, Y12, Y12; \
	VMOVDQU Y12, dst

// K23ROWSTART points DI, R8 and R9 at the tokens' first super-block and
// clears the accumulators.
#define K23ROWSTART \
	MOVQ xq+8(FP), DI; \
	MOVQ xd+16(FP), R8; \
	LEAQ xs-16520(SP), R9; \
	MOVQ nsb+24(FP), CX; \
	K23G4ZERO4

// Q2KCODES splits the 32 bytes at qoff(SI) into the 2-bit codes of four
// activation blocks (bit pairs 0, 2, 4, 6), c0..c3. Y13 holds bytes 3.
#define Q2KCODES(qoff, c0, c1, c2, c3) \
	VMOVDQU qoff(SI), Y12; \
	VPAND   Y13, Y12, c0; \
	VPSRLW  $2, Y12, c1; \
	VPAND   Y13, c1, c1; \
	VPSRLW  $4, Y12, c2; \
	VPAND   Y13, c2, c2; \
	VPSRLW  $6, Y12, c3; \
	VPAND   Y13, c3, c3

// Q2KTOK completes one token's super-block: P (Σ sc·q·xq per block) from
// its codes at xr, M (Σ m·xq per block) from its activation sums at xs,
// then the Rows kernel's acc += dx·(d·P − dmin·M): VMULPS, VFNMADD231PS,
// VFMADD231PS on the same operands.
#define Q2KTOK(xr, xs, dx, acc) \
	K23TREE(xr, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11); \
	VPMADDWD     sc-40(SP), Y12, Y12; \
	VCVTDQ2PS    Y12, Y12; \
	VMULPS       dv-104(SP), Y12, Y12; \
	VMOVDQU      xs, Y13; \
	VPMADDWD     mn-72(SP), Y13, Y13; \
	VCVTDQ2PS    Y13, Y13; \
	VFNMADD231PS dmv-136(SP), Y13, Y12; \
	VFMADD231PS  dx, Y12, acc

// func gemm4Q2KAVX2(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32, ostride int)
//
// For rows consecutive Q2_K rows of nsb ≤ 128 super-blocks and four tokens
// whose codes are xq + t·256·nsb and scales xd + t·8·nsb:
// out[t·ostride + r] = row r · token t, bit for bit dotQ2KRowsAVX2's.
// Not NOSPLIT: the frame is 16 KiB.
TEXT ·gemm4Q2KAVX2(SB), 0, $16520-56
	MOVQ  w+0(FP), SI
	MOVQ  out+40(FP), R13
	MOVQ  nsb+24(FP), CX
	MOVQ  CX, AX
	IMULQ $84, AX
	IMULQ rows+32(FP), AX
	ADDQ  SI, AX
	MOVQ  AX, end-8(SP)
	K23G4SETUP
	K23XSLOOPSTART

g4q2xs:
	K23XSUMS(0)
	DECQ CX
	JNZ  g4q2xs

g4q2row:
	CMPQ SI, end-8(SP)
	JAE  g4q2end
	K23ROWSTART

g4q2loop:
	PREFETCHT0 PF(SI)
	PREFETCHT0 PF+64(SI)

	// scales[16] as words: the low nibble is the scale, the high the min.
	VPMOVZXBW 0(SI), Y12
	VPSRLW    $4, Y12, Y13
	VMOVDQU   Y13, mn-72(SP)
	VPAND     k23gMask0F<>(SB), Y12, Y12
	VMOVDQU   Y12, sc-40(SP)
	K23G4HALF8(80, X12, Y12)
	VMOVUPS   Y12, dv-104(SP)
	K23G4HALF8(82, X12, Y12)
	VMOVUPS   Y12, dmv-136(SP)
	VMOVDQU   k23gMask03<>(SB), Y13
	Q2KCODES(16, Y4, Y5, Y6, Y7)
	Q2KCODES(48, Y8, Y9, Y10, Y11)
	K23G4TOKENS

	Q2KTOK(DI, 0(R9), (R8), Y0)
	Q2KTOK(R10, 32(R9), (R8)(DX*1), Y1)
	Q2KTOK(R11, 64(R9), (R8)(DX*2), Y2)
	Q2KTOK(AX, 96(R9), (R8)(BX*1), Y3)

	ADDQ $84, SI
	ADDQ $256, DI
	ADDQ $32, R8
	ADDQ $128, R9
	DECQ CX
	JNZ  g4q2loop

	K23G4END(ostride+48(FP))
	JMP g4q2row

g4q2end:
	VZEROUPPER
	RET

// Shifts [0 2 4 6] for Q3_K's scales' top bit pairs and the bytes 32 of
// their offset (dot_k23_amd64.s's k23Q3HiShift, k23Bytes32).
DATA k23gQ3HiShift<>+0(SB)/8, $0x0000000200000000
DATA k23gQ3HiShift<>+8(SB)/8, $0x0000000600000004
GLOBL k23gQ3HiShift<>(SB), RODATA|NOPTR, $16

DATA k23gBytes32<>+0(SB)/8, $0x2020202020202020
DATA k23gBytes32<>+8(SB)/8, $0x2020202020202020
GLOBL k23gBytes32<>(SB), RODATA|NOPTR, $16

// Q3KCODE makes one activation block's codes q+4 = low2 + 4·hbit (0..7) in
// c: the low bits are bits lshift..lshift+1 of the bytes in Y12 (Y14 holds
// bytes 3), and hop $hsh moves hmask bit j from Y13 to bit 2, as
// dot_k23_amd64.s's Q3KBLOCK does (a word shift leaks bits between bytes
// only outside the mask 0x04). Clobbers Y15.
#define Q3KCODE(lshift, hop, hsh, c) \
	VPSRLW $lshift, Y12, c; \
	VPAND  Y14, c, c; \
	hop    $hsh, Y13, Y15; \
	VPAND  k23gMask04<>(SB), Y15, Y15; \
	VPOR   Y15, c, c

// Q3KTOK completes one token's super-block. The Rows kernel's Σq·xq over a
// sub-block is VPMADDUBSW(low2, xq) − VPMADDUBSW(4·(1−hbit), xq) per block;
// here it is Σ(q+4)·xq − 4·Σxq, one VPMADDUBSW per block with the 4·Σxq
// from xs, the same exact integer. Then the Rows kernel's float work:
// acc += float(Σ s·q·xq)·(d·dx).
#define Q3KTOK(xr, xs, dx, acc) \
	K23TREE(xr, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11); \
	VPSUBW      xs, Y12, Y12; \
	VPMADDWD    sc-40(SP), Y12, Y12; \
	VCVTDQ2PS   Y12, Y12; \
	VMOVUPS     dv-104(SP), Y13; \
	VMULPS      dx, Y13, Y13; \
	VFMADD231PS Y13, Y12, acc

// func gemm4Q3KAVX2(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32, ostride int)
//
// As gemm4Q2KAVX2 for Q3_K, bit for bit dotQ3KRowsAVX2's. Not NOSPLIT: the
// frame is 16 KiB (mn and dmv unused).
TEXT ·gemm4Q3KAVX2(SB), 0, $16520-56
	MOVQ  w+0(FP), SI
	MOVQ  out+40(FP), R13
	MOVQ  nsb+24(FP), CX
	MOVQ  CX, AX
	IMULQ $110, AX
	IMULQ rows+32(FP), AX
	ADDQ  SI, AX
	MOVQ  AX, end-8(SP)
	K23G4SETUP
	K23XSLOOPSTART

g4q3xs:
	K23XSUMS(2)
	DECQ CX
	JNZ  g4q3xs

g4q3row:
	CMPQ SI, end-8(SP)
	JAE  g4q3end
	K23ROWSTART

g4q3loop:
	PREFETCHT0 PF(SI)
	PREFETCHT0 PF+64(SI)

	// The sixteen scales s − 32 as words, unpacked as dotQ3KRowsAVX2 does.
	VMOVDQU      k23gMask03<>(SB), Y14
	VMOVQ        96(SI), X12
	VPSRLW       $4, X12, X13
	VPUNPCKLQDQ  X13, X12, X12
	VPAND        k23gMask0F<>(SB), X12, X12
	VPBROADCASTD 104(SI), X13
	VPSRLVD      k23gQ3HiShift<>(SB), X13, X13
	VPAND        X14, X13, X13
	VPSLLW       $4, X13, X13
	VPOR         X13, X12, X12
	VPSUBB       k23gBytes32<>(SB), X12, X12
	VPMOVSXBW    X12, Y12
	VMOVDQU      Y12, sc-40(SP)
	K23G4HALF8(108, X12, Y12)
	VMOVUPS      Y12, dv-104(SP)

	VMOVDQU 0(SI), Y13 // hmask
	VMOVDQU 32(SI), Y12
	Q3KCODE(0, VPSLLW, 2, Y4)
	Q3KCODE(2, VPSLLW, 1, Y5)
	Q3KCODE(4, VPSRLW, 0, Y6)
	Q3KCODE(6, VPSRLW, 1, Y7)
	VMOVDQU 64(SI), Y12
	Q3KCODE(0, VPSRLW, 2, Y8)
	Q3KCODE(2, VPSRLW, 3, Y9)
	Q3KCODE(4, VPSRLW, 4, Y10)
	Q3KCODE(6, VPSRLW, 5, Y11)
	K23G4TOKENS

	Q3KTOK(DI, 0(R9), (R8), Y0)
	Q3KTOK(R10, 32(R9), (R8)(DX*1), Y1)
	Q3KTOK(R11, 64(R9), (R8)(DX*2), Y2)
	Q3KTOK(AX, 96(R9), (R8)(BX*1), Y3)

	ADDQ $110, SI
	ADDQ $256, DI
	ADDQ $32, R8
	ADDQ $128, R9
	DECQ CX
	JNZ  g4q3loop

	K23G4END(ostride+48(FP))
	JMP g4q3row

g4q3end:
	VZEROUPPER
	RET

// ---------------------------------------------------------------------------
// IQ4_XS
//
// Sub-block j is activation block j. The Rows kernel pairs blocks j and
// j+1 in the two 128-bit lanes of its vectors (one for weights 0..15 of
// each block, one for 16..31), adds the two after widening, and ends with
// a VPHADDD tree and a VPERMD. Here the pairs are blocks j and j+4
// (j = 0..3): U_j = [levels of weights 0..15 of j | of j+4] and V_j = [of
// 16..31 | of 16..31], gathered once for the four tokens, and each token's
// activations are gathered the same way, as the Rows kernel gathers them;
// the tree over the four pairs then leaves the blocks in order, so no
// VPERMD. As in the Rows kernel, a level's sign moves onto the activation
// (VPSIGNB) so VPMADDUBSW can take |level| unsigned: the same products,
// so the same exact sums (an activation code of −128 included).
//
// A super-block runs in two halves of two pairs, whose signed levels and
// magnitudes fill Y4..Y7 and Y8..Y11; each half serves the four tokens in
// turn, and a token's sums over the first half wait on the stack for the
// second. Y15 holds the words 1 outside the decoding. (Keeping all eight
// blocks' levels instead, the signed ones on the stack for VPSIGNB's
// memory operand, with one plain load per activation block and twice the
// VPHADDDs, took 0.82–0.85 of the one-token kernels' time on a Zen 5
// where this takes 0.72: VPHADDD is dear there, and so are loads of a
// store of the same super-block.)
//
// Frame, 32-byte aligned from R9: 0..127 the four tokens' first-half
// sums, 128 the sub-blocks' d·(ls − 32); end-8 the weights' end.

// kvalues_iq4nl as signed bytes (iq4nlValue in quant_legacy.go).
DATA k23gIQ4Values<>+0(SB)/8, $0xf6eaddcfbfad9881
DATA k23gIQ4Values<>+8(SB)/8, $0x7159453526190d01
GLOBL k23gIQ4Values<>(SB), RODATA|NOPTR, $16

// The scale fields' per-lane shifts, mask and offset: dot_k23_amd64.s's
// k23XSLoShift, k23XSHiShift, k23XSMask30, k23Dword32.
DATA k23gXSLoShift<>+0(SB)/8, $0x000000180000001c
DATA k23gXSLoShift<>+8(SB)/8, $0x0000001000000014
DATA k23gXSLoShift<>+16(SB)/8, $0x000000080000000c
DATA k23gXSLoShift<>+24(SB)/8, $0x0000000000000004
GLOBL k23gXSLoShift<>(SB), RODATA|NOPTR, $32

DATA k23gXSHiShift<>+0(SB)/8, $0x0000000e0000000c
DATA k23gXSHiShift<>+8(SB)/8, $0x0000001200000010
DATA k23gXSHiShift<>+16(SB)/8, $0x0000001600000014
DATA k23gXSHiShift<>+24(SB)/8, $0x0000001a00000018
GLOBL k23gXSHiShift<>(SB), RODATA|NOPTR, $32

DATA k23gXSMask30<>+0(SB)/8, $0x0000003000000030
DATA k23gXSMask30<>+8(SB)/8, $0x0000003000000030
DATA k23gXSMask30<>+16(SB)/8, $0x0000003000000030
DATA k23gXSMask30<>+24(SB)/8, $0x0000003000000030
GLOBL k23gXSMask30<>(SB), RODATA|NOPTR, $32

DATA k23gDword32<>+0(SB)/8, $0x0000002000000020
DATA k23gDword32<>+8(SB)/8, $0x0000002000000020
DATA k23gDword32<>+16(SB)/8, $0x0000002000000020
DATA k23gDword32<>+24(SB)/8, $0x0000002000000020
GLOBL k23gDword32<>(SB), RODATA|NOPTR, $32

// IQ4XSLEV decodes the pair of blocks j and j+4, whose codes are the 16
// bytes at qoff(SI) and at qoff+64(SI): U = [levels of weights 0..15 of j
// | of j+4] into lvu, V = [16..31 of j | of j+4] into lvv (levels looked
// up in Y14, codes masked with Y15), their magnitudes into absu and absv.
// Clobbers Y12, Y13.
#define IQ4XSLEV(qoff, lvu, lvv, absu, absv) \
	VMOVDQU     qoff(SI), X12; \
	VINSERTI128 $1, qoff+64(SI), Y12, Y12; \
	VPSRLW      $4, Y12, Y13; \
	VPAND       Y15, Y12, Y12; \
	VPAND       Y15, Y13, Y13; \
	VPSHUFB     Y12, Y14, lvu; \
	VPSHUFB     Y13, Y14, lvv; \
	VPABSB      lvu, absu; \
	VPABSB      lvv, absv

// IQ4XSHALF decodes the pairs (j, j+4) and (j+1, j+5) whose first codes
// are at qoff(SI) into Y4..Y11, then puts the words 1 in Y15.
#define IQ4XSHALF(qoff) \
	VBROADCASTI128 k23gIQ4Values<>(SB), Y14; \
	VMOVDQU        k23gMask0F<>(SB), Y15; \
	IQ4XSLEV(qoff, Y4, Y5, Y8, Y9); \
	IQ4XSLEV(qoff+16, Y6, Y7, Y10, Y11); \
	VMOVDQU        k23gOnes16<>(SB), Y15

// IQ4XSPAIR leaves in yr one token's dword partial sums of blocks j (low
// lane) and j+4 (high lane), block j's activations at xoff(xr): those
// matching U and V, gathered as the Rows kernel gathers its pairs, signed
// by the levels and times their magnitudes. Pair sums reach
// 2·127·128 = 32512, within int16, as in the Rows kernel. Clobbers yt.
#define IQ4XSPAIR(xr, xoff, lvu, lvv, absu, absv, xr_, yr, xt, yt) \
	VMOVDQU     xoff(xr), xr_; \
	VINSERTI128 $1, xoff+128(xr), yr, yr; \
	VMOVDQU     xoff+16(xr), xt; \
	VINSERTI128 $1, xoff+144(xr), yt, yt; \
	VPSIGNB     lvu, yr, yr; \
	VPSIGNB     lvv, yt, yt; \
	VPMADDUBSW  yr, absu, yr; \
	VPMADDUBSW  yt, absv, yt; \
	VPMADDWD    Y15, yr, yr; \
	VPMADDWD    Y15, yt, yt; \
	VPADDD      yt, yr, yr

// IQ4XSTWO folds one token's two pairs of the current half (block j's
// activations at xoff(xr)) into Y12: per lane, [j, j, j+1, j+1] (low) or
// [j+4, j+4, j+5, j+5] (high) partial sums. Clobbers Y13, Y14.
#define IQ4XSTWO(xr, xoff) \
	IQ4XSPAIR(xr, xoff, Y4, Y5, Y8, Y9, X12, Y12, X13, Y13); \
	IQ4XSPAIR(xr, xoff+32, Y6, Y7, Y10, Y11, X13, Y13, X14, Y14); \
	VPHADDD Y13, Y12, Y12

// IQ4XSFIRST keeps a token's sums over the first half at p.
#define IQ4XSFIRST(xr, p) \
	IQ4XSTWO(xr, 0); \
	VMOVDQA Y12, p

// IQ4XSSECOND completes a token's super-block: its sums over the second
// half and the first's at p folded into the eight block sums in order,
// then the Rows kernel's acc += float(Σ)·((d·(ls − 32))·dx).
#define IQ4XSSECOND(xr, p, dx, acc) \
	IQ4XSTWO(xr, 64); \
	VMOVDQA     p, Y13; \
	VPHADDD     Y12, Y13, Y12; \
	VCVTDQ2PS   Y12, Y12; \
	VMOVAPS     128(R9), Y14; \
	VMULPS      dx, Y14, Y14; \
	VFMADD231PS Y14, Y12, acc

// func gemm4IQ4XSAVX2(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32, ostride int)
//
// For rows consecutive IQ4_XS rows of nsb super-blocks and four tokens
// whose codes are xq + t·256·nsb and scales xd + t·8·nsb:
// out[t·ostride + r] = row r · token t, bit for bit dotIQ4XSRowsAVX2's.
TEXT ·gemm4IQ4XSAVX2(SB), NOSPLIT, $200-56
	LEAQ  buf-200(SP), R9 // 160 bytes from the next 32-byte boundary
	ADDQ  $31, R9
	ANDQ  $~31, R9
	MOVQ  w+0(FP), SI
	MOVQ  out+40(FP), R13
	MOVQ  nsb+24(FP), CX
	MOVQ  CX, AX
	IMULQ $136, AX
	IMULQ rows+32(FP), AX
	ADDQ  SI, AX
	MOVQ  AX, end-8(SP)
	K23G4SETUP

g4xsrow:
	CMPQ SI, end-8(SP)
	JAE  g4xsend
	MOVQ xq+8(FP), DI
	MOVQ xd+16(FP), R8
	MOVQ nsb+24(FP), CX
	K23G4ZERO4

g4xsloop:
	PREFETCHT0 PF(SI)
	PREFETCHT0 PF+64(SI)
	PREFETCHT0 PF+128(SI)

	// d·(ls_j − 32) for the 8 sub-blocks, as dotIQ4XSRowsAVX2 forms it.
	VPBROADCASTD 4(SI), Y12 // scales_l
	VPSLLVD      k23gXSLoShift<>(SB), Y12, Y12
	VPSRLD       $28, Y12, Y12
	VPBROADCASTD 0(SI), Y13 // d | scales_h<<16
	VPSRLVD      k23gXSHiShift<>(SB), Y13, Y13
	VPAND        k23gXSMask30<>(SB), Y13, Y13
	VPOR         Y13, Y12, Y12
	VPSUBD       k23gDword32<>(SB), Y12, Y12
	VCVTDQ2PS    Y12, Y12
	K23G4HALF8(0, X13, Y13)
	VMULPS       Y13, Y12, Y12
	VMOVAPS      Y12, 128(R9)
	K23G4TOKENS

	IQ4XSHALF(8)
	IQ4XSFIRST(DI, 0(R9))
	IQ4XSFIRST(R10, 32(R9))
	IQ4XSFIRST(R11, 64(R9))
	IQ4XSFIRST(AX, 96(R9))
	IQ4XSHALF(40)
	IQ4XSSECOND(DI, 0(R9), (R8), Y0)
	IQ4XSSECOND(R10, 32(R9), (R8)(DX*1), Y1)
	IQ4XSSECOND(R11, 64(R9), (R8)(DX*2), Y2)
	IQ4XSSECOND(AX, 96(R9), (R8)(BX*1), Y3)

	ADDQ $136, SI
	ADDQ $256, DI
	ADDQ $32, R8
	DECQ CX
	JNZ  g4xsloop

	K23G4END(ostride+48(FP))
	JMP g4xsrow

g4xsend:
	VZEROUPPER
	RET
