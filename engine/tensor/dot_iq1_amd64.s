#include "textflag.h"

// AVX2 + FMA + F16C kernels for TQ2_0 (layout in quant_iq1.go; dotTQ2Go in
// dot_iq1.go is the definition): the one-token Rows kernel and the
// four-token prefill kernel, which runs for each token exactly the Rows
// kernel's operations on the same weight row, so a token's results do not
// depend on how the prompt was batched. Conventions as in dot_k23_amd64.s:
// SI weights, DI activation codes, R8 activation scales, R13 the output.
//
// TQ2_0 stores its codes as Q2_K does: activation block j of a super-block
// is bit pair j%4 of the 32 bytes qs[32(j/4):]. q − 1 is in −1..2, so
// Σ(q − 1)·xq = Σq·xq − Σxq: VPMADDUBSW of the codes and of the bytes 1
// against xq, folded by three VPHADDW levels (block sums stay within
// 32·3·127, no overflow) to one word per 16 weights, lane 0 holding each
// block's first sixteen and lane 1 its second; adding the lanes gives the
// super-block's 8 block sums in order.

// TQ2BLOCK: pair sums of one activation block (codes at xoff(X), bit pair
// shift of the bytes in Y5) into t (q·xq) and u (xq).
#define TQ2BLOCK(shift, X, xoff, t, u) \
	VPSRLW     $shift, Y5, Y6; \
	VPAND      Y13, Y6, Y6; \
	VPMADDUBSW xoff(X), Y6, t; \
	VPMADDUBSW xoff(X), Y14, u

// TQ2HALF: the 128 weights of one half (codes at qoff(SI), blocks from
// xoff(X)), two VPHADDW levels into tout and uout. Clobbers Y1–Y8.
#define TQ2HALF(qoff, X, xoff, tout, uout) \
	VMOVDQU qoff(SI), Y5; \
	TQ2BLOCK(0, X, xoff, Y1, Y2); \
	TQ2BLOCK(2, X, xoff+32, Y3, Y4); \
	VPHADDW Y3, Y1, Y1; \
	VPHADDW Y4, Y2, Y2; \
	TQ2BLOCK(4, X, xoff+64, Y3, Y4); \
	TQ2BLOCK(6, X, xoff+96, Y7, Y8); \
	VPHADDW Y7, Y3, Y3; \
	VPHADDW Y8, Y4, Y4; \
	VPHADDW Y3, Y1, tout; \
	VPHADDW Y4, Y2, uout

// TQ2SB: one super-block of one token (codes at X, scales at D): acc +=
// (d·dx)·P per block lane. Clobbers Y1–Y8, Y11, Y12.
#define TQ2SB(X, D, acc) \
	TQ2HALF(0, X, 0, Y11, Y12); \
	TQ2HALF(32, X, 128, Y1, Y2); \
	VPHADDW      Y1, Y11, Y1; \
	VPHADDW      Y2, Y12, Y2; \
	VPSUBW       Y2, Y1, Y1; \
	VEXTRACTI128 $1, Y1, X2; \
	VPADDW       X2, X1, X1; \
	VPMOVSXWD    X1, Y1; \
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

// func dotTQ2RowsAVX2(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32)
TEXT ·dotTQ2RowsAVX2(SB), NOSPLIT, $0-48
	MOVQ rows+32(FP), BX
	MOVQ out+40(FP), R13
	MOVQ w+0(FP), SI
	IQ1BCAST32($0x03030303, X13, Y13)
	IQ1BCAST32($0x01010101, X14, Y14)

tq2row:
	TESTQ  BX, BX
	JEQ    tq2end
	MOVQ   xq+8(FP), DI
	MOVQ   xd+16(FP), R8
	MOVQ   nsb+24(FP), CX
	VXORPS Y0, Y0, Y0

tq2loop:
	PREFETCHT0 2048(SI)
	TQ2SB(DI, R8, Y0)
	ADDQ $66, SI
	ADDQ $256, DI
	ADDQ $32, R8
	DECQ CX
	JNZ  tq2loop

	IQ1HSUM(Y0, (R13))
	ADDQ $4, R13
	DECQ BX
	JMP  tq2row

tq2end:
	VZEROUPPER
	RET

// func gemm4TQ2AVX2(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32, ostride int)
//
// Token t's codes are t·256·nsb bytes after token 0's (R9 apart), its
// scales t·32·nsb (R10 apart); R11, R12 point at a token's. Y0, Y9, Y10,
// Y15 are tokens 0..3's accumulators; out[t·ostride + r] (ostride floats,
// DX bytes).
TEXT ·gemm4TQ2AVX2(SB), NOSPLIT, $0-56
	MOVQ rows+32(FP), BX
	MOVQ out+40(FP), R13
	MOVQ w+0(FP), SI
	MOVQ nsb+24(FP), R9
	MOVQ R9, R10
	SHLQ $8, R9
	SHLQ $5, R10
	MOVQ ostride+48(FP), DX
	SHLQ $2, DX
	IQ1BCAST32($0x03030303, X13, Y13)
	IQ1BCAST32($0x01010101, X14, Y14)

g4tq2row:
	TESTQ  BX, BX
	JEQ    g4tq2end
	MOVQ   xq+8(FP), DI
	MOVQ   xd+16(FP), R8
	MOVQ   nsb+24(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y15, Y15, Y15

g4tq2loop:
	PREFETCHT0 512(SI)
	TQ2SB(DI, R8, Y0)
	LEAQ (DI)(R9*1), R11
	LEAQ (R8)(R10*1), R12
	TQ2SB(R11, R12, Y9)
	ADDQ R9, R11
	ADDQ R10, R12
	TQ2SB(R11, R12, Y10)
	ADDQ R9, R11
	ADDQ R10, R12
	TQ2SB(R11, R12, Y15)
	ADDQ $66, SI
	ADDQ $256, DI
	ADDQ $32, R8
	DECQ CX
	JNZ  g4tq2loop

	IQ1HSUM(Y0, (R13))
	IQ1HSUM(Y9, (R13)(DX*1))
	IQ1HSUM(Y10, (R13)(DX*2))
	LEAQ   (R13)(DX*2), R12
	IQ1HSUM(Y15, (R12)(DX*1))
	ADDQ   $4, R13
	DECQ   BX
	JMP    g4tq2row

g4tq2end:
	VZEROUPPER
	RET
