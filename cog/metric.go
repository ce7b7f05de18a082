package cog

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// DefaultEta is the metric learning rate η of docs/mechanisms.md §9.
const DefaultEta = 0.012

// SPDFloor is the positive-definiteness guard: when the smallest
// eigenvalue of M falls below it, SPDFloor·I is added to M.
const SPDFloor = 0.01

// MaxDim is the largest embedding dimension k accepted. It bounds the
// O(k³) factorisations a decoded file can ask for; UGT bases are far
// smaller.
const MaxDim = 4096

// Metric is the COG metric tensor M, a k×k symmetric positive definite
// matrix that starts at the identity and only ever grows by positive
// semi-definite rank-one terms (plus the SPDFloor guard), so M − I stays
// positive semi-definite and λ_min(M) ≥ 1 in exact arithmetic. The guard is
// kept anyway: it is what docs/mechanisms.md specifies, and it is the cheap
// insurance against rounding.
//
// M is stored row-major and kept exactly symmetric: updates compute the
// upper triangle and mirror it, so aᵀMb = bᵀMa bit for bit.
//
// The zero Metric has dimension 0 and is not usable; build one with
// NewMetric. A Metric is not safe for concurrent mutation.
type Metric struct {
	k int
	m []float64
}

// Change describes one accepted Update, so that a caller caching
// quadratic forms eᵀMe can follow it in O(k) per cached vector:
// eᵀM'e = eᵀMe + Eta·(Dir·e)² (+ SPDFloor·‖e‖² when Guarded).
type Change struct {
	// Applied is false when the update was a no-op (zero query).
	Applied bool
	// Eta is the learning rate used.
	Eta float64
	// Dir is the unit query direction q/‖q‖; nil when not Applied.
	Dir []float64
	// Guarded reports that the SPD guard fired and SPDFloor·I was added.
	Guarded bool
}

// NewMetric returns the k×k identity metric, 1 ≤ k ≤ MaxDim.
func NewMetric(k int) (*Metric, error) {
	if k < 1 || k > MaxDim {
		return nil, fmt.Errorf("cog: metric dimension %d outside 1…%d", k, MaxDim)
	}
	m := make([]float64, k*k)
	for i := range k {
		m[i*k+i] = 1
	}
	return &Metric{k: k, m: m}, nil
}

// Dim returns k.
func (m *Metric) Dim() int { return m.k }

// Clone returns an independent copy.
func (m *Metric) Clone() *Metric {
	return &Metric{k: m.k, m: append([]float64(nil), m.m...)}
}

// SymDense returns a copy of M as a gonum symmetric matrix (for
// ogd.TopEigenvector, plots, or inspection). It returns nil for the zero
// Metric, which gonum cannot represent.
func (m *Metric) SymDense() *mat.SymDense {
	if m.k == 0 {
		return nil
	}
	return mat.NewSymDense(m.k, append([]float64(nil), m.m...))
}

// checkVec validates a vector against the metric's dimension.
func (m *Metric) checkVec(name string, v []float64) error {
	if len(v) != m.k {
		return fmt.Errorf("cog: %s has %d values, the metric is %d-dimensional", name, len(v), m.k)
	}
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("cog: %s[%d] is %v", name, i, x)
		}
	}
	return nil
}

// mulVec writes M·v into dst (both of length k).
func (m *Metric) mulVec(dst, v []float64) {
	k := m.k
	for i := range k {
		dst[i] = floats.Dot(m.m[i*k:(i+1)*k], v)
	}
}

// Distance returns d(a, b) = 1 − aᵀMb/(‖a‖_M ‖b‖_M), ‖a‖_M = √(aᵀMa),
// clamped to [0, 2] against rounding. A zero vector has no direction, so a
// distance involving one is 1 (as if orthogonal): it is never RETRIEVE-close
// to anything, itself included. Errors: wrong length or non-finite values.
func (m *Metric) Distance(a, b []float64) (float64, error) {
	if err := m.checkVec("a", a); err != nil {
		return 0, err
	}
	if err := m.checkVec("b", b); err != nil {
		return 0, err
	}
	mb := make([]float64, m.k)
	ma := make([]float64, m.k)
	m.mulVec(mb, b)
	m.mulVec(ma, a)
	return angular(floats.Dot(a, mb), floats.Dot(a, ma), floats.Dot(b, mb)), nil
}

// angular turns a bilinear form and the two quadratic forms into the
// clamped distance, with the zero-vector convention.
func angular(ab, aa, bb float64) float64 {
	if !(aa > 0) || !(bb > 0) {
		return 1
	}
	return clampDist(1 - ab/(math.Sqrt(aa)*math.Sqrt(bb)))
}

func clampDist(d float64) float64 {
	switch {
	case d < 0:
		return 0
	case d > 2:
		return 2
	}
	return d
}

// Update applies M ← M + η q qᵀ/‖q‖² and then the SPD guard (if
// λ_min(M) < SPDFloor, M += SPDFloor·I). q is normalised first with an
// overflow-safe norm, so huge but finite queries are fine. A zero q has no
// direction to learn and leaves M unchanged (Change.Applied false).
// Errors: wrong length, non-finite values, η not finite and positive.
func (m *Metric) Update(q []float64, eta float64) (Change, error) {
	if err := m.checkVec("query", q); err != nil {
		return Change{}, err
	}
	if !(eta > 0) || math.IsInf(eta, 0) {
		return Change{}, fmt.Errorf("cog: learning rate η = %v, want finite and > 0", eta)
	}
	n := floats.Norm(q, 2)
	if n == 0 {
		return Change{}, nil
	}
	u := make([]float64, m.k)
	for i, x := range q {
		u[i] = x / n
	}
	k := m.k
	// Upper triangle, then mirror: both halves hold the same rounded
	// value, so M is symmetric exactly, not to within rounding.
	for i := range k {
		ei := eta * u[i]
		row := m.m[i*k : (i+1)*k]
		for j := i; j < k; j++ {
			row[j] += ei * u[j]
		}
	}
	m.symmetrise()
	return Change{Applied: true, Eta: eta, Dir: u, Guarded: m.guard()}, nil
}

// symmetrise copies the upper triangle onto the lower one.
func (m *Metric) symmetrise() {
	k := m.k
	for i := range k {
		for j := i + 1; j < k; j++ {
			m.m[j*k+i] = m.m[i*k+j]
		}
	}
}

// guard adds SPDFloor·I when λ_min(M) < SPDFloor. The test is a Cholesky
// factorisation of M − SPDFloor·I, which succeeds exactly when that matrix
// is positive definite, i.e. λ_min(M) > SPDFloor: O(k³/3), a fraction of a
// full eigendecomposition, and cheap enough to run on every update.
func (m *Metric) guard() bool {
	if m.minEigAbove(SPDFloor) {
		return false
	}
	for i := range m.k {
		m.m[i*m.k+i] += SPDFloor
	}
	return true
}

// minEigAbove reports whether M − floor·I is positive definite.
func (m *Metric) minEigAbove(floor float64) bool {
	s := mat.NewSymDense(m.k, append([]float64(nil), m.m...))
	for i := range m.k {
		s.SetSym(i, i, s.At(i, i)-floor)
	}
	var c mat.Cholesky
	return c.Factorize(s)
}

// Growth returns ‖M − I‖_F, the manifold's cumulative growth. Every
// update adds a positive semi-definite term to the positive
// semi-definite M − I, and ⟨A, B⟩_F ≥ 0 for such matrices, so Growth
// never decreases.
func (m *Metric) Growth() float64 {
	k := m.k
	var s float64
	for i := range k {
		for j := range k {
			x := m.m[i*k+j]
			if i == j {
				x--
			}
			s += x * x
		}
	}
	return math.Sqrt(s)
}

// Eigen returns the eigenvalues of M, largest first, and the matching
// unit eigenvectors as the columns of a k×k matrix. Each eigenvector's
// sign is fixed (its largest-magnitude entry is positive) so that plots
// do not flip between calls.
func (m *Metric) Eigen() ([]float64, *mat.Dense, error) {
	if m.k == 0 {
		return nil, nil, errors.New("cog: eigendecomposition of an empty metric")
	}
	var eig mat.EigenSym
	if !eig.Factorize(m.SymDense(), true) {
		return nil, nil, errors.New("cog: metric eigendecomposition did not converge")
	}
	k := m.k
	asc := eig.Values(nil)
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	vals := make([]float64, k)
	out := mat.NewDense(k, k, nil)
	for c := range k {
		src := k - 1 - c
		vals[c] = asc[src]
		var big, sign float64 = -1, 1
		for r := range k {
			if a := math.Abs(vecs.At(r, src)); a > big {
				big = a
				sign = math.Copysign(1, vecs.At(r, src))
			}
		}
		for r := range k {
			out.Set(r, c, sign*vecs.At(r, src))
		}
	}
	return vals, out, nil
}
