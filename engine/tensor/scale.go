package tensor

import "math"

// ScaleMax multiplies x by s in place and returns the largest result (NaN
// if any is NaN, −Inf for an empty x): a softmax's scaled scores and the
// shift its exponentials need, in one pass. Every element is the one float
// product x[i]·s whichever path runs, so a row's values do not depend on
// the CPU's vector width.
func ScaleMax(x []float32, s float32) float32 {
	mx := float32(math.Inf(-1))
	i := 0
	if hasAVX2 && len(x) >= 8 {
		i = len(x) &^ 7
		mx = scaleMaxAVX2(&x[0], i, s)
	}
	for ; i < len(x); i++ {
		x[i] *= s
		mx = max(mx, x[i])
	}
	return mx
}

// Scale multiplies x by s in place (a softmax's normalisation).
func Scale(x []float32, s float32) {
	i := 0
	if hasAVX2 && len(x) >= 8 {
		i = len(x) &^ 7
		scaleAVX2(&x[0], i, s)
	}
	for ; i < len(x); i++ {
		x[i] *= s
	}
}
