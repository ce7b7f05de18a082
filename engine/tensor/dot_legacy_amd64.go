package tensor

// AVX2 row kernels for Q4_1, Q5_0, Q5_1, IQ4_NL and MXFP4 (dot_legacy_amd64.s),
// installed by useArchDots. Each computes out[r] = row r · x for len(out)
// consecutive rows of len(a.d) blocks; the bounds check before the call
// stands in for the ones the assembly cannot make.

//go:noescape
func dotQ4_1RowsAVX2(w *byte, xq *int8, xd, xs *float32, nb, rows int, out *float32)

//go:noescape
func dotQ5_0RowsAVX2(w *byte, xq *int8, xd, xs *float32, nb, rows int, out *float32)

//go:noescape
func dotQ5_1RowsAVX2(w *byte, xq *int8, xd, xs *float32, nb, rows int, out *float32)

//go:noescape
func dotIQ4NLRowsAVX2(w *byte, xq *int8, xd *float32, nb, rows int, out *float32)

//go:noescape
func dotMXFP4RowsAVX2(w *byte, xq *int8, xd *float32, nb, rows int, out *float32)

func rowsQ4_1Asm(w []byte, _ []float32, a act, out []float32) {
	nb := len(a.d)
	_ = w[len(out)*nb*q4_1Bytes-1]
	dotQ4_1RowsAVX2(&w[0], &a.qs[0], &a.d[0], &a.s[0], nb, len(out), &out[0])
}

func rowsQ5_0Asm(w []byte, _ []float32, a act, out []float32) {
	nb := len(a.d)
	_ = w[len(out)*nb*q5_0Bytes-1]
	dotQ5_0RowsAVX2(&w[0], &a.qs[0], &a.d[0], &a.s[0], nb, len(out), &out[0])
}

func rowsQ5_1Asm(w []byte, _ []float32, a act, out []float32) {
	nb := len(a.d)
	_ = w[len(out)*nb*q5_1Bytes-1]
	dotQ5_1RowsAVX2(&w[0], &a.qs[0], &a.d[0], &a.s[0], nb, len(out), &out[0])
}

func rowsIQ4NLAsm(w []byte, _ []float32, a act, out []float32) {
	nb := len(a.d)
	_ = w[len(out)*nb*iq4nlBytes-1]
	dotIQ4NLRowsAVX2(&w[0], &a.qs[0], &a.d[0], nb, len(out), &out[0])
}

func rowsMXFP4Asm(w []byte, _ []float32, a act, out []float32) {
	nb := len(a.d)
	_ = w[len(out)*nb*mxfp4Bytes-1]
	dotMXFP4RowsAVX2(&w[0], &a.qs[0], &a.d[0], nb, len(out), &out[0])
}
