#include "textflag.h"
#include "e8m0_amd64.h"

// AVX2 + FMA + F16C row kernels for Q4_1, Q5_0, Q5_1, IQ4_NL and MXFP4
// (layouts in quant_legacy.go and quant_mxfp4.go; portable definitions in
// dot_legacy.go). Conventions as in
// dot_amd64.s: SI weights, DI activation codes, R8 activation scales dx, R9
// activation block sums dx·Σxq, CX blocks left in the row, R13 the output.
// Y15 holds int16 ones (VPMADDWD pair sums), Y14 the nibble mask 0x0F.
//
// Every block is unpacked into one 32-byte vector of codes in activation
// order: the 16 low nibbles (weights 0..15) in the low lane, the 16 high
// nibbles (weights 16..31) in the high lane, so a single VPMADDUBSW against
// the 32 activation codes gives the block's products.
//
// Rows are processed four blocks at a time. One block's VPMADDWD leaves its
// products as eight int32 partial sums; three VPHADDD and one lane fold turn
// four blocks' vectors into one X register [Σ0, Σ1, Σ2, Σ3], so the float
// work is one convert and one FMA per four blocks against the vector of
// their factors d·dx, the four f16 d converted at once. The one-block form
// (a scalar convert, multiply and broadcast per block) cost as much as the
// integer dot itself at 32 weights per block: measured here (single thread,
// cache-resident rows) the four-block form is 5–20 % faster for Q4_1, Q5_0
// and Q5_1. X1 gathers the four lanes; the 0–3 blocks left at the end of a
// row take the one-block macros into Y0 and X13's low lane. The offset terms
// (m, or Q5_0's d before its −16) times the block sums dx·Σxq gather in
// X13's four lanes, folded in once per row.

// LPF is how far ahead the weights are prefetched, as PF in dot_amd64.s
// (the hardware prefetcher alone leaves DRAM bandwidth unused on one stream).
#define LPF 2048

#define LHSUM \
	VEXTRACTF128 $1, Y0, X1; \
	VADDPS       X1, X0, X0; \
	VHADDPS      X0, X0, X0; \
	VHADDPS      X0, X0, X0

#define LONES16_Y15 \
	MOVL         $0x00010001, AX; \
	VMOVD        AX, X15; \
	VPBROADCASTD X15, Y15

#define LMASK0F_Y14 \
	MOVL         $0x0f0f0f0f, AX; \
	VMOVD        AX, X14; \
	VPBROADCASTD X14, Y14

// LF16AT loads the half at off(SI) into the low float lane of reg.
#define LF16AT(off, reg) \
	MOVWLZX   off(SI), AX; \
	VMOVD     AX, reg; \
	VCVTPH2PS reg, reg

// LNIBBLES loads the 16 bytes of nibbles at off(SI) into Y4 as 32 codes
// 0..15, low nibbles in the low lane and high nibbles in the high lane: the
// bytes go to both lanes and the high lane's dwords shift right by 4. The
// bits that shift in from the next byte land in the high nibble, which the
// mask clears. Load, shift and mask keep the shuffle units free (a byte
// shift plus VINSERTI128 measured 25 % slower on Q5_1).
#define LNIBBLES(off) \
	VBROADCASTI128 off(SI), Y4; \
	VPSRLVD        legacyNibbleShift<>(SB), Y4, Y4; \
	VPAND          Y14, Y4, Y4

// LQH expands the 32 fifth bits at off(SI) (little-endian uint32, bit j for
// weight j) into reg as bytes 0x10 (bit set) or 0: broadcast the word, copy
// byte j/8 to byte j (Y12, per lane: the low lane takes bytes 0–1 of the
// word, the high lane bytes 2–3), keep bit j%8 of byte j (Y11), turn each
// surviving bit into 0xFF by comparing with the same mask, and cut it to
// 0x10 (Y10).
#define LQH(off, reg) \
	VPBROADCASTD off(SI), reg; \
	VPSHUFB      Y12, reg, reg; \
	VPAND        Y11, reg, reg; \
	VPCMPEQB     Y11, reg, reg; \
	VPAND        Y10, reg, reg

// LQHCONSTS loads the three constants LQH uses.
#define LQHCONSTS \
	VMOVDQU      legacyQHShuf<>(SB), Y12; \
	MOVQ         $0x8040201008040201, AX; \
	VMOVQ        AX, X11; \
	VPBROADCASTQ X11, Y11; \
	MOVL         $0x10101010, AX; \
	VMOVD        AX, X10; \
	VPBROADCASTD X10, Y10

// Byte j of the shuffle is j/8 modulo the lane: bytes 0–7 → 0, 8–15 → 1 in
// the low lane; 16–23 → 2, 24–31 → 3 in the high lane (VPSHUFB indexes within
// each lane, and both lanes hold the broadcast word).
DATA legacyQHShuf<>+0(SB)/8, $0x0000000000000000
DATA legacyQHShuf<>+8(SB)/8, $0x0101010101010101
DATA legacyQHShuf<>+16(SB)/8, $0x0202020202020202
DATA legacyQHShuf<>+24(SB)/8, $0x0303030303030303
GLOBL legacyQHShuf<>(SB), RODATA|NOPTR, $32

// Dword shift counts for LNIBBLES: 0 in the low lane, 4 in the high one.
DATA legacyNibbleShift<>+0(SB)/8, $0
DATA legacyNibbleShift<>+8(SB)/8, $0
DATA legacyNibbleShift<>+16(SB)/8, $0x0000000400000004
DATA legacyNibbleShift<>+24(SB)/8, $0x0000000400000004
GLOBL legacyNibbleShift<>(SB), RODATA|NOPTR, $32

// kvalues_iq4nl as signed bytes (iq4nlValues in quant_legacy.go).
DATA legacyIQ4NLValues<>+0(SB)/8, $0xf6eaddcfbfad9881
DATA legacyIQ4NLValues<>+8(SB)/8, $0x7159453526190d01
GLOBL legacyIQ4NLValues<>(SB), RODATA|NOPTR, $16

// MXFP4's doubled E2M1 values as signed bytes (mxfp4Values in
// quant_mxfp4.go).
DATA legacyMXFP4Values<>+0(SB)/8, $0x0c08060403020100
DATA legacyMXFP4Values<>+8(SB)/8, $0xf4f8fafcfdfeff00
GLOBL legacyMXFP4Values<>(SB), RODATA|NOPTR, $16

// The fold of four blocks' int32 sums, each in a group macro between the
// unpacks: LFOLD01 pairs block 0 (Y7) with block 1 (Y8), LFOLD23 block 2
// (Y8 again) with block 3 (Y9), each lane then holding [b 0+1, b 2+3, b' 0+1,
// b' 2+3] of its two blocks; LFOLDALL pairs those, adds the high lane (the
// sums over weights 16..31) to the low one and converts: X7 = [Σ0 … Σ3].
#define LFOLD01 VPHADDD Y8, Y7, Y7
#define LFOLD23 VPHADDD Y9, Y8, Y8
#define LFOLDALL \
	VPHADDD      Y8, Y7, Y7; \
	VEXTRACTI128 $1, Y7, X8; \
	VPADDD       X8, X7, X7; \
	VCVTDQ2PS    X7, X7

// LHALVES4(off, off1, off2, off3, reg) converts the f16 fields at off(SI),
// off1(SI), off2(SI) and off3(SI) (the same field of four blocks) into reg's
// four float lanes. The halves are packed in a general register: the
// integer ports are idle in these loops, while VPINSRW would take two
// vector µops per half from the shuffle units the unpacking needs.
#define LHALVES4(off, off1, off2, off3, reg) \
	MOVWQZX   off(SI), AX; \
	MOVWQZX   off1(SI), DX; \
	SHLQ      $16, DX; \
	ORQ       DX, AX; \
	MOVWQZX   off2(SI), DX; \
	SHLQ      $32, DX; \
	ORQ       DX, AX; \
	MOVWQZX   off3(SI), DX; \
	SHLQ      $48, DX; \
	ORQ       DX, AX; \
	VMOVQ     AX, reg; \
	VCVTPH2PS reg, reg

// LROWEND folds the four-block lanes X1 and the tail's Y0 into X0's low
// lane (X1 was written only by VEX.128 instructions, so its upper half is
// zero), and the offset lanes of X13 into X13's low lane.
#define LROWEND \
	VADDPS  Y1, Y0, Y0; \
	LHSUM; \
	VHADDPS X13, X13, X13; \
	VHADDPS X13, X13, X13

// Q41SUMS leaves the eight int32 partial sums of q·xq for the Q4_1 block at
// woff(SI) (activations at xoff(DI)) in out. Codes ≤ 15 against |x| ≤ 127
// cannot saturate VPMADDUBSW's int16 pairs.
#define Q41SUMS(woff, xoff, out) \
	LNIBBLES(woff+4); \
	VPMADDUBSW xoff(DI), Y4, Y4; \
	VPMADDWD   Y15, Y4, out

// Q41BLOCK accumulates one Q4_1 block (20 bytes at woff(SI): d, m, qs).
// w = d·q + m: acc gathers d·dx·Σq·xq over the unsigned codes, X13's low lane
// m·(dx·Σxq) from the block sums.
#define Q41BLOCK(woff, xoff, doff, acc) \
	LF16AT(woff+2, X2); \
	VFMADD231SS  doff(R9), X2, X13; \
	LF16AT(woff, X2); \
	VMULSS       doff(R8), X2, X3; \
	VBROADCASTSS X3, Y3; \
	Q41SUMS(woff, xoff, Y4); \
	VCVTDQ2PS    Y4, Y4; \
	VFMADD231PS  Y4, Y3, acc

// Q41GROUP accumulates four Q4_1 blocks (80 bytes at SI) into X1 and X13.
#define Q41GROUP \
	LHALVES4(0, 20, 40, 60, X2); \
	VMULPS      (R8), X2, X2; \
	LHALVES4(2, 22, 42, 62, X3); \
	VFMADD231PS (R9), X3, X13; \
	Q41SUMS(0, 0, Y7); \
	Q41SUMS(20, 32, Y8); \
	LFOLD01; \
	Q41SUMS(40, 64, Y8); \
	Q41SUMS(60, 96, Y9); \
	LFOLD23; \
	LFOLDALL; \
	VFMADD231PS X7, X2, X1

// func dotQ4_1RowsAVX2(w *byte, xq *int8, xd, xs *float32, nb, rows int, out *float32)
// out[r] = row r · x for rows consecutive rows of nb blocks.
TEXT ·dotQ4_1RowsAVX2(SB), NOSPLIT, $8-56
	MOVQ  w+0(FP), SI
	MOVQ  out+48(FP), R13
	MOVQ  nb+32(FP), AX
	IMULQ $20, AX
	IMULQ rows+40(FP), AX
	ADDQ  SI, AX
	MOVQ  AX, end-8(SP)
	LONES16_Y15
	LMASK0F_Y14

q41row:
	CMPQ   SI, end-8(SP)
	JAE    q41end
	MOVQ   xq+8(FP), DI
	MOVQ   xd+16(FP), R8
	MOVQ   xs+24(FP), R9
	MOVQ   nb+32(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS X1, X1, X1
	VXORPS X13, X13, X13

q41loop4:
	CMPQ       CX, $4
	JLT        q41tail
	PREFETCHT0 LPF(SI)
	PREFETCHT0 LPF+64(SI)
	Q41GROUP
	ADDQ       $80, SI
	ADDQ       $128, DI
	ADDQ       $16, R8
	ADDQ       $16, R9
	SUBQ       $4, CX
	JMP        q41loop4

q41tail:
	TESTQ CX, CX
	JEQ   q41done
	Q41BLOCK(0, 0, 0, Y0)
	ADDQ  $20, SI
	ADDQ  $32, DI
	ADDQ  $4, R8
	ADDQ  $4, R9
	DECQ  CX
	JMP   q41tail

q41done:
	LROWEND
	VADDSS X13, X0, X0
	VMOVSS X0, (R13)
	ADDQ   $4, R13
	JMP    q41row

q41end:
	VZEROUPPER
	RET

// Q50SUMS is Q41SUMS for the Q5_0 block at woff(SI) (d, qh, qs): the codes
// take their fifth bit from qh and stay unsigned (0..31; 2·31·127 still fits
// VPMADDUBSW's int16), the −16 being applied through the block sums.
#define Q50SUMS(woff, xoff, out) \
	LQH(woff+2, Y6); \
	LNIBBLES(woff+6); \
	VPOR       Y6, Y4, Y4; \
	VPMADDUBSW xoff(DI), Y4, Y4; \
	VPMADDWD   Y15, Y4, out

// Q50BLOCK accumulates one Q5_0 block (22 bytes at woff(SI)). w = d·(q−16):
// acc gathers d·dx·Σq·xq, X13's low lane d·(dx·Σxq), subtracted 16 times at
// the end of the row.
#define Q50BLOCK(woff, xoff, doff, acc) \
	LF16AT(woff, X2); \
	VFMADD231SS  doff(R9), X2, X13; \
	VMULSS       doff(R8), X2, X3; \
	VBROADCASTSS X3, Y3; \
	Q50SUMS(woff, xoff, Y4); \
	VCVTDQ2PS    Y4, Y4; \
	VFMADD231PS  Y4, Y3, acc

// Q50GROUP accumulates four Q5_0 blocks (88 bytes at SI) into X1 and X13.
#define Q50GROUP \
	LHALVES4(0, 22, 44, 66, X3); \
	VMULPS      (R8), X3, X2; \
	VFMADD231PS (R9), X3, X13; \
	Q50SUMS(0, 0, Y7); \
	Q50SUMS(22, 32, Y8); \
	LFOLD01; \
	Q50SUMS(44, 64, Y8); \
	Q50SUMS(66, 96, Y9); \
	LFOLD23; \
	LFOLDALL; \
	VFMADD231PS X7, X2, X1

// func dotQ5_0RowsAVX2(w *byte, xq *int8, xd, xs *float32, nb, rows int, out *float32)
TEXT ·dotQ5_0RowsAVX2(SB), NOSPLIT, $8-56
	MOVQ  w+0(FP), SI
	MOVQ  out+48(FP), R13
	MOVQ  nb+32(FP), AX
	IMULQ $22, AX
	IMULQ rows+40(FP), AX
	ADDQ  SI, AX
	MOVQ  AX, end-8(SP)
	LONES16_Y15
	LMASK0F_Y14
	LQHCONSTS

q50row:
	CMPQ   SI, end-8(SP)
	JAE    q50end
	MOVQ   xq+8(FP), DI
	MOVQ   xd+16(FP), R8
	MOVQ   xs+24(FP), R9
	MOVQ   nb+32(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS X1, X1, X1
	VXORPS X13, X13, X13

q50loop4:
	CMPQ       CX, $4
	JLT        q50tail
	PREFETCHT0 LPF(SI)
	PREFETCHT0 LPF+64(SI)
	Q50GROUP
	ADDQ       $88, SI
	ADDQ       $128, DI
	ADDQ       $16, R8
	ADDQ       $16, R9
	SUBQ       $4, CX
	JMP        q50loop4

q50tail:
	TESTQ CX, CX
	JEQ   q50done
	Q50BLOCK(0, 0, 0, Y0)
	ADDQ  $22, SI
	ADDQ  $32, DI
	ADDQ  $4, R8
	ADDQ  $4, R9
	DECQ  CX
	JMP   q50tail

q50done:
	LROWEND
	MOVL   $0x41800000, AX // 16.0
	VMOVD  AX, X2
	VMULSS X2, X13, X13
	VSUBSS X13, X0, X0
	VMOVSS X0, (R13)
	ADDQ   $4, R13
	JMP    q50row

q50end:
	VZEROUPPER
	RET

// Q51SUMS is Q50SUMS for the Q5_1 block at woff(SI) (d, m, qh, qs).
#define Q51SUMS(woff, xoff, out) \
	LQH(woff+4, Y6); \
	LNIBBLES(woff+8); \
	VPOR       Y6, Y4, Y4; \
	VPMADDUBSW xoff(DI), Y4, Y4; \
	VPMADDWD   Y15, Y4, out

// Q51BLOCK accumulates one Q5_1 block (24 bytes at woff(SI)): Q41BLOCK's
// arithmetic on 5-bit codes.
#define Q51BLOCK(woff, xoff, doff, acc) \
	LF16AT(woff+2, X2); \
	VFMADD231SS  doff(R9), X2, X13; \
	LF16AT(woff, X2); \
	VMULSS       doff(R8), X2, X3; \
	VBROADCASTSS X3, Y3; \
	Q51SUMS(woff, xoff, Y4); \
	VCVTDQ2PS    Y4, Y4; \
	VFMADD231PS  Y4, Y3, acc

// Q51GROUP accumulates four Q5_1 blocks (96 bytes at SI) into X1 and X13.
#define Q51GROUP \
	LHALVES4(0, 24, 48, 72, X2); \
	VMULPS      (R8), X2, X2; \
	LHALVES4(2, 26, 50, 74, X3); \
	VFMADD231PS (R9), X3, X13; \
	Q51SUMS(0, 0, Y7); \
	Q51SUMS(24, 32, Y8); \
	LFOLD01; \
	Q51SUMS(48, 64, Y8); \
	Q51SUMS(72, 96, Y9); \
	LFOLD23; \
	LFOLDALL; \
	VFMADD231PS X7, X2, X1

// func dotQ5_1RowsAVX2(w *byte, xq *int8, xd, xs *float32, nb, rows int, out *float32)
TEXT ·dotQ5_1RowsAVX2(SB), NOSPLIT, $8-56
	MOVQ  w+0(FP), SI
	MOVQ  out+48(FP), R13
	MOVQ  nb+32(FP), AX
	IMULQ $24, AX
	IMULQ rows+40(FP), AX
	ADDQ  SI, AX
	MOVQ  AX, end-8(SP)
	LONES16_Y15
	LMASK0F_Y14
	LQHCONSTS

q51row:
	CMPQ   SI, end-8(SP)
	JAE    q51end
	MOVQ   xq+8(FP), DI
	MOVQ   xd+16(FP), R8
	MOVQ   xs+24(FP), R9
	MOVQ   nb+32(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS X1, X1, X1
	VXORPS X13, X13, X13

q51loop4:
	CMPQ       CX, $4
	JLT        q51tail
	PREFETCHT0 LPF(SI)
	PREFETCHT0 LPF+64(SI)
	Q51GROUP
	ADDQ       $96, SI
	ADDQ       $128, DI
	ADDQ       $16, R8
	ADDQ       $16, R9
	SUBQ       $4, CX
	JMP        q51loop4

q51tail:
	TESTQ CX, CX
	JEQ   q51done
	Q51BLOCK(0, 0, 0, Y0)
	ADDQ  $24, SI
	ADDQ  $32, DI
	ADDQ  $4, R8
	ADDQ  $4, R9
	DECQ  CX
	JMP   q51tail

q51done:
	LROWEND
	VADDSS X13, X0, X0
	VMOVSS X0, (R13)
	ADDQ   $4, R13
	JMP    q51row

q51end:
	VZEROUPPER
	RET

// IQ4NLSUMS leaves the eight int32 partial sums of w·xq for the IQ4_NL block
// at woff(SI) (d, qs) in out. VPSHUFB looks the 32 codes up in the 16-byte
// table Y12 (both lanes) to get the signed levels; as in dot_amd64.s's
// Q8BLOCK, VPMADDUBSW needs one unsigned operand, so the level's sign moves
// onto the activation: |w|·(x·sign w) = w·x. |w| ≤ 127 and |x| ≤ 127 keep
// each pair sum below int16 saturation (2·127·127 = 32258). No level is 0,
// so VPSIGNB never zeroes an activation.
#define IQ4NLSUMS(woff, xoff, out) \
	LVSUMS(woff+2, xoff, out)

// LVSUMS is IQ4NLSUMS for the nibbles at qoff(SI), whatever table of
// signed levels Y12 holds (IQ4_NL's, or MXFP4's, whose levels include 0:
// VPSIGNB then zeroes the activation and the level alike, and the product
// is the 0 it should be).
#define LVSUMS(qoff, xoff, out) \
	LNIBBLES(qoff); \
	VPSHUFB    Y4, Y12, Y4; \
	VMOVDQU    xoff(DI), Y5; \
	VPSIGNB    Y4, Y5, Y5; \
	VPSIGNB    Y4, Y4, Y4; \
	VPMADDUBSW Y5, Y4, Y4; \
	VPMADDWD   Y15, Y4, out

// IQ4NLBLOCK accumulates one IQ4_NL block (18 bytes at woff(SI)) into acc.
#define IQ4NLBLOCK(woff, xoff, doff, acc) \
	LF16AT(woff, X2); \
	VMULSS       doff(R8), X2, X2; \
	VBROADCASTSS X2, Y2; \
	IQ4NLSUMS(woff, xoff, Y4); \
	VCVTDQ2PS    Y4, Y4; \
	VFMADD231PS  Y4, Y2, acc

// IQ4NLGROUP accumulates four IQ4_NL blocks (72 bytes at SI) into X1.
#define IQ4NLGROUP \
	LHALVES4(0, 18, 36, 54, X2); \
	VMULPS      (R8), X2, X2; \
	IQ4NLSUMS(0, 0, Y7); \
	IQ4NLSUMS(18, 32, Y8); \
	LFOLD01; \
	IQ4NLSUMS(36, 64, Y8); \
	IQ4NLSUMS(54, 96, Y9); \
	LFOLD23; \
	LFOLDALL; \
	VFMADD231PS X7, X2, X1

// func dotIQ4NLRowsAVX2(w *byte, xq *int8, xd *float32, nb, rows int, out *float32)
TEXT ·dotIQ4NLRowsAVX2(SB), NOSPLIT, $8-48
	MOVQ           w+0(FP), SI
	MOVQ           out+40(FP), R13
	MOVQ           nb+24(FP), AX
	IMULQ          $18, AX
	IMULQ          rows+32(FP), AX
	ADDQ           SI, AX
	MOVQ           AX, end-8(SP)
	LONES16_Y15
	LMASK0F_Y14
	VBROADCASTI128 legacyIQ4NLValues<>(SB), Y12

iq4nlrow:
	CMPQ   SI, end-8(SP)
	JAE    iq4nlend
	MOVQ   xq+8(FP), DI
	MOVQ   xd+16(FP), R8
	MOVQ   nb+24(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS X1, X1, X1
	VXORPS X13, X13, X13

iq4nlloop4:
	CMPQ       CX, $4
	JLT        iq4nltail
	PREFETCHT0 LPF(SI)
	PREFETCHT0 LPF+64(SI)
	IQ4NLGROUP
	ADDQ       $72, SI
	ADDQ       $128, DI
	ADDQ       $16, R8
	SUBQ       $4, CX
	JMP        iq4nlloop4

iq4nltail:
	TESTQ CX, CX
	JEQ   iq4nldone
	IQ4NLBLOCK(0, 0, 0, Y0)
	ADDQ  $18, SI
	ADDQ  $32, DI
	ADDQ  $4, R8
	DECQ  CX
	JMP   iq4nltail

iq4nldone:
	LROWEND
	VMOVSS X0, (R13)
	ADDQ   $4, R13
	JMP    iq4nlrow

iq4nlend:
	VZEROUPPER
	RET

// MXBLOCK accumulates one MXFP4 block (17 bytes at woff(SI): e, qs) into
// acc, as IQ4NLBLOCK does with the scale 2^(e−128) (E8M0HALF; X10 its
// constant, X3 scratch).
#define MXBLOCK(woff, xoff, doff, acc) \
	MOVBLZX      woff(SI), AX; \
	VMOVD        AX, X2; \
	E8M0HALF(X2, X10, X3); \
	VMULSS       doff(R8), X2, X2; \
	VBROADCASTSS X2, Y2; \
	LVSUMS(woff+1, xoff, Y4); \
	VCVTDQ2PS    Y4, Y4; \
	VFMADD231PS  Y4, Y2, acc

// MXGROUP accumulates four MXFP4 blocks (68 bytes at SI) into X1, as
// IQ4NLGROUP does.
#define MXGROUP \
	E8M0BYTES4(SI, 0, 17, 34, 51, X2, DX); \
	E8M0HALF(X2, X10, X3); \
	VMULPS      (R8), X2, X2; \
	LVSUMS(1, 0, Y7); \
	LVSUMS(18, 32, Y8); \
	LFOLD01; \
	LVSUMS(35, 64, Y8); \
	LVSUMS(52, 96, Y9); \
	LFOLD23; \
	LFOLDALL; \
	VFMADD231PS X7, X2, X1

// func dotMXFP4RowsAVX2(w *byte, xq *int8, xd *float32, nb, rows int, out *float32)
//
// dotIQ4NLRowsAVX2 for MXFP4: Y12 holds MXFP4's levels, X10 E8M0HALF's
// constant.
TEXT ·dotMXFP4RowsAVX2(SB), NOSPLIT, $8-48
	MOVQ           w+0(FP), SI
	MOVQ           out+40(FP), R13
	MOVQ           nb+24(FP), AX
	IMULQ          $17, AX
	IMULQ          rows+32(FP), AX
	ADDQ           SI, AX
	MOVQ           AX, end-8(SP)
	LONES16_Y15
	LMASK0F_Y14
	VBROADCASTI128 legacyMXFP4Values<>(SB), Y12
	E8M0C4(X10)

mxrow:
	CMPQ   SI, end-8(SP)
	JAE    mxend
	MOVQ   xq+8(FP), DI
	MOVQ   xd+16(FP), R8
	MOVQ   nb+24(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS X1, X1, X1
	VXORPS X13, X13, X13

mxloop4:
	CMPQ       CX, $4
	JLT        mxtail
	PREFETCHT0 LPF(SI)
	PREFETCHT0 LPF+64(SI)
	MXGROUP
	ADDQ       $68, SI
	ADDQ       $128, DI
	ADDQ       $16, R8
	SUBQ       $4, CX
	JMP        mxloop4

mxtail:
	TESTQ CX, CX
	JEQ   mxdone
	MXBLOCK(0, 0, 0, Y0)
	ADDQ  $17, SI
	ADDQ  $32, DI
	ADDQ  $4, R8
	DECQ  CX
	JMP   mxtail

mxdone:
	LROWEND
	VMOVSS X0, (R13)
	ADDQ   $4, R13
	JMP    mxrow

mxend:
	VZEROUPPER
	RET
