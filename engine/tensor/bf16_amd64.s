#include "textflag.h"

// BF16 weights against bfloat16 activations on AVX512-BF16 (see bf16.go).
// Per (row, token) one 16-lane accumulator takes VDPBF16PS over each 32
// elements in turn: lane i adds element 2i+1's product, then 2i's. At the
// end BFOLD sums the lanes in dotBF16PairsGo's order, so the one-token
// kernel and the four-token one agree bit for bit with it and with each
// other.
//
// The Go assembler has no AVX512-BF16 mnemonics, so the two instructions
// are spelled as bytes: EVEX, 512-bit, map 0F38, register operands only
// (all three may be any of Z0..Z31).

// EVEX_P0 carries the high bits of the destination (d) and of the
// ModRM.rm source (s), and the 0F38 map; EVEX_P2 the 512-bit length, no
// masking, and the high bit of the vvvv source (v).
#define EVEX_P0(d, s) BYTE $(((1-((d>>3)&1))<<7) | ((1-((s>>4)&1))<<6) | ((1-((s>>3)&1))<<5) | ((1-((d>>4)&1))<<4) | 2)
#define EVEX_P2(v) BYTE $(0x40 | ((1-((v>>4)&1))<<3))
#define EVEX_MODRM(d, s) BYTE $(0xC0 | ((d&7)<<3) | (s&7))

// DPBF16(s, v, d): Z(d) += the pair products of Z(v) and Z(s)
// (VDPBF16PS zmm_d, zmm_v, zmm_s; EVEX.512.F3.0F38.W0 52).
#define DPBF16(s, v, d) BYTE $0x62; EVEX_P0(d, s); BYTE $(((15-(v&15))<<3) | 6); EVEX_P2(v); BYTE $0x52; EVEX_MODRM(d, s)

// CVT2BF16(s, v, d): Z(d) = Z(s)'s 16 floats rounded to bfloat16 in the
// low half, Z(v)'s in the high half (VCVTNE2PS2BF16 zmm_d, zmm_v, zmm_s;
// EVEX.512.F2.0F38.W0 72).
#define CVT2BF16(s, v, d) BYTE $0x62; EVEX_P0(d, s); BYTE $(((15-(v&15))<<3) | 7); EVEX_P2(v); BYTE $0x72; EVEX_MODRM(d, s)

// BFOLD stores at dst the sum of accumulator z's lanes (y its low half):
// lane j plus lane j+8, then j plus j+4, then (0+1)+(2+3). Clobbers
// Z28, Z29.
#define BFOLD(z, y, dst) \
	VEXTRACTF64X4 $1, z, Y28; \
	VADDPS        Y28, y, Y28; \
	VEXTRACTF32X4 $1, Y28, X29; \
	VADDPS        X29, X28, X28; \
	VMOVSHDUP     X28, X29; \
	VADDPS        X29, X28, X28; \
	VMOVHLPS      X28, X28, X29; \
	VADDSS        X29, X28, X28; \
	VMOVSS        X28, dst

// func dotBF16PairsRows(w, h *uint16, n, rows int, out *float32)
//
// out[r] = row r · h for rows rows of n elements (n a positive multiple of
// 32), four rows per pass so that four accumulator chains overlap, then
// the rest one by one. SI the first row of the pass, R11 bytes per row,
// R9/R10 rows 0/1 of the pass at the current column (rows 2/3 at R11·2
// past them), DI the activations at the current column, CX chunks left.
TEXT ·dotBF16PairsRows(SB), NOSPLIT, $0-40
	MOVQ w+0(FP), SI
	MOVQ h+8(FP), BX
	MOVQ n+16(FP), R11
	MOVQ rows+24(FP), R8
	MOVQ out+32(FP), R13
	MOVQ R11, DX
	SHRQ $5, DX                // chunks per row
	SHLQ $1, R11               // bytes per row

rows4:
	CMPQ R8, $4
	JLT  rows1
	MOVQ SI, R9
	LEAQ (SI)(R11*1), R10
	MOVQ BX, DI
	MOVQ DX, CX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3

loop4:
	VMOVDQU16 (DI), Z4
	VMOVDQU16 (R9), Z5
	VMOVDQU16 (R10), Z6
	VMOVDQU16 (R9)(R11*2), Z7
	VMOVDQU16 (R10)(R11*2), Z8
	DPBF16(5, 4, 0)
	DPBF16(6, 4, 1)
	DPBF16(7, 4, 2)
	DPBF16(8, 4, 3)
	ADDQ $64, DI
	ADDQ $64, R9
	ADDQ $64, R10
	DECQ CX
	JNZ  loop4

	BFOLD(Z0, Y0, 0(R13))
	BFOLD(Z1, Y1, 4(R13))
	BFOLD(Z2, Y2, 8(R13))
	BFOLD(Z3, Y3, 12(R13))
	LEAQ (SI)(R11*4), SI
	ADDQ $16, R13
	SUBQ $4, R8
	JMP  rows4

rows1:
	TESTQ R8, R8
	JZ    done
	MOVQ  SI, R9
	MOVQ  BX, DI
	MOVQ  DX, CX
	VPXORD Z0, Z0, Z0

loop1:
	VMOVDQU16 (DI), Z4
	VMOVDQU16 (R9), Z5
	DPBF16(5, 4, 0)
	ADDQ $64, DI
	ADDQ $64, R9
	DECQ CX
	JNZ  loop1

	BFOLD(Z0, Y0, 0(R13))
	ADDQ R11, SI
	ADDQ $4, R13
	DECQ R8
	JMP  rows1

done:
	VZEROUPPER
	RET

// BFOLD4 stores the four tokens' sums of one row, accumulators z0..z3, at
// off(R13), off(R13)(R12*1), off(R13)(R12*2) and off(R13)(AX*1).
#define BFOLD4(off, z0, z1, z2, z3, y0, y1, y2, y3) \
	BFOLD(z0, y0, off(R13)); \
	BFOLD(z1, y1, off(R13)(R12*1)); \
	BFOLD(z2, y2, off(R13)(R12*2)); \
	BFOLD(z3, y3, off(R13)(AX*1))

// func gemm4BF16Pairs(w, h *uint16, n, rows int, out *float32, ostride int)
//
// out[t·ostride+r] = row r · token t for four tokens whose n activations
// each lie end to end at h. Four rows × four tokens per pass: each loaded
// weight vector feeds four VDPBF16PS and each activation vector four.
// Accumulator of row r, token t: Z(4r+t); weights Z16..Z19, activations
// Z20..Z23. Registers as dotBF16PairsRows, plus DX/BX bytes per token and
// three times that, R12/AX ostride in bytes and three times that.
TEXT ·gemm4BF16Pairs(SB), NOSPLIT, $0-48
	MOVQ w+0(FP), SI
	MOVQ h+8(FP), R14
	MOVQ n+16(FP), R11
	MOVQ rows+24(FP), R8
	MOVQ out+32(FP), R13
	MOVQ ostride+40(FP), R12
	SHLQ $2, R12
	LEAQ (R12)(R12*2), AX
	MOVQ R11, R15
	SHRQ $5, R15               // chunks per row
	SHLQ $1, R11               // bytes per row (and per token)
	MOVQ R11, DX
	LEAQ (DX)(DX*2), BX

g4rows4:
	CMPQ R8, $4
	JLT  g4rows1
	MOVQ SI, R9
	LEAQ (SI)(R11*1), R10
	MOVQ R14, DI
	MOVQ R15, CX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	VPXORD Z12, Z12, Z12
	VPXORD Z13, Z13, Z13
	VPXORD Z14, Z14, Z14
	VPXORD Z15, Z15, Z15

g4loop4:
	VMOVDQU16 (DI), Z20
	VMOVDQU16 (DI)(DX*1), Z21
	VMOVDQU16 (DI)(DX*2), Z22
	VMOVDQU16 (DI)(BX*1), Z23
	VMOVDQU16 (R9), Z16
	VMOVDQU16 (R10), Z17
	VMOVDQU16 (R9)(R11*2), Z18
	VMOVDQU16 (R10)(R11*2), Z19
	DPBF16(16, 20, 0)
	DPBF16(16, 21, 1)
	DPBF16(16, 22, 2)
	DPBF16(16, 23, 3)
	DPBF16(17, 20, 4)
	DPBF16(17, 21, 5)
	DPBF16(17, 22, 6)
	DPBF16(17, 23, 7)
	DPBF16(18, 20, 8)
	DPBF16(18, 21, 9)
	DPBF16(18, 22, 10)
	DPBF16(18, 23, 11)
	DPBF16(19, 20, 12)
	DPBF16(19, 21, 13)
	DPBF16(19, 22, 14)
	DPBF16(19, 23, 15)
	ADDQ $64, DI
	ADDQ $64, R9
	ADDQ $64, R10
	DECQ CX
	JNZ  g4loop4

	BFOLD4(0, Z0, Z1, Z2, Z3, Y0, Y1, Y2, Y3)
	BFOLD4(4, Z4, Z5, Z6, Z7, Y4, Y5, Y6, Y7)
	BFOLD4(8, Z8, Z9, Z10, Z11, Y8, Y9, Y10, Y11)
	BFOLD4(12, Z12, Z13, Z14, Z15, Y12, Y13, Y14, Y15)
	LEAQ (SI)(R11*4), SI
	ADDQ $16, R13
	SUBQ $4, R8
	JMP  g4rows4

g4rows1:
	TESTQ R8, R8
	JZ    g4done
	MOVQ  SI, R9
	MOVQ  R14, DI
	MOVQ  R15, CX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3

g4loop1:
	VMOVDQU16 (DI), Z20
	VMOVDQU16 (DI)(DX*1), Z21
	VMOVDQU16 (DI)(DX*2), Z22
	VMOVDQU16 (DI)(BX*1), Z23
	VMOVDQU16 (R9), Z16
	DPBF16(16, 20, 0)
	DPBF16(16, 21, 1)
	DPBF16(16, 22, 2)
	DPBF16(16, 23, 3)
	ADDQ $64, DI
	ADDQ $64, R9
	DECQ CX
	JNZ  g4loop1

	BFOLD4(0, Z0, Z1, Z2, Z3, Y0, Y1, Y2, Y3)
	ADDQ R11, SI
	ADDQ $4, R13
	DECQ R8
	JMP  g4rows1

g4done:
	VZEROUPPER
	RET

// func toBF16Pairs(dst *uint16, src *float32, n int)
//
// dst = src rounded to bfloat16 (toBF16's rounding), n a multiple of 32.
TEXT ·toBF16Pairs(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	SHRQ $5, CX
	JZ   cdone

cloop:
	VMOVUPS (SI), Z0
	VMOVUPS 64(SI), Z1
	CVT2BF16(0, 1, 2)
	VMOVDQU16 Z2, (DI)
	ADDQ $128, SI
	ADDQ $64, DI
	DECQ CX
	JNZ  cloop

cdone:
	VZEROUPPER
	RET
