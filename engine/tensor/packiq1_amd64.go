package tensor

//go:noescape
func rowsIQ1Sx16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32)

//go:noescape
func gemm4IQ1Sx16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32, ostride int)

// iq1pTabAt returns entry i (0…4095) of the packed IQ1 kernels' derived
// grid table (packiq1_amd64.s), for its test.
func iq1pTabAt(i int) uint64

// rowsPackedIQ1S is the packed IQ1_S decode kernel (packiq1_amd64.s). It
// starts each block's integer sum from m8, so it checks m8.
func rowsPackedIQ1S(p []byte, a act, out []float32) {
	groups := len(out) / packRows
	nsb := packedChecksM8(p, a, 1, groups, packIQ1SBlockBytes/8, out, 0) / 8
	rowsIQ1Sx16VNNI(&p[0], &a.qs[0], &a.m8[0], &a.d[0], nsb, groups, &out[0])
}

// gemm4PackedIQ1S is the packed IQ1_S prefill kernel: per token, bit for
// bit rowsPackedIQ1S.
func gemm4PackedIQ1S(p []byte, a act, groups int, out []float32, ostride int) {
	nsb := packedChecksM8(p, a, 4, groups, packIQ1SBlockBytes/8, out, ostride) / 8
	gemm4IQ1Sx16VNNI(&p[0], &a.qs[0], &a.m8[0], &a.d[0], nsb, groups, &out[0], ostride)
}

//go:noescape
func rowsIQ1Mx16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32)

//go:noescape
func gemm4IQ1Mx16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32, ostride int)

// rowsPackedIQ1M is the packed IQ1_M decode kernel (packiq1_amd64.s). It
// takes its half-block activation sums from the codes and reads no m8;
// m8 is passed (and checked) only to keep the kernels' one signature.
func rowsPackedIQ1M(p []byte, a act, out []float32) {
	groups := len(out) / packRows
	nsb := packedChecksM8(p, a, 1, groups, packIQ1MBlockBytes/8, out, 0) / 8
	rowsIQ1Mx16VNNI(&p[0], &a.qs[0], &a.m8[0], &a.d[0], nsb, groups, &out[0])
}

// gemm4PackedIQ1M is the packed IQ1_M prefill kernel: per token, bit for
// bit rowsPackedIQ1M.
func gemm4PackedIQ1M(p []byte, a act, groups int, out []float32, ostride int) {
	nsb := packedChecksM8(p, a, 4, groups, packIQ1MBlockBytes/8, out, ostride) / 8
	gemm4IQ1Mx16VNNI(&p[0], &a.qs[0], &a.m8[0], &a.d[0], nsb, groups, &out[0], ostride)
}

//go:noescape
func rowsIQ1Sx8AVX2(p *byte, xq *int8, m8 *int32, xd *float32, nsb, halves int, out *float32)

//go:noescape
func gemm4IQ1Sx8AVX2(p *byte, xq *int8, m8 *int32, xd *float32, nsb, halves int, out *float32, ostride int)

// rowsPackedIQ1SAVX2 is the decode kernel of IQ1_S in its AVX2 packed
// layout (packiq1_avx2_amd64.s), eight rows a pass: the GGUF-layout AVX2
// kernel's numbers. It adds δ(2s+1)·Σx from m8, so it checks m8.
func rowsPackedIQ1SAVX2(p []byte, a act, out []float32) {
	groups := len(out) / packRows
	nsb := packedChecksM8(p, a, 1, groups, 2*packIQ1SA8Bytes/8, out, 0) / 8
	rowsIQ1Sx8AVX2(&p[0], &a.qs[0], &a.m8[0], &a.d[0], nsb, 2*groups, &out[0])
}

// gemm4PackedIQ1SAVX2 is its prefill kernel: each run decoded once for
// four tokens, per token bit for bit rowsPackedIQ1SAVX2.
func gemm4PackedIQ1SAVX2(p []byte, a act, groups int, out []float32, ostride int) {
	nsb := packedChecksM8(p, a, 4, groups, 2*packIQ1SA8Bytes/8, out, ostride) / 8
	gemm4IQ1Sx8AVX2(&p[0], &a.qs[0], &a.m8[0], &a.d[0], nsb, 2*groups, &out[0], ostride)
}

//go:noescape
func rowsIQ1Mx8AVX2(p *byte, xq *int8, m8 *int32, xd *float32, nsb, halves int, out *float32)

//go:noescape
func gemm4IQ1Mx8AVX2(p *byte, xq *int8, m8 *int32, xd *float32, nsb, halves int, out *float32, ostride int)

// rowsPackedIQ1MAVX2 is the decode kernel of IQ1_M in its AVX2 packed
// layout (packiq1_avx2_amd64.s), eight rows a pass: the GGUF-layout AVX2
// kernel's numbers. (It reads no m8; the check is the shared one.)
func rowsPackedIQ1MAVX2(p []byte, a act, out []float32) {
	groups := len(out) / packRows
	nsb := packedChecksM8(p, a, 1, groups, 2*packIQ1MA8Bytes/8, out, 0) / 8
	rowsIQ1Mx8AVX2(&p[0], &a.qs[0], &a.m8[0], &a.d[0], nsb, 2*groups, &out[0])
}

// gemm4PackedIQ1MAVX2 is its prefill kernel: each run decoded once for
// four tokens, per token bit for bit rowsPackedIQ1MAVX2.
func gemm4PackedIQ1MAVX2(p []byte, a act, groups int, out []float32, ostride int) {
	nsb := packedChecksM8(p, a, 4, groups, 2*packIQ1MA8Bytes/8, out, ostride) / 8
	gemm4IQ1Mx8AVX2(&p[0], &a.qs[0], &a.m8[0], &a.d[0], nsb, 2*groups, &out[0], ostride)
}
