#include "textflag.h"

// AVX2 + FMA + F16C dot products. Register conventions shared by all:
// SI weights, DI activations, CX remaining count, Y0.. accumulators;
// Y15 holds int16 ones (VPMADDWD turns int16 pairs into int32 sums),
// Y14 the byte mask 0x0F for unpacking nibbles.

// HSUM folds the eight float lanes of Y0 into X0's low lane. Clobbers X1.
// PF is how far ahead of the loads the weights are prefetched. The hardware
// prefetcher alone keeps too few misses in flight on one sequential stream:
// measured on a 2-core EPYC VM, a plain AVX2 read of 128 MiB reached ~10
// GB/s, the same loop prefetching 256–512 bytes ahead 20–27 GB/s. With both
// cores streaming (the pool keeps them busy) 2 KiB ahead did better still:
// Llama-1B-shape Q8_0 decode, 2 threads, 23–24 tok/s at 512 bytes, 29–33 at
// 2048, SmolLM2-135M-shape 218–261 against 231–297 (one run, alternated).
#define PF 2048

#define HSUM \
	VEXTRACTF128 $1, Y0, X1; \
	VADDPS       X1, X0, X0; \
	VHADDPS      X0, X0, X0; \
	VHADDPS      X0, X0, X0

#define ONES16_Y15 \
	MOVL         $0x00010001, AX; \
	VMOVD        AX, X15; \
	VPBROADCASTD X15, Y15

#define MASK0F_Y14 \
	MOVL         $0x0f0f0f0f, AX; \
	VMOVD        AX, X14; \
	VPBROADCASTD X14, Y14

// F16AT loads the half at off(SI) into the low float lane of reg.
#define F16AT(off, reg) \
	MOVWLZX   off(SI), AX; \
	VMOVD     AX, reg; \
	VCVTPH2PS reg, reg

// func dotF32AVX2(w, x *float32, n int) float32
// n is a multiple of 8.
TEXT ·dotF32AVX2(SB), NOSPLIT, $0-28
	MOVQ   w+0(FP), SI
	MOVQ   x+8(FP), DI
	MOVQ   n+16(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3

f32loop32:
	CMPQ        CX, $32
	JLT         f32loop8
	PREFETCHT0  PF(SI)
	PREFETCHT0  PF+64(SI)
	VMOVUPS     (SI), Y4
	VMOVUPS     32(SI), Y5
	VMOVUPS     64(SI), Y6
	VMOVUPS     96(SI), Y7
	VFMADD231PS (DI), Y4, Y0
	VFMADD231PS 32(DI), Y5, Y1
	VFMADD231PS 64(DI), Y6, Y2
	VFMADD231PS 96(DI), Y7, Y3
	ADDQ        $128, SI
	ADDQ        $128, DI
	SUBQ        $32, CX
	JMP         f32loop32

f32loop8:
	CMPQ        CX, $8
	JLT         f32done
	VMOVUPS     (SI), Y4
	VFMADD231PS (DI), Y4, Y0
	ADDQ        $32, SI
	ADDQ        $32, DI
	SUBQ        $8, CX
	JMP         f32loop8

f32done:
	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
	HSUM
	VZEROUPPER
	MOVSS  X0, ret+24(FP)
	RET


// Q8BLOCK accumulates one Q8_0 block (34 bytes at woff(SI), codes at
// xoff(DI), activation scale at doff(R8)) into acc. VPMADDUBSW multiplies
// unsigned by signed bytes, so the weight's sign moves onto the activation:
// |w|·(x·sign w) = w·x. |w| ≤ 128 and |x| ≤ 127 keep each pair sum below
// the int16 saturation point (2·128·127 = 32512).
#define Q8BLOCK(woff, xoff, doff, acc) \
	F16AT(woff, X2); \
	VMULSS        doff(R8), X2, X2; \
	VBROADCASTSS  X2, Y2; \
	VMOVDQU       woff+2(SI), Y3; \
	VMOVDQU       xoff(DI), Y4; \
	VPSIGNB       Y3, Y3, Y5; \
	VPSIGNB       Y3, Y4, Y6; \
	VPMADDUBSW    Y6, Y5, Y5; \
	VPMADDWD      Y15, Y5, Y5; \
	VCVTDQ2PS     Y5, Y5; \
	VFMADD231PS   Y5, Y2, acc

// func dotQ8_0RowsAVX2(w *byte, xq *int8, xd *float32, nb, rows int, out *float32)
// out[r] = row r · x for rows consecutive rows of nb blocks.
TEXT ·dotQ8_0RowsAVX2(SB), NOSPLIT, $8-48
	MOVQ w+0(FP), SI
	MOVQ out+40(FP), R13
	MOVQ nb+24(FP), AX
	IMULQ $34, AX
	IMULQ rows+32(FP), AX
	ADDQ SI, AX
	MOVQ AX, end-8(SP)
	ONES16_Y15

q8rrow:
	CMPQ SI, end-8(SP)
	JAE  q8rend
	MOVQ   xq+8(FP), DI
	MOVQ   xd+16(FP), R8
	MOVQ   nb+24(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1

q8loop2:
	CMPQ CX, $2
	JLT  q8tail
	PREFETCHT0 PF(SI)
	PREFETCHT0 PF+64(SI)
	Q8BLOCK(0, 0, 0, Y0)
	Q8BLOCK(34, 32, 4, Y1)
	ADDQ $68, SI
	ADDQ $64, DI
	ADDQ $8, R8
	SUBQ $2, CX
	JMP  q8loop2

q8tail:
	TESTQ CX, CX
	JEQ   q8done
	Q8BLOCK(0, 0, 0, Y0)
	ADDQ $34, SI

q8done:
	VADDPS Y1, Y0, Y0
	HSUM
	VMOVSS X0, (R13)
	ADDQ   $4, R13
	JMP    q8rrow

q8rend:
	VZEROUPPER
	RET

// Q40BLOCK accumulates one Q4_0 block (18 bytes at woff(SI)). The nibbles are
// used unsigned (0..15) against signed activations; the −8 offset is applied
// once per block through the activation block sum: Σ(q−8)x = Σqx − 8Σx.
// acc gathers d·dx·Σqx, macc's low lane gathers d·(dx·Σx). Even and odd
// blocks use two macc, as they do two acc: one scalar FMA chain alone
// would hold the loop to its latency, four cycles a block.
#define Q40BLOCK(woff, xoff, doff, acc, macc) \
	F16AT(woff, X2); \
	VFMADD231SS   doff(R9), X2, macc; \
	VMULSS        doff(R8), X2, X3; \
	VBROADCASTSS  X3, Y3; \
	VMOVDQU       woff+2(SI), X4; \
	VPSRLW        $4, X4, X5; \
	VINSERTI128   $1, X5, Y4, Y4; \
	VPAND         Y14, Y4, Y4; \
	VPMADDUBSW    xoff(DI), Y4, Y4; \
	VPMADDWD      Y15, Y4, Y4; \
	VCVTDQ2PS     Y4, Y4; \
	VFMADD231PS   Y4, Y3, acc

// func dotQ4_0RowsAVX2(w *byte, xq *int8, xd, xs *float32, nb, rows int, out *float32)
TEXT ·dotQ4_0RowsAVX2(SB), NOSPLIT, $8-56
	MOVQ w+0(FP), SI
	MOVQ out+48(FP), R13
	MOVQ nb+32(FP), AX
	IMULQ $18, AX
	IMULQ rows+40(FP), AX
	ADDQ SI, AX
	MOVQ AX, end-8(SP)
	ONES16_Y15
	MASK0F_Y14

q40rrow:
	CMPQ SI, end-8(SP)
	JAE  q40rend
	MOVQ   xq+8(FP), DI
	MOVQ   xd+16(FP), R8
	MOVQ   xs+24(FP), R9
	MOVQ   nb+32(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS X13, X13, X13
	VXORPS X12, X12, X12

q40loop2:
	CMPQ CX, $2
	JLT  q40tail
	PREFETCHT0 PF(SI)
	Q40BLOCK(0, 0, 0, Y0, X13)
	Q40BLOCK(18, 32, 4, Y1, X12)
	ADDQ $36, SI
	ADDQ $64, DI
	ADDQ $8, R8
	ADDQ $8, R9
	SUBQ $2, CX
	JMP  q40loop2

q40tail:
	TESTQ CX, CX
	JEQ   q40done
	Q40BLOCK(0, 0, 0, Y0, X13)
	ADDQ $18, SI

q40done:
	VADDPS Y1, Y0, Y0
	HSUM
	VADDSS X12, X13, X13
	MOVL   $0x41000000, AX // 8.0
	VMOVD  AX, X2
	VMULSS X2, X13, X13
	VSUBSS X13, X0, X0
	VMOVSS X0, (R13)
	ADDQ   $4, R13
	JMP    q40rrow

q40rend:
	VZEROUPPER
	RET

// Q4KCHUNK handles 64 weights of a Q4_K super-block: 32 bytes of nibbles at
// qoff(SI) whose low halves are one sub-block (activations at xoff(DI)) and
// high halves the next (xoff+32). It leaves out = [lo 0+1, lo 2+3, hi 0+1,
// hi 2+3 | lo 4+5, lo 6+7, hi 4+5, hi 6+7], int32 partial sums of q·x.
// Nibbles (0..15) times codes (|x| ≤ 127) cannot saturate VPMADDUBSW.
#define Q4KCHUNK(qoff, xoff, out) \
	VMOVDQU    qoff(SI), Y5; \
	VPSRLW     $4, Y5, Y6; \
	VPAND      Y14, Y5, Y5; \
	VPAND      Y14, Y6, Y6; \
	VPMADDUBSW xoff(DI), Y5, Y5; \
	VPMADDUBSW xoff+32(DI), Y6, Y6; \
	VPMADDWD   Y15, Y5, Y5; \
	VPMADDWD   Y15, Y6, Y6; \
	VPHADDD    Y6, Y5, out

// K4SCALES unpacks the 12 packed scale bytes of a Q4_K/Q5_K super-block at
// 4(SI) into Y3 = d·sc_j·dx_j and adds dmin·m_j·(dx_j·Σxq) to Y13, for the
// eight sub-blocks j. Expects Y1 = d, Y2 = dmin, R8 = dx, R9 = dx·Σxq.
// Unpack the 12 scale bytes p[0..11] as three little-endian words:
// AX = p0..3, BX = p4..7, DX = p8..11. Sub-blocks 0–3 keep scale and
// min in the low 6 bits of p0..3 and p4..7; sub-blocks 4–7 take their
// low 4 bits from p8..11 (scale low nibble, min high nibble) and their
// top 2 bits from the top bits of p0..3 (scale) and p4..7 (min).
#define K4SCALES \
	MOVL 4(SI), AX; \
	MOVL 8(SI), BX; \
	MOVL 12(SI), DX; \
	MOVL AX, R10; \
	ANDL $0x3f3f3f3f, R10; \
	MOVL BX, R11; \
	ANDL $0x3f3f3f3f, R11; \
	MOVL DX, R12; \
	ANDL $0x0f0f0f0f, R12; \
	SHRL $6, AX; \
	ANDL $0x03030303, AX; \
	SHLL $4, AX; \
	ORL  AX, R12; \
	SHRL $4, DX; \
	ANDL $0x0f0f0f0f, DX; \
	SHRL $6, BX; \
	ANDL $0x03030303, BX; \
	SHLL $4, BX; \
	ORL  BX, DX; \
	SHLQ $32, R12; \
	ORQ  R12, R10; \
	SHLQ $32, DX; \
	ORQ  DX, R11; \
	VMOVQ       R10, X3; \
	VPMOVZXBD   X3, Y3; \
	VCVTDQ2PS   Y3, Y3; \
	VMOVQ       R11, X4; \
	VPMOVZXBD   X4, Y4; \
	VCVTDQ2PS   Y4, Y4; \
	VMULPS      (R9), Y4, Y4; \
	VFMADD231PS Y4, Y2, Y13; \
	VMULPS      (R8), Y3, Y3; \
	VMULPS      Y1, Y3, Y3

// func dotQ4KRowsAVX2(w *byte, xq *int8, xd, xs *float32, nsb, rows int, out *float32)
//
// Per super-block: w = d·sc_j·q − dmin·m_j for sub-block j, so
// Σw·x = Σ_j d·sc_j·dx_j·Σ(q·xq) − Σ_j dmin·m_j·(dx_j·Σxq). The eight
// integer sums Σ(q·xq) are reduced into one vector (one lane per sub-block)
// so the float work is one convert and one FMA per super-block, against the
// vector of factors d·sc_j·dx_j.
TEXT ·dotQ4KRowsAVX2(SB), NOSPLIT, $8-56
	MOVQ w+0(FP), SI
	MOVQ out+48(FP), R13
	MOVQ nsb+32(FP), AX
	IMULQ $144, AX
	IMULQ rows+40(FP), AX
	ADDQ SI, AX
	MOVQ AX, end-8(SP)
	ONES16_Y15
	MASK0F_Y14

q4krrow:
	CMPQ SI, end-8(SP)
	JAE  q4krend
	MOVQ   xq+8(FP), DI
	MOVQ   xd+16(FP), R8
	MOVQ   xs+24(FP), R9
	MOVQ   nsb+32(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y13, Y13, Y13

q4kloop:
	TESTQ CX, CX
	JEQ   q4kdone
	PREFETCHT0   PF(SI)
	PREFETCHT0   PF+64(SI)
	PREFETCHT0   PF+128(SI)
	F16AT(0, X1)
	VBROADCASTSS X1, Y1            // d
	F16AT(2, X2)
	VBROADCASTSS X2, Y2            // dmin

	K4SCALES

	Q4KCHUNK(16, 0, Y7)
	Q4KCHUNK(48, 64, Y8)
	Q4KCHUNK(80, 128, Y10)
	Q4KCHUNK(112, 192, Y11)
	VPHADDD     Y8, Y7, Y7         // [s0..s3 first halves | s0..s3 second halves]
	VPHADDD     Y11, Y10, Y10      // the same for s4..s7
	VPERM2I128  $0x20, Y10, Y7, Y11
	VPERM2I128  $0x31, Y10, Y7, Y12
	VPADDD      Y12, Y11, Y11      // [s0 … s7]
	VCVTDQ2PS   Y11, Y11
	VFMADD231PS Y11, Y3, Y0

	ADDQ $144, SI
	ADDQ $256, DI
	ADDQ $32, R8
	ADDQ $32, R9
	DECQ CX
	JMP  q4kloop

q4kdone:
	VSUBPS Y13, Y0, Y0
	HSUM
	VMOVSS X0, (R13)
	ADDQ   $4, R13
	JMP    q4krrow

q4krend:
	VZEROUPPER
	RET


// Q5KCHUNK is Q4KCHUNK with the fifth bit of each code: bit j of the qh byte
// at the same position belongs to sub-block j, and shifting the qh vector Y9
// by 4−j (left for j ≤ 4, right beyond) and masking with 0x10 (Y12) puts it
// in place. Word shifts leak bits between bytes only outside that mask.
// Codes reach 31, and 2·31·127 still fits VPMADDUBSW's int16.
#define Q5KCHUNK(qoff, xoff, out, shlo, nlo, shhi, nhi) \
	VMOVDQU    qoff(SI), Y5; \
	VPSRLW     $4, Y5, Y6; \
	VPAND      Y14, Y5, Y5; \
	VPAND      Y14, Y6, Y6; \
	shlo       $nlo, Y9, Y4; \
	VPAND      Y12, Y4, Y4; \
	VPOR       Y4, Y5, Y5; \
	shhi       $nhi, Y9, Y4; \
	VPAND      Y12, Y4, Y4; \
	VPOR       Y4, Y6, Y6; \
	VPMADDUBSW xoff(DI), Y5, Y5; \
	VPMADDUBSW xoff+32(DI), Y6, Y6; \
	VPMADDWD   Y15, Y5, Y5; \
	VPMADDWD   Y15, Y6, Y6; \
	VPHADDD    Y6, Y5, out

// func dotQ5KRowsAVX2(w *byte, xq *int8, xd, xs *float32, nsb, rows int, out *float32)
// Q5_K super-block: f16 d, f16 dmin, scales[12] as Q4_K, qh[32], qs[128].
TEXT ·dotQ5KRowsAVX2(SB), NOSPLIT, $8-56
	MOVQ w+0(FP), SI
	MOVQ out+48(FP), R13
	MOVQ nsb+32(FP), AX
	IMULQ $176, AX
	IMULQ rows+40(FP), AX
	ADDQ SI, AX
	MOVQ AX, end-8(SP)
	ONES16_Y15
	MASK0F_Y14
	MOVL         $0x10101010, AX
	VMOVD        AX, X12
	VPBROADCASTD X12, Y12

q5krrow:
	CMPQ SI, end-8(SP)
	JAE  q5krend
	MOVQ         xq+8(FP), DI
	MOVQ         xd+16(FP), R8
	MOVQ         xs+24(FP), R9
	MOVQ         nsb+32(FP), CX
	VXORPS       Y0, Y0, Y0
	VXORPS       Y13, Y13, Y13

q5kloop:
	TESTQ        CX, CX
	JEQ          q5kdone
	PREFETCHT0   PF(SI)
	PREFETCHT0   PF+64(SI)
	PREFETCHT0   PF+128(SI)
	F16AT(0, X1)
	VBROADCASTSS X1, Y1
	F16AT(2, X2)
	VBROADCASTSS X2, Y2
	K4SCALES
	VMOVDQU      16(SI), Y9        // qh

	Q5KCHUNK(48, 0, Y7, VPSLLW, 4, VPSLLW, 3)
	Q5KCHUNK(80, 64, Y8, VPSLLW, 2, VPSLLW, 1)
	Q5KCHUNK(112, 128, Y10, VPSRLW, 0, VPSRLW, 1)
	Q5KCHUNK(144, 192, Y11, VPSRLW, 2, VPSRLW, 3)
	VPHADDD     Y8, Y7, Y7
	VPHADDD     Y11, Y10, Y10
	VPERM2I128  $0x20, Y10, Y7, Y11
	VPERM2I128  $0x31, Y10, Y7, Y8
	VPADDD      Y8, Y11, Y11
	VCVTDQ2PS   Y11, Y11
	VFMADD231PS Y11, Y3, Y0

	ADDQ $176, SI
	ADDQ $256, DI
	ADDQ $32, R8
	ADDQ $32, R9
	DECQ CX
	JMP  q5kloop

q5kdone:
	VSUBPS Y13, Y0, Y0
	HSUM
	VMOVSS X0, (R13)
	ADDQ   $4, R13
	JMP    q5krrow

q5krend:
	VZEROUPPER
	RET

// Q6BLOCK adds one 32-weight activation block of a Q6_K super-block: codes
// q (unsigned 0..63, true value q−32) in qreg, activations at xoff(DI), the
// activation scale at doff(R8), and the int8 scales of its two 16-weight
// groups, sign-extended to int16 at sa(SP) and sb(SP). VPMADDUBSW against
// the byte 32 (Y12) gives the 32·x pairs to subtract, so the offset costs no
// block sums; VPMADDWD then applies the group scales, low half / high half.
#define Q6BLOCK(qreg, xoff, doff, sa, sb) \
	VPMADDUBSW   xoff(DI), qreg, Y10; \
	VPMADDUBSW   xoff(DI), Y12, Y11; \
	VPSUBW       Y11, Y10, Y10; \
	VPBROADCASTW sa, Y11; \
	VPBROADCASTW sb, Y9; \
	VPBLENDD     $0xf0, Y9, Y11, Y11; \
	VPMADDWD     Y11, Y10, Y10; \
	VCVTDQ2PS    Y10, Y10; \
	VMULSS       doff(R8), X1, X9; \
	VBROADCASTSS X9, Y9; \
	VFMADD231PS  Y10, Y9, Y0

// Q6HALF builds the four 32-code vectors of one 128-weight half from ql at
// qloff(SI) (64 bytes) and qh at qhoff(SI) (32 bytes): low nibbles of
// ql[0:32] and ql[32:64] take qh bit pairs 0–1 and 2–3, high nibbles take
// pairs 4–5 and 6–7, each pair moved to bits 4–5 (mask 0x30 in Y13).
#define Q6HALF(qloff, qhoff) \
	VMOVDQU qloff(SI), Y3; \
	VMOVDQU qloff+32(SI), Y4; \
	VMOVDQU qhoff(SI), Y5; \
	VPAND   Y14, Y3, Y6; \
	VPSLLW  $4, Y5, Y7; \
	VPAND   Y13, Y7, Y7; \
	VPOR    Y7, Y6, Y6; \
	VPAND   Y14, Y4, Y8; \
	VPSLLW  $2, Y5, Y7; \
	VPAND   Y13, Y7, Y7; \
	VPOR    Y7, Y8, Y8; \
	VPSRLW  $4, Y3, Y3; \
	VPAND   Y14, Y3, Y3; \
	VPAND   Y13, Y5, Y7; \
	VPOR    Y7, Y3, Y3; \
	VPSRLW  $4, Y4, Y4; \
	VPAND   Y14, Y4, Y4; \
	VPSRLW  $2, Y5, Y7; \
	VPAND   Y13, Y7, Y7; \
	VPOR    Y7, Y4, Y4

// func dotQ6KRowsAVX2(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32)
// Q6_K super-block (210 bytes): ql[128], qh[64], int8 scales[16], f16 d.
TEXT ·dotQ6KRowsAVX2(SB), NOSPLIT, $40-48
	MOVQ         w+0(FP), SI
	MOVQ         out+40(FP), R13
	MOVQ         nsb+24(FP), AX
	IMULQ        $210, AX
	IMULQ        rows+32(FP), AX
	ADDQ         SI, AX
	MOVQ         AX, end-40(SP)
	MASK0F_Y14
	MOVL         $0x30303030, AX
	VMOVD        AX, X13
	VPBROADCASTD X13, Y13
	MOVL         $0x20202020, AX
	VMOVD        AX, X12
	VPBROADCASTD X12, Y12

q6krow:
	CMPQ   SI, end-40(SP)
	JAE    q6kend
	MOVQ   xq+8(FP), DI
	MOVQ   xd+16(FP), R8
	MOVQ   nsb+24(FP), CX
	VXORPS Y0, Y0, Y0

q6kloop:
	TESTQ      CX, CX
	JEQ        q6kdone
	PREFETCHT0 PF(SI)
	PREFETCHT0 PF+64(SI)
	PREFETCHT0 PF+128(SI)
	PREFETCHT0 PF+192(SI)
	F16AT(208, X1)                 // d, low lane
	VPMOVSXBW  192(SI), Y2
	VMOVDQU    Y2, sc-32(SP)       // scales as int16

	Q6HALF(0, 128)
	Q6BLOCK(Y6, 0, 0, sc-32(SP), sc-30(SP))
	Q6BLOCK(Y8, 32, 4, sc-28(SP), sc-26(SP))
	Q6BLOCK(Y3, 64, 8, sc-24(SP), sc-22(SP))
	Q6BLOCK(Y4, 96, 12, sc-20(SP), sc-18(SP))
	Q6HALF(64, 160)
	Q6BLOCK(Y6, 128, 16, sc-16(SP), sc-14(SP))
	Q6BLOCK(Y8, 160, 20, sc-12(SP), sc-10(SP))
	Q6BLOCK(Y3, 192, 24, sc-8(SP), sc-6(SP))
	Q6BLOCK(Y4, 224, 28, sc-4(SP), sc-2(SP))

	ADDQ $210, SI
	ADDQ $256, DI
	ADDQ $32, R8
	DECQ CX
	JMP  q6kloop

q6kdone:
	HSUM
	VMOVSS X0, (R13)
	ADDQ   $4, R13
	JMP    q6krow

q6kend:
	VZEROUPPER
	RET


// func dotF32RowsAVX2(w *float32, x *float32, n, rows int, out *float32)
// rows consecutive rows of n elements (n a multiple of 8) times x.
TEXT ·dotF32RowsAVX2(SB), NOSPLIT, $8-40
	MOVQ  w+0(FP), SI
	MOVQ  out+32(FP), R13
	MOVQ  n+16(FP), AX
	IMULQ $4, AX
	IMULQ rows+24(FP), AX
	ADDQ  SI, AX
	MOVQ  AX, end-8(SP)

f32rrow:
	CMPQ   SI, end-8(SP)
	JAE    f32rend
	MOVQ   x+8(FP), DI
	MOVQ   n+16(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3

f32rloop32:
	CMPQ        CX, $32
	JLT         f32rloop8
	PREFETCHT0  PF(SI)
	PREFETCHT0  PF+64(SI)
	VMOVUPS     0(SI), Y4
	VMOVUPS     32(SI), Y5
	VMOVUPS     64(SI), Y6
	VMOVUPS     96(SI), Y7
	VFMADD231PS (DI), Y4, Y0
	VFMADD231PS 32(DI), Y5, Y1
	VFMADD231PS 64(DI), Y6, Y2
	VFMADD231PS 96(DI), Y7, Y3
	ADDQ        $128, SI
	ADDQ        $128, DI
	SUBQ        $32, CX
	JMP         f32rloop32

f32rloop8:
	CMPQ        CX, $8
	JLT         f32rdone
	VMOVUPS     0(SI), Y4
	VFMADD231PS (DI), Y4, Y0
	ADDQ        $32, SI
	ADDQ        $32, DI
	SUBQ        $8, CX
	JMP         f32rloop8

f32rdone:
	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
	HSUM
	VMOVSS X0, (R13)
	ADDQ   $4, R13
	JMP    f32rrow

f32rend:
	VZEROUPPER
	RET

// func dotF16RowsAVX2(w *uint16, x *float32, n, rows int, out *float32)
// rows consecutive rows of n elements (n a multiple of 8) times x.
TEXT ·dotF16RowsAVX2(SB), NOSPLIT, $8-40
	MOVQ  w+0(FP), SI
	MOVQ  out+32(FP), R13
	MOVQ  n+16(FP), AX
	IMULQ $2, AX
	IMULQ rows+24(FP), AX
	ADDQ  SI, AX
	MOVQ  AX, end-8(SP)

f16rrow:
	CMPQ   SI, end-8(SP)
	JAE    f16rend
	MOVQ   x+8(FP), DI
	MOVQ   n+16(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3

f16rloop32:
	CMPQ        CX, $32
	JLT         f16rloop8
	// One PREFETCHT1 per 64-byte line, as in ahead_amd64.h: two PREFETCHT0
	// a line measured 22.0–23.4 GB/s against 26.8–27.6 for this at two
	// threads on the Xeon VM (docs/performance.md, fifth session).
	PREFETCHT1  PF(SI)
	VCVTPH2PS   0(SI), Y4
	VCVTPH2PS   16(SI), Y5
	VCVTPH2PS   32(SI), Y6
	VCVTPH2PS   48(SI), Y7
	VFMADD231PS (DI), Y4, Y0
	VFMADD231PS 32(DI), Y5, Y1
	VFMADD231PS 64(DI), Y6, Y2
	VFMADD231PS 96(DI), Y7, Y3
	ADDQ        $64, SI
	ADDQ        $128, DI
	SUBQ        $32, CX
	JMP         f16rloop32

f16rloop8:
	CMPQ        CX, $8
	JLT         f16rdone
	VCVTPH2PS   0(SI), Y4
	VFMADD231PS (DI), Y4, Y0
	ADDQ        $16, SI
	ADDQ        $32, DI
	SUBQ        $8, CX
	JMP         f16rloop8

f16rdone:
	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
	HSUM
	VMOVSS X0, (R13)
	ADDQ   $4, R13
	JMP    f16rrow

f16rend:
	VZEROUPPER
	RET

// func dotBF16RowsAVX2(w *uint16, x *float32, n, rows int, out *float32)
// rows consecutive rows of n elements (n a multiple of 8) times x.
TEXT ·dotBF16RowsAVX2(SB), NOSPLIT, $8-40
	MOVQ  w+0(FP), SI
	MOVQ  out+32(FP), R13
	MOVQ  n+16(FP), AX
	IMULQ $2, AX
	IMULQ rows+24(FP), AX
	ADDQ  SI, AX
	MOVQ  AX, end-8(SP)

bf16rrow:
	CMPQ   SI, end-8(SP)
	JAE    bf16rend
	MOVQ   x+8(FP), DI
	MOVQ   n+16(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3

bf16rloop32:
	CMPQ        CX, $32
	JLT         bf16rloop8
	PREFETCHT1  PF(SI)                   // as in the F16 loop above
	VPMOVZXWD   0(SI), Y4; VPSLLD $16, Y4, Y4
	VPMOVZXWD   16(SI), Y5; VPSLLD $16, Y5, Y5
	VPMOVZXWD   32(SI), Y6; VPSLLD $16, Y6, Y6
	VPMOVZXWD   48(SI), Y7; VPSLLD $16, Y7, Y7
	VFMADD231PS (DI), Y4, Y0
	VFMADD231PS 32(DI), Y5, Y1
	VFMADD231PS 64(DI), Y6, Y2
	VFMADD231PS 96(DI), Y7, Y3
	ADDQ        $64, SI
	ADDQ        $128, DI
	SUBQ        $32, CX
	JMP         bf16rloop32

bf16rloop8:
	CMPQ        CX, $8
	JLT         bf16rdone
	VPMOVZXWD   0(SI), Y4; VPSLLD $16, Y4, Y4
	VFMADD231PS (DI), Y4, Y0
	ADDQ        $16, SI
	ADDQ        $32, DI
	SUBQ        $8, CX
	JMP         bf16rloop8

bf16rdone:
	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
	HSUM
	VMOVSS X0, (R13)
	ADDQ   $4, R13
	JMP    bf16rrow

bf16rend:
	VZEROUPPER
	RET

// func cpuidF16C() bool
// x/sys/cpu does not report F16C: CPUID leaf 1, ECX bit 29.
TEXT ·cpuidF16C(SB), NOSPLIT, $0-1
	MOVL  $1, AX
	XORL  CX, CX
	CPUID
	SHRL  $29, CX
	ANDL  $1, CX
	MOVB  CX, ret+0(FP)
	RET

// func axpyAVX2(alpha float32, x, y *float32, n int)
// y[i] += alpha·x[i] for n a multiple of 8.
TEXT ·axpyAVX2(SB), NOSPLIT, $0-32
	VBROADCASTSS alpha+0(FP), Y15
	MOVQ         x+8(FP), SI
	MOVQ         y+16(FP), DI
	MOVQ         n+24(FP), CX

axpyloop32:
	CMPQ        CX, $32
	JLT         axpyloop8
	VMOVUPS     (DI), Y0
	VMOVUPS     32(DI), Y1
	VMOVUPS     64(DI), Y2
	VMOVUPS     96(DI), Y3
	VFMADD231PS (SI), Y15, Y0
	VFMADD231PS 32(SI), Y15, Y1
	VFMADD231PS 64(SI), Y15, Y2
	VFMADD231PS 96(SI), Y15, Y3
	VMOVUPS     Y0, (DI)
	VMOVUPS     Y1, 32(DI)
	VMOVUPS     Y2, 64(DI)
	VMOVUPS     Y3, 96(DI)
	ADDQ        $128, SI
	ADDQ        $128, DI
	SUBQ        $32, CX
	JMP         axpyloop32

axpyloop8:
	CMPQ        CX, $8
	JLT         axpydone
	VMOVUPS     (DI), Y0
	VFMADD231PS (SI), Y15, Y0
	VMOVUPS     Y0, (DI)
	ADDQ        $32, SI
	ADDQ        $32, DI
	SUBQ        $8, CX
	JMP         axpyloop8

axpydone:
	VZEROUPPER
	RET
