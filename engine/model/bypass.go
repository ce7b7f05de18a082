package model

import (
	"fmt"
	"math"

	"github.com/isagi-lab/isagi/engine/backend"
)

// bypassRun is a state's sink bypass (BlockProjections.Bypass): each
// block's threshold, the rows of the step that exceed the current block's,
// and one-row scratch buffers to run a flagged row on the dense weights.
type bypassRun struct {
	thr []float32 // per block; 0 never bypasses
	// rows are the batch rows whose residual stream entering block cur
	// exceeds its threshold; sized once to the batch.
	rows []int
	cur  int
	// in holds a one-row buffer per width a group reads, out one per
	// width and product of a group (Q/K/V write three, K and V alike wide).
	in  map[int]backend.Buffer
	out [3]map[int]backend.Buffer
	// count is the block runs (position × block) that went dense.
	count int64
}

// newBypass makes the bypass of blocks whose projections carry thresholds,
// or nil when none does. It validates them: a threshold is finite and
// non-negative.
func (s *State) newBypass(blocks []BlockProjections) (*bypassRun, error) {
	var thr []float32
	for l, bp := range blocks {
		t := bp.Bypass
		if math.IsNaN(float64(t)) || math.IsInf(float64(t), 0) || t < 0 {
			return nil, fmt.Errorf("model: block %d: a bypass threshold of %g", l, t)
		}
		if bp.QKV == nil && bp.O == nil && bp.FFN == nil && bp.Down == nil {
			t = 0 // nothing projected: nothing to run dense instead
		}
		if t > 0 && thr == nil {
			thr = make([]float32, len(blocks))
		}
		if thr != nil {
			thr[l] = t
		}
	}
	if thr == nil {
		return nil, nil
	}
	c := &s.m.Config
	r := &bypassRun{thr: thr, rows: make([]int, 0, s.batch), in: map[int]backend.Buffer{}}
	for i := range r.out {
		r.out[i] = map[int]backend.Buffer{}
	}
	for _, w := range []int{c.Dim, c.QDim(), c.KVDim(), c.FFN} {
		for _, m := range append([]map[int]backend.Buffer{r.in}, r.out[:]...) {
			if m[w] != nil {
				continue
			}
			b, err := s.b.Alloc(1, w)
			if err != nil {
				return nil, fmt.Errorf("model: %w", err)
			}
			m[w] = b
		}
	}
	return r, nil
}

// Bypassed is how many block runs — one position through one block — ran
// on the dense weights under the sink bypass since the projections were
// set.
func (s *State) Bypassed() int64 {
	if s.bp == nil {
		return 0
	}
	return s.bp.count
}

// flagSinks finds the rows of the step's n whose residual stream entering
// block l (s.x) has a norm above the block's threshold.
func (s *State) flagSinks(l, n int) {
	r := s.bp
	r.cur, r.rows = l, r.rows[:0]
	t := r.thr[l]
	if t <= 0 {
		return
	}
	D := s.m.Dim
	rows := s.b.Host(s.x, 0, n)
	for i := range n {
		var ss float64
		for _, v := range rows[i*D : (i+1)*D] {
			ss += float64(v) * float64(v)
		}
		if math.Sqrt(ss) > float64(t) {
			r.rows = append(r.rows, i)
		}
	}
	r.count += int64(len(r.rows))
}

// denseOf is the dense product of the group L is in the current block, or
// nil when L is not one of its projected groups.
func (s *State) denseOf(L *linear) *linear {
	l := s.bp.cur
	b, d := &s.lin[l], &s.dense.lin[l]
	switch L {
	case &b.qkv:
		return &d.qkv
	case &b.o:
		return &d.o
	case &b.ffn:
		return &d.ffn
	case &b.down:
		return &d.down
	}
	return nil
}

// bypassRows recomputes the flagged rows of a projected product on the
// dense weights, one row at a time through the scratch buffers: sinks are
// a few positions of a batch, and the rest keep the projected result.
func (s *State) bypassRows(dense *linear, x backend.Buffer, dst []backend.Buffer) {
	r := s.bp
	in := r.in[x.Width()]
	for _, i := range r.rows {
		s.b.Write(in, 0, s.b.Host(x, i, 1))
		if len(dst) == 1 {
			s.b.Linear(r.out[0][dst[0].Width()], dense.out[0], in, 1)
		} else {
			for j, d := range dst {
				s.ops[j] = backend.LinearOp{Dst: r.out[j][d.Width()], W: dense.out[j]}
			}
			s.b.Linears(in, 1, s.ops[:len(dst)]...)
			clear(s.ops[:])
		}
		for j, d := range dst {
			s.b.Write(d, i, s.b.Host(r.out[j][d.Width()], 0, 1))
		}
	}
}
