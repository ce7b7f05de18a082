#include "textflag.h"
#include "ahead_amd64.h"

// Packed IQ2_XXS and IQ2_XS kernels (layouts and arithmetic: packiq2.go),
// sixteen rows per ZMM lane, on AVX-512 VNNI, VBMI, GFNI and BITALG. The
// IQ2_XXS kernels (the last section) look their grid up in registers; the
// IQ2_XS kernels gather it. Per block of 32 weights and half h (even or
// odd rows) of a group, each IQ2_XS run of eight weights is one VPGATHERDQ
// of eight rows' entries of the grid plus 43 (R12 in the decode kernel,
// R15 in the prefill one), one VPSHUFBITQMB for its 64 sign bits and one
// merge-masked VPSUBB from 86 (Z31) for the negative weights, and one
// VPDPBUSD against the run's activation qword broadcast to every lane.
// The sign bytes are built once a block for all sixteen rows:
// VPMULTISHIFTQB spreads the 7-bit indices into bytes, VPANDD with 0x7f
// (Z30) clears the bit that came along, and VPOPCNTB, VPSLLW $7 and one
// VPTERNLOGD set bit 7 to the parity. The half sums are folded into one
// dword a row (IQ2FOLD), multiplied by 2·ls + 1 in int32 and then follow
// the GGUF-layout kernel's float operations: convert, times
// (f32(d)·0.125)·dx, one FMA into the block position's accumulator.
//
// K7 = all ones (a gather's mask is copied from it: KXNORW of a register
// would wait for the previous gather, which clears its mask), K3 = 0xAAAA
// (the odd rows' lanes), Z29 the sign bytes' VPMULTISHIFTQB control, Z30 =
// 0x7f bytes, Z31 = 86 bytes.

// iq2pBits: the VPSHUFBITQMB controls, run l and half h at 64·(2l+h):
// byte 8q+i takes bit 32h + 8l + i of qword q (the sign of weight i of the
// run for row 2q+h).
#define IQ2BITS(off, v) \
	DATA iq2pBits<>+off(SB)/8, $v; \
	DATA iq2pBits<>+off+8(SB)/8, $v; \
	DATA iq2pBits<>+off+16(SB)/8, $v; \
	DATA iq2pBits<>+off+24(SB)/8, $v; \
	DATA iq2pBits<>+off+32(SB)/8, $v; \
	DATA iq2pBits<>+off+40(SB)/8, $v; \
	DATA iq2pBits<>+off+48(SB)/8, $v; \
	DATA iq2pBits<>+off+56(SB)/8, $v

IQ2BITS(0, 0x0706050403020100)
IQ2BITS(64, 0x2726252423222120)
IQ2BITS(128, 0x0f0e0d0c0b0a0908)
IQ2BITS(192, 0x2f2e2d2c2b2a2928)
IQ2BITS(256, 0x1716151413121110)
IQ2BITS(320, 0x3736353433323130)
IQ2BITS(384, 0x1f1e1d1c1b1a1918)
IQ2BITS(448, 0x3f3e3d3c3b3a3938)
GLOBL iq2pBits<>(SB), RODATA|NOPTR, $512

DATA iq2pEighth<>+0(SB)/4, $0x3e000000
GLOBL iq2pEighth<>(SB), RODATA|NOPTR, $4
DATA iq2pOne<>+0(SB)/4, $1
GLOBL iq2pOne<>(SB), RODATA|NOPTR, $4

// IQ2PARITY completes the sign bytes in s (their index bits in 0…6, any bit
// 7) with bit 7 the parity of bits 0…6; t is scratch.
#define IQ2PARITY(s, t) \
	VPANDD     Z30, s, t; \
	VPOPCNTB   t, s; \
	VPSLLW     $7, s, s; \
	VPTERNLOGD $0xD8, Z30, t, s

// IQ2SIGN negates the weights of g (86 − w) whose sign bits, run l and
// half h of the sign bytes s, are set.
#define IQ2SIGN(l, h, s, g) \
	VPSHUFBITQMB iq2pBits<>+64*(2*l+h)(SB), s, K2; \
	VPSUBB       g, Z31, K2, g

// IQ2FOLD sets x to the block sums of the sixteen rows, lane r row r, from
// the even rows' half sums a (row 2k in lanes 2k, 2k+1) and the odd rows'
// b; y is scratch.
#define IQ2FOLD(a, b, x, y) \
	VPBLENDMD b, a, K3, x; \
	VPBLENDMD a, b, K3, y; \
	VPSHUFD   $0xB1, y, y; \
	VPADDD    y, x, x

// IQ2FMA converts p and adds it times dv·dx (dv = d/8 of the rows, daddr
// the token's block scale) to acc; sc is scratch.
#define IQ2FMA(p, dv, daddr, sc, acc) \
	VCVTDQ2PS   p, p; \
	VMULPS.BCST daddr, dv, sc; \
	VFMADD231PS p, sc, acc

// IQ2DV sets dv to the f16 scales at base widened, times 1/8.
#define IQ2DV(base, dv) \
	VCVTPH2PS        (base), dv; \
	VMULPS.BCST      iq2pEighth<>(SB), dv, dv

#define IQ2ZERO8(a0, a1, a2, a3, a4, a5, a6, a7) \
	VPXORD a0, a0, a0; \
	VPXORD a1, a1, a1; \
	VPXORD a2, a2, a2; \
	VPXORD a3, a3, a3; \
	VPXORD a4, a4, a4; \
	VPXORD a5, a5, a5; \
	VPXORD a6, a6, a6; \
	VPXORD a7, a7, a7

// IQ2HSUM sums a group's eight block accumulators into a0 in the
// GGUF-layout kernel's order (IQ2HSUM of dot_iq2_amd64.s):
// ((a0+a4) + (a1+a5)) + ((a2+a6) + (a3+a7)).
#define IQ2PHSUM(a0, a1, a2, a3, a4, a5, a6, a7) \
	VADDPS a4, a0, a0; \
	VADDPS a5, a1, a1; \
	VADDPS a6, a2, a2; \
	VADDPS a7, a3, a3; \
	VADDPS a1, a0, a0; \
	VADDPS a3, a2, a2; \
	VADDPS a2, a0, a0

// IQ2G4DOT adds the signed weights of run l of both halves (Z26 the even
// rows', Z27 the odd rows') times the four tokens' activation qwords at
// xoff to their half sums Z18…Z25 (token t: Z18+2t, Z19+2t).
#define IQ2G4DOT(xoff) \
	VPBROADCASTQ xoff(DI), Z28; \
	VPDPBUSD     Z28, Z26, Z18; \
	VPDPBUSD     Z28, Z27, Z19; \
	VPBROADCASTQ xoff(R11), Z28; \
	VPDPBUSD     Z28, Z26, Z20; \
	VPDPBUSD     Z28, Z27, Z21; \
	VPBROADCASTQ xoff(R12), Z28; \
	VPDPBUSD     Z28, Z26, Z22; \
	VPDPBUSD     Z28, Z27, Z23; \
	VPBROADCASTQ xoff(R14), Z28; \
	VPDPBUSD     Z28, Z26, Z24; \
	VPDPBUSD     Z28, Z27, Z25

// IQ2G4INIT points DI, R11, R12, R14 at the four tokens' codes, R9 at m8,
// R10 at the block scales and SI at the group (saved at gp(SP)), CX the
// super-blocks, and clears the sixteen accumulators.
#define IQ2G4INIT(gp) \
	MOVQ   gp(SP), SI; \
	MOVQ   xq+8(FP), DI; \
	MOVQ   nsb+32(FP), AX; \
	SHLQ   $8, AX; \
	LEAQ   (DI)(AX*1), R11; \
	LEAQ   (R11)(AX*1), R12; \
	LEAQ   (R12)(AX*1), R14; \
	MOVQ   m8+16(FP), R9; \
	MOVQ   xd+24(FP), R10; \
	MOVQ   nsb+32(FP), CX; \
	IQ2ZERO8(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7); \
	IQ2ZERO8(Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)

// IQ2G4NEXT steps the pointers to the next super-block (bb its bytes).
#define IQ2G4NEXT(bb) \
	ADDQ $bb, SI; \
	ADDQ $256, DI; \
	ADDQ $256, R11; \
	ADDQ $256, R12; \
	ADDQ $256, R14; \
	ADDQ $32, R9; \
	ADDQ $32, R10

// IQ2G4SAVE saves the sixteen accumulators of the first pass.
#define IQ2G4SAVE \
	VMOVUPS Z0, 0(SP); \
	VMOVUPS Z1, 64(SP); \
	VMOVUPS Z2, 128(SP); \
	VMOVUPS Z3, 192(SP); \
	VMOVUPS Z4, 256(SP); \
	VMOVUPS Z5, 320(SP); \
	VMOVUPS Z6, 384(SP); \
	VMOVUPS Z7, 448(SP); \
	VMOVUPS Z8, 512(SP); \
	VMOVUPS Z9, 576(SP); \
	VMOVUPS Z10, 640(SP); \
	VMOVUPS Z11, 704(SP); \
	VMOVUPS Z12, 768(SP); \
	VMOVUPS Z13, 832(SP); \
	VMOVUPS Z14, 896(SP); \
	VMOVUPS Z15, 960(SP)

// IQ2G4STORE sums token t's accumulators of blocks 0…3 (saved at frame
// offset 256t) and 4…7 (a4…a7) as IQ2PHSUM does and stores them at dst.
#define IQ2G4STORE(t, a4, a5, a6, a7, dst) \
	VMOVUPS 256*t(SP), Z21; \
	VMOVUPS 256*t+64(SP), Z22; \
	VMOVUPS 256*t+128(SP), Z23; \
	VMOVUPS 256*t+192(SP), Z24; \
	IQ2PHSUM(Z21, Z22, Z23, Z24, a4, a5, a6, a7); \
	VMOVUPS Z21, dst

// IQ2G4END stores the four tokens' sums of a group and steps to the next.
#define IQ2G4END(gp) \
	MOVQ ostride+56(FP), AX; \
	SHLQ $2, AX; \
	IQ2G4STORE(0, Z0, Z1, Z2, Z3, (R13)); \
	IQ2G4STORE(1, Z4, Z5, Z6, Z7, (R13)(AX*1)); \
	IQ2G4STORE(2, Z8, Z9, Z10, Z11, (R13)(AX*2)); \
	LEAQ (AX)(AX*2), AX; \
	IQ2G4STORE(3, Z12, Z13, Z14, Z15, (R13)(AX*1)); \
	ADDQ $64, R13; \
	MOVQ SI, gp(SP); \
	DECQ R8


// ---------------------------------------------------------------------------
// IQ2_XS. Z28 = 43 bytes in the decode kernel, Z29 the sign bytes'
// VPMULTISHIFTQB control (bytes 0…3 of each qword from one half's words,
// bit offsets 9, 25, 41, 57; bytes 4…7 likewise from the other half, merged
// under K4 = 0xF0…F0). A block's two halves of sixteen weights take
// different scales, so each half's sums start from its own −43·Σx (two
// VPDPBUSD of 43s with the activation qwords, negated) and are folded and
// scaled apart: p = (2·lo + 1)·p₀₁ + (2·hi + 1)·p₂₃, exact.

DATA iq2pXSShift<>+0(SB)/8, $0x3929190939291909
GLOBL iq2pXSShift<>(SB), RODATA|NOPTR, $8
DATA iq2pIdx<>+0(SB)/4, $0x1ff
GLOBL iq2pIdx<>(SB), RODATA|NOPTR, $4
DATA iq2pLo<>+0(SB)/4, $0x1e
GLOBL iq2pLo<>(SB), RODATA|NOPTR, $4
DATA iq2p43<>+0(SB)/4, $0x2b2b2b2b
GLOBL iq2p43<>(SB), RODATA|NOPTR, $4

#define IQ2XSCONSTS \
	MOVL         $0x7f7f7f7f, AX; \
	VPBROADCASTD AX, Z30; \
	MOVL         $0x56565656, AX; \
	VPBROADCASTD AX, Z31; \
	VPBROADCASTQ iq2pXSShift<>(SB), Z29; \
	MOVL         $0xAAAA, AX; \
	KMOVW        AX, K3; \
	MOVQ         $0xf0f0f0f0f0f0f0f0, AX; \
	KMOVQ        AX, K4; \
	KXNORW       K7, K7, K7

// IQ2XSSIGNS sets s to the sign bytes of the block at off(base).
#define IQ2XSSIGNS(off, base, s, t) \
	VPMULTISHIFTQB off(base), Z29, s; \
	VPMULTISHIFTQB off+64(base), Z29, K4, s; \
	IQ2PARITY(s, t)

// IQ2XSLOAD sets g to the grid entries plus 43 of run l, half h of the
// block at off(base) (grid at tab); y is the index register.
#define IQ2XSLOAD(off, base, tab, l, h, y, g) \
	VPMOVZXWD    off+64*h+16*l(base), y; \
	VPANDD.BCST  iq2pIdx<>(SB), y, y; \
	KMOVW        K7, K1; \
	VPXORD       g, g, g; \
	VPGATHERDQ   (tab)(y*8), K1, g

// IQ2XSNEG sets a, b to −43·Σx over the activation qwords xa, xb (c43 the
// 43s) in pair form: lanes 2k, 2k+1 of each together the whole sum.
#define IQ2XSNEG(xa, xb, c43, a, b) \
	VPXORD    b, b, b; \
	VPDPBUSD  xa, c43, b; \
	VPDPBUSD  xb, c43, b; \
	VPXORD    a, a, a; \
	VPSUBD    b, a, a; \
	VMOVDQA64 a, b

// IQ2XSRUN adds run l of the block at off(base) (one token's activation
// qword in x) to the half sums a, b.
#define IQ2XSRUN(off, base, l, x, a, b) \
	IQ2XSLOAD(off, base, R12, l, 0, Y18, Z19); \
	IQ2SIGN(l, 0, Z20, Z19); \
	VPDPBUSD x, Z19, a; \
	IQ2XSLOAD(off, base, R12, l, 1, Y18, Z19); \
	IQ2SIGN(l, 1, Z20, Z19); \
	VPDPBUSD x, Z19, b

// IQ2XSSCALES sets lo, hi to 2·ls + 1 of the two halves of the block
// whose scale bytes are at saddr, lane r row r.
#define IQ2XSSCALES(saddr, lo, hi) \
	VPMOVZXBD   saddr, lo; \
	VPSRLD      $3, lo, hi; \
	VPORD.BCST  iq2pOne<>(SB), hi, hi; \
	VPSLLD      $1, lo, lo; \
	VPANDD.BCST iq2pLo<>(SB), lo, lo; \
	VPORD.BCST  iq2pOne<>(SB), lo, lo

// IQ2XSBLK is block j of one token for the group at base (d/8 in dv) into
// acc.
#define IQ2XSBLK(j, base, dv, acc) \
	IQ2XSSIGNS(32+144*j, base, Z20, Z21); \
	VPBROADCASTQ 32*j(DI), Z24; \
	VPBROADCASTQ 32*j+8(DI), Z25; \
	IQ2XSNEG(Z24, Z25, Z28, Z22, Z23); \
	IQ2XSRUN(32+144*j, base, 0, Z24, Z22, Z23); \
	IQ2XSRUN(32+144*j, base, 1, Z25, Z22, Z23); \
	VPBROADCASTQ 32*j+16(DI), Z24; \
	VPBROADCASTQ 32*j+24(DI), Z25; \
	IQ2XSNEG(Z24, Z25, Z28, Z26, Z27); \
	IQ2XSRUN(32+144*j, base, 2, Z24, Z26, Z27); \
	IQ2XSRUN(32+144*j, base, 3, Z25, Z26, Z27); \
	IQ2FOLD(Z22, Z23, Z19, Z21); \
	IQ2FOLD(Z26, Z27, Z24, Z25); \
	IQ2XSSCALES(32+144*j+128(base), Z21, Z20); \
	VPMULLD Z21, Z19, Z19; \
	VPMULLD Z20, Z24, Z24; \
	VPADDD  Z24, Z19, Z19; \
	IQ2FMA(Z19, dv, 4*j(R10), Z20, acc)

// IQ2XSG4NEG sets the four tokens' half sums Z18…Z25 to −43·Σx over runs
// l, l+1 of block j (Z26 the 43s, Z27 scratch).
#define IQ2XSG4NEG1(xr, off, a, b) \
	VPBROADCASTQ off(xr), Z27; \
	VPXORD       b, b, b; \
	VPDPBUSD     Z27, Z26, b; \
	VPBROADCASTQ off+8(xr), Z27; \
	VPDPBUSD     Z27, Z26, b; \
	VPXORD       a, a, a; \
	VPSUBD       b, a, a; \
	VMOVDQA64    a, b

#define IQ2XSG4NEG(j, l) \
	VPBROADCASTD iq2p43<>(SB), Z26; \
	IQ2XSG4NEG1(DI, 32*j+8*l, Z18, Z19); \
	IQ2XSG4NEG1(R11, 32*j+8*l, Z20, Z21); \
	IQ2XSG4NEG1(R12, 32*j+8*l, Z22, Z23); \
	IQ2XSG4NEG1(R14, 32*j+8*l, Z24, Z25)

// IQ2XSG4RUN is run l of block j for the four tokens (signs in Z17).
#define IQ2XSG4RUN(j, l) \
	IQ2XSLOAD(32+144*j, SI, R15, l, 0, Y28, Z26); \
	IQ2SIGN(l, 0, Z17, Z26); \
	IQ2XSLOAD(32+144*j, SI, R15, l, 1, Y28, Z27); \
	IQ2SIGN(l, 1, Z17, Z27); \
	IQ2G4DOT(32*j+8*l)

// IQ2XSG4HALF0 folds token t's half sums a, b of runs 0, 1, scales them
// by 2·lo + 1 (Z28) and saves them at frame offset 1024+64t.
#define IQ2XSG4HALF0(a, b, t) \
	IQ2FOLD(a, b, Z26, Z27); \
	VPMULLD   Z28, Z26, Z26; \
	VMOVDQU64 Z26, 1024+64*t(SP)

// IQ2XSG4HALF1 folds token t's half sums of runs 2, 3, scales them by
// 2·hi + 1 (Z28), adds the saved ones and adds the block sum into acc.
#define IQ2XSG4HALF1(a, b, t, daddr, acc) \
	IQ2FOLD(a, b, Z26, Z27); \
	VPMULLD Z28, Z26, Z26; \
	VPADDD  1024+64*t(SP), Z26, Z26; \
	IQ2FMA(Z26, Z16, daddr, Z27, acc)

// IQ2XSBLK4 is block j for four tokens: their accumulators a0…a3; block
// scales from R10, the tokens DX bytes apart (BX = 3·DX).
#define IQ2XSBLK4(j, a0, a1, a2, a3) \
	IQ2XSG4NEG(j, 0); \
	IQ2XSSIGNS(32+144*j, SI, Z17, Z26); \
	IQ2XSG4RUN(j, 0); \
	IQ2XSG4RUN(j, 1); \
	IQ2XSSCALES(32+144*j+128(SI), Z28, Z27); \
	IQ2XSG4HALF0(Z18, Z19, 0); \
	IQ2XSG4HALF0(Z20, Z21, 1); \
	IQ2XSG4HALF0(Z22, Z23, 2); \
	IQ2XSG4HALF0(Z24, Z25, 3); \
	IQ2XSG4NEG(j, 2); \
	IQ2XSG4RUN(j, 2); \
	IQ2XSG4RUN(j, 3); \
	IQ2XSSCALES(32+144*j+128(SI), Z27, Z28); \
	IQ2XSG4HALF1(Z18, Z19, 0, 4*j(R10), a0); \
	IQ2XSG4HALF1(Z20, Z21, 1, 4*j(R10)(DX*1), a1); \
	IQ2XSG4HALF1(Z22, Z23, 2, 4*j(R10)(DX*2), a2); \
	IQ2XSG4HALF1(Z24, Z25, 3, 4*j(R10)(BX*1), a3)

// func rowsIQ2XSx16VNNI(p *byte, xq *int8, xd *float32, nsb, groups int, out *float32)
//
// out[r] = row r · x for groups·16 packed rows of nsb super-blocks (no m8:
// the half sums start from −43·Σx of their own weights). SI weights, DI
// codes, R10 block scales (each at the current super-block), CX
// super-blocks left, R8 groups left, R13 out; groups two at a time (R11
// the second's weights, BX the bytes of a group), Z0…Z7 the first's block
// accumulators and Z8…Z15 the second's, Z16, Z17 their d/8.
TEXT ·rowsIQ2XSx16VNNI(SB), NOSPLIT, $0-48
	MOVQ  p+0(FP), SI
	MOVQ  out+40(FP), R13
	MOVQ  groups+32(FP), R8
	MOVQ  nsb+24(FP), BX
	IMULQ $1184, BX
	LEAQ  ·iq2xsGrid43(SB), R12
	IQ2XSCONSTS
	VPBROADCASTD iq2p43<>(SB), Z28

iq2xsrpair:
	CMPQ R8, $2
	JLT  iq2xsrgroup
	LEAQ (SI)(BX*1), R11
	MOVQ xq+8(FP), DI
	MOVQ xd+16(FP), R10
	MOVQ nsb+24(FP), CX
	IQ2ZERO8(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	IQ2ZERO8(Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)

iq2xsrploop:
	IQ2DV(SI, Z16)
	IQ2DV(R11, Z17)
	PFL8(0)
	PFLB8(0)
	IQ2XSBLK(0, SI, Z16, Z0)
	IQ2XSBLK(0, R11, Z17, Z8)
	IQ2XSBLK(1, SI, Z16, Z1)
	IQ2XSBLK(1, R11, Z17, Z9)
	IQ2XSBLK(2, SI, Z16, Z2)
	IQ2XSBLK(2, R11, Z17, Z10)
	IQ2XSBLK(3, SI, Z16, Z3)
	IQ2XSBLK(3, R11, Z17, Z11)
	PFL8(512)
	PFLB8(512)
	PFL2(1024)
	PFLB2(1024)
	PFL(1152)
	PFLB(1152)
	IQ2XSBLK(4, SI, Z16, Z4)
	IQ2XSBLK(4, R11, Z17, Z12)
	IQ2XSBLK(5, SI, Z16, Z5)
	IQ2XSBLK(5, R11, Z17, Z13)
	IQ2XSBLK(6, SI, Z16, Z6)
	IQ2XSBLK(6, R11, Z17, Z14)
	IQ2XSBLK(7, SI, Z16, Z7)
	IQ2XSBLK(7, R11, Z17, Z15)
	ADDQ $1184, SI
	ADDQ $1184, R11
	ADDQ $256, DI
	ADDQ $32, R10
	DECQ CX
	JNZ  iq2xsrploop

	IQ2PHSUM(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	IQ2PHSUM(Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)
	VMOVUPS Z0, (R13)
	VMOVUPS Z8, 64(R13)
	ADDQ    $128, R13
	MOVQ    R11, SI
	SUBQ    $2, R8
	JMP     iq2xsrpair

iq2xsrgroup:
	TESTQ R8, R8
	JEQ   iq2xsrend
	MOVQ  xq+8(FP), DI
	MOVQ  xd+16(FP), R10
	MOVQ  nsb+24(FP), CX
	IQ2ZERO8(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)

iq2xsrloop:
	IQ2DV(SI, Z16)
	PFL8(0)
	IQ2XSBLK(0, SI, Z16, Z0)
	IQ2XSBLK(1, SI, Z16, Z1)
	IQ2XSBLK(2, SI, Z16, Z2)
	IQ2XSBLK(3, SI, Z16, Z3)
	PFL8(512)
	PFL2(1024)
	PFL(1152)
	IQ2XSBLK(4, SI, Z16, Z4)
	IQ2XSBLK(5, SI, Z16, Z5)
	IQ2XSBLK(6, SI, Z16, Z6)
	IQ2XSBLK(7, SI, Z16, Z7)
	ADDQ $1184, SI
	ADDQ $256, DI
	ADDQ $32, R10
	DECQ CX
	JNZ  iq2xsrloop

	IQ2PHSUM(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	VMOVUPS Z0, (R13)
	ADDQ    $64, R13
	DECQ    R8
	JMP     iq2xsrgroup

iq2xsrend:
	VZEROUPPER
	RET

// func gemm4IQ2XSx16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32, ostride int)
//
// Not NOSPLIT: its frame is more than a nosplit function may take.
// out[t·ostride + r] = row r · token t for groups·16 packed rows and four
// tokens whose codes are xq + t·256·nsb and block scales xd + t·8·nsb (m8
// is not read; the argument keeps the prefill kernels' shape). Two passes
// over a group's super-blocks, as gemm4TQ2x16VNNI (packtq_amd64.s): blocks
// 0…3 (whose accumulators then wait in the frame) and 4…7; token t's block
// q in Z(4t+q). R11, R12, R14 the codes of tokens 1…3, DX the bytes per
// token of the scales, R15 the grid. Frame: the first pass's accumulators
// at 0…1023, a block's scaled sums of runs 0, 1 per token at 1024+64t, the
// group at 1280.
TEXT ·gemm4IQ2XSx16VNNI(SB), 0, $1288-64
	MOVQ p+0(FP), AX
	MOVQ AX, 1280(SP)
	MOVQ nsb+32(FP), DX
	SHLQ $5, DX                // 8 blocks · 4 bytes per super-block
	LEAQ (DX)(DX*2), BX
	MOVQ out+48(FP), R13
	MOVQ groups+40(FP), R8
	LEAQ ·iq2xsGrid43(SB), R15
	IQ2XSCONSTS

iq2xsggroup:
	TESTQ R8, R8
	JEQ   iq2xsgend
	IQ2G4INIT(1280)

iq2xsgloop0:
	IQ2DV(SI, Z16)
	IQ2XSBLK4(0, Z0, Z4, Z8, Z12)
	IQ2XSBLK4(1, Z1, Z5, Z9, Z13)
	IQ2XSBLK4(2, Z2, Z6, Z10, Z14)
	IQ2XSBLK4(3, Z3, Z7, Z11, Z15)
	IQ2G4NEXT(1184)
	DECQ CX
	JNZ  iq2xsgloop0

	IQ2G4SAVE
	IQ2G4INIT(1280)

iq2xsgloop1:
	IQ2DV(SI, Z16)
	IQ2XSBLK4(4, Z0, Z4, Z8, Z12)
	IQ2XSBLK4(5, Z1, Z5, Z9, Z13)
	IQ2XSBLK4(6, Z2, Z6, Z10, Z14)
	IQ2XSBLK4(7, Z3, Z7, Z11, Z15)
	IQ2G4NEXT(1184)
	DECQ CX
	JNZ  iq2xsgloop1

	IQ2G4END(1280)
	JMP iq2xsggroup

iq2xsgend:
	VZEROUPPER
	RET

// ---------------------------------------------------------------------------
// IQ2_XXS without gathers (layout: packiq2.go). Per block of 32 weights, all
// sixteen rows at once: X_k (k = 0…3), byte 4r+l for row r's run l, is the
// 6-bit index of weights 2k and 2k+1 of that run: their grid levels (codes
// 0, 1, 2 for 8, 25, 43) from iq2xxsCodes[256k + grid index] (two masked
// VPERMI2B, grid index < 128 and ≥ 128: the first 64 bytes of each half in
// Z9…Z16, the rest from memory), their two signs merged into the bits the
// table left free (VPTERNLOGD) from the sign bytes G1 (signs 0…5) and G2
// (signs 6, 7): one VGF2P8AFFINEQB each on the 7-bit sign indices spread by
// VPMULTISHIFTQB, the eighth sign being the parity of the seven. Then
// weight position p of the four runs of every row is one VPERMB of X_{p/2}
// through the 64-byte level table of p (iq2xxsLevels: 43 ± m), and one
// VPDPBUSD against the dword (x[p], x[8+p], x[16+p], x[24+p]) of the block's
// activations, broadcast: lane r sums row r, no fold. The activations are
// transposed so once a super-block and token (VPERMB by iq2rT) into the
// frame, with each block's −43·Σx = 43·m8/8 after them. The sum is kept in
// two chains (even and odd positions: VPDPBUSD's latency), and its scale
// 2·ls + 1 is one VPERMPS of the aux word (whose low four bits it is,
// packiq2.go) through iq2rScale: float(p) = float(sum)·float(2·ls + 1),
// exact as |p| < 2²⁴, the very float the int32 product converts to.
//
// Vector operations a block and token: 8 VPERMI2B, 8 VPERMB, VPMULTISHIFTQB
// and VPERMPS (port 5); 8 VPDPBUSD, 2 VGF2P8AFFINEQB, VPMOVB2M, KNOTQ,
// VCVTDQ2PS (port 0); 3 VPTERNLOGD, VPORD, VPADDD, 2 VMULPS, the FMA
// (either): 40, against about 100 for the gather kernel it replaced (8
// VPGATHERDQ at ~7 vector-port uops each, their index widening, the sign
// masks and merges, the lane-pair fold). Measured against that kernel on
// the same matrix (3072 columns, alternated in one run, 15 rounds, median
// ratio): decode 1.29× (1 thread) and 1.22× (2 threads) on 1 MiB in L2,
// 1.36× and 1.39× on 128 MiB in DRAM (2 threads 13.1 → 18.0 GB/s); the
// four-token prefill kernel 1.25–1.32×. BenchmarkIQ2Triad: 0.50 (1 thread)
// and 0.52 (2 threads) of the STREAM triad, range 0.49–0.56 (the gather
// kernel 0.35–0.45). Tried and not kept: one VPDPBUSD chain (same or
// slower), a loop over the blocks instead of unrolling them and two groups
// in flight sharing the transposed activations (both 0.92–0.99× of this),
// VPMULLD for the scale (two ops more, within the noise).

// iq2rT: byte 32b + 4p + l of a transposed pair of blocks takes activation
// 32b + 8l + p.
DATA iq2rT<>+0(SB)/8, $0x1911090118100800
DATA iq2rT<>+8(SB)/8, $0x1b130b031a120a02
DATA iq2rT<>+16(SB)/8, $0x1d150d051c140c04
DATA iq2rT<>+24(SB)/8, $0x1f170f071e160e06
DATA iq2rT<>+32(SB)/8, $0x3931292138302820
DATA iq2rT<>+40(SB)/8, $0x3b332b233a322a22
DATA iq2rT<>+48(SB)/8, $0x3d352d253c342c24
DATA iq2rT<>+56(SB)/8, $0x3f372f273e362e26
GLOBL iq2rT<>(SB), RODATA|NOPTR, $64

// iq2rG1, iq2rG2: VGF2P8AFFINEQB matrices (output bit i from byte 7−i):
// G1 bit i = sign index bit i (i = 0…5); G2 bit 0 = bit 6, bit 1 = the
// parity of bits 0…6 (the eighth sign).
DATA iq2rG1<>+0(SB)/8, $0x0102040810200000
GLOBL iq2rG1<>(SB), RODATA|NOPTR, $8
DATA iq2rG2<>+0(SB)/8, $0x407f000000000000
GLOBL iq2rG2<>(SB), RODATA|NOPTR, $8

// iq2rM: the sign bits X_0, X_1, X_2 take from G1.
DATA iq2rM<>+0(SB)/4, $0x03030303
DATA iq2rM<>+4(SB)/4, $0x0c0c0c0c
DATA iq2rM<>+8(SB)/4, $0x30303030
GLOBL iq2rM<>(SB), RODATA|NOPTR, $12
// iq2rShift: the sign indices' VPMULTISHIFTQB control (bit offsets 4,
// 11, 18, 25 of each dword); iq2rScale: 2·ls + 1 as float32, ls = 0…15.
DATA iq2rShift<>+0(SB)/8, $0x39322b2419120b04
GLOBL iq2rShift<>(SB), RODATA|NOPTR, $8
DATA iq2rScale<>+0(SB)/4, $1.0
DATA iq2rScale<>+4(SB)/4, $3.0
DATA iq2rScale<>+8(SB)/4, $5.0
DATA iq2rScale<>+12(SB)/4, $7.0
DATA iq2rScale<>+16(SB)/4, $9.0
DATA iq2rScale<>+20(SB)/4, $11.0
DATA iq2rScale<>+24(SB)/4, $13.0
DATA iq2rScale<>+28(SB)/4, $15.0
DATA iq2rScale<>+32(SB)/4, $17.0
DATA iq2rScale<>+36(SB)/4, $19.0
DATA iq2rScale<>+40(SB)/4, $21.0
DATA iq2rScale<>+44(SB)/4, $23.0
DATA iq2rScale<>+48(SB)/4, $25.0
DATA iq2rScale<>+52(SB)/4, $27.0
DATA iq2rScale<>+56(SB)/4, $29.0
DATA iq2rScale<>+60(SB)/4, $31.0
GLOBL iq2rScale<>(SB), RODATA|NOPTR, $64
DATA iq2r43<>+0(SB)/4, $43
GLOBL iq2r43<>(SB), RODATA|NOPTR, $4

// IQ2RCONSTS loads the code tables' first halves (codes at R12) into
// Z9…Z16, the sign control into Z17 and the transposition into Z18.
#define IQ2RCONSTS \
	VMOVDQU64    0(R12), Z9; \
	VMOVDQU64    256(R12), Z10; \
	VMOVDQU64    512(R12), Z11; \
	VMOVDQU64    768(R12), Z12; \
	VMOVDQU64    128(R12), Z13; \
	VMOVDQU64    384(R12), Z14; \
	VMOVDQU64    640(R12), Z15; \
	VMOVDQU64    896(R12), Z16; \
	VPBROADCASTQ iq2rShift<>(SB), Z17; \
	VMOVDQU64    iq2rT<>(SB), Z18

// IQ2RPREP transposes one token's super-block of codes at xb into the
// frame at dst (block j at dst+32j) and puts its blocks' 43·m8/8 (m8 at
// mb) at dst+256; Z19 is scratch.
#define IQ2RPREP(xb, mb, dst) \
	VPERMB      0 xb, Z18, Z19; \
	VMOVDQU64   Z19, dst(SP); \
	VPERMB      64 xb, Z18, Z19; \
	VMOVDQU64   Z19, dst+64(SP); \
	VPERMB      128 xb, Z18, Z19; \
	VMOVDQU64   Z19, dst+128(SP); \
	VPERMB      192 xb, Z18, Z19; \
	VMOVDQU64   Z19, dst+192(SP); \
	VMOVDQU32   0 mb, Y19; \
	VPMULLD.BCST iq2r43<>(SB), Y19, Y19; \
	VPSRAD      $3, Y19, Y19; \
	VMOVDQU32   Y19, dst+256(SP)

// IQ2RCODES sets Z20…Z23 to X_0…X_3 of the block at off(base) (code
// tables at R12) and Z19 to its aux words; Z24, Z25 scratch.
#define IQ2RCODES(off, base) \
	VMOVDQU64       off(base), Z20; \
	VPMOVB2M        Z20, K1; \
	KNOTQ           K1, K2; \
	VMOVDQU64       off(base), Z21; \
	VMOVDQU64       off(base), Z22; \
	VMOVDQU64       off(base), Z23; \
	VPERMI2B        64(R12), Z9, K2, Z20; \
	VPERMI2B        192(R12), Z13, K1, Z20; \
	VPERMI2B        320(R12), Z10, K2, Z21; \
	VPERMI2B        448(R12), Z14, K1, Z21; \
	VPERMI2B        576(R12), Z11, K2, Z22; \
	VPERMI2B        704(R12), Z15, K1, Z22; \
	VPERMI2B        832(R12), Z12, K2, Z23; \
	VPERMI2B        960(R12), Z16, K1, Z23; \
	VMOVDQU64       off+64(base), Z19; \
	VPMULTISHIFTQB  Z19, Z17, Z24; \
	VGF2P8AFFINEQB.BCST $0, iq2rG1<>(SB), Z24, Z25; \
	VGF2P8AFFINEQB.BCST $0, iq2rG2<>(SB), Z24, Z24; \
	VPTERNLOGD.BCST $0xF8, iq2rM<>+0(SB), Z25, Z20; \
	VPTERNLOGD.BCST $0xF8, iq2rM<>+4(SB), Z25, Z21; \
	VPTERNLOGD.BCST $0xF8, iq2rM<>+8(SB), Z25, Z22; \
	VPORD           Z24, Z23, Z23

// IQ2RPOS adds weight position p of a block (index vector x, level table
// at tab(lv)) times the activation dword at xoff in the frame to s.
#define IQ2RPOS(x, lv, tab, xoff, w, s) \
	VPERMB        tab(lv), x, w; \
	VPDPBUSD.BCST xoff(SP), w, s

// IQ2RBLK is block j of one token for the group at base (d/8 in dv,
// levels at R11, the token's frame at 0) into acc.
#define IQ2RBLK(j, base, dv, acc) \
	IQ2RCODES(32+128*j, base); \
	VPBROADCASTD 256+4*j(SP), Z28; \
	VPXORD       Z29, Z29, Z29; \
	IQ2RPOS(Z20, R11, 0, 32*j, Z26, Z28); \
	IQ2RPOS(Z20, R11, 64, 32*j+4, Z27, Z29); \
	IQ2RPOS(Z21, R11, 128, 32*j+8, Z26, Z28); \
	IQ2RPOS(Z21, R11, 192, 32*j+12, Z27, Z29); \
	IQ2RPOS(Z22, R11, 256, 32*j+16, Z26, Z28); \
	IQ2RPOS(Z22, R11, 320, 32*j+20, Z27, Z29); \
	IQ2RPOS(Z23, R11, 0, 32*j+24, Z26, Z28); \
	IQ2RPOS(Z23, R11, 64, 32*j+28, Z27, Z29); \
	VPADDD       Z29, Z28, Z28; \
	VPERMPS      iq2rScale<>(SB), Z19, Z30; \
	VCVTDQ2PS    Z28, Z28; \
	VMULPS       Z30, Z28, Z28; \
	VMULPS.BCST  4*j(R10), dv, Z31; \
	VFMADD231PS  Z28, Z31, acc

// func rowsIQ2XXSx16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32)
//
// out[r] = row r · x for groups·16 packed rows of nsb super-blocks. SI
// weights, DI codes, R9 m8, R10 block scales (each at the current
// super-block), CX super-blocks left, R8 groups left, R13 out, R12 the
// code tables, R11 the level tables; Z0…Z7 the block accumulators, Z8 d/8.
// Frame: the super-block's transposed activations at 0, 43·m8/8 at 256.
TEXT ·rowsIQ2XXSx16VNNI(SB), NOSPLIT, $288-56
	MOVQ p+0(FP), SI
	MOVQ out+48(FP), R13
	MOVQ groups+40(FP), R8
	LEAQ ·iq2xxsCodes(SB), R12
	LEAQ ·iq2xxsLevels(SB), R11
	IQ2RCONSTS

iq2rrgroup:
	TESTQ R8, R8
	JEQ   iq2rrend
	MOVQ  xq+8(FP), DI
	MOVQ  m8+16(FP), R9
	MOVQ  xd+24(FP), R10
	MOVQ  nsb+32(FP), CX
	IQ2ZERO8(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)

iq2rrloop:
	IQ2RPREP((DI), (R9), 0)
	IQ2DV(SI, Z8)
	PFL8(0)
	IQ2RBLK(0, SI, Z8, Z0)
	IQ2RBLK(1, SI, Z8, Z1)
	IQ2RBLK(2, SI, Z8, Z2)
	IQ2RBLK(3, SI, Z8, Z3)
	PFL8(512)
	PFL(1024)
	IQ2RBLK(4, SI, Z8, Z4)
	IQ2RBLK(5, SI, Z8, Z5)
	IQ2RBLK(6, SI, Z8, Z6)
	IQ2RBLK(7, SI, Z8, Z7)
	ADDQ $1056, SI
	ADDQ $256, DI
	ADDQ $32, R9
	ADDQ $32, R10
	DECQ CX
	JNZ  iq2rrloop

	IQ2PHSUM(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	VMOVUPS Z0, (R13)
	ADDQ    $64, R13
	DECQ    R8
	JMP     iq2rrgroup

iq2rrend:
	VZEROUPPER
	RET

// IQ2RG4POS adds weight position p of a block (index vector x, level
// table at tab(R15)) times each token's activation dword at xoff of its
// frame area to its sum Z0…Z3.
#define IQ2RG4POS(x, tab, xoff) \
	VPERMB        tab(R15), x, Z26; \
	VPDPBUSD.BCST xoff(SP), Z26, Z0; \
	VPDPBUSD.BCST 288+xoff(SP), Z26, Z1; \
	VPDPBUSD.BCST 576+xoff(SP), Z26, Z2; \
	VPDPBUSD.BCST 864+xoff(SP), Z26, Z3

// IQ2RG4OUT scales token t's sum s of block j by 2·ls + 1 (Z28) and adds
// it times (d/8)·dx (block scale at daddr) into its accumulator in the
// frame.
#define IQ2RG4OUT(s, t, j, daddr) \
	VCVTDQ2PS   s, s; \
	VMULPS      Z28, s, s; \
	VMULPS.BCST daddr, Z8, Z29; \
	VMOVUPS     1152+64*(8*t+j)(SP), Z30; \
	VFMADD231PS s, Z29, Z30; \
	VMOVUPS     Z30, 1152+64*(8*t+j)(SP)

// IQ2RBLK4 is block j for the four tokens.
#define IQ2RBLK4(j) \
	IQ2RCODES(32+128*j, SI); \
	VPBROADCASTD 256+4*j(SP), Z0; \
	VPBROADCASTD 544+4*j(SP), Z1; \
	VPBROADCASTD 832+4*j(SP), Z2; \
	VPBROADCASTD 1120+4*j(SP), Z3; \
	IQ2RG4POS(Z20, 0, 32*j); \
	IQ2RG4POS(Z20, 64, 32*j+4); \
	IQ2RG4POS(Z21, 128, 32*j+8); \
	IQ2RG4POS(Z21, 192, 32*j+12); \
	IQ2RG4POS(Z22, 256, 32*j+16); \
	IQ2RG4POS(Z22, 320, 32*j+20); \
	IQ2RG4POS(Z23, 0, 32*j+24); \
	IQ2RG4POS(Z23, 64, 32*j+28); \
	VPERMPS      iq2rScale<>(SB), Z19, Z28; \
	IQ2RG4OUT(Z0, 0, j, 4*j(R10)); \
	IQ2RG4OUT(Z1, 1, j, 4*j(R10)(DX*1)); \
	IQ2RG4OUT(Z2, 2, j, 4*j(R10)(DX*2)); \
	IQ2RG4OUT(Z3, 3, j, 4*j(R10)(BX*1))

// IQ2RG4ZERO clears token t's eight accumulators in the frame (Z30 zero).
#define IQ2RG4ZERO(t) \
	VMOVUPS Z30, 1152+512*t(SP); \
	VMOVUPS Z30, 1152+512*t+64(SP); \
	VMOVUPS Z30, 1152+512*t+128(SP); \
	VMOVUPS Z30, 1152+512*t+192(SP); \
	VMOVUPS Z30, 1152+512*t+256(SP); \
	VMOVUPS Z30, 1152+512*t+320(SP); \
	VMOVUPS Z30, 1152+512*t+384(SP); \
	VMOVUPS Z30, 1152+512*t+448(SP)

// IQ2RG4STORE sums token t's accumulators as IQ2PHSUM does into dst.
#define IQ2RG4STORE(t, dst) \
	VMOVUPS 1152+512*t(SP), Z20; \
	VMOVUPS 1152+512*t+64(SP), Z21; \
	VMOVUPS 1152+512*t+128(SP), Z22; \
	VMOVUPS 1152+512*t+192(SP), Z23; \
	VMOVUPS 1152+512*t+256(SP), Z24; \
	VMOVUPS 1152+512*t+320(SP), Z25; \
	VMOVUPS 1152+512*t+384(SP), Z26; \
	VMOVUPS 1152+512*t+448(SP), Z27; \
	IQ2PHSUM(Z20, Z21, Z22, Z23, Z24, Z25, Z26, Z27); \
	VMOVUPS Z20, dst

// func gemm4IQ2XXSx16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32, ostride int)
//
// Not NOSPLIT: its frame is more than a nosplit function may take.
// out[t·ostride + r] = row r · token t for groups·16 packed rows and four
// tokens whose codes are xq + t·256·nsb, m8 m8 + t·8·nsb and block scales
// xd + t·8·nsb. A super-block's weights are decoded once for the four
// tokens (as in rowsIQ2XXSx16VNNI), each position's weights meet the four
// tokens' activations. SI the group, DI token 0's codes, AX the codes'
// bytes per token (R14 three times that), R9 m8, R10 the block scales, DX
// their bytes per token (BX three times), R12 the code tables, R15 the
// level tables. Frame: token t's transposed activations and 43·m8/8 at
// 288t, its eight block accumulators at 1152+512t, the group at 3200.
TEXT ·gemm4IQ2XXSx16VNNI(SB), 0, $3208-64
	MOVQ p+0(FP), SI
	MOVQ out+48(FP), R13
	MOVQ groups+40(FP), R8
	LEAQ ·iq2xxsCodes(SB), R12
	LEAQ ·iq2xxsLevels(SB), R15
	IQ2RCONSTS

iq2rggroup:
	TESTQ R8, R8
	JEQ   iq2rgend
	MOVQ  nsb+32(FP), AX
	MOVQ  AX, DX
	SHLQ  $5, DX
	LEAQ  (DX)(DX*2), BX
	SHLQ  $8, AX
	LEAQ  (AX)(AX*2), R14
	MOVQ  xq+8(FP), DI
	MOVQ  m8+16(FP), R9
	MOVQ  xd+24(FP), R10
	MOVQ  nsb+32(FP), CX
	VPXORD Z30, Z30, Z30
	IQ2RG4ZERO(0)
	IQ2RG4ZERO(1)
	IQ2RG4ZERO(2)
	IQ2RG4ZERO(3)

iq2rgloop:
	IQ2RPREP((DI), (R9), 0)
	IQ2RPREP((DI)(AX*1), (R9)(DX*1), 288)
	IQ2RPREP((DI)(AX*2), (R9)(DX*2), 576)
	IQ2RPREP((DI)(R14*1), (R9)(BX*1), 864)
	IQ2DV(SI, Z8)
	IQ2RBLK4(0)
	IQ2RBLK4(1)
	IQ2RBLK4(2)
	IQ2RBLK4(3)
	IQ2RBLK4(4)
	IQ2RBLK4(5)
	IQ2RBLK4(6)
	IQ2RBLK4(7)
	ADDQ $1056, SI
	ADDQ $256, DI
	ADDQ $32, R9
	ADDQ $32, R10
	DECQ CX
	JNZ  iq2rgloop

	MOVQ ostride+56(FP), AX
	SHLQ $2, AX
	IQ2RG4STORE(0, (R13))
	IQ2RG4STORE(1, (R13)(AX*1))
	IQ2RG4STORE(2, (R13)(AX*2))
	LEAQ (AX)(AX*2), AX
	IQ2RG4STORE(3, (R13)(AX*1))
	ADDQ $64, R13
	DECQ R8
	JMP  iq2rggroup

iq2rgend:
	VZEROUPPER
	RET
