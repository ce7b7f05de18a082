#include "textflag.h"

// Dword order that undoes VPACKSSDW/VPACKSSWB's per-lane interleaving.
DATA packperm<>+0(SB)/4, $0
DATA packperm<>+4(SB)/4, $4
DATA packperm<>+8(SB)/4, $1
DATA packperm<>+12(SB)/4, $5
DATA packperm<>+16(SB)/4, $2
DATA packperm<>+20(SB)/4, $6
DATA packperm<>+24(SB)/4, $3
DATA packperm<>+28(SB)/4, $7
GLOBL packperm<>(SB), RODATA|NOPTR, $32

// func absMaxAVX2(x *float32, amax *float32, nb int) (total float32)
// amax[b] = max|x[32b : 32b+32]|. It also returns Σx, so the caller can
// detect NaN/Inf (VMAXPS does not propagate NaN) and take the portable path.
TEXT ·absMaxAVX2(SB), NOSPLIT, $0-28
	MOVQ x+0(FP), SI
	MOVQ amax+8(FP), R8
	MOVQ nb+16(FP), CX

	MOVL         $0x7fffffff, AX
	VMOVD        AX, X15
	VPBROADCASTD X15, Y15          // |·| mask
	VXORPS       Y13, Y13, Y13     // Σx

amloop:
	TESTQ CX, CX
	JEQ   amdone
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVUPS 64(SI), Y2
	VMOVUPS 96(SI), Y3
	VADDPS  Y0, Y13, Y13
	VADDPS  Y1, Y13, Y13
	VADDPS  Y2, Y13, Y13
	VADDPS  Y3, Y13, Y13
	VANDPS       Y15, Y0, Y4
	VANDPS       Y15, Y1, Y5
	VANDPS       Y15, Y2, Y6
	VANDPS       Y15, Y3, Y7
	VMAXPS       Y5, Y4, Y4
	VMAXPS       Y7, Y6, Y6
	VMAXPS       Y6, Y4, Y4
	VEXTRACTF128 $1, Y4, X5
	VMAXPS       X5, X4, X4
	VPERMILPS    $0x4e, X4, X5
	VMAXPS       X5, X4, X4
	VPERMILPS    $0xb1, X4, X5
	VMAXPS       X5, X4, X4
	VMOVSS       X4, (R8)
	ADDQ $128, SI
	ADDQ $4, R8
	DECQ CX
	JMP  amloop

amdone:
	VEXTRACTF128 $1, Y13, X1
	VADDPS       X1, X13, X0
	VHADDPS      X0, X0, X0
	VHADDPS      X0, X0, X0
	VZEROUPPER
	MOVSS        X0, total+24(FP)
	RET

// func quantizeActAVX2(x *float32, qs *int8, d, s *float32, m8 *int32, nb int)
//
// On entry d[b] holds block b's amax (from absMaxAVX2); on return d[b] =
// amax/127 (0 when amax < actTiny), q = RNE(x·(127/amax)) (VCVTPS2DQ
// rounds half-even under the default MXCSR), s[b] = d·Σq and m8[b] =
// −8·Σq: the same operations as quantizeActGo, so both give identical bytes.
// SI x, DI qs, R8 d, R9 s, R10 m8, CX blocks left.
TEXT ·quantizeActAVX2(SB), NOSPLIT, $0-48
	MOVQ x+0(FP), SI
	MOVQ qs+8(FP), DI
	MOVQ d+16(FP), R8
	MOVQ s+24(FP), R9
	MOVQ m8+32(FP), R10
	MOVQ nb+40(FP), CX

	MOVL         $0x42fe0000, AX   // 127.0
	VMOVD        AX, X14
	VBROADCASTSS X14, Y14
	VMOVDQU      packperm<>(SB), Y12
	MOVL         $0x03800000, AX   // 2^-120, actTiny
	VMOVD        AX, X13
	VBROADCASTSS X13, Y13

qaloop:
	TESTQ CX, CX
	JEQ   qadone
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVUPS 64(SI), Y2
	VMOVUPS 96(SI), Y3

	VMOVSS       (R8), X4          // amax
	VBROADCASTSS X4, Y4
	VCMPPS       $1, Y13, Y4, Y7   // amax < 2^-120 (actTiny), zero included
	VDIVSS       X14, X4, X6       // d = amax/127…
	VANDNPS      X6, X7, X6        // …or 0 for such a block
	VMOVSS       X6, (R8)
	VDIVPS       Y4, Y14, Y5       // 127/amax
	VANDNPS      Y5, Y7, Y5        // …then scale by 0, not by Inf

	VMULPS    Y5, Y0, Y0
	VMULPS    Y5, Y1, Y1
	VMULPS    Y5, Y2, Y2
	VMULPS    Y5, Y3, Y3
	VCVTPS2DQ Y0, Y0
	VCVTPS2DQ Y1, Y1
	VCVTPS2DQ Y2, Y2
	VCVTPS2DQ Y3, Y3

	VPADDD       Y1, Y0, Y8
	VPADDD       Y3, Y2, Y9
	VPADDD       Y9, Y8, Y8
	VEXTRACTI128 $1, Y8, X9
	VPADDD       X9, X8, X8
	VPSHUFD      $0x4e, X8, X9
	VPADDD       X9, X8, X8
	VPSHUFD      $0xb1, X8, X9
	VPADDD       X9, X8, X8
	VMOVD        X8, AX
	IMULL        $-8, AX
	MOVL         AX, (R10)         // m8 = −8·Σq
	VCVTDQ2PS    X8, X8
	VMULSS       X8, X6, X8        // s = d·Σq
	VMOVSS       X8, (R9)

	VPACKSSDW Y1, Y0, Y0
	VPACKSSDW Y3, Y2, Y2
	VPACKSSWB Y2, Y0, Y0
	VPERMD    Y0, Y12, Y0
	VMOVDQU   Y0, (DI)

	ADDQ $128, SI
	ADDQ $32, DI
	ADDQ $4, R8
	ADDQ $4, R9
	ADDQ $4, R10
	DECQ CX
	JMP  qaloop

qadone:
	VZEROUPPER
	RET
