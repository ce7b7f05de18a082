package tensor

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestScaleMaxEqualsScalar: the vector kernels must give the scalar loop's
// products bit for bit, and its maximum, NaN and infinities included, for
// lengths on and off the eight-lane step.
func TestScaleMaxEqualsScalar(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	nan := float32(math.NaN())
	for _, n := range []int{0, 1, 7, 8, 9, 64, 77, 1000} {
		for _, special := range []float32{0, nan, float32(math.Inf(1)), float32(math.Inf(-1))} {
			x := make([]float32, n)
			for i := range x {
				x[i] = float32(rng.NormFloat64() * 10)
			}
			if special != 0 && n > 0 {
				x[rng.IntN(n)] = special
			}
			s := float32(0.125 + rng.Float64())
			want := append([]float32(nil), x...)
			wmx := float32(math.Inf(-1))
			for i := range want {
				want[i] *= s
				wmx = max(wmx, want[i])
			}
			got := append([]float32(nil), x...)
			mx := ScaleMax(got, s)
			if !(mx == wmx || mx != mx && wmx != wmx) {
				t.Fatalf("n=%d special %g: max %g, want %g", n, special, mx, wmx)
			}
			scaled := append([]float32(nil), x...)
			Scale(scaled, s)
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) || math.Float32bits(scaled[i]) != math.Float32bits(want[i]) {
					t.Fatalf("n=%d special %g: element %d: ScaleMax %g, Scale %g, want %g", n, special, i, got[i], scaled[i], want[i])
				}
			}
		}
	}
}
