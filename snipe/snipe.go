package snipe

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/isagi-lab/isagi/teh"
	"github.com/isagi-lab/isagi/ugt"
)

// Epsilon keeps ROI_i = E_harm|z_i| / (E_benign|z_i| + ε) finite for a
// coordinate that is exactly zero on every benign prompt. It is absolute:
// hidden-state coordinates of real models are of order 0.1–100, so it only
// matters in that degenerate case, where it rightly ranks a coordinate
// active on harm alone first.
const Epsilon = 1e-9

// Scores returns the Snipe score s_i = d_i · ROI_i of every coordinate i of
// z = Bᵀ(h − μ), where d_i = |E_harm z_i − E_benign z_i| and
// ROI_i = E_harm|z_i| / (E_benign|z_i| + Epsilon). zHarm and zBenign hold one
// coordinate vector per prompt (see ugt.Basis.CoordsRows); both must be
// non-empty, all rows the same non-zero length, and finite.
func Scores(zHarm, zBenign [][]float64) ([]float64, error) {
	if len(zHarm) == 0 || len(zBenign) == 0 {
		return nil, fmt.Errorf("snipe: scores: need harm and benign coordinates, have %d and %d rows", len(zHarm), len(zBenign))
	}
	k := len(zHarm[0])
	if k == 0 {
		return nil, fmt.Errorf("snipe: scores: empty coordinate rows")
	}
	meanH, absH, err := moments(zHarm, k)
	if err != nil {
		return nil, fmt.Errorf("snipe: scores: harm: %w", err)
	}
	meanB, absB, err := moments(zBenign, k)
	if err != nil {
		return nil, fmt.Errorf("snipe: scores: benign: %w", err)
	}
	s := make([]float64, k)
	for i := range s {
		s[i] = math.Abs(meanH[i]-meanB[i]) * absH[i] / (absB[i] + Epsilon)
	}
	return s, nil
}

// moments returns the per-coordinate mean and mean absolute value.
func moments(rows [][]float64, k int) (mean, abs []float64, err error) {
	mean, abs = make([]float64, k), make([]float64, k)
	for r, z := range rows {
		if len(z) != k {
			return nil, nil, fmt.Errorf("row %d has %d coordinates, want %d", r, len(z), k)
		}
		for i, v := range z {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, nil, fmt.Errorf("row %d coordinate %d is not finite", r, i)
			}
			mean[i] += v
			abs[i] += math.Abs(v)
		}
	}
	n := float64(len(rows))
	for i := range mean {
		mean[i] /= n
		abs[i] /= n
	}
	return mean, abs, nil
}

// Order returns the coordinate indices sorted by score, best first; equal
// scores keep index order, so the greedy selection is reproducible. NaN
// scores go last.
func Order(scores []float64) []int {
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		sa, sb := scores[a], scores[b]
		if na, nb := math.IsNaN(sa), math.IsNaN(sb); na || nb {
			switch {
			case na && nb:
				return 0
			case na:
				return 1
			default:
				return -1
			}
		}
		return cmp.Compare(sb, sa)
	})
	return idx
}

// Direction is the category's probe direction: the unit vector along
// mean(hHarm) − mean(hBenign) in the d-dimensional residual stream. The
// two sets must be non-empty with rows of one common length; identical
// means have no direction and are an error.
func Direction(hHarm, hBenign [][]float64) ([]float64, error) {
	if len(hHarm) == 0 || len(hBenign) == 0 {
		return nil, fmt.Errorf("snipe: direction: need harm and benign states, have %d and %d", len(hHarm), len(hBenign))
	}
	d := len(hHarm[0])
	if d == 0 {
		return nil, fmt.Errorf("snipe: direction: empty hidden states")
	}
	mh, _, err := moments(hHarm, d)
	if err != nil {
		return nil, fmt.Errorf("snipe: direction: harm: %w", err)
	}
	mb, _, err := moments(hBenign, d)
	if err != nil {
		return nil, fmt.Errorf("snipe: direction: benign: %w", err)
	}
	floats.Sub(mh, mb)
	n := floats.Norm(mh, 2)
	if n == 0 {
		return nil, fmt.Errorf("snipe: direction: harm and benign means coincide")
	}
	for i := range mh {
		mh[i] /= n
	}
	return mh, nil
}

// ProbeScore is the category probe score ⟨dir, h − μ⟩ of one hidden state.
// Mismatched lengths give NaN rather than a panic; MeanProbeScore reports
// them as errors.
func ProbeScore(dir, mu, h []float64) float64 {
	if len(dir) != len(h) || len(mu) != len(h) {
		return math.NaN()
	}
	var s float64
	for i, v := range h {
		s += dir[i] * (v - mu[i])
	}
	return s
}

// MeanProbeScore is the mean ProbeScore over a set of hidden states.
func MeanProbeScore(dir, mu []float64, hs [][]float64) (float64, error) {
	if len(hs) == 0 {
		return 0, fmt.Errorf("snipe: probe score: no hidden states")
	}
	if len(dir) != len(mu) {
		return 0, fmt.Errorf("snipe: probe score: direction has length %d, mean %d", len(dir), len(mu))
	}
	var sum float64
	for i, h := range hs {
		if len(h) != len(dir) {
			return 0, fmt.Errorf("snipe: probe score: state %d has length %d, want %d", i, len(h), len(dir))
		}
		sum += ProbeScore(dir, mu, h)
	}
	return sum / float64(len(hs)), nil
}

// Reduction is the relative drop (before − after)/|before| of the mean
// probe score over harm states once the projector is on: 1 removes the
// harm direction entirely, 0 does nothing, negative makes it worse. The
// scores are signed (harm states sit on the positive side of the
// harm-minus-benign direction), so a score moving from −4 to −1 counts as
// a rise. A zero before-score has no relative drop and is an error.
func Reduction(before, after float64) (float64, error) {
	if before == 0 || math.IsNaN(before) || math.IsNaN(after) {
		return 0, fmt.Errorf("snipe: reduction: undefined for probe scores %g → %g", before, after)
	}
	return (before - after) / math.Abs(before), nil
}

// Collateral is the relative increase (after − before)/before of the
// benign next-token cross-entropy once the projector is on: 0.02 is the
// default 2 % budget. before must be positive.
func Collateral(ceBefore, ceAfter float64) (float64, error) {
	if !(ceBefore > 0) || math.IsNaN(ceAfter) {
		return 0, fmt.Errorf("snipe: collateral: undefined for cross-entropy %g → %g", ceBefore, ceAfter)
	}
	return (ceAfter - ceBefore) / ceBefore, nil
}

// Projector removes a set of UGT coordinates from hidden states:
// h ← h − Q Qᵀ(h − μ) with Q = orth(B[:, Coords]). The span it removes is
// exactly a TEH forbidden subspace (the same Q about the same μ), so it is
// one: D, Coords, Mu and Q are the Subspace's. It is read-only after
// construction, so one Projector may serve many goroutines.
type Projector struct {
	teh.Subspace
}

// NewProjector builds the projector that removes coordinates coords
// (non-empty, distinct, in 0…k−1) of the UGT basis B (d×k) about the mean
// mu (length d). Coords and Mu are copied.
func NewProjector(b *mat.Dense, mu []float64, coords []int) (*Projector, error) {
	sub, err := teh.NewSubspace(b, mu, coords)
	if err != nil {
		return nil, fmt.Errorf("snipe: projector: %w", err)
	}
	return &Projector{Subspace: *sub}, nil
}

// Apply projects h in place. It runs per token inside the forward pass, so
// it has no error result: an h of the wrong length (or a broken Projector)
// is left unchanged. Validate the width once with ApplyChecked, or Check,
// when wiring the projector in.
func (p *Projector) Apply(h []float64) { _ = apply(p, h) }

// ApplyF32 is Apply for a float32 hidden state (the engine's native width);
// the projection is computed in float64 and rounded back once.
func (p *Projector) ApplyF32(h []float32) { _ = apply(p, h) }

// ApplyChecked is Apply that reports a shape mismatch instead of skipping.
func (p *Projector) ApplyChecked(h []float64) error { return apply(p, h) }

// Check reports whether the projector is well formed for hidden states of
// width d.
func (p *Projector) Check(d int) error {
	if p == nil {
		return fmt.Errorf("snipe: nil projector")
	}
	if err := p.Subspace.Validate(); err != nil {
		return fmt.Errorf("snipe: projector: %w", err)
	}
	if d != p.D {
		return fmt.Errorf("snipe: hidden state has length %d, projector expects %d", d, p.D)
	}
	return nil
}

// stackCols is the largest coordinate set whose projection fits in a stack
// buffer, keeping Apply allocation-free for the default 20 coordinates.
const stackCols = 64

func apply[T float32 | float64](p *Projector, h []T) error {
	if err := p.Check(len(h)); err != nil {
		return err
	}
	raw := p.Q.RawMatrix()
	m := raw.Cols
	var buf [stackCols]float64
	var y []float64
	if m <= stackCols {
		y = buf[:m]
	} else {
		y = make([]float64, m)
	}
	ugt.AccumCentred(raw, h, p.Mu, y)
	// h_i −= ⟨Q[i, :], y⟩, again walking Q's rows in memory order.
	for i := range h {
		row := raw.Data[i*raw.Stride : i*raw.Stride+m]
		h[i] = T(float64(h[i]) - floats.Dot(row, y))
	}
	return nil
}
