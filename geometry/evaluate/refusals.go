package evaluate

import (
	"context"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/isagi-lab/isagi/geometry"
	"github.com/isagi-lab/isagi/prompts"
)

// RefusalResult is one intervention on the held-out prompts: how many
// harmful prompts it still refused, and how far it moved the first reply
// token's distribution on harmless prompts.
type RefusalResult struct {
	// Name is a category's projector, "union" (every projector at once),
	// "diff-in-means" (the baseline: the refusal-direction paper's
	// difference of the harm and benign mean states, ablated from the same
	// layer on) or "none".
	Name     string `json:"name"`
	Coords   int    `json:"coords"`
	Refusals int    `json:"refusals"`
	// KL is the mean KL divergence, in nats, of the first reply token's
	// distribution with the intervention from the one without, over the
	// harmless prompts: Heretic's measure of what an intervention costs.
	KL float64 `json:"first_token_kl"`
}

// RefusalReport is `isagi eval refusals`: Heretic's metric on the profile's
// projectors.
type RefusalReport struct {
	Harmful   int             `json:"harmful_prompts"`
	Harmless  int             `json:"harmless_prompts"`
	MaxTokens int             `json:"max_tokens"`
	Results   []RefusalResult `json:"results"` // "none" first
	Markers   []string        `json:"markers"`
	// Examples are the first harmful prompt's replies, per result, so
	// that a reader sees what was counted.
	Examples map[string]string `json:"examples"`
}

// RefusalOptions size the measurement.
type RefusalOptions struct {
	// PerCategory held-out prompts of each category, harmful and harmless
	// (0: all of them).
	PerCategory int
	// MaxTokens is the reply length decoded greedily (0: 32).
	MaxTokens int
}

// Refusals decodes a greedy reply to every held-out harmful prompt
// with no intervention, with each category's projector, with all of them,
// and with the difference-in-means baseline, and counts the refusals
// (geometry.IsRefusal); on the held-out harmless prompts it measures each
// intervention's first-token KL divergence. The source must decode text
// (geometry.Source.Decode).
func Refusals(ctx context.Context, src geometry.Source, p *geometry.Profile, set *prompts.Set, o RefusalOptions, progress geometry.Progress) (*RefusalReport, error) {
	if src.Decode == nil {
		return nil, fmt.Errorf("geometry: refusals: the source cannot decode replies")
	}
	if o.MaxTokens <= 0 {
		o.MaxTokens = 32
	}
	r, progress, err := prepare(src, p, set, progress)
	if err != nil {
		return nil, err
	}
	var harmful, harmless []string
	for _, c := range set.Categories {
		hs := c.Heldout
		if o.PerCategory > 0 && len(hs) > o.PerCategory {
			hs = hs[:o.PerCategory]
		}
		for _, pr := range hs {
			harmful, harmless = append(harmful, pr.Harm), append(harmless, pr.Benign)
		}
	}
	if len(harmful) == 0 {
		return nil, fmt.Errorf("geometry: refusals: the prompt set has no held-out prompts")
	}
	type arm struct {
		name   string
		coords int
		proj   *geometry.Projection
	}
	arms := []arm{{name: "none"}}
	var union []int
	for _, c := range p.Categories {
		if len(c.Snipe.Coords) == 0 {
			continue
		}
		arms = append(arms, arm{name: c.Name, coords: len(c.Snipe.Coords), proj: p.Projection(c.Snipe.Coords)})
		for _, k := range c.Snipe.Coords {
			if !slices.Contains(union, k) {
				union = append(union, k)
			}
		}
	}
	if len(union) > 0 {
		arms = append(arms, arm{name: "union", coords: len(union), proj: p.Projection(union)})
	}
	// The baseline: the difference of the harm and benign mean states at
	// the probe layer, one direction, ablated where the projectors act.
	if dim, err := diffInMeans(ctx, r, p, harmful, harmless); err != nil {
		return nil, err
	} else if dim != nil {
		arms = append(arms, arm{name: "diff-in-means", coords: 1, proj: p.Ablation(dim)})
	}
	rep := &RefusalReport{Harmful: len(harmful), Harmless: len(harmless), MaxTokens: o.MaxTokens, Markers: geometry.RefusalMarkers(), Examples: map[string]string{}}
	// First-token distributions without an intervention, to compare with.
	base := make([][]float64, len(harmless))
	for i, h := range harmless {
		if base[i], err = firstToken(ctx, r, h, nil); err != nil {
			return nil, err
		}
	}
	total := len(arms) * (len(harmful) + len(harmless))
	done := 0
	for _, a := range arms {
		res := RefusalResult{Name: a.name, Coords: a.coords}
		for i, h := range harmful {
			reply, err := r.Reply(ctx, h, a.proj, o.MaxTokens)
			if err != nil {
				return nil, err
			}
			if geometry.IsRefusal(reply) {
				res.Refusals++
			}
			if i == 0 {
				rep.Examples[a.name] = reply
			}
			done++
			progress("refusals", done, total)
		}
		if a.proj != nil {
			for i, h := range harmless {
				q, err := firstToken(ctx, r, h, a.proj)
				if err != nil {
					return nil, err
				}
				res.KL += klDivergence(base[i], q) / float64(len(harmless))
				done++
				progress("refusals", done, total)
			}
		} else {
			done += len(harmless)
		}
		rep.Results = append(rep.Results, res)
	}
	return rep, nil
}

// diffInMeans is the unit difference of the harmful and harmless prompts'
// mean states at the probe layer (nil when they do not differ).
func diffInMeans(ctx context.Context, r *geometry.Reader, p *geometry.Profile, harmful, harmless []string) ([]float64, error) {
	H, _, err := r.States(ctx, harmful, p.Layer, nil)
	if err != nil {
		return nil, err
	}
	B, _, err := r.States(ctx, harmless, p.Layer, nil)
	if err != nil {
		return nil, err
	}
	_, d := H.Dims()
	v := make([]float64, d)
	for j := range d {
		v[j] = mat.Sum(H.ColView(j))/float64(len(harmful)) - mat.Sum(B.ColView(j))/float64(len(harmless))
	}
	n := floats.Norm(v, 2)
	if !(n > 0) {
		return nil, nil
	}
	for j := range v {
		v[j] /= n
	}
	return v, nil
}

// firstToken is the distribution of the first reply token after prompt
// text, with proj acting.
func firstToken(ctx context.Context, r *geometry.Reader, text string, proj *geometry.Projection) ([]float64, error) {
	logits, err := r.FirstLogits(ctx, text, proj)
	if err != nil {
		return nil, err
	}
	return softmax64(logits), nil
}

func argmax32(v []float32) int {
	b := 0
	for i, x := range v {
		if x > v[b] {
			b = i
		}
	}
	return b
}

// softmax64 is the distribution of logits, in float64.
func softmax64(z []float32) []float64 {
	m := float64(z[argmax32(z)])
	p := make([]float64, len(z))
	var s float64
	for i, v := range z {
		p[i] = math.Exp(float64(v) - m)
		s += p[i]
	}
	for i := range p {
		p[i] /= s
	}
	return p
}

// klDivergence is KL(p ‖ q) in nats (terms where p is 0 add nothing; q is
// a softmax, never 0 where p is not).
func klDivergence(p, q []float64) float64 {
	var kl float64
	for i, pi := range p {
		if pi > 0 && q[i] > 0 {
			kl += pi * math.Log(pi/q[i])
		}
	}
	return max(kl, 0)
}
