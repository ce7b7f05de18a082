#include "textflag.h"
#include "packa8_amd64.h"

// AVX2 kernels of packed IQ1_S and IQ1_M in their AVX2 layouts
// (packiq1.go, packIQ1SAVX2 and packIQ1MAVX2; IQ1_M's at the end of the
// file): eight rows to a YMM, one per dword lane. A run of eight rows is
// eight grid entries loaded by the packer's indices into two vectors of
// four (VMOVQ/VPINSRQ/VINSERTI128), taken apart by VSHUFPS into the rows'
// weights 0…3 and 4…7. IQ1_S: VPSIGNB puts g (−1, 0 or +1) onto the
// broadcast activation dwords, which is g·x, summed by VPMADDUBSW against
// bytes 1; a sub-block's four runs add up in int16 (≤ 4·8·127) and
// VPMADDWD makes dwords. Then, as the GGUF-layout kernel
// (dot_iq1_amd64.s) does lane for lane: times 8(2s+1), plus δ(2s+1)·Σx,
// converted, and one FMA by dx·(d/8) into the accumulator of the
// sub-block's position j.

// PIQ1PF is how far ahead the kernels prefetch their half's stream.
#define PIQ1PF 1728

DATA piq1Ones8<>+0(SB)/8, $0x0101010101010101
DATA piq1Ones8<>+8(SB)/8, $0x0101010101010101
DATA piq1Ones8<>+16(SB)/8, $0x0101010101010101
DATA piq1Ones8<>+24(SB)/8, $0x0101010101010101
GLOBL piq1Ones8<>(SB), RODATA|NOPTR, $32

// PIQ1TWO loads the table entries (at R9) of the two b-bit indices (mask
// k) at the bottom of src into the qwords of x, leaving src shifted by 2b.
// Clobbers R10.
#define PIQ1TWO(src, x, b, k) \
	MOVL    src, R10; \
	ANDL    $k, R10; \
	VMOVQ   (R9)(R10*8), x; \
	SHRQ    $b, src; \
	MOVL    src, R10; \
	ANDL    $k, R10; \
	VPINSRQ $1, (R9)(R10*8), x, x; \
	SHRQ    $b, src

// PIQ1RUN decodes run l of eight rows (indices in the eleven bytes at
// off(SI)): Y12 the grid values of weights 0…3, Y10 of 4…7 (lane r row r).
// Clobbers AX, R15, R10, Y11.
#define PIQ1RUN(off) \
	MOVQ        off(SI), AX; \
	MOVQ        off+5(SI), R15; \
	SHRQ        $4, R15; \
	PIQ1TWO(AX, X10, 11, 0x7ff); \
	PIQ1TWO(AX, X11, 11, 0x7ff); \
	VINSERTI128 $1, X11, Y10, Y10; \
	PIQ1TWO(R15, X11, 11, 0x7ff); \
	PIQ1TWO(R15, X12, 11, 0x7ff); \
	VINSERTI128 $1, X12, Y11, Y11; \
	VSHUFPS     $0x88, Y11, Y10, Y12; \
	VSHUFPS     $0xDD, Y11, Y10, Y10

// PIQ1TOK leaves in t one token's int16 pair sums of g·x over the decoded
// run (activation dwords at xa, xb; Y13 bytes 1). Clobbers u.
#define PIQ1TOK(xa, xb, t, u) \
	VPBROADCASTD xa, t; \
	VPSIGNB      Y12, t, t; \
	VPMADDUBSW   t, Y13, t; \
	VPBROADCASTD xb, u; \
	VPSIGNB      Y10, u, u; \
	VPMADDUBSW   u, Y13, u; \
	VPADDW       u, t, t

// PIQ1FIX turns a sub-block's dword sums of g·x in s into its exact
// integer 8(2s+1)·Σg·x + δ(2s+1)·Σx: δ(2s+1) the signed bytes at voff(SI),
// the token's m8 (−8·Σx) at ma. Clobbers u, v.
#define PIQ1FIX(voff, ma, s, u, v) \
	VPMOVSXBD    voff(SI), u; \
	VPABSD       u, v; \
	VPMULLD      v, s, s; \
	VPSLLD       $3, s, s; \
	VPBROADCASTD ma, v; \
	VPSRAD       $3, v, v; \
	VPMULLD      u, v, v; \
	VPSUBD       v, s, s

// PIQ1SUB does sub-block j for eight rows: runs at ioff(SI) (11 bytes
// apart), δ(2s+1) at voff(SI), activations from xoff(DI), m8 at moff(R11),
// dx at moff(R8); acc += float(p)·(dx·(d/8)), d/8 in Y8. Clobbers Y9..Y12,
// Y15.
#define PIQ1SUB(moff, voff, ioff, xoff, acc) \
	PREFETCHT0   PIQ1PF+ioff(SI); \
	PIQ1RUN(ioff); \
	PIQ1TOK(xoff(DI), xoff+4(DI), Y9, Y12); \
	PIQ1RUN(ioff+11); \
	PIQ1TOK(xoff+8(DI), xoff+12(DI), Y15, Y12); \
	VPADDW       Y15, Y9, Y9; \
	PIQ1RUN(ioff+22); \
	PIQ1TOK(xoff+16(DI), xoff+20(DI), Y15, Y12); \
	VPADDW       Y15, Y9, Y9; \
	PIQ1RUN(ioff+33); \
	PIQ1TOK(xoff+24(DI), xoff+28(DI), Y15, Y12); \
	VPADDW       Y15, Y9, Y9; \
	VPMADDWD     Y14, Y9, Y9; \
	PIQ1FIX(voff, moff(R11), Y9, Y12, Y15); \
	VCVTDQ2PS    Y9, Y9; \
	VBROADCASTSS moff(R8), Y12; \
	VMULPS       Y8, Y12, Y12; \
	VFMADD231PS  Y12, Y9, acc

// PIQ1SCALE sets y to the rows' d/8 (exact) from their f16 d at (SI).
// Clobbers Y12.
#define PIQ1SCALE(y) \
	VCVTPH2PS    (SI), y; \
	VBROADCASTSS pa8Eighth<>(SB), Y12; \
	VMULPS       Y12, y, y

// func rowsIQ1Sx8AVX2(p *byte, xq *int8, m8 *int32, xd *float32, nsb, halves int, out *float32)
TEXT ·rowsIQ1Sx8AVX2(SB), NOSPLIT, $0-56
	PA8ROWSINIT(·iq1s_grid(SB))
	VMOVDQU piq1Ones8<>(SB), Y13

half:
	TESTQ DX, DX
	JEQ   done
	PA8ROWSHALF

block:
	PIQ1SCALE(Y8)
	PIQ1SUB(0, 368, 16, 0, Y0)
	PIQ1SUB(4, 376, 60, 32, Y1)
	PIQ1SUB(8, 384, 104, 64, Y2)
	PIQ1SUB(12, 392, 148, 96, Y3)
	PIQ1SUB(16, 400, 192, 128, Y4)
	PIQ1SUB(20, 408, 236, 160, Y5)
	PIQ1SUB(24, 416, 280, 192, Y6)
	PIQ1SUB(28, 424, 324, 224, Y7)
	PA8ROWSSTEP(432)
	JNE block

	PA8ROWSOUT
	JMP half

done:
	VZEROUPPER
	RET

// ---------------------------------------------------------------------------
// The four-token (prefill) kernel: each run decoded once for the four
// tokens, each token's integer and float operations the decode kernel's.
// SI weights, DI token 0's codes (token t's 256·nsb·t bytes further: R11 =
// 256·nsb, R12 three times that), R8 and R14 token 0's m8 and block
// scales (token t's 32·nsb·t bytes further: BX = 32·nsb, DX three times
// that), R9 the grid, CX super-blocks left, R13 out. Y0…Y3 the four
// tokens' int16 sums of the current sub-block, Y8 the rows' d/8, Y13
// bytes 1, Y14 words 1; the float accumulators, token t's of sub-block
// position j at 32(8t + j)(SP), and the halves left at 1024(SP).

// PIQ1G4SET and PIQ1G4ADD set or add token t's int16 sums (in Y4) to s.
#define PIQ1G4SET(s) \
	VMOVDQA Y4, s

#define PIQ1G4ADD(s) \
	VPADDW Y4, s, s

#define PIQ1G4RUN(ioff, xoff, op) \
	PIQ1RUN(ioff); \
	PIQ1TOK(xoff(DI), xoff+4(DI), Y4, Y5); \
	op(Y0); \
	PIQ1TOK(xoff(DI)(R11*1), xoff+4(DI)(R11*1), Y4, Y5); \
	op(Y1); \
	PIQ1TOK(xoff(DI)(R11*2), xoff+4(DI)(R11*2), Y4, Y5); \
	op(Y2); \
	PIQ1TOK(xoff(DI)(R12*1), xoff+4(DI)(R12*1), Y4, Y5); \
	op(Y3)

// PIQ1G4FIN finishes token t's sub-block: its int16 sums s to the exact
// integer (m8 at ma), converted, times dx (at da)·(d/8), added to its
// accumulator at acc(SP). Clobbers Y10, Y11.
#define PIQ1G4FIN(voff, ma, da, s, acc) \
	VPMADDWD     Y14, s, s; \
	PIQ1FIX(voff, ma, s, Y10, Y11); \
	VCVTDQ2PS    s, s; \
	VBROADCASTSS da, Y10; \
	VMULPS       Y8, Y10, Y10; \
	VMOVUPS      acc(SP), Y11; \
	VFMADD231PS  Y10, s, Y11; \
	VMOVUPS      Y11, acc(SP)

#define PIQ1G4SUB(moff, voff, ioff, xoff, j) \
	PREFETCHT0 PIQ1PF+ioff(SI); \
	PIQ1G4RUN(ioff, xoff, PIQ1G4SET); \
	PIQ1G4RUN(ioff+11, xoff+8, PIQ1G4ADD); \
	PIQ1G4RUN(ioff+22, xoff+16, PIQ1G4ADD); \
	PIQ1G4RUN(ioff+33, xoff+24, PIQ1G4ADD); \
	PIQ1G4FIN(voff, moff(R8), moff(R14), Y0, 32*j); \
	PIQ1G4FIN(voff, moff(R8)(BX*1), moff(R14)(BX*1), Y1, 256+32*j); \
	PIQ1G4FIN(voff, moff(R8)(BX*2), moff(R14)(BX*2), Y2, 512+32*j); \
	PIQ1G4FIN(voff, moff(R8)(DX*1), moff(R14)(DX*1), Y3, 768+32*j)

// func gemm4IQ1Sx8AVX2(p *byte, xq *int8, m8 *int32, xd *float32, nsb, halves int, out *float32, ostride int)
//
// out[t·ostride + r] = row r · token t for four tokens: per token bit for
// bit rowsIQ1Sx8AVX2.
TEXT ·gemm4IQ1Sx8AVX2(SB), 0, $1032-64
	PA8G4INIT(·iq1s_grid(SB), 1024)
	VMOVDQU piq1Ones8<>(SB), Y13

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
	PIQ1SCALE(Y8)
	PIQ1G4SUB(0, 368, 16, 0, 0)
	PIQ1G4SUB(4, 376, 60, 32, 1)
	PIQ1G4SUB(8, 384, 104, 64, 2)
	PIQ1G4SUB(12, 392, 148, 96, 3)
	PIQ1G4SUB(16, 400, 192, 128, 4)
	PIQ1G4SUB(20, 408, 236, 160, 5)
	PIQ1G4SUB(24, 416, 280, 192, 6)
	PIQ1G4SUB(28, 424, 324, 224, 7)
	PA8G4STEP(432)
	JNE block

	PA8G4OUT(0, 1024)
	JMP  half

done:
	VZEROUPPER
	RET

// ---------------------------------------------------------------------------
// IQ1_M: a run's eight rows' twelve-bit indices (eleven grid bits | the δ
// sign bit) into iq1mWRuns, whose entries are the runs W = 8g + δ, signed
// in −9…9; VPSIGNB puts W's signs onto the activations and VPMADDUBSW
// multiplies by |W| (VPABSB), as the GGUF-layout kernel does. Runs 0, 1
// (the sub-block's first sixteen weights) and 2, 3 add up in int16
// (≤ 2·2·2·9·127) apart, each times its scale 2s+1 as dwords; the
// exact integer needs no Σx (δ is in W).

// PIQ1MRUN decodes run l of eight rows (indices in the twelve bytes at
// off(SI)): Y12 the W of weights 0…3, Y10 of 4…7 (lane r row r). Clobbers
// AX, R15, R10, Y11.
#define PIQ1MRUN(off) \
	MOVQ        off(SI), AX; \
	MOVQ        off+6(SI), R15; \
	PIQ1TWO(AX, X10, 12, 0xfff); \
	PIQ1TWO(AX, X11, 12, 0xfff); \
	VINSERTI128 $1, X11, Y10, Y10; \
	PIQ1TWO(R15, X11, 12, 0xfff); \
	PIQ1TWO(R15, X12, 12, 0xfff); \
	VINSERTI128 $1, X12, Y11, Y11; \
	VSHUFPS     $0x88, Y11, Y10, Y12; \
	VSHUFPS     $0xDD, Y11, Y10, Y10

// PIQ1MTOK leaves in t one token's int16 pair sums of W·x over the decoded
// run (activation dwords at xa, xb; |W| in a, b). Clobbers u.
#define PIQ1MTOK(xa, xb, a, b, t, u) \
	VPBROADCASTD xa, t; \
	VPSIGNB      Y12, t, t; \
	VPMADDUBSW   t, a, t; \
	VPBROADCASTD xb, u; \
	VPSIGNB      Y10, u, u; \
	VPMADDUBSW   u, b, u; \
	VPADDW       u, t, t

// PIQ1MRUN1 is one run of the decode kernel (indices at ioff(SI),
// activations at xoff(DI)): decoded, |W| in place, its sums in t.
// Clobbers Y10..Y12.
#define PIQ1MRUN1(ioff, xoff, t) \
	PIQ1MRUN(ioff); \
	VPBROADCASTD xoff(DI), t; \
	VPSIGNB      Y12, t, t; \
	VPABSB       Y12, Y12; \
	VPMADDUBSW   t, Y12, t; \
	VPBROADCASTD xoff+4(DI), Y12; \
	VPSIGNB      Y10, Y12, Y12; \
	VPABSB       Y10, Y10; \
	VPMADDUBSW   Y12, Y10, Y12; \
	VPADDW       Y12, t, t

// PIQ1MSUB does IQ1_M sub-block j for eight rows: runs at ioff(SI) (12
// bytes apart), the scales 2s+1 of its halves at soff(SI) and soff+8(SI),
// activations from xoff(DI), dx at doff(R8); acc += float(p)·(dx·(d/8)),
// d/8 in Y8. Clobbers Y9..Y13, Y15.
#define PIQ1MSUB(doff, soff, ioff, xoff, acc) \
	PREFETCHT0   PIQ1PF+ioff(SI); \
	PIQ1MRUN1(ioff, xoff, Y9); \
	PIQ1MRUN1(ioff+12, xoff+8, Y15); \
	VPADDW       Y15, Y9, Y9; \
	PIQ1MRUN1(ioff+24, xoff+16, Y13); \
	PIQ1MRUN1(ioff+36, xoff+24, Y15); \
	VPADDW       Y15, Y13, Y13; \
	VPMADDWD     Y14, Y9, Y9; \
	VPMADDWD     Y14, Y13, Y13; \
	VPMOVZXBD    soff(SI), Y12; \
	VPMULLD      Y12, Y9, Y9; \
	VPMOVZXBD    soff+8(SI), Y12; \
	VPMULLD      Y12, Y13, Y13; \
	VPADDD       Y13, Y9, Y9; \
	VCVTDQ2PS    Y9, Y9; \
	VBROADCASTSS doff(R8), Y12; \
	VMULPS       Y8, Y12, Y12; \
	VFMADD231PS  Y12, Y9, acc

// The four-token kernel of IQ1_M: as IQ1_S's, W kept (Y12, Y10) and |W|
// in Y6, Y7 for the four tokens; a sub-block's first half, times its
// scale, waits at 32t(SP) while Y0…Y3 take the second's, and the float
// accumulators are at 128 + 32(8t + j)(SP), the halves left at 1152(SP).

// PIQ1MG4RUN does run l (at ioff(SI), activations at xoff) for the four
// tokens (op PIQ1G4SET or PIQ1G4ADD).
#define PIQ1MG4RUN(ioff, xoff, op) \
	PIQ1MRUN(ioff); \
	VPABSB Y12, Y6; \
	VPABSB Y10, Y7; \
	PIQ1MTOK(xoff(DI), xoff+4(DI), Y6, Y7, Y4, Y5); \
	op(Y0); \
	PIQ1MTOK(xoff(DI)(R11*1), xoff+4(DI)(R11*1), Y6, Y7, Y4, Y5); \
	op(Y1); \
	PIQ1MTOK(xoff(DI)(R11*2), xoff+4(DI)(R11*2), Y6, Y7, Y4, Y5); \
	op(Y2); \
	PIQ1MTOK(xoff(DI)(R12*1), xoff+4(DI)(R12*1), Y6, Y7, Y4, Y5); \
	op(Y3)

// PIQ1MG4HALF makes token t's half sums s dwords times the scales in Y9.
#define PIQ1MG4HALF(s) \
	VPMADDWD Y14, s, s; \
	VPMULLD  Y9, s, s

// PIQ1MG4FIN finishes token t's sub-block: the first half's product from
// save(SP) added to s, converted, times dx (at da)·(d/8), added to its
// accumulator at acc(SP). Clobbers Y10, Y11.
#define PIQ1MG4FIN(save, da, s, acc) \
	VPADDD       save(SP), s, s; \
	VCVTDQ2PS    s, s; \
	VBROADCASTSS da, Y10; \
	VMULPS       Y8, Y10, Y10; \
	VMOVUPS      acc(SP), Y11; \
	VFMADD231PS  Y10, s, Y11; \
	VMOVUPS      Y11, acc(SP)

#define PIQ1MG4SUB(doff, soff, ioff, xoff, j) \
	PREFETCHT0 PIQ1PF+ioff(SI); \
	PIQ1MG4RUN(ioff, xoff, PIQ1G4SET); \
	PIQ1MG4RUN(ioff+12, xoff+8, PIQ1G4ADD); \
	VPMOVZXBD  soff(SI), Y9; \
	PIQ1MG4HALF(Y0); \
	PIQ1MG4HALF(Y1); \
	PIQ1MG4HALF(Y2); \
	PIQ1MG4HALF(Y3); \
	VMOVDQU    Y0, 0(SP); \
	VMOVDQU    Y1, 32(SP); \
	VMOVDQU    Y2, 64(SP); \
	VMOVDQU    Y3, 96(SP); \
	PIQ1MG4RUN(ioff+24, xoff+16, PIQ1G4SET); \
	PIQ1MG4RUN(ioff+36, xoff+24, PIQ1G4ADD); \
	VPMOVZXBD  soff+8(SI), Y9; \
	PIQ1MG4HALF(Y0); \
	PIQ1MG4HALF(Y1); \
	PIQ1MG4HALF(Y2); \
	PIQ1MG4HALF(Y3); \
	PIQ1MG4FIN(0, doff(R14), Y0, 128+32*j); \
	PIQ1MG4FIN(32, doff(R14)(BX*1), Y1, 384+32*j); \
	PIQ1MG4FIN(64, doff(R14)(BX*2), Y2, 640+32*j); \
	PIQ1MG4FIN(96, doff(R14)(DX*1), Y3, 896+32*j)

// func rowsIQ1Mx8AVX2(p *byte, xq *int8, m8 *int32, xd *float32, nsb, halves int, out *float32)
TEXT ·rowsIQ1Mx8AVX2(SB), NOSPLIT, $0-56
	PA8ROWSINIT(·iq1mWRuns(SB))

half:
	TESTQ DX, DX
	JEQ   done
	PA8ROWSHALF

block:
	PIQ1SCALE(Y8)
	PIQ1MSUB(0, 400, 16, 0, Y0)
	PIQ1MSUB(4, 416, 64, 32, Y1)
	PIQ1MSUB(8, 432, 112, 64, Y2)
	PIQ1MSUB(12, 448, 160, 96, Y3)
	PIQ1MSUB(16, 464, 208, 128, Y4)
	PIQ1MSUB(20, 480, 256, 160, Y5)
	PIQ1MSUB(24, 496, 304, 192, Y6)
	PIQ1MSUB(28, 512, 352, 224, Y7)
	PA8ROWSSTEP(528)
	JNE block

	PA8ROWSOUT
	JMP half

done:
	VZEROUPPER
	RET

// func gemm4IQ1Mx8AVX2(p *byte, xq *int8, m8 *int32, xd *float32, nsb, halves int, out *float32, ostride int)
//
// out[t·ostride + r] = row r · token t for four tokens: per token bit for
// bit rowsIQ1Mx8AVX2.
TEXT ·gemm4IQ1Mx8AVX2(SB), 0, $1160-64
	PA8G4INIT(·iq1mWRuns(SB), 1152)

half:
	CMPQ   1152(SP), $0
	JEQ    done
	PA8G4HALF(128)

zero:
	VMOVUPS Y0, (SP)(AX*1)
	ADDQ    $32, AX
	CMPQ    AX, $1152
	JLT     zero

block:
	PIQ1SCALE(Y8)
	PIQ1MG4SUB(0, 400, 16, 0, 0)
	PIQ1MG4SUB(4, 416, 64, 32, 1)
	PIQ1MG4SUB(8, 432, 112, 64, 2)
	PIQ1MG4SUB(12, 448, 160, 96, 3)
	PIQ1MG4SUB(16, 464, 208, 128, 4)
	PIQ1MG4SUB(20, 480, 256, 160, 5)
	PIQ1MG4SUB(24, 496, 304, 192, 6)
	PIQ1MG4SUB(28, 512, 352, 224, 7)
	PA8G4STEP(528)
	JNE block

	PA8G4OUT(128, 1152)
	JMP  half

done:
	VZEROUPPER
	RET
