#include "textflag.h"
#include "signruns_amd64.h"

// AVX2 + FMA + F16C row kernels for IQ2_XXS, IQ2_XS and IQ2_S (layouts in
// quant_iq2.go; dotIQ2XXSGo, dotIQ2XSGo and dotIQ2SGo in dot_iq2.go are the
// definitions they follow). Conventions as in dot_k23_amd64.s: SI weights,
// DI activation codes, R8 activation scales, R13 the output, Y0 the row's
// float accumulator; R9 the type's grid (iqtables_gen.go), R10 iq2SignRuns (dot_iq2_amd64.go).
//
// A block of 32 weights is four runs of eight, each an 8-byte grid entry:
// the four entries are loaded by index, as llama.cpp's AVX2 kernels do, into
// one vector of magnitudes (8, 25 or 43), runs 0 and 1 in the low lane. The
// signs go onto the activations (VPSIGNB): IQ2_XXS's and IQ2_XS's 7-bit sign
// indices pick an 8-byte entry of ±1 from iq2SignRuns (ksigns_iq2xs spread
// out, llama.cpp's keven_signs trick); IQ2_S's sign bytes are spread bit by
// bit (VPSHUFB, VPAND, VPCMPEQB). VPMADDUBSW then gives pair sums within
// ±2·43·127, and VPMADDWD folds them into dwords, against ones (IQ2_XXS,
// whose scale per 32 multiplies the block sums at the end) or against the
// 2·ls + 1 of each half (IQ2_XS, IQ2_S: the low lane's sixteen weights take
// one scale, the high lane's the other). A VPHADDD tree and one lane fold
// leave the super-block's eight exact block sums one per lane, and the
// float work is Q3_K's: convert, times d/8·dx, accumulate.

// IQ2PF is how far ahead the weights are prefetched (K23PF in dot_k23_amd64.s).
#define IQ2PF 2048

// IQ2HSUM folds the eight float lanes of Y0 into X0's low lane (K23HSUM).
// Clobbers X1.
#define IQ2HSUM \
	VEXTRACTF128 $1, Y0, X1; \
	VADDPS       X1, X0, X0; \
	VHADDPS      X0, X0, X0; \
	VHADDPS      X0, X0, X0


// iq2ScaleSel: for block g (32 bytes each), VPSHUFB control that spreads
// scale byte 2g (the first 16 weights') as words over the low lane and
// byte 2g+1 over the high lane.
DATA iq2ScaleSel<>+0(SB)/8, $0x8000800080008000
DATA iq2ScaleSel<>+8(SB)/8, $0x8000800080008000
DATA iq2ScaleSel<>+16(SB)/8, $0x8001800180018001
DATA iq2ScaleSel<>+24(SB)/8, $0x8001800180018001
DATA iq2ScaleSel<>+32(SB)/8, $0x8002800280028002
DATA iq2ScaleSel<>+40(SB)/8, $0x8002800280028002
DATA iq2ScaleSel<>+48(SB)/8, $0x8003800380038003
DATA iq2ScaleSel<>+56(SB)/8, $0x8003800380038003
DATA iq2ScaleSel<>+64(SB)/8, $0x8004800480048004
DATA iq2ScaleSel<>+72(SB)/8, $0x8004800480048004
DATA iq2ScaleSel<>+80(SB)/8, $0x8005800580058005
DATA iq2ScaleSel<>+88(SB)/8, $0x8005800580058005
DATA iq2ScaleSel<>+96(SB)/8, $0x8006800680068006
DATA iq2ScaleSel<>+104(SB)/8, $0x8006800680068006
DATA iq2ScaleSel<>+112(SB)/8, $0x8007800780078007
DATA iq2ScaleSel<>+120(SB)/8, $0x8007800780078007
DATA iq2ScaleSel<>+128(SB)/8, $0x8008800880088008
DATA iq2ScaleSel<>+136(SB)/8, $0x8008800880088008
DATA iq2ScaleSel<>+144(SB)/8, $0x8009800980098009
DATA iq2ScaleSel<>+152(SB)/8, $0x8009800980098009
DATA iq2ScaleSel<>+160(SB)/8, $0x800a800a800a800a
DATA iq2ScaleSel<>+168(SB)/8, $0x800a800a800a800a
DATA iq2ScaleSel<>+176(SB)/8, $0x800b800b800b800b
DATA iq2ScaleSel<>+184(SB)/8, $0x800b800b800b800b
DATA iq2ScaleSel<>+192(SB)/8, $0x800c800c800c800c
DATA iq2ScaleSel<>+200(SB)/8, $0x800c800c800c800c
DATA iq2ScaleSel<>+208(SB)/8, $0x800d800d800d800d
DATA iq2ScaleSel<>+216(SB)/8, $0x800d800d800d800d
DATA iq2ScaleSel<>+224(SB)/8, $0x800e800e800e800e
DATA iq2ScaleSel<>+232(SB)/8, $0x800e800e800e800e
DATA iq2ScaleSel<>+240(SB)/8, $0x800f800f800f800f
DATA iq2ScaleSel<>+248(SB)/8, $0x800f800f800f800f
GLOBL iq2ScaleSel<>(SB), RODATA|NOPTR, $256

// iq2SignSel spreads sign byte k of a broadcast dword over weights 8k…8k+7
// (bytes 0, 1 in the low lane, 2, 3 in the high); iq2Bits holds each
// weight's bit of its sign byte.
DATA iq2SignSel<>+0(SB)/8, $0x0000000000000000
DATA iq2SignSel<>+8(SB)/8, $0x0101010101010101
DATA iq2SignSel<>+16(SB)/8, $0x0202020202020202
DATA iq2SignSel<>+24(SB)/8, $0x0303030303030303
GLOBL iq2SignSel<>(SB), RODATA|NOPTR, $32
DATA iq2Bits<>+0(SB)/8, $0x8040201008040201
DATA iq2Bits<>+8(SB)/8, $0x8040201008040201
DATA iq2Bits<>+16(SB)/8, $0x8040201008040201
DATA iq2Bits<>+24(SB)/8, $0x8040201008040201
GLOBL iq2Bits<>(SB), RODATA|NOPTR, $32
DATA iq2Bytes1<>+0(SB)/8, $0x0101010101010101
DATA iq2Bytes1<>+8(SB)/8, $0x0101010101010101
DATA iq2Bytes1<>+16(SB)/8, $0x0101010101010101
DATA iq2Bytes1<>+24(SB)/8, $0x0101010101010101
GLOBL iq2Bytes1<>(SB), RODATA|NOPTR, $32
DATA iq2Mask0F<>+0(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA iq2Mask0F<>+8(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA iq2Mask0F<>+16(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA iq2Mask0F<>+24(SB)/8, $0x0f0f0f0f0f0f0f0f
GLOBL iq2Mask0F<>(SB), RODATA|NOPTR, $32
DATA iq2Words1<>+0(SB)/8, $0x0001000100010001
DATA iq2Words1<>+8(SB)/8, $0x0001000100010001
DATA iq2Words1<>+16(SB)/8, $0x0001000100010001
DATA iq2Words1<>+24(SB)/8, $0x0001000100010001
GLOBL iq2Words1<>(SB), RODATA|NOPTR, $32
DATA iq2Dword1<>+0(SB)/8, $0x0000000100000001
DATA iq2Dword1<>+8(SB)/8, $0x0000000100000001
DATA iq2Dword1<>+16(SB)/8, $0x0000000100000001
DATA iq2Dword1<>+24(SB)/8, $0x0000000100000001
GLOBL iq2Dword1<>(SB), RODATA|NOPTR, $32
DATA iq2Eighth<>+0(SB)/8, $0x3e0000003e000000
DATA iq2Eighth<>+8(SB)/8, $0x3e0000003e000000
DATA iq2Eighth<>+16(SB)/8, $0x3e0000003e000000
DATA iq2Eighth<>+24(SB)/8, $0x3e0000003e000000
GLOBL iq2Eighth<>(SB), RODATA|NOPTR, $32

// ---------------------------------------------------------------------------
// IQ2_XXS

// func dotIQ2XXSRowsAVX2(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32)
//
// Per activation block b: d/8·dx_b·(its exact int32 sum) (dotIQ2XXSGo).
TEXT ·dotIQ2XXSRowsAVX2(SB), NOSPLIT, $8-48
	MOVQ  w+0(FP), SI
	MOVQ  out+40(FP), R13
	MOVQ  nsb+24(FP), AX
	IMULQ $66, AX
	IMULQ rows+32(FP), AX
	ADDQ  SI, AX
	MOVQ  AX, end-8(SP)
	LEAQ  ·iq2xxs_grid(SB), R9
	LEAQ  ·iq2SignRuns(SB), R10
	VMOVDQU iq2Words1<>(SB), Y15

iq2xxsrow:
	CMPQ   SI, end-8(SP)
	JAE    iq2xxsend
	MOVQ   xq+8(FP), DI
	MOVQ   xd+16(FP), R8
	MOVQ   nsb+24(FP), CX
	VXORPS Y0, Y0, Y0

iq2xxsloop:
	TESTQ      CX, CX
	JEQ        iq2xxsdone
	PREFETCHT0 IQ2PF(SI)
	PREFETCHT0 IQ2PF+64(SI)

	// 2·ls + 1 of the eight groups, one per dword lane.
	VMOVDQU 2(SI), Y11
	VMOVDQU 34(SI), Y3
	VSHUFPS $0xDD, Y3, Y11, Y11
	VPERMQ  $0xD8, Y11, Y11
	VPSRLD  $28, Y11, Y11
	VPADDD  Y11, Y11, Y11
	VPOR    iq2Dword1<>(SB), Y11, Y11

	// block 0
	MOVBLZX 2(SI), AX
	VMOVQ   (R9)(AX*8), X4
	MOVBLZX 3(SI), AX
	VPINSRQ $1, (R9)(AX*8), X4, X4
	MOVBLZX 4(SI), AX
	VMOVQ   (R9)(AX*8), X6
	MOVBLZX 5(SI), AX
	VPINSRQ $1, (R9)(AX*8), X6, X6
	VINSERTI128 $1, X6, Y4, Y4
	SIGNRUNS(6(SI), BX, AX, Y5, X5, X7)
	VMOVDQU    0(DI), Y6
	VPSIGNB    Y5, Y6, Y6
	VPMADDUBSW Y6, Y4, Y6
	VPMADDWD   Y15, Y6, Y1

	// block 1
	MOVBLZX 10(SI), AX
	VMOVQ   (R9)(AX*8), X4
	MOVBLZX 11(SI), AX
	VPINSRQ $1, (R9)(AX*8), X4, X4
	MOVBLZX 12(SI), AX
	VMOVQ   (R9)(AX*8), X6
	MOVBLZX 13(SI), AX
	VPINSRQ $1, (R9)(AX*8), X6, X6
	VINSERTI128 $1, X6, Y4, Y4
	SIGNRUNS(14(SI), BX, AX, Y5, X5, X7)
	VMOVDQU    32(DI), Y6
	VPSIGNB    Y5, Y6, Y6
	VPMADDUBSW Y6, Y4, Y6
	VPMADDWD   Y15, Y6, Y2
	VPHADDD Y2, Y1, Y8

	// block 2
	MOVBLZX 18(SI), AX
	VMOVQ   (R9)(AX*8), X4
	MOVBLZX 19(SI), AX
	VPINSRQ $1, (R9)(AX*8), X4, X4
	MOVBLZX 20(SI), AX
	VMOVQ   (R9)(AX*8), X6
	MOVBLZX 21(SI), AX
	VPINSRQ $1, (R9)(AX*8), X6, X6
	VINSERTI128 $1, X6, Y4, Y4
	SIGNRUNS(22(SI), BX, AX, Y5, X5, X7)
	VMOVDQU    64(DI), Y6
	VPSIGNB    Y5, Y6, Y6
	VPMADDUBSW Y6, Y4, Y6
	VPMADDWD   Y15, Y6, Y1

	// block 3
	MOVBLZX 26(SI), AX
	VMOVQ   (R9)(AX*8), X4
	MOVBLZX 27(SI), AX
	VPINSRQ $1, (R9)(AX*8), X4, X4
	MOVBLZX 28(SI), AX
	VMOVQ   (R9)(AX*8), X6
	MOVBLZX 29(SI), AX
	VPINSRQ $1, (R9)(AX*8), X6, X6
	VINSERTI128 $1, X6, Y4, Y4
	SIGNRUNS(30(SI), BX, AX, Y5, X5, X7)
	VMOVDQU    96(DI), Y6
	VPSIGNB    Y5, Y6, Y6
	VPMADDUBSW Y6, Y4, Y6
	VPMADDWD   Y15, Y6, Y2
	VPHADDD Y2, Y1, Y9
	VPHADDD Y9, Y8, Y8

	// block 4
	MOVBLZX 34(SI), AX
	VMOVQ   (R9)(AX*8), X4
	MOVBLZX 35(SI), AX
	VPINSRQ $1, (R9)(AX*8), X4, X4
	MOVBLZX 36(SI), AX
	VMOVQ   (R9)(AX*8), X6
	MOVBLZX 37(SI), AX
	VPINSRQ $1, (R9)(AX*8), X6, X6
	VINSERTI128 $1, X6, Y4, Y4
	SIGNRUNS(38(SI), BX, AX, Y5, X5, X7)
	VMOVDQU    128(DI), Y6
	VPSIGNB    Y5, Y6, Y6
	VPMADDUBSW Y6, Y4, Y6
	VPMADDWD   Y15, Y6, Y1

	// block 5
	MOVBLZX 42(SI), AX
	VMOVQ   (R9)(AX*8), X4
	MOVBLZX 43(SI), AX
	VPINSRQ $1, (R9)(AX*8), X4, X4
	MOVBLZX 44(SI), AX
	VMOVQ   (R9)(AX*8), X6
	MOVBLZX 45(SI), AX
	VPINSRQ $1, (R9)(AX*8), X6, X6
	VINSERTI128 $1, X6, Y4, Y4
	SIGNRUNS(46(SI), BX, AX, Y5, X5, X7)
	VMOVDQU    160(DI), Y6
	VPSIGNB    Y5, Y6, Y6
	VPMADDUBSW Y6, Y4, Y6
	VPMADDWD   Y15, Y6, Y2
	VPHADDD Y2, Y1, Y9

	// block 6
	MOVBLZX 50(SI), AX
	VMOVQ   (R9)(AX*8), X4
	MOVBLZX 51(SI), AX
	VPINSRQ $1, (R9)(AX*8), X4, X4
	MOVBLZX 52(SI), AX
	VMOVQ   (R9)(AX*8), X6
	MOVBLZX 53(SI), AX
	VPINSRQ $1, (R9)(AX*8), X6, X6
	VINSERTI128 $1, X6, Y4, Y4
	SIGNRUNS(54(SI), BX, AX, Y5, X5, X7)
	VMOVDQU    192(DI), Y6
	VPSIGNB    Y5, Y6, Y6
	VPMADDUBSW Y6, Y4, Y6
	VPMADDWD   Y15, Y6, Y1

	// block 7
	MOVBLZX 58(SI), AX
	VMOVQ   (R9)(AX*8), X4
	MOVBLZX 59(SI), AX
	VPINSRQ $1, (R9)(AX*8), X4, X4
	MOVBLZX 60(SI), AX
	VMOVQ   (R9)(AX*8), X6
	MOVBLZX 61(SI), AX
	VPINSRQ $1, (R9)(AX*8), X6, X6
	VINSERTI128 $1, X6, Y4, Y4
	SIGNRUNS(62(SI), BX, AX, Y5, X5, X7)
	VMOVDQU    224(DI), Y6
	VPSIGNB    Y5, Y6, Y6
	VPMADDUBSW Y6, Y4, Y6
	VPMADDWD   Y15, Y6, Y2
	VPHADDD Y2, Y1, Y10
	VPHADDD Y10, Y9, Y9

	// Lanes of Y8: blocks 0…3, of Y9: 4…7, each half a sum.
	VPERM2I128 $0x20, Y9, Y8, Y1
	VPERM2I128 $0x31, Y9, Y8, Y2
	VPADDD     Y2, Y1, Y1
	VPMULLD    Y11, Y1, Y1
	VCVTDQ2PS  Y1, Y1
	VPBROADCASTW 0(SI), X2
	VCVTPH2PS  X2, Y2
	VMULPS     iq2Eighth<>(SB), Y2, Y2
	VMULPS     (R8), Y2, Y2
	VFMADD231PS Y2, Y1, Y0
	
	ADDQ $66, SI
	ADDQ $256, DI
	ADDQ $32, R8
	DECQ CX
	JMP  iq2xxsloop

iq2xxsdone:
	IQ2HSUM
	VMOVSS X0, (R13)
	ADDQ   $4, R13
	JMP    iq2xxsrow

iq2xxsend:
	VZEROUPPER
	RET

// ---------------------------------------------------------------------------
// IQ2_XS

// func dotIQ2XSRowsAVX2(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32)
//
// Per activation block b: d/8·dx_b·(its exact int32 sum) (dotIQ2XSGo).
TEXT ·dotIQ2XSRowsAVX2(SB), NOSPLIT, $8-48
	MOVQ  w+0(FP), SI
	MOVQ  out+40(FP), R13
	MOVQ  nsb+24(FP), AX
	IMULQ $74, AX
	IMULQ rows+32(FP), AX
	ADDQ  SI, AX
	MOVQ  AX, end-8(SP)
	LEAQ  ·iq2xs_grid(SB), R9
	LEAQ  ·iq2SignRuns(SB), R10

iq2xsrow:
	CMPQ   SI, end-8(SP)
	JAE    iq2xsend
	MOVQ   xq+8(FP), DI
	MOVQ   xd+16(FP), R8
	MOVQ   nsb+24(FP), CX
	VXORPS Y0, Y0, Y0

iq2xsloop:
	TESTQ      CX, CX
	JEQ        iq2xsdone
	PREFETCHT0 IQ2PF(SI)
	PREFETCHT0 IQ2PF+64(SI)

	// 2·ls + 1 of the sixteen halves, as bytes in both lanes.
	VMOVQ   66(SI), X11
	VPSRLW  $4, X11, X3
	VPUNPCKLBW X3, X11, X11
	VPAND   iq2Mask0F<>(SB), X11, X11
	VPADDB  X11, X11, X11
	VPOR    iq2Bytes1<>(SB), X11, X11
	VINSERTI128 $1, X11, Y11, Y11

	// block 0
	MOVWLZX 2(SI), AX
	MOVL    AX, BX
	ANDL    $511, AX
	SHRL    $9, BX
	VMOVQ   (R9)(AX*8), X4
	VMOVQ   (R10)(BX*8), X5
	MOVWLZX 4(SI), AX
	MOVL    AX, BX
	ANDL    $511, AX
	SHRL    $9, BX
	VPINSRQ $1, (R9)(AX*8), X4, X4
	VPINSRQ $1, (R10)(BX*8), X5, X5
	MOVWLZX 6(SI), AX
	MOVL    AX, BX
	ANDL    $511, AX
	SHRL    $9, BX
	VMOVQ   (R9)(AX*8), X6
	VMOVQ   (R10)(BX*8), X7
	MOVWLZX 8(SI), AX
	MOVL    AX, BX
	ANDL    $511, AX
	SHRL    $9, BX
	VPINSRQ $1, (R9)(AX*8), X6, X6
	VPINSRQ $1, (R10)(BX*8), X7, X7
	VINSERTI128 $1, X6, Y4, Y4
	VINSERTI128 $1, X7, Y5, Y5
	VMOVDQU    0(DI), Y6
	VPSIGNB    Y5, Y6, Y6
	VPMADDUBSW Y6, Y4, Y6
	VPSHUFB    iq2ScaleSel<>+0(SB), Y11, Y7
	VPMADDWD   Y7, Y6, Y1

	// block 1
	MOVWLZX 10(SI), AX
	MOVL    AX, BX
	ANDL    $511, AX
	SHRL    $9, BX
	VMOVQ   (R9)(AX*8), X4
	VMOVQ   (R10)(BX*8), X5
	MOVWLZX 12(SI), AX
	MOVL    AX, BX
	ANDL    $511, AX
	SHRL    $9, BX
	VPINSRQ $1, (R9)(AX*8), X4, X4
	VPINSRQ $1, (R10)(BX*8), X5, X5
	MOVWLZX 14(SI), AX
	MOVL    AX, BX
	ANDL    $511, AX
	SHRL    $9, BX
	VMOVQ   (R9)(AX*8), X6
	VMOVQ   (R10)(BX*8), X7
	MOVWLZX 16(SI), AX
	MOVL    AX, BX
	ANDL    $511, AX
	SHRL    $9, BX
	VPINSRQ $1, (R9)(AX*8), X6, X6
	VPINSRQ $1, (R10)(BX*8), X7, X7
	VINSERTI128 $1, X6, Y4, Y4
	VINSERTI128 $1, X7, Y5, Y5
	VMOVDQU    32(DI), Y6
	VPSIGNB    Y5, Y6, Y6
	VPMADDUBSW Y6, Y4, Y6
	VPSHUFB    iq2ScaleSel<>+32(SB), Y11, Y7
	VPMADDWD   Y7, Y6, Y2
	VPHADDD Y2, Y1, Y8

	// block 2
	MOVWLZX 18(SI), AX
	MOVL    AX, BX
	ANDL    $511, AX
	SHRL    $9, BX
	VMOVQ   (R9)(AX*8), X4
	VMOVQ   (R10)(BX*8), X5
	MOVWLZX 20(SI), AX
	MOVL    AX, BX
	ANDL    $511, AX
	SHRL    $9, BX
	VPINSRQ $1, (R9)(AX*8), X4, X4
	VPINSRQ $1, (R10)(BX*8), X5, X5
	MOVWLZX 22(SI), AX
	MOVL    AX, BX
	ANDL    $511, AX
	SHRL    $9, BX
	VMOVQ   (R9)(AX*8), X6
	VMOVQ   (R10)(BX*8), X7
	MOVWLZX 24(SI), AX
	MOVL    AX, BX
	ANDL    $511, AX
	SHRL    $9, BX
	VPINSRQ $1, (R9)(AX*8), X6, X6
	VPINSRQ $1, (R10)(BX*8), X7, X7
	VINSERTI128 $1, X6, Y4, Y4
	VINSERTI128 $1, X7, Y5, Y5
	VMOVDQU    64(DI), Y6
	VPSIGNB    Y5, Y6, Y6
	VPMADDUBSW Y6, Y4, Y6
	VPSHUFB    iq2ScaleSel<>+64(SB), Y11, Y7
	VPMADDWD   Y7, Y6, Y1

	// block 3
	MOVWLZX 26(SI), AX
	MOVL    AX, BX
	ANDL    $511, AX
	SHRL    $9, BX
	VMOVQ   (R9)(AX*8), X4
	VMOVQ   (R10)(BX*8), X5
	MOVWLZX 28(SI), AX
	MOVL    AX, BX
	ANDL    $511, AX
	SHRL    $9, BX
	VPINSRQ $1, (R9)(AX*8), X4, X4
	VPINSRQ $1, (R10)(BX*8), X5, X5
	MOVWLZX 30(SI), AX
	MOVL    AX, BX
	ANDL    $511, AX
	SHRL    $9, BX
	VMOVQ   (R9)(AX*8), X6
	VMOVQ   (R10)(BX*8), X7
	MOVWLZX 32(SI), AX
	MOVL    AX, BX
	ANDL    $511, AX
	SHRL    $9, BX
	VPINSRQ $1, (R9)(AX*8), X6, X6
	VPINSRQ $1, (R10)(BX*8), X7, X7
	VINSERTI128 $1, X6, Y4, Y4
	VINSERTI128 $1, X7, Y5, Y5
	VMOVDQU    96(DI), Y6
	VPSIGNB    Y5, Y6, Y6
	VPMADDUBSW Y6, Y4, Y6
	VPSHUFB    iq2ScaleSel<>+96(SB), Y11, Y7
	VPMADDWD   Y7, Y6, Y2
	VPHADDD Y2, Y1, Y9
	VPHADDD Y9, Y8, Y8

	// block 4
	MOVWLZX 34(SI), AX
	MOVL    AX, BX
	ANDL    $511, AX
	SHRL    $9, BX
	VMOVQ   (R9)(AX*8), X4
	VMOVQ   (R10)(BX*8), X5
	MOVWLZX 36(SI), AX
	MOVL    AX, BX
	ANDL    $511, AX
	SHRL    $9, BX
	VPINSRQ $1, (R9)(AX*8), X4, X4
	VPINSRQ $1, (R10)(BX*8), X5, X5
	MOVWLZX 38(SI), AX
	MOVL    AX, BX
	ANDL    $511, AX
	SHRL    $9, BX
	VMOVQ   (R9)(AX*8), X6
	VMOVQ   (R10)(BX*8), X7
	MOVWLZX 40(SI), AX
	MOVL    AX, BX
	ANDL    $511, AX
	SHRL    $9, BX
	VPINSRQ $1, (R9)(AX*8), X6, X6
	VPINSRQ $1, (R10)(BX*8), X7, X7
	VINSERTI128 $1, X6, Y4, Y4
	VINSERTI128 $1, X7, Y5, Y5
	VMOVDQU    128(DI), Y6
	VPSIGNB    Y5, Y6, Y6
	VPMADDUBSW Y6, Y4, Y6
	VPSHUFB    iq2ScaleSel<>+128(SB), Y11, Y7
	VPMADDWD   Y7, Y6, Y1

	// block 5
	MOVWLZX 42(SI), AX
	MOVL    AX, BX
	ANDL    $511, AX
	SHRL    $9, BX
	VMOVQ   (R9)(AX*8), X4
	VMOVQ   (R10)(BX*8), X5
	MOVWLZX 44(SI), AX
	MOVL    AX, BX
	ANDL    $511, AX
	SHRL    $9, BX
	VPINSRQ $1, (R9)(AX*8), X4, X4
	VPINSRQ $1, (R10)(BX*8), X5, X5
	MOVWLZX 46(SI), AX
	MOVL    AX, BX
	ANDL    $511, AX
	SHRL    $9, BX
	VMOVQ   (R9)(AX*8), X6
	VMOVQ   (R10)(BX*8), X7
	MOVWLZX 48(SI), AX
	MOVL    AX, BX
	ANDL    $511, AX
	SHRL    $9, BX
	VPINSRQ $1, (R9)(AX*8), X6, X6
	VPINSRQ $1, (R10)(BX*8), X7, X7
	VINSERTI128 $1, X6, Y4, Y4
	VINSERTI128 $1, X7, Y5, Y5
	VMOVDQU    160(DI), Y6
	VPSIGNB    Y5, Y6, Y6
	VPMADDUBSW Y6, Y4, Y6
	VPSHUFB    iq2ScaleSel<>+160(SB), Y11, Y7
	VPMADDWD   Y7, Y6, Y2
	VPHADDD Y2, Y1, Y9

	// block 6
	MOVWLZX 50(SI), AX
	MOVL    AX, BX
	ANDL    $511, AX
	SHRL    $9, BX
	VMOVQ   (R9)(AX*8), X4
	VMOVQ   (R10)(BX*8), X5
	MOVWLZX 52(SI), AX
	MOVL    AX, BX
	ANDL    $511, AX
	SHRL    $9, BX
	VPINSRQ $1, (R9)(AX*8), X4, X4
	VPINSRQ $1, (R10)(BX*8), X5, X5
	MOVWLZX 54(SI), AX
	MOVL    AX, BX
	ANDL    $511, AX
	SHRL    $9, BX
	VMOVQ   (R9)(AX*8), X6
	VMOVQ   (R10)(BX*8), X7
	MOVWLZX 56(SI), AX
	MOVL    AX, BX
	ANDL    $511, AX
	SHRL    $9, BX
	VPINSRQ $1, (R9)(AX*8), X6, X6
	VPINSRQ $1, (R10)(BX*8), X7, X7
	VINSERTI128 $1, X6, Y4, Y4
	VINSERTI128 $1, X7, Y5, Y5
	VMOVDQU    192(DI), Y6
	VPSIGNB    Y5, Y6, Y6
	VPMADDUBSW Y6, Y4, Y6
	VPSHUFB    iq2ScaleSel<>+192(SB), Y11, Y7
	VPMADDWD   Y7, Y6, Y1

	// block 7
	MOVWLZX 58(SI), AX
	MOVL    AX, BX
	ANDL    $511, AX
	SHRL    $9, BX
	VMOVQ   (R9)(AX*8), X4
	VMOVQ   (R10)(BX*8), X5
	MOVWLZX 60(SI), AX
	MOVL    AX, BX
	ANDL    $511, AX
	SHRL    $9, BX
	VPINSRQ $1, (R9)(AX*8), X4, X4
	VPINSRQ $1, (R10)(BX*8), X5, X5
	MOVWLZX 62(SI), AX
	MOVL    AX, BX
	ANDL    $511, AX
	SHRL    $9, BX
	VMOVQ   (R9)(AX*8), X6
	VMOVQ   (R10)(BX*8), X7
	MOVWLZX 64(SI), AX
	MOVL    AX, BX
	ANDL    $511, AX
	SHRL    $9, BX
	VPINSRQ $1, (R9)(AX*8), X6, X6
	VPINSRQ $1, (R10)(BX*8), X7, X7
	VINSERTI128 $1, X6, Y4, Y4
	VINSERTI128 $1, X7, Y5, Y5
	VMOVDQU    224(DI), Y6
	VPSIGNB    Y5, Y6, Y6
	VPMADDUBSW Y6, Y4, Y6
	VPSHUFB    iq2ScaleSel<>+224(SB), Y11, Y7
	VPMADDWD   Y7, Y6, Y2
	VPHADDD Y2, Y1, Y10
	VPHADDD Y10, Y9, Y9

	// Lanes of Y8: blocks 0…3, of Y9: 4…7, each half a sum.
	VPERM2I128 $0x20, Y9, Y8, Y1
	VPERM2I128 $0x31, Y9, Y8, Y2
	VPADDD     Y2, Y1, Y1
	VCVTDQ2PS  Y1, Y1
	VPBROADCASTW 0(SI), X2
	VCVTPH2PS  X2, Y2
	VMULPS     iq2Eighth<>(SB), Y2, Y2
	VMULPS     (R8), Y2, Y2
	VFMADD231PS Y2, Y1, Y0
	
	ADDQ $74, SI
	ADDQ $256, DI
	ADDQ $32, R8
	DECQ CX
	JMP  iq2xsloop

iq2xsdone:
	IQ2HSUM
	VMOVSS X0, (R13)
	ADDQ   $4, R13
	JMP    iq2xsrow

iq2xsend:
	VZEROUPPER
	RET

// ---------------------------------------------------------------------------
// IQ2_S

// func dotIQ2SRowsAVX2(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32)
//
// Per activation block b: d/8·dx_b·(its exact int32 sum) (dotIQ2SGo).
TEXT ·dotIQ2SRowsAVX2(SB), NOSPLIT, $8-48
	MOVQ  w+0(FP), SI
	MOVQ  out+40(FP), R13
	MOVQ  nsb+24(FP), AX
	IMULQ $82, AX
	IMULQ rows+32(FP), AX
	ADDQ  SI, AX
	MOVQ  AX, end-8(SP)
	LEAQ  ·iq2s_grid(SB), R9
	LEAQ  ·iq2SignRuns(SB), R10
	VMOVDQU iq2SignSel<>(SB), Y13
	VMOVDQU iq2Bits<>(SB), Y14
	VMOVDQU iq2Bytes1<>(SB), Y12

iq2srow:
	CMPQ   SI, end-8(SP)
	JAE    iq2send
	MOVQ   xq+8(FP), DI
	MOVQ   xd+16(FP), R8
	MOVQ   nsb+24(FP), CX
	VXORPS Y0, Y0, Y0

iq2sloop:
	TESTQ      CX, CX
	JEQ        iq2sdone
	PREFETCHT0 IQ2PF(SI)
	PREFETCHT0 IQ2PF+64(SI)

	// 2·ls + 1 of the sixteen halves, as bytes in both lanes.
	VMOVQ   74(SI), X11
	VPSRLW  $4, X11, X3
	VPUNPCKLBW X3, X11, X11
	VPAND   iq2Mask0F<>(SB), X11, X11
	VPADDB  X11, X11, X11
	VPOR    iq2Bytes1<>(SB), X11, X11
	VINSERTI128 $1, X11, Y11, Y11

	// block 0
	MOVBLZX 2(SI), AX
	MOVBLZX 66(SI), BX
	SHLL    $8, BX
	ANDL    $0x300, BX
	ORL     BX, AX
	VMOVQ   (R9)(AX*8), X4
	MOVBLZX 3(SI), AX
	MOVBLZX 66(SI), BX
	SHLL    $6, BX
	ANDL    $0x300, BX
	ORL     BX, AX
	VPINSRQ $1, (R9)(AX*8), X4, X4
	MOVBLZX 4(SI), AX
	MOVBLZX 66(SI), BX
	SHLL    $4, BX
	ANDL    $0x300, BX
	ORL     BX, AX
	VMOVQ   (R9)(AX*8), X6
	MOVBLZX 5(SI), AX
	MOVBLZX 66(SI), BX
	SHLL    $2, BX
	ANDL    $0x300, BX
	ORL     BX, AX
	VPINSRQ $1, (R9)(AX*8), X6, X6
	VINSERTI128 $1, X6, Y4, Y4
	VPBROADCASTD 34(SI), Y5
	VPSHUFB Y13, Y5, Y5
	VPAND   Y14, Y5, Y5
	VPCMPEQB Y14, Y5, Y5
	VPOR    Y12, Y5, Y5
	VMOVDQU    0(DI), Y6
	VPSIGNB    Y5, Y6, Y6
	VPMADDUBSW Y6, Y4, Y6
	VPSHUFB    iq2ScaleSel<>+0(SB), Y11, Y7
	VPMADDWD   Y7, Y6, Y1

	// block 1
	MOVBLZX 6(SI), AX
	MOVBLZX 67(SI), BX
	SHLL    $8, BX
	ANDL    $0x300, BX
	ORL     BX, AX
	VMOVQ   (R9)(AX*8), X4
	MOVBLZX 7(SI), AX
	MOVBLZX 67(SI), BX
	SHLL    $6, BX
	ANDL    $0x300, BX
	ORL     BX, AX
	VPINSRQ $1, (R9)(AX*8), X4, X4
	MOVBLZX 8(SI), AX
	MOVBLZX 67(SI), BX
	SHLL    $4, BX
	ANDL    $0x300, BX
	ORL     BX, AX
	VMOVQ   (R9)(AX*8), X6
	MOVBLZX 9(SI), AX
	MOVBLZX 67(SI), BX
	SHLL    $2, BX
	ANDL    $0x300, BX
	ORL     BX, AX
	VPINSRQ $1, (R9)(AX*8), X6, X6
	VINSERTI128 $1, X6, Y4, Y4
	VPBROADCASTD 38(SI), Y5
	VPSHUFB Y13, Y5, Y5
	VPAND   Y14, Y5, Y5
	VPCMPEQB Y14, Y5, Y5
	VPOR    Y12, Y5, Y5
	VMOVDQU    32(DI), Y6
	VPSIGNB    Y5, Y6, Y6
	VPMADDUBSW Y6, Y4, Y6
	VPSHUFB    iq2ScaleSel<>+32(SB), Y11, Y7
	VPMADDWD   Y7, Y6, Y2
	VPHADDD Y2, Y1, Y8

	// block 2
	MOVBLZX 10(SI), AX
	MOVBLZX 68(SI), BX
	SHLL    $8, BX
	ANDL    $0x300, BX
	ORL     BX, AX
	VMOVQ   (R9)(AX*8), X4
	MOVBLZX 11(SI), AX
	MOVBLZX 68(SI), BX
	SHLL    $6, BX
	ANDL    $0x300, BX
	ORL     BX, AX
	VPINSRQ $1, (R9)(AX*8), X4, X4
	MOVBLZX 12(SI), AX
	MOVBLZX 68(SI), BX
	SHLL    $4, BX
	ANDL    $0x300, BX
	ORL     BX, AX
	VMOVQ   (R9)(AX*8), X6
	MOVBLZX 13(SI), AX
	MOVBLZX 68(SI), BX
	SHLL    $2, BX
	ANDL    $0x300, BX
	ORL     BX, AX
	VPINSRQ $1, (R9)(AX*8), X6, X6
	VINSERTI128 $1, X6, Y4, Y4
	VPBROADCASTD 42(SI), Y5
	VPSHUFB Y13, Y5, Y5
	VPAND   Y14, Y5, Y5
	VPCMPEQB Y14, Y5, Y5
	VPOR    Y12, Y5, Y5
	VMOVDQU    64(DI), Y6
	VPSIGNB    Y5, Y6, Y6
	VPMADDUBSW Y6, Y4, Y6
	VPSHUFB    iq2ScaleSel<>+64(SB), Y11, Y7
	VPMADDWD   Y7, Y6, Y1

	// block 3
	MOVBLZX 14(SI), AX
	MOVBLZX 69(SI), BX
	SHLL    $8, BX
	ANDL    $0x300, BX
	ORL     BX, AX
	VMOVQ   (R9)(AX*8), X4
	MOVBLZX 15(SI), AX
	MOVBLZX 69(SI), BX
	SHLL    $6, BX
	ANDL    $0x300, BX
	ORL     BX, AX
	VPINSRQ $1, (R9)(AX*8), X4, X4
	MOVBLZX 16(SI), AX
	MOVBLZX 69(SI), BX
	SHLL    $4, BX
	ANDL    $0x300, BX
	ORL     BX, AX
	VMOVQ   (R9)(AX*8), X6
	MOVBLZX 17(SI), AX
	MOVBLZX 69(SI), BX
	SHLL    $2, BX
	ANDL    $0x300, BX
	ORL     BX, AX
	VPINSRQ $1, (R9)(AX*8), X6, X6
	VINSERTI128 $1, X6, Y4, Y4
	VPBROADCASTD 46(SI), Y5
	VPSHUFB Y13, Y5, Y5
	VPAND   Y14, Y5, Y5
	VPCMPEQB Y14, Y5, Y5
	VPOR    Y12, Y5, Y5
	VMOVDQU    96(DI), Y6
	VPSIGNB    Y5, Y6, Y6
	VPMADDUBSW Y6, Y4, Y6
	VPSHUFB    iq2ScaleSel<>+96(SB), Y11, Y7
	VPMADDWD   Y7, Y6, Y2
	VPHADDD Y2, Y1, Y9
	VPHADDD Y9, Y8, Y8

	// block 4
	MOVBLZX 18(SI), AX
	MOVBLZX 70(SI), BX
	SHLL    $8, BX
	ANDL    $0x300, BX
	ORL     BX, AX
	VMOVQ   (R9)(AX*8), X4
	MOVBLZX 19(SI), AX
	MOVBLZX 70(SI), BX
	SHLL    $6, BX
	ANDL    $0x300, BX
	ORL     BX, AX
	VPINSRQ $1, (R9)(AX*8), X4, X4
	MOVBLZX 20(SI), AX
	MOVBLZX 70(SI), BX
	SHLL    $4, BX
	ANDL    $0x300, BX
	ORL     BX, AX
	VMOVQ   (R9)(AX*8), X6
	MOVBLZX 21(SI), AX
	MOVBLZX 70(SI), BX
	SHLL    $2, BX
	ANDL    $0x300, BX
	ORL     BX, AX
	VPINSRQ $1, (R9)(AX*8), X6, X6
	VINSERTI128 $1, X6, Y4, Y4
	VPBROADCASTD 50(SI), Y5
	VPSHUFB Y13, Y5, Y5
	VPAND   Y14, Y5, Y5
	VPCMPEQB Y14, Y5, Y5
	VPOR    Y12, Y5, Y5
	VMOVDQU    128(DI), Y6
	VPSIGNB    Y5, Y6, Y6
	VPMADDUBSW Y6, Y4, Y6
	VPSHUFB    iq2ScaleSel<>+128(SB), Y11, Y7
	VPMADDWD   Y7, Y6, Y1

	// block 5
	MOVBLZX 22(SI), AX
	MOVBLZX 71(SI), BX
	SHLL    $8, BX
	ANDL    $0x300, BX
	ORL     BX, AX
	VMOVQ   (R9)(AX*8), X4
	MOVBLZX 23(SI), AX
	MOVBLZX 71(SI), BX
	SHLL    $6, BX
	ANDL    $0x300, BX
	ORL     BX, AX
	VPINSRQ $1, (R9)(AX*8), X4, X4
	MOVBLZX 24(SI), AX
	MOVBLZX 71(SI), BX
	SHLL    $4, BX
	ANDL    $0x300, BX
	ORL     BX, AX
	VMOVQ   (R9)(AX*8), X6
	MOVBLZX 25(SI), AX
	MOVBLZX 71(SI), BX
	SHLL    $2, BX
	ANDL    $0x300, BX
	ORL     BX, AX
	VPINSRQ $1, (R9)(AX*8), X6, X6
	VINSERTI128 $1, X6, Y4, Y4
	VPBROADCASTD 54(SI), Y5
	VPSHUFB Y13, Y5, Y5
	VPAND   Y14, Y5, Y5
	VPCMPEQB Y14, Y5, Y5
	VPOR    Y12, Y5, Y5
	VMOVDQU    160(DI), Y6
	VPSIGNB    Y5, Y6, Y6
	VPMADDUBSW Y6, Y4, Y6
	VPSHUFB    iq2ScaleSel<>+160(SB), Y11, Y7
	VPMADDWD   Y7, Y6, Y2
	VPHADDD Y2, Y1, Y9

	// block 6
	MOVBLZX 26(SI), AX
	MOVBLZX 72(SI), BX
	SHLL    $8, BX
	ANDL    $0x300, BX
	ORL     BX, AX
	VMOVQ   (R9)(AX*8), X4
	MOVBLZX 27(SI), AX
	MOVBLZX 72(SI), BX
	SHLL    $6, BX
	ANDL    $0x300, BX
	ORL     BX, AX
	VPINSRQ $1, (R9)(AX*8), X4, X4
	MOVBLZX 28(SI), AX
	MOVBLZX 72(SI), BX
	SHLL    $4, BX
	ANDL    $0x300, BX
	ORL     BX, AX
	VMOVQ   (R9)(AX*8), X6
	MOVBLZX 29(SI), AX
	MOVBLZX 72(SI), BX
	SHLL    $2, BX
	ANDL    $0x300, BX
	ORL     BX, AX
	VPINSRQ $1, (R9)(AX*8), X6, X6
	VINSERTI128 $1, X6, Y4, Y4
	VPBROADCASTD 58(SI), Y5
	VPSHUFB Y13, Y5, Y5
	VPAND   Y14, Y5, Y5
	VPCMPEQB Y14, Y5, Y5
	VPOR    Y12, Y5, Y5
	VMOVDQU    192(DI), Y6
	VPSIGNB    Y5, Y6, Y6
	VPMADDUBSW Y6, Y4, Y6
	VPSHUFB    iq2ScaleSel<>+192(SB), Y11, Y7
	VPMADDWD   Y7, Y6, Y1

	// block 7
	MOVBLZX 30(SI), AX
	MOVBLZX 73(SI), BX
	SHLL    $8, BX
	ANDL    $0x300, BX
	ORL     BX, AX
	VMOVQ   (R9)(AX*8), X4
	MOVBLZX 31(SI), AX
	MOVBLZX 73(SI), BX
	SHLL    $6, BX
	ANDL    $0x300, BX
	ORL     BX, AX
	VPINSRQ $1, (R9)(AX*8), X4, X4
	MOVBLZX 32(SI), AX
	MOVBLZX 73(SI), BX
	SHLL    $4, BX
	ANDL    $0x300, BX
	ORL     BX, AX
	VMOVQ   (R9)(AX*8), X6
	MOVBLZX 33(SI), AX
	MOVBLZX 73(SI), BX
	SHLL    $2, BX
	ANDL    $0x300, BX
	ORL     BX, AX
	VPINSRQ $1, (R9)(AX*8), X6, X6
	VINSERTI128 $1, X6, Y4, Y4
	VPBROADCASTD 62(SI), Y5
	VPSHUFB Y13, Y5, Y5
	VPAND   Y14, Y5, Y5
	VPCMPEQB Y14, Y5, Y5
	VPOR    Y12, Y5, Y5
	VMOVDQU    224(DI), Y6
	VPSIGNB    Y5, Y6, Y6
	VPMADDUBSW Y6, Y4, Y6
	VPSHUFB    iq2ScaleSel<>+224(SB), Y11, Y7
	VPMADDWD   Y7, Y6, Y2
	VPHADDD Y2, Y1, Y10
	VPHADDD Y10, Y9, Y9

	// Lanes of Y8: blocks 0…3, of Y9: 4…7, each half a sum.
	VPERM2I128 $0x20, Y9, Y8, Y1
	VPERM2I128 $0x31, Y9, Y8, Y2
	VPADDD     Y2, Y1, Y1
	VCVTDQ2PS  Y1, Y1
	VPBROADCASTW 0(SI), X2
	VCVTPH2PS  X2, Y2
	VMULPS     iq2Eighth<>(SB), Y2, Y2
	VMULPS     (R8), Y2, Y2
	VFMADD231PS Y2, Y1, Y0
	
	ADDQ $82, SI
	ADDQ $256, DI
	ADDQ $32, R8
	DECQ CX
	JMP  iq2sloop

iq2sdone:
	IQ2HSUM
	VMOVSS X0, (R13)
	ADDQ   $4, R13
	JMP    iq2srow

iq2send:
	VZEROUPPER
	RET
