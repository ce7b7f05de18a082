package geometry

import (
	"context"
	"fmt"
	"slices"

	"github.com/isagi-lab/isagi/prompts"
)

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

// SnipeReport is `isagi eval snipe`, and what Calibrate keeps of it as
// each projector's held-out measure (Snipe.HeldOut).
type SnipeReport struct {
	Categories   []SnipeResult `json:"categories"`
	BenignTokens int           `json:"benign_tokens"`
	BaselineCE   float64       `json:"baseline_ce"`
}

// CheckSet refuses a prompt set whose categories are not the profile's
// (a profile from another build of the sets): a held-out measurement
// pairs the set's categories with the profile's by position.
func (p *Profile) CheckSet(set *prompts.Set) error {
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
	if err := p.CheckSet(set); err != nil {
		return nil, nil, err
	}
	r, err := newRunner(src)
	return r, progress, err
}

// EvaluateSnipe measures every projector's harm reduction on the held-out
// harm prompts and its collateral on the held-out benign text (at most
// benignTokens tokens of it). Calibration runs it, so that what a user is
// shown of a projector was measured on prompts it was not selected on:
// it is geometry's, not geometry/evaluate's.
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
