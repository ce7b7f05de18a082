package ugt

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// Alignment maps hidden states of one model (the source) into the residual
// coordinates of another (the target): h ↦ MuTo + Scale·R·(h − MuFrom).
//
// Two independently trained models do not share a coordinate system: the
// same feature can sit along any direction of either residual stream, so
// their UGT bases can be compared (Overlap) only after the states of one are
// mapped onto the other's. An orthogonal R with one scalar scale is the
// least a comparison must allow (a rotation and a norm convention are free
// choices of training) and the most it may allow without letting the map
// manufacture agreement: an arbitrary linear map fitted on N ≥ d paired
// states could send any subspace onto any other.
type Alignment struct {
	// R is the d×d orthogonal matrix.
	R *mat.Dense
	// Scale is the scalar s ≥ 0.
	Scale float64
	// MuFrom and MuTo are the means of the source and target states the
	// map was fitted on (length d).
	MuFrom, MuTo []float64
	// Fit is the share of the target's centred variance the map leaves
	// unexplained on the fitting data, ‖map(from) − to‖²_F / ‖to − μ_to‖²_F:
	// 0 for an exact rotation, about 1 when the map explains nothing.
	Fit float64
}

// Procrustes fits the Alignment that maps the rows of from (N×d, states of
// the source model) onto the paired rows of to (N×d, the target model's
// states of the same tokens) with the least squared error, over orthogonal
// R and scale s (orthogonal Procrustes with scaling; Schönemann 1966):
// with X = from − μ_from, Y = to − μ_to and the SVD YᵀX = U Σ Vᵀ,
// R = U Vᵀ and s = tr Σ / ‖X‖²_F.
//
// It needs N > d paired states: with fewer, the centred source states span
// at most N − 1 < d directions, R is not determined on the rest of the
// space, and the overlap it would produce on other data means nothing.
func Procrustes(from, to *mat.Dense) (*Alignment, error) {
	if from == nil || from.IsEmpty() || to == nil || to.IsEmpty() {
		return nil, fmt.Errorf("ugt: procrustes: no states")
	}
	n, d := from.Dims()
	if nt, dt := to.Dims(); nt != n || dt != d {
		return nil, fmt.Errorf("ugt: procrustes: %d×%d source and %d×%d target states, want the same shape (paired rows of one width)", n, d, nt, dt)
	}
	if n <= d {
		return nil, fmt.Errorf("ugt: procrustes: %d paired states of width %d: need more than %d to determine a %d×%d rotation", n, d, d, d, d)
	}
	x, muX, err := centred(from)
	if err != nil {
		return nil, fmt.Errorf("ugt: procrustes: source: %w", err)
	}
	y, muY, err := centred(to)
	if err != nil {
		return nil, fmt.Errorf("ugt: procrustes: target: %w", err)
	}
	var m mat.Dense
	m.Mul(y.T(), x)
	var svd mat.SVD
	if !svd.Factorize(&m, mat.SVDFull) {
		return nil, fmt.Errorf("ugt: procrustes: SVD of the %d×%d cross-covariance did not converge", d, d)
	}
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	r := mat.NewDense(d, d, nil)
	r.Mul(&u, v.T())
	var trace float64
	for _, s := range svd.Values(nil) {
		trace += s
	}
	xx := mat.Norm(x, 2)
	if xx == 0 {
		return nil, fmt.Errorf("ugt: procrustes: the source states are all equal")
	}
	yy := mat.Norm(y, 2)
	if yy == 0 {
		return nil, fmt.Errorf("ugt: procrustes: the target states are all equal")
	}
	a := &Alignment{R: r, Scale: trace / (xx * xx), MuFrom: muX, MuTo: muY}
	// ‖sXRᵀ − Y‖² = s²‖X‖² − 2s·tr Σ + ‖Y‖² = ‖Y‖² − (tr Σ)²/‖X‖² at the
	// optimal s; computed directly instead, which needs no algebra to trust.
	var e mat.Dense
	e.Mul(x, r.T())
	e.Scale(a.Scale, &e)
	e.Sub(&e, y)
	en := mat.Norm(&e, 2)
	a.Fit = en * en / (yy * yy)
	return a, nil
}

// Map returns the source state h mapped into the target's coordinates,
// MuTo + Scale·R·(h − MuFrom), in dst when it has room for d values.
func (a *Alignment) Map(h, dst []float64) ([]float64, error) {
	if a == nil || a.R == nil {
		return nil, fmt.Errorf("ugt: map: no alignment")
	}
	d, _ := a.R.Dims()
	if len(h) != d || len(a.MuFrom) != d || len(a.MuTo) != d {
		return nil, fmt.Errorf("ugt: map: state of length %d, alignment of width %d", len(h), d)
	}
	if cap(dst) >= d {
		dst = dst[:d]
	} else {
		dst = make([]float64, d)
	}
	c := make([]float64, d)
	for i, v := range h {
		c[i] = v - a.MuFrom[i]
	}
	for i := 0; i < d; i++ {
		row := a.R.RawRowView(i)
		var s float64
		for j, v := range row {
			s += v * c[j]
		}
		dst[i] = a.MuTo[i] + a.Scale*s
	}
	return dst, nil
}

// Residual is the share of the target's centred variance that the map
// leaves unexplained on other paired states, ‖map(from) − to‖²_F /
// ‖to − mean(to)‖²_F: Fit's figure measured on data the map was not fitted
// on (held out), where it can exceed 1.
func (a *Alignment) Residual(from, to *mat.Dense) (float64, error) {
	if from == nil || to == nil || from.IsEmpty() || to.IsEmpty() {
		return 0, fmt.Errorf("ugt: residual: no states")
	}
	n, d := from.Dims()
	if nt, dt := to.Dims(); nt != n || dt != d {
		return 0, fmt.Errorf("ugt: residual: %d×%d source and %d×%d target states", n, d, nt, dt)
	}
	y, _, err := centred(to)
	if err != nil {
		return 0, fmt.Errorf("ugt: residual: %w", err)
	}
	var num float64
	m := make([]float64, d)
	row := make([]float64, d)
	for i := 0; i < n; i++ {
		mat.Row(row, i, from)
		if _, err := a.Map(row, m); err != nil {
			return 0, fmt.Errorf("ugt: residual: %w", err)
		}
		for j := 0; j < d; j++ {
			e := m[j] - to.At(i, j)
			num += e * e
		}
	}
	den := mat.Norm(y, 2)
	if den == 0 {
		return 0, fmt.Errorf("ugt: residual: the target states are all equal")
	}
	return num / (den * den), nil
}

// Rotate returns R·B: a d×k basis of the source model carried into the
// target's coordinates (orthonormal when B is, R being orthogonal), ready
// for Overlap with a basis of the target.
func (a *Alignment) Rotate(b *mat.Dense) (*mat.Dense, error) {
	if a == nil || a.R == nil || b == nil || b.IsEmpty() {
		return nil, fmt.Errorf("ugt: rotate: empty alignment or basis")
	}
	d, _ := a.R.Dims()
	if db, _ := b.Dims(); db != d {
		return nil, fmt.Errorf("ugt: rotate: basis of width %d, alignment of width %d", db, d)
	}
	var out mat.Dense
	out.Mul(a.R, b)
	return &out, nil
}

// ChanceOverlap is the expected Overlap of two k-dimensional subspaces of
// R^d drawn independently and uniformly: E‖AᵀB‖²_F / k = k/d (each of the k
// columns of A keeps k/d of its unit norm, on average, in a random
// k-dimensional subspace). An overlap is informative only by how far it
// rises above this; at k = 64, d = 256 it is 0.25, not 0.
func ChanceOverlap(d, k int) float64 {
	if d < 1 || k < 0 {
		return 0
	}
	return float64(min(k, d)) / float64(d)
}

// centred returns H − μ and μ, failing on a non-finite entry.
func centred(h *mat.Dense) (*mat.Dense, []float64, error) {
	n, d := h.Dims()
	mu := make([]float64, d)
	row := make([]float64, d)
	for i := 0; i < n; i++ {
		mat.Row(row, i, h)
		if !finite(row) {
			return nil, nil, fmt.Errorf("state %d is not finite", i)
		}
		for j, v := range row {
			mu[j] += v
		}
	}
	for j := range mu {
		mu[j] /= float64(n)
	}
	c := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			c.Set(i, j, h.At(i, j)-mu[j])
		}
	}
	return c, mu, nil
}

// SwapComponent replaces x's component in the subspace of b (d×k,
// orthonormal columns) by y's: x ← x + B Bᵀ (y − x). The component of x
// orthogonal to the subspace is kept. Both states are taken relative to the
// same mean μ, which cancels: (x − μ) − BBᵀ(x − μ) + BBᵀ(y − μ) is the same
// vector. It is the interchange of one model's UGT component for another's
// (y being the other model's state after Alignment.Map).
func SwapComponent(b *mat.Dense, x, y []float64) error {
	if b == nil || b.IsEmpty() {
		return fmt.Errorf("ugt: swap: empty basis")
	}
	d, k := b.Dims()
	if len(x) != d || len(y) != d {
		return fmt.Errorf("ugt: swap: states of length %d and %d, basis of width %d", len(x), len(y), d)
	}
	c := make([]float64, k)
	for i := 0; i < d; i++ {
		diff := y[i] - x[i]
		for j, v := range b.RawRowView(i) {
			c[j] += v * diff
		}
	}
	for i := 0; i < d; i++ {
		var s float64
		for j, v := range b.RawRowView(i) {
			s += v * c[j]
		}
		x[i] += s
	}
	return nil
}
