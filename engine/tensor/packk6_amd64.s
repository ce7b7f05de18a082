#include "textflag.h"
#include "ahead_amd64.h"
#include "packz_amd64.h"

// Packed Q6_K kernels (layout and arithmetic: packk6.go), sixteen rows per
// ZMM lane, on AVX-512 VNNI. Z27 = 0x0F bytes, Z28 = 0x30 bytes, Z21 the
// super-block's d (Z29 the second group's, where the decode kernel walks
// two groups at once).
//
// Each lane's integer sum Σ (q−32)·x is started from −32·Σx over its four
// activation codes (act.m4, broadcast from memory: R15 is the distance
// from the codes to it, so the correction of the dword at off(xb) is at
// off(xb)(R15*1)), then completed by VPDPBUSD of the unsigned 6-bit codes
// and that activation dword broadcast. (Computing the corrections in the
// kernel and broadcasting them from the stack made the decode kernel 2.3×
// slower than the GGUF-layout one: the loads wait on the stores.)

// K6CODES rebuilds part p of a block (its 192 bytes at B(SI)) into the
// codes of its four lanes c0…c3: the low nibbles of A (lane 0) and B (lane
// 1), their high nibbles (lanes 2, 3), each or-ed with its two top bits
// from H, moved to bits 4…5 by a word shift (left 4, left 2, none, right
// 2; what a word shift carries across bytes lands outside bits 4…5 and is
// masked off). VPTERNLOGD 0xF8 is A | (B & C), 0xE4 (A & C) | (B & ~C).
#define K6CODES(B, c0, c1, c2, c3, t1, t2, t3) K6CODESR(B, SI, c0, c1, c2, c3, t1, t2, t3)

// K6CODESR is K6CODES for the super-block at base.
#define K6CODESR(B, base, c0, c1, c2, c3, t1, t2, t3) \
	VPSLLW     $4, B+128(base), t1; \
	VPANDD     B(base), Z27, c0; \
	VPTERNLOGD $0xF8, Z28, t1, c0; \
	VPSLLW     $2, B+128(base), t2; \
	VPANDD     B+64(base), Z27, c1; \
	VPTERNLOGD $0xF8, Z28, t2, c1; \
	VPANDD     B+128(base), Z28, t3; \
	VPSRLW     $4, B(base), c2; \
	VPTERNLOGD $0xE4, Z27, t3, c2; \
	VPSRLW     $2, B+128(base), t1; \
	VPANDD     Z28, t1, t1; \
	VPSRLW     $4, B+64(base), c3; \
	VPTERNLOGD $0xE4, Z27, t1, c3

// K6LANE adds one lane of one token to acc: the integer sum started from
// the broadcast correction at corr, the codes c against the activation
// dword at xa, then acc = fma(float(i)·sc, ddx, acc).
#define K6LANE(corr, xa, c, sc, ddx, isum, acc) \
	VPBROADCASTD  corr, isum; \
	VPDPBUSD.BCST xa, c, isum; \
	VCVTDQ2PS     isum, isum; \
	VMULPS        sc, isum, isum; \
	VFMADD231PS   ddx, isum, acc

// K6TOK adds one token's four lanes of a part: its activation codes at
// xoff(xb) (the part's sixteen) and their corrections, block scale at
// daddr; codes in Z16…Z19, the half's scales in Z20; acc0…acc3.
#define K6TOK(xb, xoff, daddr, acc0, acc1, acc2, acc3) K6TOKD(xb, xoff, daddr, Z21, acc0, acc1, acc2, acc3)

// K6TOKD is K6TOK for a super-block whose d is in dv.
#define K6TOKD(xb, xoff, daddr, dv, acc0, acc1, acc2, acc3) \
	VMULPS.BCST daddr, dv, Z22; \
	K6LANE(xoff(xb)(R15*1), xoff(xb), Z16, Z20, Z22, Z23, acc0); \
	K6LANE(xoff+4(xb)(R15*1), xoff+4(xb), Z17, Z20, Z22, Z24, acc1); \
	K6LANE(xoff+8(xb)(R15*1), xoff+8(xb), Z18, Z20, Z22, Z25, acc2); \
	K6LANE(xoff+12(xb)(R15*1), xoff+12(xb), Z19, Z20, Z22, Z26, acc3)

// K6SCALE loads the sixteen rows' scales of one half (at off(SI)) as
// floats into Z20.
#define K6SCALE(off) K6SCALER(off, SI)

// K6SCALER is K6SCALE for the super-block at base.
#define K6SCALER(off, base) \
	VPMOVSXBD off(base), Z20; \
	VCVTDQ2PS Z20, Z20

#define K6MASKS \
	MOVL         $0x0f0f0f0f, AX; \
	VPBROADCASTD AX, Z27; \
	MOVL         $0x30303030, AX; \
	VPBROADCASTD AX, Z28

// K6BLOCK1 is block j for one token: part 0 into acc Z0…Z3, part 1 into
// Z4…Z7 (scales at R9, codes at DI).
#define K6BLOCK1(j) \
	K6CODES(320+384*j, Z16, Z17, Z18, Z19, Z23, Z24, Z25); \
	K6SCALE(64+32*j); \
	K6TOK(DI, 32*j, 4*j(R9), Z0, Z1, Z2, Z3); \
	K6CODES(320+384*j+192, Z16, Z17, Z18, Z19, Z23, Z24, Z25); \
	K6SCALE(64+32*j+16); \
	K6TOK(DI, 32*j+16, 4*j(R9), Z4, Z5, Z6, Z7)

// K6HSUM leaves in a the row sums of the eight accumulators a…h (lanes
// 0…7): ((a+e)+(b+f)) + ((c+g)+(d+h)).
#define K6HSUM(a, b, c, d, e, f, g, h) \
	VADDPS e, a, a; \
	VADDPS f, b, b; \
	VADDPS g, c, c; \
	VADDPS h, d, d; \
	VADDPS b, a, a; \
	VADDPS d, c, c; \
	VADDPS c, a, a

// K6BLOCK2 is block j for one token of two groups at once: the group at
// SI (d in Z21) into Z0…Z7 as K6BLOCK1, the next at R11 (d in Z29) into
// Z8…Z15.
#define K6BLOCK2(j) \
	K6CODES(320+384*j, Z16, Z17, Z18, Z19, Z23, Z24, Z25); \
	K6SCALE(64+32*j); \
	K6TOK(DI, 32*j, 4*j(R9), Z0, Z1, Z2, Z3); \
	K6CODESR(320+384*j, R11, Z16, Z17, Z18, Z19, Z23, Z24, Z25); \
	K6SCALER(64+32*j, R11); \
	K6TOKD(DI, 32*j, 4*j(R9), Z29, Z8, Z9, Z10, Z11); \
	K6CODES(320+384*j+192, Z16, Z17, Z18, Z19, Z23, Z24, Z25); \
	K6SCALE(64+32*j+16); \
	K6TOK(DI, 32*j+16, 4*j(R9), Z4, Z5, Z6, Z7); \
	K6CODESR(320+384*j+192, R11, Z16, Z17, Z18, Z19, Z23, Z24, Z25); \
	K6SCALER(64+32*j+16, R11); \
	K6TOKD(DI, 32*j+16, 4*j(R9), Z29, Z12, Z13, Z14, Z15)

// func rowsQ6Kx16VNNI(p *byte, xq *int8, xd *float32, m4 *int32, nsb, groups int, out *float32)
//
// out[r] = row r · x for groups·16 packed rows of nsb super-blocks. SI
// weights, DI codes, R9 block scales (each at the current super-block),
// R15 m4 − xq, CX super-blocks left, R8 groups left, R13 out; Z0…Z7 the
// accumulators.
//
// Groups go two at a time (R11 the second's weights, BX the bytes of a
// group, Z8…Z15 its accumulators), then a last odd one alone: two streams
// of weights per thread keep more of decode's misses in flight than one
// (docs/performance.md). Each group's sums are bit for bit those of the
// one-group loop.
TEXT ·rowsQ6Kx16VNNI(SB), NOSPLIT, $0-56
	MOVQ  p+0(FP), SI
	MOVQ  out+48(FP), R13
	MOVQ  groups+40(FP), R8
	MOVQ  m4+24(FP), R15
	SUBQ  xq+8(FP), R15
	MOVQ  nsb+32(FP), BX
	IMULQ $3392, BX
	K6MASKS

k6rpair:
	CMPQ   R8, $2
	JLT    k6rgroup
	LEAQ   (SI)(BX*1), R11
	MOVQ   xq+8(FP), DI
	MOVQ   xd+16(FP), R9
	MOVQ   nsb+32(FP), CX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	VPXORD Z12, Z12, Z12
	VPXORD Z13, Z13, Z13
	VPXORD Z14, Z14, Z14
	VPXORD Z15, Z15, Z15

k6rploop:
	VMOVUPS (SI), Z21
	VMOVUPS (R11), Z29
	PFL4(0)
	PFL2(256)
	PFL(384)
	PFLB4(0)
	PFLB2(256)
	PFLB(384)
	K6BLOCK2(0)
	PFL4(448)
	PFL2(704)
	PFL(832)
	PFLB4(448)
	PFLB2(704)
	PFLB(832)
	K6BLOCK2(1)
	PFL4(896)
	PFL2(1152)
	PFLB4(896)
	PFLB2(1152)
	K6BLOCK2(2)
	PFL4(1280)
	PFL2(1536)
	PFL(1664)
	PFLB4(1280)
	PFLB2(1536)
	PFLB(1664)
	K6BLOCK2(3)
	PFL4(1728)
	PFL2(1984)
	PFL(2112)
	PFLB4(1728)
	PFLB2(1984)
	PFLB(2112)
	K6BLOCK2(4)
	PFL4(2176)
	PFL2(2432)
	PFLB4(2176)
	PFLB2(2432)
	K6BLOCK2(5)
	PFL4(2560)
	PFL2(2816)
	PFL(2944)
	PFLB4(2560)
	PFLB2(2816)
	PFLB(2944)
	K6BLOCK2(6)
	PFL4(3008)
	PFL2(3264)
	PFLB4(3008)
	PFLB2(3264)
	K6BLOCK2(7)
	ADDQ $3392, SI
	ADDQ $3392, R11
	ADDQ $256, DI
	ADDQ $32, R9
	DECQ CX
	JNZ  k6rploop

	K6HSUM(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	K6HSUM(Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)
	VMOVUPS Z0, (R13)
	VMOVUPS Z8, 64(R13)
	ADDQ    $128, R13
	MOVQ    R11, SI
	SUBQ    $2, R8
	JMP     k6rpair

k6rgroup:
	TESTQ  R8, R8
	JEQ    k6rend
	MOVQ   xq+8(FP), DI
	MOVQ   xd+16(FP), R9
	MOVQ   nsb+32(FP), CX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7

k6rloop:
	VMOVUPS (SI), Z21
	PFL4(0)
	PFL2(256)
	PFL(384)
	K6BLOCK1(0)
	PFL4(448)
	PFL2(704)
	PFL(832)
	K6BLOCK1(1)
	PFL4(896)
	PFL2(1152)
	K6BLOCK1(2)
	PFL4(1280)
	PFL2(1536)
	PFL(1664)
	K6BLOCK1(3)
	PFL4(1728)
	PFL2(1984)
	PFL(2112)
	K6BLOCK1(4)
	PFL4(2176)
	PFL2(2432)
	K6BLOCK1(5)
	PFL4(2560)
	PFL2(2816)
	PFL(2944)
	K6BLOCK1(6)
	PFL4(3008)
	PFL2(3264)
	K6BLOCK1(7)
	ADDQ $3392, SI
	ADDQ $256, DI
	ADDQ $32, R9
	DECQ CX
	JNZ  k6rloop

	K6HSUM(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	VMOVUPS Z0, (R13)
	ADDQ    $64, R13
	DECQ    R8
	JMP     k6rgroup

k6rend:
	VZEROUPPER
	RET

// K6BLOCK4 is part p of block j for four tokens: codes at DI, R11, R12,
// R14; block scales from R9, the tokens DX bytes apart (BX = 3·DX); token
// t's lanes in Z(4t)…Z(4t+3).
#define K6BLOCK4(j, p) \
	K6CODES(320+384*j+192*p, Z16, Z17, Z18, Z19, Z23, Z24, Z25); \
	K6SCALE(64+32*j+16*p); \
	K6TOK(DI, 32*j+16*p, 4*j(R9), Z0, Z1, Z2, Z3); \
	K6TOK(R11, 32*j+16*p, 4*j(R9)(DX*1), Z4, Z5, Z6, Z7); \
	K6TOK(R12, 32*j+16*p, 4*j(R9)(DX*2), Z8, Z9, Z10, Z11); \
	K6TOK(R14, 32*j+16*p, 4*j(R9)(BX*1), Z12, Z13, Z14, Z15)

// K6PASS runs part p of every super-block of the group at R10 into
// Z0…Z15, from zero.
#define K6PASS(p, loop) \
	MOVQ   R10, SI; \
	MOVQ   xq+8(FP), DI; \
	MOVQ   nsb+32(FP), CX; \
	SHLQ   $8, CX; \
	LEAQ   (DI)(CX*1), R11; \
	LEAQ   (R11)(CX*1), R12; \
	LEAQ   (R12)(CX*1), R14; \
	MOVQ   xd+16(FP), R9; \
	MOVQ   nsb+32(FP), CX; \
	VPXORD Z0, Z0, Z0; \
	VPXORD Z1, Z1, Z1; \
	VPXORD Z2, Z2, Z2; \
	VPXORD Z3, Z3, Z3; \
	VPXORD Z4, Z4, Z4; \
	VPXORD Z5, Z5, Z5; \
	VPXORD Z6, Z6, Z6; \
	VPXORD Z7, Z7, Z7; \
	VPXORD Z8, Z8, Z8; \
	VPXORD Z9, Z9, Z9; \
	VPXORD Z10, Z10, Z10; \
	VPXORD Z11, Z11, Z11; \
	VPXORD Z12, Z12, Z12; \
	VPXORD Z13, Z13, Z13; \
	VPXORD Z14, Z14, Z14; \
	VPXORD Z15, Z15, Z15; \
loop: \
	VMOVUPS (SI), Z21; \
	K6BLOCK4(0, p); \
	K6BLOCK4(1, p); \
	K6BLOCK4(2, p); \
	K6BLOCK4(3, p); \
	K6BLOCK4(4, p); \
	K6BLOCK4(5, p); \
	K6BLOCK4(6, p); \
	K6BLOCK4(7, p); \
	ADDQ $3392, SI; \
	ADDQ $256, DI; \
	ADDQ $256, R11; \
	ADDQ $256, R12; \
	ADDQ $256, R14; \
	ADDQ $32, R9; \
	DECQ CX; \
	JNZ  loop

// K6FOLD adds token t's part-0 lanes, kept at 256t(SP), to its part-1
// lanes a…d, and leaves the row sums in a.
#define K6FOLD(t, a, b, c, d) \
	VMOVUPS 256*t(SP), Z16; \
	VMOVUPS 64+256*t(SP), Z17; \
	VMOVUPS 128+256*t(SP), Z18; \
	VMOVUPS 192+256*t(SP), Z19; \
	K6HSUM(Z16, Z17, Z18, Z19, a, b, c, d); \
	VMOVAPS Z16, a

// func gemm4Q6Kx16VNNI(p *byte, xq *int8, xd *float32, m4 *int32, nsb, groups int, out *float32, ostride int)
//
// out[t·ostride + r] = row r · token t for groups·16 packed rows and four
// tokens whose codes are xq + t·256·nsb, block scales xd + t·8·nsb and
// corrections m4 + t·64·nsb. Each group runs part 0 of the whole row,
// keeps its sixteen accumulators on the stack (0…1023(SP)), runs part 1,
// then folds them in. R10 is the group's first super-block; the rest as
// rowsQ6Kx16VNNI, plus R11, R12, R14 the codes of tokens 1…3. The frame is
// past the no-split limit: this function checks the stack.
TEXT ·gemm4Q6Kx16VNNI(SB), $1024-64
	K6MASKS
	MOVQ p+0(FP), R10
	MOVQ m4+24(FP), R15
	SUBQ xq+8(FP), R15
	MOVQ nsb+32(FP), DX
	SHLQ $5, DX                // scales: 8 blocks · 4 bytes a super-block
	LEAQ (DX)(DX*2), BX
	MOVQ out+48(FP), R13
	MOVQ groups+40(FP), R8

k6ggroup:
	TESTQ R8, R8
	JEQ   k6gend
	K6PASS(0, k6gloop0)
	PSPILL16
	K6PASS(1, k6gloop1)
	MOVQ    SI, R10            // the next group
	K6FOLD(0, Z0, Z1, Z2, Z3)
	K6FOLD(1, Z4, Z5, Z6, Z7)
	K6FOLD(2, Z8, Z9, Z10, Z11)
	K6FOLD(3, Z12, Z13, Z14, Z15)
	MOVQ    ostride+56(FP), AX
	SHLQ    $2, AX
	VMOVUPS Z0, (R13)
	VMOVUPS Z4, (R13)(AX*1)
	VMOVUPS Z8, (R13)(AX*2)
	LEAQ    (AX)(AX*2), AX
	VMOVUPS Z12, (R13)(AX*1)
	ADDQ    $64, R13
	DECQ    R8
	JMP     k6ggroup

k6gend:
	VZEROUPPER
	RET
