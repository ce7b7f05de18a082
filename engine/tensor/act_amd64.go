package tensor

import "math"

//go:noescape
func quantizeActAVX2(x *float32, qs *int8, d, s *float32, nb int) (total float32)

// quantizeActArch quantises with AVX2 when the CPU has it. The assembly
// cannot cheaply keep NaN/Inf semantics per block, so it returns the plain
// sum of x and any non-finite sum sends the whole vector to the portable
// quantiser (overflow of a finite sum does too, harmlessly).
func quantizeActArch(a act, x []float32) bool {
	if len(x) == 0 || !hasAVX2 {
		return false
	}
	t := quantizeActAVX2(&x[0], &a.qs[0], &a.d[0], &a.s[0], len(x)/QK)
	return !math.IsNaN(float64(t)) && !math.IsInf(float64(t), 0)
}
