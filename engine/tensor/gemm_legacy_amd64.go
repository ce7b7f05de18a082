package tensor

// Prefill kernels for Q4_1, Q5_0, Q5_1, IQ4_NL, MXFP4 and BF16
// (gemm_legacy_amd64.s), installed by useLegacyGemm4. Each is bit for bit
// its type's one-token Rows kernel per token; the bounds checks before the
// calls stand in for the ones the assembly cannot make.

//go:noescape
func gemm4Q4_1AVX2(w *byte, xq *int8, xd, xs *float32, nb, rows int, out *float32, ostride int)

//go:noescape
func gemm4Q5_0AVX2(w *byte, xq *int8, xd, xs *float32, nb, rows int, out *float32, ostride int)

//go:noescape
func gemm4Q5_1AVX2(w *byte, xq *int8, xd, xs *float32, nb, rows int, out *float32, ostride int)

//go:noescape
func gemm4IQ4NLAVX2(w *byte, xq *int8, xd *float32, nb, rows int, out *float32, ostride int)

//go:noescape
func gemm4MXFP4AVX2(w *byte, xq *int8, xd *float32, nb, rows int, out *float32, ostride int)

//go:noescape
func gemm2BF16AVX2(w *uint16, x *float32, n, rows int, out *float32, ostride int)

// useLegacyGemm4 installs the prefill kernels of the 32-weight block types
// next to Q4_0 and Q8_0 (MXFP4 among them: on AVX-512 VNNI too, its GGUF-
// layout prefill is this AVX2 kernel), and of BF16 (called by
// useArchGemm4 on AVX2 CPUs).
func useLegacyGemm4(g *[typeSlots]gemm4Fn) {
	g[Q4_1] = gemm4Q4_1Asm
	g[Q5_0] = gemm4Q5_0Asm
	g[Q5_1] = gemm4Q5_1Asm
	g[IQ4_NL] = gemm4IQ4NLAsm
	g[MXFP4] = gemm4MXFP4Asm
	g[BF16] = gemm4BF16Asm
}

// legacyGemm4Checks bounds-checks what a four-token kernel reads and writes
// for blocks of bs bytes and returns nb, the blocks per row.
func legacyGemm4Checks(w []byte, a act, bs, rows int, out []float32, ostride int) int {
	nb := len(a.d) / 4
	_ = w[rows*nb*bs-1]
	_ = a.qs[4*nb*QK-1]
	_ = out[3*ostride+rows-1]
	return nb
}

func gemm4Q4_1Asm(w []byte, _ []float32, a act, rows int, out []float32, ostride int) {
	nb := legacyGemm4Checks(w, a, q4_1Bytes, rows, out, ostride)
	_ = a.s[4*nb-1]
	gemm4Q4_1AVX2(&w[0], &a.qs[0], &a.d[0], &a.s[0], nb, rows, &out[0], ostride)
}

func gemm4Q5_0Asm(w []byte, _ []float32, a act, rows int, out []float32, ostride int) {
	nb := legacyGemm4Checks(w, a, q5_0Bytes, rows, out, ostride)
	_ = a.s[4*nb-1]
	gemm4Q5_0AVX2(&w[0], &a.qs[0], &a.d[0], &a.s[0], nb, rows, &out[0], ostride)
}

func gemm4Q5_1Asm(w []byte, _ []float32, a act, rows int, out []float32, ostride int) {
	nb := legacyGemm4Checks(w, a, q5_1Bytes, rows, out, ostride)
	_ = a.s[4*nb-1]
	gemm4Q5_1AVX2(&w[0], &a.qs[0], &a.d[0], &a.s[0], nb, rows, &out[0], ostride)
}

func gemm4IQ4NLAsm(w []byte, _ []float32, a act, rows int, out []float32, ostride int) {
	nb := legacyGemm4Checks(w, a, iq4nlBytes, rows, out, ostride)
	gemm4IQ4NLAVX2(&w[0], &a.qs[0], &a.d[0], nb, rows, &out[0], ostride)
}

func gemm4MXFP4Asm(w []byte, _ []float32, a act, rows int, out []float32, ostride int) {
	nb := legacyGemm4Checks(w, a, mxfp4Bytes, rows, out, ostride)
	gemm4MXFP4AVX2(&w[0], &a.qs[0], &a.d[0], nb, rows, &out[0], ostride)
}

// gemm4BF16Asm is gemm4F16Asm for BF16: two two-token passes, and rows
// whose length is not a multiple of 8 take the portable dot, token by
// token, as floatRows has them.
func gemm4BF16Asm(w []byte, x []float32, _ act, rows int, out []float32, ostride int) {
	n, done := gemm4HalfChecks(w, x, rows, out, ostride, dotBF16Go)
	if done {
		return
	}
	gemm2BF16AVX2((*uint16)(ptr(w)), &x[0], n, rows, &out[0], ostride)
	gemm2BF16AVX2((*uint16)(ptr(w)), &x[2*n], n, rows, &out[2*ostride], ostride)
}
