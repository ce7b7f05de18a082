package cuda

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/backend/cpu"
	"github.com/isagi-lab/isagi/engine/backend/cuda/cu"
	"github.com/isagi-lab/isagi/engine/model"
	"github.com/isagi-lab/isagi/engine/tensor"
	"github.com/isagi-lab/isagi/gpu"
)

// The tests named TestGPU… and BenchmarkGPU… need a GPU: they skip without
// one, unless ISAGI_REQUIRE_GPU is set (scripts/device-check.sh sets it, so
// that a machine whose GPU cannot be used fails instead of passing by
// skipping). They write JSON records under ISAGI_DEVICE_OUT when it is set.

var gpuOnce struct {
	sync.Once
	g   *Device
	err error
}

func gpuDevice(t testing.TB) *Device {
	t.Helper()
	gpuOnce.Do(func() { gpuOnce.g, gpuOnce.err = Open(Options{}) })
	if gpuOnce.err != nil {
		if os.Getenv("ISAGI_REQUIRE_GPU") != "" {
			t.Fatalf("ISAGI_REQUIRE_GPU is set and the GPU cannot be used: %v", gpuOnce.err)
		}
		t.Skipf("no GPU: %v", gpuOnce.err)
	}
	return gpuOnce.g
}

// record appends one JSON record to ISAGI_DEVICE_OUT/name.
func record(t testing.TB, name string, v any) {
	dir := os.Getenv("ISAGI_DEVICE_OUT")
	if dir == "" {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := fmt.Fprintf(f, "%s\n", b); err != nil {
		t.Fatal(err)
	}
}

// fixtureDir is where the device check's fixtures are: ISAGI_FIXTURES, or
// ../shared/fixtures beside the checkout.
func fixtureDir() string {
	if d := os.Getenv("ISAGI_FIXTURES"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "..", "..", "shared", "fixtures")
}

func randVec(r *rand.Rand, n int, scale float64) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.NormFloat64() * scale)
	}
	return v
}

// TestGPUProducts checks every weight type's products (decode's and the
// batched one) and embedding rows against a float64 reference made from the
// engine's decoder.
func TestGPUProducts(t *testing.T) {
	g := gpuDevice(t)
	b, err := g.NewBackend()
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	r := rand.New(rand.NewPCG(3, 4))
	for _, typ := range tensor.ComputableTypes() {
		for _, cols := range []int{512, 72} {
			if cols%typ.BlockLen() != 0 {
				continue
			}
			const rows = 70
			data := make([]byte, rows*cols/typ.BlockLen()*typ.BlockBytes())
			if err := tensor.FillRandom(typ, data, uint64(cols), 0.05); err != nil {
				t.Fatal(err)
			}
			m, err := tensor.NewMatrix(typ, rows, cols, data)
			if err != nil {
				t.Fatal(err)
			}
			w := make([]float32, rows*cols)
			if err := tensor.Dequantize(typ, w, data); err != nil {
				t.Fatal(err)
			}
			dm, err := b.Matrix(m)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range []int{1, 5, 64} {
				x := randVec(r, n*cols, 1)
				xb, _ := b.Alloc(MaxBatch, cols)
				yb, _ := b.Alloc(MaxBatch, rows)
				b.Write(xb, 0, x)
				if typ != tensor.F32 && typ != tensor.F16 && typ != tensor.BF16 {
					x = actRound(x) // the reference sees what the CPU's quantised products see
				}
				b.Linear(yb, dm, xb, n)
				got := append([]float32(nil), b.Host(yb, 0, n)...)
				if err := b.Err(); err != nil {
					t.Fatal(err)
				}
				var worst float64
				for i := range n {
					for o := range rows {
						var ref, mag float64
						for c := range cols {
							p := float64(w[o*cols+c]) * float64(x[i*cols+c])
							ref += p
							mag += math.Abs(p)
						}
						e := math.Abs(float64(got[i*rows+o])-ref) / (mag + 1e-30)
						worst = max(worst, e)
					}
				}
				if worst > 1e-5 {
					t.Errorf("%v %d×%d, %d rows: relative error %.3g", typ, rows, cols, n, worst)
				}
			}
			// Embedding rows decode exactly as the engine's decoder does.
			eb, _ := b.Alloc(MaxBatch, cols)
			ids := []int32{0, 69, 3, 3}
			if err := b.Embed(eb, dm, ids); err != nil {
				t.Fatal(err)
			}
			got := b.Host(eb, 0, len(ids))
			for i, id := range ids {
				for c := range cols {
					if math.Float32bits(got[i*cols+c]) != math.Float32bits(w[int(id)*cols+c]) {
						t.Fatalf("%v: embedding row %d, column %d: %g, want %g", typ, id, c, got[i*cols+c], w[int(id)*cols+c])
					}
				}
			}
		}
	}
}

// actRound puts x on the CPU engine's activation grid for quantised
// products: per block of 32, d = amax/127 and q = round-half-even(x·127/amax),
// x̂ = d·q (engine/tensor's act, which quant_act reproduces).
func actRound(x []float32) []float32 {
	out := make([]float32, len(x))
	for b := 0; b+32 <= len(x); b += 32 {
		var amax float32
		for _, v := range x[b : b+32] {
			amax = max(amax, float32(math.Abs(float64(v))))
		}
		if amax == 0 {
			continue
		}
		d, id := amax/127, 127/amax
		for i, v := range x[b : b+32] {
			out[b+i] = d * float32(math.RoundToEven(float64(v*id)))
		}
	}
	return out
}

// compare fails when a and b differ by more than tol relative to the
// largest magnitude of b (plus tol absolute).
func compare(t *testing.T, what string, got, want []float32, tol float64) {
	t.Helper()
	var big, worst float64
	for _, v := range want {
		big = max(big, math.Abs(float64(v)))
	}
	at := 0
	for i := range want {
		if e := math.Abs(float64(got[i]) - float64(want[i])); e > worst || math.IsNaN(e) {
			worst, at = e, i
		}
	}
	if worst > tol*(big+1) || math.IsNaN(worst) {
		t.Errorf("%s: differs by %.3g at %d (%g against %g; largest value %g)", what, worst, at, got[at], want[at], big)
	}
}

// TestGPUOps runs every other operation on the GPU and on the CPU backend
// from the same inputs.
func TestGPUOps(t *testing.T) {
	g := gpuDevice(t)
	gb, err := g.NewBackend()
	if err != nil {
		t.Fatal(err)
	}
	defer gb.Close()
	cb := cpu.New(nil)
	r := rand.New(rand.NewPCG(5, 6))
	type pair struct{ c, g backend.Buffer }
	alloc := func(rows, width int, v []float32) pair {
		c, _ := cb.Alloc(rows, width)
		d, _ := gb.Alloc(rows, width)
		if v != nil {
			cb.Write(c, 0, v)
			gb.Write(d, 0, v)
		}
		return pair{c, d}
	}
	vec := func(v []float32) (backend.Vector, backend.Vector) {
		c, _ := cb.Vector(v)
		d, _ := gb.Vector(v)
		return c, d
	}
	check := func(what string, p pair, n int, tol float64) {
		t.Helper()
		want := cb.Host(p.c, 0, n)
		got := gb.Host(p.g, 0, n)
		if err := gb.Err(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		compare(t, what, got, want, tol)
	}
	const n, D = 5, 576
	x := alloc(8, D, randVec(r, 8*D, 1))
	out := alloc(8, D, nil)
	wc, wg := vec(randVec(r, D, 1))
	cb.RMSNorm(out.c, x.c, wc, n, 1e-5)
	gb.RMSNorm(out.g, x.g, wg, n, 1e-5)
	check("RMSNorm", out, n, 1e-6)

	hc, hg := vec(randVec(r, 64, 1))
	cb.HeadRMSNorm(x.c, hc, n, 9, 1e-6)
	gb.HeadRMSNorm(x.g, hg, n, 9, 1e-6)
	check("HeadRMSNorm", x, n, 1e-6)

	bc, bg := vec(randVec(r, D, 1))
	cb.AddBias(x.c, bc, n)
	gb.AddBias(x.g, bg, n)
	check("AddBias", x, n, 1e-7)

	u := alloc(8, D, randVec(r, 8*D, 1))
	gl := alloc(8, D, randVec(r, 8*D, 3))
	cb.SwiGLU(gl.c, u.c, n)
	gb.SwiGLU(gl.g, u.g, n)
	check("SwiGLU", gl, n, 1e-6)
	ge := alloc(8, D, randVec(r, 8*D, 4))
	cb.GeGLU(ge.c, u.c, n)
	gb.GeGLU(ge.g, u.g, n)
	check("GeGLU", ge, n, 1e-6)

	cb.Scale(x.c, n, 1.7)
	gb.Scale(x.g, n, 1.7)
	check("Scale", x, n, 1e-7)
	cb.Add(x.c, u.c, n)
	gb.Add(x.g, u.g, n)
	check("Add", x, n, 1e-7)

	freqs := make([]float32, 32)
	for i := range freqs {
		freqs[i] = 1 + float32(i)/7
	}
	for _, rp := range []backend.Rope{
		{Base: 10000, Dim: 64},
		{Base: 1e6, Dim: 64, Neox: true},
		{Base: 500000, Dim: 64, Freqs: freqs},
		{Base: 10000, Dim: 32, Scale: 1.2, PosScale: 0.125},
	} {
		q := alloc(8, D, randVec(r, 8*D, 1))
		cb.RoPE(q.c, n, 9, 64, 1000, rp)
		gb.RoPE(q.g, n, 9, 64, 1000, rp)
		check(fmt.Sprintf("RoPE %+v", rp), q, n, 1e-5)
	}

	// Attention with grouped heads, over a cache filled in two steps.
	for _, o := range []backend.AttendOptions{{}, {SoftCap: 5}, {Window: 6}, {Scale: 0.3}} {
		for _, hd := range []int{64, 256, 16} {
			a := backend.Attention{Heads: 8, KVHeads: 2, HeadDim: hd}
			kc, _ := cb.NewKV(2, 32, a)
			kg, _ := gb.NewKV(2, 32, a)
			for _, step := range []struct{ pos0, n int }{{0, 11}, {11, 5}, {16, 1}} {
				k := alloc(MaxBatch, 2*hd, randVec(r, MaxBatch*2*hd, 1))
				v := alloc(MaxBatch, 2*hd, randVec(r, MaxBatch*2*hd, 1))
				q := alloc(MaxBatch, 8*hd, randVec(r, MaxBatch*8*hd, 1))
				o2 := alloc(MaxBatch, 8*hd, nil)
				cb.StoreKV(kc, 1, step.pos0, step.n, k.c, v.c)
				gb.StoreKV(kg, 1, step.pos0, step.n, k.g, v.g)
				cb.Attend(o2.c, q.c, kc, 1, step.pos0, step.n, o)
				gb.Attend(o2.g, q.g, kg, 1, step.pos0, step.n, o)
				check(fmt.Sprintf("Attend %+v hd %d at %d", o, hd, step.pos0), o2, step.n, 1e-5)
			}
			kr, vr := make([]float32, 2*hd), make([]float32, 2*hd)
			kw, vw := make([]float32, 2*hd), make([]float32, 2*hd)
			cb.ReadKV(kc, 1, 13, kw, vw)
			gb.ReadKV(kg, 1, 13, kr, vr)
			compare(t, "ReadKV keys", kr, kw, 0)
			compare(t, "ReadKV values", vr, vw, 0)
		}
	}

	// A rank-3 projection.
	basis := make([]byte, 3*D*4)
	for i, v := range randVec(r, 3*D, 0.05) {
		u := math.Float32bits(v)
		basis[4*i], basis[4*i+1], basis[4*i+2], basis[4*i+3] = byte(u), byte(u>>8), byte(u>>16), byte(u>>24)
	}
	bm, _ := tensor.NewMatrix(tensor.F32, 3, D, basis)
	pc, _ := cb.Matrix(bm)
	pg, _ := gb.Matrix(bm)
	cb.Project(x.c, 1, 3, pc, -0.7)
	gb.Project(x.g, 1, 3, pg, -0.7)
	check("Project", x, n, 1e-5)
}

// conformanceModels are the fixture models the GPU must agree with the CPU
// on, relative to the fixture directory, when present (the device check
// carries what fits its transfer; scripts/device-bundle.sh).
var conformanceModels = []string{
	"stories260k/stories260K-f32.gguf", "stories260k/stories260K-f16.gguf",
	"kjv/kjv-f32.gguf", "kjv/kjv-f16.gguf", "kjv/kjv-q8_0.gguf", "kjv/kjv-q4_k_m.gguf", "kjv/kjv-q4_k_s.gguf",
	"quants/kjv-q4_0.gguf", "quants/kjv-q4_1.gguf", "quants/kjv-q5_0.gguf", "quants/kjv-q5_1.gguf",
	"quants/kjv-q2_k.gguf", "quants/kjv-q3_k_s.gguf", "quants/kjv-q3_k_m.gguf", "quants/kjv-q5_k_m.gguf",
	"quants/kjv-q6_k.gguf", "quants/kjv-iq4_nl.gguf", "quants/kjv-iq4_xs.gguf",
	"quants/qwen2-q4_k_m.gguf", "quants/llama-rope-freqs-q4_k_m.gguf",
	"archs/qwen2.gguf", "archs/qwen2-f16.gguf", "archs/qwen3.gguf", "archs/qwen3-f16.gguf",
	"archs/gemma2.gguf", "archs/gemma2-f16.gguf", "archs/llama-rope-freqs.gguf", "archs/llama-rope-freqs-f16.gguf",
}

// conformance is one model's agreement, as the device check records it.
type conformance struct {
	Model      string  `json:"model"`
	Steps      int     `json:"greedy_steps_equal"`
	NearTieAt  int     `json:"near_tie_at"` // -1: none within the steps
	MaxLogit   float64 `json:"first_logits_max_abs_diff"`
	LogitScale float64 `json:"first_logits_max_abs"`
	Tolerance  float64 `json:"tolerance_relative"`
	OK         bool    `json:"ok"`
}

// Tolerances, relative to the largest first-step logit. A greedy step may
// differ only where the CPU's two best logits are within twice the
// tolerance (a near-tie: within what the two sides may differ by).
//
//   - Float weights (F32, F16, BF16): 1e-3. The two sides sum in different
//     orders in float32; measured differences on the H100 are below 5e-5.
//   - Quantised weights: 1e-2. Both sides round activations to the same
//     8-bit grid before the product (quant_act, engine/tensor's act), but
//     a float difference of one ulp before the rounding (the CPU's SwiGLU
//     uses a vectorised exp, for one) can move a code by one step, d =
//     amax/127 of its block; a few such flips moved the first logits of the
//     kjv fixtures by up to 5e-3 of the largest (0.06 of 12) on the H100,
//     while every greedy step agreed.
const (
	logitTolFloat = 1e-3
	logitTolQuant = 1e-2
)

// quantised says whether any of m's matrices is in a quantised type.
func quantised(m *model.Model) bool {
	for _, ti := range m.File().Tensors {
		if len(ti.Dims) >= 2 && ti.Type != tensor.F32 && ti.Type != tensor.F16 && ti.Type != tensor.BF16 {
			return true
		}
	}
	return false
}

// TestGPUConformance decodes greedily on the GPU and on the CPU engine from
// the same prompt, feeding both the CPU's choice, and wants the same token
// at every step up to the first near-tie.
func TestGPUConformance(t *testing.T) {
	g := gpuDevice(t)
	found := 0
	for _, rel := range conformanceModels {
		path := filepath.Join(fixtureDir(), rel)
		if _, err := os.Stat(path); err != nil {
			continue
		}
		found++
		t.Run(rel, func(t *testing.T) {
			m, err := model.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			b, err := g.NewBackend()
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			gs, err := m.NewStateOn(256, b)
			if err != nil {
				t.Fatal(err)
			}
			defer gs.Close()
			cs, err := m.NewStateOn(256, cpu.New(nil))
			if err != nil {
				t.Fatal(err)
			}
			V := m.Config.Vocab
			prompt := []int32{1}
			for i := 1; i < 12; i++ {
				prompt = append(prompt, int32((i*7919+13)%(V-3)+3))
			}
			gl, cl := make([]float32, V), make([]float32, V)
			if err := gs.Forward(prompt, gl); err != nil {
				t.Fatal(err)
			}
			if err := cs.Forward(prompt, cl); err != nil {
				t.Fatal(err)
			}
			c := conformance{Model: rel, NearTieAt: -1, Tolerance: logitTolFloat}
			if quantised(m) {
				c.Tolerance = logitTolQuant
			}
			for i := range cl {
				c.MaxLogit = max(c.MaxLogit, math.Abs(float64(gl[i]-cl[i])))
				c.LogitScale = max(c.LogitScale, math.Abs(float64(cl[i])))
			}
			tol := c.Tolerance * max(c.LogitScale, 1)
			c.OK = c.MaxLogit <= tol
			const steps = 48
			for step := 0; step < steps; step++ {
				best, second := top2(cl)
				if gb := argmax(gl); gb != best {
					if float64(cl[best]-cl[second]) <= 2*tol {
						c.NearTieAt = step
						break
					}
					c.OK = false
					t.Errorf("step %d: GPU chose %d (%g), CPU %d (%g); CPU's margin %g", step, gb, gl[gb], best, cl[best], cl[best]-cl[second])
					break
				}
				c.Steps++
				if step == steps-1 {
					break
				}
				next := []int32{int32(best)}
				if err := gs.Forward(next, gl); err != nil {
					t.Fatal(err)
				}
				if err := cs.Forward(next, cl); err != nil {
					t.Fatal(err)
				}
			}
			if c.MaxLogit > tol {
				t.Errorf("first-step logits differ by %g (largest logit %g)", c.MaxLogit, c.LogitScale)
			}
			t.Logf("%d greedy steps equal, near-tie at %d, first logits max |Δ| %.3g of %.3g", c.Steps, c.NearTieAt, c.MaxLogit, c.LogitScale)
			record(t, "conformance.jsonl", c)
		})
	}
	if found == 0 {
		t.Fatalf("no conformance models under %s", fixtureDir())
	}
}

func argmax(v []float32) int {
	b := 0
	for i, x := range v {
		if x > v[b] {
			b = i
		}
	}
	return b
}

func top2(v []float32) (int, int) {
	a, b := 0, -1
	for i := 1; i < len(v); i++ {
		switch {
		case v[i] > v[a]:
			a, b = i, a
		case b < 0 || v[i] > v[b]:
			b = i
		}
	}
	return a, b
}

// TestGPULeaks runs 1,000 short generations in one process, each on its own
// backend and state, and wants the device's free memory back where it was
// after the first.
func TestGPULeaks(t *testing.T) {
	g := gpuDevice(t)
	path := filepath.Join(fixtureDir(), "kjv", "kjv-q8_0.gguf")
	m, err := model.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	root, err := g.NewBackend()
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	gen := func() {
		sb, err := root.Share()
		if err != nil {
			t.Fatal(err)
		}
		st, err := m.NewStateOn(64, sb)
		if err != nil {
			t.Fatal(err)
		}
		logits := make([]float32, m.Config.Vocab)
		tok := []int32{1, 40, 50, 60, 70, 80, 90, 100}
		if err := st.Forward(tok, logits); err != nil {
			t.Fatal(err)
		}
		for range 8 {
			if err := st.Forward([]int32{int32(argmax(logits))}, logits); err != nil {
				t.Fatal(err)
			}
		}
		st.Close()
		if err := sb.(*Backend).Close(); err != nil {
			t.Fatal(err)
		}
	}
	gen()
	free0, _, err := g.MemInfo()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for range 1000 {
		gen()
	}
	free1, total, err := g.MemInfo()
	if err != nil {
		t.Fatal(err)
	}
	leak := int64(free0) - int64(free1)
	record(t, "leaks.jsonl", map[string]any{"generations": 1000, "free_before": free0, "free_after": free1, "total": total, "leaked_bytes": leak, "seconds": time.Since(start).Seconds()})
	t.Logf("1000 generations in %v: free %d → %d bytes (%+d)", time.Since(start), free0, free1, -leak)
	if leak > 0 {
		t.Errorf("1000 generations left %d bytes of device memory in use", leak)
	}
}

// TestGPUMemcheckDecode is one short decode, for compute-sanitizer.
func TestGPUMemcheckDecode(t *testing.T) {
	g := gpuDevice(t)
	for _, rel := range []string{"stories260k/stories260K-f32.gguf", "archs/gemma2.gguf", "archs/qwen3.gguf"} {
		path := filepath.Join(fixtureDir(), rel)
		m, err := model.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		b, err := g.NewBackend()
		if err != nil {
			t.Fatal(err)
		}
		st, err := m.NewStateOn(64, b)
		if err != nil {
			t.Fatal(err)
		}
		logits := make([]float32, m.Config.Vocab)
		if err := st.Forward([]int32{1, 20, 30, 40, 50}, logits); err != nil {
			t.Fatal(err)
		}
		for range 4 {
			if err := st.Forward([]int32{int32(argmax(logits))}, logits); err != nil {
				t.Fatal(err)
			}
		}
		st.Close()
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
		m.Close()
	}
}

// copyBandwidth measures device-to-device copy bandwidth (bytes read plus
// written per second) over a 1 GiB buffer: the roofline's denominator,
// measured in the same run as the decode it divides.
func copyBandwidth(t testing.TB, g *Device) float64 {
	d, ok := g.d.(*cu.Driver)
	if !ok {
		t.Fatal("not a real driver")
	}
	const n = 1 << 30
	var bw float64
	err := g.with(func() error {
		a, err := d.Alloc(n)
		if err != nil {
			return err
		}
		defer d.Free(a)
		c, err := d.Alloc(n)
		if err != nil {
			return err
		}
		defer d.Free(c)
		best := math.Inf(1)
		for range 5 {
			start := time.Now()
			if err := d.DtoD(c, a, n); err != nil {
				return err
			}
			if err := d.Synchronize(); err != nil {
				return err
			}
			best = min(best, time.Since(start).Seconds())
		}
		bw = 2 * n / best
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return bw
}

// power samples NVML every 20 ms until stop, and returns the mean draw.
func power(stop <-chan struct{}) <-chan float64 {
	out := make(chan float64, 1)
	go func() {
		n, err := gpu.NewNVML()
		if err != nil {
			<-stop
			out <- 0
			return
		}
		defer n.Close()
		var sum float64
		var k int
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				if k == 0 {
					out <- 0
				} else {
					out <- sum / float64(k)
				}
				return
			case <-tick.C:
				if s, err := n.Sample(); err == nil && s.PowerW > 0 {
					sum += s.PowerW
					k++
				}
			}
		}
	}()
	return out
}

// decodeBytes is what a decode step reads of the weights: every matrix but
// the embedding table, of which one row is read — unless the classifier
// is tied to it, when it is read whole.
func decodeBytes(m *model.Model) int64 {
	f := m.File()
	_, untied := f.Tensor("output.weight")
	var n int64
	for _, ti := range f.Tensors {
		if len(ti.Dims) < 2 || (untied && ti.Name == "token_embd.weight") {
			continue
		}
		n += int64(ti.Size)
	}
	return n
}

// launchOverhead times one tiny operation (Scale of 32 values) through the
// backend, which makes the context current and launches per operation, and
// the same launch straight through the driver on a locked thread: what a
// decode step of a small model spends per operation before the GPU works.
func launchOverhead(b *testing.B, g *Device) {
	be, err := g.NewBackend()
	if err != nil {
		b.Fatal(err)
	}
	defer be.Close()
	x, _ := be.Alloc(1, 32)
	const n = 20000
	timeIt := func(f func()) float64 {
		be.Host(x, 0, 1)
		start := time.Now()
		for range n {
			f()
		}
		be.Host(x, 0, 1) // waits for the launches
		return time.Since(start).Seconds() / n * 1e6
	}
	viaBackend := timeIt(func() { be.Scale(x, 1, 1) })
	d := g.d.(*cu.Driver)
	var raw float64
	g.with(func() error {
		raw = timeIt(func() {
			be.args.Reset().Ptr(db(x).p).I32(32).F32(1)
			d.Launch(g.k.scale, [3]uint32{1, 1, 1}, [3]uint32{256, 1, 1}, 0, 0, be.args)
		})
		return nil
	})
	b.Logf("launch overhead: %.2f µs an operation through the backend, %.2f µs a bare launch", viaBackend, raw)
	record(b, "launch.jsonl", map[string]any{"backend_us": viaBackend, "bare_launch_us": raw, "device": g.Name()})
}

// BenchmarkGPU times prefill (128 tokens) and decode (16 tokens from a
// depth of 128)
// of the models listed in ISAGI_BENCH_MODELS (comma-separated GGUF paths),
// and reports tok/s, the share of the copy-bandwidth roofline a decode step
// reaches (weight bytes per token × tok/s ÷ bandwidth), and tokens per
// joule from NVML's power during the decode.
func BenchmarkGPU(b *testing.B) {
	list := os.Getenv("ISAGI_BENCH_MODELS")
	if list == "" {
		b.Skip("ISAGI_BENCH_MODELS names no models")
	}
	g := gpuDevice(b)
	bw := copyBandwidth(b, g)
	b.Logf("copy bandwidth %.0f GB/s", bw/1e9)
	launchOverhead(b, g)
	for _, path := range strings.Split(list, ",") {
		name := strings.TrimSuffix(filepath.Base(path), ".gguf")
		m, err := model.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		be, err := g.NewBackend()
		if err != nil {
			b.Fatal(err)
		}
		st, err := m.NewStateOn(1024, be)
		if err != nil {
			b.Fatal(err)
		}
		logits := make([]float32, m.Config.Vocab)
		prompt := make([]int32, 128)
		for i := range prompt {
			prompt[i] = int32(3 + i*31%(m.Config.Vocab-3))
		}
		rec := map[string]any{"model": name, "copy_bandwidth_gbs": bw / 1e9, "weight_bytes_per_token": decodeBytes(m), "device": g.Name()}
		b.Run(name+"/prefill128", func(b *testing.B) {
			for b.Loop() {
				st.Reset()
				if err := st.Forward(prompt, logits); err != nil {
					b.Fatal(err)
				}
			}
			tps := float64(b.N*len(prompt)) / b.Elapsed().Seconds()
			b.ReportMetric(tps, "tok/s")
			rec["prefill_tok_s"] = tps
		})
		b.Run(name+"/decode", func(b *testing.B) {
			st.Reset()
			if err := st.Forward(prompt, logits); err != nil {
				b.Fatal(err)
			}
			// 16 tokens an iteration, from a depth of 128 to 144.
			const steps = 16
			tok := []int32{5}
			stop := make(chan struct{})
			pw := power(stop)
			for b.Loop() {
				st.Truncate(len(prompt))
				for range steps {
					if err := st.Forward(tok, logits); err != nil {
						b.Fatal(err)
					}
				}
			}
			close(stop)
			watts := <-pw
			tps := float64(b.N*steps) / b.Elapsed().Seconds()
			roof := float64(decodeBytes(m)) * tps / bw
			b.ReportMetric(tps, "tok/s")
			b.ReportMetric(100*roof, "%roofline")
			rec["decode_tok_s"] = tps
			rec["decode_roofline_pct"] = 100 * roof
			if watts > 0 {
				b.ReportMetric(tps/watts, "tok/J")
				rec["power_w"] = watts
				rec["tokens_per_joule"] = tps / watts
			}
		})
		record(b, "bench.jsonl", rec)
		st.Close()
		if err := be.Close(); err != nil {
			b.Fatal(err)
		}
		m.Close()
	}
}

// TestOpenWithoutGPU: on a machine without a usable GPU, Open fails with
// ErrUnavailable and one sentence, and nothing exits.
func TestOpenWithoutGPU(t *testing.T) {
	g, err := Open(Options{})
	if err == nil {
		g.Close()
		t.Skip("a GPU is present")
	}
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Open failed with %v, which does not wrap ErrUnavailable", err)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("the error is more than one line: %q", err)
	}
	t.Logf("without a GPU: %v", err)
}
