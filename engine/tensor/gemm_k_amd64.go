package tensor

//go:noescape
func gemm4Q4KAVX2(w *byte, xq *int8, xd, xs *float32, nsb, rows int, out *float32, ostride int)

//go:noescape
func gemm4Q5KAVX2(w *byte, xq *int8, xd, xs *float32, nsb, rows int, out *float32, ostride int)

//go:noescape
func gemm4Q6KAVX2(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32, ostride int)

// useKQuantGemm4 installs the four-token prefill kernels of the K-quants.
func useKQuantGemm4(g *[typeSlots]gemm4Fn) {
	g[Q4_K] = gemm4Q4KAsm
	g[Q5_K] = gemm4Q5KAsm
	g[Q6_K] = gemm4Q6KAsm
}

// kquantGemm4Checks bounds-checks what the four-token K-quant kernels read
// and write, for super-blocks of bs bytes, and returns nsb, the super-blocks
// per row.
func kquantGemm4Checks(w []byte, a act, bs, rows int, out []float32, ostride int) int {
	nsb := len(a.d) / 32
	_ = w[rows*nsb*bs-1]
	_ = a.qs[4*256*nsb-1]
	_ = a.s[4*8*nsb-1]
	_ = out[3*ostride+rows-1]
	return nsb
}

func gemm4Q4KAsm(w []byte, _ []float32, a act, rows int, out []float32, ostride int) {
	nsb := kquantGemm4Checks(w, a, 144, rows, out, ostride)
	gemm4Q4KAVX2(&w[0], &a.qs[0], &a.d[0], &a.s[0], nsb, rows, &out[0], ostride)
}

func gemm4Q5KAsm(w []byte, _ []float32, a act, rows int, out []float32, ostride int) {
	nsb := kquantGemm4Checks(w, a, 176, rows, out, ostride)
	gemm4Q5KAVX2(&w[0], &a.qs[0], &a.d[0], &a.s[0], nsb, rows, &out[0], ostride)
}

func gemm4Q6KAsm(w []byte, _ []float32, a act, rows int, out []float32, ostride int) {
	nsb := len(a.d) / 32
	_ = w[rows*nsb*210-1]
	_ = a.qs[4*256*nsb-1]
	_ = out[3*ostride+rows-1]
	gemm4Q6KAVX2(&w[0], &a.qs[0], &a.d[0], nsb, rows, &out[0], ostride)
}
