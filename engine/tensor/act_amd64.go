package tensor

import "math"

//go:noescape
func absMaxAVX2(x *float32, amax *float32, nb int) (total float32)

//go:noescape
func quantizeActAVX2(x *float32, qs *int8, d, s *float32, m8 *int32, nb int)

// quantizeActArch quantises with AVX2 when the CPU has it, in two passes
// (block maxima, then codes) over an x that is still in L1. VMAXPS cannot
// carry NaN, so the block maxima pass also sums x, and a non-finite sum
// (NaN or Inf in x, or a harmless overflow) leaves the vector to the
// portable quantiser, which gives such blocks a NaN scale.
func quantizeActArch(a act, x []float32) bool {
	if len(x) == 0 || !hasAVX2 {
		return false
	}
	nb := len(x) / QK
	t := absMaxAVX2(&x[0], &a.d[0], nb)
	if math.IsNaN(float64(t)) || math.IsInf(float64(t), 0) {
		return false
	}
	quantizeActAVX2(&x[0], &a.qs[0], &a.d[0], &a.s[0], &a.m8[0], nb)
	return true
}
