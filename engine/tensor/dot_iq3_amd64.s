#include "textflag.h"
#include "signruns_amd64.h"

// AVX2 + FMA + F16C kernels for IQ3_XXS and IQ3_S (layouts in
// quant_iq3.go; dotIQ3XXSGo and dotIQ3SGo in dot_iq3.go are the
// definitions they follow): the one-token Rows kernels and the four-token
// prefill (gemm4) kernels, in one file because they share the decoding.
//
// A sub-block of 32 weights is one activation block and one vector. Its
// eight grid entries (4 bytes each: the magnitudes of four weights) come
// in by scalar loads from the codebook, VMOVD/VPINSRD into two XMM halves
// joined by VINSERTI128, and not by one VPGATHERDD: on Zen 4 (AVX2 only,
// a VM without AVX-512) the gather took about 60 % of the decode kernel's
// samples, and the loads made IQ3_XXS decode 1.3 times as fast and IQ3_S
// 1.2 times (docs/quants.md). IQ3_XXS's code bytes are the indices as
// they are (MOVBLZX from the block); IQ3_S's nine-bit indices are formed
// as dwords in a vector (each code byte ORed with its bit of qh) and taken
// out two by two through general registers. Storing that vector to the
// frame and loading the indices back was slower still (the loads wait on
// the store), as was a pair table of 65536 IQ3_XXS entries.
//
// The signs go onto the activation codes (VPSIGNB), so that VPMADDUBSW
// takes the magnitudes unsigned: pair sums reach 2·62·127 = 15748, within
// int16. VPMADDWD against words 1 gives dwords, and a VPHADDD tree the
// sub-block sums. IQ3_XXS stores its signs as four 7-bit indices into
// ksigns_iq2xs per sub-block: each picks its eight bytes ±1 from
// iq2SignRuns (dot_iq2_amd64.go), the field extraction being integer work
// that leaves the vector pipes to the grid and the dots. IQ3_S stores
// them as bits: a dword broadcast, VPSHUFB sending byte l to the eight
// bytes of weights 8l…8l+7, VPAND/VPCMPEQB against each byte's own bit and
// VPOR 1 make the bytes (a 256-entry table of runs measured slower).
//
// A super-block is done in two halves of four sub-blocks: grids in
// Y4..Y7, signs in Y8..Y11, which leaves Y0..Y3 for the prefill kernels'
// four accumulators and Y12..Y15 for scratch. A half leaves [its four
// sums over the low 128 bits | over the high ones]; two VPERM2I128 and a
// VPADDD make the super-block's eight sums in order, VPMULLD by the odd
// scales 2s+1 the exact integer Σ(2s+1)·Σ(±grid)·xq of each activation
// block (|Σ| ≤ 31·32·62·127 < 2²⁴, exact in float32 too), and as in
// dot_k23_amd64.s one VFMADD231PS adds them times d·dx (IQ3_XXS: d/4·dx).
// The prefill kernels do each token's float operations exactly as the
// Rows kernels do, so a token's result does not depend on the batching.

// IQ3PF is how far ahead the weights are prefetched.
#define IQ3PF 1024

// Sign byte spreading: byte l of a dword to the eight bytes of weights
// 8l…8l+7 (lane 0: l = 0, 1; lane 1: l = 2, 3).
DATA iq3SignShuf<>+0(SB)/8, $0x0000000000000000
DATA iq3SignShuf<>+8(SB)/8, $0x0101010101010101
DATA iq3SignShuf<>+16(SB)/8, $0x0202020202020202
DATA iq3SignShuf<>+24(SB)/8, $0x0303030303030303
GLOBL iq3SignShuf<>(SB), RODATA|NOPTR, $32

DATA iq3Bits<>+0(SB)/8, $0x8040201008040201
DATA iq3Bits<>+8(SB)/8, $0x8040201008040201
DATA iq3Bits<>+16(SB)/8, $0x8040201008040201
DATA iq3Bits<>+24(SB)/8, $0x8040201008040201
GLOBL iq3Bits<>(SB), RODATA|NOPTR, $32

DATA iq3Ones8<>+0(SB)/8, $0x0101010101010101
DATA iq3Ones8<>+8(SB)/8, $0x0101010101010101
DATA iq3Ones8<>+16(SB)/8, $0x0101010101010101
DATA iq3Ones8<>+24(SB)/8, $0x0101010101010101
GLOBL iq3Ones8<>(SB), RODATA|NOPTR, $32

DATA iq3Ones16<>+0(SB)/8, $0x0001000100010001
DATA iq3Ones16<>+8(SB)/8, $0x0001000100010001
DATA iq3Ones16<>+16(SB)/8, $0x0001000100010001
DATA iq3Ones16<>+24(SB)/8, $0x0001000100010001
GLOBL iq3Ones16<>(SB), RODATA|NOPTR, $32

DATA iq3Ones32<>+0(SB)/8, $0x0000000100000001
DATA iq3Ones32<>+8(SB)/8, $0x0000000100000001
DATA iq3Ones32<>+16(SB)/8, $0x0000000100000001
DATA iq3Ones32<>+24(SB)/8, $0x0000000100000001
GLOBL iq3Ones32<>(SB), RODATA|NOPTR, $32

// IQ3_S: index m's ninth bit is bit m of qh's byte, moved to bit 8 by a
// left shift of 8 − m; the scales' nibble j is at bit 4j of their dword.
DATA iq3sQhShift<>+0(SB)/8, $0x0000000700000008
DATA iq3sQhShift<>+8(SB)/8, $0x0000000500000006
DATA iq3sQhShift<>+16(SB)/8, $0x0000000300000004
DATA iq3sQhShift<>+24(SB)/8, $0x0000000100000002
GLOBL iq3sQhShift<>(SB), RODATA|NOPTR, $32

DATA iq3sScShift<>+0(SB)/8, $0x0000000400000000
DATA iq3sScShift<>+8(SB)/8, $0x0000000c00000008
DATA iq3sScShift<>+16(SB)/8, $0x0000001400000010
DATA iq3sScShift<>+24(SB)/8, $0x0000001c00000018
GLOBL iq3sScShift<>(SB), RODATA|NOPTR, $32

DATA iq3Mask0F<>+0(SB)/8, $0x0000000f0000000f
DATA iq3Mask0F<>+8(SB)/8, $0x0000000f0000000f
DATA iq3Mask0F<>+16(SB)/8, $0x0000000f0000000f
DATA iq3Mask0F<>+24(SB)/8, $0x0000000f0000000f
GLOBL iq3Mask0F<>(SB), RODATA|NOPTR, $32

DATA iq3Quarter<>+0(SB)/4, $0x3e800000
GLOBL iq3Quarter<>(SB), RODATA|NOPTR, $4

// IQ3XXSSCALES sets y to the eight sub-blocks' 2s+1 from IQ3_XXS's aux
// words (at 66(SI)), as dwords. Clobbers Y12.
#define IQ3XXSSCALES(y) \
	VMOVDQU 66(SI), Y12; \
	VPSRLD  $28, Y12, y; \
	VPADDD  y, y, y; \
	VPADDD  iq3Ones32<>(SB), y, y

// IQ3SSCALES sets y to IQ3_S's eight 2s+1 (nibbles of scales at 106(SI)).
#define IQ3SSCALES(y) \
	VPBROADCASTD 106(SI), y; \
	VPSRLVD      iq3sScShift<>(SB), y, y; \
	VPAND        iq3Mask0F<>(SB), y, y; \
	VPADDD       y, y, y; \
	VPADDD       iq3Ones32<>(SB), y, y

// IQ3SIGNVEC turns the sign word at src into bytes −1 (weight negative)
// or +1 in s. Clobbers Y12.
#define IQ3SIGNVEC(src, s) \
	VPBROADCASTD src, Y12; \
	VPSHUFB      iq3SignShuf<>(SB), Y12, Y12; \
	VPAND        iq3Bits<>(SB), Y12, Y12; \
	VPCMPEQB     iq3Bits<>(SB), Y12, s; \
	VPOR         iq3Ones8<>(SB), s, s

// IQ3XXSFOUR loads the grid entries of the four code bytes at qoff(SI)
// (table at R9) into the dwords of x. Clobbers R15.
#define IQ3XXSFOUR(qoff, x) \
	MOVBLZX qoff(SI), R15; \
	VMOVD   (R9)(R15*4), x; \
	MOVBLZX qoff+1(SI), R15; \
	VPINSRD $1, (R9)(R15*4), x, x; \
	MOVBLZX qoff+2(SI), R15; \
	VPINSRD $2, (R9)(R15*4), x, x; \
	MOVBLZX qoff+3(SI), R15; \
	VPINSRD $3, (R9)(R15*4), x, x

// IQ3XXSGRID loads IQ3_XXS sub-block j's eight grid entries (code bytes
// at qoff(SI), table at R9) into g (x its low half): each index by
// MOVBLZX, each entry by VMOVD/VPINSRD from the table, the halves joined
// by VINSERTI128 (not VPGATHERDD: see the top of the file). Clobbers
// R15, X13.
#define IQ3XXSGRID(qoff, g, x) \
	IQ3XXSFOUR(qoff, x); \
	IQ3XXSFOUR(qoff+4, X13); \
	VINSERTI128 $1, X13, g, g

// IQ3SFOUR loads the grid entries of the four dword indices in X12 (table
// at R9) into the dwords of x: MOVL takes an index pair's low one, SHRQ
// leaves its high one. Clobbers R10, R11, R15.
#define IQ3SFOUR(x) \
	VMOVQ   X12, R10; \
	VPEXTRQ $1, X12, R11; \
	MOVL    R10, R15; \
	VMOVD   (R9)(R15*4), x; \
	SHRQ    $32, R10; \
	VPINSRD $1, (R9)(R10*4), x, x; \
	MOVL    R11, R15; \
	VPINSRD $2, (R9)(R15*4), x, x; \
	SHRQ    $32, R11; \
	VPINSRD $3, (R9)(R11*4), x, x

// IQ3SGRID is IQ3XXSGRID for IQ3_S, whose index m has bit m of the qh
// byte at hoff(SI) as its ninth bit: the eight indices are formed as
// dwords in Y12 and moved to R10 and R11 two at a time (IQ3SFOUR). Of the
// ways measured on Zen 4 this was the fastest; words taken out by
// MOVWLZX/SHRQ, PDEP in general registers, VPEXTRW, and a store to the
// frame with loads back were 1.1 to 1.5 times slower. Clobbers Y12, Y13,
// R10, R11, R15.
#define IQ3SGRID(qoff, hoff, g, x) \
	VPMOVZXBD    qoff(SI), Y12; \
	VPBROADCASTB hoff(SI), Y13; \
	VPSLLVD      iq3sQhShift<>(SB), Y13, Y13; \
	VPSRLD       $8, Y13, Y13; \
	VPSLLD       $31, Y13, Y13; \
	VPSRLD       $23, Y13, Y13; \
	VPOR         Y13, Y12, Y12; \
	IQ3SFOUR(x); \
	VEXTRACTI128 $1, Y12, X12; \
	IQ3SFOUR(X13); \
	VINSERTI128  $1, X13, g, g

// IQ3XXSHALF decodes IQ3_XXS sub-blocks h..h+3 (h = 4·half) into Y4..Y7
// (grids) and Y8..Y11 (signs), the aux words at a0(SI) (+4 per
// sub-block; their signs by SIGNRUNS, signruns_amd64.h).
#define IQ3XXSHALF(q0, a0) \
	IQ3XXSGRID(q0, Y4, X4); \
	IQ3XXSGRID(q0+8, Y5, X5); \
	IQ3XXSGRID(q0+16, Y6, X6); \
	IQ3XXSGRID(q0+24, Y7, X7); \
	SIGNRUNS(a0(SI), AX, R11, Y8, X8, X12); \
	SIGNRUNS(a0+4(SI), AX, R11, Y9, X9, X12); \
	SIGNRUNS(a0+8(SI), AX, R11, Y10, X10, X12); \
	SIGNRUNS(a0+12(SI), AX, R11, Y11, X11, X12)

// IQ3SHALF is IQ3XXSHALF for IQ3_S: codes at q0(SI), qh bytes from h0(SI),
// sign words from s0(SI).
#define IQ3SHALF(q0, h0, s0) \
	IQ3SGRID(q0, h0, Y4, X4); \
	IQ3SGRID(q0+8, h0+1, Y5, X5); \
	IQ3SGRID(q0+16, h0+2, Y6, X6); \
	IQ3SGRID(q0+24, h0+3, Y7, X7); \
	IQ3SIGNVEC(s0(SI), Y8); \
	IQ3SIGNVEC(s0+4(SI), Y9); \
	IQ3SIGNVEC(s0+8(SI), Y10); \
	IQ3SIGNVEC(s0+12(SI), Y11)

// IQ3BLK leaves in t one token's dword partial sums of Σ(±grid)·xq over
// a sub-block (grid g, signs s, activations at xoff(xr)).
#define IQ3BLK(xr, xoff, g, s, t) \
	VMOVDQU    xoff(xr), t; \
	VPSIGNB    s, t, t; \
	VPMADDUBSW t, g, t; \
	VPMADDWD   iq3Ones16<>(SB), t, t

// IQ3TOK leaves in Y12 one token's sums over the decoded half (its four
// activation blocks from xoff(xr)): [the four sub-blocks' sums over their
// low 128 bits | over their high ones]. Clobbers Y13, Y14.
#define IQ3TOK(xr, xoff) \
	IQ3BLK(xr, xoff, Y4, Y8, Y12); \
	IQ3BLK(xr, xoff+32, Y5, Y9, Y13); \
	VPHADDD Y13, Y12, Y12; \
	IQ3BLK(xr, xoff+64, Y6, Y10, Y13); \
	IQ3BLK(xr, xoff+96, Y7, Y11, Y14); \
	VPHADDD Y14, Y13, Y13; \
	VPHADDD Y13, Y12, Y12

// IQ3FINISH folds the first half's sums (ha, a register or memory) and
// the second's (Y12) into the eight sub-block sums, times the scales ls
// (dwords), and adds them times scale·dx (scale: d or d/4 as floats;
// dx at dxm) to acc: acc += float(Σ)·(scale·dx). Clobbers Y12, Y13.
#define IQ3FINISH(ha, ls, scale, dxm, acc) \
	VPERM2I128  $0x02, ha, Y12, Y13; \
	VPERM2I128  $0x13, ha, Y12, Y12; \
	VPADDD      Y13, Y12, Y12; \
	VPMULLD     ls, Y12, Y12; \
	VCVTDQ2PS   Y12, Y12; \
	VMOVUPS     scale, Y13; \
	VMULPS      dxm, Y13, Y13; \
	VFMADD231PS Y13, Y12, acc

#define IQ3HSUM \
	VEXTRACTF128 $1, Y0, X1; \
	VADDPS       X1, X0, X0; \
	VHADDPS      X0, X0, X0; \
	VHADDPS      X0, X0, X0

// ---------------------------------------------------------------------------
// Rows kernels. SI weights, DI activation codes, R8 activation scales,
// R9 the codebook, R10 iq2SignRuns (IQ3_XXS) or scratch (IQ3_S), R13 the
// output, Y0 the row's accumulator, Y1 the scales 2s+1, Y2 d (or d/4), Y3
// the first half's sums.

// func dotIQ3XXSRowsAVX2(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32)
TEXT ·dotIQ3XXSRowsAVX2(SB), NOSPLIT, $8-48
	MOVQ  w+0(FP), SI
	MOVQ  out+40(FP), R13
	MOVQ  nsb+24(FP), AX
	IMULQ $98, AX
	IMULQ rows+32(FP), AX
	ADDQ  SI, AX
	MOVQ  AX, end-8(SP)
	LEAQ  ·iq3xxs_grid(SB), R9
	LEAQ  ·iq2SignRuns(SB), R10

xxsrow:
	CMPQ   SI, end-8(SP)
	JAE    xxsend
	MOVQ   xq+8(FP), DI
	MOVQ   xd+16(FP), R8
	MOVQ   nsb+24(FP), CX
	VXORPS Y0, Y0, Y0

xxsloop:
	TESTQ      CX, CX
	JEQ        xxsdone
	PREFETCHT0 IQ3PF(SI)
	PREFETCHT0 IQ3PF+64(SI)

	IQ3XXSSCALES(Y1)
	VPBROADCASTW 0(SI), X2
	VCVTPH2PS    X2, Y2
	VBROADCASTSS iq3Quarter<>(SB), Y12
	VMULPS       Y12, Y2, Y2 // d/4, exact

	IQ3XXSHALF(2, 66)
	IQ3TOK(DI, 0)
	VMOVDQA Y12, Y3
	IQ3XXSHALF(34, 82)
	IQ3TOK(DI, 128)
	IQ3FINISH(Y3, Y1, Y2, (R8), Y0)

	ADDQ $98, SI
	ADDQ $256, DI
	ADDQ $32, R8
	DECQ CX
	JMP  xxsloop

xxsdone:
	IQ3HSUM
	VMOVSS X0, (R13)
	ADDQ   $4, R13
	JMP    xxsrow

xxsend:
	VZEROUPPER
	RET

// func dotIQ3SRowsAVX2(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32)
TEXT ·dotIQ3SRowsAVX2(SB), NOSPLIT, $8-48
	MOVQ  w+0(FP), SI
	MOVQ  out+40(FP), R13
	MOVQ  nsb+24(FP), AX
	IMULQ $110, AX
	IMULQ rows+32(FP), AX
	ADDQ  SI, AX
	MOVQ  AX, end-8(SP)
	LEAQ  ·iq3s_grid(SB), R9

srow:
	CMPQ   SI, end-8(SP)
	JAE    send
	MOVQ   xq+8(FP), DI
	MOVQ   xd+16(FP), R8
	MOVQ   nsb+24(FP), CX
	VXORPS Y0, Y0, Y0

sloop:
	TESTQ      CX, CX
	JEQ        sdone
	PREFETCHT0 IQ3PF(SI)
	PREFETCHT0 IQ3PF+64(SI)

	IQ3SSCALES(Y1)
	VPBROADCASTW 0(SI), X2
	VCVTPH2PS    X2, Y2

	IQ3SHALF(2, 66, 74)
	IQ3TOK(DI, 0)
	VMOVDQA Y12, Y3
	IQ3SHALF(34, 70, 90)
	IQ3TOK(DI, 128)
	IQ3FINISH(Y3, Y1, Y2, (R8), Y0)

	ADDQ $110, SI
	ADDQ $256, DI
	ADDQ $32, R8
	DECQ CX
	JMP  sloop

sdone:
	IQ3HSUM
	VMOVSS X0, (R13)
	ADDQ   $4, R13
	JMP    srow

send:
	VZEROUPPER
	RET

// ---------------------------------------------------------------------------
// Four-token prefill kernels. As gemm_k23_amd64.s: SI weights; DI, R10,
// R11, AX tokens 0..3's activation codes (R12 bytes apart, R14 = 3·R12);
// R8 token 0's activation scales, token t's DX·t bytes further (BX =
// 3·DX); CX counts super-blocks, R13 walks out; R9 the codebook. Y0..Y3
// are the tokens' accumulators. What depends on the weights alone (the
// scales, d, the sign words, each half's grids and signs) is decoded once
// per super-block; each token's first-half sums wait in the frame. A
// half's decoding uses R10, R11 and AX (iq2SignRuns and scratch), so
// IQ3G4FIRST and IQ3G4SECOND set the token pointers each time.
//
// Frame: end-8 the weights' end; ls-40 the scales 2s+1; sc-72 d (or
// d/4); ha0-104 … ha3-200 the tokens' first halves.

// IQ3G4SETUP sets the strides between tokens from nsb (in CX).
#define IQ3G4SETUP \
	MOVQ CX, R12; \
	SHLQ $8, R12; \
	LEAQ (R12)(R12*2), R14; \
	MOVQ CX, DX; \
	SHLQ $5, DX; \
	LEAQ (DX)(DX*2), BX

#define IQ3G4TOKENS \
	LEAQ (DI)(R12*1), R10; \
	LEAQ (DI)(R12*2), R11; \
	LEAQ (DI)(R14*1), AX

#define IQ3G4HSUM(y, x, tmp) \
	VEXTRACTF128 $1, y, tmp; \
	VADDPS       tmp, x, x; \
	VHADDPS      x, x, x; \
	VHADDPS      x, x, x

// IQ3G4END is the Rows kernels' ending (HSUM, store) for the four tokens:
// out[t·ostride] of this row gets token t's sum. Clobbers AX, X8..X11.
#define IQ3G4END(ostride) \
	IQ3G4HSUM(Y0, X0, X8); \
	IQ3G4HSUM(Y1, X1, X9); \
	IQ3G4HSUM(Y2, X2, X10); \
	IQ3G4HSUM(Y3, X3, X11); \
	MOVQ   ostride, AX; \
	SHLQ   $2, AX; \
	VMOVSS X0, (R13); \
	VMOVSS X1, (R13)(AX*1); \
	VMOVSS X2, (R13)(AX*2); \
	LEAQ   (AX)(AX*2), AX; \
	VMOVSS X3, (R13)(AX*1); \
	ADDQ   $4, R13

#define IQ3G4ZERO4 \
	VXORPS Y0, Y0, Y0; \
	VXORPS Y1, Y1, Y1; \
	VXORPS Y2, Y2, Y2; \
	VXORPS Y3, Y3, Y3

// IQ3G4FIRST keeps the four tokens' first-half sums in the frame.
#define IQ3G4FIRST \
	IQ3G4TOKENS; \
	IQ3TOK(DI, 0); \
	VMOVDQU Y12, ha0-104(SP); \
	IQ3TOK(R10, 0); \
	VMOVDQU Y12, ha1-136(SP); \
	IQ3TOK(R11, 0); \
	VMOVDQU Y12, ha2-168(SP); \
	IQ3TOK(AX, 0); \
	VMOVDQU Y12, ha3-200(SP)

// IQ3G4SECOND completes the four tokens' super-block.
#define IQ3G4SECOND \
	IQ3G4TOKENS; \
	IQ3TOK(DI, 128); \
	IQ3FINISH(ha0-104(SP), ls-40(SP), sc-72(SP), (R8), Y0); \
	IQ3TOK(R10, 128); \
	IQ3FINISH(ha1-136(SP), ls-40(SP), sc-72(SP), (R8)(DX*1), Y1); \
	IQ3TOK(R11, 128); \
	IQ3FINISH(ha2-168(SP), ls-40(SP), sc-72(SP), (R8)(DX*2), Y2); \
	IQ3TOK(AX, 128); \
	IQ3FINISH(ha3-200(SP), ls-40(SP), sc-72(SP), (R8)(BX*1), Y3)

// func gemm4IQ3XXSAVX2(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32, ostride int)
//
// For rows consecutive IQ3_XXS rows of nsb super-blocks and four tokens
// whose codes are xq + t·256·nsb and scales xd + t·8·nsb:
// out[t·ostride + r] = row r · token t, bit for bit dotIQ3XXSRowsAVX2's.
TEXT ·gemm4IQ3XXSAVX2(SB), NOSPLIT, $200-56
	MOVQ  w+0(FP), SI
	MOVQ  out+40(FP), R13
	MOVQ  nsb+24(FP), CX
	MOVQ  CX, AX
	IMULQ $98, AX
	IMULQ rows+32(FP), AX
	ADDQ  SI, AX
	MOVQ  AX, end-8(SP)
	LEAQ  ·iq3xxs_grid(SB), R9
	IQ3G4SETUP

g4xxsrow:
	CMPQ SI, end-8(SP)
	JAE  g4xxsend
	MOVQ xq+8(FP), DI
	MOVQ xd+16(FP), R8
	MOVQ nsb+24(FP), CX
	IQ3G4ZERO4

g4xxsloop:
	PREFETCHT0 IQ3PF(SI)
	PREFETCHT0 IQ3PF+64(SI)

	IQ3XXSSCALES(Y13)
	VMOVDQU      Y13, ls-40(SP)
	VPBROADCASTW 0(SI), X13
	VCVTPH2PS    X13, Y13
	VBROADCASTSS iq3Quarter<>(SB), Y12
	VMULPS       Y12, Y13, Y13
	VMOVUPS      Y13, sc-72(SP)

	LEAQ ·iq2SignRuns(SB), R10
	IQ3XXSHALF(2, 66)
	IQ3G4FIRST
	LEAQ ·iq2SignRuns(SB), R10
	IQ3XXSHALF(34, 82)
	IQ3G4SECOND

	ADDQ $98, SI
	ADDQ $256, DI
	ADDQ $32, R8
	DECQ CX
	JNZ  g4xxsloop

	IQ3G4END(ostride+48(FP))
	JMP g4xxsrow

g4xxsend:
	VZEROUPPER
	RET

// func gemm4IQ3SAVX2(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32, ostride int)
//
// gemm4IQ3XXSAVX2 for IQ3_S, bit for bit dotIQ3SRowsAVX2's.
TEXT ·gemm4IQ3SAVX2(SB), NOSPLIT, $200-56
	MOVQ  w+0(FP), SI
	MOVQ  out+40(FP), R13
	MOVQ  nsb+24(FP), CX
	MOVQ  CX, AX
	IMULQ $110, AX
	IMULQ rows+32(FP), AX
	ADDQ  SI, AX
	MOVQ  AX, end-8(SP)
	LEAQ  ·iq3s_grid(SB), R9
	IQ3G4SETUP

g4srow:
	CMPQ SI, end-8(SP)
	JAE  g4send
	MOVQ xq+8(FP), DI
	MOVQ xd+16(FP), R8
	MOVQ nsb+24(FP), CX
	IQ3G4ZERO4

g4sloop:
	PREFETCHT0 IQ3PF(SI)
	PREFETCHT0 IQ3PF+64(SI)

	IQ3SSCALES(Y13)
	VMOVDQU      Y13, ls-40(SP)
	VPBROADCASTW 0(SI), X13
	VCVTPH2PS    X13, Y13
	VMOVUPS      Y13, sc-72(SP)

	IQ3SHALF(2, 66, 74)
	IQ3G4FIRST
	IQ3SHALF(34, 70, 90)
	IQ3G4SECOND

	ADDQ $110, SI
	ADDQ $256, DI
	ADDQ $32, R8
	DECQ CX
	JNZ  g4sloop

	IQ3G4END(ostride+48(FP))
	JMP g4srow

g4send:
	VZEROUPPER
	RET
