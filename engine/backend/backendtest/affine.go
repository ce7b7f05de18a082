package backendtest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/internal/orth"
)

// affineRef is backend.Affiner's map in float64 on one row.
func affineRef(x, q, mu, dir []float32, k int, alpha float32) []float32 {
	d := len(x)
	w := make([]float64, d)
	var r2 float64
	for i := range x {
		t := float64(x[i]) - float64(mu[i])
		r2 += t * t
	}
	s := float64(alpha) * math.Sqrt(r2)
	for i := range x {
		w[i] = float64(x[i]) - float64(mu[i])
		if alpha != 0 {
			w[i] += s * float64(dir[i])
		}
	}
	c := make([]float64, k)
	for j := range k {
		for i := range d {
			c[j] += float64(q[j*d+i]) * w[i]
		}
	}
	out := make([]float32, d)
	for i := range d {
		v := w[i]
		for j := range k {
			v -= c[j] * float64(q[j*d+i])
		}
		out[i] = float32(float64(mu[i]) + v)
	}
	return out
}

// affiner: the affine map of a Snipe projector (alpha 0) and of a Safe OGD
// step (alpha > 0, with and without a basis) on rows of a buffer, against
// the CPU's and, for the CPU itself, against a float64 reference. The rows
// outside row0…row0+n−1 stay as they were.
func (s *suite) affiner(t *testing.T) {
	af, ok := s.b.(backend.Affiner)
	if !ok {
		t.Skip("the backend does not implement backend.Affiner")
	}
	r := rand.New(rand.NewPCG(21, 22))
	for _, tc := range []struct {
		d, k, rows, row0, n int
		alpha               float32
	}{
		{64, 5, 3, 1, 1, 0},      // a Snipe projector, one decode row
		{96, 37, 9, 0, 9, 0},     // a wider one over a prefill batch
		{64, 8, 4, 2, 2, 0.2},    // a Safe OGD step
		{300, 40, 2, 0, 2, 0.3},  // wider than a block of threads
		{64, 0, 2, 0, 2, 0.25},   // a step with no forbidden subspace
		{1024, 12, 1, 0, 1, 0.1}, // a model's width
	} {
		what := fmt.Sprintf("Affine %+v", tc)
		x := randVec(r, tc.rows*tc.d, 2)
		mu := randVec(r, tc.d, 0.5)
		var dir []float32
		if tc.alpha != 0 {
			dir = orth.Rows(r, 1, tc.d)
		}
		q := orth.Rows(r, tc.k, tc.d)
		p := s.alloc(t, tc.rows, tc.d, x)
		s.place(0, 1)
		var mc, mg backend.Matrix
		if tc.k > 0 {
			mc, mg = s.matrix(t, f32Matrix(t, tc.k, tc.d, q))
		}
		muc, mug := s.vec(t, mu)
		var dc, dg backend.Vector
		if dir != nil {
			dc, dg = s.vec(t, dir)
		}
		s.ref.Affine(p.c, tc.row0, tc.n, mc, muc, dc, tc.alpha)
		af.Affine(p.g, tc.row0, tc.n, mg, mug, dg, tc.alpha)
		s.check(t, what, p, tc.rows, s.cfg.Tol.Project)
		// The reference itself against float64.
		got := s.ref.Host(p.c, 0, tc.rows)
		for i := range tc.rows {
			want := x[i*tc.d : (i+1)*tc.d]
			if i >= tc.row0 && i < tc.row0+tc.n {
				want = affineRef(want, q, mu, dir, tc.k, tc.alpha)
			}
			s.compare(t, what+" (float64)", got[i*tc.d:(i+1)*tc.d], want, 1e-6)
		}
	}
}
