#include "textflag.h"
#include "ahead_amd64.h"
#include "packz_amd64.h"

// Packed IQ3_XXS kernels (layout and arithmetic: packiq3xxs.go), sixteen
// rows per ZMM lane, on AVX-512 VNNI, VBMI and BITALG. Per super-block: the
// rows' d widened from f16 and quartered (exact); per sub-block j: the
// sixteen rows' sign words from their aux words (VPMULTISHIFTQB puts field
// l in byte l, VPOPCNTB's parity becomes bit 7) and their 2s+1 (aux>>27,
// OR 1); per four entries (IQ3XLINE) their sixteen rows' twelve-bit level
// codes looked up in registers; per entry m (four weights of every row):
// the code's fields in bytes (VPMULTISHIFTQB), 62 + level (VPERMB), the
// signs' mask for those weights (VPSHUFBITQMB), one merge-masked VPSUBB
// from 124, and VPDPBUSD against the activation dword broadcast; per token:
// the sum started from 62·(m8/8) = −62·Σx, times 2s+1 in int32,
// converted, and one FMA by (d/4)·dx into the sub-block position's
// accumulator: eight accumulators a group, summed at the end as the
// GGUF-layout kernel's IQ3HSUM sums its eight lanes.
//
// Constants: Z28 = 0x80 bytes, Z29 = 0x7f bytes, Z30 = the VPMULTISHIFTQB
// control (iq3xMS), Z31 = 124 bytes.

// iq3xCtl: the VPSHUFBITQMB controls of entry m = 0…7 (64 bytes each):
// qword q (rows 2q, 2q+1) takes sign bits 4m…4m+3 of row 2q's word (the low
// dword) into mask bits 8q…8q+3 and those of row 2q+1's into 8q+4…8q+7:
// the mask of the weight bytes VPGATHERDD leaves.
DATA iq3xCtl<>+0(SB)/8, $0x2322212003020100
DATA iq3xCtl<>+8(SB)/8, $0x2322212003020100
DATA iq3xCtl<>+16(SB)/8, $0x2322212003020100
DATA iq3xCtl<>+24(SB)/8, $0x2322212003020100
DATA iq3xCtl<>+32(SB)/8, $0x2322212003020100
DATA iq3xCtl<>+40(SB)/8, $0x2322212003020100
DATA iq3xCtl<>+48(SB)/8, $0x2322212003020100
DATA iq3xCtl<>+56(SB)/8, $0x2322212003020100
DATA iq3xCtl<>+64(SB)/8, $0x2726252407060504
DATA iq3xCtl<>+72(SB)/8, $0x2726252407060504
DATA iq3xCtl<>+80(SB)/8, $0x2726252407060504
DATA iq3xCtl<>+88(SB)/8, $0x2726252407060504
DATA iq3xCtl<>+96(SB)/8, $0x2726252407060504
DATA iq3xCtl<>+104(SB)/8, $0x2726252407060504
DATA iq3xCtl<>+112(SB)/8, $0x2726252407060504
DATA iq3xCtl<>+120(SB)/8, $0x2726252407060504
DATA iq3xCtl<>+128(SB)/8, $0x2b2a29280b0a0908
DATA iq3xCtl<>+136(SB)/8, $0x2b2a29280b0a0908
DATA iq3xCtl<>+144(SB)/8, $0x2b2a29280b0a0908
DATA iq3xCtl<>+152(SB)/8, $0x2b2a29280b0a0908
DATA iq3xCtl<>+160(SB)/8, $0x2b2a29280b0a0908
DATA iq3xCtl<>+168(SB)/8, $0x2b2a29280b0a0908
DATA iq3xCtl<>+176(SB)/8, $0x2b2a29280b0a0908
DATA iq3xCtl<>+184(SB)/8, $0x2b2a29280b0a0908
DATA iq3xCtl<>+192(SB)/8, $0x2f2e2d2c0f0e0d0c
DATA iq3xCtl<>+200(SB)/8, $0x2f2e2d2c0f0e0d0c
DATA iq3xCtl<>+208(SB)/8, $0x2f2e2d2c0f0e0d0c
DATA iq3xCtl<>+216(SB)/8, $0x2f2e2d2c0f0e0d0c
DATA iq3xCtl<>+224(SB)/8, $0x2f2e2d2c0f0e0d0c
DATA iq3xCtl<>+232(SB)/8, $0x2f2e2d2c0f0e0d0c
DATA iq3xCtl<>+240(SB)/8, $0x2f2e2d2c0f0e0d0c
DATA iq3xCtl<>+248(SB)/8, $0x2f2e2d2c0f0e0d0c
DATA iq3xCtl<>+256(SB)/8, $0x3332313013121110
DATA iq3xCtl<>+264(SB)/8, $0x3332313013121110
DATA iq3xCtl<>+272(SB)/8, $0x3332313013121110
DATA iq3xCtl<>+280(SB)/8, $0x3332313013121110
DATA iq3xCtl<>+288(SB)/8, $0x3332313013121110
DATA iq3xCtl<>+296(SB)/8, $0x3332313013121110
DATA iq3xCtl<>+304(SB)/8, $0x3332313013121110
DATA iq3xCtl<>+312(SB)/8, $0x3332313013121110
DATA iq3xCtl<>+320(SB)/8, $0x3736353417161514
DATA iq3xCtl<>+328(SB)/8, $0x3736353417161514
DATA iq3xCtl<>+336(SB)/8, $0x3736353417161514
DATA iq3xCtl<>+344(SB)/8, $0x3736353417161514
DATA iq3xCtl<>+352(SB)/8, $0x3736353417161514
DATA iq3xCtl<>+360(SB)/8, $0x3736353417161514
DATA iq3xCtl<>+368(SB)/8, $0x3736353417161514
DATA iq3xCtl<>+376(SB)/8, $0x3736353417161514
DATA iq3xCtl<>+384(SB)/8, $0x3b3a39381b1a1918
DATA iq3xCtl<>+392(SB)/8, $0x3b3a39381b1a1918
DATA iq3xCtl<>+400(SB)/8, $0x3b3a39381b1a1918
DATA iq3xCtl<>+408(SB)/8, $0x3b3a39381b1a1918
DATA iq3xCtl<>+416(SB)/8, $0x3b3a39381b1a1918
DATA iq3xCtl<>+424(SB)/8, $0x3b3a39381b1a1918
DATA iq3xCtl<>+432(SB)/8, $0x3b3a39381b1a1918
DATA iq3xCtl<>+440(SB)/8, $0x3b3a39381b1a1918
DATA iq3xCtl<>+448(SB)/8, $0x3f3e3d3c1f1e1d1c
DATA iq3xCtl<>+456(SB)/8, $0x3f3e3d3c1f1e1d1c
DATA iq3xCtl<>+464(SB)/8, $0x3f3e3d3c1f1e1d1c
DATA iq3xCtl<>+472(SB)/8, $0x3f3e3d3c1f1e1d1c
DATA iq3xCtl<>+480(SB)/8, $0x3f3e3d3c1f1e1d1c
DATA iq3xCtl<>+488(SB)/8, $0x3f3e3d3c1f1e1d1c
DATA iq3xCtl<>+496(SB)/8, $0x3f3e3d3c1f1e1d1c
DATA iq3xCtl<>+504(SB)/8, $0x3f3e3d3c1f1e1d1c
GLOBL iq3xCtl<>(SB), RODATA|NOPTR, $512

// iq3xMS: VPMULTISHIFTQB's control, field l (aux bits 7l…) of each of the
// qword's two dwords into byte l of that dword.
DATA iq3xMS<>+0(SB)/8, $0x352e2720150e0700
GLOBL iq3xMS<>(SB), RODATA|NOPTR, $8

// In-register lookups (every entry): iq3xLo and iq3xHi
// hold the low byte and the high nibble of each grid entry's twelve-bit
// level code (three bits a weight, level k of 4, 12, 20, 28, 36, 44, 52,
// 62 as k), iq3xLvl 62 + level (b&7) for every byte b, and iq3xMSLo and
// iq3xMSHi the VPMULTISHIFTQB controls that move code fields 0…3 of the
// qword's words 0, 1 (iq3xMSLo) or 2, 3 (iq3xMSHi) into its bytes 0…7.
DATA iq3xLo<>+0(SB)/8, $0x12100f0b09040200
DATA iq3xLo<>+8(SB)/8, $0x4a4843413d3b2219
DATA iq3xLo<>+16(SB)/8, $0x80786c615a585551
DATA iq3xLo<>+24(SB)/8, $0x9f9b999290898482
DATA iq3xLo<>+32(SB)/8, $0xd5cac8c7c1bdafa9
DATA iq3xLo<>+40(SB)/8, $0x413d3b2f241f0bf8
DATA iq3xLo<>+48(SB)/8, $0xceccc8b49d6a5a47
DATA iq3xLo<>+56(SB)/8, $0x13110a080301f1e3
DATA iq3xLo<>+64(SB)/8, $0x49424028271c1a18
DATA iq3xLo<>+72(SB)/8, $0x98918a8883815250
DATA iq3xLo<>+80(SB)/8, $0x01f6e6d9d0c2c0ba
DATA iq3xLo<>+88(SB)/8, $0xd285796654502805
DATA iq3xLo<>+96(SB)/8, $0x1612100b090200e0
DATA iq3xLo<>+104(SB)/8, $0x514a484543412219
DATA iq3xLo<>+112(SB)/8, $0x8f89828078777358
DATA iq3xLo<>+120(SB)/8, $0xccc8c1ada09f9290
DATA iq3xLo<>+128(SB)/8, $0x7c6157432b1dfcf8
DATA iq3xLo<>+136(SB)/8, $0x110a0801e5cec3c1
DATA iq3xLo<>+144(SB)/8, $0x595042403a352813
DATA iq3xLo<>+152(SB)/8, $0xbaaa958883816664
DATA iq3xLo<>+160(SB)/8, $0x5246403a2718dbc9
DATA iq3xLo<>+168(SB)/8, $0x0f04f0dbb39e8c6d
DATA iq3xLo<>+176(SB)/8, $0xa09f907c2f2b1f1d
DATA iq3xLo<>+184(SB)/8, $0x55342904e5c7b6b0
DATA iq3xLo<>+192(SB)/8, $0x210ad8cac8c57863
DATA iq3xLo<>+200(SB)/8, $0xba9a8c6d56464038
DATA iq3xLo<>+208(SB)/8, $0x59423a171308ebc2
DATA iq3xLo<>+216(SB)/8, $0x5134262414e2d4a8
DATA iq3xLo<>+224(SB)/8, $0x6a4524ded8b48f71
DATA iq3xLo<>+232(SB)/8, $0x1a08070503d1c39b
DATA iq3xLo<>+240(SB)/8, $0xcdc0aaa58a60562a
DATA iq3xLo<>+248(SB)/8, $0x985442402111f0db
GLOBL iq3xLo<>(SB), RODATA|NOPTR, $256
DATA iq3xHi<>+0(SB)/8, $0x0000000000000000
DATA iq3xHi<>+8(SB)/8, $0x0000000000000000
DATA iq3xHi<>+16(SB)/8, $0x0000000000000000
DATA iq3xHi<>+24(SB)/8, $0x0000000000000000
DATA iq3xHi<>+32(SB)/8, $0x0000000000000000
DATA iq3xHi<>+40(SB)/8, $0x0101010101010100
DATA iq3xHi<>+48(SB)/8, $0x0101010101010101
DATA iq3xHi<>+56(SB)/8, $0x0202020202020101
DATA iq3xHi<>+64(SB)/8, $0x0202020202020202
DATA iq3xHi<>+72(SB)/8, $0x0202020202020202
DATA iq3xHi<>+80(SB)/8, $0x0302020202020202
DATA iq3xHi<>+88(SB)/8, $0x0303030303030303
DATA iq3xHi<>+96(SB)/8, $0x0404040404040403
DATA iq3xHi<>+104(SB)/8, $0x0404040404040404
DATA iq3xHi<>+112(SB)/8, $0x0404040404040404
DATA iq3xHi<>+120(SB)/8, $0x0404040404040404
DATA iq3xHi<>+128(SB)/8, $0x0505050505050404
DATA iq3xHi<>+136(SB)/8, $0x0606060605050505
DATA iq3xHi<>+144(SB)/8, $0x0606060606060606
DATA iq3xHi<>+152(SB)/8, $0x0606060606060606
DATA iq3xHi<>+160(SB)/8, $0x0707070707070606
DATA iq3xHi<>+168(SB)/8, $0x0808070707070707
DATA iq3xHi<>+176(SB)/8, $0x0808080808080808
DATA iq3xHi<>+184(SB)/8, $0x0909090908080808
DATA iq3xHi<>+192(SB)/8, $0x0a0a090909090909
DATA iq3xHi<>+200(SB)/8, $0x0a0a0a0a0a0a0a0a
DATA iq3xHi<>+208(SB)/8, $0x0b0b0b0b0b0b0a0a
DATA iq3xHi<>+216(SB)/8, $0x0c0c0c0c0c0b0b0b
DATA iq3xHi<>+224(SB)/8, $0x0d0d0d0c0c0c0c0c
DATA iq3xHi<>+232(SB)/8, $0x0e0e0e0e0e0d0d0d
DATA iq3xHi<>+240(SB)/8, $0x0e0e0e0e0e0e0e0e
DATA iq3xHi<>+248(SB)/8, $0x0f0f0f0f0f0f0e0e
GLOBL iq3xHi<>(SB), RODATA|NOPTR, $256
DATA iq3xLvl<>+0(SB)/8, $0x7c726a625a524a42
DATA iq3xLvl<>+8(SB)/8, $0x7c726a625a524a42
DATA iq3xLvl<>+16(SB)/8, $0x7c726a625a524a42
DATA iq3xLvl<>+24(SB)/8, $0x7c726a625a524a42
DATA iq3xLvl<>+32(SB)/8, $0x7c726a625a524a42
DATA iq3xLvl<>+40(SB)/8, $0x7c726a625a524a42
DATA iq3xLvl<>+48(SB)/8, $0x7c726a625a524a42
DATA iq3xLvl<>+56(SB)/8, $0x7c726a625a524a42
GLOBL iq3xLvl<>(SB), RODATA|NOPTR, $64
DATA iq3xMSLo<>+0(SB)/8, $0x1916131009060300
GLOBL iq3xMSLo<>(SB), RODATA|NOPTR, $8
DATA iq3xMSHi<>+0(SB)/8, $0x3936333029262320
GLOBL iq3xMSHi<>(SB), RODATA|NOPTR, $8

DATA iq3xOne<>+0(SB)/4, $1
GLOBL iq3xOne<>(SB), RODATA|NOPTR, $4

DATA iq3xQuarter<>+0(SB)/4, $0x3e800000
GLOBL iq3xQuarter<>(SB), RODATA|NOPTR, $4

#define IQ3XCONSTS \
	MOVL         $0x80808080, AX; \
	VPBROADCASTD AX, Z28; \
	MOVL         $0x7f7f7f7f, AX; \
	VPBROADCASTD AX, Z29; \
	VPBROADCASTQ iq3xMS<>(SB), Z30; \
	MOVL         $0x7c7c7c7c, AX; \
	VPBROADCASTD AX, Z31

// IQ3XSIGNS sets s to the sixteen rows' sign words of sub-block j (group
// at SI) and ls to their 2s+1; aux and tmp are scratch.
#define IQ3XSIGNS(j, aux, s, tmp, ls) \
	VMOVDQU32      1056+64*j(SI), aux; \
	VPMULTISHIFTQB aux, Z30, s; \
	VPANDD         Z29, s, s; \
	VPOPCNTB       s, tmp; \
	VPSLLW         $7, tmp, tmp; \
	VPTERNLOGD     $0xF8, Z28, tmp, s; \
	VPSRLD         $27, aux, ls; \
	VPORD.BCST     iq3xOne<>(SB), ls, ls

// IQ3XSTART sets z to −62·Σx = 62·(m8/8) of the block whose m8 is at maddr.
#define IQ3XSTART(maddr, z) \
	MOVL         maddr, AX; \
	SARL         $3, AX; \
	IMUL3L       $62, AX, AX; \
	VPBROADCASTD AX, z

// IQ3XFMA multiplies isum by ls, converts it and adds it times d4·dx (d4
// the rows' d/4, dx at daddr) to acc; sc is scratch.
#define IQ3XFMA(isum, ls, d4, daddr, sc, acc) \
	VPMULLD     ls, isum, isum; \
	VCVTDQ2PS   isum, isum; \
	VMULPS.BCST daddr, d4, sc; \
	VFMADD231PS isum, sc, acc

// IQ3XD4 sets d to the group's sixteen d/4 (exact).
#define IQ3XD4(d) \
	VCVTPH2PS   (SI), d; \
	VMULPS.BCST iq3xQuarter<>(SB), d, d

// ---------------------------------------------------------------------------
// Decode. SI weights, DI codes, R9 m8, R10 block scales (each at the
// current super-block), CX super-blocks left, R8 groups left, R13 out.
// Z0…Z7 the block accumulators, Z8 d/4, Z9 aux, Z10 signs, Z11 scratch,
// Z12 2s+1, Z13 and Z14 the sub-block's two sums (even and odd entries:
// two VPDPBUSD chains), Z15…Z18 and Z25…Z27, Z11 IQ3XLINE's (entries 0…3,
// 4…7), Z19, Z22…Z24 weights, Z20 iq3xMSLo, Z21 iq3xMSHi.

// IQ3XLINE looks up the level codes of the 64 entries m = 4h…4h+3 of
// sub-block j (their index bytes at 32+128j+64h, in packIQ3XXS's order):
// the low bytes into a, the high nibbles into c, each from two
// 128-entry VPERMT2B lookups (tables from memory: loads, not port-5 work)
// blended by the index's bit 7; then words code = low | high<<8 by
// VPUNPCKLBW into idx (entries 4h, 4h+1: qword q holds rows 2q, 2q+1 of
// entry 4h in words 0, 1 and of entry 4h+1 in words 2, 3) and VPUNPCKHBW
// into a (entries 4h+2, 4h+3 likewise). Clobbers b, K3.
#define IQ3XLINE(j, h, idx, a, b, c) \
	VMOVDQU64  32+128*j+64*h(SI), idx; \
	VPMOVB2M   idx, K3; \
	VMOVDQU64  iq3xLo<>+0(SB), a; \
	VPERMT2B   iq3xLo<>+64(SB), idx, a; \
	VMOVDQU64  iq3xLo<>+128(SB), b; \
	VPERMT2B   iq3xLo<>+192(SB), idx, b; \
	VPBLENDMB  b, a, K3, a; \
	VMOVDQU64  iq3xHi<>+0(SB), c; \
	VPERMT2B   iq3xHi<>+64(SB), idx, c; \
	VMOVDQU64  iq3xHi<>+128(SB), b; \
	VPERMT2B   iq3xHi<>+192(SB), idx, b; \
	VPBLENDMB  b, c, K3, c; \
	VPUNPCKLBW c, a, idx; \
	VPUNPCKHBW c, a, a

// IQ3XR sets w to entry m from IQ3XLINE's codes src with the
// VPMULTISHIFTQB control ctl (iq3xMSLo for even m, iq3xMSHi for odd): the
// four fields in bytes, 62 + level by VPERMB, then the signs (s): their
// mask (VPSHUFBITQMB) and 124 − w where negative.
#define IQ3XR(m, src, ctl, s, w) \
	VPMULTISHIFTQB src, ctl, w; \
	VPERMB         iq3xLvl<>(SB), w, w; \
	VPSHUFBITQMB   iq3xCtl<>+64*m(SB), s, K2; \
	VPSUBB         w, Z31, K2, w

// IQ3XE1R is IQ3XR for one token into sum.
#define IQ3XE1R(j, m, src, ctl, w, sum) \
	IQ3XR(m, src, ctl, Z10, w); \
	VPDPBUSD.BCST 32*j+4*m(DI), w, sum

// IQ3XBLK1 is sub-block j of one token for the group at SI, into acc:
// all eight entries looked up in registers (IQ3XLINE for entries 0…3 and
// 4…7), two VPDPBUSD chains (even and odd entries).
//
// Measured (one thread on data in L1, the best of eight runs on the shared
// 2-vCPU VM): an entry took 2.68–2.75 ns with all eight gathered
// (VPGATHERDD from a grid + 62 table), 2.21–2.34 with 0…3 gathered and 4…7
// looked up, 2.20 with all eight looked up. In the model the gathers cost
// more than that: the 3B IQ3_XXS file, isagi bench -p 8 -n 48, 2 threads,
// old and new alternated, decode 12.2–13.5 tok/s with four gathers against
// 12.1–14.0 all in registers (+3–5 % in each quiet pair; prefill equal),
// and BenchmarkIQ3XXSTriad's packed/GGUF ratio 1.72–1.97 against
// 1.77–2.11. A variant with four-bit codes (level and a level-7 flag) and
// 62 + level by one VGF2P8AFFINEQB instead of VPERMB measured the same
// (decode 12.2–13.1 tok/s, ratio 1.85–2.01) and was not kept.
#define IQ3XBLK1(j, acc) \
	IQ3XSIGNS(j, Z9, Z10, Z11, Z12); \
	IQ3XSTART(4*j(R9), Z13); \
	VPXORD Z14, Z14, Z14; \
	IQ3XLINE(j, 0, Z15, Z16, Z17, Z18); \
	IQ3XLINE(j, 1, Z25, Z26, Z27, Z11); \
	IQ3XE1R(j, 0, Z15, Z20, Z22, Z13); \
	IQ3XE1R(j, 1, Z15, Z21, Z23, Z14); \
	IQ3XE1R(j, 2, Z16, Z20, Z24, Z13); \
	IQ3XE1R(j, 3, Z16, Z21, Z19, Z14); \
	IQ3XE1R(j, 4, Z25, Z20, Z22, Z13); \
	IQ3XE1R(j, 5, Z25, Z21, Z23, Z14); \
	IQ3XE1R(j, 6, Z26, Z20, Z24, Z13); \
	IQ3XE1R(j, 7, Z26, Z21, Z19, Z14); \
	VPADDD Z14, Z13, Z13; \
	IQ3XFMA(Z13, Z12, Z8, 4*j(R10), Z19, acc)

// func rowsIQ3XXSx16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32)
//
// out[r] = row r · x for groups·16 packed rows of nsb super-blocks.
TEXT ·rowsIQ3XXSx16VNNI(SB), NOSPLIT, $0-56
	MOVQ p+0(FP), SI
	MOVQ out+48(FP), R13
	MOVQ groups+40(FP), R8
	IQ3XCONSTS
	VPBROADCASTQ iq3xMSLo<>(SB), Z20
	VPBROADCASTQ iq3xMSHi<>(SB), Z21

iq3xrgroup:
	TESTQ R8, R8
	JEQ   iq3xrend
	MOVQ  xq+8(FP), DI
	MOVQ  m8+16(FP), R9
	MOVQ  xd+24(FP), R10
	MOVQ  nsb+32(FP), CX
	PZERO8(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)

iq3xrloop:
	IQ3XD4(Z8)
	PFL8(0)
	IQ3XBLK1(0, Z0)
	IQ3XBLK1(1, Z1)
	IQ3XBLK1(2, Z2)
	IQ3XBLK1(3, Z3)
	PFL8(512)
	PFL8(1024)
	PFL(1536)
	IQ3XBLK1(4, Z4)
	IQ3XBLK1(5, Z5)
	IQ3XBLK1(6, Z6)
	IQ3XBLK1(7, Z7)
	ADDQ $1568, SI
	ADDQ $256, DI
	ADDQ $32, R9
	ADDQ $32, R10
	DECQ CX
	JNZ  iq3xrloop

	PHSUM8(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	VMOVUPS Z0, (R13)
	ADDQ    $64, R13
	DECQ    R8
	JMP     iq3xrgroup

iq3xrend:
	VZEROUPPER
	RET

// ---------------------------------------------------------------------------
// Prefill: four tokens share each looked-up weight vector. Z0…Z15 the
// accumulators (token t's block position q of the pass in Z(4t+q)), Z16
// d/4, Z17 aux, Z18 signs, Z19 scratch, Z20 2s+1, Z21…Z24 the four
// tokens' sums, Z25, Z26 IQ3XLINE's codes, Z27, Z19 the VPMULTISHIFTQB
// controls. DI, R11, R12, R14 the four tokens' codes, R9 m8, R10 block
// scales (the tokens DX bytes apart, BX = 3·DX), group base saved at
// gb-8(SP).

// IQ3XE4R is entry m from IQ3XLINE's codes src (control ctl) for
// the four tokens; Z17 (aux, spent) takes the weights.
#define IQ3XE4R(j, m, src, ctl) \
	IQ3XR(m, src, ctl, Z18, Z17); \
	VPDPBUSD.BCST 32*j+4*m(DI), Z17, Z21; \
	VPDPBUSD.BCST 32*j+4*m(R11), Z17, Z22; \
	VPDPBUSD.BCST 32*j+4*m(R12), Z17, Z23; \
	VPDPBUSD.BCST 32*j+4*m(R14), Z17, Z24

// IQ3XBLK4 is sub-block j for four tokens, into a0…a3: every entry looked
// up in registers, as the decode kernel's (the kernel benchmark's prefill
// 1.04–1.09x the kernel with four gathers).
#define IQ3XBLK4(j, a0, a1, a2, a3) \
	IQ3XSIGNS(j, Z17, Z18, Z19, Z20); \
	IQ3XSTART(4*j(R9), Z21); \
	IQ3XSTART(4*j(R9)(DX*1), Z22); \
	IQ3XSTART(4*j(R9)(DX*2), Z23); \
	IQ3XSTART(4*j(R9)(BX*1), Z24); \
	IQ3XLINE(j, 0, Z25, Z26, Z19, Z27); \
	VPBROADCASTQ iq3xMSLo<>(SB), Z27; \
	VPBROADCASTQ iq3xMSHi<>(SB), Z19; \
	IQ3XE4R(j, 0, Z25, Z27); \
	IQ3XE4R(j, 1, Z25, Z19); \
	IQ3XE4R(j, 2, Z26, Z27); \
	IQ3XE4R(j, 3, Z26, Z19); \
	IQ3XLINE(j, 1, Z25, Z26, Z17, Z27); \
	VPBROADCASTQ iq3xMSLo<>(SB), Z27; \
	IQ3XE4R(j, 4, Z25, Z27); \
	IQ3XE4R(j, 5, Z25, Z19); \
	IQ3XE4R(j, 6, Z26, Z27); \
	IQ3XE4R(j, 7, Z26, Z19); \
	IQ3XFMA(Z21, Z20, Z16, 4*j(R10), Z27, a0); \
	IQ3XFMA(Z22, Z20, Z16, 4*j(R10)(DX*1), Z27, a1); \
	IQ3XFMA(Z23, Z20, Z16, 4*j(R10)(DX*2), Z27, a2); \
	IQ3XFMA(Z24, Z20, Z16, 4*j(R10)(BX*1), Z27, a3)

// IQ3XG4INIT points DI, R11, R12, R14 at the four tokens' codes, R9 at
// m8, R10 at the block scales and SI at the group, CX the super-blocks,
// and clears the sixteen accumulators.
#define IQ3XG4INIT \
	MOVQ   gb-8(SP), SI; \
	PG4START; \
	PZERO8(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7); \
	PZERO8(Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)

// func gemm4IQ3XXSx16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32, ostride int)
//
// Not NOSPLIT: its frame is more than a nosplit function may take.
// out[t·ostride + r] = row r · token t for groups·16 packed rows and four
// tokens whose codes are xq + t·256·nsb, m8 m8 + t·8·nsb and block scales
// xd + t·8·nsb. As the packed TQ2_0 kernel, each group runs in two passes
// over its super-blocks (sub-blocks 0…3, whose accumulators then wait in
// the frame, and 4…7): thirty-two accumulators do not fit beside the rest.
TEXT ·gemm4IQ3XXSx16VNNI(SB), 0, $1032-64
	MOVQ p+0(FP), AX
	MOVQ AX, gb-8(SP)
	MOVQ nsb+32(FP), DX
	SHLQ $5, DX                // 8 blocks · 4 bytes per super-block
	LEAQ (DX)(DX*2), BX
	MOVQ out+48(FP), R13
	MOVQ groups+40(FP), R8
	IQ3XCONSTS

iq3xggroup:
	TESTQ R8, R8
	JEQ   iq3xgend
	IQ3XG4INIT

iq3xgloop0:
	IQ3XD4(Z16)
	IQ3XBLK4(0, Z0, Z4, Z8, Z12)
	IQ3XBLK4(1, Z1, Z5, Z9, Z13)
	IQ3XBLK4(2, Z2, Z6, Z10, Z14)
	IQ3XBLK4(3, Z3, Z7, Z11, Z15)
	PG4NEXT(1568)
	DECQ CX
	JNZ  iq3xgloop0

	PSPILL16
	IQ3XG4INIT

iq3xgloop1:
	IQ3XD4(Z16)
	IQ3XBLK4(4, Z0, Z4, Z8, Z12)
	IQ3XBLK4(5, Z1, Z5, Z9, Z13)
	IQ3XBLK4(6, Z2, Z6, Z10, Z14)
	IQ3XBLK4(7, Z3, Z7, Z11, Z15)
	PG4NEXT(1568)
	DECQ CX
	JNZ  iq3xgloop1

	MOVQ ostride+56(FP), AX
	SHLQ $2, AX
	PG4OUT(0, Z0, Z1, Z2, Z3, (R13))
	PG4OUT(1, Z4, Z5, Z6, Z7, (R13)(AX*1))
	PG4OUT(2, Z8, Z9, Z10, Z11, (R13)(AX*2))
	LEAQ (AX)(AX*2), AX
	PG4OUT(3, Z12, Z13, Z14, Z15, (R13)(AX*1))
	ADDQ $64, R13
	MOVQ SI, gb-8(SP)          // the pass ended at the next group
	DECQ R8
	JMP  iq3xggroup

iq3xgend:
	VZEROUPPER
	RET
