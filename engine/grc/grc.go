// Package grc is calibration-free attention compression (MECHANISMS.md §1):
// from the Q, K and V weights of a block alone it finds the k-dimensional
// subspace of the block's input that those projections read most — the top
// eigenvectors P of their joint Gram matrix — so that the block can compute
// x̃ = Pᵀx once and three small products from x̃ instead of three full ones.
//
// It is pure math over float32 matrices (gonum for the eigensolver) and
// knows nothing of GGUF or the forward pass.
package grc

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Slot is one weight matrix that reads the block input: Rows×Cols,
// row-major, Cols = the input width d.
type Slot struct {
	Rows, Cols int
	W          []float32
}

// Basis is the projection of one block.
type Basis struct {
	D, K int
	// P is d×k, row-major: column j is the j-th eigenvector of the
	// normalised joint Gram matrix, sign-canonical (its largest-magnitude
	// entry is positive) so that two builds give the same bytes.
	P []float32
	// Energy[s] is ‖W_s P‖²_F / ‖W_s‖²_F for slot s: the share of the slot
	// the projection keeps (1 at full rank).
	Energy []float64
	// Eigenvalues of the normalised Gram matrix, largest first (all d).
	Spectrum []float64
}

// ErrRank is returned for a k outside 1…d.
var ErrRank = errors.New("rank out of range")

// Decomposition is the eigendecomposition of a block's joint Gram matrix:
// every rank's basis comes from it without solving again, which is what
// lets the rank knob move between turns.
type Decomposition struct {
	D        int
	slots    []Slot
	vecs     mat.Dense // d×d, eigenvectors in columns, ascending eigenvalue
	Spectrum []float64 // eigenvalues of the normalised Gram, largest first
}

// Decompose builds the normalised joint Gram matrix Ĝ = G/‖G‖_F,
// G = Σ WᵀW over the slots (all with the same Cols = d), and its
// eigendecomposition.
func Decompose(slots []Slot) (*Decomposition, error) {
	if len(slots) == 0 {
		return nil, errors.New("grc: no slots")
	}
	d := slots[0].Cols
	g := mat.NewSymDense(d, nil)
	for _, s := range slots {
		if s.Cols != d || len(s.W) != s.Rows*s.Cols {
			return nil, fmt.Errorf("grc: slot of %d×%d with %d values does not read a %d-wide input", s.Rows, s.Cols, len(s.W), d)
		}
		w := mat.NewDense(s.Rows, d, widen(s.W))
		g.SymRankK(g, 1, w.T()) // G += WᵀW
	}
	if n := mat.Norm(g, 2); n > 0 && !math.IsInf(n, 0) {
		g.ScaleSym(1/n, g)
	}
	var eig mat.EigenSym
	if !eig.Factorize(g, true) {
		return nil, errors.New("grc: eigendecomposition did not converge")
	}
	dec := &Decomposition{D: d, slots: slots, Spectrum: make([]float64, d)}
	vals := eig.Values(nil)
	for i := range d {
		dec.Spectrum[i] = vals[d-1-i]
	}
	eig.VectorsTo(&dec.vecs)
	return dec, nil
}

// Basis returns the rank-k basis: the top-k eigenvectors, sign-canonical.
func (dec *Decomposition) Basis(k int) (*Basis, error) {
	d := dec.D
	if k < 1 || k > d {
		return nil, fmt.Errorf("grc: k = %d for input width %d: %w", k, d, ErrRank)
	}
	b := &Basis{D: d, K: k, P: make([]float32, d*k), Spectrum: dec.Spectrum}
	for j := range k {
		col := d - 1 - j // largest first
		sign := 1.0
		best := 0.0
		for i := range d {
			if v := dec.vecs.At(i, col); math.Abs(v) > best {
				best, sign = math.Abs(v), math.Copysign(1, v)
			}
		}
		for i := range d {
			b.P[i*k+j] = float32(sign * dec.vecs.At(i, col))
		}
	}
	for _, s := range dec.slots {
		b.Energy = append(b.Energy, energy(s, b))
	}
	return b, nil
}

// Build is Decompose then Basis(k), for a single rank.
func Build(slots []Slot, k int) (*Basis, error) {
	dec, err := Decompose(slots)
	if err != nil {
		return nil, err
	}
	return dec.Basis(k)
}

// Project returns W P (Rows×k, row-major): the slot's weights in the basis.
func (b *Basis) Project(s Slot) []float32 {
	var wp mat.Dense
	wp.Mul(mat.NewDense(s.Rows, s.Cols, widen(s.W)), mat.NewDense(b.D, b.K, widen(b.P)))
	out := make([]float32, s.Rows*b.K)
	for i, v := range wp.RawMatrix().Data {
		out[i] = float32(v)
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

func energy(s Slot, b *Basis) float64 {
	var all, kept float64
	for _, w := range s.W {
		all += float64(w) * float64(w)
	}
	for _, w := range b.Project(s) {
		kept += float64(w) * float64(w)
	}
	if all == 0 {
		return 1
	}
	return kept / all
}

func widen(f []float32) []float64 {
	out := make([]float64, len(f))
	for i, v := range f {
		out[i] = float64(v)
	}
	return out
}

// Projections returns W P for every slot of the decomposition, in order.
func (dec *Decomposition) Projections(b *Basis) [][]float32 {
	out := make([][]float32, len(dec.slots))
	for i, s := range dec.slots {
		out[i] = b.Project(s)
	}
	return out
}
