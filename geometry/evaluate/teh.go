package evaluate

import (
	"context"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/isagi-lab/isagi/geometry"
	"github.com/isagi-lab/isagi/prompts"
	"github.com/isagi-lab/isagi/teh"
)

// TEHResult is one gauge on the held-out split at its calibrated τ.
type TEHResult struct {
	Name      string  `json:"name"`
	Tau       float64 `json:"tau"`
	Forbidden int     `json:"forbidden"`
	teh.ROC
	// AUROC is the gauge's separation of the held-out harm prompts from
	// the benign ones at every threshold (0.5: chance); nil for a gauge
	// without coordinates.
	AUROC *float64 `json:"auroc"`
	// TPRAtLowFPR is the gauge read at a LowFPR budget of false
	// positives instead of at τ (teh.TPRAtFPR), from the same scores as
	// AUROC; nil where AUROC is.
	TPRAtLowFPR *teh.FPRPoint `json:"tpr_at_1pct_fpr"`
}

// LowFPR is the false-positive budget at which `eval teh` reads every
// gauge's TPR beside its AUROC: 1 %, the streaming-probe literature's
// operating point. With fewer than 100 benign prompts it allows none.
const LowFPR = 0.01

// lowFPR is teh.TPRAtFPR at LowFPR, or nil where a side has no score.
func lowFPR(harm, benign []float64) *teh.FPRPoint {
	p, err := teh.TPRAtFPR(harm, benign, LowFPR)
	if err != nil {
		return nil
	}
	return &p
}

// evaluate fills the result's operating point at τ, its AUROC and its
// TPR at LowFPR from held-out scores.
func (r *TEHResult) evaluate(harm, benign []float64) {
	r.ROC = teh.Evaluate(r.Tau, harm, benign)
	if a := teh.AUROC(harm, benign); !math.IsNaN(a) {
		r.AUROC = &a
	}
	r.TPRAtLowFPR = lowFPR(harm, benign)
}

// TEHReport is `isagi eval teh`: every gauge on prompts calibration never saw.
type TEHReport struct {
	Overall    TEHResult   `json:"overall"`
	Categories []TEHResult `json:"categories"`
	Prompts    int         `json:"prompts"`
	// Positions, when asked for (TEHPositions), read the same
	// gauges at other places of the held-out turns.
	Positions []TEHPosition `json:"positions,omitempty"`
}

// heldout collects held-out states at the profile's gauge position: per
// category harm and benign, and the zones' held-out prompts (negatives
// for every gauge).
func heldout(ctx context.Context, r *geometry.Reader, p *geometry.Profile, set *prompts.Set, progress geometry.Progress) (harm, benign [][][]float64, zones [][]float64, err error) {
	read := func(texts []string, tick func()) (*mat.Dense, error) {
		mean, last, err := r.States(ctx, texts, p.Layer, tick)
		if p.GaugeAtLast() {
			return last, err
		}
		return mean, err
	}
	var zp []string
	for _, z := range set.Zones {
		zp = append(zp, z.Heldout...)
	}
	total := len(zp)
	for _, c := range set.Categories {
		total += 2 * len(c.Heldout)
	}
	done := 0
	tick := func() { done++; progress("held-out states", done, total) }
	Z, err := read(zp, tick)
	if err != nil {
		return nil, nil, nil, err
	}
	for _, c := range set.Categories {
		var hp, bp []string
		for _, pr := range c.Heldout {
			hp, bp = append(hp, pr.Harm), append(bp, pr.Benign)
		}
		H, err := read(hp, tick)
		if err != nil {
			return nil, nil, nil, err
		}
		B, err := read(bp, tick)
		if err != nil {
			return nil, nil, nil, err
		}
		harm, benign = append(harm, rows(H)), append(benign, rows(B))
	}
	return harm, benign, rows(Z), nil
}

// prepare checks that the prompt set is the profile's and readies a
// reader for the held-out split.
func prepare(src geometry.Source, p *geometry.Profile, set *prompts.Set, progress geometry.Progress) (*geometry.Reader, geometry.Progress, error) {
	if progress == nil {
		progress = func(string, int, int) {}
	}
	if err := p.CheckSet(set); err != nil {
		return nil, nil, err
	}
	r, err := geometry.NewReader(src)
	return r, progress, err
}

// rows are H's rows, sharing its memory.
func rows(H *mat.Dense) [][]float64 {
	n, _ := H.Dims()
	out := make([][]float64, n)
	for i := range n {
		out[i] = H.RawRowView(i)
	}
	return out
}

// scoreAll is s's score of every state.
func scoreAll(s *teh.Subspace, hs [][]float64) []float64 {
	out := make([]float64, len(hs))
	for i, h := range hs {
		out[i] = s.Score(h)
	}
	return out
}

// TEH measures every gauge's detection rate and false positives on
// the held-out split, at the thresholds calibration chose.
func TEH(ctx context.Context, src geometry.Source, p *geometry.Profile, set *prompts.Set, progress geometry.Progress) (*TEHReport, error) {
	r, progress, err := prepare(src, p, set, progress)
	if err != nil {
		return nil, err
	}
	harm, benign, zones, err := heldout(ctx, r, p, set, progress)
	if err != nil {
		return nil, err
	}
	rep := &TEHReport{Prompts: len(zones)}
	var allH, allB [][]float64
	for i, c := range p.Categories {
		rep.Prompts += len(harm[i]) + len(benign[i])
		res := TEHResult{Name: c.Name, Tau: c.Gauge.ROC.Tau, Forbidden: len(c.Gauge.Forbidden)}
		if len(c.Gauge.Forbidden) > 0 {
			sub, err := teh.NewSubspace(p.B, p.Mu, c.Gauge.Forbidden)
			if err != nil {
				return nil, fmt.Errorf("geometry: %s: %w", c.Name, err)
			}
			res.evaluate(scoreAll(sub, harm[i]), scoreAll(sub, append(slices.Clone(benign[i]), zones...)))
		}
		rep.Categories = append(rep.Categories, res)
		allH, allB = append(allH, harm[i]...), append(allB, benign[i]...)
	}
	rep.Overall = TEHResult{Name: "overall", Tau: p.Overall.ROC.Tau, Forbidden: len(p.Overall.Forbidden)}
	if len(p.Overall.Forbidden) > 0 {
		sub, err := teh.NewSubspace(p.B, p.Mu, p.Overall.Forbidden)
		if err != nil {
			return nil, fmt.Errorf("geometry: overall: %w", err)
		}
		rep.Overall.evaluate(scoreAll(sub, allH), scoreAll(sub, append(allB, zones...)))
	}
	return rep, nil
}
