package evaluate

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"

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
	// layer on), a steering arm's (SteerArm.String: "steer −1.0 ×
	// refusal, layers 1–3") or "none".
	Name     string `json:"name"`
	Coords   int    `json:"coords"`
	Refusals int    `json:"refusals"`
	// KL is the mean KL divergence, in nats, of the first reply token's
	// distribution with the intervention from the one without, over the
	// harmless prompts: Heretic's measure of what an intervention costs.
	KL float64 `json:"first_token_kl"`
	// Steer describes a steering arm (nil for a projection or none).
	Steer *SteerArm `json:"steer,omitempty"`
}

// SteerArm is an intervention that adds a vector to the residual stream
// after some blocks, as llama.cpp's control vectors do
// (model.State.SetSteering), instead of projecting a subspace out.
type SteerArm struct {
	// Vector is what is added: "refusal" (the refusal direction below) or
	// a control vector file's name.
	Vector string `json:"vector"`
	// Scale multiplies the vector: −1 × refusal moves a harmful prompt's
	// last state by one difference of the means towards the harmless ones.
	Scale float64 `json:"scale"`
	// First and Last are the blocks after which it is added, inclusive.
	First int `json:"first_layer"`
	Last  int `json:"last_layer"`
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
	// RefusalFrom says where the steering arms' refusal direction was
	// read: how many calibration (train) pairs, never the held-out ones
	// measured ("" when no arm steers with it).
	RefusalFrom string `json:"refusal_direction_from,omitempty"`
	// BaselineFrom says where the diff-in-means baseline's direction was
	// read.
	BaselineFrom string `json:"diff_in_means_from,omitempty"`
}

// RefusalOptions size the measurement.
type RefusalOptions struct {
	// PerCategory held-out prompts of each category, harmful and harmless
	// (0: all of them).
	PerCategory int
	// MaxTokens is the reply length decoded greedily (0: 32).
	MaxTokens int
	// SteerScales adds steering arms: for each scale s, the residual
	// stream steered by −s × the refusal direction (refusalDirection) on
	// the middle layers and on every layer from 1 (SteerRanges). None: no
	// steering arm; DefaultSteerScales is the command's default.
	SteerScales []float64
	// SteerRanges are the layer ranges the SteerScales steer, start and
	// end inclusive (nil: DefaultSteerRanges of the model's depth).
	SteerRanges [][2]int
	// Vector, when not nil, is one more arm: a control vector already
	// scaled and combined for the model (engine/steer.Combine: one entry
	// per layer, nil where nothing is added), described by VectorArm.
	Vector    [][]float32
	VectorArm SteerArm
}

// DefaultSteerScales are `eval refusals`' steering scales: from a quarter
// of the refusal direction, which leaves most refusals on the chat
// fixture, to twice it, which removes them all and the replies' sense
// with them (docs/geometry.md, "Steering against refusal, measured").
func DefaultSteerScales() []float64 { return []float64{0.25, 0.5, 1, 2} }

// DefaultSteerRanges are the layer ranges steered on a model of layers
// blocks: the middle third of them (block 2 of 4, 6–10 of 16, 11–21 of
// 32), and every block from 1 to the last (llama.cpp never steers after
// block 0). On the chat fixture one middle block spans the trade-off from
// most refusals kept to none; every block reaches none at half the scale,
// as each layer's direction is the whole difference of the means up to it
// and the additions pile up.
func DefaultSteerRanges(layers int) [][2]int {
	if layers < 2 {
		return nil
	}
	all := [2]int{1, layers - 1}
	lo := max(1, (layers+2)/3)
	hi := min(max(lo, (2*layers+2)/3-1), layers-1)
	if lo == all[0] && hi == all[1] {
		return [][2]int{all}
	}
	return [][2]int{{lo, hi}, all}
}

// Refusals decodes a greedy reply to every held-out harmful prompt
// with no intervention, with each category's projector, with all of them,
// with the difference-in-means baseline, steered against the refusal
// direction at each of o.SteerScales, and steered by o.Vector, and counts
// the refusals (geometry.IsRefusal); on the held-out harmless prompts it
// measures each intervention's first-token KL divergence. The source must
// decode text (geometry.Source.Decode).
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
		steer  [][]float32
		info   *SteerArm
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
	// It is read from the calibration (train) pairs, as the steering
	// arms' direction is: read from the held-out prompts it is measured
	// on, it would have seen the answers.
	var trainHarm, trainBenign []string
	for _, c := range set.Categories {
		for _, pr := range c.Train {
			trainHarm, trainBenign = append(trainHarm, pr.Harm), append(trainBenign, pr.Benign)
		}
	}
	baselineFrom := fmt.Sprintf("the mean states of %d calibration (train) pairs", len(trainHarm))
	if len(trainHarm) == 0 {
		trainHarm, trainBenign = harmful, harmless
		baselineFrom = "the held-out prompts measured here (the set has no calibration pairs)"
	}
	if dim, err := diffInMeans(ctx, r, p, trainHarm, trainBenign); err != nil {
		return nil, err
	} else if dim != nil {
		arms = append(arms, arm{name: "diff-in-means", coords: 1, proj: p.Ablation(dim)})
	}
	rep := &RefusalReport{Harmful: len(harmful), Harmless: len(harmless), MaxTokens: o.MaxTokens, Markers: geometry.RefusalMarkers(), Examples: map[string]string{}, BaselineFrom: baselineFrom}
	// Steering: the refusal direction read from the calibration pairs,
	// subtracted at each scale over each range.
	L := src.Model.Layers
	if len(o.SteerScales) > 0 {
		ranges := o.SteerRanges
		if ranges == nil {
			ranges = DefaultSteerRanges(L)
		}
		for _, rg := range ranges {
			if rg[0] < 1 || rg[1] < rg[0] || rg[1] >= L {
				return nil, fmt.Errorf("geometry: refusals: steering layers %d–%d; the model steers after blocks 1–%d", rg[0], rg[1], L-1)
			}
		}
		for _, sc := range o.SteerScales {
			if math.IsNaN(sc) || math.IsInf(sc, 0) || sc == 0 {
				return nil, fmt.Errorf("geometry: refusals: a steering scale of %g; want a finite one other than 0", sc)
			}
		}
		dirs, pairs, err := refusalDirection(ctx, r, set, L, progress)
		if err != nil {
			return nil, err
		}
		rep.RefusalFrom = fmt.Sprintf("the last prompt token of %d calibration (train) pairs; the held-out prompts measured here are not among them", pairs)
		for _, rg := range ranges {
			for _, sc := range o.SteerScales {
				info := &SteerArm{Vector: "refusal", Scale: -sc, First: rg[0], Last: rg[1]}
				v := make([][]float32, L)
				for l := rg[0]; l <= rg[1]; l++ {
					v[l] = make([]float32, len(dirs[l]))
					for j, x := range dirs[l] {
						v[l][j] = float32(-sc * x)
					}
				}
				arms = append(arms, arm{name: info.String(), steer: v, info: info})
			}
		}
	}
	if o.Vector != nil {
		info := o.VectorArm
		arms = append(arms, arm{name: info.String(), steer: o.Vector, info: &info})
	}
	// Whatever happens below, the reader's state is left unsteered.
	defer r.Steer(nil)
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
		if err := r.Steer(a.steer); err != nil {
			return nil, fmt.Errorf("geometry: refusals: %s: %w", a.name, err)
		}
		res := RefusalResult{Name: a.name, Coords: a.coords, Steer: a.info}
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
		if a.proj != nil || a.steer != nil {
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

// String names the arm as the report does: "steer −1.0 × refusal, layers
// 1–3".
func (a *SteerArm) String() string {
	sign := "+"
	if a.Scale < 0 {
		sign = "−"
	}
	m := math.Abs(a.Scale)
	num := strconv.FormatFloat(m, 'f', -1, 64)
	if m == math.Trunc(m) {
		num = strconv.FormatFloat(m, 'f', 1, 64)
	}
	layers := fmt.Sprintf("layers %d–%d", a.First, a.Last)
	if a.First == a.Last {
		layers = fmt.Sprintf("layer %d", a.First)
	}
	return fmt.Sprintf("steer %s%s × %s, %s", sign, num, a.Vector, layers)
}

// refusalDirection is the refusal direction at every layer N from 1 (nil
// at 0): the mean of the harmful calibration prompts' last-token states
// minus that of their harmless pairs, read from the stream leaving block
// N−1, to be added after block N — llama-cvector-generator's convention
// (direction.N from Hugging Face's hidden_states[N]; engine/steer). It is
// not normalised: steering by −1 × it moves a harmful prompt's state by
// one difference of the means. It reads the train pairs only, so that the
// held-out prompts the arms are measured on never shape it.
func refusalDirection(ctx context.Context, r *geometry.Reader, set *prompts.Set, layers int, progress geometry.Progress) ([][]float64, int, error) {
	var harmful, harmless []string
	for _, c := range set.Categories {
		for _, pr := range c.Train {
			harmful, harmless = append(harmful, pr.Harm), append(harmless, pr.Benign)
		}
	}
	if len(harmful) == 0 {
		return nil, 0, fmt.Errorf("geometry: refusals: the prompt set has no calibration pairs to read the refusal direction from")
	}
	read := make([]int, layers-1) // blocks 0..L−2 feed directions 1..L−1
	for i := range read {
		read[i] = i
	}
	done := 0
	tick := func() {
		done++
		progress("refusal direction", done, 2*len(harmful))
	}
	H, err := r.LastStates(ctx, harmful, read, tick)
	if err != nil {
		return nil, 0, err
	}
	B, err := r.LastStates(ctx, harmless, read, tick)
	if err != nil {
		return nil, 0, err
	}
	out := make([][]float64, layers)
	for i := range read {
		_, d := H[i].Dims()
		v := make([]float64, d)
		for j := range d {
			v[j] = mat.Sum(H[i].ColView(j))/float64(len(harmful)) - mat.Sum(B[i].ColView(j))/float64(len(harmless))
		}
		out[i+1] = v
	}
	return out, len(harmful), nil
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
