package model

import (
	"math"

	"github.com/isagi-lab/isagi/engine/tensor"
)

// attnTask is causal multi-head attention for one layer over a batch, split
// across query heads. Each head owns a row of scores, so heads run in
// parallel without sharing scratch space. Query head h reads KV head
// h/(Heads/KVHeads) (grouped-query attention, consecutive grouping).
type attnTask struct {
	s              *State
	layer, n, pos0 int
}

func (t *attnTask) Run(lo, hi int) {
	s, c := t.s, &t.s.m.Config
	HD, QD := c.HeadDim, c.QDim()
	group := c.Heads / c.KVHeads
	scale := float32(1 / math.Sqrt(float64(HD)))
	for h := lo; h < hi; h++ {
		g := h / group
		base := (t.layer*c.KVHeads + g) * s.ctx * HD
		kc := s.kc[base : base+s.ctx*HD]
		vc := s.vc[base : base+s.ctx*HD]
		sc := s.scores[h*s.ctx : (h+1)*s.ctx]
		for i := range t.n {
			p := t.pos0 + i // attends to positions 0…p
			q := s.q[i*QD+h*HD : i*QD+(h+1)*HD]
			w := sc[:p+1]
			tensor.DotRows(kc[:(p+1)*HD], q, w)
			mx := float32(math.Inf(-1))
			for j := range w {
				w[j] *= scale
				mx = max(mx, w[j])
			}
			var sum float32
			for j, v := range w {
				e := float32(math.Exp(float64(v - mx)))
				w[j] = e
				sum += e
			}
			out := s.att[i*QD+h*HD : i*QD+(h+1)*HD]
			clear(out)
			inv := 1 / sum
			for j, v := range w {
				tensor.Axpy(v*inv, vc[j*HD:(j+1)*HD], out)
			}
		}
	}
}
