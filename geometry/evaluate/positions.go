package evaluate

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/isagi-lab/isagi/geometry"
	"github.com/isagi-lab/isagi/prompts"
	"github.com/isagi-lab/isagi/snipe"
	"github.com/isagi-lab/isagi/teh"
)

// Positions name where in a turn a state is read: the gauge is calibrated
// on the mean over the prompt's tokens, but a chat model decides to refuse
// at the end of the prompt and says so in its reply, so `eval teh
// --positions` also reads those places.
const (
	PosPromptMean = "prompt mean"       // the mean over the prompt's tokens: what calibration and the live gauge read
	PosLastPrompt = "last prompt token" // the state the first reply token is predicted from
	PosReply      = "reply mean"        // the mean over the greedy reply's tokens as the model reads them back
)

// PositionNames returns the positions of TEHPosition, in report order.
func PositionNames() []string { return []string{PosPromptMean, PosLastPrompt, PosReply} }

// TEHPosition is every gauge read at one position of the held-out turns.
type TEHPosition struct {
	Name       string      `json:"name"`
	Overall    TEHResult   `json:"overall"`
	Categories []TEHResult `json:"categories"`
	// ProbeAUROC is the AUROC of a reference reader at this position: the
	// difference of the calibration harm and benign means (the
	// refusal-direction paper's direction, from the calibration pairs
	// only), scored by projection. It says how separable harm is at this
	// position for a linear reader, so a gauge far below it is missing
	// what the model holds, not facing a model that holds nothing.
	ProbeAUROC *float64 `json:"probe_auroc"`
	// ProbeTPRAtLowFPR is the reference reader's TPR at LowFPR, from the
	// same projections as ProbeAUROC.
	ProbeTPRAtLowFPR *teh.FPRPoint `json:"probe_tpr_at_1pct_fpr"`
}

// at picks one position's state.
func at(ts geometry.TurnStates, pos string) []float64 {
	switch pos {
	case PosLastPrompt:
		return ts.Last
	case PosReply:
		return ts.Reply
	}
	return ts.Mean
}

// evaluatePositions reads every gauge at each position of the held-out
// pairs (harm against the pair's benign side; the zone prompts, which are
// no chat turns, are left out), and the reference probe from the
// calibration pairs. The source must decode (geometry.Source.Stop).
func evaluatePositions(ctx context.Context, r *geometry.Reader, p *geometry.Profile, set *prompts.Set, replyTokens int, progress geometry.Progress) ([]TEHPosition, error) {
	total := 0
	for _, c := range set.Categories {
		total += 2*len(c.Heldout) + 2*len(c.Train)
	}
	done := 0
	read := func(texts []string) ([]geometry.TurnStates, error) {
		out := make([]geometry.TurnStates, len(texts))
		for i, t := range texts {
			ts, err := r.Turn(ctx, t, p.Layer, replyTokens)
			if err != nil {
				return nil, err
			}
			out[i] = ts
			done++
			progress("positions", done, total)
		}
		return out, nil
	}
	var harm, benign [][]geometry.TurnStates // held-out, per category
	var calH, calB []geometry.TurnStates     // calibration, all categories
	for _, c := range set.Categories {
		var hp, bp, ch, cb []string
		for _, pr := range c.Heldout {
			hp, bp = append(hp, pr.Harm), append(bp, pr.Benign)
		}
		for _, pr := range c.Train {
			ch, cb = append(ch, pr.Harm), append(cb, pr.Benign)
		}
		h, err := read(hp)
		if err != nil {
			return nil, err
		}
		b, err := read(bp)
		if err != nil {
			return nil, err
		}
		harm, benign = append(harm, h), append(benign, b)
		th, err := read(ch)
		if err != nil {
			return nil, err
		}
		tb, err := read(cb)
		if err != nil {
			return nil, err
		}
		calH, calB = append(calH, th...), append(calB, tb...)
	}
	var out []TEHPosition
	for _, pos := range PositionNames() {
		pick := func(ts []geometry.TurnStates) [][]float64 {
			o := make([][]float64, len(ts))
			for i, t := range ts {
				o[i] = at(t, pos)
			}
			return o
		}
		tp := TEHPosition{Name: pos}
		var allH, allB [][]float64
		for i, c := range p.Categories {
			res := TEHResult{Name: c.Name, Tau: c.Gauge.ROC.Tau, Forbidden: len(c.Gauge.Forbidden)}
			h, b := pick(harm[i]), pick(benign[i])
			if len(c.Gauge.Forbidden) > 0 {
				sub, err := teh.NewSubspace(p.B, p.Mu, c.Gauge.Forbidden)
				if err != nil {
					return nil, fmt.Errorf("geometry: %s: %w", c.Name, err)
				}
				res.evaluate(scoreAll(sub, h), scoreAll(sub, b))
			}
			tp.Categories = append(tp.Categories, res)
			allH, allB = append(allH, h...), append(allB, b...)
		}
		tp.Overall = TEHResult{Name: "overall", Tau: p.Overall.ROC.Tau, Forbidden: len(p.Overall.Forbidden)}
		if len(p.Overall.Forbidden) > 0 {
			sub, err := teh.NewSubspace(p.B, p.Mu, p.Overall.Forbidden)
			if err != nil {
				return nil, fmt.Errorf("geometry: overall: %w", err)
			}
			tp.Overall.evaluate(scoreAll(sub, allH), scoreAll(sub, allB))
		}
		// The probe is the category directions' recipe over all pairs: a
		// set without calibration pairs has none.
		if dir, err := snipe.Direction(pick(calH), pick(calB)); err == nil {
			ph, pb := project(dir, allH), project(dir, allB)
			if a := teh.AUROC(ph, pb); !math.IsNaN(a) {
				tp.ProbeAUROC = &a
			}
			tp.ProbeTPRAtLowFPR = lowFPR(ph, pb)
		}
		out = append(out, tp)
	}
	return out, nil
}

// project scores every state by its dot product with dir.
func project(dir []float64, hs [][]float64) []float64 {
	out := make([]float64, len(hs))
	for i, h := range hs {
		out[i] = floats.Dot(dir, h)
	}
	return out
}

// TEHPositions reads every gauge on the held-out pairs at each
// position of PositionNames, decoding up to replyTokens greedy reply
// tokens per prompt, with the reference probe beside each. The source must
// say where a reply ends (geometry.Source.Stop).
func TEHPositions(ctx context.Context, src geometry.Source, p *geometry.Profile, set *prompts.Set, replyTokens int, progress geometry.Progress) ([]TEHPosition, error) {
	if src.Stop == nil {
		return nil, fmt.Errorf("geometry: teh positions: the source cannot tell where a reply ends")
	}
	if replyTokens < 1 {
		return nil, fmt.Errorf("geometry: teh positions: %d reply tokens, want 1 or more", replyTokens)
	}
	r, progress, err := prepare(src, p, set, progress)
	if err != nil {
		return nil, err
	}
	return evaluatePositions(ctx, r, p, set, replyTokens, progress)
}
