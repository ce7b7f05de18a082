package tensor

//go:noescape
func gemm4Q8_0AVX2(w *byte, xq *int8, xd *float32, nb, rows int, out *float32, ostride int)

//go:noescape
func gemm2F16AVX2(w *uint16, x *float32, n, rows int, out *float32, ostride int)

//go:noescape
func gemm4Q4_0AVX2(w *byte, xq *int8, xd, xs *float32, nb, rows int, out *float32, ostride int)

// useArchGemm4 installs the four-token prefill kernels the CPU can run.
func useArchGemm4(g *[BF16 + 1]gemm4Fn) {
	if !hasAVX2 {
		return
	}
	g[Q8_0] = gemm4Q8_0Asm
	g[Q4_0] = gemm4Q4_0Asm
	g[F16] = gemm4F16Asm
	useKQuantGemm4(g)
}

func gemm4Q8_0Asm(w []byte, _ []float32, a act, rows int, out []float32, ostride int) {
	nb := len(a.d) / 4
	_ = w[rows*nb*34-1]
	_ = out[3*ostride+rows-1]
	gemm4Q8_0AVX2(&w[0], &a.qs[0], &a.d[0], nb, rows, &out[0], ostride)
}

func gemm4Q4_0Asm(w []byte, _ []float32, a act, rows int, out []float32, ostride int) {
	nb := len(a.d) / 4
	_ = w[rows*nb*18-1]
	_ = a.s[4*nb-1]
	_ = out[3*ostride+rows-1]
	gemm4Q4_0AVX2(&w[0], &a.qs[0], &a.d[0], &a.s[0], nb, rows, &out[0], ostride)
}

// gemm4F16Asm mirrors floatRows: rows whose length is not a multiple of 8
// take the portable dot, token by token, as they do there.
func gemm4F16Asm(w []byte, x []float32, _ act, rows int, out []float32, ostride int) {
	n := len(x) / 4
	if n%8 != 0 || n == 0 {
		for t := range 4 {
			perRow(dotF16Go)(w[:rows*2*n], x[t*n:(t+1)*n], act{}, out[t*ostride:t*ostride+rows])
		}
		return
	}
	_ = w[rows*2*n-1]
	_ = out[3*ostride+rows-1]
	// Two tokens per pass (four would need sixteen accumulators).
	gemm2F16AVX2((*uint16)(ptr(w)), &x[0], n, rows, &out[0], ostride)
	gemm2F16AVX2((*uint16)(ptr(w)), &x[2*n], n, rows, &out[2*ostride], ostride)
}
