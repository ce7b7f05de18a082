package cpu

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// moeCase is a small mixture of experts with random weights, bound on b.
type moeCase struct {
	E, k, D, F     int
	gate, up, down [][]float32 // per expert, as the matrices hold them
	gm, um, dm     backend.Matrix
	bias           [][]float32 // per expert, the down bias
	bm             backend.Matrix
}

func newMoECase(t *testing.T, b *Backend, typ tensor.Type, E, k, D, F int, seed uint64) *moeCase {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	c := &moeCase{E: E, k: k, D: D, F: F}
	stack := func(rows, cols int, held *[][]float32, std float64) backend.Matrix {
		ms := make([]*tensor.Matrix, E)
		for e := range E {
			v := make([]float32, rows*cols)
			for i := range v {
				v[i] = float32(rng.NormFloat64() * std)
			}
			var h []float32
			if typ == tensor.F32 || typ == tensor.F16 {
				ms[e], h = encode(t, typ, rows, cols, v)
			} else {
				rb, _ := typ.RowBytes(uint64(cols))
				data := make([]byte, int(rb)*rows)
				if err := tensor.Quantize(typ, data, v); err != nil {
					t.Fatal(err)
				}
				h = make([]float32, len(v))
				if err := tensor.Dequantize(typ, h, data); err != nil {
					t.Fatal(err)
				}
				var err error
				if ms[e], err = tensor.NewMatrix(typ, rows, cols, data); err != nil {
					t.Fatal(err)
				}
			}
			*held = append(*held, h)
		}
		m, err := b.ExpertMatrix(ms)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	c.gm = stack(F, D, &c.gate, 0.3)
	c.um = stack(F, D, &c.up, 0.3)
	c.dm = stack(D, F, &c.down, 0.3)
	bs := make([]*tensor.Matrix, E)
	for e := range E {
		v := make([]float32, D)
		for i := range v {
			v[i] = float32(rng.NormFloat64() * 0.1)
		}
		var h []float32
		bs[e], h = encode(t, tensor.F32, 1, D, v)
		c.bias = append(c.bias, h)
	}
	var err error
	if c.bm, err = b.ExpertMatrix(bs); err != nil {
		t.Fatal(err)
	}
	return c
}

// refRoute is Route's rule written plainly: probabilities, the k largest
// (lower id first on a tie), their weights.
func refRoute(z []float32, k int, o backend.RouteOptions) ([]int32, []float64) {
	E := len(z)
	p := make([]float64, E)
	switch o.Gating {
	case backend.GateSoftmax:
		m := math.Inf(-1)
		for _, v := range z {
			m = max(m, float64(v))
		}
		var s float64
		for e, v := range z {
			p[e] = math.Exp(float64(v) - m)
			s += p[e]
		}
		for e := range p {
			p[e] /= s
		}
	case backend.GateSigmoid:
		for e, v := range z {
			p[e] = 1 / (1 + math.Exp(-float64(v)))
		}
	default:
		for e, v := range z {
			p[e] = float64(v)
		}
	}
	order := make([]int32, E)
	for e := range order {
		order[e] = int32(e)
	}
	slices.SortStableFunc(order, func(a, b int32) int {
		switch {
		case p[a] > p[b]:
			return -1
		case p[a] < p[b]:
			return 1
		}
		return 0
	})
	ids := order[:k]
	w := make([]float64, k)
	for j, e := range ids {
		w[j] = p[e]
	}
	if o.Gating == backend.GateSoftmaxWeight {
		m := w[0]
		var s float64
		for j := range w {
			w[j] = math.Exp(w[j] - m)
			s += w[j]
		}
		for j := range w {
			w[j] /= s
		}
	}
	if o.Norm {
		var s float64
		for _, v := range w {
			s += v
		}
		for j := range w {
			w[j] /= s
		}
	}
	if o.Scale != 0 {
		for j := range w {
			w[j] *= float64(o.Scale)
		}
	}
	return ids, w
}

// TestRoute: every gating mode chooses the experts and weights of the plain
// rule, a mask keeps switched-off experts out and renormalises over the
// others.
func TestRoute(t *testing.T) {
	const E, k, n = 9, 3, 4
	b := New(tensor.NewKernels(tensor.NewPool(1)))
	rng := rand.New(rand.NewPCG(1, 2))
	mask := make([]float32, E)
	mask[2], mask[5] = float32(math.Inf(-1)), float32(math.Inf(-1))
	mv, _ := b.Vector(mask)
	for _, o := range []backend.RouteOptions{
		{Gating: backend.GateSoftmax, K: k, Norm: true},
		{Gating: backend.GateSoftmax, K: k},
		{Gating: backend.GateSoftmaxWeight, K: k},
		{Gating: backend.GateSigmoid, K: k, Norm: true, Scale: 2.5},
		{Gating: backend.GateSoftmax, K: k, Norm: true, Mask: mv},
	} {
		lg, _ := b.Alloc(n, E)
		z := make([]float32, n*E)
		for i := range z {
			z[i] = float32(rng.NormFloat64() * 2)
		}
		copy(hb(lg).data, z)
		r, _ := b.AllocRoute(n, k)
		b.Route(r, lg, n, o)
		ids, w := make([]int32, n*k), make([]float32, n*k)
		b.ReadRoute(r, n, ids, w)
		for i := range n {
			zi := slices.Clone(z[i*E : (i+1)*E])
			if o.Mask != nil {
				for e := range zi {
					zi[e] += mask[e]
				}
			}
			wantIDs, wantW := refRoute(zi, k, o)
			for j := range k {
				if ids[i*k+j] != wantIDs[j] || math.Abs(float64(w[i*k+j])-wantW[j]) > 1e-6 {
					t.Fatalf("%+v row %d: chose %v %v, want %v %v", o, i, ids[i*k:(i+1)*k], w[i*k:(i+1)*k], wantIDs, wantW)
				}
				if o.Mask != nil && (ids[i*k+j] == 2 || ids[i*k+j] == 5) {
					t.Fatalf("row %d chose expert %d, which is switched off", i, ids[i*k+j])
				}
			}
		}
	}
}

// TestExpertBlock: route, gate and up, SwiGLU, down with a bias and the
// weighted sum give the block's formula in float64 (F32 and F16 weights
// tightly, Q8_0 through its 8-bit activations loosely); a batch's rows are
// bit for bit the rows run one at a time (grouped by expert, each expert's
// rows multiply together); and a decoded row allocates nothing.
func TestExpertBlock(t *testing.T) {
	const E, k, D, F, n = 6, 2, 64, 32, 7
	for _, tc := range []struct {
		typ tensor.Type
		tol float64
	}{{tensor.F32, 1e-5}, {tensor.F16, 1e-5}, {tensor.Q8_0, 3e-2}} {
		b := New(tensor.NewKernels(tensor.NewPool(2)))
		c := newMoECase(t, b, tc.typ, E, k, D, F, 5)
		rng := rand.New(rand.NewPCG(9, 9))
		x := make([]float32, n*D)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		z := make([]float32, n*E)
		for i := range z {
			z[i] = float32(rng.NormFloat64())
		}
		o := backend.RouteOptions{Gating: backend.GateSoftmax, K: k, Norm: true}
		run := func(rows int, xs, zs []float32) []float32 {
			xb, _ := b.Alloc(rows, D)
			lg, _ := b.Alloc(rows, E)
			g, _ := b.Alloc(rows*k, F)
			u, _ := b.Alloc(rows*k, F)
			y, _ := b.Alloc(rows*k, D)
			out, _ := b.Alloc(rows, D)
			r, _ := b.AllocRoute(rows, k)
			copy(hb(xb).data, xs)
			copy(hb(lg).data, zs)
			step := func() {
				b.Route(r, lg, rows, o)
				b.ExpertLinears(r, xb, rows, false, backend.ExpertOp{Dst: g, W: c.gm}, backend.ExpertOp{Dst: u, W: c.um})
				b.SwiGLU(g, u, rows*k)
				b.ExpertLinears(r, g, rows, true, backend.ExpertOp{Dst: y, W: c.dm, Bias: c.bm})
				b.Combine(out, y, r, rows)
			}
			step()
			if rows == 1 {
				if a := testing.AllocsPerRun(5, func() { copy(hb(lg).data, zs); step() }); a != 0 {
					t.Errorf("%s: a decoded row allocates %v times", tc.typ, a)
				}
			}
			return slices.Clone(hb(out).data)
		}
		batch := run(n, x, z)
		for i := range n {
			one := run(1, x[i*D:(i+1)*D], z[i*E:(i+1)*E])
			if !slices.Equal(one, batch[i*D:(i+1)*D]) {
				t.Fatalf("%s: row %d of a batch differs from the row alone", tc.typ, i)
			}
			ids, w := refRoute(z[i*E:(i+1)*E], k, o)
			want := make([]float64, D)
			for j, e := range ids {
				a := make([]float64, F)
				for f := range F {
					var gs, us float64
					for d := range D {
						gs += float64(c.gate[e][f*D+d]) * float64(x[i*D+d])
						us += float64(c.up[e][f*D+d]) * float64(x[i*D+d])
					}
					a[f] = gs / (1 + math.Exp(-gs)) * us
				}
				for d := range D {
					ys := float64(c.bias[e][d])
					for f := range F {
						ys += float64(c.down[e][d*F+f]) * a[f]
					}
					want[d] += w[j] * ys
				}
			}
			var worst, scale float64
			for d := range D {
				worst = max(worst, math.Abs(float64(one[d])-want[d]))
				scale = max(scale, math.Abs(want[d]))
			}
			if worst > tc.tol*max(1, scale) {
				t.Errorf("%s row %d: |out − formula| = %.3g (scale %.3g)", tc.typ, i, worst, scale)
			}
		}
	}
}

// TestSwiGLUOAI: gpt-oss's clamp (the gate from above, the up from both
// sides) and its σ(1.702·x)·(y+1) form.
func TestSwiGLUOAI(t *testing.T) {
	b := New(tensor.NewKernels(tensor.NewPool(1)))
	gv := []float32{-9, -1, 0, 0.5, 3, 7, 12, 100}
	uv := []float32{-20, -7.5, 0, 1, -3, 7, 8, -100}
	g, _ := b.Alloc(1, len(gv))
	u, _ := b.Alloc(1, len(gv))
	copy(hb(g).data, gv)
	copy(hb(u).data, uv)
	b.SwiGLUOAI(g, u, 1, 1.702, 7)
	for i := range gv {
		x := math.Min(float64(gv[i]), 7)
		y := math.Max(math.Min(float64(uv[i]), 7), -7)
		want := x / (1 + math.Exp(-1.702*x)) * (y + 1)
		if got := float64(hb(g).data[i]); math.Abs(got-want) > 1e-5*max(1, math.Abs(want)) {
			t.Errorf("g %v u %v: %v, want %v", gv[i], uv[i], got, want)
		}
	}
}
