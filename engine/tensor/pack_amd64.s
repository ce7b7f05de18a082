#include "textflag.h"
#include "ahead_amd64.h"

// Packed Q4_0 and Q8_0 kernels (layouts and arithmetic: pack.go). Each block of a
// group of sixteen rows is 288 bytes: 32 bytes of f16 scales, then four
// 64-byte vectors V0…V3 whose dword r is row r's code bytes 4v…4v+3. Low
// nibbles of Vv meet activation dword v, high nibbles dword 4+v.
//
// Per (row, token), every kernel here computes the same numbers:
// i_b = m8_b + Σ q·x exactly (m8 = −8·Σx from the quantiser), then
// acc_even/odd = fma(f32(d_b)·dx_b, float(i_b), acc_even/odd) by block
// parity, and out = even + odd. The VNNI kernels hold sixteen rows in a
// ZMM lane each; the AVX2 ones eight rows in a YMM, one half-group per
// pass. The integer sums are the same numbers on both (VPDPBUSD is exact;
// VPMADDUBSW sums here stay below 8·2·15·127 = 30480, far from int16
// saturation), and the float operations are the same lane for lane.

// The one-token kernels prefetch their weights into L2 (PFL, ahead_amd64.h).
// On the 2-vCPU EPYC VM the hardware prefetcher had kept up with this one
// sequential stream (sixteen 8192×2048 matrices, five alternated rounds:
// 20–29 GB/s without, 19–26 GB/s with PREFETCHT0 2 KiB ahead at one
// thread; 13–16 against 10–13 at two); on the Xeon VM it did not, and the
// L2 prefetch of ahead_amd64.h gained 15–20% there. Zen 5 is to re-measure.
// The AVX2 one-token kernel reads a group in two passes, the second from
// cache, and prefetches DX bytes ahead (PFD, PFDPASS): 2 KiB in the first pass, the
// next group in the second. With 2 KiB in both the memory idled through
// every second pass and packed Q4_0 decoded no faster than the GGUF layout
// on the EPYC VM (0.87–1.18×, benchTriadTypes over four 128 MiB matrices,
// three alternated runs of five rounds); with the next group's lines
// 1.30–1.50× at one thread and 1.28–1.44× at two.
// The four-token kernels, which spend far more work per byte, have none.

DATA mask0f<>+0(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA mask0f<>+8(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA mask0f<>+16(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA mask0f<>+24(SB)/8, $0x0f0f0f0f0f0f0f0f
GLOBL mask0f<>(SB), RODATA|NOPTR, $32

DATA ones16<>+0(SB)/8, $0x0001000100010001
DATA ones16<>+8(SB)/8, $0x0001000100010001
DATA ones16<>+16(SB)/8, $0x0001000100010001
DATA ones16<>+24(SB)/8, $0x0001000100010001
GLOBL ones16<>(SB), RODATA|NOPTR, $32

// ---- AVX-512 VNNI: sixteen rows per ZMM ----

// ZUNPACK splits the block at woff(SI) into its nibbles, Z8/Z9 = V0 low/high
// … Z14/Z15 = V3 low/high, and converts its scales into Z16. Z31 = 0x0F bytes.
#define ZUNPACK(woff) ZUNPACKR(woff, SI)

// ZUNPACKR is ZUNPACK for the block at woff(base).
#define ZUNPACKR(woff, base) \
	VPANDD    woff+32(base), Z31, Z8; \
	VPSRLW    $4, woff+32(base), Z9; \
	VPANDD    Z31, Z9, Z9; \
	VPANDD    woff+96(base), Z31, Z10; \
	VPSRLW    $4, woff+96(base), Z11; \
	VPANDD    Z31, Z11, Z11; \
	VPANDD    woff+160(base), Z31, Z12; \
	VPSRLW    $4, woff+160(base), Z13; \
	VPANDD    Z31, Z13, Z13; \
	VPANDD    woff+224(base), Z31, Z14; \
	VPSRLW    $4, woff+224(base), Z15; \
	VPANDD    Z31, Z15, Z15; \
	VCVTPH2PS woff(base), Z16

// ZTOK adds one token's share of the unpacked block to acc: the token's
// codes at xoff(xb), its m8 at maddr and scale at daddr; isum and sc are
// scratch. Each VPDPBUSD multiplies the nibbles (unsigned) by one
// activation dword broadcast to every lane (signed) and adds the four
// products into each row's lane.
#define ZTOK(xb, xoff, maddr, daddr, isum, sc, acc) \
	VPBROADCASTD  maddr, isum; \
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

#define MASK0F_Z31 \
	MOVL         $0x0f0f0f0f, AX; \
	VPBROADCASTD AX, Z31

// func rowsQ4_0x16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nb, groups int, out *float32)
//
// out[r] = row r · x for groups·16 packed rows of nb blocks.
// SI weights, DI codes, R9 m8, R10 scales (each at the current block),
// CX blocks left, R8 groups left, R13 out; Z0/Z1 even/odd-block sums.
//
// Groups go two at a time (R11 the second's weights, BX the bytes of a
// group, Z2/Z3 its sums), then a last odd one alone: two streams of
// weights per thread keep more of decode's misses in flight than one
// (docs/performance.md). Each group's sums are bit for bit those of the
// one-group loop.
TEXT ·rowsQ4_0x16VNNI(SB), NOSPLIT, $0-56
	MOVQ  p+0(FP), SI
	MOVQ  out+48(FP), R13
	MOVQ  groups+40(FP), R8
	MOVQ  nb+32(FP), BX
	IMULQ $288, BX
	MASK0F_Z31

zrpair:
	CMPQ   R8, $2
	JLT    zrgroup
	LEAQ   (SI)(BX*1), R11
	MOVQ   xq+8(FP), DI
	MOVQ   m8+16(FP), R9
	MOVQ   xd+24(FP), R10
	MOVQ   nb+32(FP), CX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3

zrploop2:
	CMPQ CX, $2
	JLT  zrptail
	PFL8(0)
	PFL(512)
	PFLB8(0)
	PFLB(512)
	ZUNPACK(0)
	ZTOK(DI, 0, (R9), (R10), Z17, Z18, Z0)
	ZUNPACKR(0, R11)
	ZTOK(DI, 0, (R9), (R10), Z21, Z22, Z2)
	ZUNPACK(288)
	ZTOK(DI, 32, 4(R9), 4(R10), Z19, Z20, Z1)
	ZUNPACKR(288, R11)
	ZTOK(DI, 32, 4(R9), 4(R10), Z23, Z24, Z3)
	ADDQ $576, SI
	ADDQ $576, R11
	ADDQ $64, DI
	ADDQ $8, R9
	ADDQ $8, R10
	SUBQ $2, CX
	JMP  zrploop2

zrptail:
	TESTQ CX, CX
	JEQ   zrpdone
	ZUNPACK(0)
	ZTOK(DI, 0, (R9), (R10), Z17, Z18, Z0)
	ZUNPACKR(0, R11)
	ZTOK(DI, 0, (R9), (R10), Z21, Z22, Z2)
	ADDQ  $288, R11

zrpdone:
	VADDPS  Z1, Z0, Z0
	VADDPS  Z3, Z2, Z2
	VMOVUPS Z0, (R13)
	VMOVUPS Z2, 64(R13)
	ADDQ    $128, R13
	MOVQ    R11, SI
	SUBQ    $2, R8
	JMP     zrpair

zrgroup:
	TESTQ  R8, R8
	JEQ    zrend
	MOVQ   xq+8(FP), DI
	MOVQ   m8+16(FP), R9
	MOVQ   xd+24(FP), R10
	MOVQ   nb+32(FP), CX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1

zrloop2:
	CMPQ CX, $2
	JLT  zrtail
	PFL8(0)
	PFL(512)
	ZUNPACK(0)
	ZTOK(DI, 0, (R9), (R10), Z17, Z18, Z0)
	ZUNPACK(288)
	ZTOK(DI, 32, 4(R9), 4(R10), Z19, Z20, Z1)
	ADDQ $576, SI
	ADDQ $64, DI
	ADDQ $8, R9
	ADDQ $8, R10
	SUBQ $2, CX
	JMP  zrloop2

zrtail:
	TESTQ CX, CX
	JEQ   zrdone
	ZUNPACK(0)
	ZTOK(DI, 0, (R9), (R10), Z17, Z18, Z0)
	ADDQ  $288, SI

zrdone:
	VADDPS  Z1, Z0, Z0
	VMOVUPS Z0, (R13)
	ADDQ    $64, R13
	DECQ    R8
	JMP     zrgroup

zrend:
	VZEROUPPER
	RET

// ZBLK4 runs the block at woff(SI) for four tokens: codes at xoff from
// DI, R11, R12, R14; m8 and scales at moff from R9 and R10, the tokens
// DX bytes apart (BX = 3·DX); into accumulators a0…a3.
#define ZBLK4(woff, xoff, moff, a0, a1, a2, a3) \
	ZUNPACK(woff); \
	ZTOK(DI, xoff, moff(R9), moff(R10), Z17, Z21, a0); \
	ZTOK(R11, xoff, moff(R9)(DX*1), moff(R10)(DX*1), Z18, Z22, a1); \
	ZTOK(R12, xoff, moff(R9)(DX*2), moff(R10)(DX*2), Z19, Z23, a2); \
	ZTOK(R14, xoff, moff(R9)(BX*1), moff(R10)(BX*1), Z20, Z24, a3)

// func gemm4Q4_0x16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nb, groups int, out *float32, ostride int)
//
// out[t·ostride + r] = row r · token t for groups·16 packed rows and four
// tokens whose codes are xq + t·32·nb, m8 m8 + t·nb and scales xd + t·nb.
// SI weights; DI, R11, R12, R14 the four tokens' codes; R9 m8 and R10
// scales of token 0 (DX bytes per token, BX three tokens); CX blocks
// left, R8 groups left, R13 out. Token t sums even blocks in Z(2t), odd
// ones in Z(2t+1).
TEXT ·gemm4Q4_0x16VNNI(SB), NOSPLIT, $0-64
	MOVQ p+0(FP), SI
	MOVQ nb+32(FP), DX
	SHLQ $2, DX
	LEAQ (DX)(DX*2), BX
	MOVQ out+48(FP), R13
	MOVQ groups+40(FP), R8
	MASK0F_Z31

zggroup:
	TESTQ  R8, R8
	JEQ    zgend
	MOVQ   xq+8(FP), DI
	MOVQ   nb+32(FP), AX
	SHLQ   $5, AX              // codes per token
	LEAQ   (DI)(AX*1), R11
	LEAQ   (R11)(AX*1), R12
	LEAQ   (R12)(AX*1), R14
	MOVQ   m8+16(FP), R9
	MOVQ   xd+24(FP), R10
	MOVQ   nb+32(FP), CX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7

zgloop2:
	CMPQ CX, $2
	JLT  zgtail
	ZBLK4(0, 0, 0, Z0, Z2, Z4, Z6)
	ZBLK4(288, 32, 4, Z1, Z3, Z5, Z7)
	ADDQ $576, SI
	ADDQ $64, DI
	ADDQ $64, R11
	ADDQ $64, R12
	ADDQ $64, R14
	ADDQ $8, R9
	ADDQ $8, R10
	SUBQ $2, CX
	JMP  zgloop2

zgtail:
	TESTQ CX, CX
	JEQ   zgdone
	ZBLK4(0, 0, 0, Z0, Z2, Z4, Z6)
	ADDQ  $288, SI

zgdone:
	VADDPS  Z1, Z0, Z0
	VADDPS  Z3, Z2, Z2
	VADDPS  Z5, Z4, Z4
	VADDPS  Z7, Z6, Z6
	MOVQ    ostride+56(FP), AX
	SHLQ    $2, AX
	VMOVUPS Z0, (R13)
	VMOVUPS Z2, (R13)(AX*1)
	VMOVUPS Z4, (R13)(AX*2)
	LEAQ    (AX)(AX*2), AX
	VMOVUPS Z6, (R13)(AX*1)
	ADDQ    $64, R13
	DECQ    R8
	JMP     zggroup

zgend:
	VZEROUPPER
	RET

// ---- Q8_0, AVX-512 VNNI: sixteen rows per ZMM ----

// A packed Q8_0 block of a group is 544 bytes: 32 bytes of f16 scales,
// then eight 64-byte vectors V0…V7 whose dword r is row r's code bytes
// 4v…4v+3 plus 128 (unsigned), which meet activation dword v. Each block's
// integer sum starts from 16·m8 = −128·Σx, taking back what the +128 adds
// (|Σx| ≤ 32·127, so every partial sum stays far inside int32); the float
// work is the Q4_0 kernels' (ZTOK), so the decode and the four-token
// kernel agree bit for bit.

// Q8LOAD loads the block at woff(SI): Z8…Z15 = V0…V7, Z16 its scales.
#define Q8LOAD(woff) Q8LOADR(woff, SI)

// Q8LOADR is Q8LOAD for the block at woff(base).
#define Q8LOADR(woff, base) \
	VMOVDQU64 woff+32(base), Z8; \
	VMOVDQU64 woff+96(base), Z9; \
	VMOVDQU64 woff+160(base), Z10; \
	VMOVDQU64 woff+224(base), Z11; \
	VMOVDQU64 woff+288(base), Z12; \
	VMOVDQU64 woff+352(base), Z13; \
	VMOVDQU64 woff+416(base), Z14; \
	VMOVDQU64 woff+480(base), Z15; \
	VCVTPH2PS woff(base), Z16

// Q8TOK is ZTOK for the loaded Q8_0 block: one token's codes at xoff(xb),
// its m8 at maddr and scale at daddr, into acc; isum and sc are scratch.
#define Q8TOK(xb, xoff, maddr, daddr, isum, sc, acc) \
	VPBROADCASTD  maddr, isum; \
	VPSLLD        $4, isum, isum; \
	VPDPBUSD.BCST xoff(xb), Z8, isum; \
	VPDPBUSD.BCST xoff+4(xb), Z9, isum; \
	VPDPBUSD.BCST xoff+8(xb), Z10, isum; \
	VPDPBUSD.BCST xoff+12(xb), Z11, isum; \
	VPDPBUSD.BCST xoff+16(xb), Z12, isum; \
	VPDPBUSD.BCST xoff+20(xb), Z13, isum; \
	VPDPBUSD.BCST xoff+24(xb), Z14, isum; \
	VPDPBUSD.BCST xoff+28(xb), Z15, isum; \
	VCVTDQ2PS     isum, isum; \
	VMULPS.BCST   daddr, Z16, sc; \
	VFMADD231PS   isum, sc, acc

// func rowsQ8_0x16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nb, groups int, out *float32)
//
// rowsQ4_0x16VNNI for packed Q8_0. SI weights, DI codes, R9 m8, R10
// scales (each at the current block), CX blocks left, R8 groups left, R13
// out; Z0/Z1 even/odd-block sums, Z8–Z16 the block, Z17–Z20 scratch;
// groups two at a time as there (Z2/Z3 the second's sums, Z21–Z24 its
// scratch).
TEXT ·rowsQ8_0x16VNNI(SB), NOSPLIT, $0-56
	MOVQ  p+0(FP), SI
	MOVQ  out+48(FP), R13
	MOVQ  groups+40(FP), R8
	MOVQ  nb+32(FP), BX
	IMULQ $544, BX

q8rpair:
	CMPQ   R8, $2
	JLT    q8rgroup
	LEAQ   (SI)(BX*1), R11
	MOVQ   xq+8(FP), DI
	MOVQ   m8+16(FP), R9
	MOVQ   xd+24(FP), R10
	MOVQ   nb+32(FP), CX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3

q8rploop2:
	CMPQ CX, $2
	JLT  q8rptail
	PFL8(0)
	PFL8(512)
	PFL(1024)
	PFLB8(0)
	PFLB8(512)
	PFLB(1024)
	Q8LOAD(0)
	Q8TOK(DI, 0, (R9), (R10), Z17, Z18, Z0)
	Q8LOADR(0, R11)
	Q8TOK(DI, 0, (R9), (R10), Z21, Z22, Z2)
	Q8LOAD(544)
	Q8TOK(DI, 32, 4(R9), 4(R10), Z19, Z20, Z1)
	Q8LOADR(544, R11)
	Q8TOK(DI, 32, 4(R9), 4(R10), Z23, Z24, Z3)
	ADDQ $1088, SI
	ADDQ $1088, R11
	ADDQ $64, DI
	ADDQ $8, R9
	ADDQ $8, R10
	SUBQ $2, CX
	JMP  q8rploop2

q8rptail:
	TESTQ CX, CX
	JEQ   q8rpdone
	Q8LOAD(0)
	Q8TOK(DI, 0, (R9), (R10), Z17, Z18, Z0)
	Q8LOADR(0, R11)
	Q8TOK(DI, 0, (R9), (R10), Z21, Z22, Z2)
	ADDQ  $544, R11

q8rpdone:
	VADDPS  Z1, Z0, Z0
	VADDPS  Z3, Z2, Z2
	VMOVUPS Z0, (R13)
	VMOVUPS Z2, 64(R13)
	ADDQ    $128, R13
	MOVQ    R11, SI
	SUBQ    $2, R8
	JMP     q8rpair

q8rgroup:
	TESTQ  R8, R8
	JEQ    q8rend
	MOVQ   xq+8(FP), DI
	MOVQ   m8+16(FP), R9
	MOVQ   xd+24(FP), R10
	MOVQ   nb+32(FP), CX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1

q8rloop2:
	CMPQ CX, $2
	JLT  q8rtail
	PFL8(0)
	PFL8(512)
	PFL(1024)
	Q8LOAD(0)
	Q8TOK(DI, 0, (R9), (R10), Z17, Z18, Z0)
	Q8LOAD(544)
	Q8TOK(DI, 32, 4(R9), 4(R10), Z19, Z20, Z1)
	ADDQ $1088, SI
	ADDQ $64, DI
	ADDQ $8, R9
	ADDQ $8, R10
	SUBQ $2, CX
	JMP  q8rloop2

q8rtail:
	TESTQ CX, CX
	JEQ   q8rdone
	Q8LOAD(0)
	Q8TOK(DI, 0, (R9), (R10), Z17, Z18, Z0)
	ADDQ  $544, SI

q8rdone:
	VADDPS  Z1, Z0, Z0
	VMOVUPS Z0, (R13)
	ADDQ    $64, R13
	DECQ    R8
	JMP     q8rgroup

q8rend:
	VZEROUPPER
	RET

// Q8BLK4 is ZBLK4 for a packed Q8_0 block: the block at woff(SI) for four
// tokens (codes at xoff from DI, R11, R12, R14; m8 and scales at moff from
// R9 and R10, DX bytes a token, BX = 3·DX) into a0…a3.
#define Q8BLK4(woff, xoff, moff, a0, a1, a2, a3) \
	Q8LOAD(woff); \
	Q8TOK(DI, xoff, moff(R9), moff(R10), Z17, Z21, a0); \
	Q8TOK(R11, xoff, moff(R9)(DX*1), moff(R10)(DX*1), Z18, Z22, a1); \
	Q8TOK(R12, xoff, moff(R9)(DX*2), moff(R10)(DX*2), Z19, Z23, a2); \
	Q8TOK(R14, xoff, moff(R9)(BX*1), moff(R10)(BX*1), Z20, Z24, a3)

// func gemm4Q8_0x16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nb, groups int, out *float32, ostride int)
//
// gemm4Q4_0x16VNNI for packed Q8_0, with its register plan: SI weights;
// DI, R11, R12, R14 the four tokens' codes; R9 m8 and R10 scales of
// token 0 (DX bytes per token, BX three tokens); CX blocks left, R8 groups
// left, R13 out. Token t sums even blocks in Z(2t), odd ones in Z(2t+1);
// Z8–Z16 the block, Z17–Z24 scratch.
TEXT ·gemm4Q8_0x16VNNI(SB), NOSPLIT, $0-64
	MOVQ p+0(FP), SI
	MOVQ nb+32(FP), DX
	SHLQ $2, DX
	LEAQ (DX)(DX*2), BX
	MOVQ out+48(FP), R13
	MOVQ groups+40(FP), R8

q8ggroup:
	TESTQ  R8, R8
	JEQ    q8gend
	MOVQ   xq+8(FP), DI
	MOVQ   nb+32(FP), AX
	SHLQ   $5, AX              // codes per token
	LEAQ   (DI)(AX*1), R11
	LEAQ   (R11)(AX*1), R12
	LEAQ   (R12)(AX*1), R14
	MOVQ   m8+16(FP), R9
	MOVQ   xd+24(FP), R10
	MOVQ   nb+32(FP), CX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7

q8gloop2:
	CMPQ CX, $2
	JLT  q8gtail
	Q8BLK4(0, 0, 0, Z0, Z2, Z4, Z6)
	Q8BLK4(544, 32, 4, Z1, Z3, Z5, Z7)
	ADDQ $1088, SI
	ADDQ $64, DI
	ADDQ $64, R11
	ADDQ $64, R12
	ADDQ $64, R14
	ADDQ $8, R9
	ADDQ $8, R10
	SUBQ $2, CX
	JMP  q8gloop2

q8gtail:
	TESTQ CX, CX
	JEQ   q8gdone
	Q8BLK4(0, 0, 0, Z0, Z2, Z4, Z6)
	ADDQ  $544, SI

q8gdone:
	VADDPS  Z1, Z0, Z0
	VADDPS  Z3, Z2, Z2
	VADDPS  Z5, Z4, Z4
	VADDPS  Z7, Z6, Z6
	MOVQ    ostride+56(FP), AX
	SHLQ    $2, AX
	VMOVUPS Z0, (R13)
	VMOVUPS Z2, (R13)(AX*1)
	VMOVUPS Z4, (R13)(AX*2)
	LEAQ    (AX)(AX*2), AX
	VMOVUPS Z6, (R13)(AX*1)
	ADDQ    $64, R13
	DECQ    R8
	JMP     q8ggroup

q8gend:
	VZEROUPPER
	RET

// ---- AVX2: eight rows per YMM, a half-group per pass ----

// YUNPACK splits half R12/16 of the block at woff(SI) (R12 = 0: rows 0–7,
// the vectors' low halves; R12 = 16: rows 8–15) into its nibbles, Y8/Y9 =
// V0 low/high … Y14/Y15 = V3 low/high, and converts its eight scales into Y4.
#define YUNPACK(woff) \
	VMOVDQU   woff+32(SI)(R12*2), Y8; \
	VPSRLW    $4, Y8, Y9; \
	VPAND     mask0f<>(SB), Y8, Y8; \
	VPAND     mask0f<>(SB), Y9, Y9; \
	VMOVDQU   woff+96(SI)(R12*2), Y10; \
	VPSRLW    $4, Y10, Y11; \
	VPAND     mask0f<>(SB), Y10, Y10; \
	VPAND     mask0f<>(SB), Y11, Y11; \
	VMOVDQU   woff+160(SI)(R12*2), Y12; \
	VPSRLW    $4, Y12, Y13; \
	VPAND     mask0f<>(SB), Y12, Y12; \
	VPAND     mask0f<>(SB), Y13, Y13; \
	VMOVDQU   woff+224(SI)(R12*2), Y14; \
	VPSRLW    $4, Y14, Y15; \
	VPAND     mask0f<>(SB), Y14, Y14; \
	VPAND     mask0f<>(SB), Y15, Y15; \
	VCVTPH2PS woff(SI)(R12*1), Y4

// YPAIR adds nibbles nib times activation dword xoff(xb), as int16 pair
// sums, to Y7. Clobbers Y5, Y6.
#define YPAIR(xb, xoff, nib) \
	VPBROADCASTD xoff(xb), Y5; \
	VPMADDUBSW   Y5, nib, Y6; \
	VPADDW       Y6, Y7, Y7

// YTOK is ZTOK for eight rows: the eight VPMADDUBSW pair sums add up in
// int16 (at most 30480), one VPMADDWD makes them the rows' int32 sums.
// Clobbers Y5–Y7.
#define YTOK(xb, xoff, maddr, daddr, acc) \
	VPBROADCASTD xoff(xb), Y5; \
	VPMADDUBSW   Y5, Y8, Y7; \
	YPAIR(xb, xoff+16, Y9); \
	YPAIR(xb, xoff+4, Y10); \
	YPAIR(xb, xoff+20, Y11); \
	YPAIR(xb, xoff+8, Y12); \
	YPAIR(xb, xoff+24, Y13); \
	YPAIR(xb, xoff+12, Y14); \
	YPAIR(xb, xoff+28, Y15); \
	VPMADDWD     ones16<>(SB), Y7, Y7; \
	VPBROADCASTD maddr, Y5; \
	VPADDD       Y5, Y7, Y7; \
	VCVTDQ2PS    Y7, Y7; \
	VBROADCASTSS daddr, Y5; \
	VMULPS       Y5, Y4, Y5; \
	VFMADD231PS  Y7, Y5, acc

// func rowsQ4_0x16AVX2(p *byte, xq *int8, m8 *int32, xd *float32, nb, groups int, out *float32)
//
// rowsQ4_0x16VNNI on AVX2. SI weights, BX the group's first block, R12
// the half (0, 16), DI codes, R9 m8, R10 scales, CX blocks left, R8
// groups left, R13 out; Y0/Y1 even/odd-block sums.
TEXT ·rowsQ4_0x16AVX2(SB), NOSPLIT, $0-56
	MOVQ  p+0(FP), SI
	MOVQ  out+48(FP), R13
	MOVQ  groups+40(FP), R8
	MOVQ  nb+32(FP), R14
	IMULQ $288, R14

yrgroup:
	TESTQ R8, R8
	JEQ   yrend
	MOVQ  SI, BX
	XORQ  R12, R12

yrhalf:
	PFDPASS(R12, R14)
	MOVQ    BX, SI
	MOVQ   xq+8(FP), DI
	MOVQ   m8+16(FP), R9
	MOVQ   xd+24(FP), R10
	MOVQ   nb+32(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1

yrloop2:
	CMPQ CX, $2
	JLT  yrtail
	PFD8(0)
	PFD(512)
	YUNPACK(0)
	YTOK(DI, 0, (R9), (R10), Y0)
	YUNPACK(288)
	YTOK(DI, 32, 4(R9), 4(R10), Y1)
	ADDQ $576, SI
	ADDQ $64, DI
	ADDQ $8, R9
	ADDQ $8, R10
	SUBQ $2, CX
	JMP  yrloop2

yrtail:
	TESTQ CX, CX
	JEQ   yrdone
	YUNPACK(0)
	YTOK(DI, 0, (R9), (R10), Y0)
	ADDQ  $288, SI

yrdone:
	VADDPS  Y1, Y0, Y0
	VMOVUPS Y0, (R13)(R12*2)
	ADDQ    $16, R12
	CMPQ    R12, $32
	JLT     yrhalf
	ADDQ    $64, R13
	DECQ    R8
	JMP     yrgroup

yrend:
	VZEROUPPER
	RET

// func gemm2Q4_0x16AVX2(p *byte, xq *int8, m8 *int32, xd *float32, nb, groups int, out *float32, ostride int)
//
// rowsQ4_0x16AVX2 for two tokens at once (codes xq + t·32·nb, m8 and
// scales t·nb further): out[t·ostride + r]. Sixteen YMM registers allow no
// more: two tokens' even/odd sums (Y0/Y1, Y2/Y3), the scales (Y4), three
// scratch (Y5–Y7) and the eight nibble vectors. DI and R11 are the two
// tokens' codes, DX the bytes between their m8 and scales; the rest as in
// rowsQ4_0x16AVX2.
TEXT ·gemm2Q4_0x16AVX2(SB), NOSPLIT, $0-64
	MOVQ p+0(FP), SI
	MOVQ nb+32(FP), DX
	SHLQ $2, DX
	MOVQ out+48(FP), R13
	MOVQ groups+40(FP), R8

y2group:
	TESTQ R8, R8
	JEQ   y2end
	MOVQ  SI, BX
	XORQ  R12, R12

y2half:
	MOVQ   BX, SI
	MOVQ   xq+8(FP), DI
	MOVQ   nb+32(FP), AX
	SHLQ   $5, AX
	LEAQ   (DI)(AX*1), R11
	MOVQ   m8+16(FP), R9
	MOVQ   xd+24(FP), R10
	MOVQ   nb+32(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3

y2loop2:
	CMPQ CX, $2
	JLT  y2tail
	YUNPACK(0)
	YTOK(DI, 0, (R9), (R10), Y0)
	YTOK(R11, 0, (R9)(DX*1), (R10)(DX*1), Y2)
	YUNPACK(288)
	YTOK(DI, 32, 4(R9), 4(R10), Y1)
	YTOK(R11, 32, 4(R9)(DX*1), 4(R10)(DX*1), Y3)
	ADDQ $576, SI
	ADDQ $64, DI
	ADDQ $64, R11
	ADDQ $8, R9
	ADDQ $8, R10
	SUBQ $2, CX
	JMP  y2loop2

y2tail:
	TESTQ CX, CX
	JEQ   y2done
	YUNPACK(0)
	YTOK(DI, 0, (R9), (R10), Y0)
	YTOK(R11, 0, (R9)(DX*1), (R10)(DX*1), Y2)
	ADDQ  $288, SI

y2done:
	VADDPS  Y1, Y0, Y0
	VADDPS  Y3, Y2, Y2
	VMOVUPS Y0, (R13)(R12*2)
	MOVQ    ostride+56(FP), AX
	LEAQ    (R13)(AX*4), AX
	VMOVUPS Y2, (AX)(R12*2)
	ADDQ    $16, R12
	CMPQ    R12, $32
	JLT     y2half
	ADDQ    $64, R13
	DECQ    R8
	JMP     y2group

y2end:
	VZEROUPPER
	RET
