#include "textflag.h"
#include "ahead_amd64.h"

// Packed Q5_K kernels (layout and arithmetic: packk5.go), sixteen rows per
// ZMM lane, on AVX-512 VNNI: packed Q4_K's kernels (packk_amd64.s), whose
// codes take their fifth bit from an opmask. Per super-block: Z30 the rows'
// d, Z29 their −dmin; per sub-block j: Z16 = d·sc_j and Z17 = −dmin·m_j
// (exact), the codes 0…31 unpacked into Z8…Z15 (V0 low/high … V3 low/high)
// once for every token, then per token an exact integer sum by VPDPBUSD
// (unsigned codes times one signed activation dword broadcast to every
// lane) and the two FMAs of the contract. Z31 = 0x0F bytes, Z28 = 0x10
// bytes; K1, K2 take turns holding a code vector's fifth bits.

// K5LO and K5HI put code vector c of sub-block j in zc: the low (K5LO) or
// high (K5HI) nibbles of the 64 bytes at qoff(SI), plus 16 in the bytes
// that the mask at 640+320j+8c(SI) marks (sub-block j's codes are at
// 384+320j, its masks 256 bytes on). A word shift leaks the next
// byte's low nibble into a byte's high one; the mask of 0x0F drops it.
#define K5LO(j, c, qoff, zc, k) K5LOR(j, c, qoff, zc, k, SI)

#define K5HI(j, c, qoff, zc, k) K5HIR(j, c, qoff, zc, k, SI)

// K5LOR and K5HIR are K5LO and K5HI for the super-block at base.
#define K5LOR(j, c, qoff, zc, k, base) \
	KMOVQ  640+320*j+8*c(base), k; \
	VPANDD qoff(base), Z31, zc; \
	VPADDB Z28, zc, k, zc

#define K5HIR(j, c, qoff, zc, k, base) \
	KMOVQ  640+320*j+8*c(base), k; \
	VPSRLW $4, qoff(base), zc; \
	VPANDD Z31, zc, zc; \
	VPADDB Z28, zc, k, zc

// K5SUB prepares sub-block j of the super-block at SI: its scale and min
// vectors (as packk_amd64.s's KSUB) and its codes.
#define K5SUB(j) K5SUBR(j, SI, Z30, Z29)

// K5SUBR is K5SUB for the super-block at base, whose d and −dmin are in dv
// and mv.
#define K5SUBR(j, base, dv, mv) \
	VPMOVZXBD 128+16*j(base), Z16; \
	VCVTDQ2PS Z16, Z16; \
	VMULPS    dv, Z16, Z16; \
	VPMOVZXBD 256+16*j(base), Z17; \
	VCVTDQ2PS Z17, Z17; \
	VMULPS    mv, Z17, Z17; \
	K5LOR(j, 0, 384+320*j, Z8, K1, base); \
	K5HIR(j, 1, 384+320*j, Z9, K2, base); \
	K5LOR(j, 2, 448+320*j, Z10, K1, base); \
	K5HIR(j, 3, 448+320*j, Z11, K2, base); \
	K5LOR(j, 4, 512+320*j, Z12, K1, base); \
	K5HIR(j, 5, 512+320*j, Z13, K2, base); \
	K5LOR(j, 6, 576+320*j, Z14, K1, base); \
	K5HIR(j, 7, 576+320*j, Z15, K2, base)

// K5TOK adds one token's share of the prepared sub-block to acc: its codes
// at xoff(xb), block scale at daddr and block sum at saddr; isum and sc are
// scratch. The same instructions as packk_amd64.s's KTOK.
#define K5TOK(xb, xoff, daddr, saddr, isum, sc, acc) \
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

#define K5MASKS \
	MOVL         $0x0f0f0f0f, AX; \
	VPBROADCASTD AX, Z31; \
	MOVL         $0x10101010, AX; \
	VPBROADCASTD AX, Z28

// K5SUB1 is sub-block j for one token: codes at DI, scales R9, sums R10.
#define K5SUB1(j) \
	K5SUB(j); \
	K5TOK(DI, 32*j, 4*j(R9), 4*j(R10), Z18, Z19, Z0)

// K5SUB2 is sub-block j for one token of two groups at once: the group at
// SI (d, −dmin in Z30, Z29; sums in Z0) and the next at R11 (Z27, Z26;
// Z1).
#define K5SUB2(j) \
	K5SUB(j); \
	K5TOK(DI, 32*j, 4*j(R9), 4*j(R10), Z18, Z19, Z0); \
	K5SUBR(j, R11, Z27, Z26); \
	K5TOK(DI, 32*j, 4*j(R9), 4*j(R10), Z20, Z21, Z1)

// func rowsQ5Kx16VNNI(p *byte, xq *int8, xd, xs *float32, nsb, groups int, out *float32)
//
// out[r] = row r · x for groups·16 packed rows of nsb super-blocks.
// SI weights, DI codes, R9 block scales, R10 block sums (each at the
// current super-block), CX super-blocks left, R8 groups left, R13 out,
// Z0 the sums; groups two at a time as packk_amd64.s's rowsQ4Kx16VNNI (R11
// the second's weights, BX the bytes of a group, Z1 its sums), then a last
// odd one alone.
TEXT ·rowsQ5Kx16VNNI(SB), NOSPLIT, $0-56
	MOVQ  p+0(FP), SI
	MOVQ  out+48(FP), R13
	MOVQ  groups+40(FP), R8
	MOVQ  nsb+32(FP), BX
	IMULQ $2944, BX
	K5MASKS

k5rpair:
	CMPQ   R8, $2
	JLT    k5rgroup
	LEAQ   (SI)(BX*1), R11
	MOVQ   xq+8(FP), DI
	MOVQ   xd+16(FP), R9
	MOVQ   xs+24(FP), R10
	MOVQ   nsb+32(FP), CX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1

k5rploop:
	VMOVUPS (SI), Z30
	VMOVUPS 64(SI), Z29
	VMOVUPS (R11), Z27
	VMOVUPS 64(R11), Z26
	PFL4(0)
	PFL2(256)
	PFLB4(0)
	PFLB2(256)
	K5SUB2(0)
	PFL4(384)
	PFL2(640)
	PFLB4(384)
	PFLB2(640)
	K5SUB2(1)
	PFL4(768)
	PFL2(1024)
	PFLB4(768)
	PFLB2(1024)
	K5SUB2(2)
	PFL4(1152)
	PFL(1408)
	PFLB4(1152)
	PFLB(1408)
	K5SUB2(3)
	PFL4(1472)
	PFL2(1728)
	PFLB4(1472)
	PFLB2(1728)
	K5SUB2(4)
	PFL4(1856)
	PFL2(2112)
	PFLB4(1856)
	PFLB2(2112)
	K5SUB2(5)
	PFL4(2240)
	PFL2(2496)
	PFLB4(2240)
	PFLB2(2496)
	K5SUB2(6)
	PFL4(2624)
	PFL(2880)
	PFLB4(2624)
	PFLB(2880)
	K5SUB2(7)
	ADDQ $2944, SI
	ADDQ $2944, R11
	ADDQ $256, DI
	ADDQ $32, R9
	ADDQ $32, R10
	DECQ CX
	JNZ  k5rploop

	VMOVUPS Z0, (R13)
	VMOVUPS Z1, 64(R13)
	ADDQ    $128, R13
	MOVQ    R11, SI
	SUBQ    $2, R8
	JMP     k5rpair

k5rgroup:
	TESTQ  R8, R8
	JEQ    k5rend
	MOVQ   xq+8(FP), DI
	MOVQ   xd+16(FP), R9
	MOVQ   xs+24(FP), R10
	MOVQ   nsb+32(FP), CX
	VPXORD Z0, Z0, Z0

k5rloop:
	VMOVUPS (SI), Z30
	VMOVUPS 64(SI), Z29
	PFL4(0)
	PFL2(256)
	K5SUB1(0)
	PFL4(384)
	PFL2(640)
	K5SUB1(1)
	PFL4(768)
	PFL2(1024)
	K5SUB1(2)
	PFL4(1152)
	PFL(1408)
	K5SUB1(3)
	PFL4(1472)
	PFL2(1728)
	K5SUB1(4)
	PFL4(1856)
	PFL2(2112)
	K5SUB1(5)
	PFL4(2240)
	PFL2(2496)
	K5SUB1(6)
	PFL4(2624)
	PFL(2880)
	K5SUB1(7)
	ADDQ $2944, SI
	ADDQ $256, DI
	ADDQ $32, R9
	ADDQ $32, R10
	DECQ CX
	JNZ  k5rloop

	VMOVUPS Z0, (R13)
	ADDQ    $64, R13
	DECQ    R8
	JMP     k5rgroup

k5rend:
	VZEROUPPER
	RET

// K5SUB4 is sub-block j for four tokens: codes at DI, R11, R12, R14; block
// scales from R9 and sums from R10, the tokens DX bytes apart (BX = 3·DX);
// token t's sums in Z(t).
#define K5SUB4(j) \
	K5SUB(j); \
	K5TOK(DI, 32*j, 4*j(R9), 4*j(R10), Z18, Z19, Z0); \
	K5TOK(R11, 32*j, 4*j(R9)(DX*1), 4*j(R10)(DX*1), Z20, Z21, Z1); \
	K5TOK(R12, 32*j, 4*j(R9)(DX*2), 4*j(R10)(DX*2), Z22, Z23, Z2); \
	K5TOK(R14, 32*j, 4*j(R9)(BX*1), 4*j(R10)(BX*1), Z24, Z25, Z3)

// func gemm4Q5Kx16VNNI(p *byte, xq *int8, xd, xs *float32, nsb, groups int, out *float32, ostride int)
//
// out[t·ostride + r] = row r · token t for groups·16 packed rows and four
// tokens whose codes are xq + t·256·nsb, block scales xd + t·8·nsb and
// block sums xs + t·8·nsb. Registers as rowsQ5Kx16VNNI, plus R11, R12, R14
// the codes of tokens 1…3 and DX the bytes per token of scales and sums.
TEXT ·gemm4Q5Kx16VNNI(SB), NOSPLIT, $0-64
	MOVQ p+0(FP), SI
	MOVQ nsb+32(FP), DX
	SHLQ $5, DX                // 8 blocks · 4 bytes per super-block
	LEAQ (DX)(DX*2), BX
	MOVQ out+48(FP), R13
	MOVQ groups+40(FP), R8
	K5MASKS

k5ggroup:
	TESTQ  R8, R8
	JEQ    k5gend
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

k5gloop:
	VMOVUPS (SI), Z30
	VMOVUPS 64(SI), Z29
	K5SUB4(0)
	K5SUB4(1)
	K5SUB4(2)
	K5SUB4(3)
	K5SUB4(4)
	K5SUB4(5)
	K5SUB4(6)
	K5SUB4(7)
	ADDQ $2944, SI
	ADDQ $256, DI
	ADDQ $256, R11
	ADDQ $256, R12
	ADDQ $256, R14
	ADDQ $32, R9
	ADDQ $32, R10
	DECQ CX
	JNZ  k5gloop

	MOVQ    ostride+56(FP), AX
	SHLQ    $2, AX
	VMOVUPS Z0, (R13)
	VMOVUPS Z1, (R13)(AX*1)
	VMOVUPS Z2, (R13)(AX*2)
	LEAQ    (AX)(AX*2), AX
	VMOVUPS Z3, (R13)(AX*1)
	ADDQ    $64, R13
	DECQ    R8
	JMP     k5ggroup

k5gend:
	VZEROUPPER
	RET
