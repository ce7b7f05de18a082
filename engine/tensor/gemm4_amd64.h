// Macros shared by the four-token prefill kernels (gemm_amd64.s,
// gemm_vnni_amd64.s; gemm_k_amd64.s uses ZERO8). Accumulators: Y0/Y1 (even/odd blocks) token 0,
// Y2/Y3 token 1, Y4/Y5 token 2, Y6/Y7 token 3; R13 points at out[row].

// ZERO8 clears the eight accumulators.
#define ZERO8 \
	VXORPS Y0, Y0, Y0; \
	VXORPS Y1, Y1, Y1; \
	VXORPS Y2, Y2, Y2; \
	VXORPS Y3, Y3, Y3; \
	VXORPS Y4, Y4, Y4; \
	VXORPS Y5, Y5, Y5; \
	VXORPS Y6, Y6, Y6; \
	VXORPS Y7, Y7, Y7

// HSUMTO folds the eight float lanes of even+odd into the low lane of
// X(even), as dot_amd64.s's HSUM does for Y0. Clobbers xtmp.
#define HSUMTO(even, odd, xeven, xtmp) \
	VADDPS       odd, even, even; \
	VEXTRACTF128 $1, even, xtmp; \
	VADDPS       xtmp, xeven, xeven; \
	VHADDPS      xeven, xeven, xeven; \
	VHADDPS      xeven, xeven, xeven

// FOLD4 leaves token t's sum in the low lane of X(2t). Clobbers X8.
#define FOLD4 \
	HSUMTO(Y0, Y1, X0, X8); \
	HSUMTO(Y2, Y3, X2, X8); \
	HSUMTO(Y4, Y5, X4, X8); \
	HSUMTO(Y6, Y7, X6, X8)

// STORE4 writes X0, X2, X4, X6 to out[t·ostride + row] (ostride is the
// argument's frame slot) and moves R13 to the next row. Clobbers AX.
#define STORE4(ostride) \
	MOVQ   ostride, AX; \
	SHLQ   $2, AX; \
	VMOVSS X0, (R13); \
	VMOVSS X2, (R13)(AX*1); \
	VMOVSS X4, (R13)(AX*2); \
	LEAQ   (AX)(AX*2), AX; \
	VMOVSS X6, (R13)(AX*1); \
	ADDQ   $4, R13
