package ugt

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Defaults for a zero RefineOptions field.
const (
	DefaultRefineSteps    = 100
	DefaultRefineStepSize = 0.1
)

// maxHalvings bounds the backtracking line search of one refinement step:
// 2⁻³⁰ of the step size is far below anything that changes the objective.
const maxHalvings = 30

// RefineOptions tunes Refine. A zero field takes its default
// (DefaultRefineSteps, DefaultRefineStepSize); a negative one is an error.
type RefineOptions struct {
	// Steps is the most gradient steps taken; Refine stops earlier when no
	// step size improves the objective (a local maximum).
	Steps int
	// StepSize is the largest step along the tangent gradient. The
	// objective is invariant to the scale of the hidden states, so a step
	// of order 0.1 means the same thing for every model.
	StepSize float64
}

// Separation is the refinement objective for the current basis: the mean
// pairwise cosine distance 1 − cos(c_a, c_b) over all pairs of the nZones
// zone centroids c_z = Bᵀ(mean_z h − μ). It lies in [0, 2]; higher means the
// basis tells the zones apart better. It needs at least two zones.
func Separation(b *Basis, h *mat.Dense, zone []int, nZones int) (float64, error) {
	if nZones < 2 {
		return 0, fmt.Errorf("ugt: separation: need at least 2 zones, have %d", nZones)
	}
	m, err := zoneMeans(b, h, zone, nZones)
	if err != nil {
		return 0, fmt.Errorf("ugt: separation: %w", err)
	}
	f, _ := objective(m, b.B, false)
	return f, nil
}

// Refine rotates b.B on the Stiefel manifold {B : BᵀB = I} to maximise
// Separation, the mean pairwise cosine distance between zone centroids in
// Bᵀ(h − μ) coordinates (docs/mechanisms.md §5). It returns the objective before
// and after and updates b.B in place; on error b is left untouched.
//
// Method: Riemannian gradient ascent with the analytic gradient (exact and
// cheaper than finite differences, which would need 2·d·k objective
// evaluations per step). Because centroid coordinates are linear in the
// zone means, C = M B with M the nZones×d matrix of zone means minus μ, so
// the Euclidean gradient is G = Mᵀ ∂f/∂C. It is projected onto the tangent
// space at B, ξ = G − B·sym(BᵀG), the step B + η ξ is mapped back onto the
// manifold by the thin-QR retraction (Q factor with positive R diagonal),
// and a backtracking line search halves η until the objective increases.
// A step that cannot increase it ends the ascent, so after ≥ before always
// holds. η starts at StepSize and, after a successful step, doubles back
// towards it. The columns are made sign-canonical at the end (the objective
// does not depend on column signs), keeping refined profiles reproducible.
//
// The objective depends only on the subspace spanned by B, so Singular is
// left as Fit found it: it describes the SVD, not the refined basis.
// A centroid that projects to zero has no direction; its pairs count as
// cosine 0 (distance 1) and contribute no gradient.
func Refine(b *Basis, h *mat.Dense, zone []int, nZones int, opt RefineOptions) (before, after float64, err error) {
	if opt.Steps < 0 || opt.StepSize < 0 || math.IsNaN(opt.StepSize) || math.IsInf(opt.StepSize, 0) {
		return 0, 0, fmt.Errorf("ugt: refine: invalid options %+v", opt)
	}
	steps, eta0 := opt.Steps, opt.StepSize
	if steps == 0 {
		steps = DefaultRefineSteps
	}
	if eta0 == 0 {
		eta0 = DefaultRefineStepSize
	}
	if nZones < 2 {
		return 0, 0, fmt.Errorf("ugt: refine: need at least 2 zones, have %d", nZones)
	}
	m, err := zoneMeans(b, h, zone, nZones)
	if err != nil {
		return 0, 0, fmt.Errorf("ugt: refine: %w", err)
	}
	if err := CheckOrthonormal(b.B, orthTol); err != nil {
		return 0, 0, fmt.Errorf("ugt: refine: %w", err)
	}

	cur := mat.DenseCopyOf(b.B)
	f, g := objective(m, cur, true)
	before = f
	eta := eta0
	var btg, xi, trial mat.Dense
	for s := 0; s < steps; s++ {
		// Tangent projection: ξ = G − B sym(BᵀG).
		btg.Mul(cur.T(), g)
		sym := mat.NewDense(b.K, b.K, nil)
		for i := 0; i < b.K; i++ {
			for j := 0; j < b.K; j++ {
				sym.Set(i, j, 0.5*(btg.At(i, j)+btg.At(j, i)))
			}
		}
		xi.Mul(cur, sym)
		xi.Sub(g, &xi)
		if mat.Norm(&xi, 2) < 1e-12 {
			break // stationary point
		}
		improved := false
		for try := 0; try < maxHalvings; try++ {
			trial.Scale(eta, &xi)
			trial.Add(cur, &trial)
			next, err := Orthonormalize(&trial)
			if err == nil {
				if fn, gn := objective(m, next, true); fn > f {
					cur, f, g = next, fn, gn
					improved = true
					eta = math.Min(2*eta, eta0)
					break
				}
			}
			eta /= 2
		}
		if !improved {
			break // local maximum at this resolution
		}
	}
	signCanonical(cur)
	b.B.Copy(cur)
	return before, f, nil
}

// objective returns the mean pairwise cosine distance of the centroids
// C = M B and, when grad is set, its Euclidean gradient with respect to B
// (d×k).
func objective(m, b *mat.Dense, grad bool) (float64, *mat.Dense) {
	var c mat.Dense
	c.Mul(m, b)
	z, k := c.Dims()
	rows := make([][]float64, z)
	norms := make([]float64, z)
	for a := range rows {
		rows[a] = c.RawRowView(a)
		norms[a] = floats.Norm(rows[a], 2)
	}
	pairs := float64(z * (z - 1) / 2)
	var gc *mat.Dense
	if grad {
		gc = mat.NewDense(z, k, nil)
	}
	var sum float64
	for a := 0; a < z; a++ {
		for bb := a + 1; bb < z; bb++ {
			na, nb := norms[a], norms[bb]
			if na == 0 || nb == 0 {
				sum++ // cosine 0 by convention
				continue
			}
			cos := floats.Dot(rows[a], rows[bb]) / (na * nb)
			sum += 1 - cos
			if !grad {
				continue
			}
			// d(1−cos)/dc_a = −(c_b/(n_a n_b) − cos·c_a/n_a²), and
			// symmetrically for c_b; scaled by 1/pairs for the mean.
			ga, gb := gc.RawRowView(a), gc.RawRowView(bb)
			for j := 0; j < k; j++ {
				ga[j] -= (rows[bb][j]/(na*nb) - cos*rows[a][j]/(na*na)) / pairs
				gb[j] -= (rows[a][j]/(na*nb) - cos*rows[bb][j]/(nb*nb)) / pairs
			}
		}
	}
	f := sum / pairs
	if !grad {
		return f, nil
	}
	var g mat.Dense
	g.Mul(m.T(), gc)
	return f, &g
}
