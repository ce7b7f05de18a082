package tensor

import "golang.org/x/sys/cpu"

// hasTQZ reports what the packed TQ2_0 kernels need: the packed VNNI
// kernels' ZMM instructions and GF2P8AFFINEQB (GFNI), which unpacks three
// of a byte's four 2-bit codes in one instruction each (a shift and a mask
// otherwise; 25% more decode work, measured on data in L2).
var hasTQZ = hasZMM && cpu.X86.HasAVX512GFNI

//go:noescape
func rowsTQ2x16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32)

//go:noescape
func gemm4TQ2x16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32, ostride int)

// rowsPackedTQ2 is the packed TQ2_0 decode kernel (packtq_amd64.s). It
// starts each block's integer sum from m8/8 = −Σx, so it checks m8.
func rowsPackedTQ2(p []byte, a act, out []float32) {
	groups := len(out) / packRows
	nsb := packedChecksM8(p, a, 1, groups, packTQ2BlockBytes/8, out, 0) / 8
	rowsTQ2x16VNNI(&p[0], &a.qs[0], &a.m8[0], &a.d[0], nsb, groups, &out[0])
}

// gemm4PackedTQ2 is the packed TQ2_0 prefill kernel: per token, bit for bit
// rowsPackedTQ2.
func gemm4PackedTQ2(p []byte, a act, groups int, out []float32, ostride int) {
	nsb := packedChecksM8(p, a, 4, groups, packTQ2BlockBytes/8, out, ostride) / 8
	gemm4TQ2x16VNNI(&p[0], &a.qs[0], &a.m8[0], &a.d[0], nsb, groups, &out[0], ostride)
}

//go:noescape
func rowsTQ1x16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32)

//go:noescape
func gemm4TQ1x16VNNI(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32, ostride int)

// rowsPackedTQ1 is the packed TQ1_0 decode kernel (packtq1_amd64.s), which
// decodes the trits from the file's bytes. It reads m8 (−Σx = m8/8).
func rowsPackedTQ1(p []byte, a act, out []float32) {
	groups := len(out) / packRows
	nsb := packedChecksM8(p, a, 1, groups, packTQ1BlockBytes/8, out, 0) / 8
	rowsTQ1x16VNNI(&p[0], &a.qs[0], &a.m8[0], &a.d[0], nsb, groups, &out[0])
}

// gemm4PackedTQ1 is the packed TQ1_0 prefill kernel: per token, bit for bit
// rowsPackedTQ1.
func gemm4PackedTQ1(p []byte, a act, groups int, out []float32, ostride int) {
	nsb := packedChecksM8(p, a, 4, groups, packTQ1BlockBytes/8, out, ostride) / 8
	gemm4TQ1x16VNNI(&p[0], &a.qs[0], &a.m8[0], &a.d[0], nsb, groups, &out[0], ostride)
}

//go:noescape
func rowsTQ2x16AVX2(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32)

//go:noescape
func rowsTQ1x16AVX2(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32)

// rowsPackedTQ2AVX2 is packed TQ2_0's decode kernel on AVX2
// (packtq_avx2_amd64.s): rowsPackedTQ2's numbers, eight rows a pass.
func rowsPackedTQ2AVX2(p []byte, a act, out []float32) {
	groups := len(out) / packRows
	nsb := packedChecksM8(p, a, 1, groups, packTQ2BlockBytes/8, out, 0) / 8
	rowsTQ2x16AVX2(&p[0], &a.qs[0], &a.m8[0], &a.d[0], nsb, groups, &out[0])
}

// rowsPackedTQ1AVX2 is packed TQ1_0's decode kernel on AVX2
// (packtq_avx2_amd64.s): rowsPackedTQ1's numbers, eight rows a pass.
func rowsPackedTQ1AVX2(p []byte, a act, out []float32) {
	groups := len(out) / packRows
	nsb := packedChecksM8(p, a, 1, groups, packTQ1BlockBytes/8, out, 0) / 8
	rowsTQ1x16AVX2(&p[0], &a.qs[0], &a.m8[0], &a.d[0], nsb, groups, &out[0])
}

// gemm4PackedTQ2AVX2 and gemm4PackedTQ1AVX2 are the AVX2 prefill kernels
// of packed TQ2_0 and TQ1_0 (packtq_avx2_amd64.s): each plane decoded once
// for the four tokens, per token bit for bit the decode kernel.
func gemm4PackedTQ2AVX2(p []byte, a act, groups int, out []float32, ostride int) {
	nsb := packedChecksM8(p, a, 4, groups, packTQ2BlockBytes/8, out, ostride) / 8
	gemm4TQ2x16AVX2(&p[0], &a.qs[0], &a.m8[0], &a.d[0], nsb, groups, &out[0], ostride)
}

func gemm4PackedTQ1AVX2(p []byte, a act, groups int, out []float32, ostride int) {
	nsb := packedChecksM8(p, a, 4, groups, packTQ1BlockBytes/8, out, ostride) / 8
	gemm4TQ1x16AVX2(&p[0], &a.qs[0], &a.m8[0], &a.d[0], nsb, groups, &out[0], ostride)
}

//go:noescape
func gemm4TQ2x16AVX2(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32, ostride int)

//go:noescape
func gemm4TQ1x16AVX2(p *byte, xq *int8, m8 *int32, xd *float32, nsb, groups int, out *float32, ostride int)
