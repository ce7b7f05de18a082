// Package backendtest is the backends' conformance suite: Run checks every
// operation of engine/backend's Backend interface against the CPU backend
// (engine/backend/cpu) run on the same inputs, with tolerances per
// operation and per weight type. The optional capabilities are checked
// where a backend implements them: Releaser, Compactor, KVReader and
// HeadProjector against the CPU's; Viewer by running on views what the CPU
// runs on separate buffers of the same rows; Failer after every read back; Placer
// spreads the weights over the first and the last device, so that on
// several every operation reads what another device wrote. The products
// and embedding rows are also checked against a float64 reference from the
// dequantised weights, so that the CPU's own run of the suite checks
// something beyond agreeing with itself.
//
// It is ggml's test-backend-ops for this engine: an operation is tested
// once, here, and every backend runs the same test — cpu (against itself,
// cheaply, in this package's test), cuda (on a GPU, and on its recording
// driver without one) and remote (through real ggml rpc-servers).
//
// # How a backend joins
//
// A backend's test package calls Run with the backend under test and a
// Config: its Tolerances (DefaultTolerances for a backend that computes in
// float32 as the CPU does; a backend with documented differences, such as
// ggml's RoPE angles and GELU table, loosens the fields they touch and says
// why beside them), the weight types its Matrix accepts, and NoValues for
// a backend whose operations run nothing that can be read back (a recording
// driver). Run does not close the backend. Optional capabilities are found
// by type assertion: implementing one is enough for the suite to check it,
// against the CPU's implementation of it.
//
// # How to add an operation
//
// Add the method to backend.Backend (or an optional interface) and
// implement it on all three backends; then add its check here, in the
// subtest of its kind (ops for element-wise and row operations, products,
// attention, or a subtest of its own for a capability), running it on
// both the CPU reference and the backend under test from the same inputs
// and comparing with check (which reads both back and checks Err). Give it
// a field in Tolerances, set in DefaultTolerances, and loosen it where a
// backend's test documents why. Every backend's test then runs it.
package backendtest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/isagi-lab/isagi/engine/backend"
	"github.com/isagi-lab/isagi/engine/backend/cpu"
	"github.com/isagi-lab/isagi/engine/tensor"
)

// Tolerances bound how far the backend under test may be from the CPU
// reference. Except where a field says otherwise, an operation's output
// passes when every value is within tol·(big+1) of the CPU's, big being
// the largest magnitude the CPU wrote.
type Tolerances struct {
	RMSNorm, HeadRMSNorm float64
	// AddBias, Scale and Add act on a row chain that has been through
	// HeadRMSNorm, whose rounding they carry.
	AddBias, Scale, Add float64
	SwiGLU, GeGLU       float64
	RoPE                float64
	// Attend bounds attention outputs, for every KV type the backend stores.
	Attend float64
	// Project bounds a rank-k projection (and an Affiner's affine map);
	// HeadProject the per-head maps.
	Project, HeadProject float64
	// Product bounds a product (Linear, Linears, Logits) in weights of a
	// type, against the CPU's.
	Product func(tensor.Type) float64
	// Reference bounds a product in weights of a type against a float64
	// reference from the dequantised weights and the activations as the
	// CPU's quantised products round them (8-bit blocks of 32, d = amax/127,
	// round half to even), relative per output to Σ|w·x|.
	Reference func(tensor.Type) float64
}

// DefaultTolerances are what a backend meets that computes in float32 as
// the CPU does and rounds a quantised product's activations to the CPU's
// grid, so that the order of float sums is the only difference: the cuda
// kernels meet them on the H100 (scripts/device-check.sh).
func DefaultTolerances() Tolerances {
	return Tolerances{
		RMSNorm: 1e-6, HeadRMSNorm: 1e-6,
		AddBias: 1e-7, Scale: 1e-7, Add: 1e-7,
		SwiGLU: 1e-6, GeGLU: 1e-6,
		RoPE:    1e-5,
		Attend:  1e-5,
		Project: 1e-5, HeadProject: 1e-5,
		Product:   func(tensor.Type) float64 { return 1e-5 },
		Reference: func(tensor.Type) float64 { return 1e-5 },
	}
}

// Config is how a backend runs the suite.
type Config struct {
	// Tol are the tolerances; start from DefaultTolerances.
	Tol Tolerances
	// Types are the weight types whose products and embedding rows are
	// checked; nil means every type tensor.ComputableTypes lists.
	Types []tensor.Type
	// NoValues runs every operation but compares no computed values: for
	// a backend whose kernels do not run (cuda's recording driver, which
	// checks each launch against its kernel instead). Copies (Write, Host,
	// Sync) and failures (Failer) are still checked.
	NoValues bool
	// SinksYaRN says the backend computes AttendOptions.Sinks and
	// Rope.YaRN: the Sinks subtest checks them against float64 references
	// (a backend without them skips it).
	SinksYaRN bool
}

// Run checks b against the CPU backend, one subtest per kind of
// operation. It does not close b.
func Run(t *testing.T, b backend.Backend, cfg Config) {
	t.Helper()
	if cfg.Tol.Product == nil || cfg.Tol.Reference == nil {
		t.Fatal("backendtest: Config.Tol has no product tolerances; start from DefaultTolerances()")
	}
	if cfg.Types == nil {
		cfg.Types = tensor.ComputableTypes()
	}
	s := &suite{b: b, ref: cpu.New(nil), cfg: cfg}
	for _, st := range []struct {
		name string
		run  func(*testing.T)
	}{
		{"Basics", s.basics},
		{"Ops", s.ops},
		{"Products", s.products},
		{"Attention", s.attention},
		{"Share", s.share},
		{"Releaser", s.releaser},
		{"Compactor", s.compactor},
		{"HeadProjector", s.headProjector},
		{"Viewer", s.viewer},
		{"VectorWriter", s.vectorWriter},
		{"Experts", s.experts},
		{"Sinks", s.sinks},
		{"Affiner", s.affiner},
	} {
		t.Run(st.name, func(t *testing.T) {
			st.run(t)
			s.ok(t, st.name)
		})
	}
}

// suite is one run: the backend under test, the CPU reference, and the
// placement Placer alternates.
type suite struct {
	b   backend.Backend
	ref *cpu.Backend
	cfg Config
	on  int
}

// pair is one buffer on the reference (c) and on the backend (g).
type pair struct{ c, g backend.Buffer }

// ok fails t when the backend has failed (Failer).
func (s *suite) ok(t *testing.T, what string) {
	t.Helper()
	if f, ok := s.b.(backend.Failer); ok {
		if err := f.Err(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
}

// place sends the weights bound next to the device of layer (Placer), or
// does nothing on a backend of one device.
func (s *suite) place(layer, layers int) {
	if p, ok := s.b.(backend.Placer); ok {
		p.Place(layer, layers)
	}
}

func (s *suite) alloc(t *testing.T, rows, width int, v []float32) pair {
	t.Helper()
	c, err := s.ref.Alloc(rows, width)
	if err != nil {
		t.Fatal(err)
	}
	g, err := s.b.Alloc(rows, width)
	if err != nil {
		t.Fatalf("Alloc(%d, %d): %v", rows, width, err)
	}
	if v != nil {
		s.ref.Write(c, 0, v)
		s.b.Write(g, 0, v)
	}
	return pair{c, g}
}

// vec binds v on both, alternating the backend's first and last device
// (Placer), so that on several devices every operation reads a buffer
// another one wrote.
func (s *suite) vec(t *testing.T, v []float32) (backend.Vector, backend.Vector) {
	t.Helper()
	s.place(-1+2*s.on, 1) // layer −1: the first device; layer 1 of 1: the last
	s.on = 1 - s.on
	c, _ := s.ref.Vector(v)
	g, err := s.b.Vector(v)
	if err != nil {
		t.Fatalf("Vector: %v", err)
	}
	return c, g
}

// matrix binds m on both.
func (s *suite) matrix(t *testing.T, m *tensor.Matrix) (backend.Matrix, backend.Matrix) {
	t.Helper()
	c, err := s.ref.Matrix(m)
	if err != nil {
		t.Fatal(err)
	}
	g, err := s.b.Matrix(m)
	if err != nil {
		t.Fatalf("Matrix %v %d×%d: %v", m.Type, m.Rows, m.Cols, err)
	}
	return c, g
}

// host copies n rows of the backend's buffer from row0, failing t when the
// backend has failed.
func (s *suite) host(t *testing.T, what string, g backend.Buffer, row0, n int) []float32 {
	t.Helper()
	got := slices.Clone(s.b.Host(g, row0, n))
	s.ok(t, what)
	return got
}

// check compares n rows of p.
func (s *suite) check(t *testing.T, what string, p pair, n int, tol float64) {
	t.Helper()
	got := s.host(t, what, p.g, 0, n)
	s.compare(t, what, got, s.ref.Host(p.c, 0, n), tol)
}

// compare fails when got and want differ by more than tol relative to the
// largest magnitude of want (plus tol absolute).
func (s *suite) compare(t *testing.T, what string, got, want []float32, tol float64) {
	t.Helper()
	if s.cfg.NoValues {
		return
	}
	if len(got) != len(want) {
		t.Errorf("%s: %d values, want %d", what, len(got), len(want))
		return
	}
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

func randVec(r *rand.Rand, n int, scale float64) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.NormFloat64() * scale)
	}
	return v
}

// f32Matrix makes an F32 matrix of v.
func f32Matrix(t *testing.T, rows, cols int, v []float32) *tensor.Matrix {
	t.Helper()
	raw := make([]byte, 4*len(v))
	for i, x := range v {
		u := math.Float32bits(x)
		raw[4*i], raw[4*i+1], raw[4*i+2], raw[4*i+3] = byte(u), byte(u>>8), byte(u>>16), byte(u>>24)
	}
	m, err := tensor.NewMatrix(tensor.F32, rows, cols, raw)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// basics: the backend describes itself, allocates zeroed buffers, and
// copies rows both ways (Write, Host, and Sync after a change made on
// Host's rows).
func (s *suite) basics(t *testing.T) {
	if s.b.Name() == "" {
		t.Error("Name is empty")
	}
	if s.b.BatchSize() < 1 {
		t.Errorf("BatchSize is %d", s.b.BatchSize())
	}
	if s.b.Domain() != s.b.Domain() {
		t.Error("Domain differs from itself")
	}
	const rows, width = 6, 40
	x, err := s.b.Alloc(rows, width)
	if err != nil {
		t.Fatal(err)
	}
	if x.Rows() != rows || x.Width() != width {
		t.Errorf("Alloc(%d, %d) made %d×%d", rows, width, x.Rows(), x.Width())
	}
	for i, v := range s.host(t, "Alloc", x, 0, rows) {
		if v != 0 {
			t.Fatalf("a new buffer holds %g at %d", v, i)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	w := randVec(r, 3*width, 1)
	s.b.Write(x, 2, w)
	got := s.host(t, "Write", x, 0, rows)
	want := make([]float32, rows*width)
	copy(want[2*width:], w)
	if !slices.Equal(got, want) {
		t.Error("Host does not return the rows Write wrote, in their place")
	}
	h := s.b.Host(x, 3, 2)
	for i := range h {
		h[i] = float32(i) - 7
	}
	s.b.Sync(x, 3, h)
	copy(want[3*width:5*width], h)
	if !slices.Equal(s.host(t, "Sync", x, 0, rows), want) {
		t.Error("rows changed on Host's memory did not come back after Sync")
	}
}

// ops runs the row operations, chained as a layer chains them, on one
// device's buffers and the other's weights where there are several.
func (s *suite) ops(t *testing.T) {
	tol := s.cfg.Tol
	cb, gb := s.ref, s.b
	r := rand.New(rand.NewPCG(5, 6))
	const n, D = 5, 576
	x := s.alloc(t, 8, D, randVec(r, 8*D, 1))
	out := s.alloc(t, 8, D, nil)
	wc, wg := s.vec(t, randVec(r, D, 1))
	cb.RMSNorm(out.c, x.c, wc, n, 1e-5)
	gb.RMSNorm(out.g, x.g, wg, n, 1e-5)
	s.check(t, "RMSNorm", out, n, tol.RMSNorm)

	hc, hg := s.vec(t, randVec(r, 64, 1))
	cb.HeadRMSNorm(x.c, hc, n, 9, 1e-6)
	gb.HeadRMSNorm(x.g, hg, n, 9, 1e-6)
	s.check(t, "HeadRMSNorm", x, n, tol.HeadRMSNorm)

	bc, bg := s.vec(t, randVec(r, D, 1))
	cb.AddBias(x.c, bc, n)
	gb.AddBias(x.g, bg, n)
	s.check(t, "AddBias", x, n, tol.AddBias)

	u := s.alloc(t, 8, D, randVec(r, 8*D, 1))
	gl := s.alloc(t, 8, D, randVec(r, 8*D, 3))
	cb.SwiGLU(gl.c, u.c, n)
	gb.SwiGLU(gl.g, u.g, n)
	s.check(t, "SwiGLU", gl, n, tol.SwiGLU)
	ge := s.alloc(t, 8, D, randVec(r, 8*D, 4))
	cb.GeGLU(ge.c, u.c, n)
	gb.GeGLU(ge.g, u.g, n)
	s.check(t, "GeGLU", ge, n, tol.GeGLU)

	cb.Scale(x.c, n, 1.7)
	gb.Scale(x.g, n, 1.7)
	s.check(t, "Scale", x, n, tol.Scale)
	cb.Add(x.c, u.c, n)
	gb.Add(x.g, u.g, n)
	s.check(t, "Add", x, n, tol.Add)

	freqs := make([]float32, 32)
	for i := range freqs {
		freqs[i] = 1 + float32(i)/7
	}
	for _, rp := range []backend.Rope{
		{Base: 10000, Dim: 64},
		{Base: 1e6, Dim: 64, Neox: true},
		{Base: 500000, Dim: 64, Freqs: freqs},
		{Base: 10000, Dim: 32, Scale: 1.2, PosScale: 0.125},
		// gpt-oss's YaRN, then one with every field away from its default.
		{Base: 150000, Dim: 64, PosScale: 1.0 / 32, YaRN: &backend.YaRN{ExtFactor: 1, AttnFactor: 1, BetaFast: 32, BetaSlow: 1, OrigCtx: 4096}},
		{Base: 1e6, Dim: 64, Neox: true, Freqs: freqs, PosScale: 0.25, YaRN: &backend.YaRN{ExtFactor: 0.75, AttnFactor: 0.9, BetaFast: 16, BetaSlow: 2, OrigCtx: 2048}},
	} {
		q := s.alloc(t, 8, D, randVec(r, 8*D, 1))
		cb.RoPE(q.c, n, 9, 64, 1000, rp)
		gb.RoPE(q.g, n, 9, 64, 1000, rp)
		what := fmt.Sprintf("RoPE %+v", rp)
		if rp.YaRN != nil {
			what += fmt.Sprintf(" YaRN %+v", *rp.YaRN)
		}
		s.check(t, what, q, n, tol.RoPE)
	}

	// A rank-3 projection of rows 1…3, its basis on the first device.
	s.place(0, 1)
	pc, pg := s.matrix(t, f32Matrix(t, 3, D, randVec(r, 3*D, 0.05)))
	cb.Project(x.c, 1, 3, pc, -0.7)
	gb.Project(x.g, 1, 3, pg, -0.7)
	s.check(t, "Project", x, n, tol.Project)
}

// actRound puts x on the CPU's activation grid for products of type t:
// per block of 32, d = amax/127 and q = round-half-even(x·127/amax),
// x̂ = d·q (engine/tensor's act); MXFP4's products read d rounded to
// float16, as ggml's Q8_0 activations store it.
func actRound(t tensor.Type, x []float32) []float32 {
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
		if t == tensor.MXFP4 {
			d = tensor.F16ToF32(tensor.F32ToF16(d))
		}
		for i, v := range x[b : b+32] {
			out[b+i] = d * float32(math.RoundToEven(float64(v*id)))
		}
	}
	return out
}

func floatType(t tensor.Type) bool { return t == tensor.F32 || t == tensor.F16 || t == tensor.BF16 }

// product is one weight matrix of the products' check: bound on both, and
// its dequantised values for the reference.
type product struct {
	typ        tensor.Type
	rows, cols int
	w          []float32
	c, g       backend.Matrix
}

func (s *suite) newProduct(t *testing.T, typ tensor.Type, rows, cols int, seed uint64) product {
	t.Helper()
	data := make([]byte, rows*cols/typ.BlockLen()*typ.BlockBytes())
	if err := tensor.FillRandom(typ, data, seed, 0.05); err != nil {
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
	c, g := s.matrix(t, m)
	return product{typ, rows, cols, w, c, g}
}

// reference checks got (n rows of p.rows outputs, packed) against the
// float64 products of p's weights with x (n rows of p.cols, packed).
func (s *suite) reference(t *testing.T, what string, p product, got, x []float32, n int) {
	t.Helper()
	if s.cfg.NoValues {
		return
	}
	if !floatType(p.typ) {
		x = actRound(p.typ, x) // the reference sees what the CPU's quantised products see
	}
	var worst float64
	for i := range n {
		for o := range p.rows {
			var ref, mag float64
			for c := range p.cols {
				v := float64(p.w[o*p.cols+c]) * float64(x[i*p.cols+c])
				ref += v
				mag += math.Abs(v)
			}
			worst = max(worst, math.Abs(float64(got[i*p.rows+o])-ref)/(mag+1e-30))
		}
	}
	if tol := s.cfg.Tol.Reference(p.typ); worst > tol || math.IsNaN(worst) {
		t.Errorf("%s: relative error %.3g against the float64 reference (tolerance %.3g)", what, worst, tol)
	}
}

// products checks every weight type's products — decode's and batched,
// alone (Linear), fused (Linears) and into host memory (Logits) — and its
// embedding rows.
func (s *suite) products(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	batch := min(64, s.b.BatchSize())
	for _, typ := range s.cfg.Types {
		for _, cols := range []int{512, 72} {
			if cols%typ.BlockLen() != 0 {
				continue
			}
			tol := s.cfg.Tol.Product(typ)
			s.place(1, 1) // the last device, where the classifier is
			const rows = 70
			p := s.newProduct(t, typ, rows, cols, uint64(cols))
			for _, n := range []int{1, 5, 64} {
				if n > batch {
					continue
				}
				x := randVec(r, n*cols, 1)
				in := s.alloc(t, batch, cols, x)
				y := s.alloc(t, batch, rows, nil)
				s.ref.Linear(y.c, p.c, in.c, n)
				s.b.Linear(y.g, p.g, in.g, n)
				what := fmt.Sprintf("Linear %v %d×%d, %d rows", typ, rows, cols, n)
				s.reference(t, what, p, s.host(t, what, y.g, 0, n), x, n)
				s.check(t, what, y, n, tol)
			}

			// Two products of one input in one call, of different widths
			// (gate and up, Q and K), and the classifier's rows 2…4.
			n := min(5, batch)
			q := s.newProduct(t, typ, 40, cols, uint64(cols)+1)
			x := randVec(r, n*cols, 1)
			in := s.alloc(t, batch, cols, x)
			y1, y2 := s.alloc(t, batch, rows, nil), s.alloc(t, batch, 40, nil)
			s.ref.Linears(in.c, n, backend.LinearOp{Dst: y1.c, W: p.c}, backend.LinearOp{Dst: y2.c, W: q.c})
			s.b.Linears(in.g, n, backend.LinearOp{Dst: y1.g, W: p.g}, backend.LinearOp{Dst: y2.g, W: q.g})
			for _, o := range []struct {
				y pair
				p product
			}{{y1, p}, {y2, q}} {
				what := fmt.Sprintf("Linears %v %d×%d, %d rows", typ, o.p.rows, cols, n)
				s.reference(t, what, o.p, s.host(t, what, o.y.g, 0, n), x, n)
				s.check(t, what, o.y, n, tol)
			}
			// A product from and into scratch wider than it (a compressed
			// slot's x̃, as wide as the widest rank): the rows are packed
			// at the matrix's shape, not at the buffers' width.
			xs := s.alloc(t, batch, cols+64, x)
			ys := s.alloc(t, batch, rows+8, nil)
			s.ref.Linear(ys.c, p.c, xs.c, n)
			s.b.Linear(ys.g, p.g, xs.g, n)
			what := fmt.Sprintf("Linear %v %d×%d, %d rows packed in wider buffers", typ, rows, cols, n)
			got := s.host(t, what, ys.g, 0, n)[:n*rows]
			s.reference(t, what, p, got, x, n)
			s.compare(t, what, got, s.ref.Host(ys.c, 0, n)[:n*rows], tol)

			if n == 5 {
				lc, lg := make([]float32, 3*rows), make([]float32, 3*rows)
				s.ref.Logits(lc, p.c, in.c, 2, 3)
				s.b.Logits(lg, p.g, in.g, 2, 3)
				s.ok(t, "Logits")
				what := fmt.Sprintf("Logits %v %d×%d", typ, rows, cols)
				s.reference(t, what, p, lg, x[2*cols:], 3)
				s.compare(t, what, lg, lc, tol)
			}

			// Embedding rows decode exactly as the engine's decoder does.
			s.place(-1, 1)
			e := s.newProduct(t, typ, rows, cols, uint64(cols)+2)
			ids := []int32{0, rows - 1, 3, 3}
			eb := s.alloc(t, batch, cols, nil)
			if err := s.ref.Embed(eb.c, e.c, ids); err != nil {
				t.Fatal(err)
			}
			if err := s.b.Embed(eb.g, e.g, ids); err != nil {
				t.Fatalf("Embed %v: %v", typ, err)
			}
			got = s.host(t, "Embed", eb.g, 0, len(ids))
			if s.cfg.NoValues {
				continue
			}
			for i, id := range ids {
				for c := range cols {
					if math.Float32bits(got[i*cols+c]) != math.Float32bits(e.w[int(id)*cols+c]) {
						t.Fatalf("Embed %v: row %d, column %d: %g, want %g", typ, id, c, got[i*cols+c], e.w[int(id)*cols+c])
					}
				}
			}
			s.compare(t, fmt.Sprintf("Embed %v", typ), got, s.ref.Host(eb.c, 0, len(ids)), 0)
		}
	}
}

// attention runs grouped-query attention over a cache filled in three
// steps, for each option, head size and KV type the backend stores, and
// reads a cached slot back (KVReader). The sinks are bound next to the
// cache's layer (layer 1 of 2).
func (s *suite) attention(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	s.place(1, 2)
	sinks := []float32{-2, 0.5, 1.5, 3, -0.5, 0, 2.5, 1}
	sc, err := s.ref.Vector(sinks)
	if err != nil {
		t.Fatal(err)
	}
	sg, err := s.b.Vector(sinks)
	if err != nil {
		t.Fatalf("Vector: %v", err)
	}
	for _, typ := range backend.KVTypes() {
		for _, o := range []backend.AttendOptions{{}, {SoftCap: 5}, {Window: 6}, {Scale: 0.3}, {Sinks: sg}, {Sinks: sg, SoftCap: 5, Window: 6}} {
			oc := o
			if o.Sinks != nil {
				oc.Sinks = sc
			}
			for _, hd := range []int{64, 256, 16} {
				a := backend.Attention{Heads: 8, KVHeads: 2, HeadDim: hd, KV: typ}
				kc, err := s.ref.NewKV(2, 32, a)
				if err != nil {
					continue // no backend stores these heads in this type (CheckHeadDim)
				}
				kg, err := s.b.NewKV(2, 32, a)
				if err != nil {
					if typ == backend.KVF32 {
						t.Fatalf("NewKV %+v: %v", a, err)
					}
					// A backend may refuse a compact type, saying so.
					if err.Error() == "" {
						t.Fatalf("NewKV %+v refused with an empty error", a)
					}
					continue
				}
				if kg.Cap() != 32 {
					t.Errorf("NewKV of 32 positions holds %d", kg.Cap())
				}
				for _, step := range []struct{ pos0, n int }{{0, 11}, {11, 5}, {16, 1}} {
					k := s.alloc(t, 16, 2*hd, randVec(r, 16*2*hd, 1))
					v := s.alloc(t, 16, 2*hd, randVec(r, 16*2*hd, 1))
					q := s.alloc(t, 16, 8*hd, randVec(r, 16*8*hd, 1))
					out := s.alloc(t, 16, 8*hd, nil)
					s.ref.StoreKV(kc, 1, step.pos0, step.n, k.c, v.c)
					s.b.StoreKV(kg, 1, step.pos0, step.n, k.g, v.g)
					s.ref.Attend(out.c, q.c, kc, 1, step.pos0, step.n, oc)
					s.b.Attend(out.g, q.g, kg, 1, step.pos0, step.n, o)
					s.check(t, fmt.Sprintf("Attend %s %+v hd %d at %d", typ, oc, hd, step.pos0), out, step.n, s.cfg.Tol.Attend)
				}
				if kr, ok := s.b.(backend.KVReader); ok {
					gk, gv := make([]float32, 2*hd), make([]float32, 2*hd)
					ck, cv := make([]float32, 2*hd), make([]float32, 2*hd)
					s.ref.ReadKV(kc, 1, 13, ck, cv)
					kr.ReadKV(kg, 1, 13, gk, gv)
					s.ok(t, "ReadKV")
					s.compare(t, fmt.Sprintf("ReadKV %s keys", typ), gk, ck, 0)
					s.compare(t, fmt.Sprintf("ReadKV %s values", typ), gv, cv, 0)
				}
			}
		}
	}
}

// closer is a backend that holds resources until closed (cuda, remote).
type closer interface{ Close() error }

// share: a backend from Share reports the same Domain, runs the weights
// bound on the one it came from, and keeps its own buffers.
func (s *suite) share(t *testing.T) {
	sh, err := s.b.Share()
	if err != nil {
		t.Fatalf("Share: %v", err)
	}
	defer func() {
		if c, ok := sh.(closer); ok {
			if err := c.Close(); err != nil {
				t.Errorf("closing a shared backend: %v", err)
			}
		}
	}()
	if sh.Domain() != s.b.Domain() {
		t.Error("a shared backend reports another Domain")
	}
	r := rand.New(rand.NewPCG(9, 10))
	const rows, cols, n = 48, 256, 3
	mc, mg := s.matrix(t, f32Matrix(t, rows, cols, randVec(r, rows*cols, 0.1)))
	x := randVec(r, n*cols, 1)
	xc, _ := s.ref.Alloc(n, cols)
	yc, _ := s.ref.Alloc(n, rows)
	s.ref.Write(xc, 0, x)
	s.ref.Linear(yc, mc, xc, n)
	xg, err := sh.Alloc(n, cols)
	if err != nil {
		t.Fatal(err)
	}
	yg, err := sh.Alloc(n, rows)
	if err != nil {
		t.Fatal(err)
	}
	sh.Write(xg, 0, x)
	sh.Linear(yg, mg, xg, n)
	got := slices.Clone(sh.Host(yg, 0, n))
	if f, ok := sh.(backend.Failer); ok && f.Err() != nil {
		t.Fatalf("shared backend: %v", f.Err())
	}
	s.compare(t, "Linear on a shared backend", got, s.ref.Host(yc, 0, n), s.cfg.Tol.Product(tensor.F32))
}

// releaser: a released matrix is gone, and the same weights bound again
// compute as before (Releaser).
func (s *suite) releaser(t *testing.T) {
	rel, ok := s.b.(backend.Releaser)
	if !ok {
		t.Skip("the backend does not implement backend.Releaser")
	}
	r := rand.New(rand.NewPCG(11, 12))
	const rows, cols, n = 32, 256, 2
	m := f32Matrix(t, rows, cols, randVec(r, rows*cols, 0.1))
	x := s.alloc(t, n, cols, randVec(r, n*cols, 1))
	for i := range 2 {
		mc, mg := s.matrix(t, m)
		y := s.alloc(t, n, rows, nil)
		s.ref.Linear(y.c, mc, x.c, n)
		s.b.Linear(y.g, mg, x.g, n)
		s.check(t, fmt.Sprintf("Linear, bind %d", i+1), y, n, s.cfg.Tol.Product(tensor.F32))
		rel.Release(mg)
		s.ok(t, "Release")
	}
}

// compactor: eviction (Compactor) on every KV type the backend stores:
// keys and positions read back, a compaction per head, attention and
// stores after it, a refused compaction, CopyKV and Uncompact.
func (s *suite) compactor(t *testing.T) {
	cm, ok := s.b.(backend.Compactor)
	if !ok {
		t.Skip("the backend does not implement backend.Compactor")
	}
	r := rand.New(rand.NewPCG(13, 14))
	const layers, ctx, filled, hd = 2, 24, 12, 32
	for _, typ := range backend.KVTypes() {
		a := backend.Attention{Heads: 4, KVHeads: 2, HeadDim: hd, KV: typ}
		kc, _ := s.ref.NewKV(layers, ctx, a)
		kg, err := s.b.NewKV(layers, ctx, a)
		if err != nil {
			if typ == backend.KVF32 {
				t.Fatal(err)
			}
			continue
		}
		w := a.KVHeads * hd
		for l := range layers {
			k := s.alloc(t, filled, w, randVec(r, filled*w, 1))
			v := s.alloc(t, filled, w, randVec(r, filled*w, 1))
			s.ref.StoreKV(kc, l, 0, filled, k.c, v.c)
			s.b.StoreKV(kg, l, 0, filled, k.g, v.g)
		}
		keys := func(what string, n int) {
			t.Helper()
			for l := range layers {
				for h := range a.KVHeads {
					got := slices.Clone(cm.Keys(kg, l, h, n))
					s.ok(t, what)
					s.compare(t, fmt.Sprintf("%s %s: Keys layer %d head %d", typ, what, l, h), got, s.ref.Keys(kc, l, h, n), 0)
				}
			}
		}
		positions := func(what string, n int) {
			t.Helper()
			for l := range layers {
				for h := range a.KVHeads {
					got, want := make([]int32, n), make([]int32, n)
					cm.Positions(kg, l, h, got)
					s.ref.Positions(kc, l, h, want)
					if !slices.Equal(got, want) {
						t.Errorf("%s %s: Positions layer %d head %d: %v, want %v", typ, what, l, h, got, want)
					}
				}
			}
		}
		keys("filled", filled)
		positions("filled", filled)

		// Each layer and KV head keeps its own 7 of the 12.
		keep := make([][]int32, layers*a.KVHeads)
		for i := range keep {
			for j := range int32(filled) {
				if (int(j)+i)%5 != 0 && len(keep[i]) < 7 {
					keep[i] = append(keep[i], j)
				}
			}
		}
		bad := slices.Clone(keep)
		bad[1] = []int32{3, 1, 2, 4, 5, 6, 7}
		if err := cm.Compact(kg, filled, bad); err == nil {
			t.Errorf("%s: Compact accepted slots out of order", typ)
		}
		positions("after a refused compaction", filled)
		if err := s.ref.Compact(kc, filled, keep); err != nil {
			t.Fatal(err)
		}
		if err := cm.Compact(kg, filled, keep); err != nil {
			t.Fatalf("%s: Compact: %v", typ, err)
		}
		keys("compacted", 7)
		positions("compacted", 7)

		// Rows stored after the compaction continue at the next positions,
		// and attention reads the kept slots and the new ones.
		for _, o := range []backend.AttendOptions{{}, {Window: 6}} {
			for l := range layers {
				k := s.alloc(t, 3, w, randVec(r, 3*w, 1))
				v := s.alloc(t, 3, w, randVec(r, 3*w, 1))
				q := s.alloc(t, 3, a.Heads*hd, randVec(r, 3*a.Heads*hd, 1))
				out := s.alloc(t, 3, a.Heads*hd, nil)
				s.ref.StoreKV(kc, l, 7, 3, k.c, v.c)
				s.b.StoreKV(kg, l, 7, 3, k.g, v.g)
				s.ref.Attend(out.c, q.c, kc, l, 7, 3, o)
				s.b.Attend(out.g, q.g, kg, l, 7, 3, o)
				s.check(t, fmt.Sprintf("%s: Attend %+v after a compaction, layer %d", typ, o, l), out, 3, s.cfg.Tol.Attend)
			}
		}
		positions("after stores", 10)

		// CopyKV: a second cache of the same shape takes the first's slots.
		dc, _ := s.ref.NewKV(layers, ctx, a)
		dg, err := s.b.NewKV(layers, ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.ref.CopyKV(dc, kc, 10); err != nil {
			t.Fatal(err)
		}
		if err := cm.CopyKV(dg, kg, 10); err != nil {
			t.Fatalf("%s: CopyKV: %v", typ, err)
		}
		kc, kg = dc, dg
		keys("copied", 10)
		positions("copied", 10)

		cm.Uncompact(kg)
		s.ref.Uncompact(kc)
		positions("uncompacted", ctx)
	}
}

// headProjector: every head through its group's block, forward and
// transposed, grouped query heads and one block per head (HeadProjector).
func (s *suite) headProjector(t *testing.T) {
	hp, ok := s.b.(backend.HeadProjector)
	if !ok {
		t.Skip("the backend does not implement backend.HeadProjector")
	}
	r := rand.New(rand.NewPCG(15, 16))
	for _, tc := range []struct{ heads, per, r, w, n int }{
		{8, 2, 16, 32, 1}, // queries onto 4 KV heads, decode
		{8, 2, 16, 32, 9}, // the same, a batch
		{4, 1, 6, 32, 3},  // KV heads, each its own block
	} {
		groups := tc.heads / tc.per
		s.place(0, 1)
		mc, mg := s.matrix(t, f32Matrix(t, groups*tc.r, tc.w, randVec(r, groups*tc.r*tc.w, 0.3)))
		for _, transpose := range []bool{false, true} {
			in, out := tc.w, tc.r
			if transpose {
				in, out = tc.r, tc.w
			}
			src := s.alloc(t, tc.n, tc.heads*in, randVec(r, tc.n*tc.heads*in, 1))
			dst := s.alloc(t, tc.n, tc.heads*out, nil)
			s.ref.HeadProject(dst.c, src.c, tc.n, tc.heads, tc.per, mc, transpose)
			hp.HeadProject(dst.g, src.g, tc.n, tc.heads, tc.per, mg, transpose)
			s.check(t, fmt.Sprintf("HeadProject %+v transpose=%v", tc, transpose), dst, tc.n, s.cfg.Tol.HeadProject)
		}
	}
}

// vectorWriter: a vector rewritten in place (VectorWriter, as a steering
// direction that changes between requests is) adds its new values, the
// write of the wrong length is refused, and a released vector is gone
// without disturbing the others.
func (s *suite) vectorWriter(t *testing.T) {
	w, ok := s.b.(backend.VectorWriter)
	if !ok {
		t.Skip("the backend does not implement backend.VectorWriter")
	}
	r := rand.New(rand.NewPCG(21, 22))
	const n, D = 3, 576
	first, second := randVec(r, D, 1), randVec(r, D, 2)
	bc, err := s.ref.Vector(second)
	if err != nil {
		t.Fatal(err)
	}
	bg, err := s.b.Vector(first)
	if err != nil {
		t.Fatal(err)
	}
	other, err := s.b.Vector(first)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteVector(bg, second); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteVector(bg, second[:D-1]); err == nil {
		t.Error("WriteVector of D−1 values into a vector of D was accepted")
	}
	x := s.alloc(t, 4, D, randVec(r, 4*D, 1))
	s.ref.AddBias(x.c, bc, n)
	s.b.AddBias(x.g, bg, n)
	s.check(t, "AddBias of a rewritten vector", x, n, s.cfg.Tol.AddBias)
	w.ReleaseVector(bg)
	// The vector made beside it still works after the release.
	oc, _ := s.ref.Vector(first)
	s.ref.AddBias(x.c, oc, n)
	s.b.AddBias(x.g, other, n)
	s.check(t, "AddBias after another vector's release", x, n, s.cfg.Tol.AddBias)
	w.ReleaseVector(other)
}

// viewer: views of a buffer's rows (Viewer), as engine/model's batched
// step uses them. The backend runs on views what the CPU runs on separate
// buffers holding the same rows: copies through a view land in the
// parent's rows and no others, a row-wise operation on the parent shows
// through the view, RoPE of a view starts at its own first row, and two
// sequences' KV stores and attention on views of one step's rows (each
// at its own cache's slots) match each sequence run on its own.
func (s *suite) viewer(t *testing.T) {
	vw, ok := s.b.(backend.Viewer)
	if !ok {
		t.Skip("the backend does not implement backend.Viewer")
	}
	r := rand.New(rand.NewPCG(17, 18))
	const rows, heads, hd = 7, 4, 64
	const D = heads * hd
	const row0, n = 2, 4 // the view: rows 2…5
	init := randVec(r, rows*D, 1)
	x := s.alloc(t, rows, D, init)
	v := vw.View(x.g, row0, n)
	if v.Rows() != n || v.Width() != D {
		t.Fatalf("View(%d, %d) of a %d×%d buffer is %d×%d", row0, n, rows, D, v.Rows(), v.Width())
	}

	// Copies: exact, and checked on a recording driver too.
	want := slices.Clone(init)
	parent := func(what string) {
		t.Helper()
		if got := s.host(t, what, x.g, 0, rows); !slices.Equal(got, want) {
			t.Errorf("%s: the parent's rows are not the view's writes in their place and the others as they were", what)
		}
	}
	if got := s.host(t, "Host of a view", v, 0, n); !slices.Equal(got, want[row0*D:(row0+n)*D]) {
		t.Error("Host of a view does not return the parent's rows 2…5")
	}
	if got := s.host(t, "Host of a view's rows 1…2", v, 1, 2); !slices.Equal(got, want[(row0+1)*D:(row0+3)*D]) {
		t.Error("Host of a view's rows 1…2 does not return the parent's rows 3…4")
	}
	w := randVec(r, 2*D, 1)
	s.b.Write(v, 1, w)
	copy(want[(row0+1)*D:], w)
	parent("Write through a view")
	h := s.b.Host(v, 2, 2)
	for i := range h {
		h[i] = float32(i) - 11
	}
	s.b.Sync(v, 2, h)
	copy(want[(row0+2)*D:], h)
	parent("Host and Sync through a view")
	sub := vw.View(v, 1, 2) // a view of a view: the parent's rows 3…4
	w = randVec(r, D, 1)
	s.b.Write(sub, 1, w)
	copy(want[(row0+2)*D:], w)
	parent("Write through a view of a view")
	s.ref.Write(x.c, 0, want)

	// A row-wise operation on the parent shows through the view.
	wc, wg := s.vec(t, randVec(r, D, 1))
	s.ref.RMSNorm(x.c, x.c, wc, rows, 1e-5)
	s.b.RMSNorm(x.g, x.g, wg, rows, 1e-5)
	s.compare(t, "RMSNorm of the parent through a view", s.host(t, "RMSNorm", v, 0, n), s.ref.Host(x.c, row0, n), s.cfg.Tol.RMSNorm)

	// RoPE of the view: its row 0 is position pos0. The CPU rotates a
	// separate buffer of the same rows; the parent's other rows stay.
	freqs := make([]float32, hd/2)
	for i := range freqs {
		freqs[i] = 1 + float32(i)/5
	}
	for _, rp := range []backend.Rope{{Base: 10000, Dim: hd}, {Base: 1e6, Dim: hd, Neox: true, Freqs: freqs}} {
		before := s.host(t, "RoPE", x.g, 0, rows)
		sep, _ := s.ref.Alloc(n, D)
		s.ref.Write(sep, 0, before[row0*D:(row0+n)*D])
		s.ref.RoPE(sep, n, heads, hd, 37, rp)
		s.b.RoPE(v, n, heads, hd, 37, rp)
		what := fmt.Sprintf("RoPE %+v of a view", rp)
		after := s.host(t, what, x.g, 0, rows)
		s.compare(t, what, after[row0*D:(row0+n)*D], s.ref.Host(sep, 0, n), s.cfg.Tol.RoPE)
		s.compare(t, what+": the rows before it", after[:row0*D], before[:row0*D], 0)
		s.compare(t, what+": the rows after it", after[(row0+n)*D:], before[(row0+n)*D:], 0)
	}

	// Two sequences in one step: a's 3 rows (rows 0…2, slots 0…2 of its
	// cache) and b's 4 (rows 3…6, slots 5…8 of a cache holding 5 already),
	// each stored and attended through views of the step's q, k, v and
	// out; the CPU runs each on separate buffers.
	a := backend.Attention{Heads: heads, KVHeads: 2, HeadDim: hd}
	kw := a.KVHeads * hd
	type seq struct {
		row0, n, slot0 int
		c, g           backend.KV
	}
	seqs := []*seq{{row0: 0, n: 3, slot0: 0}, {row0: 3, n: 4, slot0: 5}}
	for _, q := range seqs {
		var err error
		q.c, _ = s.ref.NewKV(2, 16, a)
		if q.g, err = s.b.NewKV(2, 16, a); err != nil {
			t.Fatalf("NewKV %+v: %v", a, err)
		}
		if q.slot0 > 0 {
			k := s.alloc(t, q.slot0, kw, randVec(r, q.slot0*kw, 1))
			vals := s.alloc(t, q.slot0, kw, randVec(r, q.slot0*kw, 1))
			s.ref.StoreKV(q.c, 1, 0, q.slot0, k.c, vals.c)
			s.b.StoreKV(q.g, 1, 0, q.slot0, k.g, vals.g)
		}
	}
	kv, vv, qv := randVec(r, rows*kw, 1), randVec(r, rows*kw, 1), randVec(r, rows*D, 1)
	k, val, q := s.alloc(t, rows, kw, kv), s.alloc(t, rows, kw, vv), s.alloc(t, rows, D, qv)
	out := s.alloc(t, rows, D, nil)
	for _, o := range []backend.AttendOptions{{}, {Window: 4}} {
		var ref []float32
		for i, sq := range seqs {
			at := func(p pair) backend.Buffer { return vw.View(p.g, sq.row0, sq.n) }
			slot := sq.slot0
			if o.Window > 0 {
				slot += sq.n // the second pass stores the next rows
			}
			s.b.StoreKV(sq.g, 1, slot, sq.n, at(k), at(val))
			s.b.Attend(at(out), at(q), sq.g, 1, slot, sq.n, o)

			kc, _ := s.ref.Alloc(sq.n, kw)
			vc, _ := s.ref.Alloc(sq.n, kw)
			qc, _ := s.ref.Alloc(sq.n, D)
			oc, _ := s.ref.Alloc(sq.n, D)
			s.ref.Write(kc, 0, kv[sq.row0*kw:(sq.row0+sq.n)*kw])
			s.ref.Write(vc, 0, vv[sq.row0*kw:(sq.row0+sq.n)*kw])
			s.ref.Write(qc, 0, qv[sq.row0*D:(sq.row0+sq.n)*D])
			s.ref.StoreKV(sq.c, 1, slot, sq.n, kc, vc)
			s.ref.Attend(oc, qc, sq.c, 1, slot, sq.n, o)
			ref = append(ref, s.ref.Host(oc, 0, sq.n)...)
			if i == 0 {
				// The first sequence's rows, read through a view before the
				// second writes the rest of out.
				what := fmt.Sprintf("Attend %+v on views, sequence 1 through its view", o)
				s.compare(t, what, s.host(t, what, at(out), 0, sq.n), ref, s.cfg.Tol.Attend)
			}
		}
		what := fmt.Sprintf("Attend %+v on views of one step's rows", o)
		s.compare(t, what, s.host(t, what, out.g, 0, rows), ref, s.cfg.Tol.Attend)
	}
	if kr, ok := s.b.(backend.KVReader); ok {
		// The second sequence's first row from the step went to slot 5 of
		// its own cache.
		gk, gv := make([]float32, kw), make([]float32, kw)
		kr.ReadKV(seqs[1].g, 1, 5, gk, gv)
		s.ok(t, "ReadKV")
		if !s.cfg.NoValues && (!slices.Equal(gk, kv[3*kw:4*kw]) || !slices.Equal(gv, vv[3*kw:4*kw])) {
			t.Error("StoreKV through a view did not store the view's first row at slot0")
		}
	}
}
