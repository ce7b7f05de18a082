package tensor

//go:noescape
func gemm4Q8_0AVX2(w *byte, xq *int8, xd *float32, nb, rows int, out *float32, ostride int)

//go:noescape
func gemm4Q4_0AVX2(w *byte, xq *int8, xd, xs *float32, nb, rows int, out *float32, ostride int)

// useArchGemm4 installs the four-token prefill kernels the CPU can run.
func useArchGemm4(g *[BF16 + 1]gemm4Fn) {
	if !hasAVX2 {
		return
	}
	g[Q8_0] = gemm4Q8_0Asm
	g[Q4_0] = gemm4Q4_0Asm
	useKQuantGemm4(g)
}

func gemm4Q8_0Asm(w []byte, a act, rows int, out []float32, ostride int) {
	nb := len(a.d) / 4
	_ = w[rows*nb*34-1]
	_ = out[3*ostride+rows-1]
	gemm4Q8_0AVX2(&w[0], &a.qs[0], &a.d[0], nb, rows, &out[0], ostride)
}

func gemm4Q4_0Asm(w []byte, a act, rows int, out []float32, ostride int) {
	nb := len(a.d) / 4
	_ = w[rows*nb*18-1]
	_ = a.s[4*nb-1]
	_ = out[3*ostride+rows-1]
	gemm4Q4_0AVX2(&w[0], &a.qs[0], &a.d[0], &a.s[0], nb, rows, &out[0], ostride)
}
