//go:build !amd64

package tensor

// The compact KV cache's kernels have no assembly off amd64; hasAVX2 is
// false there, so these are never called.

func f32ToF16AVX2(dst *uint16, src *float32, n int) { panic("tensor: no AVX2 off amd64") }

func weightedSumF16AVX2(out *float32, v *uint16, w *float32, n, keys int) {
	panic("tensor: no AVX2 off amd64")
}

func dotQ8_0F32RowsAVX2(w *byte, x *float32, nb, rows int, out *float32) {
	panic("tensor: no AVX2 off amd64")
}

func weightedSumQ8_0AVX2(out *float32, v *byte, w *float32, nb, keys int) {
	panic("tensor: no AVX2 off amd64")
}

func dotF16RowsAVX2(w *uint16, x *float32, n, rows int, out *float32) {
	panic("tensor: no AVX2 off amd64")
}

func dotF16Rows4AVX2(w *uint16, x *float32, n, rows int, out *float32) {
	panic("tensor: no AVX2 off amd64")
}

func dotQ8_0F32Rows4AVX2(w *byte, x *float32, nb, rows int, out *float32) {
	panic("tensor: no AVX2 off amd64")
}
