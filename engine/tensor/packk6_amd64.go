package tensor

//go:noescape
func rowsQ6Kx16VNNI(p *byte, xq *int8, xd *float32, m4 *int32, nsb, groups int, out *float32)

//go:noescape
func gemm4Q6Kx16VNNI(p *byte, xq *int8, xd *float32, m4 *int32, nsb, groups int, out *float32, ostride int)

// packedChecksM4 is packedChecks for the packed Q6_K, Q3_K and Q2_K kernels,
// which read the four-code corrections m4 (actBuf.prepM4), bb being the
// type's packed bytes a super-block column of a group; it returns the
// super-blocks per row.
func packedChecksM4(p []byte, a act, tokens, groups, bb int, out []float32, ostride int) int {
	nsb := packedChecks(p, a, tokens, groups, bb/8, out, ostride) / 8
	_ = a.m4[tokens*nsb*QKK/4-1]
	return nsb
}

// rowsPackedQ6K is the packed Q6_K decode kernel (packk6_amd64.s): bit for
// bit the GGUF-layout Q6_K kernels.
func rowsPackedQ6K(p []byte, a act, out []float32) {
	groups := len(out) / packRows
	nsb := packedChecksM4(p, a, 1, groups, packK6BlockBytes, out, 0)
	rowsQ6Kx16VNNI(&p[0], &a.qs[0], &a.d[0], &a.m4[0], nsb, groups, &out[0])
}

// gemm4PackedQ6K is the packed Q6_K prefill kernel: per token, bit for bit
// rowsPackedQ6K.
func gemm4PackedQ6K(p []byte, a act, groups int, out []float32, ostride int) {
	nsb := packedChecksM4(p, a, 4, groups, packK6BlockBytes, out, ostride)
	gemm4Q6Kx16VNNI(&p[0], &a.qs[0], &a.d[0], &a.m4[0], nsb, groups, &out[0], ostride)
}
