package tensor

//go:noescape
func rowsIQ2Sx16VNNI(p *byte, xq *int8, xd *float32, nsb, groups int, out *float32)

//go:noescape
func gemm4IQ2Sx16VNNI(p *byte, xq *int8, xd *float32, nsb, groups int, out *float32, ostride int)

// rowsPackedIQ2S is the packed IQ2_S decode kernel (packiq2s_amd64.s). It
// takes each half's −43·Σx from the codes themselves, so it reads no m8.
func rowsPackedIQ2S(p []byte, a act, out []float32) {
	groups := len(out) / packRows
	nsb := packedChecks(p, a, 1, groups, packIQ2SBlockBytes/8, out, 0) / 8
	rowsIQ2Sx16VNNI(&p[0], &a.qs[0], &a.d[0], nsb, groups, &out[0])
}

// gemm4PackedIQ2S is the packed IQ2_S prefill kernel: per token, bit for
// bit rowsPackedIQ2S.
func gemm4PackedIQ2S(p []byte, a act, groups int, out []float32, ostride int) {
	nsb := packedChecks(p, a, 4, groups, packIQ2SBlockBytes/8, out, ostride) / 8
	gemm4IQ2Sx16VNNI(&p[0], &a.qs[0], &a.d[0], nsb, groups, &out[0], ostride)
}
