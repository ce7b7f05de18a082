#include "textflag.h"
#include "ahead_amd64.h"
#include "packz_amd64.h"

// Packed TQ2_0 kernels (layout and arithmetic: packtq.go), sixteen rows per
// ZMM lane, on AVX-512 VNNI and GFNI. Per super-block: the rows' d widened
// from f16; per block j and token: an integer sum started from −Σx = m8/8
// and completed by eight VPDPBUSD (the block's two code vectors, each
// unpacked into its four codes by a mask of 0x03 and three
// VGF2P8AFFINEQB, times one activation dword broadcast to every lane),
// converted, and one FMA into the block position's accumulator: eight
// accumulators a group, summed at the end as the GGUF-layout kernel's
// IQ1HSUM sums its eight lanes. (With shifts and masks instead of the
// affine maps the decode kernel ran at 26 GB/s a thread on data in L2,
// with them at 32: each vector then costs a load, a mask, three maps and
// four VPDPBUSD.)
//
// Z31 = 0x03 bytes. |p| ≤ 32·3·127 + 32·127 on any byte input: every sum
// is exact in int32 in any order, and p converts to float32 exactly.

// The bit matrices of VGF2P8AFFINEQB that take a byte's bit pair k (k =
// 1, 2, 3) to its bits 0, 1 and clear the rest: result bit i is the parity
// of the source byte ANDed with matrix byte 7 − i.
DATA tq2Pair1<>+0(SB)/8, $0x0408000000000000
GLOBL tq2Pair1<>(SB), RODATA|NOPTR, $8
DATA tq2Pair2<>+0(SB)/8, $0x1020000000000000
GLOBL tq2Pair2<>(SB), RODATA|NOPTR, $8
DATA tq2Pair3<>+0(SB)/8, $0x4080000000000000
GLOBL tq2Pair3<>(SB), RODATA|NOPTR, $8

// TQ2CODES unpacks the code vector at off(base) into its four codes: a
// mask of 0x03 for the first, one GF(2) affine map each for the others.
#define TQ2CODES(off, base, z0, z1, z2, z3) \
	VMOVDQU64 off(base), z3; \
	VPANDD z3, Z31, z0; \
	VGF2P8AFFINEQB.BCST $0, tq2Pair1<>(SB), z3, z1; \
	VGF2P8AFFINEQB.BCST $0, tq2Pair2<>(SB), z3, z2; \
	VGF2P8AFFINEQB.BCST $0, tq2Pair3<>(SB), z3, z3

// TQ2DOT adds the four codes z0…z3 times activation dwords xoff…xoff+12
// of xb to isum.
#define TQ2DOT(xb, xoff, z0, z1, z2, z3, isum) \
	VPDPBUSD.BCST xoff(xb), z0, isum; \
	VPDPBUSD.BCST xoff+4(xb), z1, isum; \
	VPDPBUSD.BCST xoff+8(xb), z2, isum; \
	VPDPBUSD.BCST xoff+12(xb), z3, isum

// TQ2NEG sets z to one token's −Σx over block j from its m8 at maddr.
#define TQ2NEG(maddr, z) \
	VPBROADCASTD maddr, z; \
	VPSRAD       $3, z, z

// TQ2FMA converts isum and adds it times d·dx (dv the rows' d, daddr the
// token's block scale) to acc; sc is scratch.
#define TQ2FMA(isum, dv, daddr, sc, acc) \
	VCVTDQ2PS   isum, isum; \
	VMULPS.BCST daddr, dv, sc; \
	VFMADD231PS isum, sc, acc

// TQ2BLK1 is block j of one token for the group at SI (d in Z16), into acc.
#define TQ2BLK1(j, acc) \
	TQ2NEG(4*j(R9), Z18); \
	TQ2CODES(32+128*j, SI, Z20, Z21, Z22, Z23); \
	TQ2DOT(DI, 32*j, Z20, Z21, Z22, Z23, Z18); \
	TQ2CODES(96+128*j, SI, Z24, Z25, Z26, Z27); \
	TQ2DOT(DI, 32*j+16, Z24, Z25, Z26, Z27, Z18); \
	TQ2FMA(Z18, Z16, 4*j(R10), Z28, acc)

// TQ2BLK2 is block j of one token for two groups at once: the group at SI
// (d in Z16, accumulator a) and the next at R11 (Z17, b).
#define TQ2BLK2(j, a, b) \
	TQ2NEG(4*j(R9), Z18); \
	VMOVDQA64 Z18, Z19; \
	TQ2CODES(32+128*j, SI, Z20, Z21, Z22, Z23); \
	TQ2DOT(DI, 32*j, Z20, Z21, Z22, Z23, Z18); \
	TQ2CODES(32+128*j, R11, Z24, Z25, Z26, Z27); \
	TQ2DOT(DI, 32*j, Z24, Z25, Z26, Z27, Z19); \
	TQ2CODES(96+128*j, SI, Z20, Z21, Z22, Z23); \
	TQ2DOT(DI, 32*j+16, Z20, Z21, Z22, Z23, Z18); \
	TQ2CODES(96+128*j, R11, Z24, Z25, Z26, Z27); \
	TQ2DOT(DI, 32*j+16, Z24, Z25, Z26, Z27, Z19); \
	TQ2FMA(Z18, Z16, 4*j(R10), Z28, a); \
	TQ2FMA(Z19, Z17, 4*j(R10), Z29, b)

#define TQ2CONSTS \
	MOVL         $0x03030303, AX; \
	VPBROADCASTD AX, Z31

// func rowsTQ2x16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32)
//
// out[r] = row r · x for groups·16 packed rows of nsb super-blocks.
// SI weights, DI codes, R9 m8, R10 block scales (each at the current
// super-block), CX super-blocks left, R8 groups left, R13 out; groups two
// at a time (R11 the second's weights, BX the bytes of a group), Z0…Z7
// the first's block accumulators and Z8…Z15 the second's.
TEXT ·rowsTQ2x16VNNI(SB), NOSPLIT, $0-56
	MOVQ  p+0(FP), SI
	MOVQ  out+48(FP), R13
	MOVQ  groups+40(FP), R8
	MOVQ  nsb+32(FP), BX
	IMULQ $1056, BX
	TQ2CONSTS

tq2rpair:
	CMPQ R8, $2
	JLT  tq2rgroup
	LEAQ (SI)(BX*1), R11
	MOVQ xq+8(FP), DI
	MOVQ m8+16(FP), R9
	MOVQ xd+24(FP), R10
	MOVQ nsb+32(FP), CX
	PZERO8(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	PZERO8(Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)

tq2rploop:
	VCVTPH2PS (SI), Z16
	VCVTPH2PS (R11), Z17
	PFL8(0)
	PFLB8(0)
	TQ2BLK2(0, Z0, Z8)
	TQ2BLK2(1, Z1, Z9)
	TQ2BLK2(2, Z2, Z10)
	TQ2BLK2(3, Z3, Z11)
	PFL8(512)
	PFLB8(512)
	PFL(1024)
	PFLB(1024)
	TQ2BLK2(4, Z4, Z12)
	TQ2BLK2(5, Z5, Z13)
	TQ2BLK2(6, Z6, Z14)
	TQ2BLK2(7, Z7, Z15)
	ADDQ $1056, SI
	ADDQ $1056, R11
	ADDQ $256, DI
	ADDQ $32, R9
	ADDQ $32, R10
	DECQ CX
	JNZ  tq2rploop

	PHSUM8(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	PHSUM8(Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)
	VMOVUPS Z0, (R13)
	VMOVUPS Z8, 64(R13)
	ADDQ    $128, R13
	MOVQ    R11, SI
	SUBQ    $2, R8
	JMP     tq2rpair

tq2rgroup:
	TESTQ R8, R8
	JEQ   tq2rend
	MOVQ  xq+8(FP), DI
	MOVQ  m8+16(FP), R9
	MOVQ  xd+24(FP), R10
	MOVQ  nsb+32(FP), CX
	PZERO8(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)

tq2rloop:
	VCVTPH2PS (SI), Z16
	PFL8(0)
	TQ2BLK1(0, Z0)
	TQ2BLK1(1, Z1)
	TQ2BLK1(2, Z2)
	TQ2BLK1(3, Z3)
	PFL8(512)
	PFL(1024)
	TQ2BLK1(4, Z4)
	TQ2BLK1(5, Z5)
	TQ2BLK1(6, Z6)
	TQ2BLK1(7, Z7)
	ADDQ $1056, SI
	ADDQ $256, DI
	ADDQ $32, R9
	ADDQ $32, R10
	DECQ CX
	JNZ  tq2rloop

	PHSUM8(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	VMOVUPS Z0, (R13)
	ADDQ    $64, R13
	DECQ    R8
	JMP     tq2rgroup

tq2rend:
	VZEROUPPER
	RET

// TQ2TOK4 adds the four codes z0…z3 (activation dwords xoff…xoff+12 of a
// block) for the four tokens into Z17…Z20.
#define TQ2TOK4(xoff, z0, z1, z2, z3) \
	TQ2DOT(DI, xoff, z0, z1, z2, z3, Z17); \
	TQ2DOT(R11, xoff, z0, z1, z2, z3, Z18); \
	TQ2DOT(R12, xoff, z0, z1, z2, z3, Z19); \
	TQ2DOT(R14, xoff, z0, z1, z2, z3, Z20)

// TQ2BLK4 is block j (block position q = j%4 of the pass) for four tokens:
// their accumulators Z(q), Z(4+q), Z(8+q), Z(12+q); m8 from R9 and block
// scales from R10, the tokens DX bytes apart (BX = 3·DX).
#define TQ2BLK4(j, a0, a1, a2, a3) \
	TQ2NEG(4*j(R9), Z17); \
	TQ2NEG(4*j(R9)(DX*1), Z18); \
	TQ2NEG(4*j(R9)(DX*2), Z19); \
	TQ2NEG(4*j(R9)(BX*1), Z20); \
	TQ2CODES(32+128*j, SI, Z21, Z22, Z23, Z24); \
	TQ2TOK4(32*j, Z21, Z22, Z23, Z24); \
	TQ2CODES(96+128*j, SI, Z21, Z22, Z23, Z24); \
	TQ2TOK4(32*j+16, Z21, Z22, Z23, Z24); \
	TQ2FMA(Z17, Z16, 4*j(R10), Z25, a0); \
	TQ2FMA(Z18, Z16, 4*j(R10)(DX*1), Z26, a1); \
	TQ2FMA(Z19, Z16, 4*j(R10)(DX*2), Z27, a2); \
	TQ2FMA(Z20, Z16, 4*j(R10)(BX*1), Z28, a3)

// TQ2G4INIT points DI, R11, R12, R14 at the four tokens' codes, R9 at m8,
// R10 at the block scales and SI at the group (saved in R15), CX the
// super-blocks, and clears the sixteen accumulators.
#define TQ2G4INIT \
	MOVQ   R15, SI; \
	PG4START; \
	PZERO8(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7); \
	PZERO8(Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)

// func gemm4TQ2x16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32, ostride int)
//
// Not NOSPLIT: its 1 KiB frame is more than a nosplit function may take.
// out[t·ostride + r] = row r · token t for groups·16 packed rows and four
// tokens whose codes are xq + t·256·nsb, m8 m8 + t·8·nsb and block scales
// xd + t·8·nsb. Thirty-two accumulators do not fit beside the codes, so
// each group runs in two passes over its super-blocks: blocks 0…3, whose
// accumulators (token t's block q in Z(4t+q)) then wait in the frame, and
// blocks 4…7. R11, R12, R14 the codes of tokens 1…3, DX the bytes per
// token of m8 and scales, R15 the group's weights.
TEXT ·gemm4TQ2x16VNNI(SB), 0, $1024-64
	MOVQ p+0(FP), R15
	MOVQ nsb+32(FP), DX
	SHLQ $5, DX                // 8 blocks · 4 bytes per super-block
	LEAQ (DX)(DX*2), BX
	MOVQ out+48(FP), R13
	MOVQ groups+40(FP), R8
	TQ2CONSTS

tq2ggroup:
	TESTQ R8, R8
	JEQ   tq2gend
	TQ2G4INIT

tq2gloop0:
	VCVTPH2PS (SI), Z16
	TQ2BLK4(0, Z0, Z4, Z8, Z12)
	TQ2BLK4(1, Z1, Z5, Z9, Z13)
	TQ2BLK4(2, Z2, Z6, Z10, Z14)
	TQ2BLK4(3, Z3, Z7, Z11, Z15)
	PG4NEXT(1056)
	DECQ CX
	JNZ  tq2gloop0

	PSPILL16
	TQ2G4INIT

tq2gloop1:
	VCVTPH2PS (SI), Z16
	TQ2BLK4(4, Z0, Z4, Z8, Z12)
	TQ2BLK4(5, Z1, Z5, Z9, Z13)
	TQ2BLK4(6, Z2, Z6, Z10, Z14)
	TQ2BLK4(7, Z3, Z7, Z11, Z15)
	PG4NEXT(1056)
	DECQ CX
	JNZ  tq2gloop1

	MOVQ ostride+56(FP), AX
	SHLQ $2, AX
	PG4OUT(0, Z0, Z1, Z2, Z3, (R13))
	PG4OUT(1, Z4, Z5, Z6, Z7, (R13)(AX*1))
	PG4OUT(2, Z8, Z9, Z10, Z11, (R13)(AX*2))
	LEAQ (AX)(AX*2), AX
	PG4OUT(3, Z12, Z13, Z14, Z15, (R13)(AX*1))
	ADDQ $64, R13
	MOVQ SI, R15               // the pass ended at the next group
	DECQ R8
	JMP  tq2ggroup

tq2gend:
	VZEROUPPER
	RET
