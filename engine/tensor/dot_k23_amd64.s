#include "textflag.h"

// AVX2 + FMA + F16C row kernels for Q2_K, Q3_K and IQ4_XS (layouts in
// quant_k23.go and quant_iq4xs.go; dotQ2KGo, dotQ3KGo and dotIQ4XSGo in
// dot_k23.go are the definitions they follow). Conventions as in
// dot_amd64.s: SI weights, DI activation codes, R8 activation scales,
// R13 the output, Y0 the row's float accumulator.
//
// Every super-block is 8 activation blocks of 32, and each kernel ends a
// super-block with one vector holding the 8 blocks' exact int32 sums, one
// per lane, so the float work (convert, scale by d·dx, accumulate) is a few
// instructions per super-block, as in the Q4_K kernel.
//
// Q2_K and Q3_K scale every 16 weights, half an activation block. Their sums
// over 16 weights fit int16 (|q| ≤ 4, |xq| ≤ 127: at most 16·4·127 = 8128),
// so VPHADDW trees fold the blocks' VPMADDUBSW pair sums down to the 16
// per-sub-block sums of the super-block, and one VPMADDWD against the 16
// sub-block scales (or Q2_K's mins) as words gives the 8 block sums
// Σ_k s_k·Σ_{e∈k} q·xq at once. Q2_K's mins need Σxq per 16 weights, which
// act does not keep (its s is per 32): the same tree over VPMADDUBSW of the
// bytes 1 against xq makes them.

// K23PF is how far ahead the weights are prefetched (PF in dot_amd64.s).
#define K23PF 2048

// K23HSUM folds the eight float lanes of Y0 into X0's low lane. Clobbers X1.
#define K23HSUM \
	VEXTRACTF128 $1, Y0, X1; \
	VADDPS       X1, X0, X0; \
	VHADDPS      X0, X0, X0; \
	VHADDPS      X0, X0, X0

// K23BCAST32 broadcasts the 32-bit constant c to all lanes of y (x its low half).
#define K23BCAST32(c, x, y) \
	MOVL         c, AX; \
	VMOVD        AX, x; \
	VPBROADCASTD x, y

// K23HALF8 broadcasts the float16 at off(SI) to the eight float lanes of y
// (x its low half).
#define K23HALF8(off, x, y) \
	VPBROADCASTW off(SI), x; \
	VCVTPH2PS    x, y

// K23SUBSUMS turns t, the three-level VPHADDW fold of a super-block's
// pair sums ([sub-blocks 0, 2, …, 14 | 1, 3, …, 15] as words), into the
// sub-blocks in order 0…15: VPERMQ brings [0 2 4 6 1 3 5 7 | 8 … 15] into
// each lane and k23WordOrder interleaves the words within it.
#define K23SUBSUMS(t) \
	VPERMQ  $0xD8, t, t; \
	VPSHUFB k23WordOrder<>(SB), t, t

// Word shuffle [0 4 1 5 2 6 3 7] within each 128-bit lane, as bytes.
DATA k23WordOrder<>+0(SB)/8, $0x0b0a030209080100
DATA k23WordOrder<>+8(SB)/8, $0x0f0e07060d0c0504
DATA k23WordOrder<>+16(SB)/8, $0x0b0a030209080100
DATA k23WordOrder<>+24(SB)/8, $0x0f0e07060d0c0504
GLOBL k23WordOrder<>(SB), RODATA|NOPTR, $32

DATA k23Mask0F<>+0(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA k23Mask0F<>+8(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA k23Mask0F<>+16(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA k23Mask0F<>+24(SB)/8, $0x0f0f0f0f0f0f0f0f
GLOBL k23Mask0F<>(SB), RODATA|NOPTR, $32

// ---------------------------------------------------------------------------
// Q2_K

// Q2KBLOCK handles one activation block (activations at xoff(DI)) whose 2-bit
// codes are bits shift..shift+1 of the 32 bytes in Y5: t gets the 16 pair
// sums of q·xq, u those of xq (VPMADDUBSW against the ones of Y14). Pair
// sums reach 2·3·127: no saturation.
#define Q2KBLOCK(shift, xoff, t, u) \
	VPSRLW     $shift, Y5, Y6; \
	VPAND      Y13, Y6, Y6; \
	VPMADDUBSW xoff(DI), Y6, t; \
	VPMADDUBSW xoff(DI), Y14, u

// Q2KHALF handles the 128 weights of one half: codes at qoff(SI), blocks
// from xoff(DI). It leaves two VPHADDW levels of the blocks' pair sums in
// tout (of q·xq) and uout (of xq). Clobbers Y1–Y8.
#define Q2KHALF(qoff, xoff, tout, uout) \
	VMOVDQU qoff(SI), Y5; \
	Q2KBLOCK(0, xoff, Y1, Y2); \
	Q2KBLOCK(2, xoff+32, Y3, Y4); \
	VPHADDW Y3, Y1, Y1; \
	VPHADDW Y4, Y2, Y2; \
	Q2KBLOCK(4, xoff+64, Y3, Y4); \
	Q2KBLOCK(6, xoff+96, Y7, Y8); \
	VPHADDW Y7, Y3, Y3; \
	VPHADDW Y8, Y4, Y4; \
	VPHADDW Y3, Y1, tout; \
	VPHADDW Y4, Y2, uout

// func dotQ2KRowsAVX2(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32)
//
// Per activation block b: dx_b·(d·P_b − dmin·M_b) with P_b = Σ sc·q·xq and
// M_b = Σ m·xq over its two sub-blocks (dotQ2KGo).
TEXT ·dotQ2KRowsAVX2(SB), NOSPLIT, $8-48
	MOVQ  w+0(FP), SI
	MOVQ  out+40(FP), R13
	MOVQ  nsb+24(FP), AX
	IMULQ $84, AX
	IMULQ rows+32(FP), AX
	ADDQ  SI, AX
	MOVQ  AX, end-8(SP)
	K23BCAST32($0x03030303, X13, Y13)
	K23BCAST32($0x01010101, X14, Y14)

q2krow:
	CMPQ   SI, end-8(SP)
	JAE    q2kend
	MOVQ   xq+8(FP), DI
	MOVQ   xd+16(FP), R8
	MOVQ   nsb+24(FP), CX
	VXORPS Y0, Y0, Y0

q2kloop:
	TESTQ      CX, CX
	JEQ        q2kdone
	PREFETCHT0 K23PF(SI)
	PREFETCHT0 K23PF+64(SI)

	// scales[16] as words: the low nibble is the scale, the high the min.
	VPMOVZXBW 0(SI), Y9
	VPSRLW    $4, Y9, Y10                // mins
	VPAND     k23Mask0F<>(SB), Y9, Y9    // scales

	Q2KHALF(16, 0, Y11, Y12)
	Q2KHALF(48, 128, Y1, Y2)
	VPHADDW   Y1, Y11, Y1                // Σq·xq per sub-block
	VPHADDW   Y2, Y12, Y2                // Σxq per sub-block
	K23SUBSUMS(Y1)
	K23SUBSUMS(Y2)
	VPMADDWD  Y9, Y1, Y1                 // P_0…P_7
	VPMADDWD  Y10, Y2, Y2                // M_0…M_7
	VCVTDQ2PS Y1, Y1
	VCVTDQ2PS Y2, Y2
	K23HALF8(80, X3, Y3)                 // d
	K23HALF8(82, X4, Y4)                 // dmin
	VMULPS       Y3, Y1, Y1
	VFNMADD231PS Y4, Y2, Y1              // d·P − dmin·M
	VFMADD231PS  (R8), Y1, Y0            // += dx·(…)

	ADDQ $84, SI
	ADDQ $256, DI
	ADDQ $32, R8
	DECQ CX
	JMP  q2kloop

q2kdone:
	K23HSUM
	VMOVSS X0, (R13)
	ADDQ   $4, R13
	JMP    q2krow

q2kend:
	VZEROUPPER
	RET

// ---------------------------------------------------------------------------
// Q3_K

// Q3KBLOCK handles one activation block (activations at xoff(DI)): its low
// code bits are bits lshift..lshift+1 of the bytes in Y5, its third bit is
// moved from the hmask bytes in Y9 to bit 2 by hop $hsh (a word shift that
// leaks bits between bytes only outside the mask 0x04 in Y14), and VPANDN
// turns a clear bit into the 4 the code loses. q = low2 − that 4, so t gets
// the pair sums VPMADDUBSW(low2, xq) − VPMADDUBSW(4 or 0, xq), each within
// ±2·4·127.
#define Q3KBLOCK(lshift, hop, hsh, xoff, t) \
	VPSRLW     $lshift, Y5, Y6; \
	VPAND      Y13, Y6, Y6; \
	hop        $hsh, Y9, Y7; \
	VPANDN     Y14, Y7, Y7; \
	VPMADDUBSW xoff(DI), Y6, Y6; \
	VPMADDUBSW xoff(DI), Y7, Y7; \
	VPSUBW     Y7, Y6, t

// Q3KHALF handles the 128 weights of one half (codes at qoff(SI), blocks
// from xoff(DI), hmask bits h0…h0+3 moved by the given shifts) and leaves
// two VPHADDW levels of the pair sums in out. Clobbers Y1–Y3, Y6, Y7.
#define Q3KHALF(qoff, xoff, op0, s0, op1, s1, op2, s2, op3, s3, out) \
	VMOVDQU qoff(SI), Y5; \
	Q3KBLOCK(0, op0, s0, xoff, Y1); \
	Q3KBLOCK(2, op1, s1, xoff+32, Y2); \
	VPHADDW Y2, Y1, Y1; \
	Q3KBLOCK(4, op2, s2, xoff+64, Y2); \
	Q3KBLOCK(6, op3, s3, xoff+96, Y3); \
	VPHADDW Y3, Y2, Y2; \
	VPHADDW Y2, Y1, out

// Shifts [0 2 4 6] for the scales' top bit pairs (see dotQ3KRowsAVX2).
DATA k23Q3HiShift<>+0(SB)/8, $0x0000000200000000
DATA k23Q3HiShift<>+8(SB)/8, $0x0000000600000004
GLOBL k23Q3HiShift<>(SB), RODATA|NOPTR, $16

DATA k23Bytes32<>+0(SB)/8, $0x2020202020202020
DATA k23Bytes32<>+8(SB)/8, $0x2020202020202020
GLOBL k23Bytes32<>(SB), RODATA|NOPTR, $16

// func dotQ3KRowsAVX2(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32)
//
// Per activation block b: d·dx_b·Σ s·q·xq over its two sub-blocks (dotQ3KGo).
TEXT ·dotQ3KRowsAVX2(SB), NOSPLIT, $8-48
	MOVQ  w+0(FP), SI
	MOVQ  out+40(FP), R13
	MOVQ  nsb+24(FP), AX
	IMULQ $110, AX
	IMULQ rows+32(FP), AX
	ADDQ  SI, AX
	MOVQ  AX, end-8(SP)
	K23BCAST32($0x03030303, X13, Y13)
	K23BCAST32($0x04040404, X14, Y14)

q3krow:
	CMPQ   SI, end-8(SP)
	JAE    q3kend
	MOVQ   xq+8(FP), DI
	MOVQ   xd+16(FP), R8
	MOVQ   nsb+24(FP), CX
	VXORPS Y0, Y0, Y0

q3kloop:
	TESTQ      CX, CX
	JEQ        q3kdone
	PREFETCHT0 K23PF(SI)
	PREFETCHT0 K23PF+64(SI)

	// The sixteen scales from p0…p11 (bytes 96…107): scale k's low nibble
	// is the low (k < 8) or high (k ≥ 8) nibble of p[k%8], so the low and
	// high nibbles of p0…p7 in turn; its top two bits are bits 2(k/4) of
	// p[8+k%4], so byte k%4 of dword k/4 once dword i of p8…p11 is shifted
	// right by 2i.
	VMOVQ        96(SI), X6
	VPSRLW       $4, X6, X7
	VPUNPCKLQDQ  X7, X6, X6
	VPAND        k23Mask0F<>(SB), X6, X6
	VPBROADCASTD 104(SI), X7
	VPSRLVD      k23Q3HiShift<>(SB), X7, X7
	VPAND        X13, X7, X7
	VPSLLW       $4, X7, X7
	VPOR         X7, X6, X6
	VPSUBB       k23Bytes32<>(SB), X6, X6 // s − 32, signed
	VPMOVSXBW    X6, Y10
	VMOVDQU      0(SI), Y9                // hmask

	Q3KHALF(32, 0, VPSLLW, 2, VPSLLW, 1, VPSRLW, 0, VPSRLW, 1, Y11)
	Q3KHALF(64, 128, VPSRLW, 2, VPSRLW, 3, VPSRLW, 4, VPSRLW, 5, Y1)
	VPHADDW      Y1, Y11, Y1
	K23SUBSUMS(Y1)
	VPMADDWD     Y10, Y1, Y1              // block sums 0…7
	VCVTDQ2PS    Y1, Y1
	K23HALF8(108, X2, Y2)
	VMULPS       (R8), Y2, Y2             // d·dx
	VFMADD231PS  Y2, Y1, Y0

	ADDQ $110, SI
	ADDQ $256, DI
	ADDQ $32, R8
	DECQ CX
	JMP  q3kloop

q3kdone:
	K23HSUM
	VMOVSS X0, (R13)
	ADDQ   $4, R13
	JMP    q3krow

q3kend:
	VZEROUPPER
	RET

// ---------------------------------------------------------------------------
// IQ4_XS

// IQ4XSPAIR handles sub-blocks j and j+1: 32 code bytes at qoff(SI), so the
// low nibbles hold weights 0…15 of both ([j | j+1]) and the high nibbles
// weights 16…31; the activations are paired the same way from xoff(DI).
// VPSHUFB looks the levels up in Y12, and as in the Q8_0 kernel their signs
// move onto the activations so VPMADDUBSW can take |level| ≤ 127 unsigned:
// pair sums reach at most 2·127·127 = 32258, under int16 saturation. out
// gets int32 partial sums, sub-block j in the low lane, j+1 in the high.
#define IQ4XSPAIR(qoff, xoff, out) \
	VMOVDQU     qoff(SI), Y6; \
	VPSRLW      $4, Y6, Y7; \
	VPAND       Y14, Y6, Y6; \
	VPAND       Y14, Y7, Y7; \
	VPSHUFB     Y6, Y12, Y6; \
	VPSHUFB     Y7, Y12, Y7; \
	VMOVDQU     xoff(DI), X8; \
	VINSERTI128 $1, xoff+32(DI), Y8, Y8; \
	VMOVDQU     xoff+16(DI), X10; \
	VINSERTI128 $1, xoff+48(DI), Y10, Y10; \
	VPSIGNB     Y6, Y8, Y8; \
	VPSIGNB     Y6, Y6, Y6; \
	VPSIGNB     Y7, Y10, Y10; \
	VPSIGNB     Y7, Y7, Y7; \
	VPMADDUBSW  Y8, Y6, Y6; \
	VPMADDUBSW  Y10, Y7, Y7; \
	VPMADDWD    Y15, Y6, Y6; \
	VPMADDWD    Y15, Y7, Y7; \
	VPADDD      Y7, Y6, out

// kvalues_iq4nl as signed bytes (iq4nlValue in quant_legacy.go).
DATA k23IQ4Values<>+0(SB)/8, $0xf6eaddcfbfad9881
DATA k23IQ4Values<>+8(SB)/8, $0x7159453526190d01
GLOBL k23IQ4Values<>(SB), RODATA|NOPTR, $16

// Per-lane (sub-block j) dword shifts of the scale fields: scales_l's
// nibble j to the top (28 − 4j, then down by 28), and scales_h's bit pair j,
// bits 16+2j of the dword d|scales_h<<16, to bits 4–5 (12 + 2j).
DATA k23XSLoShift<>+0(SB)/8, $0x000000180000001c
DATA k23XSLoShift<>+8(SB)/8, $0x0000001000000014
DATA k23XSLoShift<>+16(SB)/8, $0x000000080000000c
DATA k23XSLoShift<>+24(SB)/8, $0x0000000000000004
GLOBL k23XSLoShift<>(SB), RODATA|NOPTR, $32

DATA k23XSHiShift<>+0(SB)/8, $0x0000000e0000000c
DATA k23XSHiShift<>+8(SB)/8, $0x0000001200000010
DATA k23XSHiShift<>+16(SB)/8, $0x0000001600000014
DATA k23XSHiShift<>+24(SB)/8, $0x0000001a00000018
GLOBL k23XSHiShift<>(SB), RODATA|NOPTR, $32

DATA k23XSMask30<>+0(SB)/8, $0x0000003000000030
DATA k23XSMask30<>+8(SB)/8, $0x0000003000000030
DATA k23XSMask30<>+16(SB)/8, $0x0000003000000030
DATA k23XSMask30<>+24(SB)/8, $0x0000003000000030
GLOBL k23XSMask30<>(SB), RODATA|NOPTR, $32

DATA k23Dword32<>+0(SB)/8, $0x0000002000000020
DATA k23Dword32<>+8(SB)/8, $0x0000002000000020
DATA k23Dword32<>+16(SB)/8, $0x0000002000000020
DATA k23Dword32<>+24(SB)/8, $0x0000002000000020
GLOBL k23Dword32<>(SB), RODATA|NOPTR, $32

// The VPHADDD tree leaves sub-blocks [0 2 4 6 | 1 3 5 7]; VPERMD with
// these indices puts them in order.
DATA k23XSOrder<>+0(SB)/8, $0x0000000400000000
DATA k23XSOrder<>+8(SB)/8, $0x0000000500000001
DATA k23XSOrder<>+16(SB)/8, $0x0000000600000002
DATA k23XSOrder<>+24(SB)/8, $0x0000000700000003
GLOBL k23XSOrder<>(SB), RODATA|NOPTR, $32

// func dotIQ4XSRowsAVX2(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32)
//
// Per sub-block j (activation block b): d·(ls_j − 32)·dx_b·Σ level·xq.
TEXT ·dotIQ4XSRowsAVX2(SB), NOSPLIT, $8-48
	MOVQ  w+0(FP), SI
	MOVQ  out+40(FP), R13
	MOVQ  nsb+24(FP), AX
	IMULQ $136, AX
	IMULQ rows+32(FP), AX
	ADDQ  SI, AX
	MOVQ  AX, end-8(SP)
	K23BCAST32($0x0f0f0f0f, X14, Y14)
	K23BCAST32($0x00010001, X15, Y15)
	VBROADCASTI128 k23IQ4Values<>(SB), Y12
	VMOVDQU        k23XSOrder<>(SB), Y13

iq4xsrow:
	CMPQ   SI, end-8(SP)
	JAE    iq4xsend
	MOVQ   xq+8(FP), DI
	MOVQ   xd+16(FP), R8
	MOVQ   nsb+24(FP), CX
	VXORPS Y0, Y0, Y0

iq4xsloop:
	TESTQ      CX, CX
	JEQ        iq4xsdone
	PREFETCHT0 K23PF(SI)
	PREFETCHT0 K23PF+64(SI)
	PREFETCHT0 K23PF+128(SI)

	// ls_j − 32 for the 8 sub-blocks, one per dword lane, then
	// d·(ls_j − 32)·dx_j in Y9.
	VPBROADCASTD 4(SI), Y6               // scales_l
	VPSLLVD      k23XSLoShift<>(SB), Y6, Y6
	VPSRLD       $28, Y6, Y6
	VPBROADCASTD 0(SI), Y7               // d | scales_h<<16
	VPSRLVD      k23XSHiShift<>(SB), Y7, Y7
	VPAND        k23XSMask30<>(SB), Y7, Y7
	VPOR         Y7, Y6, Y6
	VPSUBD       k23Dword32<>(SB), Y6, Y6
	VCVTDQ2PS    Y6, Y6
	K23HALF8(0, X7, Y7)
	VMULPS       Y7, Y6, Y6
	VMULPS       (R8), Y6, Y9

	IQ4XSPAIR(8, 0, Y1)
	IQ4XSPAIR(40, 64, Y2)
	IQ4XSPAIR(72, 128, Y3)
	IQ4XSPAIR(104, 192, Y4)
	VPHADDD     Y2, Y1, Y1
	VPHADDD     Y4, Y3, Y3
	VPHADDD     Y3, Y1, Y1               // [0 2 4 6 | 1 3 5 7]
	VPERMD      Y1, Y13, Y1              // sub-blocks 0…7
	VCVTDQ2PS   Y1, Y1
	VFMADD231PS Y9, Y1, Y0

	ADDQ $136, SI
	ADDQ $256, DI
	ADDQ $32, R8
	DECQ CX
	JMP  iq4xsloop

iq4xsdone:
	K23HSUM
	VMOVSS X0, (R13)
	ADDQ   $4, R13
	JMP    iq4xsrow

iq4xsend:
	VZEROUPPER
	RET
