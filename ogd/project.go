package ogd

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// MaxAlpha is the largest step size accepted. The product's knob moves in
// 0.05–0.30; anything up to a full ‖h − μ‖ step is allowed for experiments.
const MaxAlpha = 1.0

// dependentTol is the relative residual below which a forbidden column is
// considered already in the span of the earlier ones and dropped: far
// enough above rounding (1e-16) that a kept column's normalised residual
// is still orthogonal to working precision after re-orthogonalisation.
const dependentTol = 1e-8

// colBlock and rowChunk size the two stack buffers of a step (forbidden
// coefficients, and a chunk of h − μ): together 6 KiB, and they keep
// Apply allocation-free for any d and m.
const (
	colBlock = 256
	rowChunk = 512
)

// Projector applies the Safe OGD step for one forbidden subspace, centre,
// direction and α. It is immutable after construction, so one Projector
// may be shared by goroutines; WithAlpha derives another α cheaply.
type Projector struct {
	d, m  int
	alpha float64

	// Q_f column-major: column j is q[j*d:(j+1)*d], so every inner loop
	// of a step is a contiguous dot product or axpy.
	q   []float64
	mu  []float64
	dir []float64 // unit v̂, or nil when constructed without a direction

	// float32 copies for the live path (Apply): half the memory traffic;
	// the accumulations are still done in float64.
	q32   []float32
	mu32  []float32
	dir32 []float32
}

// NewProjector builds the step h ← μ + P_safe((h − μ) + α‖h − μ‖ v̂).
//
// forbidden is d×m, any m ≥ 0 (nil for no forbidden subspace); its columns
// need not be orthonormal: they are orthonormalised in order by modified
// Gram–Schmidt with re-orthogonalisation (a thin QR), and a column already
// in the span of the earlier ones (relative residual below 1e-8, zero
// columns included) is dropped — Rank reports how many remain. Householder
// QR is not used because, without pivoting, a rank-deficient input makes it
// return arbitrary extra directions.
//
// mu is the centre μ (length d). dir is the direction v (length d, any
// nonzero length: it is normalised); it may be nil only when α = 0. α must
// be in [0, MaxAlpha]. Errors: shape mismatches, non-finite values, μ
// outside the float32 range (Apply could not represent it), a zero
// direction, α out of range.
func NewProjector(forbidden mat.Matrix, mu, dir []float64, alpha float64) (*Projector, error) {
	d := len(mu)
	if d == 0 {
		return nil, errors.New("ogd: projector: empty centre μ")
	}
	if err := finite("μ", mu); err != nil {
		return nil, fmt.Errorf("ogd: projector: %w", err)
	}
	for i, x := range mu {
		if math.Abs(x) > math.MaxFloat32 {
			return nil, fmt.Errorf("ogd: projector: μ[%d] = %v overflows float32", i, x)
		}
	}
	if err := checkAlpha(alpha); err != nil {
		return nil, fmt.Errorf("ogd: projector: %w", err)
	}
	p := &Projector{d: d, alpha: alpha, mu: append([]float64(nil), mu...)}
	if dir != nil {
		if len(dir) != d {
			return nil, fmt.Errorf("ogd: projector: direction has %d values, μ has %d", len(dir), d)
		}
		u, err := unit("direction", dir)
		if err != nil {
			return nil, fmt.Errorf("ogd: projector: %w", err)
		}
		p.dir = u
	} else if alpha != 0 {
		return nil, fmt.Errorf("ogd: projector: α = %v needs a direction", alpha)
	}
	if forbidden != nil {
		rows, cols := forbidden.Dims()
		if cols > 0 && rows != d {
			return nil, fmt.Errorf("ogd: projector: forbidden basis is %d×%d, μ has %d values", rows, cols, d)
		}
		cols64, err := orthonormalise(forbidden, d, cols)
		if err != nil {
			return nil, fmt.Errorf("ogd: projector: %w", err)
		}
		p.m = len(cols64)
		p.q = make([]float64, 0, d*p.m)
		for _, c := range cols64 {
			p.q = append(p.q, c...)
		}
	}
	p.q32 = narrow(p.q)
	p.mu32 = narrow(p.mu)
	p.dir32 = narrow(p.dir)
	return p, nil
}

// orthonormalise returns an orthonormal basis of the column span, in
// column order, dropping dependent columns.
func orthonormalise(a mat.Matrix, d, cols int) ([][]float64, error) {
	var basis [][]float64
	for j := range cols {
		c := make([]float64, d)
		for i := range d {
			x := a.At(i, j)
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("forbidden basis entry (%d,%d) is %v", i, j, x)
			}
			c[i] = x
		}
		n0 := floats.Norm(c, 2) // scaled: huge or tiny entries neither overflow nor underflow
		if n0 == 0 {
			continue
		}
		for i := range c {
			c[i] /= n0 // scale first so huge or tiny columns cannot overflow
		}
		// Two passes: one pass of Gram–Schmidt loses orthogonality in
		// proportion to the conditioning; the second restores it to
		// working precision ("twice is enough").
		for range 2 {
			for _, b := range basis {
				t := floats.Dot(b, c)
				for i := range c {
					c[i] -= t * b[i]
				}
			}
		}
		n := floats.Norm(c, 2)
		if n <= dependentTol {
			continue
		}
		for i := range c {
			c[i] /= n
		}
		basis = append(basis, c)
	}
	return basis, nil
}

// WithAlpha returns a Projector identical but for α, sharing the
// (immutable) basis, centre and direction. Errors: α out of range, or
// α > 0 on a projector built without a direction.
func (p *Projector) WithAlpha(alpha float64) (*Projector, error) {
	if err := checkAlpha(alpha); err != nil {
		return nil, fmt.Errorf("ogd: with α: %w", err)
	}
	if alpha != 0 && p.dir == nil {
		return nil, fmt.Errorf("ogd: with α = %v: projector has no direction", alpha)
	}
	c := *p
	c.alpha = alpha
	return &c, nil
}

// Dim returns the hidden dimension d.
func (p *Projector) Dim() int { return p.d }

// Rank returns m, the dimension of the forbidden subspace kept after
// orthonormalisation.
func (p *Projector) Rank() int { return p.m }

// Alpha returns the step size α.
func (p *Projector) Alpha() float64 { return p.alpha }

// Basis returns a copy of the orthonormal forbidden basis Q_f (d×m), or
// nil when m = 0 (gonum has no empty matrices).
func (p *Projector) Basis() *mat.Dense {
	if p.m == 0 {
		return nil
	}
	b := mat.NewDense(p.d, p.m, nil)
	for j := range p.m {
		b.SetCol(j, p.q[j*p.d:(j+1)*p.d])
	}
	return b
}

// Apply performs the step in place on a float32 hidden state, the live
// path: no allocations, float32 parameters (half the memory traffic of
// float64 ones), float64 accumulation. Afterwards Q_fᵀ(h − μ) is zero up
// to the float32 rounding of h itself and of the stored basis: measured
// below 1e-8·‖h‖ per coordinate, so under 1e-5 for ‖h‖ up to ~1000. With
// α = 0 and m = 0 it leaves h bit for bit unchanged. Error: len(h) ≠ d.
func (p *Projector) Apply(h []float32) error {
	if len(h) != p.d {
		return fmt.Errorf("ogd: apply: hidden state has %d values, projector is %d-dimensional", len(h), p.d)
	}
	step(h, p.mu32, p.dir32, p.q32, p.m, p.alpha)
	return nil
}

// Apply64 is Apply in float64 (for tests and offline use): afterwards
// Q_fᵀ(h − μ) is zero to about 1e-16·‖h‖. It allocates nothing either.
func (p *Projector) Apply64(h []float64) error {
	if len(h) != p.d {
		return fmt.Errorf("ogd: apply: hidden state has %d values, projector is %d-dimensional", len(h), p.d)
	}
	step(h, p.mu, p.dir, p.q, p.m, p.alpha)
	return nil
}

// float is the element type of a hidden state.
type float interface{ ~float32 | ~float64 }

// step is h ← μ + P_safe(w), w = (h − μ) + α‖h − μ‖ v̂, for a column-major
// d×m basis q. Everything is accumulated in float64; w is formed a chunk
// at a time in a stack buffer, so the work is contiguous dot products
// and axpys with no allocation for any d or m. The two sweeps per column
// block (coefficients c = Q_bᵀw, then w − Q_b c) each re-form w from h,
// which is cheaper than keeping a d-long copy of it.
func step[T float](h, mu, dir, q []T, m int, alpha float64) {
	d := len(h)
	mu = mu[:d]
	s := 0.0
	if alpha != 0 {
		var r2 float64
		for i, x := range h {
			t := float64(x) - float64(mu[i])
			r2 += t * t
		}
		s = alpha * math.Sqrt(r2)
		dir = dir[:d]
	}
	if m == 0 {
		if s != 0 {
			for i := range h {
				h[i] = T(float64(h[i]) + s*float64(dir[i]))
			}
		}
		return
	}
	var cbuf [colBlock]float64
	var wbuf [rowChunk]float64
	for b0 := 0; b0 < m; b0 += colBlock {
		c := cbuf[:min(colBlock, m-b0)]
		clear(c)
		for i0 := 0; i0 < d; i0 += rowChunk {
			w := wbuf[:min(rowChunk, d-i0)]
			offset(w, h[i0:], mu[i0:], dir, i0, s)
			dots(c, q[b0*d+i0:], d, w)
		}
		for i0 := 0; i0 < d; i0 += rowChunk {
			w := wbuf[:min(rowChunk, d-i0)]
			offset(w, h[i0:], mu[i0:], dir, i0, s)
			subtract(w, c, q[b0*d+i0:], d)
			hh, mm := h[i0:i0+len(w)], mu[i0:i0+len(w)]
			for i, x := range w {
				hh[i] = T(float64(mm[i]) + x)
			}
		}
		// The step is in h now; later blocks only project. The blocks
		// are mutually orthogonal, so projecting them one after another
		// is the same projection (and, like modified Gram–Schmidt, a
		// little more accurate).
		s = 0
	}
}

// offset fills w with (h − μ) + s·dir over one chunk starting at i0.
func offset[T float](w []float64, h, mu, dir []T, i0 int, s float64) {
	h, mu = h[:len(w)], mu[:len(w)]
	if s == 0 {
		for i := range w {
			w[i] = float64(h[i]) - float64(mu[i])
		}
		return
	}
	dir = dir[i0 : i0+len(w)]
	for i := range w {
		w[i] = float64(h[i]) - float64(mu[i]) + s*float64(dir[i])
	}
}

// dotT is Σ a_i w_i over len(w), accumulated in float64 with four
// independent sums so the additions do not wait on each other.
func dotT[T float](a []T, w []float64) float64 {
	a = a[:len(w)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(w); i += 4 {
		s0 += float64(a[i]) * w[i]
		s1 += float64(a[i+1]) * w[i+1]
		s2 += float64(a[i+2]) * w[i+2]
		s3 += float64(a[i+3]) * w[i+3]
	}
	for ; i < len(w); i++ {
		s0 += float64(a[i]) * w[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// dots adds to each c[j] the dot product of w with the column starting
// at q[j*stride]. Columns go four at a time so that each w[i] is loaded
// once per four columns and the four sums proceed independently.
func dots[T float](c []float64, q []T, stride int, w []float64) {
	n := len(w)
	j := 0
	for ; j+4 <= len(c); j += 4 {
		a0 := q[j*stride:][:n]
		a1 := q[(j+1)*stride:][:n]
		a2 := q[(j+2)*stride:][:n]
		a3 := q[(j+3)*stride:][:n]
		var s0, s1, s2, s3 float64
		for i, x := range w {
			s0 += float64(a0[i]) * x
			s1 += float64(a1[i]) * x
			s2 += float64(a2[i]) * x
			s3 += float64(a3[i]) * x
		}
		c[j] += s0
		c[j+1] += s1
		c[j+2] += s2
		c[j+3] += s3
	}
	for ; j < len(c); j++ {
		c[j] += dotT(q[j*stride:], w)
	}
}

// subtract does w −= Σ_j c[j]·(column starting at q[j*stride]), four
// columns per sweep over w so that w is loaded and stored once per four.
func subtract[T float](w, c []float64, q []T, stride int) {
	n := len(w)
	j := 0
	for ; j+4 <= len(c); j += 4 {
		a0 := q[j*stride:][:n]
		a1 := q[(j+1)*stride:][:n]
		a2 := q[(j+2)*stride:][:n]
		a3 := q[(j+3)*stride:][:n]
		c0, c1, c2, c3 := c[j], c[j+1], c[j+2], c[j+3]
		for i, x := range a0 {
			w[i] -= (c0*float64(x) + c1*float64(a1[i])) + (c2*float64(a2[i]) + c3*float64(a3[i]))
		}
	}
	for ; j < len(c); j++ {
		a := q[j*stride:][:n]
		cj := c[j]
		for i := range w {
			w[i] -= cj * float64(a[i])
		}
	}
}

// Forbidden returns Q_fᵀ(h − μ), the coordinates of h's offset from μ in
// the forbidden subspace (length m): what the guarantee says is zero right
// after a step. Error: len(h) ≠ d.
func (p *Projector) Forbidden(h []float64) ([]float64, error) {
	if len(h) != p.d {
		return nil, fmt.Errorf("ogd: forbidden: hidden state has %d values, projector is %d-dimensional", len(h), p.d)
	}
	w := make([]float64, p.d)
	for i, x := range h {
		w[i] = x - p.mu[i]
	}
	c := make([]float64, p.m)
	for j := range c {
		c[j] = dotT(p.q[j*p.d:], w)
	}
	return c, nil
}

func checkAlpha(alpha float64) error {
	if !(alpha >= 0 && alpha <= MaxAlpha) {
		return fmt.Errorf("α = %v outside [0, %v]", alpha, MaxAlpha)
	}
	return nil
}

func finite(name string, v []float64) error {
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("%s[%d] is %v", name, i, x)
		}
	}
	return nil
}

// unit returns v/‖v‖ after checking it is finite and nonzero.
func unit(name string, v []float64) ([]float64, error) {
	if err := finite(name, v); err != nil {
		return nil, err
	}
	n := floats.Norm(v, 2)
	if !(n > 0) || math.IsInf(n, 0) {
		return nil, fmt.Errorf("%s has norm %v, no direction", name, n)
	}
	u := make([]float64, len(v))
	for i, x := range v {
		u[i] = x / n
	}
	return u, nil
}

func narrow(v []float64) []float32 {
	if v == nil {
		return nil
	}
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}

// Live returns the float32 parameters Apply uses, for a backend to apply
// the same step (engine/model.Affine): the orthonormal forbidden basis as
// m rows of d values, μ, the unit direction (nil when built without one)
// and α. They are the projector's own and must not be modified.
func (p *Projector) Live() (q []float32, m int, mu, dir []float32, alpha float32) {
	return p.q32, p.m, p.mu32, p.dir32, float32(p.alpha)
}
