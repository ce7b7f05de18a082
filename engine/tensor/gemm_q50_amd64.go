package tensor

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// hasQ50Z reports what the Q5_0 VNNI prefill kernel needs besides hasZMM:
// VPERMT2B (AVX512-VBMI) and GF2P8AFFINEQB on 512-bit registers (GFNI).
var hasQ50Z = hasZMM && cpu.X86.HasAVX512VBMI && cpu.X86.HasAVX512GFNI

//go:noescape
func gemm4Q5_0VNNI(w *byte, xq, xx *int8, dT, sT *float32, nb, rows int, out *float32, ostride int)

// gemm4Q5_0VNNIAsm is Q5_0's prefill kernel on CPUs with 512-bit VNNI,
// VBMI and GFNI (gemm_q50_amd64.s): per token, bit for bit
// dotQ5_0RowsAVX2. It reads its four tokens' codes as byPairs lays them
// out (qX) for whole groups of four blocks and as they are (qs) for the
// blocks left over, and dT and sT (see prepActVNNI); not s or u.
func gemm4Q5_0VNNIAsm(w []byte, _ []float32, a act, rows int, out []float32, ostride int) {
	nb := legacyGemm4Checks(w, a, q5_0Bytes, rows, out, ostride)
	_ = a.qX[4*nb*QK-1]
	_ = a.dT[4*nb-1]
	_ = a.sT[4*nb-1]
	gemm4Q5_0VNNI(&w[0], &a.qs[0], &a.qX[0], &a.dT[0], &a.sT[0], nb, rows, &out[0], ostride)
}

// byPairs sets dst, per group of four rows of cols codes of src, to the
// layout of gemm_q50_amd64.s: for each run of four blocks, 512 bytes, two
// 256-byte halves for the row pairs 0|1 and 2|3, each four 64-byte
// vectors whose 128-bit lane b holds the pair's codes of block b: in the
// first vector, codes 0–7 of the pair's first row, then codes 8–15 of its
// second; in the second, codes 16–23 and 24–31; in the third, codes 8–15
// of the first row and 0–7 of the second; in the fourth, 24–31 and 16–23.
// The 0–3 blocks left at a row's end are not copied (the kernel reads them
// from src).
func byPairs(dst, src []int8, n, cols int) {
	// The moves are of whole quarter-blocks (8 bytes), made as uint64s:
	// both buffers are whole allocations (8-byte aligned) cut at multiples
	// of 32 bytes.
	d64 := unsafe.Slice((*uint64)(unsafe.Pointer(&dst[0])), len(dst)/8)
	s64 := unsafe.Slice((*uint64)(unsafe.Pointer(&src[0])), len(src)/8)
	w := cols / 8 // uint64s per row
	for g := range n / 4 {
		for j := range cols / (4 * QK) {
			for p := range 2 {
				r0 := (*[16]uint64)(s64[(4*g+2*p)*w+16*j:])
				r1 := (*[16]uint64)(s64[(4*g+2*p+1)*w+16*j:])
				o := (*[32]uint64)(d64[4*g*w+64*j+32*p:])
				for b := range 4 {
					o[2*b], o[2*b+1] = r0[4*b], r1[4*b+1]
					o[8+2*b], o[9+2*b] = r0[4*b+2], r1[4*b+3]
					o[16+2*b], o[17+2*b] = r0[4*b+1], r1[4*b]
					o[24+2*b], o[25+2*b] = r0[4*b+3], r1[4*b+2]
				}
			}
		}
	}
}
