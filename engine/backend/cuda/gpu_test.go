package cuda

import (
	"encoding/binary"
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
	"unsafe"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/backend/backendtest"
	"github.com/isagi-lab/isagi/engine/backend/cpu"
	"github.com/isagi-lab/isagi/engine/backend/cuda/cu"
	"github.com/isagi-lab/isagi/engine/backend/cuda/internal/hostq"
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

// TestGPUBackend runs the backends' conformance suite
// (engine/backend/backendtest) on the GPU: every weight type's products
// (1, 5 and 64 rows, alone and fused, and the logits) against a float64
// reference and the CPU backend, embedding rows bit for bit, and every
// other operation against the CPU backend from the same inputs, at
// backendtest's default tolerances: the kernels compute in float32 and
// round a quantised product's activations to the CPU's grid (quant_act).
//
// Decode's products of the types dp4aType lists (Q8_0, Q4_0, Q5_0, Q4_K, Q5_K,
// Q6_K, Q4_1, Q5_1, IQ4_NL, IQ4_XS, Q2_K, Q3_K, TQ1_0, TQ2_0, IQ2_XXS, IQ2_XS,
// IQ2_S, IQ3_XXS, IQ3_S, IQ1_S and IQ1_M) run on
// integer dot products (quant_q8, mvq_/mvqk_): the suite checks them as it
// checks every product, then again with the float products (mv_) in their
// place, and int-decode wants each row's value to be the host harness's
// lane-by-lane emulation of the kernel bit for bit (the activations'
// codes, scales and sums too), and the CPU backend's up to the order of
// the blocks' terms.
func TestGPUBackend(t *testing.T) {
	g := gpuDevice(t)
	b, err := g.NewBackend()
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	backendtest.Run(t, b, suiteConfig(true))
	t.Run("float-decode", func(t *testing.T) {
		g.floatDecode = true
		defer func() { g.floatDecode = false }()
		backendtest.Run(t, b, floatDecodeConfig(true))
	})
	t.Run("int-decode", func(t *testing.T) { checkIntDecode(t, b) })
	t.Run("fusions", func(t *testing.T) {
		checkFusions(t, b)
		checkGated(t, b)
		checkRoPEStore(t, b)
	})
}

// checkFewRows runs the product of w over a few rows of activations at
// once (mvqn_, mvqnk_) and wants every row's values to be the ones a
// decode step of that row alone gives, bit for bit: a batch of a few
// decoding sequences computes what each computes alone.
func checkFewRows(t *testing.T, b *Backend, w backend.Matrix, typ tensor.Type, rows, cols int, r *rand.Rand) {
	t.Helper()
	for _, n := range []int{3, mvqnMax} {
		xs := make([]float32, n*cols)
		for i := range xs {
			xs[i] = float32(r.NormFloat64())
		}
		gx, _ := b.Alloc(n, cols)
		gy, _ := b.Alloc(n, rows)
		one, _ := b.Alloc(1, cols)
		oy, _ := b.Alloc(1, rows)
		b.Write(gx, 0, xs)
		b.Linear(gy, w, gx, n)
		batch := append([]float32(nil), b.Host(gy, 0, n)...)
		for c := range n {
			b.Write(one, 0, xs[c*cols:(c+1)*cols])
			b.Linear(oy, w, one, 1)
			alone := b.Host(oy, 0, 1)
			for i := range rows {
				if got, want := batch[c*rows+i], alone[i]; math.Float32bits(got) != math.Float32bits(want) {
					t.Fatalf("%v, %d×%d, %d rows at once: row %d of activation row %d is %g, %g alone", typ, rows, cols, n, i, c, got, want)
				}
			}
		}
		if err := b.Err(); err != nil {
			t.Fatal(err)
		}
	}
}

// checkIntDecode runs decode's integer products on the GPU for every type
// that has them, at row counts that take either kernel (mvqk_, mvq_), and
// compares with the host harness's emulation (bit for bit) and the CPU
// backend (relative to the row's magnitude, 1e-5: the same integer sums,
// added in another order).
func checkIntDecode(t *testing.T, b *Backend) {
	if !hostq.Available {
		t.Skip("the host harness needs cgo")
	}
	cb := cpu.New(nil)
	r := rand.New(rand.NewPCG(51, 51))
	for _, typ := range []tensor.Type{tensor.Q8_0, tensor.Q4_0, tensor.Q5_0, tensor.Q4_K, tensor.Q5_K, tensor.Q6_K,
		tensor.Q4_1, tensor.Q5_1, tensor.IQ4_NL, tensor.IQ4_XS, tensor.Q2_K, tensor.Q3_K,
		tensor.TQ1_0, tensor.TQ2_0, tensor.IQ2_XXS, tensor.IQ2_XS, tensor.IQ2_S, tensor.IQ3_XXS, tensor.IQ3_S, tensor.IQ1_S, tensor.IQ1_M} {
		for _, shape := range [][2]int{{96, 512}, {1000, 4096}, {mvqMinRows, 2048}} {
			rows, cols := shape[0], shape[1]
			rb, _ := typ.RowBytes(uint64(cols))
			data := make([]byte, rows*int(rb))
			if err := tensor.FillRandom(typ, data, uint64(rows*cols), 0.05); err != nil {
				t.Fatal(err)
			}
			m, err := tensor.NewMatrix(typ, rows, cols, data)
			if err != nil {
				t.Fatal(err)
			}
			x := make([]float32, cols)
			for i := range x {
				x[i] = float32(r.NormFloat64())
			}
			gw, err := b.Matrix(m)
			if err != nil {
				t.Fatal(err)
			}
			gx, _ := b.Alloc(1, cols)
			gy, _ := b.Alloc(1, rows)
			b.Write(gx, 0, x)
			b.Linear(gy, gw, gx, 1)
			got := append([]float32(nil), b.Host(gy, 0, 1)...)
			checkFewRows(t, b, gw, typ, rows, cols, r)
			qb := make([]byte, cols+8*(cols/32))
			if err := b.g.with(func() error { return b.g.d.DtoH(unsafe.Pointer(&qb[0]), b.q8, uint64(len(qb))) }); err != nil {
				t.Fatal(err)
			}
			b.Release(gw)
			if err := b.Err(); err != nil {
				t.Fatal(err)
			}
			q, d, s := hostq.QuantAct8(x)
			for i := range q {
				if int8(qb[i]) != q[i] {
					t.Fatalf("%v: quant_q8's code %d is %d, the harness's %d", typ, i, int8(qb[i]), q[i])
				}
			}
			for k := range d {
				gd := math.Float32frombits(binary.LittleEndian.Uint32(qb[cols+4*k:]))
				gs := math.Float32frombits(binary.LittleEndian.Uint32(qb[cols+4*(cols/32)+4*k:]))
				if math.Float32bits(gd) != math.Float32bits(d[k]) || math.Float32bits(gs) != math.Float32bits(s[k]) {
					t.Fatalf("%v: quant_q8's block %d has d %g s %g, the harness's %g %g", typ, k, gd, gs, d[k], s[k])
				}
			}
			cw, err := cb.Matrix(m)
			if err != nil {
				t.Fatal(err)
			}
			cx, _ := cb.Alloc(1, cols)
			cy, _ := cb.Alloc(1, rows)
			cb.Write(cx, 0, x)
			cb.Linear(cy, cw, cx, 1)
			ref := cb.Host(cy, 0, 1)
			sh, u := 4, 1
			if rows >= mvqMinRows {
				sh, u = 1, 2
			}
			for i := range rows {
				row := data[i*int(rb) : (i+1)*int(rb)]
				want, _ := hostq.RowProductQ8(typ, row, cols, q, d, s, sh, u)
				if math.Float32bits(got[i]) != math.Float32bits(want) {
					t.Fatalf("%v, %d×%d: row %d is %g on the GPU, %g in the harness's emulation of the kernel", typ, rows, cols, i, got[i], want)
				}
				var mag float64
				for _, p := range hostq.Pieces(typ, row, cols, q, d, s) {
					mag += math.Abs(float64(p.Acc)) + 16*math.Abs(float64(p.AccM))
				}
				if e := math.Abs(float64(got[i])-float64(ref[i])) / (mag + 1e-30); !(e <= 1e-5) {
					t.Fatalf("%v, %d×%d: row %d is %g on the GPU, %g on the CPU (error %.2g of the terms' magnitude)", typ, rows, cols, i, got[i], ref[i], e)
				}
			}
		}
	}
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
// at every step up to the first near-tie; then, on the GPU alone, decode by
// one CUDA graph a step against plain launches, bit for bit (graphVsPlain).
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
			tol := logitTolFloat
			if quantised(m) {
				tol = logitTolQuant
			}
			r := backendtest.Greedy(t, gs, cs, 48, tol)
			c := conformance{Model: rel, Steps: r.Equal, NearTieAt: r.NearTieAt, MaxLogit: r.MaxLogit,
				LogitScale: r.LogitScale, Tolerance: tol, OK: r.OK}
			record(t, "conformance.jsonl", c)
			// One CUDA graph a decode step against plain launches, bit
			// for bit (gpu_graph_test.go).
			graphVsPlain(t, g, m, rel)
		})
	}
	if found == 0 {
		t.Fatalf("no conformance models under %s", fixtureDir())
	}
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
			if err := st.Forward([]int32{int32(backendtest.Argmax(logits))}, logits); err != nil {
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
			if err := st.Forward([]int32{int32(backendtest.Argmax(logits))}, logits); err != nil {
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

// copyBandwidth is the device's copy bandwidth (Device.CopyBandwidth): the
// roofline's denominator, measured in the same run as the decode it
// divides.
func copyBandwidth(t testing.TB, g *Device) float64 {
	bw, err := g.CopyBandwidth()
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

// moeShapes are the MoE feed-forward layers BenchmarkGPUExperts times: one
// layer of Qwen3-30B-A3B (2048 wide, 128 experts of 768, top 8) in Q4_K,
// and of gpt-oss-20b (2880 wide, 32 experts of 2880, top 4) in MXFP4.
var moeShapes = []struct {
	name                   string
	typ                    tensor.Type
	width, ffn, experts, k int
}{
	{"qwen3moe-30b-a3b-layer-q4_k", tensor.Q4_K, 2048, 768, 128, 8},
	{"gpt-oss-20b-layer-mxfp4", tensor.MXFP4, 2880, 2880, 32, 4},
}

// BenchmarkGPUExperts times one MoE layer on the device — route, gate and
// up, SwiGLU, down, the weighted sum — for a decode token and a batch of
// 64, and reports the chosen experts' bytes read per second (decode reads
// only the k experts' rows).
func BenchmarkGPUExperts(b *testing.B) {
	g := gpuDevice(b)
	for _, sh := range moeShapes {
		be, err := g.NewBackend()
		if err != nil {
			b.Fatal(err)
		}
		stack := func(rows, cols int, seed uint64) backend.Matrix {
			ms := make([]*tensor.Matrix, sh.experts)
			whole := randomMatrix(b, sh.typ, sh.experts*rows, cols, seed)
			per := len(whole.Data) / sh.experts
			for e := range ms {
				ms[e] = &tensor.Matrix{Type: sh.typ, Rows: rows, Cols: cols, Data: whole.Data[e*per : (e+1)*per]}
			}
			w, err := be.ExpertMatrix(ms)
			if err != nil {
				b.Fatal(err)
			}
			return w
		}
		gate, up, down := stack(sh.ffn, sh.width, 1), stack(sh.ffn, sh.width, 2), stack(sh.width, sh.ffn, 3)
		expertBytes := 3 * sh.ffn * sh.width / sh.typ.BlockLen() * sh.typ.BlockBytes()
		for _, n := range []int{1, 64} {
			r, _ := be.AllocRoute(n, sh.k)
			logits, _ := be.Alloc(n, sh.experts)
			x, _ := be.Alloc(n, sh.width)
			gb, _ := be.Alloc(n*sh.k, sh.ffn)
			ub, _ := be.Alloc(n*sh.k, sh.ffn)
			yb, _ := be.Alloc(n*sh.k, sh.width)
			out, _ := be.Alloc(n, sh.width)
			lg := make([]float32, n*sh.experts)
			for i := range lg {
				lg[i] = float32(i*7919%sh.experts) / 10
			}
			be.Write(logits, 0, lg)
			xs := make([]float32, n*sh.width)
			for i := range xs {
				xs[i] = float32(i%13) / 13
			}
			be.Write(x, 0, xs)
			ids, ws := make([]int32, n*sh.k), make([]float32, n*sh.k)
			layer := func() {
				be.Route(r, logits, n, backend.RouteOptions{Gating: backend.GateSoftmax, K: sh.k, Norm: true})
				be.ExpertLinears(r, x, n, false, backend.ExpertOp{Dst: gb, W: gate}, backend.ExpertOp{Dst: ub, W: up})
				be.SwiGLU(gb, ub, n*sh.k)
				be.ExpertLinears(r, gb, n, true, backend.ExpertOp{Dst: yb, W: down})
				be.Combine(out, yb, r, n)
			}
			name := fmt.Sprintf("%s/%d", sh.name, n)
			b.Run(name, func(b *testing.B) {
				layer()
				be.ReadRoute(r, n, ids, ws) // waits for the device
				// Each timed iteration waits for the device (launches
				// return before their kernels run).
				const reps = 20
				for b.Loop() {
					for range reps {
						layer()
					}
					be.ReadRoute(r, n, ids, ws)
				}
				if err := be.Err(); err != nil {
					b.Fatal(err)
				}
				us := b.Elapsed().Seconds() * 1e6 / float64(b.N*reps)
				b.ReportMetric(us, "µs/layer")
				rec := map[string]any{"shape": sh.name, "rows": n, "us_per_layer": us, "device": g.Name()}
				if n == 1 {
					gbs := float64(sh.k*expertBytes) / (us * 1e-6) / 1e9
					b.ReportMetric(gbs, "GB/s")
					rec["active_expert_gbs"] = gbs
				}
				record(b, "experts.jsonl", rec)
			})
		}
		if err := be.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
