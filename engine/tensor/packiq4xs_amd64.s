#include "textflag.h"
#include "ahead_amd64.h"

// Packed IQ4_XS kernels (layout and arithmetic: packiq4xs.go), sixteen rows
// per ZMM lane, on AVX-512 VNNI. Per super-block: Z30 the rows' d; per
// sub-block j: Z16 = d·ls_j (exact), the codes turned into unsigned levels
// kvalue+128 in Z8…Z15 (V0 low/high … V3 low/high) once for every token,
// then per token an exact integer sum started from 16·m8 = −128·Σx and
// completed by VPDPBUSD (unsigned levels times one signed activation dword
// broadcast to every lane), and the one FMA of the contract.
//
// Z31 = 0x0F bytes; Z28 = the level table in each 128-bit lane, for
// VPSHUFB, which looks bytes up within their own lane. The nibbles are
// masked before the lookup because VPSHUFB zeroes a byte whose top bit is
// set instead of indexing with its low four bits.
//
// |i| ≤ 32·127·127 and every partial sum of 16·m8 (|16·m8| ≤ 128·32·127)
// and the products (each ≤ 241·127) stays far inside int32: the sums are
// exact in any order, and i converts to float32 exactly.

// kvalues_iq4nl + 128 (iq4nlValue in quant_legacy.go, XOR 0x80): 1, 24,
// 45, 63, 79, 93, 106, 118, 129, 141, 153, 166, 181, 197, 217, 241.
DATA xsLevelsU<>+0(SB)/8, $0x766a5d4f3f2d1801
DATA xsLevelsU<>+8(SB)/8, $0xf1d9c5b5a6998d81
GLOBL xsLevelsU<>(SB), RODATA|NOPTR, $16

// XSLEV turns the 64-byte code vector at off(SI) into the levels of its low
// nibbles (lo) and its high nibbles (hi).
#define XSLEV(off, lo, hi) XSLEVR(off, lo, hi, SI)

// XSLEVR is XSLEV for the vector at off(base).
#define XSLEVR(off, lo, hi, base) \
	VPANDD  off(base), Z31, lo; \
	VPSRLW  $4, off(base), hi; \
	VPANDD  Z31, hi, hi; \
	VPSHUFB lo, Z28, lo; \
	VPSHUFB hi, Z28, hi

// XSSUB prepares sub-block j of the super-block at SI: its scale vector
// d·ls_j and its levels.
#define XSSUB(j) XSSUBR(j, SI, Z30)

// XSSUBR is XSSUB for the super-block at base, whose d is in dv.
#define XSSUBR(j, base, dv) \
	VPMOVSXBD 64+16*j(base), Z16; \
	VCVTDQ2PS Z16, Z16; \
	VMULPS    dv, Z16, Z16; \
	XSLEVR(192+256*j, Z8, Z9, base); \
	XSLEVR(256+256*j, Z10, Z11, base); \
	XSLEVR(320+256*j, Z12, Z13, base); \
	XSLEVR(384+256*j, Z14, Z15, base)

// XSTOK adds one token's share of the prepared sub-block to acc: its codes
// at xoff(xb), m8 at maddr and block scale at daddr; isum and sc are
// scratch. Low nibbles of Vv meet activation dword v, high ones dword 4+v.
#define XSTOK(xb, xoff, maddr, daddr, isum, sc, acc) \
	VPBROADCASTD  maddr, isum; \
	VPSLLD        $4, isum, isum; \
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
	VFMADD231PS   isum, sc, acc

#define XSCONSTS \
	MOVL            $0x0f0f0f0f, AX; \
	VPBROADCASTD    AX, Z31; \
	VBROADCASTI32X4 xsLevelsU<>(SB), Z28

// XSSUB1 is sub-block j for one token: codes at DI, m8 at R9, scales R10.
#define XSSUB1(j) \
	XSSUB(j); \
	XSTOK(DI, 32*j, 4*j(R9), 4*j(R10), Z17, Z18, Z0)

// XSSUB2 is sub-block j for one token of two groups at once: the group at
// SI (d in Z30, sums in Z0) and the next at R11 (Z29, Z1).
#define XSSUB2(j) \
	XSSUB(j); \
	XSTOK(DI, 32*j, 4*j(R9), 4*j(R10), Z17, Z18, Z0); \
	XSSUBR(j, R11, Z29); \
	XSTOK(DI, 32*j, 4*j(R9), 4*j(R10), Z19, Z20, Z1)

// func rowsIQ4XSx16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32)
//
// out[r] = row r · x for groups·16 packed rows of nsb super-blocks.
// SI weights, DI codes, R9 m8, R10 block scales (each at the current
// super-block), CX super-blocks left, R8 groups left, R13 out, Z0 the
// sums; groups two at a time as packk_amd64.s's rowsQ4Kx16VNNI (R11 the
// second's weights, BX the bytes of a group, Z1 its sums).
TEXT ·rowsIQ4XSx16VNNI(SB), NOSPLIT, $0-56
	MOVQ  p+0(FP), SI
	MOVQ  out+48(FP), R13
	MOVQ  groups+40(FP), R8
	MOVQ  nsb+32(FP), BX
	IMULQ $2240, BX
	XSCONSTS

xsrpair:
	CMPQ   R8, $2
	JLT    xsrgroup
	LEAQ   (SI)(BX*1), R11
	MOVQ   xq+8(FP), DI
	MOVQ   m8+16(FP), R9
	MOVQ   xd+24(FP), R10
	MOVQ   nsb+32(FP), CX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1

xsrploop:
	VMOVUPS (SI), Z30
	VMOVUPS (R11), Z29
	PFL4(0)
	PFL(256)
	PFLB4(0)
	PFLB(256)
	XSSUB2(0)
	PFL4(320)
	PFLB4(320)
	XSSUB2(1)
	PFL4(576)
	PFL(832)
	PFLB4(576)
	PFLB(832)
	XSSUB2(2)
	PFL4(896)
	PFLB4(896)
	XSSUB2(3)
	PFL4(1152)
	PFLB4(1152)
	XSSUB2(4)
	PFL4(1408)
	PFL(1664)
	PFLB4(1408)
	PFLB(1664)
	XSSUB2(5)
	PFL4(1728)
	PFLB4(1728)
	XSSUB2(6)
	PFL4(1984)
	PFLB4(1984)
	XSSUB2(7)
	ADDQ $2240, SI
	ADDQ $2240, R11
	ADDQ $256, DI
	ADDQ $32, R9
	ADDQ $32, R10
	DECQ CX
	JNZ  xsrploop

	VMOVUPS Z0, (R13)
	VMOVUPS Z1, 64(R13)
	ADDQ    $128, R13
	MOVQ    R11, SI
	SUBQ    $2, R8
	JMP     xsrpair

xsrgroup:
	TESTQ  R8, R8
	JEQ    xsrend
	MOVQ   xq+8(FP), DI
	MOVQ   m8+16(FP), R9
	MOVQ   xd+24(FP), R10
	MOVQ   nsb+32(FP), CX
	VPXORD Z0, Z0, Z0

xsrloop:
	VMOVUPS (SI), Z30
	PFL4(0)
	PFL(256)
	XSSUB1(0)
	PFL4(320)
	XSSUB1(1)
	PFL4(576)
	PFL(832)
	XSSUB1(2)
	PFL4(896)
	XSSUB1(3)
	PFL4(1152)
	XSSUB1(4)
	PFL4(1408)
	PFL(1664)
	XSSUB1(5)
	PFL4(1728)
	XSSUB1(6)
	PFL4(1984)
	XSSUB1(7)
	ADDQ $2240, SI
	ADDQ $256, DI
	ADDQ $32, R9
	ADDQ $32, R10
	DECQ CX
	JNZ  xsrloop

	VMOVUPS Z0, (R13)
	ADDQ    $64, R13
	DECQ    R8
	JMP     xsrgroup

xsrend:
	VZEROUPPER
	RET

// XSSUB4 is sub-block j for four tokens: codes at DI, R11, R12, R14; m8
// from R9 and block scales from R10, the tokens DX bytes apart (BX =
// 3·DX); token t's sums in Z(t).
#define XSSUB4(j) \
	XSSUB(j); \
	XSTOK(DI, 32*j, 4*j(R9), 4*j(R10), Z17, Z18, Z0); \
	XSTOK(R11, 32*j, 4*j(R9)(DX*1), 4*j(R10)(DX*1), Z19, Z20, Z1); \
	XSTOK(R12, 32*j, 4*j(R9)(DX*2), 4*j(R10)(DX*2), Z21, Z22, Z2); \
	XSTOK(R14, 32*j, 4*j(R9)(BX*1), 4*j(R10)(BX*1), Z23, Z24, Z3)

// func gemm4IQ4XSx16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32, ostride int)
//
// out[t·ostride + r] = row r · token t for groups·16 packed rows and four
// tokens whose codes are xq + t·256·nsb, m8 m8 + t·8·nsb and block scales
// xd + t·8·nsb. Registers as rowsIQ4XSx16VNNI, plus R11, R12, R14 the
// codes of tokens 1…3 and DX the bytes per token of m8 and scales.
TEXT ·gemm4IQ4XSx16VNNI(SB), NOSPLIT, $0-64
	MOVQ p+0(FP), SI
	MOVQ nsb+32(FP), DX
	SHLQ $5, DX                // 8 blocks · 4 bytes per super-block
	LEAQ (DX)(DX*2), BX
	MOVQ out+48(FP), R13
	MOVQ groups+40(FP), R8
	XSCONSTS

xsggroup:
	TESTQ  R8, R8
	JEQ    xsgend
	MOVQ   xq+8(FP), DI
	MOVQ   nsb+32(FP), AX
	SHLQ   $8, AX              // codes per token
	LEAQ   (DI)(AX*1), R11
	LEAQ   (R11)(AX*1), R12
	LEAQ   (R12)(AX*1), R14
	MOVQ   m8+16(FP), R9
	MOVQ   xd+24(FP), R10
	MOVQ   nsb+32(FP), CX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3

xsgloop:
	VMOVUPS (SI), Z30
	XSSUB4(0)
	XSSUB4(1)
	XSSUB4(2)
	XSSUB4(3)
	XSSUB4(4)
	XSSUB4(5)
	XSSUB4(6)
	XSSUB4(7)
	ADDQ $2240, SI
	ADDQ $256, DI
	ADDQ $256, R11
	ADDQ $256, R12
	ADDQ $256, R14
	ADDQ $32, R9
	ADDQ $32, R10
	DECQ CX
	JNZ  xsgloop

	MOVQ    ostride+56(FP), AX
	SHLQ    $2, AX
	VMOVUPS Z0, (R13)
	VMOVUPS Z1, (R13)(AX*1)
	VMOVUPS Z2, (R13)(AX*2)
	LEAQ    (AX)(AX*2), AX
	VMOVUPS Z3, (R13)(AX*1)
	ADDQ    $64, R13
	DECQ    R8
	JMP     xsggroup

xsgend:
	VZEROUPPER
	RET
