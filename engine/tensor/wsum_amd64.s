#include "textflag.h"

// func weightedSumAVX2(out, v, w *float32, n, keys int)
// out[c] = Σ_j w[j]·v[j·n + c] for c < n (a multiple of 8): attention's
// weighted sum of values. Per element it is axpyAVX2's FMA chain over the
// keys in order, started from zero, but the running sums stay in registers
// (64 columns at a time) instead of going through memory once per key.
TEXT ·weightedSumAVX2(SB), NOSPLIT, $0-40
	MOVQ out+0(FP), DI
	MOVQ v+8(FP), R8
	MOVQ n+24(FP), DX
	SHLQ $2, DX                // bytes per key row
	MOVQ n+24(FP), BX          // columns left

ws64:
	CMPQ   BX, $64
	JLT    ws8
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	MOVQ   R8, SI
	MOVQ   w+16(FP), R9
	MOVQ   keys+32(FP), CX

ws64key:
	TESTQ        CX, CX
	JEQ          ws64store
	VBROADCASTSS (R9), Y15
	VFMADD231PS  (SI), Y15, Y0
	VFMADD231PS  32(SI), Y15, Y1
	VFMADD231PS  64(SI), Y15, Y2
	VFMADD231PS  96(SI), Y15, Y3
	VFMADD231PS  128(SI), Y15, Y4
	VFMADD231PS  160(SI), Y15, Y5
	VFMADD231PS  192(SI), Y15, Y6
	VFMADD231PS  224(SI), Y15, Y7
	ADDQ         DX, SI
	ADDQ         $4, R9
	DECQ         CX
	JMP          ws64key

ws64store:
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	VMOVUPS Y4, 128(DI)
	VMOVUPS Y5, 160(DI)
	VMOVUPS Y6, 192(DI)
	VMOVUPS Y7, 224(DI)
	ADDQ    $256, DI
	ADDQ    $256, R8
	SUBQ    $64, BX
	JMP     ws64

ws8:
	CMPQ   BX, $8
	JLT    wsdone
	VXORPS Y0, Y0, Y0
	MOVQ   R8, SI
	MOVQ   w+16(FP), R9
	MOVQ   keys+32(FP), CX

ws8key:
	TESTQ        CX, CX
	JEQ          ws8store
	VBROADCASTSS (R9), Y15
	VFMADD231PS  (SI), Y15, Y0
	ADDQ         DX, SI
	ADDQ         $4, R9
	DECQ         CX
	JMP          ws8key

ws8store:
	VMOVUPS Y0, (DI)
	ADDQ    $32, DI
	ADDQ    $32, R8
	SUBQ    $8, BX
	JMP     ws8

wsdone:
	VZEROUPPER
	RET
