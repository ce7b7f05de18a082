package tensor

//go:noescape
func rowsQ4Kx16VNNI(p *byte, xq *int8, xd, xs *float32, nsb, groups int, out *float32)

//go:noescape
func gemm4Q4Kx16VNNI(p *byte, xq *int8, xd, xs *float32, nsb, groups int, out *float32, ostride int)

// packedQ4KChecks bounds-checks what a packed Q4_K kernel reads and writes
// for tokens tokens of a, and returns the super-blocks per row.
func packedQ4KChecks(p []byte, a act, tokens, groups int, out []float32, ostride int) int {
	nsb := len(a.d) / tokens / 8
	_ = p[groups*nsb*packKBlockBytes-1]
	_ = a.qs[tokens*nsb*QKK-1]
	_ = a.s[tokens*nsb*8-1]
	_ = out[(tokens-1)*ostride+groups*packRows-1]
	return nsb
}

// rowsPackedQ4K is the packed Q4_K decode kernel (packk_amd64.s).
func rowsPackedQ4K(p []byte, a act, out []float32) {
	groups := len(out) / packRows
	nsb := packedQ4KChecks(p, a, 1, groups, out, 0)
	rowsQ4Kx16VNNI(&p[0], &a.qs[0], &a.d[0], &a.s[0], nsb, groups, &out[0])
}

// gemm4PackedQ4K is the packed Q4_K prefill kernel: per token, bit for bit
// rowsPackedQ4K.
func gemm4PackedQ4K(p []byte, a act, groups int, out []float32, ostride int) {
	nsb := packedQ4KChecks(p, a, 4, groups, out, ostride)
	gemm4Q4Kx16VNNI(&p[0], &a.qs[0], &a.d[0], &a.s[0], nsb, groups, &out[0], ostride)
}

//go:noescape
func rowsQ4_1x16VNNI(p *byte, xq *int8, xd, xs *float32, nb, groups int, out *float32)

//go:noescape
func gemm4Q4_1x16VNNI(p *byte, xq *int8, xd, xs *float32, nb, groups int, out *float32, ostride int)

// packedQ4_1Checks bounds-checks what a packed Q4_1 kernel reads and
// writes for tokens tokens of a, and returns the blocks per row.
func packedQ4_1Checks(p []byte, a act, tokens, groups int, out []float32, ostride int) int {
	nb := len(a.d) / tokens
	_ = p[groups*nb*packRows*q4_1Bytes-1]
	_ = a.qs[tokens*nb*QK-1]
	_ = a.s[tokens*nb-1]
	_ = out[(tokens-1)*ostride+groups*packRows-1]
	return nb
}

// rowsPackedQ4_1 is the packed Q4_1 decode kernel (packk_amd64.s).
func rowsPackedQ4_1(p []byte, a act, out []float32) {
	groups := len(out) / packRows
	nb := packedQ4_1Checks(p, a, 1, groups, out, 0)
	rowsQ4_1x16VNNI(&p[0], &a.qs[0], &a.d[0], &a.s[0], nb, groups, &out[0])
}

// gemm4PackedQ4_1 is the packed Q4_1 prefill kernel: per token, bit for
// bit rowsPackedQ4_1.
func gemm4PackedQ4_1(p []byte, a act, groups int, out []float32, ostride int) {
	nb := packedQ4_1Checks(p, a, 4, groups, out, ostride)
	gemm4Q4_1x16VNNI(&p[0], &a.qs[0], &a.d[0], &a.s[0], nb, groups, &out[0], ostride)
}
