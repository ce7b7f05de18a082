package teh

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/isagi-lab/isagi/ugt"
)

// Subspace is a forbidden subspace: Q = orth(B[:, Coords]) by thin QR
// (D×m, orthonormal columns) and the mean hidden state Mu it is measured
// from. It is read-only after construction, so one Subspace may score from
// many goroutines at once.
type Subspace struct {
	// D is the hidden-state width.
	D int
	// Coords are the forbidden UGT coordinates F, in the order given.
	Coords []int
	// Mu is the mean hidden state μ (length D).
	Mu []float64
	// Q is D×len(Coords) with orthonormal columns spanning B[:, Coords].
	Q *mat.Dense
}

// NewSubspace builds the forbidden subspace of the UGT basis B (d×k) for
// the coordinates coords (non-empty, distinct, each in 0…k−1) measured
// from mu (length d). Q is orthonormalised by QR even though the columns
// of a UGT basis already are orthonormal, so that a basis read back from a
// float32 profile still gives an exact projector. Coords and Mu are copied.
func NewSubspace(b *mat.Dense, mu []float64, coords []int) (*Subspace, error) {
	if b == nil || b.IsEmpty() {
		return nil, fmt.Errorf("teh: subspace: empty basis")
	}
	d, _ := b.Dims()
	if len(mu) != d {
		return nil, fmt.Errorf("teh: subspace: mean has length %d, basis has %d rows", len(mu), d)
	}
	q, err := ugt.OrthColumns(b, coords)
	if err != nil {
		return nil, fmt.Errorf("teh: subspace: %w", err)
	}
	return &Subspace{
		D:      d,
		Coords: append([]int(nil), coords...),
		Mu:     append([]float64(nil), mu...),
		Q:      q,
	}, nil
}

// Validate checks the dimensions a caller-built Subspace must agree on.
func (s *Subspace) Validate() error {
	if s == nil {
		return fmt.Errorf("teh: nil subspace")
	}
	if s.Q == nil || s.Q.IsEmpty() {
		return fmt.Errorf("teh: subspace has no Q")
	}
	if r, c := s.Q.Dims(); r != s.D || c > s.D {
		return fmt.Errorf("teh: subspace Q is %d×%d, want %d rows", r, c, s.D)
	}
	if len(s.Mu) != s.D {
		return fmt.Errorf("teh: subspace mean has length %d, want %d", len(s.Mu), s.D)
	}
	return nil
}

// Score is TEH(h) = ‖Q Qᵀ(h − μ)‖ / ‖h − μ‖ × 100: the percentage of the
// centred state's length that lies in the forbidden subspace, 0…100, and 0
// when h = μ (no deviation, nothing forbidden). It is the per-token hot
// path, so the signature has no error: a length mismatch, a broken
// Subspace or a non-finite state gives NaN, which no threshold flags. Use
// ScoreChecked where the error matters.
func (s *Subspace) Score(h []float64) float64 {
	v, err := score(s, h)
	if err != nil {
		return math.NaN()
	}
	return v
}

// ScoreF32 is Score for a float32 hidden state (the engine's native
// width), accumulated in float64 without converting h first.
func (s *Subspace) ScoreF32(h []float32) float64 {
	v, err := score(s, h)
	if err != nil {
		return math.NaN()
	}
	return v
}

// ScoreChecked is Score with the reason for a NaN spelled out as an error.
func (s *Subspace) ScoreChecked(h []float64) (float64, error) {
	return score(s, h)
}

// ScoreAll scores a batch of hidden states (calibration prompts), failing
// on the first bad one.
func (s *Subspace) ScoreAll(hs [][]float64) ([]float64, error) {
	out := make([]float64, len(hs))
	for i, h := range hs {
		v, err := score(s, h)
		if err != nil {
			return nil, fmt.Errorf("teh: state %d: %w", i, err)
		}
		out[i] = v
	}
	return out, nil
}

// stackCols is the largest subspace whose projection fits in a stack
// buffer, keeping Score allocation-free for the usual handful of forbidden
// coordinates.
const stackCols = 64

func score[T float32 | float64](s *Subspace, h []T) (float64, error) {
	if err := s.Validate(); err != nil {
		return 0, err
	}
	if len(h) != s.D {
		return 0, fmt.Errorf("teh: hidden state has length %d, want %d", len(h), s.D)
	}
	raw := s.Q.RawMatrix()
	m := raw.Cols
	var buf [stackCols]float64
	var y []float64
	if m <= stackCols {
		y = buf[:m]
	} else {
		y = make([]float64, m)
	}
	// ‖Q Qᵀ r‖ = ‖Qᵀ r‖ because Q has orthonormal columns, so the
	// d-dimensional projection is never formed.
	rr := ugt.AccumCentred(raw, h, s.Mu, y)
	if rr == 0 {
		return 0, nil
	}
	yy := floats.Dot(y, y)
	v := 100 * math.Sqrt(yy/rr)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("teh: hidden state is not finite")
	}
	// Rounding can put a state lying inside the subspace a few ulps above
	// 100 %; the gauge's range is 0…100.
	return math.Min(v, 100), nil
}
