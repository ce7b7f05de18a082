#include "textflag.h"

// Packed Q4_K prefill on AMX (Intel's tile unit, Sapphire Rapids and
// later), sixteen tokens at a time: for each 32-weight sub-block of a group
// of sixteen packed rows, one TDPBSUD multiplies the sixteen tokens' signed
// activation codes (tile 1: 16 rows of 32 bytes, read where they lie) by
// the rows' nibbles widened to bytes (tile 2: 8 rows of 64 bytes, the
// VNNI layout: row k/4 holds the sixteen rows' weights k…k+3), giving in
// tile 0 the exact integer sums i of packed Q4_K's arithmetic (packk.go),
// token t in row t, weight row r in column r. The float work per token is
// then that of the AVX-512 kernels, operand for operand:
//
//	acc = fma(f32(d·sc_j)·dx_J, float(i), acc)
//	acc = fma(f32(−dmin·m_j), s_J, acc)
//
// so a token's result is bit for bit what rowsQ4Kx16VNNI gives it. The
// VNNI kernels do sixteen VPDPBUSD and their float work per token for
// every sub-block; here the integer work of sixteen tokens is one tile
// instruction and what is left is the float work, a quarter of the
// instructions.
//
// Go's assembler has no AMX instructions: they are spelled in bytes, with
// fixed registers (from GNU as 2.40):
//
//	LDTILECFG (AX)                  c4 e2 78 49 00
//	TILERELEASE                     c4 e2 78 49 c0
//	TILEZERO tmm0                   c4 e2 7b 49 c0
//	TILELOADD tmm1, (R11)(R12*1)    c4 82 7b 4b 0c 23
//	TILELOADD tmm2, (R14)(R15*1)    c4 82 7b 4b 14 3e
//	TILELOADD tmm2, 512(R14)(R15*1) c4 82 7b 4b 94 3e 00 02 00 00
//	TDPBSUD tmm0, tmm1, tmm2        c4 e2 6a 5e c1
//	TILESTORED (R10)(R15*1), tmm0   c4 82 7a 4b 04 3a
//	TILEZERO tmm3                   c4 e2 7b 49 d8
//	TILELOADD tmm4, (R11)(R12*1)    c4 82 7b 4b 24 23
//	TILELOADD tmm5, 512(R14)(R15*1) c4 82 7b 4b ac 3e 00 02 00 00
//	TDPBSUD tmm3, tmm4, tmm5        c4 e2 52 5e dc
//	TILESTORED 1024(R10)(R15*1), tmm3
//	                                c4 82 7a 4b 9c 3a 00 04 00 00
//	TDPBSSD tmm0, tmm1, tmm2        c4 e2 6b 5e c1
//	TDPBSSD tmm3, tmm4, tmm5        c4 e2 53 5e dc

#define LDTILECFG_AX BYTE $0xc4; BYTE $0xe2; BYTE $0x78; BYTE $0x49; BYTE $0x00
#define TILERELEASE BYTE $0xc4; BYTE $0xe2; BYTE $0x78; BYTE $0x49; BYTE $0xc0
#define TILEZERO_T0 BYTE $0xc4; BYTE $0xe2; BYTE $0x7b; BYTE $0x49; BYTE $0xc0
#define TILELOADD_T1_R11_R12 BYTE $0xc4; BYTE $0x82; BYTE $0x7b; BYTE $0x4b; BYTE $0x0c; BYTE $0x23
#define TILELOADD_T2_R14_R15 BYTE $0xc4; BYTE $0x82; BYTE $0x7b; BYTE $0x4b; BYTE $0x14; BYTE $0x3e
#define TDPBSUD_T0_T1_T2 BYTE $0xc4; BYTE $0xe2; BYTE $0x6a; BYTE $0x5e; BYTE $0xc1
#define TILESTORED_R10_R15_T0 BYTE $0xc4; BYTE $0x82; BYTE $0x7a; BYTE $0x4b; BYTE $0x04; BYTE $0x3a
#define TILEZERO_T3 BYTE $0xc4; BYTE $0xe2; BYTE $0x7b; BYTE $0x49; BYTE $0xd8
#define TILELOADD_T4_R11_R12 BYTE $0xc4; BYTE $0x82; BYTE $0x7b; BYTE $0x4b; BYTE $0x24; BYTE $0x23
#define TILELOADD_T5_R14_512_R15 BYTE $0xc4; BYTE $0x82; BYTE $0x7b; BYTE $0x4b; BYTE $0xac; BYTE $0x3e; BYTE $0x00; BYTE $0x02; BYTE $0x00; BYTE $0x00
#define TDPBSUD_T3_T4_T5 BYTE $0xc4; BYTE $0xe2; BYTE $0x52; BYTE $0x5e; BYTE $0xdc
#define TDPBSSD_T0_T1_T2 BYTE $0xc4; BYTE $0xe2; BYTE $0x6b; BYTE $0x5e; BYTE $0xc1
#define TDPBSSD_T3_T4_T5 BYTE $0xc4; BYTE $0xe2; BYTE $0x53; BYTE $0x5e; BYTE $0xdc
#define TILESTORED_R10_1024_R15_T3 BYTE $0xc4; BYTE $0x82; BYTE $0x7a; BYTE $0x4b; BYTE $0x9c; BYTE $0x3a; BYTE $0x00; BYTE $0x04; BYTE $0x00; BYTE $0x00

// The tile configuration: palette 1; tiles 0 and 3 (sums) 16 rows × 64
// bytes, tiles 1 and 4 (activations) 16 × 32, tiles 2 and 5 (weights)
// 8 × 64: two sets, so that one sub-block's product runs while the other's
// sums are stored (the tile registers are not renamed). Column bytes are
// sixteen words from byte 16, rows sixteen bytes from byte 48.
DATA amxQ4Kcfg<>+0(SB)/8, $0x0000000000000001
DATA amxQ4Kcfg<>+8(SB)/8, $0
DATA amxQ4Kcfg<>+16(SB)/8, $0x0040004000200040
DATA amxQ4Kcfg<>+24(SB)/8, $0x0000000000400020
DATA amxQ4Kcfg<>+32(SB)/8, $0
DATA amxQ4Kcfg<>+40(SB)/8, $0
DATA amxQ4Kcfg<>+48(SB)/8, $0x0000081010081010
DATA amxQ4Kcfg<>+56(SB)/8, $0
GLOBL amxQ4Kcfg<>(SB), RODATA|NOPTR, $64

// The sub-blocks of a super-block run as a pipeline, so that no load
// waits on the store just before it: tile 2's bytes are written two
// sub-blocks ahead of their tile load (buffers B0 at 0(SP), B1 at
// 512(SP)), and the sums stored one sub-block ahead of the float work that
// reads them (C0 at 1024(SP), C1 at 2048(SP)). Done one after the other,
// the round trips through memory left the kernel slower than the VNNI one.

// AMXB widens sub-block j's nibble vectors (at 384+256j(SI)) into tile 2's
// bytes at boff(SP): row q (weights 4q…4q+3) is Vq's low nibbles for q <
// 4, V(q−4)'s high nibbles after. Z31 = 0x0F bytes.
#define AMXB(j, boff) \
	VPANDD    384+256*j(SI), Z31, Z20; \
	VPSRLW    $4, 384+256*j(SI), Z24; \
	VPANDD    448+256*j(SI), Z31, Z21; \
	VPSRLW    $4, 448+256*j(SI), Z25; \
	VPANDD    512+256*j(SI), Z31, Z22; \
	VPSRLW    $4, 512+256*j(SI), Z26; \
	VPANDD    576+256*j(SI), Z31, Z23; \
	VPSRLW    $4, 576+256*j(SI), Z27; \
	VPANDD    Z31, Z24, Z24; \
	VPANDD    Z31, Z25, Z25; \
	VPANDD    Z31, Z26, Z26; \
	VPANDD    Z31, Z27, Z27; \
	VMOVDQU64 Z20, boff(SP); \
	VMOVDQU64 Z21, boff+64(SP); \
	VMOVDQU64 Z22, boff+128(SP); \
	VMOVDQU64 Z23, boff+192(SP); \
	VMOVDQU64 Z24, boff+256(SP); \
	VMOVDQU64 Z25, boff+320(SP); \
	VMOVDQU64 Z26, boff+384(SP); \
	VMOVDQU64 Z27, boff+448(SP)

// AMXTILE0 and AMXTILE1 multiply the next sub-block's activations (R11,
// then moved on) by its weights in B0 (B1), the sums into C0 (C1), on
// tiles 0–2 (3–5), with tdp the product on those tiles: TDPBSUD (signed
// activations, unsigned codes) or TDPBSSD (both signed).
#define AMXTILE0(tdp) \
	TILEZERO_T0; \
	TILELOADD_T1_R11_R12; \
	TILELOADD_T2_R14_R15; \
	tdp; \
	TILESTORED_R10_R15_T0; \
	ADDQ $32, R11

#define AMXTILE1(tdp) \
	TILEZERO_T3; \
	TILELOADD_T4_R11_R12; \
	TILELOADD_T5_R14_512_R15; \
	tdp; \
	TILESTORED_R10_1024_R15_T3; \
	ADDQ $32, R11

// AMXTOK adds token t's share of a sub-block, its sums at coff+64t(SP),
// its block scale at (R8) and block sum at (R9), to acc, then moves R8 and
// R9 to the next token's.
#define AMXTOK(coff, t, acc) \
	VCVTDQ2PS        coff+64*t(SP), Z18; \
	VMULPS.BCST      (R8), Z16, Z19; \
	VFMADD231PS      Z18, Z19, acc; \
	VFMADD231PS.BCST (R9), Z17, acc; \
	ADDQ             DX, R8; \
	ADDQ             DX, R9

// AMXEPI does the sixteen tokens' float work for sub-block j of the
// super-block at SI, its sums at coff(SP): the scale and min vectors, then
// each token's two FMAs. BX is the offset of the sub-block's scale and sum
// into xd and xs.
#define AMXEPI(j, coff) \
	VPMOVZXBD 128+16*j(SI), Z16; \
	VCVTDQ2PS Z16, Z16; \
	VMULPS    Z30, Z16, Z16; \
	VPMOVZXBD 256+16*j(SI), Z17; \
	VCVTDQ2PS Z17, Z17; \
	VMULPS    Z29, Z17, Z17; \
	MOVQ      xd+16(FP), R8; \
	ADDQ      BX, R8; \
	MOVQ      xs+24(FP), R9; \
	ADDQ      BX, R9; \
	ADDQ      $4, BX; \
	AMXTOK(coff, 0, Z0); \
	AMXTOK(coff, 1, Z1); \
	AMXTOK(coff, 2, Z2); \
	AMXTOK(coff, 3, Z3); \
	AMXTOK(coff, 4, Z4); \
	AMXTOK(coff, 5, Z5); \
	AMXTOK(coff, 6, Z6); \
	AMXTOK(coff, 7, Z7); \
	AMXTOK(coff, 8, Z8); \
	AMXTOK(coff, 9, Z9); \
	AMXTOK(coff, 10, Z10); \
	AMXTOK(coff, 11, Z11); \
	AMXTOK(coff, 12, Z12); \
	AMXTOK(coff, 13, Z13); \
	AMXTOK(coff, 14, Z14); \
	AMXTOK(coff, 15, Z15)

// AMXB5 is AMXB for packed Q5_K (packk5.go): each code vector also takes
// 16 in the bytes its fifth-bit mask marks (code vector c of sub-block j,
// in the order V0 low, V0 high, V1 low, …, at 640+320j+8c(SI), after the
// sub-block's codes at 384+320j). Z28 = 0x10 bytes.
#define AMXB5(j, boff) \
	KMOVQ     640+320*j(SI), K1; \
	VPANDD    384+320*j(SI), Z31, Z20; \
	VPADDB    Z28, Z20, K1, Z20; \
	KMOVQ     640+320*j+8(SI), K2; \
	VPSRLW    $4, 384+320*j(SI), Z24; \
	VPANDD    Z31, Z24, Z24; \
	VPADDB    Z28, Z24, K2, Z24; \
	KMOVQ     640+320*j+16(SI), K3; \
	VPANDD    448+320*j(SI), Z31, Z21; \
	VPADDB    Z28, Z21, K3, Z21; \
	KMOVQ     640+320*j+24(SI), K4; \
	VPSRLW    $4, 448+320*j(SI), Z25; \
	VPANDD    Z31, Z25, Z25; \
	VPADDB    Z28, Z25, K4, Z25; \
	KMOVQ     640+320*j+32(SI), K5; \
	VPANDD    512+320*j(SI), Z31, Z22; \
	VPADDB    Z28, Z22, K5, Z22; \
	KMOVQ     640+320*j+40(SI), K6; \
	VPSRLW    $4, 512+320*j(SI), Z26; \
	VPANDD    Z31, Z26, Z26; \
	VPADDB    Z28, Z26, K6, Z26; \
	KMOVQ     640+320*j+48(SI), K7; \
	VPANDD    576+320*j(SI), Z31, Z23; \
	VPADDB    Z28, Z23, K7, Z23; \
	KMOVQ     640+320*j+56(SI), K1; \
	VPSRLW    $4, 576+320*j(SI), Z27; \
	VPANDD    Z31, Z27, Z27; \
	VPADDB    Z28, Z27, K1, Z27; \
	VMOVDQU64 Z20, boff(SP); \
	VMOVDQU64 Z21, boff+64(SP); \
	VMOVDQU64 Z22, boff+128(SP); \
	VMOVDQU64 Z23, boff+192(SP); \
	VMOVDQU64 Z24, boff+256(SP); \
	VMOVDQU64 Z25, boff+320(SP); \
	VMOVDQU64 Z26, boff+384(SP); \
	VMOVDQU64 Z27, boff+448(SP)

// amxXSLevels is the IQ4_XS level table (kvalues_iq4nl, signed bytes) for
// VPSHUFB: −127, −104, −83, −65, −49, −35, −22, −10, 1, 13, 25, 38, 53, 69,
// 89, 113.
DATA amxXSLevels<>+0(SB)/8, $0xf6eaddcfbfad9881
DATA amxXSLevels<>+8(SB)/8, $0x7159453526190d01
GLOBL amxXSLevels<>(SB), RODATA|NOPTR, $16

// AMXBXS is AMXB for packed IQ4_XS (packiq4xs.go): the nibbles of the
// code vectors at 192+256j(SI) looked up as signed levels (Z28, the
// table in every 128-bit lane), which TDPBSSD multiplies as they are.
#define AMXBXS(j, boff) \
	VPANDD    192+256*j(SI), Z31, Z20; \
	VPSRLW    $4, 192+256*j(SI), Z24; \
	VPANDD    256+256*j(SI), Z31, Z21; \
	VPSRLW    $4, 256+256*j(SI), Z25; \
	VPANDD    320+256*j(SI), Z31, Z22; \
	VPSRLW    $4, 320+256*j(SI), Z26; \
	VPANDD    384+256*j(SI), Z31, Z23; \
	VPSRLW    $4, 384+256*j(SI), Z27; \
	VPANDD    Z31, Z24, Z24; \
	VPANDD    Z31, Z25, Z25; \
	VPANDD    Z31, Z26, Z26; \
	VPANDD    Z31, Z27, Z27; \
	VPSHUFB   Z20, Z28, Z20; \
	VPSHUFB   Z21, Z28, Z21; \
	VPSHUFB   Z22, Z28, Z22; \
	VPSHUFB   Z23, Z28, Z23; \
	VPSHUFB   Z24, Z28, Z24; \
	VPSHUFB   Z25, Z28, Z25; \
	VPSHUFB   Z26, Z28, Z26; \
	VPSHUFB   Z27, Z28, Z27; \
	VMOVDQU64 Z20, boff(SP); \
	VMOVDQU64 Z21, boff+64(SP); \
	VMOVDQU64 Z22, boff+128(SP); \
	VMOVDQU64 Z23, boff+192(SP); \
	VMOVDQU64 Z24, boff+256(SP); \
	VMOVDQU64 Z25, boff+320(SP); \
	VMOVDQU64 Z26, boff+384(SP); \
	VMOVDQU64 Z27, boff+448(SP)

// AMXTOKXS adds token t's share of an IQ4_XS sub-block to acc (its sums at
// coff+64t(SP), block scale at (R8)), the one FMA of packed IQ4_XS's
// arithmetic, then moves R8 to the next token's.
#define AMXTOKXS(coff, t, acc) \
	VCVTDQ2PS   coff+64*t(SP), Z18; \
	VMULPS.BCST (R8), Z16, Z19; \
	VFMADD231PS Z18, Z19, acc; \
	ADDQ        DX, R8

// AMXEPIXS is AMXEPI for IQ4_XS: the scale vector d·ls_j, then each
// token's FMA.
#define AMXEPIXS(j, coff) \
	VPMOVSXBD 64+16*j(SI), Z16; \
	VCVTDQ2PS Z16, Z16; \
	VMULPS    Z30, Z16, Z16; \
	MOVQ      xd+16(FP), R8; \
	ADDQ      BX, R8; \
	ADDQ      $4, BX; \
	AMXTOKXS(coff, 0, Z0); \
	AMXTOKXS(coff, 1, Z1); \
	AMXTOKXS(coff, 2, Z2); \
	AMXTOKXS(coff, 3, Z3); \
	AMXTOKXS(coff, 4, Z4); \
	AMXTOKXS(coff, 5, Z5); \
	AMXTOKXS(coff, 6, Z6); \
	AMXTOKXS(coff, 7, Z7); \
	AMXTOKXS(coff, 8, Z8); \
	AMXTOKXS(coff, 9, Z9); \
	AMXTOKXS(coff, 10, Z10); \
	AMXTOKXS(coff, 11, Z11); \
	AMXTOKXS(coff, 12, Z12); \
	AMXTOKXS(coff, 13, Z13); \
	AMXTOKXS(coff, 14, Z14); \
	AMXTOKXS(coff, 15, Z15)

// AMXZERO16 clears the sixteen tokens' sums.
#define AMXZERO16 \
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
	VPXORD Z15, Z15, Z15

// AMXSTORE16 writes the sixteen tokens' sums to R13 + t·ostride (AX =
// ostride in floats) and moves R13 to the next group's rows.
#define AMXSTORE16 \
	SHLQ    $2, AX; \
	MOVQ    R13, R8; \
	VMOVUPS Z0, (R8); \
	ADDQ    AX, R8; \
	VMOVUPS Z1, (R8); \
	ADDQ    AX, R8; \
	VMOVUPS Z2, (R8); \
	ADDQ    AX, R8; \
	VMOVUPS Z3, (R8); \
	ADDQ    AX, R8; \
	VMOVUPS Z4, (R8); \
	ADDQ    AX, R8; \
	VMOVUPS Z5, (R8); \
	ADDQ    AX, R8; \
	VMOVUPS Z6, (R8); \
	ADDQ    AX, R8; \
	VMOVUPS Z7, (R8); \
	ADDQ    AX, R8; \
	VMOVUPS Z8, (R8); \
	ADDQ    AX, R8; \
	VMOVUPS Z9, (R8); \
	ADDQ    AX, R8; \
	VMOVUPS Z10, (R8); \
	ADDQ    AX, R8; \
	VMOVUPS Z11, (R8); \
	ADDQ    AX, R8; \
	VMOVUPS Z12, (R8); \
	ADDQ    AX, R8; \
	VMOVUPS Z13, (R8); \
	ADDQ    AX, R8; \
	VMOVUPS Z14, (R8); \
	ADDQ    AX, R8; \
	VMOVUPS Z15, (R8); \
	ADDQ    $64, R13

// AMXSUPER is one super-block at SI for the sixteen tokens: the eight
// sub-blocks' widening (UNPACK), tile products (tdp0 on tiles 0–2, tdp1 on
// 3–5, taking turns) and float work (EPI), in the pipelined order above.
#define AMXSUPER(UNPACK, EPI, tdp0, tdp1) \
	UNPACK(0, 0); \
	UNPACK(1, 512); \
	AMXTILE0(tdp0); \
	UNPACK(2, 0); \
	AMXTILE1(tdp1); \
	EPI(0, 1024); \
	UNPACK(3, 512); \
	AMXTILE0(tdp0); \
	EPI(1, 2048); \
	UNPACK(4, 0); \
	AMXTILE1(tdp1); \
	EPI(2, 1024); \
	UNPACK(5, 512); \
	AMXTILE0(tdp0); \
	EPI(3, 2048); \
	UNPACK(6, 0); \
	AMXTILE1(tdp1); \
	EPI(4, 1024); \
	UNPACK(7, 512); \
	AMXTILE0(tdp0); \
	EPI(5, 2048); \
	AMXTILE1(tdp1); \
	EPI(6, 1024); \
	EPI(7, 2048)

// func gemm16Q4KAMX(p *byte, xq *int8, xd, xs *float32, nsb, groups int, out *float32, ostride int)
//
// out[t·ostride + r] = row r · token t for groups·16 packed Q4_K rows of
// nsb super-blocks and sixteen tokens whose codes are xq + t·256·nsb,
// block scales xd + t·8·nsb and block sums xs + t·8·nsb. The caller has
// checked that the CPU has AMX and that Linux lets this process use it.
//
// SI weights; R11 token 0's codes at the next sub-block to multiply, R12
// the bytes from one token's codes to the next; R14 the weight buffers
// (0(SP)), R15 their row stride (64), R10 the sum buffers (1024(SP)); BX
// the offset of the next block's scale and sum to use, DX the bytes from
// one token's scales to the next; R8, R9 walk the tokens' scales and sums;
// CX super-blocks left, DI groups left, R13 out, and Z0…Z15 the sixteen
// tokens' sums. The frame holds the buffers (3072 bytes): past the
// no-split limit, so this function checks the stack.
TEXT ·gemm16Q4KAMX(SB), $3072-64
	LEAQ         amxQ4Kcfg<>(SB), AX
	LDTILECFG_AX
	MOVL         $0x0f0f0f0f, AX
	VPBROADCASTD AX, Z31
	MOVQ         nsb+32(FP), DX
	MOVQ         DX, R12
	SHLQ         $8, R12           // codes per token
	SHLQ         $5, DX            // scales per token: 8 blocks · 4 bytes a super-block
	LEAQ         (SP), R14
	MOVQ         $64, R15
	LEAQ         1024(SP), R10
	MOVQ         p+0(FP), SI
	MOVQ         out+48(FP), R13
	MOVQ         groups+40(FP), DI

amx4group:
	TESTQ  DI, DI
	JEQ    amx4end
	DECQ   DI
	MOVQ   xq+8(FP), R11
	XORQ   BX, BX
	MOVQ   nsb+32(FP), CX
	AMXZERO16

amx4loop:
	VMOVUPS (SI), Z30
	VMOVUPS 64(SI), Z29
	AMXSUPER(AMXB, AMXEPI, TDPBSUD_T0_T1_T2, TDPBSUD_T3_T4_T5)
	ADDQ $2432, SI
	DECQ CX
	JNZ  amx4loop

	MOVQ ostride+56(FP), AX
	AMXSTORE16
	JMP  amx4group

amx4end:
	TILERELEASE
	VZEROUPPER
	RET

// func gemm16Q5KAMX(p *byte, xq *int8, xd, xs *float32, nsb, groups int, out *float32, ostride int)
//
// out[t·ostride + r] = row r · token t for groups·16 packed Q5_K rows of
// nsb super-blocks and sixteen tokens whose codes are xq + t·256·nsb and
// block scales xd + t·8·nsb (block sums xs likewise). The caller has
// checked that the CPU has AMX and that Linux lets this process use it.
// Registers and frame as gemm16Q4KAMX's.
TEXT ·gemm16Q5KAMX(SB), $3072-64
	LEAQ         amxQ4Kcfg<>(SB), AX
	LDTILECFG_AX
	MOVL         $0x0f0f0f0f, AX
	VPBROADCASTD AX, Z31
	MOVL         $0x10101010, AX
	VPBROADCASTD AX, Z28
	MOVQ         nsb+32(FP), DX
	MOVQ         DX, R12
	SHLQ         $8, R12           // codes per token
	SHLQ         $5, DX            // scales per token: 8 blocks · 4 bytes a super-block
	LEAQ         (SP), R14
	MOVQ         $64, R15
	LEAQ         1024(SP), R10
	MOVQ         p+0(FP), SI
	MOVQ         out+48(FP), R13
	MOVQ         groups+40(FP), DI

amx5group:
	TESTQ  DI, DI
	JEQ    amx5end
	DECQ   DI
	MOVQ   xq+8(FP), R11
	XORQ   BX, BX
	MOVQ   nsb+32(FP), CX
	AMXZERO16

amx5loop:
	VMOVUPS (SI), Z30
	VMOVUPS 64(SI), Z29
	AMXSUPER(AMXB5, AMXEPI, TDPBSUD_T0_T1_T2, TDPBSUD_T3_T4_T5)
	ADDQ $2944, SI
	DECQ CX
	JNZ  amx5loop

	MOVQ ostride+56(FP), AX
	AMXSTORE16
	JMP  amx5group

amx5end:
	TILERELEASE
	VZEROUPPER
	RET

// func gemm16IQ4XSAMX(p *byte, xq *int8, xd *float32, nsb, groups int, out *float32, ostride int)
//
// out[t·ostride + r] = row r · token t for groups·16 packed IQ4_XS rows of
// nsb super-blocks and sixteen tokens whose codes are xq + t·256·nsb and
// block scales xd + t·8·nsb. The caller has
// checked that the CPU has AMX and that Linux lets this process use it.
// Registers and frame as gemm16Q4KAMX's.
TEXT ·gemm16IQ4XSAMX(SB), $3072-56
	LEAQ         amxQ4Kcfg<>(SB), AX
	LDTILECFG_AX
	MOVL         $0x0f0f0f0f, AX
	VPBROADCASTD AX, Z31
	VBROADCASTI32X4 amxXSLevels<>(SB), Z28
	MOVQ         nsb+24(FP), DX
	MOVQ         DX, R12
	SHLQ         $8, R12           // codes per token
	SHLQ         $5, DX            // scales per token: 8 blocks · 4 bytes a super-block
	LEAQ         (SP), R14
	MOVQ         $64, R15
	LEAQ         1024(SP), R10
	MOVQ         p+0(FP), SI
	MOVQ         out+40(FP), R13
	MOVQ         groups+32(FP), DI

amxxsgroup:
	TESTQ  DI, DI
	JEQ    amxxsend
	DECQ   DI
	MOVQ   xq+8(FP), R11
	XORQ   BX, BX
	MOVQ   nsb+24(FP), CX
	AMXZERO16

amxxsloop:
	VMOVUPS (SI), Z30
	AMXSUPER(AMXBXS, AMXEPIXS, TDPBSSD_T0_T1_T2, TDPBSSD_T3_T4_T5)
	ADDQ $2240, SI
	DECQ CX
	JNZ  amxxsloop

	MOVQ ostride+48(FP), AX
	AMXSTORE16
	JMP  amxxsgroup

amxxsend:
	TILERELEASE
	VZEROUPPER
	RET

