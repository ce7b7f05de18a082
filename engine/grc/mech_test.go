package grc

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/isagi-lab/isagi/engine/tensor"
)

// rmsNorm is y = γ ⊙ h / rms(h), in float64.
func rmsNorm(h, gamma []float64) []float64 {
	var ss float64
	for _, v := range h {
		ss += v * v
	}
	r := math.Sqrt(ss/float64(len(h)) + 1e-6)
	out := make([]float64, len(h))
	for i := range h {
		out[i] = gamma[i] * h[i] / r
	}
	return out
}

func matVec(w []float64, rows, cols int, x []float64) []float64 {
	out := make([]float64, rows)
	for r := range rows {
		for c := range cols {
			out[r] += w[r*cols+c] * x[c]
		}
	}
	return out
}

// TestGaugeFoldedIntoGammaIsExact is the finding the gauge is built on:
// under RMSNorm, rescaling the residual stream (h → G h, reads W → W G⁻¹)
// changes what the reads see, because the norm divides by rms(G h), not
// rms(h); folding the rescaling into the norm's γ (γ → γ/s, W → W·diag(s))
// changes nothing.
func TestGaugeFoldedIntoGammaIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	d, rows := 8, 5
	h := make([]float64, d)
	gamma := make([]float64, d)
	g := make([]float64, d)
	w := make([]float64, rows*d)
	for i := range d {
		h[i] = rng.NormFloat64()
		gamma[i] = 0.2 + rng.Float64()
		g[i] = math.Exp(rng.NormFloat64())
	}
	for i := range w {
		w[i] = rng.NormFloat64()
	}
	want := matVec(w, rows, d, rmsNorm(h, gamma))

	// The residual-stream gauge: x → Gx, W → W G⁻¹.
	gh := make([]float64, d)
	wg := make([]float64, len(w))
	for i := range d {
		gh[i] = g[i] * h[i]
	}
	for r := range rows {
		for c := range d {
			wg[r*d+c] = w[r*d+c] / g[c]
		}
	}
	stream := matVec(wg, rows, d, rmsNorm(gh, gamma))
	// Folded into γ: γ/s and W·diag(s).
	gs := make([]float64, d)
	ws := make([]float64, len(w))
	for i := range d {
		gs[i] = gamma[i] / g[i]
	}
	for r := range rows {
		for c := range d {
			ws[r*d+c] = w[r*d+c] * g[c]
		}
	}
	folded := matVec(ws, rows, d, rmsNorm(h, gs))
	var dStream, dFolded float64
	for i := range want {
		dStream = max(dStream, math.Abs(stream[i]-want[i]))
		dFolded = max(dFolded, math.Abs(folded[i]-want[i]))
	}
	if dFolded > 1e-12 {
		t.Errorf("folded into γ the gauge moves the reads by %g", dFolded)
	}
	if dStream < 1e-3 {
		t.Errorf("a residual-stream rescaling kept the reads (%g): the test has no asymmetry", dStream)
	}
}

// gaugedError is Σ‖(W − Ŵ)D‖²_F of the rank-k approximation a gauge s
// gives: X = W·diag(s), P the top-k eigenvectors of XᵀX, Ŵ = X P Pᵀ
// diag(1/s), measured with D = diag(gamma).
func gaugedError(t *testing.T, slots []Matrix, s, gamma []float32, k int) float64 {
	t.Helper()
	var xs []Matrix
	for _, w := range slots {
		x := Matrix{Rows: w.Rows, Cols: w.Cols, W: make([]float32, len(w.W))}
		for r := range w.Rows {
			for c := range w.Cols {
				x.W[r*w.Cols+c] = w.W[r*w.Cols+c] * s[c]
			}
		}
		xs = append(xs, x)
	}
	dec, err := Decompose(xs)
	if err != nil {
		t.Fatal(err)
	}
	b, err := dec.Basis(k)
	if err != nil {
		t.Fatal(err)
	}
	d := slots[0].Cols
	P := mat.NewDense(d, k, widen(b.P))
	var ppt mat.Dense
	ppt.Mul(P, P.T())
	var e float64
	for i, w := range slots {
		X := mat.NewDense(w.Rows, d, widen(xs[i].W))
		var xh mat.Dense
		xh.Mul(X, &ppt)
		for r := range w.Rows {
			for c := range d {
				// (W − Ŵ)·D = (X − X P Pᵀ)·diag(γ/s)
				diff := (X.At(r, c) - xh.At(r, c)) * float64(gamma[c]/s[c])
				e += diff * diff
			}
		}
	}
	return e
}

// TestGaugeIsOptimal: the gauge Gauge(γ) reaches the least γ-weighted
// error any diagonal gauge does — it is the Eckart–Young optimum of
// W·diag(|γ|) — so the paper's descent has nothing left to find: no
// random perturbation of it, and not the plain basis (s = 1), does
// better. With a γ of strongly uneven channels the plain basis is worse.
func TestGaugeIsOptimal(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	d, k := 24, 6
	gamma := make([]float32, d)
	for i := range gamma {
		gamma[i] = float32(math.Exp(1.5 * rng.NormFloat64()))
	}
	slots := []Matrix{lowRank(rng, 20, d, 12), lowRank(rng, 10, d, 8)}
	star := Gauge(gamma)
	best := gaugedError(t, slots, star, gamma, k)
	ones := make([]float32, d)
	for i := range ones {
		ones[i] = 1
	}
	plain := gaugedError(t, slots, ones, gamma, k)
	if plain <= best*1.05 {
		t.Errorf("the plain basis's weighted error %.4g is not above the gauge's %.4g", plain, best)
	}
	for trial := range 20 {
		s := slices.Clone(star)
		for i := range s {
			s[i] *= float32(math.Exp(0.3 * rng.NormFloat64()))
		}
		if e := gaugedError(t, slots, s, gamma, k); e < best*(1-1e-6) {
			t.Fatalf("perturbation %d has a weighted error %.6g below the gauge's %.6g", trial, e, best)
		}
	}
	// ∏s = 1, and the floor keeps a zero γ from dividing by zero.
	var logSum float64
	for _, v := range star {
		logSum += math.Log(float64(v))
	}
	if math.Abs(logSum) > 1e-3 {
		t.Errorf("Σ log s = %g, want 0", logSum)
	}
	z := Gauge([]float32{0, 2, -4, float32(math.NaN())})
	for i, v := range z {
		if !(v > 0) || math.IsInf(float64(v), 0) {
			t.Errorf("gauge of a zero/NaN γ: s[%d] = %g", i, v)
		}
	}
	if z[2] <= z[1] {
		t.Errorf("gauge ignores |γ|: %v", z)
	}
}

// TestSinkChannelsPicksHeavyColumns: the T columns with the largest
// squared norm over the group, ascending, ties to the lower index.
func TestSinkChannelsPicksHeavyColumns(t *testing.T) {
	a := Matrix{Rows: 2, Cols: 5, W: []float32{
		1, 9, 1, 1, 3,
		1, 0, 1, 1, 0,
	}}
	b := Matrix{Rows: 1, Cols: 5, W: []float32{0, 0, 5, 0, 0}}
	if got := SinkChannels([]Matrix{a, b}, 2); !slices.Equal(got, []int{1, 2}) {
		t.Errorf("got %v, want [1 2]", got)
	}
	if got := SinkChannels([]Matrix{a}, 3); !slices.Equal(got, []int{0, 1, 4}) {
		t.Errorf("ties: got %v, want [0 1 4]", got)
	}
	if got := SinkChannels([]Matrix{a}, 0); got != nil {
		t.Errorf("T = 0 gave %v", got)
	}
}

// TestMechanismsFullRankExact: on kjv (f32), Q/K/V and gate/up under the
// gauge, with 8 sink channels, at full rank, reproduce the uncompressed
// logits; the exact channels' columns are stored as they are; below full
// rank both change the logits and report ρ ≥ 1 on Q.
func TestMechanismsFullRankExact(t *testing.T) {
	m := openModel(t, "kjv/kjv-f32.gguf")
	gb, err := NewBuilder(m, QKV|FFN)
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := m.NewStateOn(0, testBackend())
	for _, sp := range []Spec{
		{Slots: QKV | FFN, K: m.Dim, Gauge: true},
		{Slots: QKV | FFN, K: m.Dim, SinkChannels: 8},
		{Slots: QKV | FFN, K: m.Dim, Gauge: true, SinkChannels: 8},
	} {
		g := buildSpec(t, gb, sp, nil)
		if err := Verify(m, g); err != nil {
			t.Fatalf("%+v: a fresh build fails its check: %v", sp, err)
		}
		comp, _ := m.NewStateOn(0, testBackend())
		if err := comp.SetProjections(g); err != nil {
			t.Fatal(err)
		}
		plain.Reset()
		if d := maxLogitDiff(t, m, plain, comp, kjvTokens(24)); d > 1e-3 {
			t.Errorf("%+v at full rank moves the logits by %g", sp, d)
		}
		for _, s := range g.Blocks[0].Slots {
			exact := sp.SinkChannels
			if s.Slot == SlotDown {
				exact = 0
			}
			if math.Abs(s.Energy-1) > 1e-5 || s.Exact != exact {
				t.Errorf("%+v: %+v", sp, s)
			}
		}
	}
	// Below full rank: the sink channels' columns are stored whole.
	sp := Spec{Slots: QKV | FFN, K: 96, SinkChannels: 4}
	g := buildSpec(t, gb, sp, nil)
	p, err := prepare(m, 0, 0, variantOf(sp))
	if err != nil {
		t.Fatal(err)
	}
	q := g.layers[0].qkv.out[0] // Q, Rows×96, its last 4 columns the exact ones
	in := g.layers[0].qkv.in
	row := func(mm *tensor.Matrix, r int) []float32 {
		f := make([]float32, mm.Cols)
		if err := tensor.Dequantize(mm.Type, f, mm.Row(r)); err != nil {
			t.Fatal(err)
		}
		return f
	}
	for j, c := range p.chans {
		if v := row(in, 92+j)[c]; v != 1 {
			t.Errorf("basis row %d does not read channel %d: %v", 92+j, c, v)
		}
		for r := range 4 {
			if got, want := row(q, r)[92+j], p.w[0].W[r*m.Dim+c]; got != want {
				t.Errorf("Q[%d, channel %d] stored as %g, is %g", r, c, got, want)
			}
		}
	}
	for _, s := range g.Blocks[0].Slots {
		if s.Slot == SlotQ && !(s.Rho >= 1-1e-6) {
			t.Errorf("Q at k = 96: ρ = %g", s.Rho)
		}
		if s.K95 < 1 || s.K95 > m.Dim {
			t.Errorf("%s: k95 = %d", s.Slot, s.K95)
		}
	}
}

// TestRhoOfOneMatrixIsOne: a group of one matrix decomposes its own Gram,
// which is the Eckart–Young optimum: ρ = 1; sharing the basis with other
// matrices makes ρ of each at least 1, and equal to the ratio computed
// from the SVD directly.
func TestRhoOfOneMatrixIsOne(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	d, k := 16, 4
	a, b := lowRank(rng, 12, d, 9), lowRank(rng, 12, d, 9)
	for _, group := range [][]Matrix{{a}, {a, b}} {
		dec, err := Decompose(group)
		if err != nil {
			t.Fatal(err)
		}
		bs, _, err := dec.Apply(k, group)
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range group {
			sp, err := slotSpectrum(w)
			if err != nil {
				t.Fatal(err)
			}
			total := sumSquares(w.W)
			rho := excess(total*(1-bs.Energy[i]), tailAbove(sp, k), total)
			// The SVD's own tail, from gonum, as an independent check.
			var svd mat.SVD
			svd.Factorize(mat.NewDense(w.Rows, w.Cols, widen(w.W)), mat.SVDNone)
			var tail float64
			for j, s := range svd.Values(nil) {
				if j >= k {
					tail += s * s
				}
			}
			if math.Abs(tail-tailAbove(sp, k)) > 1e-6*total {
				t.Errorf("tail from the spectrum %g, from the SVD %g", tailAbove(sp, k), tail)
			}
			switch {
			case len(group) == 1 && math.Abs(rho-1) > 1e-6:
				t.Errorf("one matrix: ρ = %g", rho)
			case rho < 1-1e-6:
				t.Errorf("shared basis, matrix %d: ρ = %g < 1", i, rho)
			}
		}
	}
	if excess(1, 0, 10) != 0 {
		t.Error("ρ with a zero bound is not reported undefined")
	}
}

// TestProfileDepthSinkAndBypass: the depth sink is the first block whose
// intrinsic dimension reaches the plateau; thresholds are μ + 3σ of the
// previous block's norms, none for block 0; PCA-95 of rank-2 data is at
// most 2; and on kjv the calibration pass gives a profile the build keeps.
func TestProfileDepthSinkAndBypass(t *testing.T) {
	p := &Profile{IntrinsicDim: []int{3, 9, 14, 14, 12, 14}, NormMean: []float64{1, 2, 3, 4, 5, 6}, NormStd: []float64{1, 1, 1, 1, 1, 1}}
	if l, ok := p.DepthSink(); !ok || l != 2 {
		t.Errorf("depth sink %d (%v), want 2", l, ok)
	}
	if got := p.Bypass(); !slices.Equal(got, []float32{0, 4, 5, 6, 7, 8}) {
		t.Errorf("thresholds %v", got)
	}
	if _, ok := (&Profile{IntrinsicDim: []int{0, 0}}).DepthSink(); ok {
		t.Error("an empty profile detected a sink")
	}
	rng := rand.New(rand.NewPCG(9, 10))
	n, d := 40, 12
	rows := make([]float32, n*d)
	u, v := [2][]float64{}, [2][]float64{}
	for c := range 2 {
		u[c], v[c] = make([]float64, n), make([]float64, d)
		for i := range n {
			u[c][i] = rng.NormFloat64()
		}
		for j := range d {
			v[c][j] = rng.NormFloat64()
		}
	}
	for i := range n {
		for j := range d {
			rows[i*d+j] = float32(5 + u[0][i]*v[0][j] + u[1][i]*v[1][j])
		}
	}
	if k, err := pca95(rows, n, d); err != nil || k < 1 || k > 2 {
		t.Errorf("PCA-95 of rank-2 data (plus a mean): %d, %v", k, err)
	}

	m := openModel(t, "kjv/kjv-q8_0.gguf")
	prof, err := LayerProfile(context.Background(), m, nil, kjvTokens(300), 1, 128)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("kjv: intrinsic dim %v, ‖h‖ μ %.3g σ %.3g", prof.IntrinsicDim, prof.NormMean, prof.NormStd)
	gb, _ := NewBuilder(m, QKV)
	g := buildSpec(t, gb, Spec{Slots: QKV, K: 128, SinkBypass: true, Calib: "00"}, prof)
	sink, _ := prof.DepthSink()
	if g.Depth == nil || g.Depth.Sink != sink || g.Check.Layer != sink || len(g.Bypass) != m.Layers || g.Bypass[0] != 0 {
		t.Fatalf("depth %+v check layer %d bypass %v", g.Depth, g.Check.Layer, g.Bypass)
	}
	if err := Verify(m, g); err != nil {
		t.Fatal(err)
	}
	knobs, secs, err := g.CacheSections()
	if err != nil {
		t.Fatal(err)
	}
	back, err := FromCache(m, g.Plan.Spec, knobs, secs)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back.Bypass, g.Bypass) || back.Depth.Sink != sink || !slices.Equal(back.Depth.IntrinsicDim, prof.IntrinsicDim) {
		t.Errorf("cache round trip lost the profile: %+v %v", back.Depth, back.Bypass)
	}
	if _, err := FromCache(m, Spec{Slots: QKV, K: 128}, knobs, secs); err == nil {
		t.Error("a bypass cache was accepted for a spec without it")
	}
	if _, err := gb.Plan(context.Background(), Spec{Slots: QKV, K: 128, SinkBypass: true, Calib: "00"}, nil, nil); err == nil {
		t.Error("a bypass plan without a profile was accepted")
	}
}

// TestMechanismSpecs: what Resolve refuses and what Key names.
func TestMechanismSpecs(t *testing.T) {
	m := openModel(t, "kjv/kjv-q8_0.gguf")
	for _, bad := range []Spec{
		{Slots: O, K: 64, Gauge: true},
		{Slots: O, K: 64, SinkChannels: 2},
		{Slots: QKV, K: 64, SinkChannels: 64},
		{Slots: QKV, K: 64, SinkChannels: -1},
		{Slots: QKV, K: 64, SinkBypass: true},
		{Slots: QKV, K: 64, Calib: "ab"},
		{Slots: QKV, Alloc: AllocGP, K: 192, SinkChannels: 150},
	} {
		if _, err := Resolve(m, bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	sp, err := Resolve(m, Spec{Slots: QKV | FFN, K: 64, Gauge: true, SinkChannels: 4, SinkBypass: true, Calib: "ab"})
	if err != nil {
		t.Fatal(err)
	}
	if got := sp.Key(); got != "qkv+ffn-gauge-sc4-sb-cab" {
		t.Errorf("key %q", got)
	}
	mcr, _ := Resolve(m, Spec{Slots: QKV, Alloc: AllocMCR, K: 192, Calib: "ab"})
	if got := mcr.Key(); got != "qkv-mcr-f141-m256-cab" {
		t.Errorf("MCR key %q changed: old caches would be rebuilt", got)
	}
}
