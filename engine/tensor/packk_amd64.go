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
