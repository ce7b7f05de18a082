package geometry

import (
	"context"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/isagi-lab/isagi/cog"
	"github.com/isagi-lab/isagi/prompts"
	"github.com/isagi-lab/isagi/ugt"
)

// COGGate is the memory gate as calibrated (docs/geometry.md, "When an
// answer is served from memory"): the threshold τ on the plain distance
// between a query's embedding and a stored one, below which a same-request
// match may be served, and the two distributions it was placed between.
// Distances are PlainDistance (the manifold's distance with M = I) in the
// profile's basis coordinates, the COG embedding.
type COGGate struct {
	// Tau is the serving threshold.
	Tau float64 `json:"tau"`
	// Bound is where τ may go at most: the smaller of the closest pair
	// of different calibration prompts and the RETRIEVE boundary.
	Bound float64 `json:"bound"`
	// DistinctPairs is how many pairs of different calibration prompts
	// were measured; DistinctMin the closest of them, DistinctQ01 the
	// 1st percentile.
	DistinctPairs int     `json:"distinct_pairs"`
	DistinctMin   float64 `json:"distinct_min"`
	DistinctQ01   float64 `json:"distinct_q01"`
	// Repeats is how many true repeats (prompts.RepeatVariants of the
	// zone prompts) were measured; RepeatMedian their median distance;
	// RepeatBelow the largest one under Bound (0 when none is: a
	// word-for-word repeat is at 0).
	Repeats      int     `json:"repeats"`
	RepeatMedian float64 `json:"repeat_median"`
	RepeatBelow  float64 `json:"repeat_below"`
	// RepeatServed is the fraction of those repeats under τ: the recall
	// the gate alone allows on variants (word-for-word repeats are all
	// under it).
	RepeatServed float64 `json:"repeat_served"`
}

// Gate is the gate COG applies.
func (g *COGGate) Gate() cog.Gate {
	if g == nil {
		return cog.UncalibratedGate()
	}
	return cog.Gate{Tau: g.Tau, Calibrated: true}
}

// MemoryGate is the profile's memory gate: the calibrated one, or for a
// profile made before it existed the gate that serves word-for-word
// repeats only.
func (p *Profile) MemoryGate() cog.Gate { return p.COG.Gate() }

// calibrateGate places the memory gate. texts are the calibration prompts
// whose states (rows of H) calibration has read; variants of the first
// nVariants of them are read here. See placeGate for the rule.
func calibrateGate(ctx context.Context, r *runner, p *Profile, texts []string, H *mat.Dense, nVariants int, progress Progress) (*COGGate, error) {
	basis := &ugt.Basis{D: p.D, K: p.K, Mu: p.Mu, B: p.B}
	q := make([][]float64, len(texts))
	norm := make([]string, len(texts))
	for i := range texts {
		z, err := basis.Coords(H.RawRowView(i), nil)
		if err != nil {
			return nil, fmt.Errorf("geometry: memory gate: %w", err)
		}
		q[i], norm[i] = z, cog.Normalize(texts[i])
	}
	var distinct []float64
	for i := range q {
		for j := i + 1; j < len(q); j++ {
			if norm[i] != norm[j] {
				distinct = append(distinct, cog.PlainDistance(q[i], q[j]))
			}
		}
	}
	var vtexts []string
	var of []int
	for i, t := range texts[:min(nVariants, len(texts))] {
		for _, v := range prompts.RepeatVariants(t) {
			if cog.SameRequest(v, t) {
				vtexts, of = append(vtexts, v), append(of, i)
			}
		}
	}
	done := 0
	V, _, err := r.states(ctx, vtexts, p.Layer, nil, func() {
		done++
		progress("memory gate", done, len(vtexts))
	})
	if err != nil {
		return nil, err
	}
	repeats := make([]float64, len(vtexts))
	for i := range vtexts {
		z, err := basis.Coords(V.RawRowView(i), nil)
		if err != nil {
			return nil, fmt.Errorf("geometry: memory gate: %w", err)
		}
		repeats[i] = cog.PlainDistance(q[of[i]], z)
	}
	return placeGate(distinct, repeats)
}

// placeGate is the calibration rule. The exact check already keeps every
// different request out; the distance gate is the second, geometric
// opinion, and precision comes first:
//
//   - τ may not exceed Bound, the closest any two different calibration
//     prompts came (capped at the RETRIEVE boundary): under it, no pair
//     of different requests in calibration was ever that close;
//   - within that, τ sits halfway between the largest true-repeat distance
//     under Bound and Bound itself, the widest margin on both sides that
//     keeps every calibration repeat the bound allows.
//
// τ is at least cog.MinGate, so word-for-word repeats always pass. Errors:
// no pair of different prompts to measure.
func placeGate(distinct, repeats []float64) (*COGGate, error) {
	if len(distinct) == 0 {
		return nil, fmt.Errorf("geometry: memory gate: no two different calibration prompts to measure")
	}
	distinct, repeats = slices.Clone(distinct), slices.Clone(repeats)
	slices.Sort(distinct)
	slices.Sort(repeats)
	g := &COGGate{
		DistinctPairs: len(distinct),
		DistinctMin:   distinct[0],
		DistinctQ01:   quantile(distinct, 0.01),
		Repeats:       len(repeats),
		RepeatMedian:  quantile(repeats, 0.5),
	}
	g.Bound = math.Min(g.DistinctMin, cog.RetrieveBelow)
	for _, d := range repeats {
		if d < g.Bound {
			g.RepeatBelow = d
		}
	}
	g.Tau = math.Max((g.RepeatBelow+g.Bound)/2, cog.MinGate)
	served := 0
	for _, d := range repeats {
		if d < g.Tau {
			served++
		}
	}
	if len(repeats) > 0 {
		g.RepeatServed = float64(served) / float64(len(repeats))
	}
	return g, nil
}

// quantile is the q-quantile of sorted xs (nearest rank); 0 when empty.
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	return xs[int(math.Round(q*float64(len(xs)-1)))]
}
