package geometry

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/ogd"
	"github.com/isagi-lab/isagi/ugt"
)

// Fingerprint identifies the profile's coordinate system (its μ and B):
// anything stored in basis coordinates — a COG manifold — is only
// meaningful with the profile that made it.
func (p *Profile) Fingerprint() string {
	h := sha256.New()
	h.Write(float64Bytes(p.Mu))
	h.Write(float64Bytes(p.B.RawMatrix().Data))
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// Embedder turns a query into its COG embedding q = Bᵀ(h − μ)
// (docs/mechanisms.md §9): h is the mean probe-layer state of the query read as
// a fresh user turn — the statistic calibration used — so that a question
// asked again later in another conversation lands on the same point.
type Embedder struct {
	r     *runner
	p     *Profile
	basis *ugt.Basis
}

// NewEmbedder prepares an embedder with its own model state (the
// conversation's KV cache is not touched).
func NewEmbedder(src Source, p *Profile) (*Embedder, error) {
	r, err := newRunner(src)
	if err != nil {
		return nil, err
	}
	return &Embedder{r: r, p: p, basis: &ugt.Basis{D: p.D, K: p.K, Mu: p.Mu, B: p.B}}, nil
}

// State is the mean probe-layer state of text read as a user turn.
func (e *Embedder) State(ctx context.Context, text string) ([]float64, error) {
	H, _, err := e.r.states(ctx, []string{text}, e.p.Layer, nil, nil)
	if err != nil {
		return nil, err
	}
	return H.RawRowView(0), nil
}

// Embed is the query's embedding in basis coordinates (length k).
func (e *Embedder) Embed(ctx context.Context, text string) ([]float64, error) {
	h, err := e.State(ctx, text)
	if err != nil {
		return nil, err
	}
	return e.basis.Coords(h, nil)
}

// Explorer is a Safe OGD step (docs/mechanisms.md §8) as a model hook: at the
// injection block it moves the residual stream along a direction and
// removes the forbidden subspace, h ← μ + P_safe((h − μ) + α‖h − μ‖v̂), for
// every position, so the model explores without entering the gauge's
// forbidden coordinates at that block.
type Explorer struct {
	Layer int
	P     *ogd.Projector
	// Source says where the direction came from, for display.
	Source string
	// aff is P's step for a backend to apply (model.AffineHook), made
	// from affOf: remade when P is replaced.
	aff   *model.Affine
	affOf *ogd.Projector
}

// AffineAt implements model.AffineHook: the step at its layer, applied by
// the backend (float32 parameters; the CPU backend accumulates in float64
// as P.Apply does).
func (x *Explorer) AffineAt(layer int) (*model.Affine, bool) {
	if layer != x.Layer || x.P == nil {
		return nil, false
	}
	if x.affOf != x.P {
		q, m, mu, v, alpha := x.P.Live()
		x.aff, x.affOf = &model.Affine{Q: q, K: m, Mu: mu, Dir: v, Alpha: alpha}, x.P
	}
	return x.aff, false
}

// ReadBlock implements model.AffineHook: the step reads nothing.
func (x *Explorer) ReadBlock(int, int, []float32) {}

// HookLayers implements model.LayerHook: the step acts at its one layer.
// (It writes there, so it has no ReadOnly.)
func (x *Explorer) HookLayers() []int { return []int{x.Layer} }

// AfterBlock implements model.BlockHook.
func (x *Explorer) AfterBlock(layer, _ int, h []float32) {
	if layer == x.Layer {
		_ = x.P.Apply(h) // the length was checked when the explorer was built
	}
}

// NewExplorer builds the OGD step at the profile's probe block, with the
// overall gauge's coordinates as the forbidden subspace. dir is a
// d-dimensional direction (see Direction).
func NewExplorer(p *Profile, dir []float64, alpha float64, source string) (*Explorer, error) {
	var forbidden mat.Matrix
	if len(p.Overall.Forbidden) > 0 {
		q := mat.NewDense(p.D, len(p.Overall.Forbidden), nil)
		for j, c := range p.Overall.Forbidden {
			for i := range p.D {
				q.Set(i, j, p.B.At(i, c))
			}
		}
		forbidden = q
	}
	pr, err := ogd.NewProjector(forbidden, p.Mu, dir, alpha)
	if err != nil {
		return nil, fmt.Errorf("geometry: exploration step: %w", err)
	}
	if pr.Dim() != p.D {
		return nil, fmt.Errorf("geometry: exploration step of width %d for a %d-wide profile", pr.Dim(), p.D)
	}
	return &Explorer{Layer: p.Layer, P: pr, Source: source}, nil
}

// Direction picks the exploration direction in hidden space: the top
// eigenvector of the COG metric mapped through the basis (v = B·u) when
// the manifold has grown a dominant direction, else the first UGT axis
// outside the forbidden set (the direction the calibration prompts vary
// along most). It says which.
func Direction(p *Profile, metric *mat.SymDense) (dir []float64, source string, err error) {
	if metric != nil {
		if u, err := ogd.TopEigenvector(metric); err == nil {
			v := mat.NewVecDense(p.D, nil)
			v.MulVec(p.B, mat.NewVecDense(len(u), u))
			return v.RawVector().Data, "top eigenvector of M", nil
		}
	}
	// The first axis outside the forbidden set: a forbidden axis would be
	// removed by the very projection that follows the step.
	for i := range p.K {
		if slices.Contains(p.Overall.Forbidden, i) {
			continue
		}
		v, err := ogd.Axis(p.B, i)
		if err != nil {
			return nil, "", fmt.Errorf("geometry: %w", err)
		}
		return v, fmt.Sprintf("UGT axis %d", i+1), nil
	}
	return nil, "", fmt.Errorf("geometry: every UGT axis is forbidden: no direction to explore")
}
