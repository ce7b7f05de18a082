#include "textflag.h"

// AVX-512 VNNI one-token K-quant kernels: the GGUF rows as they are (no
// packed copy), two rows per pass, so that one row's eight sub-block
// factors fill half a ZMM and the float work of a super-block is one
// 512-bit instruction for both rows.
//
// Arithmetic: bit for bit dotQ4KRowsAVX2's. Per row, lane j (sub-block j)
// keeps acc_j = fma(float(i_j), (float(sc_j)·dx_j)·d, acc_j) and
// macc_j = fma(float(m_j)·xs_j, dmin, macc_j) over the super-blocks, and
// the row's result is ((l0+l4)+(l1+l5)) + ((l2+l6)+(l3+l7)) with
// l_j = acc_j − macc_j. The integer sums i_j = Σ q·xq are exact in any
// order. Only the lanes move: a row's eight lanes hold the sub-blocks in
// the order P = 0,1,4,5,2,3,6,7, which is how the integer reduction below
// leaves them; dx and xs are permuted to match, the scales are decoded in
// that order, and the final sum pairs the lanes that hold the same
// sub-blocks as AVX2's HSUM does.

// PF is how far ahead of row B's loads the kernel prefetches: as in
// dot_amd64.s, one sequential stream per row keeps too few misses in
// flight for the hardware prefetcher alone.
#define PF 2048

// kvP is P twice, as VPERMPS indices: dx and xs in the lanes' order for
// both rows of a pass.
DATA kvP<>+0(SB)/8, $0x0000000100000000
DATA kvP<>+8(SB)/8, $0x0000000500000004
DATA kvP<>+16(SB)/8, $0x0000000300000002
DATA kvP<>+24(SB)/8, $0x0000000700000006
DATA kvP<>+32(SB)/8, $0x0000000100000000
DATA kvP<>+40(SB)/8, $0x0000000500000004
DATA kvP<>+48(SB)/8, $0x0000000300000002
DATA kvP<>+56(SB)/8, $0x0000000700000006
GLOBL kvP<>(SB), RODATA|NOPTR, $64

// kvD and kvDmin pick, from [dA, dminA, dB, dminB], dA eight times then dB
// eight times, and the same for dmin.
DATA kvD<>+0(SB)/8, $0
DATA kvD<>+8(SB)/8, $0
DATA kvD<>+16(SB)/8, $0
DATA kvD<>+24(SB)/8, $0
DATA kvD<>+32(SB)/8, $0x0000000200000002
DATA kvD<>+40(SB)/8, $0x0000000200000002
DATA kvD<>+48(SB)/8, $0x0000000200000002
DATA kvD<>+56(SB)/8, $0x0000000200000002
GLOBL kvD<>(SB), RODATA|NOPTR, $64

DATA kvDmin<>+0(SB)/8, $0x0000000100000001
DATA kvDmin<>+8(SB)/8, $0x0000000100000001
DATA kvDmin<>+16(SB)/8, $0x0000000100000001
DATA kvDmin<>+24(SB)/8, $0x0000000100000001
DATA kvDmin<>+32(SB)/8, $0x0000000300000003
DATA kvDmin<>+40(SB)/8, $0x0000000300000003
DATA kvDmin<>+48(SB)/8, $0x0000000300000003
DATA kvDmin<>+56(SB)/8, $0x0000000300000003
GLOBL kvDmin<>(SB), RODATA|NOPTR, $64

// Scale decoding (kScaleMin) for one row per 128-bit lane, from the 16
// bytes S at offset 4 of the super-block (the 12 scale bytes s0…s11 and
// four code bytes, never selected). Output bytes 0–7 are sc_P[k], 8–15
// m_P[k]:
//
//	(shuffle(S, kvI1) & kvM1) | shuffle((S>>4)&0x0F, kvI2) | shuffle((S>>2)&0x30, kvI3)
//
// kvI1 picks s_j (sc, j<4), s_{j+4} (low nibble of sc, j≥4) and s_{j+4}
// (m, j<4) and kvM1 keeps their 6 or 4 bits; kvI2 picks the high nibble
// of s_{j+4} (m, j≥4); kvI3 the top two bits of s_{j−4} (sc, j≥4) or s_j
// (m, j≥4), already moved to bits 4–5. Index 0x80 gives a zero byte. The
// word shifts carry bits in from the next byte only where the masks clear
// them.
DATA kvI1<>+0(SB)/8, $0x0b0a030209080100
DATA kvI1<>+8(SB)/8, $0x8080070680800504
DATA kvI1<>+16(SB)/8, $0x0b0a030209080100
DATA kvI1<>+24(SB)/8, $0x8080070680800504
GLOBL kvI1<>(SB), RODATA|NOPTR, $32

DATA kvM1<>+0(SB)/8, $0x0f0f3f3f0f0f3f3f
DATA kvM1<>+8(SB)/8, $0x00003f3f00003f3f
DATA kvM1<>+16(SB)/8, $0x0f0f3f3f0f0f3f3f
DATA kvM1<>+24(SB)/8, $0x00003f3f00003f3f
GLOBL kvM1<>(SB), RODATA|NOPTR, $32

DATA kvI2<>+0(SB)/8, $0x8080808080808080
DATA kvI2<>+8(SB)/8, $0x0b0a808009088080
DATA kvI2<>+16(SB)/8, $0x8080808080808080
DATA kvI2<>+24(SB)/8, $0x0b0a808009088080
GLOBL kvI2<>(SB), RODATA|NOPTR, $32

DATA kvI3<>+0(SB)/8, $0x0302808001008080
DATA kvI3<>+8(SB)/8, $0x0706808005048080
DATA kvI3<>+16(SB)/8, $0x0302808001008080
DATA kvI3<>+24(SB)/8, $0x0706808005048080
GLOBL kvI3<>(SB), RODATA|NOPTR, $32

DATA kv0f<>+0(SB)/4, $0x0f0f0f0f
GLOBL kv0f<>(SB), RODATA|NOPTR, $4

DATA kv30<>+0(SB)/4, $0x30303030
GLOBL kv30<>(SB), RODATA|NOPTR, $4

// KV4ROW computes the integer sums of one row's super-block at base into
// a0…a3 (16 dwords each): a0 = low nibbles of qs[0:64], which are
// sub-blocks 0 (dwords 0–7) and 2 (8–15), against Z0; a1 = their high
// nibbles, sub-blocks 1 and 3, against Z1; a2, a3 the same for qs[64:128]
// (sub-blocks 4|6 and 5|7) against Z2, Z3. Codes are unsigned nibbles and
// the activations signed bytes, VPDPBUSD's operands as they are.
#define KV4ROW(base, a0, a1, a2, a3) \
	VPANDD   16(base), Z31, Z12; \
	VPSRLW   $4, 16(base), Z13; \
	VPANDD   Z31, Z13, Z13; \
	VPANDD   80(base), Z31, Z14; \
	VPSRLW   $4, 80(base), Z15; \
	VPANDD   Z31, Z15, Z15; \
	VPXORD   a0, a0, a0; \
	VPXORD   a1, a1, a1; \
	VPXORD   a2, a2, a2; \
	VPXORD   a3, a3, a3; \
	VPDPBUSD Z0, Z12, a0; \
	VPDPBUSD Z1, Z13, a1; \
	VPDPBUSD Z2, Z14, a2; \
	VPDPBUSD Z3, Z15, a3

// KVFOLD reduces one row's a0…a3 to t (= a0), whose 128-bit lanes hold
// [i0 i1 i4 i5], [i0 i1 i4 i5], [i2 i3 i6 i7], [i2 i3 i6 i7]: partial sums
// that the pass's last step adds lane to lane. First the quadword
// interleave adds each sub-block's dwords two by two, then the even/odd
// dword shuffle finishes each 128-bit lane.
#define KVFOLD(a0, a1, a2, a3) \
	VPUNPCKLQDQ a1, a0, Z12; \
	VPUNPCKHQDQ a1, a0, Z13; \
	VPADDD      Z13, Z12, a0; \
	VPUNPCKLQDQ a3, a2, Z14; \
	VPUNPCKHQDQ a3, a2, Z15; \
	VPADDD      Z15, Z14, a2; \
	VSHUFPS     $0x88, a2, a0, Z12; \
	VSHUFPS     $0xdd, a2, a0, Z13; \
	VPADDD      Z13, Z12, a0

// func dotQ4KRowsVNNI(w *byte, xq *int8, xd, xs *float32, nsb, rows int, out *float32)
//
// out[r] = row r · x for rows consecutive Q4_K rows of nsb super-blocks.
// Rows go two at a time, A at SI and B at R14 = SI + row bytes (BX); an
// odd last row runs as both A and B and stores A only. DI, R8, R9 walk the
// activations' codes, scales and sums; CX counts super-blocks, R12 rows.
// Z0–Z3 the super-block's activations, Z4–Z11 the two rows' integer sums,
// Z12–Z15 scratch, Z16/Z17 dx/xs in lane order for both rows, Z18/Z19 the
// scales and mins, Z20/Z21 acc and macc, Z22/Z23 d and dmin, Z31 0x0F.
TEXT ·dotQ4KRowsVNNI(SB), NOSPLIT, $0-56
	MOVQ         w+0(FP), SI
	MOVQ         out+48(FP), R13
	MOVQ         nsb+32(FP), BX
	IMULQ        $144, BX
	MOVQ         rows+40(FP), R12
	VPBROADCASTD kv0f<>(SB), Z31
	VMOVDQU32    kvP<>(SB), Z24
	VMOVDQU32    kvD<>(SB), Z25
	VMOVDQU32    kvDmin<>(SB), Z26

kvpair:
	TESTQ R12, R12
	JEQ   kvend
	LEAQ  (SI)(BX*1), R14
	CMPQ  R12, $2
	JGE   kvstart
	MOVQ  SI, R14

kvstart:
	MOVQ   xq+8(FP), DI
	MOVQ   xd+16(FP), R8
	MOVQ   xs+24(FP), R9
	MOVQ   nsb+32(FP), CX
	VPXORD Z20, Z20, Z20
	VPXORD Z21, Z21, Z21

kvloop:
	PREFETCHT0 (SI)(BX*2)
	PREFETCHT0 64(SI)(BX*2)
	PREFETCHT0 128(SI)(BX*2)
	PREFETCHT0 (R14)(BX*2)
	PREFETCHT0 64(R14)(BX*2)
	PREFETCHT0 128(R14)(BX*2)

	// Activations: [x0:32 | x64:96], [x32:64 | x96:128], and the same
	// for the second half, against a0…a3 of KV4ROW.
	VMOVDQU      (DI), Y0
	VINSERTI64X4 $1, 64(DI), Z0, Z0
	VMOVDQU      32(DI), Y1
	VINSERTI64X4 $1, 96(DI), Z1, Z1
	VMOVDQU      128(DI), Y2
	VINSERTI64X4 $1, 192(DI), Z2, Z2
	VMOVDQU      160(DI), Y3
	VINSERTI64X4 $1, 224(DI), Z3, Z3
	VMOVUPS      (R8), Y16
	VPERMPS      Z16, Z24, Z16
	VMOVUPS      (R9), Y17
	VPERMPS      Z17, Z24, Z17

	// Scales and mins of both rows (see kvI1), then as floats:
	// Z18 = sc of A | B, Z19 = m of A | B, in lane order.
	VMOVDQU      4(SI), X12
	VINSERTI128  $1, 4(R14), Y12, Y12
	VPSRLW       $4, Y12, Y13
	VPANDD.BCST  kv0f<>(SB), Y13, Y13
	VPSRLW       $2, Y12, Y14
	VPANDD.BCST  kv30<>(SB), Y14, Y14
	VPSHUFB      kvI1<>(SB), Y12, Y12
	VPSHUFB      kvI2<>(SB), Y13, Y13
	VPSHUFB      kvI3<>(SB), Y14, Y14
	VPANDD       kvM1<>(SB), Y12, Y12
	VPTERNLOGD   $0xfe, Y14, Y13, Y12
	VPERMQ       $0xd8, Y12, Y12
	VPMOVZXBD    X12, Z18
	VEXTRACTI128 $1, Y12, X13
	VPMOVZXBD    X13, Z19
	VCVTDQ2PS    Z18, Z18
	VCVTDQ2PS    Z19, Z19

	// d and dmin of both rows.
	VMOVD     (SI), X13
	VPINSRD   $1, (R14), X13, X13
	VCVTPH2PS X13, X13
	VPERMPS   Z13, Z25, Z22
	VPERMPS   Z13, Z26, Z23

	KV4ROW(SI, Z4, Z5, Z6, Z7)
	KV4ROW(R14, Z8, Z9, Z10, Z11)
	KVFOLD(Z4, Z5, Z6, Z7)
	KVFOLD(Z8, Z9, Z10, Z11)

	// [A's lanes 0,1 + 2,3 | B's lanes 0,1 + 2,3]: the two rows' sums in
	// lane order.
	VSHUFI64X2 $0x88, Z8, Z4, Z12
	VSHUFI64X2 $0xdd, Z8, Z4, Z13
	VPADDD     Z13, Z12, Z12

	VCVTDQ2PS   Z12, Z12
	VMULPS      Z16, Z18, Z18
	VMULPS      Z22, Z18, Z18
	VFMADD231PS Z18, Z12, Z20
	VMULPS      Z17, Z19, Z19
	VFMADD231PS Z23, Z19, Z21

	ADDQ $144, SI
	ADDQ $144, R14
	ADDQ $256, DI
	ADDQ $32, R8
	ADDQ $32, R9
	DECQ CX
	JNZ  kvloop

	// l = acc − macc; per row ((l0+l4)+(l1+l5)) + ((l2+l6)+(l3+l7)),
	// which in lane order P is ((p0+p2)+(p1+p3)) + ((p4+p6)+(p5+p7)):
	// within each 128-bit lane add the other half, then the neighbour,
	// then add the next 128-bit lane.
	VSUBPS        Z21, Z20, Z20
	VPERMILPS     $0x4e, Z20, Z12
	VADDPS        Z12, Z20, Z20
	VPERMILPS     $0xb1, Z20, Z12
	VADDPS        Z12, Z20, Z20
	VSHUFF32X4    $0xb1, Z20, Z20, Z12
	VADDPS        Z12, Z20, Z20
	VMOVSS        X20, (R13)
	MOVQ          R14, SI
	CMPQ          R12, $2
	JLT           kvlast
	VEXTRACTF32X4 $2, Z20, X12
	VMOVSS        X12, 4(R13)
	ADDQ          $8, R13
	SUBQ          $2, R12
	JMP           kvpair

kvlast:
	DECQ R12
	ADDQ $4, R13
	JMP  kvpair

kvend:
	VZEROUPPER
	RET

// ---- Q6_K ----
//
// Arithmetic: bit for bit dotQ6KRowsAVX2's. There, activation block b
// (32 weights, scales 2b and 2b+1 for its two halves of 16) gives eight
// int32 lanes, lane k = sc·Σ (q−32)·x over the block's weights 4k…4k+3,
// and acc = fma(float(lane), d·dx_b, acc) lane by lane, block after
// block; the row is HSUM(acc). Here VPDPBUSD gives the same four-weight
// sums (unsigned codes q times signed x, less 32·x from VPDPBUSD of the
// bytes 32 against x), and float(Σ)·float(sc) is the same number as
// float(sc·Σ): both factors are integers and the product, at most
// 4·32·128·128 = 2²¹, is exact. Row A fills lanes 0–7, row B 8–15.

// kq6Sc<> holds, for each block b, the VPERMI2PS indices that spread the
// two rows' sixteen float scales (A at 0–15, B at 16–31) over the lanes:
// sc_2b, sc_2b+1 for A's lanes 0–3, 4–7 and the same of B for 8–15.
DATA kq6Sc<>+0(SB)/8, $0x0000000000000000
DATA kq6Sc<>+8(SB)/8, $0x0000000000000000
DATA kq6Sc<>+16(SB)/8, $0x0000000100000001
DATA kq6Sc<>+24(SB)/8, $0x0000000100000001
DATA kq6Sc<>+32(SB)/8, $0x0000001000000010
DATA kq6Sc<>+40(SB)/8, $0x0000001000000010
DATA kq6Sc<>+48(SB)/8, $0x0000001100000011
DATA kq6Sc<>+56(SB)/8, $0x0000001100000011
DATA kq6Sc<>+64(SB)/8, $0x0000000200000002
DATA kq6Sc<>+72(SB)/8, $0x0000000200000002
DATA kq6Sc<>+80(SB)/8, $0x0000000300000003
DATA kq6Sc<>+88(SB)/8, $0x0000000300000003
DATA kq6Sc<>+96(SB)/8, $0x0000001200000012
DATA kq6Sc<>+104(SB)/8, $0x0000001200000012
DATA kq6Sc<>+112(SB)/8, $0x0000001300000013
DATA kq6Sc<>+120(SB)/8, $0x0000001300000013
DATA kq6Sc<>+128(SB)/8, $0x0000000400000004
DATA kq6Sc<>+136(SB)/8, $0x0000000400000004
DATA kq6Sc<>+144(SB)/8, $0x0000000500000005
DATA kq6Sc<>+152(SB)/8, $0x0000000500000005
DATA kq6Sc<>+160(SB)/8, $0x0000001400000014
DATA kq6Sc<>+168(SB)/8, $0x0000001400000014
DATA kq6Sc<>+176(SB)/8, $0x0000001500000015
DATA kq6Sc<>+184(SB)/8, $0x0000001500000015
DATA kq6Sc<>+192(SB)/8, $0x0000000600000006
DATA kq6Sc<>+200(SB)/8, $0x0000000600000006
DATA kq6Sc<>+208(SB)/8, $0x0000000700000007
DATA kq6Sc<>+216(SB)/8, $0x0000000700000007
DATA kq6Sc<>+224(SB)/8, $0x0000001600000016
DATA kq6Sc<>+232(SB)/8, $0x0000001600000016
DATA kq6Sc<>+240(SB)/8, $0x0000001700000017
DATA kq6Sc<>+248(SB)/8, $0x0000001700000017
DATA kq6Sc<>+256(SB)/8, $0x0000000800000008
DATA kq6Sc<>+264(SB)/8, $0x0000000800000008
DATA kq6Sc<>+272(SB)/8, $0x0000000900000009
DATA kq6Sc<>+280(SB)/8, $0x0000000900000009
DATA kq6Sc<>+288(SB)/8, $0x0000001800000018
DATA kq6Sc<>+296(SB)/8, $0x0000001800000018
DATA kq6Sc<>+304(SB)/8, $0x0000001900000019
DATA kq6Sc<>+312(SB)/8, $0x0000001900000019
DATA kq6Sc<>+320(SB)/8, $0x0000000a0000000a
DATA kq6Sc<>+328(SB)/8, $0x0000000a0000000a
DATA kq6Sc<>+336(SB)/8, $0x0000000b0000000b
DATA kq6Sc<>+344(SB)/8, $0x0000000b0000000b
DATA kq6Sc<>+352(SB)/8, $0x0000001a0000001a
DATA kq6Sc<>+360(SB)/8, $0x0000001a0000001a
DATA kq6Sc<>+368(SB)/8, $0x0000001b0000001b
DATA kq6Sc<>+376(SB)/8, $0x0000001b0000001b
DATA kq6Sc<>+384(SB)/8, $0x0000000c0000000c
DATA kq6Sc<>+392(SB)/8, $0x0000000c0000000c
DATA kq6Sc<>+400(SB)/8, $0x0000000d0000000d
DATA kq6Sc<>+408(SB)/8, $0x0000000d0000000d
DATA kq6Sc<>+416(SB)/8, $0x0000001c0000001c
DATA kq6Sc<>+424(SB)/8, $0x0000001c0000001c
DATA kq6Sc<>+432(SB)/8, $0x0000001d0000001d
DATA kq6Sc<>+440(SB)/8, $0x0000001d0000001d
DATA kq6Sc<>+448(SB)/8, $0x0000000e0000000e
DATA kq6Sc<>+456(SB)/8, $0x0000000e0000000e
DATA kq6Sc<>+464(SB)/8, $0x0000000f0000000f
DATA kq6Sc<>+472(SB)/8, $0x0000000f0000000f
DATA kq6Sc<>+480(SB)/8, $0x0000001e0000001e
DATA kq6Sc<>+488(SB)/8, $0x0000001e0000001e
DATA kq6Sc<>+496(SB)/8, $0x0000001f0000001f
DATA kq6Sc<>+504(SB)/8, $0x0000001f0000001f
GLOBL kq6Sc<>(SB), RODATA|NOPTR, $512

DATA kq6D<>+0(SB)/8, $0
DATA kq6D<>+8(SB)/8, $0
DATA kq6D<>+16(SB)/8, $0
DATA kq6D<>+24(SB)/8, $0
DATA kq6D<>+32(SB)/8, $0x0000000100000001
DATA kq6D<>+40(SB)/8, $0x0000000100000001
DATA kq6D<>+48(SB)/8, $0x0000000100000001
DATA kq6D<>+56(SB)/8, $0x0000000100000001
GLOBL kq6D<>(SB), RODATA|NOPTR, $64

DATA kv20<>+0(SB)/4, $0x20202020
GLOBL kv20<>(SB), RODATA|NOPTR, $4

// KQ6CODES builds the 6-bit codes of both rows' half h (ql at qloff, qh at
// qhoff) into Z3…Z6, blocks 4h…4h+3: low nibbles of ql[0:32] and ql[32:64]
// with qh bit pairs 0–1 and 2–3, then their high nibbles with pairs 4–5
// and 6–7, each pair moved to bits 4–5 (Z30 = 0x30) and or-ed in by
// VPTERNLOGD (0xf8: A | B&C, with C = 0x0F in Z31).
#define KQ6CODES(qloff, qhoff) \
	VMOVDQU      qloff(SI), Y0; \
	VINSERTI64X4 $1, qloff(R14), Z0, Z0; \
	VMOVDQU      qloff+32(SI), Y1; \
	VINSERTI64X4 $1, qloff+32(R14), Z1, Z1; \
	VMOVDQU      qhoff(SI), Y2; \
	VINSERTI64X4 $1, qhoff(R14), Z2, Z2; \
	VPSLLW       $4, Z2, Z3; \
	VPANDD       Z30, Z3, Z3; \
	VPTERNLOGD   $0xf8, Z31, Z0, Z3; \
	VPSLLW       $2, Z2, Z4; \
	VPANDD       Z30, Z4, Z4; \
	VPTERNLOGD   $0xf8, Z31, Z1, Z4; \
	VPANDD       Z30, Z2, Z5; \
	VPSRLW       $4, Z0, Z0; \
	VPTERNLOGD   $0xf8, Z31, Z0, Z5; \
	VPSRLW       $2, Z2, Z6; \
	VPANDD       Z30, Z6, Z6; \
	VPSRLW       $4, Z1, Z1; \
	VPTERNLOGD   $0xf8, Z31, Z1, Z6

// KQ6BLOCK adds activation block b (codes at xoff(DI), scale at xdoff(R8),
// scale indices at kq6Sc<>+soff) of both rows, codes in creg, to Z20.
#define KQ6BLOCK(creg, xoff, xdoff, soff) \
	VBROADCASTI64X4 xoff(DI), Z9; \
	VPXORD          Z10, Z10, Z10; \
	VPXORD          Z11, Z11, Z11; \
	VPDPBUSD        Z9, Z29, Z10; \
	VPDPBUSD        Z9, creg, Z11; \
	VPSUBD          Z10, Z11, Z11; \
	VCVTDQ2PS       Z11, Z11; \
	VMOVDQU32       kq6Sc<>+soff(SB), Z12; \
	VPERMI2PS       Z27, Z26, Z12; \
	VMULPS          Z12, Z11, Z11; \
	VMULPS.BCST     xdoff(R8), Z25, Z13; \
	VFMADD231PS     Z13, Z11, Z20

// func dotQ6KRowsVNNI(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32)
//
// Rows two at a time as dotQ4KRowsVNNI (A at SI, B at R14, BX row bytes,
// an odd last row as both). Z25 = [dA ×8 | dB ×8], Z26/Z27 the rows' scales
// as floats, Z29 the bytes 32, Z30 0x30, Z31 0x0F, Z20 the accumulator.
TEXT ·dotQ6KRowsVNNI(SB), NOSPLIT, $0-48
	MOVQ         w+0(FP), SI
	MOVQ         out+40(FP), R13
	MOVQ         nsb+24(FP), BX
	IMULQ        $210, BX
	MOVQ         rows+32(FP), R12
	VPBROADCASTD kv0f<>(SB), Z31
	VPBROADCASTD kv30<>(SB), Z30
	VPBROADCASTD kv20<>(SB), Z29
	VMOVDQU32    kq6D<>(SB), Z28

q6vpair:
	TESTQ R12, R12
	JEQ   q6vend
	LEAQ  (SI)(BX*1), R14
	CMPQ  R12, $2
	JGE   q6vstart
	MOVQ  SI, R14

q6vstart:
	MOVQ   xq+8(FP), DI
	MOVQ   xd+16(FP), R8
	MOVQ   nsb+24(FP), CX
	VPXORD Z20, Z20, Z20

q6vloop:
	PREFETCHT0 (SI)(BX*2)
	PREFETCHT0 64(SI)(BX*2)
	PREFETCHT0 128(SI)(BX*2)
	PREFETCHT0 192(SI)(BX*2)
	PREFETCHT0 (R14)(BX*2)
	PREFETCHT0 64(R14)(BX*2)
	PREFETCHT0 128(R14)(BX*2)
	PREFETCHT0 192(R14)(BX*2)

	MOVWLZX   208(SI), AX
	MOVWLZX   208(R14), DX
	SHLL      $16, DX
	ORL       DX, AX
	VMOVD     AX, X13
	VCVTPH2PS X13, X13
	VPERMPS   Z13, Z28, Z25
	VPMOVSXBD 192(SI), Z26
	VCVTDQ2PS Z26, Z26
	VPMOVSXBD 192(R14), Z27
	VCVTDQ2PS Z27, Z27

	KQ6CODES(0, 128)
	KQ6BLOCK(Z3, 0, 0, 0)
	KQ6BLOCK(Z4, 32, 4, 64)
	KQ6BLOCK(Z5, 64, 8, 128)
	KQ6BLOCK(Z6, 96, 12, 192)
	KQ6CODES(64, 160)
	KQ6BLOCK(Z3, 128, 16, 256)
	KQ6BLOCK(Z4, 160, 20, 320)
	KQ6BLOCK(Z5, 192, 24, 384)
	KQ6BLOCK(Z6, 224, 28, 448)

	ADDQ $210, SI
	ADDQ $210, R14
	ADDQ $256, DI
	ADDQ $32, R8
	DECQ CX
	JNZ  q6vloop

	// HSUM of each row's eight lanes, as dot_amd64.s's: the upper four
	// lanes onto the lower, then two horizontal adds.
	VSHUFF32X4    $0xb1, Z20, Z20, Z12
	VADDPS        Z12, Z20, Z20
	VPERMILPS     $0xb1, Z20, Z12
	VADDPS        Z12, Z20, Z20
	VPERMILPS     $0x4e, Z20, Z12
	VADDPS        Z12, Z20, Z20
	VMOVSS        X20, (R13)
	MOVQ          R14, SI
	CMPQ          R12, $2
	JLT           q6vlast
	VEXTRACTF32X4 $2, Z20, X12
	VMOVSS        X12, 4(R13)
	ADDQ          $8, R13
	SUBQ          $2, R12
	JMP           q6vpair

q6vlast:
	DECQ R12
	ADDQ $4, R13
	JMP  q6vpair

q6vend:
	VZEROUPPER
	RET
