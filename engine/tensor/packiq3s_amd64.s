#include "textflag.h"
#include "ahead_amd64.h"
#include "packz_amd64.h"

// Packed IQ3_S kernels (layout and arithmetic: packiq3s.go), sixteen rows
// per ZMM lane, on AVX-512 VNNI and VBMI, with the grid looked up in
// registers. Per super-block and token: its activations transposed into
// the frame (byte 32j+16h+4p+l takes x[32j+16h+4l+p]: one VPERMB per two
// sub-blocks) and the rows' d widened from f16. Per half h of sub-block j
// (64 lookups: entries 4h…4h+3 of the sixteen rows): two VPERMI2B under
// the masks of the index bytes' bit 7 (VPMOVB2M) and its complement look
// the low seven bits up in the quarters of iq3sCodes with bit 8 = 0, two
// more in those with bit 8 = 1, and one VPBLENDMB under bit 8's mask
// (KMOVQ) picks, once for weights 0, 1 and once for 2, 3 (iq3sCodes in
// Z0…Z15); one VPTERNLOGD each
// merges the sign bits into the codes' free bits; then each weight
// position p is one VPERMB of a nibble (shifted down for p = 1, 3) through
// iq3sW into 16 ± m and one VPDPBUSD against the transposed activation
// dword, broadcast. Per sub-block and token: the sum started from −16·Σx
// = 2·m8, kept in two chains (even and odd positions), converted, times
// 2s+1 (exact), and one FMA into the sub-block position's accumulator:
// eight accumulators a group, summed at the end as the GGUF-layout
// kernel's IQ3HSUM sums its eight lanes.
//
// Vector operations a half and token: 8 VPERMI2B and 4 VPERMB (port 5);
// VPMOVB2M, KNOTQ, 2 VPSRLW and 4 VPDPBUSD (port 0); 2 VPBLENDMB and 2
// VPTERNLOGD (either): 24 for 64 lookups, against about 48 and 64 loads
// (four VPGATHERDD of sixteen rows, their index widening and ninth bits,
// the sign masks and merges) for the gather kernels this replaced (commit
// 133c753).
//
// Z31 = iq3sOdd.

// iq3sW: the unsigned weight 16 ± (2k+1) of a nibble, repeated four times
// (VPERMB reads six index bits), for the codes of weights 0, 1 (level k
// in bits 0…2, sign at bit 3) at 0 and of weights 2, 3 (k in bits 0, 1,
// 3, sign at bit 2) at 64. iq3sT: the transposition of a token's codes,
// byte 16q+4p+l from byte 16q+4l+p. TestPackedIQ3S checks both through
// the kernels.
DATA iq3sW<>+0(SB)/8, $0x1f1d1b1917151311
DATA iq3sW<>+8(SB)/8, $0x01030507090b0d0f
DATA iq3sW<>+16(SB)/8, $0x1f1d1b1917151311
DATA iq3sW<>+24(SB)/8, $0x01030507090b0d0f
DATA iq3sW<>+32(SB)/8, $0x1f1d1b1917151311
DATA iq3sW<>+40(SB)/8, $0x01030507090b0d0f
DATA iq3sW<>+48(SB)/8, $0x1f1d1b1917151311
DATA iq3sW<>+56(SB)/8, $0x01030507090b0d0f
DATA iq3sW<>+64(SB)/8, $0x090b0d0f17151311
DATA iq3sW<>+72(SB)/8, $0x010305071f1d1b19
DATA iq3sW<>+80(SB)/8, $0x090b0d0f17151311
DATA iq3sW<>+88(SB)/8, $0x010305071f1d1b19
DATA iq3sW<>+96(SB)/8, $0x090b0d0f17151311
DATA iq3sW<>+104(SB)/8, $0x010305071f1d1b19
DATA iq3sW<>+112(SB)/8, $0x090b0d0f17151311
DATA iq3sW<>+120(SB)/8, $0x010305071f1d1b19
GLOBL iq3sW<>(SB), RODATA|NOPTR, $128

DATA iq3sT<>+0(SB)/8, $0x0d0905010c080400
DATA iq3sT<>+8(SB)/8, $0x0f0b07030e0a0602
DATA iq3sT<>+16(SB)/8, $0x1d1915111c181410
DATA iq3sT<>+24(SB)/8, $0x1f1b17131e1a1612
DATA iq3sT<>+32(SB)/8, $0x2d2925212c282420
DATA iq3sT<>+40(SB)/8, $0x2f2b27232e2a2622
DATA iq3sT<>+48(SB)/8, $0x3d3935313c383430
DATA iq3sT<>+56(SB)/8, $0x3f3b37333e3a3632
GLOBL iq3sT<>(SB), RODATA|NOPTR, $64

// iq3sM88, iq3sM44: the sign bits the codes of weights 0, 1 (bits 3, 7) and
// 2, 3 (bits 2, 6) take from the sign bytes.
DATA iq3sM88<>+0(SB)/4, $0x88888888
GLOBL iq3sM88<>(SB), RODATA|NOPTR, $4
DATA iq3sM44<>+0(SB)/4, $0x44444444
GLOBL iq3sM44<>(SB), RODATA|NOPTR, $4

// iq3sOdd is the sixteen odd scales 2s+1 (s = 0…15) as floats: VPERMPS
// looks a nibble s up in it (it reads an index's low four bits only).
DATA iq3sOdd<>+0(SB)/8, $0x404000003f800000
DATA iq3sOdd<>+8(SB)/8, $0x40e0000040a00000
DATA iq3sOdd<>+16(SB)/8, $0x4130000041100000
DATA iq3sOdd<>+24(SB)/8, $0x4170000041500000
DATA iq3sOdd<>+32(SB)/8, $0x4198000041880000
DATA iq3sOdd<>+40(SB)/8, $0x41b8000041a80000
DATA iq3sOdd<>+48(SB)/8, $0x41d8000041c80000
DATA iq3sOdd<>+56(SB)/8, $0x41f8000041e80000
GLOBL iq3sOdd<>(SB), RODATA|NOPTR, $64

// IQ3SCODEREGS loads iq3sCodes (at tb) into Z0…Z15, iq3sW into Z17, Z18
// and iq3sOdd into Z31.
#define IQ3SCODEREGS(tb) \
	VMOVDQU64 0(tb), Z0; \
	VMOVDQU64 64(tb), Z1; \
	VMOVDQU64 128(tb), Z2; \
	VMOVDQU64 192(tb), Z3; \
	VMOVDQU64 256(tb), Z4; \
	VMOVDQU64 320(tb), Z5; \
	VMOVDQU64 384(tb), Z6; \
	VMOVDQU64 448(tb), Z7; \
	VMOVDQU64 512(tb), Z8; \
	VMOVDQU64 576(tb), Z9; \
	VMOVDQU64 640(tb), Z10; \
	VMOVDQU64 704(tb), Z11; \
	VMOVDQU64 768(tb), Z12; \
	VMOVDQU64 832(tb), Z13; \
	VMOVDQU64 896(tb), Z14; \
	VMOVDQU64 960(tb), Z15; \
	VMOVDQU64 iq3sW<>+0(SB), Z17; \
	VMOVDQU64 iq3sW<>+64(SB), Z18; \
	VMOVUPS   iq3sOdd<>(SB), Z31

// IQ3SIDX loads the index bytes of half h of sub-block j of the group at
// SI into L, H, L1 and H1, their bit 7 into K1, its complement into K2
// and their ninth bits into K3.
#define IQ3SIDX(j, h, L, H, L1, H1) \
	VMOVDQU64 32+128*(j)+64*(h)(SI), L; \
	VMOVDQU64 32+128*(j)+64*(h)(SI), H; \
	VMOVDQU64 32+128*(j)+64*(h)(SI), L1; \
	VMOVDQU64 32+128*(j)+64*(h)(SI), H1; \
	VPMOVB2M  L, K1; \
	KNOTQ     K1, K2; \
	KMOVQ     1568+16*(j)+8*(h)(SI), K3

// IQ3SSEL picks L1 over L and H1 over H where the ninth bit is set and
// merges the sign bits of S into the codes' free bits.
#define IQ3SSEL(S, L, H, L1, H1) \
	VPBLENDMB L1, L, K3, L; \
	VPBLENDMB H1, H, K3, H; \
	VPTERNLOGD.BCST $0xF8, iq3sM88<>(SB), S, L; \
	VPTERNLOGD.BCST $0xF8, iq3sM44<>(SB), S, H

// IQ3SCODESR sets L and H to the codes of half h of sub-block j of the
// group at SI (iq3sCodes in Z0…Z15, 64 bytes each, in order), weights 0,
// 1 and 2, 3, with their sign bits from S (shifted into place for h = 1);
// L1, H1 scratch. Each of L, L1, H, H1 starts as the index bytes; two
// VPERMI2B under the masks of bit 7 and its complement look up the
// quarters of bit 8 = 0 in L, H and of bit 8 = 1 in L1, H1, and one
// VPBLENDMB under bit 8's mask picks: two mask operations and two blends
// where four disjoint masks would take five mask operations, all on port
// 0, which the prefill kernel's VPDPBUSD fill (its kernel-level time
// 15.2 → 13.2 ms). With the second table of each VPERMI2B from memory the
// decode kernel took about a fifth more time (131 against 114 ns a group
// super-block in L2) and the prefill kernel 14.1–14.7 against 12.2 ms.
#define IQ3SCODESR(j, h, S, L, H, L1, H1) \
	IQ3SIDX(j, h, L, H, L1, H1); \
	VPERMI2B  Z1, Z0, K2, L; \
	VPERMI2B  Z3, Z2, K1, L; \
	VPERMI2B  Z5, Z4, K2, L1; \
	VPERMI2B  Z7, Z6, K1, L1; \
	VPERMI2B  Z9, Z8, K2, H; \
	VPERMI2B  Z11, Z10, K1, H; \
	VPERMI2B  Z13, Z12, K2, H1; \
	VPERMI2B  Z15, Z14, K1, H1; \
	IQ3SSEL(S, L, H, L1, H1)

// IQ3SPOS4 adds the four weight positions of codes L, H times the
// transposed activation dwords at xoff(SP) to the sums s0 (p = 0, 2) and
// s1 (p = 1, 3); w0, w1, t scratch.
#define IQ3SPOS4(L, H, xoff, s0, s1, w0, w1, t) \
	VPERMB        Z17, L, w0; \
	VPSRLW        $4, L, t; \
	VPDPBUSD.BCST xoff(SP), w0, s0; \
	VPERMB        Z17, t, w1; \
	VPDPBUSD.BCST xoff+4(SP), w1, s1; \
	VPERMB        Z18, H, w0; \
	VPSRLW        $4, H, t; \
	VPDPBUSD.BCST xoff+8(SP), w0, s0; \
	VPERMB        Z18, t, w1; \
	VPDPBUSD.BCST xoff+12(SP), w1, s1

// IQ3SPREP transposes one token's super-block of codes at xb into the
// frame at dst (Z22 = iq3sT; Z23 scratch).
#define IQ3SPREP(xb, dst) \
	VPERMB    0 xb, Z22, Z23; \
	VMOVDQU64 Z23, dst(SP); \
	VPERMB    64 xb, Z22, Z23; \
	VMOVDQU64 Z23, dst+64(SP); \
	VPERMB    128 xb, Z22, Z23; \
	VMOVDQU64 Z23, dst+128(SP); \
	VPERMB    192 xb, Z22, Z23; \
	VMOVDQU64 Z23, dst+192(SP)

// IQ3SNEG sets z to one token's −16·Σx over a block from its m8 at maddr
// (m8 = −8·Σx).
#define IQ3SNEG(maddr, z) \
	VPBROADCASTD maddr, z; \
	VPADDD       z, z, z

// IQ3SLS sets z to the sixteen rows' 2s+1 of sub-block j of the group at
// base, as floats: nibble j of each row's scales dword looked up in
// iq3sOdd (Z31).
#define IQ3SLS(j, base, z) \
	VPSRLD  $(4*(j)), 1696(base), z; \
	VPERMPS Z31, z, z

// IQ3SBLK1 is sub-block j of one token for the group at SI (d in Z16,
// code tables in Z0…Z15, its transposed activations at 0(SP)) into its
// accumulator in the frame at 256+64j: the sum converted and multiplied
// by the scales 2s+1 as floats (the product, below 2²⁴, is exactly the
// GGUF-layout kernel's integer (2s+1)·isum converted), then fma(float(p),
// d·dx, acc), one VFMADD213PS with the accumulator from memory.
#define IQ3SBLK1(j) \
	IQ3SNEG(4*(j)(R9), Z25); \
	VPXORD    Z26, Z26, Z26; \
	VMOVDQU64 1056+64*(j)(SI), Z19; \
	IQ3SCODESR(j, 0, Z19, Z20, Z21, Z29, Z30); \
	VPSLLW    $2, Z19, Z19; \
	IQ3SPOS4(Z20, Z21, 32*(j), Z25, Z26, Z22, Z23, Z27); \
	IQ3SCODESR(j, 1, Z19, Z20, Z21, Z29, Z30); \
	IQ3SPOS4(Z20, Z21, 32*(j)+16, Z25, Z26, Z22, Z23, Z27); \
	VPADDD      Z26, Z25, Z25; \
	IQ3SLS(j, SI, Z24); \
	VCVTDQ2PS   Z25, Z25; \
	VMULPS      Z24, Z25, Z25; \
	VMULPS.BCST 4*(j)(R10), Z16, Z28; \
	VFMADD213PS 256+64*(j)(SP), Z28, Z25; \
	VMOVUPS     Z25, 256+64*(j)(SP)

// func rowsIQ3Sx16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32)
//
// out[r] = row r · x for groups·16 packed rows of nsb super-blocks.
// SI weights, DI codes, R9 m8, R10 block scales (each at the current
// super-block), CX super-blocks left, R8 groups left, R13 out; Z0…Z15
// iq3sCodes, Z16 d. Frame: the super-block's transposed activations at 0,
// the eight block accumulators at 256.
TEXT ·rowsIQ3Sx16VNNI(SB), NOSPLIT, $768-56
	MOVQ p+0(FP), SI
	MOVQ out+48(FP), R13
	MOVQ groups+40(FP), R8
	LEAQ ·iq3sCodes(SB), R12
	IQ3SCODEREGS(R12)

iq3srgroup:
	TESTQ R8, R8
	JEQ   iq3srend
	MOVQ  xq+8(FP), DI
	MOVQ  m8+16(FP), R9
	MOVQ  xd+24(FP), R10
	MOVQ  nsb+32(FP), CX
	VPXORD  Z16, Z16, Z16
	VMOVUPS Z16, 256(SP)
	VMOVUPS Z16, 320(SP)
	VMOVUPS Z16, 384(SP)
	VMOVUPS Z16, 448(SP)
	VMOVUPS Z16, 512(SP)
	VMOVUPS Z16, 576(SP)
	VMOVUPS Z16, 640(SP)
	VMOVUPS Z16, 704(SP)

iq3srloop:
	VMOVDQU64 iq3sT<>(SB), Z22
	IQ3SPREP((DI), 0)
	VCVTPH2PS (SI), Z16
	PFL8(0)
	IQ3SBLK1(0)
	IQ3SBLK1(1)
	PFL8(512)
	IQ3SBLK1(2)
	IQ3SBLK1(3)
	PFL8(1024)
	IQ3SBLK1(4)
	IQ3SBLK1(5)
	PFL4(1536)
	IQ3SBLK1(6)
	IQ3SBLK1(7)
	ADDQ $1760, SI
	ADDQ $256, DI
	ADDQ $32, R9
	ADDQ $32, R10
	DECQ CX
	JNZ  iq3srloop

	VMOVUPS 256(SP), Z16
	VMOVUPS 320(SP), Z22
	VMOVUPS 384(SP), Z23
	VMOVUPS 448(SP), Z24
	VMOVUPS 512(SP), Z25
	VMOVUPS 576(SP), Z26
	VMOVUPS 640(SP), Z27
	VMOVUPS 704(SP), Z28
	PHSUM8(Z16, Z22, Z23, Z24, Z25, Z26, Z27, Z28)
	VMOVUPS Z16, (R13)
	ADDQ    $64, R13
	DECQ    R8
	JMP     iq3srgroup

iq3srend:
	VZEROUPPER
	RET

// IQ3SG4DOT adds w times the four tokens' transposed activation dwords at
// xoff (256 bytes apart in the frame) to their sums Z24, Z25, Z26, Z28.
#define IQ3SG4DOT(w, xoff) \
	VPDPBUSD.BCST xoff(SP), w, Z24; \
	VPDPBUSD.BCST xoff+256(SP), w, Z25; \
	VPDPBUSD.BCST xoff+512(SP), w, Z26; \
	VPDPBUSD.BCST xoff+768(SP), w, Z28

// IQ3SG4POS4 is IQ3SPOS4 for the four tokens, one sum a token (four
// chains: no more registers beside the code tables).
#define IQ3SG4POS4(L, H, xoff) \
	VPERMB Z17, L, Z22; \
	VPSRLW $4, L, Z27; \
	IQ3SG4DOT(Z22, xoff); \
	VPERMB Z17, Z27, Z23; \
	IQ3SG4DOT(Z23, xoff+4); \
	VPERMB Z18, H, Z22; \
	VPSRLW $4, H, Z27; \
	IQ3SG4DOT(Z22, xoff+8); \
	VPERMB Z18, Z27, Z23; \
	IQ3SG4DOT(Z23, xoff+12)

// IQ3SG4OUT converts token t's sum s of sub-block j, scales it by 2s+1
// (Z22) and adds it times d·dx (block scale at daddr) to its accumulator
// in the frame, as IQ3SBLK1.
#define IQ3SG4OUT(s, t, j, daddr) \
	VCVTDQ2PS   s, s; \
	VMULPS      Z22, s, s; \
	VMULPS.BCST daddr, Z16, Z23; \
	VFMADD213PS 1024+512*(t)+64*(j)(SP), Z23, s; \
	VMOVUPS     s, 1024+512*(t)+64*(j)(SP)

// IQ3SBLK4 is sub-block j for the four tokens: m8 from R9 and block
// scales from R10, the tokens DX bytes apart (BX = 3·DX).
#define IQ3SBLK4(j) \
	IQ3SNEG(4*(j)(R9), Z24); \
	IQ3SNEG(4*(j)(R9)(DX*1), Z25); \
	IQ3SNEG(4*(j)(R9)(DX*2), Z26); \
	IQ3SNEG(4*(j)(R9)(BX*1), Z28); \
	VMOVDQU64 1056+64*(j)(SI), Z19; \
	IQ3SCODESR(j, 0, Z19, Z20, Z21, Z29, Z30); \
	VPSLLW    $2, Z19, Z19; \
	IQ3SG4POS4(Z20, Z21, 32*(j)); \
	IQ3SCODESR(j, 1, Z19, Z20, Z21, Z29, Z30); \
	IQ3SG4POS4(Z20, Z21, 32*(j)+16); \
	IQ3SLS(j, SI, Z22); \
	IQ3SG4OUT(Z24, 0, j, 4*(j)(R10)); \
	IQ3SG4OUT(Z25, 1, j, 4*(j)(R10)(DX*1)); \
	IQ3SG4OUT(Z26, 2, j, 4*(j)(R10)(DX*2)); \
	IQ3SG4OUT(Z28, 3, j, 4*(j)(R10)(BX*1))

// func gemm4IQ3Sx16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32, ostride int)
//
// Not NOSPLIT: its frame is more than a nosplit function may take.
// out[t·ostride + r] = row r · token t for groups·16 packed rows and four
// tokens whose codes are xq + t·256·nsb, m8 m8 + t·8·nsb and block scales
// xd + t·8·nsb. A super-block's weights are decoded once for the four
// tokens (as in rowsIQ3Sx16VNNI). SI the group, DI, R11, R12, R14 the
// four tokens' codes, R9 m8, R10 the block scales, DX their bytes per
// token (BX three times), R15 iq3sCodes, CX super-blocks left, R8 groups
// left, R13 out. Frame: token t's transposed activations at 256t, its
// eight block accumulators at 1024+512t. The prefetches matter end to end,
// where a prompt's few tokens take the weights from memory: without them
// this kernel prefilled 8 tokens of a 3B model at 37.5–39.0 tok/s against
// 40–44 for the previous one (tables half in memory, two sums a token),
// with them at 47–52.
TEXT ·gemm4IQ3Sx16VNNI(SB), 0, $3072-64
	MOVQ p+0(FP), SI
	MOVQ out+48(FP), R13
	MOVQ groups+40(FP), R8
	LEAQ ·iq3sCodes(SB), R15
	IQ3SCODEREGS(R15)
	MOVQ nsb+32(FP), DX
	SHLQ $5, DX                // 8 blocks · 4 bytes per super-block
	LEAQ (DX)(DX*2), BX

iq3sggroup:
	TESTQ R8, R8
	JEQ   iq3sgend
	PG4START
	VPXORD Z23, Z23, Z23
	PFZERO8(1024, 0, Z23)
	PFZERO8(1024, 1, Z23)
	PFZERO8(1024, 2, Z23)
	PFZERO8(1024, 3, Z23)

iq3sgloop:
	VMOVDQU64 iq3sT<>(SB), Z22
	IQ3SPREP((DI), 0)
	IQ3SPREP((R11), 256)
	IQ3SPREP((R12), 512)
	IQ3SPREP((R14), 768)
	VCVTPH2PS (SI), Z16
	PFL8(0)
	IQ3SBLK4(0)
	IQ3SBLK4(1)
	PFL8(512)
	IQ3SBLK4(2)
	IQ3SBLK4(3)
	PFL8(1024)
	IQ3SBLK4(4)
	IQ3SBLK4(5)
	PFL4(1536)
	IQ3SBLK4(6)
	IQ3SBLK4(7)
	PG4NEXT(1760)
	DECQ CX
	JNZ  iq3sgloop

	MOVQ ostride+56(FP), AX
	SHLQ $2, AX
	PF4HSUM8(1024, Z16, Z19, Z20, Z21, Z24, Z25, Z26, Z28)
	DECQ R8
	JMP  iq3sggroup

iq3sgend:
	VZEROUPPER
	RET
