package ugt

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// dependentTol is the relative norm below which a column, after removing
// its components along the previous ones, counts as linearly dependent.
// Columns of a basis (or a basis nudged by one refinement step) are nowhere
// near it, so reaching it means the caller passed a degenerate matrix.
const dependentTol = 1e-10

// Orthonormalize returns the Q factor of the thin QR factorisation A = QR
// of a d×m matrix (m ≤ d), with the diagonal of R positive so that Q is
// unique and continuous in A (which is what makes it a retraction). It uses
// Gram–Schmidt with one re-orthogonalisation pass (CGS2), which is as
// accurate as Householder for full-rank A and costs O(d·m²) instead of the
// O(d²·m) of forming gonum's full d×d Q. A column that is (numerically) a
// combination of the previous ones is an error, not a silently invented
// direction.
func Orthonormalize(a *mat.Dense) (*mat.Dense, error) {
	if a == nil || a.IsEmpty() {
		return nil, fmt.Errorf("ugt: orthonormalize: empty matrix")
	}
	d, m := a.Dims()
	if m > d {
		return nil, fmt.Errorf("ugt: orthonormalize: %d columns exceed dimension %d", m, d)
	}
	// Work column-major: each column contiguous, so the inner loops are
	// plain dot products and axpys.
	cols := make([][]float64, m)
	for j := range cols {
		c := make([]float64, d)
		mat.Col(c, j, a)
		cols[j] = c
	}
	for j, v := range cols {
		n0 := floats.Norm(v, 2)
		if n0 == 0 || math.IsNaN(n0) || math.IsInf(n0, 0) {
			return nil, fmt.Errorf("ugt: orthonormalize: column %d has norm %g", j, n0)
		}
		for pass := 0; pass < 2; pass++ {
			for _, q := range cols[:j] {
				r := floats.Dot(q, v)
				for i := range v {
					v[i] -= r * q[i]
				}
			}
		}
		n := floats.Norm(v, 2)
		if n <= dependentTol*n0 {
			return nil, fmt.Errorf("ugt: orthonormalize: column %d is linearly dependent on the previous ones", j)
		}
		for i := range v {
			v[i] /= n
		}
	}
	q := mat.NewDense(d, m, nil)
	for j, c := range cols {
		q.SetCol(j, c)
	}
	return q, nil
}

// OrthColumns returns orth(B[:, coords]): the thin-QR Q factor of the
// chosen columns of B, in the order given. This is Q_f of docs/mechanisms.md §6
// and Q_s of §7. coords must be non-empty, in 0…k−1 and distinct; a repeated
// coordinate would make the columns dependent, and an out-of-range one is a
// caller bug that must not turn into a panic.
func OrthColumns(b *mat.Dense, coords []int) (*mat.Dense, error) {
	if b == nil || b.IsEmpty() {
		return nil, fmt.Errorf("ugt: orth columns: empty basis")
	}
	d, k := b.Dims()
	if err := checkCoords(coords, k); err != nil {
		return nil, fmt.Errorf("ugt: orth columns: %w", err)
	}
	sub := mat.NewDense(d, len(coords), nil)
	col := make([]float64, d)
	for j, c := range coords {
		mat.Col(col, c, b)
		sub.SetCol(j, col)
	}
	q, err := Orthonormalize(sub)
	if err != nil {
		return nil, fmt.Errorf("ugt: orth columns %v: %w", coords, err)
	}
	return q, nil
}

// checkCoords validates a coordinate subset of a k-column basis.
func checkCoords(coords []int, k int) error {
	if len(coords) == 0 {
		return fmt.Errorf("no coordinates")
	}
	seen := make(map[int]bool, len(coords))
	for _, c := range coords {
		if c < 0 || c >= k {
			return fmt.Errorf("coordinate %d outside 0…%d", c, k-1)
		}
		if seen[c] {
			return fmt.Errorf("coordinate %d repeated", c)
		}
		seen[c] = true
	}
	return nil
}

// OrthonormalityError returns ‖BᵀB − I‖_F, the distance of B's columns
// from an orthonormal set.
func OrthonormalityError(b *mat.Dense) float64 {
	if b == nil || b.IsEmpty() {
		return math.Inf(1)
	}
	_, k := b.Dims()
	var g mat.Dense
	g.Mul(b.T(), b)
	for i := 0; i < k; i++ {
		g.Set(i, i, g.At(i, i)-1)
	}
	return mat.Norm(&g, 2)
}

// CheckOrthonormal returns an error when ‖BᵀB − I‖_F exceeds tol. Functions
// that rely on Q Qᵀ being a projector (Overlap, Refine) call it so that a
// basis loaded from a damaged profile fails loudly instead of producing
// plausible but wrong numbers.
func CheckOrthonormal(b *mat.Dense, tol float64) error {
	if e := OrthonormalityError(b); !(e <= tol) {
		return fmt.Errorf("ugt: basis columns are not orthonormal (‖BᵀB−I‖_F = %g > %g)", e, tol)
	}
	return nil
}

// signCanonical flips each column of b so that its largest-magnitude entry
// (the first one on a tie) is positive. Singular vectors are only defined up
// to sign; fixing it makes two fits of the same data give the same bytes,
// and the profile on disk stable.
func signCanonical(b *mat.Dense) {
	d, k := b.Dims()
	for j := 0; j < k; j++ {
		best, at := -1.0, 0
		for i := 0; i < d; i++ {
			if v := math.Abs(b.At(i, j)); v > best {
				best, at = v, i
			}
		}
		if b.At(at, j) < 0 {
			for i := 0; i < d; i++ {
				b.Set(i, j, -b.At(i, j))
			}
		}
	}
}

// finite reports whether every entry of v is a finite number.
func finite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}
