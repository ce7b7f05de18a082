package geometry

import (
	"context"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

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
}

// evaluate fills the result's operating point at τ and its AUROC from
// held-out scores.
func (r *TEHResult) evaluate(harm, benign []float64) {
	r.ROC = teh.Evaluate(r.Tau, harm, benign)
	if a := teh.AUROC(harm, benign); !math.IsNaN(a) {
		r.AUROC = &a
	}
}

// TEHReport is `isagi eval teh`: every gauge on prompts calibration never saw.
type TEHReport struct {
	Overall    TEHResult   `json:"overall"`
	Categories []TEHResult `json:"categories"`
	Prompts    int         `json:"prompts"`
	// Positions, when asked for (EvaluateTEHPositions), read the same
	// gauges at other places of the held-out turns.
	Positions []TEHPosition `json:"positions,omitempty"`
}

// SnipeResult is one projector on the held-out split.
type SnipeResult struct {
	Name       string  `json:"name"`
	Coords     int     `json:"coords"`
	Reduction  float64 `json:"reduction"`
	Collateral float64 `json:"collateral"`
	// Calibration's own figures, for comparison.
	CalReduction  float64 `json:"calibration_reduction"`
	CalCollateral float64 `json:"calibration_collateral"`
}

// SnipeReport is `isagi eval snipe`.
type SnipeReport struct {
	Categories   []SnipeResult `json:"categories"`
	BenignTokens int           `json:"benign_tokens"`
	BaselineCE   float64       `json:"baseline_ce"`
}

// heldout collects held-out states at the profile's gauge position: per
// category harm and benign, and the zones' held-out prompts (negatives
// for every gauge).
func heldout(ctx context.Context, r *runner, p *Profile, set *prompts.Set, progress Progress) (harm, benign [][][]float64, zones [][]float64, err error) {
	read := func(texts []string, tick func()) (*mat.Dense, error) {
		mean, last, _, err := r.statesAt(ctx, texts, p.Layer, nil, tick)
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

// categoriesMatch refuses a prompt set whose categories are not the
// profile's (a profile from another build of the sets).
func categoriesMatch(p *Profile, set *prompts.Set) error {
	names := make([]string, len(set.Categories))
	for i, c := range set.Categories {
		names[i] = c.Name
	}
	if !slices.Equal(names, p.CategoryNames()) {
		return fmt.Errorf("geometry: the profile's categories %v are not the prompt set's %v: calibrate again", p.CategoryNames(), names)
	}
	return nil
}

// prepareEval checks that the prompt set is the profile's and readies a
// model state for the held-out split.
func prepareEval(src Source, p *Profile, set *prompts.Set, progress Progress) (*runner, Progress, error) {
	if progress == nil {
		progress = func(string, int, int) {}
	}
	if err := categoriesMatch(p, set); err != nil {
		return nil, nil, err
	}
	r, err := newRunner(src)
	return r, progress, err
}

// EvaluateTEH measures every gauge's detection rate and false positives on
// the held-out split, at the thresholds calibration chose.
func EvaluateTEH(ctx context.Context, src Source, p *Profile, set *prompts.Set, progress Progress) (*TEHReport, error) {
	r, progress, err := prepareEval(src, p, set, progress)
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

// EvaluateSnipe measures every projector's harm reduction on the held-out
// harm prompts and its collateral on the held-out benign text (at most
// benignTokens tokens of it).
func EvaluateSnipe(ctx context.Context, src Source, p *Profile, set *prompts.Set, benignTokens int, progress Progress) (*SnipeReport, error) {
	r, progress, err := prepareEval(src, p, set, progress)
	if err != nil {
		return nil, err
	}
	seqs, n, err := tokenizeBudget(src, set.Benign.Heldout, benignTokens, r.st.Cap())
	if err != nil {
		return nil, err
	}
	sc, err := newScorer(ctx, r, p, seqs)
	if err != nil {
		return nil, err
	}
	base, err := sc.crossEntropy(ctx, nil)
	if err != nil {
		return nil, err
	}
	rep := &SnipeReport{BenignTokens: n, BaselineCE: base}
	for i, c := range p.Categories {
		progress("snipe", i, len(p.Categories))
		res := SnipeResult{Name: c.Name, Coords: len(c.Snipe.Coords), CalReduction: c.Snipe.Reduction, CalCollateral: c.Snipe.Collateral}
		if len(c.Snipe.Coords) > 0 {
			var hp []string
			for _, pr := range set.Categories[i].Heldout {
				hp = append(hp, pr.Harm)
			}
			H, _, err := r.states(ctx, hp, p.Layer, nil, nil)
			if err != nil {
				return nil, err
			}
			ev := &snipeEval{ctx: ctx, r: r, p: p, dir: c.Direction, prompts: hp, harm: rows(H), benign: sc, baseCE: base}
			if res.Reduction, res.Collateral, err = ev.measure(c.Snipe.Coords); err != nil {
				return nil, err
			}
		}
		rep.Categories = append(rep.Categories, res)
	}
	progress("snipe", len(p.Categories), len(p.Categories))
	return rep, nil
}
