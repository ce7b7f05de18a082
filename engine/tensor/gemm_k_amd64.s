#include "textflag.h"
#include "gemm4_amd64.h"

// Four-token prefill kernels of the K-quants. As in gemm_amd64.s, one pass
// over a weight row serves four tokens: what depends on the weights alone
// (the f16 scales, the packed 6-bit scales and mins, the codes and their
// high bits) is decoded once per super-block, and each token then does
// exactly the float operations of its one-token Rows kernel in dot_amd64.s,
// with the same operands in the same order, so a token's results do not
// depend on how the prompt was batched. The integer sums feeding those
// float operations are exact however they are formed, so they are formed
// here with fewer instructions where that pays; they keep the Rows
// kernels' lane layout, which is what the float operations see.

// PF is how far ahead of the loads the weights are prefetched (as in
// dot_amd64.s): the first four tokens of a tile read its rows from DRAM.
#define PF 512

#define ONES16_Y15 \
	MOVL         $0x00010001, AX; \
	VMOVD        AX, X15; \
	VPBROADCASTD X15, Y15

// F16AT loads the half at off(SI) into the low float lane of reg.
#define F16AT(off, reg) \
	MOVWLZX   off(SI), AX; \
	VMOVD     AX, reg; \
	VCVTPH2PS reg, reg

// HSUMK folds the eight float lanes of y into the low lane of x, as
// dot_amd64.s's HSUM does for Y0 (the same additions, operands in the same
// places). Clobbers tmp.
#define HSUMK(y, x, tmp) \
	VEXTRACTF128 $1, y, tmp; \
	VADDPS       tmp, x, x; \
	VHADDPS      x, x, x; \
	VHADDPS      x, x, x

// STORE4K writes the low lanes of X0..X3 to out[0], out[ostride],
// out[2·ostride], out[3·ostride] (R13 = out, AX = ostride in bytes) and
// moves R13 to the next row.
#define STORE4K \
	VMOVSS X0, (R13); \
	VMOVSS X1, (R13)(AX*1); \
	VMOVSS X2, (R13)(AX*2); \
	LEAQ   (AX)(AX*2), AX; \
	VMOVSS X3, (R13)(AX*1); \
	ADDQ   $4, R13

// Q4_K and Q5_K share the arithmetic: per super-block and token,
// Σw·x = Σ_j d·sc_j·dx_j·Σ(q·xq) − Σ_j dmin·m_j·(dx_j·Σxq) over the
// sub-blocks j. The kernels keep, for the four tokens, the accumulators of
// the first term in Y0..Y3 and of the second in Y4..Y7. A super-block's
// codes are unpacked in two halves of four sub-blocks, into Y8..Y11, and
// each half serves the four tokens in turn; a token's sums over the first
// half wait on the stack (r0..r3) for the second.
//
// Registers: SI weights; DI, R10, R11, AX tokens 0..3's activation codes
// at this super-block (R12 bytes apart, R14 = 3·R12; R10, R11 and AX are
// scratch until KFACTORS points them there); R8 token 0's scales,
// R9 its block sums, token t's DX·t bytes further (BX = 3·DX). CX counts
// super-blocks, R13 walks out. Y12..Y14 are scratch, Y15 int16 ones. On the
// stack: the factors' parts scf (sc_j as floats) and dv (d, broadcast), the
// byte masks m0f and m10.

// KSCALES unpacks the 12 packed scale bytes at 4(SI) (see dot_amd64.s's
// K4SCALES, which does the same with more registers) into R10 = sc_0..sc_7
// and R11 = m_0..m_7, one byte each. Sub-blocks 0–3 keep scale and min in
// the low 6 bits of p0..3 and p4..7; sub-blocks 4–7 take their low 4 bits
// from p8..11 (scale low nibble, min high nibble) and their top 2 bits from
// the top bits of p0..3 (scale) and p4..7 (min).
#define KSCALES \
	MOVL 4(SI), AX; \
	MOVL AX, R10; \
	ANDL $0x3f3f3f3f, R10; \
	SHRL $6, AX; \
	ANDL $0x03030303, AX; \
	SHLL $4, AX; \
	MOVL 12(SI), R11; \
	ANDL $0x0f0f0f0f, R11; \
	ORL  AX, R11; \
	SHLQ $32, R11; \
	ORQ  R11, R10; \
	MOVL 8(SI), AX; \
	MOVL AX, R11; \
	ANDL $0x3f3f3f3f, R11; \
	SHRL $6, AX; \
	ANDL $0x03030303, AX; \
	SHLL $4, AX; \
	SHLQ $32, AX; \
	ORQ  AX, R11; \
	MOVL 12(SI), AX; \
	SHRL $4, AX; \
	ANDL $0x0f0f0f0f, AX; \
	SHLQ $32, AX; \
	ORQ  AX, R11

// KMINS adds dmin·(m_j·(dx_j·Σxq)) to each token's Y4..Y7, as the one-token
// kernel adds to its Y13: the product m_j·s_j first, then the FMA with dmin.
#define KMINS \
	VMOVQ       R11, X8; \
	VPMOVZXBD   X8, Y8; \
	VCVTDQ2PS   Y8, Y8; \
	F16AT(2, X9); \
	VBROADCASTSS X9, Y9; \
	VMULPS      (R9), Y8, Y10; \
	VFMADD231PS Y10, Y9, Y4; \
	VMULPS      (R9)(DX*1), Y8, Y11; \
	VFMADD231PS Y11, Y9, Y5; \
	VMULPS      (R9)(DX*2), Y8, Y10; \
	VFMADD231PS Y10, Y9, Y6; \
	VMULPS      (R9)(BX*1), Y8, Y11; \
	VFMADD231PS Y11, Y9, Y7

// KFACTORS stores what the tokens' factors d·sc_j·dx_j are made of:
// sc_j as floats at scf, d broadcast at dv. Then it points R10, R11, AX at
// tokens 1..3's codes.
#define KFACTORS \
	VMOVQ        R10, X12; \
	VPMOVZXBD    X12, Y12; \
	VCVTDQ2PS    Y12, Y12; \
	VMOVUPS      Y12, scf-136(SP); \
	F16AT(0, X13); \
	VBROADCASTSS X13, Y13; \
	VMOVUPS      Y13, dv-104(SP); \
	LEAQ         (DI)(R12*1), R10; \
	LEAQ         (DI)(R12*2), R11; \
	LEAQ         (DI)(R14*1), AX

// K4HALF splits the 64 bytes at qoff(SI) into the codes of four
// sub-blocks: Y8, Y9 the low and high nibbles of the first 32 bytes, Y10,
// Y11 those of the next 32.
#define K4HALF(qoff) \
	VMOVDQU qoff(SI), Y8; \
	VMOVDQU qoff+32(SI), Y10; \
	VPSRLW  $4, Y8, Y9; \
	VPSRLW  $4, Y10, Y11; \
	VPAND   m0f-72(SP), Y8, Y8; \
	VPAND   m0f-72(SP), Y9, Y9; \
	VPAND   m0f-72(SP), Y10, Y10; \
	VPAND   m0f-72(SP), Y11, Y11

// K5BIT ors the fifth bit of each code of y from the qh vector in Y12:
// bit j of the qh byte at the same position belongs to sub-block j, and
// shifting by 4−j (left for j ≤ 4, right beyond) and masking with 0x10
// puts it in place, as dot_amd64.s's Q5KCHUNK does. Word shifts leak bits
// between bytes only outside that mask.
#define K5BIT(sh, n, y) \
	sh    $n, Y12, Y13; \
	VPAND m10-40(SP), Y13, Y13; \
	VPOR  Y13, y, y

// K5HALF is K4HALF for Q5_K: sub-blocks j0..j0+3 take qh bits j0..j0+3.
#define K5HALF(qoff, sh0, n0, sh1, n1, sh2, n2, sh3, n3) \
	K4HALF(qoff); \
	VMOVDQU 16(SI), Y12; \
	K5BIT(sh0, n0, Y8); \
	K5BIT(sh1, n1, Y9); \
	K5BIT(sh2, n2, Y10); \
	K5BIT(sh3, n3, Y11)

// KSUMS multiplies the four sub-blocks' codes in Y8..Y11 by one token's
// activations at xoff(xr) and reduces them to int32 sums in Y12: per
// 128-bit lane, the four sub-blocks' partial sums over that lane's half.
// The Rows kernel widens every product pair to int32 before its horizontal
// adds; here two rounds of int16 horizontal adds come first and one
// VPMADDWD widens what is left, fewer instructions for the same exact sums:
// a VPMADDUBSW word is at most 2·31·128 = 7936 in magnitude (Q5_K's codes
// reach 31, activation codes −128), four of them 31744 < 32768.
#define KSUMS(xr, xoff) \
	VPMADDUBSW xoff(xr), Y8, Y12; \
	VPMADDUBSW xoff+32(xr), Y9, Y13; \
	VPHADDW    Y13, Y12, Y12; \
	VPMADDUBSW xoff+64(xr), Y10, Y13; \
	VPMADDUBSW xoff+96(xr), Y11, Y14; \
	VPHADDW    Y14, Y13, Y13; \
	VPHADDW    Y13, Y12, Y12; \
	VPMADDWD   Y15, Y12, Y12

// KFIRST keeps a token's sums over the first half at r.
#define KFIRST(xr, r) \
	KSUMS(xr, 0); \
	VMOVDQU Y12, r

// KSECOND completes a token's super-block: its sums over the second half,
// joined with those over the first (at r) into [s0 … s7], the Rows kernel's
// layout, then the Rows kernel's acc += float(s)·((sc·dx)·d), with the
// token's eight activation scales at xdaddr.
#define KSECOND(xr, r, xdaddr, acc) \
	KSUMS(xr, 128); \
	VPERM2I128  $0x02, r, Y12, Y13; \
	VPERM2I128  $0x13, r, Y12, Y14; \
	VPADDD      Y14, Y13, Y13; \
	VCVTDQ2PS   Y13, Y13; \
	VMOVUPS     scf-136(SP), Y14; \
	VMULPS      xdaddr, Y14, Y14; \
	VMULPS      dv-104(SP), Y14, Y14; \
	VFMADD231PS Y13, Y14, acc

#define KFIRST4 \
	KFIRST(DI, r0-264(SP)); \
	KFIRST(R10, r1-232(SP)); \
	KFIRST(R11, r2-200(SP)); \
	KFIRST(AX, r3-168(SP))

#define KSECOND4 \
	KSECOND(DI, r0-264(SP), (R8), Y0); \
	KSECOND(R10, r1-232(SP), (R8)(DX*1), Y1); \
	KSECOND(R11, r2-200(SP), (R8)(DX*2), Y2); \
	KSECOND(AX, r3-168(SP), (R8)(BX*1), Y3)

// KSETUP loads the strides and constants both kernels use (nsb in CX).
#define KSETUP \
	MOVQ         CX, R12; \
	SHLQ         $8, R12; \
	LEAQ         (R12)(R12*2), R14; \
	MOVQ         CX, DX; \
	SHLQ         $5, DX; \
	LEAQ         (DX)(DX*2), BX; \
	ONES16_Y15; \
	MOVL         $0x0f0f0f0f, AX; \
	VMOVD        AX, X8; \
	VPBROADCASTD X8, Y8; \
	VMOVDQU      Y8, m0f-72(SP); \
	MOVL         $0x10101010, AX; \
	VMOVD        AX, X8; \
	VPBROADCASTD X8, Y8; \
	VMOVDQU      Y8, m10-40(SP)

// KROWSTART points DI, R8, R9 at the tokens' first super-block and clears
// the accumulators.
#define KROWSTART \
	MOVQ   xq+8(FP), DI; \
	MOVQ   xd+16(FP), R8; \
	MOVQ   xs+24(FP), R9; \
	MOVQ   nsb+32(FP), CX; \
	ZERO8

// KROWEND is the one-token kernel's ending per token, acc − mins then HSUM,
// and stores the four results.
#define KROWEND \
	VSUBPS Y4, Y0, Y0; \
	VSUBPS Y5, Y1, Y1; \
	VSUBPS Y6, Y2, Y2; \
	VSUBPS Y7, Y3, Y3; \
	HSUMK(Y0, X0, X8); \
	HSUMK(Y1, X1, X9); \
	HSUMK(Y2, X2, X10); \
	HSUMK(Y3, X3, X11); \
	MOVQ ostride+56(FP), AX; \
	SHLQ $2, AX; \
	STORE4K

// func gemm4Q4KAVX2(w *byte, xq *int8, xd, xs *float32, nsb, rows int, out *float32, ostride int)
//
// For rows consecutive Q4_K rows of nsb super-blocks and four tokens whose
// codes are xq + t·256·nsb, scales xd + t·8·nsb and block sums
// xs + t·8·nsb: out[t·ostride + r] = row r · token t, bit for bit
// dotQ4KRowsAVX2's.
TEXT ·gemm4Q4KAVX2(SB), NOSPLIT, $264-64
	MOVQ  w+0(FP), SI
	MOVQ  out+48(FP), R13
	MOVQ  nsb+32(FP), CX
	MOVQ  CX, AX
	IMULQ $144, AX
	IMULQ rows+40(FP), AX
	ADDQ  SI, AX
	MOVQ  AX, end-8(SP)
	KSETUP

g4krow:
	CMPQ SI, end-8(SP)
	JAE  g4kend
	KROWSTART

g4kloop:
	PREFETCHT0 PF(SI)
	PREFETCHT0 PF+64(SI)
	PREFETCHT0 PF+128(SI)
	KSCALES
	KMINS
	KFACTORS
	K4HALF(16)
	KFIRST4
	K4HALF(80)
	KSECOND4
	ADDQ $144, SI
	ADDQ $256, DI
	ADDQ $32, R8
	ADDQ $32, R9
	DECQ CX
	JNZ  g4kloop

	KROWEND
	JMP g4krow

g4kend:
	VZEROUPPER
	RET

// func gemm4Q5KAVX2(w *byte, xq *int8, xd, xs *float32, nsb, rows int, out *float32, ostride int)
//
// As gemm4Q4KAVX2 for Q5_K (f16 d, f16 dmin, scales[12], qh[32], qs[128]),
// bit for bit dotQ5KRowsAVX2's.
TEXT ·gemm4Q5KAVX2(SB), NOSPLIT, $264-64
	MOVQ  w+0(FP), SI
	MOVQ  out+48(FP), R13
	MOVQ  nsb+32(FP), CX
	MOVQ  CX, AX
	IMULQ $176, AX
	IMULQ rows+40(FP), AX
	ADDQ  SI, AX
	MOVQ  AX, end-8(SP)
	KSETUP

g5krow:
	CMPQ SI, end-8(SP)
	JAE  g5kend
	KROWSTART

g5kloop:
	PREFETCHT0 PF(SI)
	PREFETCHT0 PF+64(SI)
	PREFETCHT0 PF+128(SI)
	KSCALES
	KMINS
	KFACTORS
	K5HALF(48, VPSLLW, 4, VPSLLW, 3, VPSLLW, 2, VPSLLW, 1)
	KFIRST4
	K5HALF(112, VPSRLW, 0, VPSRLW, 1, VPSRLW, 2, VPSRLW, 3)
	KSECOND4
	ADDQ $176, SI
	ADDQ $256, DI
	ADDQ $32, R8
	ADDQ $32, R9
	DECQ CX
	JNZ  g5kloop

	KROWEND
	JMP g5krow

g5kend:
	VZEROUPPER
	RET

// Q6_K walks a super-block one 32-weight block at a time, and each block's
// codes (Y8..Y11 hold a 128-weight half) and group scales (Y12) serve the
// four tokens in turn, whose accumulators are Y0..Y3. Each token's block
// factors d·dx_b are formed once per super-block, eight in one VMULPS (the
// Rows kernel's VMULSS, lane by lane), and wait on the stack at dd0..dd3.
// Y4 = d, Y5 = bytes 32, Y6 = bytes 0x0F, Y7 = bytes 0x30; Y13 and Y14 are
// the tokens' scratch. GPRs as in the Q4_K kernel, less R9.

// Q6BLK4 runs one block (codes q, 0..63) for the four tokens: it builds
// the block's group-scale vector from the int16 scales at sa and sb, then
// turns q into the signed q−32 for Q6TOK.
#define Q6BLK4(q, xoff, doff, sa, sb) \
	VPBROADCASTW sa, Y12; \
	VPBROADCASTW sb, Y13; \
	VPBLENDD     $0xf0, Y13, Y12, Y12; \
	VPSUBB       Y5, q, q; \
	Q6TOK(q, xoff(DI), dd0-168+doff(SP), Y0); \
	Q6TOK(q, xoff(DI)(R12*1), dd1-136+doff(SP), Y1); \
	Q6TOK(q, xoff(DI)(R12*2), dd2-104+doff(SP), Y2); \
	Q6TOK(q, xoff(DI)(R14*1), dd3-72+doff(SP), Y3)

// Q6TOK is dot_amd64.s's Q6BLOCK for one token whose codes are at xaddr and
// block factor d·dx at dd. Q6BLOCK forms the pair sums Σ(q−32)·x as
// VPMADDUBSW(q, x) − VPMADDUBSW(32, x); here x's sign moves onto q−32 for
// one VPMADDUBSW(|x|, ±(q−32)), one multiply fewer for the same exact int16
// values: |x| ≤ 128 is unsigned, ±(q−32) within −32..32 fits a signed byte,
// and a pair sums to at most 2·128·32 = 8192. (Moving q's sign onto x
// instead would be cheaper still, but wrong for a code of −128, which the
// quantiser can give a block of tiny values.)
#define Q6TOK(q, xaddr, dd, acc) \
	VPABSB       xaddr, Y13; \
	VPSIGNB      xaddr, q, Y14; \
	VPMADDUBSW   Y14, Y13, Y13; \
	VPMADDWD     Y12, Y13, Y13; \
	VCVTDQ2PS    Y13, Y13; \
	VBROADCASTSS dd, Y14; \
	VFMADD231PS  Y13, Y14, acc

// Q6HALF4 is dot_amd64.s's Q6HALF with the four code vectors in Y8..Y11
// (in block order) and Y12, Y13 as scratch.
#define Q6HALF4(qloff, qhoff) \
	VMOVDQU qloff(SI), Y10; \
	VMOVDQU qloff+32(SI), Y11; \
	VMOVDQU qhoff(SI), Y12; \
	VPAND   Y6, Y10, Y8; \
	VPSLLW  $4, Y12, Y13; \
	VPAND   Y7, Y13, Y13; \
	VPOR    Y13, Y8, Y8; \
	VPAND   Y6, Y11, Y9; \
	VPSLLW  $2, Y12, Y13; \
	VPAND   Y7, Y13, Y13; \
	VPOR    Y13, Y9, Y9; \
	VPSRLW  $4, Y10, Y10; \
	VPAND   Y6, Y10, Y10; \
	VPAND   Y7, Y12, Y13; \
	VPOR    Y13, Y10, Y10; \
	VPSRLW  $4, Y11, Y11; \
	VPAND   Y6, Y11, Y11; \
	VPSRLW  $2, Y12, Y13; \
	VPAND   Y7, Y13, Y13; \
	VPOR    Y13, Y11, Y11

// func gemm4Q6KAVX2(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32, ostride int)
//
// As gemm4Q4KAVX2 for Q6_K (ql[128], qh[64], int8 scales[16], f16 d), bit
// for bit dotQ6KRowsAVX2's.
TEXT ·gemm4Q6KAVX2(SB), NOSPLIT, $168-56
	MOVQ  w+0(FP), SI
	MOVQ  out+40(FP), R13
	MOVQ  nsb+24(FP), CX
	MOVQ  CX, AX
	IMULQ $210, AX
	IMULQ rows+32(FP), AX
	ADDQ  SI, AX
	MOVQ  AX, end-40(SP)
	MOVQ  CX, R12
	SHLQ  $8, R12
	LEAQ  (R12)(R12*2), R14
	MOVQ  CX, DX
	SHLQ  $5, DX
	LEAQ  (DX)(DX*2), BX
	MOVL         $0x20202020, AX
	VMOVD        AX, X5
	VPBROADCASTD X5, Y5
	MOVL         $0x0f0f0f0f, AX
	VMOVD        AX, X6
	VPBROADCASTD X6, Y6
	MOVL         $0x30303030, AX
	VMOVD        AX, X7
	VPBROADCASTD X7, Y7

g6krow:
	CMPQ   SI, end-40(SP)
	JAE    g6kend
	MOVQ   xq+8(FP), DI
	MOVQ   xd+16(FP), R8
	MOVQ   nsb+24(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3

g6kloop:
	PREFETCHT0 PF(SI)
	PREFETCHT0 PF+64(SI)
	PREFETCHT0 PF+128(SI)
	PREFETCHT0 PF+192(SI)
	F16AT(208, X4)
	VBROADCASTSS X4, Y4               // d
	VMULPS       (R8), Y4, Y12
	VMOVUPS      Y12, dd0-168(SP)
	VMULPS       (R8)(DX*1), Y4, Y12
	VMOVUPS      Y12, dd1-136(SP)
	VMULPS       (R8)(DX*2), Y4, Y12
	VMOVUPS      Y12, dd2-104(SP)
	VMULPS       (R8)(BX*1), Y4, Y12
	VMOVUPS      Y12, dd3-72(SP)
	VPMOVSXBW    192(SI), Y12
	VMOVDQU      Y12, sc-32(SP)    // scales as int16

	Q6HALF4(0, 128)
	Q6BLK4(Y8, 0, 0, sc-32(SP), sc-30(SP))
	Q6BLK4(Y9, 32, 4, sc-28(SP), sc-26(SP))
	Q6BLK4(Y10, 64, 8, sc-24(SP), sc-22(SP))
	Q6BLK4(Y11, 96, 12, sc-20(SP), sc-18(SP))
	Q6HALF4(64, 160)
	Q6BLK4(Y8, 128, 16, sc-16(SP), sc-14(SP))
	Q6BLK4(Y9, 160, 20, sc-12(SP), sc-10(SP))
	Q6BLK4(Y10, 192, 24, sc-8(SP), sc-6(SP))
	Q6BLK4(Y11, 224, 28, sc-4(SP), sc-2(SP))

	ADDQ $210, SI
	ADDQ $256, DI
	ADDQ $32, R8
	DECQ CX
	JNZ  g6kloop

	HSUMK(Y0, X0, X13)
	HSUMK(Y1, X1, X13)
	HSUMK(Y2, X2, X13)
	HSUMK(Y3, X3, X13)
	MOVQ ostride+48(FP), AX
	SHLQ $2, AX
	STORE4K
	JMP  g6krow

g6kend:
	VZEROUPPER
	RET
