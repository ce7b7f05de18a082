package tensor

//go:noescape
func rowsQ4Kx16VNNI(p *byte, xq *int8, xd, xs *float32, nsb, groups int, out *float32)

//go:noescape
func gemm4Q4Kx16VNNI(p *byte, xq *int8, xd, xs *float32, nsb, groups int, out *float32, ostride int)

// rowsPackedQ4K is the packed Q4_K decode kernel (packk_amd64.s).
func rowsPackedQ4K(p []byte, a act, out []float32) {
	groups := len(out) / packRows
	nsb := packedChecksS(p, a, 1, groups, packKBlockBytes/8, out, 0) / 8
	rowsQ4Kx16VNNI(&p[0], &a.qs[0], &a.d[0], &a.s[0], nsb, groups, &out[0])
}

// gemm4PackedQ4K is the packed Q4_K prefill kernel: per token, bit for bit
// rowsPackedQ4K.
func gemm4PackedQ4K(p []byte, a act, groups int, out []float32, ostride int) {
	nsb := packedChecksS(p, a, 4, groups, packKBlockBytes/8, out, ostride) / 8
	gemm4Q4Kx16VNNI(&p[0], &a.qs[0], &a.d[0], &a.s[0], nsb, groups, &out[0], ostride)
}

//go:noescape
func rowsQ4_1x16VNNI(p *byte, xq *int8, xd, xs *float32, nb, groups int, out *float32)

//go:noescape
func gemm4Q4_1x16VNNI(p *byte, xq *int8, xd, xs *float32, nb, groups int, out *float32, ostride int)

// rowsPackedQ4_1 is the packed Q4_1 decode kernel (packk_amd64.s).
func rowsPackedQ4_1(p []byte, a act, out []float32) {
	groups := len(out) / packRows
	nb := packedChecksS(p, a, 1, groups, packRows*q4_1Bytes, out, 0)
	rowsQ4_1x16VNNI(&p[0], &a.qs[0], &a.d[0], &a.s[0], nb, groups, &out[0])
}

// gemm4PackedQ4_1 is the packed Q4_1 prefill kernel: per token, bit for
// bit rowsPackedQ4_1.
func gemm4PackedQ4_1(p []byte, a act, groups int, out []float32, ostride int) {
	nb := packedChecksS(p, a, 4, groups, packRows*q4_1Bytes, out, ostride)
	gemm4Q4_1x16VNNI(&p[0], &a.qs[0], &a.d[0], &a.s[0], nb, groups, &out[0], ostride)
}
