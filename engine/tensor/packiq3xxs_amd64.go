package tensor

//go:noescape
func rowsIQ3XXSx16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32)

//go:noescape
func gemm4IQ3XXSx16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32, ostride int)

// rowsPackedIQ3XXS is the packed IQ3_XXS decode kernel
// (packiq3xxs_amd64.s). It starts each block's integer sum from
// 62·(m8/8) = −62·Σx, so it checks m8.
func rowsPackedIQ3XXS(p []byte, a act, out []float32) {
	groups := len(out) / packRows
	nsb := packedChecksM8(p, a, 1, groups, packIQ3XXSBlockBytes/8, out, 0) / 8
	rowsIQ3XXSx16VNNI(&p[0], &a.qs[0], &a.m8[0], &a.d[0], nsb, groups, &out[0])
}

// gemm4PackedIQ3XXS is the packed IQ3_XXS prefill kernel: per token, bit
// for bit rowsPackedIQ3XXS.
func gemm4PackedIQ3XXS(p []byte, a act, groups int, out []float32, ostride int) {
	nsb := packedChecksM8(p, a, 4, groups, packIQ3XXSBlockBytes/8, out, ostride) / 8
	gemm4IQ3XXSx16VNNI(&p[0], &a.qs[0], &a.m8[0], &a.d[0], nsb, groups, &out[0], ostride)
}

//go:noescape
func rowsIQ3XXSx8AVX2(p *byte, xq *int8, m8 *int32, xd *float32, nsb, halves int, out *float32)

// rowsPackedIQ3XXSAVX2 is the decode kernel of IQ3_XXS in its AVX2 packed
// layout (packiq3_avx2_amd64.s), eight rows a pass: the GGUF-layout
// AVX2 kernel's numbers.
func rowsPackedIQ3XXSAVX2(p []byte, a act, out []float32) {
	groups := len(out) / packRows
	nsb := packedChecksM8(p, a, 1, groups, 2*packIQ3XXSA8Bytes/8, out, 0) / 8
	rowsIQ3XXSx8AVX2(&p[0], &a.qs[0], &a.m8[0], &a.d[0], nsb, 2*groups, &out[0])
}

//go:noescape
func gemm4IQ3XXSx8AVX2(p *byte, xq *int8, m8 *int32, xd *float32, nsb, halves int, out *float32, ostride int)

// gemm4PackedIQ3XXSAVX2 is its prefill kernel: each entry looked up once
// for four tokens, per token bit for bit rowsPackedIQ3XXSAVX2.
func gemm4PackedIQ3XXSAVX2(p []byte, a act, groups int, out []float32, ostride int) {
	nsb := packedChecksM8(p, a, 4, groups, 2*packIQ3XXSA8Bytes/8, out, ostride) / 8
	gemm4IQ3XXSx8AVX2(&p[0], &a.qs[0], &a.m8[0], &a.d[0], nsb, 2*groups, &out[0], ostride)
}
