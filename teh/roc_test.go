package teh

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestTPRAtFPR: the threshold and detection rate at a false-positive
// budget, against hand-worked cases.
func TestTPRAtFPR(t *testing.T) {
	seq := func(n int) []float64 { // 1, 2, …, n
		out := make([]float64, n)
		for i := range out {
			out[i] = float64(i + 1)
		}
		return out
	}
	// 197 distinct benign scores and three tied at the top: 200 in all.
	tiedTop := append(seq(197), 500, 500, 500)
	nan := math.NaN()
	for _, c := range []struct {
		name          string
		harm, benign  []float64
		fpr           float64
		wantT, wantTP float64
		maxFP, fp, tp int
	}{
		{name: "separated", harm: []float64{3, 4}, benign: []float64{1, 2}, fpr: 0.01, wantT: 2, wantTP: 1, tp: 2},
		{name: "harm tied at the threshold is missed", harm: []float64{2, 2, 3}, benign: []float64{1, 2}, fpr: 0.01, wantT: 2, wantTP: 1.0 / 3, tp: 1},
		{name: "all equal", harm: []float64{5, 5}, benign: []float64{5, 5, 5}, fpr: 0.01, wantT: 5, wantTP: 0},
		{name: "under 100 benign allows none", harm: []float64{98.5, 99.5, 10}, benign: seq(99), fpr: 0.01, wantT: 99, wantTP: 1.0 / 3, tp: 1},
		{name: "100 benign allow one", harm: []float64{98.5, 99.5, 10}, benign: seq(100), fpr: 0.01, wantT: 99, wantTP: 1.0 / 3, maxFP: 1, fp: 1, tp: 1},
		{name: "200 benign allow two", harm: []float64{199, 198.5, 150}, benign: seq(200), fpr: 0.01, wantT: 198, wantTP: 2.0 / 3, maxFP: 2, fp: 2, tp: 2},
		// k = 2 but the top three benign tie: any threshold below 500
		// flags three, so the cutoff is 500 and no benign score is over.
		{name: "benign tied across the budget", harm: []float64{500, 501}, benign: tiedTop, fpr: 0.01, wantT: 500, wantTP: 0.5, maxFP: 2, tp: 1},
		{name: "no budget", harm: []float64{2, 3}, benign: []float64{1, 2, 2}, fpr: 0, wantT: 2, wantTP: 0.5, tp: 1},
		{name: "all budget", harm: []float64{-1, 0}, benign: []float64{1, 2}, fpr: 1, wantT: math.Inf(-1), wantTP: 1, maxFP: 2, fp: 2, tp: 2},
		{name: "0.29·100 is 29", harm: []float64{72}, benign: seq(100), fpr: 0.29, wantT: 71, wantTP: 1, maxFP: 29, fp: 29, tp: 1},
		{name: "NaN left out", harm: []float64{nan, 3}, benign: []float64{1, nan}, fpr: 0.01, wantT: 1, wantTP: 1, tp: 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := TPRAtFPR(c.harm, c.benign, c.fpr)
			if err != nil {
				t.Fatal(err)
			}
			if p.Threshold != c.wantT || math.Abs(p.TPR-c.wantTP) > 1e-12 || p.MaxFP != c.maxFP || p.FP != c.fp || p.TP != c.tp {
				t.Errorf("got threshold %g TPR %g maxFP %d FP %d TP %d, want %g %g %d %d %d",
					p.Threshold, p.TPR, p.MaxFP, p.FP, p.TP, c.wantT, c.wantTP, c.maxFP, c.fp, c.tp)
			}
		})
	}
}

// TestTPRAtFPRErrors: empty sides and a budget outside [0, 1] are errors.
func TestTPRAtFPRErrors(t *testing.T) {
	one := []float64{1}
	for _, c := range []struct {
		name         string
		harm, benign []float64
		fpr          float64
	}{
		{"no harm", nil, one, 0.01},
		{"no benign", one, nil, 0.01},
		{"both empty", nil, nil, 0.01},
		{"harm all NaN", []float64{math.NaN()}, one, 0.01},
		{"benign all NaN", one, []float64{math.NaN(), math.NaN()}, 0.01},
		{"negative fpr", one, one, -0.01},
		{"fpr over 1", one, one, 1.5},
		{"NaN fpr", one, one, math.NaN()},
	} {
		if p, err := TPRAtFPR(c.harm, c.benign, c.fpr); err == nil {
			t.Errorf("%s: no error (%+v)", c.name, p)
		}
	}
}

// TestTPRAtFPRSweep: on random scores, with and without ties, the figure
// is what a brute-force sweep over every candidate threshold finds: the
// lowest cutoff (scores flag strictly above it) with at most ⌊fpr·N⌋
// benign scores over it.
func TestTPRAtFPRSweep(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 500 {
		np, nn := 1+rng.IntN(60), 1+rng.IntN(300)
		draw := func(n int, shift float64) []float64 {
			out := make([]float64, n)
			for i := range out {
				out[i] = rng.NormFloat64() + shift
				if trial%2 == 0 { // coarse scores: many ties
					out[i] = math.Round(2 * out[i])
				}
			}
			return out
		}
		harm, benign := draw(np, 1), draw(nn, 0)
		pct := []int{0, 1, 5, 10, 50, 100}[rng.IntN(6)]
		got, err := TPRAtFPR(harm, benign, float64(pct)/100)
		if err != nil {
			t.Fatal(err)
		}
		k := pct * nn / 100 // ⌊pct·N/100⌋ in integers
		over := func(xs []float64, th float64) int {
			n := 0
			for _, x := range xs {
				if x > th {
					n++
				}
			}
			return n
		}
		best := math.Inf(1)
		for _, th := range append(append([]float64{math.Inf(-1)}, harm...), benign...) {
			if over(benign, th) <= k && th < best {
				best = th
			}
		}
		want := float64(over(harm, best)) / float64(np)
		if got.Threshold != best || got.TPR != want || got.MaxFP != k || got.FP != over(benign, best) {
			t.Fatalf("trial %d (%d harm, %d benign, %d %%): got threshold %g TPR %g maxFP %d FP %d, the sweep %g %g %d %d",
				trial, np, nn, pct, got.Threshold, got.TPR, got.MaxFP, got.FP, best, want, k, over(benign, best))
		}
	}
}
