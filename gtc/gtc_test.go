package gtc

import (
	"math"
	"math/rand/v2"
	"testing"
)

func randVec(r *rand.Rand, n int, scale float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = scale * (2*r.Float64() - 1)
	}
	return v
}

// fill makes a store of n random states in [-1, 1]^d with trajectories f(state).
func fill(t *testing.T, r *rand.Rand, n, d, td int, f func(s []float64) []float64) *Store {
	t.Helper()
	s, err := NewStore(d, td)
	if err != nil {
		t.Fatal(err)
	}
	for range n {
		x := randVec(r, d, 1)
		if err := s.Add(x, f(x)); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// On a linear map τ = A s + b the correction is exact (the seeds'
// "exactness in flat regions"), whatever the distance to the record; the
// uncorrected record is not.
func TestCorrectionExactOnLinearMap(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const d, td = 5, 7
	A := make([][]float64, td)
	for i := range A {
		A[i] = randVec(r, d, 1)
	}
	b := randVec(r, td, 3)
	f := func(s []float64) []float64 {
		out := make([]float64, td)
		for i := range out {
			out[i] = b[i]
			for j, v := range s {
				out[i] += A[i][j] * v
			}
		}
		return out
	}
	s := fill(t, r, 40, d, td, f)
	for _, clusters := range []int{0, 3} {
		c, err := Fit(s, Options{Rank: d, Neighbours: 6, Clusters: clusters})
		if err != nil {
			t.Fatal(err)
		}
		for range 20 {
			q := randVec(r, d, 2) // also outside the cloud
			p, err := c.Predict(q)
			if err != nil {
				t.Fatal(err)
			}
			want := f(q)
			if e := RelErr(p.Corrected, want); e > 1e-8 {
				t.Fatalf("clusters %d: corrected error %g on a linear map", clusters, e)
			}
			if e := RelErr(p.Plain, want); e < 1e-3 {
				t.Fatalf("clusters %d: the plain record is already exact (%g): the test shows nothing", clusters, e)
			}
		}
	}
}

// On a smooth nonlinear map the first-order correction cuts the error of
// the nearest record's trajectory well below the uncorrected one, and
// more so per cluster than globally.
func TestCorrectionReducesErrorOnSmoothMap(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	f := func(s []float64) []float64 {
		return []float64{math.Sin(s[0] + s[1]), math.Cos(s[2]) * s[0], math.Exp(0.5 * s[1]), s[0] * s[2], math.Tanh(2 * s[2]), 1}
	}
	s := fill(t, r, 400, 3, 6, f)
	queries := make([][]float64, 200)
	for i := range queries {
		queries[i] = randVec(r, 3, 1)
	}
	meanErr := func(o Options) (plain, corr float64) {
		c, err := Fit(s, o)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range queries {
			p, err := c.Predict(q)
			if err != nil {
				t.Fatal(err)
			}
			want := f(q)
			plain += RelErr(p.Plain, want) / float64(len(queries))
			corr += RelErr(p.Corrected, want) / float64(len(queries))
		}
		return plain, corr
	}
	plain, global := meanErr(Options{Rank: 3, Neighbours: 8, Ridge: 1e-3})
	_, local := meanErr(Options{Rank: 3, Neighbours: 8, Ridge: 1e-3, Clusters: 8})
	t.Logf("mean relative error: plain %.4f, global J %.4f, 8 clusters %.4f", plain, global, local)
	if !(global < 0.8*plain) {
		t.Errorf("global correction %.4f does not cut the plain error %.4f by a fifth", global, plain)
	}
	if !(local < 0.6*plain) || !(local < global) {
		t.Errorf("per-cluster correction %.4f: want under 0.6 × plain %.4f and under global %.4f", local, plain, global)
	}
}

// Bad input is an error, never a panic.
func TestBadInput(t *testing.T) {
	if _, err := NewStore(0, 3); err == nil {
		t.Error("a store of empty states was made")
	}
	s, err := NewStore(2, 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Nearest([]float64{0, 0}); err != ErrEmpty {
		t.Errorf("empty store lookup: %v", err)
	}
	if _, err := Fit(s, Options{}); err == nil {
		t.Error("fitted on an empty store")
	}
	if _, err := Fit(nil, Options{}); err == nil {
		t.Error("fitted on a nil store")
	}
	for _, bad := range [][2][]float64{
		{{1}, {1, 2}},
		{{1, 2}, {1, 2, 3}},
		{{math.NaN(), 0}, {0, 0}},
		{{0, 0}, {math.Inf(1), 0}},
	} {
		if err := s.Add(bad[0], bad[1]); err == nil {
			t.Errorf("record %v added", bad)
		}
	}
	// Two identical states: nothing to fit a basis on.
	_ = s.Add([]float64{1, 1}, []float64{0, 0})
	_ = s.Add([]float64{1, 1}, []float64{1, 1})
	if _, err := Fit(s, Options{}); err == nil {
		t.Error("fitted on a cloud of one point")
	}
	_ = s.Add([]float64{2, 0}, []float64{1, 0})
	for _, o := range []Options{{Rank: -1}, {Neighbours: -2}, {Ridge: math.NaN()}, {Ridge: -1}, {Clusters: -1}} {
		if _, err := Fit(s, o); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
	c, err := Fit(s, Options{Clusters: 10, Neighbours: 50})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range [][]float64{{1}, {math.NaN(), 0}, {1, math.Inf(-1)}} {
		if _, err := c.Predict(q); err == nil {
			t.Errorf("query %v answered", q)
		}
		if _, _, err := s.Nearest(q); err == nil {
			t.Errorf("query %v looked up", q)
		}
	}
	if _, err := s.Subset([]int{0, 7}); err == nil {
		t.Error("subset past the end made")
	}
	if got := RelErr([]float64{1}, []float64{1, 2}); !math.IsNaN(got) {
		t.Errorf("RelErr of different lengths %g", got)
	}
	if got := Median(nil); !math.IsNaN(got) {
		t.Errorf("Median(nil) %g", got)
	}
	if RandomPoints(0, 3, 1) != nil || RandomPoints(3, 0, 1) != nil || s.FarthestPoints(0) != nil {
		t.Error("empty selections are not empty")
	}
}

// Farthest-point sampling spreads the picks: on points on a line it takes
// both ends first, and its covering radius beats a random pick's.
func TestSelection(t *testing.T) {
	s, _ := NewStore(1, 1)
	for i := range 101 {
		_ = s.Add([]float64{float64(i)}, []float64{0})
	}
	got := s.FarthestPoints(3)
	if len(got) != 3 || !(got[0] == 0 || got[0] == 100) || got[0]+got[1] != 100 || got[2] != 50 {
		t.Errorf("farthest points on a line: %v", got)
	}
	if n := len(s.FarthestPoints(500)); n != 101 {
		t.Errorf("asking for more than the store: %d", n)
	}
	rp := RandomPoints(101, 10, 7)
	seen := map[int]bool{}
	for _, i := range rp {
		if i < 0 || i > 100 || seen[i] {
			t.Fatalf("random points %v", rp)
		}
		seen[i] = true
	}
	if len(rp) != 10 {
		t.Fatalf("random points %v", rp)
	}
	nd := s.NeighbourDistances()
	if len(nd) != 101 || Median(nd) != 1 {
		t.Errorf("neighbour distances on a unit grid: median %g", Median(nd))
	}
	if Median([]float64{3, 1, 2, 10}) != 2.5 {
		t.Error("median of four")
	}
}
