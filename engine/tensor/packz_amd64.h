// Macros the packed AVX-512 kernels of sixteen rows a group share
// (packtq_amd64.s, packtq1_amd64.s, packiq1_amd64.s, packiq2_amd64.s, packiq2s_amd64.s,
// packiq3s_amd64.s, packiq3xxs_amd64.s; PSPILL16 also packk6_amd64.s):
// each keeps one float accumulator
// per 32-weight block position j = 0…7 of a super-block, as the
// GGUF-layout AVX2 kernels keep eight lanes, and sums them at the end in
// those kernels' order, so a packed matrix gives their numbers bit for bit.

// PZERO8 clears eight registers.
#define PZERO8(a0, a1, a2, a3, a4, a5, a6, a7) \
	VPXORD a0, a0, a0; \
	VPXORD a1, a1, a1; \
	VPXORD a2, a2, a2; \
	VPXORD a3, a3, a3; \
	VPXORD a4, a4, a4; \
	VPXORD a5, a5, a5; \
	VPXORD a6, a6, a6; \
	VPXORD a7, a7, a7

// PHSUM8 sums a group's eight block accumulators a0…a7 into a0 in the
// GGUF-layout kernels' order (IQ1HSUM, IQ2HSUM, …):
// ((a0+a4) + (a1+a5)) + ((a2+a6) + (a3+a7)).
#define PHSUM8(a0, a1, a2, a3, a4, a5, a6, a7) \
	VADDPS a4, a0, a0; \
	VADDPS a5, a1, a1; \
	VADDPS a6, a2, a2; \
	VADDPS a7, a3, a3; \
	VADDPS a1, a0, a0; \
	VADDPS a3, a2, a2; \
	VADDPS a2, a0, a0

// PG4START points a four-token kernel at a group's first super-block of
// the tokens: their codes at DI, R11, R12 and R14 (256·nsb apart), m8 at
// R9, block scales at R10, and the super-block count in CX; AX holds the
// codes' stride. PG4NEXT steps them.
#define PG4START \
	MOVQ xq+8(FP), DI; \
	MOVQ nsb+32(FP), AX; \
	SHLQ $8, AX; \
	LEAQ (DI)(AX*1), R11; \
	LEAQ (R11)(AX*1), R12; \
	LEAQ (R12)(AX*1), R14; \
	MOVQ m8+16(FP), R9; \
	MOVQ xd+24(FP), R10; \
	MOVQ nsb+32(FP), CX

// PG4NEXT steps a four-token kernel's pointers to the next super-block:
// the group's weights at SI by bytes, the four tokens' codes at DI, R11,
// R12 and R14 by 256, their m8 (R9) and block scales (R10) by eight
// values.
#define PG4NEXT(bytes) \
	ADDQ $bytes, SI; \
	ADDQ $256, DI; \
	ADDQ $256, R11; \
	ADDQ $256, R12; \
	ADDQ $256, R14; \
	ADDQ $32, R9; \
	ADDQ $32, R10

// PG4OUT sums token t's accumulators of blocks 0…3 (saved in the frame at
// 256t) and 4…7 (a4…a7) as PHSUM8 does and stores them at dst; Z21…Z24
// are scratch.
#define PG4OUT(t, a4, a5, a6, a7, dst) \
	VMOVUPS 256*t(SP), Z21; \
	VMOVUPS 256*t+64(SP), Z22; \
	VMOVUPS 256*t+128(SP), Z23; \
	VMOVUPS 256*t+192(SP), Z24; \
	PHSUM8(Z21, Z22, Z23, Z24, a4, a5, a6, a7); \
	VMOVUPS Z21, dst

// PFZERO8 clears token t's eight block accumulators, kept in the frame at
// base+512t, from the zero register z.
#define PFZERO8(base, t, z) \
	VMOVUPS z, base+512*(t)(SP); \
	VMOVUPS z, base+512*(t)+64(SP); \
	VMOVUPS z, base+512*(t)+128(SP); \
	VMOVUPS z, base+512*(t)+192(SP); \
	VMOVUPS z, base+512*(t)+256(SP); \
	VMOVUPS z, base+512*(t)+320(SP); \
	VMOVUPS z, base+512*(t)+384(SP); \
	VMOVUPS z, base+512*(t)+448(SP)

// PFHSUM8 sums token t's eight accumulators, kept in the frame at
// base+512t, as PHSUM8 does into s0…s7 (scratch) and stores them at dst.
#define PFHSUM8(base, t, s0, s1, s2, s3, s4, s5, s6, s7, dst) \
	VMOVUPS base+512*(t)(SP), s0; \
	VMOVUPS base+512*(t)+64(SP), s1; \
	VMOVUPS base+512*(t)+128(SP), s2; \
	VMOVUPS base+512*(t)+192(SP), s3; \
	VMOVUPS base+512*(t)+256(SP), s4; \
	VMOVUPS base+512*(t)+320(SP), s5; \
	VMOVUPS base+512*(t)+384(SP), s6; \
	VMOVUPS base+512*(t)+448(SP), s7; \
	PHSUM8(s0, s1, s2, s3, s4, s5, s6, s7); \
	VMOVUPS s0, dst

// PF4HSUM8 stores the four tokens' sums (PFHSUM8, frame at base) at R13,
// AX bytes apart (AX holds 4·ostride; it is left at 12·ostride), and steps
// R13 to the next group's sixteen rows.
#define PF4HSUM8(base, s0, s1, s2, s3, s4, s5, s6, s7) \
	PFHSUM8(base, 0, s0, s1, s2, s3, s4, s5, s6, s7, (R13)); \
	PFHSUM8(base, 1, s0, s1, s2, s3, s4, s5, s6, s7, (R13)(AX*1)); \
	PFHSUM8(base, 2, s0, s1, s2, s3, s4, s5, s6, s7, (R13)(AX*2)); \
	LEAQ (AX)(AX*2), AX; \
	PFHSUM8(base, 3, s0, s1, s2, s3, s4, s5, s6, s7, (R13)(AX*1)); \
	ADDQ $64, R13

// PSPILL16 saves the sixteen accumulators Z0…Z15 of a four-token kernel's
// first pass (blocks 0…3; token t's block q in Z(4t+q)) into the frame at
// 64·i, where PG4OUT reads them back.
#define PSPILL16 \
	VMOVUPS Z0, 0(SP); \
	VMOVUPS Z1, 64(SP); \
	VMOVUPS Z2, 128(SP); \
	VMOVUPS Z3, 192(SP); \
	VMOVUPS Z4, 256(SP); \
	VMOVUPS Z5, 320(SP); \
	VMOVUPS Z6, 384(SP); \
	VMOVUPS Z7, 448(SP); \
	VMOVUPS Z8, 512(SP); \
	VMOVUPS Z9, 576(SP); \
	VMOVUPS Z10, 640(SP); \
	VMOVUPS Z11, 704(SP); \
	VMOVUPS Z12, 768(SP); \
	VMOVUPS Z13, 832(SP); \
	VMOVUPS Z14, 896(SP); \
	VMOVUPS Z15, 960(SP)
