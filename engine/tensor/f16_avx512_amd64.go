package tensor

// Four-token prefill kernels for F16 and BF16 weights on 512-bit registers
// (f16_avx512_amd64.s), installed by useArchGemm4 on its VNNI path: any CPU
// with AVX512-VNNI has the AVX512F they need. Per token they are bit for
// bit dotF16RowsAVX2 / dotBF16RowsAVX2; the bounds checks before the calls
// stand in for the ones the assembly cannot make.

//go:noescape
func gemm4F16AVX512(w *uint16, x *float32, n, rows int, out *float32, ostride int)

//go:noescape
func gemm4BF16AVX512(w *uint16, x *float32, n, rows int, out *float32, ostride int)

// halfRows is the most rows one call of gemm4F16AVX512 or gemm4BF16AVX512
// takes (GROWS in f16_avx512_amd64.s): its frame parks their accumulators
// between column chunks. runTile's tiles are no taller.
const halfRows = 64

// halfChunk is how many columns those kernels run every row through
// before going on to the next columns (GCHUNK), for the tests.
const halfChunk = 2048

// gemm4F16ZAsm runs four tokens through gemm4F16AVX512. Rows whose length
// is not a multiple of 8 take the portable dot, token by token, as
// floatRows has them.
func gemm4F16ZAsm(w []byte, x []float32, _ act, rows int, out []float32, ostride int) {
	n, done := gemm4HalfChecks(w, x, rows, out, ostride, dotF16Go)
	if done {
		return
	}
	for r := 0; r < rows; r += halfRows {
		gemm4F16AVX512((*uint16)(ptr(w[r*2*n:])), &x[0], n, min(halfRows, rows-r), &out[r], ostride)
	}
}

// gemm4BF16ZAsm is gemm4F16ZAsm for BF16.
func gemm4BF16ZAsm(w []byte, x []float32, _ act, rows int, out []float32, ostride int) {
	n, done := gemm4HalfChecks(w, x, rows, out, ostride, dotBF16Go)
	if done {
		return
	}
	for r := 0; r < rows; r += halfRows {
		gemm4BF16AVX512((*uint16)(ptr(w[r*2*n:])), &x[0], n, min(halfRows, rows-r), &out[r], ostride)
	}
}
