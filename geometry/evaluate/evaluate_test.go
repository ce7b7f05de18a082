package evaluate_test

import (
	"context"
	"math"
	"testing"

	"github.com/isagi-lab/isagi/geometry"
	"github.com/isagi-lab/isagi/geometry/evaluate"
	"github.com/isagi-lab/isagi/internal/testkit/kjvgeo"
	"github.com/isagi-lab/isagi/prompts"
	"github.com/isagi-lab/isagi/session"
)

// The kjv fixture's geometry the tests measure (internal/testkit/kjvgeo).
func smallSet(t testing.TB) *prompts.Set        { return kjvgeo.SmallSet(t) }
func smallOptions() geometry.Options            { return kjvgeo.SmallOptions() }
func openKJV(t testing.TB) *session.Session     { return kjvgeo.Open(t) }
func kjvProfile(t testing.TB) *geometry.Profile { return kjvgeo.Profile(t) }

// TestTEH reads every gauge on the held-out split: each category
// over its own harm prompts against every benign and zone prompt, with an
// AUROC that agrees with the operating point.
func TestTEH(t *testing.T) {
	p := kjvProfile(t)
	s := openKJV(t)
	set := smallSet(t)
	rep, err := evaluate.TEH(context.Background(), s.Geometry().CalibrationSource(), p, set, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Categories) != 8 || rep.Prompts != 4*3+8*3*2 {
		t.Fatalf("%d categories over %d prompts", len(rep.Categories), rep.Prompts)
	}
	for _, c := range rep.Categories {
		if c.TP+c.FN != 3 || c.FP+c.TN != 3+12 {
			t.Fatalf("%s: counts %+v, want 3 harm and 15 benign", c.Name, c.ROC)
		}
		// The AUROC is over the same scores as the operating point: a gauge
		// that detects every harm prompt with no false positive separates
		// them completely.
		if c.Forbidden > 0 && (c.AUROC == nil || *c.AUROC < 0 || *c.AUROC > 1 || (c.TPR == 1 && c.FPR == 0 && *c.AUROC != 1)) {
			t.Fatalf("%s: AUROC %v with TPR %g, FPR %g", c.Name, c.AUROC, c.TPR, c.FPR)
		}
		// The TPR at 1 % FPR is over the same scores: 15 benign prompts
		// allow no false positive, and complete separation detects all.
		if c.Forbidden > 0 {
			lf := c.TPRAtLowFPR
			if lf == nil || lf.Positives != 3 || lf.Negatives != 15 || lf.MaxFP != 0 || lf.FP != 0 || lf.TPR < 0 || lf.TPR > 1 || (*c.AUROC == 1 && lf.TPR != 1) {
				t.Fatalf("%s: TPR at 1 %% FPR %+v with AUROC %g", c.Name, lf, *c.AUROC)
			}
		}
	}
}

// TestTEHPositions reads the gauges at each position of the held-out
// turns: every position scores the same prompts, the three positions read
// different states, and each AUROC is a probability.
func TestTEHPositions(t *testing.T) {
	p := kjvProfile(t)
	s := openKJV(t)
	set := smallSet(t)
	ps, err := evaluate.TEHPositions(context.Background(), s.Geometry().CalibrationSource(), p, set, 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 3 || ps[0].Name != evaluate.PosPromptMean || ps[1].Name != evaluate.PosLastPrompt || ps[2].Name != evaluate.PosReply {
		t.Fatalf("positions %+v", ps)
	}
	var aurocs []float64
	for _, pos := range ps {
		o := pos.Overall
		if o.TP+o.FN != 8*3 || o.FP+o.TN != 8*3 || len(pos.Categories) != 8 {
			t.Fatalf("%s: counts %+v over %d categories, want 24 harm and 24 benign", pos.Name, o.ROC, len(pos.Categories))
		}
		if o.AUROC == nil || pos.ProbeAUROC == nil || *o.AUROC < 0 || *o.AUROC > 1 || *pos.ProbeAUROC < 0 || *pos.ProbeAUROC > 1 {
			t.Fatalf("%s: AUROC %v, probe %v", pos.Name, o.AUROC, pos.ProbeAUROC)
		}
		if o.TPRAtLowFPR == nil || pos.ProbeTPRAtLowFPR == nil || o.TPRAtLowFPR.Negatives != 8*3 || pos.ProbeTPRAtLowFPR.Positives != 8*3 {
			t.Fatalf("%s: TPR at 1 %% FPR %+v, probe %+v", pos.Name, o.TPRAtLowFPR, pos.ProbeTPRAtLowFPR)
		}
		aurocs = append(aurocs, *o.AUROC)
	}
	if aurocs[0] == aurocs[1] && aurocs[1] == aurocs[2] {
		t.Errorf("every position gave AUROC %g: the positions read the same states", aurocs[0])
	}
	// The prompt mean is what TEH reads; over the same pairs
	// (without the zones) its operating point is the same gauge's.
	rep, err := evaluate.TEH(context.Background(), s.Geometry().CalibrationSource(), p, set, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ps[0].Overall.TP != rep.Overall.TP {
		t.Errorf("prompt mean detects %d, eval teh %d, of the same harm prompts", ps[0].Overall.TP, rep.Overall.TP)
	}
	if _, err := evaluate.TEHPositions(context.Background(), s.Geometry().CalibrationSource(), p, set, 0, nil); err == nil {
		t.Error("0 reply tokens accepted")
	}
}

// TestGaugePositionLast: a profile whose gauges read the last prompt token
// is evaluated there: eval teh detects what the last prompt token
// position of --positions detects, of the same harm prompts.
func TestGaugePositionLast(t *testing.T) {
	s := openKJV(t)
	o := smallOptions()
	o.GaugePosition = geometry.GaugeLast
	p, err := geometry.Calibrate(context.Background(), s.Geometry().CalibrationSource(), smallSet(t), o, nil)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := evaluate.TEH(context.Background(), s.Geometry().CalibrationSource(), p, smallSet(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := evaluate.TEHPositions(context.Background(), s.Geometry().CalibrationSource(), p, smallSet(t), 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Overall.TP != ps[1].Overall.TP || rep.Overall.TP+rep.Overall.FN != ps[1].Overall.TP+ps[1].Overall.FN {
		t.Errorf("eval teh detects %d, the last prompt token position %d, of the same harm prompts", rep.Overall.TP, ps[1].Overall.TP)
	}
}

// TestRefusals runs Heretic's metric on kjv's profile over a small
// held-out set: every intervention is counted over the same prompts, the
// unintervened reply is the reference of the KL divergences, and the
// projectors do move the first token's distribution.
func TestRefusals(t *testing.T) {
	p := kjvProfile(t)
	s := openKJV(t)
	set := smallSet(t)
	rep, err := evaluate.Refusals(context.Background(), s.Geometry().CalibrationSource(), p, set, evaluate.RefusalOptions{PerCategory: 1, MaxTokens: 6}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Harmful != 8 || rep.Harmless != 8 || rep.MaxTokens != 6 {
		t.Fatalf("report over %d harmful, %d harmless prompts, %d tokens", rep.Harmful, rep.Harmless, rep.MaxTokens)
	}
	names := map[string]bool{}
	for _, r := range rep.Results {
		names[r.Name] = true
		if r.Refusals < 0 || r.Refusals > rep.Harmful || r.KL < 0 || math.IsNaN(r.KL) {
			t.Errorf("%s: %d refusals, KL %g", r.Name, r.Refusals, r.KL)
		}
	}
	if rep.Results[0].Name != "none" || rep.Results[0].KL != 0 || !names["union"] || !names["diff-in-means"] {
		t.Fatalf("results %+v", rep.Results)
	}
	for _, r := range rep.Results {
		if r.Name == "union" && !(r.KL > 1e-6) {
			t.Errorf("removing %d coordinates left the first token's distribution unchanged (KL %g)", r.Coords, r.KL)
		}
	}
	if _, ok := rep.Examples["none"]; !ok {
		t.Error("no example reply")
	}
}
