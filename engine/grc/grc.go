// Package grc is calibration-free weight compression (docs/mechanisms.md §1–3).
//
// For matrices that read the same input (Q, K and V of a block; FFN gate
// and up; O alone) it finds the k-dimensional subspace of that input the
// matrices read most — the top eigenvectors P of their joint Gram matrix —
// so that a block can compute x̃ = Pᵀx once and small products from x̃
// instead of full ones. For FFN down, whose spectrum is too flat for the
// Gram route to pay (Paper 2 §3), it is a truncated SVD, W ≈ (U_kΣ_k)(V_kᵀ).
// It also holds the pure math of the per-layer rank allocations (GP's
// spectrum score and MCR's phase profile, alloc.go).
//
// grc.go, svd.go and alloc.go are pure math over float32 matrices (gonum
// for the eigensolver and the SVD). builder.go, plan.go, calib.go and
// cache.go apply it to a model: a Builder decomposes a model's blocks and
// builds a Compression for a Plan (a resolved Spec: slot set, allocation,
// rank), LayerVariance is MCR's calibration pass, and CacheSections /
// FromCache encode a Compression for a cache file whose container is the
// caller's. A Compression is a model.Projections: State.SetProjections
// runs a State through it. The model knows nothing of this package.
package grc

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Matrix is one weight matrix that reads the group's input: Rows×Cols,
// row-major, Cols = the input width d.
type Matrix struct {
	Rows, Cols int
	W          []float32
}

// Basis is a rank-k projection of one group's input.
type Basis struct {
	D, K int
	// P is d×k, row-major: column j is the j-th eigenvector of the
	// normalised joint Gram matrix, sign-canonical (its largest-magnitude
	// entry is positive) so that two builds give the same bytes.
	P []float32
	// Energy[s] is ‖W_s P‖²_F / ‖W_s‖²_F for slot s, when the basis came
	// from Apply or Build: the share of the slot the projection keeps.
	Energy []float64
	// Spectrum is the eigenvalues of the normalised Gram, largest first (all d).
	Spectrum []float64
}

// ErrRank is returned for a k outside 1…d.
var ErrRank = errors.New("rank out of range")

// gramChunk is how many weight rows are widened to float64 at a time while
// the Gram matrix is accumulated: a 14336×4096 FFN matrix widened whole
// would be 470 MB.
const gramChunk = 256

// Decomposition is the eigendecomposition of a group's joint Gram matrix:
// every rank's basis comes from it without solving again, which is what
// lets the rank knob move between turns. It keeps no reference to the
// weights.
type Decomposition struct {
	D int
	// Rows is the slots' rows together: the joint matrix has rank at most
	// min(Rows, D), so any k at or above that loses nothing.
	Rows int
	// Spectrum is the eigenvalues of Ĝ = G/‖G‖_F, largest first.
	Spectrum []float64
	// Scale is ‖G‖_F: Spectrum[j]·Scale are the eigenvalues of G itself.
	Scale float64
	vecs  []float32 // d×d row-major, column j = eigenvector j (largest first), sign-canonical
}

// Decompose builds the normalised joint Gram matrix Ĝ = G/‖G‖_F,
// G = Σ WᵀW over the slots (all with the same Cols = d), and its
// eigendecomposition.
func Decompose(slots []Matrix) (*Decomposition, error) {
	if len(slots) == 0 {
		return nil, errors.New("grc: no slots")
	}
	d := slots[0].Cols
	if d <= 0 {
		return nil, fmt.Errorf("grc: input width %d", d)
	}
	g := mat.NewSymDense(d, nil)
	rows := 0
	buf := make([]float64, min(gramChunk, maxRows(slots))*d)
	for _, s := range slots {
		if s.Cols != d || s.Rows <= 0 || len(s.W) != s.Rows*s.Cols {
			return nil, fmt.Errorf("grc: slot of %d×%d with %d values does not read a %d-wide input", s.Rows, s.Cols, len(s.W), d)
		}
		addGram(g, s, buf)
		rows += s.Rows
	}
	scale := mat.Norm(g, 2) // Frobenius for a matrix
	if scale > 0 && !math.IsInf(scale, 0) {
		g.ScaleSym(1/scale, g)
	}
	var eig mat.EigenSym
	if !eig.Factorize(g, true) {
		return nil, errors.New("grc: eigendecomposition did not converge")
	}
	dec := &Decomposition{D: d, Rows: rows, Scale: scale, Spectrum: make([]float64, d), vecs: make([]float32, d*d)}
	vals := eig.Values(nil)
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	for j := range d {
		col := d - 1 - j // EigenSym sorts ascending; we want largest first
		dec.Spectrum[j] = vals[col]
		sign := canonicalSign(d, func(i int) float64 { return vecs.At(i, col) })
		for i := range d {
			dec.vecs[i*d+j] = float32(sign * vecs.At(i, col))
		}
	}
	return dec, nil
}

// addGram adds sᵀs to g (s.Cols wide), widening gramChunk rows at a time
// into buf (at least min(gramChunk, s.Rows)·s.Cols long).
func addGram(g *mat.SymDense, s Matrix, buf []float64) {
	d := s.Cols
	for r0 := 0; r0 < s.Rows; r0 += gramChunk {
		r1 := min(r0+gramChunk, s.Rows)
		w := mat.NewDense(r1-r0, d, widenInto(buf[:(r1-r0)*d], s.W[r0*d:r1*d]))
		g.SymRankK(g, 1, w.T()) // G += WᵀW
	}
}

// canonicalSign is the sign that makes a vector's largest-magnitude entry
// positive (the first one on ties): eigenvectors and singular vectors are
// only defined up to sign, and fixing it makes two builds byte-identical
// whatever the solver's internals did.
func canonicalSign(n int, at func(int) float64) float64 {
	sign, best := 1.0, 0.0
	for i := range n {
		if v := at(i); math.Abs(v) > best {
			best, sign = math.Abs(v), math.Copysign(1, v)
		}
	}
	return sign
}

func maxRows(slots []Matrix) int {
	m := 1
	for _, s := range slots {
		m = max(m, s.Rows)
	}
	return m
}

// Lossless reports whether a rank-k basis keeps every slot whole: the
// joint matrix has rank at most min(Rows, D).
func (dec *Decomposition) Lossless(k int) bool { return k >= min(dec.Rows, dec.D) }

// Basis returns the rank-k basis: the top-k eigenvectors, sign-canonical.
// Its Energy is empty; Apply fills it.
func (dec *Decomposition) Basis(k int) (*Basis, error) {
	d := dec.D
	if k < 1 || k > d {
		return nil, fmt.Errorf("grc: k = %d for input width %d: %w", k, d, ErrRank)
	}
	b := &Basis{D: d, K: k, P: make([]float32, d*k), Spectrum: dec.Spectrum}
	for i := range d {
		copy(b.P[i*k:(i+1)*k], dec.vecs[i*d:i*d+k])
	}
	return b, nil
}

// Apply returns the rank-k basis and every slot projected onto it (W P,
// Rows×k), filling the basis's Energy. slots must be the ones the
// decomposition was made from.
func (dec *Decomposition) Apply(k int, slots []Matrix) (*Basis, [][]float32, error) {
	b, err := dec.Basis(k)
	if err != nil {
		return nil, nil, err
	}
	proj := make([][]float32, len(slots))
	for i, s := range slots {
		if s.Cols != dec.D || len(s.W) != s.Rows*s.Cols {
			return nil, nil, fmt.Errorf("grc: slot of %d×%d does not read the decomposition's %d-wide input", s.Rows, s.Cols, dec.D)
		}
		proj[i] = b.Project(s)
		b.Energy = append(b.Energy, Energy(s.W, proj[i]))
	}
	return b, proj, nil
}

// Build is Decompose then Apply(k), for a single rank.
func Build(slots []Matrix, k int) (*Basis, error) {
	dec, err := Decompose(slots)
	if err != nil {
		return nil, err
	}
	b, _, err := dec.Apply(k, slots)
	return b, err
}

// Project returns W P (Rows×k, row-major): the slot's weights in the basis.
// It works on row chunks so that a wide slot is never widened whole.
func (b *Basis) Project(s Matrix) []float32 {
	out := make([]float32, s.Rows*b.K)
	p := mat.NewDense(b.D, b.K, widen(b.P))
	buf := make([]float64, min(gramChunk, s.Rows)*s.Cols)
	var wp mat.Dense
	for r0 := 0; r0 < s.Rows; r0 += gramChunk {
		r1 := min(r0+gramChunk, s.Rows)
		w := mat.NewDense(r1-r0, s.Cols, widenInto(buf[:(r1-r0)*s.Cols], s.W[r0*s.Cols:r1*s.Cols]))
		wp.Reset()
		wp.Mul(w, p)
		for i, v := range wp.RawMatrix().Data {
			out[r0*b.K+i] = float32(v)
		}
	}
	return out
}

// Transposed returns Pᵀ (k×d, row-major): the rows a matrix×vector kernel
// needs to compute x̃ = Pᵀx.
func (b *Basis) Transposed() []float32 {
	t := make([]float32, b.K*b.D)
	for i := range b.D {
		for j := range b.K {
			t[j*b.D+i] = b.P[i*b.K+j]
		}
	}
	return t
}

// Energy is ‖kept‖²_F / ‖w‖²_F, the share of a matrix's energy a
// compressed form keeps (1 for an all-zero matrix: nothing to lose).
func Energy(w, kept []float32) float64 {
	all, k := sumSquares(w), sumSquares(kept)
	if all == 0 {
		return 1
	}
	return k / all
}

func sumSquares(f []float32) float64 {
	var s float64
	for _, v := range f {
		s += float64(v) * float64(v)
	}
	return s
}

func widen(f []float32) []float64 { return widenInto(make([]float64, len(f)), f) }

func widenInto(dst []float64, f []float32) []float64 {
	for i, v := range f {
		dst[i] = float64(v)
	}
	return dst
}
