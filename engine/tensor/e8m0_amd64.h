// MXFP4's E8M0 block exponents as float scales, for dot_legacy_amd64.s and
// gemm_legacy_amd64.s.
//
// E8M0HALF turns the exponents e (0…255) in reg's dword lanes into the
// floats 2^(e−128), exactly E8M0Half (quant_mxfp4.go). For e ≥ 2 that is
// the float whose bits are (e−1)<<23; for e = 0 and 1 the subnormals
// 0x00200000 and 0x00400000, which are 0x00400000 >> (e XOR 1). The same
// shift leaves at most 0x00100000 for e ≥ 2, below (e−1)<<23 ≥ 0x00800000,
// and (e−1)<<23 is 0 or negative for e ≤ 1, so their signed maximum is
// the scale for every e. c4 holds 0x00400000 in each dword lane; tmp is
// scratch. reg, c4 and tmp are all X or all Y registers.
#define E8M0HALF(reg, c4, tmp) \
	VPXOR   e8m0One<>(SB), reg, tmp; \
	VPSRLVD tmp, c4, tmp; \
	VPSLLD  $23, reg, reg; \
	VPSUBD  e8m0Exp1<>(SB), reg, reg; \
	VPMAXSD tmp, reg, reg

// E8M0C4 loads E8M0HALF's constant c4 (X or Y register).
#define E8M0C4(c4) \
	VMOVDQU e8m0Sub<>(SB), c4

// Dword constants, 32 bytes each so that Y and X forms read them alike: 1,
// 1<<23 and 0x00400000.
DATA e8m0One<>+0(SB)/8, $0x0000000100000001
DATA e8m0One<>+8(SB)/8, $0x0000000100000001
DATA e8m0One<>+16(SB)/8, $0x0000000100000001
DATA e8m0One<>+24(SB)/8, $0x0000000100000001
GLOBL e8m0One<>(SB), RODATA|NOPTR, $32
DATA e8m0Exp1<>+0(SB)/8, $0x0080000000800000
DATA e8m0Exp1<>+8(SB)/8, $0x0080000000800000
DATA e8m0Exp1<>+16(SB)/8, $0x0080000000800000
DATA e8m0Exp1<>+24(SB)/8, $0x0080000000800000
GLOBL e8m0Exp1<>(SB), RODATA|NOPTR, $32
DATA e8m0Sub<>+0(SB)/8, $0x0040000000400000
DATA e8m0Sub<>+8(SB)/8, $0x0040000000400000
DATA e8m0Sub<>+16(SB)/8, $0x0040000000400000
DATA e8m0Sub<>+24(SB)/8, $0x0040000000400000
GLOBL e8m0Sub<>(SB), RODATA|NOPTR, $32

// E8M0BYTES4 gathers the four bytes at off0…off3(base) into reg's four
// dword lanes (reg an X register), through AX and scratch.
#define E8M0BYTES4(base, off0, off1, off2, off3, reg, scratch) \
	MOVBLZX   off0(base), AX; \
	MOVBLZX   off1(base), scratch; \
	SHLL      $8, scratch; \
	ORL       scratch, AX; \
	MOVBLZX   off2(base), scratch; \
	SHLL      $16, scratch; \
	ORL       scratch, AX; \
	MOVBLZX   off3(base), scratch; \
	SHLL      $24, scratch; \
	ORL       scratch, AX; \
	VMOVD     AX, reg; \
	VPMOVZXBD reg, reg
