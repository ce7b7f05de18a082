#include "textflag.h"
#include "ahead_amd64.h"
#include "packz_amd64.h"

// Packed IQ2_XXS and IQ2_XS kernels (layouts and arithmetic: packiq2.go),
// sixteen rows per ZMM lane, on AVX-512 VNNI, VBMI, GFNI and BITALG. Both
// look their grids up in registers (VPERMI2B of code tables, VPERMB of
// level tables) instead of gathering them: IQ2_XXS first, then IQ2_XS,
// which builds on its tables and constants.

DATA iq2pEighth<>+0(SB)/4, $0x3e000000
GLOBL iq2pEighth<>(SB), RODATA|NOPTR, $4
DATA iq2p43<>+0(SB)/4, $0x2b2b2b2b
GLOBL iq2p43<>(SB), RODATA|NOPTR, $4

// IQ2DV sets dv to the f16 scales at base widened, times 1/8.
#define IQ2DV(base, dv) \
	VCVTPH2PS        (base), dv; \
	VMULPS.BCST      iq2pEighth<>(SB), dv, dv

// ---------------------------------------------------------------------------
// IQ2_XXS (layout: packiq2.go). Per block of 32 weights, all sixteen rows
// at once: X_k (k = 0…3), byte 4r+l for row r's run l, is the 6-bit index of weights 2k and 2k+1 of that run: their grid levels (codes
// 0, 1, 2 for 8, 25, 43) from iq2xxsCodes[256k + grid index] (two masked
// VPERMI2B, grid index < 128 and ≥ 128: the first 64 bytes of each half in
// Z9…Z16, the rest from memory), their two signs merged into the bits the
// table left free (VPTERNLOGD) from the sign bytes G1 (signs 0…5) and G2
// (signs 6, 7): one VGF2P8AFFINEQB each on the 7-bit sign indices spread by
// VPMULTISHIFTQB, the eighth sign being the parity of the seven. Then
// weight position p of the four runs of every row is one VPERMB of X_{p/2}
// through the 64-byte level table of p (iq2xxsLevels: 43 ± m), and one
// VPDPBUSD against the dword (x[p], x[8+p], x[16+p], x[24+p]) of the block's
// activations, broadcast: lane r sums row r, no fold. The activations are
// transposed so once a super-block and token (VPERMB by iq2rT) into the
// frame, with each block's −43·Σx = 43·m8/8 after them. The sum is kept in
// two chains (even and odd positions: VPDPBUSD's latency), and its scale
// 2·ls + 1 is one VPERMPS of the aux word (whose low four bits it is,
// packiq2.go) through iq2rScale: float(p) = float(sum)·float(2·ls + 1),
// exact as |p| < 2²⁴, the very float the int32 product converts to.
//
// Vector operations a block and token: 8 VPERMI2B, 8 VPERMB, VPMULTISHIFTQB
// and VPERMPS (port 5); 8 VPDPBUSD, 2 VGF2P8AFFINEQB, VPMOVB2M, KNOTQ,
// VCVTDQ2PS (port 0); 3 VPTERNLOGD, VPORD, VPADDD, 2 VMULPS, the FMA
// (either): 40, against about 100 for the gather kernel it replaced (8
// VPGATHERDQ at ~7 vector-port uops each, their index widening, the sign
// masks and merges, the lane-pair fold). Measured against that kernel on
// the same matrix (3072 columns, alternated in one run, 15 rounds, median
// ratio): decode 1.29× (1 thread) and 1.22× (2 threads) on 1 MiB in L2,
// 1.36× and 1.39× on 128 MiB in DRAM (2 threads 13.1 → 18.0 GB/s); the
// four-token prefill kernel 1.25–1.32×. BenchmarkIQ2Triad: 0.50 (1 thread)
// and 0.52 (2 threads) of the STREAM triad, range 0.49–0.56 (the gather
// kernel 0.35–0.45). Tried and not kept: one VPDPBUSD chain (same or
// slower), a loop over the blocks instead of unrolling them and two groups
// in flight sharing the transposed activations (both 0.92–0.99× of this),
// VPMULLD for the scale (two ops more, within the noise).

// iq2rT: byte 32b + 4p + l of a transposed pair of blocks takes activation
// 32b + 8l + p.
DATA iq2rT<>+0(SB)/8, $0x1911090118100800
DATA iq2rT<>+8(SB)/8, $0x1b130b031a120a02
DATA iq2rT<>+16(SB)/8, $0x1d150d051c140c04
DATA iq2rT<>+24(SB)/8, $0x1f170f071e160e06
DATA iq2rT<>+32(SB)/8, $0x3931292138302820
DATA iq2rT<>+40(SB)/8, $0x3b332b233a322a22
DATA iq2rT<>+48(SB)/8, $0x3d352d253c342c24
DATA iq2rT<>+56(SB)/8, $0x3f372f273e362e26
GLOBL iq2rT<>(SB), RODATA|NOPTR, $64

// iq2rG1, iq2rG2: VGF2P8AFFINEQB matrices (output bit i from byte 7−i):
// G1 bit i = sign index bit i (i = 0…5); G2 bit 0 = bit 6, bit 1 = the
// parity of bits 0…6 (the eighth sign).
DATA iq2rG1<>+0(SB)/8, $0x0102040810200000
GLOBL iq2rG1<>(SB), RODATA|NOPTR, $8
DATA iq2rG2<>+0(SB)/8, $0x407f000000000000
GLOBL iq2rG2<>(SB), RODATA|NOPTR, $8

// iq2rM: the sign bits X_0, X_1, X_2 take from G1.
DATA iq2rM<>+0(SB)/4, $0x03030303
DATA iq2rM<>+4(SB)/4, $0x0c0c0c0c
DATA iq2rM<>+8(SB)/4, $0x30303030
GLOBL iq2rM<>(SB), RODATA|NOPTR, $12
// iq2rShift: the sign indices' VPMULTISHIFTQB control (bit offsets 4,
// 11, 18, 25 of each dword); iq2rScale: 2·ls + 1 as float32, ls = 0…15.
DATA iq2rShift<>+0(SB)/8, $0x39322b2419120b04
GLOBL iq2rShift<>(SB), RODATA|NOPTR, $8
DATA iq2rScale<>+0(SB)/4, $1.0
DATA iq2rScale<>+4(SB)/4, $3.0
DATA iq2rScale<>+8(SB)/4, $5.0
DATA iq2rScale<>+12(SB)/4, $7.0
DATA iq2rScale<>+16(SB)/4, $9.0
DATA iq2rScale<>+20(SB)/4, $11.0
DATA iq2rScale<>+24(SB)/4, $13.0
DATA iq2rScale<>+28(SB)/4, $15.0
DATA iq2rScale<>+32(SB)/4, $17.0
DATA iq2rScale<>+36(SB)/4, $19.0
DATA iq2rScale<>+40(SB)/4, $21.0
DATA iq2rScale<>+44(SB)/4, $23.0
DATA iq2rScale<>+48(SB)/4, $25.0
DATA iq2rScale<>+52(SB)/4, $27.0
DATA iq2rScale<>+56(SB)/4, $29.0
DATA iq2rScale<>+60(SB)/4, $31.0
GLOBL iq2rScale<>(SB), RODATA|NOPTR, $64
DATA iq2r43<>+0(SB)/4, $43
GLOBL iq2r43<>(SB), RODATA|NOPTR, $4

// IQ2RCONSTS loads the code tables' first halves (codes at R12) into
// Z9…Z16, the sign control into Z17 and the transposition into Z18.
#define IQ2RCONSTS \
	VMOVDQU64    0(R12), Z9; \
	VMOVDQU64    256(R12), Z10; \
	VMOVDQU64    512(R12), Z11; \
	VMOVDQU64    768(R12), Z12; \
	VMOVDQU64    128(R12), Z13; \
	VMOVDQU64    384(R12), Z14; \
	VMOVDQU64    640(R12), Z15; \
	VMOVDQU64    896(R12), Z16; \
	VPBROADCASTQ iq2rShift<>(SB), Z17; \
	VMOVDQU64    iq2rT<>(SB), Z18

// IQ2RPREP transposes one token's super-block of codes at xb into the
// frame at dst (block j at dst+32j) and puts its blocks' 43·m8/8 (m8 at
// mb) at dst+256; Z19 is scratch.
#define IQ2RPREP(xb, mb, dst) \
	VPERMB      0 xb, Z18, Z19; \
	VMOVDQU64   Z19, dst(SP); \
	VPERMB      64 xb, Z18, Z19; \
	VMOVDQU64   Z19, dst+64(SP); \
	VPERMB      128 xb, Z18, Z19; \
	VMOVDQU64   Z19, dst+128(SP); \
	VPERMB      192 xb, Z18, Z19; \
	VMOVDQU64   Z19, dst+192(SP); \
	VMOVDQU32   0 mb, Y19; \
	VPMULLD.BCST iq2r43<>(SB), Y19, Y19; \
	VPSRAD      $3, Y19, Y19; \
	VMOVDQU32   Y19, dst+256(SP)

// IQ2RCODES sets Z20…Z23 to X_0…X_3 of the block at off(base) (code
// tables at R12) and Z19 to its aux words; Z24, Z25 scratch.
#define IQ2RCODES(off, base) \
	VMOVDQU64       off(base), Z20; \
	VPMOVB2M        Z20, K1; \
	KNOTQ           K1, K2; \
	VMOVDQU64       off(base), Z21; \
	VMOVDQU64       off(base), Z22; \
	VMOVDQU64       off(base), Z23; \
	VPERMI2B        64(R12), Z9, K2, Z20; \
	VPERMI2B        192(R12), Z13, K1, Z20; \
	VPERMI2B        320(R12), Z10, K2, Z21; \
	VPERMI2B        448(R12), Z14, K1, Z21; \
	VPERMI2B        576(R12), Z11, K2, Z22; \
	VPERMI2B        704(R12), Z15, K1, Z22; \
	VPERMI2B        832(R12), Z12, K2, Z23; \
	VPERMI2B        960(R12), Z16, K1, Z23; \
	VMOVDQU64       off+64(base), Z19; \
	VPMULTISHIFTQB  Z19, Z17, Z24; \
	VGF2P8AFFINEQB.BCST $0, iq2rG1<>(SB), Z24, Z25; \
	VGF2P8AFFINEQB.BCST $0, iq2rG2<>(SB), Z24, Z24; \
	VPTERNLOGD.BCST $0xF8, iq2rM<>+0(SB), Z25, Z20; \
	VPTERNLOGD.BCST $0xF8, iq2rM<>+4(SB), Z25, Z21; \
	VPTERNLOGD.BCST $0xF8, iq2rM<>+8(SB), Z25, Z22; \
	VPORD           Z24, Z23, Z23

// IQ2RPOS adds weight position p of a block (index vector x, level table
// at tab(lv)) times the activation dword at xoff in the frame to s.
#define IQ2RPOS(x, lv, tab, xoff, w, s) \
	VPERMB        tab(lv), x, w; \
	VPDPBUSD.BCST xoff(SP), w, s

// IQ2RBLK is block j of one token for the group at base (d/8 in dv,
// levels at R11, the token's frame at 0) into acc.
#define IQ2RBLK(j, base, dv, acc) \
	IQ2RCODES(32+128*j, base); \
	VPBROADCASTD 256+4*j(SP), Z28; \
	VPXORD       Z29, Z29, Z29; \
	IQ2RPOS(Z20, R11, 0, 32*j, Z26, Z28); \
	IQ2RPOS(Z20, R11, 64, 32*j+4, Z27, Z29); \
	IQ2RPOS(Z21, R11, 128, 32*j+8, Z26, Z28); \
	IQ2RPOS(Z21, R11, 192, 32*j+12, Z27, Z29); \
	IQ2RPOS(Z22, R11, 256, 32*j+16, Z26, Z28); \
	IQ2RPOS(Z22, R11, 320, 32*j+20, Z27, Z29); \
	IQ2RPOS(Z23, R11, 0, 32*j+24, Z26, Z28); \
	IQ2RPOS(Z23, R11, 64, 32*j+28, Z27, Z29); \
	VPADDD       Z29, Z28, Z28; \
	VPERMPS      iq2rScale<>(SB), Z19, Z30; \
	VCVTDQ2PS    Z28, Z28; \
	VMULPS       Z30, Z28, Z28; \
	VMULPS.BCST  4*j(R10), dv, Z31; \
	VFMADD231PS  Z28, Z31, acc

// func rowsIQ2XXSx16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32)
//
// out[r] = row r · x for groups·16 packed rows of nsb super-blocks. SI
// weights, DI codes, R9 m8, R10 block scales (each at the current
// super-block), CX super-blocks left, R8 groups left, R13 out, R12 the
// code tables, R11 the level tables; Z0…Z7 the block accumulators, Z8 d/8.
// Frame: the super-block's transposed activations at 0, 43·m8/8 at 256.
TEXT ·rowsIQ2XXSx16VNNI(SB), NOSPLIT, $288-56
	MOVQ p+0(FP), SI
	MOVQ out+48(FP), R13
	MOVQ groups+40(FP), R8
	LEAQ ·iq2xxsCodes(SB), R12
	LEAQ ·iq2xxsLevels(SB), R11
	IQ2RCONSTS

iq2rrgroup:
	TESTQ R8, R8
	JEQ   iq2rrend
	MOVQ  xq+8(FP), DI
	MOVQ  m8+16(FP), R9
	MOVQ  xd+24(FP), R10
	MOVQ  nsb+32(FP), CX
	PZERO8(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)

iq2rrloop:
	IQ2RPREP((DI), (R9), 0)
	IQ2DV(SI, Z8)
	PFL8(0)
	IQ2RBLK(0, SI, Z8, Z0)
	IQ2RBLK(1, SI, Z8, Z1)
	IQ2RBLK(2, SI, Z8, Z2)
	IQ2RBLK(3, SI, Z8, Z3)
	PFL8(512)
	PFL(1024)
	IQ2RBLK(4, SI, Z8, Z4)
	IQ2RBLK(5, SI, Z8, Z5)
	IQ2RBLK(6, SI, Z8, Z6)
	IQ2RBLK(7, SI, Z8, Z7)
	ADDQ $1056, SI
	ADDQ $256, DI
	ADDQ $32, R9
	ADDQ $32, R10
	DECQ CX
	JNZ  iq2rrloop

	PHSUM8(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	VMOVUPS Z0, (R13)
	ADDQ    $64, R13
	DECQ    R8
	JMP     iq2rrgroup

iq2rrend:
	VZEROUPPER
	RET

// IQ2RG4POS adds weight position p of a block (index vector x, level
// table at tab(R15)) times each token's activation dword at xoff of its
// frame area to its sum Z0…Z3.
#define IQ2RG4POS(x, tab, xoff) \
	VPERMB        tab(R15), x, Z26; \
	VPDPBUSD.BCST xoff(SP), Z26, Z0; \
	VPDPBUSD.BCST 288+xoff(SP), Z26, Z1; \
	VPDPBUSD.BCST 576+xoff(SP), Z26, Z2; \
	VPDPBUSD.BCST 864+xoff(SP), Z26, Z3

// IQ2RG4OUT scales token t's sum s of block j by 2·ls + 1 (Z28) and adds
// it times (d/8)·dx (block scale at daddr) into its accumulator in the
// frame.
#define IQ2RG4OUT(s, t, j, daddr) \
	VCVTDQ2PS   s, s; \
	VMULPS      Z28, s, s; \
	VMULPS.BCST daddr, Z8, Z29; \
	VMOVUPS     1152+64*(8*t+j)(SP), Z30; \
	VFMADD231PS s, Z29, Z30; \
	VMOVUPS     Z30, 1152+64*(8*t+j)(SP)

// IQ2RBLK4 is block j for the four tokens.
#define IQ2RBLK4(j) \
	IQ2RCODES(32+128*j, SI); \
	VPBROADCASTD 256+4*j(SP), Z0; \
	VPBROADCASTD 544+4*j(SP), Z1; \
	VPBROADCASTD 832+4*j(SP), Z2; \
	VPBROADCASTD 1120+4*j(SP), Z3; \
	IQ2RG4POS(Z20, 0, 32*j); \
	IQ2RG4POS(Z20, 64, 32*j+4); \
	IQ2RG4POS(Z21, 128, 32*j+8); \
	IQ2RG4POS(Z21, 192, 32*j+12); \
	IQ2RG4POS(Z22, 256, 32*j+16); \
	IQ2RG4POS(Z22, 320, 32*j+20); \
	IQ2RG4POS(Z23, 0, 32*j+24); \
	IQ2RG4POS(Z23, 64, 32*j+28); \
	VPERMPS      iq2rScale<>(SB), Z19, Z28; \
	IQ2RG4OUT(Z0, 0, j, 4*j(R10)); \
	IQ2RG4OUT(Z1, 1, j, 4*j(R10)(DX*1)); \
	IQ2RG4OUT(Z2, 2, j, 4*j(R10)(DX*2)); \
	IQ2RG4OUT(Z3, 3, j, 4*j(R10)(BX*1))

// func gemm4IQ2XXSx16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32, ostride int)
//
// Not NOSPLIT: its frame is more than a nosplit function may take.
// out[t·ostride + r] = row r · token t for groups·16 packed rows and four
// tokens whose codes are xq + t·256·nsb, m8 m8 + t·8·nsb and block scales
// xd + t·8·nsb. A super-block's weights are decoded once for the four
// tokens (as in rowsIQ2XXSx16VNNI), each position's weights meet the four
// tokens' activations. SI the group, DI token 0's codes, AX the codes'
// bytes per token (R14 three times that), R9 m8, R10 the block scales, DX
// their bytes per token (BX three times), R12 the code tables, R15 the
// level tables. Frame: token t's transposed activations and 43·m8/8 at
// 288t, its eight block accumulators at 1152+512t, the group at 3200.
TEXT ·gemm4IQ2XXSx16VNNI(SB), 0, $3208-64
	MOVQ p+0(FP), SI
	MOVQ out+48(FP), R13
	MOVQ groups+40(FP), R8
	LEAQ ·iq2xxsCodes(SB), R12
	LEAQ ·iq2xxsLevels(SB), R15
	IQ2RCONSTS

iq2rggroup:
	TESTQ R8, R8
	JEQ   iq2rgend
	MOVQ  nsb+32(FP), AX
	MOVQ  AX, DX
	SHLQ  $5, DX
	LEAQ  (DX)(DX*2), BX
	SHLQ  $8, AX
	LEAQ  (AX)(AX*2), R14
	MOVQ  xq+8(FP), DI
	MOVQ  m8+16(FP), R9
	MOVQ  xd+24(FP), R10
	MOVQ  nsb+32(FP), CX
	VPXORD Z30, Z30, Z30
	PFZERO8(1152, 0, Z30)
	PFZERO8(1152, 1, Z30)
	PFZERO8(1152, 2, Z30)
	PFZERO8(1152, 3, Z30)

iq2rgloop:
	IQ2RPREP((DI), (R9), 0)
	IQ2RPREP((DI)(AX*1), (R9)(DX*1), 288)
	IQ2RPREP((DI)(AX*2), (R9)(DX*2), 576)
	IQ2RPREP((DI)(R14*1), (R9)(BX*1), 864)
	IQ2DV(SI, Z8)
	IQ2RBLK4(0)
	IQ2RBLK4(1)
	IQ2RBLK4(2)
	IQ2RBLK4(3)
	IQ2RBLK4(4)
	IQ2RBLK4(5)
	IQ2RBLK4(6)
	IQ2RBLK4(7)
	ADDQ $1056, SI
	ADDQ $256, DI
	ADDQ $32, R9
	ADDQ $32, R10
	DECQ CX
	JNZ  iq2rgloop

	MOVQ ostride+56(FP), AX
	SHLQ $2, AX
	PF4HSUM8(1152, Z20, Z21, Z22, Z23, Z24, Z25, Z26, Z27)
	DECQ R8
	JMP  iq2rggroup

iq2rgend:
	VZEROUPPER
	RET

// ---------------------------------------------------------------------------
// IQ2_XS (layout: packiq2.go), as IQ2_XXS above with two differences.
// The grid index has nine bits: X_k's bytes hold the low eight; bit 8 (K3,
// by VPSHUFBITQMB from the second half's scale bytes widened, Z30; K4 its
// complement) picks one of two 128-byte tables of iq2xsCodes (two masked
// VPERMI2B), whose bytes hold two entries' codes, e and e + 128, and bit 7
// of the index (K1, VPMOVB2M) moves e + 128's into e's place (one masked
// VGF2P8AFFINEQB); the signs then overwrite the bits left (VPTERNLOGD
// select) and iq2xxsLevels gives the weights. And a block has two scales,
// one a half of sixteen weights (runs 0, 1 and 2, 3): each position's
// weights meet the dword of the block's activations twice, once with runs
// 2, 3 zeroed and once with runs 0, 1 zeroed (both transposed into the
// frame once a super-block and token by VPERMB with zero masks K5, K6),
// into two sums that start from their halves' −43·Σx (VPDPBUSD of 43s,
// summed across each 128-bit lane, in the frame after them). float(p) =
// float(p₀₁)·s₀₁ + float(p₂₃)·s₂₃ (s the float 2·ls + 1, VPERMPS through
// iq2rScale of the aux words, whose low four bits are the first half's
// scale, and of Z30; one VMULPS and one FMA): both products and their sum
// are integers below 2²⁴, exact, so it is the float of dotIQ2XSGo's int32
// p = (2·ls₀₁ + 1)·p₀₁ + (2·ls₂₃ + 1)·p₂₃.
//
// Vector operations a block and token: 8 VPERMI2B, 8 VPERMB,
// VPMULTISHIFTQB, VPSHUFBITQMB, VPMOVZXBD and 2 VPERMPS (port 5); 16
// VPDPBUSD, 6 VGF2P8AFFINEQB, VPMOVB2M, KNOTQ and 2 VCVTDQ2PS (port 0); 4
// VPTERNLOGD, 2 VMULPS and 2 FMA (either): 55, and 6 more for the
// activations' transposition and half sums (48 a super-block and token),
// against about 120 for the gather kernel it replaced (8 VPGATHERDQ at ~7
// vector-port uops each, their index widening, 8 sign masks and merges,
// the half sums' start, the lane-pair folds, the int32 scales).
// Measured against that kernel on the same matrix (3072 columns,
// alternated in one run, 15 rounds, median ratio; the first run on a quiet
// machine and with the second half's scale a nibble of the scales byte,
// one VPSRLD more; the second, of this layout, beside other jobs): decode
// 1.19× and 1.18–1.27× (1 and 2 threads) on 1 MiB in L2, 1.25× and
// 1.25–1.27× on 128 MiB in DRAM; the four-token prefill kernel 1.09–1.12×
// and 1.13–1.20× in L2, 1.45–1.50× and 1.27–1.29× in DRAM.
// BenchmarkIQ2Triad (three runs beside other jobs): 0.41–0.43 (1 thread)
// and 0.33–0.42 (2 threads) of the STREAM triad, IQ2_XXS 0.45–0.51 in the
// same runs (the gather kernel 0.32–0.42).

// iq2xH8: the VPSHUFBITQMB control of bit 8 of the grid indices: byte 4r+l
// takes bit 4+l of row r's scale byte widened to a dword (qword r/2, bit
// 32(r%2) + 4 + l).
DATA iq2xH8<>+0(SB)/8, $0x2726252407060504
DATA iq2xH8<>+8(SB)/8, $0x2726252407060504
DATA iq2xH8<>+16(SB)/8, $0x2726252407060504
DATA iq2xH8<>+24(SB)/8, $0x2726252407060504
DATA iq2xH8<>+32(SB)/8, $0x2726252407060504
DATA iq2xH8<>+40(SB)/8, $0x2726252407060504
DATA iq2xH8<>+48(SB)/8, $0x2726252407060504
DATA iq2xH8<>+56(SB)/8, $0x2726252407060504
GLOBL iq2xH8<>(SB), RODATA|NOPTR, $64

// iq2xA: the VGF2P8AFFINEQB matrices (output bit i from byte 7−i) that
// move entry e + 128's codes into entry e's bits: table k = 0 and 3 at 0
// (bits 6…7 to 2…3, 0…1 to 4…5), k = 1 at 8 (2…3 to 0…1, 6…7 to 4…5),
// k = 2 at 16 (4…5 to 0…1, 6…7 to 2…3).
DATA iq2xA<>+0(SB)/8, $0x0000408001020000
DATA iq2xA<>+8(SB)/8, $0x0408000040800000
DATA iq2xA<>+16(SB)/8, $0x1020408000000000
GLOBL iq2xA<>(SB), RODATA|NOPTR, $24

// iq2xM: the sign bits of X_0 (and X_3), X_1, X_2.
DATA iq2xM<>+0(SB)/4, $0x03030303
DATA iq2xM<>+4(SB)/4, $0x0c0c0c0c
DATA iq2xM<>+8(SB)/4, $0x30303030
GLOBL iq2xM<>(SB), RODATA|NOPTR, $12


// IQ2XRCONSTS loads the code tables' first halves (codes at R12) into
// Z9…Z16 (table k, h in Z(9+2k+h)), the sign control into Z17, the
// transposition into Z18 and the activations' half masks into K5, K6.
#define IQ2XRCONSTS \
	VMOVDQU64    0(R12), Z9; \
	VMOVDQU64    128(R12), Z10; \
	VMOVDQU64    256(R12), Z11; \
	VMOVDQU64    384(R12), Z12; \
	VMOVDQU64    512(R12), Z13; \
	VMOVDQU64    640(R12), Z14; \
	VMOVDQU64    768(R12), Z15; \
	VMOVDQU64    896(R12), Z16; \
	VPBROADCASTQ iq2rShift<>(SB), Z17; \
	VMOVDQU64    iq2rT<>(SB), Z18; \
	MOVQ         $0x3333333333333333, AX; \
	KMOVQ        AX, K5; \
	MOVQ         $0xcccccccccccccccc, AX; \
	KMOVQ        AX, K6

// IQ2XRPREP1 transposes codes i·64…i·64+63 of a token (two blocks) at xb
// into the frame at dst: runs 0, 1 kept at dst+64i, runs 2, 3 kept at
// dst+256+64i, and the four halves' −43·Σx at dst+512+64i (each in a whole
// 128-bit lane: block j's halves at dst+512+32j and +16). Z27 holds 43
// bytes, Z26 zero; Z24, Z25 scratch.
#define IQ2XRPREP1(xb, i, dst) \
	VPERMB.Z    64*i xb, Z18, K5, Z24; \
	VMOVDQU64   Z24, dst+64*i(SP); \
	VPERMB.Z    64*i xb, Z18, K6, Z24; \
	VMOVDQU64   Z24, dst+256+64*i(SP); \
	VPXORD      Z25, Z25, Z25; \
	VPDPBUSD    64*i xb, Z27, Z25; \
	VPSHUFD     $0x4E, Z25, Z24; \
	VPADDD      Z24, Z25, Z25; \
	VPSHUFD     $0xB1, Z25, Z24; \
	VPADDD      Z24, Z25, Z25; \
	VPSUBD      Z25, Z26, Z25; \
	VMOVDQU64   Z25, dst+512+64*i(SP)

// IQ2XRPREP is a token's super-block of codes at xb into the frame at dst.
#define IQ2XRPREP(xb, dst) \
	VPBROADCASTD iq2p43<>(SB), Z27; \
	VPXORD       Z26, Z26, Z26; \
	IQ2XRPREP1(xb, 0, dst); \
	IQ2XRPREP1(xb, 1, dst); \
	IQ2XRPREP1(xb, 2, dst); \
	IQ2XRPREP1(xb, 3, dst)

// IQ2XRCODES sets Z20…Z23 to X_0…X_3 of the block at off(base) (code
// tables at R12), Z19 to its aux words (the scales of runs 0, 1 in their
// low four bits) and Z30 to its high bytes widened (the scales of runs 2,
// 3); Z24, Z25 scratch.
#define IQ2XRCODES(off, base) \
	VMOVDQU64       off(base), Z20; \
	VMOVDQU64       off+64(base), Z19; \
	VPMOVZXBD       off+128(base), Z30; \
	VPMOVB2M        Z20, K1; \
	VPSHUFBITQMB    iq2xH8<>(SB), Z30, K3; \
	KNOTQ           K3, K4; \
	VMOVDQU64       off(base), Z21; \
	VMOVDQU64       off(base), Z22; \
	VMOVDQU64       off(base), Z23; \
	VPERMI2B        64(R12), Z9, K4, Z20; \
	VPERMI2B        192(R12), Z10, K3, Z20; \
	VPERMI2B        320(R12), Z11, K4, Z21; \
	VPERMI2B        448(R12), Z12, K3, Z21; \
	VPERMI2B        576(R12), Z13, K4, Z22; \
	VPERMI2B        704(R12), Z14, K3, Z22; \
	VPERMI2B        832(R12), Z15, K4, Z23; \
	VPERMI2B        960(R12), Z16, K3, Z23; \
	VGF2P8AFFINEQB.BCST $0, iq2xA<>+0(SB), Z20, K1, Z20; \
	VGF2P8AFFINEQB.BCST $0, iq2xA<>+8(SB), Z21, K1, Z21; \
	VGF2P8AFFINEQB.BCST $0, iq2xA<>+16(SB), Z22, K1, Z22; \
	VGF2P8AFFINEQB.BCST $0, iq2xA<>+0(SB), Z23, K1, Z23; \
	VPMULTISHIFTQB  Z19, Z17, Z24; \
	VGF2P8AFFINEQB.BCST $0, iq2rG1<>(SB), Z24, Z25; \
	VGF2P8AFFINEQB.BCST $0, iq2rG2<>(SB), Z24, Z24; \
	VPTERNLOGD.BCST $0xD8, iq2xM<>+0(SB), Z25, Z20; \
	VPTERNLOGD.BCST $0xD8, iq2xM<>+4(SB), Z25, Z21; \
	VPTERNLOGD.BCST $0xD8, iq2xM<>+8(SB), Z25, Z22; \
	VPTERNLOGD.BCST $0xD8, iq2xM<>+0(SB), Z24, Z23

// IQ2XRPOS adds weight position p of a block (index vector x, level table
// at tab(R11)) times the activation dwords at xoff (runs 0, 1) and
// 256+xoff (runs 2, 3) of the frame to s0 and s1.
#define IQ2XRPOS(x, tab, xoff, w, s0, s1) \
	VPERMB        tab(R11), x, w; \
	VPDPBUSD.BCST xoff(SP), w, s0; \
	VPDPBUSD.BCST 256+xoff(SP), w, s1

// IQ2XRSCALES sets Z31, Z30 to the float 2·ls + 1 of the block's two
// halves from IQ2XRCODES's Z19 and Z30, lane r row r.
#define IQ2XRSCALES \
	VPERMPS iq2rScale<>(SB), Z19, Z31; \
	VPERMPS iq2rScale<>(SB), Z30, Z30

// IQ2XRBLK is block j of one token for the group at base (d/8 in dv,
// levels at R11, the token's frame at 0) into acc.
#define IQ2XRBLK(j, base, dv, acc) \
	IQ2XRCODES(32+144*j, base); \
	VPBROADCASTD 512+32*j(SP), Z28; \
	VPBROADCASTD 512+32*j+16(SP), Z29; \
	IQ2XRPOS(Z20, 0, 32*j, Z26, Z28, Z29); \
	IQ2XRPOS(Z20, 64, 32*j+4, Z27, Z28, Z29); \
	IQ2XRPOS(Z21, 128, 32*j+8, Z26, Z28, Z29); \
	IQ2XRPOS(Z21, 192, 32*j+12, Z27, Z28, Z29); \
	IQ2XRPOS(Z22, 256, 32*j+16, Z26, Z28, Z29); \
	IQ2XRPOS(Z22, 320, 32*j+20, Z27, Z28, Z29); \
	IQ2XRPOS(Z23, 0, 32*j+24, Z26, Z28, Z29); \
	IQ2XRPOS(Z23, 64, 32*j+28, Z27, Z28, Z29); \
	IQ2XRSCALES; \
	VCVTDQ2PS    Z28, Z28; \
	VCVTDQ2PS    Z29, Z29; \
	VMULPS       Z31, Z28, Z28; \
	VFMADD231PS  Z29, Z30, Z28; \
	VMULPS.BCST  4*j(R10), dv, Z31; \
	VFMADD231PS  Z28, Z31, acc

// func rowsIQ2XSx16VNNI(p *byte, xq *int8, xd *float32, nsb, groups int, out *float32)
//
// out[r] = row r · x for groups·16 packed rows of nsb super-blocks. SI
// weights, DI codes, R10 block scales (each at the current super-block),
// CX super-blocks left, R8 groups left, R13 out, R12 the code tables, R11
// the level tables; Z0…Z7 the block accumulators, Z8 d/8. Frame: the
// super-block's transposed activations (runs 0, 1 at 0, runs 2, 3 at 256),
// the halves' −43·Σx at 512. Not NOSPLIT: its frame is more than a nosplit
// function may take.
TEXT ·rowsIQ2XSx16VNNI(SB), 0, $768-48
	MOVQ p+0(FP), SI
	MOVQ out+40(FP), R13
	MOVQ groups+32(FP), R8
	LEAQ ·iq2xsCodes(SB), R12
	LEAQ ·iq2xxsLevels(SB), R11
	IQ2XRCONSTS

iq2xrgroup:
	TESTQ R8, R8
	JEQ   iq2xrend
	MOVQ  xq+8(FP), DI
	MOVQ  xd+16(FP), R10
	MOVQ  nsb+24(FP), CX
	PZERO8(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)

iq2xrloop:
	IQ2XRPREP((DI), 0)
	IQ2DV(SI, Z8)
	PFL8(0)
	IQ2XRBLK(0, SI, Z8, Z0)
	IQ2XRBLK(1, SI, Z8, Z1)
	IQ2XRBLK(2, SI, Z8, Z2)
	IQ2XRBLK(3, SI, Z8, Z3)
	PFL8(512)
	PFL2(1024)
	PFL(1152)
	IQ2XRBLK(4, SI, Z8, Z4)
	IQ2XRBLK(5, SI, Z8, Z5)
	IQ2XRBLK(6, SI, Z8, Z6)
	IQ2XRBLK(7, SI, Z8, Z7)
	ADDQ $1184, SI
	ADDQ $256, DI
	ADDQ $32, R10
	DECQ CX
	JNZ  iq2xrloop

	PHSUM8(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	VMOVUPS Z0, (R13)
	ADDQ    $64, R13
	DECQ    R8
	JMP     iq2xrgroup

iq2xrend:
	VZEROUPPER
	RET

// IQ2XRG4POS adds weight position p of a block (index vector x, level
// table at tab(R15)) times each token t's activation dwords at xoff and
// 256+xoff of its frame area (768t) to its sums Z(2t), Z(2t+1).
#define IQ2XRG4POS(x, tab, xoff) \
	VPERMB        tab(R15), x, Z26; \
	VPDPBUSD.BCST xoff(SP), Z26, Z0; \
	VPDPBUSD.BCST 256+xoff(SP), Z26, Z1; \
	VPDPBUSD.BCST 768+xoff(SP), Z26, Z2; \
	VPDPBUSD.BCST 1024+xoff(SP), Z26, Z3; \
	VPDPBUSD.BCST 1536+xoff(SP), Z26, Z4; \
	VPDPBUSD.BCST 1792+xoff(SP), Z26, Z5; \
	VPDPBUSD.BCST 2304+xoff(SP), Z26, Z6; \
	VPDPBUSD.BCST 2560+xoff(SP), Z26, Z7

// IQ2XRG4OUT scales token t's half sums s0, s1 of block j by their
// 2·ls + 1 (Z31, Z30) and adds the sum times (d/8)·dx (block scale at
// daddr) into its accumulator in the frame.
#define IQ2XRG4OUT(s0, s1, t, j, daddr) \
	VCVTDQ2PS   s0, s0; \
	VCVTDQ2PS   s1, s1; \
	VMULPS      Z31, s0, s0; \
	VFMADD231PS s1, Z30, s0; \
	VMULPS.BCST daddr, Z8, Z28; \
	VMOVUPS     3072+64*(8*t+j)(SP), Z29; \
	VFMADD231PS s0, Z28, Z29; \
	VMOVUPS     Z29, 3072+64*(8*t+j)(SP)

// IQ2XRBLK4 is block j for the four tokens.
#define IQ2XRBLK4(j) \
	IQ2XRCODES(32+144*j, SI); \
	VPBROADCASTD 512+32*j(SP), Z0; \
	VPBROADCASTD 528+32*j(SP), Z1; \
	VPBROADCASTD 1280+32*j(SP), Z2; \
	VPBROADCASTD 1296+32*j(SP), Z3; \
	VPBROADCASTD 2048+32*j(SP), Z4; \
	VPBROADCASTD 2064+32*j(SP), Z5; \
	VPBROADCASTD 2816+32*j(SP), Z6; \
	VPBROADCASTD 2832+32*j(SP), Z7; \
	IQ2XRG4POS(Z20, 0, 32*j); \
	IQ2XRG4POS(Z20, 64, 32*j+4); \
	IQ2XRG4POS(Z21, 128, 32*j+8); \
	IQ2XRG4POS(Z21, 192, 32*j+12); \
	IQ2XRG4POS(Z22, 256, 32*j+16); \
	IQ2XRG4POS(Z22, 320, 32*j+20); \
	IQ2XRG4POS(Z23, 0, 32*j+24); \
	IQ2XRG4POS(Z23, 64, 32*j+28); \
	IQ2XRSCALES; \
	IQ2XRG4OUT(Z0, Z1, 0, j, 4*j(R10)); \
	IQ2XRG4OUT(Z2, Z3, 1, j, 4*j(R10)(DX*1)); \
	IQ2XRG4OUT(Z4, Z5, 2, j, 4*j(R10)(DX*2)); \
	IQ2XRG4OUT(Z6, Z7, 3, j, 4*j(R10)(BX*1))

// func gemm4IQ2XSx16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32, ostride int)
//
// Not NOSPLIT: its frame is more than a nosplit function may take.
// out[t·ostride + r] = row r · token t for groups·16 packed rows and four
// tokens whose codes are xq + t·256·nsb and block scales xd + t·8·nsb (m8
// is not read). A super-block's weights are decoded once for the four
// tokens (as in rowsIQ2XSx16VNNI). SI the group, DI token 0's codes, AX
// the codes' bytes per token (R14 three times that), R10 the block scales,
// DX their bytes per token (BX three times), R12 the code tables, R15 the
// level tables. Frame: token t's transposed activations and −43·Σx at
// 768t, its eight block accumulators at 3072+512t.
TEXT ·gemm4IQ2XSx16VNNI(SB), 0, $5120-64
	MOVQ p+0(FP), SI
	MOVQ out+48(FP), R13
	MOVQ groups+40(FP), R8
	LEAQ ·iq2xsCodes(SB), R12
	LEAQ ·iq2xxsLevels(SB), R15
	IQ2XRCONSTS

iq2xgroup:
	TESTQ R8, R8
	JEQ   iq2xgend
	MOVQ  nsb+32(FP), AX
	MOVQ  AX, DX
	SHLQ  $5, DX
	LEAQ  (DX)(DX*2), BX
	SHLQ  $8, AX
	LEAQ  (AX)(AX*2), R14
	MOVQ  xq+8(FP), DI
	MOVQ  xd+24(FP), R10
	MOVQ  nsb+32(FP), CX
	VPXORD Z30, Z30, Z30
	PFZERO8(3072, 0, Z30)
	PFZERO8(3072, 1, Z30)
	PFZERO8(3072, 2, Z30)
	PFZERO8(3072, 3, Z30)

iq2xgloop:
	IQ2XRPREP((DI), 0)
	IQ2XRPREP((DI)(AX*1), 768)
	IQ2XRPREP((DI)(AX*2), 1536)
	IQ2XRPREP((DI)(R14*1), 2304)
	IQ2DV(SI, Z8)
	IQ2XRBLK4(0)
	IQ2XRBLK4(1)
	IQ2XRBLK4(2)
	IQ2XRBLK4(3)
	IQ2XRBLK4(4)
	IQ2XRBLK4(5)
	IQ2XRBLK4(6)
	IQ2XRBLK4(7)
	ADDQ $1184, SI
	ADDQ $256, DI
	ADDQ $32, R10
	DECQ CX
	JNZ  iq2xgloop

	MOVQ ostride+56(FP), AX
	SHLQ $2, AX
	PF4HSUM8(3072, Z20, Z21, Z22, Z23, Z24, Z25, Z26, Z27)
	DECQ R8
	JMP  iq2xgroup

iq2xgend:
	VZEROUPPER
	RET
