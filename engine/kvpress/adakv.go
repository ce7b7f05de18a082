package kvpress

import (
	"cmp"
	"math"
	"slices"
)

// DefaultFloor is AdaKV's safeguard: every head keeps at least a fifth of
// its uniform share of the budget (AdaKV's and kvpress's alpha 0.2).
const DefaultFloor = 0.2

// ChooseHeadWise is AdaKV's budget allocation over one layer's KV heads:
// scores[h] holds head h's n scores (Scores or AttentionScores, higher
// kept), and the layer keeps m·len(scores) entries in all, as many as
// Choose would keep at m a head, but not m a head. Every head keeps its
// protected entries (the sinks and the most recent, as Choose does); the
// rest of the layer's budget goes to the highest normalised scores of all
// heads taken jointly, after every head has taken the best ⌊Floor·r⌋ of
// its own (r: its uniform share of the unprotected budget). A head's
// candidates' scores are normalised to shares of their total once their
// least is subtracted, so that heads whose scores are on different scales
// (distances, attention) compete on how concentrated they are: a head
// whose mass sits on a few entries gives the rest of its budget to flatter
// heads. +Inf scores (SnapKV's window) are taken first. It returns each
// head's slots, ascending.
func (p *Policy) ChooseHeadWise(scores [][]float32, n, m int) [][]int32 {
	H := len(scores)
	out := make([][]int32, H)
	for _, sc := range scores {
		if n < 0 || len(sc) < n {
			return out
		}
	}
	m = max(0, min(m, n))
	sinks, recent := p.protected()
	sinks = min(sinks, m, n)
	recent = min(recent, m-sinks, n-sinks)
	r := m - sinks - recent // each head's uniform unprotected share
	floor := p.Floor
	if floor == 0 {
		floor = DefaultFloor
	}
	f := 0
	if floor > 0 {
		f = min(r, int(math.Floor(min(floor, 1)*float64(r))))
	}
	type entry struct {
		share float64
		head  int
		slot  int32
	}
	// The highest shares first; ties to the newer entry, then the lower head.
	byShare := func(a, b entry) int {
		if c := cmp.Compare(b.share, a.share); c != 0 {
			return c
		}
		if c := cmp.Compare(b.slot, a.slot); c != 0 {
			return c
		}
		return cmp.Compare(a.head, b.head)
	}
	var pool []entry
	for h, sc := range scores {
		keep := make([]int32, 0, m+r*(H-1))
		for i := range sinks {
			keep = append(keep, int32(i))
		}
		for i := n - recent; i < n; i++ {
			keep = append(keep, int32(i))
		}
		lo, tot, cnt := math.Inf(1), 0.0, 0
		for i := sinks; i < n-recent; i++ {
			if v := float64(sc[i]); !math.IsInf(v, 0) && !math.IsNaN(v) {
				lo = min(lo, v)
				cnt++
			}
		}
		for i := sinks; i < n-recent; i++ {
			if v := float64(sc[i]); !math.IsInf(v, 0) && !math.IsNaN(v) {
				tot += v - lo
			}
		}
		cand := make([]entry, 0, n-recent-sinks)
		for i := sinks; i < n-recent; i++ {
			v := float64(sc[i])
			var s float64
			switch {
			case math.IsInf(v, 1):
				s = math.Inf(1)
			case math.IsNaN(v) || math.IsInf(v, -1):
				s = 0
			case tot > 0 && !math.IsInf(tot, 0):
				s = (v - lo) / tot
			default: // every candidate alike
				s = 1 / float64(max(cnt, 1))
			}
			cand = append(cand, entry{s, h, int32(i)})
		}
		slices.SortFunc(cand, byShare)
		for _, e := range cand[:f] {
			keep = append(keep, e.slot)
		}
		pool = append(pool, cand[f:]...)
		out[h] = keep
	}
	slices.SortFunc(pool, byShare)
	for _, e := range pool[:min(len(pool), (r-f)*H)] {
		out[e.head] = append(out[e.head], e.slot)
	}
	for _, k := range out {
		slices.Sort(k)
	}
	return out
}
