package tensor

//go:noescape
func rowsIQ4XSx16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32)

//go:noescape
func gemm4IQ4XSx16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32, ostride int)

// rowsPackedIQ4XS is the packed IQ4_XS decode kernel (packiq4xs_amd64.s).
// It reads m8, from which it starts each sub-block's integer sum (16·m8,
// taking back the 128 its unsigned levels add), so it checks that.
func rowsPackedIQ4XS(p []byte, a act, out []float32) {
	groups := len(out) / packRows
	nsb := packedChecksM8(p, a, 1, groups, packXSBlockBytes/8, out, 0) / 8
	rowsIQ4XSx16VNNI(&p[0], &a.qs[0], &a.m8[0], &a.d[0], nsb, groups, &out[0])
}

// gemm4PackedIQ4XS is the packed IQ4_XS prefill kernel: per token, bit for
// bit rowsPackedIQ4XS.
func gemm4PackedIQ4XS(p []byte, a act, groups int, out []float32, ostride int) {
	nsb := packedChecksM8(p, a, 4, groups, packXSBlockBytes/8, out, ostride) / 8
	gemm4IQ4XSx16VNNI(&p[0], &a.qs[0], &a.m8[0], &a.d[0], nsb, groups, &out[0], ostride)
}
