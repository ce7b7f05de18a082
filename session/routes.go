package session

import (
	"math"
	"slices"
)

// routeLog is the expert map's record of a mixture-of-experts model's
// routing (model.RouteHook): which experts each MoE layer chose for each
// position the conversation's state computed, with their mixing weights.
//
// It keeps two things. The ids of every position still held (hist), so
// that the conversation's counts per (layer, expert) stay right when
// positions are forgotten — a rewind, a speculative verifier's rejected
// drafts, a new branch — and are recomputed. And a ring of the last
// positions' ids and weights, for the heat map and a token's routing.
// Routed allocates nothing once hist has grown to the conversation's
// length (it grows by doubling); everything else is read between tokens.
//
// A routeLog is not safe for concurrent use: the forward pass calls it on
// the goroutine that generates, and its readers run between replies or in
// the reply's own callback.
type routeLog struct {
	layers  []int // the MoE layers (block indices), in order
	slot    []int // block index → index in layers; -1 for a dense block
	experts int   // experts per MoE layer
	k       int   // experts chosen per token

	// hist holds, per position and MoE layer, the k ids chosen
	// (noExpert where the position was not seen); filled[i] is how many
	// positions layer i has recorded.
	hist   []uint16
	filled []int
	// counts[i*experts+e] is how many positions held chose expert e at
	// MoE layer i.
	counts []int64

	// The ring: for the last len(ringPos)/len(layers) positions, slot r
	// of layer i holds position ringPos[r*L+i] (-1: nothing), its ids and
	// weights at [(r*L+i)*k:][:k].
	ringPos []int
	ringIDs []int32
	ringW   []float32
}

// noExpert marks an id not recorded: a position computed before the log
// was attached.
const noExpert = math.MaxUint16

// ringSlack is how many positions the ring holds beyond the window the
// map shows: a speculative verifier forgets at most generate.MaxGamma+1
// drafted positions at once, and the window stays whole after it does.
const ringSlack = 17

// newRouteLog is the log of a model whose MoE layers are layers (block
// indices, of blocks in all), each with experts experts of which k are
// chosen per token, showing the last window positions.
func newRouteLog(blocks int, layers []int, experts, k, window int) *routeLog {
	r := &routeLog{layers: slices.Clone(layers), slot: make([]int, blocks), experts: experts, k: k}
	for i := range r.slot {
		r.slot[i] = -1
	}
	for i, l := range layers {
		r.slot[l] = i
	}
	L := len(layers)
	r.filled = make([]int, L)
	r.counts = make([]int64, L*experts)
	rows := window + ringSlack
	r.ringPos = make([]int, rows*L)
	r.ringIDs = make([]int32, rows*L*k)
	r.ringW = make([]float32, rows*L*k)
	for i := range r.ringPos {
		r.ringPos[i] = -1
	}
	return r
}

// rows is the ring's length in positions.
func (r *routeLog) rows() int { return len(r.ringPos) / max(len(r.layers), 1) }

// Routed implements model.RouteHook: layer chose experts (highest first)
// with weights for the token at pos.
func (r *routeLog) Routed(layer, pos int, experts []int32, weights []float32) {
	if layer < 0 || layer >= len(r.slot) || r.slot[layer] < 0 || pos < 0 {
		return
	}
	i, L, k := r.slot[layer], len(r.layers), r.k
	n := min(len(experts), len(weights), k)
	// The history: grow it to hold pos, marking positions never seen.
	if need := (pos + 1) * L * k; need > len(r.hist) {
		old := len(r.hist)
		r.hist = slices.Grow(r.hist, need-old)[:need]
		for j := old; j < need; j++ {
			r.hist[j] = noExpert
		}
	}
	h := r.hist[(pos*L+i)*k:][:k]
	if pos < r.filled[i] {
		// Computed again without a rewind between: the old choice goes.
		r.uncount(i, h)
	}
	for j := range h {
		h[j] = noExpert
		if j < n && experts[j] >= 0 && int(experts[j]) < r.experts {
			h[j] = uint16(experts[j])
			r.counts[i*r.experts+int(experts[j])]++
		}
	}
	r.filled[i] = max(r.filled[i], pos+1)
	// The ring.
	s := (pos%r.rows())*L + i
	r.ringPos[s] = pos
	ids, ws := r.ringIDs[s*k:][:k], r.ringW[s*k:][:k]
	for j := range ids {
		ids[j], ws[j] = -1, 0
		if j < n {
			ids[j], ws[j] = experts[j], weights[j]
		}
	}
}

// uncount takes one position's choices at MoE layer i out of the counts.
func (r *routeLog) uncount(i int, h []uint16) {
	for _, e := range h {
		if e != noExpert {
			r.counts[i*r.experts+int(e)]--
		}
	}
}

// Rewind implements model.RewindHook: positions from pos on are forgotten.
func (r *routeLog) Rewind(pos int) {
	pos = max(pos, 0)
	L, k := len(r.layers), r.k
	if pos == 0 {
		clear(r.counts)
		clear(r.filled)
		r.hist = r.hist[:0]
	} else {
		for i := range r.layers {
			for p := pos; p < r.filled[i]; p++ {
				r.uncount(i, r.hist[(p*L+i)*k:][:k])
			}
			r.filled[i] = min(r.filled[i], pos)
		}
		r.hist = r.hist[:min(len(r.hist), pos*L*k)]
	}
	for s, p := range r.ringPos {
		if p >= pos {
			r.ringPos[s] = -1
		}
	}
}

// last is the last position every MoE layer has recorded, -1 when none.
func (r *routeLog) last() int {
	if len(r.layers) == 0 {
		return -1
	}
	n := r.filled[0]
	for _, f := range r.filled[1:] {
		n = min(n, f)
	}
	return n - 1
}

// at returns the ring's record of pos at MoE layer i (nil when the ring
// no longer holds it).
func (r *routeLog) at(i, pos int) (ids []int32, weights []float32) {
	if pos < 0 || len(r.layers) == 0 {
		return nil, nil
	}
	s := (pos%r.rows())*len(r.layers) + i
	if r.ringPos[s] != pos {
		return nil, nil
	}
	ids, weights = r.ringIDs[s*r.k:][:r.k], r.ringW[s*r.k:][:r.k]
	n := 0
	for n < len(ids) && ids[n] >= 0 {
		n++
	}
	return ids[:n], weights[:n]
}

// held reports whether the ring holds pos at every MoE layer.
func (r *routeLog) held(pos int) bool {
	for i := range r.layers {
		if ids, _ := r.at(i, pos); ids == nil {
			return false
		}
	}
	return len(r.layers) > 0
}

// entropy is the Shannon entropy, in bits, of the mixing weights w
// normalised to sum to one: 0 when one expert carries the token, log2 k
// when the k chosen share it evenly. It is the entropy of the mixture the
// layer actually applied, not of the router's distribution over every
// expert (which the hook does not see).
func entropy(w []float32) float64 {
	var sum float64
	for _, x := range w {
		if x > 0 {
			sum += float64(x)
		}
	}
	if sum <= 0 {
		return 0
	}
	var h float64
	for _, x := range w {
		if x > 0 {
			p := float64(x) / sum
			h -= p * math.Log2(p)
		}
	}
	return h
}
