package tensor

//go:noescape
func rowsQ3Kx16VNNI(p *byte, xq *int8, xd *float32, m4 *int32, nsb, groups int, out *float32)

//go:noescape
func gemm4Q3Kx16VNNI(p *byte, xq *int8, xd *float32, m4 *int32, nsb, groups int, out *float32, ostride int)

// rowsPackedQ3K is the packed Q3_K decode kernel (packk23_amd64.s). It
// reads m4, from which it forms each half-block's correction.
func rowsPackedQ3K(p []byte, a act, out []float32) {
	groups := len(out) / packRows
	nsb := packedChecksM4(p, a, 1, groups, packK3BlockBytes, out, 0)
	rowsQ3Kx16VNNI(&p[0], &a.qs[0], &a.d[0], &a.m4[0], nsb, groups, &out[0])
}

// gemm4PackedQ3K is the packed Q3_K prefill kernel: per token, bit for bit
// rowsPackedQ3K.
func gemm4PackedQ3K(p []byte, a act, groups int, out []float32, ostride int) {
	nsb := packedChecksM4(p, a, 4, groups, packK3BlockBytes, out, ostride)
	gemm4Q3Kx16VNNI(&p[0], &a.qs[0], &a.d[0], &a.m4[0], nsb, groups, &out[0], ostride)
}

//go:noescape
func rowsQ2Kx16VNNI(p *byte, xq *int8, xd *float32, m4 *int32, nsb, groups int, out *float32)

//go:noescape
func gemm4Q2Kx16VNNI(p *byte, xq *int8, xd *float32, m4 *int32, nsb, groups int, out *float32, ostride int)

// rowsPackedQ2K is the packed Q2_K decode kernel (packk23_amd64.s). It
// reads m4, from which it forms each half-block's Σx.
func rowsPackedQ2K(p []byte, a act, out []float32) {
	groups := len(out) / packRows
	nsb := packedChecksM4(p, a, 1, groups, packK2BlockBytes, out, 0)
	rowsQ2Kx16VNNI(&p[0], &a.qs[0], &a.d[0], &a.m4[0], nsb, groups, &out[0])
}

// gemm4PackedQ2K is the packed Q2_K prefill kernel: per token, bit for bit
// rowsPackedQ2K.
func gemm4PackedQ2K(p []byte, a act, groups int, out []float32, ostride int) {
	nsb := packedChecksM4(p, a, 4, groups, packK2BlockBytes, out, ostride)
	gemm4Q2Kx16VNNI(&p[0], &a.qs[0], &a.d[0], &a.m4[0], nsb, groups, &out[0], ostride)
}
