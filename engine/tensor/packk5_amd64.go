package tensor

//go:noescape
func rowsQ5Kx16VNNI(p *byte, xq *int8, xd, xs *float32, nsb, groups int, out *float32)

//go:noescape
func gemm4Q5Kx16VNNI(p *byte, xq *int8, xd, xs *float32, nsb, groups int, out *float32, ostride int)

// rowsPackedQ5K is the packed Q5_K decode kernel (packk5_amd64.s).
func rowsPackedQ5K(p []byte, a act, out []float32) {
	groups := len(out) / packRows
	nsb := packedChecksS(p, a, 1, groups, packK5BlockBytes/8, out, 0) / 8
	rowsQ5Kx16VNNI(&p[0], &a.qs[0], &a.d[0], &a.s[0], nsb, groups, &out[0])
}

// gemm4PackedQ5K is the packed Q5_K prefill kernel: per token, bit for bit
// rowsPackedQ5K.
func gemm4PackedQ5K(p []byte, a act, groups int, out []float32, ostride int) {
	nsb := packedChecksS(p, a, 4, groups, packK5BlockBytes/8, out, ostride) / 8
	gemm4Q5Kx16VNNI(&p[0], &a.qs[0], &a.d[0], &a.s[0], nsb, groups, &out[0], ostride)
}
