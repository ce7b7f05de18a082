package snipe

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/isagi-lab/isagi/internal/testkit/geomtest"
	"github.com/isagi-lab/isagi/ugt"
)

// plantedCategory draws n harm and n benign states μ + B z + noise, where z
// is standard normal except that coordinate decoy has a large spread in
// both sets and harm adds shift to coordinate planted.
func plantedCategory(rng *rand.Rand, b *mat.Dense, mu []float64, n, planted, decoy int, shift float64) (harm, benign [][]float64) {
	d, k := b.Dims()
	draw := func(extra float64) []float64 {
		z := geomtest.RandomVec(rng, k, 1)
		z[decoy] *= 5
		z[planted] += extra
		h := geomtest.RandomVec(rng, d, 0.05)
		for i := range h {
			h[i] += mu[i]
			for j, v := range z {
				h[i] += b.At(i, j) * v
			}
		}
		return h
	}
	for i := 0; i < n; i++ {
		harm = append(harm, draw(shift))
		benign = append(benign, draw(0))
	}
	return harm, benign
}

func TestPlantedCoordinateRankedAndSelected(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const d, k, planted, decoy = 40, 10, 6, 2
	b := geomtest.RandomBasis(t, rng, d, k)
	mu := geomtest.RandomVec(rng, d, 4)
	harm, benign := plantedCategory(rng, b, mu, 200, planted, decoy, 3)
	basis := &ugt.Basis{D: d, K: k, Mu: mu, B: b}
	zh, err := basis.CoordsRows(harm)
	if err != nil {
		t.Fatal(err)
	}
	zb, err := basis.CoordsRows(benign)
	if err != nil {
		t.Fatal(err)
	}
	scores, err := Scores(zh, zb)
	if err != nil {
		t.Fatal(err)
	}
	order := Order(scores)
	if order[0] != planted {
		t.Fatalf("order %v (scores %v), want coordinate %d first", order, scores, planted)
	}
	// The decoy carries 25× the variance of the planted coordinate in both
	// sets; variance alone must not win.
	if scores[decoy] > scores[planted]/10 {
		t.Fatalf("decoy score %g vs planted %g", scores[decoy], scores[planted])
	}

	dir, err := Direction(harm, benign)
	if err != nil {
		t.Fatal(err)
	}
	before, err := MeanProbeScore(dir, mu, harm)
	if err != nil {
		t.Fatal(err)
	}
	// eval measures for real: reduction of the probe score on harm, and as
	// collateral the share of the benign states' centred energy removed.
	eval := func(coords []int) (float64, float64, error) {
		p, err := NewProjector(b, mu, coords)
		if err != nil {
			return 0, 0, err
		}
		var hs [][]float64
		for _, h := range harm {
			h = slices.Clone(h)
			p.Apply(h)
			hs = append(hs, h)
		}
		after, err := MeanProbeScore(dir, mu, hs)
		if err != nil {
			return 0, 0, err
		}
		red, err := Reduction(before, after)
		if err != nil {
			return 0, 0, err
		}
		var removed, total float64
		for _, h := range benign {
			g := slices.Clone(h)
			p.Apply(g)
			for i := range h {
				removed += (h[i] - g[i]) * (h[i] - g[i])
				total += (h[i] - mu[i]) * (h[i] - mu[i])
			}
		}
		return red, removed / total, nil
	}
	sel, err := Select(order, eval, 0.045, 20)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sel.Coords, []int{planted}) || sel.StoppedBy != StopBudget || len(sel.Steps) != 2 {
		t.Fatalf("selection %+v, want [%d] stopped by budget after 2 steps", sel, planted)
	}
	if sel.Reduction < 0.9 {
		t.Fatalf("reduction %.3f after removing the planted coordinate", sel.Reduction)
	}
	if sel.Collateral > 0.045 || sel.Steps[1].Collateral <= 0.045 {
		t.Fatalf("collateral kept %.4f, breaking step %.4f", sel.Collateral, sel.Steps[1].Collateral)
	}
}

func TestScoresKnownValues(t *testing.T) {
	zh := [][]float64{{2, 1, 0}, {4, -1, 0}}
	zb := [][]float64{{1, 1, 0}, {1, 1, 0}}
	s, err := Scores(zh, zb)
	if err != nil {
		t.Fatal(err)
	}
	// i=0: d=|3−1|=2, ROI=3/1 → 6. i=1: d=|0−1|=1, ROI=1/1 → 1. i=2: 0.
	want := []float64{6, 1, 0}
	for i := range want {
		if math.Abs(s[i]-want[i]) > 1e-8 {
			t.Fatalf("scores %v, want %v", s, want)
		}
	}
	if _, err := Scores(zh, nil); err == nil {
		t.Error("no benign rows accepted")
	}
	if _, err := Scores([][]float64{{1, 2}, {1}}, zb); err == nil {
		t.Error("ragged rows accepted")
	}
	if _, err := Scores(zh, [][]float64{{1, 2}}); err == nil {
		t.Error("harm and benign of different widths accepted")
	}
	if _, err := Scores([][]float64{{math.NaN(), 1, 1}}, zb); err == nil {
		t.Error("NaN accepted")
	}
	if _, err := Scores([][]float64{{}}, zb); err == nil {
		t.Error("empty rows accepted")
	}
}

func TestOrder(t *testing.T) {
	got := Order([]float64{1, 3, math.NaN(), 3, 0, 2})
	if want := []int{1, 3, 5, 0, 4, 2}; !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v (ties by index, NaN last)", got, want)
	}
	if len(Order(nil)) != 0 {
		t.Fatal("order of nothing")
	}
}

func TestDirection(t *testing.T) {
	dir, err := Direction([][]float64{{3, 4, 1}, {3, 4, 3}}, [][]float64{{0, 0, 2}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{0.6, 0.8, 0}; math.Abs(dir[0]-want[0]) > 1e-15 || math.Abs(dir[1]-want[1]) > 1e-15 || dir[2] != 0 {
		t.Fatalf("direction %v, want %v", dir, want)
	}
	if _, err := Direction([][]float64{{1, 1}}, [][]float64{{1, 1}}); err == nil {
		t.Error("coinciding means accepted")
	}
	if _, err := Direction([][]float64{{1, 1}}, [][]float64{{1}}); err == nil {
		t.Error("width mismatch accepted")
	}
	if _, err := Direction(nil, [][]float64{{1}}); err == nil {
		t.Error("no harm states accepted")
	}
	if v := ProbeScore([]float64{0.6, 0.8}, []float64{1, 1}, []float64{2, 3}); math.Abs(v-2.2) > 1e-15 {
		t.Errorf("probe score %g, want 2.2", v)
	}
	if v := ProbeScore([]float64{1}, []float64{0, 0}, []float64{1, 1}); !math.IsNaN(v) {
		t.Errorf("mismatched probe score %g, want NaN", v)
	}
	if _, err := MeanProbeScore([]float64{1}, []float64{0}, [][]float64{{1, 2}}); err == nil {
		t.Error("mismatched mean probe score accepted")
	}
	if r, err := Reduction(4, 1); err != nil || r != 0.75 {
		t.Errorf("reduction %g %v, want 0.75", r, err)
	}
	// The signed score rising from −4 to −1 is a rise, not a drop.
	if r, err := Reduction(-4, -1); err != nil || r != -0.75 {
		t.Errorf("reduction %g %v, want −0.75", r, err)
	}
	if _, err := Reduction(0, 1); err == nil {
		t.Error("reduction from 0 accepted")
	}
	if c, err := Collateral(2, 2.04); err != nil || math.Abs(c-0.02) > 1e-15 {
		t.Errorf("collateral %g %v, want 0.02", c, err)
	}
	if _, err := Collateral(0, 1); err == nil {
		t.Error("collateral from 0 accepted")
	}
}

func TestProjector(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const d, k = 50, 12
	b := geomtest.RandomBasis(t, rng, d, k)
	mu := geomtest.RandomVec(rng, d, 5)
	coords := []int{4, 0, 9}
	p, err := NewProjector(b, mu, coords)
	if err != nil {
		t.Fatal(err)
	}
	qtr := func(h []float64) float64 {
		var worst float64
		for j := 0; j < p.Q.RawMatrix().Cols; j++ {
			var s float64
			for i := range h {
				s += p.Q.At(i, j) * (h[i] - mu[i])
			}
			worst = max(worst, math.Abs(s))
		}
		return worst
	}
	for trial := 0; trial < 20; trial++ {
		h := geomtest.RandomVec(rng, d, 3)
		if qtr(h) < 0.1 {
			t.Fatal("fixture: state already orthogonal")
		}
		once := slices.Clone(h)
		p.Apply(once)
		if e := qtr(once); e > 1e-12 {
			t.Fatalf("Qᵀ(h−μ) = %g after Apply", e)
		}
		twice := slices.Clone(once)
		p.Apply(twice)
		for i := range once {
			if math.Abs(twice[i]-once[i]) > 1e-12 {
				t.Fatalf("not idempotent at %d: %g vs %g", i, once[i], twice[i])
			}
		}
		// Only the forbidden part moves: the removed vector lies in span(Q).
		delta := make([]float64, d)
		for i := range h {
			delta[i] = h[i] - once[i] + mu[i]
		}
		pd := slices.Clone(delta)
		p.Apply(pd) // removes the span(Q) part of delta about μ
		for i := range pd {
			if math.Abs(pd[i]-mu[i]) > 1e-12 {
				t.Fatalf("removed vector leaves span(Q) at %d", i)
			}
		}
		h32 := make([]float32, d)
		for i, v := range h {
			h32[i] = float32(v)
		}
		p.ApplyF32(h32)
		for i := range h32 {
			if math.Abs(float64(h32[i])-once[i]) > 1e-4 {
				t.Fatalf("ApplyF32 differs at %d: %g vs %g", i, h32[i], once[i])
			}
		}
	}
	// A state orthogonal to span(B[:, coords]) about μ is left alone.
	h := slices.Clone(mu)
	for i := range h {
		h[i] += 2*b.At(i, 1) - b.At(i, 7)
	}
	g := slices.Clone(h)
	p.Apply(g)
	for i := range g {
		if math.Abs(g[i]-h[i]) > 1e-12 {
			t.Fatalf("orthogonal state moved at %d", i)
		}
	}
}

func TestProjectorBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	b := geomtest.RandomBasis(t, rng, 10, 4)
	mu := make([]float64, 10)
	p, err := NewProjector(b, mu, []int{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	short := []float64{1, 2, 3}
	p.Apply(short) // must not panic
	if !slices.Equal(short, []float64{1, 2, 3}) {
		t.Fatal("Apply changed a state of the wrong length")
	}
	if err := p.ApplyChecked(short); err == nil {
		t.Fatal("ApplyChecked accepted a short state")
	}
	if err := p.Check(10); err != nil {
		t.Fatal(err)
	}
	var nilP *Projector
	nilP.Apply(short)
	if err := nilP.ApplyChecked(short); err == nil {
		t.Fatal("nil projector accepted")
	}
	for _, c := range [][]int{nil, {4}, {-1}, {0, 0}} {
		if _, err := NewProjector(b, mu, c); err == nil {
			t.Errorf("coords %v accepted", c)
		}
	}
	if _, err := NewProjector(b, mu[:9], []int{0}); err == nil {
		t.Error("short mean accepted")
	}
}

func TestSelectStopsAtBudget(t *testing.T) {
	var calls [][]int
	eval := func(c []int) (float64, float64, error) {
		calls = append(calls, c)
		return 0.2 * float64(len(c)), float64(len(c)) / 100, nil // +1 % per coordinate
	}
	sel, err := Select([]int{5, 3, 8, 1, 0, 2}, eval, 0.03, 20)
	if err != nil {
		t.Fatal(err)
	}
	// 3 coordinates give exactly 3 % (not over budget, kept); the 4th breaks it.
	if !slices.Equal(sel.Coords, []int{5, 3, 8}) || sel.StoppedBy != StopBudget {
		t.Fatalf("%+v", sel)
	}
	if len(sel.Steps) != 4 || !slices.Equal(sel.Steps[3].Coords, []int{5, 3, 8, 1}) || sel.Steps[3].Collateral != 0.04 {
		t.Fatalf("steps %+v, want the breaking step recorded", sel.Steps)
	}
	if math.Abs(sel.Reduction-0.6) > 1e-15 || sel.Collateral != 0.03 {
		t.Fatalf("kept reduction %g collateral %g", sel.Reduction, sel.Collateral)
	}
	if len(calls) != 4 || !slices.Equal(calls[1], []int{5, 3}) {
		t.Fatalf("eval calls %v", calls)
	}
	// The kept set does not alias what eval or the steps hold.
	calls[2][0] = 99
	sel.Coords[1] = 77
	if sel.Steps[2].Coords[0] != 5 || sel.Steps[2].Coords[1] != 3 {
		t.Fatal("selection shares memory with eval's argument or the kept set")
	}
	// Over budget at the first coordinate: nothing kept.
	sel, err = Select([]int{1, 2}, eval, 0.005, 20)
	if err != nil || len(sel.Coords) != 0 || len(sel.Steps) != 1 || sel.StoppedBy != StopBudget {
		t.Fatalf("%+v %v", sel, err)
	}
}

func TestSelectStopsAtMaxAndExhausted(t *testing.T) {
	free := func(c []int) (float64, float64, error) { return 0.1, 0, nil }
	order := []int{9, 8, 7, 6, 5, 4, 3, 2, 1, 0}
	sel, err := Select(order, free, 0.02, 4)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sel.Coords, []int{9, 8, 7, 6}) || sel.StoppedBy != StopMax || len(sel.Steps) != 4 {
		t.Fatalf("%+v", sel)
	}
	sel, err = Select(order[:3], free, 0.02, 20)
	if err != nil {
		t.Fatal(err)
	}
	if len(sel.Coords) != 3 || sel.StoppedBy != StopExhausted {
		t.Fatalf("%+v", sel)
	}
	sel, err = Select(nil, free, 0.02, 20)
	if err != nil || len(sel.Coords) != 0 || sel.StoppedBy != StopExhausted {
		t.Fatalf("%+v %v", sel, err)
	}
}

func TestSelectErrors(t *testing.T) {
	boom := errors.New("model crashed")
	n := 0
	eval := func(c []int) (float64, float64, error) {
		n++
		if n == 2 {
			return 0, 0, boom
		}
		return 0.1, 0, nil
	}
	if _, err := Select([]int{0, 1, 2}, eval, 0.02, 20); !errors.Is(err, boom) {
		t.Fatalf("eval error not propagated: %v", err)
	}
	nan := func(c []int) (float64, float64, error) { return 0.1, math.NaN(), nil }
	if _, err := Select([]int{0}, nan, 0.02, 20); err == nil {
		t.Error("NaN collateral accepted")
	}
	ok := func(c []int) (float64, float64, error) { return 0, 0, nil }
	if _, err := Select([]int{0}, nil, 0.02, 20); err == nil {
		t.Error("nil eval accepted")
	}
	if _, err := Select([]int{0}, ok, -0.01, 20); err == nil {
		t.Error("negative budget accepted")
	}
	if _, err := Select([]int{0}, ok, math.NaN(), 20); err == nil {
		t.Error("NaN budget accepted")
	}
	if _, err := Select([]int{0}, ok, 0.02, 0); err == nil {
		t.Error("maxCoords 0 accepted")
	}
	if _, err := Select([]int{0, 1, 0}, ok, 0.02, 20); err == nil {
		t.Error("repeated coordinate accepted")
	}
}

// BenchmarkApply is the per-token projector at a 576-wide model removing
// 20 coordinates.
func BenchmarkApply(bm *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	const d, k, m = 576, 64, 20
	b := geomtest.RandomBasis(bm, rng, d, k)
	coords := make([]int, m)
	for i := range coords {
		coords[i] = 3 * i
	}
	p, err := NewProjector(b, geomtest.RandomVec(rng, d, 1), coords)
	if err != nil {
		bm.Fatal(err)
	}
	h := geomtest.RandomVec(rng, d, 1)
	bm.ReportAllocs()
	for bm.Loop() {
		p.Apply(h)
	}
}
