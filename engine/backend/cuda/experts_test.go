package cuda

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// randomMatrix is a rows × cols matrix of random blocks of typ: the
// engine's FillRandom for the types it computes with, and for MXFP4 (which
// the CPU engine may not compute with yet, so that tensor.NewMatrix refuses
// it) random codes with exponents near 2^−4.
func randomMatrix(t testing.TB, typ tensor.Type, rows, cols int, seed uint64) *tensor.Matrix {
	t.Helper()
	data := make([]byte, rows*cols/typ.BlockLen()*typ.BlockBytes())
	if typ == tensor.MXFP4 {
		r := rand.New(rand.NewPCG(seed, 1))
		for i := range data {
			data[i] = byte(r.Uint32())
			if i%17 == 0 {
				data[i] = byte(120 + r.IntN(6))
			}
		}
		return &tensor.Matrix{Type: typ, Rows: rows, Cols: cols, Data: data}
	}
	if err := tensor.FillRandom(typ, data, seed, 0.05); err != nil {
		t.Fatal(err)
	}
	m, err := tensor.NewMatrix(typ, rows, cols, data)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// exerciseExperts runs every operation of backend.Experts on b, for every
// type the kernels decode, in decode's shape (one row) and a batch's, with
// and without biases, and MXFP4's dense products and embedding rows: on
// the recording driver every launch is checked against its kernel.
func exerciseExperts(t *testing.T, b *Backend) {
	const E, k, rows, cols = 6, 2, 40, 256
	for _, typ := range SupportedTypes() {
		stack := make([]*tensor.Matrix, E)
		// One 3-D tensor's experts, back to back (uploaded in one copy).
		whole := randomMatrix(t, typ, E*rows, cols, uint64(typ))
		rb := len(whole.Data) / E
		for e := range stack {
			stack[e] = &tensor.Matrix{Type: typ, Rows: rows, Cols: cols, Data: whole.Data[e*rb : (e+1)*rb]}
		}
		w, err := b.ExpertMatrix(stack)
		if err != nil {
			t.Fatalf("%v: %v", typ, err)
		}
		biases := make([]*tensor.Matrix, E)
		for e := range biases {
			biases[e] = randomMatrix(t, tensor.F32, 1, rows, uint64(e))
		}
		bias, err := b.ExpertMatrix(biases)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{1, 5} {
			r, err := b.AllocRoute(n, k)
			if err != nil {
				t.Fatal(err)
			}
			logits, _ := b.Alloc(n, E)
			x, _ := b.Alloc(n*k, cols)
			y, _ := b.Alloc(n*k, rows)
			out, _ := b.Alloc(n, rows)
			mask, _ := b.Vector(make([]float32, E))
			b.Route(r, logits, n, backend.RouteOptions{Gating: backend.GateSoftmax, K: k, Norm: true, Mask: mask, SelectBias: mask})
			b.ExpertLinears(r, x, n, false, backend.ExpertOp{Dst: y, W: w, Bias: bias}, backend.ExpertOp{Dst: y, W: w})
			b.SwiGLUOAI(y, y, n*k, 1.702, 7)
			b.ExpertLinears(r, x, n, true, backend.ExpertOp{Dst: y, W: w})
			b.Combine(out, y, r, n)
			ids, ws := make([]int32, n*k), make([]float32, n*k)
			b.ReadRoute(r, n, ids, ws)
		}
		if typ == tensor.MXFP4 {
			m, err := b.Matrix(randomMatrix(t, typ, rows, cols, 3))
			if err != nil {
				t.Fatal(err)
			}
			x, _ := b.Alloc(MaxBatch, cols)
			y, _ := b.Alloc(MaxBatch, rows)
			b.Linear(y, m, x, 1)
			b.Linear(y, m, x, 5)
			if err := b.Embed(x, m, []int32{0, 3}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
}

// TestExpertsOnRecorder runs the expert operations on the recording driver
// and checks the launches: a decode step's expert products are one launch
// an op over the k experts' rows, reading the ids from device memory (no
// copy to the host), and a batch's are grouped by expert first.
func TestExpertsOnRecorder(t *testing.T) {
	g, f := newFakeDevice(t)
	b, err := g.NewBackend()
	if err != nil {
		t.Fatal(err)
	}
	const E, k, rows, cols = 8, 2, 48, 256
	stack := make([]*tensor.Matrix, E)
	for e := range stack {
		stack[e] = randomMatrix(t, tensor.Q4_K, rows, cols, uint64(e))
	}
	w, err := b.ExpertMatrix(stack)
	if err != nil {
		t.Fatal(err)
	}
	if w2, err := b.ExpertMatrix(stack); err != nil || w2 != w {
		t.Fatalf("binding a stack twice: %v, same binding %v", err, w2 == w)
	}
	if r, c := w.Shape(); r != rows || c != cols {
		t.Errorf("a stack's shape is %d×%d, want one expert's %d×%d", r, c, rows, cols)
	}
	for _, n := range []int{1, 4} {
		r, _ := b.AllocRoute(4, k)
		logits, _ := b.Alloc(4, E)
		x, _ := b.Alloc(4, cols)
		y, _ := b.Alloc(4*k, rows)
		out, _ := b.Alloc(4, rows)
		f.record, f.launches = true, f.launches[:0]
		copies := f.copies
		b.Route(r, logits, n, backend.RouteOptions{Gating: backend.GateSoftmaxWeight, K: k})
		b.ExpertLinears(r, x, n, false, backend.ExpertOp{Dst: y, W: w})
		b.Combine(out, y, r, n)
		f.record = false
		var names []string
		for _, l := range f.launches {
			names = append(names, l.name)
		}
		want := "route quant_act mvid_q4_k combine"
		if n > 1 {
			want = "route group_experts quant_act mmid_q4_k combine"
		}
		if got := strings.Join(names, " "); got != want {
			t.Errorf("%d rows: launched %q, want %q", n, got, want)
		}
		if f.copies != copies {
			t.Errorf("%d rows: %d copies between the device and the host during a layer", n, f.copies-copies)
		}
		if pl := f.launches[2]; n == 1 && (pl.grid[0] != rows || pl.grid[1] != k) {
			t.Errorf("decode's expert product launched over %v, want %d rows × %d experts", pl.grid, rows, k)
		}
	}
	// The misuses fail the backend in a sentence rather than launch.
	r, _ := b.AllocRoute(2, 3)
	logits, _ := b.Alloc(2, E)
	b.Route(r, logits, 2, backend.RouteOptions{K: 2})
	if err := b.Err(); err == nil || !strings.Contains(err.Error(), "choosing 2 of 8 experts with a routing of 3") {
		t.Errorf("a route of another k: %v", err)
	}
	for _, e := range f.errs {
		t.Error(e)
	}
	b.Close()
	g.Close()
	if len(f.mem) != 0 {
		t.Errorf("%d allocations left after Close", len(f.mem))
	}
}

// TestExpertMatrixRefuses: a stack of unlike matrices, or of a type the
// kernels do not decode, is refused in one sentence, and nothing is left
// allocated.
func TestExpertMatrixRefuses(t *testing.T) {
	g, f := newFakeDevice(t)
	b, _ := g.NewBackend()
	before := len(f.mem)
	a := randomMatrix(t, tensor.Q8_0, 4, 64, 1)
	c := randomMatrix(t, tensor.Q8_0, 4, 96, 2)
	for _, tc := range []struct {
		ms   []*tensor.Matrix
		want string
	}{
		{nil, "no matrices"},
		{[]*tensor.Matrix{a, c}, "expert 1 of a stack is not a 4×64 Q8_0 matrix"},
		{[]*tensor.Matrix{{Type: tensor.Q8_K, Rows: 1, Cols: 256, Data: make([]byte, 292)}}, "do not decode Q8_K"},
	} {
		if _, err := b.ExpertMatrix(tc.ms); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v, want an error saying %q", err, tc.want)
		}
	}
	if len(f.mem) != before {
		t.Errorf("%d allocations made by refused stacks", len(f.mem)-before)
	}
	b.Close()
	g.Close()
}

// TestYaRNCorrDims checks the host's correction dimensions against ggml's
// formula evaluated here in float64, and that a YaRN without a training
// context fails the backend instead of rotating by NaN.
func TestYaRNCorrDims(t *testing.T) {
	r := backend.Rope{Base: 150000, Dim: 64, PosScale: 1.0 / 32, YaRN: &backend.YaRN{ExtFactor: 1, AttnFactor: 1, BetaFast: 32, BetaSlow: 1, OrigCtx: 4096}}
	c0, c1, err := yarnCorr(r)
	if err != nil {
		t.Fatal(err)
	}
	d := func(beta float64) float64 { return 64 * math.Log(4096/(beta*2*math.Pi)) / (2 * math.Log(150000)) }
	if want0, want1 := math.Max(0, math.Floor(d(32))), math.Min(63, math.Ceil(d(1))); float64(c0) != want0 || float64(c1) != want1 {
		t.Errorf("corr dims %v, %v; want %v, %v", c0, c1, want0, want1)
	}
	// gpt-oss's: ⌊8.09⌋ = 8 and ⌈17.4⌉ = 18 (d(32) and d(1) at base 150000,
	// 64 dimensions, 4096 positions).
	if c0 != 8 || c1 != 18 {
		t.Errorf("gpt-oss's corr dims are %v, %v; want 8, 18", c0, c1)
	}
	g, _ := newFakeDevice(t)
	b, _ := g.NewBackend()
	x, _ := b.Alloc(1, 64)
	bad := r
	bad.YaRN = &backend.YaRN{ExtFactor: 1, AttnFactor: 1}
	b.RoPE(x, 1, 1, 64, 0, bad)
	if err := b.Err(); err == nil || !strings.Contains(err.Error(), "YaRN needs a training context") {
		t.Errorf("YaRN without a context: %v", err)
	}
	b.Close()
	g.Close()
}

// TestSinksMustMatchHeads: a sink vector of another length than the heads
// fails the backend in a sentence.
func TestSinksMustMatchHeads(t *testing.T) {
	g, _ := newFakeDevice(t)
	b, _ := g.NewBackend()
	a := backend.Attention{Heads: 4, KVHeads: 2, HeadDim: 32}
	c, err := b.NewKV(1, 8, a)
	if err != nil {
		t.Fatal(err)
	}
	q, _ := b.Alloc(1, 4*32)
	out, _ := b.Alloc(1, 4*32)
	sinks, _ := b.Vector(make([]float32, 3))
	b.Attend(out, q, c, 0, 0, 1, backend.AttendOptions{Sinks: sinks})
	if err := b.Err(); err == nil || !strings.Contains(err.Error(), "3 sink logits for 4 heads") {
		t.Errorf("3 sinks for 4 heads: %v", err)
	}
	b.Close()
	g.Close()
}
