package grc

import (
	"fmt"
	"math"
	"slices"

	"github.com/isagi-lab/isagi/engine/model"
)

// KVRank is the per-head rank of a KV-cache projection that keeps the same
// share of a head as rank k keeps of the width d: ⌈headDim·k/d⌉, rounded
// up to even (a rotary pair is kept whole), clamped to [2, headDim]. A
// result of headDim (k ≥ d, or d ≤ 0) is lossless: every key coordinate
// is kept and the value basis is a rotation.
func KVRank(headDim, k, d int) int {
	if d <= 0 || k >= d {
		return headDim
	}
	r := 0
	if k > 0 {
		r = (headDim*k + d - 1) / d
	}
	r += r % 2
	return max(2, min(r, headDim))
}

// KVProjectionFor computes m's KV-cache projection at rank r per head from
// its weights alone, with no calibration (Paper 3 §5).
//
// Keys: each KV head keeps the r coordinates of its rotated key space, in
// whole RoPE units (model.KeyUnits), of most importance per coordinate,
// ties to the lower unit. A unit's importance is Σ over the query heads
// of the KV head's group of ‖W_Q rows of (q, unit)‖_F·‖W_K rows of (kv
// head, unit)‖_F — the scale of the unit's share of the scores q·k — with
// the rows scaled by |γ| of the per-head Q/K norms when the model has them
// (qwen3, gemma3). Biases (qwen2) are not counted.
//
// Values: each KV head's basis is the top r eigenvectors of W_V^h W_V^hᵀ
// (the head's rows of W_V), each with its largest-magnitude entry
// positive, so that two builds are byte-identical.
//
// r must be even and at least 2; r ≥ HeadDim is lossless (r = HeadDim:
// every key coordinate kept, the values rotated).
func KVProjectionFor(m *model.Model, r int) (*model.KVProjection, error) {
	c := &m.Config
	r = min(r, c.HeadDim)
	if r < 2 || (r%2 != 0 && r != c.HeadDim) {
		return nil, fmt.Errorf("grc: KV projection of rank %d: it must be even and at least 2", r)
	}
	units := model.KeyUnits(c)
	layers := make([]model.KVLayer, c.Layers)
	for l := range layers {
		bw := m.Block(l)
		qkv, err := dequantGroup(m, 0, l) // Q, K, V
		if err != nil {
			return nil, err
		}
		q, k, v := qkv[0].W, qkv[1].W, qkv[2].W
		imp := keyImportance(c, units, q, k, bw.QNorm, bw.KNorm)
		L := &layers[l]
		for h := range c.KVHeads {
			keep, err := keepUnits(units, imp[h], r)
			if err != nil {
				return nil, fmt.Errorf("grc: block %d KV head %d: %w", l, h, err)
			}
			L.Keep = append(L.Keep, keep)
			basis, err := valueBasis(v, h, c.HeadDim, c.Dim, r)
			if err != nil {
				return nil, fmt.Errorf("grc: block %d KV head %d: %w", l, h, err)
			}
			L.V = append(L.V, basis)
		}
	}
	p, err := model.NewKVProjection(c, r, layers)
	if err != nil {
		return nil, fmt.Errorf("grc: %w", err)
	}
	return p, nil
}

// keyImportance is, per KV head and unit, the importance of the unit per
// coordinate (see KVProjectionFor), from the dequantised W_Q (QDim×Dim)
// and W_K (KVDim×Dim) and the optional Q/K norm weights (HeadDim each).
func keyImportance(c *model.Config, units [][]int, q, k, qNorm, kNorm []float32) [][]float64 {
	hd, group := c.HeadDim, c.Heads/c.KVHeads
	// Squared norms of the rows, each scaled by its coordinate's γ².
	rowNorms := func(w, gamma []float32, rows int) []float64 {
		out := make([]float64, rows)
		for i := range rows {
			var s float64
			for _, x := range w[i*c.Dim : (i+1)*c.Dim] {
				s += float64(x) * float64(x)
			}
			if gamma != nil {
				g := float64(gamma[i%hd])
				s *= g * g
			}
			out[i] = s
		}
		return out
	}
	qn := rowNorms(q, qNorm, c.Heads*hd)
	kn := rowNorms(k, kNorm, c.KVHeads*hd)
	unitNorm := func(n []float64, head int, u []int) float64 {
		var s float64
		for _, d := range u {
			s += n[head*hd+d]
		}
		return math.Sqrt(s)
	}
	imp := make([][]float64, c.KVHeads)
	for h := range imp {
		imp[h] = make([]float64, len(units))
		for ui, u := range units {
			ik := unitNorm(kn, h, u)
			var s float64
			for qh := h * group; qh < (h+1)*group; qh++ {
				s += unitNorm(qn, qh, u) * ik
			}
			// A pair costs two of the r coordinates: compare per coordinate.
			imp[h][ui] = s / float64(len(u))
		}
	}
	return imp
}

// keepUnits picks whole units of most importance until r coordinates are
// kept, ties to the lower unit, skipping a pair that no longer fits (a
// single unit then closes the gap), and returns the coordinates in
// ascending order.
func keepUnits(units [][]int, imp []float64, r int) ([]int, error) {
	order := make([]int, len(units))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case imp[a] > imp[b]:
			return -1
		case imp[a] < imp[b]:
			return 1
		}
		return 0
	})
	keep := make([]int, 0, r)
	for _, u := range order {
		if len(keep)+len(units[u]) <= r {
			keep = append(keep, units[u]...)
		}
	}
	if len(keep) != r {
		return nil, fmt.Errorf("whole RoPE units cannot make %d key coordinates", r)
	}
	slices.Sort(keep)
	return keep, nil
}

// valueBasis is KV head h's value basis: the top r eigenvectors of the
// Gram of its rows of W_V (rows h·hd…, dim columns), as r rows of hd,
// sign-canonical — the rank-r basis of Wᵀ's input space, which is the
// head's output space.
func valueBasis(v []float32, h, hd, dim, r int) ([]float32, error) {
	wt := Matrix{Rows: dim, Cols: hd, W: make([]float32, dim*hd)}
	for i := range hd {
		for j, x := range v[(h*hd+i)*dim : (h*hd+i+1)*dim] {
			wt.W[j*hd+i] = x
		}
	}
	dec, err := Decompose([]Matrix{wt})
	if err != nil {
		return nil, fmt.Errorf("value Gram: %w", err)
	}
	b, err := dec.Basis(r)
	if err != nil {
		return nil, fmt.Errorf("value Gram: %w", err)
	}
	return b.Transposed(), nil
}
