package session

import (
	"context"

	"github.com/isagi-lab/isagi/geometry"
	"github.com/isagi-lab/isagi/geometry/evaluate"
)

// EvaluateOGD is `isagi eval ogd`: from each start, an exploration chain
// with alphas and the same chain unexplored (α 0 at every step, the same
// seed, seed+i for start i), with the overall gauge, its flag at τ and the
// refusal count on every reply. The session must run a profile
// (SetGeometry); its knobs (max_tokens, temperature) size the replies, and
// its conversation is left as it was (ExploreChain restores it).
func EvaluateOGD(ctx context.Context, s *Session, starts []string, alphas []float64, seed uint64, progress geometry.Progress) (*evaluate.OGDReport, error) {
	p := s.gm.Profile()
	if p == nil {
		return nil, ErrNoGeometry
	}
	if progress == nil {
		progress = func(string, int, int) {}
	}
	rep := evaluate.NewOGDReport(alphas, p.Overall.ROC.Tau)
	rep.Concepts = len(starts)
	zeros := make([]float64, len(alphas))
	for i, c := range starts {
		progress("chains", i, len(starts))
		for _, arm := range []struct {
			explored bool
			alphas   []float64
		}{{true, alphas}, {false, zeros}} {
			ch, err := s.gm.ExploreChain(ctx, c, arm.alphas, seed+uint64(i), nil)
			if err != nil {
				return nil, err
			}
			for j, st := range ch.Steps {
				if err := rep.Add(j, arm.explored, float64(st.TEH), float64(st.TEHPeak), st.Text); err != nil {
					return nil, err
				}
			}
		}
	}
	progress("chains", len(starts), len(starts))
	rep.Finish()
	return rep, nil
}
