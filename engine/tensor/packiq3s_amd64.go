package tensor

//go:noescape
func rowsIQ3Sx16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32)

//go:noescape
func gemm4IQ3Sx16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32, ostride int)

// rowsPackedIQ3S is the packed IQ3_S decode kernel (packiq3s_amd64.s). It
// starts each block's integer sum from 2·m8 = −16·Σx, so it checks
// m8.
func rowsPackedIQ3S(p []byte, a act, out []float32) {
	groups := len(out) / packRows
	nsb := packedChecksM8(p, a, 1, groups, packIQ3SBlockBytes/8, out, 0) / 8
	rowsIQ3Sx16VNNI(&p[0], &a.qs[0], &a.m8[0], &a.d[0], nsb, groups, &out[0])
}

// gemm4PackedIQ3S is the packed IQ3_S prefill kernel: per token, bit for
// bit rowsPackedIQ3S.
func gemm4PackedIQ3S(p []byte, a act, groups int, out []float32, ostride int) {
	nsb := packedChecksM8(p, a, 4, groups, packIQ3SBlockBytes/8, out, ostride) / 8
	gemm4IQ3Sx16VNNI(&p[0], &a.qs[0], &a.m8[0], &a.d[0], nsb, groups, &out[0], ostride)
}

//go:noescape
func rowsIQ3Sx8AVX2(p *byte, xq *int8, m8 *int32, xd *float32, nsb, halves int, out *float32)

//go:noescape
func gemm4IQ3Sx8AVX2(p *byte, xq *int8, m8 *int32, xd *float32, nsb, halves int, out *float32, ostride int)

// rowsPackedIQ3SAVX2 is the decode kernel of IQ3_S in its AVX2 packed
// layout (packiq3_avx2_amd64.s), eight rows a pass: the GGUF-layout AVX2
// kernel's numbers.
func rowsPackedIQ3SAVX2(p []byte, a act, out []float32) {
	groups := len(out) / packRows
	nsb := packedChecksM8(p, a, 1, groups, 2*packIQ3SA8Bytes/8, out, 0) / 8
	rowsIQ3Sx8AVX2(&p[0], &a.qs[0], &a.m8[0], &a.d[0], nsb, 2*groups, &out[0])
}

// gemm4PackedIQ3SAVX2 is its prefill kernel: each entry looked up once
// for four tokens, per token bit for bit rowsPackedIQ3SAVX2.
func gemm4PackedIQ3SAVX2(p []byte, a act, groups int, out []float32, ostride int) {
	nsb := packedChecksM8(p, a, 4, groups, 2*packIQ3SA8Bytes/8, out, ostride) / 8
	gemm4IQ3Sx8AVX2(&p[0], &a.qs[0], &a.m8[0], &a.d[0], nsb, 2*groups, &out[0], ostride)
}
