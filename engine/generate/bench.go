package generate

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/sample"
)

// Bench measures a model on st: a prefill of promptLen tokens (BOS, then
// pseudo-random ids from a fixed seed, so runs are comparable) and greedy
// decoding of genLen tokens with no stop token. The state is reset first
// and left holding the run.
func Bench(ctx context.Context, st *model.State, bos int32, promptLen, genLen int) (Stats, error) {
	return BenchEach(ctx, st, bos, promptLen, genLen, nil)
}

// BenchEach is Bench calling each (when not nil) with every token as it is
// sampled, inside the timed decode: a caller that counts something per
// token (a remote backend's traffic) starts at the first. each must be
// quick.
func BenchEach(ctx context.Context, st *model.State, bos int32, promptLen, genLen int, each func(int32)) (Stats, error) {
	if promptLen < 1 || genLen < 1 || promptLen+genLen > st.Cap() {
		return Stats{}, fmt.Errorf("generate: bench of %d+%d tokens does not fit a %d-token context", promptLen, genLen, st.Cap())
	}
	g, err := New(st, sample.Params{})
	if err != nil {
		return Stats{}, err
	}
	g.Reset(0)
	rng := rand.New(rand.NewPCG(1, 2))
	prompt := make([]int32, promptLen)
	prompt[0] = bos
	for i := 1; i < promptLen; i++ {
		prompt[i] = int32(rng.IntN(st.Model().Vocab))
	}
	return g.Generate(ctx, prompt, Options{MaxTokens: genLen}, func(t int32) error {
		if each != nil {
			each(t)
		}
		return nil
	})
}

// SpecBench is speculative decoding against plain decoding on the same
// prompts, measured in one run.
type SpecBench struct {
	Prompts int
	// PlainTokS and SpecTokS are decode tokens per second (after the
	// first token) over every prompt; Ratio is SpecTokS/PlainTokS.
	PlainTokS, SpecTokS, Ratio float64
	// Spec sums the speculative counts over the prompts (its estimates
	// are the last prompt's).
	Spec SpecStats
	// Alpha is the share of drafted tokens accepted over all prompts;
	// AlphaFirst and AlphaLast are the same over the first and the last
	// half of the prompts (an online basis should raise the second).
	Alpha, AlphaFirst, AlphaLast float64
	// VerifyCost is a verifying pass's mean time and DraftCost a drafted
	// token's, both in plain decode steps; BreakEven is the acceptance
	// rate at which the throughput model breaks even at γ = Spec.Gamma
	// with those costs (1: never). They say what a drafter would need on
	// this machine, whatever the text.
	VerifyCost, DraftCost, BreakEven float64
	// Mismatches counts prompts whose greedy output differed from plain
	// decoding's (always 0 unless something is broken; sampled runs do
	// not compare).
	Mismatches int
}

// BenchSpec decodes genLen tokens after each prompt twice on st — plainly,
// then with speculation o — alternating, so both see the same machine
// state, and compares them. The speculative generator (and its drafter
// and online basis) carries over from prompt to prompt, as in a
// conversation. Sampling uses p; with greedy p the outputs are compared.
func BenchSpec(ctx context.Context, st *model.State, p sample.Params, prompts [][]int32, genLen int, o SpecOptions) (SpecBench, error) {
	var r SpecBench
	plain, err := New(st, p)
	if err != nil {
		return r, err
	}
	spec, err := New(st, p)
	if err != nil {
		return r, err
	}
	if err := spec.SetSpeculation(o); err != nil {
		return r, err
	}
	var plainN, specN int
	var plainT, specT float64
	half := [2][2]int{} // accepted, drafted per half
	var a, b []int32
	for i, pr := range prompts {
		if len(pr)+genLen > st.Cap() {
			return r, fmt.Errorf("generate: prompt %d of %d tokens and %d more do not fit a %d-token context", i, len(pr), genLen, st.Cap())
		}
		a, b = a[:0], b[:0]
		plain.Reset(p.Seed)
		ps, err := plain.Generate(ctx, pr, Options{MaxTokens: genLen}, func(t int32) error { a = append(a, t); return nil })
		if err != nil {
			return r, err
		}
		spec.Reset(p.Seed)
		ss, err := spec.Generate(ctx, pr, Options{MaxTokens: genLen}, func(t int32) error { b = append(b, t); return nil })
		if err != nil {
			return r, err
		}
		plainN += ps.Generated - 1
		plainT += ps.DecodeDuration.Seconds()
		specN += ss.Generated - 1
		specT += ss.DecodeDuration.Seconds()
		if p.Temperature == 0 && !slices.Equal(a, b) {
			r.Mismatches++
		}
		h := 0
		if 2*i >= len(prompts) {
			h = 1
		}
		half[h][0] += ss.Spec.Accepted
		half[h][1] += ss.Spec.Drafted
		est := ss.Spec
		r.Spec.Steps += est.Steps
		r.Spec.Drafted += est.Drafted
		r.Spec.Accepted += est.Accepted
		r.Spec.Plain += est.Plain
		r.Spec.SpecTokens += est.SpecTokens
		r.Spec.SpecTime += est.SpecTime
		r.Spec.DraftTime += est.DraftTime
		r.Spec.VerifyTime += est.VerifyTime
		r.Spec.Drafter, r.Spec.Gamma, r.Spec.Alpha, r.Spec.Predicted, r.Spec.Measured, r.Spec.Off, r.Spec.Note =
			est.Drafter, est.Gamma, est.Alpha, est.Predicted, est.Measured, est.Off, est.Note
		r.Prompts++
	}
	rate := func(n int, t float64) float64 {
		if n <= 0 || t <= 0 {
			return 0
		}
		return float64(n) / t
	}
	r.PlainTokS, r.SpecTokS = rate(plainN, plainT), rate(specN, specT)
	if r.PlainTokS > 0 {
		r.Ratio = r.SpecTokS / r.PlainTokS
	}
	if plainN > 0 && plainT > 0 && r.Spec.Steps > 0 && r.Spec.Drafted > 0 {
		step := plainT / float64(plainN)
		r.VerifyCost = r.Spec.VerifyTime.Seconds() / float64(r.Spec.Steps) / step
		r.DraftCost = r.Spec.DraftTime.Seconds() / float64(r.Spec.Drafted) / step
		gamma := float64(r.Spec.Drafted) / float64(r.Spec.Steps) // the mean γ
		r.BreakEven = breakEven(gamma, r.VerifyCost+gamma*r.DraftCost)
	}
	share := func(acc, dr int) float64 {
		if dr == 0 {
			return 0
		}
		return float64(acc) / float64(dr)
	}
	r.Alpha = r.Spec.AcceptRate()
	r.AlphaFirst, r.AlphaLast = share(half[0][0], half[0][1]), share(half[1][0], half[1][1])
	return r, nil
}

// breakEven is the α at which a step of γ drafts, costing cost plain
// steps, yields as many tokens, (1 − α^{γ+1})/(1 − α) = cost (bisection;
// the left side rises from 1 at α = 0 to γ+1 at α = 1). 1 means never.
func breakEven(gamma, cost float64) float64 {
	tokens := func(a float64) float64 {
		if a >= 1 {
			return gamma + 1
		}
		return (1 - math.Pow(a, gamma+1)) / (1 - a)
	}
	if cost <= 1 {
		return 0
	}
	if cost >= gamma+1 {
		return 1
	}
	lo, hi := 0.0, 1.0
	for range 60 {
		mid := (lo + hi) / 2
		if tokens(mid) < cost {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}
