#include "textflag.h"
#include "ahead_amd64.h"

// Packed IQ2_XXS and IQ2_XS kernels (layouts and arithmetic: packiq2.go),
// sixteen rows per ZMM lane, on AVX-512 VNNI, VBMI and BITALG. Per block
// of 32 weights and half h (even or odd rows) of a group, each run of
// eight weights is one VPGATHERDQ of eight rows' entries of the grid plus
// 43 (R12 in the decode kernels, R15 in the prefill ones), one
// VPSHUFBITQMB for its 64 sign bits and one merge-masked VPSUBB from 86
// (Z31) for the negative weights, and one VPDPBUSD against the run's
// activation qword broadcast to every lane. The sign bytes are built once
// a block for all sixteen rows: VPMULTISHIFTQB spreads the 7-bit indices
// into bytes (qword k: row 2k's four runs, then row 2k+1's), VPANDD with
// 0x7f (Z30) clears the bit that came along, and VPOPCNTB, VPSLLW $7 and
// one VPTERNLOGD set bit 7 to the parity. The half sums are folded into one
// dword a row (IQ2FOLD), multiplied by 2·ls + 1 in int32 and then follow
// the GGUF-layout kernel's float operations: convert, times
// (f32(d)·0.125)·dx, one FMA into the block position's accumulator.
//
// K7 = all ones (a gather's mask is copied from it: KXNORW of a register
// would wait for the previous gather, which clears its mask), K3 = 0xAAAA
// (the odd rows' lanes), Z29 the IQ2_XXS sign bytes' VPMULTISHIFTQB
// control, Z30 = 0x7f bytes, Z31 = 86 bytes.

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

// iq2pXXSShift: bytes 0…3 of each qword the sign indices of its low dword
// (bit offsets 0, 7, 14, 21), bytes 4…7 those of its high dword.
DATA iq2pXXSShift<>+0(SB)/8, $0x352e2720150e0700
GLOBL iq2pXXSShift<>(SB), RODATA|NOPTR, $8
DATA iq2pEighth<>+0(SB)/4, $0x3e000000
GLOBL iq2pEighth<>(SB), RODATA|NOPTR, $4
DATA iq2pOne<>+0(SB)/4, $1
GLOBL iq2pOne<>(SB), RODATA|NOPTR, $4

#define IQ2CONSTS \
	MOVL         $0x7f7f7f7f, AX; \
	VPBROADCASTD AX, Z30; \
	MOVL         $0x56565656, AX; \
	VPBROADCASTD AX, Z31; \
	VPBROADCASTQ iq2pXXSShift<>(SB), Z29; \
	MOVL         $0xAAAA, AX; \
	KMOVW        AX, K3; \
	KXNORW       K7, K7, K7

// IQ2PARITY completes the sign bytes in s (their index bits in 0…6, any bit
// 7) with bit 7 the parity of bits 0…6; t is scratch.
#define IQ2PARITY(s, t) \
	VPANDD     Z30, s, t; \
	VPOPCNTB   t, s; \
	VPSLLW     $7, s, s; \
	VPTERNLOGD $0xD8, Z30, t, s

// IQ2XXSSIGNS sets s to the sign bytes of the block at off(base).
#define IQ2XXSSIGNS(off, base, s, t) \
	VPMULTISHIFTQB off+64(base), Z29, s; \
	IQ2PARITY(s, t)

// IQ2GATHER sets g to the signed weights (43 ± m) of run l, half h of the
// index chunk at ioff(base) (grid at tab, signs in s); y is the index
// register.
#define IQ2GATHER(ioff, base, tab, l, h, s, y, g) \
	VPMOVZXBD    ioff+16*l+8*h(base), y; \
	KMOVW        K7, K1; \
	VPXORD       g, g, g; \
	VPGATHERDQ   (tab)(y*8), K1, g; \
	IQ2SIGN(l, h, s, g)

// IQ2SIGN negates the weights of g (86 − w) whose sign bits, run l and
// half h of the sign bytes s, are set.
#define IQ2SIGN(l, h, s, g) \
	VPSHUFBITQMB iq2pBits<>+64*(2*l+h)(SB), s, K2; \
	VPSUBB       g, Z31, K2, g

// IQ2XXSINIT sets a, b to one token's −43·Σx over a block (from its m8 at
// maddr) in the low dword of each qword, zero in the high.
#define IQ2XXSINIT(maddr, a, b) \
	MOVL         maddr, AX; \
	IMUL3L       $43, AX, AX; \
	SARL         $3, AX; \
	VPBROADCASTQ AX, a; \
	VMOVDQA64    a, b

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

// IQ2XXSRUN adds run l of block j (one token, activations at DI) of the
// group at base to the half sums Z22, Z23.
#define IQ2XXSRUN(j, l, base) \
	VPBROADCASTQ 32*j+8*l(DI), Z24; \
	IQ2GATHER(32+128*j, base, R12, l, 0, Z20, Y18, Z19); \
	VPDPBUSD     Z24, Z19, Z22; \
	IQ2GATHER(32+128*j, base, R12, l, 1, Z20, Y18, Z19); \
	VPDPBUSD     Z24, Z19, Z23

// IQ2XXSBLK is block j of one token for the group at base (d/8 in dv)
// into acc.
#define IQ2XXSBLK(j, base, dv, acc) \
	IQ2XXSSIGNS(32+128*j, base, Z20, Z21); \
	IQ2XXSINIT(4*j(R9), Z22, Z23); \
	IQ2XXSRUN(j, 0, base); \
	IQ2XXSRUN(j, 1, base); \
	IQ2XXSRUN(j, 2, base); \
	IQ2XXSRUN(j, 3, base); \
	IQ2FOLD(Z22, Z23, Z25, Z26); \
	VPSRLD      $27, 96+128*j(base), Z26; \
	VPORD.BCST  iq2pOne<>(SB), Z26, Z26; \
	VPMULLD     Z26, Z25, Z25; \
	IQ2FMA(Z25, dv, 4*j(R10), Z27, acc)

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

// IQ2XXSG4RUN is run l of block j for the four tokens.
#define IQ2XXSG4RUN(j, l) \
	IQ2GATHER(32+128*j, SI, R15, l, 0, Z17, Y28, Z26); \
	IQ2GATHER(32+128*j, SI, R15, l, 1, Z17, Y28, Z27); \
	IQ2G4DOT(32*j+8*l)

// IQ2G4OUT folds token t's half sums a, b, scales them by 2·ls + 1 (Z17)
// and adds them into acc (block scale at daddr).
#define IQ2G4OUT(a, b, daddr, acc) \
	IQ2FOLD(a, b, Z26, Z27); \
	VPMULLD Z17, Z26, Z26; \
	IQ2FMA(Z26, Z16, daddr, Z28, acc)

// IQ2XXSBLK4 is block j for four tokens: their accumulators a0…a3; m8
// from R9 and block scales from R10, the tokens DX bytes apart (BX = 3·DX).
#define IQ2XXSBLK4(j, a0, a1, a2, a3) \
	IQ2XXSSIGNS(32+128*j, SI, Z17, Z18); \
	IQ2XXSINIT(4*j(R9), Z18, Z19); \
	IQ2XXSINIT(4*j(R9)(DX*1), Z20, Z21); \
	IQ2XXSINIT(4*j(R9)(DX*2), Z22, Z23); \
	IQ2XXSINIT(4*j(R9)(BX*1), Z24, Z25); \
	IQ2XXSG4RUN(j, 0); \
	IQ2XXSG4RUN(j, 1); \
	IQ2XXSG4RUN(j, 2); \
	IQ2XXSG4RUN(j, 3); \
	VPSRLD      $27, 96+128*j(SI), Z17; \
	VPORD.BCST  iq2pOne<>(SB), Z17, Z17; \
	IQ2G4OUT(Z18, Z19, 4*j(R10), a0); \
	IQ2G4OUT(Z20, Z21, 4*j(R10)(DX*1), a1); \
	IQ2G4OUT(Z22, Z23, 4*j(R10)(DX*2), a2); \
	IQ2G4OUT(Z24, Z25, 4*j(R10)(BX*1), a3)

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

// IQ2XSBLK4 is block j for four tokens (as IQ2XXSBLK4).
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

// func rowsIQ2XXSx16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32)
//
// out[r] = row r · x for groups·16 packed rows of nsb super-blocks.
// SI weights, DI codes, R9 m8, R10 block scales (each at the current
// super-block), CX super-blocks left, R8 groups left, R13 out; groups two
// at a time (R11 the second's weights, BX the bytes of a group), Z0…Z7
// the first's block accumulators and Z8…Z15 the second's, Z16, Z17 their
// d/8.
TEXT ·rowsIQ2XXSx16VNNI(SB), NOSPLIT, $0-56
	MOVQ  p+0(FP), SI
	MOVQ  out+48(FP), R13
	MOVQ  groups+40(FP), R8
	MOVQ  nsb+32(FP), BX
	IMULQ $1056, BX
	LEAQ  ·iq2xxsGrid43(SB), R12
	IQ2CONSTS

iq2xxsrpair:
	CMPQ R8, $2
	JLT  iq2xxsrgroup
	LEAQ (SI)(BX*1), R11
	MOVQ xq+8(FP), DI
	MOVQ m8+16(FP), R9
	MOVQ xd+24(FP), R10
	MOVQ nsb+32(FP), CX
	IQ2ZERO8(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	IQ2ZERO8(Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)

iq2xxsrploop:
	IQ2DV(SI, Z16)
	IQ2DV(R11, Z17)
	PFL8(0)
	PFLB8(0)
	IQ2XXSBLK(0, SI, Z16, Z0)
	IQ2XXSBLK(0, R11, Z17, Z8)
	IQ2XXSBLK(1, SI, Z16, Z1)
	IQ2XXSBLK(1, R11, Z17, Z9)
	IQ2XXSBLK(2, SI, Z16, Z2)
	IQ2XXSBLK(2, R11, Z17, Z10)
	IQ2XXSBLK(3, SI, Z16, Z3)
	IQ2XXSBLK(3, R11, Z17, Z11)
	PFL8(512)
	PFLB8(512)
	PFL(1024)
	PFLB(1024)
	IQ2XXSBLK(4, SI, Z16, Z4)
	IQ2XXSBLK(4, R11, Z17, Z12)
	IQ2XXSBLK(5, SI, Z16, Z5)
	IQ2XXSBLK(5, R11, Z17, Z13)
	IQ2XXSBLK(6, SI, Z16, Z6)
	IQ2XXSBLK(6, R11, Z17, Z14)
	IQ2XXSBLK(7, SI, Z16, Z7)
	IQ2XXSBLK(7, R11, Z17, Z15)
	ADDQ $1056, SI
	ADDQ $1056, R11
	ADDQ $256, DI
	ADDQ $32, R9
	ADDQ $32, R10
	DECQ CX
	JNZ  iq2xxsrploop

	IQ2PHSUM(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	IQ2PHSUM(Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)
	VMOVUPS Z0, (R13)
	VMOVUPS Z8, 64(R13)
	ADDQ    $128, R13
	MOVQ    R11, SI
	SUBQ    $2, R8
	JMP     iq2xxsrpair

iq2xxsrgroup:
	TESTQ R8, R8
	JEQ   iq2xxsrend
	MOVQ  xq+8(FP), DI
	MOVQ  m8+16(FP), R9
	MOVQ  xd+24(FP), R10
	MOVQ  nsb+32(FP), CX
	IQ2ZERO8(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)

iq2xxsrloop:
	IQ2DV(SI, Z16)
	PFL8(0)
	IQ2XXSBLK(0, SI, Z16, Z0)
	IQ2XXSBLK(1, SI, Z16, Z1)
	IQ2XXSBLK(2, SI, Z16, Z2)
	IQ2XXSBLK(3, SI, Z16, Z3)
	PFL8(512)
	PFL(1024)
	IQ2XXSBLK(4, SI, Z16, Z4)
	IQ2XXSBLK(5, SI, Z16, Z5)
	IQ2XXSBLK(6, SI, Z16, Z6)
	IQ2XXSBLK(7, SI, Z16, Z7)
	ADDQ $1056, SI
	ADDQ $256, DI
	ADDQ $32, R9
	ADDQ $32, R10
	DECQ CX
	JNZ  iq2xxsrloop

	IQ2PHSUM(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	VMOVUPS Z0, (R13)
	ADDQ    $64, R13
	DECQ    R8
	JMP     iq2xxsrgroup

iq2xxsrend:
	VZEROUPPER
	RET

// func gemm4IQ2XXSx16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32, ostride int)
//
// Not NOSPLIT: its frame is more than a nosplit function may take.
// out[t·ostride + r] = row r · token t for groups·16 packed rows and four
// tokens whose codes are xq + t·256·nsb, m8 m8 + t·8·nsb and block scales
// xd + t·8·nsb. As gemm4TQ2x16VNNI (packtq_amd64.s): two passes over a
// group's super-blocks, blocks 0…3 (whose accumulators then wait in the
// frame) and 4…7; token t's block q in Z(4t+q). R11, R12, R14 the codes of
// tokens 1…3, DX the bytes per token of m8 and scales, R15 the grid.
TEXT ·gemm4IQ2XXSx16VNNI(SB), 0, $1032-64
	MOVQ p+0(FP), AX
	MOVQ AX, 1024(SP)
	MOVQ nsb+32(FP), DX
	SHLQ $5, DX                // 8 blocks · 4 bytes per super-block
	LEAQ (DX)(DX*2), BX
	MOVQ out+48(FP), R13
	MOVQ groups+40(FP), R8
	LEAQ ·iq2xxsGrid43(SB), R15
	IQ2CONSTS

iq2xxsggroup:
	TESTQ R8, R8
	JEQ   iq2xxsgend
	IQ2G4INIT(1024)

iq2xxsgloop0:
	IQ2DV(SI, Z16)
	IQ2XXSBLK4(0, Z0, Z4, Z8, Z12)
	IQ2XXSBLK4(1, Z1, Z5, Z9, Z13)
	IQ2XXSBLK4(2, Z2, Z6, Z10, Z14)
	IQ2XXSBLK4(3, Z3, Z7, Z11, Z15)
	IQ2G4NEXT(1056)
	DECQ CX
	JNZ  iq2xxsgloop0

	IQ2G4SAVE
	IQ2G4INIT(1024)

iq2xxsgloop1:
	IQ2DV(SI, Z16)
	IQ2XXSBLK4(4, Z0, Z4, Z8, Z12)
	IQ2XXSBLK4(5, Z1, Z5, Z9, Z13)
	IQ2XXSBLK4(6, Z2, Z6, Z10, Z14)
	IQ2XXSBLK4(7, Z3, Z7, Z11, Z15)
	IQ2G4NEXT(1056)
	DECQ CX
	JNZ  iq2xxsgloop1

	IQ2G4END(1024)
	JMP iq2xxsggroup

iq2xxsgend:
	VZEROUPPER
	RET

// func rowsIQ2XSx16VNNI(p *byte, xq *int8, xd *float32, nsb, groups int, out *float32)
//
// As rowsIQ2XXSx16VNNI, for packed IQ2_XS (no m8: the half sums start from
// −43·Σx of their own weights).
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
// As gemm4IQ2XXSx16VNNI, for packed IQ2_XS (m8 is not read; the argument
// keeps the prefill kernels' shape). Frame: the first pass's accumulators
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
