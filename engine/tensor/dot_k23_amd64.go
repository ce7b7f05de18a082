package tensor

// AVX2 row kernels for Q2_K, Q3_K and IQ4_XS (dot_k23_amd64.s), installed by
// useArchDots; dotQ2KGo, dotQ3KGo and dotIQ4XSGo (dot_k23.go) are their
// definitions. Each takes nsb super-blocks per row and rows consecutive rows.

//go:noescape
func dotQ2KRowsAVX2(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32)

//go:noescape
func dotQ3KRowsAVX2(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32)

//go:noescape
func dotIQ4XSRowsAVX2(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32)

func rowsQ2KAsm(w []byte, _ []float32, a act, out []float32) {
	nsb := len(a.d) / 8
	_ = w[len(out)*nsb*q2KBytes-1]
	dotQ2KRowsAVX2(&w[0], &a.qs[0], &a.d[0], nsb, len(out), &out[0])
}

func rowsQ3KAsm(w []byte, _ []float32, a act, out []float32) {
	nsb := len(a.d) / 8
	_ = w[len(out)*nsb*q3KBytes-1]
	dotQ3KRowsAVX2(&w[0], &a.qs[0], &a.d[0], nsb, len(out), &out[0])
}

func rowsIQ4XSAsm(w []byte, _ []float32, a act, out []float32) {
	nsb := len(a.d) / 8
	_ = w[len(out)*nsb*iq4xsBytes-1]
	dotIQ4XSRowsAVX2(&w[0], &a.qs[0], &a.d[0], nsb, len(out), &out[0])
}
