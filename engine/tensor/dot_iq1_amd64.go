package tensor

// AVX2 kernels for IQ1_S, IQ1_M, TQ1_0 and TQ2_0 (dot_iq1_amd64.s): the
// one-token Rows kernels, installed by useIQ1Dots, and the four-token
// prefill kernels, installed by useIQ1Gemm4, each bit for bit its Rows
// kernel per token; dotIQ1SGo, dotIQ1MGo, dotTQ1Go and dotTQ2Go
// (dot_iq1.go) are their definitions. Each takes nsb super-blocks per row
// and rows consecutive rows, and the activations' m8 (−8·Σxq per block),
// from which TQ1_0's and TQ2_0's kernels take Σxq instead of summing the
// codes again for every row.

//go:noescape
func dotTQ2RowsAVX2(w *byte, xq *int8, m8 *int32, xd *float32, nsb, rows int, out *float32)

//go:noescape
func gemm4TQ2AVX2(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32, ostride int, m8 *int32)

//go:noescape
func dotTQ1RowsAVX2(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32, m8 *int32)

//go:noescape
func gemm4TQ1AVX2(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32, ostride int, m8 *int32)

//go:noescape
func dotIQ1SRowsAVX2(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32, m8 *int32)

//go:noescape
func gemm4IQ1SAVX2(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32, ostride int, m8 *int32)

//go:noescape
func dotIQ1MRowsAVX2(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32, m8 *int32)

//go:noescape
func gemm4IQ1MAVX2(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32, ostride int, m8 *int32)

// useIQ1Dots installs the Rows kernels (AVX2 CPUs only: useArchDots).
func useIQ1Dots(rows *[typeSlots]rowsFn) {
	rows[IQ1_S] = rowsIQ1SAsm
	rows[IQ1_M] = rowsIQ1MAsm
	rows[TQ1_0] = rowsTQ1Asm
	rows[TQ2_0] = rowsTQ2Asm
}

func rowsIQ1SAsm(w []byte, _ []float32, a act, out []float32) {
	nsb := len(a.d) / 8
	_ = w[len(out)*nsb*iq1sBytes-1]
	_ = a.m8[8*nsb-1]
	dotIQ1SRowsAVX2(&w[0], &a.qs[0], &a.d[0], nsb, len(out), &out[0], &a.m8[0])
}

func rowsIQ1MAsm(w []byte, _ []float32, a act, out []float32) {
	nsb := len(a.d) / 8
	_ = w[len(out)*nsb*iq1mBytes-1]
	_ = a.m8[8*nsb-1]
	dotIQ1MRowsAVX2(&w[0], &a.qs[0], &a.d[0], nsb, len(out), &out[0], &a.m8[0])
}

func rowsTQ1Asm(w []byte, _ []float32, a act, out []float32) {
	nsb := len(a.d) / 8
	_ = w[len(out)*nsb*tq1Bytes-1]
	_ = a.m8[8*nsb-1]
	dotTQ1RowsAVX2(&w[0], &a.qs[0], &a.d[0], nsb, len(out), &out[0], &a.m8[0])
}

func rowsTQ2Asm(w []byte, _ []float32, a act, out []float32) {
	nsb := len(a.d) / 8
	_ = w[len(out)*nsb*tq2Bytes-1]
	_ = a.m8[8*nsb-1]
	dotTQ2RowsAVX2(&w[0], &a.qs[0], &a.m8[0], &a.d[0], nsb, len(out), &out[0])
}

// useIQ1Gemm4 installs the four-token prefill kernels of these types
// (AVX2 CPUs only, like their one-token kernels).
func useIQ1Gemm4(g *[typeSlots]gemm4Fn) {
	g[IQ1_S] = gemm4IQ1SAsm
	g[IQ1_M] = gemm4IQ1MAsm
	g[TQ1_0] = gemm4TQ1Asm
	g[TQ2_0] = gemm4TQ2Asm
}

func gemm4IQ1SAsm(w []byte, _ []float32, a act, rows int, out []float32, ostride int) {
	nsb := k23Gemm4Checks(w, a, iq1sBytes, rows, out, ostride)
	_ = a.m8[4*8*nsb-1]
	gemm4IQ1SAVX2(&w[0], &a.qs[0], &a.d[0], nsb, rows, &out[0], ostride, &a.m8[0])
}

func gemm4IQ1MAsm(w []byte, _ []float32, a act, rows int, out []float32, ostride int) {
	nsb := k23Gemm4Checks(w, a, iq1mBytes, rows, out, ostride)
	_ = a.m8[4*8*nsb-1]
	gemm4IQ1MAVX2(&w[0], &a.qs[0], &a.d[0], nsb, rows, &out[0], ostride, &a.m8[0])
}

func gemm4TQ1Asm(w []byte, _ []float32, a act, rows int, out []float32, ostride int) {
	nsb := k23Gemm4Checks(w, a, tq1Bytes, rows, out, ostride)
	_ = a.m8[4*8*nsb-1]
	gemm4TQ1AVX2(&w[0], &a.qs[0], &a.d[0], nsb, rows, &out[0], ostride, &a.m8[0])
}

func gemm4TQ2Asm(w []byte, _ []float32, a act, rows int, out []float32, ostride int) {
	nsb := k23Gemm4Checks(w, a, tq2Bytes, rows, out, ostride)
	_ = a.m8[4*8*nsb-1]
	gemm4TQ2AVX2(&w[0], &a.qs[0], &a.d[0], nsb, rows, &out[0], ostride, &a.m8[0])
}
