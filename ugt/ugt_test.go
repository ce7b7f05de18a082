package ugt

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// randomOrthonormal returns a d×k matrix with orthonormal columns drawn
// from a seeded generator.
func randomOrthonormal(t testing.TB, rng *rand.Rand, d, k int) *mat.Dense {
	t.Helper()
	a := mat.NewDense(d, k, nil)
	for i := 0; i < d; i++ {
		for j := 0; j < k; j++ {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	q, err := Orthonormalize(a)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// plantedStates returns n states μ + T·diag(scale)·z + noise·ε, with T the
// planted d×k orthonormal subspace.
func plantedStates(rng *rand.Rand, truth *mat.Dense, mu []float64, n int, scale []float64, noise float64) *mat.Dense {
	d, k := truth.Dims()
	h := mat.NewDense(n, d, nil)
	z := make([]float64, k)
	for r := 0; r < n; r++ {
		for j := range z {
			z[j] = scale[j] * rng.NormFloat64()
		}
		for i := 0; i < d; i++ {
			v := mu[i] + noise*rng.NormFloat64()
			for j := range z {
				v += truth.At(i, j) * z[j]
			}
			h.Set(r, i, v)
		}
	}
	return h
}

func TestFitRecoversPlantedSubspace(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const d, k, n = 60, 4, 500
	truth := randomOrthonormal(t, rng, d, k)
	mu := make([]float64, d)
	for i := range mu {
		mu[i] = 5 + rng.NormFloat64() // a large shared mean, as in real hidden states
	}
	h := plantedStates(rng, truth, mu, n, []float64{10, 8, 6, 4}, 0.1)
	b, err := Fit(h, k)
	if err != nil {
		t.Fatal(err)
	}
	if b.D != d || b.K != k || len(b.Singular) != d {
		t.Fatalf("shape D=%d K=%d |Σ|=%d", b.D, b.K, len(b.Singular))
	}
	ov, err := Overlap(b.B, truth)
	if err != nil {
		t.Fatal(err)
	}
	if ov < 0.99 {
		t.Fatalf("overlap with planted subspace %.4f, want > 0.99", ov)
	}
	if e := OrthonormalityError(b.B); e > 1e-12 {
		t.Fatalf("‖BᵀB−I‖ = %g", e)
	}
	for i := 1; i < len(b.Singular); i++ {
		if b.Singular[i] > b.Singular[i-1] {
			t.Fatalf("singular values not descending at %d", i)
		}
	}
	if ex := b.Explained(); ex < 0.99 || ex > 1 {
		t.Fatalf("explained variance %.4f, want ≈ 1", ex)
	}
	// The mean is recovered too, so the centred coordinates of μ are zero.
	for i := range mu {
		if math.Abs(b.Mu[i]-mu[i]) > 1 {
			t.Fatalf("μ[%d] = %g, planted %g", i, b.Mu[i], mu[i])
		}
	}
}

func TestCoordsOfMeanIsZero(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	truth := randomOrthonormal(t, rng, 20, 3)
	mu := make([]float64, 20)
	for i := range mu {
		mu[i] = rng.NormFloat64() * 10
	}
	b, err := Fit(plantedStates(rng, truth, mu, 50, []float64{3, 2, 1}, 0.1), 3)
	if err != nil {
		t.Fatal(err)
	}
	z, err := b.Coords(b.Mu, nil)
	if err != nil {
		t.Fatal(err)
	}
	for j, v := range z {
		if v != 0 {
			t.Fatalf("z[%d] of μ = %g, want exactly 0", j, v)
		}
	}
	// A state μ + B e_j has coordinates e_j, and dst is reused.
	h := append([]float64(nil), b.Mu...)
	for i := range h {
		h[i] += b.B.At(i, 1)
	}
	dst := make([]float64, 3)
	z, err = b.Coords(h, dst)
	if err != nil {
		t.Fatal(err)
	}
	if &z[0] != &dst[0] {
		t.Fatal("dst not reused")
	}
	for j, want := range []float64{0, 1, 0} {
		if math.Abs(z[j]-want) > 1e-12 {
			t.Fatalf("z = %v, want e_1", z)
		}
	}
	if _, err := b.Coords(h[:5], nil); err == nil {
		t.Fatal("short hidden state accepted")
	}
}

func TestFitSignCanonicalAndReproducible(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const d, k = 30, 5
	truth := randomOrthonormal(t, rng, d, k)
	h := plantedStates(rng, truth, make([]float64, d), 80, []float64{5, 4, 3, 2, 1}, 0.2)
	b1, err := Fit(h, k)
	if err != nil {
		t.Fatal(err)
	}
	b2, err := Fit(mat.DenseCopyOf(h), k)
	if err != nil {
		t.Fatal(err)
	}
	r1, r2 := b1.B.RawMatrix().Data, b2.B.RawMatrix().Data
	for i := range r1 {
		if math.Float64bits(r1[i]) != math.Float64bits(r2[i]) {
			t.Fatalf("two fits differ at %d: %v vs %v", i, r1[i], r2[i])
		}
	}
	for j := 0; j < k; j++ {
		best, at := -1.0, 0
		for i := 0; i < d; i++ {
			if v := math.Abs(b1.B.At(i, j)); v > best {
				best, at = v, i
			}
		}
		if b1.B.At(at, j) <= 0 {
			t.Fatalf("column %d: largest-|entry| %g is not positive", j, b1.B.At(at, j))
		}
	}
	// Negating the data flips every singular vector; the canonical signs
	// must undo that, giving the same basis.
	var neg mat.Dense
	neg.Scale(-1, h)
	b3, err := Fit(&neg, k)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.EqualApprox(b1.B, b3.B, 1e-10) {
		t.Fatal("basis of −H differs from basis of H after sign canonicalisation")
	}
}

func TestOverlap(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	a := randomOrthonormal(t, rng, 40, 6)
	self, err := Overlap(a, a)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(self-1) > 1e-12 {
		t.Fatalf("self overlap %g", self)
	}
	// Same span, different basis: still 1.
	rot := randomOrthonormal(t, rng, 6, 6)
	var ar mat.Dense
	ar.Mul(a, rot)
	if ov, _ := Overlap(a, &ar); math.Abs(ov-1) > 1e-12 {
		t.Fatalf("overlap with rotated basis %g", ov)
	}
	// Coordinate axes: first 3 vs next 3 are orthogonal, 2 of 3 shared is 2/3.
	e := func(cols ...int) *mat.Dense {
		m := mat.NewDense(10, len(cols), nil)
		for j, c := range cols {
			m.Set(c, j, 1)
		}
		return m
	}
	if ov, _ := Overlap(e(0, 1, 2), e(3, 4, 5)); ov != 0 {
		t.Fatalf("orthogonal overlap %g", ov)
	}
	if ov, _ := Overlap(e(0, 1, 2), e(1, 2, 7)); math.Abs(ov-2.0/3) > 1e-15 {
		t.Fatalf("partial overlap %g, want 2/3", ov)
	}
	b := randomOrthonormal(t, rng, 40, 6)
	ab, _ := Overlap(a, b)
	ba, _ := Overlap(b, a)
	// Symmetric in exact arithmetic; AᵀB and BᵀA round differently, so
	// allow a few ulps.
	if math.Abs(ab-ba) > 1e-15 || ab <= 0 || ab >= 1 {
		t.Fatalf("overlap not symmetric or out of (0,1): %g vs %g", ab, ba)
	}
	// Bad input.
	if _, err := Overlap(a, randomOrthonormal(t, rng, 40, 5)); err == nil {
		t.Fatal("different k accepted")
	}
	if _, err := Overlap(a, randomOrthonormal(t, rng, 41, 6)); err == nil {
		t.Fatal("different d accepted")
	}
	var scaled mat.Dense
	scaled.Scale(2, a)
	if _, err := Overlap(a, &scaled); err == nil {
		t.Fatal("non-orthonormal basis accepted")
	}
	if _, err := Overlap(nil, a); err == nil {
		t.Fatal("nil basis accepted")
	}
}

// refineData builds zones whose centroids all lie in span(e2, e3) while the
// largest variance is a within-zone spread along e1. PCA with k = 2 picks
// e1 and e2, where zones 0 and 1 coincide (cosine distance 0); the best
// 2-plane is span(e2, e3).
func refineData(rng *rand.Rand) (*mat.Dense, []int) {
	const d, perZone = 12, 40
	offsets := [][2]float64{{1, 0.9}, {1, -0.9}, {-2, 0}}
	h := mat.NewDense(3*perZone, d, nil)
	zone := make([]int, 0, 3*perZone)
	for z, off := range offsets {
		for r := 0; r < perZone; r++ {
			row := z*perZone + r
			spread := 10.0
			if r%2 == 1 {
				spread = -10 // symmetric, so zone means have no e1 part
			}
			h.Set(row, 0, spread)
			h.Set(row, 1, off[0])
			h.Set(row, 2, off[1])
			for i := 3; i < d; i++ {
				h.Set(row, i, 0.01*rng.NormFloat64())
			}
			zone = append(zone, z)
		}
	}
	return h, zone
}

func TestRefineIncreasesSeparation(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	h, zone := refineData(rng)
	b, err := Fit(h, 2)
	if err != nil {
		t.Fatal(err)
	}
	sep0, err := Separation(b, h, zone, 3)
	if err != nil {
		t.Fatal(err)
	}
	before, after, err := Refine(b, h, zone, 3, RefineOptions{Steps: 300, StepSize: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	if before != sep0 {
		t.Fatalf("before %g, Separation %g", before, sep0)
	}
	// Units (1, ±0.9)/|·| and (−1, 0) give 1.5 − |Σu|²/6 ≈ 1.4607.
	const optimum = 1.4607
	if math.Abs(before-4.0/3) > 1e-3 {
		t.Fatalf("PCA objective %.4f, want ≈ 4/3 (fixture broken)", before)
	}
	if after < before+0.1 || math.Abs(after-optimum) > 5e-3 {
		t.Fatalf("refine %.4f → %.4f, want ≈ %.4f", before, after, optimum)
	}
	if e := OrthonormalityError(b.B); e >= 1e-9 {
		t.Fatalf("‖BᵀB−I‖ = %g after refine", e)
	}
	if sep, _ := Separation(b, h, zone, 3); sep != after {
		t.Fatalf("Separation after %g, Refine said %g", sep, after)
	}
	e23 := mat.NewDense(12, 2, nil)
	e23.Set(1, 0, 1)
	e23.Set(2, 1, 1)
	if ov, _ := Overlap(b.B, e23); ov < 0.99 {
		t.Fatalf("refined basis overlap with span(e2,e3) %.4f", ov)
	}
}

func TestRefineGradientMatchesFiniteDifferences(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const z, d, k = 4, 7, 3
	m := mat.NewDense(z, d, nil)
	for i := 0; i < z; i++ {
		for j := 0; j < d; j++ {
			m.Set(i, j, rng.NormFloat64())
		}
	}
	b := randomOrthonormal(t, rng, d, k)
	_, g := objective(m, b, true)
	const step = 1e-6
	for i := 0; i < d; i++ {
		for j := 0; j < k; j++ {
			p, q := mat.DenseCopyOf(b), mat.DenseCopyOf(b)
			p.Set(i, j, p.At(i, j)+step)
			q.Set(i, j, q.At(i, j)-step)
			fp, _ := objective(m, p, false)
			fq, _ := objective(m, q, false)
			num := (fp - fq) / (2 * step)
			if math.Abs(num-g.At(i, j)) > 1e-6 {
				t.Fatalf("∂f/∂B[%d,%d]: analytic %g, numeric %g", i, j, g.At(i, j), num)
			}
		}
	}
}

func TestCentroids(t *testing.T) {
	h := mat.NewDense(4, 3, []float64{
		1, 0, 0,
		3, 0, 0,
		0, 2, 0,
		0, 4, 0,
	})
	b := &Basis{D: 3, K: 2, Mu: []float64{1, 1, 0}, B: mat.NewDense(3, 2, []float64{1, 0, 0, 1, 0, 0})}
	c, err := Centroids(b, h, []int{0, 0, 1, 1}, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := mat.NewDense(2, 2, []float64{1, -1, -1, 2})
	if !mat.Equal(c, want) {
		t.Fatalf("centroids %v, want %v", mat.Formatted(c), mat.Formatted(want))
	}
	if _, err := Centroids(b, h, []int{0, 0, 0, 0}, 2); err == nil {
		t.Fatal("empty zone accepted")
	}
	if _, err := Centroids(b, h, []int{0, 0, 2, 1}, 2); err == nil {
		t.Fatal("zone label out of range accepted")
	}
	if _, err := Centroids(b, h, []int{0, 1}, 2); err == nil {
		t.Fatal("label count mismatch accepted")
	}
}

func TestBadShapes(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	h := plantedStates(rng, randomOrthonormal(t, rng, 8, 2), make([]float64, 8), 5, []float64{1, 1}, 0.5)
	for _, k := range []int{0, -1, 5, 9} { // N−1 = 4 is the ceiling here
		if _, err := Fit(h, k); err == nil {
			t.Errorf("Fit k=%d accepted", k)
		}
	}
	if _, err := Fit(h, 4); err != nil {
		t.Errorf("Fit k=N−1: %v", err)
	}
	if _, err := Fit(nil, 1); err == nil {
		t.Error("nil H accepted")
	}
	if _, err := Fit(mat.NewDense(1, 8, nil), 1); err == nil {
		t.Error("single state accepted")
	}
	dup := mat.NewDense(6, 4, nil)
	for i := 0; i < 6; i++ {
		dup.SetRow(i, []float64{1, 2, 3, float64(i % 2)}) // rank 1 after centring
	}
	if _, err := Fit(dup, 2); err == nil {
		t.Error("rank-deficient states accepted for k=2")
	}
	if _, err := Fit(dup, 1); err != nil {
		t.Errorf("rank-1 states, k=1: %v", err)
	}
	nan := mat.DenseCopyOf(h)
	nan.Set(2, 3, math.NaN())
	if _, err := Fit(nan, 1); err == nil {
		t.Error("NaN accepted")
	}
	b, err := Fit(h, 2)
	if err != nil {
		t.Fatal(err)
	}
	wide := mat.NewDense(5, 9, nil)
	if _, err := Centroids(b, wide, []int{0, 0, 1, 1, 1}, 2); err == nil {
		t.Error("Centroids with wrong width accepted")
	}
	zone := []int{0, 0, 1, 1, 1}
	if _, _, err := Refine(b, h, zone, 1, RefineOptions{}); err == nil {
		t.Error("Refine with one zone accepted")
	}
	if _, _, err := Refine(b, h, zone, 2, RefineOptions{Steps: -1}); err == nil {
		t.Error("negative steps accepted")
	}
	if _, _, err := Refine(b, wide, zone, 2, RefineOptions{}); err == nil {
		t.Error("Refine with wrong width accepted")
	}
	bad := &Basis{D: 8, K: 2, Mu: make([]float64, 7), B: b.B}
	if _, err := bad.Coords(make([]float64, 8), nil); err == nil {
		t.Error("basis with short μ accepted")
	}
	var nb *Basis
	if _, err := nb.Coords(nil, nil); err == nil {
		t.Error("nil basis accepted")
	}
	if _, err := OrthColumns(b.B, []int{0, 0}); err == nil {
		t.Error("repeated coordinate accepted")
	}
	if _, err := OrthColumns(b.B, []int{2}); err == nil {
		t.Error("out-of-range coordinate accepted")
	}
	if _, err := OrthColumns(b.B, nil); err == nil {
		t.Error("no coordinates accepted")
	}
	if _, err := Orthonormalize(mat.NewDense(3, 2, []float64{1, 2, 2, 4, 3, 6})); err == nil {
		t.Error("dependent columns accepted")
	}
}

func TestOrthColumnsOfOrthonormalBasis(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	b := randomOrthonormal(t, rng, 16, 5)
	q, err := OrthColumns(b, []int{3, 1})
	if err != nil {
		t.Fatal(err)
	}
	// Columns already orthonormal with positive R diagonal: Q = B[:, F].
	for i := 0; i < 16; i++ {
		if math.Abs(q.At(i, 0)-b.At(i, 3)) > 1e-14 || math.Abs(q.At(i, 1)-b.At(i, 1)) > 1e-14 {
			t.Fatalf("row %d: Q differs from B[:, {3,1}]", i)
		}
	}
}

// BenchmarkCoords is the per-token UGT embedding at a 576-wide model with a
// 64-dimensional basis.
func BenchmarkCoords(bm *testing.B) {
	rng := rand.New(rand.NewPCG(17, 18))
	const d, k = 576, 64
	b := &Basis{D: d, K: k, Mu: make([]float64, d), B: randomOrthonormal(bm, rng, d, k)}
	h := make([]float64, d)
	for i := range h {
		h[i] = rng.NormFloat64()
	}
	dst := make([]float64, k)
	bm.ReportAllocs()
	for bm.Loop() {
		if _, err := b.Coords(h, dst); err != nil {
			bm.Fatal(err)
		}
	}
}
