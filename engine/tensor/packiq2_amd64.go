package tensor

//go:noescape
func rowsIQ2XXSx16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32)

//go:noescape
func gemm4IQ2XXSx16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32, ostride int)

// rowsPackedIQ2XXS is the packed IQ2_XXS decode kernel (packiq2_amd64.s).
// It starts each block's integer sum from 43·m8/8 = −43·Σx, so it checks
// m8.
func rowsPackedIQ2XXS(p []byte, a act, out []float32) {
	groups := len(out) / packRows
	nsb := packedChecksM8(p, a, 1, groups, packIQ2XXSBlockBytes/8, out, 0) / 8
	rowsIQ2XXSx16VNNI(&p[0], &a.qs[0], &a.m8[0], &a.d[0], nsb, groups, &out[0])
}

// gemm4PackedIQ2XXS is the packed IQ2_XXS prefill kernel: per token, bit
// for bit rowsPackedIQ2XXS.
func gemm4PackedIQ2XXS(p []byte, a act, groups int, out []float32, ostride int) {
	nsb := packedChecksM8(p, a, 4, groups, packIQ2XXSBlockBytes/8, out, ostride) / 8
	gemm4IQ2XXSx16VNNI(&p[0], &a.qs[0], &a.m8[0], &a.d[0], nsb, groups, &out[0], ostride)
}

//go:noescape
func rowsIQ2XSx16VNNI(p *byte, xq *int8, xd *float32, nsb, groups int, out *float32)

//go:noescape
func gemm4IQ2XSx16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32, ostride int)

// rowsPackedIQ2XS is the packed IQ2_XS decode kernel (packiq2_amd64.s). It
// starts each half-block's integer sum from −43·Σx of its own sixteen
// activations, computed in the kernel, so it reads no m8.
func rowsPackedIQ2XS(p []byte, a act, out []float32) {
	groups := len(out) / packRows
	nsb := packedChecks(p, a, 1, groups, packIQ2XSBlockBytes/8, out, 0) / 8
	rowsIQ2XSx16VNNI(&p[0], &a.qs[0], &a.d[0], nsb, groups, &out[0])
}

// gemm4PackedIQ2XS is the packed IQ2_XS prefill kernel: per token, bit for
// bit rowsPackedIQ2XS.
func gemm4PackedIQ2XS(p []byte, a act, groups int, out []float32, ostride int) {
	nsb := packedChecks(p, a, 4, groups, packIQ2XSBlockBytes/8, out, ostride) / 8
	gemm4IQ2XSx16VNNI(&p[0], &a.qs[0], nil, &a.d[0], nsb, groups, &out[0], ostride)
}

//go:noescape
func rowsIQ2XXSx8AVX2(p *byte, xq *int8, m8 *int32, xd *float32, nsb, halves int, out *float32)

//go:noescape
func gemm4IQ2XXSx8AVX2(p *byte, xq *int8, m8 *int32, xd *float32, nsb, halves int, out *float32, ostride int)

// rowsPackedIQ2XXSAVX2 is the decode kernel of IQ2_XXS in its AVX2 packed
// layout (packiq2_avx2_amd64.s), eight rows a pass: the GGUF-layout AVX2
// kernel's numbers. (It reads no m8; the check is the shared one.)
func rowsPackedIQ2XXSAVX2(p []byte, a act, out []float32) {
	groups := len(out) / packRows
	nsb := packedChecksM8(p, a, 1, groups, 2*packIQ2XXSA8Bytes/8, out, 0) / 8
	rowsIQ2XXSx8AVX2(&p[0], &a.qs[0], &a.m8[0], &a.d[0], nsb, 2*groups, &out[0])
}

// gemm4PackedIQ2XXSAVX2 is its prefill kernel: each run decoded once for
// four tokens, per token bit for bit rowsPackedIQ2XXSAVX2.
func gemm4PackedIQ2XXSAVX2(p []byte, a act, groups int, out []float32, ostride int) {
	nsb := packedChecksM8(p, a, 4, groups, 2*packIQ2XXSA8Bytes/8, out, ostride) / 8
	gemm4IQ2XXSx8AVX2(&p[0], &a.qs[0], &a.m8[0], &a.d[0], nsb, 2*groups, &out[0], ostride)
}

//go:noescape
func rowsIQ2XSx8AVX2(p *byte, xq *int8, m8 *int32, xd *float32, nsb, halves int, out *float32)

//go:noescape
func gemm4IQ2XSx8AVX2(p *byte, xq *int8, m8 *int32, xd *float32, nsb, halves int, out *float32, ostride int)

//go:noescape
func rowsIQ2Sx8AVX2(p *byte, xq *int8, m8 *int32, xd *float32, nsb, halves int, out *float32)

//go:noescape
func gemm4IQ2Sx8AVX2(p *byte, xq *int8, m8 *int32, xd *float32, nsb, halves int, out *float32, ostride int)

// rowsPackedIQ2XSAVX2 and rowsPackedIQ2SAVX2 are the decode kernels of
// IQ2_XS and IQ2_S in their AVX2 packed layouts (packiq2_avx2_amd64.s),
// eight rows a pass: the GGUF-layout AVX2 kernels' numbers.
func rowsPackedIQ2XSAVX2(p []byte, a act, out []float32) {
	groups := len(out) / packRows
	nsb := packedChecksM8(p, a, 1, groups, 2*packIQ2NA8Bytes(9)/8, out, 0) / 8
	rowsIQ2XSx8AVX2(&p[0], &a.qs[0], &a.m8[0], &a.d[0], nsb, 2*groups, &out[0])
}

func rowsPackedIQ2SAVX2(p []byte, a act, out []float32) {
	groups := len(out) / packRows
	nsb := packedChecksM8(p, a, 1, groups, 2*packIQ2NA8Bytes(10)/8, out, 0) / 8
	rowsIQ2Sx8AVX2(&p[0], &a.qs[0], &a.m8[0], &a.d[0], nsb, 2*groups, &out[0])
}

// gemm4PackedIQ2XSAVX2 and gemm4PackedIQ2SAVX2 are their prefill kernels:
// each run decoded once for four tokens, per token bit for bit the decode
// kernel.
func gemm4PackedIQ2XSAVX2(p []byte, a act, groups int, out []float32, ostride int) {
	nsb := packedChecksM8(p, a, 4, groups, 2*packIQ2NA8Bytes(9)/8, out, ostride) / 8
	gemm4IQ2XSx8AVX2(&p[0], &a.qs[0], &a.m8[0], &a.d[0], nsb, 2*groups, &out[0], ostride)
}

func gemm4PackedIQ2SAVX2(p []byte, a act, groups int, out []float32, ostride int) {
	nsb := packedChecksM8(p, a, 4, groups, 2*packIQ2NA8Bytes(10)/8, out, ostride) / 8
	gemm4IQ2Sx8AVX2(&p[0], &a.qs[0], &a.m8[0], &a.d[0], nsb, 2*groups, &out[0], ostride)
}
