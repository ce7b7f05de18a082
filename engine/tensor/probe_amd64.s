#include "textflag.h"

// Memory-bandwidth probe kernels for the benchmarks: the best a core can
// stream, so that matvec throughput is measured against the hardware rather
// than against a slow loop.

// func triadAVX2(a, b, c *float32, s float32, n int)
// a[i] = b[i] + s·c[i]; n is a multiple of 32 and a is 32-byte aligned.
// Stores are non-temporal, as optimised STREAM builds emit, so the result
// does not evict the inputs and no read-for-ownership traffic is spent on a.
TEXT ·triadAVX2(SB), NOSPLIT, $0-40
	MOVQ         a+0(FP), DI
	MOVQ         b+8(FP), SI
	MOVQ         c+16(FP), DX
	VBROADCASTSS s+24(FP), Y15
	MOVQ         n+32(FP), CX

triadloop:
	CMPQ        CX, $32
	JLT         triaddone
	VMOVUPS     (SI), Y0
	VMOVUPS     32(SI), Y1
	VMOVUPS     64(SI), Y2
	VMOVUPS     96(SI), Y3
	VFMADD231PS (DX), Y15, Y0
	VFMADD231PS 32(DX), Y15, Y1
	VFMADD231PS 64(DX), Y15, Y2
	VFMADD231PS 96(DX), Y15, Y3
	VMOVNTPS    Y0, (DI)
	VMOVNTPS    Y1, 32(DI)
	VMOVNTPS    Y2, 64(DI)
	VMOVNTPS    Y3, 96(DI)
	ADDQ        $128, SI
	ADDQ        $128, DX
	ADDQ        $128, DI
	SUBQ        $32, CX
	JMP         triadloop

triaddone:
	SFENCE
	VZEROUPPER
	RET

// func sumAVX2(a *float32, n int) float32
// Σa[i], n a multiple of 64. The array is read as four interleaved
// quarter-length streams: on the 2-core EPYC VMs this runs on, one
// sequential stream keeps too few cache misses in flight and reads ~10
// GB/s, four streams ~30 GB/s, the figure a read-bound kernel can aim for.
TEXT ·sumAVX2(SB), NOSPLIT, $0-20
	MOVQ   a+0(FP), SI
	MOVQ   n+8(FP), CX
	SHRQ   $2, CX                  // floats per stream
	LEAQ   (SI)(CX*4), R8
	LEAQ   (R8)(CX*4), R9
	LEAQ   (R9)(CX*4), R10
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3

sumloop:
	CMPQ   CX, $16
	JLT    sumdone
	VADDPS (SI), Y0, Y0
	VADDPS 32(SI), Y1, Y1
	VADDPS (R8), Y2, Y2
	VADDPS 32(R8), Y3, Y3
	VADDPS (R9), Y0, Y0
	VADDPS 32(R9), Y1, Y1
	VADDPS (R10), Y2, Y2
	VADDPS 32(R10), Y3, Y3
	ADDQ   $64, SI
	ADDQ   $64, R8
	ADDQ   $64, R9
	ADDQ   $64, R10
	SUBQ   $16, CX
	JMP    sumloop

sumdone:
	VADDPS       Y1, Y0, Y0
	VADDPS       Y3, Y2, Y2
	VADDPS       Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VHADDPS      X0, X0, X0
	VHADDPS      X0, X0, X0
	VZEROUPPER
	MOVSS        X0, ret+16(FP)
	RET
