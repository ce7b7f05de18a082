package tensor

import (
	"math"
	"math/rand/v2"
	"testing"
)

// ulps is the distance between a and b in units of b's last place.
func ulps(a, b float32) float64 {
	ulp := math.Nextafter32(abs32(b), float32(math.Inf(1))) - abs32(b)
	return math.Abs(float64(a-b)) / float64(ulp)
}

// TestExpf pins the portable expf to exp within 2 ulp over its range, and
// its documented edges: a clamp above 88, e^−87 below −87, NaN through.
func TestExpf(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 200000 {
		x := float32(rng.Float64()*175 - 87)
		if i < 1000 {
			x = float32(rng.NormFloat64()) // where softmax and SiLU live
		}
		want := float32(math.Exp(float64(x)))
		if d := ulps(expf(x), want); d > 2 {
			t.Fatalf("expf(%g) = %g, exp %g: %.1f ulp", x, expf(x), want, d)
		}
	}
	if got, want := expf(1000), expf(88); got != want {
		t.Errorf("expf(1000) = %g, want the clamp e^88 = %g", got, want)
	}
	if got := expf(-1000); got != expf(-87) || got <= 0 {
		t.Errorf("expf(-1000) = %g, want e^-87", got)
	}
	if got := expf(float32(math.NaN())); got == got {
		t.Errorf("expf(NaN) = %g", got)
	}
}

// TestSiLUMulAndExpShift compares the kernels in use (AVX2 where the CPU
// has it, for the multiple-of-8 part) with float64 references, on lengths
// that exercise the vector part and the tail, and checks NaN propagation.
func TestSiLUMulAndExpShift(t *testing.T) {
	t.Logf("vector path: %v (AVX2)", hasAVX2)
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 7, 8, 9, 64, 1539} {
		g, u := make([]float32, n), make([]float32, n)
		for i := range g {
			g[i] = float32(rng.NormFloat64() * 4)
			u[i] = float32(rng.NormFloat64())
		}
		g[n/2] = 200 // beyond the clamps both ways
		if n > 2 {
			g[n/3] = -200
		}
		got := append([]float32(nil), g...)
		SiLUMul(got, u)
		for i := range g {
			v := float64(g[i])
			want := v / (1 + math.Exp(-v)) * float64(u[i])
			if math.Abs(float64(got[i])-want) > 4e-7*math.Abs(want)+1e-30 {
				t.Fatalf("n=%d: SiLUMul[%d] of g=%g u=%g: %g, want %g", n, i, g[i], u[i], got[i], want)
			}
		}

		x := make([]float32, n)
		for i := range x {
			x[i] = float32(rng.NormFloat64() * 3)
		}
		m := float32(2.5)
		e := append([]float32(nil), x...)
		sum := ExpShift(e, m)
		var wantSum float64
		for i := range x {
			want := math.Exp(float64(x[i] - m))
			wantSum += want
			if math.Abs(float64(e[i])-want) > 3e-7*want {
				t.Fatalf("n=%d: ExpShift[%d] of %g: %g, want %g", n, i, x[i], e[i], want)
			}
		}
		if math.Abs(float64(sum)-wantSum) > 1e-6*wantSum {
			t.Fatalf("n=%d: ExpShift sum %g, want %g", n, sum, wantSum)
		}
	}
	for _, n := range []int{8, 9} {
		g, u := make([]float32, n), make([]float32, n)
		for i := range u {
			u[i] = 1
		}
		g[0], g[n-1] = float32(math.NaN()), float32(math.NaN())
		SiLUMul(g, u)
		if g[0] == g[0] || g[n-1] == g[n-1] {
			t.Errorf("n=%d: SiLUMul lost a NaN: %v", n, g)
		}
		x := make([]float32, n)
		x[0], x[n-1] = float32(math.NaN()), float32(math.NaN())
		ExpShift(x, 0)
		if x[0] == x[0] || x[n-1] == x[n-1] {
			t.Errorf("n=%d: ExpShift lost a NaN: %v", n, x)
		}
	}
}
