package tensor

import "unsafe"

// The packed IQ4_NL kernels read their 16 levels, plus 128, from lv:
// iq4nlLevelsU for IQ4_NL, mxfp4LevelsU for MXFP4 (packmxfp4.go).

//go:noescape
func rowsIQ4NLx16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nb, groups int, out *float32, lv *byte)

//go:noescape
func gemm4IQ4NLx16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nb, groups int, out *float32, ostride int, lv *byte)

//go:noescape
func rowsQ5_0x16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nb, groups int, out *float32)

//go:noescape
func gemm4Q5_0x16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nb, groups int, out *float32, ostride int)

//go:noescape
func rowsQ5_1x16VNNI(p *byte, xq *int8, xd, xs *float32, nb, groups int, out *float32)

//go:noescape
func gemm4Q5_1x16VNNI(p *byte, xq *int8, xd, xs *float32, nb, groups int, out *float32, ostride int)

// rowsPackedIQ4NL is the packed IQ4_NL decode kernel (packlegacy_amd64.s).
// It reads m8, from which it starts each block's integer sum.
func rowsPackedIQ4NL(p []byte, a act, out []float32) {
	groups := len(out) / packRows
	nb := packedChecksM8(p, a, 1, groups, packBlockBytes, out, 0)
	rowsIQ4NLx16VNNI(&p[0], &a.qs[0], &a.m8[0], &a.d[0], nb, groups, &out[0], unsafe.StringData(iq4nlLevelsU))
}

// gemm4PackedIQ4NL is the packed IQ4_NL prefill kernel: per token, bit for
// bit rowsPackedIQ4NL.
func gemm4PackedIQ4NL(p []byte, a act, groups int, out []float32, ostride int) {
	nb := packedChecksM8(p, a, 4, groups, packBlockBytes, out, ostride)
	gemm4IQ4NLx16VNNI(&p[0], &a.qs[0], &a.m8[0], &a.d[0], nb, groups, &out[0], ostride, unsafe.StringData(iq4nlLevelsU))
}

// rowsPackedMXFP4 is the packed MXFP4 decode kernel: packed IQ4_NL's
// (packmxfp4.go) with MXFP4's levels.
func rowsPackedMXFP4(p []byte, a act, out []float32) {
	groups := len(out) / packRows
	nb := packedChecksM8(p, a, 1, groups, packBlockBytes, out, 0)
	rowsIQ4NLx16VNNI(&p[0], &a.qs[0], &a.m8[0], &a.d[0], nb, groups, &out[0], unsafe.StringData(mxfp4LevelsU))
}

// gemm4PackedMXFP4 is the packed MXFP4 prefill kernel: per token, bit for
// bit rowsPackedMXFP4.
func gemm4PackedMXFP4(p []byte, a act, groups int, out []float32, ostride int) {
	nb := packedChecksM8(p, a, 4, groups, packBlockBytes, out, ostride)
	gemm4IQ4NLx16VNNI(&p[0], &a.qs[0], &a.m8[0], &a.d[0], nb, groups, &out[0], ostride, unsafe.StringData(mxfp4LevelsU))
}

// rowsPackedQ5_0 is the packed Q5_0 decode kernel (packlegacy_amd64.s).
// It reads m8, from which it starts each block's integer sum.
func rowsPackedQ5_0(p []byte, a act, out []float32) {
	groups := len(out) / packRows
	nb := packedChecksM8(p, a, 1, groups, packRows*q5_0Bytes, out, 0)
	rowsQ5_0x16VNNI(&p[0], &a.qs[0], &a.m8[0], &a.d[0], nb, groups, &out[0])
}

// gemm4PackedQ5_0 is the packed Q5_0 prefill kernel: per token, bit for
// bit rowsPackedQ5_0.
func gemm4PackedQ5_0(p []byte, a act, groups int, out []float32, ostride int) {
	nb := packedChecksM8(p, a, 4, groups, packRows*q5_0Bytes, out, ostride)
	gemm4Q5_0x16VNNI(&p[0], &a.qs[0], &a.m8[0], &a.d[0], nb, groups, &out[0], ostride)
}

// rowsPackedQ5_1 is the packed Q5_1 decode kernel (packlegacy_amd64.s).
func rowsPackedQ5_1(p []byte, a act, out []float32) {
	groups := len(out) / packRows
	nb := packedChecksS(p, a, 1, groups, packRows*q5_1Bytes, out, 0)
	rowsQ5_1x16VNNI(&p[0], &a.qs[0], &a.d[0], &a.s[0], nb, groups, &out[0])
}

// gemm4PackedQ5_1 is the packed Q5_1 prefill kernel: per token, bit for
// bit rowsPackedQ5_1.
func gemm4PackedQ5_1(p []byte, a act, groups int, out []float32, ostride int) {
	nb := packedChecksS(p, a, 4, groups, packRows*q5_1Bytes, out, ostride)
	gemm4Q5_1x16VNNI(&p[0], &a.qs[0], &a.d[0], &a.s[0], nb, groups, &out[0], ostride)
}
