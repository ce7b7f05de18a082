package teh

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/isagi-lab/isagi/internal/testkit/geomtest"
)

// state returns μ + Σ_j c_j B[:, j].
func state(b *mat.Dense, mu []float64, c map[int]float64) []float64 {
	h := append([]float64(nil), mu...)
	for j, w := range c {
		for i := range h {
			h[i] += w * b.At(i, j)
		}
	}
	return h
}

func TestScoreGeometry(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const d, k = 48, 10
	b := geomtest.RandomBasis(t, rng, d, k)
	mu := geomtest.RandomVec(rng, d, 3)
	s, err := NewSubspace(b, mu, []int{2, 7})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		c    map[int]float64
		want float64
	}{
		{"inside", map[int]float64{2: 3, 7: -1.5}, 100},
		{"orthogonal", map[int]float64{0: 2, 5: 1}, 0},
		{"45 degrees", map[int]float64{7: 1, 4: 1}, 100 / math.Sqrt2},
		{"3-4-5", map[int]float64{2: 3, 9: 4}, 60},
	}
	for _, c := range cases {
		got := s.Score(state(b, mu, c.c))
		if math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: TEH %.12f, want %.12f", c.name, got, c.want)
		}
	}
	// A direction outside the basis altogether is also orthogonal to Q.
	out := geomtest.RandomVec(rng, d, 1)
	var bt mat.VecDense
	bt.MulVec(b.T(), mat.NewVecDense(d, out))
	var back mat.VecDense
	back.MulVec(b, &bt)
	h := append([]float64(nil), mu...)
	for i := range h {
		h[i] += out[i] - back.AtVec(i)
	}
	if got := s.Score(h); got > 1e-9 {
		t.Errorf("outside the basis: TEH %g, want 0", got)
	}
	if got := s.Score(mu); got != 0 {
		t.Errorf("h = μ: TEH %g, want 0", got)
	}
	// Scale invariance: TEH measures direction, not length.
	h1 := state(b, mu, map[int]float64{2: 1, 3: 2})
	h2 := state(b, mu, map[int]float64{2: 10, 3: 20})
	if a, c := s.Score(h1), s.Score(h2); math.Abs(a-c) > 1e-9 {
		t.Errorf("TEH depends on length: %g vs %g", a, c)
	}
	// float32 path agrees to float32 precision.
	h32 := make([]float32, d)
	for i, v := range h1 {
		h32[i] = float32(v)
	}
	if a, c := s.Score(h1), s.ScoreF32(h32); math.Abs(a-c) > 1e-3 {
		t.Errorf("ScoreF32 %g vs Score %g", c, a)
	}
}

func TestScoreBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	b := geomtest.RandomBasis(t, rng, 12, 4)
	mu := make([]float64, 12)
	s, err := NewSubspace(b, mu, []int{1})
	if err != nil {
		t.Fatal(err)
	}
	if v := s.Score(make([]float64, 11)); !math.IsNaN(v) {
		t.Errorf("short state scored %g, want NaN", v)
	}
	if _, err := s.ScoreChecked(make([]float64, 13)); err == nil {
		t.Error("long state accepted")
	}
	nan := make([]float64, 12)
	nan[3] = math.NaN()
	if _, err := s.ScoreChecked(nan); err == nil {
		t.Error("NaN state accepted")
	}
	if _, err := s.ScoreAll([][]float64{make([]float64, 12), make([]float64, 2)}); err == nil {
		t.Error("ScoreAll with a bad state accepted")
	}
	var nilS *Subspace
	if v := nilS.Score(mu); !math.IsNaN(v) {
		t.Errorf("nil subspace scored %g", v)
	}
	if _, err := NewSubspace(b, mu[:5], []int{0}); err == nil {
		t.Error("short mean accepted")
	}
	if _, err := NewSubspace(b, mu, []int{4}); err == nil {
		t.Error("coordinate out of range accepted")
	}
	if _, err := NewSubspace(b, mu, []int{1, 1}); err == nil {
		t.Error("repeated coordinate accepted")
	}
	if _, err := NewSubspace(b, mu, nil); err == nil {
		t.Error("empty coordinate set accepted")
	}
	if _, err := NewSubspace(nil, mu, []int{0}); err == nil {
		t.Error("nil basis accepted")
	}
}

func TestCalibrateSeparable(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var harm, benign []float64
	for i := 0; i < 40; i++ {
		benign = append(benign, 2+8*rng.Float64())  // 2…10 %
		harm = append(harm, 20.05+20*rng.Float64()) // 20.05…40.05 %
	}
	benign = append(benign, 10.03) // highest benign: τ = 10.0 would flag it
	harm = append(harm, 20.05)     // lowest harm: τ = 20.1 would miss it
	r, err := Calibrate(harm, benign)
	if err != nil {
		t.Fatal(err)
	}
	if r.TPR != 1 || r.FPR != 0 || r.F1 != 1 || r.FP != 0 || r.FN != 0 {
		t.Fatalf("separable data: %+v", r)
	}
	// Zero-FP, F1 = 1 from τ = 10.1 to τ = 20.0: the middle is 15.0.
	if r.Tau != 15 {
		t.Fatalf("τ = %g, want 15 (middle of the gap 10.1…20.0)", r.Tau)
	}
	if r.TP != len(harm) || r.TN != len(benign) {
		t.Fatalf("counts %+v", r)
	}
}

func TestCalibrateOverlapping(t *testing.T) {
	// Benign up to 12.34; harm spread across it. Zero FP needs τ ≥ 12.4,
	// which keeps the 4 harm scores ≥ 12.4 (F1 = 8/(8+0+3) for 7 harm).
	harm := []float64{5, 9, 12.2, 12.4, 13, 30, 45}
	benign := []float64{1, 2, 3, 6, 12.34}
	r, err := Calibrate(harm, benign)
	if err != nil {
		t.Fatal(err)
	}
	if r.FP != 0 || r.TP != 4 || r.FN != 3 || r.TN != 5 {
		t.Fatalf("counts %+v", r)
	}
	if want := 8.0 / 11; math.Abs(r.F1-want) > 1e-15 || math.Abs(r.TPR-4.0/7) > 1e-15 {
		t.Fatalf("F1 %g TPR %g", r.F1, r.TPR)
	}
	if r.Tau != 12.4 {
		t.Fatalf("τ = %g, want 12.4 (the only τ keeping 4 harm with no FP)", r.Tau)
	}
	// No zero-FP threshold does better: brute-force check over the sweep.
	pts, _ := Sweep(harm, benign)
	for _, p := range pts {
		if p.FP == 0 && p.F1 > r.F1 {
			t.Fatalf("τ = %g has zero FP and F1 %g > %g", p.Tau, p.F1, r.F1)
		}
	}
}

func TestCalibrateFallback(t *testing.T) {
	// A benign score of 60 % is flagged at every τ ≤ 50: no zero-FP point.
	harm := []float64{20, 30, 40}
	benign := []float64{10, 25, 60, 70}
	r, err := Calibrate(harm, benign)
	if err != nil {
		t.Fatal(err)
	}
	// Lowest FPR is 2/4, reached for τ > 25; best F1 there is at τ = 25.1
	// (TP = 2: 30, 40) → F1 = 4/(4+2+1).
	if r.FP != 2 || r.TP != 2 || math.Abs(r.Tau-25.1) > 1e-12 {
		t.Fatalf("fallback picked %+v, want τ 25.1 with TP 2 FP 2", r)
	}
	if math.Abs(r.F1-4.0/7) > 1e-15 || r.FPR != 0.5 {
		t.Fatalf("fallback F1 %g FPR %g", r.F1, r.FPR)
	}
}

func TestCalibrateNoCatch(t *testing.T) {
	// Every harm score is below the top benign one: zero FP catches no harm,
	// and the lowest such τ is returned.
	r, err := Calibrate([]float64{1, 2}, []float64{0.5, 3})
	if err != nil {
		t.Fatal(err)
	}
	if r.Tau != 3.1 || r.TP != 0 || r.FP != 0 {
		t.Fatalf("%+v, want τ 3.1 with nothing flagged", r)
	}
}

func TestCalibrateBadInput(t *testing.T) {
	if _, err := Calibrate(nil, []float64{1}); err == nil {
		t.Error("no harm scores accepted")
	}
	if _, err := Calibrate([]float64{1}, nil); err == nil {
		t.Error("no benign scores accepted")
	}
	if _, err := Calibrate([]float64{math.NaN()}, []float64{1}); err == nil {
		t.Error("NaN accepted")
	}
}

func TestEvaluate(t *testing.T) {
	r := Evaluate(10, []float64{10, 9.99, 30, math.NaN()}, []float64{10, 1, 2})
	if r.TP != 2 || r.FN != 2 || r.FP != 1 || r.TN != 2 {
		t.Fatalf("%+v (score ≥ τ is flagged; NaN never)", r)
	}
	if r.TPR != 0.5 || math.Abs(r.FPR-1.0/3) > 1e-15 || math.Abs(r.F1-4.0/7) > 1e-15 {
		t.Fatalf("rates %+v", r)
	}
	if z := Evaluate(5, nil, nil); z.TPR != 0 || z.FPR != 0 || z.F1 != 0 {
		t.Fatalf("empty sets %+v", z)
	}
	pts, err := Sweep([]float64{1}, []float64{0})
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != NumThresholds || pts[0].Tau != 0 || pts[NumThresholds-1].Tau != TauMax || pts[123].Tau != 12.3 {
		t.Fatalf("sweep grid wrong: %d points, ends %g %g", len(pts), pts[0].Tau, pts[len(pts)-1].Tau)
	}
}

// BenchmarkScore is the per-token gauge at a 576-wide model with 20
// forbidden coordinates.
func BenchmarkScore(bm *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	const d, k, m = 576, 64, 20
	b := geomtest.RandomBasis(bm, rng, d, k)
	coords := make([]int, m)
	for i := range coords {
		coords[i] = 3 * i
	}
	s, err := NewSubspace(b, geomtest.RandomVec(rng, d, 1), coords)
	if err != nil {
		bm.Fatal(err)
	}
	h := geomtest.RandomVec(rng, d, 1)
	bm.ReportAllocs()
	var sink float64
	for bm.Loop() {
		sink += s.Score(h)
	}
	if math.IsNaN(sink) {
		bm.Fatal("NaN score")
	}
}

// TestAUROC: the Mann–Whitney area against hand-counted pairs.
func TestAUROC(t *testing.T) {
	for _, c := range []struct {
		harm, benign []float64
		want         float64
	}{
		{[]float64{3, 4}, []float64{1, 2}, 1},
		{[]float64{1, 2}, []float64{3, 4}, 0},
		// pairs: (2,1) win, (2,2) tie, (2,3) loss, (5,·) 3 wins: (1+0.5+0+3)/6
		{[]float64{2, 5}, []float64{1, 2, 3}, 4.5 / 6},
		{[]float64{1, 1}, []float64{1}, 0.5},
		{[]float64{math.NaN(), 4}, []float64{1, math.NaN()}, 1},
	} {
		if got := AUROC(c.harm, c.benign); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("AUROC(%v, %v) = %g, want %g", c.harm, c.benign, got, c.want)
		}
	}
	if !math.IsNaN(AUROC(nil, []float64{1})) {
		t.Error("AUROC with no positives is not NaN")
	}
}
