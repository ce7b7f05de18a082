#include "textflag.h"
#include "packa8_amd64.h"

// AVX2 kernels of packed IQ3_XXS and IQ3_S in their AVX2 layouts
// (packiq3xxs.go packIQ3XXSAVX2, packiq3s.go packIQ3SAVX2): eight rows to
// a YMM, one per dword lane. An entry of eight rows (four weights each) is
// eight table loads by the indices the packer formed (grid index | four
// sign bits above it: twelve bits for IQ3_XXS, thirteen for IQ3_S) from
// iq3xxsSigned or iq3sSigned, joined by VMOVD/VPINSRD/VINSERTI128, times
// one broadcast activation dword by VPMADDUBSW (unsigned o ± g, o = 62 or
// 16, against signed codes), VPMADDWD against words 1 and VPADDD into the
// sub-block's sums, which start from −o·Σx (from m8 = −8·Σx). Then, as
// the GGUF-layout kernels (dot_iq3_amd64.s) do lane for lane: times 2s+1
// (VPMULLD), converted, and one FMA by scale·dx into the accumulator of
// the sub-block's position j (scale d/4 for IQ3_XXS, d for IQ3_S).

DATA piq3a62<>+0(SB)/4, $62
GLOBL piq3a62<>(SB), RODATA|NOPTR, $4

DATA piq3aQuarter<>+0(SB)/4, $0x3e800000
GLOBL piq3aQuarter<>(SB), RODATA|NOPTR, $4

// PIQ3APF is how far ahead the kernels prefetch their half's stream.
#define PIQ3APF 3392

// PIQ3AFOUR loads the entries of the four indices of b bits (mask k) at
// the bottom of src (table at R9) into the dwords of x. Clobbers src, R10.
#define PIQ3AFOUR(src, x, b, k) \
	MOVL    src, R10; \
	ANDL    $k, R10; \
	VMOVD   (R9)(R10*4), x; \
	SHRQ    $b, src; \
	MOVL    src, R10; \
	ANDL    $k, R10; \
	VPINSRD $1, (R9)(R10*4), x, x; \
	SHRQ    $b, src; \
	MOVL    src, R10; \
	ANDL    $k, R10; \
	VPINSRD $2, (R9)(R10*4), x, x; \
	SHRQ    $b, src; \
	ANDL    $k, src; \
	VPINSRD $3, (R9)(src*4), x, x

// PIQ3ALOOK loads the eight rows' entry whose indices are at off(SI) (rows
// 0…3 from the first qword, rows 4…7 from the one h bytes on; b bits
// each, mask k) into y (x its low half; t an XMM to clobber). Clobbers AX,
// R15, R10.
#define PIQ3ALOOK(off, h, b, k, y, x, t) \
	MOVQ        off(SI), AX; \
	MOVQ        off+h(SI), R15; \
	PIQ3AFOUR(AX, x, b, k); \
	PIQ3AFOUR(R15, t, b, k); \
	VINSERTI128 $1, t, y, y

// The two layouts' index fields: bytes from rows 0…3's to rows 4…7's,
// bits an index, its mask, and bytes an entry of eight rows.
#define IQXH 6
#define IQXB 12
#define IQXK 0xfff
#define IQXE 12
#define IQSH 7
#define IQSB 13
#define IQSK 0x1fff
#define IQSE 14

// The sums' start −o·Σx from m8 = −8·Σx at ma: 62·(m8/8) for IQ3_XXS,
// 2·m8 for IQ3_S (Y15 dwords 62).
#define XXSSTART(ma, s) \
	VPBROADCASTD ma, s; \
	VPSRAD       $3, s, s; \
	VPMULLD      Y15, s, s

#define SSTART(ma, s) \
	VPBROADCASTD ma, s; \
	VPSLLD       $1, s, s

// The rows' scale from their f16 d at (SI): d/4 for IQ3_XXS, d for IQ3_S
// (both exact). Clobbers Y12.
#define XXSSCALE(y) \
	VCVTPH2PS    (SI), y; \
	VBROADCASTSS piq3aQuarter<>(SB), Y12; \
	VMULPS       Y12, y, y

#define SSCALE(y) \
	VCVTPH2PS (SI), y

// PIQ3AENTRY adds to Y9 eight rows' sums over one entry (indices at
// off(SI), fields h, b, k) against the activation dword at xoff(DI).
// Clobbers AX, R15, R10, Y10, Y11.
#define PIQ3AENTRY(off, h, b, k, xoff) \
	PIQ3ALOOK(off, h, b, k, Y10, X10, X11); \
	VPBROADCASTD xoff(DI), Y11; \
	VPMADDUBSW   Y11, Y10, Y10; \
	VPMADDWD     Y14, Y10, Y10; \
	VPADDD       Y10, Y9, Y9

// PIQ3ASUB does sub-block j for eight rows: m8 at moff(R11) (start its
// sums), 2s+1 at soff(SI), indices from ioff(SI) (fields h, b, k, e bytes
// an entry), activations from xoff(DI), dx at moff(R8); acc +=
// float((2s+1)·isum)·(scale·dx), the scale in Y8. Clobbers Y9..Y12.
#define PIQ3ASUB(start, h, b, k, e, moff, soff, ioff, xoff, acc) \
	PREFETCHT0   PIQ3APF+ioff(SI); \
	PREFETCHT0   PIQ3APF+ioff+64(SI); \
	start(moff(R11), Y9); \
	PIQ3AENTRY(ioff, h, b, k, xoff); \
	PIQ3AENTRY(ioff+e, h, b, k, xoff+4); \
	PIQ3AENTRY(ioff+2*e, h, b, k, xoff+8); \
	PIQ3AENTRY(ioff+3*e, h, b, k, xoff+12); \
	PIQ3AENTRY(ioff+4*e, h, b, k, xoff+16); \
	PIQ3AENTRY(ioff+5*e, h, b, k, xoff+20); \
	PIQ3AENTRY(ioff+6*e, h, b, k, xoff+24); \
	PIQ3AENTRY(ioff+7*e, h, b, k, xoff+28); \
	VPMOVZXBD    soff(SI), Y12; \
	VPMULLD      Y12, Y9, Y9; \
	VCVTDQ2PS    Y9, Y9; \
	VBROADCASTSS moff(R8), Y12; \
	VMULPS       Y12, Y8, Y12; \
	VFMADD231PS  Y12, Y9, acc

// func rowsIQ3XXSx8AVX2(p *byte, xq *int8, m8 *int32, xd *float32, nsb, halves int, out *float32)
TEXT ·rowsIQ3XXSx8AVX2(SB), NOSPLIT, $0-56
	PA8ROWSINIT(·iq3xxsSigned(SB))
	VPBROADCASTD piq3a62<>(SB), Y15

half:
	TESTQ DX, DX
	JEQ   done
	PA8ROWSHALF

block:
	XXSSCALE(Y8)
	PIQ3ASUB(XXSSTART, IQXH, IQXB, IQXK, IQXE, 0, 784, 16, 0, Y0)
	PIQ3ASUB(XXSSTART, IQXH, IQXB, IQXK, IQXE, 4, 792, 112, 32, Y1)
	PIQ3ASUB(XXSSTART, IQXH, IQXB, IQXK, IQXE, 8, 800, 208, 64, Y2)
	PIQ3ASUB(XXSSTART, IQXH, IQXB, IQXK, IQXE, 12, 808, 304, 96, Y3)
	PIQ3ASUB(XXSSTART, IQXH, IQXB, IQXK, IQXE, 16, 816, 400, 128, Y4)
	PIQ3ASUB(XXSSTART, IQXH, IQXB, IQXK, IQXE, 20, 824, 496, 160, Y5)
	PIQ3ASUB(XXSSTART, IQXH, IQXB, IQXK, IQXE, 24, 832, 592, 192, Y6)
	PIQ3ASUB(XXSSTART, IQXH, IQXB, IQXK, IQXE, 28, 840, 688, 224, Y7)
	PA8ROWSSTEP(848)
	JNE block

	PA8ROWSOUT
	JMP half

done:
	VZEROUPPER
	RET

// func rowsIQ3Sx8AVX2(p *byte, xq *int8, m8 *int32, xd *float32, nsb, halves int, out *float32)
TEXT ·rowsIQ3Sx8AVX2(SB), NOSPLIT, $0-56
	PA8ROWSINIT(·iq3sSigned(SB))
	VPBROADCASTD piq3a62<>(SB), Y15

half:
	TESTQ DX, DX
	JEQ   done
	PA8ROWSHALF

block:
	SSCALE(Y8)
	PIQ3ASUB(SSTART, IQSH, IQSB, IQSK, IQSE, 0, 912, 16, 0, Y0)
	PIQ3ASUB(SSTART, IQSH, IQSB, IQSK, IQSE, 4, 920, 128, 32, Y1)
	PIQ3ASUB(SSTART, IQSH, IQSB, IQSK, IQSE, 8, 928, 240, 64, Y2)
	PIQ3ASUB(SSTART, IQSH, IQSB, IQSK, IQSE, 12, 936, 352, 96, Y3)
	PIQ3ASUB(SSTART, IQSH, IQSB, IQSK, IQSE, 16, 944, 464, 128, Y4)
	PIQ3ASUB(SSTART, IQSH, IQSB, IQSK, IQSE, 20, 952, 576, 160, Y5)
	PIQ3ASUB(SSTART, IQSH, IQSB, IQSK, IQSE, 24, 960, 688, 192, Y6)
	PIQ3ASUB(SSTART, IQSH, IQSB, IQSK, IQSE, 28, 968, 800, 224, Y7)
	PA8ROWSSTEP(976)
	JNE block

	PA8ROWSOUT
	JMP half

done:
	VZEROUPPER
	RET

// ---------------------------------------------------------------------------
// The four-token (prefill) kernel: each entry looked up once for the four
// tokens, each token's integer and float operations the decode kernel's,
// so a token's numbers do not depend on the batching. SI weights, DI token
// 0's codes (token t's 256·nsb·t bytes further: R11 = 256·nsb, R12 three
// times that), R8 and R14 token 0's m8 and block scales (token t's
// 32·nsb·t bytes further: BX = 32·nsb, DX three times that), R9 the table,
// CX super-blocks left, R13 out. Y0…Y3 the four tokens' sums of the
// current sub-block, Y8 the rows' d/4, Y14 words 1, Y15 dwords 62; the
// float accumulators, token t's of sub-block position j at 32(8t + j)(SP),
// and the halves left at 1024(SP).

// PIQ3G4TOK adds token t's products with the entry in Y4 (activation
// dword at xa) to its sums s. Clobbers y.
#define PIQ3G4TOK(xa, s, y) \
	VPBROADCASTD xa, y; \
	VPMADDUBSW   y, Y4, y; \
	VPMADDWD     Y14, y, y; \
	VPADDD       y, s, s

#define PIQ3G4ENTRY(off, h, b, k, xoff) \
	PIQ3ALOOK(off, h, b, k, Y4, X4, X5); \
	PIQ3G4TOK(xoff(DI), Y0, Y6); \
	PIQ3G4TOK(xoff(DI)(R11*1), Y1, Y7); \
	PIQ3G4TOK(xoff(DI)(R11*2), Y2, Y6); \
	PIQ3G4TOK(xoff(DI)(R12*1), Y3, Y7)

// PIQ3G4FIN adds token t's sub-block sums s, times 2s+1 (Y9), converted,
// times (d/4)·dx (dx at da), to its accumulator at acc(SP). Clobbers
// Y10, Y11.
#define PIQ3G4FIN(s, da, acc) \
	VPMULLD      Y9, s, s; \
	VCVTDQ2PS    s, s; \
	VBROADCASTSS da, Y10; \
	VMULPS       Y10, Y8, Y10; \
	VMOVUPS      acc(SP), Y11; \
	VFMADD231PS  Y10, s, Y11; \
	VMOVUPS      Y11, acc(SP)

// PIQ3G4SUB does sub-block j (m8 and dx at moff, 2s+1 at soff(SI),
// indices from ioff(SI), fields h, b, k, e bytes an entry, activations
// from xoff) for the four tokens, their sums started by start.
#define PIQ3G4SUB(start, h, b, k, e, moff, soff, ioff, xoff, j) \
	PREFETCHT0 PIQ3APF+ioff(SI); \
	PREFETCHT0 PIQ3APF+ioff+64(SI); \
	start(moff(R8), Y0); \
	start(moff(R8)(BX*1), Y1); \
	start(moff(R8)(BX*2), Y2); \
	start(moff(R8)(DX*1), Y3); \
	PIQ3G4ENTRY(ioff, h, b, k, xoff); \
	PIQ3G4ENTRY(ioff+e, h, b, k, xoff+4); \
	PIQ3G4ENTRY(ioff+2*e, h, b, k, xoff+8); \
	PIQ3G4ENTRY(ioff+3*e, h, b, k, xoff+12); \
	PIQ3G4ENTRY(ioff+4*e, h, b, k, xoff+16); \
	PIQ3G4ENTRY(ioff+5*e, h, b, k, xoff+20); \
	PIQ3G4ENTRY(ioff+6*e, h, b, k, xoff+24); \
	PIQ3G4ENTRY(ioff+7*e, h, b, k, xoff+28); \
	VPMOVZXBD    soff(SI), Y9; \
	PIQ3G4FIN(Y0, moff(R14), 32*j); \
	PIQ3G4FIN(Y1, moff(R14)(BX*1), 256+32*j); \
	PIQ3G4FIN(Y2, moff(R14)(BX*2), 512+32*j); \
	PIQ3G4FIN(Y3, moff(R14)(DX*1), 768+32*j)

// func gemm4IQ3XXSx8AVX2(p *byte, xq *int8, m8 *int32, xd *float32, nsb, halves int, out *float32, ostride int)
//
// out[t·ostride + r] = row r · token t for four tokens: per token bit for
// bit rowsIQ3XXSx8AVX2.
TEXT ·gemm4IQ3XXSx8AVX2(SB), 0, $1032-64
	PA8G4INIT(·iq3xxsSigned(SB), 1024)
	VPBROADCASTD piq3a62<>(SB), Y15

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
	XXSSCALE(Y8)
	PIQ3G4SUB(XXSSTART, IQXH, IQXB, IQXK, IQXE, 0, 784, 16, 0, 0)
	PIQ3G4SUB(XXSSTART, IQXH, IQXB, IQXK, IQXE, 4, 792, 112, 32, 1)
	PIQ3G4SUB(XXSSTART, IQXH, IQXB, IQXK, IQXE, 8, 800, 208, 64, 2)
	PIQ3G4SUB(XXSSTART, IQXH, IQXB, IQXK, IQXE, 12, 808, 304, 96, 3)
	PIQ3G4SUB(XXSSTART, IQXH, IQXB, IQXK, IQXE, 16, 816, 400, 128, 4)
	PIQ3G4SUB(XXSSTART, IQXH, IQXB, IQXK, IQXE, 20, 824, 496, 160, 5)
	PIQ3G4SUB(XXSSTART, IQXH, IQXB, IQXK, IQXE, 24, 832, 592, 192, 6)
	PIQ3G4SUB(XXSSTART, IQXH, IQXB, IQXK, IQXE, 28, 840, 688, 224, 7)
	PA8G4STEP(848)
	JNE block

	PA8G4OUT(0, 1024)
	JMP  half

done:
	VZEROUPPER
	RET

// func gemm4IQ3Sx8AVX2(p *byte, xq *int8, m8 *int32, xd *float32, nsb, halves int, out *float32, ostride int)
//
// out[t·ostride + r] = row r · token t for four tokens: per token bit for
// bit rowsIQ3Sx8AVX2.
TEXT ·gemm4IQ3Sx8AVX2(SB), 0, $1032-64
	PA8G4INIT(·iq3sSigned(SB), 1024)
	VPBROADCASTD piq3a62<>(SB), Y15

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
	SSCALE(Y8)
	PIQ3G4SUB(SSTART, IQSH, IQSB, IQSK, IQSE, 0, 912, 16, 0, 0)
	PIQ3G4SUB(SSTART, IQSH, IQSB, IQSK, IQSE, 4, 920, 128, 32, 1)
	PIQ3G4SUB(SSTART, IQSH, IQSB, IQSK, IQSE, 8, 928, 240, 64, 2)
	PIQ3G4SUB(SSTART, IQSH, IQSB, IQSK, IQSE, 12, 936, 352, 96, 3)
	PIQ3G4SUB(SSTART, IQSH, IQSB, IQSK, IQSE, 16, 944, 464, 128, 4)
	PIQ3G4SUB(SSTART, IQSH, IQSB, IQSK, IQSE, 20, 952, 576, 160, 5)
	PIQ3G4SUB(SSTART, IQSH, IQSB, IQSK, IQSE, 24, 960, 688, 192, 6)
	PIQ3G4SUB(SSTART, IQSH, IQSB, IQSK, IQSE, 28, 968, 800, 224, 7)
	PA8G4STEP(976)
	JNE block

	PA8G4OUT(0, 1024)
	JMP  half

done:
	VZEROUPPER
	RET
