package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// attendRef is causal grouped-query attention with sinks in float64: for
// query row i at position p, head h, scores s_j = softcap(scale·q·k_j) over
// j ≤ p (and within the window), p_j = e^{s_j}/(e^{sink_h} + Σ e^{s_k}),
// out = Σ p_j·v_j. keys and values are [pos][kvHeads·hd].
func attendRef(q, keys, values []float32, heads, kvHeads, hd, pos0, n int, o backend.AttendOptions, sinks []float32) []float64 {
	scale := float64(o.Scale)
	if scale == 0 {
		scale = 1 / math.Sqrt(float64(hd))
	}
	out := make([]float64, n*heads*hd)
	for i := range n {
		p := pos0 + i
		first := 0
		if o.Window > 0 {
			first = max(0, p-o.Window+1)
		}
		for h := range heads {
			g := h / (heads / kvHeads)
			qh := q[(i*heads+h)*hd:][:hd]
			s := make([]float64, 0, p+1-first)
			for j := first; j <= p; j++ {
				kj := keys[(j*kvHeads+g)*hd:][:hd]
				var d float64
				for x := range hd {
					d += float64(qh[x]) * float64(kj[x])
				}
				d *= scale
				if c := float64(o.SoftCap); c > 0 {
					d = c * math.Tanh(d/c)
				}
				s = append(s, d)
			}
			mx := math.Inf(-1)
			for _, v := range s {
				mx = math.Max(mx, v)
			}
			var sum float64
			if sinks != nil {
				mx = math.Max(mx, float64(sinks[h]))
				sum = math.Exp(float64(sinks[h]) - mx)
			}
			for _, v := range s {
				sum += math.Exp(v - mx)
			}
			o := out[(i*heads+h)*hd:][:hd]
			for jj, v := range s {
				w := math.Exp(v-mx) / sum
				vj := values[((first+jj)*kvHeads+g)*hd:][:hd]
				for x := range hd {
					o[x] += w * float64(vj[x])
				}
			}
		}
	}
	return out
}

// TestAttendSinks: attention with sinks against the float64 reference, with
// the plain scale, a soft-cap, a window and a custom scale, over a prompt
// and then a decode step, for sinks that are small, about as large as the
// scores, and far larger than all of them (the outputs then nearly vanish:
// the sink took the probability). The reference's outputs without sinks
// differ from these by far more than the tolerance, so the sinks are seen.
func TestAttendSinks(t *testing.T) {
	const heads, kvHeads, hd, ctx = 4, 2, 32, 24
	rng := rand.New(rand.NewPCG(21, 22))
	rnd := func(n int, sc float64) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rng.NormFloat64() * sc)
		}
		return v
	}
	keys, values := rnd(ctx*kvHeads*hd, 1), rnd(ctx*kvHeads*hd, 1)
	q := rnd(ctx*heads*hd, 1)
	for _, sk := range [][]float32{{-3, 0.5, 2, -0.25}, {60, 60, 60, 60}} {
		for _, o := range []backend.AttendOptions{{}, {SoftCap: 2}, {Window: 5}, {Scale: 0.4}} {
			t.Run(fmt.Sprintf("%v %+v", sk, o), func(t *testing.T) {
				b := New(tensor.NewKernels(tensor.NewPool(2)))
				c, err := b.NewKV(1, ctx, backend.Attention{Heads: heads, KVHeads: kvHeads, HeadDim: hd})
				if err != nil {
					t.Fatal(err)
				}
				sv, err := b.Vector(sk)
				if err != nil {
					t.Fatal(err)
				}
				o.Sinks = sv
				kb, _ := b.Alloc(ctx, kvHeads*hd)
				vb, _ := b.Alloc(ctx, kvHeads*hd)
				qb, _ := b.Alloc(ctx, heads*hd)
				ob, _ := b.Alloc(ctx, heads*hd)
				for _, step := range []struct{ pos0, n int }{{0, 13}, {13, 1}} {
					w := kvHeads * hd
					b.Write(kb, 0, keys[step.pos0*w:(step.pos0+step.n)*w])
					b.Write(vb, 0, values[step.pos0*w:(step.pos0+step.n)*w])
					b.Write(qb, 0, q[step.pos0*heads*hd:(step.pos0+step.n)*heads*hd])
					b.StoreKV(c, 0, step.pos0, step.n, kb, vb)
					b.Attend(ob, qb, c, 0, step.pos0, step.n, o)
					got := b.Host(ob, 0, step.n)
					qs := q[step.pos0*heads*hd:]
					want := attendRef(qs, keys, values, heads, kvHeads, hd, step.pos0, step.n, o, sk)
					plain := attendRef(qs, keys, values, heads, kvHeads, hd, step.pos0, step.n, o, nil)
					var worst, apart float64
					for i, w := range want {
						worst = max(worst, math.Abs(float64(got[i])-w))
						apart = max(apart, math.Abs(plain[i]-w))
					}
					if worst > 2e-6 {
						t.Errorf("at %d: %.3g from the reference", step.pos0, worst)
					}
					if apart < 1e-2 {
						t.Fatalf("at %d: the sinks move the reference by only %.3g", step.pos0, apart)
					}
				}
			})
		}
	}
}
