#include "textflag.h"

// AVX2 + FMA + F16C dot products. Register conventions shared by all:
// SI weights, DI activations, CX remaining count, Y0.. accumulators;
// Y15 holds int16 ones (VPMADDWD turns int16 pairs into int32 sums),
// Y14 the byte mask 0x0F for unpacking nibbles.

// HSUM folds the eight float lanes of Y0 into X0's low lane. Clobbers X1.
// PF is how far ahead of the loads the weights are prefetched. The hardware
// prefetcher alone keeps too few misses in flight on one sequential stream:
// measured on a 2-core EPYC VM, a plain AVX2 read of 128 MiB reached ~10
// GB/s, the same loop prefetching 256–512 bytes ahead 20–27 GB/s.
#define PF 512

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

// func dotF16AVX2(w *uint16, x *float32, n int) float32
// n is a multiple of 8.
TEXT ·dotF16AVX2(SB), NOSPLIT, $0-28
	MOVQ   w+0(FP), SI
	MOVQ   x+8(FP), DI
	MOVQ   n+16(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3

f16loop32:
	CMPQ        CX, $32
	JLT         f16loop8
	PREFETCHT0  PF(SI)
	VCVTPH2PS   (SI), Y4
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
	JMP         f16loop32

f16loop8:
	CMPQ        CX, $8
	JLT         f16done
	VCVTPH2PS   (SI), Y4
	VFMADD231PS (DI), Y4, Y0
	ADDQ        $16, SI
	ADDQ        $32, DI
	SUBQ        $8, CX
	JMP         f16loop8

f16done:
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

// func dotQ8_0AVX2(w *byte, xq *int8, xd *float32, nb int) float32
TEXT ·dotQ8_0AVX2(SB), NOSPLIT, $0-36
	MOVQ   w+0(FP), SI
	MOVQ   xq+8(FP), DI
	MOVQ   xd+16(FP), R8
	MOVQ   nb+24(FP), CX
	ONES16_Y15
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

q8done:
	VADDPS Y1, Y0, Y0
	HSUM
	VZEROUPPER
	MOVSS  X0, ret+32(FP)
	RET

// Q40BLOCK accumulates one Q4_0 block (18 bytes at woff(SI)). The nibbles are
// used unsigned (0..15) against signed activations; the −8 offset is applied
// once per block through the activation block sum: Σ(q−8)x = Σqx − 8Σx.
// acc gathers d·dx·Σqx, X13's low lane gathers d·(dx·Σx).
#define Q40BLOCK(woff, xoff, doff, acc) \
	F16AT(woff, X2); \
	VFMADD231SS   doff(R9), X2, X13; \
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

// func dotQ4_0AVX2(w *byte, xq *int8, xd, xs *float32, nb int) float32
TEXT ·dotQ4_0AVX2(SB), NOSPLIT, $0-44
	MOVQ   w+0(FP), SI
	MOVQ   xq+8(FP), DI
	MOVQ   xd+16(FP), R8
	MOVQ   xs+24(FP), R9
	MOVQ   nb+32(FP), CX
	ONES16_Y15
	MASK0F_Y14
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS X13, X13, X13

q40loop2:
	CMPQ CX, $2
	JLT  q40tail
	PREFETCHT0 PF(SI)
	Q40BLOCK(0, 0, 0, Y0)
	Q40BLOCK(18, 32, 4, Y1)
	ADDQ $36, SI
	ADDQ $64, DI
	ADDQ $8, R8
	ADDQ $8, R9
	SUBQ $2, CX
	JMP  q40loop2

q40tail:
	TESTQ CX, CX
	JEQ   q40done
	Q40BLOCK(0, 0, 0, Y0)

q40done:
	VADDPS Y1, Y0, Y0
	HSUM
	MOVL   $0x41000000, AX // 8.0
	VMOVD  AX, X2
	VMULSS X2, X13, X13
	VSUBSS X13, X0, X0
	VZEROUPPER
	MOVSS  X0, ret+40(FP)
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

// func dotQ4KAVX2(w *byte, xq *int8, xd, xs *float32, nsb int) float32
//
// Per super-block: w = d·sc_j·q − dmin·m_j for sub-block j, so
// Σw·x = Σ_j d·sc_j·dx_j·Σ(q·xq) − Σ_j dmin·m_j·(dx_j·Σxq). The eight
// integer sums Σ(q·xq) are reduced into one vector (one lane per sub-block)
// so the float work is one convert and one FMA per super-block, against the
// vector of factors d·sc_j·dx_j.
TEXT ·dotQ4KAVX2(SB), NOSPLIT, $0-44
	MOVQ   w+0(FP), SI
	MOVQ   xq+8(FP), DI
	MOVQ   xd+16(FP), R8
	MOVQ   xs+24(FP), R9
	MOVQ   nsb+32(FP), CX
	ONES16_Y15
	MASK0F_Y14
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

	// Unpack the 12 scale bytes p[0..11] as three little-endian words:
	// AX = p0..3, BX = p4..7, DX = p8..11. Sub-blocks 0–3 keep scale and
	// min in the low 6 bits of p0..3 and p4..7; sub-blocks 4–7 take their
	// low 4 bits from p8..11 (scale low nibble, min high nibble) and their
	// top 2 bits from the top bits of p0..3 (scale) and p4..7 (min).
	MOVL 4(SI), AX
	MOVL 8(SI), BX
	MOVL 12(SI), DX
	MOVL AX, R10
	ANDL $0x3f3f3f3f, R10          // scales 0–3
	MOVL BX, R11
	ANDL $0x3f3f3f3f, R11          // mins 0–3
	MOVL DX, R12
	ANDL $0x0f0f0f0f, R12
	SHRL $6, AX
	ANDL $0x03030303, AX
	SHLL $4, AX
	ORL  AX, R12                   // scales 4–7
	SHRL $4, DX
	ANDL $0x0f0f0f0f, DX
	SHRL $6, BX
	ANDL $0x03030303, BX
	SHLL $4, BX
	ORL  BX, DX                    // mins 4–7
	SHLQ $32, R12
	ORQ  R12, R10
	SHLQ $32, DX
	ORQ  DX, R11

	VMOVQ       R10, X3
	VPMOVZXBD   X3, Y3
	VCVTDQ2PS   Y3, Y3             // sc_j
	VMOVQ       R11, X4
	VPMOVZXBD   X4, Y4
	VCVTDQ2PS   Y4, Y4             // m_j
	VMULPS      (R9), Y4, Y4       // m_j·dx_j·Σxq
	VFMADD231PS Y4, Y2, Y13        // += dmin·…
	VMULPS      (R8), Y3, Y3
	VMULPS      Y1, Y3, Y3         // d·sc_j·dx_j

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
	VZEROUPPER
	MOVSS  X0, ret+40(FP)
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
