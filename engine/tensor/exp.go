package tensor

import "math"

// expf is exp for float32, the algorithm of the AVX2 kernels in
// exp_amd64.s (Cephes' expf): x is clamped to [−87, 88], split as
// n·ln 2 + r with |r| ≤ ln 2 / 2, e^r comes from a degree-5 polynomial and
// 2^n from the exponent bits. Its error is within 2 ulp of exp on the
// clamped range; below −87, where e^x is no longer a normal float, it
// returns e^−87 (1.6e−38) instead of a smaller value. NaN stays NaN.
func expf(x float32) float32 {
	if x > 88 {
		x = 88
	}
	if x < -87 {
		x = -87
	}
	fx := float32(math.RoundToEven(float64(x * math.Log2E)))
	r := fma32(fx, -0.693359375, x)
	r = fma32(fx, 2.12194440e-4, r)
	z := r * r
	p := fma32(1.9875691500e-4, r, 1.3981999507e-3)
	p = fma32(p, r, 8.3334519073e-3)
	p = fma32(p, r, 4.1665795894e-2)
	p = fma32(p, r, 1.6666665459e-1)
	p = fma32(p, r, 5.0000001201e-1)
	p = fma32(p, z, r) + 1
	if fx != fx { // NaN: the exponent trick below would make it a number
		return fx
	}
	return p * math.Float32frombits(uint32(int32(fx)+127)<<23)
}

// fma32 is a·b+c with one rounding as far as float32 goes.
func fma32(a, b, c float32) float32 {
	return float32(math.FMA(float64(a), float64(b), float64(c)))
}

// SiLUMul sets g[i] = silu(g[i])·u[i] = g[i]/(1+e^−g[i])·u[i] (SwiGLU's
// gate times its up projection) over len(g) elements; u must be at least as
// long. Each element's result depends only on its position modulo 8, so
// call it per row to keep a batch's rows equal to the rows alone.
func SiLUMul(g, u []float32) {
	u = u[:len(g)]
	m := 0
	if hasAVX2 && len(g) >= 8 {
		m = len(g) &^ 7
		siluMulAVX2(&g[0], &u[0], m)
	}
	for i := m; i < len(g); i++ {
		v := g[i]
		g[i] = v / (1 + expf(-v)) * u[i]
	}
}

// ExpShift sets x[i] = e^(x[i]−m) and returns their sum: a softmax's
// numerators once m is the row's maximum.
func ExpShift(x []float32, m float32) float32 {
	mm := 0
	var s float32
	if hasAVX2 && len(x) >= 8 {
		mm = len(x) &^ 7
		s = expShiftAVX2(&x[0], mm, m)
	}
	for i := mm; i < len(x); i++ {
		x[i] = expf(x[i] - m)
		s += x[i]
	}
	return s
}
