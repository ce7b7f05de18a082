package grc

import (
	"errors"
	"fmt"
	"math"
)

// Per-layer rank allocation (docs/mechanisms.md §2–3): how a rank budget of
// k·L is spread over L blocks.
//
// GP (Paper 2 §4) writes k_ℓ = clamp(round(k_target·s_ℓ/mean(s)), k_floor,
// k_max) with s_ℓ a "Manifold-Curvature-Ratio" that the paper derives from
// "a coarse Ricci-style curvature estimate" of activation samples and never
// defines further. We are calibration-free here (the allocation must come
// from the weights' spectra alone), so we decide: s_ℓ is the effective rank
// (Roy & Vetterli 2007) of the block's compressed groups, exp(H(p)) with
// p_j = λ_j/Σλ over each group's normalised Gram spectrum, summed over the
// groups. A block whose weights spread their energy over more directions
// loses more at a given k, so it gets more — the paper's "steeper geometry
// gets more rank", measured on the thing we actually truncate.
//
// The paper's formula does not keep Σk_ℓ = k_target·L once the floor or the
// cap bites, which makes shared-rank and GP incomparable at "the same k" —
// the comparison Paper 2 says is missing. So both allocations here scale
// their weights by the one factor c that makes Σ clamp(c·w_ℓ) hit the
// budget (c = 1 when nothing is clamped, i.e. exactly the paper's formula),
// and round by largest remainder rather than round(), so the sum is exact.

// Bounds are the ranks one block may get.
type Bounds struct {
	// Floor and Max bound every rank (k_floor, k_max).
	Floor, Max int
	// Quantum makes every rank a multiple of it (0 or 1: any integer):
	// the model keeps projected rows a whole number of Q8_0 blocks.
	Quantum int
}

// units turns the bounds into multiples of the quantum.
func (b Bounds) units() (lo, hi, q int, err error) {
	q = max(b.Quantum, 1)
	lo = max((b.Floor+q-1)/q, 1)
	hi = b.Max / q
	if hi < lo {
		return 0, 0, 0, fmt.Errorf("grc: no rank that is a multiple of %d lies in [%d, %d]", q, b.Floor, b.Max)
	}
	return lo, hi, q, nil
}

// Phase is an MCR layer phase (Paper 6 §2).
type Phase uint8

// The three phases, in the order they occur along depth.
const (
	Mix Phase = iota
	Compress
	Refine
)

func (p Phase) String() string {
	switch p {
	case Mix:
		return "mix"
	case Compress:
		return "compress"
	}
	return "refine"
}

// Allocation is a per-layer rank assignment and how it was reached.
type Allocation struct {
	Ranks []int
	// Uniform is set when MCR found no phase structure and fell back to
	// the same rank everywhere.
	Uniform bool
	// Phases and Smoothed (σ̃²) are MCR's view of the layers.
	Phases   []Phase
	Smoothed []float64
	// Notes say where the bounds changed what was asked (the floor raised
	// the budget, a flat profile fell back to uniform…), so nothing is
	// clamped silently.
	Notes []string
}

// Distribute returns integer ranks within b, proportional to w as far as
// the bounds allow, summing to total (rounded to the quantum; raised to
// L·Floor or lowered to L·Max when the bounds cannot reach it, with a note).
func Distribute(w []float64, total int, b Bounds) ([]int, []string, error) {
	L := len(w)
	if L == 0 {
		return nil, nil, errors.New("grc: no layers to allocate")
	}
	lo, hi, q, err := b.units()
	if err != nil {
		return nil, nil, err
	}
	var notes []string
	T := int(math.Round(float64(total) / float64(q)))
	if T*q != total {
		notes = append(notes, fmt.Sprintf("budget %d rounded to %d (ranks in steps of %d)", total, T*q, q))
	}
	switch {
	case T < L*lo:
		notes = append(notes, fmt.Sprintf("the floor %d is above the requested mean %.0f: every block gets at least %d", lo*q, float64(total)/float64(L), lo*q))
		T = L * lo
	case T > L*hi:
		notes = append(notes, fmt.Sprintf("the cap %d is below the requested mean %.0f: every block gets %d", hi*q, float64(total)/float64(L), hi*q))
		T = L * hi
	}
	wmax := 0.0
	for i, v := range w {
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, nil, fmt.Errorf("grc: layer %d has weight %g", i, v)
		}
		wmax = max(wmax, v)
	}
	ws := make([]float64, L)
	for i, v := range w {
		switch {
		case wmax == 0:
			ws[i] = 1 // nothing to go by: share evenly
		case v == 0:
			ws[i] = 1e-12 * wmax // still reachable by scaling up, so any budget fits
		default:
			ws[i] = v / float64(q)
		}
	}
	if wmax == 0 {
		wmax = 1
	}
	sum := func(c float64) float64 {
		var s float64
		for _, v := range ws {
			s += math.Min(math.Max(c*v, float64(lo)), float64(hi))
		}
		return s
	}
	// The budget is reached by one common scale: Σ clip(c·w) is continuous
	// and non-decreasing in c, so bisection finds it.
	cl, ch := 0.0, 1.0
	for sum(ch) < float64(T) && ch < 1e300 {
		cl, ch = ch, ch*2
	}
	for range 200 {
		mid := (cl + ch) / 2
		if sum(mid) >= float64(T) {
			ch = mid
		} else {
			cl = mid
		}
	}
	x := make([]float64, L)
	r := make([]int, L)
	have := 0
	for i, v := range ws {
		x[i] = math.Min(math.Max(ch*v, float64(lo)), float64(hi))
		r[i] = int(math.Floor(x[i]))
		have += r[i]
	}
	// Largest remainder: the blocks closest to their next unit get it
	// (the earliest on ties), and the other way round when over.
	for have < T {
		best := -1
		for i := range r {
			if r[i] < hi && (best < 0 || x[i]-float64(r[i]) > x[best]-float64(r[best])) {
				best = i
			}
		}
		r[best]++
		have++
	}
	for have > T {
		best := -1
		for i := range r {
			if r[i] > lo && (best < 0 || x[i]-float64(r[i]) < x[best]-float64(r[best])) {
				best = i
			}
		}
		r[best]--
		have--
	}
	for i := range r {
		r[i] *= q
	}
	return r, notes, nil
}

// EffectiveRank is exp of the Shannon entropy of a spectrum read as a
// distribution, p_j = λ_j/Σλ (negative rounding noise counts as 0): the
// number of equally strong directions that would spread energy the same
// way. 0 for an all-zero spectrum.
func EffectiveRank(spectrum []float64) float64 {
	var sum float64
	for _, v := range spectrum {
		sum += max(v, 0)
	}
	if sum == 0 || math.IsNaN(sum) || math.IsInf(sum, 0) {
		return 0
	}
	var h float64
	for _, v := range spectrum {
		if p := max(v, 0) / sum; p > 0 {
			h -= p * math.Log(p)
		}
	}
	return math.Exp(h)
}

// GP allocates Σk_ℓ = kTarget·L over the layers in proportion to their
// scores s_ℓ (k_ℓ = kTarget·s_ℓ/mean(s) when no bound bites; see the note
// at the top of this file for the score and the renormalisation). All-zero
// or invalid scores give the uniform rank, with a note.
func GP(scores []float64, kTarget int, b Bounds) (Allocation, error) {
	L := len(scores)
	if L == 0 {
		return Allocation{}, errors.New("grc: no layers to allocate")
	}
	var mean float64
	for _, s := range scores {
		mean += s
	}
	mean /= float64(L)
	w := make([]float64, L)
	var notes []string
	for i, s := range scores {
		switch {
		case mean <= 0 || math.IsNaN(mean) || math.IsInf(mean, 0) || s < 0:
			w[i] = float64(kTarget)
		default:
			w[i] = float64(kTarget) * s / mean
		}
	}
	if mean <= 0 || math.IsNaN(mean) || math.IsInf(mean, 0) {
		notes = append(notes, "gp: no usable spectrum scores: uniform rank")
	}
	r, n, err := Distribute(w, kTarget*L, b)
	if err != nil {
		return Allocation{}, err
	}
	return Allocation{Ranks: r, Notes: append(notes, n...)}, nil
}

// MCRParams are MCR's knobs (Paper 6 §2).
type MCRParams struct {
	// Threshold c_thr: a layer is in the Compress phase when its smoothed
	// variance is at most c_thr·σ²_min.
	Threshold float64
	// Mix, Compress and Refine scale r_base per phase.
	Mix, Compress, Refine float64
}

// DefaultMCR is the paper's defaults: c_thr = 1.5, s = 1.5 / 0.35 / 1.2.
func DefaultMCR() MCRParams {
	return MCRParams{Threshold: 1.5, Mix: 1.5, Compress: 0.35, Refine: 1.2}
}

// Phases labels layers from their hidden-state variance profile
// σ²_ℓ = E‖h_ℓ − h̄_ℓ‖²/d: a 3-tap moving average σ̃² (at the first and
// last layer, the mean of the two taps that exist), σ²_min = min σ̃², and
// the Compress phase where σ̃²_ℓ ≤ thr·σ²_min, Mix before it and Refine
// after it.
//
// The paper defines Mix and Refine by ℓ_compress_start/end without saying
// how those are found when the layers under the threshold are not
// contiguous. We take the contiguous run of under-threshold layers around
// the minimum (the first minimum on ties): the three phases then come in
// the paper's order, and a far layer that happens to dip under the
// threshold keeps its Mix or Refine rank. ok is false — no phase structure,
// the caller falls back to uniform rank — when every layer is under the
// threshold (a flat profile: no clear minimum) or the profile is unusable
// (empty, negative, NaN or infinite).
func Phases(variance []float64, thr float64) (phases []Phase, smoothed []float64, ok bool) {
	L := len(variance)
	if L == 0 {
		return nil, nil, false
	}
	for _, v := range variance {
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, nil, false
		}
	}
	smoothed = make([]float64, L)
	argmin := 0
	for l := range L {
		a, b := max(l-1, 0), min(l+1, L-1)
		var s float64
		for i := a; i <= b; i++ {
			s += variance[i]
		}
		smoothed[l] = s / float64(b-a+1)
		if smoothed[l] < smoothed[argmin] {
			argmin = l
		}
	}
	limit := thr * smoothed[argmin]
	start, end := argmin, argmin
	for start > 0 && smoothed[start-1] <= limit {
		start--
	}
	for end < L-1 && smoothed[end+1] <= limit {
		end++
	}
	phases = make([]Phase, L)
	for l := range L {
		switch {
		case l < start:
			phases[l] = Mix
		case l > end:
			phases[l] = Refine
		default:
			phases[l] = Compress
		}
	}
	return phases, smoothed, !(start == 0 && end == L-1)
}

// MCR allocates Σr_ℓ = rBase·L from a variance profile:
// r_ℓ = clip(s_phase(ℓ)·rBase, Floor, Max), renormalised to the budget (by
// a common scale and re-clipped, see Distribute). A flat or unusable
// profile gives rBase everywhere (rounded to the quantum and clamped to the
// bounds, with notes).
func MCR(variance []float64, rBase int, b Bounds, p MCRParams) (Allocation, error) {
	L := len(variance)
	if L == 0 {
		return Allocation{}, errors.New("grc: no layers to allocate")
	}
	phases, smoothed, ok := Phases(variance, p.Threshold)
	if !ok {
		lo, hi, q, err := b.units()
		if err != nil {
			return Allocation{}, err
		}
		u := int(math.Round(float64(rBase) / float64(q)))
		notes := []string{"mcr: flat variance profile (no clear minimum): uniform rank"}
		if c := min(max(u, lo), hi); c != u || u*q != rBase {
			notes = append(notes, fmt.Sprintf("rank %d becomes %d within [%d, %d] in steps of %d", rBase, c*q, lo*q, hi*q, q))
			u = c
		}
		r := make([]int, L)
		for i := range r {
			r[i] = u * q
		}
		return Allocation{Ranks: r, Uniform: true, Phases: phases, Smoothed: smoothed, Notes: notes}, nil
	}
	w := make([]float64, L)
	for l, ph := range phases {
		s := p.Refine
		switch ph {
		case Mix:
			s = p.Mix
		case Compress:
			s = p.Compress
		}
		w[l] = math.Min(math.Max(s*float64(rBase), float64(b.Floor)), float64(b.Max))
	}
	r, notes, err := Distribute(w, rBase*L, b)
	if err != nil {
		return Allocation{}, err
	}
	return Allocation{Ranks: r, Phases: phases, Smoothed: smoothed, Notes: notes}, nil
}
