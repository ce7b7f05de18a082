package grc

import (
	"errors"
	"fmt"
	"math"
)

// Oja is Oja's subspace rule over a k×d basis with orthonormal rows
// (docs/mechanisms.md §11): each sample x moves every row toward the
// directions x varies in, w_i ← w_i + η_t x (xᵀ w_i), and Gram–Schmidt in
// row order (deflation) with normalisation keeps the rows orthonormal;
// η_t = η₀/√t over the updates applied. It is pure math: what the rows
// are a basis of is the caller's business (Online uses it for a GRC
// group's input basis).
type Oja struct {
	k, d int
	eta0 float64
	t    int
	w    []float64 // k×d, rows orthonormal after every deflation
	// prev is w as the last deflation left it (orthonormal): the row a
	// collapse falls back to, and the row a step that overflowed keeps.
	prev []float64
}

// NewOja starts the rule from basis (k×d rows, copied); the rows are
// orthonormalised first, so a basis stored with rounding starts exact.
func NewOja(basis []float32, k, d int, eta0 float64) (*Oja, error) {
	switch {
	case k < 1 || d < 1 || k > d:
		return nil, fmt.Errorf("grc: Oja basis of %d rows of width %d (want 1 ≤ k ≤ d)", k, d)
	case len(basis) != k*d:
		return nil, fmt.Errorf("grc: Oja basis of %d values, want %d×%d", len(basis), k, d)
	case !(eta0 > 0) || math.IsInf(eta0, 0):
		return nil, fmt.Errorf("grc: Oja step η₀ = %v must be positive and finite", eta0)
	}
	o := &Oja{k: k, d: d, eta0: eta0, w: make([]float64, k*d), prev: make([]float64, k*d)}
	for i, v := range basis {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return nil, errors.New("grc: the Oja basis has a value that is not finite")
		}
		o.w[i] = float64(v)
	}
	for i := range k {
		if !o.orthonormalise(i) {
			return nil, fmt.Errorf("grc: the Oja basis's row %d depends on the rows before it", i)
		}
	}
	copy(o.prev, o.w)
	return o, nil
}

// row is row i of the basis.
func (o *Oja) row(i int) []float64 { return o.w[i*o.d : (i+1)*o.d] }

// orthonormalise removes from row i its components along rows 0…i−1 (twice:
// one pass loses orthogonality to rounding when the row was nearly in
// their span) and normalises it. It reports false, changing nothing
// useful, when the row collapses.
func (o *Oja) orthonormalise(i int) bool {
	r := o.row(i)
	for range 2 {
		for j := range i {
			q := o.row(j)
			dot := 0.0
			for c, v := range q {
				dot += v * r[c]
			}
			for c, v := range q {
				r[c] -= dot * v
			}
		}
	}
	n := 0.0
	for _, v := range r {
		n += v * v
	}
	n = math.Sqrt(n)
	if !(n > 1e-12) || math.IsInf(n, 0) {
		return false
	}
	for c := range r {
		r[c] /= n
	}
	return true
}

// Update applies one sample and re-orthonormalises the rows (the paper's
// per-sample form). An x that is all zero, not finite or not d wide is
// ignored (it carries no direction, and must never poison the basis); a
// row the step collapses onto the rows before it keeps its previous
// direction, re-orthogonalised. It does not allocate.
func (o *Oja) Update(x []float32) {
	if o.Accumulate(x) {
		o.Orthonormalise()
	}
}

// Accumulate applies one sample's step to every row, w_i ← w_i + η_t x
// (xᵀ w_i), and renormalises each row, without the deflation: O(k·d)
// instead of Update's O(k²·d). A batch of samples followed by one
// Orthonormalise is Oja's subspace rule with the deflation once per batch;
// with steps η_t = η₀/√t the rows leave orthonormality only by O(η²)
// within a batch. A row whose step overflows goes back to where the last
// deflation left it. It reports whether x was applied (see Update) and
// does not allocate.
func (o *Oja) Accumulate(x []float32) bool {
	if len(x) != o.d {
		return false
	}
	nx := 0.0
	for _, v := range x {
		f := float64(v)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return false
		}
		nx += f * f
	}
	if nx == 0 || math.IsInf(nx, 0) {
		return false
	}
	o.t++
	eta := o.eta0 / math.Sqrt(float64(o.t))
	for i := range o.k {
		r := o.row(i)
		y := 0.0 // xᵀ w_i
		for c, v := range x {
			y += float64(v) * r[c]
		}
		n := 0.0
		for c, v := range x {
			r[c] += eta * y * float64(v)
			n += r[c] * r[c]
		}
		if n = math.Sqrt(n); !(n > 0) || math.IsInf(n, 0) {
			// Only an η₀ far too large for x's scale gets here; the row
			// must stay finite whatever the caller feeds.
			copy(r, o.prev[i*o.d:(i+1)*o.d])
			continue
		}
		for c := range r {
			r[c] /= n
		}
	}
	return true
}

// Orthonormalise runs the deflation: Gram–Schmidt in row order with
// normalisation. A row that collapses onto the rows before it (norm below
// 1e-12 once they are removed) falls back to its direction at the previous
// deflation, orthogonalised against the new rows before it: the steps
// since then said nothing about it that the earlier rows did not take.
// Should that collapse too, a coordinate axis orthogonal to them stands
// in. It does not allocate.
func (o *Oja) Orthonormalise() {
	for i := range o.k {
		if o.orthonormalise(i) {
			continue
		}
		copy(o.row(i), o.prev[i*o.d:(i+1)*o.d])
		if !o.orthonormalise(i) {
			o.replaceRow(i)
		}
	}
	copy(o.prev, o.w)
}

// replaceRow sets row i to the first coordinate axis that survives
// orthogonalisation against rows 0…i−1 (one exists: i < k ≤ d).
func (o *Oja) replaceRow(i int) {
	r := o.row(i)
	for a := range o.d {
		clear(r)
		r[a] = 1
		if o.orthonormalise(i) {
			return
		}
	}
}

// Steps is the number of samples applied.
func (o *Oja) Steps() int { return o.t }

// Basis returns the k×d rows in dst (grown if short).
func (o *Oja) Basis(dst []float32) []float32 {
	if cap(dst) < len(o.w) {
		dst = make([]float32, len(o.w))
	}
	dst = dst[:len(o.w)]
	for i, v := range o.w {
		dst[i] = float32(v)
	}
	return dst
}
