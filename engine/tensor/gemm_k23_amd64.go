package tensor

// Four-token prefill kernels of Q2_K, Q3_K and IQ4_XS (gemm_k23_amd64.s),
// each bit for bit its one-token Rows kernel (dot_k23_amd64.s) per token.

//go:noescape
func gemm4Q2KAVX2(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32, ostride int)

//go:noescape
func gemm4Q3KAVX2(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32, ostride int)

//go:noescape
func gemm4IQ4XSAVX2(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32, ostride int)

// k23Gemm4MaxSB is the most super-blocks per row the Q2_K and Q3_K kernels
// take: they keep the call's per-16 activation sums, 128 bytes per
// super-block, in a stack frame of fixed size (xs in gemm_k23_amd64.s; the
// two must agree). Wider rows (over 32768 weights) run the one-token kernel
// token by token, the same results.
const k23Gemm4MaxSB = 128

// useK23Gemm4 installs the four-token prefill kernels of Q2_K, Q3_K and
// IQ4_XS (AVX2 CPUs only, like their one-token kernels).
func useK23Gemm4(g *[typeSlots]gemm4Fn) {
	g[Q2_K] = gemm4Q2KAsm
	g[Q3_K] = gemm4Q3KAsm
	g[IQ4_XS] = gemm4IQ4XSAsm
}

// k23Gemm4Checks bounds-checks what the kernels read and write, for
// super-blocks of bs bytes, and returns nsb, the super-blocks per row.
func k23Gemm4Checks(w []byte, a act, bs, rows int, out []float32, ostride int) int {
	nsb := len(a.d) / 32
	_ = w[rows*nsb*bs-1]
	_ = a.qs[4*256*nsb-1]
	_ = out[3*ostride+rows-1]
	return nsb
}

// k23RowsEach runs the four tokens of a one by one through the one-token
// kernel rk.
func k23RowsEach(rk rowsFn, w []byte, a act, rows int, out []float32, ostride int) {
	nb := len(a.d) / 4
	for t := range 4 {
		at := act{qs: a.qs[t*nb*QK : (t+1)*nb*QK], d: a.d[t*nb : (t+1)*nb]}
		rk(w, nil, at, out[t*ostride:t*ostride+rows])
	}
}

func gemm4Q2KAsm(w []byte, _ []float32, a act, rows int, out []float32, ostride int) {
	nsb := k23Gemm4Checks(w, a, q2KBytes, rows, out, ostride)
	if nsb > k23Gemm4MaxSB {
		k23RowsEach(rowsQ2KAsm, w[:rows*nsb*q2KBytes], a, rows, out, ostride)
		return
	}
	gemm4Q2KAVX2(&w[0], &a.qs[0], &a.d[0], nsb, rows, &out[0], ostride)
}

func gemm4Q3KAsm(w []byte, _ []float32, a act, rows int, out []float32, ostride int) {
	nsb := k23Gemm4Checks(w, a, q3KBytes, rows, out, ostride)
	if nsb > k23Gemm4MaxSB {
		k23RowsEach(rowsQ3KAsm, w[:rows*nsb*q3KBytes], a, rows, out, ostride)
		return
	}
	gemm4Q3KAVX2(&w[0], &a.qs[0], &a.d[0], nsb, rows, &out[0], ostride)
}

func gemm4IQ4XSAsm(w []byte, _ []float32, a act, rows int, out []float32, ostride int) {
	nsb := k23Gemm4Checks(w, a, iq4xsBytes, rows, out, ostride)
	gemm4IQ4XSAVX2(&w[0], &a.qs[0], &a.d[0], nsb, rows, &out[0], ostride)
}
