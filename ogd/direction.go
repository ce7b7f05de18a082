package ogd

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// gapTol is the relative eigenvalue gap below which the top eigenvector is
// not unique (a repeated top eigenvalue spans a plane, and any vector in
// it would do — so none is a meaningful direction).
const gapTol = 1e-9

// ConceptDirection returns the unit vector along mean(concept) −
// mean(neutral): the direction in which hidden states of prompts about a
// concept differ from those of neutral prompts. Errors: an empty set,
// vectors of differing or zero length, non-finite values, or equal means
// (no direction).
func ConceptDirection(concept, neutral [][]float64) ([]float64, error) {
	if len(concept) == 0 || len(neutral) == 0 {
		return nil, fmt.Errorf("ogd: concept direction: %d concept and %d neutral states, need at least one of each", len(concept), len(neutral))
	}
	d := len(concept[0])
	if d == 0 {
		return nil, errors.New("ogd: concept direction: empty hidden states")
	}
	mc, err := mean("concept", concept, d)
	if err != nil {
		return nil, fmt.Errorf("ogd: concept direction: %w", err)
	}
	mn, err := mean("neutral", neutral, d)
	if err != nil {
		return nil, fmt.Errorf("ogd: concept direction: %w", err)
	}
	for i := range mc {
		mc[i] -= mn[i]
	}
	u, err := unit("mean difference", mc)
	if err != nil {
		return nil, fmt.Errorf("ogd: concept direction: %w", err)
	}
	return u, nil
}

// mean averages same-length finite vectors. Each vector is divided by the
// count before summing, so a sum of large states cannot overflow.
func mean(name string, vs [][]float64, d int) ([]float64, error) {
	out := make([]float64, d)
	inv := 1 / float64(len(vs))
	for k, v := range vs {
		if len(v) != d {
			return nil, fmt.Errorf("%s state %d has %d values, want %d", name, k, len(v), d)
		}
		if err := finite(fmt.Sprintf("%s state %d", name, k), v); err != nil {
			return nil, err
		}
		for i, x := range v {
			out[i] += x * inv
		}
	}
	return out, nil
}

// Axis returns column i of a UGT basis B (d×k), normalised: exploring
// along one learned coordinate. Errors: nil B, i outside 0…k−1, a zero or
// non-finite column.
func Axis(b *mat.Dense, i int) ([]float64, error) {
	if b == nil || b.IsEmpty() {
		return nil, errors.New("ogd: axis: no basis")
	}
	_, k := b.Dims()
	if i < 0 || i >= k {
		return nil, fmt.Errorf("ogd: axis %d of a %d-column basis", i, k)
	}
	u, err := unit(fmt.Sprintf("basis column %d", i), mat.Col(nil, i, b))
	if err != nil {
		return nil, fmt.Errorf("ogd: axis: %w", err)
	}
	return u, nil
}

// TopEigenvector returns the unit eigenvector of the largest (algebraic)
// eigenvalue of the symmetric M — for the COG metric, the direction the
// manifold has grown most along. Its sign is fixed so that the
// largest-magnitude entry is positive. Note the result lives in M's space
// (k-dimensional for COG); map it to hidden space with the UGT basis
// (v = B u) before building a Projector. Errors: nil or empty M,
// non-finite entries, a failed eigensolve, or a repeated top eigenvalue
// (relative gap below 1e-9, e.g. the fresh metric I), whose eigenvector is
// not unique.
func TopEigenvector(m *mat.SymDense) ([]float64, error) {
	if m == nil || m.IsEmpty() {
		return nil, errors.New("ogd: top eigenvector: no matrix")
	}
	k := m.SymmetricDim()
	for i := range k {
		for j := i; j < k; j++ {
			if x := m.At(i, j); math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("ogd: top eigenvector: entry (%d,%d) is %v", i, j, x)
			}
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(m, true) {
		return nil, errors.New("ogd: top eigenvector: eigendecomposition did not converge")
	}
	vals := eig.Values(nil) // ascending
	if k > 1 {
		top, next := vals[k-1], vals[k-2]
		scale := math.Max(math.Abs(vals[k-1]), math.Abs(vals[0]))
		if top-next <= gapTol*scale {
			return nil, fmt.Errorf("ogd: top eigenvector: top eigenvalue %v is repeated (next %v), no unique direction", top, next)
		}
	}
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	u := mat.Col(nil, k-1, &vecs)
	var big, sign float64 = -1, 1
	for _, x := range u {
		if math.Abs(x) > big {
			big, sign = math.Abs(x), math.Copysign(1, x)
		}
	}
	for i := range u {
		u[i] *= sign
	}
	// The solver returns unit vectors; renormalise anyway so the contract
	// holds to the last bit that matters.
	out, err := unit("eigenvector", u)
	if err != nil {
		return nil, fmt.Errorf("ogd: top eigenvector: %w", err)
	}
	return out, nil
}
