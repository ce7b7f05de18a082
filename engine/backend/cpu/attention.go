package cpu

import (
	"math"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// attnTask is causal multi-head attention for one layer over a batch, split
// across query heads. Each head owns a row of scores, so heads run in
// parallel without sharing scratch space. Query head h reads KV head
// h/(Heads/KVHeads) (grouped-query attention, consecutive grouping).
type attnTask struct {
	b              *Backend
	c              *kv
	q, out         *buf
	layer, n, pos0 int
	o              backend.AttendOptions
}

func (t *attnTask) Run(lo, hi int) {
	c := t.c
	a := c.a
	HD := a.HeadDim
	group := a.Heads / a.KVHeads
	scale := t.o.Scale
	if scale == 0 {
		scale = float32(1 / math.Sqrt(float64(HD)))
	}
	softCap := t.o.SoftCap
	for h := lo; h < hi; h++ {
		g := h / group
		base := (t.layer*a.KVHeads + g) * c.ctx * HD
		kc := c.k[base : base+c.ctx*HD]
		vc := c.v[base : base+c.ctx*HD]
		sc := c.scores[h*c.ctx : (h+1)*c.ctx]
		for i := range t.n {
			p := t.pos0 + i // attends to positions first…p
			first := 0
			if t.o.Window > 0 {
				first = max(0, p-t.o.Window+1)
			}
			qrow := t.q.data[i*t.q.width:]
			q := qrow[h*HD : (h+1)*HD]
			w := sc[:p+1-first]
			tensor.DotRows(kc[first*HD:(p+1)*HD], q, w)
			mx := float32(math.Inf(-1))
			for j := range w {
				w[j] *= scale
				if softCap > 0 {
					w[j] = softCap * float32(math.Tanh(float64(w[j]/softCap)))
				}
				mx = max(mx, w[j])
			}
			sum := tensor.ExpShift(w, mx)
			orow := t.out.data[i*t.out.width:]
			out := orow[h*HD : (h+1)*HD]
			clear(out)
			inv := 1 / sum
			for j, v := range w {
				tensor.Axpy(v*inv, vc[(first+j)*HD:(first+j+1)*HD], out)
			}
		}
	}
}
