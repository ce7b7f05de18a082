package backendtest_test

import (
	"math"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/backend/backendtest"
	"github.com/isagi-lab/isagi/engine/backend/cpu"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// hostExperts is a plain host implementation of backend.Experts over the
// CPU backend, one expert product at a time: it keeps the suite's Experts
// check honest (its float64 references must accept a straightforward
// implementation of the doc comments) until every backend runs it.
type hostExperts struct{ *cpu.Backend }

type hostRoute struct {
	k   int
	ids []int32
	w   []float32
}

func (r *hostRoute) K() int { return r.k }

type hostStack struct {
	ms   []backend.Matrix
	bias [][]float32 // an F32 stack's values (biases)
	r, c int
}

func (s *hostStack) Shape() (int, int) { return s.r, s.c }

func (b hostExperts) ExpertMatrix(ms []*tensor.Matrix) (backend.Matrix, error) {
	s := &hostStack{r: ms[0].Rows, c: ms[0].Cols}
	for _, m := range ms {
		bm, err := b.Matrix(m)
		if err != nil {
			return nil, err
		}
		s.ms = append(s.ms, bm)
		v := make([]float32, m.Rows*m.Cols)
		if err := tensor.Dequantize(m.Type, v, m.Data); err != nil {
			return nil, err
		}
		s.bias = append(s.bias, v)
	}
	return s, nil
}

func (b hostExperts) AllocRoute(rows, k int) (backend.Route, error) {
	return &hostRoute{k: k, ids: make([]int32, rows*k), w: make([]float32, rows*k)}, nil
}

// Route chooses by k passes of an arg-max over the experts not yet taken.
func (b hostExperts) Route(rt backend.Route, logits backend.Buffer, n int, o backend.RouteOptions) {
	r, ne := rt.(*hostRoute), logits.Width()
	lg := b.Host(logits, 0, n)
	for i := range n {
		p := append([]float32(nil), lg[i*ne:(i+1)*ne]...)
		switch o.Gating {
		case backend.GateSoftmax:
			softmax(p)
		case backend.GateSigmoid:
			for e := range p {
				p[e] = 1 / (1 + float32(math.Exp(-float64(p[e]))))
			}
		}
		taken := make([]bool, ne)
		w := r.w[i*r.k : (i+1)*r.k]
		for j := range r.k {
			best := -1
			for e := range ne {
				if !taken[e] && (best < 0 || p[e] > p[best]) {
					best = e
				}
			}
			taken[best] = true
			r.ids[i*r.k+j], w[j] = int32(best), p[best]
		}
		if o.Gating == backend.GateSoftmaxWeight {
			softmax(w)
		}
		var sum float32
		for _, x := range w {
			sum += x
		}
		for j := range w {
			if o.Norm {
				w[j] /= max(sum, 6.103515625e-5)
			}
			if o.Scale != 0 {
				w[j] *= o.Scale
			}
		}
	}
}

func softmax(v []float32) {
	m := float32(math.Inf(-1))
	for _, x := range v {
		m = max(m, x)
	}
	var s float32
	for i := range v {
		v[i] = float32(math.Exp(float64(v[i] - m)))
		s += v[i]
	}
	for i := range v {
		v[i] /= s
	}
}

func (b hostExperts) ExpertLinears(rt backend.Route, x backend.Buffer, n int, perSlot bool, ops ...backend.ExpertOp) {
	r := rt.(*hostRoute)
	for _, op := range ops {
		s := op.W.(*hostStack)
		xin, _ := b.Alloc(1, s.c)
		y, _ := b.Alloc(1, s.r)
		for p := range n * r.k {
			row := p / r.k
			if perSlot {
				row = p
			}
			b.Write(xin, 0, b.Host(x, row, 1)[:s.c])
			e := r.ids[p]
			b.Linear(y, s.ms[e], xin, 1)
			out := b.Host(op.Dst, p, 1)
			copy(out, b.Host(y, 0, 1))
			if op.Bias != nil {
				for o, v := range op.Bias.(*hostStack).bias[e] {
					out[o] += v
				}
			}
		}
	}
}

func (b hostExperts) Combine(dst, y backend.Buffer, rt backend.Route, n int) {
	r := rt.(*hostRoute)
	for i := range n {
		d := b.Host(dst, i, 1)
		clear(d)
		for j := range r.k {
			for c, v := range b.Host(y, i*r.k+j, 1)[:len(d)] {
				d[c] += r.w[i*r.k+j] * v
			}
		}
	}
}

func (b hostExperts) SwiGLUOAI(g, u backend.Buffer, n int, alpha, limit float32) {
	gv, uv := b.Host(g, 0, n), b.Host(u, 0, n)
	for i, v := range gv {
		x, y := min(v, limit), max(-limit, min(uv[i], limit))
		gv[i] = x / (1 + float32(math.Exp(float64(-alpha*x)))) * (y + 1)
	}
}

func (b hostExperts) ReadRoute(rt backend.Route, n int, ids []int32, weights []float32) {
	r := rt.(*hostRoute)
	copy(ids, r.ids[:n*r.k])
	copy(weights, r.w[:n*r.k])
}

// TestHostExperts runs the suite's Experts check on hostExperts.
func TestHostExperts(t *testing.T) {
	b := hostExperts{cpu.New(nil)}
	var _ backend.Experts = b
	backendtest.Run(t, b, backendtest.Config{Tol: backendtest.DefaultTolerances()})
}
