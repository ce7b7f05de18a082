package tensor

// AVX2 kernels for TQ2_0 (dot_iq1_amd64.s): the one-token Rows kernel,
// installed by useArchDots, and the four-token prefill kernel, installed
// by useArchGemm4; dotTQ2Go (dot_iq1.go) is their definition. IQ1_S, IQ1_M
// and TQ1_0 run their portable dot products.

//go:noescape
func dotTQ2RowsAVX2(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32)

//go:noescape
func gemm4TQ2AVX2(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32, ostride int)

func rowsTQ2Asm(w []byte, _ []float32, a act, out []float32) {
	nsb := len(a.d) / 8
	_ = w[len(out)*nsb*tq2Bytes-1]
	dotTQ2RowsAVX2(&w[0], &a.qs[0], &a.d[0], nsb, len(out), &out[0])
}

// useIQ1Gemm4 installs the four-token prefill kernels of these types
// (AVX2 CPUs only, like their one-token kernels).
func useIQ1Gemm4(g *[typeSlots]gemm4Fn) {
	g[TQ2_0] = gemm4TQ2Asm
}

func gemm4TQ2Asm(w []byte, _ []float32, a act, rows int, out []float32, ostride int) {
	nsb := k23Gemm4Checks(w, a, tq2Bytes, rows, out, ostride)
	gemm4TQ2AVX2(&w[0], &a.qs[0], &a.d[0], nsb, rows, &out[0], ostride)
}
