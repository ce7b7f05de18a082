#include "textflag.h"
#include "packa8_amd64.h"

// AVX2 kernels of packed IQ2_XXS, IQ2_XS and IQ2_S in their AVX2 layouts
// (packiq2.go; IQ2_XS's and IQ2_S's at the end of the file): eight rows to
// a YMM, one per dword lane. A run of eight rows (eight weights each) is
// eight grid entries loaded by index into two vectors of four
// (VMOVQ/VPINSRQ/VINSERTI128), taken apart by VSHUFPS into the rows'
// weights 0…3 and 4…7; the rows' eight sign bytes, spread by VPSHUFB and
// turned into ±1 bytes by VPAND/VPCMPEQB/VPOR, go onto the two broadcast
// activation dwords (VPSIGNB); VPMADDUBSW, the two vectors added in
// int16, VPMADDWD against words 1 and VPADDD into the sub-block's sums.
// Then, as the GGUF-layout kernels (dot_iq2_amd64.s) do lane for lane:
// times 2s+1 (VPMULLD), converted, and one FMA by (d/8)·dx into the
// accumulator of the sub-block's position j.

// PIQ2PF is how far ahead the kernels prefetch their half's stream.
#define PIQ2PF 2368

DATA piq2Ones8<>+0(SB)/8, $0x0101010101010101
DATA piq2Ones8<>+8(SB)/8, $0x0101010101010101
DATA piq2Ones8<>+16(SB)/8, $0x0101010101010101
DATA piq2Ones8<>+24(SB)/8, $0x0101010101010101
GLOBL piq2Ones8<>(SB), RODATA|NOPTR, $32

// Lane r's four bytes from sign byte r of a broadcast qword.
DATA piq2Spread<>+0(SB)/8, $0x0101010100000000
DATA piq2Spread<>+8(SB)/8, $0x0303030302020202
DATA piq2Spread<>+16(SB)/8, $0x0505050504040404
DATA piq2Spread<>+24(SB)/8, $0x0707070706060606
GLOBL piq2Spread<>(SB), RODATA|NOPTR, $32

// The sign bits of weights 0…3 and 4…7 of a run, a lane's bytes.
DATA piq2BitsLo<>+0(SB)/8, $0x0804020108040201
DATA piq2BitsLo<>+8(SB)/8, $0x0804020108040201
DATA piq2BitsLo<>+16(SB)/8, $0x0804020108040201
DATA piq2BitsLo<>+24(SB)/8, $0x0804020108040201
GLOBL piq2BitsLo<>(SB), RODATA|NOPTR, $32

DATA piq2BitsHi<>+0(SB)/8, $0x8040201080402010
DATA piq2BitsHi<>+8(SB)/8, $0x8040201080402010
DATA piq2BitsHi<>+16(SB)/8, $0x8040201080402010
DATA piq2BitsHi<>+24(SB)/8, $0x8040201080402010
GLOBL piq2BitsHi<>(SB), RODATA|NOPTR, $32

DATA piq2Mask0F<>+0(SB)/8, $0x0000000f0000000f
DATA piq2Mask0F<>+8(SB)/8, $0x0000000f0000000f
DATA piq2Mask0F<>+16(SB)/8, $0x0000000f0000000f
DATA piq2Mask0F<>+24(SB)/8, $0x0000000f0000000f
GLOBL piq2Mask0F<>(SB), RODATA|NOPTR, $32

DATA piq2Dword1<>+0(SB)/8, $0x0000000100000001
DATA piq2Dword1<>+8(SB)/8, $0x0000000100000001
DATA piq2Dword1<>+16(SB)/8, $0x0000000100000001
DATA piq2Dword1<>+24(SB)/8, $0x0000000100000001
GLOBL piq2Dword1<>(SB), RODATA|NOPTR, $32

// PIQ2TWO loads the grid entries of the two index bytes at the bottom of
// AX (table at R9) into the qwords of x, leaving AX shifted by 16. Clobbers
// R10.
#define PIQ2TWO(x) \
	MOVBLZX AX, R10; \
	VMOVQ   (R9)(R10*8), x; \
	SHRQ    $8, AX; \
	MOVBLZX AX, R10; \
	VPINSRQ $1, (R9)(R10*8), x, x; \
	SHRQ    $8, AX

// PIQ2RUN decodes run l of eight rows (indices at off(SI), signs at
// off+8(SI)): Y12 the magnitudes of weights 0…3, Y10 of 4…7 (lane r row
// r), Y13 and Y11 their ±1 sign bytes. Clobbers AX, R10.
#define PIQ2RUN(off) \
	MOVQ         off(SI), AX; \
	PIQ2TWO(X10); \
	PIQ2TWO(X11); \
	VINSERTI128  $1, X11, Y10, Y10; \
	PIQ2TWO(X11); \
	PIQ2TWO(X12); \
	VINSERTI128  $1, X12, Y11, Y11; \
	VSHUFPS      $0x88, Y11, Y10, Y12; \
	VSHUFPS      $0xDD, Y11, Y10, Y10; \
	VPBROADCASTQ off+8(SI), Y11; \
	VPSHUFB      piq2Spread<>(SB), Y11, Y11; \
	VPAND        piq2BitsLo<>(SB), Y11, Y13; \
	VPCMPEQB     piq2BitsLo<>(SB), Y13, Y13; \
	VPOR         piq2Ones8<>(SB), Y13, Y13; \
	VPAND        piq2BitsHi<>(SB), Y11, Y11; \
	VPCMPEQB     piq2BitsHi<>(SB), Y11, Y11; \
	VPOR         piq2Ones8<>(SB), Y11, Y11

// PIQ2TOK leaves in t one token's pair sums over the decoded run
// (activation dwords at xa, xb), in int16 (|.| ≤ 2·2·43·128). Clobbers u.
#define PIQ2TOK(xa, xb, t, u) \
	VPBROADCASTD xa, t; \
	VPSIGNB      Y13, t, t; \
	VPMADDUBSW   t, Y12, t; \
	VPBROADCASTD xb, u; \
	VPSIGNB      Y11, u, u; \
	VPMADDUBSW   u, Y10, u; \
	VPADDW       u, t, t

// PIQ2SUB does sub-block j for eight rows: runs at ioff(SI) (16 bytes
// apart), 2s+1 at soff(SI), activations from xoff(DI), dx at doff(R8);
// acc += float((2s+1)·isum)·((d/8)·dx), d/8 in Y8. A run's int16 sums
// (≤ 2·2·43·127) become dwords before the next is added. Clobbers Y9..Y13,
// Y15.
#define PIQ2SUB(doff, soff, ioff, xoff, acc) \
	PREFETCHT0   PIQ2PF+ioff(SI); \
	PIQ2RUN(ioff); \
	PIQ2TOK(xoff(DI), xoff+4(DI), Y9, Y12); \
	VPMADDWD     Y14, Y9, Y9; \
	PIQ2RUN(ioff+16); \
	PIQ2TOK(xoff+8(DI), xoff+12(DI), Y15, Y12); \
	VPMADDWD     Y14, Y15, Y15; \
	VPADDD       Y15, Y9, Y9; \
	PIQ2RUN(ioff+32); \
	PIQ2TOK(xoff+16(DI), xoff+20(DI), Y15, Y12); \
	VPMADDWD     Y14, Y15, Y15; \
	VPADDD       Y15, Y9, Y9; \
	PIQ2RUN(ioff+48); \
	PIQ2TOK(xoff+24(DI), xoff+28(DI), Y15, Y12); \
	VPMADDWD     Y14, Y15, Y15; \
	VPADDD       Y15, Y9, Y9; \
	VPMOVZXBD    soff(SI), Y12; \
	VPMULLD      Y12, Y9, Y9; \
	VCVTDQ2PS    Y9, Y9; \
	VBROADCASTSS doff(R8), Y12; \
	VMULPS       Y12, Y8, Y12; \
	VFMADD231PS  Y12, Y9, acc

// PIQ2SCALE sets y to the rows' d/8 (exact) from their f16 d at (SI).
// Clobbers Y12.
#define PIQ2SCALE(y) \
	VCVTPH2PS    (SI), y; \
	VBROADCASTSS pa8Eighth<>(SB), Y12; \
	VMULPS       Y12, y, y

// func rowsIQ2XXSx8AVX2(p *byte, xq *int8, m8 *int32, xd *float32, nsb, halves int, out *float32)
TEXT ·rowsIQ2XXSx8AVX2(SB), NOSPLIT, $0-56
	PA8ROWSINIT(·iq2xxs_grid(SB))

half:
	TESTQ DX, DX
	JEQ   done
	PA8ROWSHALF

block:
	PIQ2SCALE(Y8)
	PIQ2SUB(0, 528, 16, 0, Y0)
	PIQ2SUB(4, 536, 80, 32, Y1)
	PIQ2SUB(8, 544, 144, 64, Y2)
	PIQ2SUB(12, 552, 208, 96, Y3)
	PIQ2SUB(16, 560, 272, 128, Y4)
	PIQ2SUB(20, 568, 336, 160, Y5)
	PIQ2SUB(24, 576, 400, 192, Y6)
	PIQ2SUB(28, 584, 464, 224, Y7)
	PA8ROWSSTEP(592)
	JNE block

	PA8ROWSOUT
	JMP half

done:
	VZEROUPPER
	RET

// ---------------------------------------------------------------------------
// The four-token (prefill) kernel: each run decoded once for the four
// tokens, each token's integer and float operations the decode kernel's,
// so a token's numbers do not depend on the batching. SI weights, DI token
// 0's codes (token t's 256·nsb·t bytes further: R11 = 256·nsb, R12 three
// times that), R14 token 0's block scales (token t's 32·nsb·t bytes
// further: BX = 32·nsb, DX three times that), R9 the grid, CX
// super-blocks left, R13 out. Y0…Y3 the four tokens' sums of the current
// sub-block, Y8 the rows' d/8, Y14 words 1; the float accumulators, token
// t's of sub-block position j at 32(8t + j)(SP), and the halves left at
// 1024(SP).

// PIQ2G4TOK adds token t's dword sums over the decoded run (activation
// dwords at xa, xb) to s, or sets s to them (op PIQ2G4SET).
#define PIQ2G4ADD(s) \
	VPMADDWD Y14, Y4, Y4; \
	VPADDD   Y4, s, s

#define PIQ2G4SET(s) \
	VPMADDWD Y14, Y4, s

#define PIQ2G4TOK(xa, xb, s, op) \
	PIQ2TOK(xa, xb, Y4, Y5); \
	op(s)

// PIQ2G4RUN does run l of sub-block j (at ioff(SI), activations at xoff)
// for the four tokens.
#define PIQ2G4RUN(ioff, xoff, op) \
	PIQ2RUN(ioff); \
	PIQ2G4TOK(xoff(DI), xoff+4(DI), Y0, op); \
	PIQ2G4TOK(xoff(DI)(R11*1), xoff+4(DI)(R11*1), Y1, op); \
	PIQ2G4TOK(xoff(DI)(R11*2), xoff+4(DI)(R11*2), Y2, op); \
	PIQ2G4TOK(xoff(DI)(R12*1), xoff+4(DI)(R12*1), Y3, op)

// PIQ2G4FIN adds token t's sub-block sums s, times 2s+1 (Y9), converted,
// times (d/8)·dx (dx at da), to its accumulator at acc(SP). Clobbers
// Y10, Y11.
#define PIQ2G4FIN(s, da, acc) \
	VPMULLD      Y9, s, s; \
	VCVTDQ2PS    s, s; \
	VBROADCASTSS da, Y10; \
	VMULPS       Y10, Y8, Y10; \
	VMOVUPS      acc(SP), Y11; \
	VFMADD231PS  Y10, s, Y11; \
	VMOVUPS      Y11, acc(SP)

#define PIQ2G4SUB(doff, soff, ioff, xoff, j) \
	PREFETCHT0 PIQ2PF+ioff(SI); \
	PIQ2G4RUN(ioff, xoff, PIQ2G4SET); \
	PIQ2G4RUN(ioff+16, xoff+8, PIQ2G4ADD); \
	PIQ2G4RUN(ioff+32, xoff+16, PIQ2G4ADD); \
	PIQ2G4RUN(ioff+48, xoff+24, PIQ2G4ADD); \
	VPMOVZXBD  soff(SI), Y9; \
	PIQ2G4FIN(Y0, doff(R14), 32*j); \
	PIQ2G4FIN(Y1, doff(R14)(BX*1), 256+32*j); \
	PIQ2G4FIN(Y2, doff(R14)(BX*2), 512+32*j); \
	PIQ2G4FIN(Y3, doff(R14)(DX*1), 768+32*j)

// func gemm4IQ2XXSx8AVX2(p *byte, xq *int8, m8 *int32, xd *float32, nsb, halves int, out *float32, ostride int)
//
// out[t·ostride + r] = row r · token t for four tokens: per token bit for
// bit rowsIQ2XXSx8AVX2.
TEXT ·gemm4IQ2XXSx8AVX2(SB), 0, $1032-64
	PA8G4INIT(·iq2xxs_grid(SB), 1024)

half:
	CMPQ   1024(SP), $0
	JEQ    done
	PA8G4HALF(0)

zero:
	VMOVUPS Y0, (SP)(AX*1)
	ADDQ    $32, AX
	CMPQ    AX, $1024
	JLT     zero

block:
	PIQ2SCALE(Y8)
	PIQ2G4SUB(0, 528, 16, 0, 0)
	PIQ2G4SUB(4, 536, 80, 32, 1)
	PIQ2G4SUB(8, 544, 144, 64, 2)
	PIQ2G4SUB(12, 552, 208, 96, 3)
	PIQ2G4SUB(16, 560, 272, 128, 4)
	PIQ2G4SUB(20, 568, 336, 160, 5)
	PIQ2G4SUB(24, 576, 400, 192, 6)
	PIQ2G4SUB(28, 584, 464, 224, 7)
	PA8G4STEP(592)
	JNE block

	PA8G4OUT(0, 1024)
	JMP  half

done:
	VZEROUPPER
	RET

// ---------------------------------------------------------------------------
// IQ2_XS and IQ2_S: a run's eight rows' grid indices lie end to end, b
// bits each (nine for IQ2_XS, ten for IQ2_S: rows 0…3 from the qword at
// the run's start, rows 4…7 from the one h bytes on, shifted by sh), its
// eight sign bytes after them in row order; a sub-block has a scale per
// sixteen weights (the file's scale byte, runs 0, 1 its low nibble, 2, 3
// its high one), so its exact integer is (2s₀+1)·(runs 0, 1) +
// (2s₁+1)·(runs 2, 3), then the float work of IQ2_XXS's.

// PIQ2NTWO loads the grid entries of the two b-bit indices (mask k) at the
// bottom of src (table at R9) into the qwords of x, leaving src shifted by
// 2b. Clobbers R10.
#define PIQ2NTWO(src, x, b, k) \
	MOVL    src, R10; \
	ANDL    $k, R10; \
	VMOVQ   (R9)(R10*8), x; \
	SHRQ    $b, src; \
	MOVL    src, R10; \
	ANDL    $k, R10; \
	VPINSRQ $1, (R9)(R10*8), x, x; \
	SHRQ    $b, src

// PIQ2NRUN decodes run l of eight rows at off(SI) into the registers
// PIQ2RUN fills (Y12, Y10 magnitudes, Y13, Y11 ±1 signs). Clobbers AX,
// R15, R10.
#define PIQ2NRUN(off, b, k, h, sh) \
	MOVQ         off(SI), AX; \
	MOVQ         off+h(SI), R15; \
	SHRQ         $sh, R15; \
	PIQ2NTWO(AX, X10, b, k); \
	PIQ2NTWO(AX, X11, b, k); \
	VINSERTI128  $1, X11, Y10, Y10; \
	PIQ2NTWO(R15, X11, b, k); \
	PIQ2NTWO(R15, X12, b, k); \
	VINSERTI128  $1, X12, Y11, Y11; \
	VSHUFPS      $0x88, Y11, Y10, Y12; \
	VSHUFPS      $0xDD, Y11, Y10, Y10; \
	VPBROADCASTQ off+b(SI), Y11; \
	VPSHUFB      piq2Spread<>(SB), Y11, Y11; \
	VPAND        piq2BitsLo<>(SB), Y11, Y13; \
	VPCMPEQB     piq2BitsLo<>(SB), Y13, Y13; \
	VPOR         piq2Ones8<>(SB), Y13, Y13; \
	VPAND        piq2BitsHi<>(SB), Y11, Y11; \
	VPCMPEQB     piq2BitsHi<>(SB), Y11, Y11; \
	VPOR         piq2Ones8<>(SB), Y11, Y11

#define PIQ2XSRUN(off) PIQ2NRUN(off, 9, 511, 4, 4)
#define PIQ2SRUN(off) PIQ2NRUN(off, 10, 1023, 5, 0)

// PIQ2NSCALES sets a to the rows' 2s₀+1 and b to their 2s₁+1 from the
// scale bytes at soff(SI).
#define PIQ2NSCALES(soff, a, b) \
	VPMOVZXBD soff(SI), b; \
	VPAND     piq2Mask0F<>(SB), b, a; \
	VPADDD    a, a, a; \
	VPADDD    piq2Dword1<>(SB), a, a; \
	VPSRLD    $4, b, b; \
	VPADDD    b, b, b; \
	VPADDD    piq2Dword1<>(SB), b, b

// PIQ2NSUB does sub-block j for eight rows: runs (decoded by run) at
// ioff(SI), rs bytes apart, the scale bytes at soff(SI), activations from
// xoff(DI), dx at doff(R8), the rows' d/8 at 0(SP). Clobbers Y8..Y13, Y15.
#define PIQ2NSUB(run, rs, doff, soff, ioff, xoff, acc) \
	PREFETCHT0   PIQ2PF+ioff(SI); \
	run(ioff); \
	PIQ2TOK(xoff(DI), xoff+4(DI), Y9, Y12); \
	VPMADDWD     Y14, Y9, Y9; \
	run(ioff+rs); \
	PIQ2TOK(xoff+8(DI), xoff+12(DI), Y15, Y12); \
	VPMADDWD     Y14, Y15, Y15; \
	VPADDD       Y15, Y9, Y9; \
	run(ioff+2*rs); \
	PIQ2TOK(xoff+16(DI), xoff+20(DI), Y8, Y12); \
	VPMADDWD     Y14, Y8, Y8; \
	run(ioff+3*rs); \
	PIQ2TOK(xoff+24(DI), xoff+28(DI), Y15, Y12); \
	VPMADDWD     Y14, Y15, Y15; \
	VPADDD       Y15, Y8, Y8; \
	PIQ2NSCALES(soff, Y13, Y12); \
	VPMULLD      Y13, Y9, Y9; \
	VPMULLD      Y12, Y8, Y8; \
	VPADDD       Y8, Y9, Y9; \
	VCVTDQ2PS    Y9, Y9; \
	VBROADCASTSS doff(R8), Y12; \
	VMULPS       0(SP), Y12, Y12; \
	VFMADD231PS  Y12, Y9, acc

// PIQ2NG4RUN does a run (decoded by run at ioff(SI), activations at xoff)
// for the four tokens into s0…s3 (op PIQ2G4SET or PIQ2G4ADD).
#define PIQ2NG4RUN(run, ioff, xoff, op, s0, s1, s2, s3) \
	run(ioff); \
	PIQ2G4TOK(xoff(DI), xoff+4(DI), s0, op); \
	PIQ2G4TOK(xoff(DI)(R11*1), xoff+4(DI)(R11*1), s1, op); \
	PIQ2G4TOK(xoff(DI)(R11*2), xoff+4(DI)(R11*2), s2, op); \
	PIQ2G4TOK(xoff(DI)(R12*1), xoff+4(DI)(R12*1), s3, op)

// PIQ2NG4FIN is PIQ2G4FIN for IQ2_XS and IQ2_S: token t's isum a + b (each
// already times its scale), the rows' d/8 from 0(SP). Clobbers Y10, Y11.
#define PIQ2NG4FIN(a, b, da, acc) \
	VPADDD       b, a, a; \
	VCVTDQ2PS    a, a; \
	VBROADCASTSS da, Y10; \
	VMULPS       0(SP), Y10, Y10; \
	VMOVUPS      acc(SP), Y11; \
	VFMADD231PS  Y10, a, Y11; \
	VMOVUPS      Y11, acc(SP)

// PIQ2NG4SUB does sub-block j for the four tokens: runs 0, 1 into Y0…Y3,
// runs 2, 3 into Y6…Y9, times 2s₀+1 and 2s₁+1 (Y4, Y5 once the runs are
// done), then each token's float work (accumulators at 32 + 32(8t +
// j)(SP)).
#define PIQ2NG4SUB(run, rs, doff, soff, ioff, xoff, j) \
	PREFETCHT0 PIQ2PF+ioff(SI); \
	PIQ2NG4RUN(run, ioff, xoff, PIQ2G4SET, Y0, Y1, Y2, Y3); \
	PIQ2NG4RUN(run, ioff+rs, xoff+8, PIQ2G4ADD, Y0, Y1, Y2, Y3); \
	PIQ2NG4RUN(run, ioff+2*rs, xoff+16, PIQ2G4SET, Y6, Y7, Y8, Y9); \
	PIQ2NG4RUN(run, ioff+3*rs, xoff+24, PIQ2G4ADD, Y6, Y7, Y8, Y9); \
	PIQ2NSCALES(soff, Y4, Y5); \
	VPMULLD    Y4, Y0, Y0; \
	VPMULLD    Y4, Y1, Y1; \
	VPMULLD    Y4, Y2, Y2; \
	VPMULLD    Y4, Y3, Y3; \
	VPMULLD    Y5, Y6, Y6; \
	VPMULLD    Y5, Y7, Y7; \
	VPMULLD    Y5, Y8, Y8; \
	VPMULLD    Y5, Y9, Y9; \
	PIQ2NG4FIN(Y0, Y6, doff(R14), 32+32*j); \
	PIQ2NG4FIN(Y1, Y7, doff(R14)(BX*1), 288+32*j); \
	PIQ2NG4FIN(Y2, Y8, doff(R14)(BX*2), 544+32*j); \
	PIQ2NG4FIN(Y3, Y9, doff(R14)(DX*1), 800+32*j)

// func rowsIQ2XSx8AVX2(p *byte, xq *int8, m8 *int32, xd *float32, nsb, halves int, out *float32)
TEXT ·rowsIQ2XSx8AVX2(SB), NOSPLIT, $32-56
	PA8ROWSINIT(·iq2xs_grid(SB))

half:
	TESTQ DX, DX
	JEQ   done
	PA8ROWSHALF

block:
	PIQ2SCALE(Y8)
	VMOVUPS Y8, 0(SP)
	PIQ2NSUB(PIQ2XSRUN, 17, 0, 560, 16, 0, Y0)
	PIQ2NSUB(PIQ2XSRUN, 17, 4, 568, 84, 32, Y1)
	PIQ2NSUB(PIQ2XSRUN, 17, 8, 576, 152, 64, Y2)
	PIQ2NSUB(PIQ2XSRUN, 17, 12, 584, 220, 96, Y3)
	PIQ2NSUB(PIQ2XSRUN, 17, 16, 592, 288, 128, Y4)
	PIQ2NSUB(PIQ2XSRUN, 17, 20, 600, 356, 160, Y5)
	PIQ2NSUB(PIQ2XSRUN, 17, 24, 608, 424, 192, Y6)
	PIQ2NSUB(PIQ2XSRUN, 17, 28, 616, 492, 224, Y7)
	PA8ROWSSTEP(624)
	JNE block

	PA8ROWSOUT
	JMP half

done:
	VZEROUPPER
	RET

// func gemm4IQ2XSx8AVX2(p *byte, xq *int8, m8 *int32, xd *float32, nsb, halves int, out *float32, ostride int)
//
// out[t·ostride + r] = row r · token t for four tokens: per token bit for
// bit rowsIQ2XSx8AVX2. The rows' d/8 at 0(SP), the accumulators at
// 32 + 32(8t + j)(SP), the halves left at 1056(SP).
TEXT ·gemm4IQ2XSx8AVX2(SB), 0, $1064-64
	PA8G4INIT(·iq2xs_grid(SB), 1056)

half:
	CMPQ   1056(SP), $0
	JEQ    done
	PA8G4HALF(32)

zero:
	VMOVUPS Y0, (SP)(AX*1)
	ADDQ    $32, AX
	CMPQ    AX, $1056
	JLT     zero

block:
	PIQ2SCALE(Y8)
	VMOVUPS Y8, 0(SP)
	PIQ2NG4SUB(PIQ2XSRUN, 17, 0, 560, 16, 0, 0)
	PIQ2NG4SUB(PIQ2XSRUN, 17, 4, 568, 84, 32, 1)
	PIQ2NG4SUB(PIQ2XSRUN, 17, 8, 576, 152, 64, 2)
	PIQ2NG4SUB(PIQ2XSRUN, 17, 12, 584, 220, 96, 3)
	PIQ2NG4SUB(PIQ2XSRUN, 17, 16, 592, 288, 128, 4)
	PIQ2NG4SUB(PIQ2XSRUN, 17, 20, 600, 356, 160, 5)
	PIQ2NG4SUB(PIQ2XSRUN, 17, 24, 608, 424, 192, 6)
	PIQ2NG4SUB(PIQ2XSRUN, 17, 28, 616, 492, 224, 7)
	PA8G4STEP(624)
	JNE block

	PA8G4OUT(32, 1056)
	JMP  half

done:
	VZEROUPPER
	RET

// func rowsIQ2Sx8AVX2(p *byte, xq *int8, m8 *int32, xd *float32, nsb, halves int, out *float32)
TEXT ·rowsIQ2Sx8AVX2(SB), NOSPLIT, $32-56
	PA8ROWSINIT(·iq2s_grid(SB))

half:
	TESTQ DX, DX
	JEQ   done
	PA8ROWSHALF

block:
	PIQ2SCALE(Y8)
	VMOVUPS Y8, 0(SP)
	PIQ2NSUB(PIQ2SRUN, 18, 0, 592, 16, 0, Y0)
	PIQ2NSUB(PIQ2SRUN, 18, 4, 600, 88, 32, Y1)
	PIQ2NSUB(PIQ2SRUN, 18, 8, 608, 160, 64, Y2)
	PIQ2NSUB(PIQ2SRUN, 18, 12, 616, 232, 96, Y3)
	PIQ2NSUB(PIQ2SRUN, 18, 16, 624, 304, 128, Y4)
	PIQ2NSUB(PIQ2SRUN, 18, 20, 632, 376, 160, Y5)
	PIQ2NSUB(PIQ2SRUN, 18, 24, 640, 448, 192, Y6)
	PIQ2NSUB(PIQ2SRUN, 18, 28, 648, 520, 224, Y7)
	PA8ROWSSTEP(656)
	JNE block

	PA8ROWSOUT
	JMP half

done:
	VZEROUPPER
	RET

// func gemm4IQ2Sx8AVX2(p *byte, xq *int8, m8 *int32, xd *float32, nsb, halves int, out *float32, ostride int)
//
// out[t·ostride + r] = row r · token t for four tokens: per token bit for
// bit rowsIQ2Sx8AVX2. The rows' d/8 at 0(SP), the accumulators at
// 32 + 32(8t + j)(SP), the halves left at 1056(SP).
TEXT ·gemm4IQ2Sx8AVX2(SB), 0, $1064-64
	PA8G4INIT(·iq2s_grid(SB), 1056)

half:
	CMPQ   1056(SP), $0
	JEQ    done
	PA8G4HALF(32)

zero:
	VMOVUPS Y0, (SP)(AX*1)
	ADDQ    $32, AX
	CMPQ    AX, $1056
	JLT     zero

block:
	PIQ2SCALE(Y8)
	VMOVUPS Y8, 0(SP)
	PIQ2NG4SUB(PIQ2SRUN, 18, 0, 592, 16, 0, 0)
	PIQ2NG4SUB(PIQ2SRUN, 18, 4, 600, 88, 32, 1)
	PIQ2NG4SUB(PIQ2SRUN, 18, 8, 608, 160, 64, 2)
	PIQ2NG4SUB(PIQ2SRUN, 18, 12, 616, 232, 96, 3)
	PIQ2NG4SUB(PIQ2SRUN, 18, 16, 624, 304, 128, 4)
	PIQ2NG4SUB(PIQ2SRUN, 18, 20, 632, 376, 160, 5)
	PIQ2NG4SUB(PIQ2SRUN, 18, 24, 640, 448, 192, 6)
	PIQ2NG4SUB(PIQ2SRUN, 18, 28, 648, 520, 224, 7)
	PA8G4STEP(656)
	JNE block

	PA8G4OUT(32, 1056)
	JMP  half

done:
	VZEROUPPER
	RET
