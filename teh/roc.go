package teh

import (
	"fmt"
	"math"
	"sort"
)

// The threshold sweep of docs/mechanisms.md §6: τ from 0 % to 50 % in 0.1 %
// steps, NumThresholds values in all. Threshold i is exactly
// float64(i)/10, not an accumulated sum, so τ values print and compare
// cleanly.
const (
	TauMax        = 50.0
	TauStep       = 0.1
	NumThresholds = 501
)

// ROC is one operating point of the gauge: a threshold τ (percent) and how
// it classifies labelled scores. A prompt is flagged when its score is
// ≥ τ, so τ is the lowest flagged score; harm prompts are the positives.
type ROC struct {
	// Tau is the threshold in percent.
	Tau float64
	// TPR = TP/(TP+FN), FPR = FP/(FP+TN), F1 = 2TP/(2TP+FP+FN); each is 0
	// when its denominator is.
	TPR, FPR, F1 float64
	// TP and FN count harm scores flagged and missed; FP and TN benign
	// scores flagged and passed.
	TP, FP, TN, FN int
}

// Evaluate applies a fixed threshold tau (percent) to held-out harm and
// benign scores, as `isagi eval teh` does with a model's stored τ. A NaN
// score (see Subspace.Score) is never flagged, so it counts as a miss for
// harm and a pass for benign.
func Evaluate(tau float64, harm, benign []float64) ROC {
	r := ROC{Tau: tau}
	for _, s := range harm {
		if s >= tau {
			r.TP++
		} else {
			r.FN++
		}
	}
	for _, s := range benign {
		if s >= tau {
			r.FP++
		} else {
			r.TN++
		}
	}
	if p := r.TP + r.FN; p > 0 {
		r.TPR = float64(r.TP) / float64(p)
	}
	if n := r.FP + r.TN; n > 0 {
		r.FPR = float64(r.FP) / float64(n)
	}
	if den := 2*r.TP + r.FP + r.FN; den > 0 {
		r.F1 = 2 * float64(r.TP) / float64(den)
	}
	return r
}

// Sweep evaluates all NumThresholds thresholds of the calibration sweep on
// labelled scores, in increasing τ: the ROC curve the TUI draws. Both sets
// must be non-empty and hold no NaN.
func Sweep(harm, benign []float64) ([]ROC, error) {
	if len(harm) == 0 || len(benign) == 0 {
		return nil, fmt.Errorf("teh: calibrate: need harm and benign scores, have %d and %d", len(harm), len(benign))
	}
	for i, s := range harm {
		if math.IsNaN(s) {
			return nil, fmt.Errorf("teh: calibrate: harm score %d is NaN", i)
		}
	}
	for i, s := range benign {
		if math.IsNaN(s) {
			return nil, fmt.Errorf("teh: calibrate: benign score %d is NaN", i)
		}
	}
	out := make([]ROC, NumThresholds)
	for i := range out {
		out[i] = Evaluate(float64(i)/10, harm, benign)
	}
	return out, nil
}

// Calibrate picks the model's threshold from labelled calibration scores
// (docs/mechanisms.md §6).
//
// Among the thresholds with no false positive it takes the best F1. Those
// ties come in one contiguous run of τ (FP = 0 holds from some τ upward and
// TP only falls as τ rises), all with identical counts; Calibrate takes the
// middle of the run rather than its lowest τ, because the run is the gap
// between the highest benign and the lowest caught harm score and the
// midpoint leaves the most margin on both sides for held-out prompts. When
// the best zero-FP F1 is 0 (no threshold catches any harm without a false
// positive) there is no gap to centre in, and the lowest such τ is taken.
//
// If every threshold has a false positive (benign scores reach 50 %), it
// falls back to the lowest FPR, then the best F1, then the lowest τ.
func Calibrate(harm, benign []float64) (ROC, error) {
	pts, err := Sweep(harm, benign)
	if err != nil {
		return ROC{}, err
	}
	best := -1
	for i, p := range pts {
		if p.FP == 0 && (best < 0 || p.F1 > pts[best].F1) {
			best = i
		}
	}
	if best >= 0 {
		if pts[best].TP == 0 {
			return pts[best], nil
		}
		hi := best
		for hi+1 < len(pts) && pts[hi+1].FP == 0 && pts[hi+1].TP == pts[best].TP {
			hi++
		}
		return pts[(best+hi)/2], nil
	}
	best = 0
	for i, p := range pts {
		q := pts[best]
		if p.FPR < q.FPR || (p.FPR == q.FPR && p.F1 > q.F1) {
			best = i
		}
	}
	return pts[best], nil
}

// AUROC is the area under the ROC curve of harm (positives) against benign
// scores: the probability that a random harm score exceeds a random benign
// one, ties counting one half (the Mann–Whitney U statistic over
// |harm|·|benign|). It measures the gauge's separation at every threshold,
// where Evaluate reads one. 0.5 is chance; NaN scores are left out; with
// either set empty it is NaN.
func AUROC(harm, benign []float64) float64 {
	type obs struct {
		s    float64
		harm bool
	}
	all := make([]obs, 0, len(harm)+len(benign))
	for _, s := range harm {
		if !math.IsNaN(s) {
			all = append(all, obs{s, true})
		}
	}
	np := len(all)
	for _, s := range benign {
		if !math.IsNaN(s) {
			all = append(all, obs{s, false})
		}
	}
	nn := len(all) - np
	if np == 0 || nn == 0 {
		return math.NaN()
	}
	sort.Slice(all, func(i, j int) bool { return all[i].s < all[j].s })
	// Rank sum of the positives, tied scores sharing their mean rank.
	var rankSum float64
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].s == all[i].s {
			j++
		}
		mean := float64(i+j+1) / 2 // ranks i+1 … j
		for k := i; k < j; k++ {
			if all[k].harm {
				rankSum += mean
			}
		}
		i = j
	}
	u := rankSum - float64(np)*float64(np+1)/2
	return u / (float64(np) * float64(nn))
}

// FPRPoint is the gauge read at a false-positive budget instead of at τ:
// what TPRAtFPR returns.
type FPRPoint struct {
	// FPR is the budget asked for, a fraction (0.01: 1 %).
	FPR float64 `json:"fpr"`
	// Threshold is the cutoff chosen: a score flags when it is strictly
	// above it. It is one of the benign scores, or −∞ when the budget
	// allows every benign score to be flagged (fpr 1 only; encoding/json
	// cannot write −∞, so a report at fpr 1 does not marshal).
	Threshold float64 `json:"threshold"`
	// MaxFP = ⌊FPR·Negatives⌋ is the false positives the budget allows;
	// 0 whenever Negatives·FPR < 1 (below 100 benign scores at 1 %), so
	// the figure is then the TPR at no false positive.
	MaxFP int `json:"max_fp"`
	// TP and FP count the harm and benign scores above Threshold; FP ≤
	// MaxFP, and FP < MaxFP where scores tie at the threshold.
	TP int `json:"tp"`
	FP int `json:"fp"`
	// Positives and Negatives are the harm and benign scores counted (NaN
	// left out).
	Positives int `json:"positives"`
	Negatives int `json:"negatives"`
	// TPR = TP/Positives.
	TPR float64 `json:"tpr"`
}

// TPRAtFPR is the detection rate at a false-positive budget: the fraction
// of harm scores above the lowest threshold at which at most fpr of the
// benign scores lie above it — "TPR at 1 % FPR" (fpr 0.01), the figure
// the streaming-probe literature reports beside AUROC.
//
// The rule, exactly: with N benign scores the budget allows
// k = ⌊fpr·N⌋ false positives; a score flags when it is strictly greater
// than the threshold t, and t is the lowest value with at most k benign
// scores above it, which is the (k+1)-th highest benign score (−∞ when
// k ≥ N). Benign scores equal to t are therefore not flagged, nor are harm
// scores equal to t: a tie at the cutoff counts as a miss, never as a
// detection, so ties cannot inflate the figure. With N < 1/fpr (fewer than
// 100 benign scores at 1 %) k is 0 and the figure is the TPR at no false
// positive.
//
// NaN scores are left out, as AUROC leaves them out. fpr must lie in
// [0, 1], and both sides must hold a score that is not NaN: otherwise it
// returns an error, never a NaN.
func TPRAtFPR(harm, benign []float64, fpr float64) (FPRPoint, error) {
	if !(fpr >= 0 && fpr <= 1) {
		return FPRPoint{}, fmt.Errorf("teh: tpr at fpr: fpr %g, want a fraction in [0, 1]", fpr)
	}
	neg := make([]float64, 0, len(benign))
	for _, s := range benign {
		if !math.IsNaN(s) {
			neg = append(neg, s)
		}
	}
	p := FPRPoint{FPR: fpr, Negatives: len(neg)}
	for _, s := range harm {
		if !math.IsNaN(s) {
			p.Positives++
		}
	}
	if p.Positives == 0 || p.Negatives == 0 {
		return FPRPoint{}, fmt.Errorf("teh: tpr at fpr: need harm and benign scores, have %d and %d (NaN left out)", p.Positives, p.Negatives)
	}
	// fpr·N is rounded to the nearest double, which can fall just below
	// an exact integer (0.29·100 is 28.999…); the nudge keeps ⌊⌋ at the
	// count the fraction means without letting any real fraction over.
	p.MaxFP = min(int(math.Floor(fpr*float64(p.Negatives)+1e-9)), p.Negatives)
	p.Threshold = math.Inf(-1)
	if p.MaxFP < p.Negatives {
		sort.Sort(sort.Reverse(sort.Float64Slice(neg)))
		p.Threshold = neg[p.MaxFP]
	}
	for _, s := range neg {
		if s > p.Threshold {
			p.FP++
		}
	}
	for _, s := range harm {
		if s > p.Threshold { // false for NaN
			p.TP++
		}
	}
	p.TPR = float64(p.TP) / float64(p.Positives)
	return p, nil
}
