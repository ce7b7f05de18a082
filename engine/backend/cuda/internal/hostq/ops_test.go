package hostq

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/isagi-lab/isagi/engine/tensor"
)

// These tests check the arithmetic the MoE, sink and YaRN kernels share
// with this harness (kernels/ops.cuh, quant.cuh's MXFP4) against plain
// float64 references written here from the definitions (engine/backend's
// doc comments and ggml's CPU operations), not from the kernels' code.

func needC(t *testing.T) {
	t.Helper()
	if !Available {
		t.Skip("built without cgo: the host harness of the kernels needs a C compiler")
	}
}

// randomMXFP4 is n blocks of random codes with exponents in lo…hi.
func randomMXFP4(r *rand.Rand, blocks int, lo, hi int) []byte {
	b := make([]byte, 17*blocks)
	for i := range b {
		b[i] = byte(r.Uint32())
		if i%17 == 0 {
			b[i] = byte(lo + r.IntN(hi-lo+1))
		}
	}
	return b
}

// mxfp4Ref decodes weight j of a block from the E2M1 definition: a sign
// bit and magnitudes {0, 0.5, 1, 1.5, 2, 3, 4, 6}, times 2^(e−127).
func mxfp4Ref(block []byte, j int) float64 {
	q := block[1+j%16]
	if j >= 16 {
		q >>= 4
	}
	mag := []float64{0, 0.5, 1, 1.5, 2, 3, 4, 6}[q&7]
	if q&8 != 0 {
		mag = -mag
	}
	return mag * math.Pow(2, float64(block[0])-127)
}

// TestMXFP4 decodes random MXFP4 rows (every exponent from the subnormal
// scales to the largest) with the kernels' decoders, unit by unit and one
// weight at a time, and wants the engine's bits and the format's values.
func TestMXFP4(t *testing.T) {
	needC(t)
	if BlockBytes(tensor.MXFP4) != tensor.MXFP4.BlockBytes() || BlockLen(tensor.MXFP4) != tensor.MXFP4.BlockLen() {
		t.Fatalf("kernels say MXFP4 blocks of %d weights in %d bytes", BlockLen(tensor.MXFP4), BlockBytes(tensor.MXFP4))
	}
	r := rand.New(rand.NewPCG(39, 1))
	const cols = 256
	for _, span := range [][2]int{{0, 3}, {100, 140}, {250, 254}} {
		for range 10 {
			row := randomMXFP4(r, cols/32, span[0], span[1])
			want := make([]float32, cols)
			if err := tensor.Dequantize(tensor.MXFP4, want, row); err != nil {
				t.Fatal(err)
			}
			got, err := DecodeRow(tensor.MXFP4, row, cols)
			if err != nil {
				t.Fatal(err)
			}
			elems := DecodeElems(tensor.MXFP4, row, cols)
			for i := range want {
				// The largest exponents overflow float32 (±Inf), as ggml's.
				ref := float32(mxfp4Ref(row[17*(i/32):], i%32))
				if got[i] != ref || math.Float32bits(got[i]) != math.Float32bits(want[i]) || math.Float32bits(elems[i]) != math.Float32bits(want[i]) {
					t.Fatalf("weight %d (exponent %d): unit %g, element %g, engine %g, format %g", i, row[17*(i/32)], got[i], elems[i], want[i], ref)
				}
			}
		}
	}
	// The products of MXFP4 rows, every launch shape, against float64.
	for _, cols := range []int{512, 96} {
		row := randomMXFP4(r, cols/32, 118, 126)
		w, _ := DecodeRow(tensor.MXFP4, row, cols)
		for _, shape := range [][4]int{{1, 4, 4, 4}, {8, 4, 1, 1}} {
			n := 11
			x := randNorm(r, n*cols)
			got := RowProduct(tensor.MXFP4, row, cols, x, n, shape[0], shape[1], shape[2], shape[3])
			for i := range n {
				checkDot(t, "MXFP4", got[i], w, x[i*cols:(i+1)*cols])
			}
		}
	}
}

func randNorm(r *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return v
}

// checkDot wants got within 1e-5 of Σ w·x, relative to Σ|w·x|.
func checkDot(t *testing.T, what string, got float32, w, x []float32) {
	t.Helper()
	var ref, mag float64
	for c := range w {
		p := float64(w[c]) * float64(x[c])
		ref += p
		mag += math.Abs(p)
	}
	if e := math.Abs(float64(got)-ref) / (mag + 1e-30); !(e <= 1e-5) { // a NaN fails
		t.Fatalf("%s: %g, want %g (relative error %.2g)", what, got, ref, e)
	}
}

// TestExpertProductGather: the batched expert product's warps read the x
// rows of the pairs that chose their expert (xi), in a tile's order, with
// the tile's count below the warp's 8; every output must be its own row's
// product.
func TestExpertProductGather(t *testing.T) {
	needC(t)
	r := rand.New(rand.NewPCG(5, 5))
	const cols, xrows = 256, 9
	for _, typ := range []tensor.Type{tensor.F32, tensor.Q4_K, tensor.Q8_0, tensor.MXFP4, tensor.IQ1_S, tensor.IQ1_M,
		tensor.IQ2_XXS, tensor.IQ2_XS, tensor.IQ2_S, tensor.IQ3_XXS, tensor.IQ3_S, tensor.TQ1_0, tensor.TQ2_0} {
		var row []byte
		if typ == tensor.MXFP4 {
			row = randomMXFP4(r, cols/32, 118, 126)
		} else {
			row = make([]byte, cols/typ.BlockLen()*typ.BlockBytes())
			if err := tensor.FillRandom(typ, row, 3, 0.05); err != nil {
				t.Fatal(err)
			}
		}
		w, err := DecodeRow(typ, row, cols)
		if err != nil {
			t.Fatal(err)
		}
		x := randNorm(r, xrows*cols)
		for _, xi := range [][]int32{{7, 2, 2, 0, 8}, {3}, {8, 7, 6, 5, 4, 3, 2, 1, 0}} {
			got := RowProductGather(typ, row, cols, x, xi, GroupTile(), 4, 1, 1)
			for q, i := range xi {
				checkDot(t, typ.String(), got[q], w, x[int(i)*cols:int(i+1)*cols])
			}
		}
	}
}

// routeRef is the router's choice in float64 from engine/backend's
// RouteOptions doc: the probabilities, the k best of p + bias (the lower
// index on a tie), their weights.
func routeRef(logits, mask, sbias []float32, gating, k int, norm bool, scale float64) ([]int, []float64, []float64) {
	ne := len(logits)
	v := make([]float64, ne)
	for e := range v {
		v[e] = float64(logits[e])
		if mask != nil {
			v[e] += float64(mask[e])
		}
	}
	p := make([]float64, ne)
	switch gating {
	case 0:
		m := math.Inf(-1)
		for _, x := range v {
			m = math.Max(m, x)
		}
		var s float64
		for e, x := range v {
			p[e] = math.Exp(x - m)
			s += p[e]
		}
		for e := range p {
			p[e] /= s
		}
	case 1:
		copy(p, v)
	case 2:
		for e, x := range v {
			p[e] = 1 / (1 + math.Exp(-x))
		}
	}
	sel := make([]float64, ne)
	for e := range sel {
		sel[e] = p[e]
		if sbias != nil {
			sel[e] += float64(sbias[e])
		}
	}
	idx := make([]int, ne)
	for e := range idx {
		idx[e] = e
	}
	sort.SliceStable(idx, func(a, b int) bool { return sel[idx[a]] > sel[idx[b]] })
	ids := idx[:k]
	w := make([]float64, k)
	for j, e := range ids {
		w[j] = p[e]
	}
	if gating == 1 {
		m := math.Inf(-1)
		for _, x := range w {
			m = math.Max(m, x)
		}
		var s float64
		for j := range w {
			w[j] = math.Exp(w[j] - m)
			s += w[j]
		}
		for j := range w {
			w[j] /= s
		}
	}
	if norm {
		var s float64
		for _, x := range w {
			s += x
		}
		s = math.Max(s, 6.103515625e-5)
		for j := range w {
			w[j] /= s
		}
	}
	if scale != 0 && scale != 1 {
		for j := range w {
			w[j] *= scale
		}
	}
	return ids, w, sel
}

// TestRouteRow checks the route kernel's choice for every gating, with and
// without a mask, a selection bias, normalisation and a scale, against
// routeRef: the same experts in the same order (or, where float32 and
// float64 order two near-equal experts differently, experts of equal
// selection value within 1e-6), and the same weights within 1e-6.
func TestRouteRow(t *testing.T) {
	needC(t)
	r := rand.New(rand.NewPCG(52, 52))
	cases := 0
	for _, ne := range []int{4, 32, 128, RouteMax()} {
		for _, k := range []int{1, 2, 4, 8} {
			if k > ne {
				continue
			}
			for gating := range 3 {
				for variant := range 4 {
					logits := randNorm(r, ne)
					var mask, sbias []float32
					norm, scale := variant&1 != 0, float32(0)
					if variant&2 != 0 {
						scale = 2.5
						sbias = randNorm(r, ne)
						for e := range sbias {
							sbias[e] *= 0.1
						}
						mask = make([]float32, ne)
						for e := 0; e < ne-k; e += 3 {
							mask[e] = float32(math.Inf(-1)) // switched off
						}
					}
					ids, w := RouteRow(logits, mask, sbias, gating, k, norm, scale)
					rids, rw, sel := routeRef(logits, mask, sbias, gating, k, norm, float64(scale))
					for j := range k {
						if int(ids[j]) != rids[j] && math.Abs(sel[ids[j]]-sel[rids[j]]) > 1e-6 {
							t.Fatalf("ne %d k %d gating %d variant %d: slot %d chose %d (%g), want %d (%g)", ne, k, gating, variant, j, ids[j], sel[ids[j]], rids[j], sel[rids[j]])
						}
						// A switched-off expert weighs nothing; with a
						// selection bias it may still take a slot, as the
						// mask is added to the logits (RouteOptions).
						if mask != nil && math.IsInf(float64(mask[ids[j]]), -1) && (sbias == nil || w[j] != 0) {
							t.Fatalf("ne %d k %d gating %d: expert %d was switched off and chosen with weight %g", ne, k, gating, ids[j], w[j])
						}
						if e := math.Abs(float64(w[j]) - rw[j]); e > 1e-6*math.Max(1, math.Abs(rw[j])) {
							t.Fatalf("ne %d k %d gating %d variant %d: weight %d is %g, want %g", ne, k, gating, variant, j, w[j], rw[j])
						}
					}
					cases++
				}
			}
		}
	}
	// Ties go to the lower index, in rank order; NaN ranks last.
	nan := float32(math.NaN())
	ids, _ := RouteRow([]float32{1, 3, nan, 3, 2, 3}, nil, nil, 1, 5, false, 0)
	if want := []int32{1, 3, 5, 4, 0}; !slices.Equal(ids, want) {
		t.Errorf("ties chose %v, want %v", ids, want)
	}
	// All weights zero: the normalising sum is clamped, not a division by 0.
	_, w := RouteRow([]float32{-200, -200, -300}, nil, nil, 1, 2, true, 0)
	_, w2 := RouteRow([]float32{0, 0, 0}, []float32{0, 0, 0}, nil, 0, 2, true, 0)
	if w2[0] != 0.5 || w2[1] != 0.5 || math.IsNaN(float64(w[0])) {
		t.Errorf("normalised weights %v and %v", w, w2)
	}
	_, w3 := RouteRow([]float32{-30, -30, -30}, nil, nil, 2, 2, true, 0)
	if s := float64(w3[0] + w3[1]); math.Abs(s-2*1/(1+math.Exp(30))/6.103515625e-5) > 1e-6 {
		t.Errorf("sigmoid weights of %v summing below the clamp: %v", []float32{-30, -30}, w3)
	}
	t.Logf("%d routing cases", cases)
}

// TestGroupPairs: the batch's pairs sorted by expert (stably), cut into
// tiles of at most GroupTile pairs of one expert, within the bound the
// backend sizes the grid by.
func TestGroupPairs(t *testing.T) {
	needC(t)
	r := rand.New(rand.NewPCG(8, 8))
	for _, ne := range []int{1, 8, 128} {
		for _, np := range []int{1, 7, 64 * 8} {
			ids := make([]int32, np)
			for i := range ids {
				ids[i] = int32(r.IntN(ne))
				if ne == 128 && i%5 != 0 {
					ids[i] = int32(i % 3) // a few hot experts: runs longer than a tile
				}
			}
			order, tiles := GroupPairs(ids, ne)
			if bound := (np+7)/8 + min(ne, np); len(tiles) > bound {
				t.Fatalf("%d tiles for %d pairs over %d experts; the bound is %d", len(tiles), np, ne, bound)
			}
			seen := make([]bool, np)
			next := 0
			for _, tl := range tiles {
				e, first, cnt := tl[0], int(tl[1]), int(tl[2])
				if cnt < 1 || cnt > GroupTile() || first != next {
					t.Fatalf("tile %v after %d pairs", tl, next)
				}
				for q := first; q < first+cnt; q++ {
					p := order[q]
					if ids[p] != e || seen[p] || (q > first && order[q-1] >= p) {
						t.Fatalf("tile %v holds pair %d of expert %d", tl, p, ids[p])
					}
					seen[p] = true
				}
				next += cnt
			}
			if next != np {
				t.Fatalf("the tiles hold %d of %d pairs", next, np)
			}
		}
	}
}

// TestSwiGLUOAI against ggml_swiglu_oai's definition in float64, inside
// and beyond the clamp.
func TestSwiGLUOAI(t *testing.T) {
	needC(t)
	const alpha, limit = 1.702, 7.0
	for _, g := range []float32{-9, -3.5, -0.1, 0, 0.4, 2, 6.9, 7, 12} {
		for _, u := range []float32{-20, -7, -1, 0, 0.5, 6, 8} {
			x := math.Min(float64(g), limit)
			y := math.Max(-limit, math.Min(float64(u), limit))
			want := x / (1 + math.Exp(-alpha*x)) * (y + 1)
			if got := SwiGLUOAI(g, u, alpha, limit); math.Abs(float64(got)-want) > 1e-6*math.Max(1, math.Abs(want)) {
				t.Errorf("swiglu_oai(%g, %g) = %g, want %g", g, u, got, want)
			}
		}
	}
}

// TestCombine: row r of the output is the weighted sum of its k expert
// rows, against float64.
func TestCombine(t *testing.T) {
	needC(t)
	r := rand.New(rand.NewPCG(4, 4))
	const n, k, wd, ldy = 3, 4, 10, 12
	y := randNorm(r, n*k*ldy)
	w := randNorm(r, n*k)
	for i := range n {
		for c := range wd {
			var want float64
			for j := range k {
				want += float64(w[i*k+j]) * float64(y[(i*k+j)*ldy+c])
			}
			if got := Combine(y, ldy, w, k, i, c); math.Abs(float64(got)-want) > 1e-6*math.Max(1, math.Abs(want)) {
				t.Fatalf("row %d column %d: %g, want %g", i, c, got, want)
			}
		}
	}
}

// TestRopeYaRN checks the rope kernel's angles: without YaRN as before
// (θ = p·PosScale·Base^(−2i/Dim)/f, times Scale), and with YaRN as
// engine/backend's YaRN doc (ggml's rope_yarn) says, in float64.
func TestRopeYaRN(t *testing.T) {
	needC(t)
	const base, dim = 150000.0, 64
	for _, pos := range []int{0, 1, 37, 4095, 100000} {
		for i := range dim / 2 {
			fdiv := 1 + float64(i%5)/4
			te := float64(pos) * math.Pow(base, -2*float64(i)/dim) / fdiv
			c, s := RopeCS(i, pos, base, dim, float32(fdiv), 1.25, 0.5, RopeYaRN{})
			near(t, "plain cos", c, 1.25*math.Cos(0.5*te))
			near(t, "plain sin", s, 1.25*math.Sin(0.5*te))
			for _, ext := range []float64{0, 1, 0.5} {
				const ps, attn, c0, c1 = 1.0 / 32, 0.9, 8, 18
				ramp := 1 - math.Min(1, math.Max(0, (float64(i)-c0)/math.Max(0.001, c1-c0)))
				mix := ramp * ext
				theta := ps*te*(1-mix) + te*mix
				m := attn
				if ext != 0 {
					m *= 1 + 0.1*math.Log(1/ps)
				}
				y := RopeYaRN{On: true, Ext: float32(ext), Attn: attn, Corr0: c0, Corr1: c1}
				// mscale (Rope.Scale) is not applied on top of AttnFactor.
				c, s := RopeCS(i, pos, base, dim, float32(fdiv), 3, ps, y)
				near(t, "YaRN cos", c, m*math.Cos(theta))
				near(t, "YaRN sin", s, m*math.Sin(theta))
			}
		}
	}
}

func near(t *testing.T, what string, got float32, want float64) {
	t.Helper()
	if math.Abs(float64(got)-want) > 1e-6 {
		t.Fatalf("%s: %g, want %g", what, got, want)
	}
}

// TestAttMergeSinks: the attention's four warps' online softmaxes merged
// with a sink logit give the denominator of the softmax over the scores
// and the sink, so that the probabilities of the keys sum to 1 − p_sink;
// without a sink, to 1.
func TestAttMergeSinks(t *testing.T) {
	needC(t)
	r := rand.New(rand.NewPCG(6, 6))
	for _, nkeys := range []int{1, 3, 17} {
		for _, sink := range []float32{-3, 0.5, 9, float32(math.NaN())} {
			scores := randNorm(r, nkeys)
			for i := range scores {
				scores[i] *= 3
			}
			// Warp w takes keys w, w+4, …: its maximum and its sum.
			wm, wl := make([]float32, 4), make([]float32, 4)
			for w := range 4 {
				wm[w] = float32(math.Inf(-1))
				for j := w; j < nkeys; j += 4 {
					wm[w] = max(wm[w], scores[j])
				}
				for j := w; j < nkeys; j += 4 {
					wl[w] += float32(math.Exp(float64(scores[j] - wm[w])))
				}
			}
			var sp *float32
			if !math.IsNaN(float64(sink)) {
				sp = &sink
			}
			M, L := AttMerge(wm, wl, sp)
			var den, keys float64
			m := math.Inf(-1)
			for _, s := range scores {
				m = math.Max(m, float64(s))
			}
			if sp != nil {
				m = math.Max(m, float64(sink))
				den = math.Exp(float64(sink) - m)
			}
			for _, s := range scores {
				den += math.Exp(float64(s) - m)
			}
			for _, s := range scores {
				keys += math.Exp(float64(s)-float64(M)) / float64(L)
			}
			if float64(M) != m {
				t.Fatalf("maximum %g, want %g", M, m)
			}
			if math.Abs(float64(L)-den) > 1e-5*den {
				t.Fatalf("%d keys, sink %v: denominator %g, want %g", nkeys, sink, L, den)
			}
			want := 1.0
			if sp != nil {
				want = 1 - math.Exp(float64(sink)-m)/den
			}
			if math.Abs(keys-want) > 1e-5 {
				t.Fatalf("%d keys, sink %v: the keys' probabilities sum to %g, want %g", nkeys, sink, keys, want)
			}
		}
	}
}
