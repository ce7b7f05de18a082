#include "funcdata.h"
#include "textflag.h"

// F16 and BF16 weights against float32 activations for prefill, on 512-bit
// registers: one pass over three weight rows serves four tokens, so each
// converted weight vector feeds four FMAs and each loaded activation vector
// three.
//
// Per (row, token) the arithmetic is dotF16RowsAVX2's / dotBF16RowsAVX2's
// (dot_amd64.s) bit for bit. Those keep four 8-lane accumulators a0..a3:
// element 32g+8k+j of the row goes into lane j of ak, a tail of 8-element
// groups into a0, then (a0+a1)+(a2+a3) and a fixed horizontal sum. Here one
// 16-lane register Za holds a0|a1 (elements 32g+0..15 land in lanes 0..15)
// and Zb holds a2|a3 (32g+16..31), so every lane sees the same products in
// the same order; the tail goes into Za's low half through an FMA masked
// to those lanes (K1 = 0x00ff). The fold adds each register's high half to
// its low half, which is a0+a1 and a2+a3, then goes on exactly as HSUM
// does. Operand roles match too (weights in the FMA's second source,
// activations in its third, a0 and a2 first in the adds), so even NaN
// payloads come out the same.
//
// Wide rows go in chunks of GCHUNK columns: every row of the call runs
// through one chunk before any runs through the next, so that the four
// tokens' activations of a chunk (32 KiB) stay in the 48 KiB L1 while the
// rows stream past them; unchunked, a row of 8192 brings its 128 KiB of
// activations from L2 for every three rows. Measured on the 2-vCPU Zen 5
// VM, one thread, 64-row tiles of an 8192-wide F16 or BF16 matrix against
// 128 tokens: unchunked 113-120 GFLOP/s, chunks of 4096 110-120, of 2048
// 147-167, of 1024 142-158 (FMA peak ~220). Between chunks the
// accumulators wait in the frame, the float32 bits as they were, so the
// chunking changes no arithmetic.
//
// Registers: R9, R10 and R10+R11 the three rows (R11 bytes per row), DI the
// activations of token 0 with DX bytes per token (BX = 3·DX), CX elements
// left in the chunk, R13 out[row] with R12 = ostride in bytes (AX = 3·R12),
// R8 rows left, SI the next row at the chunk's first column, R15 the next
// row's parked accumulators, R14 the chunk's first column. Accumulators of
// row r (0..2), token t (0..3): Za = Z(8r+2t), Zb = Z(8r+2t+1). Z24..Z26
// the converted weights of the three rows, Z27..Z30 the four tokens'
// activations.

// GCHUNK is the chunk width in elements (a multiple of 32; halfChunk in
// f16_avx512_amd64.go); GROWS the most rows one call takes (halfRows).
#define GCHUNK 2048
#define GROWS 64

// WCVT16 widens 16 weights at m to float32 in z; WCVT8 widens 8 into y.
// Defined per weight type below, before the kernels that use them.

// GHALF is sixteen elements of three rows × four tokens: weights at
// woff(R9), woff(R10), woff(R10)(R11*1), activations at xoff(DI) and the
// three tokens after it; the products go into accumulators a (row 0,
// tokens 0..3), b (row 1) and c (row 2).
#define GHALF(woff, xoff, a0, a1, a2, a3, b0, b1, b2, b3, c0, c1, c2, c3) \
	WCVT16(woff(R9), Z24); \
	WCVT16(woff(R10), Z25); \
	WCVT16(woff(R10)(R11*1), Z26); \
	VMOVUPS     xoff(DI), Z27; \
	VMOVUPS     xoff(DI)(DX*1), Z28; \
	VMOVUPS     xoff(DI)(DX*2), Z29; \
	VMOVUPS     xoff(DI)(BX*1), Z30; \
	VFMADD231PS Z27, Z24, a0; \
	VFMADD231PS Z28, Z24, a1; \
	VFMADD231PS Z29, Z24, a2; \
	VFMADD231PS Z30, Z24, a3; \
	VFMADD231PS Z27, Z25, b0; \
	VFMADD231PS Z28, Z25, b1; \
	VFMADD231PS Z29, Z25, b2; \
	VFMADD231PS Z30, Z25, b3; \
	VFMADD231PS Z27, Z26, c0; \
	VFMADD231PS Z28, Z26, c1; \
	VFMADD231PS Z29, Z26, c2; \
	VFMADD231PS Z30, Z26, c3

// GTAIL3 is one 8-element group of three rows × four tokens into the low
// halves of the Za accumulators, under K1.
#define GTAIL3 \
	WCVT8((R9), Y24); \
	WCVT8((R10), Y25); \
	WCVT8((R10)(R11*1), Y26); \
	VMOVUPS     (DI), Y27; \
	VMOVUPS     (DI)(DX*1), Y28; \
	VMOVUPS     (DI)(DX*2), Y29; \
	VMOVUPS     (DI)(BX*1), Y30; \
	VFMADD231PS Z27, Z24, K1, Z0; \
	VFMADD231PS Z28, Z24, K1, Z2; \
	VFMADD231PS Z29, Z24, K1, Z4; \
	VFMADD231PS Z30, Z24, K1, Z6; \
	VFMADD231PS Z27, Z25, K1, Z8; \
	VFMADD231PS Z28, Z25, K1, Z10; \
	VFMADD231PS Z29, Z25, K1, Z12; \
	VFMADD231PS Z30, Z25, K1, Z14; \
	VFMADD231PS Z27, Z26, K1, Z16; \
	VFMADD231PS Z28, Z26, K1, Z18; \
	VFMADD231PS Z29, Z26, K1, Z20; \
	VFMADD231PS Z30, Z26, K1, Z22

// GHALF1 and GTAIL1 are GHALF and GTAIL3 for one row (R9), accumulators
// Z0..Z7.
#define GHALF1(woff, xoff, a0, a1, a2, a3) \
	WCVT16(woff(R9), Z24); \
	VMOVUPS     xoff(DI), Z27; \
	VMOVUPS     xoff(DI)(DX*1), Z28; \
	VMOVUPS     xoff(DI)(DX*2), Z29; \
	VMOVUPS     xoff(DI)(BX*1), Z30; \
	VFMADD231PS Z27, Z24, a0; \
	VFMADD231PS Z28, Z24, a1; \
	VFMADD231PS Z29, Z24, a2; \
	VFMADD231PS Z30, Z24, a3

#define GTAIL1 \
	WCVT8((R9), Y24); \
	VMOVUPS     (DI), Y27; \
	VMOVUPS     (DI)(DX*1), Y28; \
	VMOVUPS     (DI)(DX*2), Y29; \
	VMOVUPS     (DI)(BX*1), Y30; \
	VFMADD231PS Z27, Z24, K1, Z0; \
	VFMADD231PS Z28, Z24, K1, Z2; \
	VFMADD231PS Z29, Z24, K1, Z4; \
	VFMADD231PS Z30, Z24, K1, Z6

// GFOLD stores at dst the sum of one (row, token): za = a0|a1, zb = a2|a3
// (ya, yb their low halves). The result passes through X0 because VHADDPS
// has no encoding for the upper sixteen registers; the kernels fold Z0|Z1
// first, so X0 is free by the time it is written. Clobbers Y24..Y26.
#define GFOLD(za, zb, ya, yb, dst) \
	VEXTRACTF64X4 $1, za, Y24; \
	VADDPS        Y24, ya, Y25; \
	VEXTRACTF64X4 $1, zb, Y26; \
	VADDPS        Y26, yb, Y26; \
	VADDPS        Y26, Y25, Y25; \
	VEXTRACTF32X4 $1, Y25, X26; \
	VADDPS        X26, X25, X0; \
	VHADDPS       X0, X0, X0; \
	VHADDPS       X0, X0, X0; \
	VMOVSS        X0, dst

// GFOLD4 stores the four tokens' sums of the row whose accumulators are
// z0..z7 at off(R13), off(R13)(R12*1), off(R13)(R12*2), off(R13)(AX*1).
#define GFOLD4(off, z0, z1, z2, z3, z4, z5, z6, z7, y0, y1, y2, y3, y4, y5, y6, y7) \
	GFOLD(z0, z1, y0, y1, off(R13)); \
	GFOLD(z2, z3, y2, y3, off(R13)(R12*1)); \
	GFOLD(z4, z5, y4, y5, off(R13)(R12*2)); \
	GFOLD(z6, z7, y6, y7, off(R13)(AX*1))

// GZERO1 and GZERO3 clear accumulators Z0..Z7 and Z0..Z23.
#define GZERO1 \
	VPXORD Z0, Z0, Z0; \
	VPXORD Z1, Z1, Z1; \
	VPXORD Z2, Z2, Z2; \
	VPXORD Z3, Z3, Z3; \
	VPXORD Z4, Z4, Z4; \
	VPXORD Z5, Z5, Z5; \
	VPXORD Z6, Z6, Z6; \
	VPXORD Z7, Z7, Z7

#define GZERO3 \
	GZERO1; \
	VPXORD Z8, Z8, Z8; \
	VPXORD Z9, Z9, Z9; \
	VPXORD Z10, Z10, Z10; \
	VPXORD Z11, Z11, Z11; \
	VPXORD Z12, Z12, Z12; \
	VPXORD Z13, Z13, Z13; \
	VPXORD Z14, Z14, Z14; \
	VPXORD Z15, Z15, Z15; \
	VPXORD Z16, Z16, Z16; \
	VPXORD Z17, Z17, Z17; \
	VPXORD Z18, Z18, Z18; \
	VPXORD Z19, Z19, Z19; \
	VPXORD Z20, Z20, Z20; \
	VPXORD Z21, Z21, Z21; \
	VPXORD Z22, Z22, Z22; \
	VPXORD Z23, Z23, Z23

// GPARK1, GPARK3, GUNPARK1 and GUNPARK3 store accumulators Z0..Z7 or
// Z0..Z23 at R15 between chunks, and load them back.
#define GPARK1 \
	VMOVUPS Z0, 0(R15); \
	VMOVUPS Z1, 64(R15); \
	VMOVUPS Z2, 128(R15); \
	VMOVUPS Z3, 192(R15); \
	VMOVUPS Z4, 256(R15); \
	VMOVUPS Z5, 320(R15); \
	VMOVUPS Z6, 384(R15); \
	VMOVUPS Z7, 448(R15)

#define GPARK3 \
	VMOVUPS Z0, 0(R15); \
	VMOVUPS Z1, 64(R15); \
	VMOVUPS Z2, 128(R15); \
	VMOVUPS Z3, 192(R15); \
	VMOVUPS Z4, 256(R15); \
	VMOVUPS Z5, 320(R15); \
	VMOVUPS Z6, 384(R15); \
	VMOVUPS Z7, 448(R15); \
	VMOVUPS Z8, 512(R15); \
	VMOVUPS Z9, 576(R15); \
	VMOVUPS Z10, 640(R15); \
	VMOVUPS Z11, 704(R15); \
	VMOVUPS Z12, 768(R15); \
	VMOVUPS Z13, 832(R15); \
	VMOVUPS Z14, 896(R15); \
	VMOVUPS Z15, 960(R15); \
	VMOVUPS Z16, 1024(R15); \
	VMOVUPS Z17, 1088(R15); \
	VMOVUPS Z18, 1152(R15); \
	VMOVUPS Z19, 1216(R15); \
	VMOVUPS Z20, 1280(R15); \
	VMOVUPS Z21, 1344(R15); \
	VMOVUPS Z22, 1408(R15); \
	VMOVUPS Z23, 1472(R15)

#define GUNPARK1 \
	VMOVUPS 0(R15), Z0; \
	VMOVUPS 64(R15), Z1; \
	VMOVUPS 128(R15), Z2; \
	VMOVUPS 192(R15), Z3; \
	VMOVUPS 256(R15), Z4; \
	VMOVUPS 320(R15), Z5; \
	VMOVUPS 384(R15), Z6; \
	VMOVUPS 448(R15), Z7

#define GUNPARK3 \
	VMOVUPS 0(R15), Z0; \
	VMOVUPS 64(R15), Z1; \
	VMOVUPS 128(R15), Z2; \
	VMOVUPS 192(R15), Z3; \
	VMOVUPS 256(R15), Z4; \
	VMOVUPS 320(R15), Z5; \
	VMOVUPS 384(R15), Z6; \
	VMOVUPS 448(R15), Z7; \
	VMOVUPS 512(R15), Z8; \
	VMOVUPS 576(R15), Z9; \
	VMOVUPS 640(R15), Z10; \
	VMOVUPS 704(R15), Z11; \
	VMOVUPS 768(R15), Z12; \
	VMOVUPS 832(R15), Z13; \
	VMOVUPS 896(R15), Z14; \
	VMOVUPS 960(R15), Z15; \
	VMOVUPS 1024(R15), Z16; \
	VMOVUPS 1088(R15), Z17; \
	VMOVUPS 1152(R15), Z18; \
	VMOVUPS 1216(R15), Z19; \
	VMOVUPS 1280(R15), Z20; \
	VMOVUPS 1344(R15), Z21; \
	VMOVUPS 1408(R15), Z22; \
	VMOVUPS 1472(R15), Z23

// The kernels below have the signature
// func(w *uint16, x *float32, n, rows int, out *float32, ostride int):
// for rows consecutive rows (at most GROWS) of n elements (n a multiple of
// 8, n > 0) and four tokens at x, x+n, x+2n, x+3n, out[t·ostride + r] =
// row r · token t. Rows go three at a time, then one at a time. The two
// differ only in WCVT16 and WCVT8, so both expand one body, GEMM4HALF
// (its labels are local to each TEXT block). Their frames are the parked
// accumulators (no pointers); they are not NOSPLIT, so the stack grows to
// fit.

// GPARKBYTES is the frame: 512 bytes of accumulators for each of GROWS rows.
#define GPARKBYTES 32768

// GEMM4HALF is the body of both kernels: it reads WCVT16 and WCVT8 as
// defined where it is expanded. At the end of a row's chunk, R9 is at the
// chunk's end, which is the row's end if 2·R14 + R9 − SI = R11.
#define GEMM4HALF \
	NO_LOCAL_POINTERS; \
	MOVQ  n+16(FP), DX; \
	SHLQ  $2, DX; \
	LEAQ  (DX)(DX*2), BX; \
	MOVQ  n+16(FP), R11; \
	SHLQ  $1, R11; \
	MOVQ  ostride+40(FP), R12; \
	SHLQ  $2, R12; \
	LEAQ  (R12)(R12*2), AX; \
	MOVL  $0xff, CX; \
	KMOVW CX, K1; \
	XORQ  R14, R14; \
gf4chunk: \
	MOVQ w+0(FP), SI; \
	LEAQ (SI)(R14*2), SI; \
	MOVQ out+32(FP), R13; \
	MOVQ rows+24(FP), R8; \
	LEAQ park-GPARKBYTES(SP), R15; \
gf4row3: \
	CMPQ R8, $3; \
	JLT  gf4row1; \
	MOVQ x+8(FP), DI; \
	LEAQ (DI)(R14*4), DI; \
	MOVQ n+16(FP), CX; \
	SUBQ R14, CX; \
	CMPQ CX, $GCHUNK; \
	JLE  gf4z3; \
	MOVQ $GCHUNK, CX; \
gf4z3: \
	MOVQ   SI, R9; \
	LEAQ   (SI)(R11*1), R10; \
	TESTQ  R14, R14; \
	JNE    gf4u3; \
	GZERO3; \
	JMP    gf4loop3; \
gf4u3: \
	GUNPARK3; \
gf4loop3: \
	CMPQ CX, $32; \
	JLT  gf4tail3; \
	GHALF(0, 0, Z0, Z2, Z4, Z6, Z8, Z10, Z12, Z14, Z16, Z18, Z20, Z22); \
	GHALF(32, 64, Z1, Z3, Z5, Z7, Z9, Z11, Z13, Z15, Z17, Z19, Z21, Z23); \
	ADDQ $64, R9; \
	ADDQ $64, R10; \
	ADDQ $128, DI; \
	SUBQ $32, CX; \
	JMP  gf4loop3; \
gf4tail3: \
	CMPQ CX, $8; \
	JLT  gf4done3; \
	GTAIL3; \
	ADDQ $16, R9; \
	ADDQ $16, R10; \
	ADDQ $32, DI; \
	SUBQ $8, CX; \
	JMP  gf4tail3; \
gf4done3: \
	MOVQ R9, CX; \
	SUBQ SI, CX; \
	LEAQ (CX)(R14*2), CX; \
	CMPQ CX, R11; \
	JEQ  gf4fold3; \
	GPARK3; \
	JMP  gf4next3; \
gf4fold3: \
	GFOLD4(0, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7); \
	GFOLD4(4, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15, Y8, Y9, Y10, Y11, Y12, Y13, Y14, Y15); \
	GFOLD4(8, Z16, Z17, Z18, Z19, Z20, Z21, Z22, Z23, Y16, Y17, Y18, Y19, Y20, Y21, Y22, Y23); \
gf4next3: \
	ADDQ $12, R13; \
	ADDQ $1536, R15; \
	LEAQ (SI)(R11*2), SI; \
	ADDQ R11, SI; \
	SUBQ $3, R8; \
	JMP  gf4row3; \
gf4row1: \
	TESTQ R8, R8; \
	JEQ   gf4endchunk; \
	MOVQ  x+8(FP), DI; \
	LEAQ  (DI)(R14*4), DI; \
	MOVQ  n+16(FP), CX; \
	SUBQ  R14, CX; \
	CMPQ  CX, $GCHUNK; \
	JLE   gf4z1; \
	MOVQ  $GCHUNK, CX; \
gf4z1: \
	MOVQ  SI, R9; \
	TESTQ R14, R14; \
	JNE   gf4u1; \
	GZERO1; \
	JMP   gf4loop1; \
gf4u1: \
	GUNPARK1; \
gf4loop1: \
	CMPQ CX, $32; \
	JLT  gf4tail1; \
	GHALF1(0, 0, Z0, Z2, Z4, Z6); \
	GHALF1(32, 64, Z1, Z3, Z5, Z7); \
	ADDQ $64, R9; \
	ADDQ $128, DI; \
	SUBQ $32, CX; \
	JMP  gf4loop1; \
gf4tail1: \
	CMPQ CX, $8; \
	JLT  gf4done1; \
	GTAIL1; \
	ADDQ $16, R9; \
	ADDQ $32, DI; \
	SUBQ $8, CX; \
	JMP  gf4tail1; \
gf4done1: \
	MOVQ R9, CX; \
	SUBQ SI, CX; \
	LEAQ (CX)(R14*2), CX; \
	CMPQ CX, R11; \
	JEQ  gf4fold1; \
	GPARK1; \
	JMP  gf4next1; \
gf4fold1: \
	GFOLD4(0, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7); \
gf4next1: \
	ADDQ $4, R13; \
	ADDQ $512, R15; \
	ADDQ R11, SI; \
	DECQ R8; \
	JMP  gf4row1; \
gf4endchunk: \
	ADDQ $GCHUNK, R14; \
	CMPQ R14, n+16(FP); \
	JLT  gf4chunk; \
	VZEROUPPER; \
	RET

// F16: VCVTPH2PS, as dotF16RowsAVX2.
#define WCVT16(m, z) VCVTPH2PS m, z
#define WCVT8(m, y) VCVTPH2PS m, y

// func gemm4F16AVX512(w *uint16, x *float32, n, rows int, out *float32, ostride int)
TEXT ·gemm4F16AVX512(SB), 0, $32768-48
	GEMM4HALF

#undef WCVT16
#undef WCVT8

// BF16: zero-extend each 16-bit weight and shift it into the high half of
// a float32, as dotBF16RowsAVX2 does (element i in lane i).
#define WCVT16(m, z) VPMOVZXWD m, z; VPSLLD $16, z, z
#define WCVT8(m, y) VPMOVZXWD m, y; VPSLLD $16, y, y

// func gemm4BF16AVX512(w *uint16, x *float32, n, rows int, out *float32, ostride int)
TEXT ·gemm4BF16AVX512(SB), 0, $32768-48
	GEMM4HALF
