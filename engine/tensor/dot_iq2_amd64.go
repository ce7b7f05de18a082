package tensor

// AVX2 row kernels (dot_iq2_amd64.s) and four-token prefill kernels
// (gemm_iq2_amd64.s) for IQ2_XXS, IQ2_XS and IQ2_S; dotIQ2XXSGo,
// dotIQ2XSGo and dotIQ2SGo (dot_iq2.go) are their definitions. Each takes
// nsb super-blocks per row and rows consecutive rows; the prefill kernels
// give each token bit for bit what the row kernels give it.

//go:noescape
func dotIQ2XXSRowsAVX2(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32)

//go:noescape
func dotIQ2XSRowsAVX2(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32)

//go:noescape
func dotIQ2SRowsAVX2(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32)

//go:noescape
func gemm4IQ2XXSAVX2(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32, ostride int)

//go:noescape
func gemm4IQ2XSAVX2(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32, ostride int)

//go:noescape
func gemm4IQ2SAVX2(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32, ostride int)

// useIQ2Dots installs the row kernels (AVX2 CPUs only).
func useIQ2Dots(rows *[typeSlots]rowsFn) {
	rows[IQ2_XXS] = rowsIQ2XXSAsm
	rows[IQ2_XS] = rowsIQ2XSAsm
	rows[IQ2_S] = rowsIQ2SAsm
}

// useIQ2Gemm4 installs the four-token prefill kernels (AVX2 CPUs only).
func useIQ2Gemm4(g *[typeSlots]gemm4Fn) {
	g[IQ2_XXS] = gemm4IQ2XXSAsm
	g[IQ2_XS] = gemm4IQ2XSAsm
	g[IQ2_S] = gemm4IQ2SAsm
}

func rowsIQ2XXSAsm(w []byte, _ []float32, a act, out []float32) {
	nsb := len(a.d) / 8
	_ = w[len(out)*nsb*iq2xxsBytes-1]
	dotIQ2XXSRowsAVX2(&w[0], &a.qs[0], &a.d[0], nsb, len(out), &out[0])
}

func rowsIQ2XSAsm(w []byte, _ []float32, a act, out []float32) {
	nsb := len(a.d) / 8
	_ = w[len(out)*nsb*iq2xsBytes-1]
	dotIQ2XSRowsAVX2(&w[0], &a.qs[0], &a.d[0], nsb, len(out), &out[0])
}

func rowsIQ2SAsm(w []byte, _ []float32, a act, out []float32) {
	nsb := len(a.d) / 8
	_ = w[len(out)*nsb*iq2sBytes-1]
	dotIQ2SRowsAVX2(&w[0], &a.qs[0], &a.d[0], nsb, len(out), &out[0])
}

func gemm4IQ2XXSAsm(w []byte, _ []float32, a act, rows int, out []float32, ostride int) {
	nsb := k23Gemm4Checks(w, a, iq2xxsBytes, rows, out, ostride)
	gemm4IQ2XXSAVX2(&w[0], &a.qs[0], &a.d[0], nsb, rows, &out[0], ostride)
}

func gemm4IQ2XSAsm(w []byte, _ []float32, a act, rows int, out []float32, ostride int) {
	nsb := k23Gemm4Checks(w, a, iq2xsBytes, rows, out, ostride)
	gemm4IQ2XSAVX2(&w[0], &a.qs[0], &a.d[0], nsb, rows, &out[0], ostride)
}

func gemm4IQ2SAsm(w []byte, _ []float32, a act, rows int, out []float32, ostride int) {
	nsb := k23Gemm4Checks(w, a, iq2sBytes, rows, out, ostride)
	gemm4IQ2SAVX2(&w[0], &a.qs[0], &a.d[0], nsb, rows, &out[0], ostride)
}

// iq2SignRuns holds, for each 7-bit sign index i of IQ2_XXS and IQ2_XS, the
// eight signs of a run as the bytes VPSIGNB applies to the activations:
// byte j is 0xff (−1) where bit j of ksigns_iq2xs[i] is set, else 0x01
// (llama.cpp's keven_signs_q2xs). The kernels read it by address (R10);
// TestIQ2SignRuns proves it against ksigns_iq2xs. Never written.
var iq2SignRuns = [128]uint64{
	0x0101010101010101, 0xff010101010101ff, 0xff0101010101ff01, 0x010101010101ffff,
	0xff01010101ff0101, 0x0101010101ff01ff, 0x0101010101ffff01, 0xff01010101ffffff,
	0xff010101ff010101, 0x01010101ff0101ff, 0x01010101ff01ff01, 0xff010101ff01ffff,
	0x01010101ffff0101, 0xff010101ffff01ff, 0xff010101ffffff01, 0x01010101ffffffff,
	0xff0101ff01010101, 0x010101ff010101ff, 0x010101ff0101ff01, 0xff0101ff0101ffff,
	0x010101ff01ff0101, 0xff0101ff01ff01ff, 0xff0101ff01ffff01, 0x010101ff01ffffff,
	0x010101ffff010101, 0xff0101ffff0101ff, 0xff0101ffff01ff01, 0x010101ffff01ffff,
	0xff0101ffffff0101, 0x010101ffffff01ff, 0x010101ffffffff01, 0xff0101ffffffffff,
	0xff01ff0101010101, 0x0101ff01010101ff, 0x0101ff010101ff01, 0xff01ff010101ffff,
	0x0101ff0101ff0101, 0xff01ff0101ff01ff, 0xff01ff0101ffff01, 0x0101ff0101ffffff,
	0x0101ff01ff010101, 0xff01ff01ff0101ff, 0xff01ff01ff01ff01, 0x0101ff01ff01ffff,
	0xff01ff01ffff0101, 0x0101ff01ffff01ff, 0x0101ff01ffffff01, 0xff01ff01ffffffff,
	0x0101ffff01010101, 0xff01ffff010101ff, 0xff01ffff0101ff01, 0x0101ffff0101ffff,
	0xff01ffff01ff0101, 0x0101ffff01ff01ff, 0x0101ffff01ffff01, 0xff01ffff01ffffff,
	0xff01ffffff010101, 0x0101ffffff0101ff, 0x0101ffffff01ff01, 0xff01ffffff01ffff,
	0x0101ffffffff0101, 0xff01ffffffff01ff, 0xff01ffffffffff01, 0x0101ffffffffffff,
	0xffff010101010101, 0x01ff0101010101ff, 0x01ff01010101ff01, 0xffff01010101ffff,
	0x01ff010101ff0101, 0xffff010101ff01ff, 0xffff010101ffff01, 0x01ff010101ffffff,
	0x01ff0101ff010101, 0xffff0101ff0101ff, 0xffff0101ff01ff01, 0x01ff0101ff01ffff,
	0xffff0101ffff0101, 0x01ff0101ffff01ff, 0x01ff0101ffffff01, 0xffff0101ffffffff,
	0x01ff01ff01010101, 0xffff01ff010101ff, 0xffff01ff0101ff01, 0x01ff01ff0101ffff,
	0xffff01ff01ff0101, 0x01ff01ff01ff01ff, 0x01ff01ff01ffff01, 0xffff01ff01ffffff,
	0xffff01ffff010101, 0x01ff01ffff0101ff, 0x01ff01ffff01ff01, 0xffff01ffff01ffff,
	0x01ff01ffffff0101, 0xffff01ffffff01ff, 0xffff01ffffffff01, 0x01ff01ffffffffff,
	0x01ffff0101010101, 0xffffff01010101ff, 0xffffff010101ff01, 0x01ffff010101ffff,
	0xffffff0101ff0101, 0x01ffff0101ff01ff, 0x01ffff0101ffff01, 0xffffff0101ffffff,
	0xffffff01ff010101, 0x01ffff01ff0101ff, 0x01ffff01ff01ff01, 0xffffff01ff01ffff,
	0x01ffff01ffff0101, 0xffffff01ffff01ff, 0xffffff01ffffff01, 0x01ffff01ffffffff,
	0xffffffff01010101, 0x01ffffff010101ff, 0x01ffffff0101ff01, 0xffffffff0101ffff,
	0x01ffffff01ff0101, 0xffffffff01ff01ff, 0xffffffff01ffff01, 0x01ffffff01ffffff,
	0x01ffffffff010101, 0xffffffffff0101ff, 0xffffffffff01ff01, 0x01ffffffff01ffff,
	0xffffffffffff0101, 0x01ffffffffff01ff, 0x01ffffffffffff01, 0xffffffffffffffff,
}
