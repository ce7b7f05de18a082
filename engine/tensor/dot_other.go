//go:build !amd64

package tensor

// hasAVX2 is false off amd64: the portable kernels run (tests read it to
// know which paths exist).
const hasAVX2 = false

// useArchDots keeps the portable dot products: only amd64 has assembly so far.
func useArchDots(_ *[typeSlots]rowsFn, path string) string { return path }

func dotF32Fast(a, b []float32) float32 { return dotF32Go(asBytes(a), b, act{}) }

func axpyFast(alpha float32, x, y []float32) {
	for i, v := range x {
		y[i] += alpha * v
	}
}

func dotRowsF32(m, x, out []float32) {
	n := len(x)
	for i := range out {
		out[i] = dotF32Fast(m[i*n:(i+1)*n], x)
	}
}

func siluMulAVX2(gate, u *float32, n int)               { panic("tensor: no AVX2 off amd64") }
func expShiftAVX2(x *float32, n int, m float32) float32 { panic("tensor: no AVX2 off amd64") }
func scaleMaxAVX2(x *float32, n int, s float32) float32 { panic("tensor: no AVX2 off amd64") }
func scaleAVX2(x *float32, n int, s float32)            { panic("tensor: no AVX2 off amd64") }

func weightedSumAVX2(out, v, w *float32, n, keys int) { panic("tensor: no AVX2 off amd64") }
