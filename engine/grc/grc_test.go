package grc

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// lowRank returns a rows×d slot of rank r.
func lowRank(rng *rand.Rand, rows, d, r int) Matrix {
	u := make([]float64, rows*r)
	v := make([]float64, r*d)
	for i := range u {
		u[i] = rng.NormFloat64()
	}
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	w := make([]float32, rows*d)
	for i := range rows {
		for j := range d {
			var s float64
			for t := range r {
				s += u[i*r+t] * v[t*d+j]
			}
			w[i*d+j] = float32(s)
		}
	}
	return Matrix{Rows: rows, Cols: d, W: w}
}

// TestBasisOfLowRankSlots: slots that together read a 3-dimensional
// subspace keep all their energy at k = 3 and lose some at k = 2; the basis
// is orthonormal and sign-canonical; ranks outside 1…d are refused.
func TestBasisOfLowRankSlots(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	d := 16
	// Two slots sharing the input space: rank 2 and rank 1 in general
	// position read at most a 3-dimensional subspace.
	slots := []Matrix{lowRank(rng, 10, d, 2), lowRank(rng, 6, d, 1)}
	dec, err := Decompose(slots)
	if err != nil {
		t.Fatal(err)
	}
	b3, _, err := dec.Apply(3, slots)
	if err != nil {
		t.Fatal(err)
	}
	if !dec.Lossless(16) || dec.Lossless(15) {
		t.Errorf("16 rows over a 16-wide input: lossless at 16 only, got %v at 15", dec.Lossless(15))
	}
	for s, e := range b3.Energy {
		if math.Abs(e-1) > 1e-5 {
			t.Errorf("k=3: slot %d keeps %.7f of its energy", s, e)
		}
	}
	b2, _, _ := dec.Apply(2, slots)
	if b2.Energy[0]+b2.Energy[1] > 2-1e-3 {
		t.Errorf("k=2 keeps everything (%v): the test has no rank to lose", b2.Energy)
	}
	if dec.Spectrum[3] > 1e-6 || dec.Spectrum[2] < 1e-6 {
		t.Errorf("spectrum %v: want exactly three non-zero eigenvalues", dec.Spectrum[:5])
	}
	for i := range 3 {
		var norm, maxAbs, maxVal float64
		for r := range d {
			v := float64(b3.P[r*3+i])
			norm += v * v
			if math.Abs(v) > maxAbs {
				maxAbs, maxVal = math.Abs(v), v
			}
		}
		if math.Abs(norm-1) > 1e-5 || maxVal < 0 {
			t.Errorf("column %d: norm² %.6f, largest entry %.4f (want 1 and positive)", i, norm, maxVal)
		}
		for j := range i {
			var dot float64
			for r := range d {
				dot += float64(b3.P[r*3+i]) * float64(b3.P[r*3+j])
			}
			if math.Abs(dot) > 1e-5 {
				t.Errorf("columns %d and %d are not orthogonal: %g", i, j, dot)
			}
		}
	}
	if _, err := dec.Basis(0); !errors.Is(err, ErrRank) {
		t.Errorf("k=0: %v", err)
	}
	if _, err := dec.Basis(d + 1); !errors.Is(err, ErrRank) {
		t.Errorf("k=d+1: %v", err)
	}
	if _, err := Decompose([]Matrix{{Rows: 2, Cols: 3, W: make([]float32, 5)}}); err == nil {
		t.Error("a slot with the wrong number of values was accepted")
	}
}

// TestEnergyMonotoneAndStable: every slot keeps more energy as k grows, all
// of it at k = d, and two decompositions give the same bytes.
func TestEnergyMonotoneAndStable(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	d := 24
	slots := []Matrix{lowRank(rng, 30, d, 20), lowRank(rng, 8, d, 8)}
	dec, err := Decompose(slots)
	if err != nil {
		t.Fatal(err)
	}
	prev := []float64{0, 0}
	for k := 1; k <= d; k++ {
		b, _, err := dec.Apply(k, slots)
		if err != nil {
			t.Fatal(err)
		}
		for s, e := range b.Energy {
			if e < prev[s]-1e-9 || e > 1+1e-6 {
				t.Fatalf("k=%d slot %d: energy %.9f after %.9f", k, s, e, prev[s])
			}
			prev[s] = e
		}
	}
	if math.Abs(prev[0]-1) > 1e-6 || math.Abs(prev[1]-1) > 1e-6 {
		t.Errorf("full rank keeps %v", prev)
	}
	again, _ := Decompose(slots)
	a, _ := dec.Basis(7)
	b, _ := again.Basis(7)
	for i := range a.P {
		if a.P[i] != b.P[i] {
			t.Fatalf("two decompositions differ at %d", i)
		}
	}
}

// TestSVDFactors: A·B reproduces the matrix at full rank, the kept energy
// is the kept share of Σσ², monotone in k, and two factorisations are
// byte-identical and sign-canonical.
func TestSVDFactors(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	s := lowRank(rng, 12, 40, 12)
	f, err := DecomposeSVD(s)
	if err != nil {
		t.Fatal(err)
	}
	if f.R != 12 || !f.Lossless(12) || f.Lossless(11) {
		t.Fatalf("R = %d", f.R)
	}
	a, b, err := f.Factors(12)
	if err != nil {
		t.Fatal(err)
	}
	var worst float64
	for i := range 12 {
		for j := range 40 {
			var v float64
			for k := range 12 {
				v += float64(a[i*12+k]) * float64(b[k*40+j])
			}
			worst = math.Max(worst, math.Abs(v-float64(s.W[i*40+j])))
		}
	}
	if worst > 1e-4 {
		t.Errorf("A·B differs from W by %g at full rank", worst)
	}
	prev := 0.0
	for k := 1; k <= 12; k++ {
		e := f.Energy(k)
		if e < prev-1e-12 {
			t.Fatalf("energy %.9f at k=%d below %.9f", e, k, prev)
		}
		prev = e
		// The kept share equals ‖A_k B_k‖²/‖W‖² (orthonormal rows of B).
		ak, _, _ := f.Factors(k)
		if got := Energy(s.W, ak); math.Abs(got-e) > 1e-5 {
			t.Fatalf("k=%d: Σσ² share %.7f, ‖UΣ‖² share %.7f", k, e, got)
		}
	}
	g, _ := DecomposeSVD(s)
	a2, b2, _ := g.Factors(5)
	a1, b1, _ := f.Factors(5)
	for i := range a1 {
		if a1[i] != a2[i] {
			t.Fatal("two SVDs differ in A")
		}
	}
	for i := range b1 {
		if b1[i] != b2[i] {
			t.Fatal("two SVDs differ in B")
		}
	}
	for j := range 5 { // column j of A is σ_j u_j: its largest entry is positive
		var best float32
		for i := range 12 {
			if v := a1[i*5+j]; v*v > best*best {
				best = v
			}
		}
		if best < 0 {
			t.Errorf("singular pair %d is not sign-canonical", j)
		}
	}
	if _, _, err := f.Factors(13); !errors.Is(err, ErrRank) {
		t.Errorf("k above min(rows, cols): %v", err)
	}
}
