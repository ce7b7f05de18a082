package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// yarnRef is backend.YaRN's formula in float64, written from its doc
// comment: the reference the tables are checked against.
func yarnRef(pos int, r backend.Rope) (cos, sin []float64) {
	y := r.YaRN
	ps := 1.0
	if r.PosScale != 0 {
		ps = float64(r.PosScale)
	}
	dim := float64(r.Dim)
	d := func(beta float32) float64 {
		return dim * math.Log(float64(y.OrigCtx)/(float64(beta)*2*math.Pi)) / (2 * math.Log(r.Base))
	}
	c0 := math.Max(0, math.Floor(d(y.BetaFast)))
	c1 := math.Min(dim-1, math.Ceil(d(y.BetaSlow)))
	m := float64(y.AttnFactor)
	if y.ExtFactor != 0 {
		m *= 1 + 0.1*math.Log(1/ps)
	}
	for i := range r.Dim / 2 {
		te := float64(pos) * math.Pow(r.Base, -2*float64(i)/dim)
		if r.Freqs != nil {
			te /= float64(r.Freqs[i])
		}
		ti := ps * te
		ramp := 1 - math.Min(1, math.Max(0, (float64(i)-c0)/math.Max(0.001, c1-c0)))
		mix := float64(y.ExtFactor) * ramp
		th := ti*(1-mix) + te*mix
		cos = append(cos, m*math.Cos(th))
		sin = append(sin, m*math.Sin(th))
	}
	return cos, sin
}

// TestYaRNByHand: the tables of a small rotation against numbers worked out
// from ggml's rope_yarn on paper (a calculator for the cosines): Dim 8,
// base 10⁴, original context 4096, β 32 and 1, factor 4, at position 100.
// d(32) = 8·ln(4096/(64π))/(2·ln 10⁴) = 1.309 and d(1) = 2.814, so the
// ramp runs from pair 1 (⌊1.309⌋) to pair 3 (⌈2.814⌉): pairs 0 and 1 keep
// their angles 100 and 10, pair 2 mixes ¼·1 and 1 half and half (0.625),
// pair 3 is interpolated (0.1/4 = 0.025); the magnitude is 1 + 0.1·ln 4.
func TestYaRNByHand(t *testing.T) {
	lo, hi := yarnCorrDims(8, 4096, 10000, 32, 1)
	if lo != 1 || hi != 3 {
		t.Fatalf("correction dims [%g, %g], want [1, 3]", lo, hi)
	}
	r := backend.Rope{Base: 10000, Dim: 8, PosScale: 0.25, Scale: 7, // Scale is not YaRN's
		YaRN: &backend.YaRN{ExtFactor: 1, AttnFactor: 1, BetaFast: 32, BetaSlow: 1, OrigCtx: 4096}}
	cos, sin := make([]float32, 4), make([]float32, 4)
	ropeTables(cos, sin, 100, r)
	want := [][2]float64{
		{0.981861651, -0.576562824},
		{-0.955391542, -0.619438451},
		{0.923386479, 0.666208978},
		{1.138273633, 0.028462771},
	}
	for i, w := range want {
		if math.Abs(float64(cos[i])-w[0]) > 1e-6 || math.Abs(float64(sin[i])-w[1]) > 1e-6 {
			t.Errorf("pair %d: cos, sin = %g, %g, want %g, %g", i, cos[i], sin[i], w[0], w[1])
		}
	}
}

// TestYaRNTables: the tables against the float64 reference, for both pair
// layouts' rotations (the tables are shared), with and without rope_freqs,
// with ExtFactor 0 (then only PosScale and AttnFactor act) and a partial
// one, up to gpt-oss's 131,072 positions.
func TestYaRNTables(t *testing.T) {
	freqs := make([]float32, 32)
	for i := range freqs {
		freqs[i] = 1 + float32(i)/9
	}
	gptOSS := backend.YaRN{ExtFactor: 1, AttnFactor: 1, BetaFast: 32, BetaSlow: 1, OrigCtx: 4096}
	for _, r := range []backend.Rope{
		{Base: 150000, Dim: 64, PosScale: 1.0 / 32, YaRN: &gptOSS},
		{Base: 1e6, Dim: 64, PosScale: 0.25, Freqs: freqs, YaRN: &backend.YaRN{ExtFactor: 1, AttnFactor: 0.9, BetaFast: 32, BetaSlow: 1, OrigCtx: 32768}},
		{Base: 10000, Dim: 64, PosScale: 0.5, YaRN: &backend.YaRN{ExtFactor: 0, AttnFactor: 1.3, BetaFast: 32, BetaSlow: 1, OrigCtx: 2048}},
		{Base: 10000, Dim: 64, PosScale: 0.125, YaRN: &backend.YaRN{ExtFactor: 0.5, AttnFactor: 1, BetaFast: 16, BetaSlow: 2, OrigCtx: 2048}},
	} {
		cos, sin := make([]float32, r.Dim/2), make([]float32, r.Dim/2)
		var worst float64
		for _, pos := range []int{0, 1, 17, 4095, 4096, 50000, 131071} {
			ropeTables(cos, sin, pos, r)
			wc, ws := yarnRef(pos, r)
			for i := range cos {
				worst = max(worst, math.Abs(float64(cos[i])-wc[i]), math.Abs(float64(sin[i])-ws[i]))
			}
		}
		// float32 rounding of values up to ~1.4 is the only difference.
		if worst > 2e-7 {
			t.Errorf("%+v %+v: tables differ from the reference by %.3g", r, *r.YaRN, worst)
		}
	}
}

// ggmlTables computes the tables as ggml's CPU rope does, in float32: the
// angle θ_0 = p, then θ ← θ·base^(−2/Dim) pair by pair, the correction
// dims and the magnitude in float32. Not the engine's way: a measure of how
// far ggml's own rounding is from the exact angles the CPU backend uses.
func ggmlTables(pos int, r backend.Rope) (cos, sin []float32) {
	y := r.YaRN
	fs := r.PosScale
	thetaScale := float32(math.Pow(float64(float32(r.Base)), -2.0/float64(r.Dim)))
	lo, hi := yarnCorrDims(r.Dim, y.OrigCtx, r.Base, y.BetaFast, y.BetaSlow)
	m := y.AttnFactor * (1 + 0.1*float32(math.Log(float64(1/fs))))
	theta := float32(pos)
	for i := range r.Dim / 2 {
		ti := fs * theta
		ramp := 1 - min(1, max(0, (float32(i)-float32(lo))/max(0.001, float32(hi-lo))))
		mix := ramp * y.ExtFactor
		th := float32(ti*(1-mix)) + float32(theta*mix)
		cos = append(cos, float32(math.Cos(float64(th)))*m)
		sin = append(sin, float32(math.Sin(float64(th)))*m)
		theta *= thetaScale
	}
	return cos, sin
}

// TestYaRNAgainstGGMLRounding measures the difference between the exact
// tables and ggml's float32 ones for gpt-oss's rotation: nothing is wrong
// on either side, but a backend that computes like ggml (remote) differs
// from the CPU by this much at long positions, which its tolerance must
// allow. The bounds are the measured values rounded up.
func TestYaRNAgainstGGMLRounding(t *testing.T) {
	r := backend.Rope{Base: 150000, Dim: 64, PosScale: 1.0 / 32,
		YaRN: &backend.YaRN{ExtFactor: 1, AttnFactor: 1, BetaFast: 32, BetaSlow: 1, OrigCtx: 4096}}
	cos, sin := make([]float32, 32), make([]float32, 32)
	for _, c := range []struct {
		pos   int
		bound float64
	}{{100, 1e-5}, {4096, 1e-4}, {131071, 5e-3}} {
		ropeTables(cos, sin, c.pos, r)
		gc, gs := ggmlTables(c.pos, r)
		var worst float64
		for i := range cos {
			worst = max(worst, math.Abs(float64(cos[i]-gc[i])), math.Abs(float64(sin[i]-gs[i])))
		}
		t.Logf("position %d: ggml's float32 tables differ by %.3g", c.pos, worst)
		if worst > c.bound {
			t.Errorf("position %d: %.3g from ggml's float32 tables, more than the %g measured", c.pos, worst, c.bound)
		}
	}
}

// TestRoPEYaRNCache: the backend's tables are reused for the same
// positions only while the rotation is the same, YaRN's fields included
// (a change of BetaFast alone must recompute them).
func TestRoPEYaRNCache(t *testing.T) {
	const n, heads, hd = 3, 2, 64
	rng := rand.New(rand.NewPCG(11, 12))
	x := make([]float32, n*heads*hd)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	y1 := backend.YaRN{ExtFactor: 1, AttnFactor: 1, BetaFast: 32, BetaSlow: 1, OrigCtx: 4096}
	y2 := y1
	y2.BetaFast = 8
	rot := func(b *Backend, y backend.YaRN) []float32 {
		buf, err := b.Alloc(n, heads*hd)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(buf, 0, x)
		b.RoPE(buf, n, heads, hd, 5000, backend.Rope{Base: 150000, Dim: hd, PosScale: 1.0 / 32, YaRN: &y})
		return append([]float32(nil), b.Host(buf, 0, n)...)
	}
	shared := New(tensor.NewKernels(tensor.NewPool(1)))
	first := rot(shared, y1)
	second := rot(shared, y2)
	fresh := rot(New(tensor.NewKernels(tensor.NewPool(1))), y2)
	same := true
	for i := range second {
		if second[i] != fresh[i] {
			t.Fatalf("value %d: %g after another YaRN's tables, %g on a fresh backend", i, second[i], fresh[i])
		}
		same = same && first[i] == second[i]
	}
	if same {
		t.Fatal("BetaFast 32 and 8 rotate alike: the check cannot tell the tables apart")
	}
}
