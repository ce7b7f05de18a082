package backendtest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// experts checks backend.Experts, where the backend implements it, against
// float64 references computed here from the interface's doc comments: the
// route read back (ReadRoute), the expert products of every weight type
// (decode's one row and a batch, with and without biases, from each row's
// input and from each pair's), gpt-oss's SwiGLU and the weighted sum; and
// against the CPU backend's Experts where it has one.
func (s *suite) experts(t *testing.T) {
	xb, ok := s.b.(backend.Experts)
	if !ok {
		t.Skip("the backend does not implement backend.Experts")
	}
	xc, _ := any(s.ref).(backend.Experts)
	r := rand.New(rand.NewPCG(15, 16))
	const E, k, rows, cols = 8, 2, 256, 256 // square: the down products reuse the stack
	for _, typ := range s.cfg.Types {
		if cols%typ.BlockLen() != 0 {
			continue
		}
		stack, ws := make([]*tensor.Matrix, E), make([][]float32, E)
		biases, bs := make([]*tensor.Matrix, E), make([][]float32, E)
		for e := range stack {
			data := make([]byte, rows*cols/typ.BlockLen()*typ.BlockBytes())
			if err := tensor.FillRandom(typ, data, uint64(e)+100, 0.05); err != nil {
				t.Fatal(err)
			}
			m, err := tensor.NewMatrix(typ, rows, cols, data)
			if err != nil {
				t.Fatal(err)
			}
			stack[e], ws[e] = m, make([]float32, rows*cols)
			if err := tensor.Dequantize(typ, ws[e], data); err != nil {
				t.Fatal(err)
			}
			bs[e] = randVec(r, rows, 0.5)
			biases[e] = f32Matrix(t, 1, rows, bs[e])
		}
		wg, err := xb.ExpertMatrix(stack)
		if err != nil {
			t.Fatalf("ExpertMatrix %v: %v", typ, err)
		}
		bg, err := xb.ExpertMatrix(biases)
		if err != nil {
			t.Fatalf("ExpertMatrix of biases: %v", err)
		}
		var wc, bc backend.Matrix
		if xc != nil {
			if wc, err = xc.ExpertMatrix(stack); err != nil {
				t.Fatal(err)
			}
			if bc, err = xc.ExpertMatrix(biases); err != nil {
				t.Fatal(err)
			}
		}
		for _, n := range []int{1, 5} {
			o := backend.RouteOptions{Gating: backend.GateSoftmax, K: k, Norm: true}
			if n > 1 {
				o = backend.RouteOptions{Gating: backend.GateSoftmaxWeight, K: k, Scale: 1.5}
			}
			what := fmt.Sprintf("Experts %v, %d rows", typ, n)
			lg := randVec(r, n*E, 2)
			logits := s.alloc(t, n, E, lg)
			x := randVec(r, n*k*cols, 1)
			in := s.alloc(t, n*k, cols, x)
			y := s.alloc(t, n*k, rows, nil)
			y2 := s.alloc(t, n*k, rows, nil)
			out := s.alloc(t, n, rows, nil)
			rg, err := xb.AllocRoute(n, k)
			if err != nil {
				t.Fatal(err)
			}
			xb.Route(rg, logits.g, n, o)
			xb.ExpertLinears(rg, in.g, n, false, backend.ExpertOp{Dst: y.g, W: wg, Bias: bg}, backend.ExpertOp{Dst: y2.g, W: wg})
			ids, wts := make([]int32, n*k), make([]float32, n*k)
			xb.ReadRoute(rg, n, ids, wts)
			s.ok(t, what+": route")
			gotY, gotY2 := s.host(t, what, y.g, 0, n*k), s.host(t, what, y2.g, 0, n*k)
			xb.SwiGLUOAI(y.g, y2.g, n*k, 1.702, 7)
			gotG := s.host(t, what+": SwiGLUOAI", y.g, 0, n*k)
			xb.ExpertLinears(rg, y.g, n, true, backend.ExpertOp{Dst: y2.g, W: wg})
			gotD := s.host(t, what+": down", y2.g, 0, n*k)
			xb.Combine(out.g, y2.g, rg, n)
			gotO := s.host(t, what+": Combine", out.g, 0, n)

			if xc != nil {
				rc, err := xc.AllocRoute(n, k)
				if err != nil {
					t.Fatal(err)
				}
				xc.Route(rc, logits.c, n, o)
				xc.ExpertLinears(rc, in.c, n, false, backend.ExpertOp{Dst: y.c, W: wc, Bias: bc}, backend.ExpertOp{Dst: y2.c, W: wc})
				cids, cw := make([]int32, n*k), make([]float32, n*k)
				xc.ReadRoute(rc, n, cids, cw)
				if !s.cfg.NoValues && !slices.Equal(cids, ids) {
					t.Errorf("%s: chose %v, the CPU %v", what, ids, cids)
				}
				s.compare(t, what+": weights against the CPU", wts, cw, 1e-6)
				s.compare(t, what+": gate against the CPU", gotY, s.ref.Host(y.c, 0, n*k), s.cfg.Tol.Product(typ))
			}
			if s.cfg.NoValues {
				continue
			}
			rids, rw := routeRef(lg, n, E, o)
			for i := range n * k {
				if ids[i] != rids[i] {
					t.Fatalf("%s: pair %d chose expert %d, want %d (route %v, want %v)", what, i, ids[i], rids[i], ids, rids)
				}
				if math.Abs(float64(wts[i])-rw[i]) > 1e-6 {
					t.Errorf("%s: pair %d weighs %g, want %g", what, i, wts[i], rw[i])
				}
			}
			tol := s.cfg.Tol.Reference(typ)
			xr := x
			if !floatType(typ) {
				xr = actRound(typ, x)
			}
			worst := 0.0
			for p := range n * k {
				e := ids[p]
				for o := range rows {
					ref, mag := dot64(ws[e][o*cols:(o+1)*cols], xr[(p/k)*cols:(p/k+1)*cols])
					worst = max(worst, math.Abs(float64(gotY2[p*rows+o])-ref)/(mag+1e-30))
					b := float64(bs[e][o])
					worst = max(worst, math.Abs(float64(gotY[p*rows+o])-ref-b)/(mag+math.Abs(b)+1e-30))
				}
			}
			if worst > tol {
				t.Errorf("%s: expert products' relative error %.3g against float64 (tolerance %.3g)", what, worst, tol)
			}
			for i := range gotG {
				g, u := math.Min(float64(gotY[i]), 7), math.Max(-7, math.Min(float64(gotY2[i]), 7))
				want := g / (1 + math.Exp(-1.702*g)) * (u + 1)
				if math.Abs(float64(gotG[i])-want) > 1e-5*(math.Abs(want)+1) {
					t.Fatalf("%s: SwiGLUOAI value %d is %g, want %g", what, i, gotG[i], want)
				}
			}
			gr := gotG
			if !floatType(typ) {
				gr = actRound(typ, gotG)
			}
			worst = 0
			for p := range n * k {
				for o := range rows {
					ref, mag := dot64(ws[ids[p]][o*cols:(o+1)*cols], gr[p*cols:(p+1)*cols])
					worst = max(worst, math.Abs(float64(gotD[p*rows+o])-ref)/(mag+1e-30))
				}
			}
			if worst > tol {
				t.Errorf("%s: down products' relative error %.3g against float64 (tolerance %.3g)", what, worst, tol)
			}
			for i := range n {
				for c := range rows {
					var want, mag float64
					for j := range k {
						v := float64(wts[i*k+j]) * float64(gotD[(i*k+j)*rows+c])
						want += v
						mag += math.Abs(v)
					}
					if math.Abs(float64(gotO[i*rows+c])-want) > 1e-6*(mag+1) {
						t.Fatalf("%s: Combine row %d column %d is %g, want %g", what, i, c, gotO[i*rows+c], want)
					}
				}
			}
		}
	}
}

func dot64(w, x []float32) (float64, float64) {
	var ref, mag float64
	for c := range w {
		p := float64(w[c]) * float64(x[c])
		ref += p
		mag += math.Abs(p)
	}
	return ref, mag
}

// routeRef is RouteOptions's choice in float64 (no mask or selection
// bias): p by the gating, the k largest first (the lower index on a tie),
// their weights.
func routeRef(logits []float32, n, E int, o backend.RouteOptions) ([]int32, []float64) {
	var ids []int32
	var ws []float64
	for i := range n {
		v := make([]float64, E)
		for e := range v {
			v[e] = float64(logits[i*E+e])
		}
		p := slices.Clone(v)
		switch o.Gating {
		case backend.GateSoftmax:
			softmax64(p)
		case backend.GateSigmoid:
			for e := range p {
				p[e] = 1 / (1 + math.Exp(-v[e]))
			}
		}
		idx := make([]int, E)
		for e := range idx {
			idx[e] = e
		}
		sort.SliceStable(idx, func(a, b int) bool { return p[idx[a]] > p[idx[b]] })
		w := make([]float64, o.K)
		for j, e := range idx[:o.K] {
			ids = append(ids, int32(e))
			w[j] = p[e]
		}
		if o.Gating == backend.GateSoftmaxWeight {
			softmax64(w)
		}
		if o.Norm {
			var s float64
			for _, x := range w {
				s += x
			}
			for j := range w {
				w[j] /= math.Max(s, 6.103515625e-5)
			}
		}
		if o.Scale != 0 {
			for j := range w {
				w[j] *= float64(o.Scale)
			}
		}
		ws = append(ws, w...)
	}
	return ids, ws
}

func softmax64(v []float64) {
	m := math.Inf(-1)
	for _, x := range v {
		m = math.Max(m, x)
	}
	var s float64
	for i := range v {
		v[i] = math.Exp(v[i] - m)
		s += v[i]
	}
	for i := range v {
		v[i] /= s
	}
}

// sinks checks attention with gpt-oss's sinks (AttendOptions.Sinks), and
// YaRN's RoPE, against float64 references computed here: the sink joins
// each head's softmax as a column with no value.
func (s *suite) sinks(t *testing.T) {
	if !s.cfg.SinksYaRN {
		t.Skip("Config.SinksYaRN is off: the backend does not claim attention sinks and YaRN")
	}
	r := rand.New(rand.NewPCG(17, 18))
	const heads, kvh, hd, npos = 4, 2, 64, 9
	a := backend.Attention{Heads: heads, KVHeads: kvh, HeadDim: hd}
	kg, err := s.b.NewKV(1, 16, a)
	if err != nil {
		t.Fatal(err)
	}
	kv := randVec(r, 2*npos*kvh*hd, 1)
	q := randVec(r, npos*heads*hd, 1)
	k := s.alloc(t, npos, kvh*hd, kv[:npos*kvh*hd])
	v := s.alloc(t, npos, kvh*hd, kv[npos*kvh*hd:])
	qb := s.alloc(t, npos, heads*hd, q)
	out := s.alloc(t, npos, heads*hd, nil)
	sk := []float32{-1, 0.5, 3, 8}
	_, sg := s.vec(t, sk)
	s.b.StoreKV(kg, 0, 0, npos, k.g, v.g)
	const scale = 0.125
	s.b.Attend(out.g, qb.g, kg, 0, 0, npos, backend.AttendOptions{Sinks: sg, Scale: scale, Window: 5})
	got := s.host(t, "Attend with sinks", out.g, 0, npos)
	if !s.cfg.NoValues {
		for i := range npos {
			for h := range heads {
				g := h / (heads / kvh)
				var sc []float64
				first := max(0, i-4)
				m := float64(sk[h])
				for j := first; j <= i; j++ {
					d, _ := dot64(q[(i*heads+h)*hd:(i*heads+h+1)*hd], kv[(j*kvh+g)*hd:(j*kvh+g+1)*hd])
					sc = append(sc, d*scale)
					m = math.Max(m, d*scale)
				}
				den := math.Exp(float64(sk[h]) - m)
				for _, x := range sc {
					den += math.Exp(x - m)
				}
				for c := range hd {
					var want float64
					for jj, x := range sc {
						want += math.Exp(x-m) / den * float64(kv[npos*kvh*hd+((first+jj)*kvh+g)*hd+c])
					}
					if gv := float64(got[(i*heads+h)*hd+c]); math.Abs(gv-want) > s.cfg.Tol.Attend*(1+math.Abs(want))*10 {
						t.Fatalf("Attend with sinks: row %d head %d value %d is %g, want %g", i, h, c, gv, want)
					}
				}
			}
		}
	}

	// YaRN (gpt-oss's: factor 32, 4096 positions, betas 32 and 1).
	const base, dim = 150000.0, 64
	y := &backend.YaRN{ExtFactor: 1, AttnFactor: 1, BetaFast: 32, BetaSlow: 1, OrigCtx: 4096}
	rp := backend.Rope{Base: base, Dim: dim, Neox: true, PosScale: 1.0 / 32, YaRN: y}
	const pos0, n = 3000, 3
	x := randVec(r, n*heads*hd, 1)
	xb := s.alloc(t, n, heads*hd, x)
	s.b.RoPE(xb.g, n, heads, hd, pos0, rp)
	got = s.host(t, "RoPE with YaRN", xb.g, 0, n)
	if s.cfg.NoValues {
		return
	}
	corr := func(beta float64) float64 { return dim * math.Log(4096/(beta*2*math.Pi)) / (2 * math.Log(base)) }
	c0, c1 := math.Max(0, math.Floor(corr(32))), math.Min(dim-1, math.Ceil(corr(1)))
	mag := 1 + 0.1*math.Log(32)
	for i := range n {
		for h := range heads {
			for p := range dim / 2 {
				te := float64(pos0+i) * math.Pow(base, -2*float64(p)/dim)
				mix := 1 - math.Min(1, math.Max(0, (float64(p)-c0)/math.Max(0.001, c1-c0)))
				th := te/32*(1-mix) + te*mix
				o := (i*heads + h) * hd
				x0, x1 := float64(x[o+p]), float64(x[o+p+dim/2])
				w0 := mag * (x0*math.Cos(th) - x1*math.Sin(th))
				w1 := mag * (x0*math.Sin(th) + x1*math.Cos(th))
				if math.Abs(float64(got[o+p])-w0) > 1e-5 || math.Abs(float64(got[o+p+dim/2])-w1) > 1e-5 {
					t.Fatalf("RoPE with YaRN: row %d head %d pair %d is %g, %g; want %g, %g", i, h, p, got[o+p], got[o+p+dim/2], w0, w1)
				}
			}
		}
	}
}
