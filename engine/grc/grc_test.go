package grc

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// lowRank returns a rows×d slot of rank r.
func lowRank(rng *rand.Rand, rows, d, r int) Slot {
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
	return Slot{Rows: rows, Cols: d, W: w}
}

// TestBasisOfLowRankSlots: slots that together read a 3-dimensional
// subspace keep all their energy at k = 3 and lose some at k = 2; the basis
// is orthonormal and sign-canonical; ranks outside 1…d are refused.
func TestBasisOfLowRankSlots(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	d := 16
	// Two slots sharing the input space: rank 2 and rank 1 in general
	// position read at most a 3-dimensional subspace.
	slots := []Slot{lowRank(rng, 10, d, 2), lowRank(rng, 6, d, 1)}
	dec, err := Decompose(slots)
	if err != nil {
		t.Fatal(err)
	}
	b3, err := dec.Basis(3)
	if err != nil {
		t.Fatal(err)
	}
	for s, e := range b3.Energy {
		if math.Abs(e-1) > 1e-5 {
			t.Errorf("k=3: slot %d keeps %.7f of its energy", s, e)
		}
	}
	b2, _ := dec.Basis(2)
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
	if _, err := Decompose([]Slot{{Rows: 2, Cols: 3, W: make([]float32, 5)}}); err == nil {
		t.Error("a slot with the wrong number of values was accepted")
	}
}
