#include "textflag.h"
#include "gemm4_amd64.h"

// Prefill kernels for CPUs with VNNI (VPDPBUSD: u8×s8 products summed in
// fours into int32 lanes, one instruction for VPMADDUBSW+VPMADDWD). They
// compute exactly what gemm_amd64.s's AVX2 kernels do, lane for lane:
//
//   - the integer sums are the same numbers (the AVX2 sums never saturate,
//     VPDPBUSD never rounds);
//   - each token's scale d_w·dx is the same float32 product, made for the
//     four tokens by one VMULPS against their scales stored side by side
//     (dT: per block, the four tokens' dx), then spread with VPERMILPS;
//   - the FMAs, accumulators and horizontal sums are the same, in the same
//     order.
//
// Q8_0's codes are both signed, and VPDPBUSD wants one side unsigned: the
// activations come as u = x+128 (xu) and each lane starts from −128·Σw of
// its four weights, computed once per block for the four tokens.

#define BYTES80_Y15 \
	MOVL         $0x80808080, AX; \
	VMOVD        AX, X15; \
	VPBROADCASTD X15, Y15

#define MASK0F_Y15 \
	MOVL         $0x0f0f0f0f, AX; \
	VMOVD        AX, X15; \
	VPBROADCASTD X15, Y15

// SCALES4 sets Y12 = d_w·dx_t for t = 0..3 in lanes t and t+4, from the
// f16 weight scale at woff(SI) and the four tokens' scales at doff(R10).
#define SCALES4(woff, doff) \
	MOVWLZX        woff(SI), AX; \
	VMOVD          AX, X13; \
	VCVTPH2PS      X13, X13; \
	VBROADCASTSS   X13, Y13; \
	VBROADCASTF128 doff(R10), Y12; \
	VMULPS         Y12, Y13, Y12

// QV8TOK: token (lane sel of Y12)'s share of a Q8_0 block whose signed
// codes are in Y8 and whose −128·Σw lanes are in Y9.
#define QV8TOK(xaddr, sel, acc) \
	VMOVDQU     xaddr, Y11; \
	VMOVDQA     Y9, Y10; \
	VPDPBUSD    Y8, Y11, Y10; \
	VCVTDQ2PS   Y10, Y10; \
	VPERMILPS   sel, Y12, Y14; \
	VFMADD231PS Y10, Y14, acc

#define QV8BLK4(woff, xoff, doff, a0, a1, a2, a3) \
	SCALES4(woff, doff); \
	VMOVDQU  woff+2(SI), Y8; \
	VPXOR    Y9, Y9, Y9; \
	VPDPBUSD Y8, Y15, Y9; \
	VPXOR    Y10, Y10, Y10; \
	VPSUBD   Y9, Y10, Y9; \
	QV8TOK(xoff(DI), $0x00, a0); \
	QV8TOK(xoff(DI)(R12*1), $0x55, a1); \
	QV8TOK(xoff(DI)(R12*2), $0xaa, a2); \
	QV8TOK(xoff(DI)(R14*1), $0xff, a3)

// func gemm4Q8_0VNNI(w *byte, xu *uint8, dT *float32, nb, rows int, out *float32, ostride int)
TEXT ·gemm4Q8_0VNNI(SB), NOSPLIT, $0-56
	MOVQ w+0(FP), SI
	MOVQ nb+24(FP), R12
	SHLQ $5, R12
	LEAQ (R12)(R12*2), R14
	MOVQ out+40(FP), R13
	MOVQ rows+32(FP), R8
	BYTES80_Y15

gv8row:
	TESTQ  R8, R8
	JEQ    gv8end
	MOVQ   xu+8(FP), DI
	MOVQ   dT+16(FP), R10
	MOVQ   nb+24(FP), CX
	ZERO8

gv8loop2:
	CMPQ CX, $2
	JLT  gv8tail
	QV8BLK4(0, 0, 0, Y0, Y2, Y4, Y6)
	QV8BLK4(34, 32, 16, Y1, Y3, Y5, Y7)
	ADDQ $68, SI
	ADDQ $64, DI
	ADDQ $32, R10
	SUBQ $2, CX
	JMP  gv8loop2

gv8tail:
	TESTQ CX, CX
	JEQ   gv8done
	QV8BLK4(0, 0, 0, Y0, Y2, Y4, Y6)
	ADDQ  $34, SI

gv8done:
	FOLD4
	STORE4(ostride+48(FP))
	DECQ   R8
	JMP    gv8row

gv8end:
	VZEROUPPER
	RET

// QV40TOK: token (lane sel of Y12)'s share of a Q4_0 block whose unsigned
// nibbles are in Y8.
#define QV40TOK(xaddr, sel, acc) \
	VPXOR       Y10, Y10, Y10; \
	VPDPBUSD    xaddr, Y8, Y10; \
	VCVTDQ2PS   Y10, Y10; \
	VPERMILPS   sel, Y12, Y14; \
	VFMADD231PS Y10, Y14, acc

#define QV40BLK4(woff, xoff, doff, a0, a1, a2, a3) \
	SCALES4(woff, doff); \
	VMOVDQU     woff+2(SI), X8; \
	VPSRLW      $4, X8, X9; \
	VINSERTI128 $1, X9, Y8, Y8; \
	VPAND       Y15, Y8, Y8; \
	QV40TOK(xoff(DI), $0x00, a0); \
	QV40TOK(xoff(DI)(R12*1), $0x55, a1); \
	QV40TOK(xoff(DI)(R12*2), $0xaa, a2); \
	QV40TOK(xoff(DI)(R14*1), $0xff, a3)

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

// func gemm4Q4_0VNNI(w *byte, xq *int8, dT, xs *float32, nb, rows int, out *float32, ostride int)
// The −8 offset's second pass is gemm4Q4_0AVX2's.
TEXT ·gemm4Q4_0VNNI(SB), NOSPLIT, $0-64
	MOVQ w+0(FP), SI
	MOVQ nb+32(FP), R12
	SHLQ $5, R12
	LEAQ (R12)(R12*2), R14
	MOVQ nb+32(FP), DX
	SHLQ $2, DX
	LEAQ (DX)(DX*2), BX
	MOVQ out+48(FP), R13
	MOVQ rows+40(FP), R8
	MASK0F_Y15

gv40row:
	TESTQ  R8, R8
	JEQ    gv40end
	MOVQ   SI, R9
	MOVQ   xq+8(FP), DI
	MOVQ   dT+16(FP), R10
	MOVQ   nb+32(FP), CX
	ZERO8

gv40loop2:
	CMPQ CX, $2
	JLT  gv40tail
	QV40BLK4(0, 0, 0, Y0, Y2, Y4, Y6)
	QV40BLK4(18, 32, 16, Y1, Y3, Y5, Y7)
	ADDQ $36, SI
	ADDQ $64, DI
	ADDQ $32, R10
	SUBQ $2, CX
	JMP  gv40loop2

gv40tail:
	TESTQ CX, CX
	JEQ   gv40done
	QV40BLK4(0, 0, 0, Y0, Y2, Y4, Y6)
	ADDQ  $18, SI

gv40done:
	FOLD4
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

gv40min:
	// Even blocks into X1, X3, X5, X7, odd ones into X9..X12, as the
	// one-token kernel's two chains.
	CMPQ        CX, $2
	JLT         gv40mintail
	Q40MIN4(0, 0, X1, X3, X5, X7)
	Q40MIN4(18, 4, X9, X10, X11, X12)
	ADDQ        $36, R9
	ADDQ        $8, R11
	SUBQ        $2, CX
	JMP         gv40min

gv40mintail:
	TESTQ       CX, CX
	JEQ         gv40mindone
	Q40MIN4(0, 0, X1, X3, X5, X7)

gv40mindone:
	VADDSS X9, X1, X1
	VADDSS X10, X3, X3
	VADDSS X11, X5, X5
	VADDSS X12, X7, X7
	MOVL   $0x41000000, AX
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
	JMP    gv40row

gv40end:
	VZEROUPPER
	RET

// func toUnsignedAVX2(dst *uint8, src *int8, n int)
// dst[i] = src[i]+128 (flipping the sign bit), n a multiple of 32.
TEXT ·toUnsignedAVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	BYTES80_Y15

tou32:
	TESTQ   CX, CX
	JEQ     toudone
	VMOVDQU (SI), Y0
	VPXOR   Y15, Y0, Y0
	VMOVDQU Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	SUBQ    $32, CX
	JMP     tou32

toudone:
	VZEROUPPER
	RET
