#include "textflag.h"
#include "ahead_amd64.h"
#include "packz_amd64.h"

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

// TQYEND finishes a block's integer sum isum (int16 pair sums) for the
// eight rows and leaves p·(d·dx) ready for the caller's FMA: isum the
// float p, sc the scale d·dx (m8 at maddr, the block scale dx at daddr,
// the rows' d in dv). Clobbers sc. TQYEND1 is block j's in the decode
// kernels (d in Y8).
#define TQYEND(maddr, daddr, dv, isum, sc) \
	VPMADDWD     tqyOnes16<>(SB), isum, isum; \
	VPBROADCASTD maddr, sc; \
	VPSRAD       $3, sc, sc; \
	VPADDD       sc, isum, isum; \
	VCVTDQ2PS    isum, isum; \
	VBROADCASTSS daddr, sc; \
	VMULPS       dv, sc, sc

#define TQYEND1(j, isum, sc) TQYEND(4*j(R9), 4*j(R10), Y8, isum, sc)

// TQYFMAM adds isum times sc to the accumulator at a in the frame; t is
// scratch.
#define TQYFMAM(isum, sc, a, t) \
	VMOVUPS     a, t; \
	VFMADD231PS isum, sc, t; \
	VMOVUPS     t, a

// TQYINIT loads the decode kernels' arguments: BX a group's bytes, bytes
// a super-block column of it.
#define TQYINIT(bytes) \
	MOVQ  p+0(FP), SI; \
	MOVQ  out+48(FP), R13; \
	MOVQ  groups+40(FP), R8; \
	MOVQ  nsb+32(FP), BX; \
	IMULQ $bytes, BX

// The loop of both decode kernels and both four-token kernels. TQYGROUP
// starts a group at SI (or ends at end when none is left), TQYPASS points
// the registers at its half R12 and the tokens' first super-block,
// TQYSTEP steps them a super-block (bytes of weights) and counts CX down,
// and TQYNEXT moves to the next half (at half) or group (at group).
#define TQYGROUP(end) \
	TESTQ R8, R8; \
	JEQ   end; \
	MOVQ  SI, R15; \
	XORQ  R12, R12; \
	XORQ  R14, R14

#define TQYPASS \
	MOVQ R15, SI; \
	MOVQ xq+8(FP), DI; \
	MOVQ m8+16(FP), R9; \
	MOVQ xd+24(FP), R10; \
	MOVQ nsb+32(FP), CX

#define TQYSTEP(bytes) \
	ADDQ $bytes, SI; \
	ADDQ $256, DI; \
	ADDQ $32, R9; \
	ADDQ $32, R10; \
	DECQ CX

#define TQYNEXT(half, group) \
	ADDQ $32, R12; \
	ADDQ $16, R14; \
	CMPQ R12, $64; \
	JLT  half; \
	ADDQ $64, R13; \
	LEAQ (R15)(BX*1), SI; \
	DECQ R8; \
	JMP  group

// ---------------------------------------------------------------------------
// Four-token (prefill) kernels: each plane decoded once for the four
// tokens, each token's integer and float operations the decode kernel's,
// so a token's numbers do not depend on the batching. SI weights, DI
// token 0's codes (token t's 256·nsb·t bytes further: R11 = 256·nsb, R12
// three times that), R9 and R10 token 0's m8 and block scales (token t's
// 32·nsb·t bytes further: BX = 32·nsb, DX three times that), CX
// super-blocks left, R8 groups left, R15 the group's start, R14 the half's
// offset in a vector (0, 32), AX its offset in the f16 scales (0, 16), R13
// out (token t's 4·ostride·t bytes further). Y8…Y11 the four tokens'
// int16 sums of the current block; the float accumulators, token t's of
// block j at 32(8t + j)(SP), and the rows' d at 1024(SP) live in the frame.

// TQG4X is the four tokens' activation dword xoff (of their codes).
#define TQG4X0(xoff) xoff(DI)
#define TQG4X1(xoff) xoff(DI)(R11*1)
#define TQG4X2(xoff) xoff(DI)(R11*2)
#define TQG4X3(xoff) xoff(DI)(R12*1)

// TQG4SET sets, and TQG4ADD adds to, the four tokens' int16 sums the
// unsigned plane in tw times each token's activation dword xoff. Clobber
// Y14.
#define TQG4SET(tw, xoff) \
	VPBROADCASTD TQG4X0(xoff), Y14; \
	VPMADDUBSW   Y14, tw, Y8; \
	VPBROADCASTD TQG4X1(xoff), Y14; \
	VPMADDUBSW   Y14, tw, Y9; \
	VPBROADCASTD TQG4X2(xoff), Y14; \
	VPMADDUBSW   Y14, tw, Y10; \
	VPBROADCASTD TQG4X3(xoff), Y14; \
	VPMADDUBSW   Y14, tw, Y11

#define TQG4ADD1(tw, x, isum) \
	VPBROADCASTD x, Y14; \
	VPMADDUBSW   Y14, tw, Y14; \
	VPADDW       Y14, isum, isum

#define TQG4ADD(tw, xoff) \
	TQG4ADD1(tw, TQG4X0(xoff), Y8); \
	TQG4ADD1(tw, TQG4X1(xoff), Y9); \
	TQG4ADD1(tw, TQG4X2(xoff), Y10); \
	TQG4ADD1(tw, TQG4X3(xoff), Y11)

// TQG4FIN1 ends token t's block j (int16 sums isum, m8 and block scale at
// maddr and daddr) into its accumulator in the frame: the decode kernel's
// operations. Clobbers Y13, Y14.
#define TQG4FIN1(j, t, isum, maddr, daddr) \
	TQYEND(maddr, daddr, 1024(SP), isum, Y13); \
	TQYFMAM(isum, Y13, 32*(8*t+j)(SP), Y14)

// TQG4FIN ends block j for the four tokens.
#define TQG4FIN(j) \
	TQG4FIN1(j, 0, Y8, 4*j(R9), 4*j(R10)); \
	TQG4FIN1(j, 1, Y9, 4*j(R9)(BX*1), 4*j(R10)(BX*1)); \
	TQG4FIN1(j, 2, Y10, 4*j(R9)(BX*2), 4*j(R10)(BX*2)); \
	TQG4FIN1(j, 3, Y11, 4*j(R9)(DX*1), 4*j(R10)(DX*1))

// TQG4ZERO clears the frame's accumulators (from Y0).
#define TQG4ZERO4(t) \
	VMOVUPS Y0, 32*(8*t)(SP); \
	VMOVUPS Y0, 32*(8*t+1)(SP); \
	VMOVUPS Y0, 32*(8*t+2)(SP); \
	VMOVUPS Y0, 32*(8*t+3)(SP); \
	VMOVUPS Y0, 32*(8*t+4)(SP); \
	VMOVUPS Y0, 32*(8*t+5)(SP); \
	VMOVUPS Y0, 32*(8*t+6)(SP); \
	VMOVUPS Y0, 32*(8*t+7)(SP)

#define TQG4ZERO \
	VXORPS Y0, Y0, Y0; \
	TQG4ZERO4(0); \
	TQG4ZERO4(1); \
	TQG4ZERO4(2); \
	TQG4ZERO4(3)

// TQG4OUT1 sums token t's accumulators as PHSUM8 does (packz_amd64.h) and stores the
// eight rows at dst.
#define TQG4OUT1(t, dst) \
	VMOVUPS 32*(8*t)(SP), Y0; \
	VMOVUPS 32*(8*t+1)(SP), Y1; \
	VMOVUPS 32*(8*t+2)(SP), Y2; \
	VMOVUPS 32*(8*t+3)(SP), Y3; \
	VMOVUPS 32*(8*t+4)(SP), Y4; \
	VMOVUPS 32*(8*t+5)(SP), Y5; \
	VMOVUPS 32*(8*t+6)(SP), Y6; \
	VMOVUPS 32*(8*t+7)(SP), Y7; \
	PHSUM8(Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7); \
	VMOVUPS Y0, dst

// TQG4OUT stores the four tokens' rows of the half (CX, DI scratch) and
// steps to the next half or group (gbytes a group's bytes a super-block).
#define TQG4OUT(gbytes, half, next) \
	MOVQ    ostride+56(FP), CX; \
	SHLQ    $2, CX; \
	TQG4OUT1(0, (R13)(R14*1)); \
	LEAQ    (R13)(CX*1), DI; \
	TQG4OUT1(1, (DI)(R14*1)); \
	LEAQ    (DI)(CX*1), DI; \
	TQG4OUT1(2, (DI)(R14*1)); \
	LEAQ    (DI)(CX*1), DI; \
	TQG4OUT1(3, (DI)(R14*1)); \
	ADDQ    $32, R14; \
	ADDQ    $16, AX; \
	CMPQ    R14, $64; \
	JLT     half; \
	ADDQ    $64, R13; \
	MOVQ    nsb+32(FP), CX; \
	IMULQ   $gbytes, CX; \
	ADDQ    CX, R15; \
	DECQ    R8; \
	JMP     next

// TQG4INIT sets the strides and the group count.
#define TQG4INIT \
	MOVQ  p+0(FP), R15; \
	MOVQ  out+48(FP), R13; \
	MOVQ  groups+40(FP), R8; \
	MOVQ  nsb+32(FP), R11; \
	SHLQ  $8, R11; \
	LEAQ  (R11)(R11*2), R12; \
	MOVQ  nsb+32(FP), BX; \
	SHLQ  $5, BX; \
	LEAQ  (BX)(BX*2), DX

// TQ2G4PL is code plane k (shift 2k) of the half-vector in Y12 for the
// four tokens (set: TQG4SET for the block's first, else TQG4ADD).
#define TQ2G4PL(shift, xoff, op) \
	VPSRLW $shift, Y12, Y13; \
	VPAND  Y15, Y13, Y13; \
	op(Y13, xoff)

#define TQ2G4BLK(j) \
	VMOVDQU 32+128*j(SI)(R14*1), Y12; \
	VPAND   Y15, Y12, Y13; \
	TQG4SET(Y13, 32*j); \
	TQ2G4PL(2, 32*j+4, TQG4ADD); \
	TQ2G4PL(4, 32*j+8, TQG4ADD); \
	TQ2G4PL(6, 32*j+12, TQG4ADD); \
	VMOVDQU 96+128*j(SI)(R14*1), Y12; \
	VPAND   Y15, Y12, Y13; \
	TQG4ADD(Y13, 32*j+16); \
	TQ2G4PL(2, 32*j+20, TQG4ADD); \
	TQ2G4PL(4, 32*j+24, TQG4ADD); \
	TQ2G4PL(6, 32*j+28, TQG4ADD); \
	TQG4FIN(j)

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
	TQYEND1(j, Y9, Y15); \
	VFMADD231PS  Y9, Y15, acc

// func rowsTQ2x16AVX2(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32)
//
// rowsTQ2x16VNNI on AVX2: out[r] = row r · x for groups·16 packed TQ2_0
// rows of nsb super-blocks, eight rows a pass.
TEXT ·rowsTQ2x16AVX2(SB), NOSPLIT, $0-56
	TQYINIT(1056)
	VMOVDQU tqyThree<>(SB), Y10

tq2ygroup:
	TQYGROUP(tq2yend)

tq2yhalf:
	PFDPASS(R12, BX)
	TQYPASS
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
	PFD8(0)
	TQ2YBLK(0, Y0)
	TQ2YBLK(1, Y1)
	TQ2YBLK(2, Y2)
	TQ2YBLK(3, Y3)
	PFD8(512)
	PFD(1024)
	TQ2YBLK(4, Y4)
	TQ2YBLK(5, Y5)
	TQ2YBLK(6, Y6)
	TQ2YBLK(7, Y7)
	TQYSTEP(1056)
	JNZ  tq2yloop

	PHSUM8(Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7)
	VMOVUPS Y0, (R13)(R12*1)
	TQYNEXT(tq2yhalf, tq2ygroup)

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

// TQ1YT sets t to the trits of the v' vector v, hi and lo being 42 and
// −43 (registers or memory). Clobbers s.
#define TQ1YT(v, t, s, hi, lo) \
	VPCMPGTB hi, v, s; \
	VPCMPGTB lo, v, t; \
	VPADDB   s, t, t; \
	VPABSB   t, t

// TQ1YSET sets isum to the trit plane of Y5 times the activation dword at
// xoff(DI), as int16 pair sums; TQ1YADD adds them to isum.
#define TQ1YSET(xoff, isum) \
	TQ1YT(Y5, Y7, Y6, Y11, Y12); \
	VPBROADCASTD xoff(DI), Y9; \
	VPMADDUBSW   Y9, Y7, isum

#define TQ1YADD(xoff, isum) \
	TQ1YT(Y5, Y7, Y6, Y11, Y12); \
	VPBROADCASTD xoff(DI), Y9; \
	VPMADDUBSW   Y9, Y7, Y9; \
	VPADDW       Y9, isum, isum

// TQ1Y3 triples v bytewise. Clobbers t.
#define TQ1Y3(v, t) \
	VPADDB v, v, t; \
	VPADDB t, v, v

// TQ1YLOAD loads the half-vector at woff into Y5 as v'.
#define TQ1YLOAD(woff) \
	VMOVDQU woff(SI)(R12*1), Y5; \
	VPXOR   Y10, Y5, Y5

// TQ1YQS0 is qs[0:32]'s vector k: trit plane n meets activation dword
// 8n + k, block n (op TQ1YSET for k = 0, else TQ1YADD).
#define TQ1YQS0(k, op) \
	TQ1YLOAD(32+64*k); \
	op(4*k, Y0); \
	TQ1Y3(Y5, Y6); \
	op(32+4*k, Y1); \
	TQ1Y3(Y5, Y6); \
	op(64+4*k, Y2); \
	TQ1Y3(Y5, Y6); \
	op(96+4*k, Y3); \
	TQ1Y3(Y5, Y6); \
	op(128+4*k, Y4)

// TQ1YQS1 is qs[32:48]'s vector k: plane n meets dword 40 + 4n + k, so
// planes 0, 1 are block 5's, 2, 3 block 6's and 4 block 7's (in Y0, Y1,
// Y2).
#define TQ1YQS1(k, op) \
	TQ1YLOAD(544+64*k); \
	op(160+4*k, Y0); \
	TQ1Y3(Y5, Y6); \
	TQ1YADD(176+4*k, Y0); \
	TQ1Y3(Y5, Y6); \
	op(192+4*k, Y1); \
	TQ1Y3(Y5, Y6); \
	TQ1YADD(208+4*k, Y1); \
	TQ1Y3(Y5, Y6); \
	op(224+4*k, Y2)

// TQ1YFRAME adds block j's sum isum to its accumulator in the frame at a.
#define TQ1YFRAME(j, isum, a) \
	TQYEND1(j, isum, Y6); \
	TQYFMAM(isum, Y6, a, Y7)

// func rowsTQ1x16AVX2(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32)
//
// rowsTQ1x16VNNI on AVX2: out[r] = row r · x for groups·16 packed TQ1_0
// rows of nsb super-blocks, eight rows a pass.
TEXT ·rowsTQ1x16AVX2(SB), NOSPLIT, $160-56
	TQYINIT(864)
	VMOVDQU tqyX80<>(SB), Y10
	VMOVDQU tqyHi<>(SB), Y11
	VMOVDQU tqyLo<>(SB), Y12

tq1ygroup:
	TQYGROUP(tq1yend)

tq1yhalf:
	PFDPASS(R12, BX)
	TQYPASS
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
	PFD8(0)
	TQ1YQS0(0, TQ1YSET)
	TQ1YQS0(1, TQ1YADD)
	TQ1YQS0(2, TQ1YADD)
	TQ1YQS0(3, TQ1YADD)
	PFD4(512)
	TQ1YQS0(4, TQ1YADD)
	TQ1YQS0(5, TQ1YADD)
	TQ1YQS0(6, TQ1YADD)
	TQ1YQS0(7, TQ1YADD)
	PFD4(768)
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
	TQ1Y3(Y5, Y6)
	TQ1YADD(244, Y2)
	TQ1Y3(Y5, Y6)
	TQ1YADD(248, Y2)
	TQ1Y3(Y5, Y6)
	TQ1YADD(252, Y2)
	TQYEND1(5, Y0, Y6)
	VFMADD231PS Y0, Y6, Y13
	TQYEND1(6, Y1, Y6)
	VFMADD231PS Y1, Y6, Y14
	TQYEND1(7, Y2, Y6)
	VFMADD231PS Y2, Y6, Y15
	TQYSTEP(864)
	JNZ  tq1yloop

	VMOVUPS a0-160(SP), Y0
	VMOVUPS a1-128(SP), Y1
	VMOVUPS a2-96(SP), Y2
	VMOVUPS a3-64(SP), Y3
	VMOVUPS a4-32(SP), Y4
	PHSUM8(Y0, Y1, Y2, Y3, Y4, Y13, Y14, Y15)
	VMOVUPS Y0, (R13)(R12*1)
	TQYNEXT(tq1yhalf, tq1ygroup)

tq1yend:
	VZEROUPPER
	RET

// func gemm4TQ2x16AVX2(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32, ostride int)
//
// out[t·ostride + r] = row r · token t for four tokens: per token bit for
// bit rowsTQ2x16AVX2. Y15 the 0x03 mask.
TEXT ·gemm4TQ2x16AVX2(SB), 0, $1056-64
	TQG4INIT
	VMOVDQU tqyThree<>(SB), Y15

tq2g4group:
	TESTQ R8, R8
	JEQ   tq2g4end
	XORQ  R14, R14
	XORQ  AX, AX

tq2g4half:
	TQYPASS
	TQG4ZERO

tq2g4loop:
	VCVTPH2PS (SI)(AX*1), Y12
	VMOVUPS   Y12, 1024(SP)
	TQ2G4BLK(0)
	TQ2G4BLK(1)
	TQ2G4BLK(2)
	TQ2G4BLK(3)
	TQ2G4BLK(4)
	TQ2G4BLK(5)
	TQ2G4BLK(6)
	TQ2G4BLK(7)
	TQYSTEP(1056)
	JNZ  tq2g4loop

	TQG4OUT(1056, tq2g4half, tq2g4group)

tq2g4end:
	VZEROUPPER
	RET

// TQ1G4V is one vector v's plane for the four tokens at activation dword
// xoff (op TQG4SET or TQG4ADD), then v tripled when more planes follow
// (tr TQ1G4TR, else TQ1G4NO).
#define TQ1G4V(v, xoff, op, tr) \
	TQ1YT(v, Y12, Y13, tqyHi<>(SB), tqyLo<>(SB)); \
	op(Y12, xoff); \
	tr(v)

#define TQ1G4TR(v) TQ1Y3(v, Y13)

#define TQ1G4NO(v)

// TQ1G4P8 is plane n of qs[0:32]'s eight vectors Y0…Y7: block n, the
// vectors tripled after (tr).
#define TQ1G4P8(n, tr) \
	TQ1G4V(Y0, 32*n, TQG4SET, tr); \
	TQ1G4V(Y1, 32*n+4, TQG4ADD, tr); \
	TQ1G4V(Y2, 32*n+8, TQG4ADD, tr); \
	TQ1G4V(Y3, 32*n+12, TQG4ADD, tr); \
	TQ1G4V(Y4, 32*n+16, TQG4ADD, tr); \
	TQ1G4V(Y5, 32*n+20, TQG4ADD, tr); \
	TQ1G4V(Y6, 32*n+24, TQG4ADD, tr); \
	TQ1G4V(Y7, 32*n+28, TQG4ADD, tr); \
	TQG4FIN(n)

// TQ1G4P4 is plane n of qs[32:48]'s four vectors Y0…Y3 (activation dwords
// 40 + 4n + k), into the current block's sums (op for the first vector).
#define TQ1G4P4(n, op, tr) \
	TQ1G4V(Y0, 160+16*n, op, tr); \
	TQ1G4V(Y1, 160+16*n+4, TQG4ADD, tr); \
	TQ1G4V(Y2, 160+16*n+8, TQG4ADD, tr); \
	TQ1G4V(Y3, 160+16*n+12, TQG4ADD, tr)

#define TQ1G4LOAD(woff, v) \
	VMOVDQU woff(SI)(R14*1), v; \
	VPXOR   tqyX80<>(SB), v, v

// func gemm4TQ1x16AVX2(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32, ostride int)
//
// out[t·ostride + r] = row r · token t for four tokens: per token bit for
// bit rowsTQ1x16AVX2. Y0…Y7 hold qs[0:32]'s eight vectors as v', tripled
// plane by plane, then qs[32:48]'s four and qh's.
TEXT ·gemm4TQ1x16AVX2(SB), 0, $1056-64
	TQG4INIT

tq1g4group:
	TESTQ R8, R8
	JEQ   tq1g4end
	XORQ  R14, R14
	XORQ  AX, AX

tq1g4half:
	TQYPASS
	TQG4ZERO

tq1g4loop:
	VCVTPH2PS (SI)(AX*1), Y12
	VMOVUPS   Y12, 1024(SP)
	TQ1G4LOAD(32, Y0)
	TQ1G4LOAD(96, Y1)
	TQ1G4LOAD(160, Y2)
	TQ1G4LOAD(224, Y3)
	TQ1G4LOAD(288, Y4)
	TQ1G4LOAD(352, Y5)
	TQ1G4LOAD(416, Y6)
	TQ1G4LOAD(480, Y7)
	TQ1G4P8(0, TQ1G4TR)
	TQ1G4P8(1, TQ1G4TR)
	TQ1G4P8(2, TQ1G4TR)
	TQ1G4P8(3, TQ1G4TR)
	TQ1G4P8(4, TQ1G4NO)
	TQ1G4LOAD(544, Y0)
	TQ1G4LOAD(608, Y1)
	TQ1G4LOAD(672, Y2)
	TQ1G4LOAD(736, Y3)
	TQ1G4LOAD(800, Y4)
	TQ1G4P4(0, TQG4SET, TQ1G4TR)
	TQ1G4P4(1, TQG4ADD, TQ1G4TR)
	TQG4FIN(5)
	TQ1G4P4(2, TQG4SET, TQ1G4TR)
	TQ1G4P4(3, TQG4ADD, TQ1G4TR)
	TQG4FIN(6)
	TQ1G4P4(4, TQG4SET, TQ1G4NO)
	TQ1G4V(Y4, 240, TQG4ADD, TQ1G4TR)
	TQ1G4V(Y4, 244, TQG4ADD, TQ1G4TR)
	TQ1G4V(Y4, 248, TQG4ADD, TQ1G4TR)
	TQ1G4V(Y4, 252, TQG4ADD, TQ1G4NO)
	TQG4FIN(7)
	TQYSTEP(864)
	JNZ  tq1g4loop

	TQG4OUT(864, tq1g4half, tq1g4group)

tq1g4end:
	VZEROUPPER
	RET
