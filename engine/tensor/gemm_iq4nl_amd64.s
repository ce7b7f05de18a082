#include "textflag.h"

// Four-token IQ4_NL prefill on AVX-512 VNNI (512-bit VPDPBUSD, VPSHUFB and
// VPERMD: AVX512F, BW, VL and VNNI). Per token it computes exactly what
// dotIQ4NLRowsAVX2 (dot_legacy_amd64.s) does:
//
//   - for each group of four blocks, the four exact block sums
//     Σ = Σ level·xq, converted, times d·dx (d first), FMA'd into a
//     four-lane accumulator (lane b gathers blocks 4g+b);
//   - for each of the 0–3 blocks left over, the eight int32 sums of four
//     products (lane k: activations 4k…4k+3 of the block), converted,
//     times the broadcast d·dx, FMA'd into an eight-lane accumulator;
//   - at the row's end, LROWEND's additions: (tail_i + acc_i) +
//     (tail_{i+4} + 0), then the two VHADDPS.
//
// The integer sums are exact in any order, so they are formed here as is
// cheapest for four tokens at once; the float operations are the decode
// kernel's, with the same operands in the same order.
//
// VPDPBUSD multiplies unsigned bytes by signed ones. The unsigned side is
// the level plus 128 (a table of 1…241, looked up by VPSHUFB), the signed
// side the activation codes, read straight from memory; the 128·Σxq this
// adds to a block's sum is taken off again with the quantiser's
// m8 = −8·Σxq, as 16·m8. The leftover blocks need the sums of four
// products exact each, so there the 128·Σ of each four codes comes from a
// second VPDPBUSD against 0x80 bytes.
//
// A group of four blocks, for four tokens: the levels of blocks 0,1 and
// 2,3 fill Z16 and Z17 in activation order (block 0's 32 levels, then
// block 1's), so each token's two VPDPBUSD read its 128 activation codes
// as two memory operands and leave sixteen sums of four products per block
// pair (Z0…Z7: token t's pairs in Z(2t), Z(2t+1)). Three rounds of
// unpack-and-add fold those 128 lanes into sixteen block sums, lane 4b+t
// for token t's block b: the layout of the activations' dT (four tokens'
// dx side by side per block, see prepActVNNI), so the float work is one
// convert, multiply and FMA per group for all four tokens.
//
// Registers:
//
//	SI  weights (the current block)    DI  token 0's activation codes
//	R10 dT at the current block        R11 token 0's m8 at the current block
//	R12 32·nb (one token's codes to the next), R14 = 3·R12
//	DX  4·nb (one token's m8 to the next), BX = 3·DX
//	R8  rows left   CX blocks left   R13 out[row]   AX, R9 scratch
//	Z0…Z7  the tokens' integer sums; Z8 m8; Z9 d·dx; Z10…Z15 scratch
//	Z16, Z17 the group's levels + 128 (Z18 scratch)
//	Z24 the four-lane accumulators, lane 4b+t; Z25, Z26 the leftover
//	    blocks' eight-lane accumulators, tokens 0|1 and 2|3
//	Z23 0x80 bytes  Z27 the 4×4 transpose (lane 4b+t ↔ 4t+b)
//	Z28 d_b to lanes 4b…4b+3  Z29 the levels + 128 in each 128-bit lane
//	Z30 the dword shifts 0, 4 per 128-bit lane pair  Z31 0x0F bytes

// LPF is how far ahead the weights are prefetched, as in gemm_legacy_amd64.s.
#define LPF 2048

// kvalues_iq4nl plus 128, as unsigned bytes, in each 128-bit lane.
DATA giqU<>+0(SB)/8, $0x766a5d4f3f2d1801
DATA giqU<>+8(SB)/8, $0xf1d9c5b5a6998d81
DATA giqU<>+16(SB)/8, $0x766a5d4f3f2d1801
DATA giqU<>+24(SB)/8, $0xf1d9c5b5a6998d81
DATA giqU<>+32(SB)/8, $0x766a5d4f3f2d1801
DATA giqU<>+40(SB)/8, $0xf1d9c5b5a6998d81
DATA giqU<>+48(SB)/8, $0x766a5d4f3f2d1801
DATA giqU<>+56(SB)/8, $0xf1d9c5b5a6998d81
GLOBL giqU<>(SB), RODATA|NOPTR, $64

// Dword shift counts: 0 for the 128-bit lanes that take a block's low
// nibbles (lanes 0 and 2), 4 for those that take its high ones.
DATA giqShift<>+0(SB)/8, $0
DATA giqShift<>+8(SB)/8, $0
DATA giqShift<>+16(SB)/8, $0x0000000400000004
DATA giqShift<>+24(SB)/8, $0x0000000400000004
DATA giqShift<>+32(SB)/8, $0
DATA giqShift<>+40(SB)/8, $0
DATA giqShift<>+48(SB)/8, $0x0000000400000004
DATA giqShift<>+56(SB)/8, $0x0000000400000004
GLOBL giqShift<>(SB), RODATA|NOPTR, $64

// The 4×4 transpose of dwords: lane 4b+t takes lane 4t+b.
DATA giqT<>+0(SB)/8, $0x0000000400000000
DATA giqT<>+8(SB)/8, $0x0000000c00000008
DATA giqT<>+16(SB)/8, $0x0000000500000001
DATA giqT<>+24(SB)/8, $0x0000000d00000009
DATA giqT<>+32(SB)/8, $0x0000000600000002
DATA giqT<>+40(SB)/8, $0x0000000e0000000a
DATA giqT<>+48(SB)/8, $0x0000000700000003
DATA giqT<>+56(SB)/8, $0x0000000f0000000b
GLOBL giqT<>(SB), RODATA|NOPTR, $64

// Lane 4b+t takes lane b: the group's four d to each token's lanes.
DATA giqD<>+0(SB)/8, $0
DATA giqD<>+8(SB)/8, $0
DATA giqD<>+16(SB)/8, $0x0000000100000001
DATA giqD<>+24(SB)/8, $0x0000000100000001
DATA giqD<>+32(SB)/8, $0x0000000200000002
DATA giqD<>+40(SB)/8, $0x0000000200000002
DATA giqD<>+48(SB)/8, $0x0000000300000003
DATA giqD<>+56(SB)/8, $0x0000000300000003
GLOBL giqD<>(SB), RODATA|NOPTR, $64

// ZLEVELS2 sets dst to the levels + 128 of the blocks whose nibbles are at
// off0(SI) and off1(SI), in activation order: each block's sixteen bytes
// go to two 128-bit lanes, the second lane's shifted right by 4, masked to
// nibbles and looked up. Clobbers Z18.
#define ZLEVELS2(off0, off1, dst) \
	VBROADCASTI32X4 off0(SI), dst; \
	VBROADCASTI32X4 off1(SI), Z18; \
	VINSERTI64X4    $1, Y18, dst, dst; \
	VPSRLVD         Z30, dst, dst; \
	VPANDD          Z31, dst, dst; \
	VPSHUFB         dst, Z29, dst

// ZPAIR sets acc to a token's sixteen sums of four products over a block
// pair whose levels + 128 are in lv and codes at xaddr.
#define ZPAIR(xaddr, lv, acc) \
	VPXORD   acc, acc, acc; \
	VPDPBUSD xaddr, lv, acc

// ZFOLD2 folds two tokens' sums a and b (same block pair) into a, each
// 128-bit lane then [a's 0+2, b's 0+2, a's 1+3, b's 1+3]. Clobbers t.
#define ZFOLD2(a, b, t) \
	VPUNPCKLDQ b, a, t; \
	VPUNPCKHDQ b, a, a; \
	VPADDD     t, a, a

// ZFOLD4 folds ZFOLD2's results for tokens 0|1 (a) and 2|3 (b) into a:
// lane t of each 128-bit lane, token t's sum over that lane's sixteen
// products. Clobbers t.
#define ZFOLD4(a, b, t) \
	VPUNPCKLQDQ b, a, t; \
	VPUNPCKHQDQ b, a, a; \
	VPADDD      t, a, a

// ZHALVES4 converts the four f16 d of the group (at 0, 18, 36, 54 (SI))
// into X9's lanes, packed in AX as GHALVES4 does. Clobbers R9.
#define ZHALVES4 \
	MOVWQZX   0(SI), AX; \
	MOVWQZX   18(SI), R9; \
	SHLQ      $16, R9; \
	ORQ       R9, AX; \
	MOVWQZX   36(SI), R9; \
	SHLQ      $32, R9; \
	ORQ       R9, AX; \
	MOVWQZX   54(SI), R9; \
	SHLQ      $48, R9; \
	ORQ       R9, AX; \
	VMOVQ     AX, X9; \
	VCVTPH2PS X9, X9

// ZGROUP runs a group of four blocks for the four tokens into Z24.
#define ZGROUP \
	ZLEVELS2(2, 20, Z16); \
	ZLEVELS2(38, 56, Z17); \
	ZPAIR(0(DI), Z16, Z0); \
	ZPAIR(64(DI), Z17, Z1); \
	ZPAIR(0(DI)(R12*1), Z16, Z2); \
	ZPAIR(64(DI)(R12*1), Z17, Z3); \
	ZPAIR(0(DI)(R12*2), Z16, Z4); \
	ZPAIR(64(DI)(R12*2), Z17, Z5); \
	ZPAIR(0(DI)(R14*1), Z16, Z6); \
	ZPAIR(64(DI)(R14*1), Z17, Z7); \
	ZFOLD2(Z0, Z2, Z10); \
	ZFOLD2(Z4, Z6, Z11); \
	ZFOLD2(Z1, Z3, Z12); \
	ZFOLD2(Z5, Z7, Z13); \
	ZFOLD4(Z0, Z4, Z10); \
	ZFOLD4(Z1, Z5, Z11); \
	VSHUFI32X4      $0x88, Z1, Z0, Z14; \
	VSHUFI32X4      $0xdd, Z1, Z0, Z15; \
	VPADDD          Z15, Z14, Z14; \
	VMOVDQU32       (R11), X8; \
	VINSERTI32X4    $1, (R11)(DX*1), Z8, Z8; \
	VINSERTI32X4    $2, (R11)(DX*2), Z8, Z8; \
	VINSERTI32X4    $3, (R11)(BX*1), Z8, Z8; \
	VPERMD          Z8, Z27, Z8; \
	VPSLLD          $4, Z8, Z8; \
	VPADDD          Z8, Z14, Z14; \
	VCVTDQ2PS       Z14, Z14; \
	ZHALVES4; \
	VPERMPS         Z9, Z28, Z9; \
	VMULPS          (R10), Z9, Z9; \
	VFMADD231PS     Z14, Z9, Z24

// ZTAILPAIR adds two tokens' shares of a leftover block (levels + 128 in
// both 256-bit halves of Z16, d in every lane of Z9) to acc: codes at xa,
// xb; scales dx at da, db. Clobbers Z0, Z1, Z10, Z11.
#define ZTAILPAIR(xa, xb, da, db, acc) \
	VMOVDQU      xa, Y10; \
	VINSERTI64X4 $1, xb, Z10, Z10; \
	VPXORD       Z0, Z0, Z0; \
	VPDPBUSD     Z10, Z16, Z0; \
	VPXORD       Z1, Z1, Z1; \
	VPDPBUSD     Z10, Z23, Z1; \
	VPSUBD       Z1, Z0, Z0; \
	VCVTDQ2PS    Z0, Z0; \
	VBROADCASTSS da, Y10; \
	VBROADCASTSS db, Y11; \
	VINSERTF64X4 $1, Y11, Z10, Z10; \
	VMULPS       Z10, Z9, Z10; \
	VFMADD231PS  Z0, Z10, acc

// func gemm4IQ4NLVNNI(w *byte, xq *int8, m8 *int32, dT *float32, nb, rows int, out *float32, ostride int)
TEXT ·gemm4IQ4NLVNNI(SB), NOSPLIT, $0-64
	MOVQ         w+0(FP), SI
	MOVQ         nb+32(FP), R12
	SHLQ         $5, R12
	LEAQ         (R12)(R12*2), R14
	MOVQ         nb+32(FP), DX
	SHLQ         $2, DX
	LEAQ         (DX)(DX*2), BX
	MOVQ         out+48(FP), R13
	MOVQ         rows+40(FP), R8
	VMOVDQU64    giqU<>(SB), Z29
	VMOVDQU64    giqShift<>(SB), Z30
	VMOVDQU64    giqT<>(SB), Z27
	VMOVDQU64    giqD<>(SB), Z28
	MOVL         $0x0f0f0f0f, AX
	VPBROADCASTD AX, Z31
	MOVL         $0x80808080, AX
	VPBROADCASTD AX, Z23

zrow:
	TESTQ  R8, R8
	JEQ    zend
	MOVQ   xq+8(FP), DI
	MOVQ   dT+24(FP), R10
	MOVQ   m8+16(FP), R11
	MOVQ   nb+32(FP), CX
	VPXORD Z24, Z24, Z24
	VPXORD Z25, Z25, Z25
	VPXORD Z26, Z26, Z26

zloop4:
	CMPQ       CX, $4
	JLT        ztail
	PREFETCHT0 LPF(SI)
	PREFETCHT0 LPF+64(SI)
	ZGROUP
	ADDQ       $72, SI
	ADDQ       $128, DI
	ADDQ       $64, R10
	ADDQ       $16, R11
	SUBQ       $4, CX
	JMP        zloop4

ztail:
	TESTQ           CX, CX
	JEQ             zdone
	VBROADCASTI32X4 2(SI), Z16
	VPSRLVD         Z30, Z16, Z16
	VPANDD          Z31, Z16, Z16
	VPSHUFB         Z16, Z29, Z16
	MOVWLZX         0(SI), AX
	VMOVD           AX, X9
	VCVTPH2PS       X9, X9
	VBROADCASTSS    X9, Z9
	ZTAILPAIR(0(DI), 0(DI)(R12*1), 0(R10), 4(R10), Z25)
	ZTAILPAIR(0(DI)(R12*2), 0(DI)(R14*1), 8(R10), 12(R10), Z26)
	ADDQ            $18, SI
	ADDQ            $32, DI
	ADDQ            $16, R10
	DECQ            CX
	JMP             ztail

zdone:
	// LROWEND for the four tokens: Z24 to lane 4t+b, and the leftover
	// sums' lanes 0–3 (Z10) and 4–7 (Z11) of each token side by side
	// likewise; then per token (tail_i + acc_i) + (tail_{i+4} + 0) and the
	// decode kernel's own two VHADDPS, two tokens per YMM.
	VPERMPS       Z24, Z27, Z24
	VSHUFF32X4    $0x88, Z26, Z25, Z10
	VSHUFF32X4    $0xdd, Z26, Z25, Z11
	VPXORD        Z12, Z12, Z12
	VADDPS        Z24, Z10, Z10
	VADDPS        Z12, Z11, Z11
	VADDPS        Z11, Z10, Z10
	VEXTRACTF64X4 $1, Z10, Y11
	VHADDPS       Y10, Y10, Y10
	VHADDPS       Y10, Y10, Y10
	VHADDPS       Y11, Y11, Y11
	VHADDPS       Y11, Y11, Y11
	MOVQ          ostride+56(FP), AX
	SHLQ          $2, AX
	VMOVSS        X10, (R13)
	VEXTRACTF128  $1, Y10, X12
	VMOVSS        X12, (R13)(AX*1)
	VMOVSS        X11, (R13)(AX*2)
	VEXTRACTF128  $1, Y11, X12
	LEAQ          (AX)(AX*2), AX
	VMOVSS        X12, (R13)(AX*1)
	ADDQ          $4, R13
	DECQ          R8
	JMP           zrow

zend:
	VZEROUPPER
	RET
