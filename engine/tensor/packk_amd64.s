#include "textflag.h"
#include "ahead_amd64.h"

// Packed Q4_K kernels (layout and arithmetic: packk.go), sixteen rows per
// ZMM lane, on AVX-512 VNNI. Per super-block: Z30 the rows' d, Z29 their
// −dmin; per sub-block j: Z16 = d·sc_j and Z17 = −dmin·m_j (exact), the
// codes unpacked into Z8…Z15 (V0 low/high … V3 low/high) once for every
// token, then per token an exact integer sum by VPDPBUSD (unsigned nibbles
// times one signed activation dword broadcast to every lane) and the two
// FMAs of the contract. Z31 = 0x0F bytes.

// KSUB prepares sub-block j of the super-block at SI: its scale and min
// vectors and its unpacked codes.
#define KSUB(j) KSUBR(j, SI, Z30, Z29)

// KSUBR is KSUB for the super-block at base, whose d and −dmin are in dv
// and mv.
#define KSUBR(j, base, dv, mv) \
	VPMOVZXBD 128+16*j(base), Z16; \
	VCVTDQ2PS Z16, Z16; \
	VMULPS    dv, Z16, Z16; \
	VPMOVZXBD 256+16*j(base), Z17; \
	VCVTDQ2PS Z17, Z17; \
	VMULPS    mv, Z17, Z17; \
	VPANDD    384+256*j(base), Z31, Z8; \
	VPSRLW    $4, 384+256*j(base), Z9; \
	VPANDD    Z31, Z9, Z9; \
	VPANDD    448+256*j(base), Z31, Z10; \
	VPSRLW    $4, 448+256*j(base), Z11; \
	VPANDD    Z31, Z11, Z11; \
	VPANDD    512+256*j(base), Z31, Z12; \
	VPSRLW    $4, 512+256*j(base), Z13; \
	VPANDD    Z31, Z13, Z13; \
	VPANDD    576+256*j(base), Z31, Z14; \
	VPSRLW    $4, 576+256*j(base), Z15; \
	VPANDD    Z31, Z15, Z15

// KTOK adds one token's share of the prepared sub-block to acc: its codes
// at xoff(xb), block scale at daddr and block sum at saddr; isum and sc are
// scratch.
#define KTOK(xb, xoff, daddr, saddr, isum, sc, acc) \
	VPXORD        isum, isum, isum; \
	VPDPBUSD.BCST xoff(xb), Z8, isum; \
	VPDPBUSD.BCST xoff+16(xb), Z9, isum; \
	VPDPBUSD.BCST xoff+4(xb), Z10, isum; \
	VPDPBUSD.BCST xoff+20(xb), Z11, isum; \
	VPDPBUSD.BCST xoff+8(xb), Z12, isum; \
	VPDPBUSD.BCST xoff+24(xb), Z13, isum; \
	VPDPBUSD.BCST xoff+12(xb), Z14, isum; \
	VPDPBUSD.BCST xoff+28(xb), Z15, isum; \
	VCVTDQ2PS     isum, isum; \
	VMULPS.BCST   daddr, Z16, sc; \
	VFMADD231PS   isum, sc, acc; \
	VFMADD231PS.BCST saddr, Z17, acc

#define KMASK0F_Z31 \
	MOVL         $0x0f0f0f0f, AX; \
	VPBROADCASTD AX, Z31

// KSUB1 is sub-block j for one token: codes at DI, scales R9, sums R10.
#define KSUB1(j) \
	KSUB(j); \
	KTOK(DI, 32*j, 4*j(R9), 4*j(R10), Z18, Z19, Z0)

// KSUB2 is sub-block j for one token of two groups at once: the group at
// SI (d, −dmin in Z30, Z29; sums in Z0) and the next at R11 (Z28, Z27;
// Z1).
#define KSUB2(j) \
	KSUB(j); \
	KTOK(DI, 32*j, 4*j(R9), 4*j(R10), Z18, Z19, Z0); \
	KSUBR(j, R11, Z28, Z27); \
	KTOK(DI, 32*j, 4*j(R9), 4*j(R10), Z20, Z21, Z1)

// func rowsQ4Kx16VNNI(p *byte, xq *int8, xd, xs *float32, nsb, groups int, out *float32)
//
// out[r] = row r · x for groups·16 packed rows of nsb super-blocks.
// SI weights, DI codes, R9 block scales, R10 block sums (each at the
// current super-block), CX super-blocks left, R8 groups left, R13 out,
// Z0 the sums.
//
// Groups go two at a time (R11 the second's weights, BX the bytes of a
// group, Z1 its sums), then a last odd one alone: each thread then reads
// two streams of weights, which keeps more of decode's misses in flight
// than one does (measured in docs/performance.md). Each group's sums are
// bit for bit those of the one-group loop.
TEXT ·rowsQ4Kx16VNNI(SB), NOSPLIT, $0-56
	MOVQ  p+0(FP), SI
	MOVQ  out+48(FP), R13
	MOVQ  groups+40(FP), R8
	MOVQ  nsb+32(FP), BX
	IMULQ $2432, BX
	KMASK0F_Z31

krpair:
	CMPQ   R8, $2
	JLT    krgroup
	LEAQ   (SI)(BX*1), R11
	MOVQ   xq+8(FP), DI
	MOVQ   xd+16(FP), R9
	MOVQ   xs+24(FP), R10
	MOVQ   nsb+32(FP), CX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1

krploop:
	VMOVUPS (SI), Z30
	VMOVUPS 64(SI), Z29
	VMOVUPS (R11), Z28
	VMOVUPS 64(R11), Z27
	PFL4(0)
	PFL(256)
	PFLB4(0)
	PFLB(256)
	KSUB2(0)
	PFL4(320)
	PFL(576)
	PFLB4(320)
	PFLB(576)
	KSUB2(1)
	PFL4(640)
	PFL(896)
	PFLB4(640)
	PFLB(896)
	KSUB2(2)
	PFL4(960)
	PFLB4(960)
	KSUB2(3)
	PFL4(1216)
	PFL(1472)
	PFLB4(1216)
	PFLB(1472)
	KSUB2(4)
	PFL4(1536)
	PFL(1792)
	PFLB4(1536)
	PFLB(1792)
	KSUB2(5)
	PFL4(1856)
	PFL(2112)
	PFLB4(1856)
	PFLB(2112)
	KSUB2(6)
	PFL4(2176)
	PFLB4(2176)
	KSUB2(7)
	ADDQ $2432, SI
	ADDQ $2432, R11
	ADDQ $256, DI
	ADDQ $32, R9
	ADDQ $32, R10
	DECQ CX
	JNZ  krploop

	VMOVUPS Z0, (R13)
	VMOVUPS Z1, 64(R13)
	ADDQ    $128, R13
	MOVQ    R11, SI
	SUBQ    $2, R8
	JMP     krpair

krgroup:
	TESTQ  R8, R8
	JEQ    krend
	MOVQ   xq+8(FP), DI
	MOVQ   xd+16(FP), R9
	MOVQ   xs+24(FP), R10
	MOVQ   nsb+32(FP), CX
	VPXORD Z0, Z0, Z0

krloop:
	VMOVUPS (SI), Z30
	VMOVUPS 64(SI), Z29
	PFL4(0)
	PFL(256)
	KSUB1(0)
	PFL4(320)
	PFL(576)
	KSUB1(1)
	PFL4(640)
	PFL(896)
	KSUB1(2)
	PFL4(960)
	KSUB1(3)
	PFL4(1216)
	PFL(1472)
	KSUB1(4)
	PFL4(1536)
	PFL(1792)
	KSUB1(5)
	PFL4(1856)
	PFL(2112)
	KSUB1(6)
	PFL4(2176)
	KSUB1(7)
	ADDQ $2432, SI
	ADDQ $256, DI
	ADDQ $32, R9
	ADDQ $32, R10
	DECQ CX
	JNZ  krloop

	VMOVUPS Z0, (R13)
	ADDQ    $64, R13
	DECQ    R8
	JMP     krgroup

krend:
	VZEROUPPER
	RET

// KSUB4 is sub-block j for four tokens: codes at DI, R11, R12, R14; block
// scales from R9 and sums from R10, the tokens DX bytes apart (BX = 3·DX);
// token t's sums in Z(t).
#define KSUB4(j) \
	KSUB(j); \
	KTOK(DI, 32*j, 4*j(R9), 4*j(R10), Z18, Z19, Z0); \
	KTOK(R11, 32*j, 4*j(R9)(DX*1), 4*j(R10)(DX*1), Z20, Z21, Z1); \
	KTOK(R12, 32*j, 4*j(R9)(DX*2), 4*j(R10)(DX*2), Z22, Z23, Z2); \
	KTOK(R14, 32*j, 4*j(R9)(BX*1), 4*j(R10)(BX*1), Z24, Z25, Z3)

// func gemm4Q4Kx16VNNI(p *byte, xq *int8, xd, xs *float32, nsb, groups int, out *float32, ostride int)
//
// out[t·ostride + r] = row r · token t for groups·16 packed rows and four
// tokens whose codes are xq + t·256·nsb, block scales xd + t·8·nsb and
// block sums xs + t·8·nsb. Registers as rowsQ4Kx16VNNI, plus R11, R12, R14
// the codes of tokens 1…3 and DX the bytes per token of scales and sums.
TEXT ·gemm4Q4Kx16VNNI(SB), NOSPLIT, $0-64
	MOVQ p+0(FP), SI
	MOVQ nsb+32(FP), DX
	SHLQ $5, DX                // 8 blocks · 4 bytes per super-block
	LEAQ (DX)(DX*2), BX
	MOVQ out+48(FP), R13
	MOVQ groups+40(FP), R8
	KMASK0F_Z31

kggroup:
	TESTQ  R8, R8
	JEQ    kgend
	MOVQ   xq+8(FP), DI
	MOVQ   nsb+32(FP), AX
	SHLQ   $8, AX              // codes per token
	LEAQ   (DI)(AX*1), R11
	LEAQ   (R11)(AX*1), R12
	LEAQ   (R12)(AX*1), R14
	MOVQ   xd+16(FP), R9
	MOVQ   xs+24(FP), R10
	MOVQ   nsb+32(FP), CX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3

kgloop:
	VMOVUPS (SI), Z30
	VMOVUPS 64(SI), Z29
	KSUB4(0)
	KSUB4(1)
	KSUB4(2)
	KSUB4(3)
	KSUB4(4)
	KSUB4(5)
	KSUB4(6)
	KSUB4(7)
	ADDQ $2432, SI
	ADDQ $256, DI
	ADDQ $256, R11
	ADDQ $256, R12
	ADDQ $256, R14
	ADDQ $32, R9
	ADDQ $32, R10
	DECQ CX
	JNZ  kgloop

	MOVQ    ostride+56(FP), AX
	SHLQ    $2, AX
	VMOVUPS Z0, (R13)
	VMOVUPS Z1, (R13)(AX*1)
	VMOVUPS Z2, (R13)(AX*2)
	LEAQ    (AX)(AX*2), AX
	VMOVUPS Z3, (R13)(AX*1)
	ADDQ    $64, R13
	DECQ    R8
	JMP     kggroup

kgend:
	VZEROUPPER
	RET

// ---- Packed Q4_1 (packk.go) ----
//
// Per block: Z16 = the rows' d, Z17 = their m (f16 widened), the codes
// unpacked into Z8…Z15 as for Q4_K; then per token KTOK, whose second FMA
// adds m·s.

// K1BLK prepares the block at woff(SI).
#define K1BLK(woff) K1BLKR(woff, SI)

// K1BLKR is K1BLK for the block at woff(base).
#define K1BLKR(woff, base) \
	VCVTPH2PS woff(base), Z16; \
	VCVTPH2PS woff+32(base), Z17; \
	VPANDD    woff+64(base), Z31, Z8; \
	VPSRLW    $4, woff+64(base), Z9; \
	VPANDD    Z31, Z9, Z9; \
	VPANDD    woff+128(base), Z31, Z10; \
	VPSRLW    $4, woff+128(base), Z11; \
	VPANDD    Z31, Z11, Z11; \
	VPANDD    woff+192(base), Z31, Z12; \
	VPSRLW    $4, woff+192(base), Z13; \
	VPANDD    Z31, Z13, Z13; \
	VPANDD    woff+256(base), Z31, Z14; \
	VPSRLW    $4, woff+256(base), Z15; \
	VPANDD    Z31, Z15, Z15

// func rowsQ4_1x16VNNI(p *byte, xq *int8, xd, xs *float32, nb, groups int, out *float32)
//
// out[r] = row r · x for groups·16 packed rows of nb blocks. SI weights,
// DI codes, R9 block scales, R10 block sums, CX blocks left, R8 groups
// left, R13 out, Z0 the sums; groups two at a time as in rowsQ4Kx16VNNI
// (R11 the second's weights, BX the bytes of a group, Z1 its sums).
TEXT ·rowsQ4_1x16VNNI(SB), NOSPLIT, $0-56
	MOVQ  p+0(FP), SI
	MOVQ  out+48(FP), R13
	MOVQ  groups+40(FP), R8
	MOVQ  nb+32(FP), BX
	IMULQ $320, BX
	KMASK0F_Z31

k1rpair:
	CMPQ   R8, $2
	JLT    k1rgroup
	LEAQ   (SI)(BX*1), R11
	MOVQ   xq+8(FP), DI
	MOVQ   xd+16(FP), R9
	MOVQ   xs+24(FP), R10
	MOVQ   nb+32(FP), CX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1

k1rploop:
	PFL4(0)
	PFL(256)
	PFLB4(0)
	PFLB(256)
	K1BLK(0)
	KTOK(DI, 0, (R9), (R10), Z18, Z19, Z0)
	K1BLKR(0, R11)
	KTOK(DI, 0, (R9), (R10), Z20, Z21, Z1)
	ADDQ $320, SI
	ADDQ $320, R11
	ADDQ $32, DI
	ADDQ $4, R9
	ADDQ $4, R10
	DECQ CX
	JNZ  k1rploop

	VMOVUPS Z0, (R13)
	VMOVUPS Z1, 64(R13)
	ADDQ    $128, R13
	MOVQ    R11, SI
	SUBQ    $2, R8
	JMP     k1rpair

k1rgroup:
	TESTQ  R8, R8
	JEQ    k1rend
	MOVQ   xq+8(FP), DI
	MOVQ   xd+16(FP), R9
	MOVQ   xs+24(FP), R10
	MOVQ   nb+32(FP), CX
	VPXORD Z0, Z0, Z0

k1rloop:
	PFL4(0)
	PFL(256)
	K1BLK(0)
	KTOK(DI, 0, (R9), (R10), Z18, Z19, Z0)
	ADDQ $320, SI
	ADDQ $32, DI
	ADDQ $4, R9
	ADDQ $4, R10
	DECQ CX
	JNZ  k1rloop

	VMOVUPS Z0, (R13)
	ADDQ    $64, R13
	DECQ    R8
	JMP     k1rgroup

k1rend:
	VZEROUPPER
	RET

// func gemm4Q4_1x16VNNI(p *byte, xq *int8, xd, xs *float32, nb, groups int, out *float32, ostride int)
//
// out[t·ostride + r] = row r · token t for groups·16 packed rows and four
// tokens whose codes are xq + t·32·nb, block scales xd + t·nb and block
// sums xs + t·nb. Registers as rowsQ4_1x16VNNI, plus R11, R12, R14 the
// codes of tokens 1…3 and DX (BX) the bytes of one (three) tokens' scales.
TEXT ·gemm4Q4_1x16VNNI(SB), NOSPLIT, $0-64
	KMASK0F_Z31
	MOVQ p+0(FP), SI
	MOVQ nb+32(FP), DX
	SHLQ $2, DX
	LEAQ (DX)(DX*2), BX
	MOVQ out+48(FP), R13
	MOVQ groups+40(FP), R8

k1ggroup:
	TESTQ  R8, R8
	JEQ    k1gend
	MOVQ   xq+8(FP), DI
	MOVQ   nb+32(FP), CX
	SHLQ   $5, CX              // codes per token
	LEAQ   (DI)(CX*1), R11
	LEAQ   (R11)(CX*1), R12
	LEAQ   (R12)(CX*1), R14
	MOVQ   xd+16(FP), R9
	MOVQ   xs+24(FP), R10
	MOVQ   nb+32(FP), CX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3

k1gloop:
	K1BLK(0)
	KTOK(DI, 0, (R9), (R10), Z18, Z19, Z0)
	KTOK(R11, 0, (R9)(DX*1), (R10)(DX*1), Z20, Z21, Z1)
	KTOK(R12, 0, (R9)(DX*2), (R10)(DX*2), Z22, Z23, Z2)
	KTOK(R14, 0, (R9)(BX*1), (R10)(BX*1), Z24, Z25, Z3)
	ADDQ $320, SI
	ADDQ $32, DI
	ADDQ $32, R11
	ADDQ $32, R12
	ADDQ $32, R14
	ADDQ $4, R9
	ADDQ $4, R10
	DECQ CX
	JNZ  k1gloop

	MOVQ    ostride+56(FP), AX
	SHLQ    $2, AX
	VMOVUPS Z0, (R13)
	VMOVUPS Z1, (R13)(AX*1)
	VMOVUPS Z2, (R13)(AX*2)
	LEAQ    (AX)(AX*2), AX
	VMOVUPS Z3, (R13)(AX*1)
	ADDQ    $64, R13
	DECQ    R8
	JMP     k1ggroup

k1gend:
	VZEROUPPER
	RET
