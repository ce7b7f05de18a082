package cpu

import (
	"fmt"
	"math"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// The CPU backend's mixture-of-experts operations (backend.Experts). A
// decoded token's chosen experts run in two dispatches of the pool — every
// gate and up product of the token's one input, then every down product of
// the experts' own inputs (tensor.Kernels.MatVecsEach) — so decoding reads
// only the chosen experts' rows. A batch is grouped by expert: each expert
// chosen by some rows multiplies those rows together, reading its weights
// once per batch.

// expertMat is a stack of one matrix per expert, each packed as Matrix
// packs a dense one; an F32 stack of one-row matrices (biases) keeps its
// rows as floats.
type expertMat struct {
	ms         []*tensor.Matrix
	rows, cols int
	bias       [][]float32 // F32 one-row stacks: each expert's row
}

func (m *expertMat) Shape() (int, int) { return m.rows, m.cols }

// route is a batch's chosen experts: row i's are ids[i·k : (i+1)·k], with
// weights w at the same places.
type route struct {
	k    int
	ids  []int32
	w    []float32
	rows int
}

func (r *route) K() int { return r.k }

// experts is the backend's scratch for the expert operations, kept so that
// a decode step allocates nothing.
type experts struct {
	vops  []tensor.VecOp
	mops  [4]tensor.MatMulOp
	xs    []float32 // a batch's rows gathered for one expert
	ys    [4][]float32
	slots []int32 // rows·k slots, grouped by expert
	first []int32 // each expert's first index into slots, and one past the last
	probs []float32
	pick  []bool
}

// ExpertMatrix packs each expert's matrix and keeps them as one stack.
func (b *Backend) ExpertMatrix(ms []*tensor.Matrix) (backend.Matrix, error) {
	if len(ms) == 0 || ms[0] == nil {
		return nil, fmt.Errorf("cpu: an expert stack of no matrices")
	}
	m0 := ms[0]
	e := &expertMat{ms: make([]*tensor.Matrix, len(ms)), rows: m0.Rows, cols: m0.Cols}
	for i, m := range ms {
		if m == nil || m.Type != m0.Type || m.Rows != m0.Rows || m.Cols != m0.Cols {
			return nil, fmt.Errorf("cpu: expert %d is not a %d×%d %s matrix like expert 0", i, m0.Rows, m0.Cols, m0.Type)
		}
		e.ms[i] = b.k.Pack(m)
	}
	if m0.Rows == 1 && m0.Type == tensor.F32 {
		e.bias = make([][]float32, len(ms))
		for i, m := range ms {
			e.bias[i] = make([]float32, m.Cols)
			if err := tensor.Dequantize(tensor.F32, e.bias[i], m.Data); err != nil {
				return nil, fmt.Errorf("cpu: expert %d's bias: %w", i, err)
			}
		}
	}
	return e, nil
}

// AllocRoute allocates the routing of rows rows of k experts.
func (b *Backend) AllocRoute(rows, k int) (backend.Route, error) {
	if rows <= 0 || k <= 0 || rows > math.MaxInt32/k {
		return nil, fmt.Errorf("cpu: a routing of %d rows × %d experts", rows, k)
	}
	return &route{k: k, ids: make([]int32, rows*k), w: make([]float32, rows*k), rows: rows}, nil
}

// Route chooses each row's experts as llama.cpp's build_moe_ffn does:
// probabilities by the gating function, the k largest of them (plus the
// selection bias) chosen, the lower id first on a tie, and their weights
// (a softmax over the chosen logits for GateSoftmaxWeight), normalised and
// scaled as asked.
func (b *Backend) Route(rt backend.Route, logits backend.Buffer, n int, o backend.RouteOptions) {
	r, lg := rt.(*route), hb(logits)
	E, k := lg.width, r.k
	s := &b.ex
	if cap(s.probs) < E {
		s.probs, s.pick = make([]float32, E), make([]bool, E)
	}
	p, pick := s.probs[:E], s.pick[:E]
	var mask, sel []float32
	if o.Mask != nil {
		mask = hv(o.Mask)
	}
	if o.SelectBias != nil {
		sel = hv(o.SelectBias)
	}
	for i := range n {
		z := lg.data[i*E : (i+1)*E]
		if mask != nil {
			addInto(z, mask)
		}
		switch o.Gating {
		case backend.GateSoftmax:
			softmaxInto(p, z)
		case backend.GateSigmoid:
			for e, v := range z {
				p[e] = float32(1 / (1 + math.Exp(-float64(v))))
			}
		default: // GateSoftmaxWeight: choose by the logits
			copy(p, z)
		}
		clear(pick)
		ids, w := r.ids[i*k:(i+1)*k], r.w[i*k:(i+1)*k]
		for j := range k {
			best := -1
			bv := float32(math.Inf(-1))
			for e := range E {
				v := p[e]
				if sel != nil {
					v += sel[e]
				}
				if !pick[e] && (best < 0 || v > bv) {
					best, bv = e, v
				}
			}
			pick[best] = true
			ids[j], w[j] = int32(best), p[best]
		}
		if o.Gating == backend.GateSoftmaxWeight {
			softmaxInto(w, w)
		}
		if o.Norm {
			var sum float32
			for _, v := range w {
				sum += v
			}
			sum = max(sum, 6.103515625e-5)
			for j := range w {
				w[j] /= sum
			}
		}
		if o.Scale != 0 && o.Scale != 1 {
			for j := range w {
				w[j] *= o.Scale
			}
		}
	}
}

// softmaxInto writes softmax(z) to p (p may be z), the sum in float64.
func softmaxInto(p, z []float32) {
	m := float32(math.Inf(-1))
	for _, v := range z {
		m = max(m, v)
	}
	var sum float64
	for e, v := range z {
		x := float32(math.Exp(float64(v - m)))
		p[e] = x
		sum += float64(x)
	}
	inv := float32(1 / sum)
	for e := range p {
		p[e] *= inv
	}
}

// ExpertLinears runs the chosen experts' products: one dispatch for a
// decoded token, the rows grouped by expert for a batch.
func (b *Backend) ExpertLinears(rt backend.Route, x backend.Buffer, n int, perSlot bool, ops ...backend.ExpertOp) {
	r, xb := rt.(*route), hb(x)
	k := r.k
	if len(ops) == 0 || len(ops) > len(b.ex.mops) {
		panic(fmt.Sprintf("cpu: ExpertLinears of %d products", len(ops)))
	}
	cols := hexp(ops[0].W).cols
	if n == 1 {
		s := &b.ex
		s.vops = s.vops[:0]
		for j := range k {
			e := r.ids[j]
			in := 0
			if perSlot {
				in = j
			}
			for _, op := range ops {
				W := hexp(op.W)
				d := hb(op.Dst)
				s.vops = append(s.vops, tensor.VecOp{Dst: d.data[j*d.width : j*d.width+W.rows], W: W.ms[e], In: in})
			}
		}
		rows := 1
		if perSlot {
			rows = k
		}
		b.k.MatVecsEach(xb.data[:rows*xb.width], cols, s.vops)
		clear(s.vops)
	} else {
		b.byExpert(r, xb, n, perSlot, cols, ops)
	}
	for _, op := range ops {
		if op.Bias == nil {
			continue
		}
		bias, d := hexp(op.Bias).bias, hb(op.Dst)
		for s := range n * k {
			row := d.data[s*d.width:]
			addInto(row[:len(bias[r.ids[s]])], bias[r.ids[s]])
		}
	}
}

// byExpert runs a batch's expert products expert by expert: the rows
// (slots, with perSlot) that chose it gathered, multiplied together, and
// the results scattered back to their slots.
func (b *Backend) byExpert(r *route, xb *buf, n int, perSlot bool, cols int, ops []backend.ExpertOp) {
	s := &b.ex
	k := r.k
	E := len(hexp(ops[0].W).ms)
	if cap(s.first) < E+1 {
		s.first = make([]int32, E+1)
	}
	first := s.first[:E+1]
	clear(first)
	for _, e := range r.ids[:n*k] {
		first[e+1]++
	}
	for e := range E {
		first[e+1] += first[e]
	}
	if cap(s.slots) < n*k {
		s.slots = make([]int32, n*k)
	}
	slots := s.slots[:n*k]
	// Counting sort: first[e] walks over expert e's place as its slots
	// are put there, and ends where expert e+1's begins.
	for sl, e := range r.ids[:n*k] {
		slots[first[e]] = int32(sl)
		first[e]++
	}
	lo := int32(0)
	for e := range E {
		group := slots[lo:first[e]]
		lo = first[e]
		m := len(group)
		if m == 0 {
			continue
		}
		if cap(s.xs) < m*cols {
			s.xs = make([]float32, m*cols)
		}
		xs := s.xs[:m*cols]
		for t, sl := range group {
			row := int(sl) / k
			if perSlot {
				row = int(sl)
			}
			copy(xs[t*cols:(t+1)*cols], xb.data[row*xb.width:row*xb.width+cols])
		}
		for i, op := range ops {
			W := hexp(op.W)
			if cap(s.ys[i]) < m*W.rows {
				s.ys[i] = make([]float32, m*W.rows)
			}
			s.mops[i] = tensor.MatMulOp{Dst: s.ys[i][:m*W.rows], W: W.ms[e]}
		}
		b.k.MatMuls(xs, m, s.mops[:len(ops)]...)
		for i, op := range ops {
			R, d := hexp(op.W).rows, hb(op.Dst)
			for t, sl := range group {
				copy(d.data[int(sl)*d.width:int(sl)*d.width+R], s.ys[i][t*R:(t+1)*R])
			}
		}
	}
	clear(s.mops[:])
}

// Combine sums each row's experts' outputs by their weights, in the order
// they were chosen, each product rounded before it is added (as ggml's mul
// then add).
func (b *Backend) Combine(dst, y backend.Buffer, rt backend.Route, n int) {
	r, d, yb := rt.(*route), hb(dst), hb(y)
	k, D := r.k, d.width
	for i := range n {
		out := d.data[i*D : (i+1)*D]
		for j := range k {
			w := r.w[i*k+j]
			src := yb.data[(i*k+j)*yb.width:][:D]
			if j == 0 {
				for c, v := range src {
					out[c] = float32(w * v)
				}
				continue
			}
			for c, v := range src {
				out[c] += float32(w * v)
			}
		}
	}
}

// SwiGLUOAI is gpt-oss's clamped SwiGLU (ggml's swiglu_oai), in float32 as
// ggml computes it.
func (b *Backend) SwiGLUOAI(g, u backend.Buffer, n int, alpha, limit float32) {
	gb, ub := hb(g), hb(u)
	w := gb.width
	for i := range n {
		gs, us := gb.data[i*w:(i+1)*w], ub.data[i*ub.width:i*ub.width+w]
		for c, v := range gs {
			x := min(v, limit)
			y := min(max(us[c], -limit), limit)
			gs[c] = float32(x/float32(1+math.Exp(float64(-alpha*x)))) * (y + 1)
		}
	}
}

// ReadRoute copies the chosen ids and weights of n rows.
func (b *Backend) ReadRoute(rt backend.Route, n int, ids []int32, weights []float32) {
	r := rt.(*route)
	copy(ids, r.ids[:n*r.k])
	copy(weights, r.w[:n*r.k])
}

func hexp(m backend.Matrix) *expertMat { return m.(*expertMat) }

var _ backend.Experts = (*Backend)(nil)
