package tensor

// AVX2 kernels of IQ3_XXS and IQ3_S (dot_iq3_amd64.s): the one-token Rows
// kernels, whose definitions are dotIQ3XXSGo and dotIQ3SGo (dot_iq3.go),
// and the four-token prefill kernels, each bit for bit its Rows kernel per
// token. Each takes nsb super-blocks per row and rows consecutive rows.

//go:noescape
func dotIQ3XXSRowsAVX2(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32)

//go:noescape
func dotIQ3SRowsAVX2(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32)

//go:noescape
func gemm4IQ3XXSAVX2(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32, ostride int)

//go:noescape
func gemm4IQ3SAVX2(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32, ostride int)

// useIQ3Dots installs the Rows kernels (AVX2 CPUs only: useArchDots).
func useIQ3Dots(rows *[typeSlots]rowsFn) {
	rows[IQ3_XXS] = rowsIQ3XXSAsm
	rows[IQ3_S] = rowsIQ3SAsm
}

// useIQ3Gemm4 installs the prefill kernels (AVX2 CPUs only: useArchGemm4).
func useIQ3Gemm4(g *[typeSlots]gemm4Fn) {
	g[IQ3_XXS] = gemm4IQ3XXSAsm
	g[IQ3_S] = gemm4IQ3SAsm
}

func rowsIQ3XXSAsm(w []byte, _ []float32, a act, out []float32) {
	nsb := len(a.d) / 8
	_ = w[len(out)*nsb*iq3xxsBytes-1]
	dotIQ3XXSRowsAVX2(&w[0], &a.qs[0], &a.d[0], nsb, len(out), &out[0])
}

func rowsIQ3SAsm(w []byte, _ []float32, a act, out []float32) {
	nsb := len(a.d) / 8
	_ = w[len(out)*nsb*iq3sBytes-1]
	dotIQ3SRowsAVX2(&w[0], &a.qs[0], &a.d[0], nsb, len(out), &out[0])
}

func gemm4IQ3XXSAsm(w []byte, _ []float32, a act, rows int, out []float32, ostride int) {
	nsb := k23Gemm4Checks(w, a, iq3xxsBytes, rows, out, ostride)
	gemm4IQ3XXSAVX2(&w[0], &a.qs[0], &a.d[0], nsb, rows, &out[0], ostride)
}

func gemm4IQ3SAsm(w []byte, _ []float32, a act, rows int, out []float32, ostride int) {
	nsb := k23Gemm4Checks(w, a, iq3sBytes, rows, out, ostride)
	gemm4IQ3SAVX2(&w[0], &a.qs[0], &a.d[0], nsb, rows, &out[0], ostride)
}
