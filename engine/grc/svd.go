package grc

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// SVD is the thin singular value decomposition W = U Σ Vᵀ of one matrix
// (FFN down, Paper 2 §3): its rank-k truncation is stored as two factors,
// A = U_kΣ_k (Rows×k) and B = V_kᵀ (k×Cols), and applied as y = A(B h).
// It keeps no reference to the weights.
type SVD struct {
	Rows, Cols int
	// R is min(Rows, Cols): the most singular values there are, so any
	// k ≥ R loses nothing.
	R int
	// Sigma is the singular values, largest first.
	Sigma []float64
	// Spectrum is σ²/‖σ²‖₂: the eigenvalues of WᵀW normalised as
	// Decomposition.Spectrum is, so the two kinds of group compare.
	Spectrum []float64
	// Scale is ‖σ²‖₂, so Spectrum[j]·Scale = σ_j².
	Scale float64
	u, v  []float32 // Rows×R and Cols×R row-major, sign-canonical pairs
}

// DecomposeSVD factorises s with gonum's SVD. Each singular pair (u_j, v_j)
// is sign-canonical: u_j's largest-magnitude entry is positive, v_j flipped
// with it, so two builds give the same bytes.
func DecomposeSVD(s Matrix) (*SVD, error) {
	if s.Rows <= 0 || s.Cols <= 0 || len(s.W) != s.Rows*s.Cols {
		return nil, fmt.Errorf("grc: a %d×%d matrix with %d values", s.Rows, s.Cols, len(s.W))
	}
	var f mat.SVD
	if !f.Factorize(mat.NewDense(s.Rows, s.Cols, widen(s.W)), mat.SVDThin) {
		return nil, errors.New("grc: SVD did not converge")
	}
	r := min(s.Rows, s.Cols)
	out := &SVD{Rows: s.Rows, Cols: s.Cols, R: r, Sigma: f.Values(nil),
		u: make([]float32, s.Rows*r), v: make([]float32, s.Cols*r)}
	var u, v mat.Dense
	f.UTo(&u)
	f.VTo(&v)
	for j := range r {
		sign := canonicalSign(s.Rows, func(i int) float64 { return u.At(i, j) })
		for i := range s.Rows {
			out.u[i*r+j] = float32(sign * u.At(i, j))
		}
		for i := range s.Cols {
			out.v[i*r+j] = float32(sign * v.At(i, j))
		}
	}
	var ss float64
	for _, sg := range out.Sigma {
		ss += sg * sg * sg * sg
	}
	out.Scale = math.Sqrt(ss)
	out.Spectrum = make([]float64, r)
	for j, sg := range out.Sigma {
		if out.Scale > 0 {
			out.Spectrum[j] = sg * sg / out.Scale
		}
	}
	return out, nil
}

// Lossless reports whether rank k keeps the whole matrix.
func (f *SVD) Lossless(k int) bool { return k >= f.R }

// Energy is the share of ‖W‖²_F that rank k keeps: Σ_{j<k} σ_j² / Σ σ².
func (f *SVD) Energy(k int) float64 {
	var all, kept float64
	for j, s := range f.Sigma {
		all += s * s
		if j < k {
			kept += s * s
		}
	}
	if all == 0 {
		return 1
	}
	return kept / all
}

// Factors returns the rank-k truncation as A = U_kΣ_k (Rows×k, row-major)
// and B = V_kᵀ (k×Cols, row-major), so that W ≈ A B.
func (f *SVD) Factors(k int) (a, b []float32, err error) {
	if k < 1 || k > f.R {
		return nil, nil, fmt.Errorf("grc: SVD rank %d of a %d×%d matrix: %w", k, f.Rows, f.Cols, ErrRank)
	}
	a = make([]float32, f.Rows*k)
	for i := range f.Rows {
		for j := range k {
			a[i*k+j] = float32(float64(f.u[i*f.R+j]) * f.Sigma[j])
		}
	}
	b = make([]float32, k*f.Cols)
	for j := range k {
		for i := range f.Cols {
			b[j*f.Cols+i] = f.v[i*f.R+j]
		}
	}
	return a, b, nil
}
