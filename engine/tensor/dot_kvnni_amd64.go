package tensor

// The AVX-512 VNNI one-token K-quant kernels (dot_kvnni_amd64.s). They read
// the GGUF rows as they are and give dotQ4KRowsAVX2's results bit for bit,
// so the four-token prefill kernels (gemm_k_amd64.s) still match decode.

//go:noescape
func dotQ4KRowsVNNI(w *byte, xq *int8, xd, xs *float32, nsb, rows int, out *float32)

func rowsQ4KVNNI(w []byte, _ []float32, a act, out []float32) {
	nsb := len(a.d) / 8
	_ = w[len(out)*nsb*144-1]
	_ = a.qs[nsb*256-1]
	_ = a.s[nsb*8-1]
	dotQ4KRowsVNNI(&w[0], &a.qs[0], &a.d[0], &a.s[0], nsb, len(out), &out[0])
}

//go:noescape
func dotQ6KRowsVNNI(w *byte, xq *int8, xd *float32, nsb, rows int, out *float32)

func rowsQ6KVNNI(w []byte, _ []float32, a act, out []float32) {
	nsb := len(a.d) / 8
	_ = w[len(out)*nsb*210-1]
	_ = a.qs[nsb*256-1]
	dotQ6KRowsVNNI(&w[0], &a.qs[0], &a.d[0], nsb, len(out), &out[0])
}

// useKVNNIDots installs the VNNI K-quant decode kernels where the CPU has
// 512-bit VNNI (hasZMM).
func useKVNNIDots(rows *[typeSlots]rowsFn) {
	if !hasZMM {
		return
	}
	rows[Q4_K] = rowsQ4KVNNI
	rows[Q6_K] = rowsQ6KVNNI
}
