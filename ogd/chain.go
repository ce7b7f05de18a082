package ogd

import (
	"errors"
	"fmt"
)

// Generator produces one generation of a chain: step is its index, alpha
// its step size, seed its deterministic per-step seed, prev the previous
// generation's output ("" for the first).
type Generator func(step int, alpha float64, seed uint64, prev string) (string, error)

// DefaultAlphas returns the paper's three-step chain, α = 0.20, 0.10,
// 0.05 (a fresh slice each call, so no caller can change the default).
func DefaultAlphas() []float64 { return []float64{0.20, 0.10, 0.05} }

// Chain runs successive generations with non-increasing step sizes, each
// seeded by the previous output: a large first step finds a new concept,
// smaller ones refine it (Paper XIII §3). Step i receives
// StepSeed(seed, i), so a chain is reproducible from its seed alone and
// no two steps share a random stream.
//
// On success it returns the len(alphas) outputs. If gen fails, Chain
// stops and returns the outputs of the steps completed before it along
// with the error. Errors: no steps, nil gen, an α that is not finite, is
// outside [0, MaxAlpha] or is larger than the one before it.
func Chain(alphas []float64, seed uint64, gen Generator) ([]string, error) {
	if len(alphas) == 0 {
		return nil, errors.New("ogd: chain: no steps")
	}
	if gen == nil {
		return nil, errors.New("ogd: chain: nil generator")
	}
	for i, a := range alphas {
		if err := checkAlpha(a); err != nil {
			return nil, fmt.Errorf("ogd: chain step %d: %w", i, err)
		}
		if i > 0 && a > alphas[i-1] {
			return nil, fmt.Errorf("ogd: chain step %d: α = %v after %v, want non-increasing", i, a, alphas[i-1])
		}
	}
	out := make([]string, 0, len(alphas))
	prev := ""
	for i, a := range alphas {
		s, err := gen(i, a, StepSeed(seed, i), prev)
		if err != nil {
			return out, fmt.Errorf("ogd: chain step %d (α = %v): %w", i, a, err)
		}
		out = append(out, s)
		prev = s
	}
	return out, nil
}

// StepSeed derives step i's seed from a chain seed: the SplitMix64
// finaliser of seed + (i+1)·γ, γ the 64-bit golden ratio. For a fixed
// step it is a bijection of the seed, so different chain seeds never give
// a step the same seed; for a fixed seed, steps get well-mixed,
// unrelated seeds.
func StepSeed(seed uint64, step int) uint64 {
	const gamma = 0x9E3779B97F4A7C15
	z := seed + uint64(step+1)*gamma
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}
