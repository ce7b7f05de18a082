package tensor

//go:noescape
func gemm4IQ4NLVNNI(w *byte, xq *int8, m8 *int32, dT *float32, nb, rows int, out *float32, ostride int)

// gemm4IQ4NLVNNIAsm is IQ4_NL's prefill kernel on CPUs with 512-bit VNNI
// (gemm_iq4nl_amd64.s): per token, bit for bit dotIQ4NLRowsAVX2. It reads
// the codes, m8 and dT of its four tokens (see prepActVNNI), not u.
func gemm4IQ4NLVNNIAsm(w []byte, _ []float32, a act, rows int, out []float32, ostride int) {
	nb := legacyGemm4Checks(w, a, iq4nlBytes, rows, out, ostride)
	_ = a.m8[4*nb-1]
	_ = a.dT[4*nb-1]
	gemm4IQ4NLVNNI(&w[0], &a.qs[0], &a.m8[0], &a.dT[0], nb, rows, &out[0], ostride)
}
