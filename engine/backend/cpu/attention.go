package cpu

import (
	"math"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// attnSplit is how many units a query head's rows are dealt into for a
// batch. With heads alone as the units, 9 heads on 2 threads leave one
// thread idle a ninth of the time; dealing rows round-robin (row i to unit
// i mod attnSplit) also balances the causal mask's growing row lengths.
const attnSplit = 4

// attnTask is causal multi-head attention for one layer over a batch, split
// across units of (query head, rows i ≡ part mod split). Each unit owns a
// row of scores, so units run in parallel without sharing scratch space,
// and a row's arithmetic does not depend on its unit. Query head h reads KV
// head h/(Heads/KVHeads) (grouped-query attention, consecutive grouping).
type attnTask struct {
	b              *Backend
	c              *kv
	q, out         *buf
	layer, n, pos0 int // pos0: the batch's first slot
	split          int
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
	var sinks []float32
	if t.o.Sinks != nil {
		sinks = hv(t.o.Sinks)
	}
	for u := lo; u < hi; u++ {
		h, part := u/t.split, u%t.split
		g := h / group
		row0 := (t.layer*a.KVHeads + g) * c.ctx // the head's slot 0
		sc := c.scores[u*c.ctx : (u+1)*c.ctx]
		for i := part; i < t.n; i += t.split {
			p := t.pos0 + i // attends to slots first…p
			first := 0
			if t.o.Window > 0 {
				// The window is in positions: the query's is p+shift (a new
				// row follows the kept ones), and a compacted head's oldest
				// visible slot is found among its positions.
				first = c.firstSlot(t.layer*a.KVHeads+g, max(0, p+c.shift-t.o.Window+1))
			}
			qrow := t.q.data[i*t.q.width:]
			q := qrow[h*HD : (h+1)*HD]
			w := sc[:p+1-first]
			c.dots(row0+first, q, w)
			// The scaling, the maximum and the normalisation are the
			// elementwise loops they always were, in vector kernels: at a
			// 4K-token prompt these loops in Go took a seventh of the
			// prefill.
			var mx float32
			if softCap > 0 {
				mx = float32(math.Inf(-1))
				for j := range w {
					w[j] = softCap * float32(math.Tanh(float64(w[j]*scale/softCap)))
					mx = max(mx, w[j])
				}
			} else {
				mx = tensor.ScaleMax(w, scale)
			}
			if sinks != nil {
				// The sink is one more column of the softmax, with no
				// value: it joins the maximum and the denominator (ggml's
				// soft_max with sinks), taking probability from the keys.
				mx = max(mx, sinks[h])
			}
			sum := tensor.ExpShift(w, mx)
			if sinks != nil {
				sum += float32(math.Exp(float64(sinks[h] - mx)))
			}
			orow := t.out.data[i*t.out.width:]
			tensor.Scale(w, 1/sum)
			c.weightedSum(orow[h*HD:(h+1)*HD], row0+first, w)
		}
	}
}

// dots writes the scores q·key of rows r0…r0+len(w)−1 into w, reading the
// cache's type in place: one kernel call per query row, whatever the type
// (the f32 case first, as it was before there were others).
func (c *kv) dots(r0 int, q, w []float32) {
	switch HD := len(q); c.a.KV {
	case backend.KVF32:
		tensor.DotRows(c.k[r0*HD:(r0+len(w))*HD], q, w)
	case backend.KVF16:
		tensor.DotRowsF16(c.kh[r0*HD:(r0+len(w))*HD], q, w)
	case backend.KVQ8_0:
		rb := c.rowBytes
		tensor.DotRowsQ8_0(c.kb[r0*rb:(r0+len(w))*rb], q, w)
	}
}

// weightedSum writes Σ_j w[j]·value(r0+j) into out, reading the cache's
// type in place.
func (c *kv) weightedSum(out []float32, r0 int, w []float32) {
	switch HD := len(out); c.a.KV {
	case backend.KVF32:
		tensor.WeightedSum(out, c.v[r0*HD:(r0+len(w))*HD], w)
	case backend.KVF16:
		tensor.WeightedSumF16(out, c.vh[r0*HD:(r0+len(w))*HD], w)
	case backend.KVQ8_0:
		rb := c.rowBytes
		tensor.WeightedSumQ8_0(out, c.vb[r0*rb:(r0+len(w))*rb], w)
	}
}
