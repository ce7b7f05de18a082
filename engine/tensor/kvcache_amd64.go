package tensor

// Assembly for the compact KV cache's rows (kvcache_amd64.s); the callers
// in kvcache.go check hasAVX2 (which includes F16C) and the lengths.

//go:noescape
func f32ToF16AVX2(dst *uint16, src *float32, n int)

//go:noescape
func weightedSumF16AVX2(out *float32, v *uint16, w *float32, n, keys int)

//go:noescape
func dotQ8_0F32RowsAVX2(w *byte, x *float32, nb, rows int, out *float32)

//go:noescape
func weightedSumQ8_0AVX2(out *float32, v *byte, w *float32, nb, keys int)

//go:noescape
func dotF16Rows4AVX2(w *uint16, x *float32, n, rows int, out *float32)

//go:noescape
func dotQ8_0F32Rows4AVX2(w *byte, x *float32, nb, rows int, out *float32)
