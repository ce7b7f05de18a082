package ugt

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Basis is a UGT basis (docs/mechanisms.md §5): the k-dimensional subspace of the
// residual stream that the model's centred hidden states occupy most.
type Basis struct {
	// D is the hidden-state width d, K the number of basis vectors k.
	D, K int
	// Mu is the mean hidden state μ (length D); every coordinate is taken
	// relative to it, because the raw states are dominated by the shared
	// mean direction.
	Mu []float64
	// B is D×K with orthonormal columns: the top-K right singular vectors
	// of the centred hidden states, each sign-canonical (largest-magnitude
	// entry positive). Refine rotates it in place.
	B *mat.Dense
	// Singular holds all min(N, D) singular values of the centred states,
	// largest first, as found by Fit (Refine does not change them). All of
	// them, not only the top K, so that Explained can report how much of
	// the variance the basis keeps.
	Singular []float64
}

// Fit centres H (N×d, one hidden state per row) by its column mean μ, takes
// the thin SVD H − μ = U Σ Vᵀ and returns B = V[:, :k] with each column made
// sign-canonical, so that two fits of the same data are bit-identical.
//
// k must lie in 1…min(N−1, d). Centring removes one degree of freedom, so
// the centred matrix has rank at most N−1; singular vectors past the rank
// belong to a zero singular value and are an arbitrary, irreproducible
// choice of the SVD routine, so asking for them is an error rather than a
// basis padded with noise. For the same reason Fit fails when the data turn
// out to have numerical rank below k (for example duplicated prompts), and
// when H holds a NaN or an infinity.
func Fit(h *mat.Dense, k int) (*Basis, error) {
	if h == nil || h.IsEmpty() {
		return nil, fmt.Errorf("ugt: fit: no hidden states")
	}
	n, d := h.Dims()
	if n < 2 {
		return nil, fmt.Errorf("ugt: fit: need at least 2 hidden states, have %d", n)
	}
	if maxK := min(n-1, d); k < 1 || k > maxK {
		return nil, fmt.Errorf("ugt: fit: k = %d outside 1…%d (N = %d states of width %d; centring leaves rank ≤ N−1)", k, maxK, n, d)
	}
	mu := make([]float64, d)
	row := make([]float64, d)
	for i := 0; i < n; i++ {
		mat.Row(row, i, h)
		if !finite(row) {
			return nil, fmt.Errorf("ugt: fit: hidden state %d is not finite", i)
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
	var svd mat.SVD
	if !svd.Factorize(c, mat.SVDThinV) {
		return nil, fmt.Errorf("ugt: fit: SVD of the %d×%d centred states did not converge", n, d)
	}
	sv := svd.Values(nil)
	// Same rank cut-off as LAPACK's default: σ ≤ max(N, d)·ε·σ₁ is zero.
	tol := float64(max(n, d)) * 0x1p-52 * sv[0]
	if sv[0] == 0 || sv[k-1] <= tol {
		r := 0
		for _, s := range sv {
			if s > tol && sv[0] > 0 {
				r++
			}
		}
		return nil, fmt.Errorf("ugt: fit: centred hidden states have rank %d < k = %d", r, k)
	}
	var v mat.Dense
	svd.VTo(&v)
	b := mat.NewDense(d, k, nil)
	b.Copy(v.Slice(0, d, 0, k))
	signCanonical(b)
	return &Basis{D: d, K: k, Mu: mu, B: b, Singular: sv}, nil
}

// Validate checks that the basis is internally consistent (dimensions of
// Mu and B agree with D and K). It does not check orthonormality, which
// costs O(d·k²); see CheckOrthonormal.
func (b *Basis) Validate() error {
	if b == nil {
		return fmt.Errorf("ugt: nil basis")
	}
	if b.D < 1 || b.K < 1 || b.K > b.D {
		return fmt.Errorf("ugt: basis has D = %d, K = %d", b.D, b.K)
	}
	if len(b.Mu) != b.D {
		return fmt.Errorf("ugt: basis mean has length %d, want D = %d", len(b.Mu), b.D)
	}
	if b.B == nil || b.B.IsEmpty() {
		return fmt.Errorf("ugt: basis has no B matrix")
	}
	if r, c := b.B.Dims(); r != b.D || c != b.K {
		return fmt.Errorf("ugt: basis B is %d×%d, want %d×%d", r, c, b.D, b.K)
	}
	return nil
}

// Explained returns the share of the centred variance that the top K
// singular directions carry, Σ_{j<K} σ_j² / Σ_j σ_j², in [0, 1]. It is the
// figure the profile pane shows next to k; it is 0 when Singular is empty.
func (b *Basis) Explained() float64 {
	if b == nil || len(b.Singular) == 0 {
		return 0
	}
	var top, all float64
	for j, s := range b.Singular {
		all += s * s
		if j < b.K {
			top += s * s
		}
	}
	if all == 0 {
		return 0
	}
	return top / all
}

// Coords returns z = Bᵀ(h − μ), the k coordinates of hidden state h. dst is
// reused when it has capacity for K values (it must not overlap h), so a
// per-token caller can avoid allocating; otherwise a new slice is returned.
func (b *Basis) Coords(h []float64, dst []float64) ([]float64, error) {
	if err := b.Validate(); err != nil {
		return nil, fmt.Errorf("ugt: coords: %w", err)
	}
	if len(h) != b.D {
		return nil, fmt.Errorf("ugt: coords: hidden state has length %d, want %d", len(h), b.D)
	}
	var z []float64
	if cap(dst) >= b.K {
		z = dst[:b.K]
		clear(z)
	} else {
		z = make([]float64, b.K)
	}
	AccumCentred(b.B.RawMatrix(), h, b.Mu, z)
	return z, nil
}

// CoordsRows maps every hidden state in hs to its coordinates, one row per
// state: the shape snipe.Scores takes.
func (b *Basis) CoordsRows(hs [][]float64) ([][]float64, error) {
	out := make([][]float64, len(hs))
	for i, h := range hs {
		z, err := b.Coords(h, nil)
		if err != nil {
			return nil, fmt.Errorf("ugt: state %d: %w", i, err)
		}
		out[i] = z
	}
	return out, nil
}

// Centroids returns the nZones×K matrix whose row z is the mean coordinate
// vector Bᵀ(h − μ) of the rows of H whose zone is z. zone has one entry per
// row of H, each in 0…nZones−1. A zone with no rows has no centroid, so it
// is an error rather than a zero row that would read as "at the mean".
func Centroids(b *Basis, h *mat.Dense, zone []int, nZones int) (*mat.Dense, error) {
	means, err := zoneMeans(b, h, zone, nZones)
	if err != nil {
		return nil, fmt.Errorf("ugt: centroids: %w", err)
	}
	var c mat.Dense
	c.Mul(means, b.B)
	return &c, nil
}

// zoneMeans returns the nZones×D matrix of per-zone mean hidden states
// minus μ. Centroid coordinates are linear in it (C = M B), which is what
// lets Refine evaluate its objective without revisiting the N states.
func zoneMeans(b *Basis, h *mat.Dense, zone []int, nZones int) (*mat.Dense, error) {
	if err := b.Validate(); err != nil {
		return nil, err
	}
	if h == nil || h.IsEmpty() {
		return nil, fmt.Errorf("no hidden states")
	}
	n, d := h.Dims()
	if d != b.D {
		return nil, fmt.Errorf("hidden states have width %d, basis has %d", d, b.D)
	}
	if len(zone) != n {
		return nil, fmt.Errorf("%d zone labels for %d hidden states", len(zone), n)
	}
	if nZones < 1 {
		return nil, fmt.Errorf("nZones = %d, want ≥ 1", nZones)
	}
	m := mat.NewDense(nZones, d, nil)
	count := make([]int, nZones)
	row := make([]float64, d)
	for i, z := range zone {
		if z < 0 || z >= nZones {
			return nil, fmt.Errorf("hidden state %d has zone %d outside 0…%d", i, z, nZones-1)
		}
		mat.Row(row, i, h)
		if !finite(row) {
			return nil, fmt.Errorf("hidden state %d is not finite", i)
		}
		count[z]++
		for j, v := range row {
			m.Set(z, j, m.At(z, j)+v)
		}
	}
	for z, c := range count {
		if c == 0 {
			return nil, fmt.Errorf("zone %d has no hidden states", z)
		}
		for j := 0; j < d; j++ {
			m.Set(z, j, m.At(z, j)/float64(c)-b.Mu[j])
		}
	}
	return m, nil
}

// orthTol is how far from orthonormal a basis handed to Overlap or Refine
// may be. It is loose enough for a basis stored as float32 and read back,
// and tight enough to catch a wrong matrix.
const orthTol = 1e-4

// Overlap is the bilateral overlap ‖AᵀB‖²_F / k of two d×k bases with
// orthonormal columns: 1 when they span the same subspace, 0 when the
// subspaces are orthogonal, symmetric in A and B. Different shapes, or
// columns that are not orthonormal (which would push the figure outside
// [0, 1] and make it meaningless), are errors. Rounding can leave the raw
// value a few ulps outside [0, 1]; it is clamped.
func Overlap(a, b *mat.Dense) (float64, error) {
	if a == nil || a.IsEmpty() || b == nil || b.IsEmpty() {
		return 0, fmt.Errorf("ugt: overlap: empty basis")
	}
	da, ka := a.Dims()
	db, kb := b.Dims()
	if da != db || ka != kb {
		return 0, fmt.Errorf("ugt: overlap: bases are %d×%d and %d×%d, want the same shape", da, ka, db, kb)
	}
	if ka > da {
		return 0, fmt.Errorf("ugt: overlap: %d columns cannot be orthonormal in dimension %d", ka, da)
	}
	if err := CheckOrthonormal(a, orthTol); err != nil {
		return 0, fmt.Errorf("ugt: overlap: first basis: %w", err)
	}
	if err := CheckOrthonormal(b, orthTol); err != nil {
		return 0, fmt.Errorf("ugt: overlap: second basis: %w", err)
	}
	var g mat.Dense
	g.Mul(a.T(), b)
	f := mat.Norm(&g, 2)
	return math.Min(1, math.Max(0, f*f/float64(ka))), nil
}
