package ugt

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// randomRotation returns a d×d orthogonal matrix.
func randomRotation(t *testing.T, rng *rand.Rand, d int) *mat.Dense {
	t.Helper()
	return randomOrthonormal(t, rng, d, d)
}

// TestProcrustesRecoversRotation: states of a "target" model made from a
// source's by a known rotation, scale and shift are mapped back exactly,
// and the fitted map explains all the variance.
func TestProcrustesRecoversRotation(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n, d = 300, 24
	r0 := randomRotation(t, rng, d)
	const s0 = 2.5
	from := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			// anisotropic, so the states look like a model's, not a ball
			from.Set(i, j, rng.NormFloat64()*float64(1+j%5)+3)
		}
	}
	var to mat.Dense
	to.Mul(from, r0.T())
	to.Scale(s0, &to)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			to.Set(i, j, to.At(i, j)-7+float64(j))
		}
	}
	a, err := Procrustes(from, &to)
	if err != nil {
		t.Fatal(err)
	}
	var diff mat.Dense
	diff.Sub(a.R, r0)
	if e := mat.Norm(&diff, 2); e > 1e-9 {
		t.Errorf("‖R − R₀‖_F = %g", e)
	}
	if math.Abs(a.Scale-s0) > 1e-9 {
		t.Errorf("scale %g, want %g", a.Scale, s0)
	}
	if a.Fit > 1e-18 {
		t.Errorf("fit residual %g, want 0", a.Fit)
	}
	if e := OrthonormalityError(a.R); e > 1e-12 {
		t.Errorf("R not orthogonal: %g", e)
	}
	row := make([]float64, d)
	mat.Row(row, 5, from)
	m, err := a.Map(row, nil)
	if err != nil {
		t.Fatal(err)
	}
	for j := range m {
		if math.Abs(m[j]-to.At(5, j)) > 1e-9 {
			t.Fatalf("Map(from[5])[%d] = %g, want %g", j, m[j], to.At(5, j))
		}
	}
	res, err := a.Residual(from, &to)
	if err != nil || res > 1e-18 {
		t.Errorf("held-out residual %g (%v), want 0", res, err)
	}
	// A basis rotated by the true rotation overlaps its image fully.
	b := randomOrthonormal(t, rng, d, 5)
	rb, err := a.Rotate(b)
	if err != nil {
		t.Fatal(err)
	}
	var want mat.Dense
	want.Mul(r0, b)
	if o, err := Overlap(rb, &want); err != nil || math.Abs(o-1) > 1e-9 {
		t.Errorf("overlap of R·B with R₀·B = %g (%v), want 1", o, err)
	}
}

// TestProcrustesNoise: with unrelated source and target states the map
// explains almost nothing on held-out pairs.
func TestProcrustesNoise(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n, d = 400, 16
	mk := func() *mat.Dense {
		m := mat.NewDense(n, d, nil)
		for i := 0; i < n; i++ {
			for j := 0; j < d; j++ {
				m.Set(i, j, rng.NormFloat64())
			}
		}
		return m
	}
	a, err := Procrustes(mk(), mk())
	if err != nil {
		t.Fatal(err)
	}
	if a.Fit < 0.8 {
		t.Errorf("fit residual on noise %g, want near 1", a.Fit)
	}
	res, err := a.Residual(mk(), mk())
	if err != nil {
		t.Fatal(err)
	}
	if res < 0.9 {
		t.Errorf("held-out residual on noise %g, want ≥ 0.9", res)
	}
}

// TestChanceOverlap: random k-subspaces of R^d overlap by k/d on average.
func TestChanceOverlap(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const d, k, trials = 64, 16, 200
	var sum float64
	for range trials {
		o, err := Overlap(randomOrthonormal(t, rng, d, k), randomOrthonormal(t, rng, d, k))
		if err != nil {
			t.Fatal(err)
		}
		sum += o
	}
	mean, want := sum/trials, ChanceOverlap(d, k)
	if want != 0.25 {
		t.Fatalf("ChanceOverlap(64, 16) = %g", want)
	}
	// The overlap of one pair has standard deviation ≈ 0.03 here; the mean
	// of 200, ≈ 0.002.
	if math.Abs(mean-want) > 0.01 {
		t.Errorf("mean overlap of random bases %g, want %g", mean, want)
	}
}

// TestSwapComponent: the subspace component comes from y, the rest stays x.
func TestSwapComponent(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const d, k = 12, 3
	b := randomOrthonormal(t, rng, d, k)
	x, y := make([]float64, d), make([]float64, d)
	for i := range x {
		x[i], y[i] = rng.NormFloat64(), rng.NormFloat64()
	}
	orig := append([]float64(nil), x...)
	if err := SwapComponent(b, x, y); err != nil {
		t.Fatal(err)
	}
	xv, yv, ov := mat.NewVecDense(d, x), mat.NewVecDense(d, y), mat.NewVecDense(d, orig)
	var px, py, rest, orest mat.VecDense
	px.MulVec(b.T(), xv)
	py.MulVec(b.T(), yv)
	if !mat.EqualApprox(&px, &py, 1e-12) {
		t.Errorf("Bᵀx = %v, want Bᵀy = %v", px.RawVector().Data, py.RawVector().Data)
	}
	var bbx, bbo mat.VecDense
	bbx.MulVec(b, &px)
	rest.SubVec(xv, &bbx)
	var po mat.VecDense
	po.MulVec(b.T(), ov)
	bbo.MulVec(b, &po)
	orest.SubVec(ov, &bbo)
	if !mat.EqualApprox(&rest, &orest, 1e-12) {
		t.Error("the component outside the subspace changed")
	}
}

func TestAlignBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	few := mat.NewDense(8, 8, nil)
	if _, err := Procrustes(few, few); err == nil {
		t.Error("8 states of width 8 fitted a rotation")
	}
	a := mat.NewDense(20, 4, nil)
	b := mat.NewDense(20, 5, nil)
	if _, err := Procrustes(a, b); err == nil {
		t.Error("different widths fitted")
	}
	if _, err := Procrustes(a, mat.NewDense(20, 4, nil)); err == nil {
		t.Error("constant states fitted")
	}
	nan := mat.NewDense(20, 4, nil)
	for i := 0; i < 20; i++ {
		for j := 0; j < 4; j++ {
			nan.Set(i, j, rng.NormFloat64())
		}
	}
	good := mat.DenseCopyOf(nan)
	nan.Set(3, 2, math.NaN())
	if _, err := Procrustes(nan, good); err == nil {
		t.Error("NaN state fitted")
	}
	al, err := Procrustes(good, good)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := al.Map(make([]float64, 3), nil); err == nil {
		t.Error("Map took a state of the wrong width")
	}
	if _, err := al.Rotate(mat.NewDense(5, 2, nil)); err == nil {
		t.Error("Rotate took a basis of the wrong width")
	}
	if err := SwapComponent(mat.NewDense(4, 2, nil), make([]float64, 3), make([]float64, 4)); err == nil {
		t.Error("SwapComponent took a state of the wrong width")
	}
	if ChanceOverlap(0, 3) != 0 || ChanceOverlap(4, 8) != 1 {
		t.Error("ChanceOverlap edge cases")
	}
}
