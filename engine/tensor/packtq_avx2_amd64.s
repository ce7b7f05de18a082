#include "textflag.h"
#include "ahead_amd64.h"

// Packed TQ2_0 and TQ1_0 decode kernels on AVX2 (layouts and arithmetic:
// packtq.go): the VNNI kernels' sixteen-row layout read eight rows at a
// time, one YMM lane a row, a half-group per pass as packed Q4_0's AVX2
// kernel reads it (pack_amd64.s). The second pass finds the group in
// cache (1056 or 864 bytes a super-block column: 34 KB at 8192 columns).
//
// What this layout buys over the GGUF-layout AVX2 kernels (dot_iq1_amd64.s)
// is the block sums. There a vector holds 32 weights of one row and one
// block, so each block's pair sums must be folded across the vector
// (VPHADDW levels, VPMADDWD, VPERM2I128) before its scale applies: about
// a third of TQ1_0's work and most of TQ2_0's beside the decode. Here a
// vector holds four weights of each of eight rows, all of one block, times
// one activation dword broadcast to every lane: the pair sums of a block's
// eight vectors add up in int16 lanes (VPADDW), and one VPMADDWD leaves
// each row's block sum in its own dword. The trit and code decoding is the
// same work per weight as there.
//
// Per row and block j the integer is p = Σq·x − Σx (q the TQ2_0 code or
// TQ1_0 trit, unsigned for VPMADDUBSW; −Σx = m8/8), exact: a word sums at
// most eight pairs, 8·2·3·127 = 6096 < 2¹⁵. Then, as the VNNI kernels and
// the GGUF-layout kernel do lane for lane, acc_j = fma(d·dx_j, float(p),
// acc_j) over the super-blocks in order and ((acc_0 + acc_4) + (acc_1 +
// acc_5)) + ((acc_2 + acc_6) + (acc_3 + acc_7)) at the end (IQ1HSUM's
// order): a packed matrix gives the GGUF-layout kernels' numbers bit for
// bit.
//
// Registers of both: SI weights, DI codes, R9 m8, R10 block scales (each
// at the current super-block), CX super-blocks left, R8 groups left, R15
// the group's start, BX its bytes, R12 the half's byte offset in a 64-byte
// vector (0: rows 0–7, 32: rows 8–15), R14 its offset in the f16 scales
// (0, 16), R13 out; Y8 the eight rows' d.

DATA tqyThree<>+0(SB)/8, $0x0303030303030303
DATA tqyThree<>+8(SB)/8, $0x0303030303030303
DATA tqyThree<>+16(SB)/8, $0x0303030303030303
DATA tqyThree<>+24(SB)/8, $0x0303030303030303
GLOBL tqyThree<>(SB), RODATA|NOPTR, $32

DATA tqyOnes16<>+0(SB)/8, $0x0001000100010001
DATA tqyOnes16<>+8(SB)/8, $0x0001000100010001
DATA tqyOnes16<>+16(SB)/8, $0x0001000100010001
DATA tqyOnes16<>+24(SB)/8, $0x0001000100010001
GLOBL tqyOnes16<>(SB), RODATA|NOPTR, $32

DATA tqyX80<>+0(SB)/8, $0x8080808080808080
DATA tqyX80<>+8(SB)/8, $0x8080808080808080
DATA tqyX80<>+16(SB)/8, $0x8080808080808080
DATA tqyX80<>+24(SB)/8, $0x8080808080808080
GLOBL tqyX80<>(SB), RODATA|NOPTR, $32

// 42 and −43: v − 128 above them means v ≥ 171 and v ≥ 86.
DATA tqyHi<>+0(SB)/8, $0x2a2a2a2a2a2a2a2a
DATA tqyHi<>+8(SB)/8, $0x2a2a2a2a2a2a2a2a
DATA tqyHi<>+16(SB)/8, $0x2a2a2a2a2a2a2a2a
DATA tqyHi<>+24(SB)/8, $0x2a2a2a2a2a2a2a2a
GLOBL tqyHi<>(SB), RODATA|NOPTR, $32

DATA tqyLo<>+0(SB)/8, $0xd5d5d5d5d5d5d5d5
DATA tqyLo<>+8(SB)/8, $0xd5d5d5d5d5d5d5d5
DATA tqyLo<>+16(SB)/8, $0xd5d5d5d5d5d5d5d5
DATA tqyLo<>+24(SB)/8, $0xd5d5d5d5d5d5d5d5
GLOBL tqyLo<>(SB), RODATA|NOPTR, $32

// TQYEND finishes block j's integer sum isum (int16 pair sums) for the
// eight rows and leaves p·(d·dx_j) ready for the caller's FMA: isum the
// float p, sc the scale d·dx_j. Clobbers sc.
#define TQYEND(j, isum, sc) \
	VPMADDWD     tqyOnes16<>(SB), isum, isum; \
	VPBROADCASTD 4*j(R9), sc; \
	VPSRAD       $3, sc, sc; \
	VPADDD       sc, isum, isum; \
	VCVTDQ2PS    isum, isum; \
	VBROADCASTSS 4*j(R10), sc; \
	VMULPS       sc, Y8, sc

// TQYHSUM sums the eight block accumulators into a0 in IQ1HSUM's order
// (packz_amd64.h's PHSUM8, on YMM registers).
#define TQYHSUM(a0, a1, a2, a3, a4, a5, a6, a7) \
	VADDPS a4, a0, a0; \
	VADDPS a5, a1, a1; \
	VADDPS a6, a2, a2; \
	VADDPS a7, a3, a3; \
	VADDPS a1, a0, a0; \
	VADDPS a3, a2, a2; \
	VADDPS a2, a0, a0

// ---------------------------------------------------------------------------
// TQ2_0. Y0…Y7 the block accumulators, Y9 a block's int16 sums, Y10 the
// 0x03 mask, Y11…Y15 scratch.

// TQ2YPL adds code plane k of the half-vector in Y12 (shifted right by
// 2k, masked) times the activation dword at xoff(DI) to Y9.
#define TQ2YPL(shift, xoff) \
	VPSRLW       $shift, Y12, Y13; \
	VPAND        Y10, Y13, Y13; \
	VPBROADCASTD xoff(DI), Y14; \
	VPMADDUBSW   Y14, Y13, Y13; \
	VPADDW       Y13, Y9, Y9

// TQ2YBLK is block j of the half-group into acc: its two half-vectors
// (32+128j and 96+128j, activation dwords 8j…8j+3 and 8j+4…8j+7).
#define TQ2YBLK(j, acc) \
	VMOVDQU      32+128*j(SI)(R12*1), Y12; \
	VPAND        Y10, Y12, Y13; \
	VPBROADCASTD 32*j(DI), Y14; \
	VPMADDUBSW   Y14, Y13, Y9; \
	TQ2YPL(2, 32*j+4); \
	TQ2YPL(4, 32*j+8); \
	TQ2YPL(6, 32*j+12); \
	VMOVDQU      96+128*j(SI)(R12*1), Y12; \
	VPAND        Y10, Y12, Y13; \
	VPBROADCASTD 32*j+16(DI), Y14; \
	VPMADDUBSW   Y14, Y13, Y13; \
	VPADDW       Y13, Y9, Y9; \
	TQ2YPL(2, 32*j+20); \
	TQ2YPL(4, 32*j+24); \
	TQ2YPL(6, 32*j+28); \
	TQYEND(j, Y9, Y15); \
	VFMADD231PS  Y9, Y15, acc

// func rowsTQ2x16AVX2(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32)
//
// rowsTQ2x16VNNI on AVX2: out[r] = row r · x for groups·16 packed TQ2_0
// rows of nsb super-blocks, eight rows a pass.
TEXT ·rowsTQ2x16AVX2(SB), NOSPLIT, $0-56
	MOVQ    p+0(FP), SI
	MOVQ    out+48(FP), R13
	MOVQ    groups+40(FP), R8
	MOVQ    nsb+32(FP), BX
	IMULQ   $1056, BX
	VMOVDQU tqyThree<>(SB), Y10

tq2ygroup:
	TESTQ R8, R8
	JEQ   tq2yend
	MOVQ  SI, R15
	XORQ  R12, R12
	XORQ  R14, R14

tq2yhalf:
	MOVQ   R15, SI
	MOVQ   xq+8(FP), DI
	MOVQ   m8+16(FP), R9
	MOVQ   xd+24(FP), R10
	MOVQ   nsb+32(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7

tq2yloop:
	VCVTPH2PS (SI)(R14*1), Y8
	PFL8(0)
	TQ2YBLK(0, Y0)
	TQ2YBLK(1, Y1)
	TQ2YBLK(2, Y2)
	TQ2YBLK(3, Y3)
	PFL8(512)
	PFL(1024)
	TQ2YBLK(4, Y4)
	TQ2YBLK(5, Y5)
	TQ2YBLK(6, Y6)
	TQ2YBLK(7, Y7)
	ADDQ $1056, SI
	ADDQ $256, DI
	ADDQ $32, R9
	ADDQ $32, R10
	DECQ CX
	JNZ  tq2yloop

	TQYHSUM(Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7)
	VMOVUPS Y0, (R13)(R12*1)
	ADDQ    $32, R12
	ADDQ    $16, R14
	CMPQ    R12, $64
	JLT     tq2yhalf
	ADDQ    $64, R13
	LEAQ    (R15)(BX*1), SI
	DECQ    R8
	JMP     tq2ygroup

tq2yend:
	VZEROUPPER
	RET

// ---------------------------------------------------------------------------
// TQ1_0. A half-vector's bytes v, offset to v' = v XOR 0x80 in Y5 (the
// GGUF-layout kernel's TQ1TRIT: 3(v + 128) ≡ 3v + 128 mod 256, so the
// offset survives the tripling), give trit t = ⌊3v/256⌋ = [v ≥ 86] + [v ≥
// 171] by two signed compares; between planes v triples (two byte adds).
// Y0…Y4 the int16 sums of up to five blocks at once, Y6/Y7 scratch, Y9
// the broadcast activation dword, Y10 0x80, Y11 42, Y12 −43; the block
// accumulators of blocks 0…4 live in the frame (a0-160…a4-32), those of
// 5…7 in Y13…Y15.

// TQ1YT sets Y7 to the trits of Y5. Clobbers Y6.
#define TQ1YT \
	VPCMPGTB Y11, Y5, Y6; \
	VPCMPGTB Y12, Y5, Y7; \
	VPADDB   Y6, Y7, Y7; \
	VPABSB   Y7, Y7

// TQ1YSET sets isum to the trit plane of Y5 times the activation dword at
// xoff(DI), as int16 pair sums; TQ1YADD adds them to isum.
#define TQ1YSET(xoff, isum) \
	TQ1YT; \
	VPBROADCASTD xoff(DI), Y9; \
	VPMADDUBSW   Y9, Y7, isum

#define TQ1YADD(xoff, isum) \
	TQ1YT; \
	VPBROADCASTD xoff(DI), Y9; \
	VPMADDUBSW   Y9, Y7, Y9; \
	VPADDW       Y9, isum, isum

// TQ1Y3 triples Y5 bytewise. Clobbers Y6.
#define TQ1Y3 \
	VPADDB Y5, Y5, Y6; \
	VPADDB Y6, Y5, Y5

// TQ1YLOAD loads the half-vector at woff into Y5 as v'.
#define TQ1YLOAD(woff) \
	VMOVDQU woff(SI)(R12*1), Y5; \
	VPXOR   Y10, Y5, Y5

// TQ1YQS0 is qs[0:32]'s vector k: trit plane n meets activation dword
// 8n + k, block n (op TQ1YSET for k = 0, else TQ1YADD).
#define TQ1YQS0(k, op) \
	TQ1YLOAD(32+64*k); \
	op(4*k, Y0); \
	TQ1Y3; \
	op(32+4*k, Y1); \
	TQ1Y3; \
	op(64+4*k, Y2); \
	TQ1Y3; \
	op(96+4*k, Y3); \
	TQ1Y3; \
	op(128+4*k, Y4)

// TQ1YQS1 is qs[32:48]'s vector k: plane n meets dword 40 + 4n + k, so
// planes 0, 1 are block 5's, 2, 3 block 6's and 4 block 7's (in Y0, Y1,
// Y2).
#define TQ1YQS1(k, op) \
	TQ1YLOAD(544+64*k); \
	op(160+4*k, Y0); \
	TQ1Y3; \
	TQ1YADD(176+4*k, Y0); \
	TQ1Y3; \
	op(192+4*k, Y1); \
	TQ1Y3; \
	TQ1YADD(208+4*k, Y1); \
	TQ1Y3; \
	op(224+4*k, Y2)

// TQ1YFRAME adds block j's sum isum to its accumulator in the frame at a.
#define TQ1YFRAME(j, isum, a) \
	TQYEND(j, isum, Y6); \
	VMOVUPS     a, Y7; \
	VFMADD231PS isum, Y6, Y7; \
	VMOVUPS     Y7, a

// func rowsTQ1x16AVX2(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32)
//
// rowsTQ1x16VNNI on AVX2: out[r] = row r · x for groups·16 packed TQ1_0
// rows of nsb super-blocks, eight rows a pass.
TEXT ·rowsTQ1x16AVX2(SB), NOSPLIT, $160-56
	MOVQ    p+0(FP), SI
	MOVQ    out+48(FP), R13
	MOVQ    groups+40(FP), R8
	MOVQ    nsb+32(FP), BX
	IMULQ   $864, BX
	VMOVDQU tqyX80<>(SB), Y10
	VMOVDQU tqyHi<>(SB), Y11
	VMOVDQU tqyLo<>(SB), Y12

tq1ygroup:
	TESTQ R8, R8
	JEQ   tq1yend
	MOVQ  SI, R15
	XORQ  R12, R12
	XORQ  R14, R14

tq1yhalf:
	MOVQ    R15, SI
	MOVQ    xq+8(FP), DI
	MOVQ    m8+16(FP), R9
	MOVQ    xd+24(FP), R10
	MOVQ    nsb+32(FP), CX
	VXORPS  Y13, Y13, Y13
	VXORPS  Y14, Y14, Y14
	VXORPS  Y15, Y15, Y15
	VMOVUPS Y13, a0-160(SP)
	VMOVUPS Y13, a1-128(SP)
	VMOVUPS Y13, a2-96(SP)
	VMOVUPS Y13, a3-64(SP)
	VMOVUPS Y13, a4-32(SP)

tq1yloop:
	VCVTPH2PS (SI)(R14*1), Y8
	PFL8(0)
	TQ1YQS0(0, TQ1YSET)
	TQ1YQS0(1, TQ1YADD)
	TQ1YQS0(2, TQ1YADD)
	TQ1YQS0(3, TQ1YADD)
	PFL4(512)
	TQ1YQS0(4, TQ1YADD)
	TQ1YQS0(5, TQ1YADD)
	TQ1YQS0(6, TQ1YADD)
	TQ1YQS0(7, TQ1YADD)
	PFL4(768)
	TQ1YFRAME(0, Y0, a0-160(SP))
	TQ1YFRAME(1, Y1, a1-128(SP))
	TQ1YFRAME(2, Y2, a2-96(SP))
	TQ1YFRAME(3, Y3, a3-64(SP))
	TQ1YFRAME(4, Y4, a4-32(SP))
	TQ1YQS1(0, TQ1YSET)
	TQ1YQS1(1, TQ1YADD)
	TQ1YQS1(2, TQ1YADD)
	TQ1YQS1(3, TQ1YADD)
	TQ1YLOAD(800)
	TQ1YADD(240, Y2)
	TQ1Y3
	TQ1YADD(244, Y2)
	TQ1Y3
	TQ1YADD(248, Y2)
	TQ1Y3
	TQ1YADD(252, Y2)
	TQYEND(5, Y0, Y6)
	VFMADD231PS Y0, Y6, Y13
	TQYEND(6, Y1, Y6)
	VFMADD231PS Y1, Y6, Y14
	TQYEND(7, Y2, Y6)
	VFMADD231PS Y2, Y6, Y15
	ADDQ $864, SI
	ADDQ $256, DI
	ADDQ $32, R9
	ADDQ $32, R10
	DECQ CX
	JNZ  tq1yloop

	VMOVUPS a0-160(SP), Y0
	VMOVUPS a1-128(SP), Y1
	VMOVUPS a2-96(SP), Y2
	VMOVUPS a3-64(SP), Y3
	VMOVUPS a4-32(SP), Y4
	TQYHSUM(Y0, Y1, Y2, Y3, Y4, Y13, Y14, Y15)
	VMOVUPS Y0, (R13)(R12*1)
	ADDQ    $32, R12
	ADDQ    $16, R14
	CMPQ    R12, $64
	JLT     tq1yhalf
	ADDQ    $64, R13
	LEAQ    (R15)(BX*1), SI
	DECQ    R8
	JMP     tq1ygroup

tq1yend:
	VZEROUPPER
	RET
