// The skeleton of the eight-rows-to-a-YMM AVX2 kernels of the packed IQ
// types (packiq1_avx2_amd64.s, packiq2_avx2_amd64.s, packiq3_avx2_amd64.s).
// Each half of a sixteen-row group is its own run of super-blocks; lane r
// of a YMM is row r of the half, and Y0…Y7 (the decode kernels) or the
// frame (the four-token kernels) hold one float accumulator per sub-block
// position j, folded at the end as ((acc_0 + acc_4) + (acc_1 + acc_5)) +
// ((acc_2 + acc_6) + (acc_3 + acc_7)), the GGUF-layout AVX2 kernels'
// order.
//
// Arguments of every kernel: p *byte, xq *int8, m8 *int32, xd *float32,
// nsb, halves int, out *float32 (and ostride int for the four-token ones).

#include "gemm4_amd64.h"

// Constants (each including file has its own copies).
DATA pa8Ones16<>+0(SB)/8, $0x0001000100010001
DATA pa8Ones16<>+8(SB)/8, $0x0001000100010001
DATA pa8Ones16<>+16(SB)/8, $0x0001000100010001
DATA pa8Ones16<>+24(SB)/8, $0x0001000100010001
GLOBL pa8Ones16<>(SB), RODATA|NOPTR, $32

DATA pa8Eighth<>+0(SB)/4, $0x3e000000
GLOBL pa8Eighth<>(SB), RODATA|NOPTR, $4

// PA8ROWSINIT starts a decode kernel: SI the weights, R13 out, DX the
// halves left, R9 the table, Y14 words 1.
#define PA8ROWSINIT(table) \
	MOVQ    p+0(FP), SI; \
	MOVQ    out+48(FP), R13; \
	MOVQ    halves+40(FP), DX; \
	LEAQ    table, R9; \
	VMOVDQU pa8Ones16<>(SB), Y14

// PA8ROWSHALF starts a half: DI the codes, R11 m8, R8 the block scales,
// CX super-blocks left, Y0…Y7 zero (gemm4_amd64.h's ZERO8).
#define PA8ROWSHALF \
	MOVQ xq+8(FP), DI; \
	MOVQ m8+16(FP), R11; \
	MOVQ xd+24(FP), R8; \
	MOVQ nsb+32(FP), CX; \
	ZERO8

// PA8ROWSSTEP steps the pointers a super-block (bytes of weights) and
// counts CX down.
#define PA8ROWSSTEP(bytes) \
	ADDQ $bytes, SI; \
	ADDQ $256, DI; \
	ADDQ $32, R8; \
	ADDQ $32, R11; \
	DECQ CX

// PA8ROWSOUT folds Y0…Y7 and stores the half's eight results, counting
// DX down.
#define PA8ROWSOUT \
	VADDPS  Y4, Y0, Y0; \
	VADDPS  Y5, Y1, Y1; \
	VADDPS  Y6, Y2, Y2; \
	VADDPS  Y7, Y3, Y3; \
	VADDPS  Y1, Y0, Y0; \
	VADDPS  Y3, Y2, Y2; \
	VADDPS  Y2, Y0, Y0; \
	VMOVUPS Y0, (R13); \
	ADDQ    $32, R13; \
	DECQ    DX

// The four-token kernels: SI weights, DI token 0's codes (token t's
// 256·nsb·t bytes further: R11 = 256·nsb, R12 three times that), R8 and
// R14 token 0's m8 and block scales (token t's 32·nsb·t bytes further:
// BX = 32·nsb, DX three times that), R9 the table, CX super-blocks left,
// R13 out, Y14 words 1; the float accumulators, token t's of position j at
// a + 32(8t + j)(SP), and the halves left at hl(SP), in the frame.

#define PA8G4INIT(table, hl) \
	MOVQ    p+0(FP), SI; \
	MOVQ    out+48(FP), R13; \
	MOVQ    halves+40(FP), AX; \
	MOVQ    AX, hl(SP); \
	MOVQ    nsb+32(FP), R11; \
	SHLQ    $8, R11; \
	LEAQ    (R11)(R11*2), R12; \
	MOVQ    nsb+32(FP), BX; \
	SHLQ    $5, BX; \
	LEAQ    (BX)(BX*2), DX; \
	LEAQ    table, R9; \
	VMOVDQU pa8Ones16<>(SB), Y14

// PA8G4HALF starts a half (AX then counts the zeroing of the
// accumulators from a to a + 1024).
#define PA8G4HALF(a) \
	MOVQ   xq+8(FP), DI; \
	MOVQ   m8+16(FP), R8; \
	MOVQ   xd+24(FP), R14; \
	MOVQ   nsb+32(FP), CX; \
	VXORPS Y0, Y0, Y0; \
	MOVQ   $a, AX

#define PA8G4STEP(bytes) \
	ADDQ $bytes, SI; \
	ADDQ $256, DI; \
	ADDQ $32, R8; \
	ADDQ $32, R14; \
	DECQ CX

// PA8G4TOKOUT folds token t's eight accumulators (at a(SP)) as the decode
// kernel does and stores them at o.
#define PA8G4TOKOUT(a, o) \
	VMOVUPS a(SP), Y0; \
	VMOVUPS a+32(SP), Y1; \
	VMOVUPS a+64(SP), Y2; \
	VMOVUPS a+96(SP), Y3; \
	VADDPS  a+128(SP), Y0, Y0; \
	VADDPS  a+160(SP), Y1, Y1; \
	VADDPS  a+192(SP), Y2, Y2; \
	VADDPS  a+224(SP), Y3, Y3; \
	VADDPS  Y1, Y0, Y0; \
	VADDPS  Y3, Y2, Y2; \
	VADDPS  Y2, Y0, Y0; \
	VMOVUPS Y0, o

// PA8G4OUT stores the four tokens' results of the half (accumulators from
// a) and counts the halves at hl(SP) down.
#define PA8G4OUT(a, hl) \
	MOVQ ostride+56(FP), R10; \
	SHLQ $2, R10; \
	PA8G4TOKOUT(a, (R13)); \
	PA8G4TOKOUT(a+256, (R13)(R10*1)); \
	PA8G4TOKOUT(a+512, (R13)(R10*2)); \
	LEAQ (R10)(R10*2), R10; \
	PA8G4TOKOUT(a+768, (R13)(R10*1)); \
	ADDQ $32, R13; \
	DECQ hl(SP)
