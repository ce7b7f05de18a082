#include "textflag.h"
#include "ahead_amd64.h"
#include "packz_amd64.h"

// Packed IQ1_S and IQ1_M kernels (layout and arithmetic: packiq1.go),
// sixteen rows per ZMM lane, on AVX-512 VNNI. Per block j and run l the
// rows' 11- or 12-bit grid indices are put together (VPMOVZXBD of the
// index bytes, the qh word's high bits shifted and merged by one
// VPTERNLOGD), and two VPGATHERDQ fetch the sixteen rows' 8-byte entries
// of the derived table iq1pTab, row r's eight weights in qword r of the
// first (rows 0…7) or second (rows 8…15) vector. One VPDPBUSD each
// against the run's eight activation codes broadcast as a qword leaves
// row r's sum in dword lanes 2r and 2r+1 of two accumulators (rows 0…7,
// rows 8…15), which two VPERMT2D and a VPADDD fold into one dword per row
// once per block (IQ1_M: per half). The gathers run on the load ports,
// the rest on ports 0 and 5.
//
// A gather merges into its destination and clears its mask as it
// completes, so each one gets a destination zeroed by a dependency-
// breaking VPXORD and a mask set by KXNORB from K7, which nothing writes:
// a mask taken from the previous gather's would chain the gathers.
//
// What bounds them is the gathers: 64 table entries a block and group,
// on random cache lines. On data in L2 (the 2-vCPU Xeon, IQ1_S, one
// thread) the whole decode kernel ran at 7.7–8.5 GB/s of packed bytes and
// its index building and gathers alone at 7.7–8.6, those gathers with all
// indices alike at 11.5; with VPDPBUSD, folds and float work but no
// gathers, 12.4. One VPGATHERDD of 16 four-byte entries a run (the codes
// g+1 of a row's eight weights in two byte planes, VPDPBUSD against
// activation dwords, no folds) ran the gathers alone at 8.8–9.0, but as
// a whole IQ1_S kernel it was slower than this one in alternated runs
// (best 6.9 against 8.4 GB/s), its eight broadcast loads a block taking
// load-port slots from the gathers; not kept.
//
// Z31 the index mask (IQ1_S 0x700, IQ1_M 0xf00), Z30, Z29 the fold's even
// and odd lane indices, Z28 the sixteen floats 2(i&7)+1 (the scale ls by
// VPERMPS of any four bits whose low three are s), Z27 0x8000 (IQ1_S: the
// δ sign bit) or iq1pPerm3 (IQ1_M), R12 the table (IQ1_S: its σ = −1
// half).

DATA iq1pFoldE<>+0(SB)/8, $0x0000000200000000
DATA iq1pFoldE<>+8(SB)/8, $0x0000000600000004
DATA iq1pFoldE<>+16(SB)/8, $0x0000000a00000008
DATA iq1pFoldE<>+24(SB)/8, $0x0000000e0000000c
DATA iq1pFoldE<>+32(SB)/8, $0x0000001200000010
DATA iq1pFoldE<>+40(SB)/8, $0x0000001600000014
DATA iq1pFoldE<>+48(SB)/8, $0x0000001a00000018
DATA iq1pFoldE<>+56(SB)/8, $0x0000001e0000001c
GLOBL iq1pFoldE<>(SB), RODATA|NOPTR, $64

DATA iq1pFoldO<>+0(SB)/8, $0x0000000300000001
DATA iq1pFoldO<>+8(SB)/8, $0x0000000700000005
DATA iq1pFoldO<>+16(SB)/8, $0x0000000b00000009
DATA iq1pFoldO<>+24(SB)/8, $0x0000000f0000000d
DATA iq1pFoldO<>+32(SB)/8, $0x0000001300000011
DATA iq1pFoldO<>+40(SB)/8, $0x0000001700000015
DATA iq1pFoldO<>+48(SB)/8, $0x0000001b00000019
DATA iq1pFoldO<>+56(SB)/8, $0x0000001f0000001d
GLOBL iq1pFoldO<>(SB), RODATA|NOPTR, $64

// 1, 3, 5, …, 15 twice (float32).
DATA iq1pLS<>+0(SB)/8, $0x404000003f800000
DATA iq1pLS<>+8(SB)/8, $0x40e0000040a00000
DATA iq1pLS<>+16(SB)/8, $0x4130000041100000
DATA iq1pLS<>+24(SB)/8, $0x4170000041500000
DATA iq1pLS<>+32(SB)/8, $0x404000003f800000
DATA iq1pLS<>+40(SB)/8, $0x40e0000040a00000
DATA iq1pLS<>+48(SB)/8, $0x4130000041100000
DATA iq1pLS<>+56(SB)/8, $0x4170000041500000
GLOBL iq1pLS<>(SB), RODATA|NOPTR, $64

DATA iq1pEighth<>+0(SB)/4, $0x3e000000
GLOBL iq1pEighth<>(SB), RODATA|NOPTR, $4
DATA iq1pC700<>+0(SB)/4, $0x700
GLOBL iq1pC700<>(SB), RODATA|NOPTR, $4
DATA iq1pCF00<>+0(SB)/4, $0xf00
GLOBL iq1pCF00<>(SB), RODATA|NOPTR, $4
DATA iq1pC8000<>+0(SB)/4, $0x8000
GLOBL iq1pC8000<>(SB), RODATA|NOPTR, $4

// Byte 4r+k of dword r ← byte 3r+k (k = 0…2; byte 3 a copy of byte 2):
// IQ1_M's 24-bit scale units of sixteen rows into dwords.
DATA iq1pPerm3<>+0(SB)/8, $0x0505040302020100
DATA iq1pPerm3<>+8(SB)/8, $0x0b0b0a0908080706
DATA iq1pPerm3<>+16(SB)/8, $0x1111100f0e0e0d0c
DATA iq1pPerm3<>+24(SB)/8, $0x1717161514141312
DATA iq1pPerm3<>+32(SB)/8, $0x1d1d1c1b1a1a1918
DATA iq1pPerm3<>+40(SB)/8, $0x2323222120201f1e
DATA iq1pPerm3<>+48(SB)/8, $0x2929282726262524
DATA iq1pPerm3<>+56(SB)/8, $0x2f2f2e2d2c2c2b2a
GLOBL iq1pPerm3<>(SB), RODATA|NOPTR, $64

DATA iq1pC80<>+0(SB)/4, $0x80808080
GLOBL iq1pC80<>(SB), RODATA|NOPTR, $4
// 9·2048: VPSADBW's sums of sixteen codes plus 128 carry 2048, times 9.
DATA iq1pC18432<>+0(SB)/8, $18432
GLOBL iq1pC18432<>(SB), RODATA|NOPTR, $8

// IQ1PGATHER gathers the 8-byte table entries of the sixteen rows whose
// indices are the dwords of zi (yi its low half, yh scratch) into w0 (rows
// 0…7) and w1 (rows 8…15).
#define IQ1PGATHER(zi, yi, yh, w0, w1) \
	VEXTRACTI64X4 $1, zi, yh; \
	VPXORD        w0, w0, w0; \
	KXNORB        K7, K7, K1; \
	VPGATHERDQ    (R12)(yi*8), K1, w0; \
	VPXORD        w1, w1, w1; \
	KXNORB        K7, K7, K3; \
	VPGATHERDQ    (R12)(yh*8), K3, w1

// IQ1SIDX sets zi to the sixteen rows' indices of run l of the IQ1_S block
// at boff(SI) (qh words in Z9): index byte | qh's bits 3l…3l+2 at 8…10,
// which shop $sh takes there.
#define IQ1SIDX(boff, l, shop, sh, zi, tmp) \
	VPMOVZXBD  boff+16*l(SI), zi; \
	shop       $sh, Z9, tmp; \
	VPTERNLOGD $0xf8, Z31, tmp, zi

// IQ1SDEC decodes IQ1_S block j of the group at SI: qh words to Z9, the
// rows' δ signs to K2, their scales ls as floats to Z10, and the eight
// gathered vectors of runs 0…3 to Z11…Z18.
#define IQ1SDEC(j) \
	VPMOVZXWD 96+96*j(SI), Z9; \
	VPTESTMD  Z27, Z9, K2; \
	VPSRLD    $12, Z9, Z10; \
	VPERMPS   Z28, Z10, Z10; \
	IQ1SIDX(32+96*j, 0, VPSLLD, 8, Z25, Z26); \
	IQ1PGATHER(Z25, Y25, Y26, Z11, Z12); \
	IQ1SIDX(32+96*j, 1, VPSLLD, 5, Z25, Z26); \
	IQ1PGATHER(Z25, Y25, Y26, Z13, Z14); \
	IQ1SIDX(32+96*j, 2, VPSLLD, 2, Z25, Z26); \
	IQ1PGATHER(Z25, Y25, Y26, Z15, Z16); \
	IQ1SIDX(32+96*j, 3, VPSRLD, 1, Z25, Z26); \
	IQ1PGATHER(Z25, Y25, Y26, Z17, Z18)

// IQ1PRUN adds run l's two gathered vectors w0, w1 times the token's
// eight activation codes at xoff(xr) (broadcast into x) to the pair
// accumulators a (rows 0…7) and b (rows 8…15).
#define IQ1PRUN(xr, xoff, x, w0, w1, a, b) \
	VPBROADCASTQ xoff(xr), x; \
	VPDPBUSD     x, w0, a; \
	VPDPBUSD     x, w1, b

// IQ1PFOLD sums lanes 2r and 2r+1 of a (rows 0…7) and b (rows 8…15) into
// lane r of a (16 rows); t is scratch.
#define IQ1PFOLD(a, b, t) \
	VMOVDQA64 a, t; \
	VPERMT2D  b, Z30, t; \
	VPERMT2D  b, Z29, a; \
	VPADDD    t, a, a

// IQ1SINT sets a to float(ls·P) of one token's IQ1_S block j over the
// decoded block (codes at xr, m8 at maddr): P from −Σx·(8 − σ), 7n or 9n
// by the row's sign, plus the pair accumulators' fold. b, x, t0, t1 are
// scratch.
#define IQ1SINT(j, xr, maddr, a, b, x, t0, t1) \
	VPXORD        a, a, a; \
	VPXORD        b, b, b; \
	IQ1PRUN(xr, 32*j, x, Z11, Z12, a, b); \
	IQ1PRUN(xr, 32*j+8, x, Z13, Z14, a, b); \
	IQ1PRUN(xr, 32*j+16, x, Z15, Z16, a, b); \
	IQ1PRUN(xr, 32*j+24, x, Z17, Z18, a, b); \
	IQ1PFOLD(a, b, t0); \
	VPBROADCASTD  maddr, x; \
	VPSRAD        $3, x, t0; \
	VPADDD        t0, x, t1; \
	VPSUBD        t0, x, x; \
	VPBLENDMD     t1, x, K2, x; \
	VPADDD        x, a, a; \
	VCVTDQ2PS     a, a; \
	VMULPS        Z10, a, a

// IQ1SBLK1 is IQ1SDEC plus the decode kernel's one token (codes at DI, m8
// at R9, block scales at R10; d/8 in Z8) into acc.
#define IQ1SBLK1(j, acc) \
	IQ1SDEC(j); \
	IQ1SINT(j, DI, 4*j(R9), Z19, Z20, Z21, Z22, Z23); \
	VMULPS.BCST 4*j(R10), Z8, Z24; \
	VFMADD231PS Z19, Z24, acc

#define IQ1PCONSTS \
	VMOVDQU32    iq1pFoldE<>(SB), Z30; \
	VMOVDQU32    iq1pFoldO<>(SB), Z29; \
	VMOVUPS      iq1pLS<>(SB), Z28; \
	VPBROADCASTD iq1pC8000<>(SB), Z27

// IQ1PD8 sets dv to the group's sixteen d/8 (f16 at SI), as the
// GGUF-layout kernel scales them: f32(d)·0.125.
#define IQ1PD8(dv) \
	VCVTPH2PS   (SI), dv; \
	VMULPS.BCST iq1pEighth<>(SB), dv, dv

// IQ1SBLK4 is block j of the prefill kernel: IQ1SDEC once, then the four
// tokens (codes at DI, R11, R14, R15; m8 and block scales DX bytes apart,
// BX = 3·DX) each into its accumulator in the frame, token t's block j at
// 512t+64j.
#define IQ1SBLK4(j) \
	IQ1SDEC(j); \
	IQ1SINT(j, DI, 4*j(R9), Z0, Z1, Z2, Z3, Z4); \
	VMULPS.BCST 4*j(R10), Z8, Z5; \
	VFMADD213PS 64*j(SP), Z5, Z0; \
	VMOVUPS     Z0, 64*j(SP); \
	IQ1SINT(j, R11, 4*j(R9)(DX*1), Z19, Z20, Z21, Z22, Z23); \
	VMULPS.BCST 4*j(R10)(DX*1), Z8, Z24; \
	VFMADD213PS 512+64*j(SP), Z24, Z19; \
	VMOVUPS     Z19, 512+64*j(SP); \
	IQ1SINT(j, R14, 4*j(R9)(DX*2), Z0, Z1, Z2, Z3, Z4); \
	VMULPS.BCST 4*j(R10)(DX*2), Z8, Z5; \
	VFMADD213PS 1024+64*j(SP), Z5, Z0; \
	VMOVUPS     Z0, 1024+64*j(SP); \
	IQ1SINT(j, R15, 4*j(R9)(BX*1), Z19, Z20, Z21, Z22, Z23); \
	VMULPS.BCST 4*j(R10)(BX*1), Z8, Z24; \
	VFMADD213PS 1536+64*j(SP), Z24, Z19; \
	VMOVUPS     Z19, 1536+64*j(SP)

// IQ1PG4INIT points DI, R11, R14, R15 at the four tokens' codes, R9 at
// m8, R10 at the block scales, CX the super-blocks, and clears the
// thirty-two accumulators in the frame.
#define IQ1PG4INIT \
	MOVQ    xq+8(FP), DI; \
	MOVQ    nsb+32(FP), AX; \
	SHLQ    $8, AX; \
	LEAQ    (DI)(AX*1), R11; \
	LEAQ    (R11)(AX*1), R14; \
	LEAQ    (R14)(AX*1), R15; \
	MOVQ    m8+16(FP), R9; \
	MOVQ    xd+24(FP), R10; \
	MOVQ    nsb+32(FP), CX; \
	VPXORD  Z0, Z0, Z0; \
	VMOVUPS Z0, 0(SP); \
	VMOVUPS Z0, 64(SP); \
	VMOVUPS Z0, 128(SP); \
	VMOVUPS Z0, 192(SP); \
	VMOVUPS Z0, 256(SP); \
	VMOVUPS Z0, 320(SP); \
	VMOVUPS Z0, 384(SP); \
	VMOVUPS Z0, 448(SP); \
	VMOVUPS Z0, 512(SP); \
	VMOVUPS Z0, 576(SP); \
	VMOVUPS Z0, 640(SP); \
	VMOVUPS Z0, 704(SP); \
	VMOVUPS Z0, 768(SP); \
	VMOVUPS Z0, 832(SP); \
	VMOVUPS Z0, 896(SP); \
	VMOVUPS Z0, 960(SP); \
	VMOVUPS Z0, 1024(SP); \
	VMOVUPS Z0, 1088(SP); \
	VMOVUPS Z0, 1152(SP); \
	VMOVUPS Z0, 1216(SP); \
	VMOVUPS Z0, 1280(SP); \
	VMOVUPS Z0, 1344(SP); \
	VMOVUPS Z0, 1408(SP); \
	VMOVUPS Z0, 1472(SP); \
	VMOVUPS Z0, 1536(SP); \
	VMOVUPS Z0, 1600(SP); \
	VMOVUPS Z0, 1664(SP); \
	VMOVUPS Z0, 1728(SP); \
	VMOVUPS Z0, 1792(SP); \
	VMOVUPS Z0, 1856(SP); \
	VMOVUPS Z0, 1920(SP); \
	VMOVUPS Z0, 1984(SP)

// IQ1PG4NEXT steps the token pointers to the next super-block.
#define IQ1PG4NEXT \
	ADDQ $256, DI; \
	ADDQ $256, R11; \
	ADDQ $256, R14; \
	ADDQ $256, R15; \
	ADDQ $32, R9; \
	ADDQ $32, R10

// IQ1PG4STORE stores the four tokens' sums of a group at R13 (ostride
// floats apart) and steps R13 to the next group's.
#define IQ1PG4STORE \
	MOVQ ostride+56(FP), AX; \
	SHLQ $2, AX; \
	PF4HSUM8(0, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)


// IQ1MIDX sets zi to the sixteen rows' 12-bit indices of run l of the
// IQ1_M block at boff(SI) (qh words in Z9): index byte | qh's nibble l
// (three high bits and the δ sign, the table's s) at 8…11, which shop $sh
// takes there (run 2's is there already: IQ1MIDX2).
#define IQ1MIDX(boff, l, shop, sh, zi, tmp) \
	VPMOVZXBD  boff+16*l(SI), zi; \
	shop       $sh, Z9, tmp; \
	VPTERNLOGD $0xf8, Z31, tmp, zi

#define IQ1MIDX2(boff, zi) \
	VPMOVZXBD  boff+32(SI), zi; \
	VPTERNLOGD $0xf8, Z31, Z9, zi

// IQ1MDEC decodes IQ1_M block j of the group at SI: qh words to Z9, the
// eight gathered vectors of runs 0…3 to Z11…Z18, and the rows' scales
// of the block's halves as floats to Z25 and Z26 from the scale dwords
// saved at soff(SP) (blocks 0…3) and soff+64(SP) (blocks 4…7).
#define IQ1MDEC(j, soff) \
	VPMOVZXWD 192+96*j(SI), Z9; \
	IQ1MIDX(128+96*j, 0, VPSLLD, 8, Z25, Z26); \
	IQ1PGATHER(Z25, Y25, Y26, Z11, Z12); \
	IQ1MIDX(128+96*j, 1, VPSLLD, 4, Z25, Z26); \
	IQ1PGATHER(Z25, Y25, Y26, Z13, Z14); \
	IQ1MIDX2(128+96*j, Z25); \
	IQ1PGATHER(Z25, Y25, Y26, Z15, Z16); \
	IQ1MIDX(128+96*j, 3, VPSRLD, 4, Z25, Z26); \
	IQ1PGATHER(Z25, Y25, Y26, Z17, Z18); \
	VPSRLD    $(6*(j%4)), soff+64*(j/4)(SP), Z25; \
	VPERMPS   Z28, Z25, Z25; \
	VPSRLD    $(6*(j%4)+3), soff+64*(j/4)(SP), Z26; \
	VPERMPS   Z28, Z26, Z26

// IQ1MINT sets c to float(ls_a·P_a + ls_b·P_b) of one token's IQ1_M block
// j over the decoded block (codes at xr; 9·Σx of the block's halves at
// coff+32j(SP) and coff+32j+16(SP)): P_h the fold of the pair
// accumulators a, b (half a) and c, d (half b) less 9·Σ_h x, and the sum
// one exact FMA. x, t are scratch.
#define IQ1MINT(j, xr, coff, a, b, c, d, x, t) \
	VPXORD      a, a, a; \
	VPXORD      b, b, b; \
	VPXORD      c, c, c; \
	VPXORD      d, d, d; \
	IQ1PRUN(xr, 32*j, x, Z11, Z12, a, b); \
	IQ1PRUN(xr, 32*j+8, x, Z13, Z14, a, b); \
	IQ1PRUN(xr, 32*j+16, x, Z15, Z16, c, d); \
	IQ1PRUN(xr, 32*j+24, x, Z17, Z18, c, d); \
	IQ1PFOLD(a, b, t); \
	IQ1PFOLD(c, d, t); \
	VPSUBD.BCST coff+32*j(SP), a, a; \
	VPSUBD.BCST coff+32*j+16(SP), c, c; \
	VCVTDQ2PS   a, a; \
	VCVTDQ2PS   c, c; \
	VMULPS      Z26, c, c; \
	VFMADD231PS Z25, a, c

// IQ1MHALF stores 9·Σx of each 16-code half of one token's super-block
// (codes at xr) at off(SP): half h of block j at off+32j+16h, from
// VPSADBW of the codes plus 128 (Σ(x+128) of eight codes a qword), the
// qword pairs of each 128-bit lane added. Clobbers Z19…Z21.
#define IQ1MHALF1(xr, m, off) \
	VMOVDQU64    64*m(xr), Z19; \
	VPXORD.BCST  iq1pC80<>(SB), Z19, Z19; \
	VPSADBW      Z21, Z19, Z19; \
	VPSHUFD      $0x4e, Z19, Z20; \
	VPADDQ       Z20, Z19, Z19; \
	VPSLLQ       $3, Z19, Z20; \
	VPADDQ       Z20, Z19, Z19; \
	VPSUBQ.BCST  iq1pC18432<>(SB), Z19, Z19; \
	VMOVDQU64    Z19, off+64*m(SP)

#define IQ1MHALF(xr, off) \
	VPXORD Z21, Z21, Z21; \
	IQ1MHALF1(xr, 0, off); \
	IQ1MHALF1(xr, 1, off); \
	IQ1MHALF1(xr, 2, off); \
	IQ1MHALF1(xr, 3, off)

// IQ1MSC saves the group's scale dwords at soff(SP): row r's 24 bits of
// blocks 0…3 (bytes 32+3r…) in dword r of the first vector, of blocks
// 4…7 (bytes 80+3r…) in the second; Z27 the byte permutation.
#define IQ1MSC(soff) \
	VPERMB    32(SI), Z27, Z19; \
	VMOVDQU64 Z19, soff(SP); \
	VPERMB    80(SI), Z27, Z19; \
	VMOVDQU64 Z19, soff+64(SP)

// IQ1MBLK1 is block j of the decode kernel (codes at DI, block scales at
// R10, half sums at 0(SP), scale dwords at 256(SP); d/8 in Z8) into acc.
#define IQ1MBLK1(j, acc) \
	IQ1MDEC(j, 256); \
	IQ1MINT(j, DI, 0, Z19, Z20, Z21, Z22, Z23, Z24); \
	VMULPS.BCST 4*j(R10), Z8, Z24; \
	VFMADD231PS Z21, Z24, acc

#define IQ1MCONSTS \
	IQ1PCONSTS; \
	VMOVDQU64    iq1pPerm3<>(SB), Z27; \
	VPBROADCASTD iq1pCF00<>(SB), Z31; \
	LEAQ         iq1pTab<>(SB), R12

// IQ1MBLK4 is block j of the prefill kernel: IQ1MDEC once, then the four
// tokens (codes at DI, R11, R14, R15, half sums at 2048+256t(SP), block
// scales DX bytes apart, BX = 3·DX) each into its accumulator in the
// frame, token t's block j at 512t+64j.
#define IQ1MBLK4(j) \
	IQ1MDEC(j, 3072); \
	IQ1MINT(j, DI, 2048, Z0, Z1, Z2, Z3, Z4, Z5); \
	VMULPS.BCST 4*j(R10), Z8, Z5; \
	VFMADD213PS 64*j(SP), Z5, Z2; \
	VMOVUPS     Z2, 64*j(SP); \
	IQ1MINT(j, R11, 2304, Z19, Z20, Z21, Z22, Z23, Z24); \
	VMULPS.BCST 4*j(R10)(DX*1), Z8, Z24; \
	VFMADD213PS 512+64*j(SP), Z24, Z21; \
	VMOVUPS     Z21, 512+64*j(SP); \
	IQ1MINT(j, R14, 2560, Z0, Z1, Z2, Z3, Z4, Z5); \
	VMULPS.BCST 4*j(R10)(DX*2), Z8, Z5; \
	VFMADD213PS 1024+64*j(SP), Z5, Z2; \
	VMOVUPS     Z2, 1024+64*j(SP); \
	IQ1MINT(j, R15, 2816, Z19, Z20, Z21, Z22, Z23, Z24); \
	VMULPS.BCST 4*j(R10)(BX*1), Z8, Z24; \
	VFMADD213PS 1536+64*j(SP), Z24, Z21; \
	VMOVUPS     Z21, 1536+64*j(SP)

// func rowsIQ1Sx16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32)
//
// out[r] = row r · x for groups·16 packed rows of nsb super-blocks. SI
// weights, DI codes, R9 m8, R10 block scales, CX super-blocks left, R8
// groups left, R13 out, Z0…Z7 the block accumulators, Z8 the group's d/8.
TEXT ·rowsIQ1Sx16VNNI(SB), NOSPLIT, $0-56
	MOVQ p+0(FP), SI
	MOVQ out+48(FP), R13
	MOVQ groups+40(FP), R8
	IQ1PCONSTS
	VPBROADCASTD iq1pC700<>(SB), Z31
	LEAQ         iq1pTab<>+16384(SB), R12

iq1srgroup:
	TESTQ R8, R8
	JEQ   iq1srend
	MOVQ  xq+8(FP), DI
	MOVQ  m8+16(FP), R9
	MOVQ  xd+24(FP), R10
	MOVQ  nsb+32(FP), CX
	PZERO8(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)

iq1srloop:
	IQ1PD8(Z8)
	PFL8(0)
	PFL4(512)
	PFL(768)
	IQ1SBLK1(0, Z0)
	IQ1SBLK1(1, Z1)
	IQ1SBLK1(2, Z2)
	IQ1SBLK1(3, Z3)
	IQ1SBLK1(4, Z4)
	IQ1SBLK1(5, Z5)
	IQ1SBLK1(6, Z6)
	IQ1SBLK1(7, Z7)
	ADDQ $800, SI
	ADDQ $256, DI
	ADDQ $32, R9
	ADDQ $32, R10
	DECQ CX
	JNZ  iq1srloop

	PHSUM8(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	VMOVUPS Z0, (R13)
	ADDQ    $64, R13
	DECQ    R8
	JMP     iq1srgroup

iq1srend:
	VZEROUPPER
	RET

// func gemm4IQ1Sx16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32, ostride int)
//
// Not NOSPLIT: its 2 KiB frame is more than a nosplit function may take.
// out[t·ostride + r] = row r · token t for groups·16 packed rows and four
// tokens whose codes are xq + t·256·nsb, m8 m8 + t·8·nsb and block scales
// xd + t·8·nsb. Each block is decoded (gathered) once for the four
// tokens; their thirty-two block accumulators live in the frame.
TEXT ·gemm4IQ1Sx16VNNI(SB), 0, $2048-64
	MOVQ p+0(FP), SI
	MOVQ nsb+32(FP), DX
	SHLQ $5, DX                   // 8 blocks · 4 bytes per super-block
	LEAQ (DX)(DX*2), BX
	MOVQ out+48(FP), R13
	MOVQ groups+40(FP), R8
	IQ1PCONSTS
	VPBROADCASTD iq1pC700<>(SB), Z31
	LEAQ         iq1pTab<>+16384(SB), R12

iq1sggroup:
	TESTQ R8, R8
	JEQ   iq1sgend
	IQ1PG4INIT

iq1sgloop:
	IQ1PD8(Z8)
	IQ1SBLK4(0)
	IQ1SBLK4(1)
	IQ1SBLK4(2)
	IQ1SBLK4(3)
	IQ1SBLK4(4)
	IQ1SBLK4(5)
	IQ1SBLK4(6)
	IQ1SBLK4(7)
	ADDQ $800, SI
	IQ1PG4NEXT
	DECQ CX
	JNZ  iq1sgloop

	IQ1PG4STORE
	DECQ R8
	JMP  iq1sggroup

iq1sgend:
	VZEROUPPER
	RET

// func rowsIQ1Mx16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32)
//
// out[r] = row r · x for groups·16 packed rows of nsb super-blocks. SI
// weights, DI codes, R10 block scales, CX super-blocks left, R8 groups
// left, R13 out, Z0…Z7 the block accumulators, Z8 the group's d/8; the
// frame holds the super-block's half sums (IQ1MHALF) and the group's
// scale dwords (IQ1MSC). m8 is not read.
TEXT ·rowsIQ1Mx16VNNI(SB), NOSPLIT, $384-56
	MOVQ p+0(FP), SI
	MOVQ out+48(FP), R13
	MOVQ groups+40(FP), R8
	IQ1MCONSTS

iq1mrgroup:
	TESTQ R8, R8
	JEQ   iq1mrend
	MOVQ  xq+8(FP), DI
	MOVQ  xd+24(FP), R10
	MOVQ  nsb+32(FP), CX
	PZERO8(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)

iq1mrloop:
	IQ1PD8(Z8)
	PFL8(0)
	PFL4(512)
	PFL2(768)
	IQ1MHALF(DI, 0)
	IQ1MSC(256)
	IQ1MBLK1(0, Z0)
	IQ1MBLK1(1, Z1)
	IQ1MBLK1(2, Z2)
	IQ1MBLK1(3, Z3)
	IQ1MBLK1(4, Z4)
	IQ1MBLK1(5, Z5)
	IQ1MBLK1(6, Z6)
	IQ1MBLK1(7, Z7)
	ADDQ $896, SI
	ADDQ $256, DI
	ADDQ $32, R10
	DECQ CX
	JNZ  iq1mrloop

	PHSUM8(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	VMOVUPS Z0, (R13)
	ADDQ    $64, R13
	DECQ    R8
	JMP     iq1mrgroup

iq1mrend:
	VZEROUPPER
	RET

// func gemm4IQ1Mx16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32, ostride int)
//
// As gemm4IQ1Sx16VNNI, for IQ1_M: the frame holds the thirty-two block
// accumulators [0, 2048), the four tokens' half sums [2048, 3072) and the
// group's scale dwords [3072, 3200). m8 is not read.
TEXT ·gemm4IQ1Mx16VNNI(SB), 0, $3200-64
	MOVQ p+0(FP), SI
	MOVQ nsb+32(FP), DX
	SHLQ $5, DX                   // 8 blocks · 4 bytes per super-block
	LEAQ (DX)(DX*2), BX
	MOVQ out+48(FP), R13
	MOVQ groups+40(FP), R8
	IQ1MCONSTS

iq1mggroup:
	TESTQ R8, R8
	JEQ   iq1mgend
	IQ1PG4INIT

iq1mgloop:
	IQ1PD8(Z8)
	IQ1MHALF(DI, 2048)
	IQ1MHALF(R11, 2304)
	IQ1MHALF(R14, 2560)
	IQ1MHALF(R15, 2816)
	IQ1MSC(3072)
	IQ1MBLK4(0)
	IQ1MBLK4(1)
	IQ1MBLK4(2)
	IQ1MBLK4(3)
	IQ1MBLK4(4)
	IQ1MBLK4(5)
	IQ1MBLK4(6)
	IQ1MBLK4(7)
	ADDQ $896, SI
	IQ1PG4NEXT
	DECQ CX
	JNZ  iq1mgloop

	IQ1PG4STORE
	DECQ R8
	JMP  iq1mggroup

iq1mgend:
	VZEROUPPER
	RET

// func iq1pTabAt(i int) uint64
TEXT ·iq1pTabAt(SB), NOSPLIT, $0-16
	MOVQ i+0(FP), AX
	LEAQ iq1pTab<>(SB), BX
	MOVQ (BX)(AX*8), AX
	MOVQ AX, ret+8(FP)
	RET

// iq1pTab: entry s·2048 + i holds the bytes 8g + 10 − 2s of the weights g
// of iq1s_grid[i] (packiq1.go; TestPackedIQ1Table checks every entry).
DATA iq1pTab<>+0(SB)/8, $0x0202020202020202
DATA iq1pTab<>+8(SB)/8, $0x0202020202020212
DATA iq1pTab<>+16(SB)/8, $0x0202020202020a0a
DATA iq1pTab<>+24(SB)/8, $0x0202020202021202
DATA iq1pTab<>+32(SB)/8, $0x0202020202021212
DATA iq1pTab<>+40(SB)/8, $0x02020202020a020a
DATA iq1pTab<>+48(SB)/8, $0x02020202020a0a0a
DATA iq1pTab<>+56(SB)/8, $0x0202020202120202
DATA iq1pTab<>+64(SB)/8, $0x0202020202120212
DATA iq1pTab<>+72(SB)/8, $0x0202020202121202
DATA iq1pTab<>+80(SB)/8, $0x0202020202121212
DATA iq1pTab<>+88(SB)/8, $0x020202020a020a0a
DATA iq1pTab<>+96(SB)/8, $0x020202020a0a020a
DATA iq1pTab<>+104(SB)/8, $0x020202020a0a0a02
DATA iq1pTab<>+112(SB)/8, $0x020202020a0a0a12
DATA iq1pTab<>+120(SB)/8, $0x020202020a120a0a
DATA iq1pTab<>+128(SB)/8, $0x0202020212020202
DATA iq1pTab<>+136(SB)/8, $0x0202020212020212
DATA iq1pTab<>+144(SB)/8, $0x0202020212021202
DATA iq1pTab<>+152(SB)/8, $0x0202020212021212
DATA iq1pTab<>+160(SB)/8, $0x02020202120a0a0a
DATA iq1pTab<>+168(SB)/8, $0x0202020212120202
DATA iq1pTab<>+176(SB)/8, $0x0202020212120212
DATA iq1pTab<>+184(SB)/8, $0x0202020212121202
DATA iq1pTab<>+192(SB)/8, $0x0202020212121212
DATA iq1pTab<>+200(SB)/8, $0x0202020a02020a02
DATA iq1pTab<>+208(SB)/8, $0x0202020a02020a0a
DATA iq1pTab<>+216(SB)/8, $0x0202020a020a020a
DATA iq1pTab<>+224(SB)/8, $0x0202020a020a0a02
DATA iq1pTab<>+232(SB)/8, $0x0202020a020a0a12
DATA iq1pTab<>+240(SB)/8, $0x0202020a020a120a
DATA iq1pTab<>+248(SB)/8, $0x0202020a020a1212
DATA iq1pTab<>+256(SB)/8, $0x0202020a02120a0a
DATA iq1pTab<>+264(SB)/8, $0x0202020a0a02020a
DATA iq1pTab<>+272(SB)/8, $0x0202020a0a020a12
DATA iq1pTab<>+280(SB)/8, $0x0202020a0a02120a
DATA iq1pTab<>+288(SB)/8, $0x0202020a0a0a0212
DATA iq1pTab<>+296(SB)/8, $0x0202020a0a0a0a0a
DATA iq1pTab<>+304(SB)/8, $0x0202020a0a0a1212
DATA iq1pTab<>+312(SB)/8, $0x0202020a0a12020a
DATA iq1pTab<>+320(SB)/8, $0x0202020a0a120a02
DATA iq1pTab<>+328(SB)/8, $0x0202020a0a120a12
DATA iq1pTab<>+336(SB)/8, $0x0202020a0a121202
DATA iq1pTab<>+344(SB)/8, $0x0202020a12020a0a
DATA iq1pTab<>+352(SB)/8, $0x0202020a120a020a
DATA iq1pTab<>+360(SB)/8, $0x0202020a120a0a02
DATA iq1pTab<>+368(SB)/8, $0x0202020a120a0a12
DATA iq1pTab<>+376(SB)/8, $0x0202020a12120a0a
DATA iq1pTab<>+384(SB)/8, $0x0202021202020202
DATA iq1pTab<>+392(SB)/8, $0x0202021202020212
DATA iq1pTab<>+400(SB)/8, $0x0202021202021202
DATA iq1pTab<>+408(SB)/8, $0x0202021202021212
DATA iq1pTab<>+416(SB)/8, $0x02020212020a0a0a
DATA iq1pTab<>+424(SB)/8, $0x0202021202120202
DATA iq1pTab<>+432(SB)/8, $0x0202021202120212
DATA iq1pTab<>+440(SB)/8, $0x0202021202121202
DATA iq1pTab<>+448(SB)/8, $0x0202021202121212
DATA iq1pTab<>+456(SB)/8, $0x020202120a020a0a
DATA iq1pTab<>+464(SB)/8, $0x020202120a0a020a
DATA iq1pTab<>+472(SB)/8, $0x020202120a0a120a
DATA iq1pTab<>+480(SB)/8, $0x020202120a120a02
DATA iq1pTab<>+488(SB)/8, $0x020202120a12120a
DATA iq1pTab<>+496(SB)/8, $0x0202021212020202
DATA iq1pTab<>+504(SB)/8, $0x0202021212020212
DATA iq1pTab<>+512(SB)/8, $0x0202021212021202
DATA iq1pTab<>+520(SB)/8, $0x0202021212021212
DATA iq1pTab<>+528(SB)/8, $0x02020212120a020a
DATA iq1pTab<>+536(SB)/8, $0x02020212120a0a0a
DATA iq1pTab<>+544(SB)/8, $0x02020212120a120a
DATA iq1pTab<>+552(SB)/8, $0x0202021212120202
DATA iq1pTab<>+560(SB)/8, $0x0202021212120212
DATA iq1pTab<>+568(SB)/8, $0x0202021212121202
DATA iq1pTab<>+576(SB)/8, $0x0202021212121212
DATA iq1pTab<>+584(SB)/8, $0x02020a02020a020a
DATA iq1pTab<>+592(SB)/8, $0x02020a02020a0a02
DATA iq1pTab<>+600(SB)/8, $0x02020a02020a0a12
DATA iq1pTab<>+608(SB)/8, $0x02020a0202120a0a
DATA iq1pTab<>+616(SB)/8, $0x02020a020a02020a
DATA iq1pTab<>+624(SB)/8, $0x02020a020a02120a
DATA iq1pTab<>+632(SB)/8, $0x02020a020a0a0a0a
DATA iq1pTab<>+640(SB)/8, $0x02020a020a0a1212
DATA iq1pTab<>+648(SB)/8, $0x02020a020a120a02
DATA iq1pTab<>+656(SB)/8, $0x02020a020a120a0a
DATA iq1pTab<>+664(SB)/8, $0x02020a02120a020a
DATA iq1pTab<>+672(SB)/8, $0x02020a02120a120a
DATA iq1pTab<>+680(SB)/8, $0x02020a0212120a0a
DATA iq1pTab<>+688(SB)/8, $0x02020a0a0202020a
DATA iq1pTab<>+696(SB)/8, $0x02020a0a02020a02
DATA iq1pTab<>+704(SB)/8, $0x02020a0a02020a0a
DATA iq1pTab<>+712(SB)/8, $0x02020a0a02020a12
DATA iq1pTab<>+720(SB)/8, $0x02020a0a020a0a0a
DATA iq1pTab<>+728(SB)/8, $0x02020a0a020a1202
DATA iq1pTab<>+736(SB)/8, $0x02020a0a020a1212
DATA iq1pTab<>+744(SB)/8, $0x02020a0a0212120a
DATA iq1pTab<>+752(SB)/8, $0x02020a0a0a020202
DATA iq1pTab<>+760(SB)/8, $0x02020a0a0a020a0a
DATA iq1pTab<>+768(SB)/8, $0x02020a0a0a021212
DATA iq1pTab<>+776(SB)/8, $0x02020a0a0a0a0202
DATA iq1pTab<>+784(SB)/8, $0x02020a0a0a0a020a
DATA iq1pTab<>+792(SB)/8, $0x02020a0a0a0a0a02
DATA iq1pTab<>+800(SB)/8, $0x02020a0a0a0a0a0a
DATA iq1pTab<>+808(SB)/8, $0x02020a0a0a0a0a12
DATA iq1pTab<>+816(SB)/8, $0x02020a0a0a0a120a
DATA iq1pTab<>+824(SB)/8, $0x02020a0a0a120202
DATA iq1pTab<>+832(SB)/8, $0x02020a0a0a120212
DATA iq1pTab<>+840(SB)/8, $0x02020a0a0a120a0a
DATA iq1pTab<>+848(SB)/8, $0x02020a0a0a121202
DATA iq1pTab<>+856(SB)/8, $0x02020a0a0a121212
DATA iq1pTab<>+864(SB)/8, $0x02020a0a1202020a
DATA iq1pTab<>+872(SB)/8, $0x02020a0a120a020a
DATA iq1pTab<>+880(SB)/8, $0x02020a0a120a0a0a
DATA iq1pTab<>+888(SB)/8, $0x02020a0a120a1202
DATA iq1pTab<>+896(SB)/8, $0x02020a0a120a1212
DATA iq1pTab<>+904(SB)/8, $0x02020a0a1212020a
DATA iq1pTab<>+912(SB)/8, $0x02020a0a12120a02
DATA iq1pTab<>+920(SB)/8, $0x02020a0a12120a0a
DATA iq1pTab<>+928(SB)/8, $0x02020a0a12120a12
DATA iq1pTab<>+936(SB)/8, $0x02020a0a1212120a
DATA iq1pTab<>+944(SB)/8, $0x02020a12020a0a02
DATA iq1pTab<>+952(SB)/8, $0x02020a12020a120a
DATA iq1pTab<>+960(SB)/8, $0x02020a120a02020a
DATA iq1pTab<>+968(SB)/8, $0x02020a120a020a02
DATA iq1pTab<>+976(SB)/8, $0x02020a120a0a0202
DATA iq1pTab<>+984(SB)/8, $0x02020a120a0a0212
DATA iq1pTab<>+992(SB)/8, $0x02020a120a0a0a0a
DATA iq1pTab<>+1000(SB)/8, $0x02020a120a0a1202
DATA iq1pTab<>+1008(SB)/8, $0x02020a120a120202
DATA iq1pTab<>+1016(SB)/8, $0x02020a120a12020a
DATA iq1pTab<>+1024(SB)/8, $0x02020a120a120a12
DATA iq1pTab<>+1032(SB)/8, $0x02020a120a12120a
DATA iq1pTab<>+1040(SB)/8, $0x02020a1212020a0a
DATA iq1pTab<>+1048(SB)/8, $0x02020a12120a020a
DATA iq1pTab<>+1056(SB)/8, $0x02020a12120a0a02
DATA iq1pTab<>+1064(SB)/8, $0x02020a12120a120a
DATA iq1pTab<>+1072(SB)/8, $0x0202120202020202
DATA iq1pTab<>+1080(SB)/8, $0x0202120202020212
DATA iq1pTab<>+1088(SB)/8, $0x0202120202021202
DATA iq1pTab<>+1096(SB)/8, $0x0202120202021212
DATA iq1pTab<>+1104(SB)/8, $0x02021202020a0a0a
DATA iq1pTab<>+1112(SB)/8, $0x0202120202120202
DATA iq1pTab<>+1120(SB)/8, $0x0202120202120212
DATA iq1pTab<>+1128(SB)/8, $0x0202120202121202
DATA iq1pTab<>+1136(SB)/8, $0x0202120202121212
DATA iq1pTab<>+1144(SB)/8, $0x020212020a020a0a
DATA iq1pTab<>+1152(SB)/8, $0x020212020a0a020a
DATA iq1pTab<>+1160(SB)/8, $0x020212020a0a0a12
DATA iq1pTab<>+1168(SB)/8, $0x020212020a120a0a
DATA iq1pTab<>+1176(SB)/8, $0x0202120212020202
DATA iq1pTab<>+1184(SB)/8, $0x0202120212020212
DATA iq1pTab<>+1192(SB)/8, $0x0202120212021202
DATA iq1pTab<>+1200(SB)/8, $0x0202120212021212
DATA iq1pTab<>+1208(SB)/8, $0x02021202120a0a0a
DATA iq1pTab<>+1216(SB)/8, $0x0202120212120202
DATA iq1pTab<>+1224(SB)/8, $0x0202120212120212
DATA iq1pTab<>+1232(SB)/8, $0x0202120212121202
DATA iq1pTab<>+1240(SB)/8, $0x0202120212121212
DATA iq1pTab<>+1248(SB)/8, $0x0202120a02020a0a
DATA iq1pTab<>+1256(SB)/8, $0x0202120a020a020a
DATA iq1pTab<>+1264(SB)/8, $0x0202120a020a0a02
DATA iq1pTab<>+1272(SB)/8, $0x0202120a020a120a
DATA iq1pTab<>+1280(SB)/8, $0x0202120a02120a02
DATA iq1pTab<>+1288(SB)/8, $0x0202120a02120a0a
DATA iq1pTab<>+1296(SB)/8, $0x0202120a0a02020a
DATA iq1pTab<>+1304(SB)/8, $0x0202120a0a0a0202
DATA iq1pTab<>+1312(SB)/8, $0x0202120a0a0a020a
DATA iq1pTab<>+1320(SB)/8, $0x0202120a0a0a0a0a
DATA iq1pTab<>+1328(SB)/8, $0x0202120a0a12020a
DATA iq1pTab<>+1336(SB)/8, $0x0202120a0a120a02
DATA iq1pTab<>+1344(SB)/8, $0x0202120a0a12120a
DATA iq1pTab<>+1352(SB)/8, $0x0202120a120a020a
DATA iq1pTab<>+1360(SB)/8, $0x0202120a120a0a02
DATA iq1pTab<>+1368(SB)/8, $0x0202120a120a0a12
DATA iq1pTab<>+1376(SB)/8, $0x0202120a120a120a
DATA iq1pTab<>+1384(SB)/8, $0x0202120a12120a0a
DATA iq1pTab<>+1392(SB)/8, $0x0202121202020202
DATA iq1pTab<>+1400(SB)/8, $0x0202121202020212
DATA iq1pTab<>+1408(SB)/8, $0x0202121202021202
DATA iq1pTab<>+1416(SB)/8, $0x0202121202021212
DATA iq1pTab<>+1424(SB)/8, $0x02021212020a0a0a
DATA iq1pTab<>+1432(SB)/8, $0x0202121202120202
DATA iq1pTab<>+1440(SB)/8, $0x0202121202120212
DATA iq1pTab<>+1448(SB)/8, $0x0202121202121202
DATA iq1pTab<>+1456(SB)/8, $0x0202121202121212
DATA iq1pTab<>+1464(SB)/8, $0x020212120a020a0a
DATA iq1pTab<>+1472(SB)/8, $0x020212120a0a020a
DATA iq1pTab<>+1480(SB)/8, $0x020212120a0a120a
DATA iq1pTab<>+1488(SB)/8, $0x020212120a12020a
DATA iq1pTab<>+1496(SB)/8, $0x020212120a120a0a
DATA iq1pTab<>+1504(SB)/8, $0x0202121212020202
DATA iq1pTab<>+1512(SB)/8, $0x0202121212020212
DATA iq1pTab<>+1520(SB)/8, $0x0202121212020a0a
DATA iq1pTab<>+1528(SB)/8, $0x0202121212021202
DATA iq1pTab<>+1536(SB)/8, $0x0202121212021212
DATA iq1pTab<>+1544(SB)/8, $0x02021212120a0a0a
DATA iq1pTab<>+1552(SB)/8, $0x0202121212120202
DATA iq1pTab<>+1560(SB)/8, $0x0202121212120212
DATA iq1pTab<>+1568(SB)/8, $0x0202121212121202
DATA iq1pTab<>+1576(SB)/8, $0x0202121212121212
DATA iq1pTab<>+1584(SB)/8, $0x020a0202020a0202
DATA iq1pTab<>+1592(SB)/8, $0x020a0202020a020a
DATA iq1pTab<>+1600(SB)/8, $0x020a0202020a0a02
DATA iq1pTab<>+1608(SB)/8, $0x020a0202020a120a
DATA iq1pTab<>+1616(SB)/8, $0x020a020202120a02
DATA iq1pTab<>+1624(SB)/8, $0x020a020202120a0a
DATA iq1pTab<>+1632(SB)/8, $0x020a02020a02020a
DATA iq1pTab<>+1640(SB)/8, $0x020a02020a020a02
DATA iq1pTab<>+1648(SB)/8, $0x020a02020a0a0202
DATA iq1pTab<>+1656(SB)/8, $0x020a02020a0a0a0a
DATA iq1pTab<>+1664(SB)/8, $0x020a02020a0a1202
DATA iq1pTab<>+1672(SB)/8, $0x020a02020a12020a
DATA iq1pTab<>+1680(SB)/8, $0x020a02020a120a02
DATA iq1pTab<>+1688(SB)/8, $0x020a02020a120a0a
DATA iq1pTab<>+1696(SB)/8, $0x020a02020a12120a
DATA iq1pTab<>+1704(SB)/8, $0x020a0202120a020a
DATA iq1pTab<>+1712(SB)/8, $0x020a0202120a0a02
DATA iq1pTab<>+1720(SB)/8, $0x020a0202120a0a12
DATA iq1pTab<>+1728(SB)/8, $0x020a02021212020a
DATA iq1pTab<>+1736(SB)/8, $0x020a020212120a0a
DATA iq1pTab<>+1744(SB)/8, $0x020a020a0202020a
DATA iq1pTab<>+1752(SB)/8, $0x020a020a02020a02
DATA iq1pTab<>+1760(SB)/8, $0x020a020a02020a12
DATA iq1pTab<>+1768(SB)/8, $0x020a020a0202120a
DATA iq1pTab<>+1776(SB)/8, $0x020a020a020a0202
DATA iq1pTab<>+1784(SB)/8, $0x020a020a020a0212
DATA iq1pTab<>+1792(SB)/8, $0x020a020a020a0a0a
DATA iq1pTab<>+1800(SB)/8, $0x020a020a020a1202
DATA iq1pTab<>+1808(SB)/8, $0x020a020a0212020a
DATA iq1pTab<>+1816(SB)/8, $0x020a020a02120a02
DATA iq1pTab<>+1824(SB)/8, $0x020a020a0212120a
DATA iq1pTab<>+1832(SB)/8, $0x020a020a0a020a0a
DATA iq1pTab<>+1840(SB)/8, $0x020a020a0a021212
DATA iq1pTab<>+1848(SB)/8, $0x020a020a0a0a0202
DATA iq1pTab<>+1856(SB)/8, $0x020a020a0a0a020a
DATA iq1pTab<>+1864(SB)/8, $0x020a020a0a0a0212
DATA iq1pTab<>+1872(SB)/8, $0x020a020a0a0a0a02
DATA iq1pTab<>+1880(SB)/8, $0x020a020a0a0a0a0a
DATA iq1pTab<>+1888(SB)/8, $0x020a020a0a0a0a12
DATA iq1pTab<>+1896(SB)/8, $0x020a020a0a0a120a
DATA iq1pTab<>+1904(SB)/8, $0x020a020a0a120202
DATA iq1pTab<>+1912(SB)/8, $0x020a020a0a120a0a
DATA iq1pTab<>+1920(SB)/8, $0x020a020a12020a02
DATA iq1pTab<>+1928(SB)/8, $0x020a020a120a0212
DATA iq1pTab<>+1936(SB)/8, $0x020a020a120a0a0a
DATA iq1pTab<>+1944(SB)/8, $0x020a020a1212020a
DATA iq1pTab<>+1952(SB)/8, $0x020a020a12120a02
DATA iq1pTab<>+1960(SB)/8, $0x020a0212020a020a
DATA iq1pTab<>+1968(SB)/8, $0x020a0212020a0a02
DATA iq1pTab<>+1976(SB)/8, $0x020a0212020a0a12
DATA iq1pTab<>+1984(SB)/8, $0x020a021202120a0a
DATA iq1pTab<>+1992(SB)/8, $0x020a02120a020202
DATA iq1pTab<>+2000(SB)/8, $0x020a02120a020a12
DATA iq1pTab<>+2008(SB)/8, $0x020a02120a02120a
DATA iq1pTab<>+2016(SB)/8, $0x020a02120a0a0212
DATA iq1pTab<>+2024(SB)/8, $0x020a02120a0a0a0a
DATA iq1pTab<>+2032(SB)/8, $0x020a02120a0a1202
DATA iq1pTab<>+2040(SB)/8, $0x020a02120a0a1212
DATA iq1pTab<>+2048(SB)/8, $0x020a02120a120a02
DATA iq1pTab<>+2056(SB)/8, $0x020a02120a120a12
DATA iq1pTab<>+2064(SB)/8, $0x020a021212020a0a
DATA iq1pTab<>+2072(SB)/8, $0x020a0212120a020a
DATA iq1pTab<>+2080(SB)/8, $0x020a0212120a0a02
DATA iq1pTab<>+2088(SB)/8, $0x020a0212120a0a12
DATA iq1pTab<>+2096(SB)/8, $0x020a021212120a0a
DATA iq1pTab<>+2104(SB)/8, $0x020a0a020202020a
DATA iq1pTab<>+2112(SB)/8, $0x020a0a0202020a12
DATA iq1pTab<>+2120(SB)/8, $0x020a0a020202120a
DATA iq1pTab<>+2128(SB)/8, $0x020a0a02020a0a02
DATA iq1pTab<>+2136(SB)/8, $0x020a0a02020a0a0a
DATA iq1pTab<>+2144(SB)/8, $0x020a0a02020a1202
DATA iq1pTab<>+2152(SB)/8, $0x020a0a02020a120a
DATA iq1pTab<>+2160(SB)/8, $0x020a0a020212020a
DATA iq1pTab<>+2168(SB)/8, $0x020a0a0202120a12
DATA iq1pTab<>+2176(SB)/8, $0x020a0a020a02020a
DATA iq1pTab<>+2184(SB)/8, $0x020a0a020a020a0a
DATA iq1pTab<>+2192(SB)/8, $0x020a0a020a020a12
DATA iq1pTab<>+2200(SB)/8, $0x020a0a020a021202
DATA iq1pTab<>+2208(SB)/8, $0x020a0a020a021212
DATA iq1pTab<>+2216(SB)/8, $0x020a0a020a0a020a
DATA iq1pTab<>+2224(SB)/8, $0x020a0a020a0a0a02
DATA iq1pTab<>+2232(SB)/8, $0x020a0a020a0a0a0a
DATA iq1pTab<>+2240(SB)/8, $0x020a0a020a0a0a12
DATA iq1pTab<>+2248(SB)/8, $0x020a0a020a0a120a
DATA iq1pTab<>+2256(SB)/8, $0x020a0a020a120212
DATA iq1pTab<>+2264(SB)/8, $0x020a0a020a120a0a
DATA iq1pTab<>+2272(SB)/8, $0x020a0a020a121202
DATA iq1pTab<>+2280(SB)/8, $0x020a0a0212020a02
DATA iq1pTab<>+2288(SB)/8, $0x020a0a021202120a
DATA iq1pTab<>+2296(SB)/8, $0x020a0a02120a0202
DATA iq1pTab<>+2304(SB)/8, $0x020a0a02120a0a02
DATA iq1pTab<>+2312(SB)/8, $0x020a0a02120a0a0a
DATA iq1pTab<>+2320(SB)/8, $0x020a0a02120a1202
DATA iq1pTab<>+2328(SB)/8, $0x020a0a02120a120a
DATA iq1pTab<>+2336(SB)/8, $0x020a0a02120a1212
DATA iq1pTab<>+2344(SB)/8, $0x020a0a021212020a
DATA iq1pTab<>+2352(SB)/8, $0x020a0a0212120a02
DATA iq1pTab<>+2360(SB)/8, $0x020a0a0212120a0a
DATA iq1pTab<>+2368(SB)/8, $0x020a0a021212120a
DATA iq1pTab<>+2376(SB)/8, $0x020a0a0a02020212
DATA iq1pTab<>+2384(SB)/8, $0x020a0a0a02020a0a
DATA iq1pTab<>+2392(SB)/8, $0x020a0a0a02021212
DATA iq1pTab<>+2400(SB)/8, $0x020a0a0a020a020a
DATA iq1pTab<>+2408(SB)/8, $0x020a0a0a020a0a02
DATA iq1pTab<>+2416(SB)/8, $0x020a0a0a020a0a0a
DATA iq1pTab<>+2424(SB)/8, $0x020a0a0a020a0a12
DATA iq1pTab<>+2432(SB)/8, $0x020a0a0a020a120a
DATA iq1pTab<>+2440(SB)/8, $0x020a0a0a02120202
DATA iq1pTab<>+2448(SB)/8, $0x020a0a0a02120212
DATA iq1pTab<>+2456(SB)/8, $0x020a0a0a02120a0a
DATA iq1pTab<>+2464(SB)/8, $0x020a0a0a02121202
DATA iq1pTab<>+2472(SB)/8, $0x020a0a0a02121212
DATA iq1pTab<>+2480(SB)/8, $0x020a0a0a0a02020a
DATA iq1pTab<>+2488(SB)/8, $0x020a0a0a0a020a02
DATA iq1pTab<>+2496(SB)/8, $0x020a0a0a0a020a0a
DATA iq1pTab<>+2504(SB)/8, $0x020a0a0a0a020a12
DATA iq1pTab<>+2512(SB)/8, $0x020a0a0a0a0a020a
DATA iq1pTab<>+2520(SB)/8, $0x020a0a0a0a0a0212
DATA iq1pTab<>+2528(SB)/8, $0x020a0a0a0a0a0a02
DATA iq1pTab<>+2536(SB)/8, $0x020a0a0a0a0a0a0a
DATA iq1pTab<>+2544(SB)/8, $0x020a0a0a0a0a0a12
DATA iq1pTab<>+2552(SB)/8, $0x020a0a0a0a0a120a
DATA iq1pTab<>+2560(SB)/8, $0x020a0a0a0a0a1212
DATA iq1pTab<>+2568(SB)/8, $0x020a0a0a0a12020a
DATA iq1pTab<>+2576(SB)/8, $0x020a0a0a0a120a02
DATA iq1pTab<>+2584(SB)/8, $0x020a0a0a0a120a0a
DATA iq1pTab<>+2592(SB)/8, $0x020a0a0a0a120a12
DATA iq1pTab<>+2600(SB)/8, $0x020a0a0a0a12120a
DATA iq1pTab<>+2608(SB)/8, $0x020a0a0a12020202
DATA iq1pTab<>+2616(SB)/8, $0x020a0a0a12020212
DATA iq1pTab<>+2624(SB)/8, $0x020a0a0a12020a02
DATA iq1pTab<>+2632(SB)/8, $0x020a0a0a12020a0a
DATA iq1pTab<>+2640(SB)/8, $0x020a0a0a12021202
DATA iq1pTab<>+2648(SB)/8, $0x020a0a0a12021212
DATA iq1pTab<>+2656(SB)/8, $0x020a0a0a120a0202
DATA iq1pTab<>+2664(SB)/8, $0x020a0a0a120a020a
DATA iq1pTab<>+2672(SB)/8, $0x020a0a0a120a0a02
DATA iq1pTab<>+2680(SB)/8, $0x020a0a0a120a0a0a
DATA iq1pTab<>+2688(SB)/8, $0x020a0a0a120a0a12
DATA iq1pTab<>+2696(SB)/8, $0x020a0a0a120a120a
DATA iq1pTab<>+2704(SB)/8, $0x020a0a0a120a1212
DATA iq1pTab<>+2712(SB)/8, $0x020a0a0a12120202
DATA iq1pTab<>+2720(SB)/8, $0x020a0a0a12120212
DATA iq1pTab<>+2728(SB)/8, $0x020a0a0a12120a0a
DATA iq1pTab<>+2736(SB)/8, $0x020a0a120202020a
DATA iq1pTab<>+2744(SB)/8, $0x020a0a1202020a02
DATA iq1pTab<>+2752(SB)/8, $0x020a0a1202020a0a
DATA iq1pTab<>+2760(SB)/8, $0x020a0a1202020a12
DATA iq1pTab<>+2768(SB)/8, $0x020a0a12020a0a0a
DATA iq1pTab<>+2776(SB)/8, $0x020a0a12020a0a12
DATA iq1pTab<>+2784(SB)/8, $0x020a0a12020a1202
DATA iq1pTab<>+2792(SB)/8, $0x020a0a12020a1212
DATA iq1pTab<>+2800(SB)/8, $0x020a0a120212020a
DATA iq1pTab<>+2808(SB)/8, $0x020a0a1202120a12
DATA iq1pTab<>+2816(SB)/8, $0x020a0a120a020202
DATA iq1pTab<>+2824(SB)/8, $0x020a0a120a020212
DATA iq1pTab<>+2832(SB)/8, $0x020a0a120a020a02
DATA iq1pTab<>+2840(SB)/8, $0x020a0a120a020a0a
DATA iq1pTab<>+2848(SB)/8, $0x020a0a120a021202
DATA iq1pTab<>+2856(SB)/8, $0x020a0a120a021212
DATA iq1pTab<>+2864(SB)/8, $0x020a0a120a0a020a
DATA iq1pTab<>+2872(SB)/8, $0x020a0a120a0a0a0a
DATA iq1pTab<>+2880(SB)/8, $0x020a0a120a0a0a12
DATA iq1pTab<>+2888(SB)/8, $0x020a0a120a0a1202
DATA iq1pTab<>+2896(SB)/8, $0x020a0a120a0a120a
DATA iq1pTab<>+2904(SB)/8, $0x020a0a120a12020a
DATA iq1pTab<>+2912(SB)/8, $0x020a0a120a120a02
DATA iq1pTab<>+2920(SB)/8, $0x020a0a120a120a0a
DATA iq1pTab<>+2928(SB)/8, $0x020a0a120a121202
DATA iq1pTab<>+2936(SB)/8, $0x020a0a120a12120a
DATA iq1pTab<>+2944(SB)/8, $0x020a0a120a121212
DATA iq1pTab<>+2952(SB)/8, $0x020a0a1212020a12
DATA iq1pTab<>+2960(SB)/8, $0x020a0a1212021212
DATA iq1pTab<>+2968(SB)/8, $0x020a0a12120a0212
DATA iq1pTab<>+2976(SB)/8, $0x020a0a12120a0a0a
DATA iq1pTab<>+2984(SB)/8, $0x020a0a1212120a02
DATA iq1pTab<>+2992(SB)/8, $0x020a0a121212120a
DATA iq1pTab<>+3000(SB)/8, $0x020a1202020a020a
DATA iq1pTab<>+3008(SB)/8, $0x020a1202020a0a12
DATA iq1pTab<>+3016(SB)/8, $0x020a120202120a0a
DATA iq1pTab<>+3024(SB)/8, $0x020a12020a02020a
DATA iq1pTab<>+3032(SB)/8, $0x020a12020a020a02
DATA iq1pTab<>+3040(SB)/8, $0x020a12020a020a12
DATA iq1pTab<>+3048(SB)/8, $0x020a12020a02120a
DATA iq1pTab<>+3056(SB)/8, $0x020a12020a0a0202
DATA iq1pTab<>+3064(SB)/8, $0x020a12020a0a0a0a
DATA iq1pTab<>+3072(SB)/8, $0x020a12020a0a1202
DATA iq1pTab<>+3080(SB)/8, $0x020a12020a0a1212
DATA iq1pTab<>+3088(SB)/8, $0x020a12020a120202
DATA iq1pTab<>+3096(SB)/8, $0x020a12020a12020a
DATA iq1pTab<>+3104(SB)/8, $0x020a12020a120a02
DATA iq1pTab<>+3112(SB)/8, $0x020a12020a120a12
DATA iq1pTab<>+3120(SB)/8, $0x020a12020a12120a
DATA iq1pTab<>+3128(SB)/8, $0x020a120212020a0a
DATA iq1pTab<>+3136(SB)/8, $0x020a1202120a020a
DATA iq1pTab<>+3144(SB)/8, $0x020a1202120a0a02
DATA iq1pTab<>+3152(SB)/8, $0x020a120212120a0a
DATA iq1pTab<>+3160(SB)/8, $0x020a120a020a0202
DATA iq1pTab<>+3168(SB)/8, $0x020a120a020a0212
DATA iq1pTab<>+3176(SB)/8, $0x020a120a020a0a0a
DATA iq1pTab<>+3184(SB)/8, $0x020a120a020a1212
DATA iq1pTab<>+3192(SB)/8, $0x020a120a0212020a
DATA iq1pTab<>+3200(SB)/8, $0x020a120a02120a0a
DATA iq1pTab<>+3208(SB)/8, $0x020a120a0a020212
DATA iq1pTab<>+3216(SB)/8, $0x020a120a0a020a02
DATA iq1pTab<>+3224(SB)/8, $0x020a120a0a020a0a
DATA iq1pTab<>+3232(SB)/8, $0x020a120a0a021202
DATA iq1pTab<>+3240(SB)/8, $0x020a120a0a0a020a
DATA iq1pTab<>+3248(SB)/8, $0x020a120a0a0a0a02
DATA iq1pTab<>+3256(SB)/8, $0x020a120a0a0a0a0a
DATA iq1pTab<>+3264(SB)/8, $0x020a120a0a0a0a12
DATA iq1pTab<>+3272(SB)/8, $0x020a120a0a0a120a
DATA iq1pTab<>+3280(SB)/8, $0x020a120a0a0a1212
DATA iq1pTab<>+3288(SB)/8, $0x020a120a0a120202
DATA iq1pTab<>+3296(SB)/8, $0x020a120a0a120a0a
DATA iq1pTab<>+3304(SB)/8, $0x020a120a0a121212
DATA iq1pTab<>+3312(SB)/8, $0x020a120a1202120a
DATA iq1pTab<>+3320(SB)/8, $0x020a120a120a020a
DATA iq1pTab<>+3328(SB)/8, $0x020a120a120a0212
DATA iq1pTab<>+3336(SB)/8, $0x020a120a120a0a0a
DATA iq1pTab<>+3344(SB)/8, $0x020a120a120a1202
DATA iq1pTab<>+3352(SB)/8, $0x020a120a1212020a
DATA iq1pTab<>+3360(SB)/8, $0x020a120a12120a12
DATA iq1pTab<>+3368(SB)/8, $0x020a120a1212120a
DATA iq1pTab<>+3376(SB)/8, $0x020a12120202120a
DATA iq1pTab<>+3384(SB)/8, $0x020a1212020a0a12
DATA iq1pTab<>+3392(SB)/8, $0x020a121202120a02
DATA iq1pTab<>+3400(SB)/8, $0x020a121202120a12
DATA iq1pTab<>+3408(SB)/8, $0x020a12120a020a02
DATA iq1pTab<>+3416(SB)/8, $0x020a12120a020a12
DATA iq1pTab<>+3424(SB)/8, $0x020a12120a02120a
DATA iq1pTab<>+3432(SB)/8, $0x020a12120a0a0202
DATA iq1pTab<>+3440(SB)/8, $0x020a12120a0a0212
DATA iq1pTab<>+3448(SB)/8, $0x020a12120a0a0a0a
DATA iq1pTab<>+3456(SB)/8, $0x020a12120a0a1202
DATA iq1pTab<>+3464(SB)/8, $0x020a12120a12020a
DATA iq1pTab<>+3472(SB)/8, $0x020a12120a120a12
DATA iq1pTab<>+3480(SB)/8, $0x020a12120a12120a
DATA iq1pTab<>+3488(SB)/8, $0x020a121212020a0a
DATA iq1pTab<>+3496(SB)/8, $0x020a1212120a020a
DATA iq1pTab<>+3504(SB)/8, $0x020a1212120a0a12
DATA iq1pTab<>+3512(SB)/8, $0x020a1212120a1212
DATA iq1pTab<>+3520(SB)/8, $0x0212020202020202
DATA iq1pTab<>+3528(SB)/8, $0x0212020202020212
DATA iq1pTab<>+3536(SB)/8, $0x0212020202021202
DATA iq1pTab<>+3544(SB)/8, $0x0212020202021212
DATA iq1pTab<>+3552(SB)/8, $0x02120202020a0a0a
DATA iq1pTab<>+3560(SB)/8, $0x0212020202120202
DATA iq1pTab<>+3568(SB)/8, $0x0212020202120212
DATA iq1pTab<>+3576(SB)/8, $0x0212020202120a0a
DATA iq1pTab<>+3584(SB)/8, $0x0212020202121202
DATA iq1pTab<>+3592(SB)/8, $0x0212020202121212
DATA iq1pTab<>+3600(SB)/8, $0x021202020a020a0a
DATA iq1pTab<>+3608(SB)/8, $0x021202020a0a020a
DATA iq1pTab<>+3616(SB)/8, $0x021202020a0a120a
DATA iq1pTab<>+3624(SB)/8, $0x021202020a12020a
DATA iq1pTab<>+3632(SB)/8, $0x021202020a120a0a
DATA iq1pTab<>+3640(SB)/8, $0x0212020212020202
DATA iq1pTab<>+3648(SB)/8, $0x0212020212020212
DATA iq1pTab<>+3656(SB)/8, $0x0212020212021202
DATA iq1pTab<>+3664(SB)/8, $0x0212020212021212
DATA iq1pTab<>+3672(SB)/8, $0x02120202120a0a0a
DATA iq1pTab<>+3680(SB)/8, $0x0212020212120202
DATA iq1pTab<>+3688(SB)/8, $0x0212020212120212
DATA iq1pTab<>+3696(SB)/8, $0x0212020212120a0a
DATA iq1pTab<>+3704(SB)/8, $0x0212020212121202
DATA iq1pTab<>+3712(SB)/8, $0x0212020212121212
DATA iq1pTab<>+3720(SB)/8, $0x0212020a02020a0a
DATA iq1pTab<>+3728(SB)/8, $0x0212020a020a020a
DATA iq1pTab<>+3736(SB)/8, $0x0212020a020a0a02
DATA iq1pTab<>+3744(SB)/8, $0x0212020a020a120a
DATA iq1pTab<>+3752(SB)/8, $0x0212020a02120a0a
DATA iq1pTab<>+3760(SB)/8, $0x0212020a0a020212
DATA iq1pTab<>+3768(SB)/8, $0x0212020a0a020a02
DATA iq1pTab<>+3776(SB)/8, $0x0212020a0a02120a
DATA iq1pTab<>+3784(SB)/8, $0x0212020a0a0a0a0a
DATA iq1pTab<>+3792(SB)/8, $0x0212020a0a0a1202
DATA iq1pTab<>+3800(SB)/8, $0x0212020a0a0a1212
DATA iq1pTab<>+3808(SB)/8, $0x0212020a0a12020a
DATA iq1pTab<>+3816(SB)/8, $0x0212020a0a120a02
DATA iq1pTab<>+3824(SB)/8, $0x0212020a0a120a0a
DATA iq1pTab<>+3832(SB)/8, $0x0212020a0a120a12
DATA iq1pTab<>+3840(SB)/8, $0x0212020a12020a0a
DATA iq1pTab<>+3848(SB)/8, $0x0212020a120a0202
DATA iq1pTab<>+3856(SB)/8, $0x0212020a120a0a12
DATA iq1pTab<>+3864(SB)/8, $0x0212020a120a120a
DATA iq1pTab<>+3872(SB)/8, $0x0212020a12120a0a
DATA iq1pTab<>+3880(SB)/8, $0x021202120202020a
DATA iq1pTab<>+3888(SB)/8, $0x0212021202021202
DATA iq1pTab<>+3896(SB)/8, $0x0212021202021212
DATA iq1pTab<>+3904(SB)/8, $0x02120212020a020a
DATA iq1pTab<>+3912(SB)/8, $0x02120212020a0a0a
DATA iq1pTab<>+3920(SB)/8, $0x0212021202120202
DATA iq1pTab<>+3928(SB)/8, $0x0212021202120212
DATA iq1pTab<>+3936(SB)/8, $0x0212021202121202
DATA iq1pTab<>+3944(SB)/8, $0x0212021202121212
DATA iq1pTab<>+3952(SB)/8, $0x021202120a020a0a
DATA iq1pTab<>+3960(SB)/8, $0x021202120a0a020a
DATA iq1pTab<>+3968(SB)/8, $0x021202120a0a0a12
DATA iq1pTab<>+3976(SB)/8, $0x021202120a0a120a
DATA iq1pTab<>+3984(SB)/8, $0x021202120a120a0a
DATA iq1pTab<>+3992(SB)/8, $0x021202121202020a
DATA iq1pTab<>+4000(SB)/8, $0x0212021212021202
DATA iq1pTab<>+4008(SB)/8, $0x0212021212021212
DATA iq1pTab<>+4016(SB)/8, $0x02120212120a020a
DATA iq1pTab<>+4024(SB)/8, $0x02120212120a0a0a
DATA iq1pTab<>+4032(SB)/8, $0x0212021212120202
DATA iq1pTab<>+4040(SB)/8, $0x0212021212120212
DATA iq1pTab<>+4048(SB)/8, $0x0212021212121202
DATA iq1pTab<>+4056(SB)/8, $0x0212021212121212
DATA iq1pTab<>+4064(SB)/8, $0x02120a0202020a0a
DATA iq1pTab<>+4072(SB)/8, $0x02120a02020a0a02
DATA iq1pTab<>+4080(SB)/8, $0x02120a02020a0a12
DATA iq1pTab<>+4088(SB)/8, $0x02120a02020a120a
DATA iq1pTab<>+4096(SB)/8, $0x02120a0202120a0a
DATA iq1pTab<>+4104(SB)/8, $0x02120a020a020a02
DATA iq1pTab<>+4112(SB)/8, $0x02120a020a020a0a
DATA iq1pTab<>+4120(SB)/8, $0x02120a020a020a12
DATA iq1pTab<>+4128(SB)/8, $0x02120a020a02120a
DATA iq1pTab<>+4136(SB)/8, $0x02120a020a0a0212
DATA iq1pTab<>+4144(SB)/8, $0x02120a020a0a0a0a
DATA iq1pTab<>+4152(SB)/8, $0x02120a020a0a1202
DATA iq1pTab<>+4160(SB)/8, $0x02120a020a0a1212
DATA iq1pTab<>+4168(SB)/8, $0x02120a020a120a12
DATA iq1pTab<>+4176(SB)/8, $0x02120a0212020a0a
DATA iq1pTab<>+4184(SB)/8, $0x02120a02120a020a
DATA iq1pTab<>+4192(SB)/8, $0x02120a02120a0a02
DATA iq1pTab<>+4200(SB)/8, $0x02120a02120a120a
DATA iq1pTab<>+4208(SB)/8, $0x02120a021212020a
DATA iq1pTab<>+4216(SB)/8, $0x02120a0212120a0a
DATA iq1pTab<>+4224(SB)/8, $0x02120a0a0202120a
DATA iq1pTab<>+4232(SB)/8, $0x02120a0a020a0a0a
DATA iq1pTab<>+4240(SB)/8, $0x02120a0a0212020a
DATA iq1pTab<>+4248(SB)/8, $0x02120a0a0212120a
DATA iq1pTab<>+4256(SB)/8, $0x02120a0a0a020202
DATA iq1pTab<>+4264(SB)/8, $0x02120a0a0a020a0a
DATA iq1pTab<>+4272(SB)/8, $0x02120a0a0a021202
DATA iq1pTab<>+4280(SB)/8, $0x02120a0a0a0a020a
DATA iq1pTab<>+4288(SB)/8, $0x02120a0a0a0a0a02
DATA iq1pTab<>+4296(SB)/8, $0x02120a0a0a0a0a0a
DATA iq1pTab<>+4304(SB)/8, $0x02120a0a0a0a120a
DATA iq1pTab<>+4312(SB)/8, $0x02120a0a0a120212
DATA iq1pTab<>+4320(SB)/8, $0x02120a0a0a120a0a
DATA iq1pTab<>+4328(SB)/8, $0x02120a0a0a121202
DATA iq1pTab<>+4336(SB)/8, $0x02120a0a1202120a
DATA iq1pTab<>+4344(SB)/8, $0x02120a0a120a0202
DATA iq1pTab<>+4352(SB)/8, $0x02120a0a120a0a02
DATA iq1pTab<>+4360(SB)/8, $0x02120a0a120a0a0a
DATA iq1pTab<>+4368(SB)/8, $0x02120a0a120a1202
DATA iq1pTab<>+4376(SB)/8, $0x02120a0a120a1212
DATA iq1pTab<>+4384(SB)/8, $0x02120a0a1212020a
DATA iq1pTab<>+4392(SB)/8, $0x02120a0a12120a02
DATA iq1pTab<>+4400(SB)/8, $0x02120a0a12120a12
DATA iq1pTab<>+4408(SB)/8, $0x02120a0a1212120a
DATA iq1pTab<>+4416(SB)/8, $0x02120a1202020a0a
DATA iq1pTab<>+4424(SB)/8, $0x02120a12020a0202
DATA iq1pTab<>+4432(SB)/8, $0x02120a12020a0212
DATA iq1pTab<>+4440(SB)/8, $0x02120a12020a120a
DATA iq1pTab<>+4448(SB)/8, $0x02120a1202120a0a
DATA iq1pTab<>+4456(SB)/8, $0x02120a120a02020a
DATA iq1pTab<>+4464(SB)/8, $0x02120a120a02120a
DATA iq1pTab<>+4472(SB)/8, $0x02120a120a0a0a0a
DATA iq1pTab<>+4480(SB)/8, $0x02120a120a120202
DATA iq1pTab<>+4488(SB)/8, $0x02120a120a12020a
DATA iq1pTab<>+4496(SB)/8, $0x02120a120a12120a
DATA iq1pTab<>+4504(SB)/8, $0x02120a1212020a02
DATA iq1pTab<>+4512(SB)/8, $0x02120a1212020a12
DATA iq1pTab<>+4520(SB)/8, $0x02120a12120a0202
DATA iq1pTab<>+4528(SB)/8, $0x02120a12120a1212
DATA iq1pTab<>+4536(SB)/8, $0x0212120202020202
DATA iq1pTab<>+4544(SB)/8, $0x0212120202020212
DATA iq1pTab<>+4552(SB)/8, $0x0212120202021202
DATA iq1pTab<>+4560(SB)/8, $0x0212120202021212
DATA iq1pTab<>+4568(SB)/8, $0x02121202020a0a0a
DATA iq1pTab<>+4576(SB)/8, $0x0212120202120202
DATA iq1pTab<>+4584(SB)/8, $0x0212120202120212
DATA iq1pTab<>+4592(SB)/8, $0x0212120202121202
DATA iq1pTab<>+4600(SB)/8, $0x0212120202121212
DATA iq1pTab<>+4608(SB)/8, $0x021212020a020a0a
DATA iq1pTab<>+4616(SB)/8, $0x021212020a0a020a
DATA iq1pTab<>+4624(SB)/8, $0x021212020a0a0a02
DATA iq1pTab<>+4632(SB)/8, $0x021212020a120a0a
DATA iq1pTab<>+4640(SB)/8, $0x0212120212020202
DATA iq1pTab<>+4648(SB)/8, $0x0212120212020212
DATA iq1pTab<>+4656(SB)/8, $0x0212120212021202
DATA iq1pTab<>+4664(SB)/8, $0x0212120212021212
DATA iq1pTab<>+4672(SB)/8, $0x0212120212120202
DATA iq1pTab<>+4680(SB)/8, $0x0212120212120212
DATA iq1pTab<>+4688(SB)/8, $0x0212120212121202
DATA iq1pTab<>+4696(SB)/8, $0x0212120212121212
DATA iq1pTab<>+4704(SB)/8, $0x0212120a0202120a
DATA iq1pTab<>+4712(SB)/8, $0x0212120a020a020a
DATA iq1pTab<>+4720(SB)/8, $0x0212120a020a0a02
DATA iq1pTab<>+4728(SB)/8, $0x0212120a020a120a
DATA iq1pTab<>+4736(SB)/8, $0x0212120a02120a0a
DATA iq1pTab<>+4744(SB)/8, $0x0212120a0a020a12
DATA iq1pTab<>+4752(SB)/8, $0x0212120a0a02120a
DATA iq1pTab<>+4760(SB)/8, $0x0212120a0a0a0212
DATA iq1pTab<>+4768(SB)/8, $0x0212120a0a0a0a0a
DATA iq1pTab<>+4776(SB)/8, $0x0212120a0a12020a
DATA iq1pTab<>+4784(SB)/8, $0x0212120a0a120a02
DATA iq1pTab<>+4792(SB)/8, $0x0212120a0a120a12
DATA iq1pTab<>+4800(SB)/8, $0x0212120a0a12120a
DATA iq1pTab<>+4808(SB)/8, $0x0212120a12020a0a
DATA iq1pTab<>+4816(SB)/8, $0x0212120a120a0202
DATA iq1pTab<>+4824(SB)/8, $0x0212120a120a0a12
DATA iq1pTab<>+4832(SB)/8, $0x0212120a120a120a
DATA iq1pTab<>+4840(SB)/8, $0x0212120a12120a02
DATA iq1pTab<>+4848(SB)/8, $0x0212120a12120a0a
DATA iq1pTab<>+4856(SB)/8, $0x0212121202020202
DATA iq1pTab<>+4864(SB)/8, $0x0212121202020212
DATA iq1pTab<>+4872(SB)/8, $0x0212121202021202
DATA iq1pTab<>+4880(SB)/8, $0x0212121202021212
DATA iq1pTab<>+4888(SB)/8, $0x0212121202120202
DATA iq1pTab<>+4896(SB)/8, $0x0212121202120212
DATA iq1pTab<>+4904(SB)/8, $0x0212121202121202
DATA iq1pTab<>+4912(SB)/8, $0x0212121202121212
DATA iq1pTab<>+4920(SB)/8, $0x021212120a020a0a
DATA iq1pTab<>+4928(SB)/8, $0x021212120a0a020a
DATA iq1pTab<>+4936(SB)/8, $0x021212120a0a0a12
DATA iq1pTab<>+4944(SB)/8, $0x021212120a0a120a
DATA iq1pTab<>+4952(SB)/8, $0x021212120a120a0a
DATA iq1pTab<>+4960(SB)/8, $0x0212121212020202
DATA iq1pTab<>+4968(SB)/8, $0x0212121212020212
DATA iq1pTab<>+4976(SB)/8, $0x0212121212021202
DATA iq1pTab<>+4984(SB)/8, $0x0212121212021212
DATA iq1pTab<>+4992(SB)/8, $0x02121212120a0a0a
DATA iq1pTab<>+5000(SB)/8, $0x0212121212120202
DATA iq1pTab<>+5008(SB)/8, $0x0212121212120212
DATA iq1pTab<>+5016(SB)/8, $0x0212121212121202
DATA iq1pTab<>+5024(SB)/8, $0x0212121212121212
DATA iq1pTab<>+5032(SB)/8, $0x0a02020202020a0a
DATA iq1pTab<>+5040(SB)/8, $0x0a020202020a020a
DATA iq1pTab<>+5048(SB)/8, $0x0a020202020a0a12
DATA iq1pTab<>+5056(SB)/8, $0x0a02020202120a0a
DATA iq1pTab<>+5064(SB)/8, $0x0a0202020a02120a
DATA iq1pTab<>+5072(SB)/8, $0x0a0202020a0a0212
DATA iq1pTab<>+5080(SB)/8, $0x0a0202020a0a0a0a
DATA iq1pTab<>+5088(SB)/8, $0x0a0202020a0a1202
DATA iq1pTab<>+5096(SB)/8, $0x0a0202020a0a1212
DATA iq1pTab<>+5104(SB)/8, $0x0a0202020a12020a
DATA iq1pTab<>+5112(SB)/8, $0x0a0202020a120a02
DATA iq1pTab<>+5120(SB)/8, $0x0a0202020a120a12
DATA iq1pTab<>+5128(SB)/8, $0x0a020202120a0a02
DATA iq1pTab<>+5136(SB)/8, $0x0a020202120a120a
DATA iq1pTab<>+5144(SB)/8, $0x0a0202021212020a
DATA iq1pTab<>+5152(SB)/8, $0x0a02020212120a12
DATA iq1pTab<>+5160(SB)/8, $0x0a02020a02020202
DATA iq1pTab<>+5168(SB)/8, $0x0a02020a0202020a
DATA iq1pTab<>+5176(SB)/8, $0x0a02020a02020a02
DATA iq1pTab<>+5184(SB)/8, $0x0a02020a02020a12
DATA iq1pTab<>+5192(SB)/8, $0x0a02020a0202120a
DATA iq1pTab<>+5200(SB)/8, $0x0a02020a020a0212
DATA iq1pTab<>+5208(SB)/8, $0x0a02020a020a0a0a
DATA iq1pTab<>+5216(SB)/8, $0x0a02020a020a0a12
DATA iq1pTab<>+5224(SB)/8, $0x0a02020a020a1202
DATA iq1pTab<>+5232(SB)/8, $0x0a02020a020a1212
DATA iq1pTab<>+5240(SB)/8, $0x0a02020a0212020a
DATA iq1pTab<>+5248(SB)/8, $0x0a02020a02120a12
DATA iq1pTab<>+5256(SB)/8, $0x0a02020a0212120a
DATA iq1pTab<>+5264(SB)/8, $0x0a02020a0a020a0a
DATA iq1pTab<>+5272(SB)/8, $0x0a02020a0a021202
DATA iq1pTab<>+5280(SB)/8, $0x0a02020a0a021212
DATA iq1pTab<>+5288(SB)/8, $0x0a02020a0a0a020a
DATA iq1pTab<>+5296(SB)/8, $0x0a02020a0a0a0a02
DATA iq1pTab<>+5304(SB)/8, $0x0a02020a0a0a0a0a
DATA iq1pTab<>+5312(SB)/8, $0x0a02020a0a0a0a12
DATA iq1pTab<>+5320(SB)/8, $0x0a02020a0a0a120a
DATA iq1pTab<>+5328(SB)/8, $0x0a02020a0a0a1212
DATA iq1pTab<>+5336(SB)/8, $0x0a02020a0a120a0a
DATA iq1pTab<>+5344(SB)/8, $0x0a02020a0a121202
DATA iq1pTab<>+5352(SB)/8, $0x0a02020a0a121212
DATA iq1pTab<>+5360(SB)/8, $0x0a02020a1202020a
DATA iq1pTab<>+5368(SB)/8, $0x0a02020a12020a02
DATA iq1pTab<>+5376(SB)/8, $0x0a02020a12020a12
DATA iq1pTab<>+5384(SB)/8, $0x0a02020a120a0202
DATA iq1pTab<>+5392(SB)/8, $0x0a02020a120a0212
DATA iq1pTab<>+5400(SB)/8, $0x0a02020a120a0a0a
DATA iq1pTab<>+5408(SB)/8, $0x0a02020a12120202
DATA iq1pTab<>+5416(SB)/8, $0x0a02020a1212020a
DATA iq1pTab<>+5424(SB)/8, $0x0a02020a12120212
DATA iq1pTab<>+5432(SB)/8, $0x0a02021202020a0a
DATA iq1pTab<>+5440(SB)/8, $0x0a020212020a020a
DATA iq1pTab<>+5448(SB)/8, $0x0a020212020a0a02
DATA iq1pTab<>+5456(SB)/8, $0x0a020212020a0a12
DATA iq1pTab<>+5464(SB)/8, $0x0a02021202120a0a
DATA iq1pTab<>+5472(SB)/8, $0x0a0202120a02020a
DATA iq1pTab<>+5480(SB)/8, $0x0a0202120a0a0212
DATA iq1pTab<>+5488(SB)/8, $0x0a0202120a0a0a0a
DATA iq1pTab<>+5496(SB)/8, $0x0a0202120a0a1212
DATA iq1pTab<>+5504(SB)/8, $0x0a0202120a120a02
DATA iq1pTab<>+5512(SB)/8, $0x0a0202120a12120a
DATA iq1pTab<>+5520(SB)/8, $0x0a0202121202120a
DATA iq1pTab<>+5528(SB)/8, $0x0a020212120a0a02
DATA iq1pTab<>+5536(SB)/8, $0x0a02021212120a0a
DATA iq1pTab<>+5544(SB)/8, $0x0a020a020202020a
DATA iq1pTab<>+5552(SB)/8, $0x0a020a02020a0a0a
DATA iq1pTab<>+5560(SB)/8, $0x0a020a02020a120a
DATA iq1pTab<>+5568(SB)/8, $0x0a020a020212120a
DATA iq1pTab<>+5576(SB)/8, $0x0a020a020a020a0a
DATA iq1pTab<>+5584(SB)/8, $0x0a020a020a021202
DATA iq1pTab<>+5592(SB)/8, $0x0a020a020a021212
DATA iq1pTab<>+5600(SB)/8, $0x0a020a020a0a020a
DATA iq1pTab<>+5608(SB)/8, $0x0a020a020a0a0a02
DATA iq1pTab<>+5616(SB)/8, $0x0a020a020a0a0a0a
DATA iq1pTab<>+5624(SB)/8, $0x0a020a020a0a0a12
DATA iq1pTab<>+5632(SB)/8, $0x0a020a020a12020a
DATA iq1pTab<>+5640(SB)/8, $0x0a020a020a120212
DATA iq1pTab<>+5648(SB)/8, $0x0a020a020a120a0a
DATA iq1pTab<>+5656(SB)/8, $0x0a020a020a121202
DATA iq1pTab<>+5664(SB)/8, $0x0a020a020a121212
DATA iq1pTab<>+5672(SB)/8, $0x0a020a021202020a
DATA iq1pTab<>+5680(SB)/8, $0x0a020a0212020a12
DATA iq1pTab<>+5688(SB)/8, $0x0a020a021202120a
DATA iq1pTab<>+5696(SB)/8, $0x0a020a02120a0202
DATA iq1pTab<>+5704(SB)/8, $0x0a020a02120a0212
DATA iq1pTab<>+5712(SB)/8, $0x0a020a02120a0a0a
DATA iq1pTab<>+5720(SB)/8, $0x0a020a0212120202
DATA iq1pTab<>+5728(SB)/8, $0x0a020a021212020a
DATA iq1pTab<>+5736(SB)/8, $0x0a020a021212120a
DATA iq1pTab<>+5744(SB)/8, $0x0a020a0a0202020a
DATA iq1pTab<>+5752(SB)/8, $0x0a020a0a02020212
DATA iq1pTab<>+5760(SB)/8, $0x0a020a0a02020a0a
DATA iq1pTab<>+5768(SB)/8, $0x0a020a0a02021212
DATA iq1pTab<>+5776(SB)/8, $0x0a020a0a020a020a
DATA iq1pTab<>+5784(SB)/8, $0x0a020a0a020a0a02
DATA iq1pTab<>+5792(SB)/8, $0x0a020a0a020a0a0a
DATA iq1pTab<>+5800(SB)/8, $0x0a020a0a020a0a12
DATA iq1pTab<>+5808(SB)/8, $0x0a020a0a020a120a
DATA iq1pTab<>+5816(SB)/8, $0x0a020a0a02120202
DATA iq1pTab<>+5824(SB)/8, $0x0a020a0a02120a0a
DATA iq1pTab<>+5832(SB)/8, $0x0a020a0a02121212
DATA iq1pTab<>+5840(SB)/8, $0x0a020a0a0a02020a
DATA iq1pTab<>+5848(SB)/8, $0x0a020a0a0a020a02
DATA iq1pTab<>+5856(SB)/8, $0x0a020a0a0a020a0a
DATA iq1pTab<>+5864(SB)/8, $0x0a020a0a0a020a12
DATA iq1pTab<>+5872(SB)/8, $0x0a020a0a0a02120a
DATA iq1pTab<>+5880(SB)/8, $0x0a020a0a0a0a0202
DATA iq1pTab<>+5888(SB)/8, $0x0a020a0a0a0a020a
DATA iq1pTab<>+5896(SB)/8, $0x0a020a0a0a0a0a02
DATA iq1pTab<>+5904(SB)/8, $0x0a020a0a0a0a0a0a
DATA iq1pTab<>+5912(SB)/8, $0x0a020a0a0a0a0a12
DATA iq1pTab<>+5920(SB)/8, $0x0a020a0a0a0a1202
DATA iq1pTab<>+5928(SB)/8, $0x0a020a0a0a0a120a
DATA iq1pTab<>+5936(SB)/8, $0x0a020a0a0a12020a
DATA iq1pTab<>+5944(SB)/8, $0x0a020a0a0a120a02
DATA iq1pTab<>+5952(SB)/8, $0x0a020a0a0a120a0a
DATA iq1pTab<>+5960(SB)/8, $0x0a020a0a0a120a12
DATA iq1pTab<>+5968(SB)/8, $0x0a020a0a0a12120a
DATA iq1pTab<>+5976(SB)/8, $0x0a020a0a12020212
DATA iq1pTab<>+5984(SB)/8, $0x0a020a0a12020a02
DATA iq1pTab<>+5992(SB)/8, $0x0a020a0a12020a0a
DATA iq1pTab<>+6000(SB)/8, $0x0a020a0a12021202
DATA iq1pTab<>+6008(SB)/8, $0x0a020a0a120a020a
DATA iq1pTab<>+6016(SB)/8, $0x0a020a0a120a0a02
DATA iq1pTab<>+6024(SB)/8, $0x0a020a0a120a0a0a
DATA iq1pTab<>+6032(SB)/8, $0x0a020a0a120a0a12
DATA iq1pTab<>+6040(SB)/8, $0x0a020a0a120a120a
DATA iq1pTab<>+6048(SB)/8, $0x0a020a0a120a1212
DATA iq1pTab<>+6056(SB)/8, $0x0a020a0a12120a0a
DATA iq1pTab<>+6064(SB)/8, $0x0a020a0a12121202
DATA iq1pTab<>+6072(SB)/8, $0x0a020a0a12121212
DATA iq1pTab<>+6080(SB)/8, $0x0a020a120202020a
DATA iq1pTab<>+6088(SB)/8, $0x0a020a1202020a0a
DATA iq1pTab<>+6096(SB)/8, $0x0a020a120202120a
DATA iq1pTab<>+6104(SB)/8, $0x0a020a12020a0a02
DATA iq1pTab<>+6112(SB)/8, $0x0a020a12020a0a0a
DATA iq1pTab<>+6120(SB)/8, $0x0a020a12020a1202
DATA iq1pTab<>+6128(SB)/8, $0x0a020a12020a1212
DATA iq1pTab<>+6136(SB)/8, $0x0a020a120212020a
DATA iq1pTab<>+6144(SB)/8, $0x0a020a1202120a02
DATA iq1pTab<>+6152(SB)/8, $0x0a020a120212120a
DATA iq1pTab<>+6160(SB)/8, $0x0a020a120a020202
DATA iq1pTab<>+6168(SB)/8, $0x0a020a120a020212
DATA iq1pTab<>+6176(SB)/8, $0x0a020a120a020a0a
DATA iq1pTab<>+6184(SB)/8, $0x0a020a120a021202
DATA iq1pTab<>+6192(SB)/8, $0x0a020a120a0a0202
DATA iq1pTab<>+6200(SB)/8, $0x0a020a120a0a020a
DATA iq1pTab<>+6208(SB)/8, $0x0a020a120a0a0212
DATA iq1pTab<>+6216(SB)/8, $0x0a020a120a0a0a0a
DATA iq1pTab<>+6224(SB)/8, $0x0a020a120a0a0a12
DATA iq1pTab<>+6232(SB)/8, $0x0a020a120a0a120a
DATA iq1pTab<>+6240(SB)/8, $0x0a020a120a120212
DATA iq1pTab<>+6248(SB)/8, $0x0a020a120a120a0a
DATA iq1pTab<>+6256(SB)/8, $0x0a020a120a121202
DATA iq1pTab<>+6264(SB)/8, $0x0a020a121202020a
DATA iq1pTab<>+6272(SB)/8, $0x0a020a1212020a0a
DATA iq1pTab<>+6280(SB)/8, $0x0a020a1212021212
DATA iq1pTab<>+6288(SB)/8, $0x0a020a12120a0a02
DATA iq1pTab<>+6296(SB)/8, $0x0a020a12120a0a0a
DATA iq1pTab<>+6304(SB)/8, $0x0a020a121212020a
DATA iq1pTab<>+6312(SB)/8, $0x0a020a1212120a02
DATA iq1pTab<>+6320(SB)/8, $0x0a020a1212120a12
DATA iq1pTab<>+6328(SB)/8, $0x0a02120202020a0a
DATA iq1pTab<>+6336(SB)/8, $0x0a021202020a020a
DATA iq1pTab<>+6344(SB)/8, $0x0a021202020a0a0a
DATA iq1pTab<>+6352(SB)/8, $0x0a021202020a1212
DATA iq1pTab<>+6360(SB)/8, $0x0a02120202120a0a
DATA iq1pTab<>+6368(SB)/8, $0x0a0212020a020212
DATA iq1pTab<>+6376(SB)/8, $0x0a0212020a02120a
DATA iq1pTab<>+6384(SB)/8, $0x0a0212020a0a0202
DATA iq1pTab<>+6392(SB)/8, $0x0a0212020a0a0a0a
DATA iq1pTab<>+6400(SB)/8, $0x0a0212020a0a1202
DATA iq1pTab<>+6408(SB)/8, $0x0a0212020a12020a
DATA iq1pTab<>+6416(SB)/8, $0x0a0212020a120a02
DATA iq1pTab<>+6424(SB)/8, $0x0a0212020a120a12
DATA iq1pTab<>+6432(SB)/8, $0x0a0212020a12120a
DATA iq1pTab<>+6440(SB)/8, $0x0a02120212020a0a
DATA iq1pTab<>+6448(SB)/8, $0x0a021202120a020a
DATA iq1pTab<>+6456(SB)/8, $0x0a021202120a0a02
DATA iq1pTab<>+6464(SB)/8, $0x0a021202120a0a12
DATA iq1pTab<>+6472(SB)/8, $0x0a021202120a120a
DATA iq1pTab<>+6480(SB)/8, $0x0a02120212120a0a
DATA iq1pTab<>+6488(SB)/8, $0x0a02120a0202020a
DATA iq1pTab<>+6496(SB)/8, $0x0a02120a02020a0a
DATA iq1pTab<>+6504(SB)/8, $0x0a02120a02020a12
DATA iq1pTab<>+6512(SB)/8, $0x0a02120a02021212
DATA iq1pTab<>+6520(SB)/8, $0x0a02120a020a0202
DATA iq1pTab<>+6528(SB)/8, $0x0a02120a020a0a02
DATA iq1pTab<>+6536(SB)/8, $0x0a02120a020a0a0a
DATA iq1pTab<>+6544(SB)/8, $0x0a02120a020a1202
DATA iq1pTab<>+6552(SB)/8, $0x0a02120a0212020a
DATA iq1pTab<>+6560(SB)/8, $0x0a02120a02120a02
DATA iq1pTab<>+6568(SB)/8, $0x0a02120a02120a12
DATA iq1pTab<>+6576(SB)/8, $0x0a02120a0a020202
DATA iq1pTab<>+6584(SB)/8, $0x0a02120a0a020a0a
DATA iq1pTab<>+6592(SB)/8, $0x0a02120a0a021212
DATA iq1pTab<>+6600(SB)/8, $0x0a02120a0a0a020a
DATA iq1pTab<>+6608(SB)/8, $0x0a02120a0a0a0212
DATA iq1pTab<>+6616(SB)/8, $0x0a02120a0a0a0a02
DATA iq1pTab<>+6624(SB)/8, $0x0a02120a0a0a0a0a
DATA iq1pTab<>+6632(SB)/8, $0x0a02120a0a0a0a12
DATA iq1pTab<>+6640(SB)/8, $0x0a02120a0a0a120a
DATA iq1pTab<>+6648(SB)/8, $0x0a02120a0a120202
DATA iq1pTab<>+6656(SB)/8, $0x0a02120a0a120212
DATA iq1pTab<>+6664(SB)/8, $0x0a02120a0a120a0a
DATA iq1pTab<>+6672(SB)/8, $0x0a02120a0a120a12
DATA iq1pTab<>+6680(SB)/8, $0x0a02120a0a121212
DATA iq1pTab<>+6688(SB)/8, $0x0a02120a12020a12
DATA iq1pTab<>+6696(SB)/8, $0x0a02120a1202120a
DATA iq1pTab<>+6704(SB)/8, $0x0a02120a120a0212
DATA iq1pTab<>+6712(SB)/8, $0x0a02120a120a0a0a
DATA iq1pTab<>+6720(SB)/8, $0x0a02120a120a0a12
DATA iq1pTab<>+6728(SB)/8, $0x0a02120a120a1202
DATA iq1pTab<>+6736(SB)/8, $0x0a02120a1212020a
DATA iq1pTab<>+6744(SB)/8, $0x0a02120a12120a02
DATA iq1pTab<>+6752(SB)/8, $0x0a02120a12120a12
DATA iq1pTab<>+6760(SB)/8, $0x0a02120a1212120a
DATA iq1pTab<>+6768(SB)/8, $0x0a021212020a0a12
DATA iq1pTab<>+6776(SB)/8, $0x0a0212120a020a02
DATA iq1pTab<>+6784(SB)/8, $0x0a0212120a020a12
DATA iq1pTab<>+6792(SB)/8, $0x0a0212120a02120a
DATA iq1pTab<>+6800(SB)/8, $0x0a0212120a0a0a0a
DATA iq1pTab<>+6808(SB)/8, $0x0a0212120a0a1202
DATA iq1pTab<>+6816(SB)/8, $0x0a0212120a0a1212
DATA iq1pTab<>+6824(SB)/8, $0x0a0212120a120a02
DATA iq1pTab<>+6832(SB)/8, $0x0a0212120a12120a
DATA iq1pTab<>+6840(SB)/8, $0x0a021212120a0a02
DATA iq1pTab<>+6848(SB)/8, $0x0a02121212120a0a
DATA iq1pTab<>+6856(SB)/8, $0x0a0a02020202020a
DATA iq1pTab<>+6864(SB)/8, $0x0a0a020202020a02
DATA iq1pTab<>+6872(SB)/8, $0x0a0a020202020a0a
DATA iq1pTab<>+6880(SB)/8, $0x0a0a020202020a12
DATA iq1pTab<>+6888(SB)/8, $0x0a0a02020202120a
DATA iq1pTab<>+6896(SB)/8, $0x0a0a0202020a0212
DATA iq1pTab<>+6904(SB)/8, $0x0a0a0202020a0a0a
DATA iq1pTab<>+6912(SB)/8, $0x0a0a0202020a1212
DATA iq1pTab<>+6920(SB)/8, $0x0a0a02020212020a
DATA iq1pTab<>+6928(SB)/8, $0x0a0a020202120a02
DATA iq1pTab<>+6936(SB)/8, $0x0a0a02020212120a
DATA iq1pTab<>+6944(SB)/8, $0x0a0a02020a020202
DATA iq1pTab<>+6952(SB)/8, $0x0a0a02020a020a0a
DATA iq1pTab<>+6960(SB)/8, $0x0a0a02020a021202
DATA iq1pTab<>+6968(SB)/8, $0x0a0a02020a0a020a
DATA iq1pTab<>+6976(SB)/8, $0x0a0a02020a0a0a02
DATA iq1pTab<>+6984(SB)/8, $0x0a0a02020a0a0a0a
DATA iq1pTab<>+6992(SB)/8, $0x0a0a02020a0a0a12
DATA iq1pTab<>+7000(SB)/8, $0x0a0a02020a0a120a
DATA iq1pTab<>+7008(SB)/8, $0x0a0a02020a120a0a
DATA iq1pTab<>+7016(SB)/8, $0x0a0a02020a121202
DATA iq1pTab<>+7024(SB)/8, $0x0a0a020212020a12
DATA iq1pTab<>+7032(SB)/8, $0x0a0a02021202120a
DATA iq1pTab<>+7040(SB)/8, $0x0a0a0202120a0a0a
DATA iq1pTab<>+7048(SB)/8, $0x0a0a0202120a1202
DATA iq1pTab<>+7056(SB)/8, $0x0a0a020212120202
DATA iq1pTab<>+7064(SB)/8, $0x0a0a02021212020a
DATA iq1pTab<>+7072(SB)/8, $0x0a0a020212120a12
DATA iq1pTab<>+7080(SB)/8, $0x0a0a02021212120a
DATA iq1pTab<>+7088(SB)/8, $0x0a0a020a02020a0a
DATA iq1pTab<>+7096(SB)/8, $0x0a0a020a02021202
DATA iq1pTab<>+7104(SB)/8, $0x0a0a020a0202120a
DATA iq1pTab<>+7112(SB)/8, $0x0a0a020a02021212
DATA iq1pTab<>+7120(SB)/8, $0x0a0a020a020a020a
DATA iq1pTab<>+7128(SB)/8, $0x0a0a020a020a0a02
DATA iq1pTab<>+7136(SB)/8, $0x0a0a020a020a0a0a
DATA iq1pTab<>+7144(SB)/8, $0x0a0a020a020a0a12
DATA iq1pTab<>+7152(SB)/8, $0x0a0a020a020a1202
DATA iq1pTab<>+7160(SB)/8, $0x0a0a020a020a120a
DATA iq1pTab<>+7168(SB)/8, $0x0a0a020a02120202
DATA iq1pTab<>+7176(SB)/8, $0x0a0a020a02120a0a
DATA iq1pTab<>+7184(SB)/8, $0x0a0a020a02120a12
DATA iq1pTab<>+7192(SB)/8, $0x0a0a020a02121202
DATA iq1pTab<>+7200(SB)/8, $0x0a0a020a02121212
DATA iq1pTab<>+7208(SB)/8, $0x0a0a020a0a02020a
DATA iq1pTab<>+7216(SB)/8, $0x0a0a020a0a020a02
DATA iq1pTab<>+7224(SB)/8, $0x0a0a020a0a020a0a
DATA iq1pTab<>+7232(SB)/8, $0x0a0a020a0a020a12
DATA iq1pTab<>+7240(SB)/8, $0x0a0a020a0a02120a
DATA iq1pTab<>+7248(SB)/8, $0x0a0a020a0a0a0202
DATA iq1pTab<>+7256(SB)/8, $0x0a0a020a0a0a020a
DATA iq1pTab<>+7264(SB)/8, $0x0a0a020a0a0a0212
DATA iq1pTab<>+7272(SB)/8, $0x0a0a020a0a0a0a02
DATA iq1pTab<>+7280(SB)/8, $0x0a0a020a0a0a0a0a
DATA iq1pTab<>+7288(SB)/8, $0x0a0a020a0a0a0a12
DATA iq1pTab<>+7296(SB)/8, $0x0a0a020a0a0a1202
DATA iq1pTab<>+7304(SB)/8, $0x0a0a020a0a0a120a
DATA iq1pTab<>+7312(SB)/8, $0x0a0a020a0a0a1212
DATA iq1pTab<>+7320(SB)/8, $0x0a0a020a0a12020a
DATA iq1pTab<>+7328(SB)/8, $0x0a0a020a0a120a02
DATA iq1pTab<>+7336(SB)/8, $0x0a0a020a0a120a0a
DATA iq1pTab<>+7344(SB)/8, $0x0a0a020a0a120a12
DATA iq1pTab<>+7352(SB)/8, $0x0a0a020a0a12120a
DATA iq1pTab<>+7360(SB)/8, $0x0a0a020a12020212
DATA iq1pTab<>+7368(SB)/8, $0x0a0a020a12020a0a
DATA iq1pTab<>+7376(SB)/8, $0x0a0a020a120a020a
DATA iq1pTab<>+7384(SB)/8, $0x0a0a020a120a0a02
DATA iq1pTab<>+7392(SB)/8, $0x0a0a020a120a0a0a
DATA iq1pTab<>+7400(SB)/8, $0x0a0a020a120a0a12
DATA iq1pTab<>+7408(SB)/8, $0x0a0a020a120a120a
DATA iq1pTab<>+7416(SB)/8, $0x0a0a020a12120202
DATA iq1pTab<>+7424(SB)/8, $0x0a0a020a12120a0a
DATA iq1pTab<>+7432(SB)/8, $0x0a0a020a12121212
DATA iq1pTab<>+7440(SB)/8, $0x0a0a02120202020a
DATA iq1pTab<>+7448(SB)/8, $0x0a0a021202020a12
DATA iq1pTab<>+7456(SB)/8, $0x0a0a0212020a0212
DATA iq1pTab<>+7464(SB)/8, $0x0a0a0212020a0a0a
DATA iq1pTab<>+7472(SB)/8, $0x0a0a0212020a1212
DATA iq1pTab<>+7480(SB)/8, $0x0a0a02120212020a
DATA iq1pTab<>+7488(SB)/8, $0x0a0a021202120a02
DATA iq1pTab<>+7496(SB)/8, $0x0a0a02120a020212
DATA iq1pTab<>+7504(SB)/8, $0x0a0a02120a020a0a
DATA iq1pTab<>+7512(SB)/8, $0x0a0a02120a021212
DATA iq1pTab<>+7520(SB)/8, $0x0a0a02120a0a020a
DATA iq1pTab<>+7528(SB)/8, $0x0a0a02120a0a0a02
DATA iq1pTab<>+7536(SB)/8, $0x0a0a02120a0a0a0a
DATA iq1pTab<>+7544(SB)/8, $0x0a0a02120a0a0a12
DATA iq1pTab<>+7552(SB)/8, $0x0a0a02120a0a120a
DATA iq1pTab<>+7560(SB)/8, $0x0a0a02120a120212
DATA iq1pTab<>+7568(SB)/8, $0x0a0a02120a120a0a
DATA iq1pTab<>+7576(SB)/8, $0x0a0a021212020a0a
DATA iq1pTab<>+7584(SB)/8, $0x0a0a0212120a0202
DATA iq1pTab<>+7592(SB)/8, $0x0a0a0212120a0212
DATA iq1pTab<>+7600(SB)/8, $0x0a0a0212120a0a0a
DATA iq1pTab<>+7608(SB)/8, $0x0a0a0212120a120a
DATA iq1pTab<>+7616(SB)/8, $0x0a0a0212120a1212
DATA iq1pTab<>+7624(SB)/8, $0x0a0a021212120a02
DATA iq1pTab<>+7632(SB)/8, $0x0a0a0a0202020a02
DATA iq1pTab<>+7640(SB)/8, $0x0a0a0a0202020a0a
DATA iq1pTab<>+7648(SB)/8, $0x0a0a0a02020a020a
DATA iq1pTab<>+7656(SB)/8, $0x0a0a0a02020a0a02
DATA iq1pTab<>+7664(SB)/8, $0x0a0a0a02020a0a0a
DATA iq1pTab<>+7672(SB)/8, $0x0a0a0a02020a0a12
DATA iq1pTab<>+7680(SB)/8, $0x0a0a0a02020a1202
DATA iq1pTab<>+7688(SB)/8, $0x0a0a0a02020a120a
DATA iq1pTab<>+7696(SB)/8, $0x0a0a0a020212020a
DATA iq1pTab<>+7704(SB)/8, $0x0a0a0a0202120a0a
DATA iq1pTab<>+7712(SB)/8, $0x0a0a0a0202121202
DATA iq1pTab<>+7720(SB)/8, $0x0a0a0a0202121212
DATA iq1pTab<>+7728(SB)/8, $0x0a0a0a020a02020a
DATA iq1pTab<>+7736(SB)/8, $0x0a0a0a020a020a02
DATA iq1pTab<>+7744(SB)/8, $0x0a0a0a020a020a0a
DATA iq1pTab<>+7752(SB)/8, $0x0a0a0a020a020a12
DATA iq1pTab<>+7760(SB)/8, $0x0a0a0a020a02120a
DATA iq1pTab<>+7768(SB)/8, $0x0a0a0a020a021212
DATA iq1pTab<>+7776(SB)/8, $0x0a0a0a020a0a0202
DATA iq1pTab<>+7784(SB)/8, $0x0a0a0a020a0a020a
DATA iq1pTab<>+7792(SB)/8, $0x0a0a0a020a0a0a02
DATA iq1pTab<>+7800(SB)/8, $0x0a0a0a020a0a0a0a
DATA iq1pTab<>+7808(SB)/8, $0x0a0a0a020a0a0a12
DATA iq1pTab<>+7816(SB)/8, $0x0a0a0a020a0a1202
DATA iq1pTab<>+7824(SB)/8, $0x0a0a0a020a0a120a
DATA iq1pTab<>+7832(SB)/8, $0x0a0a0a020a0a1212
DATA iq1pTab<>+7840(SB)/8, $0x0a0a0a020a12020a
DATA iq1pTab<>+7848(SB)/8, $0x0a0a0a020a120212
DATA iq1pTab<>+7856(SB)/8, $0x0a0a0a020a120a02
DATA iq1pTab<>+7864(SB)/8, $0x0a0a0a020a120a0a
DATA iq1pTab<>+7872(SB)/8, $0x0a0a0a020a120a12
DATA iq1pTab<>+7880(SB)/8, $0x0a0a0a020a12120a
DATA iq1pTab<>+7888(SB)/8, $0x0a0a0a0212020202
DATA iq1pTab<>+7896(SB)/8, $0x0a0a0a0212021202
DATA iq1pTab<>+7904(SB)/8, $0x0a0a0a0212021212
DATA iq1pTab<>+7912(SB)/8, $0x0a0a0a02120a020a
DATA iq1pTab<>+7920(SB)/8, $0x0a0a0a02120a0a02
DATA iq1pTab<>+7928(SB)/8, $0x0a0a0a02120a0a0a
DATA iq1pTab<>+7936(SB)/8, $0x0a0a0a02120a0a12
DATA iq1pTab<>+7944(SB)/8, $0x0a0a0a02120a120a
DATA iq1pTab<>+7952(SB)/8, $0x0a0a0a021212020a
DATA iq1pTab<>+7960(SB)/8, $0x0a0a0a0212120a02
DATA iq1pTab<>+7968(SB)/8, $0x0a0a0a0212120a0a
DATA iq1pTab<>+7976(SB)/8, $0x0a0a0a0212121212
DATA iq1pTab<>+7984(SB)/8, $0x0a0a0a0a0202020a
DATA iq1pTab<>+7992(SB)/8, $0x0a0a0a0a02020212
DATA iq1pTab<>+8000(SB)/8, $0x0a0a0a0a02020a02
DATA iq1pTab<>+8008(SB)/8, $0x0a0a0a0a02020a0a
DATA iq1pTab<>+8016(SB)/8, $0x0a0a0a0a02020a12
DATA iq1pTab<>+8024(SB)/8, $0x0a0a0a0a0202120a
DATA iq1pTab<>+8032(SB)/8, $0x0a0a0a0a020a0202
DATA iq1pTab<>+8040(SB)/8, $0x0a0a0a0a020a020a
DATA iq1pTab<>+8048(SB)/8, $0x0a0a0a0a020a0212
DATA iq1pTab<>+8056(SB)/8, $0x0a0a0a0a020a0a02
DATA iq1pTab<>+8064(SB)/8, $0x0a0a0a0a020a0a0a
DATA iq1pTab<>+8072(SB)/8, $0x0a0a0a0a020a0a12
DATA iq1pTab<>+8080(SB)/8, $0x0a0a0a0a020a120a
DATA iq1pTab<>+8088(SB)/8, $0x0a0a0a0a020a1212
DATA iq1pTab<>+8096(SB)/8, $0x0a0a0a0a0212020a
DATA iq1pTab<>+8104(SB)/8, $0x0a0a0a0a02120a02
DATA iq1pTab<>+8112(SB)/8, $0x0a0a0a0a02120a0a
DATA iq1pTab<>+8120(SB)/8, $0x0a0a0a0a02120a12
DATA iq1pTab<>+8128(SB)/8, $0x0a0a0a0a0212120a
DATA iq1pTab<>+8136(SB)/8, $0x0a0a0a0a0a020202
DATA iq1pTab<>+8144(SB)/8, $0x0a0a0a0a0a02020a
DATA iq1pTab<>+8152(SB)/8, $0x0a0a0a0a0a020212
DATA iq1pTab<>+8160(SB)/8, $0x0a0a0a0a0a020a02
DATA iq1pTab<>+8168(SB)/8, $0x0a0a0a0a0a020a0a
DATA iq1pTab<>+8176(SB)/8, $0x0a0a0a0a0a020a12
DATA iq1pTab<>+8184(SB)/8, $0x0a0a0a0a0a021202
DATA iq1pTab<>+8192(SB)/8, $0x0a0a0a0a0a02120a
DATA iq1pTab<>+8200(SB)/8, $0x0a0a0a0a0a0a0202
DATA iq1pTab<>+8208(SB)/8, $0x0a0a0a0a0a0a020a
DATA iq1pTab<>+8216(SB)/8, $0x0a0a0a0a0a0a0212
DATA iq1pTab<>+8224(SB)/8, $0x0a0a0a0a0a0a0a02
DATA iq1pTab<>+8232(SB)/8, $0x0a0a0a0a0a0a0a0a
DATA iq1pTab<>+8240(SB)/8, $0x0a0a0a0a0a0a0a12
DATA iq1pTab<>+8248(SB)/8, $0x0a0a0a0a0a0a1202
DATA iq1pTab<>+8256(SB)/8, $0x0a0a0a0a0a0a120a
DATA iq1pTab<>+8264(SB)/8, $0x0a0a0a0a0a0a1212
DATA iq1pTab<>+8272(SB)/8, $0x0a0a0a0a0a120202
DATA iq1pTab<>+8280(SB)/8, $0x0a0a0a0a0a12020a
DATA iq1pTab<>+8288(SB)/8, $0x0a0a0a0a0a120a02
DATA iq1pTab<>+8296(SB)/8, $0x0a0a0a0a0a120a0a
DATA iq1pTab<>+8304(SB)/8, $0x0a0a0a0a0a120a12
DATA iq1pTab<>+8312(SB)/8, $0x0a0a0a0a0a121202
DATA iq1pTab<>+8320(SB)/8, $0x0a0a0a0a0a12120a
DATA iq1pTab<>+8328(SB)/8, $0x0a0a0a0a0a121212
DATA iq1pTab<>+8336(SB)/8, $0x0a0a0a0a1202020a
DATA iq1pTab<>+8344(SB)/8, $0x0a0a0a0a12020a02
DATA iq1pTab<>+8352(SB)/8, $0x0a0a0a0a12020a0a
DATA iq1pTab<>+8360(SB)/8, $0x0a0a0a0a1202120a
DATA iq1pTab<>+8368(SB)/8, $0x0a0a0a0a12021212
DATA iq1pTab<>+8376(SB)/8, $0x0a0a0a0a120a0202
DATA iq1pTab<>+8384(SB)/8, $0x0a0a0a0a120a020a
DATA iq1pTab<>+8392(SB)/8, $0x0a0a0a0a120a0a02
DATA iq1pTab<>+8400(SB)/8, $0x0a0a0a0a120a0a0a
DATA iq1pTab<>+8408(SB)/8, $0x0a0a0a0a120a0a12
DATA iq1pTab<>+8416(SB)/8, $0x0a0a0a0a120a1202
DATA iq1pTab<>+8424(SB)/8, $0x0a0a0a0a120a120a
DATA iq1pTab<>+8432(SB)/8, $0x0a0a0a0a1212020a
DATA iq1pTab<>+8440(SB)/8, $0x0a0a0a0a12120a02
DATA iq1pTab<>+8448(SB)/8, $0x0a0a0a0a12120a0a
DATA iq1pTab<>+8456(SB)/8, $0x0a0a0a0a12120a12
DATA iq1pTab<>+8464(SB)/8, $0x0a0a0a0a1212120a
DATA iq1pTab<>+8472(SB)/8, $0x0a0a0a1202020202
DATA iq1pTab<>+8480(SB)/8, $0x0a0a0a120202020a
DATA iq1pTab<>+8488(SB)/8, $0x0a0a0a1202020212
DATA iq1pTab<>+8496(SB)/8, $0x0a0a0a1202020a02
DATA iq1pTab<>+8504(SB)/8, $0x0a0a0a1202020a12
DATA iq1pTab<>+8512(SB)/8, $0x0a0a0a1202021202
DATA iq1pTab<>+8520(SB)/8, $0x0a0a0a120202120a
DATA iq1pTab<>+8528(SB)/8, $0x0a0a0a12020a020a
DATA iq1pTab<>+8536(SB)/8, $0x0a0a0a12020a0a02
DATA iq1pTab<>+8544(SB)/8, $0x0a0a0a12020a0a0a
DATA iq1pTab<>+8552(SB)/8, $0x0a0a0a12020a1202
DATA iq1pTab<>+8560(SB)/8, $0x0a0a0a12020a120a
DATA iq1pTab<>+8568(SB)/8, $0x0a0a0a1202120202
DATA iq1pTab<>+8576(SB)/8, $0x0a0a0a120212020a
DATA iq1pTab<>+8584(SB)/8, $0x0a0a0a1202120212
DATA iq1pTab<>+8592(SB)/8, $0x0a0a0a1202120a02
DATA iq1pTab<>+8600(SB)/8, $0x0a0a0a1202120a0a
DATA iq1pTab<>+8608(SB)/8, $0x0a0a0a1202120a12
DATA iq1pTab<>+8616(SB)/8, $0x0a0a0a1202121202
DATA iq1pTab<>+8624(SB)/8, $0x0a0a0a120212120a
DATA iq1pTab<>+8632(SB)/8, $0x0a0a0a120a02020a
DATA iq1pTab<>+8640(SB)/8, $0x0a0a0a120a020a0a
DATA iq1pTab<>+8648(SB)/8, $0x0a0a0a120a020a12
DATA iq1pTab<>+8656(SB)/8, $0x0a0a0a120a021202
DATA iq1pTab<>+8664(SB)/8, $0x0a0a0a120a02120a
DATA iq1pTab<>+8672(SB)/8, $0x0a0a0a120a021212
DATA iq1pTab<>+8680(SB)/8, $0x0a0a0a120a0a0202
DATA iq1pTab<>+8688(SB)/8, $0x0a0a0a120a0a020a
DATA iq1pTab<>+8696(SB)/8, $0x0a0a0a120a0a0212
DATA iq1pTab<>+8704(SB)/8, $0x0a0a0a120a0a0a02
DATA iq1pTab<>+8712(SB)/8, $0x0a0a0a120a0a0a0a
DATA iq1pTab<>+8720(SB)/8, $0x0a0a0a120a0a0a12
DATA iq1pTab<>+8728(SB)/8, $0x0a0a0a120a0a1202
DATA iq1pTab<>+8736(SB)/8, $0x0a0a0a120a0a120a
DATA iq1pTab<>+8744(SB)/8, $0x0a0a0a120a0a1212
DATA iq1pTab<>+8752(SB)/8, $0x0a0a0a120a12020a
DATA iq1pTab<>+8760(SB)/8, $0x0a0a0a120a120a02
DATA iq1pTab<>+8768(SB)/8, $0x0a0a0a120a120a0a
DATA iq1pTab<>+8776(SB)/8, $0x0a0a0a120a12120a
DATA iq1pTab<>+8784(SB)/8, $0x0a0a0a1212020212
DATA iq1pTab<>+8792(SB)/8, $0x0a0a0a1212020a0a
DATA iq1pTab<>+8800(SB)/8, $0x0a0a0a1212020a12
DATA iq1pTab<>+8808(SB)/8, $0x0a0a0a1212021202
DATA iq1pTab<>+8816(SB)/8, $0x0a0a0a121202120a
DATA iq1pTab<>+8824(SB)/8, $0x0a0a0a1212021212
DATA iq1pTab<>+8832(SB)/8, $0x0a0a0a12120a020a
DATA iq1pTab<>+8840(SB)/8, $0x0a0a0a12120a0a0a
DATA iq1pTab<>+8848(SB)/8, $0x0a0a0a12120a1212
DATA iq1pTab<>+8856(SB)/8, $0x0a0a0a1212120212
DATA iq1pTab<>+8864(SB)/8, $0x0a0a0a1212120a0a
DATA iq1pTab<>+8872(SB)/8, $0x0a0a0a1212120a12
DATA iq1pTab<>+8880(SB)/8, $0x0a0a0a1212121202
DATA iq1pTab<>+8888(SB)/8, $0x0a0a0a121212120a
DATA iq1pTab<>+8896(SB)/8, $0x0a0a120202020a02
DATA iq1pTab<>+8904(SB)/8, $0x0a0a120202020a0a
DATA iq1pTab<>+8912(SB)/8, $0x0a0a120202020a12
DATA iq1pTab<>+8920(SB)/8, $0x0a0a12020202120a
DATA iq1pTab<>+8928(SB)/8, $0x0a0a1202020a0202
DATA iq1pTab<>+8936(SB)/8, $0x0a0a1202020a0a0a
DATA iq1pTab<>+8944(SB)/8, $0x0a0a1202020a1202
DATA iq1pTab<>+8952(SB)/8, $0x0a0a12020212020a
DATA iq1pTab<>+8960(SB)/8, $0x0a0a120202121212
DATA iq1pTab<>+8968(SB)/8, $0x0a0a12020a020a0a
DATA iq1pTab<>+8976(SB)/8, $0x0a0a12020a021202
DATA iq1pTab<>+8984(SB)/8, $0x0a0a12020a021212
DATA iq1pTab<>+8992(SB)/8, $0x0a0a12020a0a020a
DATA iq1pTab<>+9000(SB)/8, $0x0a0a12020a0a0a02
DATA iq1pTab<>+9008(SB)/8, $0x0a0a12020a0a0a0a
DATA iq1pTab<>+9016(SB)/8, $0x0a0a12020a0a0a12
DATA iq1pTab<>+9024(SB)/8, $0x0a0a12020a0a1202
DATA iq1pTab<>+9032(SB)/8, $0x0a0a12020a0a120a
DATA iq1pTab<>+9040(SB)/8, $0x0a0a12020a120202
DATA iq1pTab<>+9048(SB)/8, $0x0a0a12020a120212
DATA iq1pTab<>+9056(SB)/8, $0x0a0a12020a120a02
DATA iq1pTab<>+9064(SB)/8, $0x0a0a12020a120a0a
DATA iq1pTab<>+9072(SB)/8, $0x0a0a120212020212
DATA iq1pTab<>+9080(SB)/8, $0x0a0a12021202120a
DATA iq1pTab<>+9088(SB)/8, $0x0a0a1202120a0202
DATA iq1pTab<>+9096(SB)/8, $0x0a0a1202120a0212
DATA iq1pTab<>+9104(SB)/8, $0x0a0a1202120a0a0a
DATA iq1pTab<>+9112(SB)/8, $0x0a0a1202120a1202
DATA iq1pTab<>+9120(SB)/8, $0x0a0a12021212020a
DATA iq1pTab<>+9128(SB)/8, $0x0a0a12021212120a
DATA iq1pTab<>+9136(SB)/8, $0x0a0a120a0202020a
DATA iq1pTab<>+9144(SB)/8, $0x0a0a120a02020212
DATA iq1pTab<>+9152(SB)/8, $0x0a0a120a02020a0a
DATA iq1pTab<>+9160(SB)/8, $0x0a0a120a02021212
DATA iq1pTab<>+9168(SB)/8, $0x0a0a120a020a020a
DATA iq1pTab<>+9176(SB)/8, $0x0a0a120a020a0a02
DATA iq1pTab<>+9184(SB)/8, $0x0a0a120a020a0a0a
DATA iq1pTab<>+9192(SB)/8, $0x0a0a120a020a0a12
DATA iq1pTab<>+9200(SB)/8, $0x0a0a120a020a120a
DATA iq1pTab<>+9208(SB)/8, $0x0a0a120a02120a0a
DATA iq1pTab<>+9216(SB)/8, $0x0a0a120a0a02020a
DATA iq1pTab<>+9224(SB)/8, $0x0a0a120a0a020a02
DATA iq1pTab<>+9232(SB)/8, $0x0a0a120a0a020a0a
DATA iq1pTab<>+9240(SB)/8, $0x0a0a120a0a020a12
DATA iq1pTab<>+9248(SB)/8, $0x0a0a120a0a02120a
DATA iq1pTab<>+9256(SB)/8, $0x0a0a120a0a0a0202
DATA iq1pTab<>+9264(SB)/8, $0x0a0a120a0a0a020a
DATA iq1pTab<>+9272(SB)/8, $0x0a0a120a0a0a0212
DATA iq1pTab<>+9280(SB)/8, $0x0a0a120a0a0a0a02
DATA iq1pTab<>+9288(SB)/8, $0x0a0a120a0a0a0a0a
DATA iq1pTab<>+9296(SB)/8, $0x0a0a120a0a0a0a12
DATA iq1pTab<>+9304(SB)/8, $0x0a0a120a0a0a1202
DATA iq1pTab<>+9312(SB)/8, $0x0a0a120a0a0a120a
DATA iq1pTab<>+9320(SB)/8, $0x0a0a120a0a0a1212
DATA iq1pTab<>+9328(SB)/8, $0x0a0a120a0a12020a
DATA iq1pTab<>+9336(SB)/8, $0x0a0a120a0a120a02
DATA iq1pTab<>+9344(SB)/8, $0x0a0a120a0a120a0a
DATA iq1pTab<>+9352(SB)/8, $0x0a0a120a0a120a12
DATA iq1pTab<>+9360(SB)/8, $0x0a0a120a0a12120a
DATA iq1pTab<>+9368(SB)/8, $0x0a0a120a1202020a
DATA iq1pTab<>+9376(SB)/8, $0x0a0a120a12020a0a
DATA iq1pTab<>+9384(SB)/8, $0x0a0a120a1202120a
DATA iq1pTab<>+9392(SB)/8, $0x0a0a120a120a020a
DATA iq1pTab<>+9400(SB)/8, $0x0a0a120a120a0a02
DATA iq1pTab<>+9408(SB)/8, $0x0a0a120a120a0a0a
DATA iq1pTab<>+9416(SB)/8, $0x0a0a120a120a0a12
DATA iq1pTab<>+9424(SB)/8, $0x0a0a120a120a1202
DATA iq1pTab<>+9432(SB)/8, $0x0a0a120a120a120a
DATA iq1pTab<>+9440(SB)/8, $0x0a0a120a12120a0a
DATA iq1pTab<>+9448(SB)/8, $0x0a0a121202020a02
DATA iq1pTab<>+9456(SB)/8, $0x0a0a121202021202
DATA iq1pTab<>+9464(SB)/8, $0x0a0a1212020a0a0a
DATA iq1pTab<>+9472(SB)/8, $0x0a0a1212020a1212
DATA iq1pTab<>+9480(SB)/8, $0x0a0a121202120202
DATA iq1pTab<>+9488(SB)/8, $0x0a0a121202120a0a
DATA iq1pTab<>+9496(SB)/8, $0x0a0a121202120a12
DATA iq1pTab<>+9504(SB)/8, $0x0a0a12120212120a
DATA iq1pTab<>+9512(SB)/8, $0x0a0a12120a020a0a
DATA iq1pTab<>+9520(SB)/8, $0x0a0a12120a021202
DATA iq1pTab<>+9528(SB)/8, $0x0a0a12120a02120a
DATA iq1pTab<>+9536(SB)/8, $0x0a0a12120a0a020a
DATA iq1pTab<>+9544(SB)/8, $0x0a0a12120a0a0a0a
DATA iq1pTab<>+9552(SB)/8, $0x0a0a12120a0a0a12
DATA iq1pTab<>+9560(SB)/8, $0x0a0a12120a0a1202
DATA iq1pTab<>+9568(SB)/8, $0x0a0a12120a0a120a
DATA iq1pTab<>+9576(SB)/8, $0x0a0a12120a120212
DATA iq1pTab<>+9584(SB)/8, $0x0a0a12120a120a0a
DATA iq1pTab<>+9592(SB)/8, $0x0a0a12120a121202
DATA iq1pTab<>+9600(SB)/8, $0x0a0a12120a121212
DATA iq1pTab<>+9608(SB)/8, $0x0a0a12121202020a
DATA iq1pTab<>+9616(SB)/8, $0x0a0a121212021212
DATA iq1pTab<>+9624(SB)/8, $0x0a0a1212120a0212
DATA iq1pTab<>+9632(SB)/8, $0x0a0a1212120a0a0a
DATA iq1pTab<>+9640(SB)/8, $0x0a0a1212120a0a12
DATA iq1pTab<>+9648(SB)/8, $0x0a0a1212120a1202
DATA iq1pTab<>+9656(SB)/8, $0x0a0a1212120a1212
DATA iq1pTab<>+9664(SB)/8, $0x0a0a12121212020a
DATA iq1pTab<>+9672(SB)/8, $0x0a12020202020a0a
DATA iq1pTab<>+9680(SB)/8, $0x0a120202020a0a02
DATA iq1pTab<>+9688(SB)/8, $0x0a120202020a0a12
DATA iq1pTab<>+9696(SB)/8, $0x0a120202020a120a
DATA iq1pTab<>+9704(SB)/8, $0x0a12020202120a0a
DATA iq1pTab<>+9712(SB)/8, $0x0a1202020a020a02
DATA iq1pTab<>+9720(SB)/8, $0x0a1202020a0a0202
DATA iq1pTab<>+9728(SB)/8, $0x0a1202020a0a0a0a
DATA iq1pTab<>+9736(SB)/8, $0x0a1202020a0a0a12
DATA iq1pTab<>+9744(SB)/8, $0x0a1202020a0a1202
DATA iq1pTab<>+9752(SB)/8, $0x0a1202020a0a1212
DATA iq1pTab<>+9760(SB)/8, $0x0a1202020a12020a
DATA iq1pTab<>+9768(SB)/8, $0x0a1202020a120a02
DATA iq1pTab<>+9776(SB)/8, $0x0a1202020a120a12
DATA iq1pTab<>+9784(SB)/8, $0x0a1202020a12120a
DATA iq1pTab<>+9792(SB)/8, $0x0a1202021202020a
DATA iq1pTab<>+9800(SB)/8, $0x0a120202120a0a12
DATA iq1pTab<>+9808(SB)/8, $0x0a12020212120a0a
DATA iq1pTab<>+9816(SB)/8, $0x0a12020a0202020a
DATA iq1pTab<>+9824(SB)/8, $0x0a12020a02020a02
DATA iq1pTab<>+9832(SB)/8, $0x0a12020a02020a12
DATA iq1pTab<>+9840(SB)/8, $0x0a12020a0202120a
DATA iq1pTab<>+9848(SB)/8, $0x0a12020a020a0212
DATA iq1pTab<>+9856(SB)/8, $0x0a12020a020a0a0a
DATA iq1pTab<>+9864(SB)/8, $0x0a12020a0212020a
DATA iq1pTab<>+9872(SB)/8, $0x0a12020a02120212
DATA iq1pTab<>+9880(SB)/8, $0x0a12020a02120a12
DATA iq1pTab<>+9888(SB)/8, $0x0a12020a0212120a
DATA iq1pTab<>+9896(SB)/8, $0x0a12020a0a020a0a
DATA iq1pTab<>+9904(SB)/8, $0x0a12020a0a02120a
DATA iq1pTab<>+9912(SB)/8, $0x0a12020a0a0a020a
DATA iq1pTab<>+9920(SB)/8, $0x0a12020a0a0a0a0a
DATA iq1pTab<>+9928(SB)/8, $0x0a12020a0a0a0a12
DATA iq1pTab<>+9936(SB)/8, $0x0a12020a0a0a120a
DATA iq1pTab<>+9944(SB)/8, $0x0a12020a0a120a0a
DATA iq1pTab<>+9952(SB)/8, $0x0a12020a0a120a12
DATA iq1pTab<>+9960(SB)/8, $0x0a12020a0a121212
DATA iq1pTab<>+9968(SB)/8, $0x0a12020a12020a02
DATA iq1pTab<>+9976(SB)/8, $0x0a12020a12021212
DATA iq1pTab<>+9984(SB)/8, $0x0a12020a120a0212
DATA iq1pTab<>+9992(SB)/8, $0x0a12020a120a0a0a
DATA iq1pTab<>+10000(SB)/8, $0x0a12020a1212020a
DATA iq1pTab<>+10008(SB)/8, $0x0a12020a12120a12
DATA iq1pTab<>+10016(SB)/8, $0x0a12020a1212120a
DATA iq1pTab<>+10024(SB)/8, $0x0a120212020a020a
DATA iq1pTab<>+10032(SB)/8, $0x0a120212020a0a12
DATA iq1pTab<>+10040(SB)/8, $0x0a120212020a120a
DATA iq1pTab<>+10048(SB)/8, $0x0a1202120a020202
DATA iq1pTab<>+10056(SB)/8, $0x0a1202120a02020a
DATA iq1pTab<>+10064(SB)/8, $0x0a1202120a020a12
DATA iq1pTab<>+10072(SB)/8, $0x0a1202120a0a0a0a
DATA iq1pTab<>+10080(SB)/8, $0x0a1202120a0a0a12
DATA iq1pTab<>+10088(SB)/8, $0x0a1202120a0a1202
DATA iq1pTab<>+10096(SB)/8, $0x0a1202120a120202
DATA iq1pTab<>+10104(SB)/8, $0x0a12021212020a0a
DATA iq1pTab<>+10112(SB)/8, $0x0a120212120a020a
DATA iq1pTab<>+10120(SB)/8, $0x0a120212120a0a12
DATA iq1pTab<>+10128(SB)/8, $0x0a12021212120a0a
DATA iq1pTab<>+10136(SB)/8, $0x0a120a02020a020a
DATA iq1pTab<>+10144(SB)/8, $0x0a120a02020a0212
DATA iq1pTab<>+10152(SB)/8, $0x0a120a02020a0a0a
DATA iq1pTab<>+10160(SB)/8, $0x0a120a02020a0a12
DATA iq1pTab<>+10168(SB)/8, $0x0a120a02020a1212
DATA iq1pTab<>+10176(SB)/8, $0x0a120a020212020a
DATA iq1pTab<>+10184(SB)/8, $0x0a120a0202120a12
DATA iq1pTab<>+10192(SB)/8, $0x0a120a020212120a
DATA iq1pTab<>+10200(SB)/8, $0x0a120a020a020202
DATA iq1pTab<>+10208(SB)/8, $0x0a120a020a020212
DATA iq1pTab<>+10216(SB)/8, $0x0a120a020a020a0a
DATA iq1pTab<>+10224(SB)/8, $0x0a120a020a021202
DATA iq1pTab<>+10232(SB)/8, $0x0a120a020a021212
DATA iq1pTab<>+10240(SB)/8, $0x0a120a020a0a020a
DATA iq1pTab<>+10248(SB)/8, $0x0a120a020a0a0a02
DATA iq1pTab<>+10256(SB)/8, $0x0a120a020a0a0a0a
DATA iq1pTab<>+10264(SB)/8, $0x0a120a020a0a0a12
DATA iq1pTab<>+10272(SB)/8, $0x0a120a020a0a120a
DATA iq1pTab<>+10280(SB)/8, $0x0a120a020a0a1212
DATA iq1pTab<>+10288(SB)/8, $0x0a120a020a120202
DATA iq1pTab<>+10296(SB)/8, $0x0a120a020a120212
DATA iq1pTab<>+10304(SB)/8, $0x0a120a020a120a0a
DATA iq1pTab<>+10312(SB)/8, $0x0a120a0212020a02
DATA iq1pTab<>+10320(SB)/8, $0x0a120a0212020a0a
DATA iq1pTab<>+10328(SB)/8, $0x0a120a021202120a
DATA iq1pTab<>+10336(SB)/8, $0x0a120a02120a0202
DATA iq1pTab<>+10344(SB)/8, $0x0a120a02120a0212
DATA iq1pTab<>+10352(SB)/8, $0x0a120a02120a0a02
DATA iq1pTab<>+10360(SB)/8, $0x0a120a02120a0a0a
DATA iq1pTab<>+10368(SB)/8, $0x0a120a02120a0a12
DATA iq1pTab<>+10376(SB)/8, $0x0a120a02120a1202
DATA iq1pTab<>+10384(SB)/8, $0x0a120a02120a1212
DATA iq1pTab<>+10392(SB)/8, $0x0a120a021212020a
DATA iq1pTab<>+10400(SB)/8, $0x0a120a0212120a02
DATA iq1pTab<>+10408(SB)/8, $0x0a120a021212120a
DATA iq1pTab<>+10416(SB)/8, $0x0a120a0a02020a0a
DATA iq1pTab<>+10424(SB)/8, $0x0a120a0a02021202
DATA iq1pTab<>+10432(SB)/8, $0x0a120a0a02021212
DATA iq1pTab<>+10440(SB)/8, $0x0a120a0a020a020a
DATA iq1pTab<>+10448(SB)/8, $0x0a120a0a020a0a0a
DATA iq1pTab<>+10456(SB)/8, $0x0a120a0a020a0a12
DATA iq1pTab<>+10464(SB)/8, $0x0a120a0a020a120a
DATA iq1pTab<>+10472(SB)/8, $0x0a120a0a0a020a02
DATA iq1pTab<>+10480(SB)/8, $0x0a120a0a0a020a0a
DATA iq1pTab<>+10488(SB)/8, $0x0a120a0a0a020a12
DATA iq1pTab<>+10496(SB)/8, $0x0a120a0a0a02120a
DATA iq1pTab<>+10504(SB)/8, $0x0a120a0a0a0a0202
DATA iq1pTab<>+10512(SB)/8, $0x0a120a0a0a0a020a
DATA iq1pTab<>+10520(SB)/8, $0x0a120a0a0a0a0a02
DATA iq1pTab<>+10528(SB)/8, $0x0a120a0a0a0a0a0a
DATA iq1pTab<>+10536(SB)/8, $0x0a120a0a0a0a0a12
DATA iq1pTab<>+10544(SB)/8, $0x0a120a0a0a0a120a
DATA iq1pTab<>+10552(SB)/8, $0x0a120a0a0a12020a
DATA iq1pTab<>+10560(SB)/8, $0x0a120a0a0a120a02
DATA iq1pTab<>+10568(SB)/8, $0x0a120a0a0a120a0a
DATA iq1pTab<>+10576(SB)/8, $0x0a120a0a0a120a12
DATA iq1pTab<>+10584(SB)/8, $0x0a120a0a0a12120a
DATA iq1pTab<>+10592(SB)/8, $0x0a120a0a12020a12
DATA iq1pTab<>+10600(SB)/8, $0x0a120a0a1202120a
DATA iq1pTab<>+10608(SB)/8, $0x0a120a0a12021212
DATA iq1pTab<>+10616(SB)/8, $0x0a120a0a120a020a
DATA iq1pTab<>+10624(SB)/8, $0x0a120a0a120a0a0a
DATA iq1pTab<>+10632(SB)/8, $0x0a120a0a120a0a12
DATA iq1pTab<>+10640(SB)/8, $0x0a120a0a120a120a
DATA iq1pTab<>+10648(SB)/8, $0x0a120a0a120a1212
DATA iq1pTab<>+10656(SB)/8, $0x0a120a0a12120212
DATA iq1pTab<>+10664(SB)/8, $0x0a120a0a12120a0a
DATA iq1pTab<>+10672(SB)/8, $0x0a120a0a12120a12
DATA iq1pTab<>+10680(SB)/8, $0x0a120a0a12121202
DATA iq1pTab<>+10688(SB)/8, $0x0a120a1202020212
DATA iq1pTab<>+10696(SB)/8, $0x0a120a120202120a
DATA iq1pTab<>+10704(SB)/8, $0x0a120a12020a0a0a
DATA iq1pTab<>+10712(SB)/8, $0x0a120a1202120202
DATA iq1pTab<>+10720(SB)/8, $0x0a120a1202120a12
DATA iq1pTab<>+10728(SB)/8, $0x0a120a1202121202
DATA iq1pTab<>+10736(SB)/8, $0x0a120a120212120a
DATA iq1pTab<>+10744(SB)/8, $0x0a120a120a020202
DATA iq1pTab<>+10752(SB)/8, $0x0a120a120a020a0a
DATA iq1pTab<>+10760(SB)/8, $0x0a120a120a021202
DATA iq1pTab<>+10768(SB)/8, $0x0a120a120a021212
DATA iq1pTab<>+10776(SB)/8, $0x0a120a120a0a020a
DATA iq1pTab<>+10784(SB)/8, $0x0a120a120a0a0a02
DATA iq1pTab<>+10792(SB)/8, $0x0a120a120a0a0a0a
DATA iq1pTab<>+10800(SB)/8, $0x0a120a120a0a0a12
DATA iq1pTab<>+10808(SB)/8, $0x0a120a120a0a1202
DATA iq1pTab<>+10816(SB)/8, $0x0a120a120a0a1212
DATA iq1pTab<>+10824(SB)/8, $0x0a120a120a120202
DATA iq1pTab<>+10832(SB)/8, $0x0a120a120a120a0a
DATA iq1pTab<>+10840(SB)/8, $0x0a120a120a121202
DATA iq1pTab<>+10848(SB)/8, $0x0a120a1212020202
DATA iq1pTab<>+10856(SB)/8, $0x0a120a1212020212
DATA iq1pTab<>+10864(SB)/8, $0x0a120a1212020a0a
DATA iq1pTab<>+10872(SB)/8, $0x0a120a1212021212
DATA iq1pTab<>+10880(SB)/8, $0x0a120a12120a0a02
DATA iq1pTab<>+10888(SB)/8, $0x0a120a12120a0a12
DATA iq1pTab<>+10896(SB)/8, $0x0a120a12120a1202
DATA iq1pTab<>+10904(SB)/8, $0x0a120a12120a120a
DATA iq1pTab<>+10912(SB)/8, $0x0a120a1212120202
DATA iq1pTab<>+10920(SB)/8, $0x0a120a1212120a02
DATA iq1pTab<>+10928(SB)/8, $0x0a120a1212120a12
DATA iq1pTab<>+10936(SB)/8, $0x0a120a1212121212
DATA iq1pTab<>+10944(SB)/8, $0x0a121202020a0a12
DATA iq1pTab<>+10952(SB)/8, $0x0a121202020a120a
DATA iq1pTab<>+10960(SB)/8, $0x0a12120202120a0a
DATA iq1pTab<>+10968(SB)/8, $0x0a1212020a02020a
DATA iq1pTab<>+10976(SB)/8, $0x0a1212020a0a0212
DATA iq1pTab<>+10984(SB)/8, $0x0a1212020a0a0a0a
DATA iq1pTab<>+10992(SB)/8, $0x0a1212020a0a1212
DATA iq1pTab<>+11000(SB)/8, $0x0a1212020a12020a
DATA iq1pTab<>+11008(SB)/8, $0x0a1212020a12120a
DATA iq1pTab<>+11016(SB)/8, $0x0a12120212020a0a
DATA iq1pTab<>+11024(SB)/8, $0x0a121202120a020a
DATA iq1pTab<>+11032(SB)/8, $0x0a121202120a1202
DATA iq1pTab<>+11040(SB)/8, $0x0a12120212120a12
DATA iq1pTab<>+11048(SB)/8, $0x0a12120a0202020a
DATA iq1pTab<>+11056(SB)/8, $0x0a12120a02020a02
DATA iq1pTab<>+11064(SB)/8, $0x0a12120a020a0202
DATA iq1pTab<>+11072(SB)/8, $0x0a12120a020a0a0a
DATA iq1pTab<>+11080(SB)/8, $0x0a12120a0212020a
DATA iq1pTab<>+11088(SB)/8, $0x0a12120a02120a02
DATA iq1pTab<>+11096(SB)/8, $0x0a12120a02120a12
DATA iq1pTab<>+11104(SB)/8, $0x0a12120a0212120a
DATA iq1pTab<>+11112(SB)/8, $0x0a12120a0a020202
DATA iq1pTab<>+11120(SB)/8, $0x0a12120a0a02020a
DATA iq1pTab<>+11128(SB)/8, $0x0a12120a0a020a0a
DATA iq1pTab<>+11136(SB)/8, $0x0a12120a0a020a12
DATA iq1pTab<>+11144(SB)/8, $0x0a12120a0a021202
DATA iq1pTab<>+11152(SB)/8, $0x0a12120a0a0a020a
DATA iq1pTab<>+11160(SB)/8, $0x0a12120a0a0a0a02
DATA iq1pTab<>+11168(SB)/8, $0x0a12120a0a0a0a0a
DATA iq1pTab<>+11176(SB)/8, $0x0a12120a0a0a0a12
DATA iq1pTab<>+11184(SB)/8, $0x0a12120a0a0a120a
DATA iq1pTab<>+11192(SB)/8, $0x0a12120a0a120202
DATA iq1pTab<>+11200(SB)/8, $0x0a12120a0a120a0a
DATA iq1pTab<>+11208(SB)/8, $0x0a12120a0a121212
DATA iq1pTab<>+11216(SB)/8, $0x0a12120a12020212
DATA iq1pTab<>+11224(SB)/8, $0x0a12120a12020a02
DATA iq1pTab<>+11232(SB)/8, $0x0a12120a12021212
DATA iq1pTab<>+11240(SB)/8, $0x0a12120a120a0a0a
DATA iq1pTab<>+11248(SB)/8, $0x0a12120a1212020a
DATA iq1pTab<>+11256(SB)/8, $0x0a12120a12120a02
DATA iq1pTab<>+11264(SB)/8, $0x0a12120a12120a0a
DATA iq1pTab<>+11272(SB)/8, $0x0a12120a1212120a
DATA iq1pTab<>+11280(SB)/8, $0x0a121212020a020a
DATA iq1pTab<>+11288(SB)/8, $0x0a121212020a0a12
DATA iq1pTab<>+11296(SB)/8, $0x0a121212020a1202
DATA iq1pTab<>+11304(SB)/8, $0x0a1212120a02020a
DATA iq1pTab<>+11312(SB)/8, $0x0a1212120a020a02
DATA iq1pTab<>+11320(SB)/8, $0x0a1212120a02120a
DATA iq1pTab<>+11328(SB)/8, $0x0a1212120a0a0202
DATA iq1pTab<>+11336(SB)/8, $0x0a1212120a0a0a0a
DATA iq1pTab<>+11344(SB)/8, $0x0a1212120a0a1202
DATA iq1pTab<>+11352(SB)/8, $0x0a1212120a0a1212
DATA iq1pTab<>+11360(SB)/8, $0x0a1212120a120a02
DATA iq1pTab<>+11368(SB)/8, $0x0a1212120a120a0a
DATA iq1pTab<>+11376(SB)/8, $0x0a1212120a12120a
DATA iq1pTab<>+11384(SB)/8, $0x0a12121212020a12
DATA iq1pTab<>+11392(SB)/8, $0x0a121212120a0a02
DATA iq1pTab<>+11400(SB)/8, $0x0a121212120a1202
DATA iq1pTab<>+11408(SB)/8, $0x0a121212120a1212
DATA iq1pTab<>+11416(SB)/8, $0x0a12121212120a12
DATA iq1pTab<>+11424(SB)/8, $0x1202020202020202
DATA iq1pTab<>+11432(SB)/8, $0x1202020202020212
DATA iq1pTab<>+11440(SB)/8, $0x1202020202021202
DATA iq1pTab<>+11448(SB)/8, $0x1202020202021212
DATA iq1pTab<>+11456(SB)/8, $0x1202020202120202
DATA iq1pTab<>+11464(SB)/8, $0x1202020202120212
DATA iq1pTab<>+11472(SB)/8, $0x1202020202121202
DATA iq1pTab<>+11480(SB)/8, $0x1202020202121212
DATA iq1pTab<>+11488(SB)/8, $0x120202020a020a0a
DATA iq1pTab<>+11496(SB)/8, $0x120202020a0a0202
DATA iq1pTab<>+11504(SB)/8, $0x120202020a0a020a
DATA iq1pTab<>+11512(SB)/8, $0x120202020a0a0a02
DATA iq1pTab<>+11520(SB)/8, $0x120202020a0a0a12
DATA iq1pTab<>+11528(SB)/8, $0x120202020a0a120a
DATA iq1pTab<>+11536(SB)/8, $0x120202020a120a0a
DATA iq1pTab<>+11544(SB)/8, $0x1202020212020202
DATA iq1pTab<>+11552(SB)/8, $0x1202020212020212
DATA iq1pTab<>+11560(SB)/8, $0x1202020212021202
DATA iq1pTab<>+11568(SB)/8, $0x1202020212021212
DATA iq1pTab<>+11576(SB)/8, $0x12020202120a0a0a
DATA iq1pTab<>+11584(SB)/8, $0x1202020212120202
DATA iq1pTab<>+11592(SB)/8, $0x1202020212120212
DATA iq1pTab<>+11600(SB)/8, $0x1202020212121202
DATA iq1pTab<>+11608(SB)/8, $0x1202020212121212
DATA iq1pTab<>+11616(SB)/8, $0x1202020a02020a0a
DATA iq1pTab<>+11624(SB)/8, $0x1202020a020a020a
DATA iq1pTab<>+11632(SB)/8, $0x1202020a020a0a02
DATA iq1pTab<>+11640(SB)/8, $0x1202020a020a0a12
DATA iq1pTab<>+11648(SB)/8, $0x1202020a020a120a
DATA iq1pTab<>+11656(SB)/8, $0x1202020a02120a0a
DATA iq1pTab<>+11664(SB)/8, $0x1202020a0a02020a
DATA iq1pTab<>+11672(SB)/8, $0x1202020a0a020a02
DATA iq1pTab<>+11680(SB)/8, $0x1202020a0a02120a
DATA iq1pTab<>+11688(SB)/8, $0x1202020a0a0a0202
DATA iq1pTab<>+11696(SB)/8, $0x1202020a0a0a0212
DATA iq1pTab<>+11704(SB)/8, $0x1202020a0a0a0a0a
DATA iq1pTab<>+11712(SB)/8, $0x1202020a0a0a0a12
DATA iq1pTab<>+11720(SB)/8, $0x1202020a0a0a1202
DATA iq1pTab<>+11728(SB)/8, $0x1202020a0a0a120a
DATA iq1pTab<>+11736(SB)/8, $0x1202020a0a120a02
DATA iq1pTab<>+11744(SB)/8, $0x1202020a0a120a12
DATA iq1pTab<>+11752(SB)/8, $0x1202020a0a12120a
DATA iq1pTab<>+11760(SB)/8, $0x1202020a12020a0a
DATA iq1pTab<>+11768(SB)/8, $0x1202020a1202120a
DATA iq1pTab<>+11776(SB)/8, $0x1202020a120a0a02
DATA iq1pTab<>+11784(SB)/8, $0x1202020a120a0a12
DATA iq1pTab<>+11792(SB)/8, $0x1202020a120a120a
DATA iq1pTab<>+11800(SB)/8, $0x1202020a12120a0a
DATA iq1pTab<>+11808(SB)/8, $0x1202021202020202
DATA iq1pTab<>+11816(SB)/8, $0x1202021202020212
DATA iq1pTab<>+11824(SB)/8, $0x1202021202021202
DATA iq1pTab<>+11832(SB)/8, $0x1202021202021212
DATA iq1pTab<>+11840(SB)/8, $0x12020212020a0a0a
DATA iq1pTab<>+11848(SB)/8, $0x1202021202120202
DATA iq1pTab<>+11856(SB)/8, $0x1202021202120212
DATA iq1pTab<>+11864(SB)/8, $0x1202021202121202
DATA iq1pTab<>+11872(SB)/8, $0x1202021202121212
DATA iq1pTab<>+11880(SB)/8, $0x120202120a0a020a
DATA iq1pTab<>+11888(SB)/8, $0x120202120a0a0a02
DATA iq1pTab<>+11896(SB)/8, $0x120202120a0a120a
DATA iq1pTab<>+11904(SB)/8, $0x120202120a120a0a
DATA iq1pTab<>+11912(SB)/8, $0x1202021212020202
DATA iq1pTab<>+11920(SB)/8, $0x1202021212020212
DATA iq1pTab<>+11928(SB)/8, $0x1202021212021202
DATA iq1pTab<>+11936(SB)/8, $0x1202021212021212
DATA iq1pTab<>+11944(SB)/8, $0x12020212120a0a0a
DATA iq1pTab<>+11952(SB)/8, $0x1202021212120202
DATA iq1pTab<>+11960(SB)/8, $0x1202021212120212
DATA iq1pTab<>+11968(SB)/8, $0x1202021212121202
DATA iq1pTab<>+11976(SB)/8, $0x1202021212121212
DATA iq1pTab<>+11984(SB)/8, $0x12020a02020a0a02
DATA iq1pTab<>+11992(SB)/8, $0x12020a02020a120a
DATA iq1pTab<>+12000(SB)/8, $0x12020a020a02020a
DATA iq1pTab<>+12008(SB)/8, $0x12020a020a020a02
DATA iq1pTab<>+12016(SB)/8, $0x12020a020a0a020a
DATA iq1pTab<>+12024(SB)/8, $0x12020a020a0a0a0a
DATA iq1pTab<>+12032(SB)/8, $0x12020a020a0a1212
DATA iq1pTab<>+12040(SB)/8, $0x12020a020a12020a
DATA iq1pTab<>+12048(SB)/8, $0x12020a020a120a02
DATA iq1pTab<>+12056(SB)/8, $0x12020a020a12120a
DATA iq1pTab<>+12064(SB)/8, $0x12020a02120a0a02
DATA iq1pTab<>+12072(SB)/8, $0x12020a02120a120a
DATA iq1pTab<>+12080(SB)/8, $0x12020a0a0202020a
DATA iq1pTab<>+12088(SB)/8, $0x12020a0a0202120a
DATA iq1pTab<>+12096(SB)/8, $0x12020a0a020a0212
DATA iq1pTab<>+12104(SB)/8, $0x12020a0a020a0a0a
DATA iq1pTab<>+12112(SB)/8, $0x12020a0a020a1212
DATA iq1pTab<>+12120(SB)/8, $0x12020a0a02120a12
DATA iq1pTab<>+12128(SB)/8, $0x12020a0a0212120a
DATA iq1pTab<>+12136(SB)/8, $0x12020a0a0a020202
DATA iq1pTab<>+12144(SB)/8, $0x12020a0a0a02020a
DATA iq1pTab<>+12152(SB)/8, $0x12020a0a0a020a0a
DATA iq1pTab<>+12160(SB)/8, $0x12020a0a0a021202
DATA iq1pTab<>+12168(SB)/8, $0x12020a0a0a0a020a
DATA iq1pTab<>+12176(SB)/8, $0x12020a0a0a0a0a02
DATA iq1pTab<>+12184(SB)/8, $0x12020a0a0a0a0a0a
DATA iq1pTab<>+12192(SB)/8, $0x12020a0a0a0a0a12
DATA iq1pTab<>+12200(SB)/8, $0x12020a0a0a0a120a
DATA iq1pTab<>+12208(SB)/8, $0x12020a0a0a0a1212
DATA iq1pTab<>+12216(SB)/8, $0x12020a0a0a120a0a
DATA iq1pTab<>+12224(SB)/8, $0x12020a0a0a120a12
DATA iq1pTab<>+12232(SB)/8, $0x12020a0a0a121202
DATA iq1pTab<>+12240(SB)/8, $0x12020a0a0a121212
DATA iq1pTab<>+12248(SB)/8, $0x12020a0a1202020a
DATA iq1pTab<>+12256(SB)/8, $0x12020a0a12020a02
DATA iq1pTab<>+12264(SB)/8, $0x12020a0a12020a12
DATA iq1pTab<>+12272(SB)/8, $0x12020a0a1202120a
DATA iq1pTab<>+12280(SB)/8, $0x12020a0a120a0202
DATA iq1pTab<>+12288(SB)/8, $0x12020a0a120a0212
DATA iq1pTab<>+12296(SB)/8, $0x12020a0a120a0a0a
DATA iq1pTab<>+12304(SB)/8, $0x12020a0a120a1202
DATA iq1pTab<>+12312(SB)/8, $0x12020a0a12120a12
DATA iq1pTab<>+12320(SB)/8, $0x12020a12020a020a
DATA iq1pTab<>+12328(SB)/8, $0x12020a12020a0a12
DATA iq1pTab<>+12336(SB)/8, $0x12020a12020a120a
DATA iq1pTab<>+12344(SB)/8, $0x12020a1202120a0a
DATA iq1pTab<>+12352(SB)/8, $0x12020a120a02020a
DATA iq1pTab<>+12360(SB)/8, $0x12020a120a020a02
DATA iq1pTab<>+12368(SB)/8, $0x12020a120a02120a
DATA iq1pTab<>+12376(SB)/8, $0x12020a120a021212
DATA iq1pTab<>+12384(SB)/8, $0x12020a120a0a0202
DATA iq1pTab<>+12392(SB)/8, $0x12020a120a0a0a0a
DATA iq1pTab<>+12400(SB)/8, $0x12020a120a0a120a
DATA iq1pTab<>+12408(SB)/8, $0x12020a120a0a1212
DATA iq1pTab<>+12416(SB)/8, $0x12020a120a12020a
DATA iq1pTab<>+12424(SB)/8, $0x12020a120a120a12
DATA iq1pTab<>+12432(SB)/8, $0x12020a120a121212
DATA iq1pTab<>+12440(SB)/8, $0x12020a1212020a0a
DATA iq1pTab<>+12448(SB)/8, $0x12020a12120a020a
DATA iq1pTab<>+12456(SB)/8, $0x12020a12120a1212
DATA iq1pTab<>+12464(SB)/8, $0x12020a1212120a02
DATA iq1pTab<>+12472(SB)/8, $0x1202120202020202
DATA iq1pTab<>+12480(SB)/8, $0x1202120202020212
DATA iq1pTab<>+12488(SB)/8, $0x1202120202021202
DATA iq1pTab<>+12496(SB)/8, $0x1202120202021212
DATA iq1pTab<>+12504(SB)/8, $0x12021202020a0a0a
DATA iq1pTab<>+12512(SB)/8, $0x1202120202120202
DATA iq1pTab<>+12520(SB)/8, $0x1202120202120212
DATA iq1pTab<>+12528(SB)/8, $0x1202120202121202
DATA iq1pTab<>+12536(SB)/8, $0x1202120202121212
DATA iq1pTab<>+12544(SB)/8, $0x120212020a02020a
DATA iq1pTab<>+12552(SB)/8, $0x120212020a020a0a
DATA iq1pTab<>+12560(SB)/8, $0x120212020a0a020a
DATA iq1pTab<>+12568(SB)/8, $0x120212020a0a0a02
DATA iq1pTab<>+12576(SB)/8, $0x120212020a0a120a
DATA iq1pTab<>+12584(SB)/8, $0x120212020a120a0a
DATA iq1pTab<>+12592(SB)/8, $0x120212020a12120a
DATA iq1pTab<>+12600(SB)/8, $0x1202120212020202
DATA iq1pTab<>+12608(SB)/8, $0x1202120212020212
DATA iq1pTab<>+12616(SB)/8, $0x1202120212021202
DATA iq1pTab<>+12624(SB)/8, $0x1202120212021212
DATA iq1pTab<>+12632(SB)/8, $0x12021202120a0a0a
DATA iq1pTab<>+12640(SB)/8, $0x1202120212120202
DATA iq1pTab<>+12648(SB)/8, $0x1202120212120212
DATA iq1pTab<>+12656(SB)/8, $0x1202120212121202
DATA iq1pTab<>+12664(SB)/8, $0x1202120212121212
DATA iq1pTab<>+12672(SB)/8, $0x1202120a02020a0a
DATA iq1pTab<>+12680(SB)/8, $0x1202120a02020a12
DATA iq1pTab<>+12688(SB)/8, $0x1202120a020a020a
DATA iq1pTab<>+12696(SB)/8, $0x1202120a020a0a02
DATA iq1pTab<>+12704(SB)/8, $0x1202120a020a0a12
DATA iq1pTab<>+12712(SB)/8, $0x1202120a02120a0a
DATA iq1pTab<>+12720(SB)/8, $0x1202120a0a02020a
DATA iq1pTab<>+12728(SB)/8, $0x1202120a0a020a02
DATA iq1pTab<>+12736(SB)/8, $0x1202120a0a020a12
DATA iq1pTab<>+12744(SB)/8, $0x1202120a0a02120a
DATA iq1pTab<>+12752(SB)/8, $0x1202120a0a0a0202
DATA iq1pTab<>+12760(SB)/8, $0x1202120a0a0a0212
DATA iq1pTab<>+12768(SB)/8, $0x1202120a0a0a0a0a
DATA iq1pTab<>+12776(SB)/8, $0x1202120a0a0a1212
DATA iq1pTab<>+12784(SB)/8, $0x1202120a0a12020a
DATA iq1pTab<>+12792(SB)/8, $0x1202120a0a120a02
DATA iq1pTab<>+12800(SB)/8, $0x1202120a12020a0a
DATA iq1pTab<>+12808(SB)/8, $0x1202120a120a0a12
DATA iq1pTab<>+12816(SB)/8, $0x1202120a120a120a
DATA iq1pTab<>+12824(SB)/8, $0x1202120a12120a0a
DATA iq1pTab<>+12832(SB)/8, $0x1202121202020202
DATA iq1pTab<>+12840(SB)/8, $0x1202121202020212
DATA iq1pTab<>+12848(SB)/8, $0x1202121202021202
DATA iq1pTab<>+12856(SB)/8, $0x1202121202021212
DATA iq1pTab<>+12864(SB)/8, $0x12021212020a0a0a
DATA iq1pTab<>+12872(SB)/8, $0x1202121202120202
DATA iq1pTab<>+12880(SB)/8, $0x1202121202120212
DATA iq1pTab<>+12888(SB)/8, $0x1202121202121202
DATA iq1pTab<>+12896(SB)/8, $0x1202121202121212
DATA iq1pTab<>+12904(SB)/8, $0x120212120a020a0a
DATA iq1pTab<>+12912(SB)/8, $0x120212120a0a020a
DATA iq1pTab<>+12920(SB)/8, $0x120212120a0a0a02
DATA iq1pTab<>+12928(SB)/8, $0x120212120a0a0a12
DATA iq1pTab<>+12936(SB)/8, $0x1202121212020202
DATA iq1pTab<>+12944(SB)/8, $0x1202121212020212
DATA iq1pTab<>+12952(SB)/8, $0x1202121212021202
DATA iq1pTab<>+12960(SB)/8, $0x1202121212021212
DATA iq1pTab<>+12968(SB)/8, $0x12021212120a0a0a
DATA iq1pTab<>+12976(SB)/8, $0x1202121212120202
DATA iq1pTab<>+12984(SB)/8, $0x1202121212120212
DATA iq1pTab<>+12992(SB)/8, $0x1202121212121202
DATA iq1pTab<>+13000(SB)/8, $0x1202121212121212
DATA iq1pTab<>+13008(SB)/8, $0x120a020202020a0a
DATA iq1pTab<>+13016(SB)/8, $0x120a0202020a020a
DATA iq1pTab<>+13024(SB)/8, $0x120a0202020a0a12
DATA iq1pTab<>+13032(SB)/8, $0x120a0202020a1202
DATA iq1pTab<>+13040(SB)/8, $0x120a0202020a120a
DATA iq1pTab<>+13048(SB)/8, $0x120a020202120a0a
DATA iq1pTab<>+13056(SB)/8, $0x120a02020a02020a
DATA iq1pTab<>+13064(SB)/8, $0x120a02020a020a12
DATA iq1pTab<>+13072(SB)/8, $0x120a02020a02120a
DATA iq1pTab<>+13080(SB)/8, $0x120a02020a0a0a0a
DATA iq1pTab<>+13088(SB)/8, $0x120a02020a0a1202
DATA iq1pTab<>+13096(SB)/8, $0x120a02020a0a1212
DATA iq1pTab<>+13104(SB)/8, $0x120a02020a12120a
DATA iq1pTab<>+13112(SB)/8, $0x120a02020a121212
DATA iq1pTab<>+13120(SB)/8, $0x120a020212020a0a
DATA iq1pTab<>+13128(SB)/8, $0x120a0202120a020a
DATA iq1pTab<>+13136(SB)/8, $0x120a0202120a0a02
DATA iq1pTab<>+13144(SB)/8, $0x120a0202120a0a12
DATA iq1pTab<>+13152(SB)/8, $0x120a0202120a120a
DATA iq1pTab<>+13160(SB)/8, $0x120a020212120a0a
DATA iq1pTab<>+13168(SB)/8, $0x120a020a0202020a
DATA iq1pTab<>+13176(SB)/8, $0x120a020a02020a02
DATA iq1pTab<>+13184(SB)/8, $0x120a020a02020a12
DATA iq1pTab<>+13192(SB)/8, $0x120a020a0202120a
DATA iq1pTab<>+13200(SB)/8, $0x120a020a020a0202
DATA iq1pTab<>+13208(SB)/8, $0x120a020a020a0a0a
DATA iq1pTab<>+13216(SB)/8, $0x120a020a020a1202
DATA iq1pTab<>+13224(SB)/8, $0x120a020a020a1212
DATA iq1pTab<>+13232(SB)/8, $0x120a020a0212020a
DATA iq1pTab<>+13240(SB)/8, $0x120a020a02120a02
DATA iq1pTab<>+13248(SB)/8, $0x120a020a02120a12
DATA iq1pTab<>+13256(SB)/8, $0x120a020a0212120a
DATA iq1pTab<>+13264(SB)/8, $0x120a020a0a020202
DATA iq1pTab<>+13272(SB)/8, $0x120a020a0a020a0a
DATA iq1pTab<>+13280(SB)/8, $0x120a020a0a0a0202
DATA iq1pTab<>+13288(SB)/8, $0x120a020a0a0a020a
DATA iq1pTab<>+13296(SB)/8, $0x120a020a0a0a0a02
DATA iq1pTab<>+13304(SB)/8, $0x120a020a0a0a0a0a
DATA iq1pTab<>+13312(SB)/8, $0x120a020a0a0a0a12
DATA iq1pTab<>+13320(SB)/8, $0x120a020a0a0a120a
DATA iq1pTab<>+13328(SB)/8, $0x120a020a0a120212
DATA iq1pTab<>+13336(SB)/8, $0x120a020a0a120a0a
DATA iq1pTab<>+13344(SB)/8, $0x120a020a12020a02
DATA iq1pTab<>+13352(SB)/8, $0x120a020a12020a12
DATA iq1pTab<>+13360(SB)/8, $0x120a020a120a0212
DATA iq1pTab<>+13368(SB)/8, $0x120a020a120a0a0a
DATA iq1pTab<>+13376(SB)/8, $0x120a020a120a1202
DATA iq1pTab<>+13384(SB)/8, $0x120a020a1212020a
DATA iq1pTab<>+13392(SB)/8, $0x120a020a12120a02
DATA iq1pTab<>+13400(SB)/8, $0x120a020a12120a12
DATA iq1pTab<>+13408(SB)/8, $0x120a020a1212120a
DATA iq1pTab<>+13416(SB)/8, $0x120a021202020a0a
DATA iq1pTab<>+13424(SB)/8, $0x120a0212020a020a
DATA iq1pTab<>+13432(SB)/8, $0x120a0212020a0a02
DATA iq1pTab<>+13440(SB)/8, $0x120a0212020a120a
DATA iq1pTab<>+13448(SB)/8, $0x120a021202120a0a
DATA iq1pTab<>+13456(SB)/8, $0x120a02120a020a02
DATA iq1pTab<>+13464(SB)/8, $0x120a02120a020a12
DATA iq1pTab<>+13472(SB)/8, $0x120a02120a02120a
DATA iq1pTab<>+13480(SB)/8, $0x120a02120a0a0202
DATA iq1pTab<>+13488(SB)/8, $0x120a02120a0a0212
DATA iq1pTab<>+13496(SB)/8, $0x120a02120a0a0a0a
DATA iq1pTab<>+13504(SB)/8, $0x120a02120a0a1202
DATA iq1pTab<>+13512(SB)/8, $0x120a02120a120a12
DATA iq1pTab<>+13520(SB)/8, $0x120a02120a12120a
DATA iq1pTab<>+13528(SB)/8, $0x120a021212020a0a
DATA iq1pTab<>+13536(SB)/8, $0x120a0212120a0a02
DATA iq1pTab<>+13544(SB)/8, $0x120a0212120a0a12
DATA iq1pTab<>+13552(SB)/8, $0x120a02121212120a
DATA iq1pTab<>+13560(SB)/8, $0x120a0a020202020a
DATA iq1pTab<>+13568(SB)/8, $0x120a0a0202020a02
DATA iq1pTab<>+13576(SB)/8, $0x120a0a0202020a12
DATA iq1pTab<>+13584(SB)/8, $0x120a0a02020a0202
DATA iq1pTab<>+13592(SB)/8, $0x120a0a02020a0a0a
DATA iq1pTab<>+13600(SB)/8, $0x120a0a02020a1202
DATA iq1pTab<>+13608(SB)/8, $0x120a0a0202120a12
DATA iq1pTab<>+13616(SB)/8, $0x120a0a020a020202
DATA iq1pTab<>+13624(SB)/8, $0x120a0a020a021212
DATA iq1pTab<>+13632(SB)/8, $0x120a0a020a0a020a
DATA iq1pTab<>+13640(SB)/8, $0x120a0a020a0a0a02
DATA iq1pTab<>+13648(SB)/8, $0x120a0a020a0a0a0a
DATA iq1pTab<>+13656(SB)/8, $0x120a0a020a0a0a12
DATA iq1pTab<>+13664(SB)/8, $0x120a0a020a0a1202
DATA iq1pTab<>+13672(SB)/8, $0x120a0a020a0a120a
DATA iq1pTab<>+13680(SB)/8, $0x120a0a020a120202
DATA iq1pTab<>+13688(SB)/8, $0x120a0a020a12020a
DATA iq1pTab<>+13696(SB)/8, $0x120a0a020a120212
DATA iq1pTab<>+13704(SB)/8, $0x120a0a020a120a0a
DATA iq1pTab<>+13712(SB)/8, $0x120a0a0212020a02
DATA iq1pTab<>+13720(SB)/8, $0x120a0a0212020a12
DATA iq1pTab<>+13728(SB)/8, $0x120a0a02120a0212
DATA iq1pTab<>+13736(SB)/8, $0x120a0a02120a0a02
DATA iq1pTab<>+13744(SB)/8, $0x120a0a02120a0a0a
DATA iq1pTab<>+13752(SB)/8, $0x120a0a02120a1202
DATA iq1pTab<>+13760(SB)/8, $0x120a0a021212020a
DATA iq1pTab<>+13768(SB)/8, $0x120a0a021212120a
DATA iq1pTab<>+13776(SB)/8, $0x120a0a0a02020202
DATA iq1pTab<>+13784(SB)/8, $0x120a0a0a02020a0a
DATA iq1pTab<>+13792(SB)/8, $0x120a0a0a02021202
DATA iq1pTab<>+13800(SB)/8, $0x120a0a0a02021212
DATA iq1pTab<>+13808(SB)/8, $0x120a0a0a020a0202
DATA iq1pTab<>+13816(SB)/8, $0x120a0a0a020a020a
DATA iq1pTab<>+13824(SB)/8, $0x120a0a0a020a0a02
DATA iq1pTab<>+13832(SB)/8, $0x120a0a0a020a0a0a
DATA iq1pTab<>+13840(SB)/8, $0x120a0a0a020a0a12
DATA iq1pTab<>+13848(SB)/8, $0x120a0a0a020a120a
DATA iq1pTab<>+13856(SB)/8, $0x120a0a0a0212020a
DATA iq1pTab<>+13864(SB)/8, $0x120a0a0a02120a0a
DATA iq1pTab<>+13872(SB)/8, $0x120a0a0a0212120a
DATA iq1pTab<>+13880(SB)/8, $0x120a0a0a02121212
DATA iq1pTab<>+13888(SB)/8, $0x120a0a0a0a02020a
DATA iq1pTab<>+13896(SB)/8, $0x120a0a0a0a020a02
DATA iq1pTab<>+13904(SB)/8, $0x120a0a0a0a020a0a
DATA iq1pTab<>+13912(SB)/8, $0x120a0a0a0a020a12
DATA iq1pTab<>+13920(SB)/8, $0x120a0a0a0a02120a
DATA iq1pTab<>+13928(SB)/8, $0x120a0a0a0a0a0202
DATA iq1pTab<>+13936(SB)/8, $0x120a0a0a0a0a020a
DATA iq1pTab<>+13944(SB)/8, $0x120a0a0a0a0a0212
DATA iq1pTab<>+13952(SB)/8, $0x120a0a0a0a0a0a02
DATA iq1pTab<>+13960(SB)/8, $0x120a0a0a0a0a0a0a
DATA iq1pTab<>+13968(SB)/8, $0x120a0a0a0a0a0a12
DATA iq1pTab<>+13976(SB)/8, $0x120a0a0a0a0a1202
DATA iq1pTab<>+13984(SB)/8, $0x120a0a0a0a0a120a
DATA iq1pTab<>+13992(SB)/8, $0x120a0a0a0a0a1212
DATA iq1pTab<>+14000(SB)/8, $0x120a0a0a0a12020a
DATA iq1pTab<>+14008(SB)/8, $0x120a0a0a0a120a02
DATA iq1pTab<>+14016(SB)/8, $0x120a0a0a0a120a0a
DATA iq1pTab<>+14024(SB)/8, $0x120a0a0a0a120a12
DATA iq1pTab<>+14032(SB)/8, $0x120a0a0a0a12120a
DATA iq1pTab<>+14040(SB)/8, $0x120a0a0a1202020a
DATA iq1pTab<>+14048(SB)/8, $0x120a0a0a12020a0a
DATA iq1pTab<>+14056(SB)/8, $0x120a0a0a12021202
DATA iq1pTab<>+14064(SB)/8, $0x120a0a0a120a020a
DATA iq1pTab<>+14072(SB)/8, $0x120a0a0a120a0212
DATA iq1pTab<>+14080(SB)/8, $0x120a0a0a120a0a02
DATA iq1pTab<>+14088(SB)/8, $0x120a0a0a120a0a0a
DATA iq1pTab<>+14096(SB)/8, $0x120a0a0a120a0a12
DATA iq1pTab<>+14104(SB)/8, $0x120a0a0a120a120a
DATA iq1pTab<>+14112(SB)/8, $0x120a0a0a120a1212
DATA iq1pTab<>+14120(SB)/8, $0x120a0a0a12120202
DATA iq1pTab<>+14128(SB)/8, $0x120a0a0a12120212
DATA iq1pTab<>+14136(SB)/8, $0x120a0a0a12120a0a
DATA iq1pTab<>+14144(SB)/8, $0x120a0a0a12121202
DATA iq1pTab<>+14152(SB)/8, $0x120a0a0a12121212
DATA iq1pTab<>+14160(SB)/8, $0x120a0a120202020a
DATA iq1pTab<>+14168(SB)/8, $0x120a0a1202020a02
DATA iq1pTab<>+14176(SB)/8, $0x120a0a12020a0202
DATA iq1pTab<>+14184(SB)/8, $0x120a0a12020a0a0a
DATA iq1pTab<>+14192(SB)/8, $0x120a0a12020a120a
DATA iq1pTab<>+14200(SB)/8, $0x120a0a1202120202
DATA iq1pTab<>+14208(SB)/8, $0x120a0a1202120a12
DATA iq1pTab<>+14216(SB)/8, $0x120a0a120212120a
DATA iq1pTab<>+14224(SB)/8, $0x120a0a120a020a0a
DATA iq1pTab<>+14232(SB)/8, $0x120a0a120a021202
DATA iq1pTab<>+14240(SB)/8, $0x120a0a120a02120a
DATA iq1pTab<>+14248(SB)/8, $0x120a0a120a0a020a
DATA iq1pTab<>+14256(SB)/8, $0x120a0a120a0a0212
DATA iq1pTab<>+14264(SB)/8, $0x120a0a120a0a0a0a
DATA iq1pTab<>+14272(SB)/8, $0x120a0a120a0a0a12
DATA iq1pTab<>+14280(SB)/8, $0x120a0a120a0a120a
DATA iq1pTab<>+14288(SB)/8, $0x120a0a120a120a0a
DATA iq1pTab<>+14296(SB)/8, $0x120a0a120a121202
DATA iq1pTab<>+14304(SB)/8, $0x120a0a1212020212
DATA iq1pTab<>+14312(SB)/8, $0x120a0a1212020a02
DATA iq1pTab<>+14320(SB)/8, $0x120a0a121202120a
DATA iq1pTab<>+14328(SB)/8, $0x120a0a1212021212
DATA iq1pTab<>+14336(SB)/8, $0x120a0a12120a0212
DATA iq1pTab<>+14344(SB)/8, $0x120a0a12120a0a02
DATA iq1pTab<>+14352(SB)/8, $0x120a0a12120a0a0a
DATA iq1pTab<>+14360(SB)/8, $0x120a0a1212120a02
DATA iq1pTab<>+14368(SB)/8, $0x120a0a1212120a12
DATA iq1pTab<>+14376(SB)/8, $0x120a0a121212120a
DATA iq1pTab<>+14384(SB)/8, $0x120a120202020a0a
DATA iq1pTab<>+14392(SB)/8, $0x120a1202020a0a12
DATA iq1pTab<>+14400(SB)/8, $0x120a1202020a120a
DATA iq1pTab<>+14408(SB)/8, $0x120a120202120a0a
DATA iq1pTab<>+14416(SB)/8, $0x120a12020a02020a
DATA iq1pTab<>+14424(SB)/8, $0x120a12020a020a12
DATA iq1pTab<>+14432(SB)/8, $0x120a12020a0a0202
DATA iq1pTab<>+14440(SB)/8, $0x120a12020a0a0212
DATA iq1pTab<>+14448(SB)/8, $0x120a12020a0a0a0a
DATA iq1pTab<>+14456(SB)/8, $0x120a12020a0a0a12
DATA iq1pTab<>+14464(SB)/8, $0x120a12020a0a1212
DATA iq1pTab<>+14472(SB)/8, $0x120a12020a120a02
DATA iq1pTab<>+14480(SB)/8, $0x120a12020a120a0a
DATA iq1pTab<>+14488(SB)/8, $0x120a120212020a0a
DATA iq1pTab<>+14496(SB)/8, $0x120a1202120a020a
DATA iq1pTab<>+14504(SB)/8, $0x120a1202120a0a12
DATA iq1pTab<>+14512(SB)/8, $0x120a1202120a120a
DATA iq1pTab<>+14520(SB)/8, $0x120a120212120a0a
DATA iq1pTab<>+14528(SB)/8, $0x120a120a02020a02
DATA iq1pTab<>+14536(SB)/8, $0x120a120a02020a12
DATA iq1pTab<>+14544(SB)/8, $0x120a120a0202120a
DATA iq1pTab<>+14552(SB)/8, $0x120a120a020a0202
DATA iq1pTab<>+14560(SB)/8, $0x120a120a020a0212
DATA iq1pTab<>+14568(SB)/8, $0x120a120a020a0a0a
DATA iq1pTab<>+14576(SB)/8, $0x120a120a020a1202
DATA iq1pTab<>+14584(SB)/8, $0x120a120a020a1212
DATA iq1pTab<>+14592(SB)/8, $0x120a120a02120202
DATA iq1pTab<>+14600(SB)/8, $0x120a120a0212020a
DATA iq1pTab<>+14608(SB)/8, $0x120a120a02120a02
DATA iq1pTab<>+14616(SB)/8, $0x120a120a02120a12
DATA iq1pTab<>+14624(SB)/8, $0x120a120a0a020202
DATA iq1pTab<>+14632(SB)/8, $0x120a120a0a020212
DATA iq1pTab<>+14640(SB)/8, $0x120a120a0a020a0a
DATA iq1pTab<>+14648(SB)/8, $0x120a120a0a021202
DATA iq1pTab<>+14656(SB)/8, $0x120a120a0a021212
DATA iq1pTab<>+14664(SB)/8, $0x120a120a0a0a020a
DATA iq1pTab<>+14672(SB)/8, $0x120a120a0a0a0a02
DATA iq1pTab<>+14680(SB)/8, $0x120a120a0a0a0a0a
DATA iq1pTab<>+14688(SB)/8, $0x120a120a0a0a0a12
DATA iq1pTab<>+14696(SB)/8, $0x120a120a0a0a120a
DATA iq1pTab<>+14704(SB)/8, $0x120a120a0a120212
DATA iq1pTab<>+14712(SB)/8, $0x120a120a0a120a0a
DATA iq1pTab<>+14720(SB)/8, $0x120a120a0a120a12
DATA iq1pTab<>+14728(SB)/8, $0x120a120a0a121212
DATA iq1pTab<>+14736(SB)/8, $0x120a120a1202020a
DATA iq1pTab<>+14744(SB)/8, $0x120a120a12020a02
DATA iq1pTab<>+14752(SB)/8, $0x120a120a120a0202
DATA iq1pTab<>+14760(SB)/8, $0x120a120a120a0212
DATA iq1pTab<>+14768(SB)/8, $0x120a120a120a0a0a
DATA iq1pTab<>+14776(SB)/8, $0x120a120a120a1212
DATA iq1pTab<>+14784(SB)/8, $0x120a120a1212020a
DATA iq1pTab<>+14792(SB)/8, $0x120a120a12120a12
DATA iq1pTab<>+14800(SB)/8, $0x120a121202020a0a
DATA iq1pTab<>+14808(SB)/8, $0x120a1212020a0a0a
DATA iq1pTab<>+14816(SB)/8, $0x120a121202120a0a
DATA iq1pTab<>+14824(SB)/8, $0x120a12120a020a02
DATA iq1pTab<>+14832(SB)/8, $0x120a12120a020a12
DATA iq1pTab<>+14840(SB)/8, $0x120a12120a02120a
DATA iq1pTab<>+14848(SB)/8, $0x120a12120a0a0202
DATA iq1pTab<>+14856(SB)/8, $0x120a12120a0a0a0a
DATA iq1pTab<>+14864(SB)/8, $0x120a12120a0a1202
DATA iq1pTab<>+14872(SB)/8, $0x120a12120a12020a
DATA iq1pTab<>+14880(SB)/8, $0x120a121212020a0a
DATA iq1pTab<>+14888(SB)/8, $0x120a1212120a020a
DATA iq1pTab<>+14896(SB)/8, $0x120a1212120a0a02
DATA iq1pTab<>+14904(SB)/8, $0x120a1212120a0a0a
DATA iq1pTab<>+14912(SB)/8, $0x120a1212120a0a12
DATA iq1pTab<>+14920(SB)/8, $0x1212020202020202
DATA iq1pTab<>+14928(SB)/8, $0x1212020202020212
DATA iq1pTab<>+14936(SB)/8, $0x1212020202021202
DATA iq1pTab<>+14944(SB)/8, $0x1212020202021212
DATA iq1pTab<>+14952(SB)/8, $0x12120202020a0a0a
DATA iq1pTab<>+14960(SB)/8, $0x1212020202120202
DATA iq1pTab<>+14968(SB)/8, $0x1212020202120212
DATA iq1pTab<>+14976(SB)/8, $0x1212020202121202
DATA iq1pTab<>+14984(SB)/8, $0x1212020202121212
DATA iq1pTab<>+14992(SB)/8, $0x121202020a020a0a
DATA iq1pTab<>+15000(SB)/8, $0x121202020a0a020a
DATA iq1pTab<>+15008(SB)/8, $0x121202020a0a0a02
DATA iq1pTab<>+15016(SB)/8, $0x121202020a0a0a12
DATA iq1pTab<>+15024(SB)/8, $0x121202020a0a120a
DATA iq1pTab<>+15032(SB)/8, $0x1212020212020202
DATA iq1pTab<>+15040(SB)/8, $0x1212020212020212
DATA iq1pTab<>+15048(SB)/8, $0x1212020212021202
DATA iq1pTab<>+15056(SB)/8, $0x1212020212021212
DATA iq1pTab<>+15064(SB)/8, $0x12120202120a0a0a
DATA iq1pTab<>+15072(SB)/8, $0x1212020212120202
DATA iq1pTab<>+15080(SB)/8, $0x1212020212120212
DATA iq1pTab<>+15088(SB)/8, $0x1212020212121202
DATA iq1pTab<>+15096(SB)/8, $0x1212020212121212
DATA iq1pTab<>+15104(SB)/8, $0x1212020a02020a0a
DATA iq1pTab<>+15112(SB)/8, $0x1212020a0202120a
DATA iq1pTab<>+15120(SB)/8, $0x1212020a020a020a
DATA iq1pTab<>+15128(SB)/8, $0x1212020a020a0a02
DATA iq1pTab<>+15136(SB)/8, $0x1212020a020a0a12
DATA iq1pTab<>+15144(SB)/8, $0x1212020a020a120a
DATA iq1pTab<>+15152(SB)/8, $0x1212020a020a1212
DATA iq1pTab<>+15160(SB)/8, $0x1212020a0a020a12
DATA iq1pTab<>+15168(SB)/8, $0x1212020a0a02120a
DATA iq1pTab<>+15176(SB)/8, $0x1212020a0a0a020a
DATA iq1pTab<>+15184(SB)/8, $0x1212020a0a0a0a0a
DATA iq1pTab<>+15192(SB)/8, $0x1212020a0a0a1202
DATA iq1pTab<>+15200(SB)/8, $0x1212020a0a0a1212
DATA iq1pTab<>+15208(SB)/8, $0x1212020a0a12020a
DATA iq1pTab<>+15216(SB)/8, $0x1212020a0a120a02
DATA iq1pTab<>+15224(SB)/8, $0x1212020a12020a0a
DATA iq1pTab<>+15232(SB)/8, $0x1212020a120a0202
DATA iq1pTab<>+15240(SB)/8, $0x1212020a120a0212
DATA iq1pTab<>+15248(SB)/8, $0x1212020a120a0a12
DATA iq1pTab<>+15256(SB)/8, $0x1212020a120a120a
DATA iq1pTab<>+15264(SB)/8, $0x1212021202020212
DATA iq1pTab<>+15272(SB)/8, $0x1212021202021202
DATA iq1pTab<>+15280(SB)/8, $0x1212021202021212
DATA iq1pTab<>+15288(SB)/8, $0x12120212020a0202
DATA iq1pTab<>+15296(SB)/8, $0x12120212020a120a
DATA iq1pTab<>+15304(SB)/8, $0x1212021202120212
DATA iq1pTab<>+15312(SB)/8, $0x1212021202121202
DATA iq1pTab<>+15320(SB)/8, $0x1212021202121212
DATA iq1pTab<>+15328(SB)/8, $0x121202120a020a0a
DATA iq1pTab<>+15336(SB)/8, $0x121202120a0a020a
DATA iq1pTab<>+15344(SB)/8, $0x121202120a0a0a12
DATA iq1pTab<>+15352(SB)/8, $0x121202120a0a120a
DATA iq1pTab<>+15360(SB)/8, $0x121202120a120a0a
DATA iq1pTab<>+15368(SB)/8, $0x1212021212020202
DATA iq1pTab<>+15376(SB)/8, $0x1212021212020212
DATA iq1pTab<>+15384(SB)/8, $0x1212021212021202
DATA iq1pTab<>+15392(SB)/8, $0x1212021212021212
DATA iq1pTab<>+15400(SB)/8, $0x12120212120a0a0a
DATA iq1pTab<>+15408(SB)/8, $0x1212021212120202
DATA iq1pTab<>+15416(SB)/8, $0x1212021212120212
DATA iq1pTab<>+15424(SB)/8, $0x1212021212121202
DATA iq1pTab<>+15432(SB)/8, $0x1212021212121212
DATA iq1pTab<>+15440(SB)/8, $0x12120a02020a120a
DATA iq1pTab<>+15448(SB)/8, $0x12120a0202120a0a
DATA iq1pTab<>+15456(SB)/8, $0x12120a020a02020a
DATA iq1pTab<>+15464(SB)/8, $0x12120a020a020a02
DATA iq1pTab<>+15472(SB)/8, $0x12120a020a0a0202
DATA iq1pTab<>+15480(SB)/8, $0x12120a020a0a0a02
DATA iq1pTab<>+15488(SB)/8, $0x12120a020a0a0a0a
DATA iq1pTab<>+15496(SB)/8, $0x12120a020a0a1202
DATA iq1pTab<>+15504(SB)/8, $0x12120a020a0a1212
DATA iq1pTab<>+15512(SB)/8, $0x12120a020a12020a
DATA iq1pTab<>+15520(SB)/8, $0x12120a020a120a0a
DATA iq1pTab<>+15528(SB)/8, $0x12120a020a120a12
DATA iq1pTab<>+15536(SB)/8, $0x12120a020a121202
DATA iq1pTab<>+15544(SB)/8, $0x12120a020a12120a
DATA iq1pTab<>+15552(SB)/8, $0x12120a0212020a0a
DATA iq1pTab<>+15560(SB)/8, $0x12120a0a02020a12
DATA iq1pTab<>+15568(SB)/8, $0x12120a0a0202120a
DATA iq1pTab<>+15576(SB)/8, $0x12120a0a020a0202
DATA iq1pTab<>+15584(SB)/8, $0x12120a0a020a0212
DATA iq1pTab<>+15592(SB)/8, $0x12120a0a020a0a0a
DATA iq1pTab<>+15600(SB)/8, $0x12120a0a020a1202
DATA iq1pTab<>+15608(SB)/8, $0x12120a0a02120a12
DATA iq1pTab<>+15616(SB)/8, $0x12120a0a0212120a
DATA iq1pTab<>+15624(SB)/8, $0x12120a0a0a020212
DATA iq1pTab<>+15632(SB)/8, $0x12120a0a0a020a0a
DATA iq1pTab<>+15640(SB)/8, $0x12120a0a0a0a020a
DATA iq1pTab<>+15648(SB)/8, $0x12120a0a0a0a0a02
DATA iq1pTab<>+15656(SB)/8, $0x12120a0a0a0a0a0a
DATA iq1pTab<>+15664(SB)/8, $0x12120a0a0a0a0a12
DATA iq1pTab<>+15672(SB)/8, $0x12120a0a0a0a120a
DATA iq1pTab<>+15680(SB)/8, $0x12120a0a0a120a0a
DATA iq1pTab<>+15688(SB)/8, $0x12120a0a0a121212
DATA iq1pTab<>+15696(SB)/8, $0x12120a0a1202020a
DATA iq1pTab<>+15704(SB)/8, $0x12120a0a12020a02
DATA iq1pTab<>+15712(SB)/8, $0x12120a0a12020a0a
DATA iq1pTab<>+15720(SB)/8, $0x12120a0a12020a12
DATA iq1pTab<>+15728(SB)/8, $0x12120a0a1202120a
DATA iq1pTab<>+15736(SB)/8, $0x12120a0a120a0212
DATA iq1pTab<>+15744(SB)/8, $0x12120a0a120a0a0a
DATA iq1pTab<>+15752(SB)/8, $0x12120a0a120a1202
DATA iq1pTab<>+15760(SB)/8, $0x12120a1202020a0a
DATA iq1pTab<>+15768(SB)/8, $0x12120a12020a020a
DATA iq1pTab<>+15776(SB)/8, $0x12120a12020a0a12
DATA iq1pTab<>+15784(SB)/8, $0x12120a12020a1212
DATA iq1pTab<>+15792(SB)/8, $0x12120a120212020a
DATA iq1pTab<>+15800(SB)/8, $0x12120a1202120a0a
DATA iq1pTab<>+15808(SB)/8, $0x12120a120a020a02
DATA iq1pTab<>+15816(SB)/8, $0x12120a120a020a12
DATA iq1pTab<>+15824(SB)/8, $0x12120a120a021212
DATA iq1pTab<>+15832(SB)/8, $0x12120a120a0a0212
DATA iq1pTab<>+15840(SB)/8, $0x12120a120a0a0a0a
DATA iq1pTab<>+15848(SB)/8, $0x12120a120a0a0a12
DATA iq1pTab<>+15856(SB)/8, $0x12120a120a0a1202
DATA iq1pTab<>+15864(SB)/8, $0x12120a120a120202
DATA iq1pTab<>+15872(SB)/8, $0x12120a120a120212
DATA iq1pTab<>+15880(SB)/8, $0x12120a1212020a12
DATA iq1pTab<>+15888(SB)/8, $0x12120a12120a0202
DATA iq1pTab<>+15896(SB)/8, $0x12120a12120a0a0a
DATA iq1pTab<>+15904(SB)/8, $0x12120a12120a0a12
DATA iq1pTab<>+15912(SB)/8, $0x12120a12120a120a
DATA iq1pTab<>+15920(SB)/8, $0x12120a121212020a
DATA iq1pTab<>+15928(SB)/8, $0x12120a1212120a02
DATA iq1pTab<>+15936(SB)/8, $0x12120a1212120a12
DATA iq1pTab<>+15944(SB)/8, $0x1212120202020202
DATA iq1pTab<>+15952(SB)/8, $0x1212120202020212
DATA iq1pTab<>+15960(SB)/8, $0x1212120202021202
DATA iq1pTab<>+15968(SB)/8, $0x1212120202021212
DATA iq1pTab<>+15976(SB)/8, $0x1212120202120202
DATA iq1pTab<>+15984(SB)/8, $0x1212120202120212
DATA iq1pTab<>+15992(SB)/8, $0x1212120202121202
DATA iq1pTab<>+16000(SB)/8, $0x1212120202121212
DATA iq1pTab<>+16008(SB)/8, $0x121212020a0a020a
DATA iq1pTab<>+16016(SB)/8, $0x121212020a0a0a02
DATA iq1pTab<>+16024(SB)/8, $0x121212020a0a0a12
DATA iq1pTab<>+16032(SB)/8, $0x121212020a0a120a
DATA iq1pTab<>+16040(SB)/8, $0x1212120212020202
DATA iq1pTab<>+16048(SB)/8, $0x1212120212020212
DATA iq1pTab<>+16056(SB)/8, $0x1212120212021202
DATA iq1pTab<>+16064(SB)/8, $0x1212120212021212
DATA iq1pTab<>+16072(SB)/8, $0x12121202120a0a0a
DATA iq1pTab<>+16080(SB)/8, $0x1212120212120202
DATA iq1pTab<>+16088(SB)/8, $0x1212120212120212
DATA iq1pTab<>+16096(SB)/8, $0x1212120212121202
DATA iq1pTab<>+16104(SB)/8, $0x1212120212121212
DATA iq1pTab<>+16112(SB)/8, $0x1212120a02020a0a
DATA iq1pTab<>+16120(SB)/8, $0x1212120a020a0a02
DATA iq1pTab<>+16128(SB)/8, $0x1212120a020a120a
DATA iq1pTab<>+16136(SB)/8, $0x1212120a0212020a
DATA iq1pTab<>+16144(SB)/8, $0x1212120a02120a0a
DATA iq1pTab<>+16152(SB)/8, $0x1212120a0a02020a
DATA iq1pTab<>+16160(SB)/8, $0x1212120a0a0a0202
DATA iq1pTab<>+16168(SB)/8, $0x1212120a0a0a0a0a
DATA iq1pTab<>+16176(SB)/8, $0x1212120a0a0a1212
DATA iq1pTab<>+16184(SB)/8, $0x1212120a0a12020a
DATA iq1pTab<>+16192(SB)/8, $0x1212120a0a120a12
DATA iq1pTab<>+16200(SB)/8, $0x1212120a0a12120a
DATA iq1pTab<>+16208(SB)/8, $0x1212120a120a0202
DATA iq1pTab<>+16216(SB)/8, $0x1212120a120a0a12
DATA iq1pTab<>+16224(SB)/8, $0x1212121202020202
DATA iq1pTab<>+16232(SB)/8, $0x1212121202020212
DATA iq1pTab<>+16240(SB)/8, $0x1212121202021202
DATA iq1pTab<>+16248(SB)/8, $0x1212121202021212
DATA iq1pTab<>+16256(SB)/8, $0x1212121202120202
DATA iq1pTab<>+16264(SB)/8, $0x1212121202120212
DATA iq1pTab<>+16272(SB)/8, $0x1212121202121202
DATA iq1pTab<>+16280(SB)/8, $0x1212121202121212
DATA iq1pTab<>+16288(SB)/8, $0x121212120a0a020a
DATA iq1pTab<>+16296(SB)/8, $0x121212120a0a0a02
DATA iq1pTab<>+16304(SB)/8, $0x121212120a0a0a12
DATA iq1pTab<>+16312(SB)/8, $0x1212121212020202
DATA iq1pTab<>+16320(SB)/8, $0x1212121212020212
DATA iq1pTab<>+16328(SB)/8, $0x1212121212021202
DATA iq1pTab<>+16336(SB)/8, $0x1212121212021212
DATA iq1pTab<>+16344(SB)/8, $0x12121212120a0a0a
DATA iq1pTab<>+16352(SB)/8, $0x1212121212120202
DATA iq1pTab<>+16360(SB)/8, $0x1212121212120212
DATA iq1pTab<>+16368(SB)/8, $0x1212121212121202
DATA iq1pTab<>+16376(SB)/8, $0x1212121212121212
DATA iq1pTab<>+16384(SB)/8, $0x0000000000000000
DATA iq1pTab<>+16392(SB)/8, $0x0000000000000010
DATA iq1pTab<>+16400(SB)/8, $0x0000000000000808
DATA iq1pTab<>+16408(SB)/8, $0x0000000000001000
DATA iq1pTab<>+16416(SB)/8, $0x0000000000001010
DATA iq1pTab<>+16424(SB)/8, $0x0000000000080008
DATA iq1pTab<>+16432(SB)/8, $0x0000000000080808
DATA iq1pTab<>+16440(SB)/8, $0x0000000000100000
DATA iq1pTab<>+16448(SB)/8, $0x0000000000100010
DATA iq1pTab<>+16456(SB)/8, $0x0000000000101000
DATA iq1pTab<>+16464(SB)/8, $0x0000000000101010
DATA iq1pTab<>+16472(SB)/8, $0x0000000008000808
DATA iq1pTab<>+16480(SB)/8, $0x0000000008080008
DATA iq1pTab<>+16488(SB)/8, $0x0000000008080800
DATA iq1pTab<>+16496(SB)/8, $0x0000000008080810
DATA iq1pTab<>+16504(SB)/8, $0x0000000008100808
DATA iq1pTab<>+16512(SB)/8, $0x0000000010000000
DATA iq1pTab<>+16520(SB)/8, $0x0000000010000010
DATA iq1pTab<>+16528(SB)/8, $0x0000000010001000
DATA iq1pTab<>+16536(SB)/8, $0x0000000010001010
DATA iq1pTab<>+16544(SB)/8, $0x0000000010080808
DATA iq1pTab<>+16552(SB)/8, $0x0000000010100000
DATA iq1pTab<>+16560(SB)/8, $0x0000000010100010
DATA iq1pTab<>+16568(SB)/8, $0x0000000010101000
DATA iq1pTab<>+16576(SB)/8, $0x0000000010101010
DATA iq1pTab<>+16584(SB)/8, $0x0000000800000800
DATA iq1pTab<>+16592(SB)/8, $0x0000000800000808
DATA iq1pTab<>+16600(SB)/8, $0x0000000800080008
DATA iq1pTab<>+16608(SB)/8, $0x0000000800080800
DATA iq1pTab<>+16616(SB)/8, $0x0000000800080810
DATA iq1pTab<>+16624(SB)/8, $0x0000000800081008
DATA iq1pTab<>+16632(SB)/8, $0x0000000800081010
DATA iq1pTab<>+16640(SB)/8, $0x0000000800100808
DATA iq1pTab<>+16648(SB)/8, $0x0000000808000008
DATA iq1pTab<>+16656(SB)/8, $0x0000000808000810
DATA iq1pTab<>+16664(SB)/8, $0x0000000808001008
DATA iq1pTab<>+16672(SB)/8, $0x0000000808080010
DATA iq1pTab<>+16680(SB)/8, $0x0000000808080808
DATA iq1pTab<>+16688(SB)/8, $0x0000000808081010
DATA iq1pTab<>+16696(SB)/8, $0x0000000808100008
DATA iq1pTab<>+16704(SB)/8, $0x0000000808100800
DATA iq1pTab<>+16712(SB)/8, $0x0000000808100810
DATA iq1pTab<>+16720(SB)/8, $0x0000000808101000
DATA iq1pTab<>+16728(SB)/8, $0x0000000810000808
DATA iq1pTab<>+16736(SB)/8, $0x0000000810080008
DATA iq1pTab<>+16744(SB)/8, $0x0000000810080800
DATA iq1pTab<>+16752(SB)/8, $0x0000000810080810
DATA iq1pTab<>+16760(SB)/8, $0x0000000810100808
DATA iq1pTab<>+16768(SB)/8, $0x0000001000000000
DATA iq1pTab<>+16776(SB)/8, $0x0000001000000010
DATA iq1pTab<>+16784(SB)/8, $0x0000001000001000
DATA iq1pTab<>+16792(SB)/8, $0x0000001000001010
DATA iq1pTab<>+16800(SB)/8, $0x0000001000080808
DATA iq1pTab<>+16808(SB)/8, $0x0000001000100000
DATA iq1pTab<>+16816(SB)/8, $0x0000001000100010
DATA iq1pTab<>+16824(SB)/8, $0x0000001000101000
DATA iq1pTab<>+16832(SB)/8, $0x0000001000101010
DATA iq1pTab<>+16840(SB)/8, $0x0000001008000808
DATA iq1pTab<>+16848(SB)/8, $0x0000001008080008
DATA iq1pTab<>+16856(SB)/8, $0x0000001008081008
DATA iq1pTab<>+16864(SB)/8, $0x0000001008100800
DATA iq1pTab<>+16872(SB)/8, $0x0000001008101008
DATA iq1pTab<>+16880(SB)/8, $0x0000001010000000
DATA iq1pTab<>+16888(SB)/8, $0x0000001010000010
DATA iq1pTab<>+16896(SB)/8, $0x0000001010001000
DATA iq1pTab<>+16904(SB)/8, $0x0000001010001010
DATA iq1pTab<>+16912(SB)/8, $0x0000001010080008
DATA iq1pTab<>+16920(SB)/8, $0x0000001010080808
DATA iq1pTab<>+16928(SB)/8, $0x0000001010081008
DATA iq1pTab<>+16936(SB)/8, $0x0000001010100000
DATA iq1pTab<>+16944(SB)/8, $0x0000001010100010
DATA iq1pTab<>+16952(SB)/8, $0x0000001010101000
DATA iq1pTab<>+16960(SB)/8, $0x0000001010101010
DATA iq1pTab<>+16968(SB)/8, $0x0000080000080008
DATA iq1pTab<>+16976(SB)/8, $0x0000080000080800
DATA iq1pTab<>+16984(SB)/8, $0x0000080000080810
DATA iq1pTab<>+16992(SB)/8, $0x0000080000100808
DATA iq1pTab<>+17000(SB)/8, $0x0000080008000008
DATA iq1pTab<>+17008(SB)/8, $0x0000080008001008
DATA iq1pTab<>+17016(SB)/8, $0x0000080008080808
DATA iq1pTab<>+17024(SB)/8, $0x0000080008081010
DATA iq1pTab<>+17032(SB)/8, $0x0000080008100800
DATA iq1pTab<>+17040(SB)/8, $0x0000080008100808
DATA iq1pTab<>+17048(SB)/8, $0x0000080010080008
DATA iq1pTab<>+17056(SB)/8, $0x0000080010081008
DATA iq1pTab<>+17064(SB)/8, $0x0000080010100808
DATA iq1pTab<>+17072(SB)/8, $0x0000080800000008
DATA iq1pTab<>+17080(SB)/8, $0x0000080800000800
DATA iq1pTab<>+17088(SB)/8, $0x0000080800000808
DATA iq1pTab<>+17096(SB)/8, $0x0000080800000810
DATA iq1pTab<>+17104(SB)/8, $0x0000080800080808
DATA iq1pTab<>+17112(SB)/8, $0x0000080800081000
DATA iq1pTab<>+17120(SB)/8, $0x0000080800081010
DATA iq1pTab<>+17128(SB)/8, $0x0000080800101008
DATA iq1pTab<>+17136(SB)/8, $0x0000080808000000
DATA iq1pTab<>+17144(SB)/8, $0x0000080808000808
DATA iq1pTab<>+17152(SB)/8, $0x0000080808001010
DATA iq1pTab<>+17160(SB)/8, $0x0000080808080000
DATA iq1pTab<>+17168(SB)/8, $0x0000080808080008
DATA iq1pTab<>+17176(SB)/8, $0x0000080808080800
DATA iq1pTab<>+17184(SB)/8, $0x0000080808080808
DATA iq1pTab<>+17192(SB)/8, $0x0000080808080810
DATA iq1pTab<>+17200(SB)/8, $0x0000080808081008
DATA iq1pTab<>+17208(SB)/8, $0x0000080808100000
DATA iq1pTab<>+17216(SB)/8, $0x0000080808100010
DATA iq1pTab<>+17224(SB)/8, $0x0000080808100808
DATA iq1pTab<>+17232(SB)/8, $0x0000080808101000
DATA iq1pTab<>+17240(SB)/8, $0x0000080808101010
DATA iq1pTab<>+17248(SB)/8, $0x0000080810000008
DATA iq1pTab<>+17256(SB)/8, $0x0000080810080008
DATA iq1pTab<>+17264(SB)/8, $0x0000080810080808
DATA iq1pTab<>+17272(SB)/8, $0x0000080810081000
DATA iq1pTab<>+17280(SB)/8, $0x0000080810081010
DATA iq1pTab<>+17288(SB)/8, $0x0000080810100008
DATA iq1pTab<>+17296(SB)/8, $0x0000080810100800
DATA iq1pTab<>+17304(SB)/8, $0x0000080810100808
DATA iq1pTab<>+17312(SB)/8, $0x0000080810100810
DATA iq1pTab<>+17320(SB)/8, $0x0000080810101008
DATA iq1pTab<>+17328(SB)/8, $0x0000081000080800
DATA iq1pTab<>+17336(SB)/8, $0x0000081000081008
DATA iq1pTab<>+17344(SB)/8, $0x0000081008000008
DATA iq1pTab<>+17352(SB)/8, $0x0000081008000800
DATA iq1pTab<>+17360(SB)/8, $0x0000081008080000
DATA iq1pTab<>+17368(SB)/8, $0x0000081008080010
DATA iq1pTab<>+17376(SB)/8, $0x0000081008080808
DATA iq1pTab<>+17384(SB)/8, $0x0000081008081000
DATA iq1pTab<>+17392(SB)/8, $0x0000081008100000
DATA iq1pTab<>+17400(SB)/8, $0x0000081008100008
DATA iq1pTab<>+17408(SB)/8, $0x0000081008100810
DATA iq1pTab<>+17416(SB)/8, $0x0000081008101008
DATA iq1pTab<>+17424(SB)/8, $0x0000081010000808
DATA iq1pTab<>+17432(SB)/8, $0x0000081010080008
DATA iq1pTab<>+17440(SB)/8, $0x0000081010080800
DATA iq1pTab<>+17448(SB)/8, $0x0000081010081008
DATA iq1pTab<>+17456(SB)/8, $0x0000100000000000
DATA iq1pTab<>+17464(SB)/8, $0x0000100000000010
DATA iq1pTab<>+17472(SB)/8, $0x0000100000001000
DATA iq1pTab<>+17480(SB)/8, $0x0000100000001010
DATA iq1pTab<>+17488(SB)/8, $0x0000100000080808
DATA iq1pTab<>+17496(SB)/8, $0x0000100000100000
DATA iq1pTab<>+17504(SB)/8, $0x0000100000100010
DATA iq1pTab<>+17512(SB)/8, $0x0000100000101000
DATA iq1pTab<>+17520(SB)/8, $0x0000100000101010
DATA iq1pTab<>+17528(SB)/8, $0x0000100008000808
DATA iq1pTab<>+17536(SB)/8, $0x0000100008080008
DATA iq1pTab<>+17544(SB)/8, $0x0000100008080810
DATA iq1pTab<>+17552(SB)/8, $0x0000100008100808
DATA iq1pTab<>+17560(SB)/8, $0x0000100010000000
DATA iq1pTab<>+17568(SB)/8, $0x0000100010000010
DATA iq1pTab<>+17576(SB)/8, $0x0000100010001000
DATA iq1pTab<>+17584(SB)/8, $0x0000100010001010
DATA iq1pTab<>+17592(SB)/8, $0x0000100010080808
DATA iq1pTab<>+17600(SB)/8, $0x0000100010100000
DATA iq1pTab<>+17608(SB)/8, $0x0000100010100010
DATA iq1pTab<>+17616(SB)/8, $0x0000100010101000
DATA iq1pTab<>+17624(SB)/8, $0x0000100010101010
DATA iq1pTab<>+17632(SB)/8, $0x0000100800000808
DATA iq1pTab<>+17640(SB)/8, $0x0000100800080008
DATA iq1pTab<>+17648(SB)/8, $0x0000100800080800
DATA iq1pTab<>+17656(SB)/8, $0x0000100800081008
DATA iq1pTab<>+17664(SB)/8, $0x0000100800100800
DATA iq1pTab<>+17672(SB)/8, $0x0000100800100808
DATA iq1pTab<>+17680(SB)/8, $0x0000100808000008
DATA iq1pTab<>+17688(SB)/8, $0x0000100808080000
DATA iq1pTab<>+17696(SB)/8, $0x0000100808080008
DATA iq1pTab<>+17704(SB)/8, $0x0000100808080808
DATA iq1pTab<>+17712(SB)/8, $0x0000100808100008
DATA iq1pTab<>+17720(SB)/8, $0x0000100808100800
DATA iq1pTab<>+17728(SB)/8, $0x0000100808101008
DATA iq1pTab<>+17736(SB)/8, $0x0000100810080008
DATA iq1pTab<>+17744(SB)/8, $0x0000100810080800
DATA iq1pTab<>+17752(SB)/8, $0x0000100810080810
DATA iq1pTab<>+17760(SB)/8, $0x0000100810081008
DATA iq1pTab<>+17768(SB)/8, $0x0000100810100808
DATA iq1pTab<>+17776(SB)/8, $0x0000101000000000
DATA iq1pTab<>+17784(SB)/8, $0x0000101000000010
DATA iq1pTab<>+17792(SB)/8, $0x0000101000001000
DATA iq1pTab<>+17800(SB)/8, $0x0000101000001010
DATA iq1pTab<>+17808(SB)/8, $0x0000101000080808
DATA iq1pTab<>+17816(SB)/8, $0x0000101000100000
DATA iq1pTab<>+17824(SB)/8, $0x0000101000100010
DATA iq1pTab<>+17832(SB)/8, $0x0000101000101000
DATA iq1pTab<>+17840(SB)/8, $0x0000101000101010
DATA iq1pTab<>+17848(SB)/8, $0x0000101008000808
DATA iq1pTab<>+17856(SB)/8, $0x0000101008080008
DATA iq1pTab<>+17864(SB)/8, $0x0000101008081008
DATA iq1pTab<>+17872(SB)/8, $0x0000101008100008
DATA iq1pTab<>+17880(SB)/8, $0x0000101008100808
DATA iq1pTab<>+17888(SB)/8, $0x0000101010000000
DATA iq1pTab<>+17896(SB)/8, $0x0000101010000010
DATA iq1pTab<>+17904(SB)/8, $0x0000101010000808
DATA iq1pTab<>+17912(SB)/8, $0x0000101010001000
DATA iq1pTab<>+17920(SB)/8, $0x0000101010001010
DATA iq1pTab<>+17928(SB)/8, $0x0000101010080808
DATA iq1pTab<>+17936(SB)/8, $0x0000101010100000
DATA iq1pTab<>+17944(SB)/8, $0x0000101010100010
DATA iq1pTab<>+17952(SB)/8, $0x0000101010101000
DATA iq1pTab<>+17960(SB)/8, $0x0000101010101010
DATA iq1pTab<>+17968(SB)/8, $0x0008000000080000
DATA iq1pTab<>+17976(SB)/8, $0x0008000000080008
DATA iq1pTab<>+17984(SB)/8, $0x0008000000080800
DATA iq1pTab<>+17992(SB)/8, $0x0008000000081008
DATA iq1pTab<>+18000(SB)/8, $0x0008000000100800
DATA iq1pTab<>+18008(SB)/8, $0x0008000000100808
DATA iq1pTab<>+18016(SB)/8, $0x0008000008000008
DATA iq1pTab<>+18024(SB)/8, $0x0008000008000800
DATA iq1pTab<>+18032(SB)/8, $0x0008000008080000
DATA iq1pTab<>+18040(SB)/8, $0x0008000008080808
DATA iq1pTab<>+18048(SB)/8, $0x0008000008081000
DATA iq1pTab<>+18056(SB)/8, $0x0008000008100008
DATA iq1pTab<>+18064(SB)/8, $0x0008000008100800
DATA iq1pTab<>+18072(SB)/8, $0x0008000008100808
DATA iq1pTab<>+18080(SB)/8, $0x0008000008101008
DATA iq1pTab<>+18088(SB)/8, $0x0008000010080008
DATA iq1pTab<>+18096(SB)/8, $0x0008000010080800
DATA iq1pTab<>+18104(SB)/8, $0x0008000010080810
DATA iq1pTab<>+18112(SB)/8, $0x0008000010100008
DATA iq1pTab<>+18120(SB)/8, $0x0008000010100808
DATA iq1pTab<>+18128(SB)/8, $0x0008000800000008
DATA iq1pTab<>+18136(SB)/8, $0x0008000800000800
DATA iq1pTab<>+18144(SB)/8, $0x0008000800000810
DATA iq1pTab<>+18152(SB)/8, $0x0008000800001008
DATA iq1pTab<>+18160(SB)/8, $0x0008000800080000
DATA iq1pTab<>+18168(SB)/8, $0x0008000800080010
DATA iq1pTab<>+18176(SB)/8, $0x0008000800080808
DATA iq1pTab<>+18184(SB)/8, $0x0008000800081000
DATA iq1pTab<>+18192(SB)/8, $0x0008000800100008
DATA iq1pTab<>+18200(SB)/8, $0x0008000800100800
DATA iq1pTab<>+18208(SB)/8, $0x0008000800101008
DATA iq1pTab<>+18216(SB)/8, $0x0008000808000808
DATA iq1pTab<>+18224(SB)/8, $0x0008000808001010
DATA iq1pTab<>+18232(SB)/8, $0x0008000808080000
DATA iq1pTab<>+18240(SB)/8, $0x0008000808080008
DATA iq1pTab<>+18248(SB)/8, $0x0008000808080010
DATA iq1pTab<>+18256(SB)/8, $0x0008000808080800
DATA iq1pTab<>+18264(SB)/8, $0x0008000808080808
DATA iq1pTab<>+18272(SB)/8, $0x0008000808080810
DATA iq1pTab<>+18280(SB)/8, $0x0008000808081008
DATA iq1pTab<>+18288(SB)/8, $0x0008000808100000
DATA iq1pTab<>+18296(SB)/8, $0x0008000808100808
DATA iq1pTab<>+18304(SB)/8, $0x0008000810000800
DATA iq1pTab<>+18312(SB)/8, $0x0008000810080010
DATA iq1pTab<>+18320(SB)/8, $0x0008000810080808
DATA iq1pTab<>+18328(SB)/8, $0x0008000810100008
DATA iq1pTab<>+18336(SB)/8, $0x0008000810100800
DATA iq1pTab<>+18344(SB)/8, $0x0008001000080008
DATA iq1pTab<>+18352(SB)/8, $0x0008001000080800
DATA iq1pTab<>+18360(SB)/8, $0x0008001000080810
DATA iq1pTab<>+18368(SB)/8, $0x0008001000100808
DATA iq1pTab<>+18376(SB)/8, $0x0008001008000000
DATA iq1pTab<>+18384(SB)/8, $0x0008001008000810
DATA iq1pTab<>+18392(SB)/8, $0x0008001008001008
DATA iq1pTab<>+18400(SB)/8, $0x0008001008080010
DATA iq1pTab<>+18408(SB)/8, $0x0008001008080808
DATA iq1pTab<>+18416(SB)/8, $0x0008001008081000
DATA iq1pTab<>+18424(SB)/8, $0x0008001008081010
DATA iq1pTab<>+18432(SB)/8, $0x0008001008100800
DATA iq1pTab<>+18440(SB)/8, $0x0008001008100810
DATA iq1pTab<>+18448(SB)/8, $0x0008001010000808
DATA iq1pTab<>+18456(SB)/8, $0x0008001010080008
DATA iq1pTab<>+18464(SB)/8, $0x0008001010080800
DATA iq1pTab<>+18472(SB)/8, $0x0008001010080810
DATA iq1pTab<>+18480(SB)/8, $0x0008001010100808
DATA iq1pTab<>+18488(SB)/8, $0x0008080000000008
DATA iq1pTab<>+18496(SB)/8, $0x0008080000000810
DATA iq1pTab<>+18504(SB)/8, $0x0008080000001008
DATA iq1pTab<>+18512(SB)/8, $0x0008080000080800
DATA iq1pTab<>+18520(SB)/8, $0x0008080000080808
DATA iq1pTab<>+18528(SB)/8, $0x0008080000081000
DATA iq1pTab<>+18536(SB)/8, $0x0008080000081008
DATA iq1pTab<>+18544(SB)/8, $0x0008080000100008
DATA iq1pTab<>+18552(SB)/8, $0x0008080000100810
DATA iq1pTab<>+18560(SB)/8, $0x0008080008000008
DATA iq1pTab<>+18568(SB)/8, $0x0008080008000808
DATA iq1pTab<>+18576(SB)/8, $0x0008080008000810
DATA iq1pTab<>+18584(SB)/8, $0x0008080008001000
DATA iq1pTab<>+18592(SB)/8, $0x0008080008001010
DATA iq1pTab<>+18600(SB)/8, $0x0008080008080008
DATA iq1pTab<>+18608(SB)/8, $0x0008080008080800
DATA iq1pTab<>+18616(SB)/8, $0x0008080008080808
DATA iq1pTab<>+18624(SB)/8, $0x0008080008080810
DATA iq1pTab<>+18632(SB)/8, $0x0008080008081008
DATA iq1pTab<>+18640(SB)/8, $0x0008080008100010
DATA iq1pTab<>+18648(SB)/8, $0x0008080008100808
DATA iq1pTab<>+18656(SB)/8, $0x0008080008101000
DATA iq1pTab<>+18664(SB)/8, $0x0008080010000800
DATA iq1pTab<>+18672(SB)/8, $0x0008080010001008
DATA iq1pTab<>+18680(SB)/8, $0x0008080010080000
DATA iq1pTab<>+18688(SB)/8, $0x0008080010080800
DATA iq1pTab<>+18696(SB)/8, $0x0008080010080808
DATA iq1pTab<>+18704(SB)/8, $0x0008080010081000
DATA iq1pTab<>+18712(SB)/8, $0x0008080010081008
DATA iq1pTab<>+18720(SB)/8, $0x0008080010081010
DATA iq1pTab<>+18728(SB)/8, $0x0008080010100008
DATA iq1pTab<>+18736(SB)/8, $0x0008080010100800
DATA iq1pTab<>+18744(SB)/8, $0x0008080010100808
DATA iq1pTab<>+18752(SB)/8, $0x0008080010101008
DATA iq1pTab<>+18760(SB)/8, $0x0008080800000010
DATA iq1pTab<>+18768(SB)/8, $0x0008080800000808
DATA iq1pTab<>+18776(SB)/8, $0x0008080800001010
DATA iq1pTab<>+18784(SB)/8, $0x0008080800080008
DATA iq1pTab<>+18792(SB)/8, $0x0008080800080800
DATA iq1pTab<>+18800(SB)/8, $0x0008080800080808
DATA iq1pTab<>+18808(SB)/8, $0x0008080800080810
DATA iq1pTab<>+18816(SB)/8, $0x0008080800081008
DATA iq1pTab<>+18824(SB)/8, $0x0008080800100000
DATA iq1pTab<>+18832(SB)/8, $0x0008080800100010
DATA iq1pTab<>+18840(SB)/8, $0x0008080800100808
DATA iq1pTab<>+18848(SB)/8, $0x0008080800101000
DATA iq1pTab<>+18856(SB)/8, $0x0008080800101010
DATA iq1pTab<>+18864(SB)/8, $0x0008080808000008
DATA iq1pTab<>+18872(SB)/8, $0x0008080808000800
DATA iq1pTab<>+18880(SB)/8, $0x0008080808000808
DATA iq1pTab<>+18888(SB)/8, $0x0008080808000810
DATA iq1pTab<>+18896(SB)/8, $0x0008080808080008
DATA iq1pTab<>+18904(SB)/8, $0x0008080808080010
DATA iq1pTab<>+18912(SB)/8, $0x0008080808080800
DATA iq1pTab<>+18920(SB)/8, $0x0008080808080808
DATA iq1pTab<>+18928(SB)/8, $0x0008080808080810
DATA iq1pTab<>+18936(SB)/8, $0x0008080808081008
DATA iq1pTab<>+18944(SB)/8, $0x0008080808081010
DATA iq1pTab<>+18952(SB)/8, $0x0008080808100008
DATA iq1pTab<>+18960(SB)/8, $0x0008080808100800
DATA iq1pTab<>+18968(SB)/8, $0x0008080808100808
DATA iq1pTab<>+18976(SB)/8, $0x0008080808100810
DATA iq1pTab<>+18984(SB)/8, $0x0008080808101008
DATA iq1pTab<>+18992(SB)/8, $0x0008080810000000
DATA iq1pTab<>+19000(SB)/8, $0x0008080810000010
DATA iq1pTab<>+19008(SB)/8, $0x0008080810000800
DATA iq1pTab<>+19016(SB)/8, $0x0008080810000808
DATA iq1pTab<>+19024(SB)/8, $0x0008080810001000
DATA iq1pTab<>+19032(SB)/8, $0x0008080810001010
DATA iq1pTab<>+19040(SB)/8, $0x0008080810080000
DATA iq1pTab<>+19048(SB)/8, $0x0008080810080008
DATA iq1pTab<>+19056(SB)/8, $0x0008080810080800
DATA iq1pTab<>+19064(SB)/8, $0x0008080810080808
DATA iq1pTab<>+19072(SB)/8, $0x0008080810080810
DATA iq1pTab<>+19080(SB)/8, $0x0008080810081008
DATA iq1pTab<>+19088(SB)/8, $0x0008080810081010
DATA iq1pTab<>+19096(SB)/8, $0x0008080810100000
DATA iq1pTab<>+19104(SB)/8, $0x0008080810100010
DATA iq1pTab<>+19112(SB)/8, $0x0008080810100808
DATA iq1pTab<>+19120(SB)/8, $0x0008081000000008
DATA iq1pTab<>+19128(SB)/8, $0x0008081000000800
DATA iq1pTab<>+19136(SB)/8, $0x0008081000000808
DATA iq1pTab<>+19144(SB)/8, $0x0008081000000810
DATA iq1pTab<>+19152(SB)/8, $0x0008081000080808
DATA iq1pTab<>+19160(SB)/8, $0x0008081000080810
DATA iq1pTab<>+19168(SB)/8, $0x0008081000081000
DATA iq1pTab<>+19176(SB)/8, $0x0008081000081010
DATA iq1pTab<>+19184(SB)/8, $0x0008081000100008
DATA iq1pTab<>+19192(SB)/8, $0x0008081000100810
DATA iq1pTab<>+19200(SB)/8, $0x0008081008000000
DATA iq1pTab<>+19208(SB)/8, $0x0008081008000010
DATA iq1pTab<>+19216(SB)/8, $0x0008081008000800
DATA iq1pTab<>+19224(SB)/8, $0x0008081008000808
DATA iq1pTab<>+19232(SB)/8, $0x0008081008001000
DATA iq1pTab<>+19240(SB)/8, $0x0008081008001010
DATA iq1pTab<>+19248(SB)/8, $0x0008081008080008
DATA iq1pTab<>+19256(SB)/8, $0x0008081008080808
DATA iq1pTab<>+19264(SB)/8, $0x0008081008080810
DATA iq1pTab<>+19272(SB)/8, $0x0008081008081000
DATA iq1pTab<>+19280(SB)/8, $0x0008081008081008
DATA iq1pTab<>+19288(SB)/8, $0x0008081008100008
DATA iq1pTab<>+19296(SB)/8, $0x0008081008100800
DATA iq1pTab<>+19304(SB)/8, $0x0008081008100808
DATA iq1pTab<>+19312(SB)/8, $0x0008081008101000
DATA iq1pTab<>+19320(SB)/8, $0x0008081008101008
DATA iq1pTab<>+19328(SB)/8, $0x0008081008101010
DATA iq1pTab<>+19336(SB)/8, $0x0008081010000810
DATA iq1pTab<>+19344(SB)/8, $0x0008081010001010
DATA iq1pTab<>+19352(SB)/8, $0x0008081010080010
DATA iq1pTab<>+19360(SB)/8, $0x0008081010080808
DATA iq1pTab<>+19368(SB)/8, $0x0008081010100800
DATA iq1pTab<>+19376(SB)/8, $0x0008081010101008
DATA iq1pTab<>+19384(SB)/8, $0x0008100000080008
DATA iq1pTab<>+19392(SB)/8, $0x0008100000080810
DATA iq1pTab<>+19400(SB)/8, $0x0008100000100808
DATA iq1pTab<>+19408(SB)/8, $0x0008100008000008
DATA iq1pTab<>+19416(SB)/8, $0x0008100008000800
DATA iq1pTab<>+19424(SB)/8, $0x0008100008000810
DATA iq1pTab<>+19432(SB)/8, $0x0008100008001008
DATA iq1pTab<>+19440(SB)/8, $0x0008100008080000
DATA iq1pTab<>+19448(SB)/8, $0x0008100008080808
DATA iq1pTab<>+19456(SB)/8, $0x0008100008081000
DATA iq1pTab<>+19464(SB)/8, $0x0008100008081010
DATA iq1pTab<>+19472(SB)/8, $0x0008100008100000
DATA iq1pTab<>+19480(SB)/8, $0x0008100008100008
DATA iq1pTab<>+19488(SB)/8, $0x0008100008100800
DATA iq1pTab<>+19496(SB)/8, $0x0008100008100810
DATA iq1pTab<>+19504(SB)/8, $0x0008100008101008
DATA iq1pTab<>+19512(SB)/8, $0x0008100010000808
DATA iq1pTab<>+19520(SB)/8, $0x0008100010080008
DATA iq1pTab<>+19528(SB)/8, $0x0008100010080800
DATA iq1pTab<>+19536(SB)/8, $0x0008100010100808
DATA iq1pTab<>+19544(SB)/8, $0x0008100800080000
DATA iq1pTab<>+19552(SB)/8, $0x0008100800080010
DATA iq1pTab<>+19560(SB)/8, $0x0008100800080808
DATA iq1pTab<>+19568(SB)/8, $0x0008100800081010
DATA iq1pTab<>+19576(SB)/8, $0x0008100800100008
DATA iq1pTab<>+19584(SB)/8, $0x0008100800100808
DATA iq1pTab<>+19592(SB)/8, $0x0008100808000010
DATA iq1pTab<>+19600(SB)/8, $0x0008100808000800
DATA iq1pTab<>+19608(SB)/8, $0x0008100808000808
DATA iq1pTab<>+19616(SB)/8, $0x0008100808001000
DATA iq1pTab<>+19624(SB)/8, $0x0008100808080008
DATA iq1pTab<>+19632(SB)/8, $0x0008100808080800
DATA iq1pTab<>+19640(SB)/8, $0x0008100808080808
DATA iq1pTab<>+19648(SB)/8, $0x0008100808080810
DATA iq1pTab<>+19656(SB)/8, $0x0008100808081008
DATA iq1pTab<>+19664(SB)/8, $0x0008100808081010
DATA iq1pTab<>+19672(SB)/8, $0x0008100808100000
DATA iq1pTab<>+19680(SB)/8, $0x0008100808100808
DATA iq1pTab<>+19688(SB)/8, $0x0008100808101010
DATA iq1pTab<>+19696(SB)/8, $0x0008100810001008
DATA iq1pTab<>+19704(SB)/8, $0x0008100810080008
DATA iq1pTab<>+19712(SB)/8, $0x0008100810080010
DATA iq1pTab<>+19720(SB)/8, $0x0008100810080808
DATA iq1pTab<>+19728(SB)/8, $0x0008100810081000
DATA iq1pTab<>+19736(SB)/8, $0x0008100810100008
DATA iq1pTab<>+19744(SB)/8, $0x0008100810100810
DATA iq1pTab<>+19752(SB)/8, $0x0008100810101008
DATA iq1pTab<>+19760(SB)/8, $0x0008101000001008
DATA iq1pTab<>+19768(SB)/8, $0x0008101000080810
DATA iq1pTab<>+19776(SB)/8, $0x0008101000100800
DATA iq1pTab<>+19784(SB)/8, $0x0008101000100810
DATA iq1pTab<>+19792(SB)/8, $0x0008101008000800
DATA iq1pTab<>+19800(SB)/8, $0x0008101008000810
DATA iq1pTab<>+19808(SB)/8, $0x0008101008001008
DATA iq1pTab<>+19816(SB)/8, $0x0008101008080000
DATA iq1pTab<>+19824(SB)/8, $0x0008101008080010
DATA iq1pTab<>+19832(SB)/8, $0x0008101008080808
DATA iq1pTab<>+19840(SB)/8, $0x0008101008081000
DATA iq1pTab<>+19848(SB)/8, $0x0008101008100008
DATA iq1pTab<>+19856(SB)/8, $0x0008101008100810
DATA iq1pTab<>+19864(SB)/8, $0x0008101008101008
DATA iq1pTab<>+19872(SB)/8, $0x0008101010000808
DATA iq1pTab<>+19880(SB)/8, $0x0008101010080008
DATA iq1pTab<>+19888(SB)/8, $0x0008101010080810
DATA iq1pTab<>+19896(SB)/8, $0x0008101010081010
DATA iq1pTab<>+19904(SB)/8, $0x0010000000000000
DATA iq1pTab<>+19912(SB)/8, $0x0010000000000010
DATA iq1pTab<>+19920(SB)/8, $0x0010000000001000
DATA iq1pTab<>+19928(SB)/8, $0x0010000000001010
DATA iq1pTab<>+19936(SB)/8, $0x0010000000080808
DATA iq1pTab<>+19944(SB)/8, $0x0010000000100000
DATA iq1pTab<>+19952(SB)/8, $0x0010000000100010
DATA iq1pTab<>+19960(SB)/8, $0x0010000000100808
DATA iq1pTab<>+19968(SB)/8, $0x0010000000101000
DATA iq1pTab<>+19976(SB)/8, $0x0010000000101010
DATA iq1pTab<>+19984(SB)/8, $0x0010000008000808
DATA iq1pTab<>+19992(SB)/8, $0x0010000008080008
DATA iq1pTab<>+20000(SB)/8, $0x0010000008081008
DATA iq1pTab<>+20008(SB)/8, $0x0010000008100008
DATA iq1pTab<>+20016(SB)/8, $0x0010000008100808
DATA iq1pTab<>+20024(SB)/8, $0x0010000010000000
DATA iq1pTab<>+20032(SB)/8, $0x0010000010000010
DATA iq1pTab<>+20040(SB)/8, $0x0010000010001000
DATA iq1pTab<>+20048(SB)/8, $0x0010000010001010
DATA iq1pTab<>+20056(SB)/8, $0x0010000010080808
DATA iq1pTab<>+20064(SB)/8, $0x0010000010100000
DATA iq1pTab<>+20072(SB)/8, $0x0010000010100010
DATA iq1pTab<>+20080(SB)/8, $0x0010000010100808
DATA iq1pTab<>+20088(SB)/8, $0x0010000010101000
DATA iq1pTab<>+20096(SB)/8, $0x0010000010101010
DATA iq1pTab<>+20104(SB)/8, $0x0010000800000808
DATA iq1pTab<>+20112(SB)/8, $0x0010000800080008
DATA iq1pTab<>+20120(SB)/8, $0x0010000800080800
DATA iq1pTab<>+20128(SB)/8, $0x0010000800081008
DATA iq1pTab<>+20136(SB)/8, $0x0010000800100808
DATA iq1pTab<>+20144(SB)/8, $0x0010000808000010
DATA iq1pTab<>+20152(SB)/8, $0x0010000808000800
DATA iq1pTab<>+20160(SB)/8, $0x0010000808001008
DATA iq1pTab<>+20168(SB)/8, $0x0010000808080808
DATA iq1pTab<>+20176(SB)/8, $0x0010000808081000
DATA iq1pTab<>+20184(SB)/8, $0x0010000808081010
DATA iq1pTab<>+20192(SB)/8, $0x0010000808100008
DATA iq1pTab<>+20200(SB)/8, $0x0010000808100800
DATA iq1pTab<>+20208(SB)/8, $0x0010000808100808
DATA iq1pTab<>+20216(SB)/8, $0x0010000808100810
DATA iq1pTab<>+20224(SB)/8, $0x0010000810000808
DATA iq1pTab<>+20232(SB)/8, $0x0010000810080000
DATA iq1pTab<>+20240(SB)/8, $0x0010000810080810
DATA iq1pTab<>+20248(SB)/8, $0x0010000810081008
DATA iq1pTab<>+20256(SB)/8, $0x0010000810100808
DATA iq1pTab<>+20264(SB)/8, $0x0010001000000008
DATA iq1pTab<>+20272(SB)/8, $0x0010001000001000
DATA iq1pTab<>+20280(SB)/8, $0x0010001000001010
DATA iq1pTab<>+20288(SB)/8, $0x0010001000080008
DATA iq1pTab<>+20296(SB)/8, $0x0010001000080808
DATA iq1pTab<>+20304(SB)/8, $0x0010001000100000
DATA iq1pTab<>+20312(SB)/8, $0x0010001000100010
DATA iq1pTab<>+20320(SB)/8, $0x0010001000101000
DATA iq1pTab<>+20328(SB)/8, $0x0010001000101010
DATA iq1pTab<>+20336(SB)/8, $0x0010001008000808
DATA iq1pTab<>+20344(SB)/8, $0x0010001008080008
DATA iq1pTab<>+20352(SB)/8, $0x0010001008080810
DATA iq1pTab<>+20360(SB)/8, $0x0010001008081008
DATA iq1pTab<>+20368(SB)/8, $0x0010001008100808
DATA iq1pTab<>+20376(SB)/8, $0x0010001010000008
DATA iq1pTab<>+20384(SB)/8, $0x0010001010001000
DATA iq1pTab<>+20392(SB)/8, $0x0010001010001010
DATA iq1pTab<>+20400(SB)/8, $0x0010001010080008
DATA iq1pTab<>+20408(SB)/8, $0x0010001010080808
DATA iq1pTab<>+20416(SB)/8, $0x0010001010100000
DATA iq1pTab<>+20424(SB)/8, $0x0010001010100010
DATA iq1pTab<>+20432(SB)/8, $0x0010001010101000
DATA iq1pTab<>+20440(SB)/8, $0x0010001010101010
DATA iq1pTab<>+20448(SB)/8, $0x0010080000000808
DATA iq1pTab<>+20456(SB)/8, $0x0010080000080800
DATA iq1pTab<>+20464(SB)/8, $0x0010080000080810
DATA iq1pTab<>+20472(SB)/8, $0x0010080000081008
DATA iq1pTab<>+20480(SB)/8, $0x0010080000100808
DATA iq1pTab<>+20488(SB)/8, $0x0010080008000800
DATA iq1pTab<>+20496(SB)/8, $0x0010080008000808
DATA iq1pTab<>+20504(SB)/8, $0x0010080008000810
DATA iq1pTab<>+20512(SB)/8, $0x0010080008001008
DATA iq1pTab<>+20520(SB)/8, $0x0010080008080010
DATA iq1pTab<>+20528(SB)/8, $0x0010080008080808
DATA iq1pTab<>+20536(SB)/8, $0x0010080008081000
DATA iq1pTab<>+20544(SB)/8, $0x0010080008081010
DATA iq1pTab<>+20552(SB)/8, $0x0010080008100810
DATA iq1pTab<>+20560(SB)/8, $0x0010080010000808
DATA iq1pTab<>+20568(SB)/8, $0x0010080010080008
DATA iq1pTab<>+20576(SB)/8, $0x0010080010080800
DATA iq1pTab<>+20584(SB)/8, $0x0010080010081008
DATA iq1pTab<>+20592(SB)/8, $0x0010080010100008
DATA iq1pTab<>+20600(SB)/8, $0x0010080010100808
DATA iq1pTab<>+20608(SB)/8, $0x0010080800001008
DATA iq1pTab<>+20616(SB)/8, $0x0010080800080808
DATA iq1pTab<>+20624(SB)/8, $0x0010080800100008
DATA iq1pTab<>+20632(SB)/8, $0x0010080800101008
DATA iq1pTab<>+20640(SB)/8, $0x0010080808000000
DATA iq1pTab<>+20648(SB)/8, $0x0010080808000808
DATA iq1pTab<>+20656(SB)/8, $0x0010080808001000
DATA iq1pTab<>+20664(SB)/8, $0x0010080808080008
DATA iq1pTab<>+20672(SB)/8, $0x0010080808080800
DATA iq1pTab<>+20680(SB)/8, $0x0010080808080808
DATA iq1pTab<>+20688(SB)/8, $0x0010080808081008
DATA iq1pTab<>+20696(SB)/8, $0x0010080808100010
DATA iq1pTab<>+20704(SB)/8, $0x0010080808100808
DATA iq1pTab<>+20712(SB)/8, $0x0010080808101000
DATA iq1pTab<>+20720(SB)/8, $0x0010080810001008
DATA iq1pTab<>+20728(SB)/8, $0x0010080810080000
DATA iq1pTab<>+20736(SB)/8, $0x0010080810080800
DATA iq1pTab<>+20744(SB)/8, $0x0010080810080808
DATA iq1pTab<>+20752(SB)/8, $0x0010080810081000
DATA iq1pTab<>+20760(SB)/8, $0x0010080810081010
DATA iq1pTab<>+20768(SB)/8, $0x0010080810100008
DATA iq1pTab<>+20776(SB)/8, $0x0010080810100800
DATA iq1pTab<>+20784(SB)/8, $0x0010080810100810
DATA iq1pTab<>+20792(SB)/8, $0x0010080810101008
DATA iq1pTab<>+20800(SB)/8, $0x0010081000000808
DATA iq1pTab<>+20808(SB)/8, $0x0010081000080000
DATA iq1pTab<>+20816(SB)/8, $0x0010081000080010
DATA iq1pTab<>+20824(SB)/8, $0x0010081000081008
DATA iq1pTab<>+20832(SB)/8, $0x0010081000100808
DATA iq1pTab<>+20840(SB)/8, $0x0010081008000008
DATA iq1pTab<>+20848(SB)/8, $0x0010081008001008
DATA iq1pTab<>+20856(SB)/8, $0x0010081008080808
DATA iq1pTab<>+20864(SB)/8, $0x0010081008100000
DATA iq1pTab<>+20872(SB)/8, $0x0010081008100008
DATA iq1pTab<>+20880(SB)/8, $0x0010081008101008
DATA iq1pTab<>+20888(SB)/8, $0x0010081010000800
DATA iq1pTab<>+20896(SB)/8, $0x0010081010000810
DATA iq1pTab<>+20904(SB)/8, $0x0010081010080000
DATA iq1pTab<>+20912(SB)/8, $0x0010081010081010
DATA iq1pTab<>+20920(SB)/8, $0x0010100000000000
DATA iq1pTab<>+20928(SB)/8, $0x0010100000000010
DATA iq1pTab<>+20936(SB)/8, $0x0010100000001000
DATA iq1pTab<>+20944(SB)/8, $0x0010100000001010
DATA iq1pTab<>+20952(SB)/8, $0x0010100000080808
DATA iq1pTab<>+20960(SB)/8, $0x0010100000100000
DATA iq1pTab<>+20968(SB)/8, $0x0010100000100010
DATA iq1pTab<>+20976(SB)/8, $0x0010100000101000
DATA iq1pTab<>+20984(SB)/8, $0x0010100000101010
DATA iq1pTab<>+20992(SB)/8, $0x0010100008000808
DATA iq1pTab<>+21000(SB)/8, $0x0010100008080008
DATA iq1pTab<>+21008(SB)/8, $0x0010100008080800
DATA iq1pTab<>+21016(SB)/8, $0x0010100008100808
DATA iq1pTab<>+21024(SB)/8, $0x0010100010000000
DATA iq1pTab<>+21032(SB)/8, $0x0010100010000010
DATA iq1pTab<>+21040(SB)/8, $0x0010100010001000
DATA iq1pTab<>+21048(SB)/8, $0x0010100010001010
DATA iq1pTab<>+21056(SB)/8, $0x0010100010100000
DATA iq1pTab<>+21064(SB)/8, $0x0010100010100010
DATA iq1pTab<>+21072(SB)/8, $0x0010100010101000
DATA iq1pTab<>+21080(SB)/8, $0x0010100010101010
DATA iq1pTab<>+21088(SB)/8, $0x0010100800001008
DATA iq1pTab<>+21096(SB)/8, $0x0010100800080008
DATA iq1pTab<>+21104(SB)/8, $0x0010100800080800
DATA iq1pTab<>+21112(SB)/8, $0x0010100800081008
DATA iq1pTab<>+21120(SB)/8, $0x0010100800100808
DATA iq1pTab<>+21128(SB)/8, $0x0010100808000810
DATA iq1pTab<>+21136(SB)/8, $0x0010100808001008
DATA iq1pTab<>+21144(SB)/8, $0x0010100808080010
DATA iq1pTab<>+21152(SB)/8, $0x0010100808080808
DATA iq1pTab<>+21160(SB)/8, $0x0010100808100008
DATA iq1pTab<>+21168(SB)/8, $0x0010100808100800
DATA iq1pTab<>+21176(SB)/8, $0x0010100808100810
DATA iq1pTab<>+21184(SB)/8, $0x0010100808101008
DATA iq1pTab<>+21192(SB)/8, $0x0010100810000808
DATA iq1pTab<>+21200(SB)/8, $0x0010100810080000
DATA iq1pTab<>+21208(SB)/8, $0x0010100810080810
DATA iq1pTab<>+21216(SB)/8, $0x0010100810081008
DATA iq1pTab<>+21224(SB)/8, $0x0010100810100800
DATA iq1pTab<>+21232(SB)/8, $0x0010100810100808
DATA iq1pTab<>+21240(SB)/8, $0x0010101000000000
DATA iq1pTab<>+21248(SB)/8, $0x0010101000000010
DATA iq1pTab<>+21256(SB)/8, $0x0010101000001000
DATA iq1pTab<>+21264(SB)/8, $0x0010101000001010
DATA iq1pTab<>+21272(SB)/8, $0x0010101000100000
DATA iq1pTab<>+21280(SB)/8, $0x0010101000100010
DATA iq1pTab<>+21288(SB)/8, $0x0010101000101000
DATA iq1pTab<>+21296(SB)/8, $0x0010101000101010
DATA iq1pTab<>+21304(SB)/8, $0x0010101008000808
DATA iq1pTab<>+21312(SB)/8, $0x0010101008080008
DATA iq1pTab<>+21320(SB)/8, $0x0010101008080810
DATA iq1pTab<>+21328(SB)/8, $0x0010101008081008
DATA iq1pTab<>+21336(SB)/8, $0x0010101008100808
DATA iq1pTab<>+21344(SB)/8, $0x0010101010000000
DATA iq1pTab<>+21352(SB)/8, $0x0010101010000010
DATA iq1pTab<>+21360(SB)/8, $0x0010101010001000
DATA iq1pTab<>+21368(SB)/8, $0x0010101010001010
DATA iq1pTab<>+21376(SB)/8, $0x0010101010080808
DATA iq1pTab<>+21384(SB)/8, $0x0010101010100000
DATA iq1pTab<>+21392(SB)/8, $0x0010101010100010
DATA iq1pTab<>+21400(SB)/8, $0x0010101010101000
DATA iq1pTab<>+21408(SB)/8, $0x0010101010101010
DATA iq1pTab<>+21416(SB)/8, $0x0800000000000808
DATA iq1pTab<>+21424(SB)/8, $0x0800000000080008
DATA iq1pTab<>+21432(SB)/8, $0x0800000000080810
DATA iq1pTab<>+21440(SB)/8, $0x0800000000100808
DATA iq1pTab<>+21448(SB)/8, $0x0800000008001008
DATA iq1pTab<>+21456(SB)/8, $0x0800000008080010
DATA iq1pTab<>+21464(SB)/8, $0x0800000008080808
DATA iq1pTab<>+21472(SB)/8, $0x0800000008081000
DATA iq1pTab<>+21480(SB)/8, $0x0800000008081010
DATA iq1pTab<>+21488(SB)/8, $0x0800000008100008
DATA iq1pTab<>+21496(SB)/8, $0x0800000008100800
DATA iq1pTab<>+21504(SB)/8, $0x0800000008100810
DATA iq1pTab<>+21512(SB)/8, $0x0800000010080800
DATA iq1pTab<>+21520(SB)/8, $0x0800000010081008
DATA iq1pTab<>+21528(SB)/8, $0x0800000010100008
DATA iq1pTab<>+21536(SB)/8, $0x0800000010100810
DATA iq1pTab<>+21544(SB)/8, $0x0800000800000000
DATA iq1pTab<>+21552(SB)/8, $0x0800000800000008
DATA iq1pTab<>+21560(SB)/8, $0x0800000800000800
DATA iq1pTab<>+21568(SB)/8, $0x0800000800000810
DATA iq1pTab<>+21576(SB)/8, $0x0800000800001008
DATA iq1pTab<>+21584(SB)/8, $0x0800000800080010
DATA iq1pTab<>+21592(SB)/8, $0x0800000800080808
DATA iq1pTab<>+21600(SB)/8, $0x0800000800080810
DATA iq1pTab<>+21608(SB)/8, $0x0800000800081000
DATA iq1pTab<>+21616(SB)/8, $0x0800000800081010
DATA iq1pTab<>+21624(SB)/8, $0x0800000800100008
DATA iq1pTab<>+21632(SB)/8, $0x0800000800100810
DATA iq1pTab<>+21640(SB)/8, $0x0800000800101008
DATA iq1pTab<>+21648(SB)/8, $0x0800000808000808
DATA iq1pTab<>+21656(SB)/8, $0x0800000808001000
DATA iq1pTab<>+21664(SB)/8, $0x0800000808001010
DATA iq1pTab<>+21672(SB)/8, $0x0800000808080008
DATA iq1pTab<>+21680(SB)/8, $0x0800000808080800
DATA iq1pTab<>+21688(SB)/8, $0x0800000808080808
DATA iq1pTab<>+21696(SB)/8, $0x0800000808080810
DATA iq1pTab<>+21704(SB)/8, $0x0800000808081008
DATA iq1pTab<>+21712(SB)/8, $0x0800000808081010
DATA iq1pTab<>+21720(SB)/8, $0x0800000808100808
DATA iq1pTab<>+21728(SB)/8, $0x0800000808101000
DATA iq1pTab<>+21736(SB)/8, $0x0800000808101010
DATA iq1pTab<>+21744(SB)/8, $0x0800000810000008
DATA iq1pTab<>+21752(SB)/8, $0x0800000810000800
DATA iq1pTab<>+21760(SB)/8, $0x0800000810000810
DATA iq1pTab<>+21768(SB)/8, $0x0800000810080000
DATA iq1pTab<>+21776(SB)/8, $0x0800000810080010
DATA iq1pTab<>+21784(SB)/8, $0x0800000810080808
DATA iq1pTab<>+21792(SB)/8, $0x0800000810100000
DATA iq1pTab<>+21800(SB)/8, $0x0800000810100008
DATA iq1pTab<>+21808(SB)/8, $0x0800000810100010
DATA iq1pTab<>+21816(SB)/8, $0x0800001000000808
DATA iq1pTab<>+21824(SB)/8, $0x0800001000080008
DATA iq1pTab<>+21832(SB)/8, $0x0800001000080800
DATA iq1pTab<>+21840(SB)/8, $0x0800001000080810
DATA iq1pTab<>+21848(SB)/8, $0x0800001000100808
DATA iq1pTab<>+21856(SB)/8, $0x0800001008000008
DATA iq1pTab<>+21864(SB)/8, $0x0800001008080010
DATA iq1pTab<>+21872(SB)/8, $0x0800001008080808
DATA iq1pTab<>+21880(SB)/8, $0x0800001008081010
DATA iq1pTab<>+21888(SB)/8, $0x0800001008100800
DATA iq1pTab<>+21896(SB)/8, $0x0800001008101008
DATA iq1pTab<>+21904(SB)/8, $0x0800001010001008
DATA iq1pTab<>+21912(SB)/8, $0x0800001010080800
DATA iq1pTab<>+21920(SB)/8, $0x0800001010100808
DATA iq1pTab<>+21928(SB)/8, $0x0800080000000008
DATA iq1pTab<>+21936(SB)/8, $0x0800080000080808
DATA iq1pTab<>+21944(SB)/8, $0x0800080000081008
DATA iq1pTab<>+21952(SB)/8, $0x0800080000101008
DATA iq1pTab<>+21960(SB)/8, $0x0800080008000808
DATA iq1pTab<>+21968(SB)/8, $0x0800080008001000
DATA iq1pTab<>+21976(SB)/8, $0x0800080008001010
DATA iq1pTab<>+21984(SB)/8, $0x0800080008080008
DATA iq1pTab<>+21992(SB)/8, $0x0800080008080800
DATA iq1pTab<>+22000(SB)/8, $0x0800080008080808
DATA iq1pTab<>+22008(SB)/8, $0x0800080008080810
DATA iq1pTab<>+22016(SB)/8, $0x0800080008100008
DATA iq1pTab<>+22024(SB)/8, $0x0800080008100010
DATA iq1pTab<>+22032(SB)/8, $0x0800080008100808
DATA iq1pTab<>+22040(SB)/8, $0x0800080008101000
DATA iq1pTab<>+22048(SB)/8, $0x0800080008101010
DATA iq1pTab<>+22056(SB)/8, $0x0800080010000008
DATA iq1pTab<>+22064(SB)/8, $0x0800080010000810
DATA iq1pTab<>+22072(SB)/8, $0x0800080010001008
DATA iq1pTab<>+22080(SB)/8, $0x0800080010080000
DATA iq1pTab<>+22088(SB)/8, $0x0800080010080010
DATA iq1pTab<>+22096(SB)/8, $0x0800080010080808
DATA iq1pTab<>+22104(SB)/8, $0x0800080010100000
DATA iq1pTab<>+22112(SB)/8, $0x0800080010100008
DATA iq1pTab<>+22120(SB)/8, $0x0800080010101008
DATA iq1pTab<>+22128(SB)/8, $0x0800080800000008
DATA iq1pTab<>+22136(SB)/8, $0x0800080800000010
DATA iq1pTab<>+22144(SB)/8, $0x0800080800000808
DATA iq1pTab<>+22152(SB)/8, $0x0800080800001010
DATA iq1pTab<>+22160(SB)/8, $0x0800080800080008
DATA iq1pTab<>+22168(SB)/8, $0x0800080800080800
DATA iq1pTab<>+22176(SB)/8, $0x0800080800080808
DATA iq1pTab<>+22184(SB)/8, $0x0800080800080810
DATA iq1pTab<>+22192(SB)/8, $0x0800080800081008
DATA iq1pTab<>+22200(SB)/8, $0x0800080800100000
DATA iq1pTab<>+22208(SB)/8, $0x0800080800100808
DATA iq1pTab<>+22216(SB)/8, $0x0800080800101010
DATA iq1pTab<>+22224(SB)/8, $0x0800080808000008
DATA iq1pTab<>+22232(SB)/8, $0x0800080808000800
DATA iq1pTab<>+22240(SB)/8, $0x0800080808000808
DATA iq1pTab<>+22248(SB)/8, $0x0800080808000810
DATA iq1pTab<>+22256(SB)/8, $0x0800080808001008
DATA iq1pTab<>+22264(SB)/8, $0x0800080808080000
DATA iq1pTab<>+22272(SB)/8, $0x0800080808080008
DATA iq1pTab<>+22280(SB)/8, $0x0800080808080800
DATA iq1pTab<>+22288(SB)/8, $0x0800080808080808
DATA iq1pTab<>+22296(SB)/8, $0x0800080808080810
DATA iq1pTab<>+22304(SB)/8, $0x0800080808081000
DATA iq1pTab<>+22312(SB)/8, $0x0800080808081008
DATA iq1pTab<>+22320(SB)/8, $0x0800080808100008
DATA iq1pTab<>+22328(SB)/8, $0x0800080808100800
DATA iq1pTab<>+22336(SB)/8, $0x0800080808100808
DATA iq1pTab<>+22344(SB)/8, $0x0800080808100810
DATA iq1pTab<>+22352(SB)/8, $0x0800080808101008
DATA iq1pTab<>+22360(SB)/8, $0x0800080810000010
DATA iq1pTab<>+22368(SB)/8, $0x0800080810000800
DATA iq1pTab<>+22376(SB)/8, $0x0800080810000808
DATA iq1pTab<>+22384(SB)/8, $0x0800080810001000
DATA iq1pTab<>+22392(SB)/8, $0x0800080810080008
DATA iq1pTab<>+22400(SB)/8, $0x0800080810080800
DATA iq1pTab<>+22408(SB)/8, $0x0800080810080808
DATA iq1pTab<>+22416(SB)/8, $0x0800080810080810
DATA iq1pTab<>+22424(SB)/8, $0x0800080810081008
DATA iq1pTab<>+22432(SB)/8, $0x0800080810081010
DATA iq1pTab<>+22440(SB)/8, $0x0800080810100808
DATA iq1pTab<>+22448(SB)/8, $0x0800080810101000
DATA iq1pTab<>+22456(SB)/8, $0x0800080810101010
DATA iq1pTab<>+22464(SB)/8, $0x0800081000000008
DATA iq1pTab<>+22472(SB)/8, $0x0800081000000808
DATA iq1pTab<>+22480(SB)/8, $0x0800081000001008
DATA iq1pTab<>+22488(SB)/8, $0x0800081000080800
DATA iq1pTab<>+22496(SB)/8, $0x0800081000080808
DATA iq1pTab<>+22504(SB)/8, $0x0800081000081000
DATA iq1pTab<>+22512(SB)/8, $0x0800081000081010
DATA iq1pTab<>+22520(SB)/8, $0x0800081000100008
DATA iq1pTab<>+22528(SB)/8, $0x0800081000100800
DATA iq1pTab<>+22536(SB)/8, $0x0800081000101008
DATA iq1pTab<>+22544(SB)/8, $0x0800081008000000
DATA iq1pTab<>+22552(SB)/8, $0x0800081008000010
DATA iq1pTab<>+22560(SB)/8, $0x0800081008000808
DATA iq1pTab<>+22568(SB)/8, $0x0800081008001000
DATA iq1pTab<>+22576(SB)/8, $0x0800081008080000
DATA iq1pTab<>+22584(SB)/8, $0x0800081008080008
DATA iq1pTab<>+22592(SB)/8, $0x0800081008080010
DATA iq1pTab<>+22600(SB)/8, $0x0800081008080808
DATA iq1pTab<>+22608(SB)/8, $0x0800081008080810
DATA iq1pTab<>+22616(SB)/8, $0x0800081008081008
DATA iq1pTab<>+22624(SB)/8, $0x0800081008100010
DATA iq1pTab<>+22632(SB)/8, $0x0800081008100808
DATA iq1pTab<>+22640(SB)/8, $0x0800081008101000
DATA iq1pTab<>+22648(SB)/8, $0x0800081010000008
DATA iq1pTab<>+22656(SB)/8, $0x0800081010000808
DATA iq1pTab<>+22664(SB)/8, $0x0800081010001010
DATA iq1pTab<>+22672(SB)/8, $0x0800081010080800
DATA iq1pTab<>+22680(SB)/8, $0x0800081010080808
DATA iq1pTab<>+22688(SB)/8, $0x0800081010100008
DATA iq1pTab<>+22696(SB)/8, $0x0800081010100800
DATA iq1pTab<>+22704(SB)/8, $0x0800081010100810
DATA iq1pTab<>+22712(SB)/8, $0x0800100000000808
DATA iq1pTab<>+22720(SB)/8, $0x0800100000080008
DATA iq1pTab<>+22728(SB)/8, $0x0800100000080808
DATA iq1pTab<>+22736(SB)/8, $0x0800100000081010
DATA iq1pTab<>+22744(SB)/8, $0x0800100000100808
DATA iq1pTab<>+22752(SB)/8, $0x0800100008000010
DATA iq1pTab<>+22760(SB)/8, $0x0800100008001008
DATA iq1pTab<>+22768(SB)/8, $0x0800100008080000
DATA iq1pTab<>+22776(SB)/8, $0x0800100008080808
DATA iq1pTab<>+22784(SB)/8, $0x0800100008081000
DATA iq1pTab<>+22792(SB)/8, $0x0800100008100008
DATA iq1pTab<>+22800(SB)/8, $0x0800100008100800
DATA iq1pTab<>+22808(SB)/8, $0x0800100008100810
DATA iq1pTab<>+22816(SB)/8, $0x0800100008101008
DATA iq1pTab<>+22824(SB)/8, $0x0800100010000808
DATA iq1pTab<>+22832(SB)/8, $0x0800100010080008
DATA iq1pTab<>+22840(SB)/8, $0x0800100010080800
DATA iq1pTab<>+22848(SB)/8, $0x0800100010080810
DATA iq1pTab<>+22856(SB)/8, $0x0800100010081008
DATA iq1pTab<>+22864(SB)/8, $0x0800100010100808
DATA iq1pTab<>+22872(SB)/8, $0x0800100800000008
DATA iq1pTab<>+22880(SB)/8, $0x0800100800000808
DATA iq1pTab<>+22888(SB)/8, $0x0800100800000810
DATA iq1pTab<>+22896(SB)/8, $0x0800100800001010
DATA iq1pTab<>+22904(SB)/8, $0x0800100800080000
DATA iq1pTab<>+22912(SB)/8, $0x0800100800080800
DATA iq1pTab<>+22920(SB)/8, $0x0800100800080808
DATA iq1pTab<>+22928(SB)/8, $0x0800100800081000
DATA iq1pTab<>+22936(SB)/8, $0x0800100800100008
DATA iq1pTab<>+22944(SB)/8, $0x0800100800100800
DATA iq1pTab<>+22952(SB)/8, $0x0800100800100810
DATA iq1pTab<>+22960(SB)/8, $0x0800100808000000
DATA iq1pTab<>+22968(SB)/8, $0x0800100808000808
DATA iq1pTab<>+22976(SB)/8, $0x0800100808001010
DATA iq1pTab<>+22984(SB)/8, $0x0800100808080008
DATA iq1pTab<>+22992(SB)/8, $0x0800100808080010
DATA iq1pTab<>+23000(SB)/8, $0x0800100808080800
DATA iq1pTab<>+23008(SB)/8, $0x0800100808080808
DATA iq1pTab<>+23016(SB)/8, $0x0800100808080810
DATA iq1pTab<>+23024(SB)/8, $0x0800100808081008
DATA iq1pTab<>+23032(SB)/8, $0x0800100808100000
DATA iq1pTab<>+23040(SB)/8, $0x0800100808100010
DATA iq1pTab<>+23048(SB)/8, $0x0800100808100808
DATA iq1pTab<>+23056(SB)/8, $0x0800100808100810
DATA iq1pTab<>+23064(SB)/8, $0x0800100808101010
DATA iq1pTab<>+23072(SB)/8, $0x0800100810000810
DATA iq1pTab<>+23080(SB)/8, $0x0800100810001008
DATA iq1pTab<>+23088(SB)/8, $0x0800100810080010
DATA iq1pTab<>+23096(SB)/8, $0x0800100810080808
DATA iq1pTab<>+23104(SB)/8, $0x0800100810080810
DATA iq1pTab<>+23112(SB)/8, $0x0800100810081000
DATA iq1pTab<>+23120(SB)/8, $0x0800100810100008
DATA iq1pTab<>+23128(SB)/8, $0x0800100810100800
DATA iq1pTab<>+23136(SB)/8, $0x0800100810100810
DATA iq1pTab<>+23144(SB)/8, $0x0800100810101008
DATA iq1pTab<>+23152(SB)/8, $0x0800101000080810
DATA iq1pTab<>+23160(SB)/8, $0x0800101008000800
DATA iq1pTab<>+23168(SB)/8, $0x0800101008000810
DATA iq1pTab<>+23176(SB)/8, $0x0800101008001008
DATA iq1pTab<>+23184(SB)/8, $0x0800101008080808
DATA iq1pTab<>+23192(SB)/8, $0x0800101008081000
DATA iq1pTab<>+23200(SB)/8, $0x0800101008081010
DATA iq1pTab<>+23208(SB)/8, $0x0800101008100800
DATA iq1pTab<>+23216(SB)/8, $0x0800101008101008
DATA iq1pTab<>+23224(SB)/8, $0x0800101010080800
DATA iq1pTab<>+23232(SB)/8, $0x0800101010100808
DATA iq1pTab<>+23240(SB)/8, $0x0808000000000008
DATA iq1pTab<>+23248(SB)/8, $0x0808000000000800
DATA iq1pTab<>+23256(SB)/8, $0x0808000000000808
DATA iq1pTab<>+23264(SB)/8, $0x0808000000000810
DATA iq1pTab<>+23272(SB)/8, $0x0808000000001008
DATA iq1pTab<>+23280(SB)/8, $0x0808000000080010
DATA iq1pTab<>+23288(SB)/8, $0x0808000000080808
DATA iq1pTab<>+23296(SB)/8, $0x0808000000081010
DATA iq1pTab<>+23304(SB)/8, $0x0808000000100008
DATA iq1pTab<>+23312(SB)/8, $0x0808000000100800
DATA iq1pTab<>+23320(SB)/8, $0x0808000000101008
DATA iq1pTab<>+23328(SB)/8, $0x0808000008000000
DATA iq1pTab<>+23336(SB)/8, $0x0808000008000808
DATA iq1pTab<>+23344(SB)/8, $0x0808000008001000
DATA iq1pTab<>+23352(SB)/8, $0x0808000008080008
DATA iq1pTab<>+23360(SB)/8, $0x0808000008080800
DATA iq1pTab<>+23368(SB)/8, $0x0808000008080808
DATA iq1pTab<>+23376(SB)/8, $0x0808000008080810
DATA iq1pTab<>+23384(SB)/8, $0x0808000008081008
DATA iq1pTab<>+23392(SB)/8, $0x0808000008100808
DATA iq1pTab<>+23400(SB)/8, $0x0808000008101000
DATA iq1pTab<>+23408(SB)/8, $0x0808000010000810
DATA iq1pTab<>+23416(SB)/8, $0x0808000010001008
DATA iq1pTab<>+23424(SB)/8, $0x0808000010080808
DATA iq1pTab<>+23432(SB)/8, $0x0808000010081000
DATA iq1pTab<>+23440(SB)/8, $0x0808000010100000
DATA iq1pTab<>+23448(SB)/8, $0x0808000010100008
DATA iq1pTab<>+23456(SB)/8, $0x0808000010100810
DATA iq1pTab<>+23464(SB)/8, $0x0808000010101008
DATA iq1pTab<>+23472(SB)/8, $0x0808000800000808
DATA iq1pTab<>+23480(SB)/8, $0x0808000800001000
DATA iq1pTab<>+23488(SB)/8, $0x0808000800001008
DATA iq1pTab<>+23496(SB)/8, $0x0808000800001010
DATA iq1pTab<>+23504(SB)/8, $0x0808000800080008
DATA iq1pTab<>+23512(SB)/8, $0x0808000800080800
DATA iq1pTab<>+23520(SB)/8, $0x0808000800080808
DATA iq1pTab<>+23528(SB)/8, $0x0808000800080810
DATA iq1pTab<>+23536(SB)/8, $0x0808000800081000
DATA iq1pTab<>+23544(SB)/8, $0x0808000800081008
DATA iq1pTab<>+23552(SB)/8, $0x0808000800100000
DATA iq1pTab<>+23560(SB)/8, $0x0808000800100808
DATA iq1pTab<>+23568(SB)/8, $0x0808000800100810
DATA iq1pTab<>+23576(SB)/8, $0x0808000800101000
DATA iq1pTab<>+23584(SB)/8, $0x0808000800101010
DATA iq1pTab<>+23592(SB)/8, $0x0808000808000008
DATA iq1pTab<>+23600(SB)/8, $0x0808000808000800
DATA iq1pTab<>+23608(SB)/8, $0x0808000808000808
DATA iq1pTab<>+23616(SB)/8, $0x0808000808000810
DATA iq1pTab<>+23624(SB)/8, $0x0808000808001008
DATA iq1pTab<>+23632(SB)/8, $0x0808000808080000
DATA iq1pTab<>+23640(SB)/8, $0x0808000808080008
DATA iq1pTab<>+23648(SB)/8, $0x0808000808080010
DATA iq1pTab<>+23656(SB)/8, $0x0808000808080800
DATA iq1pTab<>+23664(SB)/8, $0x0808000808080808
DATA iq1pTab<>+23672(SB)/8, $0x0808000808080810
DATA iq1pTab<>+23680(SB)/8, $0x0808000808081000
DATA iq1pTab<>+23688(SB)/8, $0x0808000808081008
DATA iq1pTab<>+23696(SB)/8, $0x0808000808081010
DATA iq1pTab<>+23704(SB)/8, $0x0808000808100008
DATA iq1pTab<>+23712(SB)/8, $0x0808000808100800
DATA iq1pTab<>+23720(SB)/8, $0x0808000808100808
DATA iq1pTab<>+23728(SB)/8, $0x0808000808100810
DATA iq1pTab<>+23736(SB)/8, $0x0808000808101008
DATA iq1pTab<>+23744(SB)/8, $0x0808000810000010
DATA iq1pTab<>+23752(SB)/8, $0x0808000810000808
DATA iq1pTab<>+23760(SB)/8, $0x0808000810080008
DATA iq1pTab<>+23768(SB)/8, $0x0808000810080800
DATA iq1pTab<>+23776(SB)/8, $0x0808000810080808
DATA iq1pTab<>+23784(SB)/8, $0x0808000810080810
DATA iq1pTab<>+23792(SB)/8, $0x0808000810081008
DATA iq1pTab<>+23800(SB)/8, $0x0808000810100000
DATA iq1pTab<>+23808(SB)/8, $0x0808000810100808
DATA iq1pTab<>+23816(SB)/8, $0x0808000810101010
DATA iq1pTab<>+23824(SB)/8, $0x0808001000000008
DATA iq1pTab<>+23832(SB)/8, $0x0808001000000810
DATA iq1pTab<>+23840(SB)/8, $0x0808001000080010
DATA iq1pTab<>+23848(SB)/8, $0x0808001000080808
DATA iq1pTab<>+23856(SB)/8, $0x0808001000081010
DATA iq1pTab<>+23864(SB)/8, $0x0808001000100008
DATA iq1pTab<>+23872(SB)/8, $0x0808001000100800
DATA iq1pTab<>+23880(SB)/8, $0x0808001008000010
DATA iq1pTab<>+23888(SB)/8, $0x0808001008000808
DATA iq1pTab<>+23896(SB)/8, $0x0808001008001010
DATA iq1pTab<>+23904(SB)/8, $0x0808001008080008
DATA iq1pTab<>+23912(SB)/8, $0x0808001008080800
DATA iq1pTab<>+23920(SB)/8, $0x0808001008080808
DATA iq1pTab<>+23928(SB)/8, $0x0808001008080810
DATA iq1pTab<>+23936(SB)/8, $0x0808001008081008
DATA iq1pTab<>+23944(SB)/8, $0x0808001008100010
DATA iq1pTab<>+23952(SB)/8, $0x0808001008100808
DATA iq1pTab<>+23960(SB)/8, $0x0808001010000808
DATA iq1pTab<>+23968(SB)/8, $0x0808001010080000
DATA iq1pTab<>+23976(SB)/8, $0x0808001010080010
DATA iq1pTab<>+23984(SB)/8, $0x0808001010080808
DATA iq1pTab<>+23992(SB)/8, $0x0808001010081008
DATA iq1pTab<>+24000(SB)/8, $0x0808001010081010
DATA iq1pTab<>+24008(SB)/8, $0x0808001010100800
DATA iq1pTab<>+24016(SB)/8, $0x0808080000000800
DATA iq1pTab<>+24024(SB)/8, $0x0808080000000808
DATA iq1pTab<>+24032(SB)/8, $0x0808080000080008
DATA iq1pTab<>+24040(SB)/8, $0x0808080000080800
DATA iq1pTab<>+24048(SB)/8, $0x0808080000080808
DATA iq1pTab<>+24056(SB)/8, $0x0808080000080810
DATA iq1pTab<>+24064(SB)/8, $0x0808080000081000
DATA iq1pTab<>+24072(SB)/8, $0x0808080000081008
DATA iq1pTab<>+24080(SB)/8, $0x0808080000100008
DATA iq1pTab<>+24088(SB)/8, $0x0808080000100808
DATA iq1pTab<>+24096(SB)/8, $0x0808080000101000
DATA iq1pTab<>+24104(SB)/8, $0x0808080000101010
DATA iq1pTab<>+24112(SB)/8, $0x0808080008000008
DATA iq1pTab<>+24120(SB)/8, $0x0808080008000800
DATA iq1pTab<>+24128(SB)/8, $0x0808080008000808
DATA iq1pTab<>+24136(SB)/8, $0x0808080008000810
DATA iq1pTab<>+24144(SB)/8, $0x0808080008001008
DATA iq1pTab<>+24152(SB)/8, $0x0808080008001010
DATA iq1pTab<>+24160(SB)/8, $0x0808080008080000
DATA iq1pTab<>+24168(SB)/8, $0x0808080008080008
DATA iq1pTab<>+24176(SB)/8, $0x0808080008080800
DATA iq1pTab<>+24184(SB)/8, $0x0808080008080808
DATA iq1pTab<>+24192(SB)/8, $0x0808080008080810
DATA iq1pTab<>+24200(SB)/8, $0x0808080008081000
DATA iq1pTab<>+24208(SB)/8, $0x0808080008081008
DATA iq1pTab<>+24216(SB)/8, $0x0808080008081010
DATA iq1pTab<>+24224(SB)/8, $0x0808080008100008
DATA iq1pTab<>+24232(SB)/8, $0x0808080008100010
DATA iq1pTab<>+24240(SB)/8, $0x0808080008100800
DATA iq1pTab<>+24248(SB)/8, $0x0808080008100808
DATA iq1pTab<>+24256(SB)/8, $0x0808080008100810
DATA iq1pTab<>+24264(SB)/8, $0x0808080008101008
DATA iq1pTab<>+24272(SB)/8, $0x0808080010000000
DATA iq1pTab<>+24280(SB)/8, $0x0808080010001000
DATA iq1pTab<>+24288(SB)/8, $0x0808080010001010
DATA iq1pTab<>+24296(SB)/8, $0x0808080010080008
DATA iq1pTab<>+24304(SB)/8, $0x0808080010080800
DATA iq1pTab<>+24312(SB)/8, $0x0808080010080808
DATA iq1pTab<>+24320(SB)/8, $0x0808080010080810
DATA iq1pTab<>+24328(SB)/8, $0x0808080010081008
DATA iq1pTab<>+24336(SB)/8, $0x0808080010100008
DATA iq1pTab<>+24344(SB)/8, $0x0808080010100800
DATA iq1pTab<>+24352(SB)/8, $0x0808080010100808
DATA iq1pTab<>+24360(SB)/8, $0x0808080010101010
DATA iq1pTab<>+24368(SB)/8, $0x0808080800000008
DATA iq1pTab<>+24376(SB)/8, $0x0808080800000010
DATA iq1pTab<>+24384(SB)/8, $0x0808080800000800
DATA iq1pTab<>+24392(SB)/8, $0x0808080800000808
DATA iq1pTab<>+24400(SB)/8, $0x0808080800000810
DATA iq1pTab<>+24408(SB)/8, $0x0808080800001008
DATA iq1pTab<>+24416(SB)/8, $0x0808080800080000
DATA iq1pTab<>+24424(SB)/8, $0x0808080800080008
DATA iq1pTab<>+24432(SB)/8, $0x0808080800080010
DATA iq1pTab<>+24440(SB)/8, $0x0808080800080800
DATA iq1pTab<>+24448(SB)/8, $0x0808080800080808
DATA iq1pTab<>+24456(SB)/8, $0x0808080800080810
DATA iq1pTab<>+24464(SB)/8, $0x0808080800081008
DATA iq1pTab<>+24472(SB)/8, $0x0808080800081010
DATA iq1pTab<>+24480(SB)/8, $0x0808080800100008
DATA iq1pTab<>+24488(SB)/8, $0x0808080800100800
DATA iq1pTab<>+24496(SB)/8, $0x0808080800100808
DATA iq1pTab<>+24504(SB)/8, $0x0808080800100810
DATA iq1pTab<>+24512(SB)/8, $0x0808080800101008
DATA iq1pTab<>+24520(SB)/8, $0x0808080808000000
DATA iq1pTab<>+24528(SB)/8, $0x0808080808000008
DATA iq1pTab<>+24536(SB)/8, $0x0808080808000010
DATA iq1pTab<>+24544(SB)/8, $0x0808080808000800
DATA iq1pTab<>+24552(SB)/8, $0x0808080808000808
DATA iq1pTab<>+24560(SB)/8, $0x0808080808000810
DATA iq1pTab<>+24568(SB)/8, $0x0808080808001000
DATA iq1pTab<>+24576(SB)/8, $0x0808080808001008
DATA iq1pTab<>+24584(SB)/8, $0x0808080808080000
DATA iq1pTab<>+24592(SB)/8, $0x0808080808080008
DATA iq1pTab<>+24600(SB)/8, $0x0808080808080010
DATA iq1pTab<>+24608(SB)/8, $0x0808080808080800
DATA iq1pTab<>+24616(SB)/8, $0x0808080808080808
DATA iq1pTab<>+24624(SB)/8, $0x0808080808080810
DATA iq1pTab<>+24632(SB)/8, $0x0808080808081000
DATA iq1pTab<>+24640(SB)/8, $0x0808080808081008
DATA iq1pTab<>+24648(SB)/8, $0x0808080808081010
DATA iq1pTab<>+24656(SB)/8, $0x0808080808100000
DATA iq1pTab<>+24664(SB)/8, $0x0808080808100008
DATA iq1pTab<>+24672(SB)/8, $0x0808080808100800
DATA iq1pTab<>+24680(SB)/8, $0x0808080808100808
DATA iq1pTab<>+24688(SB)/8, $0x0808080808100810
DATA iq1pTab<>+24696(SB)/8, $0x0808080808101000
DATA iq1pTab<>+24704(SB)/8, $0x0808080808101008
DATA iq1pTab<>+24712(SB)/8, $0x0808080808101010
DATA iq1pTab<>+24720(SB)/8, $0x0808080810000008
DATA iq1pTab<>+24728(SB)/8, $0x0808080810000800
DATA iq1pTab<>+24736(SB)/8, $0x0808080810000808
DATA iq1pTab<>+24744(SB)/8, $0x0808080810001008
DATA iq1pTab<>+24752(SB)/8, $0x0808080810001010
DATA iq1pTab<>+24760(SB)/8, $0x0808080810080000
DATA iq1pTab<>+24768(SB)/8, $0x0808080810080008
DATA iq1pTab<>+24776(SB)/8, $0x0808080810080800
DATA iq1pTab<>+24784(SB)/8, $0x0808080810080808
DATA iq1pTab<>+24792(SB)/8, $0x0808080810080810
DATA iq1pTab<>+24800(SB)/8, $0x0808080810081000
DATA iq1pTab<>+24808(SB)/8, $0x0808080810081008
DATA iq1pTab<>+24816(SB)/8, $0x0808080810100008
DATA iq1pTab<>+24824(SB)/8, $0x0808080810100800
DATA iq1pTab<>+24832(SB)/8, $0x0808080810100808
DATA iq1pTab<>+24840(SB)/8, $0x0808080810100810
DATA iq1pTab<>+24848(SB)/8, $0x0808080810101008
DATA iq1pTab<>+24856(SB)/8, $0x0808081000000000
DATA iq1pTab<>+24864(SB)/8, $0x0808081000000008
DATA iq1pTab<>+24872(SB)/8, $0x0808081000000010
DATA iq1pTab<>+24880(SB)/8, $0x0808081000000800
DATA iq1pTab<>+24888(SB)/8, $0x0808081000000810
DATA iq1pTab<>+24896(SB)/8, $0x0808081000001000
DATA iq1pTab<>+24904(SB)/8, $0x0808081000001008
DATA iq1pTab<>+24912(SB)/8, $0x0808081000080008
DATA iq1pTab<>+24920(SB)/8, $0x0808081000080800
DATA iq1pTab<>+24928(SB)/8, $0x0808081000080808
DATA iq1pTab<>+24936(SB)/8, $0x0808081000081000
DATA iq1pTab<>+24944(SB)/8, $0x0808081000081008
DATA iq1pTab<>+24952(SB)/8, $0x0808081000100000
DATA iq1pTab<>+24960(SB)/8, $0x0808081000100008
DATA iq1pTab<>+24968(SB)/8, $0x0808081000100010
DATA iq1pTab<>+24976(SB)/8, $0x0808081000100800
DATA iq1pTab<>+24984(SB)/8, $0x0808081000100808
DATA iq1pTab<>+24992(SB)/8, $0x0808081000100810
DATA iq1pTab<>+25000(SB)/8, $0x0808081000101000
DATA iq1pTab<>+25008(SB)/8, $0x0808081000101008
DATA iq1pTab<>+25016(SB)/8, $0x0808081008000008
DATA iq1pTab<>+25024(SB)/8, $0x0808081008000808
DATA iq1pTab<>+25032(SB)/8, $0x0808081008000810
DATA iq1pTab<>+25040(SB)/8, $0x0808081008001000
DATA iq1pTab<>+25048(SB)/8, $0x0808081008001008
DATA iq1pTab<>+25056(SB)/8, $0x0808081008001010
DATA iq1pTab<>+25064(SB)/8, $0x0808081008080000
DATA iq1pTab<>+25072(SB)/8, $0x0808081008080008
DATA iq1pTab<>+25080(SB)/8, $0x0808081008080010
DATA iq1pTab<>+25088(SB)/8, $0x0808081008080800
DATA iq1pTab<>+25096(SB)/8, $0x0808081008080808
DATA iq1pTab<>+25104(SB)/8, $0x0808081008080810
DATA iq1pTab<>+25112(SB)/8, $0x0808081008081000
DATA iq1pTab<>+25120(SB)/8, $0x0808081008081008
DATA iq1pTab<>+25128(SB)/8, $0x0808081008081010
DATA iq1pTab<>+25136(SB)/8, $0x0808081008100008
DATA iq1pTab<>+25144(SB)/8, $0x0808081008100800
DATA iq1pTab<>+25152(SB)/8, $0x0808081008100808
DATA iq1pTab<>+25160(SB)/8, $0x0808081008101008
DATA iq1pTab<>+25168(SB)/8, $0x0808081010000010
DATA iq1pTab<>+25176(SB)/8, $0x0808081010000808
DATA iq1pTab<>+25184(SB)/8, $0x0808081010000810
DATA iq1pTab<>+25192(SB)/8, $0x0808081010001000
DATA iq1pTab<>+25200(SB)/8, $0x0808081010001008
DATA iq1pTab<>+25208(SB)/8, $0x0808081010001010
DATA iq1pTab<>+25216(SB)/8, $0x0808081010080008
DATA iq1pTab<>+25224(SB)/8, $0x0808081010080808
DATA iq1pTab<>+25232(SB)/8, $0x0808081010081010
DATA iq1pTab<>+25240(SB)/8, $0x0808081010100010
DATA iq1pTab<>+25248(SB)/8, $0x0808081010100808
DATA iq1pTab<>+25256(SB)/8, $0x0808081010100810
DATA iq1pTab<>+25264(SB)/8, $0x0808081010101000
DATA iq1pTab<>+25272(SB)/8, $0x0808081010101008
DATA iq1pTab<>+25280(SB)/8, $0x0808100000000800
DATA iq1pTab<>+25288(SB)/8, $0x0808100000000808
DATA iq1pTab<>+25296(SB)/8, $0x0808100000000810
DATA iq1pTab<>+25304(SB)/8, $0x0808100000001008
DATA iq1pTab<>+25312(SB)/8, $0x0808100000080000
DATA iq1pTab<>+25320(SB)/8, $0x0808100000080808
DATA iq1pTab<>+25328(SB)/8, $0x0808100000081000
DATA iq1pTab<>+25336(SB)/8, $0x0808100000100008
DATA iq1pTab<>+25344(SB)/8, $0x0808100000101010
DATA iq1pTab<>+25352(SB)/8, $0x0808100008000808
DATA iq1pTab<>+25360(SB)/8, $0x0808100008001000
DATA iq1pTab<>+25368(SB)/8, $0x0808100008001010
DATA iq1pTab<>+25376(SB)/8, $0x0808100008080008
DATA iq1pTab<>+25384(SB)/8, $0x0808100008080800
DATA iq1pTab<>+25392(SB)/8, $0x0808100008080808
DATA iq1pTab<>+25400(SB)/8, $0x0808100008080810
DATA iq1pTab<>+25408(SB)/8, $0x0808100008081000
DATA iq1pTab<>+25416(SB)/8, $0x0808100008081008
DATA iq1pTab<>+25424(SB)/8, $0x0808100008100000
DATA iq1pTab<>+25432(SB)/8, $0x0808100008100010
DATA iq1pTab<>+25440(SB)/8, $0x0808100008100800
DATA iq1pTab<>+25448(SB)/8, $0x0808100008100808
DATA iq1pTab<>+25456(SB)/8, $0x0808100010000010
DATA iq1pTab<>+25464(SB)/8, $0x0808100010001008
DATA iq1pTab<>+25472(SB)/8, $0x0808100010080000
DATA iq1pTab<>+25480(SB)/8, $0x0808100010080010
DATA iq1pTab<>+25488(SB)/8, $0x0808100010080808
DATA iq1pTab<>+25496(SB)/8, $0x0808100010081000
DATA iq1pTab<>+25504(SB)/8, $0x0808100010100008
DATA iq1pTab<>+25512(SB)/8, $0x0808100010101008
DATA iq1pTab<>+25520(SB)/8, $0x0808100800000008
DATA iq1pTab<>+25528(SB)/8, $0x0808100800000010
DATA iq1pTab<>+25536(SB)/8, $0x0808100800000808
DATA iq1pTab<>+25544(SB)/8, $0x0808100800001010
DATA iq1pTab<>+25552(SB)/8, $0x0808100800080008
DATA iq1pTab<>+25560(SB)/8, $0x0808100800080800
DATA iq1pTab<>+25568(SB)/8, $0x0808100800080808
DATA iq1pTab<>+25576(SB)/8, $0x0808100800080810
DATA iq1pTab<>+25584(SB)/8, $0x0808100800081008
DATA iq1pTab<>+25592(SB)/8, $0x0808100800100808
DATA iq1pTab<>+25600(SB)/8, $0x0808100808000008
DATA iq1pTab<>+25608(SB)/8, $0x0808100808000800
DATA iq1pTab<>+25616(SB)/8, $0x0808100808000808
DATA iq1pTab<>+25624(SB)/8, $0x0808100808000810
DATA iq1pTab<>+25632(SB)/8, $0x0808100808001008
DATA iq1pTab<>+25640(SB)/8, $0x0808100808080000
DATA iq1pTab<>+25648(SB)/8, $0x0808100808080008
DATA iq1pTab<>+25656(SB)/8, $0x0808100808080010
DATA iq1pTab<>+25664(SB)/8, $0x0808100808080800
DATA iq1pTab<>+25672(SB)/8, $0x0808100808080808
DATA iq1pTab<>+25680(SB)/8, $0x0808100808080810
DATA iq1pTab<>+25688(SB)/8, $0x0808100808081000
DATA iq1pTab<>+25696(SB)/8, $0x0808100808081008
DATA iq1pTab<>+25704(SB)/8, $0x0808100808081010
DATA iq1pTab<>+25712(SB)/8, $0x0808100808100008
DATA iq1pTab<>+25720(SB)/8, $0x0808100808100800
DATA iq1pTab<>+25728(SB)/8, $0x0808100808100808
DATA iq1pTab<>+25736(SB)/8, $0x0808100808100810
DATA iq1pTab<>+25744(SB)/8, $0x0808100808101008
DATA iq1pTab<>+25752(SB)/8, $0x0808100810000008
DATA iq1pTab<>+25760(SB)/8, $0x0808100810000808
DATA iq1pTab<>+25768(SB)/8, $0x0808100810001008
DATA iq1pTab<>+25776(SB)/8, $0x0808100810080008
DATA iq1pTab<>+25784(SB)/8, $0x0808100810080800
DATA iq1pTab<>+25792(SB)/8, $0x0808100810080808
DATA iq1pTab<>+25800(SB)/8, $0x0808100810080810
DATA iq1pTab<>+25808(SB)/8, $0x0808100810081000
DATA iq1pTab<>+25816(SB)/8, $0x0808100810081008
DATA iq1pTab<>+25824(SB)/8, $0x0808100810100808
DATA iq1pTab<>+25832(SB)/8, $0x0808101000000800
DATA iq1pTab<>+25840(SB)/8, $0x0808101000001000
DATA iq1pTab<>+25848(SB)/8, $0x0808101000080808
DATA iq1pTab<>+25856(SB)/8, $0x0808101000081010
DATA iq1pTab<>+25864(SB)/8, $0x0808101000100000
DATA iq1pTab<>+25872(SB)/8, $0x0808101000100808
DATA iq1pTab<>+25880(SB)/8, $0x0808101000100810
DATA iq1pTab<>+25888(SB)/8, $0x0808101000101008
DATA iq1pTab<>+25896(SB)/8, $0x0808101008000808
DATA iq1pTab<>+25904(SB)/8, $0x0808101008001000
DATA iq1pTab<>+25912(SB)/8, $0x0808101008001008
DATA iq1pTab<>+25920(SB)/8, $0x0808101008080008
DATA iq1pTab<>+25928(SB)/8, $0x0808101008080808
DATA iq1pTab<>+25936(SB)/8, $0x0808101008080810
DATA iq1pTab<>+25944(SB)/8, $0x0808101008081000
DATA iq1pTab<>+25952(SB)/8, $0x0808101008081008
DATA iq1pTab<>+25960(SB)/8, $0x0808101008100010
DATA iq1pTab<>+25968(SB)/8, $0x0808101008100808
DATA iq1pTab<>+25976(SB)/8, $0x0808101008101000
DATA iq1pTab<>+25984(SB)/8, $0x0808101008101010
DATA iq1pTab<>+25992(SB)/8, $0x0808101010000008
DATA iq1pTab<>+26000(SB)/8, $0x0808101010001010
DATA iq1pTab<>+26008(SB)/8, $0x0808101010080010
DATA iq1pTab<>+26016(SB)/8, $0x0808101010080808
DATA iq1pTab<>+26024(SB)/8, $0x0808101010080810
DATA iq1pTab<>+26032(SB)/8, $0x0808101010081000
DATA iq1pTab<>+26040(SB)/8, $0x0808101010081010
DATA iq1pTab<>+26048(SB)/8, $0x0808101010100008
DATA iq1pTab<>+26056(SB)/8, $0x0810000000000808
DATA iq1pTab<>+26064(SB)/8, $0x0810000000080800
DATA iq1pTab<>+26072(SB)/8, $0x0810000000080810
DATA iq1pTab<>+26080(SB)/8, $0x0810000000081008
DATA iq1pTab<>+26088(SB)/8, $0x0810000000100808
DATA iq1pTab<>+26096(SB)/8, $0x0810000008000800
DATA iq1pTab<>+26104(SB)/8, $0x0810000008080000
DATA iq1pTab<>+26112(SB)/8, $0x0810000008080808
DATA iq1pTab<>+26120(SB)/8, $0x0810000008080810
DATA iq1pTab<>+26128(SB)/8, $0x0810000008081000
DATA iq1pTab<>+26136(SB)/8, $0x0810000008081010
DATA iq1pTab<>+26144(SB)/8, $0x0810000008100008
DATA iq1pTab<>+26152(SB)/8, $0x0810000008100800
DATA iq1pTab<>+26160(SB)/8, $0x0810000008100810
DATA iq1pTab<>+26168(SB)/8, $0x0810000008101008
DATA iq1pTab<>+26176(SB)/8, $0x0810000010000008
DATA iq1pTab<>+26184(SB)/8, $0x0810000010080810
DATA iq1pTab<>+26192(SB)/8, $0x0810000010100808
DATA iq1pTab<>+26200(SB)/8, $0x0810000800000008
DATA iq1pTab<>+26208(SB)/8, $0x0810000800000800
DATA iq1pTab<>+26216(SB)/8, $0x0810000800000810
DATA iq1pTab<>+26224(SB)/8, $0x0810000800001008
DATA iq1pTab<>+26232(SB)/8, $0x0810000800080010
DATA iq1pTab<>+26240(SB)/8, $0x0810000800080808
DATA iq1pTab<>+26248(SB)/8, $0x0810000800100008
DATA iq1pTab<>+26256(SB)/8, $0x0810000800100010
DATA iq1pTab<>+26264(SB)/8, $0x0810000800100810
DATA iq1pTab<>+26272(SB)/8, $0x0810000800101008
DATA iq1pTab<>+26280(SB)/8, $0x0810000808000808
DATA iq1pTab<>+26288(SB)/8, $0x0810000808001008
DATA iq1pTab<>+26296(SB)/8, $0x0810000808080008
DATA iq1pTab<>+26304(SB)/8, $0x0810000808080808
DATA iq1pTab<>+26312(SB)/8, $0x0810000808080810
DATA iq1pTab<>+26320(SB)/8, $0x0810000808081008
DATA iq1pTab<>+26328(SB)/8, $0x0810000808100808
DATA iq1pTab<>+26336(SB)/8, $0x0810000808100810
DATA iq1pTab<>+26344(SB)/8, $0x0810000808101010
DATA iq1pTab<>+26352(SB)/8, $0x0810000810000800
DATA iq1pTab<>+26360(SB)/8, $0x0810000810001010
DATA iq1pTab<>+26368(SB)/8, $0x0810000810080010
DATA iq1pTab<>+26376(SB)/8, $0x0810000810080808
DATA iq1pTab<>+26384(SB)/8, $0x0810000810100008
DATA iq1pTab<>+26392(SB)/8, $0x0810000810100810
DATA iq1pTab<>+26400(SB)/8, $0x0810000810101008
DATA iq1pTab<>+26408(SB)/8, $0x0810001000080008
DATA iq1pTab<>+26416(SB)/8, $0x0810001000080810
DATA iq1pTab<>+26424(SB)/8, $0x0810001000081008
DATA iq1pTab<>+26432(SB)/8, $0x0810001008000000
DATA iq1pTab<>+26440(SB)/8, $0x0810001008000008
DATA iq1pTab<>+26448(SB)/8, $0x0810001008000810
DATA iq1pTab<>+26456(SB)/8, $0x0810001008080808
DATA iq1pTab<>+26464(SB)/8, $0x0810001008080810
DATA iq1pTab<>+26472(SB)/8, $0x0810001008081000
DATA iq1pTab<>+26480(SB)/8, $0x0810001008100000
DATA iq1pTab<>+26488(SB)/8, $0x0810001010000808
DATA iq1pTab<>+26496(SB)/8, $0x0810001010080008
DATA iq1pTab<>+26504(SB)/8, $0x0810001010080810
DATA iq1pTab<>+26512(SB)/8, $0x0810001010100808
DATA iq1pTab<>+26520(SB)/8, $0x0810080000080008
DATA iq1pTab<>+26528(SB)/8, $0x0810080000080010
DATA iq1pTab<>+26536(SB)/8, $0x0810080000080808
DATA iq1pTab<>+26544(SB)/8, $0x0810080000080810
DATA iq1pTab<>+26552(SB)/8, $0x0810080000081010
DATA iq1pTab<>+26560(SB)/8, $0x0810080000100008
DATA iq1pTab<>+26568(SB)/8, $0x0810080000100810
DATA iq1pTab<>+26576(SB)/8, $0x0810080000101008
DATA iq1pTab<>+26584(SB)/8, $0x0810080008000000
DATA iq1pTab<>+26592(SB)/8, $0x0810080008000010
DATA iq1pTab<>+26600(SB)/8, $0x0810080008000808
DATA iq1pTab<>+26608(SB)/8, $0x0810080008001000
DATA iq1pTab<>+26616(SB)/8, $0x0810080008001010
DATA iq1pTab<>+26624(SB)/8, $0x0810080008080008
DATA iq1pTab<>+26632(SB)/8, $0x0810080008080800
DATA iq1pTab<>+26640(SB)/8, $0x0810080008080808
DATA iq1pTab<>+26648(SB)/8, $0x0810080008080810
DATA iq1pTab<>+26656(SB)/8, $0x0810080008081008
DATA iq1pTab<>+26664(SB)/8, $0x0810080008081010
DATA iq1pTab<>+26672(SB)/8, $0x0810080008100000
DATA iq1pTab<>+26680(SB)/8, $0x0810080008100010
DATA iq1pTab<>+26688(SB)/8, $0x0810080008100808
DATA iq1pTab<>+26696(SB)/8, $0x0810080010000800
DATA iq1pTab<>+26704(SB)/8, $0x0810080010000808
DATA iq1pTab<>+26712(SB)/8, $0x0810080010001008
DATA iq1pTab<>+26720(SB)/8, $0x0810080010080000
DATA iq1pTab<>+26728(SB)/8, $0x0810080010080010
DATA iq1pTab<>+26736(SB)/8, $0x0810080010080800
DATA iq1pTab<>+26744(SB)/8, $0x0810080010080808
DATA iq1pTab<>+26752(SB)/8, $0x0810080010080810
DATA iq1pTab<>+26760(SB)/8, $0x0810080010081000
DATA iq1pTab<>+26768(SB)/8, $0x0810080010081010
DATA iq1pTab<>+26776(SB)/8, $0x0810080010100008
DATA iq1pTab<>+26784(SB)/8, $0x0810080010100800
DATA iq1pTab<>+26792(SB)/8, $0x0810080010101008
DATA iq1pTab<>+26800(SB)/8, $0x0810080800000808
DATA iq1pTab<>+26808(SB)/8, $0x0810080800001000
DATA iq1pTab<>+26816(SB)/8, $0x0810080800001010
DATA iq1pTab<>+26824(SB)/8, $0x0810080800080008
DATA iq1pTab<>+26832(SB)/8, $0x0810080800080808
DATA iq1pTab<>+26840(SB)/8, $0x0810080800080810
DATA iq1pTab<>+26848(SB)/8, $0x0810080800081008
DATA iq1pTab<>+26856(SB)/8, $0x0810080808000800
DATA iq1pTab<>+26864(SB)/8, $0x0810080808000808
DATA iq1pTab<>+26872(SB)/8, $0x0810080808000810
DATA iq1pTab<>+26880(SB)/8, $0x0810080808001008
DATA iq1pTab<>+26888(SB)/8, $0x0810080808080000
DATA iq1pTab<>+26896(SB)/8, $0x0810080808080008
DATA iq1pTab<>+26904(SB)/8, $0x0810080808080800
DATA iq1pTab<>+26912(SB)/8, $0x0810080808080808
DATA iq1pTab<>+26920(SB)/8, $0x0810080808080810
DATA iq1pTab<>+26928(SB)/8, $0x0810080808081008
DATA iq1pTab<>+26936(SB)/8, $0x0810080808100008
DATA iq1pTab<>+26944(SB)/8, $0x0810080808100800
DATA iq1pTab<>+26952(SB)/8, $0x0810080808100808
DATA iq1pTab<>+26960(SB)/8, $0x0810080808100810
DATA iq1pTab<>+26968(SB)/8, $0x0810080808101008
DATA iq1pTab<>+26976(SB)/8, $0x0810080810000810
DATA iq1pTab<>+26984(SB)/8, $0x0810080810001008
DATA iq1pTab<>+26992(SB)/8, $0x0810080810001010
DATA iq1pTab<>+27000(SB)/8, $0x0810080810080008
DATA iq1pTab<>+27008(SB)/8, $0x0810080810080808
DATA iq1pTab<>+27016(SB)/8, $0x0810080810080810
DATA iq1pTab<>+27024(SB)/8, $0x0810080810081008
DATA iq1pTab<>+27032(SB)/8, $0x0810080810081010
DATA iq1pTab<>+27040(SB)/8, $0x0810080810100010
DATA iq1pTab<>+27048(SB)/8, $0x0810080810100808
DATA iq1pTab<>+27056(SB)/8, $0x0810080810100810
DATA iq1pTab<>+27064(SB)/8, $0x0810080810101000
DATA iq1pTab<>+27072(SB)/8, $0x0810081000000010
DATA iq1pTab<>+27080(SB)/8, $0x0810081000001008
DATA iq1pTab<>+27088(SB)/8, $0x0810081000080808
DATA iq1pTab<>+27096(SB)/8, $0x0810081000100000
DATA iq1pTab<>+27104(SB)/8, $0x0810081000100810
DATA iq1pTab<>+27112(SB)/8, $0x0810081000101000
DATA iq1pTab<>+27120(SB)/8, $0x0810081000101008
DATA iq1pTab<>+27128(SB)/8, $0x0810081008000000
DATA iq1pTab<>+27136(SB)/8, $0x0810081008000808
DATA iq1pTab<>+27144(SB)/8, $0x0810081008001000
DATA iq1pTab<>+27152(SB)/8, $0x0810081008001010
DATA iq1pTab<>+27160(SB)/8, $0x0810081008080008
DATA iq1pTab<>+27168(SB)/8, $0x0810081008080800
DATA iq1pTab<>+27176(SB)/8, $0x0810081008080808
DATA iq1pTab<>+27184(SB)/8, $0x0810081008080810
DATA iq1pTab<>+27192(SB)/8, $0x0810081008081000
DATA iq1pTab<>+27200(SB)/8, $0x0810081008081010
DATA iq1pTab<>+27208(SB)/8, $0x0810081008100000
DATA iq1pTab<>+27216(SB)/8, $0x0810081008100808
DATA iq1pTab<>+27224(SB)/8, $0x0810081008101000
DATA iq1pTab<>+27232(SB)/8, $0x0810081010000000
DATA iq1pTab<>+27240(SB)/8, $0x0810081010000010
DATA iq1pTab<>+27248(SB)/8, $0x0810081010000808
DATA iq1pTab<>+27256(SB)/8, $0x0810081010001010
DATA iq1pTab<>+27264(SB)/8, $0x0810081010080800
DATA iq1pTab<>+27272(SB)/8, $0x0810081010080810
DATA iq1pTab<>+27280(SB)/8, $0x0810081010081000
DATA iq1pTab<>+27288(SB)/8, $0x0810081010081008
DATA iq1pTab<>+27296(SB)/8, $0x0810081010100000
DATA iq1pTab<>+27304(SB)/8, $0x0810081010100800
DATA iq1pTab<>+27312(SB)/8, $0x0810081010100810
DATA iq1pTab<>+27320(SB)/8, $0x0810081010101010
DATA iq1pTab<>+27328(SB)/8, $0x0810100000080810
DATA iq1pTab<>+27336(SB)/8, $0x0810100000081008
DATA iq1pTab<>+27344(SB)/8, $0x0810100000100808
DATA iq1pTab<>+27352(SB)/8, $0x0810100008000008
DATA iq1pTab<>+27360(SB)/8, $0x0810100008080010
DATA iq1pTab<>+27368(SB)/8, $0x0810100008080808
DATA iq1pTab<>+27376(SB)/8, $0x0810100008081010
DATA iq1pTab<>+27384(SB)/8, $0x0810100008100008
DATA iq1pTab<>+27392(SB)/8, $0x0810100008101008
DATA iq1pTab<>+27400(SB)/8, $0x0810100010000808
DATA iq1pTab<>+27408(SB)/8, $0x0810100010080008
DATA iq1pTab<>+27416(SB)/8, $0x0810100010081000
DATA iq1pTab<>+27424(SB)/8, $0x0810100010100810
DATA iq1pTab<>+27432(SB)/8, $0x0810100800000008
DATA iq1pTab<>+27440(SB)/8, $0x0810100800000800
DATA iq1pTab<>+27448(SB)/8, $0x0810100800080000
DATA iq1pTab<>+27456(SB)/8, $0x0810100800080808
DATA iq1pTab<>+27464(SB)/8, $0x0810100800100008
DATA iq1pTab<>+27472(SB)/8, $0x0810100800100800
DATA iq1pTab<>+27480(SB)/8, $0x0810100800100810
DATA iq1pTab<>+27488(SB)/8, $0x0810100800101008
DATA iq1pTab<>+27496(SB)/8, $0x0810100808000000
DATA iq1pTab<>+27504(SB)/8, $0x0810100808000008
DATA iq1pTab<>+27512(SB)/8, $0x0810100808000808
DATA iq1pTab<>+27520(SB)/8, $0x0810100808000810
DATA iq1pTab<>+27528(SB)/8, $0x0810100808001000
DATA iq1pTab<>+27536(SB)/8, $0x0810100808080008
DATA iq1pTab<>+27544(SB)/8, $0x0810100808080800
DATA iq1pTab<>+27552(SB)/8, $0x0810100808080808
DATA iq1pTab<>+27560(SB)/8, $0x0810100808080810
DATA iq1pTab<>+27568(SB)/8, $0x0810100808081008
DATA iq1pTab<>+27576(SB)/8, $0x0810100808100000
DATA iq1pTab<>+27584(SB)/8, $0x0810100808100808
DATA iq1pTab<>+27592(SB)/8, $0x0810100808101010
DATA iq1pTab<>+27600(SB)/8, $0x0810100810000010
DATA iq1pTab<>+27608(SB)/8, $0x0810100810000800
DATA iq1pTab<>+27616(SB)/8, $0x0810100810001010
DATA iq1pTab<>+27624(SB)/8, $0x0810100810080808
DATA iq1pTab<>+27632(SB)/8, $0x0810100810100008
DATA iq1pTab<>+27640(SB)/8, $0x0810100810100800
DATA iq1pTab<>+27648(SB)/8, $0x0810100810100808
DATA iq1pTab<>+27656(SB)/8, $0x0810100810101008
DATA iq1pTab<>+27664(SB)/8, $0x0810101000080008
DATA iq1pTab<>+27672(SB)/8, $0x0810101000080810
DATA iq1pTab<>+27680(SB)/8, $0x0810101000081000
DATA iq1pTab<>+27688(SB)/8, $0x0810101008000008
DATA iq1pTab<>+27696(SB)/8, $0x0810101008000800
DATA iq1pTab<>+27704(SB)/8, $0x0810101008001008
DATA iq1pTab<>+27712(SB)/8, $0x0810101008080000
DATA iq1pTab<>+27720(SB)/8, $0x0810101008080808
DATA iq1pTab<>+27728(SB)/8, $0x0810101008081000
DATA iq1pTab<>+27736(SB)/8, $0x0810101008081010
DATA iq1pTab<>+27744(SB)/8, $0x0810101008100800
DATA iq1pTab<>+27752(SB)/8, $0x0810101008100808
DATA iq1pTab<>+27760(SB)/8, $0x0810101008101008
DATA iq1pTab<>+27768(SB)/8, $0x0810101010000810
DATA iq1pTab<>+27776(SB)/8, $0x0810101010080800
DATA iq1pTab<>+27784(SB)/8, $0x0810101010081000
DATA iq1pTab<>+27792(SB)/8, $0x0810101010081010
DATA iq1pTab<>+27800(SB)/8, $0x0810101010100810
DATA iq1pTab<>+27808(SB)/8, $0x1000000000000000
DATA iq1pTab<>+27816(SB)/8, $0x1000000000000010
DATA iq1pTab<>+27824(SB)/8, $0x1000000000001000
DATA iq1pTab<>+27832(SB)/8, $0x1000000000001010
DATA iq1pTab<>+27840(SB)/8, $0x1000000000100000
DATA iq1pTab<>+27848(SB)/8, $0x1000000000100010
DATA iq1pTab<>+27856(SB)/8, $0x1000000000101000
DATA iq1pTab<>+27864(SB)/8, $0x1000000000101010
DATA iq1pTab<>+27872(SB)/8, $0x1000000008000808
DATA iq1pTab<>+27880(SB)/8, $0x1000000008080000
DATA iq1pTab<>+27888(SB)/8, $0x1000000008080008
DATA iq1pTab<>+27896(SB)/8, $0x1000000008080800
DATA iq1pTab<>+27904(SB)/8, $0x1000000008080810
DATA iq1pTab<>+27912(SB)/8, $0x1000000008081008
DATA iq1pTab<>+27920(SB)/8, $0x1000000008100808
DATA iq1pTab<>+27928(SB)/8, $0x1000000010000000
DATA iq1pTab<>+27936(SB)/8, $0x1000000010000010
DATA iq1pTab<>+27944(SB)/8, $0x1000000010001000
DATA iq1pTab<>+27952(SB)/8, $0x1000000010001010
DATA iq1pTab<>+27960(SB)/8, $0x1000000010080808
DATA iq1pTab<>+27968(SB)/8, $0x1000000010100000
DATA iq1pTab<>+27976(SB)/8, $0x1000000010100010
DATA iq1pTab<>+27984(SB)/8, $0x1000000010101000
DATA iq1pTab<>+27992(SB)/8, $0x1000000010101010
DATA iq1pTab<>+28000(SB)/8, $0x1000000800000808
DATA iq1pTab<>+28008(SB)/8, $0x1000000800080008
DATA iq1pTab<>+28016(SB)/8, $0x1000000800080800
DATA iq1pTab<>+28024(SB)/8, $0x1000000800080810
DATA iq1pTab<>+28032(SB)/8, $0x1000000800081008
DATA iq1pTab<>+28040(SB)/8, $0x1000000800100808
DATA iq1pTab<>+28048(SB)/8, $0x1000000808000008
DATA iq1pTab<>+28056(SB)/8, $0x1000000808000800
DATA iq1pTab<>+28064(SB)/8, $0x1000000808001008
DATA iq1pTab<>+28072(SB)/8, $0x1000000808080000
DATA iq1pTab<>+28080(SB)/8, $0x1000000808080010
DATA iq1pTab<>+28088(SB)/8, $0x1000000808080808
DATA iq1pTab<>+28096(SB)/8, $0x1000000808080810
DATA iq1pTab<>+28104(SB)/8, $0x1000000808081000
DATA iq1pTab<>+28112(SB)/8, $0x1000000808081008
DATA iq1pTab<>+28120(SB)/8, $0x1000000808100800
DATA iq1pTab<>+28128(SB)/8, $0x1000000808100810
DATA iq1pTab<>+28136(SB)/8, $0x1000000808101008
DATA iq1pTab<>+28144(SB)/8, $0x1000000810000808
DATA iq1pTab<>+28152(SB)/8, $0x1000000810001008
DATA iq1pTab<>+28160(SB)/8, $0x1000000810080800
DATA iq1pTab<>+28168(SB)/8, $0x1000000810080810
DATA iq1pTab<>+28176(SB)/8, $0x1000000810081008
DATA iq1pTab<>+28184(SB)/8, $0x1000000810100808
DATA iq1pTab<>+28192(SB)/8, $0x1000001000000000
DATA iq1pTab<>+28200(SB)/8, $0x1000001000000010
DATA iq1pTab<>+28208(SB)/8, $0x1000001000001000
DATA iq1pTab<>+28216(SB)/8, $0x1000001000001010
DATA iq1pTab<>+28224(SB)/8, $0x1000001000080808
DATA iq1pTab<>+28232(SB)/8, $0x1000001000100000
DATA iq1pTab<>+28240(SB)/8, $0x1000001000100010
DATA iq1pTab<>+28248(SB)/8, $0x1000001000101000
DATA iq1pTab<>+28256(SB)/8, $0x1000001000101010
DATA iq1pTab<>+28264(SB)/8, $0x1000001008080008
DATA iq1pTab<>+28272(SB)/8, $0x1000001008080800
DATA iq1pTab<>+28280(SB)/8, $0x1000001008081008
DATA iq1pTab<>+28288(SB)/8, $0x1000001008100808
DATA iq1pTab<>+28296(SB)/8, $0x1000001010000000
DATA iq1pTab<>+28304(SB)/8, $0x1000001010000010
DATA iq1pTab<>+28312(SB)/8, $0x1000001010001000
DATA iq1pTab<>+28320(SB)/8, $0x1000001010001010
DATA iq1pTab<>+28328(SB)/8, $0x1000001010080808
DATA iq1pTab<>+28336(SB)/8, $0x1000001010100000
DATA iq1pTab<>+28344(SB)/8, $0x1000001010100010
DATA iq1pTab<>+28352(SB)/8, $0x1000001010101000
DATA iq1pTab<>+28360(SB)/8, $0x1000001010101010
DATA iq1pTab<>+28368(SB)/8, $0x1000080000080800
DATA iq1pTab<>+28376(SB)/8, $0x1000080000081008
DATA iq1pTab<>+28384(SB)/8, $0x1000080008000008
DATA iq1pTab<>+28392(SB)/8, $0x1000080008000800
DATA iq1pTab<>+28400(SB)/8, $0x1000080008080008
DATA iq1pTab<>+28408(SB)/8, $0x1000080008080808
DATA iq1pTab<>+28416(SB)/8, $0x1000080008081010
DATA iq1pTab<>+28424(SB)/8, $0x1000080008100008
DATA iq1pTab<>+28432(SB)/8, $0x1000080008100800
DATA iq1pTab<>+28440(SB)/8, $0x1000080008101008
DATA iq1pTab<>+28448(SB)/8, $0x1000080010080800
DATA iq1pTab<>+28456(SB)/8, $0x1000080010081008
DATA iq1pTab<>+28464(SB)/8, $0x1000080800000008
DATA iq1pTab<>+28472(SB)/8, $0x1000080800001008
DATA iq1pTab<>+28480(SB)/8, $0x1000080800080010
DATA iq1pTab<>+28488(SB)/8, $0x1000080800080808
DATA iq1pTab<>+28496(SB)/8, $0x1000080800081010
DATA iq1pTab<>+28504(SB)/8, $0x1000080800100810
DATA iq1pTab<>+28512(SB)/8, $0x1000080800101008
DATA iq1pTab<>+28520(SB)/8, $0x1000080808000000
DATA iq1pTab<>+28528(SB)/8, $0x1000080808000008
DATA iq1pTab<>+28536(SB)/8, $0x1000080808000808
DATA iq1pTab<>+28544(SB)/8, $0x1000080808001000
DATA iq1pTab<>+28552(SB)/8, $0x1000080808080008
DATA iq1pTab<>+28560(SB)/8, $0x1000080808080800
DATA iq1pTab<>+28568(SB)/8, $0x1000080808080808
DATA iq1pTab<>+28576(SB)/8, $0x1000080808080810
DATA iq1pTab<>+28584(SB)/8, $0x1000080808081008
DATA iq1pTab<>+28592(SB)/8, $0x1000080808081010
DATA iq1pTab<>+28600(SB)/8, $0x1000080808100808
DATA iq1pTab<>+28608(SB)/8, $0x1000080808100810
DATA iq1pTab<>+28616(SB)/8, $0x1000080808101000
DATA iq1pTab<>+28624(SB)/8, $0x1000080808101010
DATA iq1pTab<>+28632(SB)/8, $0x1000080810000008
DATA iq1pTab<>+28640(SB)/8, $0x1000080810000800
DATA iq1pTab<>+28648(SB)/8, $0x1000080810000810
DATA iq1pTab<>+28656(SB)/8, $0x1000080810001008
DATA iq1pTab<>+28664(SB)/8, $0x1000080810080000
DATA iq1pTab<>+28672(SB)/8, $0x1000080810080010
DATA iq1pTab<>+28680(SB)/8, $0x1000080810080808
DATA iq1pTab<>+28688(SB)/8, $0x1000080810081000
DATA iq1pTab<>+28696(SB)/8, $0x1000080810100810
DATA iq1pTab<>+28704(SB)/8, $0x1000081000080008
DATA iq1pTab<>+28712(SB)/8, $0x1000081000080810
DATA iq1pTab<>+28720(SB)/8, $0x1000081000081008
DATA iq1pTab<>+28728(SB)/8, $0x1000081000100808
DATA iq1pTab<>+28736(SB)/8, $0x1000081008000008
DATA iq1pTab<>+28744(SB)/8, $0x1000081008000800
DATA iq1pTab<>+28752(SB)/8, $0x1000081008001008
DATA iq1pTab<>+28760(SB)/8, $0x1000081008001010
DATA iq1pTab<>+28768(SB)/8, $0x1000081008080000
DATA iq1pTab<>+28776(SB)/8, $0x1000081008080808
DATA iq1pTab<>+28784(SB)/8, $0x1000081008081008
DATA iq1pTab<>+28792(SB)/8, $0x1000081008081010
DATA iq1pTab<>+28800(SB)/8, $0x1000081008100008
DATA iq1pTab<>+28808(SB)/8, $0x1000081008100810
DATA iq1pTab<>+28816(SB)/8, $0x1000081008101010
DATA iq1pTab<>+28824(SB)/8, $0x1000081010000808
DATA iq1pTab<>+28832(SB)/8, $0x1000081010080008
DATA iq1pTab<>+28840(SB)/8, $0x1000081010081010
DATA iq1pTab<>+28848(SB)/8, $0x1000081010100800
DATA iq1pTab<>+28856(SB)/8, $0x1000100000000000
DATA iq1pTab<>+28864(SB)/8, $0x1000100000000010
DATA iq1pTab<>+28872(SB)/8, $0x1000100000001000
DATA iq1pTab<>+28880(SB)/8, $0x1000100000001010
DATA iq1pTab<>+28888(SB)/8, $0x1000100000080808
DATA iq1pTab<>+28896(SB)/8, $0x1000100000100000
DATA iq1pTab<>+28904(SB)/8, $0x1000100000100010
DATA iq1pTab<>+28912(SB)/8, $0x1000100000101000
DATA iq1pTab<>+28920(SB)/8, $0x1000100000101010
DATA iq1pTab<>+28928(SB)/8, $0x1000100008000008
DATA iq1pTab<>+28936(SB)/8, $0x1000100008000808
DATA iq1pTab<>+28944(SB)/8, $0x1000100008080008
DATA iq1pTab<>+28952(SB)/8, $0x1000100008080800
DATA iq1pTab<>+28960(SB)/8, $0x1000100008081008
DATA iq1pTab<>+28968(SB)/8, $0x1000100008100808
DATA iq1pTab<>+28976(SB)/8, $0x1000100008101008
DATA iq1pTab<>+28984(SB)/8, $0x1000100010000000
DATA iq1pTab<>+28992(SB)/8, $0x1000100010000010
DATA iq1pTab<>+29000(SB)/8, $0x1000100010001000
DATA iq1pTab<>+29008(SB)/8, $0x1000100010001010
DATA iq1pTab<>+29016(SB)/8, $0x1000100010080808
DATA iq1pTab<>+29024(SB)/8, $0x1000100010100000
DATA iq1pTab<>+29032(SB)/8, $0x1000100010100010
DATA iq1pTab<>+29040(SB)/8, $0x1000100010101000
DATA iq1pTab<>+29048(SB)/8, $0x1000100010101010
DATA iq1pTab<>+29056(SB)/8, $0x1000100800000808
DATA iq1pTab<>+29064(SB)/8, $0x1000100800000810
DATA iq1pTab<>+29072(SB)/8, $0x1000100800080008
DATA iq1pTab<>+29080(SB)/8, $0x1000100800080800
DATA iq1pTab<>+29088(SB)/8, $0x1000100800080810
DATA iq1pTab<>+29096(SB)/8, $0x1000100800100808
DATA iq1pTab<>+29104(SB)/8, $0x1000100808000008
DATA iq1pTab<>+29112(SB)/8, $0x1000100808000800
DATA iq1pTab<>+29120(SB)/8, $0x1000100808000810
DATA iq1pTab<>+29128(SB)/8, $0x1000100808001008
DATA iq1pTab<>+29136(SB)/8, $0x1000100808080000
DATA iq1pTab<>+29144(SB)/8, $0x1000100808080010
DATA iq1pTab<>+29152(SB)/8, $0x1000100808080808
DATA iq1pTab<>+29160(SB)/8, $0x1000100808081010
DATA iq1pTab<>+29168(SB)/8, $0x1000100808100008
DATA iq1pTab<>+29176(SB)/8, $0x1000100808100800
DATA iq1pTab<>+29184(SB)/8, $0x1000100810000808
DATA iq1pTab<>+29192(SB)/8, $0x1000100810080810
DATA iq1pTab<>+29200(SB)/8, $0x1000100810081008
DATA iq1pTab<>+29208(SB)/8, $0x1000100810100808
DATA iq1pTab<>+29216(SB)/8, $0x1000101000000000
DATA iq1pTab<>+29224(SB)/8, $0x1000101000000010
DATA iq1pTab<>+29232(SB)/8, $0x1000101000001000
DATA iq1pTab<>+29240(SB)/8, $0x1000101000001010
DATA iq1pTab<>+29248(SB)/8, $0x1000101000080808
DATA iq1pTab<>+29256(SB)/8, $0x1000101000100000
DATA iq1pTab<>+29264(SB)/8, $0x1000101000100010
DATA iq1pTab<>+29272(SB)/8, $0x1000101000101000
DATA iq1pTab<>+29280(SB)/8, $0x1000101000101010
DATA iq1pTab<>+29288(SB)/8, $0x1000101008000808
DATA iq1pTab<>+29296(SB)/8, $0x1000101008080008
DATA iq1pTab<>+29304(SB)/8, $0x1000101008080800
DATA iq1pTab<>+29312(SB)/8, $0x1000101008080810
DATA iq1pTab<>+29320(SB)/8, $0x1000101010000000
DATA iq1pTab<>+29328(SB)/8, $0x1000101010000010
DATA iq1pTab<>+29336(SB)/8, $0x1000101010001000
DATA iq1pTab<>+29344(SB)/8, $0x1000101010001010
DATA iq1pTab<>+29352(SB)/8, $0x1000101010080808
DATA iq1pTab<>+29360(SB)/8, $0x1000101010100000
DATA iq1pTab<>+29368(SB)/8, $0x1000101010100010
DATA iq1pTab<>+29376(SB)/8, $0x1000101010101000
DATA iq1pTab<>+29384(SB)/8, $0x1000101010101010
DATA iq1pTab<>+29392(SB)/8, $0x1008000000000808
DATA iq1pTab<>+29400(SB)/8, $0x1008000000080008
DATA iq1pTab<>+29408(SB)/8, $0x1008000000080810
DATA iq1pTab<>+29416(SB)/8, $0x1008000000081000
DATA iq1pTab<>+29424(SB)/8, $0x1008000000081008
DATA iq1pTab<>+29432(SB)/8, $0x1008000000100808
DATA iq1pTab<>+29440(SB)/8, $0x1008000008000008
DATA iq1pTab<>+29448(SB)/8, $0x1008000008000810
DATA iq1pTab<>+29456(SB)/8, $0x1008000008001008
DATA iq1pTab<>+29464(SB)/8, $0x1008000008080808
DATA iq1pTab<>+29472(SB)/8, $0x1008000008081000
DATA iq1pTab<>+29480(SB)/8, $0x1008000008081010
DATA iq1pTab<>+29488(SB)/8, $0x1008000008101008
DATA iq1pTab<>+29496(SB)/8, $0x1008000008101010
DATA iq1pTab<>+29504(SB)/8, $0x1008000010000808
DATA iq1pTab<>+29512(SB)/8, $0x1008000010080008
DATA iq1pTab<>+29520(SB)/8, $0x1008000010080800
DATA iq1pTab<>+29528(SB)/8, $0x1008000010080810
DATA iq1pTab<>+29536(SB)/8, $0x1008000010081008
DATA iq1pTab<>+29544(SB)/8, $0x1008000010100808
DATA iq1pTab<>+29552(SB)/8, $0x1008000800000008
DATA iq1pTab<>+29560(SB)/8, $0x1008000800000800
DATA iq1pTab<>+29568(SB)/8, $0x1008000800000810
DATA iq1pTab<>+29576(SB)/8, $0x1008000800001008
DATA iq1pTab<>+29584(SB)/8, $0x1008000800080000
DATA iq1pTab<>+29592(SB)/8, $0x1008000800080808
DATA iq1pTab<>+29600(SB)/8, $0x1008000800081000
DATA iq1pTab<>+29608(SB)/8, $0x1008000800081010
DATA iq1pTab<>+29616(SB)/8, $0x1008000800100008
DATA iq1pTab<>+29624(SB)/8, $0x1008000800100800
DATA iq1pTab<>+29632(SB)/8, $0x1008000800100810
DATA iq1pTab<>+29640(SB)/8, $0x1008000800101008
DATA iq1pTab<>+29648(SB)/8, $0x1008000808000000
DATA iq1pTab<>+29656(SB)/8, $0x1008000808000808
DATA iq1pTab<>+29664(SB)/8, $0x1008000808080000
DATA iq1pTab<>+29672(SB)/8, $0x1008000808080008
DATA iq1pTab<>+29680(SB)/8, $0x1008000808080800
DATA iq1pTab<>+29688(SB)/8, $0x1008000808080808
DATA iq1pTab<>+29696(SB)/8, $0x1008000808080810
DATA iq1pTab<>+29704(SB)/8, $0x1008000808081008
DATA iq1pTab<>+29712(SB)/8, $0x1008000808100010
DATA iq1pTab<>+29720(SB)/8, $0x1008000808100808
DATA iq1pTab<>+29728(SB)/8, $0x1008000810000800
DATA iq1pTab<>+29736(SB)/8, $0x1008000810000810
DATA iq1pTab<>+29744(SB)/8, $0x1008000810080010
DATA iq1pTab<>+29752(SB)/8, $0x1008000810080808
DATA iq1pTab<>+29760(SB)/8, $0x1008000810081000
DATA iq1pTab<>+29768(SB)/8, $0x1008000810100008
DATA iq1pTab<>+29776(SB)/8, $0x1008000810100800
DATA iq1pTab<>+29784(SB)/8, $0x1008000810100810
DATA iq1pTab<>+29792(SB)/8, $0x1008000810101008
DATA iq1pTab<>+29800(SB)/8, $0x1008001000000808
DATA iq1pTab<>+29808(SB)/8, $0x1008001000080008
DATA iq1pTab<>+29816(SB)/8, $0x1008001000080800
DATA iq1pTab<>+29824(SB)/8, $0x1008001000081008
DATA iq1pTab<>+29832(SB)/8, $0x1008001000100808
DATA iq1pTab<>+29840(SB)/8, $0x1008001008000800
DATA iq1pTab<>+29848(SB)/8, $0x1008001008000810
DATA iq1pTab<>+29856(SB)/8, $0x1008001008001008
DATA iq1pTab<>+29864(SB)/8, $0x1008001008080000
DATA iq1pTab<>+29872(SB)/8, $0x1008001008080010
DATA iq1pTab<>+29880(SB)/8, $0x1008001008080808
DATA iq1pTab<>+29888(SB)/8, $0x1008001008081000
DATA iq1pTab<>+29896(SB)/8, $0x1008001008100810
DATA iq1pTab<>+29904(SB)/8, $0x1008001008101008
DATA iq1pTab<>+29912(SB)/8, $0x1008001010000808
DATA iq1pTab<>+29920(SB)/8, $0x1008001010080800
DATA iq1pTab<>+29928(SB)/8, $0x1008001010080810
DATA iq1pTab<>+29936(SB)/8, $0x1008001010101008
DATA iq1pTab<>+29944(SB)/8, $0x1008080000000008
DATA iq1pTab<>+29952(SB)/8, $0x1008080000000800
DATA iq1pTab<>+29960(SB)/8, $0x1008080000000810
DATA iq1pTab<>+29968(SB)/8, $0x1008080000080000
DATA iq1pTab<>+29976(SB)/8, $0x1008080000080808
DATA iq1pTab<>+29984(SB)/8, $0x1008080000081000
DATA iq1pTab<>+29992(SB)/8, $0x1008080000100810
DATA iq1pTab<>+30000(SB)/8, $0x1008080008000000
DATA iq1pTab<>+30008(SB)/8, $0x1008080008001010
DATA iq1pTab<>+30016(SB)/8, $0x1008080008080008
DATA iq1pTab<>+30024(SB)/8, $0x1008080008080800
DATA iq1pTab<>+30032(SB)/8, $0x1008080008080808
DATA iq1pTab<>+30040(SB)/8, $0x1008080008080810
DATA iq1pTab<>+30048(SB)/8, $0x1008080008081000
DATA iq1pTab<>+30056(SB)/8, $0x1008080008081008
DATA iq1pTab<>+30064(SB)/8, $0x1008080008100000
DATA iq1pTab<>+30072(SB)/8, $0x1008080008100008
DATA iq1pTab<>+30080(SB)/8, $0x1008080008100010
DATA iq1pTab<>+30088(SB)/8, $0x1008080008100808
DATA iq1pTab<>+30096(SB)/8, $0x1008080010000800
DATA iq1pTab<>+30104(SB)/8, $0x1008080010000810
DATA iq1pTab<>+30112(SB)/8, $0x1008080010080010
DATA iq1pTab<>+30120(SB)/8, $0x1008080010080800
DATA iq1pTab<>+30128(SB)/8, $0x1008080010080808
DATA iq1pTab<>+30136(SB)/8, $0x1008080010081000
DATA iq1pTab<>+30144(SB)/8, $0x1008080010100008
DATA iq1pTab<>+30152(SB)/8, $0x1008080010101008
DATA iq1pTab<>+30160(SB)/8, $0x1008080800000000
DATA iq1pTab<>+30168(SB)/8, $0x1008080800000808
DATA iq1pTab<>+30176(SB)/8, $0x1008080800001000
DATA iq1pTab<>+30184(SB)/8, $0x1008080800001010
DATA iq1pTab<>+30192(SB)/8, $0x1008080800080000
DATA iq1pTab<>+30200(SB)/8, $0x1008080800080008
DATA iq1pTab<>+30208(SB)/8, $0x1008080800080800
DATA iq1pTab<>+30216(SB)/8, $0x1008080800080808
DATA iq1pTab<>+30224(SB)/8, $0x1008080800080810
DATA iq1pTab<>+30232(SB)/8, $0x1008080800081008
DATA iq1pTab<>+30240(SB)/8, $0x1008080800100008
DATA iq1pTab<>+30248(SB)/8, $0x1008080800100808
DATA iq1pTab<>+30256(SB)/8, $0x1008080800101008
DATA iq1pTab<>+30264(SB)/8, $0x1008080800101010
DATA iq1pTab<>+30272(SB)/8, $0x1008080808000008
DATA iq1pTab<>+30280(SB)/8, $0x1008080808000800
DATA iq1pTab<>+30288(SB)/8, $0x1008080808000808
DATA iq1pTab<>+30296(SB)/8, $0x1008080808000810
DATA iq1pTab<>+30304(SB)/8, $0x1008080808001008
DATA iq1pTab<>+30312(SB)/8, $0x1008080808080000
DATA iq1pTab<>+30320(SB)/8, $0x1008080808080008
DATA iq1pTab<>+30328(SB)/8, $0x1008080808080010
DATA iq1pTab<>+30336(SB)/8, $0x1008080808080800
DATA iq1pTab<>+30344(SB)/8, $0x1008080808080808
DATA iq1pTab<>+30352(SB)/8, $0x1008080808080810
DATA iq1pTab<>+30360(SB)/8, $0x1008080808081000
DATA iq1pTab<>+30368(SB)/8, $0x1008080808081008
DATA iq1pTab<>+30376(SB)/8, $0x1008080808081010
DATA iq1pTab<>+30384(SB)/8, $0x1008080808100008
DATA iq1pTab<>+30392(SB)/8, $0x1008080808100800
DATA iq1pTab<>+30400(SB)/8, $0x1008080808100808
DATA iq1pTab<>+30408(SB)/8, $0x1008080808100810
DATA iq1pTab<>+30416(SB)/8, $0x1008080808101008
DATA iq1pTab<>+30424(SB)/8, $0x1008080810000008
DATA iq1pTab<>+30432(SB)/8, $0x1008080810000808
DATA iq1pTab<>+30440(SB)/8, $0x1008080810001000
DATA iq1pTab<>+30448(SB)/8, $0x1008080810080008
DATA iq1pTab<>+30456(SB)/8, $0x1008080810080010
DATA iq1pTab<>+30464(SB)/8, $0x1008080810080800
DATA iq1pTab<>+30472(SB)/8, $0x1008080810080808
DATA iq1pTab<>+30480(SB)/8, $0x1008080810080810
DATA iq1pTab<>+30488(SB)/8, $0x1008080810081008
DATA iq1pTab<>+30496(SB)/8, $0x1008080810081010
DATA iq1pTab<>+30504(SB)/8, $0x1008080810100000
DATA iq1pTab<>+30512(SB)/8, $0x1008080810100010
DATA iq1pTab<>+30520(SB)/8, $0x1008080810100808
DATA iq1pTab<>+30528(SB)/8, $0x1008080810101000
DATA iq1pTab<>+30536(SB)/8, $0x1008080810101010
DATA iq1pTab<>+30544(SB)/8, $0x1008081000000008
DATA iq1pTab<>+30552(SB)/8, $0x1008081000000800
DATA iq1pTab<>+30560(SB)/8, $0x1008081000080000
DATA iq1pTab<>+30568(SB)/8, $0x1008081000080808
DATA iq1pTab<>+30576(SB)/8, $0x1008081000081008
DATA iq1pTab<>+30584(SB)/8, $0x1008081000100000
DATA iq1pTab<>+30592(SB)/8, $0x1008081000100810
DATA iq1pTab<>+30600(SB)/8, $0x1008081000101008
DATA iq1pTab<>+30608(SB)/8, $0x1008081008000808
DATA iq1pTab<>+30616(SB)/8, $0x1008081008001000
DATA iq1pTab<>+30624(SB)/8, $0x1008081008001008
DATA iq1pTab<>+30632(SB)/8, $0x1008081008080008
DATA iq1pTab<>+30640(SB)/8, $0x1008081008080010
DATA iq1pTab<>+30648(SB)/8, $0x1008081008080808
DATA iq1pTab<>+30656(SB)/8, $0x1008081008080810
DATA iq1pTab<>+30664(SB)/8, $0x1008081008081008
DATA iq1pTab<>+30672(SB)/8, $0x1008081008100808
DATA iq1pTab<>+30680(SB)/8, $0x1008081008101000
DATA iq1pTab<>+30688(SB)/8, $0x1008081010000010
DATA iq1pTab<>+30696(SB)/8, $0x1008081010000800
DATA iq1pTab<>+30704(SB)/8, $0x1008081010001008
DATA iq1pTab<>+30712(SB)/8, $0x1008081010001010
DATA iq1pTab<>+30720(SB)/8, $0x1008081010080010
DATA iq1pTab<>+30728(SB)/8, $0x1008081010080800
DATA iq1pTab<>+30736(SB)/8, $0x1008081010080808
DATA iq1pTab<>+30744(SB)/8, $0x1008081010100800
DATA iq1pTab<>+30752(SB)/8, $0x1008081010100810
DATA iq1pTab<>+30760(SB)/8, $0x1008081010101008
DATA iq1pTab<>+30768(SB)/8, $0x1008100000000808
DATA iq1pTab<>+30776(SB)/8, $0x1008100000080810
DATA iq1pTab<>+30784(SB)/8, $0x1008100000081008
DATA iq1pTab<>+30792(SB)/8, $0x1008100000100808
DATA iq1pTab<>+30800(SB)/8, $0x1008100008000008
DATA iq1pTab<>+30808(SB)/8, $0x1008100008000810
DATA iq1pTab<>+30816(SB)/8, $0x1008100008080000
DATA iq1pTab<>+30824(SB)/8, $0x1008100008080010
DATA iq1pTab<>+30832(SB)/8, $0x1008100008080808
DATA iq1pTab<>+30840(SB)/8, $0x1008100008080810
DATA iq1pTab<>+30848(SB)/8, $0x1008100008081010
DATA iq1pTab<>+30856(SB)/8, $0x1008100008100800
DATA iq1pTab<>+30864(SB)/8, $0x1008100008100808
DATA iq1pTab<>+30872(SB)/8, $0x1008100010000808
DATA iq1pTab<>+30880(SB)/8, $0x1008100010080008
DATA iq1pTab<>+30888(SB)/8, $0x1008100010080810
DATA iq1pTab<>+30896(SB)/8, $0x1008100010081008
DATA iq1pTab<>+30904(SB)/8, $0x1008100010100808
DATA iq1pTab<>+30912(SB)/8, $0x1008100800000800
DATA iq1pTab<>+30920(SB)/8, $0x1008100800000810
DATA iq1pTab<>+30928(SB)/8, $0x1008100800001008
DATA iq1pTab<>+30936(SB)/8, $0x1008100800080000
DATA iq1pTab<>+30944(SB)/8, $0x1008100800080010
DATA iq1pTab<>+30952(SB)/8, $0x1008100800080808
DATA iq1pTab<>+30960(SB)/8, $0x1008100800081000
DATA iq1pTab<>+30968(SB)/8, $0x1008100800081010
DATA iq1pTab<>+30976(SB)/8, $0x1008100800100000
DATA iq1pTab<>+30984(SB)/8, $0x1008100800100008
DATA iq1pTab<>+30992(SB)/8, $0x1008100800100800
DATA iq1pTab<>+31000(SB)/8, $0x1008100800100810
DATA iq1pTab<>+31008(SB)/8, $0x1008100808000000
DATA iq1pTab<>+31016(SB)/8, $0x1008100808000010
DATA iq1pTab<>+31024(SB)/8, $0x1008100808000808
DATA iq1pTab<>+31032(SB)/8, $0x1008100808001000
DATA iq1pTab<>+31040(SB)/8, $0x1008100808001010
DATA iq1pTab<>+31048(SB)/8, $0x1008100808080008
DATA iq1pTab<>+31056(SB)/8, $0x1008100808080800
DATA iq1pTab<>+31064(SB)/8, $0x1008100808080808
DATA iq1pTab<>+31072(SB)/8, $0x1008100808080810
DATA iq1pTab<>+31080(SB)/8, $0x1008100808081008
DATA iq1pTab<>+31088(SB)/8, $0x1008100808100010
DATA iq1pTab<>+31096(SB)/8, $0x1008100808100808
DATA iq1pTab<>+31104(SB)/8, $0x1008100808100810
DATA iq1pTab<>+31112(SB)/8, $0x1008100808101010
DATA iq1pTab<>+31120(SB)/8, $0x1008100810000008
DATA iq1pTab<>+31128(SB)/8, $0x1008100810000800
DATA iq1pTab<>+31136(SB)/8, $0x1008100810080000
DATA iq1pTab<>+31144(SB)/8, $0x1008100810080010
DATA iq1pTab<>+31152(SB)/8, $0x1008100810080808
DATA iq1pTab<>+31160(SB)/8, $0x1008100810081010
DATA iq1pTab<>+31168(SB)/8, $0x1008100810100008
DATA iq1pTab<>+31176(SB)/8, $0x1008100810100810
DATA iq1pTab<>+31184(SB)/8, $0x1008101000000808
DATA iq1pTab<>+31192(SB)/8, $0x1008101000080808
DATA iq1pTab<>+31200(SB)/8, $0x1008101000100808
DATA iq1pTab<>+31208(SB)/8, $0x1008101008000800
DATA iq1pTab<>+31216(SB)/8, $0x1008101008000810
DATA iq1pTab<>+31224(SB)/8, $0x1008101008001008
DATA iq1pTab<>+31232(SB)/8, $0x1008101008080000
DATA iq1pTab<>+31240(SB)/8, $0x1008101008080808
DATA iq1pTab<>+31248(SB)/8, $0x1008101008081000
DATA iq1pTab<>+31256(SB)/8, $0x1008101008100008
DATA iq1pTab<>+31264(SB)/8, $0x1008101010000808
DATA iq1pTab<>+31272(SB)/8, $0x1008101010080008
DATA iq1pTab<>+31280(SB)/8, $0x1008101010080800
DATA iq1pTab<>+31288(SB)/8, $0x1008101010080808
DATA iq1pTab<>+31296(SB)/8, $0x1008101010080810
DATA iq1pTab<>+31304(SB)/8, $0x1010000000000000
DATA iq1pTab<>+31312(SB)/8, $0x1010000000000010
DATA iq1pTab<>+31320(SB)/8, $0x1010000000001000
DATA iq1pTab<>+31328(SB)/8, $0x1010000000001010
DATA iq1pTab<>+31336(SB)/8, $0x1010000000080808
DATA iq1pTab<>+31344(SB)/8, $0x1010000000100000
DATA iq1pTab<>+31352(SB)/8, $0x1010000000100010
DATA iq1pTab<>+31360(SB)/8, $0x1010000000101000
DATA iq1pTab<>+31368(SB)/8, $0x1010000000101010
DATA iq1pTab<>+31376(SB)/8, $0x1010000008000808
DATA iq1pTab<>+31384(SB)/8, $0x1010000008080008
DATA iq1pTab<>+31392(SB)/8, $0x1010000008080800
DATA iq1pTab<>+31400(SB)/8, $0x1010000008080810
DATA iq1pTab<>+31408(SB)/8, $0x1010000008081008
DATA iq1pTab<>+31416(SB)/8, $0x1010000010000000
DATA iq1pTab<>+31424(SB)/8, $0x1010000010000010
DATA iq1pTab<>+31432(SB)/8, $0x1010000010001000
DATA iq1pTab<>+31440(SB)/8, $0x1010000010001010
DATA iq1pTab<>+31448(SB)/8, $0x1010000010080808
DATA iq1pTab<>+31456(SB)/8, $0x1010000010100000
DATA iq1pTab<>+31464(SB)/8, $0x1010000010100010
DATA iq1pTab<>+31472(SB)/8, $0x1010000010101000
DATA iq1pTab<>+31480(SB)/8, $0x1010000010101010
DATA iq1pTab<>+31488(SB)/8, $0x1010000800000808
DATA iq1pTab<>+31496(SB)/8, $0x1010000800001008
DATA iq1pTab<>+31504(SB)/8, $0x1010000800080008
DATA iq1pTab<>+31512(SB)/8, $0x1010000800080800
DATA iq1pTab<>+31520(SB)/8, $0x1010000800080810
DATA iq1pTab<>+31528(SB)/8, $0x1010000800081008
DATA iq1pTab<>+31536(SB)/8, $0x1010000800081010
DATA iq1pTab<>+31544(SB)/8, $0x1010000808000810
DATA iq1pTab<>+31552(SB)/8, $0x1010000808001008
DATA iq1pTab<>+31560(SB)/8, $0x1010000808080008
DATA iq1pTab<>+31568(SB)/8, $0x1010000808080808
DATA iq1pTab<>+31576(SB)/8, $0x1010000808081000
DATA iq1pTab<>+31584(SB)/8, $0x1010000808081010
DATA iq1pTab<>+31592(SB)/8, $0x1010000808100008
DATA iq1pTab<>+31600(SB)/8, $0x1010000808100800
DATA iq1pTab<>+31608(SB)/8, $0x1010000810000808
DATA iq1pTab<>+31616(SB)/8, $0x1010000810080000
DATA iq1pTab<>+31624(SB)/8, $0x1010000810080010
DATA iq1pTab<>+31632(SB)/8, $0x1010000810080810
DATA iq1pTab<>+31640(SB)/8, $0x1010000810081008
DATA iq1pTab<>+31648(SB)/8, $0x1010001000000010
DATA iq1pTab<>+31656(SB)/8, $0x1010001000001000
DATA iq1pTab<>+31664(SB)/8, $0x1010001000001010
DATA iq1pTab<>+31672(SB)/8, $0x1010001000080000
DATA iq1pTab<>+31680(SB)/8, $0x1010001000081008
DATA iq1pTab<>+31688(SB)/8, $0x1010001000100010
DATA iq1pTab<>+31696(SB)/8, $0x1010001000101000
DATA iq1pTab<>+31704(SB)/8, $0x1010001000101010
DATA iq1pTab<>+31712(SB)/8, $0x1010001008000808
DATA iq1pTab<>+31720(SB)/8, $0x1010001008080008
DATA iq1pTab<>+31728(SB)/8, $0x1010001008080810
DATA iq1pTab<>+31736(SB)/8, $0x1010001008081008
DATA iq1pTab<>+31744(SB)/8, $0x1010001008100808
DATA iq1pTab<>+31752(SB)/8, $0x1010001010000000
DATA iq1pTab<>+31760(SB)/8, $0x1010001010000010
DATA iq1pTab<>+31768(SB)/8, $0x1010001010001000
DATA iq1pTab<>+31776(SB)/8, $0x1010001010001010
DATA iq1pTab<>+31784(SB)/8, $0x1010001010080808
DATA iq1pTab<>+31792(SB)/8, $0x1010001010100000
DATA iq1pTab<>+31800(SB)/8, $0x1010001010100010
DATA iq1pTab<>+31808(SB)/8, $0x1010001010101000
DATA iq1pTab<>+31816(SB)/8, $0x1010001010101010
DATA iq1pTab<>+31824(SB)/8, $0x1010080000081008
DATA iq1pTab<>+31832(SB)/8, $0x1010080000100808
DATA iq1pTab<>+31840(SB)/8, $0x1010080008000008
DATA iq1pTab<>+31848(SB)/8, $0x1010080008000800
DATA iq1pTab<>+31856(SB)/8, $0x1010080008080000
DATA iq1pTab<>+31864(SB)/8, $0x1010080008080800
DATA iq1pTab<>+31872(SB)/8, $0x1010080008080808
DATA iq1pTab<>+31880(SB)/8, $0x1010080008081000
DATA iq1pTab<>+31888(SB)/8, $0x1010080008081010
DATA iq1pTab<>+31896(SB)/8, $0x1010080008100008
DATA iq1pTab<>+31904(SB)/8, $0x1010080008100808
DATA iq1pTab<>+31912(SB)/8, $0x1010080008100810
DATA iq1pTab<>+31920(SB)/8, $0x1010080008101000
DATA iq1pTab<>+31928(SB)/8, $0x1010080008101008
DATA iq1pTab<>+31936(SB)/8, $0x1010080010000808
DATA iq1pTab<>+31944(SB)/8, $0x1010080800000810
DATA iq1pTab<>+31952(SB)/8, $0x1010080800001008
DATA iq1pTab<>+31960(SB)/8, $0x1010080800080000
DATA iq1pTab<>+31968(SB)/8, $0x1010080800080010
DATA iq1pTab<>+31976(SB)/8, $0x1010080800080808
DATA iq1pTab<>+31984(SB)/8, $0x1010080800081000
DATA iq1pTab<>+31992(SB)/8, $0x1010080800100810
DATA iq1pTab<>+32000(SB)/8, $0x1010080800101008
DATA iq1pTab<>+32008(SB)/8, $0x1010080808000010
DATA iq1pTab<>+32016(SB)/8, $0x1010080808000808
DATA iq1pTab<>+32024(SB)/8, $0x1010080808080008
DATA iq1pTab<>+32032(SB)/8, $0x1010080808080800
DATA iq1pTab<>+32040(SB)/8, $0x1010080808080808
DATA iq1pTab<>+32048(SB)/8, $0x1010080808080810
DATA iq1pTab<>+32056(SB)/8, $0x1010080808081008
DATA iq1pTab<>+32064(SB)/8, $0x1010080808100808
DATA iq1pTab<>+32072(SB)/8, $0x1010080808101010
DATA iq1pTab<>+32080(SB)/8, $0x1010080810000008
DATA iq1pTab<>+32088(SB)/8, $0x1010080810000800
DATA iq1pTab<>+32096(SB)/8, $0x1010080810000808
DATA iq1pTab<>+32104(SB)/8, $0x1010080810000810
DATA iq1pTab<>+32112(SB)/8, $0x1010080810001008
DATA iq1pTab<>+32120(SB)/8, $0x1010080810080010
DATA iq1pTab<>+32128(SB)/8, $0x1010080810080808
DATA iq1pTab<>+32136(SB)/8, $0x1010080810081000
DATA iq1pTab<>+32144(SB)/8, $0x1010081000000808
DATA iq1pTab<>+32152(SB)/8, $0x1010081000080008
DATA iq1pTab<>+32160(SB)/8, $0x1010081000080810
DATA iq1pTab<>+32168(SB)/8, $0x1010081000081010
DATA iq1pTab<>+32176(SB)/8, $0x1010081000100008
DATA iq1pTab<>+32184(SB)/8, $0x1010081000100808
DATA iq1pTab<>+32192(SB)/8, $0x1010081008000800
DATA iq1pTab<>+32200(SB)/8, $0x1010081008000810
DATA iq1pTab<>+32208(SB)/8, $0x1010081008001010
DATA iq1pTab<>+32216(SB)/8, $0x1010081008080010
DATA iq1pTab<>+32224(SB)/8, $0x1010081008080808
DATA iq1pTab<>+32232(SB)/8, $0x1010081008080810
DATA iq1pTab<>+32240(SB)/8, $0x1010081008081000
DATA iq1pTab<>+32248(SB)/8, $0x1010081008100000
DATA iq1pTab<>+32256(SB)/8, $0x1010081008100010
DATA iq1pTab<>+32264(SB)/8, $0x1010081010000810
DATA iq1pTab<>+32272(SB)/8, $0x1010081010080000
DATA iq1pTab<>+32280(SB)/8, $0x1010081010080808
DATA iq1pTab<>+32288(SB)/8, $0x1010081010080810
DATA iq1pTab<>+32296(SB)/8, $0x1010081010081008
DATA iq1pTab<>+32304(SB)/8, $0x1010081010100008
DATA iq1pTab<>+32312(SB)/8, $0x1010081010100800
DATA iq1pTab<>+32320(SB)/8, $0x1010081010100810
DATA iq1pTab<>+32328(SB)/8, $0x1010100000000000
DATA iq1pTab<>+32336(SB)/8, $0x1010100000000010
DATA iq1pTab<>+32344(SB)/8, $0x1010100000001000
DATA iq1pTab<>+32352(SB)/8, $0x1010100000001010
DATA iq1pTab<>+32360(SB)/8, $0x1010100000100000
DATA iq1pTab<>+32368(SB)/8, $0x1010100000100010
DATA iq1pTab<>+32376(SB)/8, $0x1010100000101000
DATA iq1pTab<>+32384(SB)/8, $0x1010100000101010
DATA iq1pTab<>+32392(SB)/8, $0x1010100008080008
DATA iq1pTab<>+32400(SB)/8, $0x1010100008080800
DATA iq1pTab<>+32408(SB)/8, $0x1010100008080810
DATA iq1pTab<>+32416(SB)/8, $0x1010100008081008
DATA iq1pTab<>+32424(SB)/8, $0x1010100010000000
DATA iq1pTab<>+32432(SB)/8, $0x1010100010000010
DATA iq1pTab<>+32440(SB)/8, $0x1010100010001000
DATA iq1pTab<>+32448(SB)/8, $0x1010100010001010
DATA iq1pTab<>+32456(SB)/8, $0x1010100010080808
DATA iq1pTab<>+32464(SB)/8, $0x1010100010100000
DATA iq1pTab<>+32472(SB)/8, $0x1010100010100010
DATA iq1pTab<>+32480(SB)/8, $0x1010100010101000
DATA iq1pTab<>+32488(SB)/8, $0x1010100010101010
DATA iq1pTab<>+32496(SB)/8, $0x1010100800000808
DATA iq1pTab<>+32504(SB)/8, $0x1010100800080800
DATA iq1pTab<>+32512(SB)/8, $0x1010100800081008
DATA iq1pTab<>+32520(SB)/8, $0x1010100800100008
DATA iq1pTab<>+32528(SB)/8, $0x1010100800100808
DATA iq1pTab<>+32536(SB)/8, $0x1010100808000008
DATA iq1pTab<>+32544(SB)/8, $0x1010100808080000
DATA iq1pTab<>+32552(SB)/8, $0x1010100808080808
DATA iq1pTab<>+32560(SB)/8, $0x1010100808081010
DATA iq1pTab<>+32568(SB)/8, $0x1010100808100008
DATA iq1pTab<>+32576(SB)/8, $0x1010100808100810
DATA iq1pTab<>+32584(SB)/8, $0x1010100808101008
DATA iq1pTab<>+32592(SB)/8, $0x1010100810080000
DATA iq1pTab<>+32600(SB)/8, $0x1010100810080810
DATA iq1pTab<>+32608(SB)/8, $0x1010101000000000
DATA iq1pTab<>+32616(SB)/8, $0x1010101000000010
DATA iq1pTab<>+32624(SB)/8, $0x1010101000001000
DATA iq1pTab<>+32632(SB)/8, $0x1010101000001010
DATA iq1pTab<>+32640(SB)/8, $0x1010101000100000
DATA iq1pTab<>+32648(SB)/8, $0x1010101000100010
DATA iq1pTab<>+32656(SB)/8, $0x1010101000101000
DATA iq1pTab<>+32664(SB)/8, $0x1010101000101010
DATA iq1pTab<>+32672(SB)/8, $0x1010101008080008
DATA iq1pTab<>+32680(SB)/8, $0x1010101008080800
DATA iq1pTab<>+32688(SB)/8, $0x1010101008080810
DATA iq1pTab<>+32696(SB)/8, $0x1010101010000000
DATA iq1pTab<>+32704(SB)/8, $0x1010101010000010
DATA iq1pTab<>+32712(SB)/8, $0x1010101010001000
DATA iq1pTab<>+32720(SB)/8, $0x1010101010001010
DATA iq1pTab<>+32728(SB)/8, $0x1010101010080808
DATA iq1pTab<>+32736(SB)/8, $0x1010101010100000
DATA iq1pTab<>+32744(SB)/8, $0x1010101010100010
DATA iq1pTab<>+32752(SB)/8, $0x1010101010101000
DATA iq1pTab<>+32760(SB)/8, $0x1010101010101010
GLOBL iq1pTab<>(SB), RODATA|NOPTR, $32768
