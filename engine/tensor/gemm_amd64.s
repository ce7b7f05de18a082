#include "textflag.h"
#include "gemm4_amd64.h"

// Batched (prefill) kernels: one pass over a weight row serves four tokens,
// so the weights' decoding (the f16 scale, the sign split of the codes) is
// done once per four tokens instead of once per token. Each token's
// arithmetic is exactly the one-token Rows kernel's, in the same order
// (blocks alternate between two accumulators, then the same horizontal
// sum), so a prompt's logits do not depend on how it was batched.

#define ONES16_Y15 \
	MOVL         $0x00010001, AX; \
	VMOVD        AX, X15; \
	VPBROADCASTD X15, Y15

// Q8TOK accumulates token t's part of one Q8_0 block: Y8 holds the weight
// codes, Y9 their magnitudes, X12 the weight scale as float32; xaddr is the
// token's 32 activation codes and daddr its activation scale.
#define Q8TOK(xaddr, daddr, acc) \
	VMOVDQU      xaddr, Y10; \
	VPSIGNB      Y8, Y10, Y10; \
	VPMADDUBSW   Y10, Y9, Y10; \
	VPMADDWD     Y15, Y10, Y10; \
	VCVTDQ2PS    Y10, Y10; \
	VMULSS       daddr, X12, X11; \
	VBROADCASTSS X11, Y11; \
	VFMADD231PS  Y10, Y11, acc

// Q8BLK4 runs one Q8_0 block (at woff(SI); activations at xoff(DI) per
// token, scales at doff(R10)) for four tokens into the accumulators a0..a3.
#define Q8BLK4(woff, xoff, doff, a0, a1, a2, a3) \
	MOVWLZX      woff(SI), AX; \
	VMOVD        AX, X12; \
	VCVTPH2PS    X12, X12; \
	VMOVDQU      woff+2(SI), Y8; \
	VPSIGNB      Y8, Y8, Y9; \
	Q8TOK(xoff(DI), doff(R10), a0); \
	Q8TOK(xoff(DI)(R12*1), doff(R10)(DX*1), a1); \
	Q8TOK(xoff(DI)(R12*2), doff(R10)(DX*2), a2); \
	Q8TOK(xoff(DI)(R14*1), doff(R10)(BX*1), a3)

// func gemm4Q8_0AVX2(w *byte, xq *int8, xd *float32, nb, rows int, out *float32, ostride int)
//
// For rows consecutive Q8_0 rows of nb blocks and four tokens whose codes
// are xq + t·32·nb and scales xd + t·nb: out[t·ostride + r] = row r · token t.
// Accumulators: Y0/Y1 (even/odd blocks) token 0, Y2/Y3 token 1, Y4/Y5
// token 2, Y6/Y7 token 3.
TEXT ·gemm4Q8_0AVX2(SB), NOSPLIT, $0-56
	MOVQ w+0(FP), SI
	MOVQ nb+24(FP), R12
	SHLQ $5, R12               // activation codes per token
	LEAQ (R12)(R12*2), R14     // three tokens' codes
	MOVQ nb+24(FP), DX
	SHLQ $2, DX                // activation scales per token, in bytes
	LEAQ (DX)(DX*2), BX
	MOVQ out+40(FP), R13
	MOVQ rows+32(FP), R8
	ONES16_Y15

g8row:
	TESTQ R8, R8
	JEQ   g8end
	MOVQ  xq+8(FP), DI
	MOVQ  xd+16(FP), R10
	MOVQ  nb+24(FP), CX
	ZERO8

g8loop2:
	CMPQ CX, $2
	JLT  g8tail
	Q8BLK4(0, 0, 0, Y0, Y2, Y4, Y6)
	Q8BLK4(34, 32, 4, Y1, Y3, Y5, Y7)
	ADDQ $68, SI
	ADDQ $64, DI
	ADDQ $8, R10
	SUBQ $2, CX
	JMP  g8loop2

g8tail:
	TESTQ CX, CX
	JEQ   g8done
	Q8BLK4(0, 0, 0, Y0, Y2, Y4, Y6)
	ADDQ $34, SI

g8done:
	FOLD4
	STORE4(ostride+48(FP))
	DECQ   R8
	JMP    g8row

g8end:
	VZEROUPPER
	RET

#define MASK0F_Y14 \
	MOVL         $0x0f0f0f0f, AX; \
	VMOVD        AX, X14; \
	VPBROADCASTD X14, Y14

// Q40TOK accumulates token t's d·dx·Σq·x for one Q4_0 block whose unsigned
// nibbles are in Y8 and f16 scale, as float32, in X12.
#define Q40TOK(xaddr, daddr, acc) \
	VPMADDUBSW   xaddr, Y8, Y10; \
	VPMADDWD     Y15, Y10, Y10; \
	VCVTDQ2PS    Y10, Y10; \
	VMULSS       daddr, X12, X11; \
	VBROADCASTSS X11, Y11; \
	VFMADD231PS  Y10, Y11, acc

// Q40BLK4 runs one Q4_0 block (18 bytes at woff(SI)) for four tokens.
#define Q40BLK4(woff, xoff, doff, a0, a1, a2, a3) \
	MOVWLZX      woff(SI), AX; \
	VMOVD        AX, X12; \
	VCVTPH2PS    X12, X12; \
	VMOVDQU      woff+2(SI), X8; \
	VPSRLW       $4, X8, X9; \
	VINSERTI128  $1, X9, Y8, Y8; \
	VPAND        Y14, Y8, Y8; \
	Q40TOK(xoff(DI), doff(R10), a0); \
	Q40TOK(xoff(DI)(R12*1), doff(R10)(DX*1), a1); \
	Q40TOK(xoff(DI)(R12*2), doff(R10)(DX*2), a2); \
	Q40TOK(xoff(DI)(R14*1), doff(R10)(BX*1), a3)

// Q40MIN4 adds the f16 block scale at woff(R9) times each token's block
// sum at soff(R11) (tokens DX bytes apart) to m0..m3: the −8 offset's
// scalar FMAs.
#define Q40MIN4(woff, soff, m0, m1, m2, m3) \
	MOVWLZX     woff(R9), AX; \
	VMOVD       AX, X8; \
	VCVTPH2PS   X8, X8; \
	VFMADD231SS soff(R11), X8, m0; \
	VFMADD231SS soff(R11)(DX*1), X8, m1; \
	VFMADD231SS soff(R11)(DX*2), X8, m2; \
	VFMADD231SS soff(R11)(BX*1), X8, m3

// func gemm4Q4_0AVX2(w *byte, xq *int8, xd, xs *float32, nb, rows int, out *float32, ostride int)
//
// As gemm4Q8_0AVX2 for Q4_0. The one-token kernel also gathers d·(dx·Σx)
// per block, in block order, for the −8 offset; that sum does not depend on
// the codes, so here it is a second, cheap pass over the row's scales
// after the main one, with the same FMAs in the same order.
TEXT ·gemm4Q4_0AVX2(SB), NOSPLIT, $0-64
	MOVQ w+0(FP), SI
	MOVQ nb+32(FP), R12
	SHLQ $5, R12
	LEAQ (R12)(R12*2), R14
	MOVQ nb+32(FP), DX
	SHLQ $2, DX
	LEAQ (DX)(DX*2), BX
	MOVQ out+48(FP), R13
	MOVQ rows+40(FP), R8
	ONES16_Y15
	MASK0F_Y14

g40row:
	TESTQ R8, R8
	JEQ   g40end
	MOVQ  SI, R9               // the row's first block, for the second pass
	MOVQ  xq+8(FP), DI
	MOVQ  xd+16(FP), R10
	MOVQ  nb+32(FP), CX
	ZERO8

g40loop2:
	CMPQ CX, $2
	JLT  g40tail
	Q40BLK4(0, 0, 0, Y0, Y2, Y4, Y6)
	Q40BLK4(18, 32, 4, Y1, Y3, Y5, Y7)
	ADDQ $36, SI
	ADDQ $64, DI
	ADDQ $8, R10
	SUBQ $2, CX
	JMP  g40loop2

g40tail:
	TESTQ CX, CX
	JEQ   g40done
	Q40BLK4(0, 0, 0, Y0, Y2, Y4, Y6)
	ADDQ $18, SI

g40done:
	FOLD4

	// Second pass: X1, X3, X5, X7 = Σ_b d_b·(dx·Σx)_b per token.
	VXORPS X1, X1, X1
	VXORPS X3, X3, X3
	VXORPS X5, X5, X5
	VXORPS X7, X7, X7
	VXORPS X9, X9, X9
	VXORPS X10, X10, X10
	VXORPS X11, X11, X11
	VXORPS X12, X12, X12
	MOVQ   xs+24(FP), R11
	MOVQ   nb+32(FP), CX

g40min:
	// Even blocks into X1, X3, X5, X7, odd ones into X9..X12, as the
	// one-token kernel's two chains.
	CMPQ        CX, $2
	JLT         g40mintail
	Q40MIN4(0, 0, X1, X3, X5, X7)
	Q40MIN4(18, 4, X9, X10, X11, X12)
	ADDQ        $36, R9
	ADDQ        $8, R11
	SUBQ        $2, CX
	JMP         g40min

g40mintail:
	TESTQ       CX, CX
	JEQ         g40mindone
	Q40MIN4(0, 0, X1, X3, X5, X7)

g40mindone:
	VADDSS X9, X1, X1
	VADDSS X10, X3, X3
	VADDSS X11, X5, X5
	VADDSS X12, X7, X7
	MOVL   $0x41000000, AX     // 8.0
	VMOVD  AX, X8
	VMULSS X8, X1, X1
	VMULSS X8, X3, X3
	VMULSS X8, X5, X5
	VMULSS X8, X7, X7
	VSUBSS X1, X0, X0
	VSUBSS X3, X2, X2
	VSUBSS X5, X4, X4
	VSUBSS X7, X6, X6
	STORE4(ostride+56(FP))
	DECQ   R8
	JMP    g40row

g40end:
	VZEROUPPER
	RET
