package tensor

import "golang.org/x/sys/cpu"

// hasZMM reports what the packed VNNI kernels use besides hasVNNI: 512-bit
// registers (AVX512F) and their byte and word instructions (AVX512BW).
var hasZMM = hasVNNI && cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW

//go:noescape
func rowsQ4_0x16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nb, groups int, out *float32)

//go:noescape
func gemm4Q4_0x16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nb, groups int, out *float32, ostride int)

//go:noescape
func rowsQ4_0x16AVX2(p *byte, xq *int8, m8 *int32, xd *float32, nb, groups int, out *float32)

//go:noescape
func rowsQ8_0x16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nb, groups int, out *float32)

//go:noescape
func gemm4Q8_0x16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nb, groups int, out *float32, ostride int)

//go:noescape
func gemm2Q4_0x16AVX2(p *byte, xq *int8, m8 *int32, xd *float32, nb, groups int, out *float32, ostride int)

// usePacked installs the packed kernels the CPU can run: for Q4_0 the
// AVX-512 VNNI ones where it has them and vnni is true, else the AVX2 ones
// (both compute the same numbers, pack_amd64.s), and none without AVX2;
// for Q8_0 (pack_amd64.s: its packed codes are unsigned for VPDPBUSD), Q4_1
// and Q4_K (packk_amd64.s), Q5_K (packk5_amd64.s), Q6_K (packk6_amd64.s),
// IQ4_XS (packiq4xs_amd64.s), IQ4_NL, Q5_0 and Q5_1 (packlegacy_amd64.s),
// MXFP4 (packed IQ4_NL's kernels, packmxfp4.go), Q2_K and Q3_K
// (packk23_amd64.s), TQ2_0 (packtq_amd64.s) and TQ1_0 (packtq1_amd64.s),
// with GFNI too, and IQ1_S, IQ1_M, IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS and
// IQ3_S (packiq*_amd64.s), with AVX512_VBMI and AVX512_BITALG as well
// (hasIQZ), the VNNI ones only: without them those types are not packed
// and keep their GGUF-layout kernels, but for TQ2_0 and TQ1_0, which have
// AVX2 packed kernels in the same layout (packtq_avx2_amd64.s), and the IQ
// types, which have AVX2 packed kernels in layouts of their own
// (usePackedIQAVX2). Every pair computes the same numbers.
func usePacked(rows *[typeSlots]packedRowsFn, gemm4 *[typeSlots]packedGemm4Fn, layouts *[typeSlots]packLayout, vnni bool) {
	if !hasAVX2 {
		return
	}
	if vnni && hasZMM {
		rows[Q4_0], gemm4[Q4_0] = rowsPackedVNNI, gemm4PackedVNNI
		rows[Q8_0], gemm4[Q8_0] = rowsPackedQ8VNNI, gemm4PackedQ8VNNI
		rows[Q4_1], gemm4[Q4_1] = rowsPackedQ4_1, gemm4PackedQ4_1
		rows[Q4_K], gemm4[Q4_K] = rowsPackedQ4K, gemm4PackedQ4K
		rows[Q5_K], gemm4[Q5_K] = rowsPackedQ5K, gemm4PackedQ5K
		rows[Q6_K], gemm4[Q6_K] = rowsPackedQ6K, gemm4PackedQ6K
		rows[IQ4_XS], gemm4[IQ4_XS] = rowsPackedIQ4XS, gemm4PackedIQ4XS
		rows[IQ4_NL], gemm4[IQ4_NL] = rowsPackedIQ4NL, gemm4PackedIQ4NL
		rows[Q5_0], gemm4[Q5_0] = rowsPackedQ5_0, gemm4PackedQ5_0
		rows[Q5_1], gemm4[Q5_1] = rowsPackedQ5_1, gemm4PackedQ5_1
		rows[Q3_K], gemm4[Q3_K] = rowsPackedQ3K, gemm4PackedQ3K
		rows[Q2_K], gemm4[Q2_K] = rowsPackedQ2K, gemm4PackedQ2K
		rows[MXFP4], gemm4[MXFP4] = rowsPackedMXFP4, gemm4PackedMXFP4
		if hasTQZ {
			rows[TQ2_0], gemm4[TQ2_0] = rowsPackedTQ2, gemm4PackedTQ2
			rows[TQ1_0], gemm4[TQ1_0] = rowsPackedTQ1, gemm4PackedTQ1
		} else {
			usePackedTQAVX2(rows, gemm4)
		}
		if hasIQZ {
			rows[IQ2_XXS], gemm4[IQ2_XXS] = rowsPackedIQ2XXS, gemm4PackedIQ2XXS
			rows[IQ2_XS], gemm4[IQ2_XS] = rowsPackedIQ2XS, gemm4PackedIQ2XS
			rows[IQ3_XXS], gemm4[IQ3_XXS] = rowsPackedIQ3XXS, gemm4PackedIQ3XXS
			rows[IQ3_S], gemm4[IQ3_S] = rowsPackedIQ3S, gemm4PackedIQ3S
			rows[IQ2_S], gemm4[IQ2_S] = rowsPackedIQ2S, gemm4PackedIQ2S
			rows[IQ1_S], gemm4[IQ1_S] = rowsPackedIQ1S, gemm4PackedIQ1S
			rows[IQ1_M], gemm4[IQ1_M] = rowsPackedIQ1M, gemm4PackedIQ1M
		} else {
			usePackedIQAVX2(rows, gemm4, layouts)
		}
		return
	}
	rows[Q4_0], gemm4[Q4_0] = rowsPackedAVX2, gemm4PackedAVX2
	usePackedTQAVX2(rows, gemm4)
	usePackedIQAVX2(rows, gemm4, layouts)
}

// usePackedIQAVX2 installs the AVX2 kernels of packed IQ3_XXS and IQ3_S
// (packiq3_avx2_amd64.s), IQ2_XXS, IQ2_XS and IQ2_S (packiq2_avx2_amd64.s),
// IQ1_S and IQ1_M (packiq1_avx2_amd64.s) and their layouts
// (packIQ3XXSAVX2, packIQ3SAVX2, packIQ2XXSAVX2, packIQ2XSAVX2,
// packIQ2SAVX2, packIQ1SAVX2, packIQ1MAVX2), for CPUs without the VBMI
// ones.
func usePackedIQAVX2(rows *[typeSlots]packedRowsFn, gemm4 *[typeSlots]packedGemm4Fn, layouts *[typeSlots]packLayout) {
	rows[IQ1_S], gemm4[IQ1_S] = rowsPackedIQ1SAVX2, gemm4PackedIQ1SAVX2
	layouts[IQ1_S] = packLayout{packIQ1SAVX2, 2 * packIQ1SA8Bytes}
	rows[IQ1_M], gemm4[IQ1_M] = rowsPackedIQ1MAVX2, gemm4PackedIQ1MAVX2
	layouts[IQ1_M] = packLayout{packIQ1MAVX2, 2 * packIQ1MA8Bytes}
	rows[IQ2_XXS], gemm4[IQ2_XXS] = rowsPackedIQ2XXSAVX2, gemm4PackedIQ2XXSAVX2
	layouts[IQ2_XXS] = packLayout{packIQ2XXSAVX2, 2 * packIQ2XXSA8Bytes}
	rows[IQ2_XS], gemm4[IQ2_XS] = rowsPackedIQ2XSAVX2, gemm4PackedIQ2XSAVX2
	layouts[IQ2_XS] = packLayout{packIQ2XSAVX2, 2 * packIQ2NA8Bytes(9)}
	rows[IQ2_S], gemm4[IQ2_S] = rowsPackedIQ2SAVX2, gemm4PackedIQ2SAVX2
	layouts[IQ2_S] = packLayout{packIQ2SAVX2, 2 * packIQ2NA8Bytes(10)}
	rows[IQ3_XXS], gemm4[IQ3_XXS] = rowsPackedIQ3XXSAVX2, gemm4PackedIQ3XXSAVX2
	layouts[IQ3_XXS] = packLayout{packIQ3XXSAVX2, 2 * packIQ3XXSA8Bytes}
	rows[IQ3_S], gemm4[IQ3_S] = rowsPackedIQ3SAVX2, gemm4PackedIQ3SAVX2
	layouts[IQ3_S] = packLayout{packIQ3SAVX2, 2 * packIQ3SA8Bytes}
}

// usePackedTQAVX2 installs packed TQ2_0's and TQ1_0's AVX2 kernels
// (packtq_avx2_amd64.s), for CPUs without the VNNI and GFNI ones.
func usePackedTQAVX2(rows *[typeSlots]packedRowsFn, gemm4 *[typeSlots]packedGemm4Fn) {
	rows[TQ2_0], gemm4[TQ2_0] = rowsPackedTQ2AVX2, gemm4PackedTQ2AVX2
	rows[TQ1_0], gemm4[TQ1_0] = rowsPackedTQ1AVX2, gemm4PackedTQ1AVX2
}

// packedChecks bounds-checks what a packed kernel reads and writes for
// tokens tokens of a whose rows are nb 32-blocks of bb packed bytes a group
// (the packed Q4_K and Q5_K super-blocks count as eight), besides the
// per-block side data: the caller checks m8 or s, whichever its kernel
// reads. It returns nb.
func packedChecks(p []byte, a act, tokens, groups, bb int, out []float32, ostride int) int {
	nb := len(a.d) / tokens
	_ = p[groups*nb*bb-1]
	_ = a.qs[tokens*nb*QK-1]
	_ = out[(tokens-1)*ostride+groups*packRows-1]
	return nb
}

// packedChecksM8 is packedChecks for the kernels that read m8 (Q4_0, Q8_0,
// IQ4_XS, IQ4_NL, MXFP4, Q5_0).
func packedChecksM8(p []byte, a act, tokens, groups, bb int, out []float32, ostride int) int {
	nb := packedChecks(p, a, tokens, groups, bb, out, ostride)
	_ = a.m8[tokens*nb-1]
	return nb
}

// packedChecksS is packedChecks for the kernels that read the block sums s
// (Q4_1, Q4_K, Q5_K, Q5_1).
func packedChecksS(p []byte, a act, tokens, groups, bb int, out []float32, ostride int) int {
	nb := packedChecks(p, a, tokens, groups, bb, out, ostride)
	_ = a.s[tokens*nb-1]
	return nb
}

func rowsPackedVNNI(p []byte, a act, out []float32) {
	groups := len(out) / packRows
	nb := packedChecksM8(p, a, 1, groups, packBlockBytes, out, 0)
	rowsQ4_0x16VNNI(&p[0], &a.qs[0], &a.m8[0], &a.d[0], nb, groups, &out[0])
}

func gemm4PackedVNNI(p []byte, a act, groups int, out []float32, ostride int) {
	nb := packedChecksM8(p, a, 4, groups, packBlockBytes, out, ostride)
	gemm4Q4_0x16VNNI(&p[0], &a.qs[0], &a.m8[0], &a.d[0], nb, groups, &out[0], ostride)
}

func rowsPackedAVX2(p []byte, a act, out []float32) {
	groups := len(out) / packRows
	nb := packedChecksM8(p, a, 1, groups, packBlockBytes, out, 0)
	rowsQ4_0x16AVX2(&p[0], &a.qs[0], &a.m8[0], &a.d[0], nb, groups, &out[0])
}

// gemm4PackedAVX2 runs the four tokens as two pairs: AVX2's sixteen
// registers hold no more than two tokens' sums beside the unpacked block.
func gemm4PackedAVX2(p []byte, a act, groups int, out []float32, ostride int) {
	nb := packedChecksM8(p, a, 4, groups, packBlockBytes, out, ostride)
	for t := 0; t < 4; t += 2 {
		gemm2Q4_0x16AVX2(&p[0], &a.qs[t*nb*QK], &a.m8[t*nb], &a.d[t*nb], nb, groups, &out[t*ostride], ostride)
	}
}

// rowsPackedQ8VNNI and gemm4PackedQ8VNNI are packed Q8_0's kernels
// (pack_amd64.s); they read m8 as the Q4_0 ones do, shifted to 16·m8.
func rowsPackedQ8VNNI(p []byte, a act, out []float32) {
	groups := len(out) / packRows
	nb := packedChecksM8(p, a, 1, groups, packRows*q8_0Bytes, out, 0)
	rowsQ8_0x16VNNI(&p[0], &a.qs[0], &a.m8[0], &a.d[0], nb, groups, &out[0])
}

func gemm4PackedQ8VNNI(p []byte, a act, groups int, out []float32, ostride int) {
	nb := packedChecksM8(p, a, 4, groups, packRows*q8_0Bytes, out, ostride)
	gemm4Q8_0x16VNNI(&p[0], &a.qs[0], &a.m8[0], &a.d[0], nb, groups, &out[0], ostride)
}
